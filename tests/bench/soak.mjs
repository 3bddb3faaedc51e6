// The soak of `make bench` (BENCH=soak, tests/bench/soak.bench.sh): churn
// against a running server, with its RSS sampled. Pairs of visitors come
// and go, as fast as the server lets them: connect, hello (half of them new
// guests, half returning with a token from a pool), watch the lobby (one in
// four), one creates a private seek and the other accepts its invitation,
// they play a short game of random legal moves (board events carry the
// legal moves) with a line of chat, then one resigns, or (one game in ten)
// both just close mid-game, never to return, and the server ends it by
// abandonment (--abandon-seconds); then both leave.
//
//   node tests/bench/soak.mjs --port P --pid PID [--sessions N] [--pairs K]
//                             [--seed S] [--sample-ms MS]
//
// Prints one line per sample ("sample <s> <sessions> <rss_kb> <sqlite_kb>
// <new_guests> <heap_kb> <heap_system_kb>": the server's RSS, what SQLite
// holds (chameleon_store_memory_bytes of /metrics: its page caches fill up
// as the database grows), what malloc hands out and what it has taken
// from the system (chameleon_heap_bytes, chameleon_heap_system_bytes)) and, at
// the end, "sessions N", "games N", "moves N", "abandoned N", "errors N",
// "seconds S", then the server's gauges after the churn and an idle pause
// ("after_<gauge> N"). Exit 1 on any protocol error.
import { readFileSync } from 'node:fs';
import { Client, rng } from '../integration/lib.mjs';

// A visitor from its own loopback address (127.0.k.1 for pair k): a site's
// visitors come from many addresses, and limits per address must not turn
// the soak into a test of themselves.
class Visitor extends Client {
    constructor(address) {
        super(url);
        this.address = address;
    }
    wsOptions() {
        return { ...super.wsOptions(), localAddress: this.address };
    }
    async open() {
        const opened = super.open();
        this.ws.on('error', () => {}); // a reset later is seen as a close
        return opened;
    }
}

const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
};
const port = Number(arg('port'));
const pid = Number(arg('pid'));
const SESSIONS = Number(arg('sessions', 20000));
const PAIRS = Number(arg('pairs', 40));
const SAMPLE_MS = Number(arg('sample-ms', 2000));
const ABANDON_S = Number(arg('abandon-seconds', 2));
const RETURNING = Number(arg('returning', 0.5)); // share of visitors with a token
const LOBBY = Number(arg('lobby', 0.25)); // share of visitors watching the lobby
const ABANDON = Number(arg('abandon', 0.1)); // share of games left mid-game
const CHAT = arg('chat', '1') === '1';
const rand = rng(Number(arg('seed', 7)));
const url = `ws://127.0.0.1:${port}/`;
const http = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

