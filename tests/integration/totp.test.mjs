// Two-factor sign-in (PROTOCOL.md, "Accounts"), with the codes computed
// here by a second implementation of RFC 6238 (node's HMAC-SHA1), as an
// authenticator app would: set up (a secret pending until a first code),
// in force with ten recovery codes, then every login asks for a code; a
// code is good once (its step), a recovery code once; through a restart;
// turned off with a recovery code. Wrong codes get clear errors and no
// session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startServer, api, register } from './lib.mjs';

function base32(text) {
    const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    let bits = '';
    for (const ch of text) bits += A.indexOf(ch).toString(2).padStart(5, '0');
    const bytes = [];
    for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
    return Buffer.from(bytes);
}

// The 6-digit code of key at unix time t (RFC 6238 over RFC 4226).
function totp(key, t) {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(Math.floor(t / 30)));
    const mac = createHmac('sha1', key).update(counter).digest();
    const o = mac[19] & 15;
    const n = (mac.readUInt32BE(o) & 0x7fffffff) % 1e6;
    return String(n).padStart(6, '0');
}

const login = (srv, body) => api(srv, 'POST', '/api/login', { username: 'tf_ann', password: 'correct horse', ...body });

test('two-factor sign-in: set up, codes at login (each once), recovery codes, a restart, turned off', async () => {
    let srv = await startServer();
    try {
        // RFC 6238's first vector, by this file's own implementation.
        assert.equal(totp(Buffer.from('12345678901234567890'), 59), '287082');
        const cookie = await register(srv, 'tf_ann');
        assert.equal((await api(srv, 'GET', '/api/2fa')).status, 401);
        assert.deepEqual((await api(srv, 'GET', '/api/2fa', undefined, cookie)).json, { enabled: false, pending: false, recovery_left: 0 });
        assert.equal((await api(srv, 'POST', '/api/2fa/enable', { code: '123456' }, cookie)).json.error, 'totp_off');

        const setup = await api(srv, 'POST', '/api/2fa/setup', {}, cookie);
        assert.equal(setup.status, 200, setup.text);
        assert.match(setup.json.secret, /^[A-Z2-7]{32}$/);
        assert.equal(setup.json.uri, `otpauth://totp/chameleon:tf_ann?secret=${setup.json.secret}&issuer=chameleon&algorithm=SHA1&digits=6&period=30`);
        assert.deepEqual((await api(srv, 'GET', '/api/2fa', undefined, cookie)).json, { enabled: false, pending: true, recovery_left: 0 });
        // Pending: a login needs no code yet.
        assert.equal((await login(srv, {})).status, 200);
        const key = base32(setup.json.secret);
        const now = () => Date.now() / 1000;

        // A wrong first code: refused, still pending. Bad bodies: 400.
        const wrong = totp(key, now() + 300);
        assert.equal((await api(srv, 'POST', '/api/2fa/enable', { code: wrong }, cookie)).json.error, 'bad_totp');
        for (const body of [{}, { code: '' }, { code: 5 }])
            assert.equal((await api(srv, 'POST', '/api/2fa/enable', body, cookie)).status, 400, JSON.stringify(body));
        const on = await api(srv, 'POST', '/api/2fa/enable', { code: totp(key, now()) }, cookie);
        assert.equal(on.status, 200, on.text);
        assert.equal(on.json.enabled, true);
        const codes = on.json.recovery_codes;
        assert.equal(codes.length, 10);
        for (const c of codes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
        assert.equal(new Set(codes).size, 10);
        assert.deepEqual((await api(srv, 'GET', '/api/2fa', undefined, cookie)).json, { enabled: true, pending: false, recovery_left: 10 });
        assert.equal((await api(srv, 'POST', '/api/2fa/setup', {}, cookie)).json.error, 'totp_on');

        // Login: no code, a wrong one, then the next step's (one step of drift).
        let r = await login(srv, {});
        assert.equal(r.status, 401);
        assert.equal(r.json.error, 'totp_required');
        assert.equal(r.cookie, '');
        // The wrong password still says only that, code or not.
        r = await api(srv, 'POST', '/api/login', { username: 'tf_ann', password: 'wrong horse', code: totp(key, now()) });
        assert.equal(r.json.error, 'bad_login');
        r = await login(srv, { code: wrong });
        assert.equal(r.json.error, 'bad_totp');
        const next = totp(key, now() + 30);
        r = await login(srv, { code: next });
        assert.equal(r.status, 200, r.text);
        assert.match(r.cookie, /^chameleon_session=[0-9a-f]{64}$/);
        // The same code again: used.
        r = await login(srv, { code: next });
        assert.equal(r.json.error, 'bad_totp');

        // A recovery code, in capitals and without its dash: once.
        const rc = codes[0].replace('-', '').toUpperCase();
        r = await login(srv, { code: rc });
        assert.equal(r.status, 200, r.text);
        r = await login(srv, { code: rc });
        assert.equal(r.json.error, 'bad_totp');

        // Kept across a restart of the server.
        await srv.stop(true);
        srv = await startServer([], { dir: srv.dir });
        r = await login(srv, {});
        assert.equal(r.json.error, 'totp_required');
        r = await login(srv, { code: codes[1] });
        assert.equal(r.status, 200, r.text);
        const fresh = r.cookie;
        assert.equal((await api(srv, 'GET', '/api/2fa', undefined, fresh)).json.recovery_left, 8);

        // Off: a wrong code refused, a recovery code takes it.
        assert.equal((await api(srv, 'POST', '/api/2fa/disable', { code: '000000' }, fresh)).json.error, 'bad_totp');
        assert.equal((await api(srv, 'POST', '/api/2fa/disable', { code: codes[0] }, fresh)).json.error, 'bad_totp', 'a used recovery code');
        const off = await api(srv, 'POST', '/api/2fa/disable', { code: codes[2] }, fresh);
        assert.deepEqual(off.json, { enabled: false, pending: false, recovery_left: 0 });
        assert.deepEqual((await api(srv, 'GET', '/api/2fa', undefined, fresh)).json, { enabled: false, pending: false, recovery_left: 0 });
        assert.equal((await login(srv, {})).status, 200);
        assert.equal((await api(srv, 'POST', '/api/2fa/disable', { code: codes[3] }, fresh)).json.error, 'totp_off');
        // Codes tried are throttled per account: five, then a wait.
        for (let i = 0; i < 4; i++)
            assert.equal((await api(srv, 'POST', '/api/2fa/disable', { code: '000000' }, fresh)).status, 409);
        const held = await fetch(`${srv.http}/api/2fa/enable`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: fresh }, body: '{"code":"000000"}' });
        assert.equal(held.status, 429);
        assert.equal((await held.json()).error, 'too_many_attempts');
        assert.ok(Number(held.headers.get('retry-after')) >= 1);
    } finally {
        await srv.stop();
    }
});
