// Connections and HTTP (issue 18, items 7 (connections per address), 9,
// 10 and 11): connection caps, static files inside the web root, Origin
// checks, JSON bodies only, security headers, the Secure cookie, 411, 414,
// 431, unmasked frames, the hello timeout, seat_keys kept private. The real
// server on loopback; other client addresses are 127.0.0.x (all of 127/8
// is local).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, mkdirSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer, Client, connect, startGame, firstMover } from '../integration/lib.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// One HTTP request on a fresh connection: { status, headers, text, json }.
function http(srv, method, path, { body, headers = {}, localAddress = '127.0.0.1' } = {}) {
    const data = body === undefined ? null : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const h = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) h[k] = v;
    if (data && !('content-type' in headers)) h['content-type'] = 'application/json';
    if (data) h['content-length'] = data.length;
    return new Promise((ok, fail) => {
        const req = request({ host: '127.0.0.1', port: srv.port, path, method, localAddress, agent: false, headers: h },
            (res) => {
                let text = '';
                res.setEncoding('utf8');
                res.on('data', (d) => { text += d; });
                res.on('end', () => {
                    let json = null;
                    try { json = JSON.parse(text); } catch { /* not JSON */ }
                    ok({ status: res.statusCode, headers: res.headers, text, json });
                });
            });
        req.on('error', fail);
        req.end(data || undefined);
    });
}

// Raw bytes on a TCP connection: everything the server sends until it
// closes or ms pass ({ text, closed }).
function raw(srv, bytes, ms = 10000) {
    return new Promise((ok, fail) => {
        const s = tcpConnect({ host: '127.0.0.1', port: srv.port });
        const chunks = [];
        const timer = setTimeout(() => { s.destroy(); ok({ text: Buffer.concat(chunks).toString('latin1'), closed: false }); }, ms);
        s.on('data', (d) => chunks.push(d));
        s.on('close', () => { clearTimeout(timer); ok({ text: Buffer.concat(chunks).toString('latin1'), closed: true }); });
        s.on('error', (e) => { if (e.code !== 'ECONNRESET') { clearTimeout(timer); fail(e); } });
        s.write(bytes);
    });
}

async function metric(srv, name) {
    // From an address of its own: the tests fill 127.0.0.1's cap.
    const r = await http(srv, 'GET', '/metrics', { localAddress: '127.0.0.9' });
    const m = r.text.match(new RegExp(`^chameleon_${name} (\\d+)$`, 'm'));
    assert.ok(m, `metric ${name} in /metrics`);
    return Number(m[1]);
}

// Open a WebSocket; resolves to { ws } once open, or { status } (the
// HTTP status of a refused upgrade), or { closed: true } (the connection
// dropped before any answer).
function openWs(srv, { headers = {}, localAddress = '127.0.0.1' } = {}) {
    return new Promise((ok) => {
        const ws = new WebSocket(`ws://127.0.0.1:${srv.port}/`, { headers, localAddress });
        ws.on('open', () => ok({ ws }));
        ws.on('unexpected-response', (req, res) => { ok({ status: res.statusCode }); req.destroy(); });
        ws.on('error', () => ok({ closed: true }));
    });
}

const closed = (ws) => new Promise((ok) => {
    if (ws.readyState === WebSocket.CLOSED) ok(null);
    ws.on('close', (code, reason) => ok({ code, reason: reason.toString() }));
});

test('connections per address: over the cap closed at once, other addresses unaffected, counted; a freed slot is reusable', async () => {
    const srv = await startServer(['--max-connections-per-address', '5']);
    const open = [];
    try {
        for (let i = 0; i < 5; i++) {
            const r = await openWs(srv);
            assert.ok(r.ws, `connection ${i + 1} of 5 opens`);
            open.push(r.ws);
        }
        const sixth = await openWs(srv);
        assert.ok(!sixth.ws, 'the sixth connection from the address is refused');
        // Plain HTTP from that address counts too.
        await assert.rejects(http(srv, 'GET', '/healthz'));
        const other = await openWs(srv, { localAddress: '127.0.0.2' });
        assert.ok(other.ws, 'another address connects');
        open.push(other.ws);
        assert.ok(await metric(srv, 'connections_refused_address_total') >= 2);
        // One closes: its slot is given back.
        open[0].close();
        await closed(open[0]);
        await sleep(200);
        const again = await openWs(srv);
        assert.ok(again.ws, 'a connection after one closed');
        open.push(again.ws);
        assert.equal(await metric(srv, 'sockets'), 7, 'five from .1, one from .2, /metrics itself');
    } finally {
        for (const ws of open) ws.terminate();
        assert.equal((await srv.stop()).code, 0);
    }
});

