// Several nodes behind nginx, as docs/OPERATING.md ("Several nodes") runs
// them (tests/pg/cluster.mjs: one PostgreSQL, three nodes n1..n3, nginx with
// deploy/nginx-nodes.conf, all on loopback, unprivileged). Through nginx:
// the rendered site passes `nginx -t`; /healthz and the web client answer
// (with the shared snippet's headers; /healthz over TLS and HTTP/2 too); a WebSocket says hello and pings;
// WebSockets opened one after another spread over every node (least_conn,
// counted by each node's chameleon_connections); a node killed with kill -9
// is passed over (nginx's log shows the refused connect to it, and every
// new WebSocket and request succeeds on the others); started again under
// its name and port, it gets connections again. Forwarding between nodes
// is not tested here (tests/pg/takeover.test.mjs and what follows it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from '../integration/lib.mjs';
import { h2get } from '../deploy/nginx.mjs';
import { startCluster } from './cluster.mjs';
import { sleep, until } from './pglib.mjs';


// A node's open WebSockets, from its own /metrics (not through nginx).
async function connections(node) {
    const text = await (await fetch(node.url + '/metrics')).text();
    const m = text.match(/^chameleon_connections (\d+)$/m);
    assert.ok(m, 'chameleon_connections in /metrics');
    return Number(m[1]);
}

// A WebSocket through nginx that said hello and got its pong.
async function player(c) {
    const p = await connect(c.ws);
    assert.equal(p.welcome.type, 'welcome', JSON.stringify(p.welcome));
    assert.equal((await p.request({ type: 'ping' })).type, 'pong');
    return p;
}

let c;
const open = [];
before(async () => {
    c = await startCluster({ nodes: 3, leaseTtlMs: 2000 });
});
after(async () => {
    for (const p of open) p.close();
    if (!c) return;
    const sts = await c.stop();
    // Every node left running stops cleanly (the sanitizers make a leak
    // a non-zero exit).
    for (const st of sts) assert.equal(st.code, 0, `${st.name}: ${JSON.stringify(st)}`);
});

test('nginx -t takes the rendered deploy/nginx-nodes.conf; every process unprivileged', () => {
    const r = c.nginx.check();
    assert.ok(r.ok, r.output);
    const site = readFileSync(c.nginx.conf, 'utf8');
    assert.match(site, /least_conn;/);
    for (const n of c.nodes) assert.ok(site.includes(`server 127.0.0.1:${n.port} max_fails=1`), site);
    assert.match(site, /proxy_next_upstream error timeout;/);
    assert.match(site, /include \S+chameleon-proxy\.conf;/);
    // Three nodes of one database, by name.
    const names = execFileSync('psql', [c.pgUrl, '-Atc', 'SELECT name FROM nodes ORDER BY name'],
        { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(names, ['n1', 'n2', 'n3']);
    if (process.getuid() === 0) {
        for (const pid of [...c.nodes.map((n) => n.proc.pid), c.nginx.pid]) {
            const uid = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)[1];
            assert.notEqual(uid, '0', `process ${pid} runs as root`);
        }
    }
});

test('/healthz, the web client, a WebSocket hello and ping through nginx', async () => {
    const h = await fetch(c.url + '/healthz');
    assert.equal(h.status, 200);
    assert.equal((await h.json()).status, 'ok');
    const page = await fetch(c.url + '/');
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title[^>]*>chameleon/);
    // The snippet's headers (deploy/nginx-proxy.conf) on a static file.
    assert.match(page.headers.get('cache-control'), /max-age=3600/);
    assert.ok(page.headers.get('strict-transport-security'));
    assert.ok(page.headers.get('etag'));
    // The file's TLS server, HTTP/2 (a certificate made by the test).
    const tls = await h2get(c.https, '/healthz');
    assert.equal(tls.status, 200);
    assert.equal(tls.alpn, 'h2');
    const p = await player(c);
    open.push(p);
});

test('WebSockets spread over the nodes; a node killed is passed over, then serves again', async () => {
    for (const p of open.splice(0)) p.close();
    await until('no connection left', async () =>
        (await Promise.all(c.nodes.map(connections))).every((n) => n === 0));
    // Six, one after another: least_conn gives each to a node with the
    // fewest (two each); more than one node must have some.
    const first = [];
    for (let i = 0; i < 6; i++) first.push(await player(c));
    open.push(...first);
    const counts = await Promise.all(c.nodes.map(connections));
    assert.equal(counts.reduce((a, b) => a + b, 0), 6, `per node: ${counts}`);
    assert.ok(counts.every((n) => n >= 1), `every node got some: ${counts}`);
    console.log(`6 WebSockets through nginx, per node: ${counts.join(', ')}`);

    // kill -9 the first node that has some; nginx closes its clients.
    const k = counts.findIndex((n) => n > 0);
    const dead = c.nodes[k];
    assert.equal((await c.kill(k)).sig, 'SIGKILL');
    await until(`the ${counts[k]} WebSockets of ${dead.name} closed`,
        () => first.filter((p) => p.closed).length === counts[k]);
    // It now has the fewest connections: least_conn picks it first, the
    // connect is refused and the request goes to the next node.
    const refused = () => (c.nginx.log().match(
        new RegExp(`connect\\(\\) failed \\(111: Connection refused\\)[^\\n]*upstream: "http://127\\.0\\.0\\.1:${dead.port}/`, 'g')) || []).length;
    const before = refused();
    const after = [];
    for (let i = 0; i < 6; i++) after.push(await player(c));
    open.push(...after);
    for (let i = 0; i < 5; i++) {
        const r = await fetch(c.url + '/healthz');
        assert.equal(r.status, 200);
        await r.arrayBuffer();
    }
    assert.equal((await fetch(c.url + '/')).status, 200);
    assert.ok(refused() > before, 'nginx tried the dead node and went on:\n' + c.nginx.log());
    const live = c.nodes.filter((n) => n !== dead);
    const liveCounts = await Promise.all(live.map(connections));
    assert.equal(liveCounts.reduce((a, b) => a + b, 0), 6 - counts[k] + 6, `live nodes: ${liveCounts}`);

    // Started again under its name and port: it answers, and once nginx
    // tries it again (fail_timeout, 5 s) new WebSockets reach it.
    const startedAt = Date.now();
    await c.restart(k);
    const h = await fetch(dead.url + '/healthz');
    assert.equal(h.status, 200);
    await h.arrayBuffer();
    await until(`WebSockets through nginx on ${dead.name} again`, async () => {
        open.push(await player(c));
        return (await connections(dead)) > 0;
    }, 30000);
    console.log(`${dead.name} back in nginx's rotation ${Date.now() - startedAt} ms after its restart`);
    // The players of the other nodes were never disturbed.
    for (const p of after) assert.equal((await p.request({ type: 'ping' })).type, 'pong');
});
