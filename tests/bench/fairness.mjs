// Bots' searches shared between owners (issue 31, item 7): one identity
// keeps FLOOD games against level-8 bots thinking (its every move sends a
// level-8 search to the bot threads) while another plays a level-1 bot;
// the time from the second player's move to its bot's reply, alone and
// under the flood. Before the fair queue, one FIFO served searches in
// order of arrival: the level-1 reply waited behind every level-8 search
// queued before it. Prints one JSON line: { alone, flood } (each
// { n, p50, p90, max } in ms) and the flood's searches answered.
import { startServer, connect, rng } from '../integration/lib.mjs';

const FLOOD = Number(process.env.FLOOD || 10);
const PLIES = Number(process.env.PLIES || 16);
const rand = rng(31);

async function botGame(c, level) {
    const s = await c.request({ type: 'bot_game', game: 'ultima', level, seat: 0, base_ms: 0, inc_ms: 0 });
    if (s.type !== 'game_started') throw new Error(JSON.stringify(s));
    const st = await c.waitFor((m) => m.type === 'room' && m.room === s.room, 'room state');
    return { room: s.room, legal: st.legal };
}

const moveOf = (c, room) => c.waitFor((m) => m.type === 'event' && m.room === room &&
    (m.kind === 'move' || m.kind === 'left'), 'a move', 120000);

// PLIES of our moves against a level-1 bot: the time of each reply (ms).
async function replies(c) {
    let { room, legal } = await botGame(c, 1);
    const times = [];
    for (let i = 0; i < PLIES && legal && legal.length; i++) {
        const t0 = performance.now();
        c.send({ type: 'move', room, move: legal[Math.floor(rand() * legal.length)] });
        await moveOf(c, room); // ours
        const bot = await moveOf(c, room);
        times.push(performance.now() - t0);
        if (bot.kind !== 'move' || bot.result) break;
        legal = bot.legal;
    }
    c.send({ type: 'resign', room });
    return times;
}

function stats(t) {
    const s = [...t].sort((a, b) => a - b);
    const q = (p) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]);
    return { n: s.length, p50: q(0.5), p90: q(0.9), max: Math.round(s[s.length - 1]) };
}

const srv = await startServer(['--bot-threads', '2', '--bot-table-mb', '16'],
    { bin: process.env.CHAMELEON_BIN });
try {
    const alone = await replies(await connect(srv.url));
    // The flood: FLOOD games of one identity, each answered move by move
    // as soon as its level-8 bot replies, so that its searches never stop.
    const flooder = await connect(srv.url);
    let stop = false, answered = 0;
    const floods = [];
    for (let i = 0; i < FLOOD; i++) {
        const { room, legal } = await botGame(flooder, 8);
        floods.push((async () => {
            let l = legal;
            while (!stop && l && l.length) {
                flooder.send({ type: 'move', room, move: l[Math.floor(rand() * l.length)] });
                await moveOf(flooder, room);
                const bot = await moveOf(flooder, room);
                answered++;
                if (bot.kind !== 'move' || bot.result) break;
                l = bot.legal;
            }
        })().catch(() => {})); /* closed at the end */
    }
    await new Promise((ok) => setTimeout(ok, 2000)); // the threads busy, a queue behind them
    const flood = await replies(await connect(srv.url));
    stop = true;
    console.log(JSON.stringify({ alone: stats(alone), flood: stats(flood), flood_answered: answered, games: FLOOD }));
    flooder.close();
} finally {
    await srv.stop();
}
process.exit(0);
