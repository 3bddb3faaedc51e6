// Forwarding under load, as `BENCH=nodes make bench` drives it
// (tests/bench/nodes.bench.sh): two nodes on one PostgreSQL and
// build/loadgen (C, real WebSocket clients, many games at once) with each
// game's players on the nodes --ports names. Both players on n2: every
// game is created on n1 (the lobby's node), every move forwarded there and
// every event relayed back; then one player on each node. No protocol
// error, every game's lease on n1, the relay carrying the moves; and
// loadgen's figures the bench reads are there (a move answered
// unknown_room is sent again and counted: docs/SCALING.md, "Several
// nodes, measured").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startServer, startPostgres } from '../integration/lib.mjs';
import { psql, sleep } from './pglib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const loadgen = join(root, 'build/loadgen');

let pg;
before(() => {
    pg = startPostgres();
});
after(() => pg.stop());

// loadgen's output as { name: value } (numbers where they are).
function run(args) {
    return new Promise((ok, fail) => {
        const p = spawn(loadgen, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '', err = '';
        p.stdout.on('data', (d) => { out += d; });
        p.stderr.on('data', (d) => { err += d; });
        const timer = setTimeout(() => p.kill('SIGKILL'), 60000);
        p.on('error', fail);
        p.on('exit', (code) => {
            clearTimeout(timer);
            const f = { code, stderr: err };
            for (const line of out.split('\n')) {
                const m = /^(\S+) (.*)$/.exec(line);
                if (m) f[m[1]] = Number.isNaN(Number(m[2])) ? m[2] : Number(m[2]);
            }
            ok(f);
        });
    });
}

async function metric(srv, name) {
    const text = await (await fetch(srv.http + '/metrics')).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

test('loadgen --ports: games on n1 played from n2, and from both nodes', async () => {
    assert.ok(existsSync(loadgen), `${loadgen} is missing: make (the release build) builds it`);
    const db = pg.db('chameleon_it_loadgen');
    const flags = ['--node'];
    const n1 = await startServer([...flags, 'n1'], { db });
    let n2;
    try {
        n2 = await startServer([...flags, 'n2'], { db });
        // n2 learns that n1 holds the lobby (read at once, then every ttl / 2).
        for (let i = 0; !/lobby's node.*node=n1/.test(n2.stderr()); i++) {
            assert.ok(i < 100, 'n2 never learnt the lobby node:\n' + n2.stderr().slice(-2000));
            await sleep(100);
        }

        const pub0 = await metric(n1, 'chameleon_relay_published_total');
        const copies0 = await metric(n1, 'chameleon_forward_copies_total');
        const remote = await run(['--ports', `${n2.port},${n2.port}`, '--games', '20', '--warmup', '1', '--seconds', '3']);
        assert.equal(remote.code, 0, JSON.stringify(remote));
        assert.equal(remote.errors, 0);
        assert.equal(remote.connection_errors, 0);
        assert.ok(remote.games_started >= 20, 'every pair started a game through n2');
        assert.ok(remote.moves >= 50, `moves ${remote.moves}`);
        assert.ok(remote.p50_us > 0 && remote.p99_us >= remote.p50_us, JSON.stringify(remote));
        // The figures the bench reads, and their bounds.
        assert.equal(typeof remote.unknown_room_retries, 'number');
        assert.ok(remote.unknown_room_games <= remote.games_started, JSON.stringify(remote));
        assert.equal(remote.warmup, 1);
        // Every game is n1's, each of its events relayed to n2's two
        // players: at least one message a move from n1 (one for both
        // players: server/fanout.c), carrying at least two copies.
        assert.equal(psql(db, "SELECT string_agg(DISTINCT node, ',') FROM room_leases"), 'n1');
        const pub1 = await metric(n1, 'chameleon_relay_published_total');
        const copies1 = await metric(n1, 'chameleon_forward_copies_total');
        assert.ok(pub1 - pub0 >= remote.moves, `n1 published ${pub1 - pub0} for ${remote.moves} moves`);
        assert.ok(copies1 - copies0 >= 2 * remote.moves, `${copies1 - copies0} copies for ${remote.moves} moves`);
        assert.ok(pub1 - pub0 < copies1 - copies0, 'fewer messages than copies');
        assert.equal(await metric(n2, 'chameleon_rooms'), 0, 'no room on n2');

        const split = await run(['--ports', `${n1.port},${n2.port}`, '--games', '20', '--warmup', '1', '--seconds', '2']);
        assert.equal(split.code, 0, JSON.stringify(split));
        assert.equal(split.errors, 0);
        assert.ok(split.games_started >= 20);
        assert.ok(split.moves >= 50, `moves ${split.moves}`);
        assert.equal(psql(db, "SELECT string_agg(DISTINCT node, ',') FROM room_leases"), 'n1');
    } finally {
        if (n2) assert.equal((await n2.stop()).code, 0, n2.stderr().slice(-3000));
        assert.equal((await n1.stop()).code, 0, n1.stderr().slice(-3000));
    }
});
