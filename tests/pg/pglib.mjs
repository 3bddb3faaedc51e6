// What the tests on PostgreSQL share (tests/pg, tests/e2e/cluster.test.mjs):
// a query through psql, a pause, a wait for a condition, random plies, and
// a PostgreSQL of a file's own.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

// tests/tools/pg.sh with these arguments: what it prints, trimmed.
export const pgsh = (...args) => execFileSync('sh', [join(root, 'tests/tools/pg.sh'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

// A PostgreSQL of the calling file's own, for tests that stop or kill it
// (the others share tests/pg/run.sh's): started before the file's tests in
// a new folder named from prefix, stopped after them. pg.dir is that
// folder, for pgsh('createdb' | 'halt' | 'crash' | 'resume', pg.dir, ...).
export function ownPostgres(prefix) {
    const pg = { dir: null };
    before(() => {
        pg.dir = mkdtempSync(join(tmpdir(), prefix));
        pgsh('start', pg.dir);
    });
    after(() => pgsh('stop', pg.dir));
    return pg;
}

// Run sql on the database of url: its rows, one a line ("a|b" columns).
export const psql = (url, sql) => execFileSync('psql', [url, '-Atc', sql], { encoding: 'utf8' }).trim();

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// Ask cond (may be async) every 50 ms until it gives something true, and
// return that; fail with what after limitMs.
export async function until(what, cond, limitMs = 30000) {
    const end = Date.now() + limitMs;
    for (;;) {
        const v = await cond();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(50);
    }
}

// Random legal moves, n plies (or to the end): each one acknowledged once
// every player (bySeat: the clients by seat) received its event, and
// pushed on acked. Returns the last state.
export async function playPlies(bySeat, room, state, n, rand, acked) {
    for (let i = 0; i < n && state.result == null && state.legal.length > 0; i++) {
        const mv = state.legal[Math.floor(rand() * state.legal.length)];
        bySeat[state.to_move].send({ type: 'move', room, move: mv });
        const evs = [];
        for (const c of bySeat) evs.push(await c.event(room, 'move'));
        for (const e of evs) assert.equal(e.move, mv);
        acked.push(mv);
        state = evs[0];
    }
    return state;
}
