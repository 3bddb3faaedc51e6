// The UCI engine program, end to end: a child process fed lines, its
// answers read line by line. Bestmoves are checked against the rules core
// through build/perft (an illegal move in --moves exits 2).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

const ENGINE = process.env.ENGINE_BIN;
const CHECK = process.env.ENGINE_CHECK_BIN;
const PERFT = process.env.PERFT_BIN;
const MATCH = process.env.MATCH_BIN;
const GAMES = ['ultima', 'ultima1968', 'rollerball', 'yalta', 'ant2', 'ant3'];
const PLIES = 6;

// Every engine started by a test; killed after it, whatever happened.
let started = [];
afterEach(() => {
    for (const e of started) if (e.proc.exitCode === null) e.proc.kill('SIGKILL');
    started = [];
});

class Engine {
    constructor(bin) {
        this.proc = spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
        started.push(this);
        this.lines = [];
        this.waiters = [];
        this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
        createInterface({ input: this.proc.stdout }).on('line', (line) => {
            this.lines.push(line);
            this.waiters = this.waiters.filter((w) => !w.check());
        });
    }
    send(line) {
        this.proc.stdin.write(line + '\n');
    }
    // Resolve with the first line from index `from` on that matches.
    waitFor(pred, ms = 20000, from = 0) {
        return new Promise((resolve, reject) => {
            const w = {
                check: () => {
                    for (let i = from; i < this.lines.length; i++) {
                        if (pred(this.lines[i])) {
                            clearTimeout(w.timer);
                            resolve(this.lines[i]);
                            return true;
                        }
                    }
                    return false;
                },
            };
            if (w.check()) return;
            w.timer = setTimeout(() => {
                this.waiters = this.waiters.filter((x) => x !== w);
                reject(new Error(`timed out after ${ms} ms; output:\n${this.lines.slice(from).join('\n')}`));
            }, ms);
            this.waiters.push(w);
        });
    }
    // Send a line and wait for the answer that starts with prefix.
    async ask(line, prefix, ms) {
        const from = this.lines.length;
        this.send(line);
        return this.waitFor((l) => l.startsWith(prefix), ms, from);
    }
    // Lines printed in answer to `line`, up to the readyok of an isready.
    async answers(line) {
        const from = this.lines.length;
        this.send(line);
        this.send('isready');
        await this.waitFor((l) => l === 'readyok', 20000, from);
        return this.lines.slice(from, this.lines.lastIndexOf('readyok'));
    }
    async quit() {
        this.send('quit');
        const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
        const code = await this.exited;
        clearTimeout(timer);
        return code;
    }
}

function legal(game, moves) {
    const r = spawnSync(PERFT, [game, '1', '--moves', moves.join(',')], { encoding: 'utf8' });
    if (r.error) throw new Error(`cannot run ${PERFT}: ${r.error.message}`);
    return { ok: r.status === 0, why: (r.stderr || '') + (r.stdout || '') };
}

test('uci handshake lists every game and the options', async () => {
    const e = new Engine(CHECK);
    await e.ask('uci', 'uciok');
    const variant = e.lines.find((l) => l.startsWith('option name UCI_Variant type combo default ultima'));
    assert.ok(variant, e.lines.join('\n'));
    for (const g of GAMES) assert.ok(variant.includes(` var ${g}`), g);
    assert.ok(e.lines.some((l) => l.startsWith('option name Skill Level type spin default 8 min 1 max 8')));
    assert.ok(e.lines.some((l) => l.startsWith('option name Hash type spin')));
    assert.ok(e.lines.some((l) => l.startsWith('option name ThreePlayerSearch type combo')));
    assert.ok(e.lines.some((l) => l.startsWith('id name chameleon')));
    await e.ask('isready', 'readyok');
    assert.equal(await e.quit(), 0);
});

