// Web Push as an attacker would use it (docs/OPERATING.md, server/notify/push_addr.h):
//  - endpoints on the server's own machine or network (loopback, private,
//    link-local, CGNAT, unique-local, multicast, every numeric form of
//    127.0.0.1) are refused at subscription with a reason, and a DNS name
//    that resolves to loopback is refused when the server is about to
//    connect (the subscription removed, nothing reaches the peer);
//  - one account's silent endpoints do not delay another account's push;
//  - an answer of endless bytes is cut after a few KB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import http from 'node:http';
import dns from 'node:dns/promises';
import { hostname } from 'node:os';
import { startServer, connect, startGame, firstMover } from '../integration/lib.mjs';
import { SUBJECT, pushService, browserKeys, api, account, subscription } from '../integration/push_peer.mjs';

async function metric(srv, name) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const m = new RegExp(`^chameleon_${name} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
}

// A game of `target` (an account) against a new account; target leaves and
// the other moves: "your move" is pushed to target's subscriptions.
async function pushTo(srv, target) {
    const other = await account(srv);
    const co = await connect(srv.url, {}, { Cookie: other.cookie });
    const ct = await connect(srv.url, {}, { Cookie: target.cookie });
    const { room, states } = await startGame([co, ct], 'ultima');
    const { mover, st } = firstMover([co, ct], states);
    let legal = st.legal;
    if (mover === ct) {
        ct.send({ type: 'move', room, move: legal[0] });
        legal = (await co.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'move', 'move')).legal;
    }
    ct.close();
    await ct.closed_();
    await co.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'presence' && m.connected === false, 'gone');
    co.send({ type: 'move', room, move: legal[0] });
    await co.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'move', 'my move');
    return co;
}

test('endpoints on private addresses are refused at subscription', async () => {
    const srv = await startServer(['--vapid-subject', SUBJECT]);
    try {
        const a = await account(srv);
        const kb = browserKeys();
        const refused = ['127.0.0.1', '[::1]', 'localhost', 'LOCALHOST.', 'x.localhost', '169.254.169.254',
            '10.1.2.3', '192.168.0.1', '172.16.5.4', '100.64.0.1', '0.0.0.0', '2130706433', '0x7f000001', '127.1',
            '017700000001', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '[fd00::1]', '[fe80::1]', '[ff02::1]',
            '224.0.0.1', '255.255.255.255', '[::]', '[64:ff9b::a00:1]', '[2002:7f00:1::]'];
        for (const host of refused) {
            const r = await api(srv, 'POST', '/api/push/subscribe', subscription(`https://${host}/push/x`, kb), a.cookie);
            assert.equal(r.status, 400, `${host}: ${r.text}`);
            assert.match(r.json.reason, /public address|not a URL/, host);
        }
        assert.ok(await metric(srv, 'push_refused_address_total') >= refused.length - 2);
        for (const host of ['push.example.org', '93.184.216.34', '[2606:4700::1111]']) {
            const r = await api(srv, 'POST', '/api/push/subscribe', subscription(`https://${host}/push/x`, kb), a.cookie);
            assert.equal(r.status, 200, `${host}: ${r.text}`);
        }
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('a DNS name that resolves to loopback is refused when the server connects', async (t) => {
    // The machine's own name resolves to 127.0.0.1 on Debian (/etc/hosts);
    // where it does not, no name here leads to loopback but localhost.
    const name = hostname();
    const addrs = await dns.lookup(name, { all: true }).catch(() => []);
    if (!addrs.some((x) => x.address.startsWith('127.'))) {
        t.skip(`${name} does not resolve to loopback here`);
        return;
    }
    const svc = await pushService();
    const srv = await startServer(['--vapid-subject', SUBJECT, '--push-allow-http', '1']);
    try {
        const b = await account(srv);
        const port = new URL(svc.base).port;
        const r = await api(srv, 'POST', '/api/push/subscribe', subscription(`http://${name}:${port}/ep/b`, browserKeys()), b.cookie);
        assert.equal(r.status, 200, r.text);
        const co = await pushTo(srv, b);
        for (let i = 0; i < 100 && await metric(srv, 'push_refused_address_total') === 0; i++)
            await new Promise((ok) => setTimeout(ok, 50));
        assert.equal(await metric(srv, 'push_refused_address_total'), 1);
        assert.equal(svc.got.length, 0, 'nothing reached the loopback peer');
        assert.match(srv.stderr(), /push endpoint leads to a private address: removed/);
        co.close();
    } finally {
        const st = await srv.stop();
        await svc.close();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('one account\'s silent endpoints do not delay another\'s push; a huge answer is cut', async (t) => {
    // Endpoints that accept and never answer, and one that answers forever.
    const silent = net.createServer(() => { /* never a byte */ });
    await new Promise((ok) => silent.listen(0, '127.0.0.1', ok));
    let streamed = 0;
    const endless = http.createServer((req, res) => {
        res.writeHead(201, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(65536, 120);
        const more = () => {
            while (!res.destroyed && streamed < (1 << 30)) {
                streamed += chunk.length;
                if (!res.write(chunk)) { res.once('drain', more); return; }
            }
            res.end();
        };
        more();
    });
    await new Promise((ok) => endless.listen(0, '127.0.0.1', ok));
    const svc = await pushService();
    const srv = await startServer(['--vapid-subject', SUBJECT, '--push-allow-http', '1', '--push-allow-loopback', '1']);
    try {
        const slow = await account(srv);
        const quick = await account(srv);
        const kb = browserKeys();
        for (let i = 0; i < 8; i++) {
            const r = await api(srv, 'POST', '/api/push/subscribe',
                subscription(`http://127.0.0.1:${silent.address().port}/s${i}`, kb), slow.cookie);
            assert.equal(r.status, 200, r.text);
        }
        let r = await api(srv, 'POST', '/api/push/subscribe', subscription(`${svc.base}/ep/quick`, kb), quick.cookie);
        assert.equal(r.status, 200, r.text);
        // Eight silent endpoints times four games for `slow`, then `quick`.
        const others = [];
        for (let g = 0; g < 4; g++) others.push(await pushTo(srv, slow));
        const t0 = Date.now();
        others.push(await pushTo(srv, quick));
        await svc.until((got) => got.some((x) => x.path === '/ep/quick'), 'quick\'s push', 8000);
        const ms = svc.got.find((x) => x.path === '/ep/quick').at - t0;
        t.diagnostic(`quick's push after ${ms} ms with 32 messages to silent endpoints queued before it`);
        assert.ok(ms < 3000, `quick's push took ${ms} ms`);

        // An answer that never ends: cut after a few KB, the send over fast.
        const huge = await account(srv);
        r = await api(srv, 'POST', '/api/push/subscribe',
            subscription(`http://127.0.0.1:${endless.address().port}/huge`, kb), huge.cookie);
        assert.equal(r.status, 200, r.text);
        const failed0 = await metric(srv, 'push_failed_total');
        const t1 = Date.now();
        others.push(await pushTo(srv, huge));
        for (let i = 0; i < 100 && await metric(srv, 'push_failed_total') === failed0; i++)
            await new Promise((ok) => setTimeout(ok, 50));
        assert.equal(await metric(srv, 'push_failed_total'), failed0 + 1, 'the send ended as failed');
        t.diagnostic(`endless answer: ended after ${Date.now() - t1} ms, ${streamed} bytes written by the peer`);
        assert.ok(streamed < 64 << 20, `${streamed} bytes were sent before the cut`);
        for (const c of others) c.close();
    } finally {
        const st = await srv.stop();
        silent.close();
        endless.closeAllConnections();
        endless.close();
        await svc.close();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});
