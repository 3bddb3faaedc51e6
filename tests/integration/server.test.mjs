// The real server, driven over real WebSockets: HTTP, the lobby, a full game
// of every game id of the rules core (two and three players) watched by a
// spectator, reconnect from a sequence number, a flag fall, draws, resign,
// abort, rematch, chat and every error code that a client can provoke.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, connect, startGame, rng, firstMover, bySeatOf } from './lib.mjs';
import { rmSync } from 'node:fs';

let srv;
let games = [];

before(async () => {
    srv = await startServer();
    const c = await connect(srv.url);
    games = c.welcome.games;
    c.close();
});

after(async () => {
    const st = await srv.stop();
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
});

test('HTTP: healthz, metrics, static files with their MIME types, 404', async () => {
    let r = await fetch(srv.http + '/healthz');
    assert.equal(r.status, 200);
    const h = await r.json();
    assert.equal(h.status, 'ok');
    assert.equal(typeof h.connections, 'number');
    r = await fetch(srv.http + '/metrics');
    assert.equal(r.status, 200);
    const text = await r.text();
    for (const name of ['chameleon_connections', 'chameleon_rooms', 'chameleon_games_in_progress',
        'chameleon_moves_total', 'chameleon_errors_total{code="bad_json"}'])
        assert.ok(text.includes(name), name);
    const mimes = { '/': 'text/html', '/app.js': 'text/javascript', '/style.css': 'text/css',
        '/piece.svg': 'image/svg+xml' };
    for (const [path, mime] of Object.entries(mimes)) {
        r = await fetch(srv.http + path);
        assert.equal(r.status, 200, path);
        assert.ok(r.headers.get('content-type').startsWith(mime), `${path}: ${r.headers.get('content-type')}`);
        await r.text();
    }
    r = await fetch(srv.http + '/nope.js');
    assert.equal(r.status, 404);
    await r.text();
    r = await fetch(srv.http + '/../etc/passwd');
    assert.notEqual(r.status, 200);
    await r.text();
});

test('hello issues a token; the same token resumes the same identity', async () => {
    const a = await connect(srv.url, { name: 'alice' });
    assert.match(a.welcome.token, /^[0-9a-f]{32}$/);
    assert.equal(a.welcome.player.name, 'alice');
    assert.equal(a.welcome.protocol, 1);
    assert.ok(Array.isArray(a.welcome.games));
    const b = await connect(srv.url, { token: a.welcome.token });
    assert.equal(b.welcome.player.id, a.welcome.player.id);
    const c = await connect(srv.url, { token: 'unknown' });
    assert.notEqual(c.welcome.player.id, a.welcome.player.id);
    assert.notEqual(c.welcome.token, a.welcome.token);
    const pong = await c.request({ type: 'ping' });
    assert.equal(pong.type, 'pong');
    a.close(); b.close(); c.close();
});

