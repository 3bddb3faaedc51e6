// Correspondence play end to end over real WebSockets, real server, real
// SQLite file: corr seeks between accounts, deadlines in rooms, the "your
// turn" list and its pushes, timeouts (also across a restart), vacation,
// conditional moves played by the server, and every new error code.
//
// Time: the server runs with --clock-offset-file (tests only): the store's
// clock is the wall clock plus the ms written in that file, so a test moves
// time forward by days without waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, connect, startGame, bySeatOf, account } from './lib.mjs';

const DAY = 86400000;

// A server with its own test clock (offset file in its folder).
async function corrServer() {
    const clockDir = mkdtempSync(join(tmpdir(), 'chameleon-clock-'));
    const clock = join(clockDir, 'offset');
    writeFileSync(clock, '0\n');
    const srv = await startServer(['--clock-offset-file', clock]);
    srv.clock = clock;
    srv.clockDir = clockDir;
    srv.advance = (ms) => {
        srv.offset = (srv.offset || 0) + ms;
        writeFileSync(clock, `${srv.offset}\n`);
    };
    return srv;
}

// Stop `one` keeping its folder, start again on the same database and test
// clock, run body(two), then stop and clean up.
async function restarted(one, body) {
    assert.equal((await one.stop(true)).code, 0);
    const two = await startServer(['--clock-offset-file', one.clock], { dir: one.dir });
    try {
        await body(two);
    } finally {
        const st2 = await two.stop();
        rmSync(one.clockDir, { recursive: true, force: true });
        assert.equal(st2.code, 0, two.stderr().slice(-3000));
    }
}


// Register an account; returns { name, cookie }.

async function login(srv, acct) {
    const c = await connect(srv.url, {}, { Cookie: acct.cookie });
    assert.equal(c.welcome.account, acct.name);
    return c;
}

async function stop(srv) {
    const st = await srv.stop();
    rmSync(srv.clockDir, { recursive: true, force: true });
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
}

function firstTwoPlayerGame(c) {
    return c.welcome.games.find((g) => g.players === 2);
}

// The latest "turns" push (no re) a client received.
function turnsPush(c, pred = () => true, what = 'turns push') {
    return c.waitFor((m) => m.type === 'turns' && m.re === undefined && pred(m), what);
}

