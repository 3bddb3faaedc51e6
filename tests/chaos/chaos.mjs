// The chaos player: a seeded program that plays random legal actions of
// every kind against the real server (the sanitizer build by default) and
// checks after each step that the server still answers, that every move it
// acknowledged is stored, and at the end that every game can still finish.
//
//   CHAOS_SECONDS (default 30)  how long to act before the closing checks
//   CHAOS_SEED    (default: the time)  the run's seed: the same seed makes
//                 the same choices (the server's own randomness aside: bots'
//                 moves, timings)
//   CHAOS_VERBOSE=1  print every step
//   CHAOS_BIN     the server (default build/debug/chameleon)
//
// Actions: games with bots of every level (two and three players, live and
// correspondence), seeks between people filled by people or bots,
// challenges, moves (random legal ones from the server's `legal`),
// premoves (rules.wasm's premoves, sent when the turn comes), moves out of
// turn, resign, abort, part and join, draws, takebacks, rematches,
// conditional lines (built with rules.wasm, the answer checked when the
// line is played), vacation, reconnects, spectators and chat, tournaments
// (create, join, start, withdraw), bad input, SIGTERM and kill -9 restarts.
//
// A failure prints the seed, the step and the last steps, the server's
// stderr (the sanitizer's report) and exits 1; the last line of a good run
// is `chaos ok seed=... steps=... ...` with the count of each action.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { startServer, api, rng } from '../integration/lib.mjs';
import { loadRules } from '../../web-client/js/rules.js';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
// ws from the integration suite's folder (as its lib.mjs)
const WebSocket = createRequire(join(root, 'tests/integration/lib.mjs'))('ws');
const SECONDS = Number(process.env.CHAOS_SECONDS || 30);
const SEED = Number(process.env.CHAOS_SEED || (Date.now() % 1000000007));
const VERBOSE = !!process.env.CHAOS_VERBOSE;
const BIN = process.env.CHAOS_BIN || process.env.CHAMELEON_BIN || join(root, 'build/debug/chameleon');
// Each action's answer within this (the sanitizer build on a busy machine).
const ANSWER_MS = Number(process.env.CHAOS_ANSWER_MS || 15000);

const rules = await loadRules(readFileSync(join(root, 'build/rules.wasm')));
const GAMES = ['ultima', 'ultima1968', 'rollerball', 'yalta', 'ant2', 'ant3'];
const PLAYERS = { ultima: 2, ultima1968: 2, rollerball: 2, yalta: 3, ant2: 2, ant3: 3 };

const rand = rng(SEED);
const pick = (a) => a[Math.floor(rand() * a.length)];
const chance = (p) => rand() < p;
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// Wait until cond() holds (what the events told), checking every 20 ms.
async function until(cond, what, ms = ANSWER_MS) {
    const end = Date.now() + ms;
    while (!cond()) {
        if (died) throw new ChaosFailure(died);
        if (Date.now() > end) throw new ChaosFailure(`timed out (${ms} ms) waiting for ${what}`);
        await sleep(20);
    }
}

class ChaosFailure extends Error {}
const fail = (msg) => { throw new ChaosFailure(msg); };

// ---------------------------------------------------------------- counters
const counts = {};
const count = (k, n = 1) => { counts[k] = (counts[k] || 0) + n; };
const anomalies = []; // found by the message handlers; fail at the step's end
const steps = [];     // "N kind: what" of every step, for the failure report
let stepNo = 0;

// ------------------------------------------------------------ the server
let srv = null;
let srvDir = null;
let srvExit = null;   // promise of {code, sig}
let stopping = false; // a restart we asked for
const srvArgs = ['--bot-threads', '2', '--seeks-per-minute', '1000000'];
let stderrBefore = ''; // the stderr of servers before the current one
let died = null;       // why the server is gone, if it died by itself
const rejecters = new Set(); // of every wait: called when the server dies

async function start() {
    srv = await startServer(srvArgs, { dir: srvDir || undefined, bin: BIN });
    srvDir = srv.dir;
    stopping = false;
    srvExit = new Promise((ok) => srv.proc.on('exit', (code, sig) => {
        if (!stopping) {
            // everything waiting for an answer fails now, not at its timeout
            died = `the server exited by itself (code ${code}, signal ${sig}): its stderr below`;
            anomalies.push(died);
            for (const no of rejecters) no(new ChaosFailure(died));
        }
        ok({ code, sig });
    }));
}
function stderrAll() { return stderrBefore + (srv ? srv.stderr() : ''); }

// ------------------------------------------------------------ connections
// One WebSocket: requests answered by `re`, every message to world.onMessage.
class Conn {
    // owner: the person (or a label: control, spectator)
    constructor(owner) { this.owner = owner; this.pending = new Map(); this.nextId = 1; this.closed = false; }
    async open(headers = {}) {
        this.ws = new WebSocket(srv.url, { headers });
        this.ws.on('message', (data) => {
            let m;
            try { m = JSON.parse(data.toString()); } catch { anomalies.push(`not JSON from the server: ${data}`); return; }
            if (m.re !== undefined && this.pending.has(m.re)) {
                const p = this.pending.get(m.re);
                this.pending.delete(m.re);
                p(m);
            } else if (m.type === 'error') {
                // An error to a message nobody waits for (a premove sent
                // from an event, an unacknowledged move): still checked.
                checkError(m, 'unawaited');
            }
            onMessage(this, m);
        });
        this.ws.on('close', () => { this.closed = true; for (const w of waiters) w.check(); });
        this.ws.on('error', () => {});
        await new Promise((ok, no) => { this.ws.once('open', ok); this.ws.once('error', no); });
        return this;
    }
    send(obj) { if (!this.closed) this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)); }
    // Send obj with an id; resolves to its reply, or to the first message
    // (of any connection) matching `ev` (an acknowledgement by event).
    ask(obj, ev = null, ms = ANSWER_MS) {
        const id = this.nextId++;
        if (died) return Promise.reject(new ChaosFailure(died));
        return new Promise((ok0, no0) => {
            let w = null;
            const ok = (m) => { rejecters.delete(no0); ok0(m); };
            const no = (e) => { rejecters.delete(no0); no0(e); };
            rejecters.add(no0);
            const timer = setTimeout(() => {
                this.pending.delete(id);
                if (w) drop(w);
                no(new ChaosFailure(`no answer to ${JSON.stringify(obj).slice(0, 200)} in ${ms} ms (connection of ${this.owner.name || this.owner})`));
            }, ms);
            this.pending.set(id, (m) => { clearTimeout(timer); if (w) drop(w); ok(m); });
            if (ev) {
                w = waitMsg(ev, (m) => { clearTimeout(timer); this.pending.delete(id); ok(m); });
            }
            this.send({ ...obj, id });
        });
    }
    close() { try { this.ws.close(); } catch { /* gone */ } }
}

