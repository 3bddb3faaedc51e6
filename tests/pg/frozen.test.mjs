// The loop never waits on PostgreSQL (issue 20): the store's rare calls
// (a WebSocket's session cookie, log in, preferences) are queued to its
// writer like the moves, so a database that stops answering holds only
// the requests that need it. The server's own backends are frozen
// (SIGSTOP: a PostgreSQL that hangs, not one that refuses); meanwhile
//   - a connected player's ping is answered, and a guest says hello;
//   - a WebSocket with a session cookie waits for its account (its hello
//     and the message after it are kept, in order), and so do a log in and
//     GET /api/prefs;
// then the backends go on (SIGCONT): the waiting hello is answered as the
// account, then the message after it, and the log in and the preferences
// are answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, Client, startPostgres } from '../integration/lib.mjs';
import { psql } from './pglib.mjs';

let pg;
before(() => { pg = startPostgres(); });
after(() => pg.stop());


// The pids of the server's own backends (application_name chameleon[pid]-...).
function backends(db, pid) {
    const out = psql(db, `SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'chameleon[${pid}]%'`);
    return out.split('\n').filter(Boolean).map(Number);
}

const settle = (ms) => new Promise((ok) => setTimeout(ok, ms));

test('a frozen PostgreSQL holds what needs it, not the loop', async () => {
    const db = pg.db('chameleon_it_frozen');
    const srv = await startServer([], { db });
    let frozen = [];
    try {
        const post = (path, body, headers = {}) => fetch(srv.http + path, {
            method: 'POST', body: JSON.stringify(body),
            headers: { 'Content-Type': 'application/json', ...headers },
        });
        const reg = await post('/api/register', { username: 'Frida', password: 'correct horse' });
        assert.equal(reg.status, 200);
        const cookie = reg.headers.get('set-cookie').split(';')[0];
        const guest = await connect(srv.url);

        frozen = backends(db, srv.pid);
        assert.ok(frozen.length >= 2, `the server's backends: ${frozen}`);
        for (const p of frozen) process.kill(p, 'SIGSTOP');

        // The cookie's session: hello and the next message wait, kept.
        const member = await new Client(srv.url, { Cookie: cookie }).open();
        const welcome = member.request({ type: 'hello' }, 60000);
        const pong = member.request({ type: 'ping' }, 60000);
        pong.catch(() => {});
        let answered = false;
        welcome.then(() => { answered = true; }, () => {});
        const login = post('/api/login', { username: 'frida', password: 'correct horse' });
        login.catch((e) => console.error('login', e, e.cause));
        const prefs = fetch(srv.http + '/api/prefs', { headers: { Cookie: cookie } });
        prefs.catch((e) => console.error('prefs', e.cause));

        // The loop goes on: pings, a new guest, /healthz.
        for (let i = 0; i < 5; i++) {
            const t0 = Date.now();
            await guest.request({ type: 'ping' });
            assert.ok(Date.now() - t0 < 5000, 'a ping answered while PostgreSQL is frozen');
            await settle(200);
        }
        const other = await connect(srv.url);
        assert.ok(other.welcome.token, 'a guest says hello');
        other.close();
        const hz = await fetch(srv.http + '/healthz');
        assert.ok(hz.status === 200 || hz.status === 503, `healthz answers (${hz.status})`);
        assert.equal(answered, false, 'the cookie\'s hello waits for its account');

        for (const p of frozen) process.kill(p, 'SIGCONT');
        frozen = [];
        const w = await welcome;
        assert.equal(w.account, 'Frida', 'the waiting hello is answered as the account');
        await pong;
        const li = await login;
        assert.equal(li.status, 200);
        const pr = await prefs;
        assert.equal(pr.status, 200);
        assert.ok((await pr.json()).prefs);
        member.close();
        guest.close();
    } finally {
        for (const p of frozen) process.kill(p, 'SIGCONT');
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});
