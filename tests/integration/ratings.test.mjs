// Ratings end to end: rated games between accounts through the real server
// update the Glicko-2 ratings in the store exactly as a reference computation
// of the same formulas (Glickman's paper, lichess's per-game update with the
// deviation aged by idle time) says; three-player results rate by pairwise
// Glicko-2 from the finishing order; unrated and aborted
// games change nothing; the ratings survive a restart; the leaderboard lists
// players once they are no longer provisional.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, connect, firstMover, bySeatOf, account } from './lib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');

// ---- The reference: the same formulas, written again from the paper. ----
const SCALE = 173.7178, TAU = 0.75, RD_MIN = 45, RD_MAX = 500, PERIODS_PER_DAY = 0.21436;
const NEW = { rating: 1500, rd: 500, vol: 0.09, games: 0, last: 0 };

// Steps 2-8; step 6 grows the deviation by `periods` (1 in the paper's
// system, 0 in a game rated as lichess rates it: its idle time is aged
// before, in after()).
function period(p, games, tau, periods = 1) {
    const mu = (p.rating - 1500) / SCALE, phi = p.rd / SCALE;
    const g = (ph) => 1 / Math.sqrt(1 + 3 * ph * ph / (Math.PI * Math.PI));
    let vinv = 0, sum = 0;
    for (const o of games) {
        const muj = (o.rating - 1500) / SCALE, phij = o.rd / SCALE;
        const e = 1 / (1 + Math.exp(-g(phij) * (mu - muj)));
        vinv += g(phij) ** 2 * e * (1 - e);
        sum += g(phij) * (o.score - e);
    }
    const v = 1 / vinv, delta = v * sum, a = Math.log(p.vol ** 2);
    const f = (x) => Math.exp(x) * (delta ** 2 - phi ** 2 - v - Math.exp(x)) /
        (2 * (phi ** 2 + v + Math.exp(x)) ** 2) - (x - a) / (tau * tau);
    let A = a, B;
    if (delta ** 2 > phi ** 2 + v) B = Math.log(delta ** 2 - phi ** 2 - v);
    else { let k = 1; while (f(a - k * tau) < 0) k++; B = a - k * tau; }
    let fA = f(A), fB = f(B);
    while (Math.abs(B - A) > 1e-6) {
        const C = A + (A - B) * fA / (fB - fA), fC = f(C);
        if (fC * fB <= 0) { A = B; fA = fB; } else fA /= 2;
        B = C; fB = fC;
    }
    const vol = Math.exp(A / 2);
    const phiStar = Math.sqrt(phi ** 2 + periods * vol ** 2);
    const phiNew = 1 / Math.sqrt(1 / phiStar ** 2 + 1 / v);
    return { rating: (mu + phiNew ** 2 * sum) * SCALE + 1500, rd: phiNew * SCALE, vol };
}

// One rated game at `at` (ms) for a player whose last rated game was p.last.
function after(p, games, at) {
    let rd = p.rd;
    if (p.last > 0 && at > p.last) {
        const t = (at - p.last) / 86400000 * PERIODS_PER_DAY, phi = rd / SCALE;
        rd = Math.min(RD_MAX, Math.sqrt(phi * phi + t * p.vol * p.vol) * SCALE);
    }
    const q = period({ ...p, rd }, games, TAU, 0);
    return { ...q, rd: Math.min(RD_MAX, Math.max(RD_MIN, q.rd)), games: p.games + 1, last: at };
}

// A finished game's update for every seat: ranks (0 best), ratings before,
// the time of the result. Pairwise scores from the ranks.
function rateGame(before, ranks, at) {
    return before.map((p, i) => after(p, before.flatMap((q, j) => (j === i ? [] :
        [{ rating: q.rating, rd: q.rd, score: ranks[i] < ranks[j] ? 1 : ranks[i] > ranks[j] ? 0 : 0.5 }])), at));
}

test('the reference reproduces the paper\'s example', () => {
    const q = period({ rating: 1500, rd: 200, vol: 0.06 },
        [{ rating: 1400, rd: 30, score: 1 }, { rating: 1550, rd: 100, score: 0 }, { rating: 1700, rd: 300, score: 0 }], 0.5);
    assert.ok(Math.abs(q.rating - 1464.06) < 0.02 && Math.abs(q.rd - 151.52) < 0.01 && Math.abs(q.vol - 0.05999) < 1e-5);
});

