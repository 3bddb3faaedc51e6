// Node mode (--node NAME; docs/SCALING.md, "Leases"), the server itself on
// a PostgreSQL this test starts (or the one tests/pg/run.sh started): two
// nodes run on one database side by side, players on each play a game to
// acknowledged moves (each game's lease row names the node of the player
// who filled its seek); a single server cannot join them, nor a node a
// single server; --node on SQLite is refused with a clear message.
// Forwarding is tested by forward.test.mjs, take-over by takeover.test.mjs,
// the store's leases and fences by tests/unit/test_store_lease.c.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, connect, startGame, bySeatOf, startPostgres, serverBin } from '../integration/lib.mjs';
import { psql } from './pglib.mjs';

let pg;
before(() => {
    pg = startPostgres();
});
after(() => pg.stop());


// A two-player game on a node, n plies, each acknowledged to both players.
async function playOn(srv, gameId, n) {
    const players = [await connect(srv.url), await connect(srv.url)];
    const { room, states } = await startGame(players, gameId, { base_ms: 600000, inc_ms: 0 });
    const bySeat = bySeatOf(players, states);
    let st = states[0];
    for (let i = 0; i < n && st.result == null; i++) {
        const mv = st.legal[0];
        bySeat[st.to_move].send({ type: 'move', room, move: mv });
        const evs = [await bySeat[0].event(room, 'move'), await bySeat[1].event(room, 'move')];
        for (const e of evs) assert.equal(e.move, mv);
        st = evs[0];
    }
    for (const c of players) c.close();
    return room;
}

test('two nodes on one database, players on each; a single server excluded', async () => {
    const db = pg.db('chameleon_it_nodes');
    const a = await startServer(['--node', 'a'], { db });
    let b;
    try {
        b = await startServer(['--node', 'b'], { db });
        const c = await connect(a.url);
        const game = c.welcome.games.find((g) => g.players === 2);
        c.close();
        await playOn(a, game.id, 6);
        await playOn(b, game.id, 4);
        // The lobby is a's (the live node whose name sorts first): the
        // seek made on b went there, and the game it started was placed
        // back on b, the node of the player who filled it (place.c;
        // forwarding: tests/pg/forward.test.mjs).
        const rows = psql(db, 'SELECT l.node, g.nmoves FROM room_leases l JOIN games g ON g.id = l.game'
            + ' ORDER BY g.nmoves').split('\n');
        assert.deepEqual(rows, ['b|4', 'a|6'], 'each game leased by its players\' node');
        assert.equal(Number(psql(db, 'SELECT count(DISTINCT fence) FROM room_leases')), 2);
        assert.equal(Number(psql(db, 'SELECT count(*) FROM moves')), 10);
        assert.deepEqual(psql(db, 'SELECT name FROM nodes ORDER BY name').split('\n'), ['a', 'b']);
        // Nodes share the database's lock; a single server cannot take it.
        await assert.rejects(startServer([], { db }), /in use by another server.*--node/s);
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
    // And a node cannot join a single server.
    const one = await startServer([], { db });
    try {
        await assert.rejects(startServer(['--node', 'c'], { db }), /in use by a single server/);
    } finally {
        assert.equal((await one.stop()).code, 0, one.stderr().slice(-3000));
    }
});

test('a session ended on one node closes its connection on the other at once', async () => {
    const db = pg.db('chameleon_it_nodes_logins');
    const a = await startServer(['--node', 'a'], { db });
    let b;
    try {
        b = await startServer(['--node', 'b'], { db });
        const reg = await fetch(`${a.http}/api/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'nodes_ann', password: 'correct horse' }) });
        assert.equal(reg.status, 200);
        const desk = reg.headers.get('set-cookie').split(';')[0];
        const login = await fetch(`${b.http}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'User-Agent': 'phone' }, body: JSON.stringify({ username: 'nodes_ann', password: 'correct horse' }) });
        const phone = login.headers.get('set-cookie').split(';')[0];
        const onB = await connect(b.url, {}, { Cookie: phone });
        const deskOnB = await connect(b.url, {}, { Cookie: desk });
        assert.equal(onB.welcome.account, 'nodes_ann');
        // The desk, on a, ends the phone's session: b closes its socket.
        const list = await (await fetch(`${a.http}/api/sessions`, { headers: { Cookie: desk } })).json();
        const other = list.sessions.find((x) => !x.current);
        assert.equal(other.agent, 'phone');
        const end = await fetch(`${a.http}/api/sessions/end`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: desk }, body: JSON.stringify({ id: other.id }) });
        assert.deepEqual(await end.json(), { ended: 1 });
        const closed = await Promise.race([onB.closed_(), new Promise((r) => setTimeout(() => r('still open'), 5000))]);
        assert.equal(closed.code, 1001, JSON.stringify(closed));
        assert.equal(deskOnB.closed, null, "the desk's own socket on b stays");
        deskOnB.close();
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});

test('--node on SQLite is refused, saying why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-node-'));
    try {
        const r = spawnSync(serverBin, ['--db', join(dir, 'x.db'), '--node', 'a', '--port', '0'],
            { encoding: 'utf8', timeout: 20000 });
        assert.equal(r.status, 2);
        assert.match(r.stderr + r.stdout, /several nodes need PostgreSQL/);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});
