// Takebacks (server/game/room_takeback.c, PROTOCOL.md "Takebacks, rematches and
// downloads") and declining a rematch (server/game/room_rematch.c), on the real
// server: ask, decline, accept; one move taken back when the opponent has
// not answered, two when they have; the clocks keep their time; a
// spectator sees the new state; the store forgets the moves (a restart
// does not bring them back, /api/games agrees); in a rated game too, the
// rating following the moves that stay; refused in correspondence and
// three-player games and with nothing to take back; a bot agrees at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame } from './lib.mjs';

const servers = [];
const clients = [];
let first = null; // the server before the restart, while it runs
after(async () => {
    for (const c of clients) c.close(); // a failed test leaves nothing open
    if (first) await first.stop();
    for (const s of servers) {
        const st = await s.stop();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${s.stderr().slice(-3000)}`);
    }
});
async function server(extra = [], opts = {}) {
    const s = await startServer(extra, opts);
    servers.push(s);
    return s;
}

// Plays `move` by `who` in room; waits for the move event at every client.
async function play(who, room, move, all) {
    who.send({ type: 'move', room, move });
    const evs = [];
    for (const c of all) evs.push(await c.event(room, 'move'));
    return evs[0];
}

test('takeback: ask, decline, accept; one move or two; a restart keeps it taken back', async () => {
    const one = await startServer();
    first = one;
    const a = await connect(one.url, { name: 'ann' });
    const b = await connect(one.url, { name: 'bob' });
    const w = await connect(one.url, { name: 'watcher' });
    clients.push(a, b, w);
    const { room } = await startGame([a, b], 'rollerball', { base_ms: 300000, inc_ms: 2000 });
    const joined = await w.request({ type: 'join', room });
    assert.deepEqual(joined.takeback_offers, []);
    const all = [a, b, w];

    await a.expectError({ type: 'takeback', room }, 'no_takeback'); // nothing to take back yet
    await play(a, room, 'c2-b1', all);
    await b.expectError({ type: 'takeback_decline', room }, 'no_takeback'); // nothing asked

    // Asked, then declined.
    a.send({ type: 'takeback', room });
    for (const c of all) assert.deepEqual((await c.event(room, 'takeback_offer')).offers, [0]);
    assert.deepEqual((await w.request({ type: 'join', room })).takeback_offers, [0]);
    b.send({ type: 'takeback_decline', room });
    for (const c of all) assert.equal((await c.event(room, 'takeback_declined')).seat, 1);

    // Asked again (the opponent has not answered): one move goes.
    a.send({ type: 'takeback', room });
    for (const c of all) await c.event(room, 'takeback_offer');
    b.send({ type: 'takeback', room }); // accepts
    let ev;
    for (const c of all) ev = await c.event(room, 'takeback');
    assert.equal(ev.ply, 0);
    assert.equal(ev.removed, 1);
    assert.equal(ev.to_move, 0);
    // B's first turn is not timed (a seat's clock runs from its second
    // turn): nothing was spent; time given back is checked below.
    assert.equal(ev.clocks[1], 300000, `B's first turn is untimed: ${ev.clocks}`);
    let st = await w.request({ type: 'join', room });
    assert.equal(st.moves.length, 0);
    assert.equal(st.to_move, 0);
    assert.ok(st.legal.includes('c2-b1'));

    // A plays and asks; B plays instead of answering: the offer is stale,
    // and B's takeback is then an offer of B's own, which A declines.
    await play(a, room, 'c2-b1', all);
    a.send({ type: 'takeback', room });
    for (const c of all) await c.event(room, 'takeback_offer');
    await play(b, room, 'e6-f5', all);
    b.send({ type: 'takeback', room });
    for (const c of all) assert.deepEqual((await c.event(room, 'takeback_offer')).offers, [1]);
    a.send({ type: 'takeback_decline', room });
    for (const c of all) await c.event(room, 'takeback_declined');
    // A asks now that B has answered: both moves go, A is to move again.
    a.send({ type: 'takeback', room });
    for (const c of all) await c.event(room, 'takeback_offer');
    b.send({ type: 'takeback', room });
    for (const c of all) ev = await c.event(room, 'takeback');
    assert.equal(ev.ply, 0);
    assert.equal(ev.removed, 2);
    assert.equal(ev.to_move, 0);
    // Abort is possible again: nobody has a move on the board.
    st = await a.request({ type: 'join', room });
    assert.deepEqual(st.moves, []);

    // Some moves, one taken back, then a restart: the move stays gone.
    await play(a, room, 'c2-b1', all);
    await play(b, room, 'e6-f5', all);
    await play(a, room, 'd1-c6', all);
    await new Promise((r) => setTimeout(r, 300)); // B's second turn: its clock runs
    b.send({ type: 'takeback', room }); // B asks; A has answered: e6-f5 and d1-c6 go
    for (const c of all) await c.event(room, 'takeback_offer');
    a.send({ type: 'takeback', room });
    for (const c of all) ev = await c.event(room, 'takeback');
    assert.equal(ev.ply, 1);
    assert.equal(ev.removed, 2);
    assert.equal(ev.to_move, 1);
    assert.ok(ev.clocks[1] < 300000, `B's time is not given back: ${ev.clocks}`);
    const clocksBefore = ev.clocks;
    const metrics = await (await fetch(`${one.http}/metrics`)).text();
    assert.match(metrics, /chameleon_takebacks_total 3\b/);
    let r = await fetch(`${one.http}/api/games/${room}`);
    assert.deepEqual((await r.json()).moves.map((m) => m.move), ['c2-b1']);
    a.close(); b.close(); w.close();

    first = null;
    assert.equal((await one.stop(true)).code, 0);
    const two = await server([], { dir: one.dir });
    const b2 = await connect(two.url, { token: b.welcome.token });
    clients.push(b2);
    st = await b2.request({ type: 'join', room });
    assert.deepEqual(st.moves.map((m) => m.move), ['c2-b1']);
    assert.equal(st.to_move, 1);
    assert.equal(st.you, 1);
    assert.ok(Math.abs(st.clocks[0] - clocksBefore[0]) < 1000, `clocks restored: ${st.clocks} vs ${clocksBefore}`);
    r = await fetch(`${two.http}/api/games/${room}.pgn`);
    const pgn = await r.text();
    assert.ok(!pgn.includes('e6-f5'), pgn);
    // The game goes on from there.
    const a2 = await connect(two.url, { token: a.welcome.token });
    clients.push(a2);
    await a2.request({ type: 'join', room });
    b2.send({ type: 'move', room, move: 'e6-f5' });
    assert.equal((await a2.event(room, 'move')).ply, 2);
    a2.close(); b2.close();
});

test('takeback in a rated game when the opponent agrees; refused in correspondence and three-player games; a bot agrees', async () => {
    const srv = await server();
    // Accounts for rated and correspondence games.
    const cookies = [];
    for (const n of ['tbann', 'tbbob']) {
        const res = await fetch(`${srv.http}/api/register`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: n, password: 'correct horse' }),
        });
        assert.equal(res.status, 200);
        cookies.push(res.headers.get('set-cookie').split(';')[0]);
    }
    const a = await connect(srv.url, {}, { Cookie: cookies[0] });
    const b = await connect(srv.url, {}, { Cookie: cookies[1] });
    clients.push(a, b);
    {
        // Rated: asked, accepted, the move gone; the game goes on and ends
        // rated, with the moves that stayed.
        const { room } = await startGame([a, b], 'rollerball', { base_ms: 300000, inc_ms: 0, rated: true });
        await play(a, room, 'c2-b1', [a, b]);
        a.send({ type: 'takeback', room });
        await b.event(room, 'takeback_offer');
        b.send({ type: 'takeback', room });
        const ev = await a.event(room, 'takeback');
        assert.equal(ev.removed, 1);
        assert.equal(ev.ply, 0);
        await play(a, room, 'c2-b1', [a, b]);
        await play(b, room, 'e6-f7', [a, b]);
        a.send({ type: 'resign', room });
        await b.event(room, 'left');
        const told = await b.event(room, 'ratings');
        assert.ok(told.players.every((p) => typeof p.rating_diff === 'number'), JSON.stringify(told));
        const stored = await (await fetch(`${srv.http}/api/games/${room}`)).json();
        assert.equal(stored.moves.length, 2);
        assert.equal(stored.rated, true);
    }
    {
        const { room } = await startGame([a, b], 'rollerball', { corr: { days: 3 } });
        await play(a, room, 'c2-b1', [a, b]);
        const e = await a.expectError({ type: 'takeback', room }, 'no_takeback');
        assert.match(e.reason, /correspondence/);
        a.send({ type: 'resign', room });
        await b.event(room, 'left');
    }
    const c = await connect(srv.url, { name: 'cid' });
    clients.push(c);
    const g3 = a.welcome.games.find((g) => g.players === 3);
    if (g3) {
        const { room, states } = await startGame([a, b, c], g3.id, { base_ms: 300000, inc_ms: 0 });
        const e = await [a, b, c][states[0].to_move].expectError({ type: 'takeback', room }, 'no_takeback');
        assert.match(e.reason, /three-player/);
    }
    // A spectator has no seat.
    const { room } = await startGame([a, b], 'rollerball', { base_ms: 300000, inc_ms: 0 });
    await c.request({ type: 'join', room });
    await c.expectError({ type: 'takeback', room }, 'not_a_player');

    // A bot agrees at once (the human plays first from seat 0).
    const h = await connect(srv.url, { name: 'human' });
    clients.push(h);
    h.send({ type: 'bot_game', game: 'rollerball', level: 1, seat: 0, base_ms: 300000, inc_ms: 0 });
    const started = await h.waitFor((m) => m.type === 'game_started', 'game_started');
    const broom = started.room;
    await h.waitFor((m) => m.type === 'room' && m.room === broom, 'room');
    h.send({ type: 'move', room: broom, move: 'c2-b1' });
    await h.event(broom, 'move');
    await h.event(broom, 'move'); // the bot's answer
    h.send({ type: 'takeback', room: broom });
    const ev = await h.event(broom, 'takeback');
    assert.equal(ev.removed, 2);
    assert.equal(ev.to_move, 0);
    for (const x of [a, b, c, h]) x.close();
});