test('a correspondence game between two accounts, played to the end, with turn pushes', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv), B = await account(srv);
        const a = await login(srv, A), b = await login(srv, B);
        const g2 = firstTwoPlayerGame(a);

        // Nothing to play yet; asking subscribes to the pushes.
        assert.deepEqual((await a.request({ type: 'turns' })).games, []);
        assert.deepEqual((await b.request({ type: 'turns' })).games, []);

        const created = await a.request({ type: 'seek_create', game: g2.id, corr: { days: 3 } });
        assert.equal(created.type, 'seek_created');
        assert.deepEqual(created.seek.corr, { days: 3, inc_days: 0, cap_days: 0 });
        assert.equal(created.seek.base_ms, 0);
        const started = await b.request({ type: 'seek_accept', seek: created.seek.id });
        assert.equal(started.type, 'game_started');
        const room = started.room;
        const sb = await b.waitFor((m) => m.type === 'room' && m.room === room, 'room b');
        const sa = await a.waitFor((m) => m.type === 'room' && m.room === room, 'room a');
        for (const st of [sa, sb]) {
            assert.deepEqual(st.corr, { days: 3, inc_days: 0, cap_days: 0 });
            assert.equal(st.clock_running, false);
            assert.equal(st.deadlines.length, 2);
            assert.equal(typeof st.now_ms, 'number');
            const left = st.deadlines[st.to_move] - st.now_ms;
            assert.ok(left > 3 * DAY - 60000 && left <= 3 * DAY, `deadline in 3 days: ${left}`);
            assert.equal(st.deadlines[1 - st.to_move], null);
            assert.deepEqual(st.clocks, [3 * DAY, 3 * DAY]);
        }
        const bySeat = bySeatOf([a, b], [sa, sb]);
        const mover = bySeat[sa.to_move], waiter = bySeat[1 - sa.to_move];
        // The player to move is told: the new game is on its list.
        const push = await turnsPush(mover, (m) => m.games.length === 1, 'turns push: new game');
        assert.equal(push.games[0].id, room);
        assert.equal(push.games[0].variant, g2.id);
        assert.equal(push.games[0].kind, 'correspondence');
        assert.equal(push.games[0].ply, 0);
        assert.equal(push.games[0].deadline, sa.deadlines[sa.to_move]);

        // Play with random legal moves (captures first) until the game ends.
        let st = sa;
        let ply = 0;
        let seed = 7;
        const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
        while (st.result === null && ply < 300) {
            const theirs = new Set(st.pieces.filter((p) => p.owner !== st.to_move).map((p) => p.name));
            const takes = st.legal.filter((m) => theirs.has((m.split('-')[1] || '').split(/[=@]/)[0]));
            const pool = takes.length ? takes : st.legal;
            const mv = pool[Math.floor(rand() * pool.length)];
            const who = bySeat[st.to_move];
            const next = bySeat[1 - st.to_move];
            who.send({ type: 'move', room, move: mv });
            const ev = await a.event(room, 'move');
            await b.event(room, 'move');
            ply++;
            assert.equal(ev.ply, ply);
            assert.equal(ev.clock_running, false);
            if (ev.result === null) {
                const left = ev.deadlines[ev.to_move] - ev.now_ms;
                assert.ok(left > 3 * DAY - 60000 && left <= 3 * DAY, `a fresh 3 days: ${left}`);
                assert.equal(ev.deadlines[1 - ev.to_move], null);
                if (ply <= 2) {
                    // The one to move now has the game on its list, the
                    // mover no longer.
                    const p1 = await turnsPush(next, (m) => m.games.some((x) => x.id === room && x.ply === ply));
                    assert.equal(p1.games[0].deadline, ev.deadlines[ev.to_move]);
                    await turnsPush(who, (m) => m.games.length === 0);
                }
            } else {
                assert.deepEqual(ev.deadlines, [null, null]);
            }
            st = ev;
        }
        if (st.result === null) {
            bySeat[st.to_move].send({ type: 'resign', room });
            st = await a.event(room, 'left');
            await b.event(room, 'left');
        }
        assert.ok(st.result.reason);
        // Game over: off both lists.
        await turnsPush(a, (m) => m.games.length === 0);
        assert.deepEqual((await b.request({ type: 'turns' })).games, []);
        const arch = await (await fetch(`${srv.http}/api/games/${room}`)).json();
        assert.equal(arch.kind, 'correspondence');
        assert.equal(arch.moves.length, ply);
        a.close(); b.close(); waiter.close(); mover.close();
    } finally {
        await stop(srv);
    }
});

test('correspondence errors: account_required, bad_time_control, bad_message', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv);
        const a = await login(srv, A);
        const guest = await connect(srv.url);
        const g2 = firstTwoPlayerGame(a);
        await guest.expectError({ type: 'seek_create', game: g2.id, corr: { days: 3 } }, 'account_required');
        await guest.expectError({ type: 'turns' }, 'account_required');
        await guest.expectError({ type: 'vacation_status' }, 'account_required');
        await guest.expectError({ type: 'vacation_start', days: 2 }, 'account_required');
        await guest.expectError({ type: 'vacation_end' }, 'account_required');
        await guest.expectError({ type: 'cond_get', room: 1 }, 'unknown_room');
        for (const corr of [{ days: 4 }, { days: 0 }, { days: 15 }, { days: 2, inc_days: 15 },
            { days: 10, inc_days: 1, cap_days: 5 }, { days: 2, inc_days: 1, cap_days: 61 }])
            await a.expectError({ type: 'seek_create', game: g2.id, corr }, 'bad_time_control');
        await a.expectError({ type: 'seek_create', game: g2.id, corr: { days: 'x' } }, 'bad_message');
        await a.expectError({ type: 'seek_create', game: g2.id, corr: { inc_days: 1 } }, 'bad_message');
        await a.expectError({ type: 'seek_create', game: g2.id, corr: 3 }, 'bad_message');
        await a.expectError({ type: 'seek_create', game: g2.id }, 'bad_message');
        // Increment mode: cap_days omitted means 60.
        const s = await a.request({ type: 'seek_create', game: g2.id, corr: { days: 2, inc_days: 1 } });
        assert.deepEqual(s.seek.corr, { days: 2, inc_days: 1, cap_days: 60 });
        await guest.expectError({ type: 'seek_accept', seek: s.seek.id }, 'account_required');
        // A guest's own room: conditional moves need an account.
        const g1 = await connect(srv.url), g2c = await connect(srv.url);
        const { room } = await startGame([g1, g2c], g2.id);
        await g1.expectError({ type: 'cond_get', room }, 'account_required');
        a.close(); guest.close(); g1.close(); g2c.close();
    } finally {
        await stop(srv);
    }
});

