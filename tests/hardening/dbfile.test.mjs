// The database file itself taken away (issue 31, item 4): deleted or
// replaced under the running server, the server notices within seconds
// (/healthz 503 naming it, a loud log line), acknowledges no move after it,
// and the next start refuses to make an empty database where "<db>.site"
// says the site had one (exit 5), unless told --new-database 1; a first
// start still just makes both. A database the server cannot write (a
// read-only file or folder) is refused at start (exit 6), tried as an
// unprivileged user (root writes whatever the modes say).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, serverBin, connect, startGame, firstMover } from '../integration/lib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function healthz(srv) {
    const r = await fetch(`${srv.http}/healthz`);
    return { status: r.status, json: await r.json() };
}

// Until /healthz says 503 (at most ~5 s); its reason.
async function unhealthy(srv) {
    for (let i = 0; i < 100; i++) {
        const h = await healthz(srv);
        if (h.status === 503) return JSON.stringify(h.json);
        await sleep(50);
    }
    assert.fail('/healthz stayed 200');
}

// A game with one acknowledged move; the players and what the next mover may play.
async function gameWithAMove(srv) {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], 'ultima');
    const { mover, other, st } = firstMover([a, b], states);
    mover.send({ type: 'move', room, move: st.legal[0] });
    const ev = await other.event(room, 'move');
    return { a, b, room, next: other, legal: ev.legal };
}

// The next move is not acknowledged: an error to its sender, no move event.
async function refused(game) {
    const { next, room, legal } = game;
    next.send({ type: 'move', room, move: legal[0] });
    const reply = await next.waitFor((m) => m.type === 'error' ||
        (m.type === 'event' && m.room === room && m.kind === 'move'), 'the move\'s answer', 15000);
    assert.equal(reply.type, 'error', `a move was acknowledged into a lost file: ${JSON.stringify(reply)}`);
    assert.equal(reply.code, 'storage_failed');
    assert.match(reply.reason, /db_missing/);
    return reply.code;
}

// Start the server on dir's test.db; { code } if it exits instead.
async function tryStart(dir, extra = []) {
    try {
        return { srv: await startServer(extra, { dir }) };
    } catch (e) {
        const m = /server exited (\d+): ([\s\S]*)/.exec(e.message);
        assert.ok(m, e.message);
        return { code: Number(m[1]), stderr: m[2] };
    }
}

for (const how of ['deleted', 'replaced']) {
    test(`the database ${how} under the server: noticed, nothing acknowledged after, no empty database at the next start`, async () => {
        const srv = await startServer();
        const db = join(srv.dir, 'test.db');
        try {
            assert.ok(existsSync(db + '.site'), 'the site marker is written beside a new database');
            const game = await gameWithAMove(srv);
            if (how === 'deleted') {
                for (const f of [db, db + '-wal', db + '-shm']) if (existsSync(f)) unlinkSync(f);
            } else {
                copyFileSync(db, db + '.other');
                renameSync(db + '.other', db);
            }
            const why = await unhealthy(srv);
            assert.match(why, new RegExp(`was ${how} while the server ran`));
            assert.match(srv.stderr(), /THE DATABASE FILE IS GONE/);
            const code = await refused(game);
            game.a.close();
            game.b.close();
            const st = await srv.stop(true);
            assert.ok(st.code === 0 || st.code === 1, `exit ${st.code}: ${srv.stderr().slice(-2000)}`);
            if (how === 'deleted') {
                const again = await tryStart(srv.dir);
                assert.equal(again.code, 5, 'a start where the database went missing is refused');
                assert.match(again.stderr, /test\.db is missing, but .*test\.db\.site says this site had a database there/);
                assert.ok(!existsSync(db), 'no empty database was made');
                const fresh = await tryStart(srv.dir, ['--new-database', '1']);
                assert.ok(fresh.srv, `--new-database 1 starts: ${fresh.stderr}`);
                assert.equal((await fresh.srv.stop(true)).code, 0);
            }
            void code;
        } finally {
            rmSync(srv.dir, { recursive: true, force: true });
        }
    });
}

test('a database the server cannot write is refused at start (exit 6); a first start makes the database and its marker', async (t) => {
    if (process.getuid() !== 0 && spawnSync('id', ['-u', 'nobody']).status !== 0) {
        t.skip('needs root to run the server as nobody');
        return;
    }
    // Everything the unprivileged server reads, where it can read it.
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-ro-'));
    chmodSync(dir, 0o755);
    const bin = join(dir, 'chameleon');
    cpSync(serverBin, bin);
    cpSync(join(root, 'migrations'), join(dir, 'migrations'), { recursive: true });
    const data = join(dir, 'data');
    cpSync(join(root, 'migrations'), data, { recursive: true, filter: () => false });
    spawnSync('mkdir', ['-p', data]);
    const asRoot = process.getuid() === 0;
    if (asRoot) spawnSync('chown', ['-R', 'nobody:nogroup', data]);
    const opts = {
        dir: data, bin, env: { CHAMELEON_MIGRATIONS: join(dir, 'migrations') },
        prefix: asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] : undefined,
    };
    const start = async () => {
        try {
            return { srv: await startServer([], opts) };
        } catch (e) {
            const m = /server exited (\d+): ([\s\S]*)/.exec(e.message);
            assert.ok(m, e.message);
            return { code: Number(m[1]), stderr: m[2] };
        }
    };
    try {
        const first = await start();
        assert.ok(first.srv, `a first start makes the database: ${first.stderr}`);
        assert.equal((await first.srv.stop(true)).code, 0);
        const db = join(data, 'test.db');
        assert.ok(existsSync(db) && existsSync(db + '.site'));
        // A read-only file.
        chmodSync(db, 0o444);
        let r = await start();
        assert.equal(r.code, 6, `read-only file: ${r.stderr}`);
        assert.match(r.stderr, /test\.db cannot be written/);
        chmodSync(db, 0o644);
        // A read-only folder (the WAL and the lock cannot be made there).
        for (const f of [db + '-wal', db + '-shm']) if (existsSync(f)) unlinkSync(f);
        chmodSync(data, 0o555);
        r = await start();
        assert.ok(r.code === 6 || r.code === 1, `read-only folder: exit ${r.code} ${r.stderr}`);
        assert.match(r.stderr, /cannot (be written|open the lock file)/);
        chmodSync(data, 0o755);
        r = await start();
        assert.ok(r.srv, `writable again: ${r.stderr}`);
        assert.equal((await r.srv.stop(true)).code, 0);
    } finally {
        chmodSync(data, 0o755);
        rmSync(dir, { recursive: true, force: true });
    }
});