test('rematch: declined (the offers go), then asked again and accepted: colours swap', async () => {
    const srv = await server();
    const a = await connect(srv.url, { name: 'rema' });
    const b = await connect(srv.url, { name: 'remb' });
    clients.push(a, b);
    const { room } = await startGame([a, b], 'rollerball', { base_ms: 180000, inc_ms: 2000 });
    await a.expectError({ type: 'rematch_decline', room }, 'game_not_over');
    a.send({ type: 'resign', room });
    await b.event(room, 'left');
    a.send({ type: 'rematch', room });
    assert.deepEqual((await b.event(room, 'rematch_offer')).offers, [0]);
    b.send({ type: 'rematch_decline', room });
    const d = await a.event(room, 'rematch_declined');
    assert.equal(d.seat, 1);
    assert.equal(d.offers, undefined);
    let st = await a.request({ type: 'join', room });
    assert.deepEqual(st.rematch_offers, []);
    // Asked again and accepted: a new game, seats rotated (colours swap),
    // the same time control.
    a.send({ type: 'rematch', room });
    await b.event(room, 'rematch_offer');
    b.send({ type: 'rematch', room });
    const ev = await a.event(room, 'rematch');
    const next = await a.waitFor((m) => m.type === 'room' && m.room === ev.next_room, 'the rematch');
    assert.equal(next.you, 1);
    assert.equal(next.seats[0].player.name, 'remb');
    assert.equal(next.base_ms, 180000);
    assert.equal(next.inc_ms, 2000);
    await a.expectError({ type: 'rematch_decline', room }, 'game_over'); // started already
    a.close(); b.close();
});
