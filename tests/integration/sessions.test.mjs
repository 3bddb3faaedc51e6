// An account's sessions (PROTOCOL.md, "Accounts"): GET /api/sessions lists
// its logins with the browser each logged in from and which is the asker's;
// POST /api/sessions/end ends one or every other one. A login ended stops
// at once: its cookie names no account any more, and its open WebSocket is
// closed (1001) and comes back as a guest; the asker's own stays. Another
// account's logins are out of reach; bad bodies get 400, no session 401.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, connect } from './lib.mjs';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0';
const PHONE = 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36';

// POST /api/login from a browser of this User-Agent: its cookie.
async function loginFrom(srv, name, agent) {
    const r = await fetch(`${srv.http}/api/login`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', 'User-Agent': agent },
        body: JSON.stringify({ username: name, password: 'correct horse' }),
    });
    assert.equal(r.status, 200, await r.text());
    return r.headers.get('set-cookie').split(';')[0];
}

test('sessions: listed with their browsers, one ended, then every other; their sockets come back as guests', async () => {
    const srv = await startServer();
    try {
        const reg = await api(srv, 'POST', '/api/register', { username: 'sess_ann', password: 'correct horse' });
        assert.equal(reg.status, 200);
        const desk = await loginFrom(srv, 'sess_ann', FIREFOX);
        const phone = await loginFrom(srv, 'sess_ann', PHONE);
        const other = (await api(srv, 'POST', '/api/register', { username: 'sess_bob', password: 'correct horse' })).cookie;

        // Without a session, or with one that names no account: 401.
        assert.equal((await api(srv, 'GET', '/api/sessions')).status, 401);
        const forged = await api(srv, 'GET', '/api/sessions', undefined, `chameleon_session=${'ab'.repeat(32)}`);
        assert.equal(forged.status, 401);
        assert.equal(forged.json.error, 'account_required');

        const list = await api(srv, 'GET', '/api/sessions', undefined, desk);
        assert.equal(list.status, 200, list.text);
        const { sessions } = list.json;
        assert.equal(sessions.length, 3, JSON.stringify(sessions));
        assert.deepEqual(sessions.map((s) => s.current), [false, true, false], 'newest first, the asker flagged');
        assert.equal(sessions[1].agent, FIREFOX);
        assert.equal(sessions[0].agent, PHONE);
        for (const s of sessions) {
            assert.match(s.id, /^[0-9a-f]{64}$/);
            assert.ok(s.expires_ms > s.created_ms);
        }
        // Bob sees only his own.
        const bobs = await api(srv, 'GET', '/api/sessions', undefined, other);
        assert.equal(bobs.json.sessions.length, 1);

        // Bad bodies: a clear 400, nothing ended.
        for (const body of ['{}', '{"id":"xyz"}', '{"others":false}', `{"id":"${sessions[0].id}","others":true}`, 'nope', '[]']) {
            const r = await fetch(`${srv.http}/api/sessions/end`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: desk }, body });
            assert.equal(r.status, 400, body);
            assert.ok((await r.json()).reason, body);
        }
        // Bob cannot end Ann's phone: nothing ends.
        const cross = await api(srv, 'POST', '/api/sessions/end', { id: sessions[0].id }, other);
        assert.deepEqual(cross.json, { ended: 0 });

        // The phone's socket, logged in; the desk's too.
        const phoneWs = await connect(srv.url, {}, { Cookie: phone });
        const deskWs = await connect(srv.url, {}, { Cookie: desk });
        assert.equal(phoneWs.welcome.account, 'sess_ann');

        // The desk ends the phone: its cookie is nobody's, its socket is closed.
        const one = await api(srv, 'POST', '/api/sessions/end', { id: sessions[0].id }, desk);
        assert.deepEqual(one.json, { ended: 1 });
        assert.equal(one.cookie, '', 'the asker keeps its cookie');
        const closed = await phoneWs.closed_();
        assert.equal(closed.code, 1001);
        assert.equal((await api(srv, 'GET', '/api/sessions', undefined, phone)).status, 401);
        const again = await connect(srv.url, {}, { Cookie: phone });
        assert.equal(again.welcome.account, null, 'back as a guest');
        again.close();

        // Every other one: the first login (no browser named) goes; the desk stays.
        const rest = await api(srv, 'POST', '/api/sessions/end', { others: true }, desk);
        assert.deepEqual(rest.json, { ended: 1 });
        const left = (await api(srv, 'GET', '/api/sessions', undefined, desk)).json.sessions;
        assert.equal(left.length, 1);
        assert.equal(left[0].current, true);
        assert.equal(deskWs.closed, null, "the asker's own socket stays");
        const vac = await deskWs.request({ type: 'vacation_status' });
        assert.notEqual(vac.type, 'error', JSON.stringify(vac)); /* still the account's */
        assert.deepEqual((await api(srv, 'POST', '/api/sessions/end', { others: true }, desk)).json, { ended: 0 });

        // Ending one's own is logging out: the cookie is cleared.
        const self = await api(srv, 'POST', '/api/sessions/end', { id: left[0].id }, desk);
        assert.deepEqual(self.json, { ended: 1 });
        assert.match(self.cookie, /^chameleon_session=$/);
        assert.equal((await deskWs.closed_()).code, 1001);
        assert.equal((await api(srv, 'GET', '/api/sessions', undefined, desk)).status, 401);
        // Bob's login was never touched.
        assert.equal((await api(srv, 'GET', '/api/sessions', undefined, other)).status, 200);
    } finally {
        await srv.stop();
    }
});
