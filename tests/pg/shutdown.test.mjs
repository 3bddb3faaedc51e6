// A server whose PostgreSQL is gone stops on SIGTERM (a PostgreSQL of its
// own, tests/tools/pg.sh: it is killed, which the other files' shared one
// must not be). For a node (--node a) and for a single server: two players
// play acknowledged moves; the postmaster is killed (kill -9); a move is
// sent (held, not acknowledged); SIGTERM: the server gives the database up
// after STORE_STOP_WAIT_MS (3 s; server/store/store.h) and exits 0 by itself (it
// used to wait for the database forever: the harness's SIGKILL after 10 s),
// the log naming the game whose write was not made; the held move was never
// acknowledged, and once PostgreSQL is back the database has every
// acknowledged move and not the held one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, rng, bySeatOf } from '../integration/lib.mjs';
import { psql, playPlies, pgsh, ownPostgres } from './pglib.mjs';

const pg = ownPostgres('chameleon-pgstop-');

async function stopWithDatabaseGone(t, name, extra) {
    const db = pgsh('createdb', pg.dir, name);
    const srv = await startServer(extra, { db });
    let room;
    const acked = [];
    let end;
    let took;
    try {
        const players = [await connect(srv.url), await connect(srv.url)];
        const game = players[0].welcome.games.find((g) => g.players === 2);
        const started = await startGame(players, game.id, { base_ms: 600000, inc_ms: 0 });
        room = started.room;
        const bySeat = bySeatOf(players, started.states);
        const st = await playPlies(bySeat, room, started.states[0], 4, rng(7), acked);
        assert.equal(acked.length, 4);

        pgsh('crash', pg.dir);
        const held = st.legal[0];
        bySeat[st.to_move].send({ type: 'move', room, move: held });
        await assert.rejects(bySeat[0].event(room, 'move', 1000), /timed out/,
            'no move acknowledged while the database is away');

        const t0 = Date.now();
        end = await srv.stop(); // SIGTERM, SIGKILL after 10 s
        took = Date.now() - t0;
        for (const c of bySeat) {
            assert.equal(c.inbox.filter((m) => m.type === 'event' && m.kind === 'move' && m.room === room).length,
                0, 'the held move was never acknowledged');
            c.close();
        }
    } finally {
        if (!end) await srv.stop();
        pgsh('resume', pg.dir);
    }
    const log = srv.stderr();
    t.diagnostic(`stopped in ${took} ms, exit ${end.code} ${end.sig || ''}`);
    assert.equal(end.sig, null, `stopped by itself, not killed: ${log.slice(-2000)}`);
    assert.equal(end.code, 0, log.slice(-3000));
    const line = log.split('\n').find((l) => /stopping: not written, never acknowledged/.test(l));
    assert.ok(line, `the log says what was not written: ${log.slice(-2000)}`);
    assert.match(line, new RegExp(`ids=(\\d+,)*${room}\\b`), line);
    t.diagnostic(line.slice(0, 200));
    assert.deepEqual(psql(db, `SELECT text FROM moves WHERE game = ${room} ORDER BY ply`).split('\n'), acked,
        'every acknowledged move, and not the held one');
}

test('a node whose PostgreSQL is gone stops on SIGTERM', async (t) => {
    await stopWithDatabaseGone(t, 'chameleon_stop_node', ['--node', 'a']);
});

test('a single server whose PostgreSQL is gone stops on SIGTERM', async (t) => {
    await stopWithDatabaseGone(t, 'chameleon_stop_single', []);
});