test('increment mode: the bank grows by inc_days after a move, up to the cap', async () => {
    const srv = await corrServer();
    try {
        const a = await login(srv, await account(srv)), b = await login(srv, await account(srv));
        const g2 = firstTwoPlayerGame(a);
        const { room, states } = await startGame([a, b], g2.id, { corr: { days: 2, inc_days: 1, cap_days: 10 } });
        const bySeat = bySeatOf([a, b], states);
        const st = states[0];
        assert.deepEqual(st.clocks, [2 * DAY, 2 * DAY]);
        srv.advance(DAY / 2); // half a day passes on the mover's clock
        bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
        const ev = await a.event(room, 'move');
        // 2 d - 0.5 d + 1 d = 2.5 d (give or take the test's own run time).
        const bank = ev.clocks[st.to_move];
        assert.ok(bank > 2.5 * DAY - 60000 && bank <= 2.5 * DAY, `bank ${bank}`);
        assert.equal(ev.clocks[1 - st.to_move], 2 * DAY);
        const left = ev.deadlines[ev.to_move] - ev.now_ms;
        assert.ok(left > 2 * DAY - 60000 && left <= 2 * DAY, `the other's bank runs: ${left}`);
        a.close(); b.close();
    } finally {
        await stop(srv);
    }
});

test('timeout: the deadline passes with nobody connected; three players: the others play on', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv), B = await account(srv);
        let a = await login(srv, A), b = await login(srv, B);
        const g2 = firstTwoPlayerGame(a);
        const { room, states } = await startGame([a, b], g2.id, { corr: { days: 1 } });
        const loser = states[0].to_move;
        const watcher = await connect(srv.url);
        await watcher.request({ type: 'join', room });
        a.close(); b.close();
        srv.advance(DAY + 5000);
        const left = await watcher.event(room, 'left', 15000);
        assert.equal(left.seat, loser);
        assert.equal(left.reason, 'timeout');
        assert.equal(left.result.reason, 'timeout');
        assert.equal(left.result.winner, 1 - loser);
        assert.deepEqual(left.deadlines, [null, null]);

        const g3 = watcher.welcome.games.find((g) => g.players === 3);
        if (g3) {
            const C = await account(srv);
            a = await login(srv, A); b = await login(srv, B);
            const c = await login(srv, C);
            const s3 = await startGame([a, b, c], g3.id, { corr: { days: 2 } });
            const bySeat = bySeatOf([a, b, c], s3.states);
            const st = s3.states[0];
            assert.equal(st.deadlines.length, 3);
            // Seat to move plays; the next one lets its clock run out.
            bySeat[st.to_move].send({ type: 'move', room: s3.room, move: st.legal[0] });
            const ev = await a.event(s3.room, 'move');
            const late = ev.to_move;
            srv.advance(2 * DAY + 5000);
            const l3 = await a.event(s3.room, 'left', 15000);
            assert.equal(l3.seat, late);
            assert.equal(l3.reason, 'timeout');
            assert.equal(l3.result, null, 'three players: the other two play on');
            assert.notEqual(l3.to_move, late);
            const fresh = l3.deadlines[l3.to_move] - l3.now_ms;
            assert.ok(fresh > 2 * DAY - 60000 && fresh <= 2 * DAY, `next clock starts: ${fresh}`);
            // The "your turn" list covers three-player games too.
            const nextUp = bySeat[l3.to_move];
            const list = await nextUp.request({ type: 'turns' });
            assert.deepEqual(list.games.map((x) => [x.id, x.deadline]), [[s3.room, l3.deadlines[l3.to_move]]]);
            assert.deepEqual((await bySeat[late].request({ type: 'turns' })).games, []);
            const view = await a.request({ type: 'join', room: s3.room });
            assert.equal(view.seats[late].left, 'timeout');
            a.close(); b.close(); c.close();
        }
        watcher.close();
    } finally {
        await stop(srv);
    }
});