test('every error code a client can provoke', async (t) => {
    const a = await new Client(srv.url).open();
    // Before hello.
    await a.expectError({ type: 'ping' }, 'not_hello');
    a.sendRaw('not json');
    let m = await a.waitFor((x) => x.type === 'error', 'bad_json');
    assert.equal(m.code, 'bad_json');
    assert.equal(m.request, undefined);
    await a.expectError({ type: 'no_such_type' }, 'unknown_type');
    await a.hello();
    await a.expectError({ type: 'hello' }, 'not_hello');
    await a.expectError({ type: 'join' }, 'bad_message');
    await a.expectError({ type: 'join', room: 'x' }, 'bad_message');
    await a.expectError({ type: 'seek_create', game: 'no-such-game', base_ms: 0, inc_ms: 0 }, 'unknown_game');
    if (games.length === 0) return;
    const g2 = games.find((g) => g.players === 2) || games[0];
    await a.expectError({ type: 'seek_create', game: g2.id, base_ms: -1, inc_ms: 0 }, 'bad_time_control');
    await a.expectError({ type: 'seek_create', game: g2.id, base_ms: 0, inc_ms: 0, rated: true }, 'account_required');
    await a.expectError({ type: 'seek_accept', seek: 999999 }, 'unknown_seek');
    await a.expectError({ type: 'seek_accept' }, 'bad_message');
    await a.expectError({ type: 'seek_cancel', seek: 999999 }, 'unknown_seek');
    const s = await a.request({ type: 'seek_create', game: g2.id, base_ms: 0, inc_ms: 0 });
    await a.expectError({ type: 'seek_accept', seek: s.seek.id }, 'own_seek');
    for (let i = 1; i < 10; i++)
        await a.request({ type: 'seek_create', game: g2.id, base_ms: 0, inc_ms: 0 });
    await a.expectError({ type: 'seek_create', game: g2.id, base_ms: 0, inc_ms: 0 }, 'too_many_seeks');
    await a.expectError({ type: 'join', room: 999999 }, 'unknown_room');
    await a.expectError({ type: 'move', room: 999999, move: 'a1-a2' }, 'unknown_room');

    // Room errors need a game of two players.
    const b = await connect(srv.url);
    const c = await connect(srv.url);
    const { room, states } = await startGame([b, c], g2.id);
    const { mover, other, st } = firstMover([b, c], states);
    await a.expectError({ type: 'move', room, move: st.legal[0] }, 'not_a_player');
    await a.expectError({ type: 'resign', room }, 'not_a_player');
    await other.expectError({ type: 'move', room, move: st.legal[0] }, 'not_your_turn');
    await mover.expectError({ type: 'move', room, move: 'zz' }, 'bad_move_text');
    // A legal-looking move of an empty cell or of the opponent's piece.
    const empty = st.pieces.length < g2.cells.length
        ? g2.cells.find((cell) => !st.pieces.some((p) => p.name === cell)) : null;
    if (empty) {
        const to = g2.cells.find((cell) => cell !== empty);
        await mover.expectError({ type: 'move', room, move: `${empty}-${to}` }, 'no_piece');
    }
    const theirs = st.pieces.find((p) => p.owner !== st.to_move);
    const mine = st.pieces.find((p) => p.owner === st.to_move);
    await mover.expectError({ type: 'move', room, move: `${theirs.name}-${mine.name}` }, 'not_your_piece');
    // A move of one's own piece to a cell it cannot reach: refused with the
    // rules core's code and sentence.
    const refusable = ['unreachable', 'illegal_move', 'self_check', 'frozen'];
    const target = g2.cells.find((cell) => !st.legal.includes(`${mine.name}-${cell}`) && cell !== mine.name &&
        !st.pieces.some((p) => p.name === cell && p.owner === st.to_move));
    const bad = await mover.request({ type: 'move', room, move: `${mine.name}-${target}` });
    assert.equal(bad.type, 'error');
    assert.ok(refusable.includes(bad.code), `code ${bad.code}: ${bad.reason}`);
    assert.ok(bad.reason.length > 0);
    await mover.expectError({ type: 'rematch', room }, 'game_not_over');
    await mover.expectError({ type: 'chat', room, text: 'x'.repeat(301) }, 'bad_message');
    for (let i = 0; i < 5; i++) {
        mover.send({ type: 'chat', room, text: `hello ${i}` });
        await other.event(room, 'chat');
    }
    await mover.expectError({ type: 'chat', room, text: 'one too many' }, 'rate_limited');
    // cannot_abort once both have moved.
    mover.send({ type: 'move', room, move: st.legal[0] });
    const ev = await other.event(room, 'move');
    other.send({ type: 'move', room, move: ev.legal[0] });
    await mover.event(room, 'move');
    await other.expectError({ type: 'abort', room }, 'cannot_abort');
    mover.send({ type: 'resign', room });
    const resigned = await other.event(room, 'left');
    assert.equal(resigned.reason, 'resignation');
    await other.expectError({ type: 'move', room, move: ev.legal[0] }, 'game_over');

    // More than 200 messages at once: rate_limited.
    const flood = await connect(srv.url);
    for (let i = 0; i < 400; i++) flood.send({ type: 'ping', id: 1000 + i });
    const limited = await flood.waitFor((m) => m.type === 'error' && m.code === 'rate_limited', 'rate_limited');
    assert.ok(limited.reason.length > 0);
    flood.close();

    // A message over 16 KiB closes the connection with 1009.
    a.sendRaw(JSON.stringify({ type: 'chat', room, text: 'y'.repeat(17000) }));
    const closed = await a.closed_();
    assert.equal(closed.code, 1009);
    b.close(); c.close();
});

