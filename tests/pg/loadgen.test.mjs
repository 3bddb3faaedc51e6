// Forwarding under load, as `BENCH=nodes make bench` drives it
// (tests/bench/nodes.bench.sh): two nodes on one PostgreSQL and
// build/loadgen (C, real WebSocket clients, many games at once) with each
// game's players on the nodes --ports names. Both players on n2: every
// seek goes to n1 (the lobby's node) and its game is placed back on n2,
// the accepter's node (server/cluster/place.c); then creators on n1, accepters on
// n2: the games are n2's, every event relayed to n1's player. No protocol
// error, every game's lease on n2, the relay carrying the moves; and
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

test('loadgen --ports: games placed on the accepters\' node n2, played from n2 and from both nodes', async () => {
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
        // Every seek went to n1 (the lobby's node) and its game was placed
        // back on n2, the node of the player who filled it (place.c).
        assert.equal(psql(db, "SELECT string_agg(DISTINCT node, ',') FROM room_leases"), 'n2');
        assert.ok(await metric(n2, 'chameleon_rooms') > 0, 'the rooms on n2');
        assert.equal(await metric(n1, 'chameleon_rooms'), 0, 'no room on n1');

        // Creators on n1, accepters on n2: the games are n2's, each event
        // relayed to the player on n1 (at least a message a move from n2).
        const pub0 = await metric(n2, 'chameleon_relay_published_total');
        const copies0 = await metric(n2, 'chameleon_forward_copies_total');
        const split = await run(['--ports', `${n1.port},${n2.port}`, '--games', '20', '--warmup', '1', '--seconds', '2']);
        assert.equal(split.code, 0, JSON.stringify(split));
        assert.equal(split.errors, 0);
        assert.ok(split.games_started >= 20);
        assert.ok(split.moves >= 50, `moves ${split.moves}`);
        assert.equal(psql(db, "SELECT string_agg(DISTINCT node, ',') FROM room_leases"), 'n2');
        const pub1 = await metric(n2, 'chameleon_relay_published_total');
        const copies1 = await metric(n2, 'chameleon_forward_copies_total');
        assert.ok(pub1 - pub0 >= split.moves, `n2 published ${pub1 - pub0} for ${split.moves} moves`);
        assert.ok(copies1 - copies0 >= split.moves, `${copies1 - copies0} copies for ${split.moves} moves`);
    } finally {
        if (n2) assert.equal((await n2.stop()).code, 0, n2.stderr().slice(-3000));
        assert.equal((await n1.stop()).code, 0, n1.stderr().slice(-3000));
    }
});