const waiters = new Set();
function waitMsg(pred, done) {
    const w = { pred, done, check() {} };
    waiters.add(w);
    return w;
}
const drop = (w) => waiters.delete(w);
function waitFor(pred, what, ms = ANSWER_MS) {
    if (died) return Promise.reject(new ChaosFailure(died));
    return new Promise((ok, no) => {
        rejecters.add(no);
        const timer = setTimeout(() => { drop(w); rejecters.delete(no); no(new ChaosFailure(`timed out (${ms} ms) waiting for ${what}`)); }, ms);
        const w = waitMsg(pred, (m) => { clearTimeout(timer); rejecters.delete(no); ok(m); });
    });
}

function checkError(m, ctx) {
    if (typeof m.reason !== 'string' || !m.reason) anomalies.push(`an error without a reason (${ctx}): ${JSON.stringify(m)}`);
    if (m.code === 'internal') anomalies.push(`an internal error (${ctx}): ${JSON.stringify(m)}`);
    if (m.code === 'storage_failed') anomalies.push(`storage_failed (${ctx}): ${JSON.stringify(m)}`);
}
// An answer that is an error must be one of `ok` (the races a random player
// meets); anything else fails the step.
function expectOk(m, ok, what) {
    if (m.type !== 'error') return true;
    checkError(m, what);
    if (!ok.includes(m.code)) fail(`${what}: unexpected error ${JSON.stringify(m)}`);
    count('refused:' + m.code);
    return false;
}

// ------------------------------------------------------------ the world
const people = [];      // {name, account, cookie, token, conn}
const rooms = new Map(); // id -> room (what the events told)
let control = null;     // a guest connection that pings after each step
let spectator = null;   // {conn, watching: Set}
const tourneys = [];    // {id, director, entrants: [names], state}

function roomOf(st) {
    let r = rooms.get(st.room);
    if (!r) {
        r = { id: st.room, moves: [], seats: [], owners: [], seq: 0, seen: new Set(), cond: {}, premove: null, tbAsked: false, stale: false };
        rooms.set(st.room, r);
        count('games started');
    }
    return r;
}
const prefix = (a, b) => a.length <= b.length && a.every((x, i) => x === b[i]);

function applyState(st) {
    const known = rooms.has(st.room);
    const r = roomOf(st);
    const moves = st.moves.map((m) => m.move);
    // Every move acknowledged (seen as an event) is in the state given later.
    if (known && !r.stale && !r.tbAsked && !prefix(r.moves, moves))
        anomalies.push(`room ${r.id}: the state's moves ${JSON.stringify(moves)} lost acknowledged ones ${JSON.stringify(r.moves)}`);
    Object.assign(r, {
        game: st.game, n: st.seats.length, corr: !!st.corr, clock: st.base_ms > 0, rated: !!st.rated,
        seats: st.seats.map((s) => ({ name: s.player.name, bot: !!s.player.bot, level: s.player.level, left: s.left })),
        moves, movers: st.moves.map((m) => m.seat), seq: st.seq, status: st.status, toMove: st.to_move,
        legal: st.legal || [], position: st.position, result: st.result, stale: false,
    });
    if (r.result) r.status = 'over';
}

// Returns false for an event already seen (another connection's copy; a
// chat event is told to one chat room and the other gets a `skip` of the
// same seq: each is new to its own).
function applyEvent(ev) {
    const r = rooms.get(ev.room);
    if (!r) return true;
    const key = `${ev.seq} ${ev.kind}`;
    if (r.seen.has(key)) return false;
    r.seen.add(key);
    if (r.seen.size > 256) r.seen.delete(r.seen.values().next().value);
    if (ev.seq <= r.seq) return true;
    if (ev.seq !== r.seq + 1) r.stale = true; // missed some: the next join resyncs
    r.seq = ev.seq;
    const board = (e) => {
        if ('to_move' in e) r.toMove = e.to_move;
        if (e.legal) r.legal = e.legal;
        if (e.position) r.position = e.position;
        if ('result' in e) r.result = e.result;
        if (r.result) r.status = 'over';
    };
    switch (ev.kind) {
    case 'move':
        if (!r.stale && ev.ply !== r.moves.length + 1) { r.stale = true; }
        if (!r.stale) { r.moves.push(ev.move); r.movers.push(ev.seat); }
        board(ev);
        if (!ev.legal) r.legal = [];
        maybePremove(r);
        break;
    case 'left':
        if (r.seats[ev.seat]) r.seats[ev.seat].left = ev.reason;
        board(ev);
        break;
    case 'end':
        r.result = ev.result; r.status = 'over';
        break;
    case 'takeback':
        r.moves.length = ev.ply; r.movers.length = ev.ply; r.tbAsked = false;
        board(ev);
        count('takebacks done');
        break;
    case 'takeback_declined':
        r.tbAsked = false;
        break;
    case 'rematch':
        r.nextRoom = ev.next_room;
        break;
    default: break;
    }
    return true;
}

// The seat of each person, from the `you` its own connection is told (names
// are no key: a guest forgotten at a restart comes back under a new one,
// which may be an old name of another guest).
function setOwner(id, owner, you) {
    const r = rooms.get(id);
    if (!r || typeof owner !== 'object' || typeof you !== 'number') return;
    r.owners = r.owners.map((o) => (o === owner ? undefined : o));
    if (you >= 0) r.owners[you] = owner;
}

