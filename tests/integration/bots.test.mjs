// Bots through the real server: a game against level-1 bots to its end for
// every game id (the client plays random legal moves and checks that every
// bot move was legal), three-player seeks filled with bots, the bots'
// answer to a draw offer, a live clock the bot never runs out of, a restart
// while a bot thinks, the archive's bot marks, and the errors of bad
// requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startServer, connect, rng } from './lib.mjs';

let srv;
let games = [];

before(async () => {
    srv = await startServer(['--bot-threads', '2', '--bot-table-mb', '4']);
    const c = await connect(srv.url);
    games = c.welcome.games;
    c.close();
});

after(async () => {
    const st = await srv.stop();
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
});

// Start a game against bots; returns { room, state } (the room state).
async function botGame(c, req) {
    const started = await c.request({ type: 'bot_game', ...req });
    assert.equal(started.type, 'game_started', JSON.stringify(started));
    const state = await c.waitFor((m) => m.type === 'room' && m.room === started.room, 'room state');
    return { room: started.room, state, seat: started.seat };
}

// Play random legal moves for our seat until the game is over (resign after
// maxPly plies). Every move event of a bot is checked against the legal
// moves of the event before it. Returns the final event and the plies.
async function playOut(c, room, state, seed, maxPly = 300) {
    const rand = rng(seed);
    const you = state.you;
    let legal = state.legal;
    let toMove = state.to_move;
    let result = state.result;
    let ply = state.moves.length;
    let botMoves = 0;
    while (result === null && ply < maxPly) {
        if (toMove === you) {
            const mv = legal[Math.floor(rand() * legal.length)];
            c.send({ type: 'move', room, move: mv });
        }
        const ev = await c.waitFor((m) => m.type === 'event' && m.room === room &&
            (m.kind === 'move' || m.kind === 'left'), `event after ply ${ply}`, 20000);
        if (ev.kind === 'move') {
            assert.equal(ev.seat, toMove, 'the seat to move moved');
            assert.ok(legal.includes(ev.move), `${ev.move} is legal (${legal.length} moves)`);
            if (ev.seat !== you) botMoves++;
            ply = ev.ply;
        } else {
            assert.notEqual(ev.seat, you);
            assert.equal(ev.reason, 'resignation', 'a bot leaves only by resigning');
        }
        legal = ev.legal;
        toMove = ev.to_move;
        result = ev.result;
    }
    if (result === null) {
        c.send({ type: 'resign', room });
        const left = await c.event(room, 'left');
        result = left.result;
        // Three players: the two bots play on to the end.
        while (result === null) {
            const ev = await c.waitFor((m) => m.type === 'event' && m.room === room &&
                (m.kind === 'move' || m.kind === 'left'), 'the bots play on', 60000);
            result = ev.result;
        }
    }
    return { result, ply, botMoves };
}

test('a game against the computer to its end, for every game id', async (t) => {
    assert.ok(games.length >= 6);
    // Two at a time: the two cores are shared with the server.
    const ids = games.map((g) => g.id);
    const run = async (g, i) => {
        const c = await connect(srv.url);
        const { room, state, seat } = await botGame(c, { game: g.id, level: 1, seat: 0, base_ms: 0, inc_ms: 0 });
        assert.equal(seat, 0);
        assert.equal(state.you, 0);
        assert.equal(state.rated, false);
        assert.equal(state.seats.length, g.players);
        assert.equal(state.seats[0].player.bot, undefined);
        for (let s = 1; s < g.players; s++) {
            assert.equal(state.seats[s].player.bot, true);
            assert.equal(state.seats[s].player.level, 1);
            assert.equal(state.seats[s].player.name, 'bot-level-1');
            assert.equal(state.seats[s].connected, true);
        }
        const { result, ply, botMoves } = await playOut(c, room, state, 1000 + i);
        assert.ok(result && result.reason, 'the game is over');
        assert.ok(botMoves > 0, 'the bots moved');
        t.diagnostic(`${g.id}: ${ply} plies, ${result.reason}, ${botMoves} bot moves`);
        // The archive marks the bots.
        const res = await fetch(`${srv.http}/api/games/${room}`);
        const doc = await res.json();
        assert.equal(doc.players[0].bot, undefined);
        for (let s = 1; s < g.players; s++) assert.equal(doc.players[s].bot, true);
        c.close();
    };
    for (let i = 0; i < ids.length; i += 2)
        await Promise.all(games.slice(i, i + 2).map((g, k) => run(g, i + k)));
});

