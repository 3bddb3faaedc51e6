// Forwarding between nodes (server/cluster/forward.c; docs/SCALING.md "Forwarding"):
// two nodes on one PostgreSQL, a player on each. The lobby is held by the
// node whose name sorts first; a seek made on one node is accepted from
// the other; the game is played with each player's moves forwarded to the
// room's node and its events relayed back; a guest's token works on the
// other node; a room's state over one NOTIFY (8,000 bytes) arrives whole;
// the owner killed (kill -9): the other node takes the room over, the
// player whose requests went to the dead node is asked to reconnect (1001)
// and every acknowledged move is there; the lobby moves back to a node
// that comes back under the first name, its watchers elsewhere asked to
// reconnect; the remote sessions of a node that dies end. The turn list,
// vacations and the lobby's life (persons online, games) across nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, bySeatOf, startPostgres, rng, account } from '../integration/lib.mjs';
import { psql, sleep, until, playPlies } from './pglib.mjs';

const TTL_MS = 2000;
let pg;
before(() => {
    pg = startPostgres();
});
after(() => pg.stop());


// Accept seek from c, trying again while c's node has not yet learnt which
// node holds the lobby (it reads that every ttl / 2).
async function acceptSoon(c, seek) {
    for (let i = 0; ; i++) {
        const r = await c.request({ type: 'seek_accept', seek });
        if (r.type !== 'error' || i === 40) return r;
        await sleep(250);
    }
}