test('lobby: watchers see seeks added, updated and removed; private seeks by invite', async () => {
    if (games.length === 0) return;
    const g2 = games.find((g) => g.players === 2) || games[0];
    const w = await connect(srv.url);
    // Every batch the watcher is sent, in order (an earlier test's seeks may
    // still be leaving the lobby as it starts watching).
    const seqs = [];
    w.ws.on('message', (d) => { const m = JSON.parse(d); if (m.type === 'lobby_update') seqs.push(m.seq); });
    const lobby = await w.request({ type: 'lobby_watch' });
    assert.equal(lobby.type, 'lobby');
    const a = await connect(srv.url);
    const created = await a.request({ type: 'seek_create', game: g2.id, base_ms: 60000, inc_ms: 1000, rated: false });
    // Changes come in a batch per tick (lobby_update.changes), numbered
    // on from the snapshot's seq with none missing.
    let up = await w.lobbyChange('add', created.seek.id);
    assert.deepEqual(seqs, Array.from({ length: up.seq - lobby.seq }, (_, i) => lobby.seq + 1 + i));
    assert.equal(up.seek.game, g2.id);
    assert.equal(up.seek.base_ms, 60000);
    const cancelled = await a.request({ type: 'seek_cancel', seek: created.seek.id });
    assert.equal(cancelled.type, 'seek_cancelled');
    up = await w.lobbyChange('remove');
    assert.equal(up.seek.id, created.seek.id);

    // Private: not in the lobby, accepted through the invite.
    const priv = await a.request({ type: 'seek_create', game: g2.id, base_ms: 0, inc_ms: 0, private: true });
    assert.match(priv.invite, /^[0-9a-f]+$/);
    const b = await connect(srv.url);
    await b.expectError({ type: 'seek_accept', seek: priv.seek.id }, 'unknown_seek');
    const started = await b.request({ type: 'seek_accept', invite: priv.invite });
    assert.equal(started.type, 'game_started');
    assert.equal(started.seat, 1);
    const l2 = await w.request({ type: 'lobby_watch' });
    assert.ok(!l2.seeks.some((s) => s.id === priv.seek.id));

    // Three seats: update when the second player sits.
    const g3 = games.find((g) => g.players === 3);
    if (g3) {
        const s3 = await a.request({ type: 'seek_create', game: g3.id, base_ms: 0, inc_ms: 0 });
        await w.lobbyChange('add', s3.seek.id);
        const joined = await b.request({ type: 'seek_accept', seek: s3.seek.id });
        assert.equal(joined.type, 'seek_joined');
        up = await w.lobbyChange('update', s3.seek.id);
        assert.equal(up.seek.players.length, 2);
        await a.request({ type: 'seek_cancel', seek: s3.seek.id });
    }
    a.close(); b.close(); w.close();
});

// Play a whole game with random legal moves (seeded); every player and a
// spectator must see the same numbered events. Resign if no end by maxPly.
async function playGame(game, seed, maxPly = 600) {
    const players = [];
    for (let i = 0; i < game.players; i++) players.push(await connect(srv.url));
    const { room, states } = await startGame(players, game.id);
    const bySeat = bySeatOf(players, states);
    assert.deepEqual([...bySeat.keys()], [...Array(game.players).keys()]);
    const spectator = await connect(srv.url);
    const view = await spectator.request({ type: 'join', room });
    assert.equal(view.type, 'room');
    assert.equal(view.you, -1);
    assert.equal(view.game, game.id);
    assert.equal(view.seats.length, game.players);
    assert.ok(view.pieces.length > 0 && typeof view.position === 'string');
    let state = view;
    let seq = view.seq;
    const rand = rng(seed);
    const everyone = [...players, spectator];
    let ply = 0;
    while (state.result === null && ply < maxPly) {
        assert.ok(state.legal.length > 0, 'legal moves while playing');
        // Prefer moves onto an opponent's piece (captures by replacement in
        // most of these games) so that games reach their own end.
        const theirs = new Set(state.pieces.filter((p) => p.owner !== state.to_move).map((p) => p.name));
        const takes = state.legal.filter((m) => theirs.has((m.split('-')[1] || '').split(/[=@]/)[0]));
        const pool = takes.length ? takes : state.legal;
        const mv = pool[Math.floor(rand() * pool.length)];
        bySeat[state.to_move].send({ type: 'move', room, move: mv });
        const evs = [];
        for (const c of everyone) evs.push(await c.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'move', `move ${ply + 1}`));
        for (const e of evs) {
            assert.equal(e.seq, seq + 1);
            assert.equal(e.move, mv);
            assert.equal(e.ply, ply + 1);
        }
        seq++;
        ply++;
        state = evs[evs.length - 1];
    }
    if (state.result === null) {
        bySeat[state.to_move].send({ type: 'resign', room });
        const left = await spectator.event(room, 'left');
        assert.equal(left.reason, 'resignation');
        state = left;
        // With three players the game goes on between the other two.
        while (state.result === null) {
            bySeat[state.to_move].send({ type: 'resign', room });
            state = await spectator.event(room, 'left');
        }
    }
    assert.ok(state.result.reason);
    assert.equal(state.result.outcomes.length, game.players);
    const final = await spectator.request({ type: 'join', room });
    assert.equal(final.status, 'over');
    assert.equal(final.moves.length, ply);
    assert.deepEqual(final.legal, []);
    for (const c of everyone) c.close();
    return { ply, result: state.result };
}