test('timeout across a restart: a game that expired while the server was down ends at start-up', async () => {
    const one = await corrServer();
    const A = await account(one), B = await account(one);
    let a = await login(one, A), b = await login(one, B);
    const g2 = firstTwoPlayerGame(a);
    const { room, states } = await startGame([a, b], g2.id, { corr: { days: 1 } });
    const bySeat = bySeatOf([a, b], states);
    const st = states[0];
    bySeat[st.to_move].send({ type: 'move', room, move: st.legal[0] });
    const ev = await a.event(room, 'move');
    const late = ev.to_move;
    a.close(); b.close();
    // Two days pass while the server is down.
    one.advance(2 * DAY);
    await restarted(one, async (two) => {
        const arch = await (await fetch(`${two.http}/api/games/${room}`)).json();
        assert.equal(arch.status, 'finished', JSON.stringify(arch).slice(0, 400));
        assert.equal(arch.result.reason, 'timeout');
        assert.equal(arch.result.winner, 1 - late);
        a = await login(two, A);
        assert.deepEqual(a.welcome.rooms, [], 'no game in progress any more');
        assert.deepEqual((await a.request({ type: 'turns' })).games, []);
        a.close();
    });
});

test('a correspondence game survives a restart with its deadline', async () => {
    const one = await corrServer();
    const A = await account(one), B = await account(one);
    let a = await login(one, A);
    const b = await login(one, B);
    const g2 = firstTwoPlayerGame(a);
    const { room, states } = await startGame([a, b], g2.id, { corr: { days: 5 } });
    const deadline = states[0].deadlines[states[0].to_move];
    a.close(); b.close();
    await restarted(one, async (two) => {
        a = await login(two, A);
        assert.deepEqual(a.welcome.rooms, [room]);
        const view = await a.request({ type: 'join', room });
        assert.deepEqual(view.corr, { days: 5, inc_days: 0, cap_days: 0 });
        assert.equal(view.deadlines[view.to_move], deadline);
        assert.equal(view.clock_running, false);
        a.close();
    });
});

