// The whole server killed with SIGKILL at random moments, KILL_ROUNDS times
// (default 20) on one database, under live (clocks running) and
// correspondence games played over real WebSockets (issue 18, "Proofs").
// Every move the server acknowledged (its `move` event: broadcast only once
// durable, PROTOCOL.md) must be in the room after the restart; every stored
// game (GET /api/games/<id>) must replay through the rules core
// (build/rules.wasm via web-client/js/rules.js) to the position the restarted
// server restored; and at the end every game is finished (resigned), killed
// once more, and its result read back from the store.
//
// tests/store/run.sh kills build/store_load (the store alone) under a burst
// of moves; this kills the real server, so that the loop, the grouped
// commits, the restore at start-up and the reconnection with the same tokens
// are all in the path.
//
// Clients say "board":false and keep each position with the rules core
// themselves, as bots and build/loadgen do: a move event that the local
// rules refuse fails the test too. The seed (KILL_SEED) picks the moves and
// the moments of the kills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { startServer, Client, rng } from '../integration/lib.mjs';
import { loadRules } from '../../web-client/js/rules.js';

const ROUNDS = Number(process.env.KILL_ROUNDS || 20);
const SEED = Number(process.env.KILL_SEED || 18);
const rules = await loadRules(readFileSync(new URL('../../build/rules.wasm', import.meta.url)));
const rand = rng(SEED);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const pick = (a) => a[Math.floor(rand() * a.length)];

// Live games have clocks (10 min + 2 s: they run, none falls during the
// test; the time the server is down is not charged). Correspondence games
// are between accounts.
const LIVE_TC = { base_ms: 600000, inc_ms: 2000 };
const CORR_TC = { corr: { days: 3 } };
const TABLES = [
    ['ultima', 2, 'live'], ['ultima1968', 2, 'live'], ['rollerball', 2, 'live'], ['ant2', 2, 'live'],
    ['yalta', 3, 'live'], ['ant3', 3, 'live'], ['ultima', 2, 'live'], ['rollerball', 2, 'live'],
    ['ultima', 2, 'corr'], ['rollerball', 2, 'corr'], ['ant2', 2, 'corr'], ['ultima1968', 2, 'corr'],
];

// Reasons a game's rules end it (the others are decided by people or
// clocks).
const RULES_REASONS = new Set(['checkmate', 'stalemate', 'repetition', 'ply_limit', 'centre', 'journey',
    'last_queen']);

// A client that handles events itself, as they come: the inbox of Client
// keeps what the test waits for (replies), not the tens of thousands of
// move events.
class Player extends Client {
    constructor(url, who, onEvent) {
        super(url, who.cookie ? { Cookie: who.cookie } : {});
        this.who = who;
        this.onEvent = onEvent;
    }
    async open() {
        await super.open();
        this.ws.removeAllListeners('message');
        this.ws.on('error', () => {}); // the server is killed under it
        this.ws.on('message', (data) => {
            const msg = JSON.parse(data.toString());
            if (msg.type === 'event' || msg.type === 'game_started') this.onEvent(this, msg);
            if (msg.type === 'error' && msg.request === 'move') moveRefused(this.table, msg);
            if (msg.type === 'event') return;
            this.inbox.push(msg);
            this.wake();
        });
        return this;
    }
}

let srv = null;
let epoch = 0; // a new one at each kill: work of an older epoch stops
let running = false; // moves are being played
const rooms = new Map(); // room -> { id, table, acked: [move texts by ply-1], result }
const tables = [];
let ackedTotal = 0;
let rateLimited = 0;
let lostAtStart = 0;
const failures = [];

function roomRec(id, table) {
    let rec = rooms.get(id);
    if (!rec) {
        rec = { id, table, acked: [], result: null };
        rooms.set(id, rec);
    }
    return rec;
}

