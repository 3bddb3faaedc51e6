// The room layer's take-over in node mode (server/game/room_takeover.c;
// docs/SCALING.md, "Leases"): two nodes, a and b, on one PostgreSQL, with
// a short lease (--lease-ttl-ms). Two players on the owner play a live
// game, each move acknowledged (both players got its event); the owner is
// killed (kill -9); the other node takes the room over on its own (its
// log says "room taken over" for that game); every acknowledged move is in
// the database and in the room the players join there again (same guest
// tokens); the clock of the player to move was not charged the outage
// (as after a restart); they play on. The killed node is started again
// under its name, and the round repeats, the owner alternating; at the end
// the game is finished by a resignation, on the last owner. Three rounds
// by default: the twenty kills are tests/e2e/cluster.test.mjs's
// (three nodes, browser pages); TAKEOVER_ROUNDS=20 runs twenty here too
// (about 50 s). Also: a
// lease lost by a live node, and a correspondence game between accounts
// (session cookies) taken over; and a game that does not rebuild where
// it is taken over, set aside once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, rng, bySeatOf, startPostgres } from '../integration/lib.mjs';
import { psql, sleep, until, playPlies } from './pglib.mjs';

const ROUNDS = Number(process.env.TAKEOVER_ROUNDS || 3);
const TTL_MS = 2000;

let pg;
before(() => {
    pg = startPostgres();
});
after(() => pg.stop());

const node = (name, db) => startServer(['--node', name, '--lease-ttl-ms', String(TTL_MS)], { db });

const takeovers = (srv, room) =>
    (srv.stderr().match(new RegExp(`room taken over[^\\n]*game=${room}\\b`, 'g')) || []).length;

test(`a node killed ${ROUNDS} times: the other takes its room over, no acknowledged move lost`, async () => {
    const db = pg.db('chameleon_it_takeover');
    const rand = rng(20);
    const nodes = { a: await node('a', db) };
    const servers = [nodes.a];
    try {
        nodes.b = await node('b', db);
        servers.push(nodes.b);
        let bySeat = [await connect(nodes.a.url), await connect(nodes.a.url)];
        const game = bySeat[0].welcome.games.find((g) => g.players === 2);
        const { room, states } = await startGame(bySeat, game.id, { base_ms: 600000, inc_ms: 0 });
        bySeat = bySeatOf(bySeat, states);
        const tokens = bySeat.map((c) => c.welcome.token);
        const acked = [];
        let st = await playPlies(bySeat, room, states[0], 6, rand, acked);
        let owner = 'a';
        const outages = [];
        for (let round = 0; round < ROUNDS && st.result == null; round++) {
            const other = owner === 'a' ? 'b' : 'a';
            const seen = takeovers(nodes[other], room);
            for (const c of bySeat) c.close();
            const killedAt = Date.now();
            process.kill(nodes[owner].pid, 'SIGKILL');
            assert.equal((await nodes[owner].stop()).sig, 'SIGKILL');
            await until(`node ${other} to take game ${room} over (round ${round})`,
                () => takeovers(nodes[other], room) > seen);
            const tookAt = Date.now();
            outages.push(tookAt - killedAt);
            assert.match(nodes[other].stderr(), new RegExp(`room taken over[^\\n]*game=${room} from=\\S+ fence=\\d+`));
            // In PostgreSQL: every acknowledged move, and the lease now the other node's.
            assert.equal(Number(psql(db, `SELECT count(*) FROM moves WHERE game = ${room}`)), acked.length);
            assert.equal(psql(db, `SELECT node FROM room_leases WHERE game = ${room}`), other);
            // The killed node comes back under its name while the players rejoin.
            const restart = node(owner, db);
            bySeat = [];
            for (const t of tokens) bySeat.push(await connect(nodes[other].url, { token: t }));
            const view = await bySeat[0].request({ type: 'join', room });
            const joinedAt = Date.now();
            assert.equal(view.type, 'room', JSON.stringify(view));
            assert.deepEqual(view.moves.map((m) => m.move), acked, 'every acknowledged move is back');
            assert.equal(view.to_move, st.to_move);
            assert.deepEqual(view.legal, st.legal);
            // The outage is charged to nobody: at most the time since the
            // take-over (and a second of slack) has run off the clock.
            const m = st.to_move;
            assert.ok(view.clocks[m] >= st.clocks[m] - (joinedAt - tookAt) - 1000,
                `clock ${view.clocks[m]} after ${st.clocks[m]}, outage ${tookAt - killedAt} ms`);
            const v1 = await bySeat[1].request({ type: 'join', room });
            assert.equal(v1.type, 'room', JSON.stringify(v1));
            st = await playPlies(bySeat, room, view, 4, rand, acked);
            nodes[owner] = await restart;
            servers.push(nodes[owner]);
            owner = other;
        }
        assert.equal(outages.length, ROUNDS, 'the game lasted every round');
        // The end, on the last owner: a resignation both players see.
        const loser = st.to_move;
        bySeat[loser].send({ type: 'resign', room });
        const ends = [await bySeat[0].event(room, 'left'), await bySeat[1].event(room, 'left')];
        for (const e of ends) assert.equal(e.result.winner, 1 - loser);
        await until('the result in the database',
            () => psql(db, `SELECT finished FROM games WHERE id = ${room}`) === '1');
        assert.equal(Number(psql(db, `SELECT count(*) FROM moves WHERE game = ${room}`)), acked.length);
        for (const c of bySeat) c.close();
        console.log(`take-over times (kill to "room taken over", ttl ${TTL_MS} ms): ${outages.join(', ')} ms`);
    } finally {
        for (const n of Object.values(nodes)) {
            const r = await n.stop();
            if (r.sig !== 'SIGKILL') assert.equal(r.code, 0, n.stderr().slice(-3000));
        }
    }
});