test('players on two nodes: a seek across nodes, a game forwarded and relayed, its owner killed', async () => {
    const db = pg.db('chameleon_it_forward');
    const flags = ['--lease-ttl-ms', String(TTL_MS)];
    const a = await startServer(['--node', 'a', ...flags], { db });
    let b, a2;
    let aAlive = true;
    try {
        b = await startServer(['--node', 'b', ...flags], { db });
        const pa = await connect(a.url);
        const pb = await connect(b.url);
        const game = pa.welcome.games.find((g) => g.id === 'ultima') ? 'ultima'
            : pa.welcome.games.find((g) => g.players === 2).id;

        // The seek is made from b (the lobby is a's), accepted on a: the
        // game is the accepter's node's, a.
        await until('b knows the lobby\'s node', () => /lobby's node.*node=a/.test(b.stderr()));
        const watch = await pb.request({ type: 'lobby_watch' });
        assert.notEqual(watch.type, 'error', JSON.stringify(watch));
        const created = await pb.request({ type: 'seek_create', game, base_ms: 600000, inc_ms: 0 });
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        const acc = await pa.request({ type: 'seek_accept', seek: created.seek.id });
        assert.equal(acc.type, 'game_started', JSON.stringify(acc));
        const room = acc.room;
        const started = await pb.waitFor((m) => m.type === 'game_started' && m.room === room, 'game_started on b');
        const states = [
            await pa.waitFor((m) => m.type === 'room' && m.room === room, 'state on a'),
            await pb.waitFor((m) => m.type === 'room' && m.room === room, 'state on b'),
        ];
        assert.notEqual(states[0].you, states[1].you, 'each player has a seat of their own');
        assert.equal(started.seat, states[1].you);
        assert.equal(psql(db, `SELECT node FROM room_leases WHERE game = ${room}`), 'a');

        // Moves both ways: each acknowledged to both players.
        const players = [pa, pb];
        const bySeat = bySeatOf(players, states);
        let st = states[0];
        const played = [];
        const pick = rng(20);
        const plies = async (n) => {
            st = await playPlies(bySeat, room, st, n, pick, played);
        };
        await plies(6);
        pb.send({ type: 'chat', room, text: 'hello from b' });
        assert.equal((await pb.event(room, 'chat')).text, 'hello from b');
        const heard = await pa.event(room, 'chat');
        assert.equal(heard.text, 'hello from b');

        // What each node counts: b sent requests and gave events to its
        // clients; a ran them, for remote sessions, and sent them back.
        const metric = async (srv, name) => {
            const text = await (await fetch(srv.http + '/metrics')).text();
            const m = text.match(new RegExp(`^chameleon_${name} (\\d+)`, 'm'));
            assert.ok(m, `chameleon_${name} in /metrics`);
            return Number(m[1]);
        };
        assert.ok(await metric(b, 'forward_sent_total') >= 4);
        assert.ok(await metric(b, 'forward_delivered_total') >= 8);
        assert.ok(await metric(a, 'forward_run_total') >= 4);
        assert.ok(await metric(a, 'forward_back_total') >= 8);
        assert.equal(await metric(a, 'remote_sessions'), 1, "pb's remote session");
        assert.equal(await metric(b, 'forward_lost_total'), 0);

        // Two clients of the room on b: each event goes to b once, for
        // both (forward_copies counts the clients, forward_back the
        // messages), and both get every move.
        const pc = await connect(b.url);
        assert.equal((await pc.request({ type: 'join', room })).type, 'room');
        const back0 = await metric(a, 'forward_back_total');
        const copies0 = await metric(a, 'forward_copies_total');
        const before = played.length;
        await plies(2);
        for (let i = 0; i < 2; i++) assert.equal((await pc.event(room, 'move')).ply, before + i + 1);
        const back = await metric(a, 'forward_back_total') - back0;
        const copies = await metric(a, 'forward_copies_total') - copies0;
        assert.ok(copies >= 4 && back <= copies - 2, `${back} messages for ${copies} copies`);
        pc.close();

        // A guest's token works on the other node: b's player comes back
        // on a (the room's node) and then on b again, seated each time.
        const token = pb.welcome.token;
        const seatB = states[1].you;
        pb.close();
        const pbOnA = await connect(a.url, { token });
        const viewA = await pbOnA.request({ type: 'join', room });
        assert.equal(viewA.you, seatB, 'the same guest on node a');
        pbOnA.close();
        const pb2 = await connect(b.url, { token });
        const viewB = await pb2.request({ type: 'join', room });
        assert.equal(viewB.you, seatB, 'and on node b again');
        bySeat[seatB] = pb2;
        players[1] = pb2;

        // A state over one NOTIFY (8,000 bytes): moves until the room's
        // state is, then a join from b gets it whole.
        let big = viewB;
        while (JSON.stringify(big).length <= 9000 && st.result == null && played.length < 400) {
            await plies(10);
            big = await pb2.request({ type: 'join', room });
            assert.equal(big.type, 'room', JSON.stringify(big).slice(0, 300));
        }
        assert.ok(JSON.stringify(big).length > 9000, `state of ${JSON.stringify(big).length} bytes after ${played.length} plies, result ${JSON.stringify(st.result)}`);
        assert.equal(big.moves.length, played.length, 'the whole state, every move in it');

        // The owner dies: b takes the room over; pb2 (whose requests went
        // to a) is asked to reconnect, with 1001.
        process.kill(a.pid, 'SIGKILL');
        aAlive = false;
        assert.equal((await a.stop()).sig, 'SIGKILL');
        const closed = await Promise.race([pb2.closed_(), sleep(TTL_MS * 6).then(() => null)]);
        assert.ok(closed, 'the client of the moved room is asked to reconnect');
        assert.equal(closed.code, 1001, JSON.stringify(closed));
        assert.equal(psql(db, `SELECT node FROM room_leases WHERE game = ${room}`), 'b');

        // Both players on b now (a's player reconnects there), and on.
        const tokenA = pa.welcome.token;
        const seatA = states[0].you;
        const qa = await connect(b.url, { token: tokenA });
        const qb = await connect(b.url, { token });
        const va = await qa.request({ type: 'join', room });
        const vb = await qb.request({ type: 'join', room });
        assert.equal(va.you, seatA);
        assert.equal(vb.you, seatB);
        const ids = psql(db, `SELECT text FROM moves WHERE game = ${room} ORDER BY ply`).split('\n');
        assert.equal(ids.length, played.length, 'every acknowledged move is in the database');
        bySeat[seatA] = qa;
        bySeat[seatB] = qb;
        st = va;
        await plies(2);
        // b holds the lobby now (a is dead); a watcher there is asked to
        // reconnect once a comes back under its name and holds it again.
        const watcher = await connect(b.url);
        let w;
        for (let i = 0; i < 40 && !(w && w.type === 'lobby'); i++) {
            w = await watcher.request({ type: 'lobby_watch' });
            if (w.type !== 'lobby') await sleep(250);
        }
        assert.equal(w.type, 'lobby', JSON.stringify(w));
        // A seek made there, by a client not watching the lobby: once the
        // lobby is a's, nobody could accept it.
        const seeker = await connect(b.url);
        const made = await seeker.request({ type: 'seek_create', game: 'ultima', base_ms: 60000, inc_ms: 0 });
        assert.equal(made.type, 'seek_created', JSON.stringify(made));
        assert.equal(await metric(b, 'seeks'), 1);
        // And a node that comes back under a's name serves the other way.
        a2 = await startServer(['--node', 'a', ...flags], { db });
        const moved = await Promise.race([watcher.closed_(), sleep(TTL_MS * 6).then(() => null)]);
        assert.equal(moved?.code, 1001, 'the lobby\'s watcher on b moves to a');
        const unseated = await Promise.race([seeker.closed_(), sleep(TTL_MS * 2).then(() => null)]);
        assert.equal(unseated?.code, 1001, 'the seeker on b is asked to reconnect');
        assert.equal(await metric(b, 'seeks'), 0, 'the seek held on b went with the lobby');
        const viaA = await connect(a2.url, { token: tokenA });
        const vA = await viaA.request({ type: 'join', room });
        assert.equal(vA.you, seatA, 'joined through the new a, forwarded to b');
        // viaA's remote session on b ends when a dies again (its node is
        // no longer alive: read every ttl / 2).
        assert.equal(await metric(b, 'remote_sessions'), 1, "viaA's remote session on b");
        process.kill(a2.pid, 'SIGKILL');
        await a2.stop();
        a2 = null;
        let left = 1;
        for (let i = 0; i < 40 && left > 0; i++) {
            await sleep(250);
            left = await metric(b, 'remote_sessions');
        }
        assert.equal(left, 0, 'the remote session of a dead node ended');
        for (const c of [qa, qb, viaA]) c.close();
    } finally {
        if (aAlive) await a.stop(); // the test failed before killing it
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
        if (a2) assert.equal((await a2.stop()).code, 0, a2.stderr().slice(-3000));
    }
});

// "Your turn" across nodes: a correspondence game between two accounts
// lives on a (the lobby's node); its player on b asks for "turns" there,
// gets the game (read from the database, not b's memory) and a push each
// time the turn comes back to it (chameleon_accounts); a vacation taken on
// b moves the game's deadline on a, and its end moves it back.
test('the turn list and its pushes, and a vacation, across nodes', async () => {
    const db = pg.db('chameleon_it_forward_turns');
    const flags = ['--lease-ttl-ms', String(TTL_MS)];
    const a = await startServer(['--node', 'a', ...flags], { db });
    let b;
    try {
        b = await startServer(['--node', 'b', ...flags], { db });
        const A = await account(a), B = await account(a);
        const ca = await connect(a.url, {}, { Cookie: A.cookie });
        const cb = await connect(b.url, {}, { Cookie: B.cookie });
        assert.equal(cb.welcome.account, B.name);
        assert.deepEqual((await cb.request({ type: 'turns' })).games, []);
        const game = ca.welcome.games.find((g) => g.players === 2).id;
        // Made from b, accepted on a: the game is a's (the accepter's node).
        await until('b knows the lobby\'s node', () => /lobby's node.*node=a/.test(b.stderr()));
        const created = await cb.request({ type: 'seek_create', game, corr: { days: 3 } });
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        const started = await ca.request({ type: 'seek_accept', seek: created.seek.id });
        assert.equal(started.type, 'game_started', JSON.stringify(started));
        const room = started.room;
        const sa = await ca.waitFor((m) => m.type === 'room' && m.room === room, 'state on a');
        const sb = await cb.waitFor((m) => m.type === 'room' && m.room === room, 'state on b');
        const bySeat = bySeatOf([ca, cb], [sa, sb]);
        let st = sa;
        const bSeat = sb.you;
        const pushes = (pred, what) => cb.waitFor((m) => m.type === 'turns' && m.re === undefined
            && pred(m), what);
        for (let ply = 0; ply < 4; ply++) {
            if (st.to_move === bSeat) {
                // b's turn: its list (asked, and pushed) holds the game
                // (at ply 0 once the game's creation has committed).
                const asked = await until('b\'s turn in its list', async () => {
                    const t = await cb.request({ type: 'turns' });
                    return t.games.length > 0 && t;
                });
                assert.deepEqual(asked.games.map((g) => g.id), [room], JSON.stringify(asked));
                assert.equal(asked.games[0].ply, ply);
            }
            bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
            st = await ca.event(room, 'move');
            await cb.event(room, 'move');
            if (st.to_move === bSeat) {
                const p = await pushes((m) => m.games.length === 1 && m.games[0].ply === ply + 1,
                    `turns push after ply ${ply + 1}`);
                assert.equal(p.games[0].id, room);
            }
        }
        // A vacation taken on b moves the deadline of B's game, which a
        // holds: a's players are told and the deadline is 2 days later.
        if (st.to_move !== bSeat) {
            bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
            st = await ca.event(room, 'move');
            await cb.event(room, 'move');
        }
        const before = (await ca.request({ type: 'join', room })).deadlines[bSeat];
        const vac = await cb.request({ type: 'vacation_start', days: 2 });
        assert.equal(vac.type, 'vacation', JSON.stringify(vac));
        const ev = await ca.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'vacation',
            'the vacation event on a');
        assert.equal(ev.seat, bSeat);
        const after = (await ca.request({ type: 'join', room })).deadlines[bSeat];
        const DAY = 24 * 3600 * 1000;
        assert.ok(Math.abs(after - before - 2 * DAY) < 60000, `deadline moved by ${after - before} ms`);
        assert.equal(Number(psql(db, `SELECT deadline_ms FROM games WHERE id = ${room}`)), after,
            'and written by a, the game\'s node');
        // Ended early on b: a's deadline comes back.
        assert.equal((await cb.request({ type: 'vacation_end' })).type, 'vacation');
        await ca.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'vacation',
            'the vacation\'s end on a');
        const ended = (await ca.request({ type: 'join', room })).deadlines[bSeat];
        assert.ok(ended - before < 60000 && ended >= before, `deadline back: ${ended - before} ms`);

        // The lobby's life counts every node: a guest on b plays a bot
        // game held by b; the lobby's watchers on a see three persons (B,
        // on both nodes, once) and both games, then two once the guest
        // has gone.
        const guest = await connect(b.url);
        const bot = await guest.request({ type: 'bot_game', game, level: 1, seat: 0, base_ms: 600000, inc_ms: 0 });
        assert.equal(bot.type, 'game_started', JSON.stringify(bot));
        assert.equal(psql(db, `SELECT node FROM room_leases WHERE game = ${bot.room}`), 'b');
        ca.send({ type: 'lobby_watch' });
        const life = await ca.waitFor((m) => m.type === 'lobby_life' && m.online === 3
            && m.games.some((g) => g.room === bot.room), 'lobby_life with b\'s share', 20000);
        assert.equal(life.playing, 2);
        assert.deepEqual(life.games.map((g) => g.room), [bot.room, room], 'newest first');
        assert.equal(life.games[0].players[1].bot, true);
        guest.close();
        await ca.waitFor((m) => m.type === 'lobby_life' && m.online === 2, 'the guest gone', 20000);
        for (const c of [ca, cb]) c.close();
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});

// "Your games" across nodes: the welcome's rooms. An account and a guest
// each play a bot game that node a holds (created where asked); each then
// connects to node b, whose memory holds neither game: b's welcome lists
// the game all the same (read from the store: store_seated_games), the
// game can be joined from there, and a ping sent right after the hello
// (while b reads, and for the account after its cookie is looked up) is
// answered after the welcome. On a (which holds the game and finds it in
// the store too) the game is listed once.
import { Client } from '../integration/lib.mjs';

test('the welcome lists the games another node holds', async () => {
    const db = pg.db('chameleon_it_forward_welcome');
    const flags = ['--lease-ttl-ms', String(TTL_MS)];
    const a = await startServer(['--node', 'a', ...flags], { db });
    let b;
    try {
        b = await startServer(['--node', 'b', ...flags], { db });
        const A = await account(a);
        const ca = await connect(a.url, {}, { Cookie: A.cookie });
        const ga = await connect(a.url);
        const game = ca.welcome.games.find((g) => g.players === 2).id;
        const rooms = [];
        for (const c of [ca, ga]) {
            const started = await c.request({ type: 'bot_game', game, level: 1, seat: 0,
                base_ms: 600000, inc_ms: 0 });
            assert.equal(started.type, 'game_started', JSON.stringify(started));
            rooms.push(started.room);
        }
        // Created where asked (a), and committed (b reads the database).
        await until('both games in the database', () => psql(db,
            `SELECT count(*) FROM room_leases WHERE node = 'a' AND game IN (${rooms})`) === '2');

        const players = [
            { what: 'the account', headers: { Cookie: A.cookie }, hello: {}, room: rooms[0] },
            { what: 'the guest', headers: {}, hello: { token: ga.welcome.token }, room: rooms[1] },
        ];
        for (const p of players) {
            const c = await new Client(b.url, p.headers).open();
            const order = [];
            c.ws.on('message', (data) => order.push(JSON.parse(data.toString()).re));
            c.send({ type: 'hello', id: 1, ...p.hello });
            c.send({ type: 'ping', id: 2 });
            const welcome = await c.waitFor((m) => m.re === 1, `${p.what}'s welcome on b`);
            assert.equal(welcome.type, 'welcome', JSON.stringify(welcome));
            assert.deepEqual(welcome.rooms, [p.room], `${p.what}'s game, held by a, listed by b`);
            assert.equal((await c.waitFor((m) => m.re === 2, 'pong')).type, 'pong');
            assert.deepEqual(order.filter((re) => re !== undefined), [1, 2],
                'the ping sent after the hello is answered after the welcome');
            const view = await c.request({ type: 'join', room: p.room });
            assert.equal(view.you, 0, `${p.what} joins its game from b`);
            c.close();
        }
        const again = await connect(a.url, { token: ga.welcome.token });
        assert.deepEqual(again.welcome.rooms, [rooms[1]], 'on a: once, not from memory and store both');
        for (const c of [ca, ga, again]) c.close();
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});

// A game started from the lobby lives on the node of the player who
// started it (server/cluster/place.c): a seek made on a (the lobby's node) and
// accepted from b is b's. b's player gets its reply and the state from b;
// a's player its game_started from a, and the state from b through a (a
// joins for it); they play, and the moves are in the database. A
// challenge accepted on b is b's as well.
test('a seek\'s game is placed on the node of the player who filled it', async () => {
    const db = pg.db('chameleon_it_forward_place');
    const flags = ['--lease-ttl-ms', String(TTL_MS)];
    const a = await startServer(['--node', 'a', ...flags], { db });
    let b;
    try {
        b = await startServer(['--node', 'b', ...flags], { db });
        const pa = await connect(a.url);
        const pb = await connect(b.url);
        const game = pa.welcome.games.find((g) => g.players === 2).id;
        const created = await pa.request({ type: 'seek_create', game, base_ms: 600000, inc_ms: 0 });
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        const acc = await acceptSoon(pb, created.seek.id);
        assert.equal(acc.type, 'game_started', JSON.stringify(acc));
        const room = acc.room;
        const sb = await pb.waitFor((m) => m.type === 'room' && m.room === room, 'the state from b');
        const started = await pa.waitFor((m) => m.type === 'game_started' && m.room === room,
            'game_started on a');
        const sa = await pa.waitFor((m) => m.type === 'room' && m.room === room, 'the state on a');
        assert.equal(started.seat, sa.you);
        assert.notEqual(sa.you, sb.you);
        await until('the game\'s lease', () =>
            psql(db, `SELECT node FROM room_leases WHERE game = ${room}`) === 'b');
        const rooms = async (srv) => Number((await (await fetch(srv.http + '/metrics')).text())
            .match(/^chameleon_rooms (\d+)/m)[1]);
        assert.equal(await rooms(b), 1);
        assert.equal(await rooms(a), 0);
        const played = [];
        await playPlies(bySeatOf([pa, pb], [sa, sb]), room, sa, 4, rng(7), played);
        assert.equal(psql(db, `SELECT string_agg(text, ' ' ORDER BY ply) FROM moves WHERE game = ${room}`),
            played.join(' '));
        for (const c of [pa, pb]) c.close();

        // A challenge made on a, accepted on b: the game is b's too, the
        // challenger on a told and given the state.
        const A = await account(a), B = await account(a);
        const ca = await connect(a.url, {}, { Cookie: A.cookie });
        const cb = await connect(b.url, {}, { Cookie: B.cookie });
        const ch = await ca.request({ type: 'challenge_create', to: B.name, game, base_ms: 600000, inc_ms: 0 });
        assert.equal(ch.type, 'challenge', JSON.stringify(ch));
        const id = ch.challenge.id;
        const chStarted = await cb.request({ type: 'challenge_accept', challenge: id });
        assert.equal(chStarted.type, 'game_started', JSON.stringify(chStarted));
        const told = await ca.waitFor((m) => m.type === 'game_started' && m.room === chStarted.room,
            'the challenger told');
        const view = await ca.waitFor((m) => m.type === 'room' && m.room === chStarted.room,
            'and given the state');
        assert.equal(view.you, told.seat);
        await until('the challenge game\'s lease', () =>
            psql(db, `SELECT node FROM room_leases WHERE game = ${chStarted.room}`) === 'b');
        for (const c of [ca, cb]) c.close();
    } finally {
        assert.equal((await a.stop()).code, 0, a.stderr().slice(-3000));
        if (b) assert.equal((await b.stop()).code, 0, b.stderr().slice(-3000));
    }
});
