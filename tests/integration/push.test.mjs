// Web Push (PROTOCOL.md, "Web Push and in-tab notices") against a push
// endpoint written for the test: a Node http server on loopback (the server
// runs with --push-allow-http 1, since real push services are https). The
// endpoint checks each request as a push service would: the VAPID
// Authorization (RFC 8292: "vapid t=<JWT>, k=<key>", the JWT's aud, exp and
// sub, its ES256 signature checked with node:crypto against k, which must
// be GET /api/push/key), TTL, Urgency and Content-Encoding: aes128gcm; then
// it decrypts the body (RFC 8291: ECDH with the subscription's private
// key, HKDF with its auth secret, AES-128-GCM) and the test reads the JSON.
//  - the HTTP API: the key, subscribe (account only, bad keys and URLs
//    refused with a reason), unsubscribe;
//  - "your move" only when the player to move has no connection open; a
//    503 is retried (the message then arrives once); an endpoint that
//    answers 410 has its subscription removed (and counted);
//  - the low-time alarm at 80% of a live clock, to a player away;
//  - the VAPID key pair survives a restart (same key).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startServer, connect, startGame, firstMover } from './lib.mjs';
import { SUBJECT, b64u, pushService, browserKeys, decrypt, api, account, subscription } from './push_peer.mjs';

const unb64u = (s) => Buffer.from(s, 'base64url');

// Check a request as a push service does; returns the JWT's claims.
function checkVapid(req, key, base) {
    const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(req.headers.authorization || '');
    assert.ok(m, `Authorization: ${req.headers.authorization}`);
    assert.equal(m[2], key, 'k is the server\'s VAPID public key');
    const [h, c, s] = m[1].split('.');
    assert.deepEqual(JSON.parse(unb64u(h)), { typ: 'JWT', alg: 'ES256' });
    const claims = JSON.parse(unb64u(c));
    assert.equal(claims.aud, base, 'aud: the push service\'s origin');
    assert.equal(claims.sub, SUBJECT);
    const now = Date.now() / 1000;
    assert.ok(claims.exp > now && claims.exp <= now + 24 * 3600, `exp ${claims.exp}`);
    const raw = unb64u(key);
    const pk = crypto.createPublicKey({
        key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) },
        format: 'jwk',
    });
    assert.ok(crypto.verify('sha256', Buffer.from(`${h}.${c}`), { key: pk, dsaEncoding: 'ieee-p1363' }, unb64u(s)),
        'the JWT\'s signature verifies with k');
    assert.ok(Number(req.headers.ttl) > 0, 'TTL');
    assert.equal(req.headers['content-encoding'], 'aes128gcm');
    return claims;
}