function onMessage(conn, m) {
    if (m.type === 'room') { applyState(m); setOwner(m.room, conn.owner, m.you); }
    else if (m.type === 'catchup') setOwner(m.room, conn.owner, m.you);
    else if (m.type === 'event' && !applyEvent(m)) return; // a copy: nobody waits for it
    if (m.type === 'catchup') {
        const r = rooms.get(m.room);
        if (r && r.stale) {
            // events missed before this catchup: take the state as given
            r.seq = m.seq; r.stale = true;
        } else if (r) {
            for (const ev of m.events) applyEvent({ ...ev, room: m.room });
        }
        if (r) {
            Object.assign(r, { toMove: m.to_move, legal: m.legal || [], position: m.position || r.position,
                result: m.result, status: m.status });
            if (r.seq < m.seq) r.seq = m.seq;
        }
    }
    for (const w of [...waiters]) if (w.pred(m, conn)) { drop(w); w.done(m); }
}

// The premove a seat set plays as soon as its turn comes, if still legal.
function maybePremove(r) {
    const p = r.premove;
    if (!p || r.status !== 'playing' || r.toMove !== p.seat) return;
    r.premove = null;
    const who = r.owners[p.seat];
    if (!who || !who.conn || who.conn.closed || !r.legal.includes(p.move)) { count('premoves dropped'); return; }
    count('premoves sent');
    who.conn.send({ type: 'move', room: r.id, move: p.move, id: 900000 + stepNo });
}

const person = (name) => people.find((p) => p.name === name);
const personSeats = (r) => r.seats.map((s, i) => i).filter((i) => !r.seats[i].bot && r.owners[i]);
const playing = () => [...rooms.values()].filter((r) => r.status === 'playing' && !r.stale).sort((a, b) => a.id - b.id);
const connOf = (r, seat) => r.owners[seat].conn;

async function connectPerson(p) {
    const headers = p.account ? { Cookie: p.cookie } : {};
    p.conn = await new Conn(p).open(headers);
    const w = await p.conn.ask({ type: 'hello', ...(p.token ? { token: p.token } : {}) });
    if (w.type !== 'welcome') fail(`hello of ${p.name}: ${JSON.stringify(w)}`);
    if (p.account && w.account !== p.name) {
        // the session did not come through: log in again
        const r = await api(srv, 'POST', '/api/login', { username: p.name, password: 'correct horse' });
        if (r.status !== 200) fail(`login ${p.name}: ${r.status} ${r.text}`);
        p.cookie = r.cookie;
        p.conn.close();
        return connectPerson(p);
    }
    p.token = w.token;
    p.name = w.player.name;
    p.welcomeRooms = w.rooms || [];
    return w;
}

// Join (again) every room the person sits in and that goes on, with since.
async function rejoin(p, ids) {
    for (const id of ids) {
        const r = rooms.get(id);
        const since = r && !r.stale && r.seq > 0 ? { since: r.seq } : {};
        const m = await p.conn.ask({ type: 'join', room: id, ...since });
        if (m.type === 'error') {
            expectOk(m, ['unknown_room'], `join ${id}`);
            if (r && r.moves.length > 0 && r.status === 'playing') {
                // it may have finished while none of us watched: then stored so
                const g = await api(srv, 'GET', `/api/games/${id}`);
                if (g.status !== 200 || g.json.result == null)
                    fail(`room ${id}: unknown after a reconnect though ${r.moves.length} moves were acknowledged, stored: ${g.status} ${g.text.slice(0, 300)}`);
                r.status = 'over'; r.result = g.json.result;
                count('games finished unwatched');
            }
            if (r && r.moves.length === 0 && r.status === 'playing') { r.status = 'gone'; count('games gone before a move'); }
        } else if (m.type === 'catchup' && r && r.stale) {
            // missed events before: ask for the whole state
            const full = await p.conn.ask({ type: 'join', room: id });
            if (full.type !== 'room') fail(`join ${id}: ${JSON.stringify(full).slice(0, 300)}`);
        }
    }
}

// ------------------------------------------------------------ checks
// Every acknowledged move of room r is in the stored game (GET /api/games).
async function checkStored(r, why) {
    const tracked = [...r.moves];
    const tb = r.tbAsked;
    const res = await api(srv, 'GET', `/api/games/${r.id}`);
    if (res.status === 404) {
        if (tracked.length > 0) fail(`${why}: game ${r.id} not stored though ${tracked.length} moves were acknowledged`);
        return;
    }
    if (res.status !== 200) fail(`${why}: GET /api/games/${r.id}: ${res.status} ${res.text.slice(0, 200)}`);
    const stored = res.json.moves.map((m) => m.move);
    if (!tb && !r.stale && !prefix(tracked, stored))
        fail(`${why}: game ${r.id} (${r.game}) lost acknowledged moves: acknowledged ${JSON.stringify(tracked)}, stored ${JSON.stringify(stored)}`);
    if (r.result && res.json.result == null && !r.stale)
        fail(`${why}: game ${r.id} finished (${JSON.stringify(r.result)}) but stored without a result`);
    count('stored games checked');
}

async function healthy() {
    const m = await control.conn.ask({ type: 'ping' }, null, ANSWER_MS);
    if (m.type !== 'pong') fail(`ping answered ${JSON.stringify(m)}`);
}

// ------------------------------------------------------------ actions
function tc(allAccounts) {
    if (allAccounts && chance(0.3)) return { corr: { days: pick([1, 2, 3]) } };
    if (chance(0.5)) return { base_ms: 0, inc_ms: 0 };
    return { base_ms: pick([60000, 180000]), inc_ms: pick([0, 2000]) };
}

async function waitRoomState(id) {
    if (rooms.has(id)) return rooms.get(id);
    await waitFor((m) => m.type === 'room' && m.room === id, `the state of room ${id}`);
    return rooms.get(id);
}

