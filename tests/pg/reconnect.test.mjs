// The server on PostgreSQL rides through the database's troubles (a
// PostgreSQL of its own, tests/tools/pg.sh: it is stopped and started
// again, which the other files' shared one must not be). Two players play;
//   1. every backend of the server is terminated (pg_terminate_backend, as
//      an operator would): the next moves are acknowledged all the same
//      (the writer opens its connection again);
//   2. PostgreSQL is stopped (pg_ctl stop -m fast): a move sent then is
//      held, never acknowledged while the database is away, /metrics says
//      chameleon_store_writable 0 and /healthz 503; PostgreSQL is started again: the held
//      move is acknowledged by itself and the game goes on to its end;
//   3. /metrics counts the reconnections; after a restart of the server,
//      every acknowledged move is in the database, once, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, rng, bySeatOf } from '../integration/lib.mjs';
import { psql, until, pgsh, ownPostgres } from './pglib.mjs';

const pg = ownPostgres('chameleon-pgre-');

async function metric(srv, name) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const m = text.match(new RegExp(`^chameleon_${name} (\\S+)$`, 'm'));
    assert.ok(m, `metric ${name} in /metrics`);
    return Number(m[1]);
}

// One random legal move by the player to move, acknowledged once both
// players received its event.
async function ply(bySeat, room, state, rand, acked) {
    const mv = state.legal[Math.floor(rand() * state.legal.length)];
    bySeat[state.to_move].send({ type: 'move', room, move: mv });
    const evs = [];
    for (const c of bySeat) evs.push(await c.event(room, 'move', 30000));
    for (const e of evs) assert.equal(e.move, mv);
    acked.push(mv);
    return evs[0];
}

test('a game goes on across a terminated backend and a restart of PostgreSQL', async (t) => {
    const db = pgsh('createdb', pg.dir, 'chameleon_it_reconnect');
    const games = (await (async () => {
        const s = await startServer([], { db });
        const c = await connect(s.url);
        const g = c.welcome.games;
        c.close();
        await s.stop();
        return g;
    })());
    const game = games.find((g) => g.players === 2);
    const rand = rng(5);
    const acked = [];
    let srv = await startServer([], { db });
    let bySeat;
    let room;
    try {
        const players = [await connect(srv.url), await connect(srv.url)];
        const started = await startGame(players, game.id, { base_ms: 600000, inc_ms: 0 });
        room = started.room;
        bySeat = bySeatOf(players, started.states);
        let st = started.states[0];
        for (let i = 0; i < 4; i++) st = await ply(bySeat, room, st, rand, acked);
        const before = await metric(srv, 'store_reconnects_total');

        // 1. Every session of the server killed: moves go on.
        const killed = psql(db, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity" +
            " WHERE application_name LIKE 'chameleon[%'");
        assert.ok(Number(killed) >= 2, `the server's sessions (${killed}) terminated`);
        for (let i = 0; i < 4; i++) st = await ply(bySeat, room, st, rand, acked);
        assert.ok(await metric(srv, 'store_reconnects_total') > before, 'a reconnection counted');

        // 2. PostgreSQL stopped: a move is held, not acknowledged.
        pgsh('halt', pg.dir);
        const held = st.legal[Math.floor(rand() * st.legal.length)];
        bySeat[st.to_move].send({ type: 'move', room, move: held });
        await until('chameleon_store_writable 0',
            async () => (await metric(srv, 'store_writable')) === 0);
        const health = await fetch(`${srv.http}/healthz`);
        assert.equal(health.status, 503, 'not ready while the database is away');
        await assert.rejects(bySeat[0].event(room, 'move', 1500), /timed out/,
            'no move acknowledged while the database is away');
        assert.equal(bySeat[0].inbox.filter((m) => m.type === 'error').length, 0,
            'the held move is not refused either');
        const during = await metric(srv, 'store_reconnects_total');
        pgsh('resume', pg.dir);
        const back = Date.now();
        const evs = [await bySeat[0].event(room, 'move', 30000), await bySeat[1].event(room, 'move', 30000)];
        for (const e of evs) assert.equal(e.move, held);
        acked.push(held);
        t.diagnostic(`the held move acknowledged ${Date.now() - back} ms after PostgreSQL was back`);
        st = evs[0];
        await until('chameleon_store_writable 1',
            async () => (await metric(srv, 'store_writable')) === 1);
        assert.ok(await metric(srv, 'store_reconnects_total') > during,
            'the reconnection after the restart counted');

        // To the end (resignation if too long).
        for (let i = 0; i < 200 && st.result == null && st.legal.length > 0; i++)
            st = await ply(bySeat, room, st, rand, acked);
        if (st.result == null) {
            bySeat[st.to_move].send({ type: 'resign', room });
            st = await bySeat[(st.to_move + 1) % 2].event(room, 'left', 30000);
        }
        assert.ok(st.result, 'the game is over');
        t.diagnostic(`${game.id}: ${acked.length} plies, ${st.result.reason}`);
        for (const c of bySeat) c.close();
    } finally {
        const end = await srv.stop();
        assert.equal(end.code, 0, srv.stderr().slice(-3000));
    }
    assert.match(srv.stderr(), /writing failed.*connection=lost/, 'the log says the database was away');

    // 3. After a restart of the server: every acknowledged move, once.
    assert.equal(Number(psql(db, 'SELECT count(*) FROM moves')), acked.length);
    assert.equal(psql(db, 'SELECT max(ply) + 1 FROM moves'), String(acked.length));
    srv = await startServer([], { db });
    try {
        const r = await fetch(`${srv.http}/api/games/${room}`);
        assert.equal(r.status, 200);
        const g = await r.json();
        assert.ok(g.result && g.result.reason, JSON.stringify(g).slice(0, 300));
        assert.deepEqual(g.moves.map((m) => m.move), acked);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});