test('descriptor limit: WebSockets stop below it and /healthz still answers', async () => {
    // 256 descriptors: 32 kept back, 64 of the rest for plain HTTP, so
    // 160 WebSockets.
    const srv = await startServer([], { prefix: ['prlimit', '--nofile=256:256'] });
    const open = [];
    try {
        assert.equal(await metric(srv, 'connections_max'), 160);
        let refused = null;
        for (let i = 0; i < 200 && !refused; i++) {
            const r = await openWs(srv, { localAddress: `127.0.1.${1 + (i % 50)}` });
            if (r.ws) open.push(r.ws);
            else refused = r;
        }
        assert.equal(open.length, 160, 'WebSockets up to the cap');
        assert.equal(refused.status, 503, 'the next upgrade is answered 503');
        for (let i = 0; i < 5; i++) {
            const h = await http(srv, 'GET', '/healthz', { localAddress: '127.0.2.1' });
            assert.equal(h.status, 200);
            assert.equal(h.json.connections, 160);
        }
        assert.equal(await metric(srv, 'connections_refused_ws_total'), 1);
    } finally {
        for (const ws of open) ws.terminate();
        assert.equal((await srv.stop()).code, 0);
    }
});

test('static files: a symlink out of the web root is not followed; one inside it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-web-'));
    const web = join(dir, 'web');
    const outside = join(dir, 'outside');
    mkdirSync(web);
    mkdirSync(outside);
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>root</title>\n');
    writeFileSync(join(web, 'real.js'), 'export const inside = 1;\n');
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
    symlinkSync(join(outside, 'secret.txt'), join(web, 'secret.txt'));
    symlinkSync(outside, join(web, 'out'));
    symlinkSync('/etc/passwd', join(web, 'passwd.txt'));
    symlinkSync(join(web, 'real.js'), join(web, 'alias.js'));
    const srv = await startServer(['--web-root', web]);
    try {
        for (const p of ['/secret.txt', '/out/secret.txt', '/passwd.txt']) {
            const r = await http(srv, 'GET', p);
            assert.equal(r.status, 404, p);
            assert.ok(!r.text.includes('SECRET') && !r.text.includes('root:'), p);
        }
        const idx = await http(srv, 'GET', '/');
        assert.equal(idx.status, 200);
        assert.match(idx.text, /<title>root<\/title>/);
        assert.match(idx.headers['content-type'], /^text\/html/);
        assert.equal(idx.headers['cache-control'], 'no-cache');
        const alias = await http(srv, 'GET', '/alias.js');
        assert.equal(alias.status, 200);
        assert.match(alias.headers['content-type'], /javascript/);
        assert.match(alias.text, /inside/);
        assert.equal((await http(srv, 'GET', '/nothing.js')).status, 404);
        assert.equal(await metric(srv, 'http_outside_root_total'), 3);
    } finally {
        assert.equal((await srv.stop()).code, 0);
        rmSync(dir, { recursive: true, force: true });
    }
});