test('the reference reproduces lichess\'s test values (scalachess GlickoCalculatorTest)', () => {
    const q = after({ rating: 1400, rd: 79, vol: 0.06, games: 0, last: 0 }, [{ rating: 1550, rd: 110, score: 1 }], 1000);
    assert.ok(Math.abs(q.rating - 1422.63) < 0.005 && Math.abs(q.rd - 77.50) < 0.005, `${q.rating} ${q.rd}`);
    const n = after(NEW, [{ rating: 1500, rd: 500, score: 1 }], 1000);
    assert.ok(Math.abs(n.rating - 1741) <= 1 && Math.abs(n.rd - 396) <= 1, `${n.rating} ${n.rd}`);
});

// ---- Helpers ----
async function login(srv, acct) {
    const c = await connect(srv.url, {}, { Cookie: acct.cookie });
    assert.equal(c.welcome.account, acct.name);
    return c;
}
async function profile(srv, name) {
    const r = await fetch(`${srv.http}/api/profile/${name}`);
    assert.equal(r.status, 200);
    return r.json();
}
// The stored rating of a player at a variant and pace, or null.
async function stored(srv, name, variant, pace) {
    const p = await profile(srv, name);
    return p.ratings?.[variant]?.[pace] ?? null;
}
function close(a, b, what) {
    assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);
}
function same(got, want, what) {
    close(got.rating, want.rating, `${what} rating`);
    close(got.rd, want.rd, `${what} rd`);
    close(got.vol, want.vol, `${what} vol`);
    assert.equal(got.games, want.games, `${what} games`);
    assert.equal(got.provisional, want.rd > 110, `${what} provisional`);
}
// What the reference needs from a stored rating.
const ref = (r) => (r ? { rating: r.rating, rd: r.rd, vol: r.vol, games: r.games, last: r.last } : { ...NEW });

// Play a rated (or not) two-player game: one move, then `loser` resigns.
// Returns the end event.
// check(seek, states): called with the seek as created and the room states.
async function twoPlayerGame(players, game, tc, rated, loserIdx, check = () => {}) {
    const [first, second] = players;
    const created = await first.request({ type: 'seek_create', game, ...tc, rated });
    assert.equal(created.type, 'seek_created', JSON.stringify(created));
    const acc = await second.request({ type: 'seek_accept', seek: created.seek.id });
    assert.equal(acc.type, 'game_started', JSON.stringify(acc));
    const room = acc.room;
    const states = [await first.waitFor((m) => m.type === 'room' && m.room === room),
        await second.waitFor((m) => m.type === 'room' && m.room === room)];
    assert.equal(states[0].rated, rated);
    check(created.seek, states);
    const { mover, st } = firstMover(players, states);
    mover.send({ type: 'move', room, move: st.legal[0] });
    await first.event(room, 'move');
    players[loserIdx].send({ type: 'resign', room });
    return first.waitFor((m) => m.type === 'event' && m.room === room && m.result, 'the result');
}

const BLITZ = { base_ms: 180000, inc_ms: 0 }; // 180 s: blitz