test('a full game of every game id, watched by a spectator', async (t) => {
    assert.ok(games.length > 0, 'the rules core has at least one game');
    for (const g of games) {
        await t.test(g.id, async () => {
            const { ply, result } = await playGame(g, 12345);
            t.diagnostic(`${g.id}: ${ply} plies, ${result.reason}`);
        });
    }
});

test('reconnect: the same token resumes the seat and join since N gets what was missed', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id);
    const { mover: first, other: second, st } = firstMover([a, b], states);
    first.send({ type: 'move', room, move: st.legal[0] });
    const e1 = await second.event(room, 'move');
    await first.event(room, 'move');
    // second drops; first sees it go; second comes back with its token.
    const token = second.welcome.token;
    second.close();
    await second.closed_();
    const gone = await first.event(room, 'presence');
    assert.equal(gone.connected, false);
    const again = await connect(srv.url, { token, board: true });
    assert.deepEqual(again.welcome.rooms, [room]);
    const back = await first.event(room, 'presence');
    assert.equal(back.connected, true);
    const cu = await again.request({ type: 'join', room, since: e1.seq });
    assert.equal(cu.type, 'catchup');
    assert.deepEqual(cu.events.map((e) => e.kind), ['presence', 'presence']);
    assert.deepEqual(cu.events.map((e) => e.seq), [e1.seq + 1, e1.seq + 2]);
    assert.equal(cu.seq, e1.seq + 2);
    assert.deepEqual(cu.legal, e1.legal);
    assert.equal(cu.you, 1 - st.you);
    // The resumed seat can move.
    again.send({ type: 'move', room, move: cu.legal[0] });
    const e2 = await first.event(room, 'move');
    assert.equal(e2.seq, cu.seq + 1);
    // Too far behind (or unknown seq): a full state.
    const full = await again.request({ type: 'join', room, since: 100000 });
    assert.equal(full.type, 'room');
    assert.equal(full.moves.length, 2);
    a.close(); b.close(); again.close();
});

test('a flag falls on the server timer with nobody sending anything', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const t0 = Date.now();
    const { room, states } = await startGame([a, b], g2.id, { base_ms: 700, inc_ms: 0 });
    assert.deepEqual(states[0].clocks, [700, 700].map((x, i) => states[0].clocks[i] <= x ? states[0].clocks[i] : -1));
    // Clocks run once each seat has made its first move (clockstart.test).
    const bySeat = bySeatOf([a, b], states);
    bySeat[0].send({ type: 'move', room, move: states[0].legal[0] });
    const m1 = await a.event(room, 'move');
    bySeat[1].send({ type: 'move', room, move: m1.legal[0] });
    const m2 = await a.event(room, 'move');
    assert.equal(m2.clock_running, true);
    const left = await a.event(room, 'left', 5000);
    const waited = Date.now() - t0;
    assert.equal(left.reason, 'timeout');
    assert.equal(left.seat, 0);
    assert.equal(left.result.reason, 'timeout');
    assert.equal(left.result.winner, 1);
    assert.equal(left.clocks[left.seat], 0);
    assert.ok(waited >= 650, `flag after ${waited} ms`);
    a.close(); b.close();
});