// Every player's events: acknowledgements are recorded from any of them
// (a broadcast move is durable); the table's first player drives its game.
function onEvent(player, ev) {
    const table = player.table;
    if (ev.type === 'game_started') {
        roomRec(ev.room, table);
        return;
    }
    const rec = roomRec(ev.room, table);
    if (ev.kind === 'move') {
        const had = rec.acked[ev.ply - 1];
        if (had === undefined) {
            rec.acked[ev.ply - 1] = ev.move;
            ackedTotal++;
        } else if (had !== ev.move) {
            failures.push(`room ${ev.room} ply ${ev.ply}: ${ev.move} acknowledged, ${had} before`);
        }
    }
    if ((ev.kind === 'move' || ev.kind === 'left' || ev.kind === 'end') && ev.result) rec.result = ev.result;
    if (player !== table.players[0] || ev.room !== table.room || ev.seq <= table.seq) return;
    table.seq = ev.seq;
    try {
        if (ev.kind === 'move') {
            assert.equal(table.g.status().toMove, ev.seat, `room ${ev.room}: seat ${ev.seat} moved out of turn`);
            table.g.play(ev.move);
        } else if (ev.kind === 'left') {
            table.g.leave(ev.seat, ev.reason);
            table.onLeft?.(ev.seat);
        }
        if (ev.kind === 'move' || ev.kind === 'left') {
            const st = table.g.status();
            if (ev.result === null)
                assert.equal(st.toMove, ev.to_move, `room ${ev.room}: to_move after seq ${ev.seq}`);
            else if (RULES_REASONS.has(ev.result.reason))
                assert.equal(st.reason, ev.result.reason, `room ${ev.room}: the rules end it too`);
            table.inFlight = false;
        }
    } catch (e) {
        failures.push(`room ${ev.room}: ${e.message}`);
        return;
    }
    if (rec.result || ev.kind === 'end') {
        table.over = true;
        table.inFlight = false;
        if (running) nextGame(table, epoch);
        return;
    }
    if (running) play(table);
}

// A move refused: never, but for too many messages (the load is fast), in
// which case the move is sent again a little later.
function moveRefused(table, msg) {
    if (msg.code !== 'rate_limited') {
        failures.push(`room ${table.room}: move refused: ${JSON.stringify(msg)}`);
        return;
    }
    rateLimited++;
    const ep = epoch;
    setTimeout(() => {
        if (ep !== epoch) return;
        table.inFlight = false;
        play(table);
    }, 500);
}

// The player to move sends a random legal move of the local position.
function play(table) {
    if (table.over || table.inFlight || !running) return;
    const legal = table.g.legalMoves();
    if (legal.length === 0) return;
    table.inFlight = true;
    table.bySeat[table.g.status().toMove].send({ type: 'move', room: table.room, move: pick(legal) });
}

// The table's players start a new game (its first player seeks, the others
// accept). Lost quietly if the server is killed meanwhile.
async function nextGame(table, ep) {
    try {
        const [first, ...rest] = table.players;
        const tc = table.kind === 'corr' ? CORR_TC : LIVE_TC;
        let created = await first.request({ type: 'seek_create', game: table.game, ...tc });
        // Too many messages (the load is fast): asked again a little later.
        while (created.code === 'rate_limited' && ep === epoch && running) {
            rateLimited++;
            await new Promise((r) => setTimeout(r, 500));
            created = await first.request({ type: 'seek_create', game: table.game, ...tc });
        }
        assert.equal(created.type, 'seek_created', JSON.stringify(created));
        let started = null;
        for (const p of rest) {
            const r = await p.request({ type: 'seek_accept', seek: created.seek.id });
            if (r.type === 'game_started') started = r;
        }
        assert.ok(started, 'the last accept starts the game');
        const st = await first.waitFor((m) => m.type === 'room' && m.room === started.room, 'room state');
        for (const p of table.players) {
            const s = p === first ? st : await p.waitFor((m) => m.type === 'room' && m.room === started.room, 'room');
            p.seat = s.you;
        }
        if (ep !== epoch) return;
        adopt(table, st);
        play(table);
    } catch (e) {
        if (ep === epoch && running) failures.push(`table ${table.game}: new game: ${e.message}`);
    }
}

