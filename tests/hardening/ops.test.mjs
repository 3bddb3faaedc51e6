// Operating the server (issue 19): a graceful restart under load and an
// online backup under load, restored into a new server.
//
// "Acknowledged" is what a player can rely on: the move event sent back to
// the player who moved, which the server sends only once the move's commit
// is durable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, connect, startGame, bySeatOf, serverBin } from '../integration/lib.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const GAMES = ['ultima', 'rollerball', 'ultima1968', 'ant2', 'ultima', 'rollerball'];

// Start one game per entry of GAMES, each between two fresh guests.
async function startGames(srv) {
    const games = [];
    for (const id of GAMES) {
        const a = await connect(srv.url);
        const b = await connect(srv.url);
        const { room, states } = await startGame([a, b], id);
        games.push({ id, room, players: [a, b], bySeat: bySeatOf([a, b], states), st: states[0], acked: [] });
    }
    return games;
}

// Play g until it ends, stop() says so, or the connection closes: each
// move is the next one only once the mover has its acknowledgement.
async function play(g, stop) {
    let st = g.st;
    while (!stop.now && st.result === null && st.legal.length > 0) {
        const seat = st.to_move;
        const c = g.bySeat[seat];
        const mv = st.legal[(g.acked.length * 7) % st.legal.length];
        const ply = g.acked.length + 1;
        try {
            c.send({ type: 'move', room: g.room, move: mv });
            st = await c.waitFor((m) => m.type === 'event' && m.room === g.room && m.kind === 'move' &&
                m.seat === seat && m.ply === ply, `ack of ${mv}`, 30000);
        } catch {
            return; // closed (the restart) or no answer
        }
        g.acked.push(st.move);
    }
}

async function storedMoves(srv, room) {
    const r = await fetch(`${srv.http}/api/games/${room}`);
    assert.equal(r.status, 200, `game ${room} is stored`);
    return (await r.json()).moves.map((m) => m.move);
}

const userVersion = (db) => Number(spawnSync('sqlite3', [db, 'PRAGMA user_version;'], { encoding: 'utf8' }).stdout.trim());

test('SIGTERM under load: clients see 1001 "server restarting", exit 0, every acknowledged move is there after the restart (an upgrade with a new migration), and a player resumes', async (t) => {
    const srv = await startServer();
    let srv2 = null;
    try {
        const games = await startGames(srv);
        const stop = { now: false };
        const loops = games.map((g) => play(g, stop));
        // Let the games run until many moves are acknowledged.
        for (let i = 0; i < 300 && games.reduce((n, g) => n + g.acked.length, 0) < 120; i++) await sleep(50);
        const st = await srv.stop(true);
        stop.now = true;
        await Promise.all(loops);
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr().slice(-3000));
        let total = 0;
        for (const g of games)
            for (const c of g.players) {
                const closed = await c.closed_();
                assert.deepEqual(closed, { code: 1001, reason: 'server restarting' });
            }
        assert.match(srv.stderr(), /level=info msg="stopping" signal=15/);
        assert.match(srv.stderr(), /^level=info msg="game started" room=\d+ game=ultima seats=2 corr=0$/m);
        assert.match(srv.stderr(), /^level=info msg="listening" addr=127\.0\.0\.1 port=\d+$/m);
        // The upgrade: the new version brings a migration, applied at start.
        const db = join(srv.dir, 'test.db');
        const v1 = userVersion(db);
        const mig = join(srv.dir, 'migrations');
        cpSync(resolve(new URL('.', import.meta.url).pathname, '../../migrations'), mig, { recursive: true });
        const next = String(readdirSync(join(mig, 'sqlite')).length + 1).padStart(4, '0');
        writeFileSync(join(mig, 'sqlite', `${next}_upgrade_probe.sql`), 'CREATE TABLE upgrade_probe (x INTEGER);\n');
        srv2 = await startServer([], { dir: srv.dir, env: { CHAMELEON_MIGRATIONS: mig } });
        for (const g of games) {
            const moves = await storedMoves(srv2, g.room);
            assert.deepEqual(moves.slice(0, g.acked.length), g.acked, `game ${g.room}: acknowledged moves kept`);
            // A move received before the stop may be committed and not
            // acknowledged: one at most per game (one in flight at a time).
            assert.ok(moves.length <= g.acked.length + 1, `game ${g.room}: ${moves.length} stored, ${g.acked.length} acked`);
            total += g.acked.length;
        }
        assert.ok(total >= 12, `moves were played before the stop (${total})`);
        t.diagnostic(`${total} moves acknowledged in ${games.length} games before SIGTERM`);
        // The players of a game come back with their tokens, join again and
        // play on (what the web client does after a 1001: net.js reconnects,
        // the room page joins again after each welcome).
        const g = games.find((x) => x.acked.length > 0 && x.id === 'ultima') || games[0];
        const back = [];
        for (const old of g.players) back.push(await connect(srv2.url, { token: old.welcome.token }));
        const states = [];
        for (const c of back) states.push(await c.request({ type: 'join', room: g.room }));
        assert.equal(states[0].type, 'room', JSON.stringify(states[0]).slice(0, 300));
        const stored = await storedMoves(srv2, g.room);
        assert.equal(states[0].moves.length, stored.length);
        const seats = bySeatOf(back, states);
        const to = states[0].to_move;
        const mv = states[0].legal[0];
        seats[to].send({ type: 'move', room: g.room, move: mv });
        const ack = await seats[to].waitFor((m) => m.type === 'event' && m.kind === 'move' && m.room === g.room &&
            m.move === mv, 'the move after the restart');
        assert.equal(ack.ply, stored.length + 1);
        for (const c of back) c.close();
        const st2 = await srv2.stop(true);
        srv2 = null;
        assert.deepEqual(st2, { code: 0, sig: null });
        assert.equal(userVersion(db), v1 + 1, 'the new migration was applied by the restart');
    } finally {
        if (srv2) await srv2.stop();
        rmSync(srv.dir, { recursive: true, force: true });
    }
});