test('increment is added after a move and the clock of the mover stops', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id, { base_ms: 60000, inc_ms: 5000 });
    const { mover: first, other, st } = firstMover([a, b], states);
    // The first moves: no clock ran, no increment (clockstart.test).
    first.send({ type: 'move', room, move: st.legal[0] });
    const m1 = await first.event(room, 'move');
    other.send({ type: 'move', room, move: m1.legal[0] });
    const m2 = await first.event(room, 'move');
    first.send({ type: 'move', room, move: m2.legal[0] });
    const ev = await first.event(room, 'move');
    assert.ok(ev.clocks[st.to_move] > 60000 && ev.clocks[st.to_move] <= 65000, `clocks ${ev.clocks}`);
    assert.equal(ev.clocks[1 - st.to_move], 60000);
    assert.equal(ev.to_move, 1 - st.to_move);
    await first.expectError({ type: 'abort', room }, 'cannot_abort');
    first.send({ type: 'resign', room });
    const end = await first.event(room, 'left');
    assert.equal(end.result.reason, 'resignation');
    a.close(); b.close();
});

test('abort before every seat has moved', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id, { base_ms: 60000, inc_ms: 5000 });
    const { mover: first, st } = firstMover([a, b], states);
    first.send({ type: 'move', room, move: st.legal[0] });
    await first.event(room, 'move');
    first.send({ type: 'abort', room });
    const end = await first.event(room, 'end');
    assert.equal(end.result.reason, 'aborted');
    assert.equal(end.result.winner, -1);
    a.close(); b.close();
});

test('draw by agreement (two players), rematch with seats rotated', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id);
    a.send({ type: 'draw_offer', room });
    const offer = await b.event(room, 'draw_offer');
    assert.deepEqual(offer.offers, [states[0].you]);
    b.send({ type: 'draw_decline', room });
    await a.event(room, 'draw_declined');
    a.send({ type: 'draw_offer', room });
    await b.event(room, 'draw_offer');
    b.send({ type: 'draw_offer', room });
    const end = await a.event(room, 'end');
    assert.equal(end.result.reason, 'agreement');
    assert.deepEqual(end.result.outcomes, ['draw', 'draw']);
    a.send({ type: 'rematch', room });
    await b.event(room, 'rematch_offer');
    b.send({ type: 'rematch', room });
    const rm = await a.event(room, 'rematch');
    const started = await a.waitFor((m) => m.type === 'game_started' && m.room === rm.next_room, 'rematch start');
    assert.equal(started.seat, 1 - states[0].you);
    const st = await a.waitFor((m) => m.type === 'room' && m.room === rm.next_room, 'rematch state');
    assert.equal(st.you, 1 - states[0].you);
    a.close(); b.close();
});

test('three players: a draw needs every remaining player; a resign lets the others play on', async () => {
    const g3 = games.find((g) => g.players === 3);
    if (!g3) return; // no three-player game in the rules core yet
    const p = [await connect(srv.url), await connect(srv.url), await connect(srv.url)];
    let { room } = await startGame(p, g3.id);
    p[0].send({ type: 'draw_offer', room });
    await p[2].event(room, 'draw_offer');
    p[1].send({ type: 'draw_offer', room });
    const two = await p[2].event(room, 'draw_offer');
    assert.equal(two.offers.length, 2);
    p[2].send({ type: 'draw_offer', room });
    const end = await p[0].event(room, 'end');
    assert.equal(end.result.reason, 'agreement');
    assert.deepEqual(end.result.outcomes, ['draw', 'draw', 'draw']);

    ({ room } = await startGame(p, g3.id));
    const bySeat = [];
    for (const c of p) {
        const st = await c.request({ type: 'join', room });
        bySeat[st.you] = c;
    }
    // Seat 1 resigns out of turn: seat 0 still moves, then seat 2 (seat 1 skipped).
    bySeat[1].send({ type: 'resign', room });
    const left = await bySeat[0].event(room, 'left');
    assert.equal(left.seat, 1);
    assert.equal(left.result, null);
    assert.equal(left.to_move, 0);
    bySeat[0].send({ type: 'move', room, move: left.legal[0] });
    const mv = await bySeat[2].event(room, 'move');
    assert.equal(mv.to_move, 2);
    assert.ok(mv.pieces.some((pc) => pc.owner === 1 && pc.flags.includes('inert')) ||
        !mv.pieces.some((pc) => pc.owner === 1), 'the leaver\'s pieces are inert or gone');
    await bySeat[1].expectError({ type: 'move', room, move: mv.legal[0] }, 'game_over');
    for (const c of p) c.close();
});