test('bot_game: a random seat, the bot moves first when it has the first seat', async () => {
    const c = await connect(srv.url);
    // seat 1 in a two-player game: the bot (seat 0) opens.
    const { room, state } = await botGame(c, { game: 'ultima', level: 2, seat: 1, base_ms: 0, inc_ms: 0 });
    assert.equal(state.you, 1);
    const ev = await c.event(room, 'move');
    assert.equal(ev.seat, 0);
    assert.equal(ev.ply, 1);
    assert.ok(state.legal.includes(ev.move));
    // seat -1 (or none): random, among the game's seats.
    const r2 = await c.request({ type: 'bot_game', game: 'yalta', level: 1, base_ms: 0, inc_ms: 0 });
    assert.equal(r2.type, 'game_started');
    assert.ok(r2.seat >= 0 && r2.seat < 3);
    for (const r of [room, r2.room]) c.send({ type: 'resign', room: r });
    c.close();
});

test('bad bot requests get clear errors', async () => {
    const c = await connect(srv.url);
    const base = { type: 'bot_game', game: 'ultima', base_ms: 0, inc_ms: 0 };
    for (const level of [0, 9, -1])
        assert.match((await c.expectError({ ...base, level }, 'bad_message')).reason, /level/);
    assert.match((await c.expectError({ ...base, level: 3, rated: true }, 'bad_argument')).reason, /rated/);
    await c.expectError({ ...base, game: 'chess', level: 3 }, 'unknown_game');
    await c.expectError({ ...base, level: 3, seat: 2 }, 'bad_message');
    await c.expectError({ type: 'bot_game', game: 'ultima', level: 3 }, 'bad_message');
    await c.expectError({ ...base, level: 3, base_ms: -5 }, 'bad_time_control');
    await c.expectError({ type: 'bot_game', game: 'ultima', level: 3, corr: { days: 3 } }, 'account_required');
    await c.expectError({ type: 'bot_game', level: 3 }, 'bad_message');
    // Nobody else may call itself bot-...
    const { Client } = await import('./lib.mjs');
    const imp = await new Client(srv.url).open();
    await imp.expectError({ type: 'hello', name: 'bot-level-8' }, 'bad_message');
    imp.close();
    // seek_fill: only the creator of an open seek, never a rated one.
    const d = await connect(srv.url);
    const s = await c.request({ type: 'seek_create', game: 'yalta', base_ms: 0, inc_ms: 0 });
    await d.expectError({ type: 'seek_fill', seek: s.seek.id, level: 3 }, 'unknown_seek');
    await c.expectError({ type: 'seek_fill', seek: 999999, level: 3 }, 'unknown_seek');
    await c.expectError({ type: 'seek_fill', seek: s.seek.id, level: 10 }, 'bad_message');
    // Ten games with bots at once at most.
    const rooms = [];
    for (let i = 0; i < 10; i++) {
        const r = await c.request({ ...base, level: 1, seat: 1 });
        assert.equal(r.type, 'game_started', JSON.stringify(r));
        rooms.push(r.room);
    }
    await c.expectError({ ...base, level: 1 }, 'too_many_games');
    for (const r of rooms) c.send({ type: 'resign', room: r });
    c.close();
    d.close();
});

