// Several nodes as a site runs them (docs/OPERATING.md, "Several nodes"),
// all on loopback and started by the test: one throw-away PostgreSQL (the
// one tests/pg/run.sh started, or one of its own: startPostgres of
// tests/integration/lib.mjs), N chameleon nodes on it (--node n1..nN,
// each on a port of its own, as chameleon@.service runs them), and
// Debian's nginx in front with deploy/nginx-nodes.conf, its upstream
// holding the nodes' ports (tests/tools/nginx.mjs).
//
//   const c = await startCluster({ nodes: 3, leaseTtlMs: 2000 });
//   c.url       // http://127.0.0.1:PORT: nginx (also c.ws, c.https)
//   c.nodes[0]  // { name: 'n1', port, url: 'http://127.0.0.1:PORT', ws,
//               //   proc, alive, stderr() }
//   await c.kill(0);     // kill -9, { code, sig }
//   await c.restart(0);  // the same name and port again
//   await c.stop();      // everything; [{ name, code, sig }] of the nodes
//
// Every process unprivileged (as nobody when the test runs as root; nginx
// too; PostgreSQL by tests/tools/pg.sh), on 127.0.0.1; nginx connects to
// the nodes from 127.0.0.2, their --trust-proxy. stop() is to be called
// in a finally or an after(); a start that fails stops what it started,
// and what is left at the process's exit is killed.
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, startPostgres, serverBin } from '../integration/lib.mjs';
import { freePort, nginxDir, PROXY_ADDR } from '../tools/nginx.mjs';
import { sleep } from './pglib.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
const asRoot = process.getuid() === 0;

// Processes still running, killed if the test process exits without stop().
const live = new Set();
process.on('exit', () => {
    for (const p of live) {
        try { p.kill('SIGKILL'); } catch { /* gone */ }
    }
});

let clusters = 0;

// What the nodes read, where nobody can read it: a checkout may sit in a
// folder only its owner enters (a 0700 home, mktemp -d), so when the test
// runs as root the server, its migrations, the web client and rules.wasm
// are copied into a folder of their own under the temporary directory,
// readable by all. { bin, migrations, web, wasm, dir } (dir: null when the
// checkout's own files are used).
function readableCopy(bin) {
    const own = { bin, migrations: join(root, 'migrations'), web: join(root, 'web-client'),
        wasm: join(root, 'build/rules.wasm'), dir: null };
    if (!asRoot) return own;
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-cluster-files-'));
    chmodSync(dir, 0o755);
    const files = { bin: join(dir, 'chameleon'), migrations: join(dir, 'migrations'),
        web: join(dir, 'web-client'), wasm: join(dir, 'rules.wasm'), dir };
    cpSync(bin, files.bin);
    chmodSync(files.bin, 0o755);
    for (const k of ['migrations', 'web', 'wasm']) cpSync(own[k], files[k], { recursive: true });
    return files;
}