test('rated games update both ratings as the reference computes; unrated and aborted games change nothing; a restart keeps them', async () => {
    let srv = await startServer();
    try {
        const A = await account(srv), B = await account(srv);
        let a = await login(srv, A), b = await login(srv, B);
        const g2 = a.welcome.games.find((g) => g.players === 2).id;

        // Game 1: b resigns, a wins.
        let end = await twoPlayerGame([a, b], g2, BLITZ, true, 1);
        assert.deepEqual(end.result.outcomes.slice().sort(), ['loss', 'win']);
        const a1 = await stored(srv, A.name, g2, 'blitz'), b1 = await stored(srv, B.name, g2, 'blitz');
        assert.ok(a1 && b1, 'both rated after a rated game');
        assert.equal(a1.last, b1.last);
        const [wa1, wb1] = rateGame([{ ...NEW }, { ...NEW }], [0, 1], a1.last);
        same(a1, wa1, 'a after 1');
        same(b1, wb1, 'b after 1');
        assert.ok(a1.rating > 1500 && b1.rating < 1500);
        // Both players were told what it changed, from 1500 (a first
        // rated game), once it was stored; a join after says it too.
        for (const [c, name] of [[a, A.name], [b, B.name]]) {
            const told = await c.waitFor((m) => m.type === 'event' && m.room === end.room && m.kind === 'ratings', 'ratings');
            const p = told.players.find((x) => x.name === name);
            assert.equal(p.rating, Math.round(name === A.name ? a1.rating : b1.rating), JSON.stringify(told));
            assert.equal(p.rating_diff, p.rating - 1500, JSON.stringify(told));
        }
        const later = await a.request({ type: 'join', room: end.room });
        const diffs = Object.fromEntries(later.seats.map((x) => [x.player.name, x.player.rating_diff]));
        assert.deepEqual(diffs, { [A.name]: Math.round(a1.rating) - 1500, [B.name]: Math.round(b1.rating) - 1500 });
        assert.ok(diffs[A.name] > 0 && diffs[B.name] < 0);
        assert.equal(a1.history.length, 1);
        close(a1.history[0].rating, a1.rating, 'history');

        // Game 2: a resigns; the update starts from the stored values and
        // ages the deviation by the time since game 1.
        // The seek and the room show each player's rating at this pace.
        await twoPlayerGame([b, a], g2, BLITZ, true, 1, (seek, states) => {
            assert.equal(seek.players[0].rating, Math.round(b1.rating), JSON.stringify(seek));
            assert.equal(seek.players[0].provisional, true);
            const byName = Object.fromEntries(states[0].seats.map((s) => [s.player.name, s.player]));
            assert.equal(byName[A.name].rating, Math.round(a1.rating), JSON.stringify(states[0].seats));
            assert.equal(byName[B.name].rating, Math.round(b1.rating));
        });
        const a2 = await stored(srv, A.name, g2, 'blitz'), b2 = await stored(srv, B.name, g2, 'blitz');
        const [wb2, wa2] = rateGame([ref(b1), ref(a1)], [0, 1], a2.last);
        same(a2, wa2, 'a after 2');
        same(b2, wb2, 'b after 2');
        assert.equal(a2.history.length, 2);

        // Unrated: nothing changes. Other pace: a rating of its own.
        await twoPlayerGame([a, b], g2, BLITZ, false, 1);
        same(await stored(srv, A.name, g2, 'blitz'), ref(a2), 'a after unrated');
        assert.equal(await stored(srv, A.name, g2, 'rapid'), null);
        // No rating yet at rapid: none shown.
        await twoPlayerGame([a, b], g2, { base_ms: 600000, inc_ms: 0 }, true, 1, (seek, states) => {
            assert.equal(seek.players[0].rating, undefined);
            assert.ok(states[0].seats.every((s) => s.player.rating === undefined));
        });
        const ra = await stored(srv, A.name, g2, 'rapid');
        same(ra, rateGame([{ ...NEW }, { ...NEW }], [0, 1], ra.last)[0], 'a rapid');
        same(await stored(srv, A.name, g2, 'blitz'), ref(a2), 'blitz untouched by rapid');

        // Aborted rated game: nothing changes.
        const created = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: true });
        const acc = await b.request({ type: 'seek_accept', seek: created.seek.id });
        a.send({ type: 'abort', room: acc.room });
        end = await a.event(acc.room, 'end');
        assert.equal(end.result.reason, 'aborted');
        same(await stored(srv, A.name, g2, 'blitz'), ref(a2), 'a after abort');
        same(await stored(srv, B.name, g2, 'blitz'), ref(b2), 'b after abort');

        // A guest cannot take a rated seek; a bot game cannot be rated.
        const guest = await connect(srv.url);
        const rs = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: true });
        await guest.expectError({ type: 'seek_accept', seek: rs.seek.id }, 'account_required');
        await a.request({ type: 'seek_cancel', seek: rs.seek.id });
        guest.close();

        // A rating range: only rated seeks; the seek shows it; a player
        // outside it cannot accept (a new player counts as 1500).
        await a.expectError({ type: 'seek_create', game: g2, ...BLITZ, rated: false, rating_min: 1000, rating_max: 2000 }, 'bad_argument');
        await a.expectError({ type: 'seek_create', game: g2, ...BLITZ, rated: true, rating_min: 1800, rating_max: 1700 }, 'bad_argument');
        const lo = Math.round(b2.rating) + 1;
        const ranged = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: true, rating_min: lo, rating_max: 4000 });
        assert.deepEqual(ranged.seek.rating_range, [lo, 4000]);
        assert.match((await b.expectError({ type: 'seek_accept', seek: ranged.seek.id }, 'bad_argument')).reason,
            new RegExp(`your rating ${Math.round(b2.rating)} is outside`));
        await a.request({ type: 'seek_cancel', seek: ranged.seek.id });
        const fits = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: true, rating_min: lo - 1, rating_max: lo - 1 });
        const okAcc = await b.request({ type: 'seek_accept', seek: fits.seek.id });
        assert.equal(okAcc.type, 'game_started');
        a.send({ type: 'abort', room: okAcc.room });
        await a.event(okAcc.room, 'end');

        // Restart on the same database: the same ratings, and they go on
        // from there.
        a.close(); b.close();
        assert.equal((await srv.stop(true)).code, 0, srv.stderr().slice(-2000));
        srv = await startServer([], { dir: srv.dir });
        same(await stored(srv, A.name, g2, 'blitz'), ref(a2), 'a after restart');
        a = await login(srv, A); b = await login(srv, B);
        await twoPlayerGame([a, b], g2, BLITZ, true, 1);
        const a3 = await stored(srv, A.name, g2, 'blitz'), b3 = await stored(srv, B.name, g2, 'blitz');
        const [wa3, wb3] = rateGame([ref(a2), ref(b2)], [0, 1], a3.last);
        same(a3, wa3, 'a after restart game');
        same(b3, wb3, 'b after restart game');
        a.close(); b.close();
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-2000));
    }
});

