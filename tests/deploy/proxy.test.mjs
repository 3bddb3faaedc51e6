// The server behind Debian's nginx with deploy/nginx.conf (issue 19): TLS
// with a certificate made here, HTTP/2 for files, a game over wss://, and
// X-Forwarded-For trusted only from the proxy (--trust-proxy).
//
// nginx runs as a plain process (as nobody when the test runs as root) on
// loopback ports, its upstream connections bound to 127.0.0.2 (the address
// given to --trust-proxy); clients connect from other 127/8 addresses.
// The limit observed is --live-games-per-address 1: a second seek from the
// same address is refused with too_many_games, so which address the server
// charged is visible.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, chmodSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import http2 from 'node:http2';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { startServer, Client, startGame, firstMover } from '../integration/lib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const NGINX = process.env.NGINX || '/usr/sbin/nginx';
const LIVE = { type: 'seek_create', game: 'ultima', base_ms: 0, inc_ms: 0 };

// A client from localAddress, to a wss:// URL with a self-signed
// certificate, with extra upgrade headers.
class From extends Client {
    constructor(url, localAddress, headers = {}) {
        super(url, headers);
        this.localAddress = localAddress;
    }
    async open() {
        this.ws = new WebSocket(this.url, {
            localAddress: this.localAddress, headers: this.headers, rejectUnauthorized: false,
        });
        this.ws.on('message', (data) => {
            this.inbox.push(JSON.parse(data.toString()));
            this.wake();
        });
        this.ws.on('close', (code, reason) => {
            this.closed = { code, reason: reason.toString() };
            this.wake();
        });
        await new Promise((ok, fail) => {
            this.ws.once('open', ok);
            this.ws.once('error', fail);
        });
        return this;
    }
}

async function freePort() {
    const s = createServer();
    await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
    const { port } = s.address();
    await new Promise((ok) => s.close(ok));
    return port;
}

// deploy/nginx.conf with this test's ports, certificate and upstream; each
// replaced text must be there (the test follows the file's shape).
function site(dir, httpsPort, httpPort, upstreamPort) {
    let conf = readFileSync(join(root, 'deploy/nginx.conf'), 'utf8');
    const swaps = [
        ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`],
        ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`],
        ['listen [::]:443 ssl http2;', ''],
        ['listen 80;', `listen 127.0.0.1:${httpPort};`],
        ['listen [::]:80;', ''],
        ['/etc/letsencrypt/live/chess.example.org/fullchain.pem', join(dir, 'cert.pem')],
        ['/etc/letsencrypt/live/chess.example.org/privkey.pem', join(dir, 'key.pem')],
        ['allow 127.0.0.1;', 'allow 127.0.0.1;'],
    ];
    for (const [from, to] of swaps) {
        assert.ok(conf.includes(from), `deploy/nginx.conf no longer holds "${from}"`);
        conf = conf.split(from).join(to);
    }
    return conf;
}

let dir, srv, nginx, nginxLog = '', httpsPort, wss;

before(async () => {
    dir = mkdtempSync('/tmp/chameleon-nginx-');
    chmodSync(dir, 0o755);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    chmodSync(join(dir, 'key.pem'), 0o644); // a throwaway key, read by nginx as nobody
    httpsPort = await freePort();
    const httpPort = await freePort();
    srv = await startServer(['--trust-proxy', '127.0.0.2', '--live-games-per-address', '1',
        '--public-url', `https://127.0.0.1:${httpsPort}`]);
    for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
        mkdirSync(join(dir, d));
        chmodSync(join(dir, d), 0o777);
    }
    writeFileSync(join(dir, 'site.conf'), site(dir, httpsPort, httpPort, srv.port));
    writeFileSync(join(dir, 'nginx.conf'), `
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    # The proxy's own address as the server sees it (--trust-proxy).
    proxy_bind 127.0.0.2;
    include ${dir}/site.conf;
}
`);
    // Unprivileged: as nobody when the test runs as root.
    const asNobody = process.getuid() === 0
        ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', NGINX] : [NGINX];
    if (process.getuid() === 0) chmodSync(dir, 0o777); // nobody writes its error.log and pid there
    nginx = spawn(asNobody[0], [...asNobody.slice(1), '-p', dir, '-e', join(dir, 'error.log'),
        '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr.on('data', (d) => { nginxLog += d; });
    nginx.on('exit', (code) => { nginxLog += `\n[nginx exited ${code}]`; });
    wss = `wss://127.0.0.1:${httpsPort}/ws`;
    // Wait until nginx answers /healthz through to the server.
    for (let i = 0; ; i++) {
        try {
            const r = await h2get('/healthz');
            if (r.status === 200) break;
        } catch (e) {
            if (i > 100) throw new Error(`nginx did not start: ${e.message}\n${nginxLog}\n` +
                (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''));
        }
        await new Promise((ok) => setTimeout(ok, 100));
    }
});

after(async () => {
    if (nginx && nginx.exitCode === null) {
        nginx.kill('SIGTERM');
        await new Promise((ok) => nginx.once('exit', ok));
    }
    if (srv) {
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
});

// One GET over HTTP/2 and TLS: { status, headers, body, alpn }.
function h2get(path, headers = {}) {
    return new Promise((ok, fail) => {
        const s = http2.connect(`https://127.0.0.1:${httpsPort}`, { rejectUnauthorized: false });
        s.on('error', fail);
        const req = s.request({ ':path': path, ...headers });
        let body = '', head;
        req.on('response', (h) => { head = h; });
        req.setEncoding('utf8');
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
            const alpn = s.alpnProtocol;
            s.close();
            ok({ status: head[':status'], headers: head, body, alpn });
        });
        req.on('error', fail);
        req.end();
    });
}

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