// Lost: another node gets the lease behind the owner's back (written in
// the database here, as a take-over after a freeze would). The owner's
// next move is fenced out, never written; the room is closed on the
// owner, whose watchers are told (an error event, unknown_room, "moved to
// another node") and asked to reconnect (closed with 1001). Once the lease is free
// again a node (either) takes the room over and the game ends there.
test('a node that lost a lease closes the room, writing nothing', async () => {
    const db = pg.db('chameleon_it_lease_lost');
    const rand = rng(7);
    const a = await node('a', db);
    let b;
    try {
        b = await node('b', db);
        let bySeat = [await connect(a.url), await connect(a.url)];
        const game = bySeat[0].welcome.games.find((g) => g.players === 2);
        const { room, states } = await startGame(bySeat, game.id, { base_ms: 600000, inc_ms: 0 });
        bySeat = bySeatOf(bySeat, states);
        const tokens = bySeat.map((c) => c.welcome.token);
        const acked = [];
        let st = await playPlies(bySeat, room, states[0], 4, rand, acked);
        psql(db, `UPDATE room_leases SET node = 'ghost', fence = fence + 1000000,`
            + ` expires_ms = 9000000000000000 WHERE game = ${room}`);
        bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
        for (const c of bySeat) {
            const e = await c.waitFor((m) => m.type === 'error' && m.code === 'unknown_room', 'room closed');
            assert.match(e.reason, new RegExp(`game ${room} moved to another node: reconnect`));
        }
        await until('the room lost in a\'s log', () => /room lost[^\n]*game=/.test(a.stderr()));
        // And asked to reconnect: the web client does, and joins the room
        // where it went.
        for (const c of bySeat) assert.equal((await c.closed_()).code, 1001);
        assert.equal(Number(psql(db, `SELECT count(*) FROM moves WHERE game = ${room}`)), acked.length,
            'the fenced-out move is not in the database');
        for (const c of bySeat) c.close();
        // The ghost's lease runs out: a node takes the room over (either:
        // a is alive and well); the game ends there.
        psql(db, `UPDATE room_leases SET expires_ms = 0 WHERE game = ${room}`);
        const taker = await until(`a node to take game ${room} over`,
            () => [a, b].find((n) => takeovers(n, room) > 0));
        bySeat = [];
        for (const t of tokens) bySeat.push(await connect(taker.url, { token: t }));
        const view = await bySeat[0].request({ type: 'join', room });
        assert.deepEqual(view.moves.map((m) => m.move), acked);
        await bySeat[1].request({ type: 'join', room });
        st = await playPlies(bySeat, room, view, 2, rand, acked);
        bySeat[st.to_move].send({ type: 'resign', room });
        for (const c of bySeat) assert.ok((await c.event(room, 'left')).result);
        for (const c of bySeat) c.close();
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});

// A game that does not rebuild where it is taken over (a stored move
// edited into an illegal one, the owner killed): the node taking it over
// sets it aside, as a start does, and neither it nor another node tries
// it again (the expired leases skip a game set aside).
test('a game that does not rebuild is set aside by the node taking it over, once', async () => {
    const db = pg.db('chameleon_it_takeover_aside');
    const rand = rng(11);
    const a = await node('a', db);
    let b, again;
    const failures = (srv) => (srv.stderr().match(/not taken over[^\n]*/g) || []).length;
    try {
        b = await node('b', db);
        let bySeat = [await connect(a.url), await connect(a.url)];
        const game = bySeat[0].welcome.games.find((g) => g.players === 2);
        const { room, states } = await startGame(bySeat, game.id, { base_ms: 600000, inc_ms: 0 });
        bySeat = bySeatOf(bySeat, states);
        await playPlies(bySeat, room, states[0], 4, rand, []);
        for (const c of bySeat) c.close();
        psql(db, `UPDATE moves SET text = 'Zz9-z9' WHERE game = ${room} AND ply = 1`);
        process.kill(a.pid, 'SIGKILL');
        assert.equal((await a.stop()).sig, 'SIGKILL');
        await until(`b to set game ${room} aside`,
            () => new RegExp(`game set aside[^\n]*game=${room} stored=yes`).test(b.stderr()));
        assert.match(b.stderr(), new RegExp(`not taken over[^\n]*game=${room}`));
        assert.notEqual(psql(db, `SELECT set_aside FROM games WHERE id = ${room}`), '');
        const metrics = await (await fetch(b.http + '/metrics')).text();
        assert.match(metrics, /^chameleon_games_set_aside [1-9]/m);
        // Never tried again: a started again under its name, both nodes
        // through several lease periods.
        again = await node('a', db);
        await sleep(4 * TTL_MS);
        assert.equal(failures(b), 1, b.stderr().slice(-2000));
        assert.equal(failures(again), 0, again.stderr().slice(-2000));
        const c = await connect(b.url);
        assert.equal((await c.request({ type: 'ping' })).type, 'pong');
        c.close();
    } finally {
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
        if (again) assert.equal((await again.stop()).code, 0, again.stderr().slice(-3000));
    }
});

// A correspondence game between two accounts (registered on b; their
// session cookies work on any node, sessions being in the database),
// played on a; a is killed; b takes the room over and the players, logged
// in on b by the same cookies, find every acknowledged move and finish it.
async function register(srv, name) {
    const r = await fetch(srv.http + '/api/register', {
        method: 'POST', body: JSON.stringify({ username: name, password: 'correct horse' }),
        headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(r.status, 200, await r.text());
    return r.headers.get('set-cookie').split(';')[0];
}

test('a correspondence game between accounts taken over after a kill -9', async () => {
    const db = pg.db('chameleon_it_takeover_corr');
    const rand = rng(3);
    const a = await node('a', db);
    let b;
    try {
        b = await node('b', db);
        const cookies = [await register(b, 'corr_one'), await register(b, 'corr_two')];
        let players = [];
        for (const k of cookies) players.push(await connect(a.url, {}, { Cookie: k }));
        assert.equal(players[0].welcome.account, 'corr_one');
        const game = players[0].welcome.games.find((g) => g.players === 2);
        const created = await players[0].request({ type: 'seek_create', game: game.id, corr: { days: 3 } });
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        await players[1].request({ type: 'seek_accept', seek: created.seek.id });
        const states = [];
        for (const p of players) {
            states.push(await p.waitFor((m) => m.type === 'room' && m.corr != null, 'corr room state'));
        }
        const room = states[0].room;
        let bySeat = bySeatOf(players, states);
        const names = bySeat.map((c) => c.welcome.account);
        const acked = [];
        let st = await playPlies(bySeat, room, states[0], 5, rand, acked);
        for (const c of players) c.close();
        process.kill(a.pid, 'SIGKILL');
        assert.equal((await a.stop()).sig, 'SIGKILL');
        await until(`b to take game ${room} over`, () => takeovers(b, room) > 0);
        players = [];
        for (const k of cookies) players.push(await connect(b.url, {}, { Cookie: k }));
        bySeat = names.map((n) => players.find((c) => c.welcome.account === n));
        const view = await bySeat[0].request({ type: 'join', room });
        assert.equal(view.type, 'room', JSON.stringify(view));
        assert.deepEqual(view.corr, { days: 3, inc_days: 0, cap_days: 0 });
        assert.deepEqual(view.moves.map((m) => m.move), acked);
        assert.equal(view.to_move, st.to_move);
        await bySeat[1].request({ type: 'join', room });
        st = await playPlies(bySeat, room, view, 3, rand, acked);
        bySeat[st.to_move].send({ type: 'resign', room });
        for (const c of bySeat) assert.ok((await c.event(room, 'left')).result);
        assert.equal(Number(psql(db, `SELECT count(*) FROM moves WHERE game = ${room}`)), acked.length);
        for (const c of players) c.close();
    } finally {
        await a.stop();
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});