test('three players: the creator fills the empty seats of its seek with bots', async () => {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const watcher = await connect(srv.url);
    await watcher.request({ type: 'lobby_watch' });
    const s = await a.request({ type: 'seek_create', game: 'ant3', base_ms: 0, inc_ms: 0 });
    await b.request({ type: 'seek_accept', seek: s.seek.id });
    // The watcher sees it listed (a seek created and gone within one lobby
    // tick is never sent), then removed when the bots fill it.
    await watcher.lobbyChange('add', s.seek.id);
    const started = await a.request({ type: 'seek_fill', seek: s.seek.id, level: 2 });
    assert.equal(started.type, 'game_started');
    const rm = await watcher.lobbyChange('remove', s.seek.id);
    assert.equal(rm.seek.id, s.seek.id);
    const room = started.room;
    const sa = await a.waitFor((m) => m.type === 'room' && m.room === room, 'room a');
    await b.waitFor((m) => m.type === 'game_started' && m.room === room, 'game_started b');
    const sb = await b.waitFor((m) => m.type === 'room' && m.room === room, 'room b');
    assert.equal(sa.you, 0);
    assert.equal(sb.you, 1);
    assert.equal(sa.seats[2].player.bot, true);
    assert.equal(sa.seats[2].player.name, 'bot-level-2');
    // A and B move; then the bot answers at seat 2.
    let st = sa;
    const rand = rng(7);
    for (const [c, seat] of [[a, 0], [b, 1]]) {
        assert.equal(st.to_move, seat);
        c.send({ type: 'move', room, move: st.legal[Math.floor(rand() * st.legal.length)] });
        st = await a.event(room, 'move');
    }
    assert.equal(st.to_move, 2);
    const botMove = await a.event(room, 'move');
    assert.equal(botMove.seat, 2);
    assert.ok(st.legal.includes(botMove.move));
    // Two players with bots: a 3-seat seek filled with two bots works too.
    const s2 = await a.request({ type: 'seek_create', game: 'yalta', base_ms: 0, inc_ms: 0 });
    const g2 = await a.request({ type: 'seek_fill', seek: s2.seek.id, level: 1 });
    assert.equal(g2.type, 'game_started');
    const st2 = await a.waitFor((m) => m.type === 'room' && m.room === g2.room, 'room 2');
    assert.deepEqual(st2.seats.map((x) => !!x.player.bot), [false, true, true]);
    for (const r of [room, g2.room]) a.send({ type: 'resign', room: r });
    b.send({ type: 'resign', room });
    a.close(); b.close(); watcher.close();
});

test('draw offers: a bot declines before it has judged the game, answers at once after', async () => {
    const c = await connect(srv.url);
    const { room, state } = await botGame(c, { game: 'rollerball', level: 4, seat: 0, base_ms: 0, inc_ms: 0 });
    c.send({ type: 'draw_offer', room });
    const off = await c.event(room, 'draw_offer');
    assert.equal(off.seat, 0);
    const dec = await c.event(room, 'draw_declined');
    assert.equal(dec.seat, 1, 'the bot declines: it has not judged the game yet');
    // After its first move the bot has a score: it takes the draw if the
    // game is about even for it, else declines; either way at once.
    c.send({ type: 'move', room, move: state.legal[0] });
    await c.waitFor((m) => m.type === 'event' && m.kind === 'move' && m.seat === 1, 'bot move');
    c.send({ type: 'draw_offer', room });
    const answer = await c.waitFor((m) => m.type === 'event' && m.room === room &&
        ((m.kind === 'draw_declined' && m.seat === 1) || (m.kind === 'end')), 'the answer');
    if (answer.kind === 'end') assert.equal(answer.result.reason, 'agreement');
    else c.send({ type: 'resign', room });
    c.close();
});

test('a live clock: the bot plays within its time and never flags', async () => {
    const c = await connect(srv.url);
    const { room, state } = await botGame(c, { game: 'ultima', level: 8, seat: 0, base_ms: 4000, inc_ms: 100 });
    let st = state;
    for (let i = 0; i < 8 && st.result === null; i++) {
        c.send({ type: 'move', room, move: st.legal[0] });
        await c.waitFor((m) => m.type === 'event' && m.kind === 'move' && m.seat === 0, 'own move');
        const ev = await c.waitFor((m) => m.type === 'event' && m.room === room &&
            (m.kind === 'left' || (m.kind === 'move' && m.seat === 1)), 'bot move', 10000);
        assert.equal(ev.kind, 'move', `the bot did not flag: ${JSON.stringify(ev).slice(0, 200)}`);
        assert.ok(ev.clocks[1] > 0);
        st = ev;
    }
    c.send({ type: 'resign', room });
    c.close();
});