// Starts the cluster: opts.nodes (3), opts.leaseTtlMs (2000: take-overs
// within 2-3 s), opts.bin (the server: CHAMELEON_BIN or the debug build),
// opts.args (more flags for every node), opts.db (a database name, default
// chameleon_cluster_<pid>_<n>, created afresh). Resolves once /healthz
// answers 200 through nginx.
export async function startCluster(opts = {}) {
    const count = opts.nodes ?? 3;
    const ttl = opts.leaseTtlMs ?? 2000;
    const bin = opts.bin ?? serverBin;
    const pg = startPostgres();
    const files = readableCopy(bin);
    const parts = { pg, nodes: [], nginx: null, files };
    try {
        const pgUrl = pg.db(opts.db ?? `chameleon_cluster_${process.pid}_${clusters++}`);
        const [httpPort, httpsPort, redirectPort] = [await freePort(), await freePort(), await freePort()];
        const url = `http://127.0.0.1:${httpPort}`;
        const nodeArgs = (name, port) => ['--node', name, '--port', String(port),
            '--lease-ttl-ms', String(ttl), '--trust-proxy', PROXY_ADDR, '--public-url', url,
            '--web-root', files.web, '--wasm', files.wasm,
            ...(opts.args ?? [])];
        const startNode = async (node) => {
            const srv = await startServer(nodeArgs(node.name, node.port), {
                db: pgUrl, dir: node.dir, bin: files.bin, env: { CHAMELEON_MIGRATIONS: files.migrations },
                prefix: asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] : undefined,
            });
            live.add(srv.proc);
            srv.proc.once('exit', () => live.delete(srv.proc));
            Object.assign(node, { srv, proc: srv.proc, alive: true, stderr: srv.stderr });
            return node;
        };
        for (let i = 1; i <= count; i++) {
            // A folder of its own (startServer's fake web root, unused:
            // --web-root wins), readable by nobody.
            const dir = mkdtempSync(join(tmpdir(), `chameleon-cluster-n${i}-`));
            chmodSync(dir, 0o755);
            const port = await freePort();
            const node = { name: `n${i}`, port, dir, url: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/` };
            parts.nodes.push(node);
            await startNode(node);
        }

        // deploy/nginx-nodes.conf, its upstream the nodes: plain HTTP on
        // httpPort beside TLS on httpsPort.
        const ng = nginxDir();
        const ups = deployUpstream(parts.nodes.map((n) => n.port));
        ng.site('nginx-nodes.conf', [
            ...ups,
            ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;\n    listen 127.0.0.1:${httpPort};`],
            ['listen [::]:443 ssl http2;', ''],
            ['listen 80;', `listen 127.0.0.1:${redirectPort};`],
            ['listen [::]:80;', ''],
        ]);
        const checked = ng.check();
        if (!checked.ok) throw new Error('nginx -t refuses deploy/nginx-nodes.conf:\n' + checked.output);
        const run = ng.start();
        live.add(run.proc);
        run.proc.once('exit', () => live.delete(run.proc));
        parts.nginx = run;
        for (let i = 0; ; i++) {
            const r = await fetch(url + '/healthz').catch(() => null);
            if (r && r.status === 200) break;
            if (i > 150) throw new Error('nginx did not answer /healthz:\n' + run.log());
            await sleep(100);
        }

        const node = (i) => {
            const n = parts.nodes[i];
            if (!n) throw new Error(`no node ${i}`);
            return n;
        };
        return {
            url,
            ws: `ws://127.0.0.1:${httpPort}/ws`,
            https: `https://127.0.0.1:${httpsPort}`,
            pgUrl,
            nodes: parts.nodes,
            nginx: { pid: run.proc.pid, dir: ng.dir, conf: join(ng.dir, 'site.conf'), log: run.log, check: () => ng.check() },
            // kill -9 node i; resolves to its exit { code, sig } once it is gone.
            async kill(i) {
                const n = node(i);
                n.proc.kill('SIGKILL');
                n.alive = false;
                return n.srv.stop(true);
            },
            // Node i again, under its name and on its port (stopped with
            // SIGTERM first if it runs); resolves once it listens.
            async restart(i) {
                const n = node(i);
                if (n.alive) {
                    n.alive = false;
                    await n.srv.stop(true);
                }
                return startNode(n);
            },
            stop: () => stopAll(parts),
        };
    } catch (e) {
        await stopAll(parts).catch(() => {});
        throw e;
    }
}

// The upstream's server lines of deploy/nginx-nodes.conf replaced by one a
// port (the file holds 8081, 8082, 8083 with the same options).
function deployUpstream(ports) {
    const line = (p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`;
    const shipped = [8081, 8082, 8083].map(line);
    return [
        [shipped.join('\n    '), ports.map(line).join('\n    ')],
    ];
}

// Stops nodes (SIGTERM), nginx and PostgreSQL (if its own); the nodes'
// exit statuses, a node killed and not restarted as { sig: 'SIGKILL' }.
async function stopAll(parts) {
    const res = [];
    for (const n of parts.nodes) {
        if (n.srv) {
            const st = await n.srv.stop(true);
            n.alive = false;
            res.push({ name: n.name, ...st });
        }
        rmSync(n.dir, { recursive: true, force: true });
    }
    if (parts.nginx) await parts.nginx.stop();
    parts.pg.stop();
    if (parts.files.dir) rmSync(parts.files.dir, { recursive: true, force: true });
    return res;
}