const rssKb = () => Number(/VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
let sessions = 0, games = 0, moves = 0, abandoned = 0, errors = 0, newGuests = 0, chatLimited = 0;
const firstErrors = [];
const tokens = []; // returning visitors' tokens, not in use
const t0 = Date.now();

async function visitor(address) {
    const c = await new Visitor(address).open();
    const token = rand() < RETURNING && tokens.length ? tokens.splice(Math.floor(rand() * tokens.length), 1)[0] : null;
    const w = await c.hello(token ? { token } : {});
    if (w.type !== 'welcome') throw new Error(JSON.stringify(w));
    c.token = w.token;
    if (w.token !== token) newGuests++;
    if (rand() < LOBBY) await c.request({ type: 'lobby_watch' });
    return c;
}

async function leave(c) {
    c.close();
    await c.closed_();
    sessions++;
    if (tokens.length < 2000 && !c.gone) tokens.push(c.token);
}

// Errors are counted (and a few kept); the pair goes on with new visitors.
function failed(e) {
    errors++;
    if (firstErrors.length < 5) firstErrors.push(String(e.message || e).slice(0, 300));
}

async function game(address) {
    const a = await visitor(address);
    const b = await visitor(address);
    try {
        const s = await a.request({ type: 'seek_create', game: 'ultima', base_ms: 300000, inc_ms: 2000, private: true });
        if (s.type !== 'seek_created') throw new Error(JSON.stringify(s));
        const started = await b.request({ type: 'seek_accept', invite: s.invite });
        if (started.type !== 'game_started') throw new Error(JSON.stringify(started));
        const room = started.room;
        const sa = await a.waitFor((m) => m.type === 'room' && m.room === room, 'room a');
        const sb = await b.waitFor((m) => m.type === 'room' && m.room === room, 'room b');
        const bySeat = [];
        bySeat[sa.you] = a;
        bySeat[sb.you] = b;
        games++;
        const plies = 6 + Math.floor(rand() * 30);
        const abandon = rand() < ABANDON;
        let st = sa;
        for (let i = 0; i < plies && st.result === null; i++) {
            bySeat[st.to_move].send({ type: 'move', room, move: st.legal[Math.floor(rand() * st.legal.length)] });
            st = await a.event(room, 'move');
            await b.event(room, 'move');
            moves++;
            if (i === 2 && CHAT) {
                // The chat's own event, or the refusal of a returning
                // visitor's identity over its 5 lines per 10 s (a token
                // comes back within seconds when an hour is compressed).
                const id = a.nextId++;
                a.send({ type: 'chat', room, text: 'good game', id });
                const m = await a.waitFor((x) => x.re === id ||
                    (x.type === 'event' && x.room === room && x.kind === 'chat'), 'chat');
                if (m.type === 'error' && m.code === 'rate_limited') chatLimited++;
                else if (m.type === 'error') throw new Error(JSON.stringify(m));
                else await b.event(room, 'chat');
            }
            // The inboxes keep only what is still awaited.
            a.inbox.length = 0;
            b.inbox.length = 0;
        }
        if (abandon && st.result === null) {
            // Gone for good: a visitor who came back would be offered the
            // game again (welcome's rooms), and while it is connected the
            // game is not abandoned.
            abandoned++; // the server ends it after --abandon-seconds
            a.gone = b.gone = true;
        } else if (st.result === null) {
            bySeat[st.to_move].send({ type: 'resign', room });
            await a.event(room, 'left');
        }
    } catch (e) {
        failed(e);
    }
    await leave(a);
    await leave(b);
}

let begun = 0;
async function pair(k) {
    const address = `127.0.${1 + k}.1`;
    while (begun < SESSIONS) {
        begun += 2;
        try {
            await game(address);
        } catch (e) {
            failed(e);
        }
    }
}

async function gauges() {
    const text = await (await fetch(`${http}/metrics`)).text();
    const out = {};
    for (const name of ['connections', 'rooms', 'games_in_progress', 'seeks'])
        out[name] = Number(new RegExp(`^chameleon_${name} (\\d+)$`, 'm').exec(text)?.[1]);
    return out;
}

// The server's memory counts of /metrics, in kB: what SQLite holds
// (chameleon_store_memory_bytes), what malloc hands out (heap_bytes) and
// what it has taken from the system (heap_system_bytes).
async function memoryKb() {
    const text = await (await fetch(`${http}/metrics`)).text();
    const kb = (name) => Math.round(Number(new RegExp(`^chameleon_${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN) / 1024);
    return [kb('store_memory_bytes'), kb('heap_bytes'), kb('heap_system_bytes')];
}
async function sample() {
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    const n = sessions;
    const g = newGuests;
    const rss = rssKb();
    const [sql, heap, sys] = await memoryKb();
    console.log(`sample ${secs} ${n} ${rss} ${sql} ${g} ${heap} ${sys}`);
}
const sampler = setInterval(sample, SAMPLE_MS);
await sample();
await Promise.all(Array.from({ length: PAIRS }, (_, k) => pair(k)));
clearInterval(sampler);
const secs = (Date.now() - t0) / 1000;
await sample();
// Abandoned games end on the server's timers: wait for them, then sample
// once more.
await sleep((ABANDON_S + 3) * 1000);
const g = await gauges();
console.log(`idle ${rssKb()} ${(await memoryKb()).join(' ')}`);
for (const [k, v] of Object.entries(g)) console.log(`after_${k} ${v}`);
console.log(`sessions ${sessions}`);
console.log(`games ${games}`);
console.log(`moves ${moves}`);
console.log(`abandoned ${abandoned}`);
console.log(`errors ${errors}`);
console.log(`chat_limited ${chatLimited}`);
console.log(`seconds ${secs.toFixed(1)}`);
for (const e of firstErrors) console.error(`error: ${e}`);
process.exit(errors ? 1 : 0);
