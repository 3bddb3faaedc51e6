// Storage faults (issue 18, items 3, 4 and 8): a full disk the store
// recovers from by itself, one server per database, a corrupt file refused.
// The real server and a real SQLite file: the disk is a 8 MB tmpfs mounted
// in a private mount namespace (unshare -m; CI runs as root), filled with a
// ballast file until SQLite gets SQLITE_FULL, then emptied again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
    copyFileSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync,
    writeSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, serverBin, connect, startGame, firstMover } from '../integration/lib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const bin = resolve(serverBin);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// Run the server binary with args (through `wrap` first, e.g. nsenter) and
// wait until it listens or exits. { port, http, url, proc, exited, stderr }.
function launch(args, wrap = []) {
    const web = mkdtempSync(join(tmpdir(), 'chameleon-web-'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>t</title>\n');
    const argv = [...wrap, bin, '--host', '127.0.0.1', '--port', '0', '--web-root', web, ...args];
    const proc = spawn(argv[0], argv.slice(1), {
        env: { ...process.env, CHAMELEON_MIGRATIONS: join(root, 'migrations') },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((ok) => proc.on('exit', (code, sig) => ok({ code, sig })));
    const started = new Promise((ok) => {
        let out = '';
        proc.stdout.on('data', (d) => {
            out += d;
            const m = out.match(/listening on http:\/\/[^:]+:(\d+)\//);
            if (m) ok(Number(m[1]));
        });
        exited.then(() => ok(null));
    });
    return {
        proc, exited, stderr: () => stderr, web,
        async started() {
            let timer;
            const late = new Promise((ok) => { timer = setTimeout(() => ok(null), 20000); });
            const port = await Promise.race([started, late]);
            clearTimeout(timer);
            if (port == null) return null;
            this.port = port;
            this.http = `http://127.0.0.1:${port}`;
            this.url = `ws://127.0.0.1:${port}/`;
            return port;
        },
        async stop() {
            proc.kill('SIGTERM');
            const killer = setTimeout(() => proc.kill('SIGKILL'), 15000);
            const st = await exited;
            clearTimeout(killer);
            rmSync(web, { recursive: true, force: true });
            return st;
        },
    };
}

async function metrics(srv) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const get = (name) => {
        const m = text.match(new RegExp(`^chameleon_${name} (\\d+)$`, 'm'));
        assert.ok(m, `metric ${name} in /metrics`);
        return Number(m[1]);
    };
    return {
        writable: get('store_writable'),
        failures: get('store_write_failures_total'),
        retries: get('store_write_retries_total'),
    };
}

async function healthz(srv) {
    const r = await fetch(`${srv.http}/healthz`);
    return { status: r.status, json: await r.json() };
}

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

// Play `mv` as `mover` and wait until both players have its event: the move
// is acknowledged (durable). Returns the event.
async function playAcked(room, mover, other, mv) {
    mover.send({ type: 'move', room, move: mv });
    const ev = await other.event(room, 'move');
    await mover.event(room, 'move');
    assert.equal(ev.move, mv);
    return ev;
}

test('disk full: moves in flight fail with storage_failed and are taken back, /healthz 503; once space returns the store recovers without a restart and every acknowledged move is on disk', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-full-'));
    // A mount namespace held open by `sleep`, with a small tmpfs on dir; the
    // servers join it with nsenter, the test reaches its files through
    // /proc/<pid>/root. No skipping: if this cannot be set up, the test fails.
    const holder = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c',
        `mount -t tmpfs -o size=8m chameleon-test '${dir}' && echo ready && exec sleep 600`],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    let herr = '';
    holder.stderr.on('data', (d) => { herr += d; });
    const ready = await new Promise((ok) => {
        holder.stdout.on('data', (d) => { if (String(d).includes('ready')) ok(true); });
        holder.on('exit', () => ok(false));
        holder.on('error', () => ok(false));
    });
    assert.ok(ready, `cannot mount a tmpfs in a private mount namespace (unshare -m, needs root): ${herr}`);
    t.after(() => { holder.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); });
    const inside = `/proc/${holder.pid}/root${dir}`;
    const wrap = ['nsenter', `--mount=/proc/${holder.pid}/ns/mnt`, '--'];
    const db = join(dir, 'test.db');
    const ballast = join(inside, 'ballast');

    const srv = launch(['--db', db, '--write-retries', '2'], wrap);
    assert.ok(await srv.started(), `server did not start: ${srv.stderr()}`);
    let clients = [];
    try {
        assert.equal(statSync(join(inside, 'test.db')).isFile(), true, 'the database is on the tmpfs');
        const a = await connect(srv.url);
        const b = await connect(srv.url);
        clients = [a, b];
        const { room, states } = await startGame([a, b], 'ultima');
        const { mover, other, st } = firstMover([a, b], states);
        const acked = [];
        let ev = await playAcked(room, mover, other, st.legal[0]);
        let lost = null;
        let g3 = null;
        acked.push(ev.move);
        ev = await playAcked(room, other, mover, ev.legal[0]);
        acked.push(ev.move);
        // A game that will be resigned while the disk is full.
        g3 = await startGame([a, b], 'ultima');
        assert.equal((await healthz(srv)).status, 200);
        const before = await metrics(srv);
        assert.equal(before.writable, 1);

        // Fill the disk, to the last page (tmpfs counts 4 KB pages).
        spawnSync('dd', ['if=/dev/zero', `of=${ballast}`, 'bs=4k'], { stdio: 'ignore' });
        assert.ok(statSync(ballast).size > 4 << 20, 'the ballast filled the tmpfs');

        // The move in flight: refused with storage_failed (after the
        // retries), never broadcast, taken back (the same move again is
        // still this player's to make, and fails the same way).
        const mv = ev.legal[0];
        for (let i = 0; i < 2; i++) {
            mover.send({ type: 'move', room, move: mv });
            const err = await mover.waitFor((m) => m.type === 'error' && m.code === 'storage_failed',
                'storage_failed', 20000);
            assert.ok(err.reason.length > 0);
        }
        assert.equal(other.inbox.filter((m) => m.type === 'event' && m.kind === 'move').length, 0,
            'the failed move was not broadcast');
        const h = await healthz(srv);
        assert.equal(h.status, 503, JSON.stringify(h.json));
        assert.equal(h.json.status, 'unavailable');
        assert.match(h.json.storage, /full/i);
        // A game started while the disk is full cannot be stored: it ends at
        // once, aborted (and is not restored after a restart).
        lost = await startGame([a, b], 'ultima');
        for (const c of [a, b]) {
            const end = await c.event(lost.room, 'end', 20000);
            assert.equal(end.result.reason, 'aborted', JSON.stringify(end));
        }
        const during = await metrics(srv);
        assert.equal(during.writable, 0);
        assert.ok(during.failures >= before.failures + 2, `failures counted: ${JSON.stringify(during)}`);
        assert.ok(during.retries >= before.retries + 4, `retries counted: ${JSON.stringify(during)}`);

        // A resignation is announced at once; its result is written, if not
        // now then once space returns (checked after the restart). (A small
        // write may get through a full disk: SQLite pads the WAL after a
        // commit and reuses that room. test_room.c makes the failure sure.)
        a.send({ type: 'resign', room: g3.room });
        for (const c of [a, b]) {
            const left = await c.event(g3.room, 'left', 20000);
            assert.equal(left.result.reason, 'resignation', JSON.stringify(left.result));
        }
        // Space returns: the store finds out by itself (a probe write every
        // second), without a restart and without any move.
        rmSync(ballast);
        const freedAt = Date.now();
        let healthy = null;
        for (let i = 0; i < 100 && !healthy; i++) {
            const r = await healthz(srv);
            if (r.status === 200) healthy = r; else await sleep(200);
        }
        assert.ok(healthy, 'healthz back to 200 within 20 s after space returned');
        t.diagnostic(`healthz 200 again ${Date.now() - freedAt} ms after space returned`);
        assert.equal(healthy.json.status, 'ok');
        assert.equal((await metrics(srv)).writable, 1);

        // The same move is now acknowledged, and the game goes on.
        ev = await playAcked(room, mover, other, mv);
        acked.push(ev.move);
        ev = await playAcked(room, other, mover, ev.legal[0]);
        acked.push(ev.move);
        // A new game is stored too.
        const g2 = await startGame([a, b], 'rollerball');
        const f2 = firstMover([a, b], g2.states);
        await playAcked(g2.room, f2.mover, f2.other, f2.st.legal[0]);

        for (const c of clients) c.close();
        clients = [];
        const st1 = await srv.stop();
        assert.equal(st1.code, 0, `clean stop (sanitizers): ${srv.stderr().slice(-2000)}`);

        // After a restart: exactly the acknowledged moves are on disk.
        const again = launch(['--db', db], wrap);
        assert.ok(await again.started(), `restart: ${again.stderr()}`);
        try {
            const doc = await (await fetch(`${again.http}/api/games/${room}`)).json();
            assert.deepEqual(doc.moves.map((m) => m.move), acked);
            const doc2 = await (await fetch(`${again.http}/api/games/${g2.room}`)).json();
            assert.equal(doc2.moves.length, 1);
            assert.equal((await fetch(`${again.http}/api/games/${lost.room}`)).status, 404);
            const doc3 = await (await fetch(`${again.http}/api/games/${g3.room}`)).json();
            assert.equal(doc3.status, 'finished', JSON.stringify(doc3));
            assert.equal(doc3.result.reason, 'resignation');
        } finally {
            assert.equal((await again.stop()).code, 0);
        }
    } catch (e) {
        e.message += `\nserver stderr:\n${srv.stderr().slice(-4000)}`;
        throw e;
    } finally {
        for (const c of clients) c.close();
        if (srv.proc.exitCode === null) await srv.stop();
    }
});

test('a second server on the same database refuses to start (exit 3, a message); the first keeps serving', async () => {
    const first = await startServer();
    try {
        const db = join(first.dir, 'test.db');
        const second = launch(['--db', db]);
        const port = await second.started();
        const st = await second.exited;
        assert.equal(port, null, 'the second server must not listen');
        assert.equal(st.code, 3, second.stderr());
        assert.match(second.stderr(), /in use by another server \(pid \d+ holds .*test\.db\.lock\)/);
        rmSync(second.web, { recursive: true, force: true });

        // The first one still stores games and moves.
        assert.equal((await fetch(`${first.http}/healthz`)).status, 200);
        const a = await connect(first.url);
        const b = await connect(first.url);
        const { room, states } = await startGame([a, b], 'ultima');
        const { mover, other, st: s0 } = firstMover([a, b], states);
        await playAcked(room, mover, other, s0.legal[0]);
        const doc = await (await fetch(`${first.http}/api/games/${room}`)).json();
        assert.equal(doc.moves.length, 1);
        a.close();
        b.close();
    } finally {
        assert.equal((await first.stop()).code, 0);
    }
    // Once the first has stopped, the lock is free: a server starts.
});

test('the lock goes with the process: after kill -9 a new server starts on the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-lock-'));
    try {
        const db = join(dir, 'test.db');
        const one = launch(['--db', db]);
        assert.ok(await one.started(), one.stderr());
        one.proc.kill('SIGKILL');
        await one.exited;
        rmSync(one.web, { recursive: true, force: true });
        const two = launch(['--db', db]);
        assert.ok(await two.started(), `a server after kill -9: ${two.stderr()}`);
        assert.equal((await two.stop()).code, 0);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('a corrupt database (40 KB overwritten in the middle) is refused at start (exit 4, a message) and left unchanged', async () => {
    // A real database with games in it.
    const srv = await startServer();
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    for (let i = 0; i < 3; i++) {
        const { room, states } = await startGame([a, b], 'ultima');
        const { mover, other, st } = firstMover([a, b], states);
        await playAcked(room, mover, other, st.legal[0]);
    }
    a.close();
    b.close();
    assert.equal((await srv.stop(true)).code, 0);
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-corrupt-'));
    try {
        const db = join(dir, 'copy.db');
        copyFileSync(join(srv.dir, 'test.db'), db);
        // Overwrite 40 KB in the middle with random bytes, the header page
        // (the first 4 KB) spared: SQLite opens it, quick_check finds out.
        const size = statSync(db).size;
        assert.ok(size >= 40960 + 8192, `database of ${size} bytes`);
        const at = Math.max(4096, Math.floor((size - 40960) / 2));
        const fd = openSync(db, 'r+');
        writeSync(fd, randomBytes(40960), 0, 40960, at);
        closeSync(fd);
        const hash = sha256(db);
        const size0 = statSync(db).size;

        const bad = launch(['--db', db]);
        const port = await bad.started();
        const st = await bad.exited;
        rmSync(bad.web, { recursive: true, force: true });
        assert.equal(port, null, 'a corrupt database must not be served');
        assert.equal(st.code, 4, bad.stderr());
        // quick_check finds it, or SQLite cannot even read the schema when
        // the bytes hit its pages (more tables, more schema pages).
        assert.match(bad.stderr(), /copy\.db (is corrupt \(quick_check: .+\)|cannot be read as a database \(.+\)); refusing to open it/);
        assert.equal(sha256(db), hash, 'the file is unchanged');
        assert.equal(statSync(db).size, size0);
    } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(srv.dir, { recursive: true, force: true });
    }
});
