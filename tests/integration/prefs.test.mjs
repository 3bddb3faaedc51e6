// Preferences kept per account (issue 14; PROTOCOL.md "Preferences"):
// GET and POST /api/prefs with the session cookie. A bad body (not JSON,
// not an object, an unknown key, a value not allowed, too long) gets a
// clear 400 and changes nothing; no session gets 401; what is stored comes
// back in a canonical form, to another session of the same account, and
// after a restart of the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, register } from './lib.mjs';


async function login(srv, name) {
    const r = await fetch(`${srv.http}/api/login`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: name, password: 'correct horse' }),
    });
    assert.equal(r.status, 200);
    return r.headers.get('set-cookie').split(';')[0];
}

async function prefs(srv, cookie, body) {
    const r = await fetch(`${srv.http}/api/prefs`, body === undefined
        ? { headers: cookie ? { Cookie: cookie } : {} }
        : { method: 'POST', headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) }, body });
    return { status: r.status, json: await r.json() };
}

test('prefs: stored per account, checked, kept across sessions and restarts', async () => {
    const srv = await startServer();
    let stopped = false;
    try {
        const alice = await register(srv, 'alice_prefs');
        const bob = await register(srv, 'bob_prefs');
        // None yet: an empty object.
        assert.deepEqual(await prefs(srv, alice), { status: 200, json: { prefs: {} } });
        // Without a session: 401 for reading and writing.
        const anon = await prefs(srv, null);
        assert.equal(anon.status, 401);
        assert.equal(anon.json.error, 'account_required');
        assert.equal((await prefs(srv, null, '{"theme":"light"}')).status, 401);
        // Stored, and sent back in canonical order without spaces.
        const put = await prefs(srv, alice, JSON.stringify({ sound: false, lang: 'it', ultima_pieces: 'discs', theme: 'light', board: 'blue' }));
        assert.equal(put.status, 200, JSON.stringify(put.json));
        const want = { theme: 'light', board: 'blue', ultima_pieces: 'discs', lang: 'it', sound: false };
        assert.deepEqual(put.json.prefs, want);
        // Bad bodies: a clear 400 each, nothing changed.
        const bad = [
            ['not json', /JSON object/],
            ['[1,2]', /JSON object/],
            ['{"theme":"pink"}', /'theme' must be one of "dark", "light"/],
            ['{"colour":"red"}', /unknown preference 'colour'/],
            ['{"lang":"de"}', /'lang' must be one of "en", "fr", "it"/],
            ['{"sound":"yes"}', /'sound' must be one of true or false/],
            ['{"board":7}', /'board' must be one of/],
            [JSON.stringify({ theme: 'dark', pad: 'x'.repeat(2000) }), /over 1024 bytes/],
        ];
        for (const [body, why] of bad) {
            const r = await prefs(srv, alice, body);
            assert.equal(r.status, 400, body.slice(0, 40));
            assert.equal(r.json.error, 'bad_prefs');
            assert.match(r.json.reason, why);
        }
        assert.deepEqual((await prefs(srv, alice)).json.prefs, want, 'nothing changed by the bad ones');
        // Another session of the account (a new browser) reads the same;
        // another account has its own.
        const again = await login(srv, 'alice_prefs');
        assert.notEqual(again, alice);
        assert.deepEqual((await prefs(srv, again)).json.prefs, want);
        assert.deepEqual((await prefs(srv, bob)).json.prefs, {});
        // A part only: replaces the object (the client sends all it keeps).
        assert.deepEqual((await prefs(srv, bob, '{"theme":"dark"}')).json.prefs, { theme: 'dark' });
        // After a restart on the same database.
        const st = await srv.stop(true);
        stopped = true;
        assert.equal(st.code, 0, srv.stderr().slice(-2000));
        const srv2 = await startServer([], { dir: srv.dir });
        try {
            assert.deepEqual((await prefs(srv2, again)).json.prefs, want);
            assert.deepEqual((await prefs(srv2, bob)).json.prefs, { theme: 'dark' });
        } finally {
            const st2 = await srv2.stop();
            assert.equal(st2.code, 0, srv2.stderr().slice(-2000));
        }
    } finally {
        if (!stopped) await srv.stop();
    }
});

// Progress in the lessons (PROTOCOL.md "Lessons"): GET and POST
// /api/lessons with the session cookie, as the preferences are kept.
async function lessons(srv, cookie, body) {
    const r = await fetch(`${srv.http}/api/lessons`, body === undefined
        ? { headers: cookie ? { Cookie: cookie } : {} }
        : { method: 'POST', headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) }, body });
    return { status: r.status, json: await r.json() };
}

test('lessons: progress stored per account, checked, kept across sessions and restarts', async () => {
    const srv = await startServer();
    let stopped = false;
    try {
        const ann = await register(srv, 'ann_lessons');
        assert.deepEqual(await lessons(srv, ann), { status: 200, json: { lessons: {} } });
        const anon = await lessons(srv, null);
        assert.equal(anon.status, 401);
        assert.match(anon.json.reason, /lessons/);
        assert.equal((await lessons(srv, null, '{"ultima":["pincer"]}')).status, 401);
        const put = await lessons(srv, ann, JSON.stringify({ ultima: ['pincer', 'withdrawer', 'pincer'], ant2: ['ants'] }));
        assert.equal(put.status, 200, JSON.stringify(put.json));
        const want = { ultima: ['pincer', 'withdrawer'], ant2: ['ants'] };
        assert.deepEqual(put.json.lessons, want);
        for (const [body, why] of [
            ['not json', /JSON object/],
            ['{"chess":["a"]}', /not a game id/],
            ['{"ultima":"pincer"}', /list of at most 64/],
            ['{"ultima":["Pincer!"]}', /a-z, 0-9/],
            [JSON.stringify({ ultima: Array.from({ length: 65 }, (_, i) => `l${i}`) }), /at most 64/],
        ]) {
            const r = await lessons(srv, ann, body);
            assert.equal(r.status, 400, body.slice(0, 40));
            assert.equal(r.json.error, 'bad_argument');
            assert.match(r.json.reason, why);
        }
        const again = await login(srv, 'ann_lessons');
        assert.deepEqual((await lessons(srv, again)).json.lessons, want);
        // The preferences are another object.
        assert.deepEqual((await prefs(srv, again)).json.prefs, {});
        const st = await srv.stop(true);
        stopped = true;
        assert.equal(st.code, 0, srv.stderr().slice(-2000));
        const srv2 = await startServer([], { dir: srv.dir });
        try {
            assert.deepEqual((await lessons(srv2, again)).json.lessons, want);
        } finally {
            assert.equal((await srv2.stop()).code, 0, srv2.stderr().slice(-2000));
        }
    } finally {
        if (!stopped) await srv.stop();
    }
});