test('chameleon backup under load: the copy passes integrity_check and, restored into a new server, holds every game and move acknowledged before it began', async (t) => {
    const srv = await startServer();
    const out = mkdtempSync(join(tmpdir(), 'chameleon-backup-'));
    let restored = null;
    try {
        const games = await startGames(srv);
        const stop = { now: false };
        const loops = games.map((g) => play(g, stop));
        for (let i = 0; i < 300 && games.reduce((n, g) => n + g.acked.length, 0) < 60; i++) await sleep(50);
        // What was acknowledged before the backup began.
        const before = games.map((g) => [...g.acked]);
        const file = join(out, 'backup.db');
        const bk = spawn(serverBin, ['backup', file, '--db', join(srv.dir, 'test.db')],
            { stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        bk.stderr.on('data', (d) => { err += d; });
        const code = await new Promise((ok) => bk.on('exit', ok));
        assert.equal(code, 0, err);
        assert.match(err, /level=info msg="backup written" .*integrity=ok/);
        assert.ok(!existsSync(`${file}.partial`));
        // The games went on during the backup (the server was not blocked).
        await sleep(300);
        const during = games.reduce((n, g, i) => n + g.acked.length - before[i].length, 0);
        stop.now = true;
        await Promise.all(loops);
        assert.ok(during > 0, 'moves were acknowledged while and after the backup ran');
        const ic = spawnSync('sqlite3', [file, 'PRAGMA integrity_check;'], { encoding: 'utf8' });
        assert.equal(ic.stdout.trim(), 'ok', ic.stderr);
        for (const g of games) for (const c of g.players) c.close();
        assert.deepEqual(await srv.stop(), { code: 0, sig: null });

        // Restore: a new server on a copy of the file.
        const dir = mkdtempSync(join(tmpdir(), 'chameleon-restore-'));
        copyFileSync(file, join(dir, 'test.db'));
        restored = await startServer([], { dir });
        let total = 0;
        for (const [i, g] of games.entries()) {
            const moves = await storedMoves(restored, g.room);
            assert.deepEqual(moves.slice(0, before[i].length), before[i], `game ${g.room}: moves acknowledged before the backup`);
            assert.ok(moves.length <= g.acked.length + 1);
            total += before[i].length;
        }
        assert.ok(total >= 6, `moves were acknowledged before the backup (${total})`);
        t.diagnostic(`${total} moves acknowledged before the backup, ${during} during and after it`);
        // The backup refuses to run without a database, and says why.
        const bad = spawnSync(serverBin, ['backup', join(out, 'x.db'), '--db', join(out, 'none.db')], { encoding: 'utf8' });
        assert.equal(bad.status, 1);
        assert.match(bad.stderr, /level=error msg="backup failed" .*why="cannot open/);
    } finally {
        if (restored) assert.deepEqual(await restored.stop(), { code: 0, sig: null });
        if (srv) await srv.stop();
        rmSync(out, { recursive: true, force: true });
    }
});

test('--log-level: warn drops the info lines, a bad level is refused; /metrics has the games by id and the commit histogram', async () => {
    const quiet = await startServer(['--log-level', 'warn']);
    try {
        const a = await connect(quiet.url);
        const b = await connect(quiet.url);
        const { room, states } = await startGame([a, b], 'rollerball');
        const seats = bySeatOf([a, b], states);
        const st = states[0];
        seats[st.to_move].send({ type: 'move', room, move: st.legal[0] });
        await seats[st.to_move].event(room, 'move');
        const text = await (await fetch(`${quiet.http}/metrics`)).text();
        assert.match(text, /^chameleon_games\{game="rollerball"\} 1$/m);
        assert.match(text, /^chameleon_games\{game="ultima"\} 0$/m);
        assert.match(text, /^# TYPE chameleon_store_commit_seconds histogram$/m);
        const count = Number(text.match(/^chameleon_store_commit_seconds_count (\d+)$/m)[1]);
        const inf = Number(text.match(/^chameleon_store_commit_seconds_bucket\{le="\+Inf"\} (\d+)$/m)[1]);
        // The game's creation and its move may share one group commit.
        assert.ok(count >= 1, `commits counted: ${count}`);
        assert.equal(inf, count);
        assert.match(text, /^chameleon_store_queue_operations \d+$/m);
        a.close();
        b.close();
    } finally {
        assert.deepEqual(await quiet.stop(), { code: 0, sig: null });
    }
    assert.doesNotMatch(quiet.stderr(), /level=info/);
    const r = spawnSync(serverBin, ['--log-level', 'loud'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /level=error msg="--log-level wants debug, info, warn or error, not 'loud'"/);
});
