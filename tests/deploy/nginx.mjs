// Debian's nginx with deploy/nginx.conf in front of a server, for the
// deploy tests (proxy.test.mjs, browser.test.mjs): a certificate made here,
// loopback ports, the file's names and paths replaced (tests/tools/nginx.mjs
// runs it: as nobody when the test runs as root, its upstream connections
// bound to 127.0.0.2, the address given to --trust-proxy).
import http2 from 'node:http2';
import { freePort, nginxDir } from '../tools/nginx.mjs';

export { freePort };

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
    const ng = nginxDir();
    ng.site('nginx.conf', [
        ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`],
        ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`],
        ['listen [::]:443 ssl http2;', ''],
        ['listen 80;', `listen 127.0.0.1:${httpPort};`],
        ['listen [::]:80;', ''],
    ]);
    const run = ng.start();
    const origin = `https://127.0.0.1:${httpsPort}`;
    // Wait until nginx answers /healthz through to the server.
    for (let i = 0; ; i++) {
        try {
            const r = await h2get(origin, '/healthz');
            if (r.status === 200) break;
        } catch (e) {
            if (i > 100) {
                const log = run.log();
                await run.stop();
                throw new Error(`nginx did not start: ${e.message}\n${log}`);
            }
        }
        await new Promise((ok) => setTimeout(ok, 100));
    }
    return { origin, dir: ng.dir, log: run.log, stop: run.stop };
}