const actions = {
    async bot_game() {
        const p = pick(people);
        const game = pick(GAMES);
        const level = 1 + Math.floor(rand() * 8);
        const t = tc(p.account);
        const seat = chance(0.5) ? -1 : Math.floor(rand() * PLAYERS[game]);
        const m = await p.conn.ask({ type: 'bot_game', game, level, seat, ...t });
        if (!expectOk(m, ['too_many_games'], 'bot_game')) return `${p.name} bot_game refused`;
        await waitRoomState(m.room);
        count(`level ${level}`);
        return `${p.name} vs bot-level-${level} ${game} ${JSON.stringify(t)} room ${m.room} seat ${m.seat}`;
    },
    async seek() {
        const game = pick(GAMES);
        const n = PLAYERS[game];
        const creator = pick(people);
        const others = people.filter((q) => q !== creator);
        const accounts = people.filter((q) => q.account);
        const corrOk = creator.account;
        const t = tc(corrOk);
        const rated = corrOk && !t.corr && chance(0.2);
        const c = await creator.conn.ask({ type: 'seek_create', game, ...t, ...(rated ? { rated: true } : {}) });
        if (!expectOk(c, ['too_many_games', 'too_many_seeks'], 'seek_create')) return 'seek refused';
        const seek = c.seek.id;
        if (chance(0.1)) {
            const x = await creator.conn.ask({ type: 'seek_cancel', seek });
            expectOk(x, ['unknown_seek'], 'seek_cancel');
            return `${creator.name} seek ${game} cancelled`;
        }
        const pool = (t.corr || rated ? accounts.filter((q) => q !== creator) : others);
        let room = null;
        let joined = 0;
        const fillAt = n === 3 ? Math.floor(rand() * 3) : 9; // 3 players: bots fill after 0, 1 or 2 people
        for (let k = 1; k < n && room === null; k++) {
            if (k > fillAt) break;
            const q = pick(pool);
            if (!q || q === creator) break;
            const a = await q.conn.ask({ type: 'seek_accept', seek });
            if (!expectOk(a, ['own_seek', 'too_many_games', 'unknown_seek'], 'seek_accept')) continue;
            joined++;
            if (a.type === 'game_started') room = a.room;
        }
        if (room === null) {
            const level = 1 + Math.floor(rand() * 8);
            const f = await creator.conn.ask({ type: 'seek_fill', seek, level });
            if (!expectOk(f, ['too_many_games', 'bad_argument', 'unknown_seek'], 'seek_fill')) {
                await creator.conn.ask({ type: 'seek_cancel', seek });
                return `seek ${game}: fill refused, cancelled`;
            }
            room = f.room;
            count(`level ${level}`);
        }
        await waitRoomState(room);
        return `seek ${game} ${JSON.stringify(t)}${rated ? ' rated' : ''} by ${creator.name}, ${joined} joined, room ${room}`;
    },
    async challenge() {
        const acc = people.filter((q) => q.account);
        const a = pick(acc);
        const b = pick(acc.filter((q) => q !== a));
        const game = pick(GAMES.filter((g) => PLAYERS[g] === 2));
        const t = tc(true);
        const c = await a.conn.ask({ type: 'challenge_create', to: b.name, game, ...t });
        if (!expectOk(c, ['too_many_games', 'too_many_seeks'], 'challenge_create')) return 'challenge refused';
        const ch = c.challenge.id;
        if (chance(0.3)) {
            const d = await b.conn.ask({ type: chance(0.5) ? 'challenge_decline' : 'challenge_accept', challenge: ch });
            expectOk(d, ['too_many_games', 'unknown_challenge', 'not_found'], 'challenge answer');
            if (d.type !== 'game_started') {
                await a.conn.ask({ type: 'challenge_cancel', challenge: ch });
                return `challenge ${a.name} -> ${b.name} declined/cancelled`;
            }
            await waitRoomState(d.room);
            return `challenge ${a.name} -> ${b.name} ${game} room ${d.room}`;
        }
        const d = await b.conn.ask({ type: 'challenge_accept', challenge: ch });
        if (!expectOk(d, ['too_many_games'], 'challenge_accept')) {
            await a.conn.ask({ type: 'challenge_cancel', challenge: ch });
            return 'challenge accept refused';
        }
        await waitRoomState(d.room);
        return `challenge ${a.name} -> ${b.name} ${game} ${JSON.stringify(t)} room ${d.room}`;
    },
    async move() {
        const cands = playing().filter((r) => !r.seats[r.toMove]?.bot && r.owners[r.toMove] && r.legal.length > 0);
        if (!cands.length) return null;
        const r = pick(cands);
        const s = r.toMove;
        const other = 1 - s;
        // the opponent's conditional line's first move, more often than not
        let mv = pick(r.legal);
        let expect = null;
        const lines = r.n === 2 ? r.cond[other] : null;
        if (lines && lines.length && chance(0.7)) {
            const l = pick(lines).split(' ');
            if (r.legal.includes(l[0])) mv = l[0];
        }
        // the first line starting with the move answers it (their order)
        const line = (lines || []).map((x) => x.split(' ')).find((l) => l[0] === mv);
        if (line) expect = line[1];
        const ply = r.moves.length + 1;
        const m = await connOf(r, s).ask({ type: 'move', room: r.id, move: mv },
            (e) => e.type === 'event' && e.room === r.id && ((e.kind === 'move' && e.ply >= ply) || e.kind === 'end' || e.kind === 'left'));
        if (m.type === 'error') {
            expectOk(m, ['not_your_turn', 'game_over', 'takeback_pending'], `move ${mv} in room ${r.id}`);
            return `move ${mv} room ${r.id} refused ${m.code}`;
        }
        if (m.kind !== 'move') return `move ${mv} room ${r.id}: the game ended first (${m.kind})`;
        if (expect) {
            // the opponent's line answers at once, as the next move
            const a = r.moves.length >= ply + 1 ? { move: r.moves[ply] } : await waitFor(
                (e) => e.type === 'event' && e.room === r.id && e.kind === 'move' && e.ply === ply + 1,
                `the conditional answer ${expect} in room ${r.id}`);
            if (a.move !== expect) fail(`room ${r.id}: conditional line answered ${a.move}, not ${expect}`);
            count('conditional answers played');
        }
        r.cond = {};
        return `move ${mv} room ${r.id} (${r.game}) ply ${ply}${expect ? ` -> conditional ${expect}` : ''}`;
    },
    async premove() {
        const cands = playing().filter((r) => r.clock || !r.corr).flatMap((r) =>
            personSeats(r).filter((s) => s !== r.toMove && !r.seats[s].left && !r.premove).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const g = rules.newGame(r.game, r.position);
        let list;
        try { list = g.premoves(s); } finally { g.free(); }
        if (!list.length) return null;
        const mv = pick(list);
        if (chance(0.3)) {
            // sent at once, out of turn: refused (or played if the turn came)
            const m = await connOf(r, s).ask({ type: 'move', room: r.id, move: mv },
                (e) => e.type === 'event' && e.room === r.id && e.kind === 'move' && e.seat === s);
            if (m.type === 'error') expectOk(m, ['not_your_turn', 'game_over', 'illegal_move', 'unreachable', 'no_piece',
                'not_your_piece', 'frozen', 'self_check', 'bad_move_text', 'takeback_pending'], 'move out of turn');
            return `move out of turn ${mv} room ${r.id}: ${m.type === 'error' ? m.code : 'played'}`;
        }
        r.premove = { seat: s, move: mv };
        maybePremove(r);
        return `premove ${mv} room ${r.id} seat ${s}`;
    },
    async resign() {
        const cands = playing().flatMap((r) => personSeats(r).filter((s) => !r.seats[s].left).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const m = await connOf(r, s).ask({ type: 'resign', room: r.id },
            (e) => e.type === 'event' && e.room === r.id && ((e.kind === 'left' && e.seat === s) || e.kind === 'end'));
        if (m.type === 'error') expectOk(m, ['game_over', 'takeback_pending'], 'resign');
        return `resign room ${r.id} (${r.game}, ${r.moves.length} moves) seat ${s}`;
    },
    async abort() {
        const cands = playing().filter((r) => r.moves.length < r.n + 1).flatMap((r) => personSeats(r).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const m = await connOf(r, s).ask({ type: 'abort', room: r.id },
            (e) => e.type === 'event' && e.room === r.id && e.kind === 'end');
        if (m.type === 'error') expectOk(m, ['cannot_abort', 'game_over', 'takeback_pending'], 'abort');
        return `abort room ${r.id} after ${r.moves.length} moves: ${m.type === 'error' ? m.code : 'aborted'}`;
    },
    async draw() {
        const cands = playing().flatMap((r) => personSeats(r).filter((s) => !r.seats[s].left).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        // A move or a leave clears the offers (PROTOCOL.md): a premove sent
        // when its turn came, a bot's move or a flag between the offer and
        // its answers makes the answer a new offer. No new premove meanwhile.
        r.premove = null;
        const plies = r.moves.length;
        const leftBefore = r.seats.filter((x) => x.left).length;
        const m = await connOf(r, s).ask({ type: 'draw_offer', room: r.id },
            (e) => e.type === 'event' && e.room === r.id && ['draw_offer', 'end'].includes(e.kind));
        if (m.type === 'error') { expectOk(m, ['game_over', 'takeback_pending'], 'draw_offer'); return `draw offer refused ${m.code}`; }
        const others = personSeats(r).filter((x) => x !== s && !r.seats[x].left && r.owners[x] !== r.owners[s]);
        const accept = chance(0.5);
        for (const o of others) {
            const a = await connOf(r, o).ask({ type: accept ? 'draw_offer' : 'draw_decline', room: r.id },
                (e) => e.type === 'event' && e.room === r.id && ['draw_offer', 'draw_declined', 'end'].includes(e.kind) && e.seat !== s);
            if (a.type === 'error') expectOk(a, ['game_over', 'takeback_pending'], 'draw answer');
            if (!accept) break;
        }
        if (accept && (r.moves.length !== plies || r.seats.filter((x) => x.left).length !== leftBefore)) {
            count('draw offers cleared by a move or a leave');
            return `draw offered room ${r.id} seat ${s}: a move or a leave came between, offers cleared`;
        }
        // every person agreed: the game ends once the result is stored
        if (accept && personSeats(r).filter((x) => !r.seats[x].left).length === r.seats.filter((x) => !x.left).length)
            await until(() => r.status !== 'playing' || r.stale, `the draw agreed in room ${r.id}`);
        return `draw offered room ${r.id} seat ${s}, people ${accept ? 'accept' : 'decline'}`;
    },
    async takeback() {
        const cands = playing().filter((r) => r.n === 2 && !r.corr && !r.rated)
            .flatMap((r) => personSeats(r).filter((s) => r.movers.includes(s)).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        r.tbAsked = true;
        const m = await connOf(r, s).ask({ type: 'takeback', room: r.id },
            (e) => e.type === 'event' && e.room === r.id && ['takeback_offer', 'takeback', 'end', 'left'].includes(e.kind));
        if (m.type === 'error') {
            r.tbAsked = false;
            expectOk(m, ['no_takeback', 'game_over', 'takeback_pending'], 'takeback');
            return `takeback room ${r.id} refused ${m.code}`;
        }
        const o = 1 - s;
        if (m.kind === 'takeback_offer' && !r.seats[o].bot && r.owners[o]) {
            const yes = chance(0.6);
            const a = await connOf(r, o).ask({ type: yes ? 'takeback' : 'takeback_decline', room: r.id },
                (e) => e.type === 'event' && e.room === r.id && ['takeback', 'takeback_declined'].includes(e.kind));
            if (a.type === 'error') { r.tbAsked = false; expectOk(a, ['no_takeback', 'game_over', 'takeback_pending'], 'takeback answer'); }
        } else if (m.kind === 'takeback_offer') {
            // a bot agrees at once
            await until(() => !r.tbAsked || r.status !== 'playing', `the bot's takeback in room ${r.id}`);
        }
        return `takeback room ${r.id} seat ${s}`;
    },
    async rematch() {
        const cands = [...rooms.values()].filter((r) => r.status === 'over' && personSeats(r).length > 0 && !r.rematched)
            .sort((a, b) => a.id - b.id);
        if (!cands.length) return null;
        const r = pick(cands);
        r.rematched = true;
        const seats = personSeats(r);
        if (chance(0.25)) {
            const m = await connOf(r, seats[0]).ask({ type: 'rematch_decline', room: r.id },
                (e) => e.type === 'event' && e.room === r.id && e.kind === 'rematch_declined');
            if (m.type === 'error') expectOk(m, ['unknown_room', 'game_not_over', 'not_joined'], 'rematch_decline');
            return `rematch declined room ${r.id}`;
        }
        let next = null;
        for (const s of seats) {
            const m = await connOf(r, s).ask({ type: 'rematch', room: r.id },
                (e) => e.type === 'event' && e.room === r.id && ['rematch_offer', 'rematch'].includes(e.kind));
            if (m.type === 'error') { expectOk(m, ['unknown_room', 'too_many_games', 'game_not_over'], 'rematch'); return `rematch room ${r.id} refused ${m.code}`; }
            if (m.kind === 'rematch') { next = m.next_room; break; }
        }
        if (next === null) {
            // every person asked: the bots agree at once
            await until(() => r.nextRoom, `the rematch of room ${r.id}`);
            next = r.nextRoom;
        }
        await waitRoomState(next);
        count('rematches');
        return `rematch room ${r.id} -> ${next}`;
    },
    async cond() {
        const cands = playing().filter((r) => r.corr && r.n === 2)
            .flatMap((r) => personSeats(r).filter((s) => s !== r.toMove && !r.seats[1 - s].bot).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const c = connOf(r, s);
        if (chance(0.2)) {
            const m = await c.ask({ type: chance(0.5) ? 'cond_get' : 'cond_clear', room: r.id });
            if (expectOk(m, ['game_over', 'not_your_turn'], 'cond_get/clear')) r.cond[s] = m.lines;
            return `cond get/clear room ${r.id}`;
        }
        const g = rules.newGame(r.game, r.position);
        const lines = [];
        const bad = chance(0.15);
        try {
            const opp = g.legalMoves();
            for (let k = 0; k < 1 + Math.floor(rand() * 3) && opp.length; k++) {
                const o = pick(opp);
                g.play(o);
                const mine = g.legalMoves();
                if (mine.length) lines.push(`${o} ${bad ? o : pick(mine)}`);
                g.undo();
            }
        } finally { g.free(); }
        if (!lines.length) return null;
        const m = await c.ask({ type: 'cond_set', room: r.id, lines });
        if (bad) {
            if (m.type !== 'error') {
                // the same move twice may be legal in some games (a pass); fine
                r.cond[s] = m.lines;
                return `cond_set (doubled) accepted room ${r.id}`;
            }
            checkError(m, 'cond_set bad');
            if (m.code === 'internal' || m.code === 'bad_message') fail(`cond_set of a bad line: ${JSON.stringify(m)}`);
            return `cond_set bad line refused ${m.code}`;
        }
        if (!expectOk(m, ['not_your_turn', 'game_over'], `cond_set ${JSON.stringify(lines)}`)) return `cond_set refused ${m.code}`;
        r.cond[s] = m.lines;
        return `cond_set room ${r.id} seat ${s} ${JSON.stringify(m.lines)}`;
    },
    async vacation() {
        const p = pick(people.filter((q) => q.account));
        const type = pick(['vacation_status', 'vacation_start', 'vacation_end']);
        const m = await p.conn.ask({ type, ...(type === 'vacation_start' ? { days: 1 } : {}) });
        expectOk(m, ['vacation', 'bad_argument', 'not_found'], type);
        return `${type} ${p.name}: ${m.type === 'error' ? m.code : (m.on ? 'on' : 'off')}`;
    },
    async reconnect() {
        const p = pick(people);
        const old = p.conn;
        if (chance(0.5)) { old.close(); } else { old.ws.terminate(); }
        await connectPerson(p);
        const mine = playing().filter((r) => r.owners.includes(p)).map((r) => r.id);
        for (const id of p.welcomeRooms) if (!mine.includes(id)) mine.push(id);
        await rejoin(p, mine.sort((a, b) => a - b));
        return `reconnect ${p.name} (${mine.length} rooms)`;
    },
    async part() {
        const cands = playing().flatMap((r) => personSeats(r).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const c = connOf(r, s);
        c.send({ type: 'part', room: r.id });
        await healthyConn(c);
        // the events go on without us; come back with since at once or later
        const m = await c.ask({ type: 'join', room: r.id, since: r.seq });
        if (m.type === 'error') expectOk(m, ['unknown_room'], 'join after part');
        if (m.type === 'catchup' && r.stale) await c.ask({ type: 'join', room: r.id });
        return `part and join room ${r.id} seat ${s}`;
    },
    async spectate() {
        const ids = [...rooms.keys()].sort((a, b) => a - b);
        if (!ids.length) return null;
        const id = pick(ids);
        const c = spectator.conn;
        const m = await c.ask({ type: 'join', room: id });
        if (m.type === 'error') { expectOk(m, ['unknown_room', 'too_many_rooms'], 'spectator join'); return `spectate ${id}: ${m.code}`; }
        if (chance(0.5)) {
            const t = await c.ask({ type: 'chat', room: id, text: `chaos ${stepNo}` },
                (e) => e.type === 'event' && e.room === id && e.kind === 'chat' && e.seat === -1);
            if (t.type === 'error') expectOk(t, ['rate_limited', 'not_joined'], 'spectator chat');
        }
        if (chance(0.7)) c.send({ type: 'part', room: id });
        return `spectate room ${id}`;
    },
    async chat() {
        const cands = [...rooms.values()].filter((r) => r.status === 'playing').flatMap((r) => personSeats(r).map((s) => [r, s]));
        if (!cands.length) return null;
        const [r, s] = pick(cands);
        const m = await connOf(r, s).ask({ type: 'chat', room: r.id, text: pick(['gl', 'hf', 'é ü ∑', 'x'.repeat(300)]) },
            (e) => e.type === 'event' && e.room === r.id && e.kind === 'chat');
        if (m.type === 'error') expectOk(m, ['rate_limited', 'not_joined', 'unknown_room'], 'chat');
        return `chat room ${r.id}`;
    },
    async tourney() {
        const acc = people.filter((q) => q.account);
        const open = tourneys.filter((t) => t.state === 'running');
        if (open.length && chance(0.4)) {
            // an entrant withdraws: its games are resigned
            const t = pick(open);
            const who = person(pick(t.entrants));
            const r = await api(srv, 'POST', `/api/tournaments/${t.id}/withdraw`, {}, who.cookie);
            if (r.status !== 200 && !(r.status === 409)) fail(`withdraw: ${r.status} ${r.text}`);
            if (r.status === 200) t.state = r.json.state;
            await sleep(100);
            return `tournament ${t.id}: ${who.name} withdraws (${r.status})`;
        }
        const director = pick(acc);
        const game = pick(GAMES);
        const size = 3 + Math.floor(rand() * 2);
        const mk = await api(srv, 'POST', '/api/tournaments', {
            name: `chaos ${stepNo}`, game, size, double: chance(0.3), corr: { days: pick([1, 3]) },
        }, director.cookie);
        if (mk.status === 429) return 'tournament refused (too many)';
        if (mk.status !== 200) fail(`POST /api/tournaments: ${mk.status} ${mk.text}`);
        const id = mk.json.id;
        const entrants = [];
        const pool = [...acc];
        for (let k = 0; k < 3; k++) {
            const e = pool.splice(Math.floor(rand() * pool.length), 1)[0];
            const j = await api(srv, 'POST', `/api/tournaments/${id}/join`, {}, e.cookie);
            if (j.status !== 200) fail(`join tournament: ${j.status} ${j.text}`);
            entrants.push(e.name);
            if (k === 1 && chance(0.3)) {
                // the first entrant leaves the open tournament and comes back
                const first = person(entrants[0]);
                for (const act of ['leave', 'join']) {
                    const x = await api(srv, 'POST', `/api/tournaments/${id}/${act}`, {}, first.cookie);
                    if (x.status !== 200) fail(`${act} an open tournament: ${x.status} ${x.text}`);
                }
                count('tournament leave and join');
            }
        }
        if (size > 3 && chance(0.2)) {
            const c = await api(srv, 'POST', `/api/tournaments/${id}/cancel`, {}, director.cookie);
            if (c.status !== 200) fail(`cancel tournament: ${c.status} ${c.text}`);
            return `tournament ${id} cancelled`;
        }
        // a tournament of 3 starts with its third entry; a bigger one now
        let st = await api(srv, 'GET', `/api/tournaments/${id}`);
        if (st.status !== 200) fail(`GET tournament: ${st.status} ${st.text}`);
        if (st.json.state !== 'running') {
            st = await api(srv, 'POST', `/api/tournaments/${id}/start`, {}, director.cookie);
            if (st.status !== 200) fail(`start tournament: ${st.status} ${st.text}`);
        }
        if (st.json.state !== 'running') fail(`tournament ${id} not running after its start: ${st.text.slice(0, 300)}`);
        tourneys.push({ id, entrants, state: 'running' });
        // the entrants join their games (no game_started for them)
        for (const g of st.json.schedule) {
            for (const idx of g.players) {
                const e = person(st.json.entrants.find((x) => x.idx === idx).username);
                const m = await e.conn.ask({ type: 'join', room: g.id });
                if (m.type !== 'room') fail(`join tournament game ${g.id}: ${JSON.stringify(m).slice(0, 300)}`);
            }
        }
        count('tournament games', st.json.schedule.length);
        return `tournament ${id} ${game} ${entrants.length} entrants, ${st.json.schedule.length} games`;
    },
    async bad_input() {
        const p = pick(people);
        const r = pick([...rooms.values()].sort((a, b) => a.id - b.id)) || { id: 1 };
        const cases = [
            ['not json', null],
            ['{"type":"ping","type":"ping"}', null],
            [{ type: 'no_such_thing' }, 'unknown_type'],
            [{ type: 'move', room: 'x', move: 'a1-a2' }, 'bad_message'],
            [{ type: 'move', room: 987654, move: 'a1-a2' }, 'unknown_room'],
            [{ type: 'move', room: r.id, move: 'zz9-!!' }, null],
            [{ type: 'seek_create', game: 'chess', base_ms: 0, inc_ms: 0 }, 'unknown_game'],
            [{ type: 'seek_create', game: 'ultima', base_ms: -1, inc_ms: 0 }, 'bad_time_control'],
            [{ type: 'bot_game', game: 'yalta', level: 9, base_ms: 0, inc_ms: 0 }, 'bad_message'],
            [{ type: 'cond_set', room: r.id, lines: ['a'] }, null],
            [{ type: 'vacation_start', days: 1e12 }, null],
            [{ type: 'hello' }, 'not_hello'],
        ];
        const [msg, code] = pick(cases);
        const m = typeof msg === 'string'
            ? (p.conn.send(msg), await waitFor((x, c) => c === p.conn && x.type === 'error' && x.re === undefined, 'the error of bad input'))
            : await p.conn.ask(msg);
        if (m.type !== 'error') fail(`bad input ${JSON.stringify(msg)} answered ${JSON.stringify(m).slice(0, 200)}`);
        checkError(m, 'bad input');
        if (code && m.code !== code) fail(`bad input ${JSON.stringify(msg)}: ${m.code}, expected ${code}`);
        await healthyConn(p.conn);
        return `bad input ${JSON.stringify(msg).slice(0, 60)} -> ${m.code}`;
    },
    async verify() {
        const list = [...rooms.values()].filter((r) => r.moves.length > 0).sort((a, b) => a.id - b.id);
        if (!list.length) return null;
        const r = pick(list);
        await checkStored(r, 'check');
        return `stored game ${r.id} checked (${r.moves.length} moves)`;
    },
    async sigterm() { return restart(false); },
    async kill9() { return restart(true); },
};

async function healthyConn(c) {
    const m = await c.ask({ type: 'ping' });
    if (m.type !== 'pong') fail(`ping answered ${JSON.stringify(m)}`);
}

async function restart(hard) {
    // what was acknowledged before the stop
    const snap = [...rooms.values()].map((r) => ({ r, moves: [...r.moves], result: r.result }));
    stopping = true;
    for (const w of waiters) drop(w);
    if (hard) {
        srv.proc.kill('SIGKILL');
        await srvExit;
    } else {
        srv.proc.kill('SIGTERM');
        const st = await Promise.race([srvExit, sleep(20000).then(() => null)]);
        if (!st) fail('SIGTERM: the server did not stop within 20 s');
        if (st.code !== 0) fail(`SIGTERM: the server exited ${st.code} (signal ${st.sig}): not clean (the sanitizers?)`);
    }
    stderrBefore += srv.stderr();
    await start();
    count(hard ? 'restarts kill -9' : 'restarts SIGTERM');
    for (const { r, moves, result } of snap) {
        if (r.stale) continue;
        r.moves = moves; r.result = result;
        await checkStored(r, hard ? 'after kill -9' : 'after SIGTERM');
        r.stale = true; // seq numbers start again: the next join gives the whole state
    }
    control.conn = null;
    await connectControl();
    spectator.conn = await new Conn('spectator').open();
    await spectator.conn.ask({ type: 'hello', token: spectator.token });
    for (const p of people) {
        await connectPerson(p);
        const mine = snap.filter(({ r }) => r.status === 'playing' && r.owners.includes(p)).map(({ r }) => r.id);
        for (const id of p.welcomeRooms) if (!mine.includes(id)) mine.push(id);
        await rejoin(p, mine.sort((a, b) => a - b));
    }
    return `${hard ? 'kill -9' : 'SIGTERM'} and restart: ${snap.length} games checked`;
}

async function connectControl() {
    control = control || {};
    control.conn = await new Conn('control').open();
    const w = await control.conn.ask({ type: 'hello', ...(control.token ? { token: control.token } : {}) });
    control.token = w.token;
}

// ------------------------------------------------------------ the run
// Weights: how often each action is chosen. New games are rarer when many
// go on (the bots' searches share two cores with the sanitizers).
function weights() {
    const live = playing().length;
    const many = live > 14;
    return [
        ['bot_game', many ? 1 : 8], ['seek', many ? 1 : 5], ['challenge', many ? 0 : 2],
        ['move', 30], ['premove', 6], ['resign', many ? 10 : 3], ['abort', many ? 6 : 2], ['draw', 3],
        ['takeback', 3], ['rematch', 2], ['cond', 4], ['vacation', 1], ['reconnect', 3], ['part', 2],
        ['spectate', 3], ['chat', 2], ['tourney', 1], ['bad_input', 3], ['verify', 4],
        ['sigterm', 1], ['kill9', 1],
    ];
}
function choose() {
    const w = weights();
    const total = w.reduce((s, [, x]) => s + x, 0);
    let x = rand() * total;
    for (const [k, v] of w) { x -= v; if (x < 0) return k; }
    return 'move';
}

async function step(kind, fn) {
    stepNo++;
    const t0 = Date.now();
    let what;
    try {
        what = await fn();
    } catch (e) {
        if (e instanceof ChaosFailure) throw e;
        throw new ChaosFailure(`${kind}: ${e.stack || e}`);
    }
    if (what === null) { stepNo--; return false; }
    count(kind);
    const line = `${stepNo} ${kind}: ${what} (${Date.now() - t0} ms)`;
    steps.push(line);
    if (VERBOSE) console.log(line);
    if (anomalies.length) fail(anomalies.join('\n'));
    await healthy();
    if (anomalies.length) fail(anomalies.join('\n'));
    return true;
}

// Every game still going: the people in it resign (one after another);
// games that only bots play then must go on (a move, or their end).
async function finishAll() {
    for (const r of playing()) {
        for (const s of personSeats(r)) {
            if (r.status !== 'playing' || r.seats[s].left) continue;
            const m = await connOf(r, s).ask({ type: 'resign', room: r.id },
                (e) => e.type === 'event' && e.room === r.id && ((e.kind === 'left' && e.seat === s) || e.kind === 'end'));
            if (m.type === 'error') expectOk(m, ['game_over'], 'final resign');
            if (anomalies.length) fail(anomalies.join('\n'));
        }
    }
    await Promise.all(playing().map(async (r) => {
        const ply = r.moves.length;
        await until(() => r.moves.length > ply || r.status !== 'playing' || r.stale,
            `the bots left alone in room ${r.id} (${r.game}, ${ply} moves) to play on`, 30000);
        count('bots playing on checked');
    }));
    await healthy();
    if (anomalies.length) fail(anomalies.join('\n'));
}

function summary() {
    const over = [...rooms.values()].filter((r) => r.status === 'over').length;
    const kinds = Object.keys(counts).sort().map((k) => `${k.replace(/ /g, '_')}=${counts[k]}`).join(' ');
    return `chaos ok seed=${SEED} steps=${stepNo} games=${rooms.size} finished=${over} ${kinds}`;
}

async function main() {
    console.log(`chaos: seed ${SEED} (CHAOS_SEED=${SEED} reproduces), ${SECONDS} s, server ${BIN}`);
    await start();
    await connectControl();
    spectator = { conn: await new Conn('spectator').open() };
    spectator.token = (await spectator.conn.ask({ type: 'hello' })).token;
    // four guests and five accounts
    for (let i = 0; i < 4; i++) { const p = { account: false }; people.push(p); await connectPerson(p); }
    for (let i = 0; i < 5; i++) {
        const name = `chaos${SEED % 10000}_${i}`;
        const r = await api(srv, 'POST', '/api/register', { username: name, password: 'correct horse' });
        if (r.status !== 200) fail(`register ${name}: ${r.status} ${r.text}`);
        const p = { account: true, name, cookie: r.cookie };
        people.push(p);
        await connectPerson(p);
    }
    // every game and every level at least once, then at random
    for (let i = 0; i < GAMES.length; i++) {
        const p = people[i % people.length];
        const level = 1 + ((i + SEED) % 8);
        await step('bot_game', async () => {
            const m = await p.conn.ask({ type: 'bot_game', game: GAMES[i], level, base_ms: 0, inc_ms: 0 });
            expectOk(m, [], 'bot_game');
            await waitRoomState(m.room);
            count(`level ${level}`);
            return `${p.name} vs bot-level-${level} ${GAMES[i]} room ${m.room}`;
        });
    }
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
        const kind = choose();
        if (await step(kind, actions[kind])) continue;
        // nothing to do of that kind: another one, in an order of the seed's
        let done = false;
        const others = weights().map(([k]) => k).filter((k) => k !== kind && k !== 'sigterm' && k !== 'kill9');
        while (others.length && !done) done = await step(...(([k]) => [k, actions[k]])(others.splice(Math.floor(rand() * others.length), 1)));
        if (!done) { count('idle'); await sleep(200); }
    }
    await step('finish', async () => { await finishAll(); return 'every game resigned by its people; bots alone go on'; });
    await step('sigterm', actions.sigterm);
    stopping = true;
    srv.proc.kill('SIGTERM');
    const st = await srvExit;
    if (st.code !== 0) fail(`the last SIGTERM: exit ${st.code} (signal ${st.sig})`);
    console.log(summary());
}

try {
    await main();
    process.exit(0);
} catch (e) {
    console.log(`\nCHAOS FAILED seed=${SEED} at step ${stepNo + (e instanceof ChaosFailure ? 0 : 0)}: ${e.message || e}`);
    console.log('last steps:\n  ' + steps.slice(-25).join('\n  '));
    console.log(`reproduce: CHAOS_SEED=${SEED} CHAOS_SECONDS=${SECONDS} sh tests/chaos/run.sh`);
    const err = stderrAll();
    console.log('server stderr (the end):\n' + err.slice(-12000));
    if (srv) { stopping = true; srv.proc.kill('SIGKILL'); }
    console.log(`summary so far: ${summary().replace('chaos ok', 'chaos failed')}`);
    process.exit(1);
}
