// The relay between nodes in the server (--relay-channel NAME, server/cluster/relay.c;
// test_relay.c tests the module itself): with a PostgreSQL --db the server
// LISTENs on chameleon_node_NAME on a session of its own, /metrics shows
// chameleon_relay_* (and only then), a NOTIFY from elsewhere is received,
// and after pg_terminate_backend of the relay's session, or a restart of
// PostgreSQL (one of its own, tests/tools/pg.sh halt and resume), it is
// back and receives again; the flag is refused with a clear message on
// SQLite or with a bad name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, startPostgres, serverBin } from '../integration/lib.mjs';
import { psql, until } from './pglib.mjs';

let pg;
before(() => { pg = startPostgres(); });
after(() => pg.stop());

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const pgsh = (...args) => execFileSync('sh', [join(root, 'tests/tools/pg.sh'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

async function metrics(srv) {
    return (await fetch(`${srv.http}/metrics`)).text();
}

function metric(text, name) {
    const m = text.match(new RegExp(`^chameleon_${name} (\\S+)$`, 'm'));
    return m ? Number(m[1]) : undefined;
}

test('a server with --relay-channel listens, counts, and comes back after its session is ended', async () => {
    const db = pg.db('chameleon_it_relay');
    const srv = await startServer(['--relay-channel', 'n1'], { db });
    try {
        await until('the relay connected', async () => metric(await metrics(srv), 'relay_connected') === 1);
        let text = await metrics(srv);
        assert.equal(metric(text, 'relay_received_total'), 0);
        assert.equal(metric(text, 'relay_reconnects_total'), 0);
        assert.match(text, /^chameleon_relay_dropped_total\{reason="queue_full"\} 0$/m);

        psql(db, "NOTIFY chameleon_node_n1, 'hello'");
        psql(db, "NOTIFY chameleon_node_other, 'not for n1'");
        await until('the notification received', async () => metric(await metrics(srv), 'relay_received_total') === 1);

        const pid = psql(db, "SELECT pid FROM pg_stat_activity WHERE application_name = 'chameleon relay n1'");
        assert.match(pid, /^\d+$/, 'one relay session, named after its node');
        assert.equal(psql(db, `SELECT pg_terminate_backend(${pid})`), 't');
        await until('the relay back', async () => {
            text = await metrics(srv);
            return metric(text, 'relay_reconnects_total') === 1 && metric(text, 'relay_connected') === 1;
        });
        psql(db, "NOTIFY chameleon_node_n1, 'again'");
        await until('the next notification received', async () => metric(await metrics(srv), 'relay_received_total') === 2);
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr());
    }
});

test('without --relay-channel there is no relay and no relay metrics', async () => {
    const db = pg.db('chameleon_it_norelay');
    const srv = await startServer([], { db });
    try {
        assert.doesNotMatch(await metrics(srv), /chameleon_relay_/);
        assert.equal(psql(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'chameleon relay%'"), '0');
    } finally {
        assert.equal((await srv.stop()).code, 0, srv.stderr());
    }
});

test('--relay-channel is refused on SQLite and with a bad name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-relay-'));
    let r = spawnSync(serverBin, ['--port', '0', '--db', join(dir, 'x.db'), '--relay-channel', 'n1'],
        { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--relay-channel needs a PostgreSQL --db/);
    r = spawnSync(serverBin, ['--port', '0', '--db', pg.db('chameleon_it_relay_bad'), '--relay-channel', 'a"b'],
        { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--relay-channel wants a node name/);
});

test('the relay comes back after PostgreSQL restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-pgrelay-'));
    pgsh('start', dir);
    let srv;
    try {
        const db = pgsh('createdb', dir, 'chameleon_it_relay_restart');
        srv = await startServer(['--relay-channel', 'n2'], { db });
        await until('the relay connected', async () => metric(await metrics(srv), 'relay_connected') === 1);
        pgsh('halt', dir);
        await until('the relay down', async () => metric(await metrics(srv), 'relay_connected') === 0);
        pgsh('resume', dir);
        await until('the relay back', async () => {
            const text = await metrics(srv);
            return metric(text, 'relay_connected') === 1 && metric(text, 'relay_reconnects_total') >= 1;
        });
        psql(db, "NOTIFY chameleon_node_n2, 'after the restart'");
        await until('the notification received', async () => metric(await metrics(srv), 'relay_received_total') === 1);
    } finally {
        if (srv) assert.equal((await srv.stop()).code, 0, srv.stderr());
        pgsh('stop', dir);
    }
});
