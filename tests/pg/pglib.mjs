// What the tests on PostgreSQL share (tests/pg, tests/e2e/cluster.test.mjs):
// a query through psql, a pause, and a wait for a condition.
import { execFileSync } from 'node:child_process';

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
