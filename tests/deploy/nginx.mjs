// Debian's nginx with deploy/nginx.conf in front of a server, for the
// deploy tests (proxy.test.mjs, browser.test.mjs): a certificate made here,
// loopback ports, the file's names and paths replaced.
//
// nginx runs as a plain process (as nobody when the test runs as root), its
// upstream connections bound to 127.0.0.2 (the address given to
// --trust-proxy).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, chmodSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import http2 from 'node:http2';
import { join, resolve } from 'node:path';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const NGINX = process.env.NGINX || '/usr/sbin/nginx';

export async function freePort() {
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

// One GET over HTTP/2 and TLS: { status, headers, body, alpn }.
export function h2get(origin, path, headers = {}) {
    return new Promise((ok, fail) => {
        const s = http2.connect(origin, { rejectUnauthorized: false });
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

// The port nginx will listen on over TLS: known before the server starts,
// which needs it for --public-url.
export async function nginxPorts() {
    return { httpsPort: await freePort(), httpPort: await freePort() };
}

// Starts nginx on ports (from nginxPorts()) in front of 127.0.0.1:upstreamPort;
// resolves once /healthz answers through it. Returns { origin, dir, log(),
// stop() }.
export async function startNginx(ports, upstreamPort) {
    const { httpsPort, httpPort } = ports;
    const dir = mkdtempSync('/tmp/chameleon-nginx-');
    chmodSync(dir, 0o755);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    chmodSync(join(dir, 'key.pem'), 0o644); // a throwaway key, read by nginx as nobody
    for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
        mkdirSync(join(dir, d));
        chmodSync(join(dir, d), 0o777);
    }
    writeFileSync(join(dir, 'site.conf'), site(dir, httpsPort, httpPort, upstreamPort));
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
    let log = '';
    const proc = spawn(asNobody[0], [...asNobody.slice(1), '-p', dir, '-e', join(dir, 'error.log'),
        '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stderr.on('data', (d) => { log += d; });
    proc.on('exit', (code) => { log += `\n[nginx exited ${code}]`; });
    const origin = `https://127.0.0.1:${httpsPort}`;
    const logs = () => log + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
    // Wait until nginx answers /healthz through to the server.
    for (let i = 0; ; i++) {
        try {
            const r = await h2get(origin, '/healthz');
            if (r.status === 200) break;
        } catch (e) {
            if (i > 100) throw new Error(`nginx did not start: ${e.message}\n${logs()}`);
        }
        await new Promise((ok) => setTimeout(ok, 100));
    }
    return {
        origin,
        dir,
        log: logs,
        async stop() {
            if (proc.exitCode === null) {
                proc.kill('SIGTERM');
                await new Promise((ok) => proc.once('exit', ok));
            }
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