test('a rated three-player game rates all three at once from the finishing order (first to resign last)', async () => {
    const srv = await startServer();
    try {
        const accts = [await account(srv), await account(srv), await account(srv)];
        const cs = [];
        for (const x of accts) cs.push(await login(srv, x));
        const g3 = cs[0].welcome.games.find((g) => g.players === 3).id;
        const created = await cs[0].request({ type: 'seek_create', game: g3, ...BLITZ, rated: true });
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        await cs[1].request({ type: 'seek_accept', seek: created.seek.id });
        const started = await cs[2].request({ type: 'seek_accept', seek: created.seek.id });
        assert.equal(started.type, 'game_started');
        const room = started.room;
        const states = [];
        for (const c of cs) states.push(await c.waitFor((m) => m.type === 'room' && m.room === room));
        const bySeat = bySeatOf(cs, states);
        const nameOf = (seat) => accts[cs.indexOf(bySeat[seat])].name;
        // The seat to move resigns, then the next to move: the one left wins.
        const order = [];
        let state = states[0];
        while (state.result === null) {
            order.push(state.to_move);
            // Leaves in the same move and millisecond would rank level.
            await new Promise((ok) => setTimeout(ok, 5));
            bySeat[state.to_move].send({ type: 'resign', room });
            state = await cs[0].waitFor((m) => m.type === 'event' && m.room === room &&
                (m.kind === 'left' || m.kind === 'end'));
        }
        assert.equal(order.length, 2);
        const winner = [0, 1, 2].find((s) => !order.includes(s));
        const ranks = [];
        ranks[order[0]] = 2; ranks[order[1]] = 1; ranks[winner] = 0;
        const got = [];
        for (let s = 0; s < 3; s++) got.push(await stored(srv, nameOf(s), g3, 'blitz'));
        // Pairwise Glicko-2: each seat against the two others, by place.
        const want = rateGame([{ ...NEW }, { ...NEW }, { ...NEW }], ranks, got[0].last);
        for (let s = 0; s < 3; s++) same(got[s], want[s], `seat ${s}`);
        assert.ok(got[winner].rating > got[order[1]].rating && got[order[1]].rating > got[order[0]].rating);
        // Every seat hears each one's new rating and its change, in seat order.
        const told = await cs[0].waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'ratings', 'ratings');
        for (let s = 0; s < 3; s++) {
            assert.equal(told.players[s].name, nameOf(s));
            assert.equal(told.players[s].rating_diff, Math.round(got[s].rating) - Math.round(NEW.rating), JSON.stringify(told));
        }
        for (const c of cs) c.close();
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
    }
});

test('the leaderboard lists players not provisional and active in the last three months, best first', async () => {
    const clockDir = mkdtempSync(join(tmpdir(), 'chameleon-clock-'));
    const clock = join(clockDir, 'offset');
    writeFileSync(clock, '0\n');
    const srv = await startServer(['--clock-offset-file', clock]);
    try {
        const A = await account(srv), B = await account(srv), C = await account(srv);
        const a = await login(srv, A), b = await login(srv, B), c = await login(srv, C);
        const g2 = a.welcome.games.find((g) => g.players === 2).id;
        assert.equal((await fetch(`${srv.http}/api/leaderboard/nosuchgame`)).status, 404);
        const board = async () => {
            const r = await fetch(`${srv.http}/api/leaderboard/${g2}`);
            assert.equal(r.status, 200);
            return r.json();
        };
        assert.deepEqual(await board(), { variant: g2, paces: {} });
        // a and b alternate wins until both are established; c plays once.
        let ra = { ...NEW }, rb = { ...NEW };
        for (let i = 0; rb.rd > 110 || ra.rd > 110; i++) {
            assert.ok(i < 40, 'established within 40 games');
            await twoPlayerGame([a, b], g2, BLITZ, true, i % 2);
            ra = ref(await stored(srv, A.name, g2, 'blitz'));
            rb = ref(await stored(srv, B.name, g2, 'blitz'));
        }
        await twoPlayerGame([c, a], g2, BLITZ, true, 0);
        ra = ref(await stored(srv, A.name, g2, 'blitz'));
        const list = (await board()).paces.blitz;
        assert.deepEqual(list.map((e) => e.username),
            [A.name, B.name].sort((x, y) => (x === A.name ? ra.rating : rb.rating) < (y === A.name ? ra.rating : rb.rating) ? 1 : -1));
        for (const e of list) assert.ok(e.rd <= 110 && e.games >= 15);
        // The export holds every one of a's games.
        const nd = await (await fetch(`${srv.http}/api/games/user/${A.name}/format=ndjson`)).text();
        assert.equal(nd.trim().split('\n').length, ra.games);
        // Three months without a rated game: off the board.
        writeFileSync(clock, `${93 * 86400000}\n`);
        assert.deepEqual(await board(), { variant: g2, paces: {} });
        a.close(); b.close(); c.close();
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
        rmSync(clockDir, { recursive: true, force: true });
    }
});

