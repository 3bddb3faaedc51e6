// Tournaments' requests sent all at once (PROTOCOL.md "Tournaments"):
// their writes are queued (the loop never waits on the database), a
// tournament takes them one at a time and checks each against what is
// committed, so that concurrent requests answer as if they came one after
// the other: never more entrants than seats, never more open tournaments
// than a director may hold, the first unknown name of an invitation list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, account } from './lib.mjs';



async function stopOk(srv) {
    const st = await srv.stop();
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
}

test('six joins at once for four seats: four in, the start once, two refused', async () => {
    const srv = await startServer();
    try {
        const director = await account(srv, 'tt');
        const players = [];
        for (let i = 0; i < 6; i++) players.push(await account(srv, 'tj'));
        const mk = await api(srv, 'POST', '/api/tournaments', {
            name: 'Rush', game: 'ultima', size: 4, corr: { days: 3 },
        }, director.cookie);
        assert.equal(mk.status, 200, mk.text);
        const id = mk.json.id;
        const answers = await Promise.all(players.map((p) =>
            api(srv, 'POST', `/api/tournaments/${id}/join`, {}, p.cookie)));
        const ok = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status !== 200);
        assert.equal(ok.length, 4, answers.map((a) => a.text).join('\n'));
        assert.equal(refused.length, 2);
        for (const r of refused) {
            assert.equal(r.status, 409);
            // In turn after the fourth: the tournament has started.
            assert.equal(r.json.error, 'bad_state', r.text);
        }
        // Each answer is the tournament as committed after that join: one
        // to four entrants, and only the fourth's has started.
        assert.deepEqual(ok.map((a) => a.json.entrants.length).sort(), [1, 2, 3, 4]);
        const started = ok.filter((a) => a.json.state === 'running');
        assert.equal(started.length, 1);
        assert.equal(started[0].json.entrants.length, 4);
        assert.equal(started[0].json.schedule.length, 6);
        const t = (await api(srv, 'GET', `/api/tournaments/${id}`)).json;
        assert.equal(t.state, 'running');
        assert.deepEqual(t.entrants.map((e) => e.idx).sort(), [0, 1, 2, 3]);
        assert.deepEqual(t.schedule, started[0].json.schedule);
    } finally {
        await stopOk(srv);
    }
});

test('seven creations at once by one director: five open, two refused', async () => {
    const srv = await startServer();
    try {
        const director = await account(srv, 'tc');
        const invited = await account(srv, 'ti');
        const answers = await Promise.all(Array.from({ length: 7 }, (_, i) =>
            api(srv, 'POST', '/api/tournaments', {
                name: `Burst ${i}`, game: 'ultima', size: 3, corr: { days: 3 }, invite: [invited.name],
            }, director.cookie)));
        assert.equal(answers.filter((a) => a.status === 200).length, 5,
            answers.map((a) => a.text).join('\n'));
        const refused = answers.filter((a) => a.status !== 200);
        assert.equal(refused.length, 2);
        for (const r of refused) assert.equal(r.json.error, 'too_many_tournaments');
        const list = (await api(srv, 'GET', '/api/tournaments')).json.tournaments;
        assert.equal(list.filter((x) => x.state === 'open').length, 5);
        for (const a of answers.filter((x) => x.status === 200))
            assert.deepEqual(a.json.entrants.map((e) => [e.username, e.status]),
                [[invited.name, 'invited']]);
    } finally {
        await stopOk(srv);
    }
});

test('an invitation list is looked up at once: the first unknown name is the answer', async () => {
    const srv = await startServer();
    try {
        const director = await account(srv, 'td');
        const a = await account(srv, 'tk'), b = await account(srv, 'tk');
        const bad = await api(srv, 'POST', '/api/tournaments', {
            name: 'Names', game: 'ultima', size: 3, corr: { days: 3 },
            invite: [a.name, 'nobody_first', b.name, 'nobody_second'],
        }, director.cookie);
        assert.equal(bad.status, 400);
        assert.equal(bad.json.error, 'unknown_player');
        assert.equal(bad.json.reason, 'no account named nobody_first');
        // Names as registered, each once, in the list's order.
        const good = await api(srv, 'POST', '/api/tournaments', {
            name: 'Names', game: 'ultima', size: 3, corr: { days: 3 },
            invite: [b.name.toUpperCase(), a.name, b.name],
        }, director.cookie);
        assert.equal(good.status, 200, good.text);
        assert.deepEqual(good.json.entrants.map((e) => e.username), [b.name, a.name]);
        assert.equal((await api(srv, 'GET', '/api/tournaments')).json.tournaments.length, 1);
    } finally {
        await stopOk(srv);
    }
});
