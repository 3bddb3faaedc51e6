// The time from opening a WebSocket with a session cookie to its welcome
// (the cookie's account looked up, then hello answered), and of a log in,
// sequentially, N times each: what a queued look-up costs a player.
// CHAMELEON_BIN=BIN node tests/bench/cookie_latency.mjs DB [N]   (DB: a file or a URL)
import { startServer, Client } from '../integration/lib.mjs';

const [db, nArg] = process.argv.slice(2);
const n = Number(nArg || 300);
const srv = await startServer([], { db });
const post = (path, body) => fetch(srv.http + path, {
    method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' },
});
const reg = await post('/api/register', { username: 'bench' + process.pid, password: 'correct horse' });
const cookie = reg.headers.get('set-cookie').split(';')[0];
const pct = (xs, p) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ws = [];
for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const c = await new Client(srv.url, { Cookie: cookie }).open();
    const w = await c.request({ type: 'hello' });
    ws.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!w.account) throw new Error('no account in welcome');
    c.close();
}
const prefs = [];
for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = await fetch(srv.http + '/api/prefs', { headers: { Cookie: cookie } });
    await r.text();
    // A refusal (a rate limit, a lost session) is not the time of a read.
    if (!r.ok) throw new Error(`GET /api/prefs ${i + 1} of ${n}: HTTP ${r.status}`);
    prefs.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
console.log(`welcome with a cookie: p50 ${pct(ws, 0.5).toFixed(2)} ms, p99 ${pct(ws, 0.99).toFixed(2)} ms;` +
    ` GET /api/prefs: p50 ${pct(prefs, 0.5).toFixed(2)} ms, p99 ${pct(prefs, 0.99).toFixed(2)} ms (n=${n})`);
await srv.stop();