test('restart: a game with a bot comes back and the bot to move thinks again', async () => {
    const one = await startServer(['--bot-threads', '1', '--bot-table-mb', '1']);
    let c = await connect(one.url);
    // Level 8 without a clock thinks for about 1.5 s: stop the server then.
    const { room, state } = await botGame(c, { game: 'ultima', level: 8, seat: 0, base_ms: 0, inc_ms: 0 });
    const token = c.welcome.token;
    c.send({ type: 'move', room, move: state.legal[0] });
    await c.event(room, 'move');
    c.close();
    const st1 = await one.stop(true);
    assert.equal(st1.code, 0, one.stderr().slice(-2000));
    const two = await startServer(['--bot-threads', '1', '--bot-table-mb', '1'], { dir: one.dir });
    try {
        c = await connect(two.url, { token });
        assert.deepEqual(c.welcome.rooms, [room]);
        const view = await c.request({ type: 'join', room });
        assert.equal(view.seats[1].player.bot, true);
        let ev;
        if (view.moves.length === 1) {
            ev = await c.waitFor((m) => m.type === 'event' && m.kind === 'move', 'the bot answers after the restart', 15000);
        } else {
            ev = view.moves[1]; // answered before the stop (written first)
        }
        assert.equal(ev.seat, 1);
        c.send({ type: 'resign', room });
        await c.event(room, 'left');
        c.close();
    } finally {
        const st2 = await two.stop(true);
        rmSync(one.dir, { recursive: true, force: true });
        assert.equal(st2.code, 0, two.stderr().slice(-2000));
    }
});

test('rematch: the bot agrees at once; seats rotate', async () => {
    const c = await connect(srv.url);
    const { room, state } = await botGame(c, { game: 'rollerball', level: 1, seat: 0, base_ms: 0, inc_ms: 0 });
    assert.equal(state.you, 0);
    c.send({ type: 'resign', room });
    await c.event(room, 'left');
    c.send({ type: 'rematch', room });
    const ev = await c.event(room, 'rematch');
    const started = await c.waitFor((m) => m.type === 'game_started' && m.room === ev.next_room, 'the rematch');
    assert.equal(started.seat, 1, 'seats rotate: now the bot opens');
    const first = await c.waitFor((m) => m.type === 'event' && m.room === ev.next_room && m.kind === 'move', 'the bot opens');
    assert.equal(first.seat, 0);
    c.send({ type: 'resign', room: ev.next_room });
    c.close();
});

test('correspondence against a bot (an account): the bot answers within seconds, deadlines shown', async () => {
    const name = `bt_${Date.now() % 100000}`;
    const r = await fetch(`${srv.http}/api/register`, {
        method: 'POST', body: JSON.stringify({ username: name, password: 'correct horse' }),
        headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(r.status, 200);
    const cookie = r.headers.get('set-cookie').split(';')[0];
    const c = await connect(srv.url, {}, { Cookie: cookie });
    const { room, state } = await botGame(c, { game: 'ultima', level: 3, seat: 0, corr: { days: 1 } });
    assert.deepEqual(state.corr, { days: 1, inc_days: 0, cap_days: 0 });
    c.send({ type: 'move', room, move: state.legal[0] });
    await c.event(room, 'move');
    const ev = await c.waitFor((m) => m.type === 'event' && m.kind === 'move' && m.seat === 1, 'the bot answers', 10000);
    assert.ok(ev.deadlines[0] > ev.now_ms, 'our deadline runs again');
    // The bot's seat is marked in the archive of a game in progress too.
    const doc = await (await fetch(`${srv.http}/api/games/${room}`)).json();
    assert.equal(doc.players[1].bot, true);
    assert.equal(doc.players[1].level, 3);
    assert.deepEqual(doc.options.bots, [0, 3]);
    c.send({ type: 'resign', room });
    c.close();
});

test('metrics count the bots', async () => {
    const res = await fetch(`${srv.http}/metrics`);
    const text = await res.text();
    assert.match(text, /chameleon_bot_threads 2/);
    assert.match(text, /chameleon_bot_searches_total [1-9]/);
});
