// Not a test (run.sh runs *.test.mjs only): the figure of PROTOCOL.md,
// Limits, "Lobby updates". 1,000 lobby watchers while one socket creates
// and cancels seeks up to 80 a second for 5 s; prints the pairs a second
// reached, the messages a second the watchers received and /healthz
// latency. CHAMELEON_BIN=../../build/chameleon node lobby-storm.measure.mjs
import { startServer, connect, Client } from '../integration/lib.mjs';
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const srv = await startServer(['--seeks-per-minute', '1000000', '--messages-per-identity', '1000000']);
const W = 1000;
let received = 0;
const ws = [];
for (let i = 0; i < W; i++) {
    const c = await new Client(srv.url).open();
    c.ws.on('message', () => { received++; });
    c.send({ type: 'hello' }); c.send({ type: 'lobby_watch' });
    c.inbox = { push() {} , findIndex() { return -1; } };
    ws.push(c);
}
await sleep(1000);
const storm = await connect(srv.url);
received = 0;
let pairs = 0, maxLat = 0, lats = [];
const t0 = Date.now();
const SECS = 5;
const sampler = (async () => {
    while (Date.now() - t0 < SECS * 1000) {
        const s = performance.now();
        await fetch(`${srv.http}/healthz`);
        const l = performance.now() - s; lats.push(l); if (l > maxLat) maxLat = l;
        await sleep(100);
    }
})();
while (Date.now() - t0 < SECS * 1000) {
    const cr = await storm.request({ type: 'seek_create', game: 'ultima', base_ms: 60000, inc_ms: 0 });
    storm.send({ type: 'seek_cancel', seek: cr.seek.id });
    pairs++;
    const due = t0 + pairs * 12.5;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
}
await sampler;
const el = (Date.now() - t0) / 1000;
await sleep(500);
lats.sort((a, b) => a - b);
console.log(JSON.stringify({ pairs_per_s: +(pairs / el).toFixed(1), watcher_msgs_per_s: Math.round(received / el), healthz_p50_ms: +lats[lats.length >> 1].toFixed(1), healthz_max_ms: +maxLat.toFixed(1) }));
for (const c of ws) c.ws.terminate();
storm.close();
await srv.stop();