test('vacation: start, status, end; deadlines move; its error codes', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv), B = await account(srv);
        const a = await login(srv, A), b = await login(srv, B);
        const g2 = firstTwoPlayerGame(a);
        let v = await a.request({ type: 'vacation_status' });
        assert.deepEqual([v.type, v.on, v.until_ms, v.days_left], ['vacation', false, 0, 30]);
        await a.expectError({ type: 'vacation_start', days: 0 }, 'bad_message');
        await a.expectError({ type: 'vacation_start', days: 31 }, 'bad_message');
        await a.expectError({ type: 'vacation_start' }, 'bad_message');
        await a.expectError({ type: 'vacation_end' }, 'not_found');

        const created = await a.request({ type: 'seek_create', game: g2.id, corr: { days: 3 } });
        const started = await b.request({ type: 'seek_accept', seek: created.seek.id });
        const room = started.room;
        let st = await a.waitFor((m) => m.type === 'room' && m.room === room, 'room');
        const sb = await b.waitFor((m) => m.type === 'room' && m.room === room, 'room b');
        // Make it A's turn.
        if (st.you !== st.to_move) {
            b.send({ type: 'move', room, move: sb.legal[0] });
            st = await a.event(room, 'move');
        }
        const before = st.deadlines[st.to_move];
        await a.request({ type: 'turns' });

        v = await a.request({ type: 'vacation_start', days: 3 });
        assert.equal(v.on, true);
        assert.equal(v.days_left, 27);
        const now = (await a.request({ type: 'join', room })).now_ms;
        assert.ok(Math.abs(v.until_ms - (now + 3 * DAY)) < 60000, `until ${v.until_ms} now ${now}`);
        const push = await turnsPush(a, (m) => m.games.length === 1 && m.games[0].deadline > before);
        const moved = push.games[0].deadline - before;
        assert.ok(moved > 3 * DAY - 60000 && moved <= 3 * DAY + 60000, `deadline moved by ${moved}`);
        const view = await a.request({ type: 'join', room });
        assert.equal(view.deadlines[view.to_move], push.games[0].deadline);
        // Whoever opens the room now sees the vacation in A's seat.
        const other = (await b.request({ type: 'join', room })).seats;
        assert.deepEqual(other.map((x) => x.vacation), other.map((x) => (x.seat === view.you ? v.until_ms : undefined)));
        await a.expectError({ type: 'vacation_start', days: 1 }, 'bad_argument');
        const s = await a.request({ type: 'vacation_status' });
        assert.deepEqual([s.on, s.until_ms, s.days_left], [true, v.until_ms, 27]);

        // End it within its first day: one day counts, two come back.
        v = await a.request({ type: 'vacation_end' });
        assert.deepEqual([v.on, v.until_ms, v.days_left], [false, 0, 29]);
        assert.ok((await b.request({ type: 'join', room })).seats.every((x) => !('vacation' in x)), 'no vacation after its end');
        const back = await turnsPush(a, (m) => m.games.length === 1 && m.games[0].deadline < before + DAY);
        assert.ok(Math.abs(back.games[0].deadline - before) < 60000, 'the deadline comes back');
        await a.expectError({ type: 'vacation_start', days: 30 }, 'vacation');
        a.close(); b.close();
    } finally {
        await stop(srv);
    }
});

test('vacation: answered on the connection that asked; one that closed before its answer changes nothing', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv), B = await account(srv);
        const a1 = await login(srv, A), a2 = await login(srv, A), b = await login(srv, B);
        const g2 = firstTwoPlayerGame(a1);
        const created = await a1.request({ type: 'seek_create', game: g2.id, corr: { days: 3 } });
        const started = await b.request({ type: 'seek_accept', seek: created.seek.id });
        const room = started.room;
        await b.waitFor((m) => m.type === 'room' && m.room === room, 'room b');
        // a2 asks: the answer is a2's (a1, the same account, gets none);
        // the opponent sees the vacation in the room.
        const v = await a2.request({ type: 'vacation_start', days: 2 });
        assert.deepEqual([v.type, v.on, v.days_left], ['vacation', true, 28]);
        const ev = await b.event(room, 'vacation');
        assert.equal(ev.until, v.until_ms);
        // a2 asks to end it and goes before the answer (the store answers
        // later): it ends all the same, and the opponent is told.
        a2.send({ type: 'vacation_end', id: 77 });
        a2.close();
        const ended = await b.event(room, 'vacation');
        assert.equal(ended.until, null);
        const s = await a1.request({ type: 'vacation_status' });
        assert.deepEqual([s.on, s.until_ms, s.days_left], [false, 0, 29]);
        assert.ok(!a1.inbox.some((m) => m.type === 'vacation' || m.type === 'error'),
            `a1 got another connection's answer: ${JSON.stringify(a1.inbox)}`);
        a1.close(); b.close();
    } finally {
        await stop(srv);
    }
});