for (const game of GAMES) {
    test(`${game}: ${PLIES} plies of bestmoves, each legal`, async () => {
        const e = new Engine(CHECK);
        await e.ask('uci', 'uciok');
        assert.deepEqual(await e.answers(`setoption name UCI_Variant value ${game}`), []);
        assert.deepEqual(await e.answers('ucinewgame'), []);
        const moves = [];
        for (let ply = 0; ply < PLIES; ply++) {
            const pos = `position startpos${moves.length ? ' moves ' + moves.join(' ') : ''}`;
            assert.deepEqual(await e.answers(pos), []);
            // Alternate the ways of limiting the search.
            const go = ['go depth 2', 'go nodes 3000', 'go movetime 50',
                        'go wtime 2000 btime 2000 winc 0 binc 0',
                        'go p1time 2000 p2time 2000 p3time 2000', 'go depth 1'][ply];
            const from = e.lines.length;
            const best = await e.ask(go, 'bestmove ');
            const info = e.lines.slice(from).find((l) => l.startsWith('info depth '));
            assert.match(info, /^info depth \d+ seldepth \d+ score (cp|mate) -?\d+ nodes \d+ nps \d+ time \d+/);
            const move = best.split(' ')[1];
            assert.notEqual(move, '(none)');
            moves.push(move);
            const r = legal(game, moves);
            assert.ok(r.ok, `${game}: ${moves.join(' ')}: ${r.why}`);
        }
        assert.equal(await e.quit(), 0);
    });
}

test('malformed commands: one error line each, the position stays', async () => {
    const e = new Engine(CHECK);
    await e.ask('uci', 'uciok');
    await e.answers('position startpos moves e2-e4');
    const before = (await e.answers('d'))[0];
    assert.match(before, /variant ultima moves 1 to_move black/);
    for (const bad of [
        'frobnicate',
        'setoption name UCI_Variant value chess',
        'setoption name Skill Level value 12',
        'setoption name Nonsense value 1',
        'position startpos moves e2-e4 e2-e4',
        'position startpos moves e7-e5 e2-e4',
        'position fen this is not a position',
        'position sideways',
        'go depth -1',
        'go sideways 3',
    ]) {
        const out = await e.answers(bad);
        assert.equal(out.length, 1, `${bad}: ${out.join(' | ')}`);
        assert.match(out[0], /^info string error: \S/, bad);
    }
    assert.equal((await e.answers('d'))[0], before);
    assert.equal(await e.quit(), 0);
});

test('a position string with spaces, then moves', async () => {
    const e = new Engine(CHECK);
    await e.answers('setoption name UCI_Variant value yalta');
    await e.answers('position startpos moves e2-e4');
    const fen = (await e.answers('d'))[0].split(' fen ')[1];
    assert.ok(fen.includes(' '), fen);
    assert.deepEqual(await e.answers(`position fen ${fen} moves d7-d5`), []);
    assert.match((await e.answers('d'))[0], /moves 1 to_move black/);
    const best = await e.ask('go depth 1', 'bestmove ');
    assert.ok(legal('yalta', ['e2-e4', 'd7-d5', best.split(' ')[1]]).ok, best);
    assert.equal(await e.quit(), 0);
});

test('go infinite answers isready while thinking and stops at once on stop', async () => {
    const e = new Engine(ENGINE);
    await e.ask('uci', 'uciok');
    await e.answers('position startpos moves e2-e4');
    const from = e.lines.length;
    e.send('go infinite');
    await new Promise((r) => setTimeout(r, 400));
    assert.ok(!e.lines.slice(from).some((l) => l.startsWith('bestmove')), 'bestmove before stop');
    let t0 = Date.now();
    await e.ask('isready', 'readyok', 2000);
    assert.ok(Date.now() - t0 < 500, `readyok took ${Date.now() - t0} ms`);
    // A command that would change the position is refused while it thinks.
    const refused = await e.ask('position startpos', 'info string error:', 2000);
    assert.match(refused, /stop/);
    t0 = Date.now();
    const best = await e.ask('stop', 'bestmove ', 3000);
    const took = Date.now() - t0;
    assert.ok(took < 300, `stop took ${took} ms (aim: about 100)`);
    assert.ok(legal('ultima', ['e2-e4', best.split(' ')[1]]).ok, best);
    // Stop then go at once: the go waits for the first answer.
    let n = e.lines.length;
    e.send('go infinite');
    e.send('stop');
    e.send('go depth 1');
    await e.waitFor(() => e.lines.slice(n).filter((l) => l.startsWith('bestmove')).length === 2, 3000, n);
    assert.ok(!e.lines.slice(n).some((l) => l.startsWith('info string error')), e.lines.slice(n).join('\n'));
    // Stop right after go (before the search has started) is not lost.
    t0 = Date.now();
    e.send('go infinite');
    await e.ask('stop', 'bestmove ', 3000);
    assert.ok(Date.now() - t0 < 1000, `stop right after go took ${Date.now() - t0} ms`);
    assert.equal(await e.quit(), 0);
});