test('the archive: a player\'s finished games, filtered and paged, with the rating change of rated ones', async () => {
    const srv = await startServer();
    try {
        const A = await account(srv), B = await account(srv), C = await account(srv);
        const a = await login(srv, A), b = await login(srv, B), c = await login(srv, C);
        const g2 = a.welcome.games.find((g) => g.players === 2).id;
        await twoPlayerGame([a, b], g2, BLITZ, true, 1); // a wins, rated
        await twoPlayerGame([a, b], g2, BLITZ, false, 0); // b wins
        await twoPlayerGame([c, a], g2, BLITZ, true, 0); // a wins against c
        // An aborted game (no move): left out of the archive unless asked.
        const made = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: false });
        const aborted = (await b.request({ type: 'seek_accept', seek: made.seek.id })).room;
        await a.waitFor((m) => m.type === 'room' && m.room === aborted);
        a.send({ type: 'abort', room: aborted });
        await a.waitFor((m) => m.type === 'event' && m.room === aborted && m.result, 'the abort');
        const get = async (path, status = 200) => {
            const r = await fetch(`${srv.http}/api/archive/${path}`);
            assert.equal(r.status, status, path);
            return r.json();
        };
        const withAborted = await get(`${A.name}?aborted=include`);
        assert.equal(withAborted.games.length, 4);
        assert.equal(withAborted.games[0].id, aborted);
        assert.equal(withAborted.games[0].reason, 'aborted');
        assert.equal((await get(`${A.name}?aborted=exclude`)).games.length, 3);
        assert.equal((await get(`${A.name}?aborted=maybe`, 400)).error, 'bad_argument');
        // Nor does the profile count or list it.
        const prof = await profile(srv, A.name);
        assert.equal(prof.finished[g2].games.length, 3);
        assert.ok(!prof.finished[g2].games.some((g) => g.id === aborted));
        const all = await get(A.name);
        assert.equal(all.username, A.name);
        assert.equal(all.games.length, 3);
        assert.equal(all.more, false);
        assert.ok(all.games[0].id > all.games[1].id && all.games[1].id > all.games[2].id, 'newest first');
        assert.deepEqual(all.games.map((g) => g.outcome), ['win', 'loss', 'win']);
        assert.deepEqual(all.games.map((g) => g.rated), [true, false, true]);
        assert.ok(all.games[0].players.includes(C.name) && all.games[0].players.includes(A.name));
        // Rated games carry the rating change, as the history has it.
        const hist = (await stored(srv, A.name, g2, 'blitz')).history;
        assert.equal(all.games[2].rating_after, hist[0].rating);
        assert.equal(all.games[0].rating_before, hist[0].rating);
        assert.equal(all.games[0].rating_after, hist[1].rating);
        assert.equal(all.games[1].rating_after, undefined);
        // Filters.
        assert.equal((await get(`${A.name}/result=win`)).games.length, 2);
        assert.equal((await get(`${A.name}/result=loss`)).games.length, 1);
        assert.equal((await get(`${A.name}/vs=${C.name}`)).games.length, 1);
        assert.equal((await get(`${A.name}/vs=${B.name}/result=win`)).games.length, 1);
        assert.equal((await get(`${A.name}/kind=correspondence`)).games.length, 0);
        assert.equal((await get(`${A.name}/kind=live/game=${g2}`)).games.length, 3);
        // The same filters as query parameters (lichess's form); the query
        // wins over a path segment; URL-encoded values are decoded.
        assert.equal((await get(`${A.name}?result=win`)).games.length, 2);
        assert.equal((await get(`${A.name}?vs=${encodeURIComponent(B.name)}&result=win`)).games.length, 1);
        assert.equal((await get(`${A.name}?kind=correspondence`)).games.length, 0);
        assert.equal((await get(`${A.name}?kind=live&game=${g2}`)).games.length, 3);
        assert.equal((await get(`${A.name}/result=loss?result=win`)).games.length, 2);
        assert.equal((await get(`${A.name}?result=maybe`, 400)).error, 'bad_argument');
        assert.equal((await get(`${A.name}?result=`, 400)).error, 'bad_argument');
        const q1 = await get(`${A.name}?limit=2`);
        assert.deepEqual((await get(`${A.name}?limit=2&before=${q1.next}`)).games.map((g) => g.id), [all.games[2].id]);
        // Pages.
        const p1 = await get(`${A.name}/limit=2`);
        assert.equal(p1.games.length, 2);
        assert.equal(p1.more, true);
        assert.equal(p1.next, p1.games[1].id);
        const p2 = await get(`${A.name}/limit=2/before=${p1.next}`);
        assert.deepEqual(p2.games.map((g) => g.id), [all.games[2].id]);
        assert.equal(p2.more, false);
        // Export: every game as PGN (newest first), or NDJSON; the filters
        // apply.
        const exp = async (path, status = 200) => {
            const r = await fetch(`${srv.http}/api/games/user/${path}`);
            assert.equal(r.status, status, path);
            return r;
        };
        let r = await exp(A.name);
        assert.match(r.headers.get('content-type'), /application\/x-chess-pgn/);
        const pgn = await r.text();
        const ids = [...pgn.matchAll(/\[GameId "(\d+)"\]/g)].map((m) => Number(m[1]));
        assert.deepEqual(ids, all.games.map((g) => g.id));
        assert.equal((pgn.match(/\[Event /g) || []).length, 3);
        assert.match(pgn, new RegExp(`\\[(White|Black) "${C.name}"\\]`));
        // Re-imported through the PGN reader (pgn_parse + pgn_replay).
        const checker = join(root, 'build/pgn_check');
        if (existsSync(checker)) {
            const out = spawnSync(checker, { input: pgn, encoding: 'utf8' });
            assert.equal(out.status, 0, out.stdout);
            assert.match(out.stdout, /^games 3$/m);
            assert.deepEqual([...out.stdout.matchAll(/^ok (\d+) 1 /gm)].map((m) => Number(m[1])), ids);
        }
        r = await exp(`${A.name}/format=ndjson/vs=${B.name}`);
        assert.match(r.headers.get('content-type'), /application\/x-ndjson/);
        const lines = (await r.text()).trim().split('\n').map((l) => JSON.parse(l));
        assert.deepEqual(lines.map((g) => g.id), all.games.slice(1).map((g) => g.id));
        for (const g of lines) {
            assert.equal(g.moves.length, 1);
            assert.ok(g.players.some((p) => p.name === B.name));
        }
        // Accept: application/x-ndjson chooses NDJSON; the filters as a query.
        const ndj = async (path, accept) => {
            const res = await fetch(`${srv.http}/api/games/user/${path}`, { headers: { Accept: accept } });
            assert.equal(res.status, 200, path);
            return res;
        };
        r = await ndj(`${A.name}?vs=${B.name}`, 'application/x-ndjson');
        assert.match(r.headers.get('content-type'), /application\/x-ndjson/);
        assert.deepEqual((await r.text()).trim().split('\n').map((l) => JSON.parse(l).id),
            all.games.slice(1).map((g) => g.id));
        r = await ndj(`${A.name}?result=win`, 'text/html, application/x-ndjson;q=0.9');
        assert.deepEqual((await r.text()).trim().split('\n').map((l) => JSON.parse(l).id),
            [all.games[0].id, all.games[2].id]);
        r = await ndj(`${A.name}?result=win`, 'application/x-ndjsonx, */*');
        assert.match(r.headers.get('content-type'), /application\/x-chess-pgn/);
        assert.equal((((await r.text()).match(/\[Event /g)) || []).length, 2);
        r = await ndj(`${A.name}?format=pgn`, 'application/x-ndjson');
        assert.match(r.headers.get('content-type'), /application\/x-chess-pgn/, 'format= wins over Accept');
        await exp(`${A.name}?vs=`, 400);
        assert.equal(await (await exp(`${A.name}?kind=correspondence`)).text(), '');
        assert.equal(await (await exp(`${A.name}/kind=correspondence`)).text(), '');
        await exp('nosuchplayer', 404);
        await exp(`${A.name}/format=tex`, 400);
        // The archive itself takes no format.
        await get(`${A.name}/format=pgn`, 400);
        // Errors.
        await get('nosuchplayer', 404);
        assert.equal((await get(`${A.name}/result=maybe`, 400)).error, 'bad_argument');
        await get(`${A.name}/limit=0`, 400);
        await get(`${A.name}/game=chess`, 400);
        a.close(); b.close(); c.close();
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
    }
});

