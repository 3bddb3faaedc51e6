// Inputs that once killed the sanitizer build (make test runs it, and a
// release build would have read past them silently): a POST with
// Content-Length: 0 (a copy from a NULL body) on every POST route, and a
// tournament whose correspondence days are huge (the milliseconds of 10^12
// days overflowed before the range check). Each gets a clear 4xx answer,
// the server answers afterwards and exits cleanly (no sanitizer report).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer, connect, account, api } from '../integration/lib.mjs';

// A POST with an empty body and Content-Length: 0, as curl -d '' sends it.
function emptyPost(srv, path, cookie) {
    return new Promise((ok, fail) => {
        const headers = { 'content-length': '0', 'content-type': 'application/json' };
        if (cookie) headers.cookie = cookie;
        const req = request({ host: '127.0.0.1', port: srv.port, path, method: 'POST', agent: false, headers },
            (res) => {
                let text = '';
                res.on('data', (d) => { text += d; });
                res.on('end', () => ok({ status: res.statusCode, text }));
            });
        req.on('error', fail);
        req.end();
    });
}

test('POST with Content-Length: 0 and huge correspondence days: 4xx, the server lives', async () => {
    const srv = await startServer();
    try {
        const a = await account(srv, 'ov');
        for (const corr of [{ days: 1e12 }, { days: 3, inc_days: 1, cap_days: 1e12 },
            { days: 3, inc_days: 1e12 }, { days: -1e12 }, { days: 3, inc_days: 1, cap_days: -1e12 }]) {
            const r = await api(srv, 'POST', '/api/tournaments', { name: 'Overflow', game: 'ultima', size: 4, corr },
                a.cookie);
            assert.equal(r.status, 400, `${JSON.stringify(corr)}: ${r.text}`);
            assert.equal(r.json.error, 'bad_time_control', r.text);
        }
        // Last: the empty POST to /api/logout ends the session.
        const paths = ['/api/register', '/api/login', '/api/logout', '/api/tournaments', '/api/tournaments/1/join',
            '/api/push/subscribe', '/api/prefs', '/api/vacation', '/api/password', '/api/nothing-here'];
        for (const p of paths) {
            for (const cookie of [undefined, a.cookie]) {
                const r = await emptyPost(srv, p, cookie);
                assert.ok(r.status >= 200 && r.status < 500, `${p}: ${r.status} ${r.text}`);
            }
        }
        const c = await connect(srv.url);
        assert.equal(c.welcome.type, 'welcome');
        c.close();
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});
