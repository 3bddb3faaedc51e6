// The server behind Debian's nginx with deploy/nginx.conf (issue 19): TLS
// with a certificate made here, HTTP/2 for files, a game over wss://, and
// X-Forwarded-For trusted only from the proxy (--trust-proxy).
//
// nginx (./nginx.mjs) binds its upstream connections to 127.0.0.2 (the
// address given to --trust-proxy); clients connect from other 127/8
// addresses.
// The limit observed is --live-games-per-address 1: a second seek from the
// same address is refused with too_many_games, so which address the server
// charged is visible.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, Client, startGame, firstMover } from '../integration/lib.mjs';
import { nginxPorts, startNginx, h2get as get } from './nginx.mjs';

const LIVE = { type: 'seek_create', game: 'ultima', base_ms: 0, inc_ms: 0 };

// A client from localAddress, to a wss:// URL with a self-signed
// certificate, with extra upgrade headers.
class From extends Client {
    constructor(url, localAddress, headers = {}) {
        super(url, headers);
        this.localAddress = localAddress;
    }
    wsOptions() {
        return { ...super.wsOptions(), localAddress: this.localAddress, rejectUnauthorized: false };
    }
}

let srv, nginx, wss;

before(async () => {
    const ports = await nginxPorts();
    srv = await startServer(['--trust-proxy', '127.0.0.2', '--live-games-per-address', '1',
        '--public-url', `https://127.0.0.1:${ports.httpsPort}`]);
    nginx = await startNginx(ports, srv.port);
    wss = `wss://127.0.0.1:${ports.httpsPort}/ws`;
});

after(async () => {
    await nginx?.stop();
    if (srv) {
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    }
});

const h2get = (path, headers) => get(nginx.origin, path, headers);

test('a static file over TLS and HTTP/2, with its ETag and a cache lifetime', async () => {
    const r = await h2get('/app.js');
    assert.equal(r.alpn, 'h2');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'export const x = 1;\n');
    assert.match(r.headers.etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
    assert.match(r.headers['cache-control'], /max-age=3600/);
    assert.ok(r.headers['strict-transport-security'], 'HSTS over TLS');
    // /metrics is for the operator's own network: nginx asked from
    // 127.0.0.1 lets it through.
    assert.equal((await h2get('/metrics')).status, 200);
});

test('a game over wss:// through nginx: hello, seek, accept, a move seen by both', async () => {
    const a = await new From(wss, '127.0.0.3').open();
    const b = await new From(wss, '127.0.0.4').open();
    await a.hello();
    await b.hello();
    const { room, states } = await startGame([a, b], 'ultima');
    const { mover, other, st } = firstMover([a, b], states);
    mover.send({ type: 'move', room, move: st.legal[0] });
    const seen = await other.waitFor((m) => m.type === 'event' && m.room === room && m.kind === 'move',
        'the move, at the other player');
    assert.equal(seen.seat, st.you);
    a.close();
    b.close();
});

test('X-Forwarded-For: the client address nginx gives counts; a forged one never does', async () => {
    // Through nginx from 127.0.0.5 and 127.0.0.6: two addresses, one seek
    // each within the cap of 1 (without --trust-proxy both would be the
    // proxy's 127.0.0.2 and the second refused).
    const p5 = await new From(wss, '127.0.0.5').open();
    const p6 = await new From(wss, '127.0.0.6').open();
    await p5.hello();
    await p6.hello();
    assert.equal((await p5.request(LIVE)).type, 'seek_created');
    assert.equal((await p6.request(LIVE)).type, 'seek_created');
    // A client's own X-Forwarded-For through nginx: nginx appends the real
    // address, which the server takes; 127.0.0.5 is at its cap whatever
    // the client claims.
    const forged = await new From(wss, '127.0.0.5', { 'X-Forwarded-For': '10.9.9.9' }).open();
    await forged.hello();
    await forged.expectError(LIVE, 'too_many_games');
    // Direct connections from 127.0.0.7 (not the proxy) claiming other
    // addresses: the header is ignored, both count as 127.0.0.7.
    const direct = srv.url;
    const d1 = await new From(direct, '127.0.0.7', { 'X-Forwarded-For': '10.0.0.1' }).open();
    const d2 = await new From(direct, '127.0.0.7', { 'X-Forwarded-For': '10.0.0.2' }).open();
    await d1.hello();
    await d2.hello();
    assert.equal((await d1.request(LIVE)).type, 'seek_created');
    const e = await d2.expectError(LIVE, 'too_many_games');
    assert.match(e.reason, /one address/);
    for (const c of [p5, p6, forged, d1, d2]) c.close();
});

// GETs on one kept-alive connection to the server itself: the statuses and
// bodies in order.
async function directGets(list) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const out = [];
    const sockets = new Set();
    for (const headers of list) {
        out.push(await new Promise((ok, fail) => {
            const req = http.get(`${srv.http}/app.js`, { agent, headers }, (res) => {
                sockets.add(res.socket);
                let body = '';
                res.setEncoding('utf8');
                res.on('data', (d) => { body += d; });
                res.on('end', () => ok({ status: res.statusCode, etag: res.headers.etag, body }));
            });
            req.on('error', fail);
        }));
    }
    agent.destroy();
    return { out, sockets: sockets.size };
}

test('revalidation: If-None-Match with the ETag is answered 304, through nginx too', async () => {
    const first = await h2get('/app.js');
    const { etag } = first.headers;
    // Through nginx over HTTP/2: the browser's revalidation.
    const again = await h2get('/app.js', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body, '');
    // The server itself, on one connection: a strong and a weak match (nginx
    // makes an ETag weak when it compresses), a list, then another tag and
    // none at all: the file; the connection lives on after each 304.
    const { out, sockets } = await directGets([
        { 'if-none-match': etag }, { 'if-none-match': `W/${etag}` }, { 'if-none-match': `"x", ${etag}` },
        { 'if-none-match': '"0-0"' }, {},
    ]);
    assert.deepEqual(out.map((r) => r.status), [304, 304, 304, 200, 200]);
    for (const r of out) assert.equal(r.etag, etag);
    assert.deepEqual(out.map((r) => r.body), ['', '', '', 'export const x = 1;\n', 'export const x = 1;\n']);
    assert.equal(sockets, 1, 'one kept-alive connection');
    const m = (await h2get('/metrics')).body.match(/^chameleon_http_not_modified_total (\d+)$/m);
    assert.equal(Number(m?.[1]), 4);
});