// PLAYER's "account": true marks a person logged in as an account (the
// client links the name to its player page); guests and bots have none.
test('PLAYER carries account: true for accounts only (welcome, seeks, room seats), not guests or bots', async () => {
    const srv = await startServer();
    try {
        const A = await account(srv), B = await account(srv);
        const a = await login(srv, A), b = await login(srv, B);
        const guest = await connect(srv.url);
        assert.equal(a.welcome.player.account, true);
        assert.equal(guest.welcome.player.account, undefined);
        const g2 = a.welcome.games.find((g) => g.players === 2).id;
        await twoPlayerGame([a, b], g2, BLITZ, false, 1, (seek, states) => {
            assert.equal(seek.players[0].account, true);
            for (const st of states) for (const x of st.seats) assert.equal(x.player.account, true, JSON.stringify(x));
        });
        const gs = await guest.request({ type: 'seek_create', game: g2, ...BLITZ });
        assert.equal(gs.seek.players[0].account, undefined);
        const started = await guest.request({ type: 'bot_game', game: g2, level: 1, base_ms: 0, inc_ms: 0 });
        assert.equal(started.type, 'game_started', JSON.stringify(started));
        const st = await guest.waitFor((m) => m.type === 'room' && m.room === started.room, 'room state');
        assert.equal(st.seats.length, 2);
        for (const x of st.seats) assert.equal(x.player.account, undefined, JSON.stringify(x));
        assert.ok(st.seats.some((x) => x.player.bot));
        a.close(); b.close(); guest.close();
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
    }
});

