// Debian's nginx for the tests, started from one of deploy/'s sites
// (nginx.conf: tests/deploy/nginx.mjs; nginx-nodes.conf:
// tests/pg/cluster.mjs) with its names, ports and paths replaced:
//
//   const ng = nginxDir();                  // a folder: certificate, snippet, temp dirs
//   ng.site('nginx-nodes.conf', swaps);     // writes site.conf and nginx.conf
//   ng.check();                             // nginx -t: { ok, output }
//   const run = ng.start();                 // { proc, log(), stop() }
//
// A plain process on loopback: as nobody when the test runs as root, its
// upstream connections bound to 127.0.0.2 (the address the servers get as
// --trust-proxy), a self-signed certificate for 127.0.0.1 made here.
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, chmodSync, copyFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const NGINX = process.env.NGINX || '/usr/sbin/nginx';
// The address nginx connects to its upstreams from (--trust-proxy).
export const PROXY_ADDR = '127.0.0.2';
const asRoot = process.getuid() === 0;

// A port free on 127.0.0.1 now (the kernel's pick, released).
export async function freePort() {
    const s = createServer();
    await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
    const { port } = s.address();
    await new Promise((ok) => s.close(ok));
    return port;
}

// The text of deploy/<name> with each [from, to] of swaps replaced; each
// `from` must be there (the test follows the file's shape).
export function render(name, swaps) {
    let conf = readFileSync(join(root, 'deploy', name), 'utf8');
    for (const [from, to] of swaps) {
        assert.ok(conf.includes(from), `deploy/${name} no longer holds "${from}"`);
        conf = conf.split(from).join(to);
    }
    return conf;
}

// Runs nginx (as nobody when root) with args; spawn's options.
function nginxArgs(args) {
    return asRoot
        ? ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', NGINX, ...args]]
        : [NGINX, args];
}

// A temporary folder for one nginx: cert.pem and key.pem, the shared
// snippet (deploy/nginx-proxy.conf) and nginx's temp dirs.
export function nginxDir() {
    const dir = mkdtempSync('/tmp/chameleon-nginx-');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    chmodSync(join(dir, 'key.pem'), 0o644); // a throwaway key, read by nginx as nobody
    copyFileSync(join(root, 'deploy/nginx-proxy.conf'), join(dir, 'chameleon-proxy.conf'));
    for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
        mkdirSync(join(dir, d));
        chmodSync(join(dir, d), 0o777);
    }
    // nobody writes its error.log and pid there.
    chmodSync(dir, asRoot ? 0o777 : 0o755);
    const errorLog = join(dir, 'error.log');
    const conf = join(dir, 'nginx.conf');
    return {
        dir,
        // The swaps every site needs: the certificate and the snippet.
        swaps: [
            ['/etc/letsencrypt/live/chess.example.org/fullchain.pem', join(dir, 'cert.pem')],
            ['/etc/letsencrypt/live/chess.example.org/privkey.pem', join(dir, 'key.pem')],
            ['include /etc/nginx/snippets/chameleon-proxy.conf;', `include ${dir}/chameleon-proxy.conf;`],
        ],
        // deploy/<name> with this folder's swaps and the given ones, as the
        // site of the http block of nginx.conf.
        site(name, swaps) {
            writeFileSync(join(dir, 'site.conf'), render(name, [...this.swaps, ...swaps]));
            writeFileSync(conf, `
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLog} warn;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    proxy_bind ${PROXY_ADDR};
    include ${dir}/site.conf;
}
`);
        },
        // nginx -t on it: { ok, output }.
        check() {
            const [cmd, args] = nginxArgs(['-t', '-p', dir, '-e', errorLog, '-c', conf]);
            const r = spawnSync(cmd, args, { encoding: 'utf8' });
            return { ok: r.status === 0, output: r.stdout + r.stderr };
        },
        // Starts it: { proc, log() (its stderr and error.log), stop() (and
        // removes the folder) }.
        start() {
            const [cmd, args] = nginxArgs(['-p', dir, '-e', errorLog, '-c', conf]);
            let log = '';
            const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
            proc.stderr.on('data', (d) => { log += d; });
            proc.on('exit', (code) => { log += `\n[nginx exited ${code}]`; });
            const exited = new Promise((ok) => proc.once('exit', ok));
            return {
                proc,
                log: () => log + (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''),
                async stop() {
                    if (proc.exitCode === null && proc.signalCode === null) {
                        proc.kill('SIGTERM');
                        await exited;
                    }
                    rmSync(dir, { recursive: true, force: true });
                },
            };
        },
    };
}