test('restart: games in progress come back from the store; the same token resumes its seat', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const one = await startServer();
    let a = await connect(one.url);
    let b = await connect(one.url);
    const { room, states } = await startGame([a, b], g2.id, { base_ms: 600000, inc_ms: 0 });
    const bySeat = bySeatOf([a, b], states);
    let st = states[0];
    const played = [];
    for (let i = 0; i < 3; i++) {
        const mv = st.legal[0];
        bySeat[st.to_move].send({ type: 'move', room, move: mv });
        st = await a.event(room, 'move');
        played.push(mv);
    }
    const tokens = [a.welcome.token, b.welcome.token];
    const seats = [states[0].you, states[1].you];
    a.close(); b.close();
    const st1 = await one.stop(true);
    assert.equal(st1.code, 0);

    const two = await startServer([], { dir: one.dir });
    try {
        a = await connect(two.url, { token: tokens[0] });
        assert.deepEqual(a.welcome.rooms, [room]);
        const view = await a.request({ type: 'join', room, since: 5 });
        assert.equal(view.type, 'room', 'a seq from before the restart gets the full state');
        assert.equal(view.you, seats[0]);
        assert.deepEqual(view.moves.map((m) => m.move), played);
        assert.equal(view.to_move, st.to_move);
        assert.deepEqual(view.legal, st.legal);
        b = await connect(two.url, { token: tokens[1] });
        const vb = await b.request({ type: 'join', room });
        assert.equal(vb.you, seats[1]);
        const mover = view.to_move === seats[0] ? a : b;
        mover.send({ type: 'move', room, move: view.legal[0] });
        const ev = await (mover === a ? b : a).event(room, 'move');
        assert.equal(ev.ply, 4);
        a.close(); b.close();
    } finally {
        const st2 = await two.stop(true);
        rmSync(one.dir, { recursive: true, force: true });
        assert.equal(st2.code, 0);
    }
});

test('abandonment: a seat away longer than --abandon-seconds leaves the game', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const s2 = await startServer(['--abandon-seconds', '1']);
    try {
        const a = await connect(s2.url);
        const b = await connect(s2.url);
        const { room, states } = await startGame([a, b], g2.id);
        const seatB = states[1].you;
        b.close();
        const t0 = Date.now();
        const left = await a.event(room, 'left', 5000);
        assert.equal(left.seat, seatB);
        assert.equal(left.reason, 'abandonment');
        assert.equal(left.result.winner, states[0].you);
        assert.ok(Date.now() - t0 >= 900, 'not before a second');
        a.close();
    } finally {
        const st = await s2.stop();
        assert.equal(st.code, 0);
    }
});

test('archive: GET /api/games/<id> (JSON and PGN) once a game is over', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id);
    const { mover: first, st } = firstMover([a, b], states);
    first.send({ type: 'move', room, move: st.legal[0] });
    await a.event(room, 'move');
    first.send({ type: 'resign', room });
    await a.event(room, 'left');
    let r = await fetch(`${srv.http}/api/games/${room}`);
    assert.equal(r.status, 200);
    const j = await r.json();
    assert.equal(j.variant, g2.id);
    assert.ok(JSON.stringify(j).includes(st.legal[0]));
    r = await fetch(`${srv.http}/api/games/${room}.pgn`);
    assert.equal(r.status, 200);
    assert.ok((await r.text()).includes(st.legal[0]));
    r = await fetch(`${srv.http}/api/games/99999999`);
    assert.equal(r.status, 404);
    await r.text();
    a.close(); b.close();
});

test('catchup carries the board on the last move for a board client', async () => {
    const g2 = games.find((g) => g.players === 2);
    if (!g2) return;
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], g2.id);
    const bySeat = bySeatOf([a, b], states);
    let st = states[0];
    const seq0 = st.seq;
    for (let i = 0; i < 3; i++) {
        bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
        st = await a.event(room, 'move');
        await b.event(room, 'move');
    }
    const c = await connect(srv.url);
    const cu = await c.request({ type: 'join', room, since: seq0 });
    assert.equal(cu.type, 'catchup');
    assert.equal(cu.events.length, 3);
    assert.equal(cu.events[0].pieces, undefined);
    assert.deepEqual(cu.events[2].pieces, st.pieces);
    assert.deepEqual(cu.events[2].legal, st.legal);
    const lean = await connect(srv.url, { board: false });
    const cl = await lean.request({ type: 'join', room, since: seq0 });
    assert.equal(cl.events[2].pieces, undefined);
    a.close(); b.close(); c.close(); lean.close();
});

