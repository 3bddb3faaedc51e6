// Login and registration throttling, the bounded argon2id queue, passwords
// counted in characters (issue 18, items 5 and 11). The real server on
// loopback; a second client address is 127.0.0.2 (all of 127/8 is local).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startServer } from '../integration/lib.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// POST a JSON body (or raw bytes) on a fresh connection, from localAddress.
function post(srv, path, body, localAddress = '127.0.0.1') {
    const data = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    return new Promise((ok, fail) => {
        const req = request({
            host: '127.0.0.1', port: srv.port, path, method: 'POST', localAddress, agent: false,
            headers: { 'content-type': 'application/json', 'content-length': data.length },
        }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => { text += d; });
            res.on('end', () => {
                let json = null;
                try { json = JSON.parse(text); } catch { /* not JSON */ }
                ok({ status: res.statusCode, headers: res.headers, json, text });
            });
        });
        req.on('error', fail);
        req.end(data);
    });
}

const login = (srv, username, password, from) => post(srv, '/api/login', { username, password }, from);
const register = (srv, username, password, from) =>
    post(srv, '/api/register', { username, password }, from);

async function metric(srv, name) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const m = text.match(new RegExp(`^chameleon_${name} (\\d+)$`, 'm'));
    assert.ok(m, `metric ${name} in /metrics`);
    return Number(m[1]);
}

// A 429 or 503 answer: its code, a reason, a Retry-After in whole seconds.
function refused(r, status, code) {
    assert.equal(r.status, status, JSON.stringify(r.json));
    assert.equal(r.json.error, code);
    assert.ok(typeof r.json.reason === 'string' && r.json.reason.length > 0);
    assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
    return Number(r.headers['retry-after']);
}