// The export streams: more games than a page (API_EXPORT_PAGE, 100) go as
// a chunked body, page after page, and come back whole through the PGN
// reader; a reader that goes away in the middle costs nothing (the
// sanitizer build's exit status checks for leaks).
test('a large export streams every game in chunks, PGN and NDJSON, and re-imports through the PGN reader', { timeout: 300000 }, async () => {
    const N = 250;
    const srv = await startServer(['--seeks-per-minute', '1000000']);
    try {
        const A = await account(srv), B = await account(srv);
        const a = await login(srv, A), b = await login(srv, B);
        const g2 = a.welcome.games.find((g) => g.players === 2).id;
        for (let i = 0; i < N; i++) {
            await twoPlayerGame([a, b], g2, BLITZ, i % 3 === 0, i % 2);
            a.inbox.length = 0;
            b.inbox.length = 0;
            // Under the 200 messages a second a connection may send.
            if (i % 40 === 39) await new Promise((res) => setTimeout(res, 1100));
        }
        let r = await fetch(`${srv.http}/api/games/user/${A.name}`);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('transfer-encoding'), 'chunked');
        assert.equal(r.headers.get('content-length'), null);
        assert.match(r.headers.get('content-type'), /application\/x-chess-pgn/);
        assert.ok(r.headers.get('content-security-policy'), 'the security headers too');
        const pgn = await r.text();
        const ids = [...pgn.matchAll(/\[GameId "(\d+)"\]/g)].map((m) => Number(m[1]));
        assert.equal(ids.length, N);
        assert.equal(new Set(ids).size, N, 'no game twice across pages');
        for (let i = 1; i < N; i++) assert.ok(ids[i] < ids[i - 1], 'newest first');
        const checker = join(root, 'build/pgn_check');
        assert.ok(existsSync(checker), 'build/pgn_check is built by make all');
        const out = spawnSync(checker, { input: pgn, encoding: 'utf8', maxBuffer: 64 << 20 });
        assert.equal(out.status, 0, out.stdout.slice(-2000));
        assert.match(out.stdout, new RegExp(`^games ${N}$`, 'm'));
        assert.deepEqual([...out.stdout.matchAll(/^ok (\d+) 1 /gm)].map((m) => Number(m[1])), ids);
        // NDJSON by the Accept header, filtered by a query parameter.
        r = await fetch(`${srv.http}/api/games/user/${A.name}?vs=${B.name}&kind=live`,
            { headers: { Accept: 'application/x-ndjson' } });
        assert.equal(r.headers.get('transfer-encoding'), 'chunked');
        const lines = (await r.text()).trim().split('\n').map((l) => JSON.parse(l));
        assert.deepEqual(lines.map((g) => g.id), ids);
        // limit= does not cap the export (it pages by 100); result= filters.
        r = await fetch(`${srv.http}/api/games/user/${A.name}?result=win`, { headers: { Accept: 'application/x-ndjson' } });
        const wins = (await r.text()).trim().split('\n').map((l) => JSON.parse(l));
        assert.equal(wins.length, Math.floor(N / 2));
        // A reader that stops after the first chunk and goes.
        for (let k = 0; k < 3; k++) {
            const ac = new AbortController();
            r = await fetch(`${srv.http}/api/games/user/${A.name}`, { signal: ac.signal });
            const reader = r.body.getReader();
            assert.ok((await reader.read()).value.length > 0);
            ac.abort();
            await reader.read().catch(() => {});
        }
        // The server still answers, whole.
        r = await fetch(`${srv.http}/api/games/user/${A.name}?format=ndjson`);
        assert.equal((await r.text()).trim().split('\n').length, N);
        a.close(); b.close();
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
    }
});

