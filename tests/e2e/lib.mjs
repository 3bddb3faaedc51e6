// Helpers shared by the browser tests: chromium, a static file server for
// the client alone, the real server on a free loopback port.

import { chromium } from 'playwright-core';
import { before, after } from 'node:test';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WEB = path.join(ROOT, 'web-client');
export const OUT = path.join(ROOT, 'tests/output/e2e');
fs.mkdirSync(OUT, { recursive: true });

// Debian's chromium-headless-shell: the old headless mode, without the
// browser's own window and tab renderers that new-headless chromium starts
// for every context. A fresh context and page cost it 0.3 CPU-seconds
// against 1.5 for /usr/bin/chromium (0.9 against 2.6 with the app loaded):
// the browser suite is bound by the two cores, so this is its time.
// The shell has no notifications (their permission is always "denied"):
// the files that show them launch the full browser ({ notifications: true }).
// CHROMIUM=<path> runs every file with that build.
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium-headless-shell';
const FULL_CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// NETLOG=<file> in the environment: chromium writes its network log there
// (every byte of every connection; how a wrong reply on a keep-alive
// connection was found).
//
// The real server's pages carry a CSP without 'unsafe-eval', and
// Playwright's waitForFunction evaluates its predicate from a string: pages
// bypass the page's CSP unless enforceCSP (board, render and csp tests,
// which wait without waitForFunction, keep it on to prove the client runs
// under it).
export async function launch({ enforceCSP = false, notifications = false } = {}) {
  const browser = await chromium.launch({
    executablePath: notifications ? FULL_CHROMIUM : CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...(process.env.NETLOG ? [`--log-net-log=${process.env.NETLOG}`, '--net-log-capture-mode=Everything'] : [])],
  });
  if (!enforceCSP) {
    const newContext = browser.newContext.bind(browser);
    const newPage = browser.newPage.bind(browser);
    browser.newContext = (o = {}) => newContext({ bypassCSP: true, ...o });
    browser.newPage = (o = {}) => newPage({ bypassCSP: true, ...o });
  }
  return browser;
}

const MIME = { '.ogg': 'audio/ogg', '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.wasm': 'application/wasm' };

// Serves web-client/ (and build/rules.wasm at /rules.wasm) on a free
// loopback port, under a strict content security policy (which lets the
// page compile WebAssembly and nothing else). Without `backend` there is no
// WebSocket behind it: only what needs no server works (the board component
// alone). With `backend`
// (the URL of a real server), WebSocket upgrades and /api/ requests are
// passed through to it, so that pages get the server's tables and welcome.
// Returns {url, close}.
export async function staticServer(backend = null) {
  const srv = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p === '/') p = '/index.html';
    if (backend && p.startsWith('/api/')) {
      http.get(new URL(req.url, backend), (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      }).on('error', () => { res.writeHead(502); res.end(); });
      return;
    }
    // The rules core, as the real server serves it (--wasm).
    const file = p === '/rules.wasm' ? path.join(ROOT, 'build/rules.wasm') : path.join(WEB, path.normalize(p));
    if (!(file.startsWith(WEB) || p === '/rules.wasm') || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404); res.end(); return;
    }
    // A strict policy, so that an inline script or style attribute fails here.
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] || 'application/octet-stream',
      'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:",
    });
    fs.createReadStream(file).pipe(res);
  });
  if (backend) {
    const { hostname, port } = new URL(backend);
    srv.on('upgrade', (req, socket, head) => {
      const up = net.connect(Number(port), hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        up.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head && head.length) up.write(head);
        socket.pipe(up);
        up.pipe(socket);
      });
      up.on('error', () => socket.destroy());
      socket.on('error', () => up.destroy());
    });
  }
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}`, close: () => new Promise((r) => srv.close(r)) };
}

// After a change of the window's size (or of the theme): two frames later
// the page is laid out and drawn again. The client runs no script on
// resize (its pages are laid out by CSS alone), so this is all there is to
// wait for.
export const settled = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

// CHAMELEON_URL=http://127.0.0.1:PORT runs the game tests against a server
// already running (a developer's own); otherwise the built binary is used.
export function serverBinary() {
  if (process.env.CHAMELEON_URL) return process.env.CHAMELEON_URL;
  for (const b of ['build/chameleon', 'build/debug/chameleon']) {
    const p = path.join(ROOT, b);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

// The usual set-up of a test file: one browser and one real server (with
// serverOpts, as realServer's; launchOpts, as launch's) for the whole
// file, closed after it; ready(browser, server) hands them over once
// started. Returns the tests' `skip`: false, or why the file cannot run.
export function browserAndServer(ready, serverOpts = {}, launchOpts = {}) {
  const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
  let browser, server;
  before(async () => {
    if (skip) return;
    browser = await launch(launchOpts);
    server = await realServer(serverOpts);
    ready(browser, server);
  });
  after(async () => {
    // A browser that died under the test (seen once in CI: its process
    // gone, close() never settled and the suite hung) must not hold the
    // server's stop: 15 s at most.
    await Promise.race([browser?.close(), new Promise((ok) => setTimeout(ok, 15000).unref())]);
    await server?.close();
  });
  return skip;
}

// Starts the real server with a temporary database; resolves once
// /healthz answers. Returns {url, close}; also {port, dir, stop} where
// stop() sends SIGTERM and resolves to {code, signal}, keeping dir, and
// kill(sig) sends sig (SIGSTOP, SIGKILL...): with SIGKILL it resolves once
// the server has exited, keeping dir.
// opts.port, opts.dir: start again where a stopped server was; opts.args:
// more flags.
export async function realServer(opts = {}) {
  const bin = serverBinary();
  if (!bin) return null;
  if (process.env.CHAMELEON_URL) return { url: process.env.CHAMELEON_URL, log: () => '', close: async () => {} };
  // Port 0 unless a restart asks for its old one: the server binds a free
  // port itself and prints it, so two files started at once (run.sh) never
  // race for one that freePort() saw free.
  let port = opts.port || 0;
  const dir = opts.dir || fs.mkdtempSync(path.join(os.tmpdir(), 'chameleon-e2e-'));
  const child = spawn(bin, ['--host', '127.0.0.1', '--port', String(port), '--db', path.join(dir, 'test.db'), '--web-root', WEB,
    '--register-per-address', '1000000', '--max-connections-per-address', '1000000', // many accounts from 127.0.0.1
    ...(opts.args || [])], // opts.args: more flags
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }); // migrations/ is found from the checkout
  // Never leave the server behind, even when the test runner is killed.
  const reap = () => { if (child.exitCode === null) child.kill('SIGKILL'); };
  process.once('exit', reap);
  for (const sig of ['SIGTERM', 'SIGINT']) process.once(sig, () => { reap(); process.exit(1); });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const deadline = Date.now() + 15000;
  while (!port) {
    const m = /listening on http:\/\/[^:]+:(\d+)\//.exec(log);
    if (m) port = Number(m[1]);
    else if (child.exitCode !== null) throw new Error(`server exited: ${log}`);
    else if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`server did not start: ${log}`); }
    else await new Promise((r) => setTimeout(r, 20));
  }
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${log}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`server did not start: ${log}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return {
    url,
    port,
    dir,
    log: () => log,
    kill: async (sig) => {
      child.kill(sig);
      if (sig === 'SIGKILL') return exited;
      return null;
    },
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
      const st = await exited;
      clearTimeout(timer);
      return st;
    },
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        // The timer is cleared: a pending one would keep the test file's
        // process alive 3 s after its last test.
        let timer;
        await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => { timer = setTimeout(r, 3000); })]);
        clearTimeout(timer);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