test('Origin: a WebSocket or POST from a foreign page is refused 403, even with the session cookie; the site\'s own and non-browser clients pass', async () => {
    const srv = await startServer();
    try {
        const own = `http://127.0.0.1:${srv.port}`;
        const reg = await http(srv, 'POST', '/api/register', { body: { username: 'olga', password: 'correct horse' }, headers: { origin: own } });
        assert.equal(reg.status, 200);
        const cookie = String(reg.headers['set-cookie']).split(';')[0];

        const evil = await openWs(srv, { headers: { origin: 'http://evil.example', cookie } });
        assert.equal(evil.status, 403, 'a foreign page cannot open a socket as the account');
        assert.equal((await openWs(srv, { headers: { origin: 'null', cookie } })).status, 403);
        // Same host name, another port: another origin.
        assert.equal((await openWs(srv, { headers: { origin: `http://127.0.0.1:${srv.port + 1}`, cookie } })).status, 403);

        const c = await new Client(srv.url, { origin: own, cookie }).open();
        const w = await c.hello();
        assert.equal(w.account, 'olga', 'the site\'s own page is logged in');
        c.close();
        const bare = await connect(srv.url); // node's ws sends no Origin
        assert.equal(bare.welcome.type, 'welcome');
        bare.close();

        const post = await http(srv, 'POST', '/api/login', { body: { username: 'olga', password: 'correct horse' }, headers: { origin: 'http://evil.example' } });
        assert.equal(post.status, 403);
        assert.equal(post.json.error, 'bad_origin');
        assert.ok(!post.headers['set-cookie']);
        assert.equal((await http(srv, 'POST', '/api/logout', { body: {}, headers: { origin: 'http://evil.example', cookie } })).status, 403);
        assert.equal((await http(srv, 'POST', '/api/login', { body: { username: 'olga', password: 'correct horse' }, headers: { origin: own } })).status, 200);
        assert.equal(await metric(srv, 'bad_origin_total'), 5);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('--public-url: its origin is the one accepted, and https marks the session cookie Secure', async () => {
    const srv = await startServer(['--public-url', 'https://Chess.Example:443/play/']);
    try {
        const site = 'https://chess.example';
        const local = `http://127.0.0.1:${srv.port}`;
        assert.equal((await openWs(srv, { headers: { origin: local } })).status, 403, 'the Host header no longer decides');
        const ok = await openWs(srv, { headers: { origin: site } });
        assert.ok(ok.ws);
        ok.ws.close();
        assert.equal((await http(srv, 'POST', '/api/register', { body: { username: 'pavel', password: 'correct horse' }, headers: { origin: local } })).status, 403);
        const reg = await http(srv, 'POST', '/api/register', { body: { username: 'pavel', password: 'correct horse' }, headers: { origin: site } });
        assert.equal(reg.status, 200);
        assert.match(String(reg.headers['set-cookie']), /;\s*Secure/i);
        const out = await http(srv, 'POST', '/api/logout', { body: {}, headers: { origin: site } });
        assert.match(String(out.headers['set-cookie']), /;\s*Secure/i);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
    // Plain http: no Secure (a browser would drop the cookie).
    const plain = await startServer();
    try {
        const reg = await http(plain, 'POST', '/api/register', { body: { username: 'pavel', password: 'correct horse' } });
        assert.equal(reg.status, 200);
        assert.doesNotMatch(String(reg.headers['set-cookie']), /Secure/i);
    } finally {
        assert.equal((await plain.stop()).code, 0);
    }
});

test('JSON bodies only: form, text/plain and multipart bodies are answered 415 before any work', async () => {
    const srv = await startServer();
    try {
        assert.equal((await http(srv, 'POST', '/api/register', { body: { username: 'rita', password: 'correct horse' } })).status, 200);
        const body = '{"username":"rita","password":"correct horse"}';
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
            const r = await http(srv, 'POST', '/api/login', { body, headers: { 'content-type': type } });
            assert.equal(r.status, 415, type);
            assert.equal(r.json.error, 'bad_content_type');
            assert.ok(!r.headers['set-cookie'], type);
        }
        const none = await http(srv, 'POST', '/api/login', { body, headers: { 'content-type': undefined } });
        assert.equal(none.status, 415, 'no Content-Type');
        const json = await http(srv, 'POST', '/api/login', { body, headers: { 'content-type': 'application/json; charset=utf-8' } });
        assert.equal(json.status, 200);
        assert.equal(await metric(srv, 'http_bad_content_type_total'), 5);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('security headers on every reply: CSP without inline script, no framing, nosniff, referrer policy', async () => {
    const srv = await startServer();
    try {
        for (const [method, path] of [['GET', '/'], ['GET', '/app.js'], ['GET', '/style.css'], ['GET', '/healthz'],
            ['GET', '/api/tables'], ['GET', '/nope.html'], ['GET', '/api/games/12345'], ['POST', '/api/login']]) {
            const r = await http(srv, method, path, method === 'POST' ? { body: { username: 'x', password: 'y' } } : {});
            const csp = r.headers['content-security-policy'];
            assert.ok(csp, `${path}: a CSP`);
            const script = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
            assert.ok(script && !script.includes('unsafe-inline'), `${path}: no inline script (${script})`);
            assert.match(csp, /frame-ancestors 'none'/, path);
            assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
            assert.ok(r.headers['referrer-policy'], path);
        }
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('a POST without Content-Length is answered 411 at once', async () => {
    const srv = await startServer();
    try {
        const t0 = Date.now();
        const r = await raw(srv, 'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n');
        assert.match(r.text, /^HTTP\/1\.1 411 /);
        assert.match(r.text, /length_required/);
        assert.ok(Date.now() - t0 < 8000, 'not after lws\'s 30 s timeout');
        assert.equal(await metric(srv, 'http_length_required_total'), 1);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('an 8 KB URL is answered 414 and 8 KB of headers 431, not dropped', async () => {
    const srv = await startServer();
    try {
        const url = await raw(srv, `GET /${'a'.repeat(8192)} HTTP/1.1\r\nHost: x\r\n\r\n`);
        assert.match(url.text, /^HTTP\/1\.1 414 /);
        const hdr = await raw(srv, `GET / HTTP/1.1\r\nHost: x\r\nCookie: a=${'b'.repeat(8192)}\r\n\r\n`);
        assert.match(hdr.text, /^HTTP\/1\.1 431 /);
        const up = await raw(srv, `GET /?${'q'.repeat(8192)} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
        assert.match(up.text, /^HTTP\/1\.[01] 414 /, 'an upgrade too');
        assert.equal((await http(srv, 'GET', '/healthz')).status, 200);
        assert.equal(await metric(srv, 'http_uri_too_long_total'), 2);
        assert.equal(await metric(srv, 'http_headers_too_large_total'), 1);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

// A WebSocket frame (text), masked or not.
function frame(text, masked) {
    const payload = Buffer.from(text);
    const head = Buffer.from([0x81, (masked ? 0x80 : 0) | payload.length]);
    if (!masked) return Buffer.concat([head, payload]);
    const key = randomBytes(4);
    const body = Buffer.from(payload.map((b, i) => b ^ key[i % 4]));
    return Buffer.concat([head, key, body]);
}

// The close code in a server's close frame found in bytes after the 101.
function closeCode(bytes) {
    const i = bytes.indexOf('\r\n\r\n');
    const rest = Buffer.from(bytes.slice(i + 4), 'latin1');
    for (let p = 0; p + 1 < rest.length;) {
        const op = rest[p] & 0x0f, len = rest[p + 1] & 0x7f;
        if (len > 125) return null; // not expected from this server here
        if (op === 0x8) return len >= 2 ? rest.readUInt16BE(p + 2) : 1005;
        p += 2 + len;
    }
    return null;
}

test('an unmasked client frame closes the connection with 1002; masked frames are served', async () => {
    const srv = await startServer();
    try {
        const session = async (masked) => {
            const key = randomBytes(16).toString('base64');
            const s = tcpConnect({ host: '127.0.0.1', port: srv.port });
            const chunks = [];
            s.on('data', (d) => chunks.push(d));
            s.on('error', () => {});
            const ended = new Promise((ok) => s.on('close', ok));
            s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
            for (let i = 0; i < 500 && !Buffer.concat(chunks).includes('\r\n\r\n'); i++) await sleep(20);
            assert.match(Buffer.concat(chunks).toString('latin1'), /^HTTP\/1\.1 101 /);
            s.write(frame(JSON.stringify({ type: 'hello', id: 1 }), masked));
            // Until the server closes, or answers (a welcome), or 10 s.
            let done = false;
            ended.then(() => { done = true; });
            for (let i = 0; i < 500 && !done && !Buffer.concat(chunks).includes('"welcome"'); i++) await sleep(20);
            s.destroy();
            return Buffer.concat(chunks).toString('latin1');
        };
        const bad = await session(false);
        assert.equal(closeCode(bad), 1002, 'closed as a protocol error');
        assert.ok(!bad.includes('welcome'), 'the unmasked hello was not served');
        const good = await session(true);
        assert.ok(good.includes('"welcome"'), 'a masked hello is answered');
        assert.equal(await metric(srv, 'unmasked_frames_total'), 1);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('a socket that never says hello is closed (1008) after the hello timeout, though it keeps pinging', async () => {
    // TESTS ONLY flag: 1.5 s instead of 30 s.
    const srv = await startServer(['--hello-timeout-ms', '1500']);
    try {
        const mute = await openWs(srv);
        assert.ok(mute.ws);
        // Traffic without hello (pings, answered by lws) does not keep it.
        const pinger = setInterval(() => mute.ws.readyState === WebSocket.OPEN && mute.ws.ping(), 200);
        const talker = await connect(srv.url);
        const t0 = Date.now();
        const why = await Promise.race([closed(mute.ws), sleep(15000).then(() => null)]);
        clearInterval(pinger);
        assert.ok(why, 'closed');
        assert.equal(why.code, 1008);
        assert.ok(Date.now() - t0 >= 1000, 'not before the timeout');
        // The one that said hello is still served.
        const pong = await talker.request({ type: 'ping' });
        assert.equal(pong.type, 'pong');
        assert.equal(talker.closed, null);
        talker.close();
        assert.equal(await metric(srv, 'hello_timeouts_total'), 1);
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});

test('/api/games/<id> does not publish seat_keys (they link a guest\'s games together)', async () => {
    const srv = await startServer();
    try {
        const a = await connect(srv.url, { name: 'ann' });
        const b = await connect(srv.url, { name: 'bob' });
        const { room, states } = await startGame([a, b], 'ultima');
        const { mover } = firstMover([a, b], states);
        mover.send({ type: 'resign', room });
        await mover.event(room, 'left');
        const r = await http(srv, 'GET', `/api/games/${room}`);
        assert.equal(r.status, 200);
        assert.equal(r.json.id, room);
        assert.ok(!r.text.includes('seat_keys'), r.text.slice(0, 300));
        for (const p of r.json.players) assert.ok(!('key' in p));
        a.close();
        b.close();
    } finally {
        assert.equal((await srv.stop()).code, 0);
    }
});