test('login per account: 5 failures, then 429 with Retry-After, even for the right password; growing delays; a success clears', async () => {
    const srv = await startServer();
    try {
        assert.equal((await register(srv, 'alice', 'correct horse')).status, 200);
        for (let i = 0; i < 5; i++) {
            const r = await login(srv, 'alice', 'wrong password');
            assert.equal(r.status, 401);
            assert.equal(r.json.error, 'bad_login');
        }
        let wait = refused(await login(srv, 'alice', 'wrong password'), 429, 'too_many_attempts');
        assert.equal(wait, 1, 'the first delay is a second');
        // The right password waits too (and the name's case does not help).
        refused(await login(srv, 'ALICE', 'correct horse'), 429, 'too_many_attempts');
        await sleep(wait * 1000 + 100);
        const ok = await login(srv, 'alice', 'correct horse');
        assert.equal(ok.status, 200);
        assert.equal(ok.json.username, 'alice');
        assert.match(String(ok.headers['set-cookie']), /chameleon_session=/);

        // The success cleared the count: five failures again, then the
        // delays double: 1 s after the fifth, 2 s after the sixth.
        for (let i = 0; i < 5; i++)
            assert.equal((await login(srv, 'alice', 'wrong password')).status, 401);
        wait = refused(await login(srv, 'alice', 'wrong password'), 429, 'too_many_attempts');
        await sleep(wait * 1000 + 100);
        const sixth = Date.now(); // the server lets it through at or after this
        assert.equal((await login(srv, 'alice', 'wrong password')).status, 401);
        wait = refused(await login(srv, 'alice', 'correct horse'), 429, 'too_many_attempts');
        assert.equal(wait, 2, 'the second delay is two seconds');
        // Longer than the first delay after the sixth: still waiting.
        await sleep(Math.max(0, sixth + 1200 - Date.now()));
        wait = refused(await login(srv, 'alice', 'correct horse'), 429, 'too_many_attempts');
        await sleep(wait * 1000 + 100);
        assert.equal((await login(srv, 'alice', 'correct horse')).status, 200);

        // An unknown name is throttled the same way (no hint that it exists).
        for (let i = 0; i < 5; i++)
            assert.equal((await login(srv, 'nobody', 'wrong password')).status, 401);
        refused(await login(srv, 'nobody', 'wrong password'), 429, 'too_many_attempts');
        assert.ok(await metric(srv, 'login_throttled_total') >= 5);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('login per address: failures across accounts count for the address, not for another address', async () => {
    const srv = await startServer(['--login-failures-per-address', '4']);
    try {
        for (const n of ['bob1', 'bob2', 'bob3', 'bob4', 'bob5'])
            assert.equal((await register(srv, n, 'correct horse')).status, 200);
        for (const n of ['bob1', 'bob2', 'bob3', 'bob4'])
            assert.equal((await login(srv, n, 'wrong password')).status, 401);
        // bob5 never failed, but its address did four times.
        const wait = refused(await login(srv, 'bob5', 'correct horse'), 429, 'too_many_attempts');
        assert.equal(wait, 1);
        // Another address is not held back.
        const other = await login(srv, 'bob5', 'correct horse', '127.0.0.2');
        assert.equal(other.status, 200);
        // Successes give back their own cost: many good logins from one
        // address never reach the limit.
        for (let i = 0; i < 8; i++)
            assert.equal((await login(srv, 'bob5', 'correct horse', '127.0.0.3')).status, 200);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('registration per address: a few accounts, then 429 with Retry-After', async () => {
    const srv = await startServer(['--register-per-address', '3']);
    try {
        for (const n of ['carol1', 'carol2', 'carol3'])
            assert.equal((await register(srv, n, 'correct horse')).status, 200);
        const wait = refused(await register(srv, 'carol4', 'correct horse'), 429, 'too_many_attempts');
        assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
        // Not counted against an account that does not exist yet: from
        // another address the same name is free.
        assert.equal((await register(srv, 'carol4', 'correct horse', '127.0.0.2')).status, 200);
        assert.equal(await metric(srv, 'register_throttled_total'), 1);
        // Logging in is not registering.
        assert.equal((await login(srv, 'carol1', 'correct horse')).status, 200);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

// VmRSS / VmHWM of a process, in bytes.
function memory(pid) {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(st.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))[1]) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

test('1,000 concurrent logins: the excess answered 503 busy at once, argon2id memory bounded', async () => {
    // Distinct names and a lenient address limit: only the hashing queue
    // limits this burst.
    const srv = await startServer(['--login-failures-per-address', '1000000']);
    try {
        assert.equal((await register(srv, 'dave', 'correct horse')).status, 200);
        const before = memory(srv.pid);
        let peak = before.rss;
        const sampler = setInterval(() => {
            try { peak = Math.max(peak, memory(srv.pid).rss); } catch { /* exited */ }
        }, 5);
        const t0 = Date.now();
        const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) =>
            login(srv, i % 400 === 0 ? 'dave' : `user${i}`, i % 400 === 0 ? 'correct horse' : 'wrong password')));
        const ms = Date.now() - t0;
        clearInterval(sampler);
        const after = memory(srv.pid);
        peak = Math.max(peak, after.hwm);
        const by = {};
        for (const r of answers) by[r.status] = (by[r.status] || 0) + 1;
        for (const r of answers) {
            assert.ok([200, 401, 503].includes(r.status), `status ${r.status}`);
            if (r.status === 503)
                assert.equal(refused(r, 503, 'busy'), 1);
        }
        assert.ok(by[503] >= 500, `most of the burst is refused: ${JSON.stringify(by)}`);
        assert.ok((by[401] || 0) + (by[200] || 0) >= 66, `the queue's worth is answered: ${JSON.stringify(by)}`);
        assert.equal(await metric(srv, 'password_busy_total'), by[503]);
        assert.equal(await metric(srv, 'password_hashes_queued'), 0);
        // At most min(cores, 4) hashes of 64 MiB at once, plus slack for the
        // connections; without the queue libuv ran 4 at once.
        const k = Math.min(availableParallelism(), 4);
        const bound = before.rss + k * 64 * 2 ** 20 + 80 * 2 ** 20;
        console.log(`burst: ${JSON.stringify(by)} in ${ms} ms; RSS before ${(before.rss / 2 ** 20).toFixed(0)} MiB,` +
            ` peak ${(peak / 2 ** 20).toFixed(0)} MiB (bound ${(bound / 2 ** 20).toFixed(0)} MiB)`);
        assert.ok(peak < bound, `peak RSS ${peak} < ${bound}`);
        // The server still answers.
        assert.equal((await login(srv, 'dave', 'correct horse')).status, 200);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('passwords: 8 to 128 characters counted as code points, not bytes', async () => {
    const srv = await startServer();
    try {
        const e8 = 'é'.repeat(8); // 16 bytes, 8 characters
        let r = await register(srv, 'erin', e8);
        assert.equal(r.status, 200, JSON.stringify(r.json));
        assert.equal((await login(srv, 'erin', e8)).status, 200);
        r = await register(srv, 'erin2', '😀'.repeat(7)); // 28 bytes, 7 characters
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_password');
        r = await register(srv, 'erin3', '😀'.repeat(128)); // 512 bytes, 128 characters
        assert.equal(r.status, 200, JSON.stringify(r.json));
        assert.equal((await login(srv, 'erin3', '😀'.repeat(128))).status, 200);
        r = await register(srv, 'erin4', 'a'.repeat(129));
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_password');
        r = await register(srv, 'erin5', 'é'.repeat(129));
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_password');
        // Invalid UTF-8 never reaches a password: the JSON parser refuses
        // the body (lone surrogate escapes as well).
        const raw = Buffer.concat([Buffer.from('{"username":"erin6","password":"abcdefg'),
            Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
        r = await post(srv, '/api/register', raw);
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_message');
        r = await post(srv, '/api/register', Buffer.from('{"username":"erin6","password":"abcdefgh\\ud800"}'));
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_message');
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});
