// The server on PostgreSQL (--db postgresql://...), against a PostgreSQL
// this test starts from Debian's binaries (tests/tools/pg.sh; or the one
// tests/pg/run.sh started): a two-player and a three-player game played to
// the end across a kill -9 of the server mid-game, every acknowledged move
// (a move event every player received) found after the restart and in the
// database itself; one server per database (a second one is refused with
// a clear message); accounts (case-insensitive names, RETURNING id); a
// server that cannot connect, and `chameleon backup` on PostgreSQL, refused
// with a clear message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startServer, connect, startGame, rng, bySeatOf, startPostgres, serverBin } from '../integration/lib.mjs';
import { psql, playPlies } from './pglib.mjs';

let pg;
let games = [];

before(async () => {
    pg = startPostgres();
    const srv = await startServer([], { db: pg.db('chameleon_it_games') });
    const c = await connect(srv.url);
    games = c.welcome.games;
    c.close();
    assert.equal((await srv.stop()).code, 0, srv.stderr());
});

after(() => pg.stop());


// One game of `game` for its number of players: plies, kill -9, restart on
// the same database, every acknowledged move there, played to the end.
async function gameAcrossKill(game, name, seed) {
    const db = pg.db(name);
    const rand = rng(seed);
    const one = await startServer([], { db });
    const players = [];
    for (let i = 0; i < game.players; i++) players.push(await connect(one.url));
    const { room, states } = await startGame(players, game.id, { base_ms: 600000, inc_ms: 0 });
    let bySeat = bySeatOf(players, states);
    const acked = [];
    let st = await playPlies(bySeat, room, states[0], 8, rand, acked);
    const tokens = bySeat.map((c) => c.welcome.token);
    process.kill(one.pid, 'SIGKILL');
    const killed = await one.stop(true);
    assert.equal(killed.sig, 'SIGKILL');
    rmSync(one.dir, { recursive: true, force: true });
    // In PostgreSQL itself, not in a file next to the server.
    assert.equal(Number(psql(db, 'SELECT count(*) FROM moves')), acked.length);

    const two = await startServer([], { db });
    try {
        bySeat = [];
        for (const t of tokens) bySeat.push(await connect(two.url, { token: t }));
        const view = await bySeat[0].request({ type: 'join', room });
        assert.equal(view.type, 'room', JSON.stringify(view));
        assert.deepEqual(view.moves.map((m) => m.move), acked, 'every acknowledged move is back');
        assert.equal(view.to_move, st.to_move);
        assert.deepEqual(view.legal, st.legal);
        for (const c of bySeat.slice(1)) await c.request({ type: 'join', room });
        st = await playPlies(bySeat, room, view, 400, rand, acked);
        // Too long a game ends by resignations (the others play on with
        // three players).
        while (st.result == null) {
            bySeat[st.to_move].send({ type: 'resign', room });
            st = await bySeat[(st.to_move + 1) % bySeat.length].event(room, 'left');
        }
        assert.ok(st.result.reason);
        const final = await bySeat[0].request({ type: 'join', room });
        assert.equal(final.status, 'over');
        assert.deepEqual(final.moves.map((m) => m.move), acked);
        assert.equal(Number(psql(db, 'SELECT count(*) FROM moves')), acked.length);
        assert.equal(psql(db, 'SELECT finished FROM games'), '1');
        for (const c of bySeat) c.close();
        return { two, db, plies: acked.length, reason: st.result.reason };
    } catch (e) {
        await two.stop();
        throw e;
    }
}

test('a two-player game to the end across a kill -9; one server per database', async (t) => {
    const g2 = games.find((g) => g.players === 2);
    assert.ok(g2, 'a two-player game');
    const { two, db, plies, reason } = await gameAcrossKill(g2, 'chameleon_it_two', 7);
    t.diagnostic(`${g2.id}: ${plies} plies, ${reason}`);
    try {
        // A second server on the same database is refused, saying why.
        await assert.rejects(startServer([], { db }), /in use by another server.*one server per database/s);
    } finally {
        const st = await two.stop();
        assert.equal(st.code, 0, two.stderr().slice(-3000));
    }
});

test('a three-player game to the end across a kill -9', async (t) => {
    const g3 = games.find((g) => g.players === 3);
    assert.ok(g3, 'a three-player game');
    const { two, plies, reason } = await gameAcrossKill(g3, 'chameleon_it_three', 11);
    t.diagnostic(`${g3.id}: ${plies} plies, ${reason}`);
    const st = await two.stop();
    assert.equal(st.code, 0, two.stderr().slice(-3000));
});

test('accounts on PostgreSQL: register, a name taken whatever its case, log in', async () => {
    const srv = await startServer([], { db: pg.db('chameleon_it_accounts') });
    try {
        const post = async (path, body) => {
            const r = await fetch(srv.http + path, {
                method: 'POST', body: JSON.stringify(body),
                headers: { 'Content-Type': 'application/json' },
            });
            return { status: r.status, json: await r.json() };
        };
        let r = await post('/api/register', { username: 'Alice', password: 'correct horse' });
        assert.equal(r.status, 200, JSON.stringify(r.json));
        r = await post('/api/register', { username: 'bob', password: 'correct horse' });
        assert.equal(r.status, 200, JSON.stringify(r.json));
        r = await post('/api/register', { username: 'ALICE', password: 'correct horse' });
        assert.equal(r.status, 409);
        assert.equal(r.json.error, 'username_taken');
        r = await post('/api/login', { username: 'alice', password: 'correct horse' });
        assert.equal(r.status, 200, JSON.stringify(r.json));
        assert.equal(r.json.username, 'Alice');
        r = await post('/api/login', { username: 'bob', password: 'wrong password' });
        assert.equal(r.json.error, 'bad_login');
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('command line: an unreachable PostgreSQL and backup of a PostgreSQL database say why', async () => {
    await assert.rejects(startServer([], { db: 'postgresql://chameleon@127.0.0.1:1/none?connect_timeout=3' }),
        /cannot connect to PostgreSQL/);
    const r = spawnSync(serverBin, ['backup', '/tmp/chameleon-pg-backup.db', '--db', pg.db('chameleon_it_backup')],
        { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr + r.stdout, /pg_dump/);
});