// A season: SEASON_GAMES (default 2000) rated games between 12 accounts,
// random pairs, wins, losses and draws; afterwards every stored rating
// matches the reference replayed in game order with the server's times,
// before and after a restart (3000 games: 12 s with the sanitizer build).
test('a season of rated games: every rating matches the reference, before and after a restart', { timeout: 900000 }, async () => {
    const N = Number(process.env.SEASON_GAMES || 2000);
    const flags = ['--seeks-per-minute', '1000000'];
    let srv = await startServer(flags);
    try {
        const accts = [];
        for (let i = 0; i < 12; i++) accts.push(await account(srv));
        const cs = [];
        for (const x of accts) cs.push(await login(srv, x));
        const g2 = cs[0].welcome.games.find((g) => g.players === 2).id;
        let seed = 12345;
        const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
        const played = []; // {room, i, j, ranks}
        for (let k = 0; k < N; k++) {
            const i = Math.floor(rand() * 12);
            let j = Math.floor(rand() * 11);
            if (j >= i) j++;
            const [a, b] = [cs[i], cs[j]];
            const created = await a.request({ type: 'seek_create', game: g2, ...BLITZ, rated: true });
            const acc = await b.request({ type: 'seek_accept', seek: created.seek.id });
            assert.equal(acc.type, 'game_started');
            const room = acc.room;
            const sa = await a.waitFor((m) => m.type === 'room' && m.room === room);
            await b.waitFor((m) => m.type === 'room' && m.room === room);
            const mover = sa.to_move === sa.you ? a : b;
            mover.send({ type: 'move', room, move: sa.legal[0] });
            await a.event(room, 'move');
            await b.event(room, 'move');
            const r = rand();
            let ranks;
            if (r < 0.2) {
                a.send({ type: 'draw_offer', room });
                await b.event(room, 'draw_offer');
                b.send({ type: 'draw_offer', room });
                ranks = [0, 0];
            } else if (r < 0.6) {
                b.send({ type: 'resign', room });
                ranks = [0, 1];
            } else {
                a.send({ type: 'resign', room });
                ranks = [1, 0];
            }
            await a.waitFor((m) => m.type === 'event' && m.room === room && m.result, 'result a');
            await b.waitFor((m) => m.type === 'event' && m.room === room && m.result, 'result b');
            a.inbox.length = 0;
            b.inbox.length = 0;
            played.push({ room, i, j, ranks });
        }
        // The times the server rated each game at, from the histories.
        const at = new Map();
        const profiles = async () => {
            const out = [];
            for (const x of accts) out.push((await stored(srv, x.name, g2, 'blitz')) || null);
            return out;
        };
        const first = await profiles();
        for (const p of first) for (const h of p?.history || []) at.set(h.game, h.at);
        // The reference, in the order the games ended.
        const ref2 = accts.map(() => ({ ...NEW }));
        for (const g of played) {
            const t = at.get(g.room);
            assert.ok(t, `game ${g.room} rated`);
            const [x, y] = rateGame([ref2[g.i], ref2[g.j]], g.ranks, t);
            ref2[g.i] = x;
            ref2[g.j] = y;
        }
        const check = (got, what) => got.forEach((p, k) => {
            if (ref2[k].games === 0) assert.equal(p, null);
            else same(p, ref2[k], `${what} ${accts[k].name}`);
        });
        check(first, 'season');
        for (const c of cs) c.close();
        assert.equal((await srv.stop(true)).code, 0, srv.stderr().slice(-2000));
        srv = await startServer(flags, { dir: srv.dir });
        check(await profiles(), 'after restart');
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr().slice(-2000));
    }
});