test('command line: --help, a bad flag and a port in use', async () => {
    const { spawnSync } = await import('node:child_process');
    const { serverBin } = await import('./lib.mjs');
    let r = spawnSync(serverBin, ['--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /--port/);
    r = spawnSync(serverBin, ['--bogus', 'x'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown flag/);
    r = spawnSync(serverBin, ['--port', 'abc'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    // The shared server holds srv.port.
    r = spawnSync(serverBin, ['--port', String(srv.port), '--db', `${srv.dir}/other.db`],
        { encoding: 'utf8', env: { ...process.env, CHAMELEON_MIGRATIONS: new URL('../../migrations', import.meta.url).pathname }, timeout: 20000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /cannot listen/);
});

test('accounts: register, log in, the session cookie names the WebSocket identity, rated games, log out', async () => {
    const g2 = games.find((g) => g.players === 2);
    const post = async (path, body, cookie) => {
        const r = await fetch(srv.http + path, {
            method: 'POST', body: JSON.stringify(body),
            headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
        });
        return { status: r.status, json: await r.json(), cookie: r.headers.get('set-cookie') };
    };
    const name = `it_${Date.now() % 100000}`;
    let r = await post('/api/register', { username: name, password: 'correct horse' });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.username, name);
    assert.match(r.cookie, /chameleon_session=[0-9a-f]+/);
    assert.match(r.cookie, /HttpOnly/i);
    r = await post('/api/register', { username: name, password: 'correct horse' });
    assert.equal(r.status, 409);
    assert.equal(r.json.error, 'username_taken');
    r = await post('/api/register', { username: '1x', password: 'correct horse' });
    assert.equal(r.status, 400);
    r = await post('/api/login', { username: name, password: 'wrong password' });
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'bad_login');
    r = await post('/api/login', { username: name, password: 'correct horse' });
    assert.equal(r.status, 200);
    const cookie = r.cookie.split(';')[0];

    const a = await connect(srv.url, { name: 'ignored' }, { Cookie: cookie });
    assert.equal(a.welcome.account, name);
    assert.equal(a.welcome.player.name, name);
    const a2 = await connect(srv.url, {}, { Cookie: cookie });
    assert.equal(a2.welcome.player.id, a.welcome.player.id, 'one identity per account');
    const guest = await connect(srv.url);
    assert.equal(guest.welcome.account, null);

    if (g2) {
        // Rated: the logged-in player may seek; a guest may not accept.
        const s = await a.request({ type: 'seek_create', game: g2.id, base_ms: 60000, inc_ms: 0, rated: true });
        assert.equal(s.type, 'seek_created');
        await guest.expectError({ type: 'seek_accept', seek: s.seek.id }, 'account_required');
        const other = `it2_${Date.now() % 100000}`;
        const r2 = await post('/api/register', { username: other, password: 'correct horse' });
        const b = await connect(srv.url, {}, { Cookie: r2.cookie.split(';')[0] });
        const started = await b.request({ type: 'seek_accept', seek: s.seek.id });
        assert.equal(started.type, 'game_started');
        const st = await b.waitFor((m) => m.type === 'room' && m.room === started.room, 'room');
        assert.equal(st.rated, true);
        assert.deepEqual(st.seats.map((x) => x.player.name), [name, other]);
        b.send({ type: 'resign', room: started.room });
        await b.event(started.room, 'left');
        const prof = await fetch(`${srv.http}/api/profile/${name}`);
        assert.equal(prof.status, 200);
        assert.ok(JSON.stringify(await prof.json()).includes(name));
        b.close();
    }
    r = await post('/api/logout', {}, cookie);
    assert.equal(r.status, 200);
    const after = await connect(srv.url, {}, { Cookie: cookie });
    assert.equal(after.welcome.account, null, 'the session ended');
    a.close(); a2.close(); guest.close(); after.close();
});
