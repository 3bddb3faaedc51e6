// "Your move" Web Push goes once the move is durable, as its
// acknowledgement does, never before (PROTOCOL.md, "Web Push and in-tab
// notices"). The store is slowed or made to fail by holding SQLite's write
// lock from another process (the sqlite3 shell: BEGIN IMMEDIATE) while a
// move is played; the push endpoint is a Node http server on loopback (the
// server runs with --push-allow-http 1) that decrypts what comes (RFC 8291).
//  - slowed: while the lock is held neither the mover's acknowledgement nor
//    the push comes; once it is released the move commits, and the push
//    comes after the lock's release;
//  - failing (--write-retries 0, the lock held past the busy timeout): the
//    move is refused (storage_failed) and taken back; nothing is pushed for
//    it; the same move played again once the lock is gone pushes once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServer, connect, startGame, firstMover } from './lib.mjs';
import { SUBJECT, pushService, browserKeys, decrypt, api, account, subscription } from './push_peer.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// Pushes the push service took, as the server counts them.
async function sent(srv) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    return Number(/^chameleon_push_sent_total (\d+)$/m.exec(text)[1]);
}

// Holds the database's write lock from a sqlite3 shell until release()
// (or the test's end, whatever happened).
async function holdWriteLock(t, db) {
    const sh = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => { if (sh.exitCode === null) sh.kill('SIGKILL'); });
    let out = '';
    let err = '';
    sh.stdout.on('data', (d) => { out += d; });
    sh.stderr.on('data', (d) => { err += d; });
    const exited = new Promise((ok) => sh.on('exit', ok));
    sh.stdin.write(".timeout 10000\nBEGIN IMMEDIATE;\nSELECT 'locked';\n");
    const deadline = Date.now() + 15000;
    while (!out.includes('locked')) {
        assert.ok(Date.now() < deadline && sh.exitCode === null, `sqlite3 could not take the lock: ${err}`);
        await sleep(20);
    }
    return {
        async release() {
            sh.stdin.end('ROLLBACK;\n.quit\n');
            await exited;
            return Date.now();
        },
    };
}

// A's and B's accounts, B's subscription, a game between them (live, long
// clocks: no low-time alarm can come during the test), B gone away after
// the first move, A to move. Returns what the test needs.
async function setUp(srv, svc) {
    const a = await account(srv, 'd');
    const b = await account(srv, 'd');
    const keys = browserKeys();
    const endpoint = `${svc.base}/ep/${b.name}`;
    const r = await api(srv, 'POST', '/api/push/subscribe', subscription(endpoint, keys), b.cookie);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const ca = await connect(srv.url, {}, { Cookie: a.cookie });
    const cb = await connect(srv.url, {}, { Cookie: b.cookie });
    const { room, states } = await startGame([ca, cb], 'ultima', { base_ms: 600000, inc_ms: 0 });
    const { mover, st } = firstMover([ca, cb], states);
    let legal = st.legal;
    if (mover === cb) {
        cb.send({ type: 'move', room, move: legal[0] });
        legal = (await ca.event(room, 'move')).legal;
    }
    cb.close();
    await cb.closed_();
    await ca.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'presence' && m.connected === false, 'b gone');
    const mine = () => svc.got.filter((x) => x.path === `/ep/${b.name}`).map((x) => ({ ...decrypt(x.body, keys), at: x.at }));
    return { a, ca, room, legal, mine };
}

// A server with Web Push on (and `extra` flags) and the push service,
// both stopped at the test's end; the server's exit status checked.
async function servers(t, extra = []) {
    const svc = await pushService();
    const srv = await startServer(['--vapid-subject', SUBJECT, '--push-allow-http', '1', '--push-allow-loopback', '1', ...extra]);
    t.after(async () => {
        const st = await srv.stop();
        await svc.close();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    });
    return { srv, svc };
}

test('a move slowed by the store: "your move" is pushed once it is durable, with its acknowledgement', { timeout: 60000 }, async (t) => {
    // The default retries outlast the lock.
    const { srv, svc } = await servers(t);
    const { a, ca, room, legal, mine } = await setUp(srv, svc);
    const lock = await holdWriteLock(t, join(srv.dir, 'test.db'));
    ca.send({ type: 'move', room, move: legal[0] });
    let ackAt = null;
    const acked = ca.event(room, 'move', 30000).then(() => { ackAt = Date.now(); });
    await sleep(1500); // the move waits on the lock
    assert.equal(ackAt, null, 'no acknowledgement while the write waits');
    assert.deepEqual(mine(), [], 'no push while the write waits');
    const released = await lock.release();
    await acked;
    await svc.until(() => mine().length === 1, 'the push once durable');
    const [p] = mine();
    assert.deepEqual({ kind: p.kind, game: p.game, opponent: p.opponent }, { kind: 'your_move', game: room, opponent: a.name });
    assert.ok(p.at >= released && ackAt >= released, 'the push and the acknowledgement come after the commit');
    ca.close();
});

test('a move that fails to commit pushes nothing; played again once the store writes, it pushes once', { timeout: 60000 }, async (t) => {
    // One try: the lock held until the move is refused.
    const { srv, svc } = await servers(t, ['--write-retries', '0']);
    const { ca, room, legal, mine } = await setUp(srv, svc);
    const lock = await holdWriteLock(t, join(srv.dir, 'test.db'));
    ca.send({ type: 'move', room, move: legal[0] });
    const refused = await ca.waitFor((m) => m.type === 'error' && m.code === 'storage_failed', 'the move refused', 30000);
    assert.match(refused.reason, /could not be stored/);
    // Refused after the busy timeout (2 s): a push sent when the move was
    // played would be here by now.
    assert.deepEqual(mine(), [], 'nothing pushed for the refused move');
    await lock.release();
    // Still A's move (the refused one was taken back): played again, it
    // commits and pushes, once (the server counts one push sent).
    ca.send({ type: 'move', room, move: legal[0] });
    await ca.event(room, 'move', 30000);
    await svc.until(() => mine().length >= 1, 'the push of the move that committed');
    const deadline = Date.now() + 10000;
    while (await sent(srv) < 1) {
        assert.ok(Date.now() < deadline, 'the push counted');
        await sleep(50);
    }
    const got = mine();
    assert.equal(got.length, 1, `one push, none for the refused move: ${JSON.stringify(got)}`);
    assert.equal(await sent(srv), 1);
    assert.equal(got[0].kind, 'your_move');
    assert.equal(got[0].game, room);
    ca.close();
});