test('go movetime 200 answers on time', async () => {
    const e = new Engine(ENGINE);
    await e.ask('uci', 'uciok');
    for (const game of ['ultima', 'yalta']) {
        await e.answers(`setoption name UCI_Variant value ${game}`);
        await e.answers('position startpos');
        const t0 = Date.now();
        const best = await e.ask('go movetime 200', 'bestmove ', 5000);
        const took = Date.now() - t0;
        assert.ok(took < 200 + 600, `${game}: movetime 200 answered after ${took} ms`);
        assert.ok(legal(game, [best.split(' ')[1]]).ok, best);
    }
    assert.equal(await e.quit(), 0);
});

test('quit during a search and end of input both end the program', async () => {
    let e = new Engine(ENGINE);
    e.send('go infinite');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await e.quit(), 0);
    e = new Engine(ENGINE);
    e.send('go depth 2');
    e.proc.stdin.end();
    assert.equal(await e.exited, 0);
});

// The match tool: short matches end with one parsable result line whose
// averages share one point a game; bad arguments exit 2.
test('match: two and three players, result line, usage errors', () => {
    const run = (args) => spawnSync(MATCH, args, { encoding: 'utf8' });
    const parse = (out) => {
        const line = out.trim().split('\n').pop();
        assert.match(line, /^result /);
        return Object.fromEntries(line.split(' ').slice(1).map((kv) => kv.split('=')));
    };
    let r = run(['--game', 'rollerball', '--games', '4', '--depth', '1', '--openings', '2',
                 '--max-plies', '80', '-j', '2', 'greedy', 'level:1']);
    assert.equal(r.status, 0, r.stderr);
    let res = parse(r.stdout);
    assert.equal(res.games, '4');
    assert.equal(res.players, 'greedy,level:1');
    assert.equal(res.errors, '0');
    let avg = res.avg.split(',').map(Number);
    assert.ok(Math.abs(avg[0] + avg[1] - 1) < 0.01, res.avg);
    assert.ok('elo' in res && 'err' in res);
    assert.equal((r.stdout.match(/^game \d+\/4:/gm) || []).length, 4);

    r = run(['--game', 'yalta', '--games', '5', '--depth', '1', '--max-plies', '60',
             '--players', 'random,greedy,brs:1']);
    assert.equal(r.status, 0, r.stderr);
    res = parse(r.stdout);
    assert.equal(res.games, '6'); // rounded up to every seating
    avg = res.avg.split(',').map(Number);
    assert.ok(Math.abs(avg[0] + avg[1] + avg[2] - 1) < 0.01, res.avg);
    assert.ok('elo_0_1' in res && 'elo_0_2' in res && 'elo_1_2' in res);

    assert.equal(run(['--game', 'chess', 'random', 'random']).status, 2);
    assert.equal(run(['--game', 'yalta', 'random', 'random']).status, 2);
    assert.equal(run(['--game', 'ultima', 'random', 'level:9']).status, 2);
    assert.equal(run(['--game', 'ultima', '--games', 'x', 'random', 'random']).status, 2);

    r = run(['--bench', '--game', 'rollerball', '--movetime', '50']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^bench game=rollerball method=- depth=\d+ seldepth=\d+ nodes=\d+ ms=\d+ nps=\d+ best=\S+ eval=(yes|no)$/m);
});
