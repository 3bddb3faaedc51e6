// JSON with a key twice ({"a":1,"a":2}) is refused everywhere the server
// reads JSON from outside (protocol/jsonin.h), never read as "the last
// one wins": each HTTP API body that takes JSON and WebSocket messages
// (a duplicate at the top and inside a nested object) get a clear error
// naming the key, with the status and code of a malformed body; the
// connection stays; and a dump of the database (sqlite3 .dump, the server
// stopped) is the same before and after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startServer, connect } from '../integration/lib.mjs';

const dump = (dir) => execFileSync('sqlite3', [join(dir, 'test.db'), '.dump'], { encoding: 'utf8' });

async function post(srv, path, body, cookie) {
    const r = await fetch(srv.http + path, {
        method: 'POST', body, headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: r.status, json, text, cookie: r.headers.get('set-cookie') };
}

const ARGS = ['--vapid-subject', 'mailto:ops@example.org', '--push-allow-http', '1', '--push-allow-loopback', '1',
    '--smtp-url', 'smtp://127.0.0.1:9', '--mail-from', 'chameleon@example.org', '--public-url', 'http://127.0.0.1:1'];

test('a duplicate key in an HTTP body or a WebSocket message: a clear error, nothing changes', { timeout: 120000 }, async () => {
    // An account and a tournament, written by a first server, then dumped.
    let srv = await startServer(ARGS);
    const dir = srv.dir;
    let cookie;
    let tourney;
    try {
        const r = await post(srv, '/api/register', JSON.stringify({ username: 'dora_d', password: 'correct horse' }));
        assert.equal(r.status, 200, r.text);
        cookie = r.cookie.split(';')[0];
        const p = await post(srv, '/api/prefs', '{"theme":"light"}', cookie);
        assert.equal(p.status, 200, p.text);
        const t = await post(srv, '/api/tournaments', JSON.stringify({
            name: 'Dup cup', game: 'ultima', size: 4, corr: { days: 3 },
        }), cookie);
        assert.equal(t.status, 200, t.text);
        tourney = t.json.id;
    } finally {
        assert.equal((await srv.stop(true)).code, 0);
    }
    const before = dump(dir);

    srv = await startServer(ARGS, { dir });
    try {
        // Each body is valid but for its repeated key (both values valid:
        // whichever won, something would change).
        const cases = [
            ['/api/register', '{"username":"erin_d","password":"correct horse","username":"fred_d"}', 400, 'bad_message', 'username'],
            ['/api/login', '{"username":"dora_d","password":"wrong horse!","password":"correct horse"}', 400, 'bad_message', 'password'],
            ['/api/prefs', '{"theme":"dark","theme":"light","board":"blue"}', 400, 'bad_prefs', 'theme'],
            ['/api/mail/address', '{"address":"a@example.org","address":"b@example.org"}', 400, 'bad_message', 'address'],
            ['/api/mail/prefs', '{"move":true,"move":false}', 400, 'bad_message', 'move'],
            ['/api/password/forgot', '{"login":"dora_d","login":"other"}', 400, 'bad_message', 'login'],
            ['/api/push/subscribe', '{"endpoint":"http://127.0.0.1:9/a","endpoint":"http://127.0.0.1:9/b","keys":{"p256dh":"x","auth":"y"}}',
                400, 'bad_message', 'endpoint'],
            ['/api/push/unsubscribe', '{"endpoint":"http://127.0.0.1:9/a","endpoint":"http://127.0.0.1:9/b"}', 400, 'bad_message', 'endpoint'],
            ['/api/tournaments', '{"name":"Two","game":"ultima","size":4,"corr":{"days":3,"days":5}}', 400, 'bad_argument', 'days'],
            [`/api/tournaments/${tourney}/remove`, '{"username":"dora_d","username":"erin_d"}', 400, 'bad_message', 'username'],
        ];
        for (const [path, body, status, code, key] of cases) {
            const r = await post(srv, path, body, cookie);
            assert.equal(r.status, status, `${path}: ${r.text}`);
            assert.equal(r.json?.error, code, `${path}: ${r.text}`);
            assert.match(r.json.reason, new RegExp(`duplicate key "${key}"`), `${path}: ${r.json.reason}`);
        }
        // The account is as it was: the preferences kept, no new account.
        const p = await fetch(`${srv.http}/api/prefs`, { headers: { Cookie: cookie } });
        assert.deepEqual((await p.json()).prefs, { theme: 'light' });
        assert.equal((await fetch(`${srv.http}/api/profile/erin_d`)).status, 404);
        assert.equal((await fetch(`${srv.http}/api/profile/fred_d`)).status, 404);

        // WebSocket: a duplicate at the top and in a nested object.
        const c = await connect(srv.url, {}, { Cookie: cookie });
        for (const [text, key] of [
            ['{"type":"seek_create","id":5,"game":"ultima","game":"yalta","base_ms":60000,"inc_ms":0}', 'game'],
            ['{"type":"seek_create","id":6,"game":"ultima","corr":{"days":3,"days":1}}', 'days'],
            ['{"type":"chat","id":7,"id":8,"room":1,"text":"hi"}', 'id'],
        ]) {
            c.sendRaw(text);
            const m = await c.waitFor((x) => x.type === 'error', `the error for ${text}`);
            assert.equal(m.code, 'bad_json', JSON.stringify(m));
            assert.match(m.reason, new RegExp(`duplicate key "${key}"`), m.reason);
            const pong = await c.request({ type: 'ping' });
            assert.equal(pong.type, 'pong', 'the connection stays');
        }
        const lobby = await c.request({ type: 'lobby_watch' });
        assert.equal(lobby.type, 'lobby');
        assert.deepEqual(lobby.seeks, [], 'no seek created');
        c.close();
    } finally {
        const st = await srv.stop(true);
        const after = dump(dir);
        rmSync(dir, { recursive: true, force: true });
        assert.equal(st.code, 0, srv.stderr().slice(-2000));
        assert.equal(after, before, 'the database dump is the same before and after');
    }
});