// Make st (a room state) the table's game; g: the game replayed from its
// first move (a position string alone has no history: repetitions).
function adopt(table, st, g = null) {
    table.g?.free();
    table.room = st.room;
    table.seq = st.seq;
    table.g = g || rules.newGame(st.game, st.position);
    table.over = st.status !== 'playing';
    table.inFlight = false;
    table.bySeat = [];
    for (const p of table.players) table.bySeat[p.seat] = p;
    roomRec(st.room, table);
}

async function register(name) {
    const r = await fetch(`${srv.http}/api/register`, {
        method: 'POST', body: JSON.stringify({ username: name, password: 'correct horse' }),
        headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(r.status, 200, await r.text());
    return r.headers.get('set-cookie').split(';')[0];
}

// Open a connection for `who` (a guest's token, or an account's cookie).
async function open(who, table) {
    const p = await new Player(srv.url, who, onEvent).open();
    p.table = table;
    const w = await p.hello({ ...(who.token ? { token: who.token } : {}), board: false });
    // A guest holding no seat in a stored game in progress is not kept
    // across a restart (a new token then); one that does is, and its seats
    // with it (checked by reconnectAndCheck).
    if (who.cookie) assert.equal(w.account, who.name);
    who.token = w.token;
    return p;
}

async function storedGame(id) {
    const r = await fetch(`${srv.http}/api/games/${id}`);
    assert.equal(r.status, 200, `GET /api/games/${id}`);
    return r.json();
}

// The stored game replayed through the rules core: every move legal and by
// the seat the rules say is to move, leaves at their place, each move's
// `changes` leading to the pieces the rules have, the stored `to_move`, and
// a result the rules agree with when the rules ended the game. Returns the
// local game (the caller frees it).
function replay(j) {
    const what = `stored game ${j.id} (${j.variant})`;
    const g = rules.newGame(j.variant, j.position || undefined);
    const board = new Map(j.start.map((p) => [p.name, `${p.letter}${p.owner}`]));
    let li = 0;
    const leavesBefore = (ply) => {
        for (; li < j.leaves.length && j.leaves[li].after_ply === ply; li++)
            g.leave(j.leaves[li].player, j.leaves[li].reason);
    };
    for (const [i, m] of j.moves.entries()) {
        assert.equal(m.ply, i, `${what}: plies contiguous`);
        leavesBefore(i);
        assert.equal(m.player, g.status().toMove, `${what}: ply ${i} by the seat to move`);
        assert.doesNotThrow(() => g.play(m.move), `${what}: ply ${i} ${m.move} legal`);
        for (const [cell, piece] of m.changes) {
            if (piece) board.set(cell, `${piece.letter}${piece.owner}`);
            else board.delete(cell);
        }
    }
    leavesBefore(j.moves.length);
    assert.equal(li, j.leaves.length, `${what}: every leave after a stored ply`);
    const pieces = new Map(g.pieces().map((p) => [p.cell, `${p.letter}${p.owner}`]));
    assert.deepEqual(board, pieces, `${what}: the moves' changes give the rules' pieces`);
    const st = g.status();
    if (j.status === 'playing') {
        assert.equal(st.over, false, `${what}: playing, and so by the rules`);
        assert.equal(j.to_move, st.toMove, `${what}: to_move`);
    } else if (RULES_REASONS.has(j.result.reason)) {
        assert.equal(st.over, true, `${what}: over by ${j.result.reason}, and so by the rules`);
        assert.equal(st.reason, j.result.reason, `${what}: reason`);
        const w = (x) => (x === -1 || x === undefined ? null : x);
        assert.equal(w(st.winner), w(j.result.winner), `${what}: winner`);
    }
    return g;
}

// After a restart: every table's players back with the same tokens; every
// acknowledged move in its room; stored games replay to the restored
// position; the tables' games resume.
async function reconnectAndCheck(round) {
    const ep = epoch;
    for (const table of tables) {
        const players = [];
        for (const p of table.players) {
            const np = await open(p.who, table);
            np.seat = p.seat;
            np.welcomeRooms = np.welcome.rooms;
            players.push(np);
        }
        table.players = players;
        let st = null;
        if (table.room !== undefined) {
            // Every player joins (to receive the events); the first one's
            // state is checked.
            for (const p of players) {
                const r = await p.request({ type: 'join', room: table.room });
                if (r.type === 'room') {
                    if (r.status === 'playing')
                        assert.equal(r.you, p.seat, `room ${r.room}: ${p.who.name} back in its seat`);
                    p.seat = r.you;
                    st ??= r;
                } else {
                    assert.equal(r.code, 'unknown_room', JSON.stringify(r));
                }
            }
        }
        const rec = table.room !== undefined ? rooms.get(table.room) : null;
        if (st) {
            const moves = st.moves.map((m) => m.move);
            assert.ok(moves.length >= rec.acked.length,
                `round ${round}, room ${st.room}: ${rec.acked.length} acknowledged, ${moves.length} restored`);
            assert.deepEqual(moves.slice(0, rec.acked.length), rec.acked,
                `round ${round}, room ${st.room}: every acknowledged move restored`);
            // Moves stored but not yet broadcast when the server died are
            // known from now on.
            rec.acked = moves;
            if (st.result) rec.result = st.result;
            const j = await storedGame(st.room);
            assert.deepEqual(j.moves.map((m) => m.move), moves, `room ${st.room}: the store has the room's moves`);
            const g = replay(j);
            assert.equal(g.position(), st.position, `room ${st.room}: the store replays to the restored position`);
            // The seats still playing list the room in welcome.
            for (const p of players) {
                if (st.status === 'playing' && st.seats[p.seat].left === null)
                    assert.ok(p.welcomeRooms.includes(st.room), `room ${st.room} in ${p.who.name}'s welcome`);
            }
            adopt(table, st, g);
        } else if (rec && rec.acked.length === 0 && (await fetch(`${srv.http}/api/games/${rec.id}`)).status === 404) {
            // Started (game_started is sent at once) but its creation was not
            // yet written when the server died, so no move of it was
            // acknowledged either: gone, as PROTOCOL.md ("Restarts") says.
            rooms.delete(rec.id);
            lostAtStart++;
            table.over = true;
        } else if (rec) {
            // Not in memory: it ended (by a move or a leave the server stored
            // before dying); the store has it with every acknowledged move.
            const j = await storedGame(rec.id);
            assert.equal(j.status, 'finished', `room ${rec.id} unknown after the restart, so finished`);
            assert.deepEqual(j.moves.slice(0, rec.acked.length).map((m) => m.move), rec.acked);
            rec.acked = j.moves.map((m) => m.move);
            rec.result ??= { ...j.result, winner: j.result.winner ?? -1 };
            replay(j).free();
            table.over = true;
        }
        // A game that started without our knowing (game_started lost with
        // the server) shows up in welcome: it is the table's.
        for (const p of players) {
            for (const id of p.welcomeRooms) {
                if (id === table.room) continue;
                assert.ok(table.over || table.room === undefined,
                    `${p.who.name} sits in room ${id} besides ${table.room}`);
                const r = await table.players[0].request({ type: 'join', room: id });
                assert.equal(r.type, 'room');
                for (const q of players.slice(1)) {
                    const s = await q.request({ type: 'join', room: id });
                    q.seat = s.you;
                }
                players[0].seat = r.you;
                adopt(table, r);
            }
        }
    }
    if (ep !== epoch) throw new Error('killed during the check');
}

async function kill() {
    running = false;
    epoch++;
    process.kill(srv.pid, 'SIGKILL');
    const st = await srv.stop(true);
    assert.equal(st.sig, 'SIGKILL');
}

test(`SIGKILL ${ROUNDS} times under live and correspondence load: nothing acknowledged is lost, stored games replay, every game finishes`, async (t) => {
    srv = await startServer();
    const dir = srv.dir;
    const t0 = Date.now();
    try {
        let n = 0;
        for (const [game, players, kind] of TABLES) {
            const table = { game, kind, players: [], over: true };
            for (let i = 0; i < players; i++) {
                const who = { name: `k${n++}_${kind}` };
                if (kind === 'corr') who.cookie = await register(who.name);
                table.players.push(await open(who, table));
            }
            tables.push(table);
        }
        const kills = [];
        for (let round = 1; round <= ROUNDS; round++) {
            running = true;
            for (const table of tables) {
                if (table.over) nextGame(table, epoch);
                else play(table);
            }
            // Mostly in the thick of play, sometimes right as it resumes.
            const wait = rand() < 0.2 ? Math.floor(rand() * 60) : 300 + Math.floor(rand() * 1500);
            const before = ackedTotal;
            await sleep(wait);
            await kill();
            kills.push({ wait, acked: ackedTotal - before });
            srv = await startServer([], { dir });
            await reconnectAndCheck(round);
            assert.deepEqual(failures, []);
        }
        t.diagnostic(`kills after (ms, moves acknowledged in the round): ${kills.map((k) => `${k.wait}/${k.acked}`).join(' ')}`);

        // Every game still going is finished: its seats resign in turn until
        // there is a result.
        running = false;
        let resigned = 0;
        for (const table of tables) {
            if (table.over) continue;
            resigned++;
            for (let seat = 0; seat < table.bySeat.length && !table.over; seat++) {
                const left = new Promise((ok) => { table.onLeft = (s) => { if (s === seat) ok(); }; });
                table.bySeat[seat].send({ type: 'resign', room: table.room });
                let timer;
                await Promise.race([left, new Promise((ok, fail) => {
                    timer = setTimeout(() => fail(new Error(`room ${table.room}: no left event`)), 15000);
                })]);
                clearTimeout(timer);
            }
            assert.ok(table.over, `room ${table.room} over`);
            // Three-player Ant Chess is won by the last player with a queen
            // (rules/antchess.md): a resignation that leaves one queen holder
            // (another queen taken in play) ends it by last_queen.
            const reasons = table.game === 'ant3' ? ['resignation', 'last_queen'] : ['resignation'];
            assert.ok(reasons.includes(rooms.get(table.room).result?.reason),
                `room ${table.room} (${table.game}): ${rooms.get(table.room).result?.reason}`);
        }
        // The results acknowledged are durable: one more kill, then read
        // every game back.
        await kill();
        srv = await startServer([], { dir });
        let finished = 0;
        for (const rec of rooms.values()) {
            const j = await storedGame(rec.id);
            assert.equal(j.status, 'finished', `game ${rec.id} finished (table ${rec.table.game} ${rec.table.kind} ` +
                `at room ${rec.table.room}, ${JSON.stringify(j).slice(0, 300)}`);
            assert.ok(j.moves.length >= rec.acked.length);
            assert.deepEqual(j.moves.slice(0, rec.acked.length).map((m) => m.move), rec.acked,
                `game ${rec.id}: every acknowledged move`);
            if (rec.result) {
                assert.equal(j.result.reason, rec.result.reason, `game ${rec.id}: the result acknowledged`);
                assert.equal(j.result.winner, rec.result.winner === -1 ? null : rec.result.winner);
            }
            replay(j).free();
            finished++;
        }
        const games = tables.length;
        assert.ok(finished >= games, `${finished} games`);
        // And no game the test does not know of is left going (ids are
        // given in order, never reused).
        const maxId = Math.max(...rooms.keys());
        for (let id = 1; id <= maxId + 3; id++) {
            if (rooms.has(id)) continue;
            const r = await fetch(`${srv.http}/api/games/${id}`);
            if (r.status === 404) { await r.text(); continue; }
            assert.equal((await r.json()).status, 'finished', `game ${id}, unknown to the test, finished`);
        }
        assert.ok(ackedTotal > ROUNDS * 20, `${ackedTotal} moves acknowledged in all`);
        t.diagnostic(`${ROUNDS + 1} kills, ${ackedTotal} moves acknowledged (${rateLimited} sent again after rate_limited), ` +
            `${lostAtStart} games lost in their first milliseconds, before any move, ${finished} games checked and finished (${resigned} by resigning at the end), ` +
            `${((Date.now() - t0) / 1000).toFixed(1)} s`);
        assert.deepEqual(failures, []);
    } finally {
        running = false;
        for (const table of tables) for (const p of table.players) p.ws?.terminate();
        await srv.stop(true);
        rmSync(dir, { recursive: true, force: true });
    }
});