async function metric(srv, name) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const m = new RegExp(`^chameleon_${name} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
}

// Play the first legal move of `who` (to move in room) and wait for it to
// come back; returns the event (its `legal`: the next player's moves).
async function play(who, room, legal) {
    who.send({ type: 'move', room, move: legal[0], id: 9999 });
    return who.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'move' && m.move === legal[0], 'my move back');
}

// `other` closes its connection; `watcher` sees it go.
async function leave(other, watcher, room) {
    other.close();
    await other.closed_();
    await watcher.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'presence' && m.connected === false, 'presence gone');
}


test('Web Push: API, your move with retry and 410, low time, keys kept', { timeout: 120000 }, async () => {
    const svc = await pushService();
    let srv = await startServer(['--vapid-subject', SUBJECT, '--push-allow-http', '1', '--push-allow-loopback', '1']);
    try {
        // The key.
        const k = await api(srv, 'GET', '/api/push/key');
        assert.equal(k.status, 200);
        const key = k.json.key;
        assert.equal(unb64u(key).length, 65);
        assert.equal(unb64u(key)[0], 4);

        const a = await account(srv);
        const b = await account(srv);
        const kb = browserKeys();
        const ep1 = `${svc.base}/ep/b1`;
        const ep2 = `${svc.base}/ep/b2`;

        // Refusals: no account, bad keys, a URL no push service gives.
        let r = await api(srv, 'POST', '/api/push/subscribe', subscription(ep1, kb));
        assert.equal(r.status, 401);
        assert.equal(r.json.error, 'account_required');
        r = await api(srv, 'POST', '/api/push/subscribe', { endpoint: ep1, keys: { p256dh: 'AAAA', auth: b64u(kb.auth) } }, b.cookie);
        assert.equal(r.status, 400);
        assert.match(r.json.reason, /p256dh/);
        const offCurve = Buffer.from(kb.pub);
        offCurve[40] ^= 1;
        r = await api(srv, 'POST', '/api/push/subscribe', { endpoint: ep1, keys: { p256dh: b64u(offCurve), auth: b64u(kb.auth) } }, b.cookie);
        assert.equal(r.status, 400);
        r = await api(srv, 'POST', '/api/push/subscribe', subscription('ftp://127.0.0.1/x', kb), b.cookie);
        assert.equal(r.status, 400);
        assert.match(r.json.reason, /https/);
        r = await api(srv, 'POST', '/api/push/subscribe', { keys: {} }, b.cookie);
        assert.equal(r.status, 400);
        assert.equal(r.json.error, 'bad_message');

        // Two subscriptions of b: b1 answers 503 once (retried), b2 410.
        svc.script.set('/ep/b1', [503, 201]);
        svc.script.set('/ep/b2', [410]);
        for (const ep of [ep1, ep2]) {
            r = await api(srv, 'POST', '/api/push/subscribe', subscription(ep, kb), b.cookie);
            assert.equal(r.status, 200, JSON.stringify(r.json));
        }

        // A game: moves while b is connected push nothing; once b has
        // gone, a's move pushes "your move" to b.
        const ca = await connect(srv.url, {}, { Cookie: a.cookie });
        let cb = await connect(srv.url, {}, { Cookie: b.cookie });
        const { room, states } = await startGame([ca, cb], 'ultima');
        const { mover, st } = firstMover([ca, cb], states);
        let legal = st.legal;
        if (mover === cb) legal = (await play(cb, room, legal)).legal;
        legal = (await play(ca, room, legal)).legal; // b is on the site: no push
        legal = (await play(cb, room, legal)).legal;
        await leave(cb, ca, room);
        assert.equal(svc.got.length, 0, 'nothing pushed while b was connected');
        const sent0 = await metric(srv, 'push_sent_total');
        await play(ca, room, legal);

        await svc.until((g) => g.filter((x) => x.path === '/ep/b1').length === 2, 'b1: 503 then 201');
        await svc.until((g) => g.some((x) => x.path === '/ep/b2'), 'b2: 410');
        const b1 = svc.got.filter((x) => x.path === '/ep/b1');
        assert.deepEqual(b1.map((x) => x.status), [503, 201]);
        assert.ok(b1[1].at - b1[0].at >= 500, `retried after a back-off (${b1[1].at - b1[0].at} ms)`);
        for (const req of b1) {
            checkVapid(req, key, svc.base);
            assert.equal(req.headers.urgency, 'normal');
            const msg = decrypt(req.body, kb);
            assert.deepEqual(msg, { kind: 'your_move', game: room, variant: 'ultima', url: `/#/game/${room}`, opponent: a.name });
        }
        // Counted, and b2's subscription is gone.
        const until = Date.now() + 10000;
        while (await metric(srv, 'push_removed_total') < 1 || await metric(srv, 'push_sent_total') < sent0 + 1) {
            assert.ok(Date.now() < until, 'metrics counted');
            await new Promise((ok) => setTimeout(ok, 100));
        }
        assert.equal(await metric(srv, 'push_removed_total'), 1);
        assert.equal(await metric(srv, 'push_sent_total'), 1);
        assert.equal(await metric(srv, 'push_failed_total'), 0);
        r = await api(srv, 'POST', '/api/push/unsubscribe', { endpoint: ep2 }, b.cookie);
        assert.deepEqual(r.json, { ok: true, removed: false }, 'the 410 removed b2');
        const n1 = svc.got.length;

        // Low time: a live game of 4 s each; b away while its clock runs:
        // at 80% used, one "low_time" push (urgent) with about 0.8 s left.
        // A seat's clock runs from its second turn (PROTOCOL.md, clocks),
        // so both move once before b goes, and b's second turn is timed.
        cb = await connect(srv.url, {}, { Cookie: b.cookie });
        const g2 = await startGame([ca, cb], 'ultima', { base_ms: 4000, inc_ms: 0 });
        const f2 = firstMover([ca, cb], g2.states);
        let ev = await play(f2.mover, g2.room, f2.st.legal);
        const second = f2.mover === ca ? cb : ca;
        await second.waitFor((m) => m.type === 'event' && m.room === g2.room && m.kind === 'move', 'the first move seen');
        ev = await play(second, g2.room, ev.legal);
        if (f2.mover === ca) {
            await ca.waitFor((m) => m.type === 'event' && m.room === g2.room && m.kind === 'move' && m.move === ev.move, 'b\'s move seen');
            await leave(cb, ca, g2.room);
            await play(ca, g2.room, ev.legal);
        } else {
            await leave(cb, ca, g2.room);
        }
        await svc.until((g) => g.slice(n1).some((x) => x.path === '/ep/b1' && decrypt(x.body, kb).kind === 'low_time'), 'low_time push');
        const low = svc.got.slice(n1).filter((x) => decrypt(x.body, kb).kind === 'low_time');
        assert.equal(low.length, 1);
        checkVapid(low[0], key, svc.base);
        assert.equal(low[0].headers.urgency, 'high');
        const lm = decrypt(low[0].body, kb);
        assert.equal(lm.game, g2.room);
        assert.ok(lm.ms_left > 0 && lm.ms_left <= 1000, `ms_left ${lm.ms_left}`);
        assert.equal(svc.got.slice(n1).filter((x) => x.path === '/ep/b2').length, 0, 'nothing to the removed b2');

        // Unsubscribe b1.
        r = await api(srv, 'POST', '/api/push/unsubscribe', { endpoint: ep1 }, b.cookie);
        assert.deepEqual(r.json, { ok: true, removed: true });
        ca.close();

        // A restart keeps the key pair.
        const st1 = await srv.stop(true);
        assert.equal(st1.code, 0, srv.stderr().slice(-3000));
        srv = await startServer(['--vapid-subject', SUBJECT, '--push-allow-http', '1', '--push-allow-loopback', '1'], { dir: srv.dir });
        assert.equal((await api(srv, 'GET', '/api/push/key')).json.key, key);
    } finally {
        const st2 = await srv.stop();
        await svc.close();
        assert.equal(st2.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    }
});

test('Web Push off without --vapid-subject; https only without --push-allow-http', { timeout: 60000 }, async () => {
    let srv = await startServer();
    try {
        const r = await api(srv, 'GET', '/api/push/key');
        assert.equal(r.status, 404);
        assert.equal(r.json.error, 'push_off');
        const a = await account(srv);
        const s = await api(srv, 'POST', '/api/push/subscribe', subscription('https://push.example/x', browserKeys()), a.cookie);
        assert.equal(s.status, 404);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
    srv = await startServer(['--vapid-subject', SUBJECT]);
    try {
        const a = await account(srv);
        const kb = browserKeys();
        let s = await api(srv, 'POST', '/api/push/subscribe', subscription('http://127.0.0.1:9/x', kb), a.cookie);
        assert.equal(s.status, 400);
        assert.match(s.json.reason, /https/);
        s = await api(srv, 'POST', '/api/push/subscribe', subscription('https://push.example/x', kb), a.cookie);
        assert.equal(s.status, 200);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
    // A subject that is not a mailto: or https: URL is refused at start.
    await assert.rejects(startServer(['--vapid-subject', 'ops@example.org']), /mailto/);
});