test('conditional moves: set, get, played by the server, dropped when they no longer match; errors', async () => {
    const srv = await corrServer();
    try {
        const A = await account(srv), B = await account(srv), C = await account(srv);
        const a = await login(srv, A), b = await login(srv, B), c = await login(srv, C);
        const g2 = firstTwoPlayerGame(a);
        const { room, states } = await startGame([a, b], g2.id, { corr: { days: 3 } });
        const bySeat = bySeatOf([a, b], states);
        const st = states[0];
        const me = bySeat[st.to_move], them = bySeat[1 - st.to_move];
        // A shadow game (live, guests) of the same moves tells which moves
        // are legal ahead: the rules core is the same.
        const s0 = await connect(srv.url), s1 = await connect(srv.url);
        const shadow = await startGame([s0, s1], g2.id);
        const shadowSeat = bySeatOf([s0, s1], shadow.states);
        let sst = shadow.states[0];
        const shadowPlay = async (mv) => {
            shadowSeat[sst.to_move].send({ type: 'move', room: shadow.room, move: mv });
            sst = await s0.event(shadow.room, 'move');
            return sst;
        };

        await me.expectError({ type: 'cond_set', room, lines: [] }, 'not_your_turn');
        await c.expectError({ type: 'cond_get', room }, 'not_a_player');
        await me.expectError({ type: 'cond_set', room, lines: 'x' }, 'bad_message');
        await me.expectError({ type: 'cond_set', room, lines: [''] }, 'bad_message');
        await me.expectError({ type: 'cond_set', room, lines: Array(17).fill('a') }, 'bad_message');

        const m1 = st.legal[0];
        me.send({ type: 'move', room, move: m1 });
        const e1 = await me.event(room, 'move');
        await them.event(room, 'move');
        await shadowPlay(m1);
        const X = e1.legal[0];
        const Y = (await shadowPlay(X)).legal[0];
        const Z = (await shadowPlay(Y)).legal[0];
        const afterZ = await shadowPlay(Z);
        const W = afterZ.legal[0];

        // Bad lines are refused with the rules core's code, naming the move.
        const bad = await me.request({ type: 'cond_set', room, lines: [`${X} zz`] });
        assert.equal(bad.type, 'error');
        assert.equal(bad.code, 'bad_move_text');
        assert.match(bad.reason, /zz/);
        await me.expectError({ type: 'cond_set', room, lines: [X] }, 'bad_message');

        const set = await me.request({ type: 'cond_set', room, lines: [`${X} ${Y} ${Z} ${W}`] });
        assert.equal(set.type, 'cond');
        assert.equal(set.room, room);
        assert.deepEqual(set.lines, [`${X} ${Y} ${Z} ${W}`]);
        assert.deepEqual((await me.request({ type: 'cond_get', room })).lines, set.lines);
        assert.deepEqual((await them.request({ type: 'cond_get', room })).lines, [], 'lines are per player');

        // They play X: the server answers Y for me at once, durable and
        // broadcast like any move.
        them.send({ type: 'move', room, move: X });
        const ex = await them.event(room, 'move');
        assert.equal(ex.move, X);
        const ey = await them.event(room, 'move');
        assert.equal(ey.move, Y);
        assert.equal(ey.seat, st.to_move);
        assert.equal(ey.ply, 3);
        assert.equal(ey.seq, ex.seq + 1);
        assert.equal(ey.to_move, 1 - st.to_move);
        assert.deepEqual((await me.request({ type: 'cond_get', room })).lines, [`${Z} ${W}`]);
        const arch = await (await fetch(`${srv.http}/api/games/${room}`)).json();
        assert.deepEqual(arch.moves.map((m) => m.move), [m1, X, Y]);

        // They play something else than Z: the line is dropped, nothing is
        // played for me.
        const other = ey.legal.find((mv) => mv !== Z);
        them.send({ type: 'move', room, move: other });
        const eo = await them.event(room, 'move');
        assert.equal(eo.to_move, st.to_move, 'my turn: no answer was played');
        assert.deepEqual((await me.request({ type: 'cond_get', room })).lines, []);

        // cond_clear; not_correspondence in a live game; game_over.
        await them.request({ type: 'cond_set', room, lines: [] });
        const cl = await them.request({ type: 'cond_clear', room });
        assert.deepEqual([cl.type, cl.lines], ['cond', []]);
        const live = await startGame([a, b], g2.id);
        await a.expectError({ type: 'cond_get', room: live.room }, 'not_correspondence');
        a.send({ type: 'resign', room: live.room });
        await a.event(live.room, 'left');
        me.send({ type: 'resign', room });
        await me.event(room, 'left');
        await them.expectError({ type: 'cond_set', room, lines: [] }, 'game_over');
        await them.expectError({ type: 'cond_get', room }, 'game_over');
        for (const x of [a, b, c, s0, s1]) x.close();
    } finally {
        await stop(srv);
    }
});
