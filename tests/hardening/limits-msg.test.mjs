// Limits on messages, chat, seeks and the lobby (issue 18, items 6 and 7):
// messages per identity over all its connections, 1008 for a client that
// goes on past rate_limited, chat only from a room's watchers and at the
// identity's rate, lobby changes in one batch per tick, seek creations per
// identity. The real server on loopback; counts, not timings (where time
// matters, bounds are computed from the time measured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame } from '../integration/lib.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// The defaults (startServer lifts the messages per identity for the other
// suites).
const DEFAULTS = ['--messages-per-identity', '100'];

// The value of a metric line, labels included ('seeks_refused_total{limit="rate"}').
async function metric(srv, name) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`chameleon_${name} `));
    assert.ok(line, `metric ${name} in /metrics`);
    return Number(line.slice(line.lastIndexOf(' ') + 1));
}

// n connections of one identity (the first one's token).
async function tabs(srv, n) {
    const first = await connect(srv.url);
    const all = [first];
    for (let i = 1; i < n; i++) all.push(await connect(srv.url, { token: first.welcome.token }));
    for (const c of all) assert.equal(c.welcome.player.id, first.welcome.player.id);
    return all;
}

// Wait until every message of `ids` sent on c got its reply; their types.
async function replies(c, ids) {
    const out = [];
    for (const id of ids) out.push((await c.waitFor((m) => m.re === id, `reply ${id}`, 30000)));
    return out;
}

test('messages per identity: 20 connections of one token share 100 per 20 s; pings and other players are not held back', async (t) => {
    const srv = await startServer(DEFAULTS);
    try {
        const conns = await tabs(srv, 20);
        const PER = 8; // 160 messages: each connection alone is far below its own 200/s
        const t0 = Date.now();
        const sent = conns.map((c) => {
            const ids = [];
            for (let i = 0; i < PER; i++) {
                const id = c.nextId++;
                c.send({ type: 'lobby_watch', id });
                ids.push(id);
            }
            return ids;
        });
        const got = (await Promise.all(conns.map((c, i) => replies(c, sent[i])))).flat();
        const elapsed = Date.now() - t0;
        const ok = got.filter((m) => m.type === 'lobby').length;
        const limited = got.filter((m) => m.type === 'error' && m.code === 'rate_limited');
        assert.equal(ok + limited.length, 20 * PER, 'every message answered');
        t.diagnostic(`${20 * PER} messages from 20 connections of one identity: ${ok} answered, ${limited.length} rate_limited, in ${elapsed} ms`);
        // 100 at once, then 5 a second: a bound from the time it took.
        assert.ok(ok >= 100, `${ok} let through`);
        assert.ok(ok <= 100 + Math.ceil(elapsed * 5 / 1000) + 1, `${ok} let through in ${elapsed} ms`);
        assert.match(limited[0].reason, /per 20 s from one player/);
        assert.equal(limited[0].request, 'lobby_watch');
        // Nobody was closed: each connection stopped well before the close.
        await sleep(200);
        for (const c of conns) assert.equal(c.closed, null);
        // Pings are not counted against the identity.
        assert.equal((await conns[3].request({ type: 'ping' })).type, 'pong');
        // Another player is not held back.
        const other = await connect(srv.url);
        assert.equal((await other.request({ type: 'lobby_watch' })).type, 'lobby');
        assert.ok(await metric(srv, 'messages_throttled_total{scope="identity"}') >= limited.length);
        for (const c of [...conns, other]) c.close();
    } finally {
        await srv.stop();
    }
});

test('a socket that goes on after rate_limited is closed with 1008; one that stops is not', async () => {
    const srv = await startServer(DEFAULTS);
    try {
        // Stops: 105 messages (5 over), then quiet.
        const calm = await connect(srv.url);
        for (let i = 0; i < 105; i++) calm.send({ type: 'lobby_watch', id: 1000 + i });
        await calm.waitFor((m) => m.type === 'error' && m.code === 'rate_limited', 'first rate_limited');
        // Keeps going: 300 messages in a burst.
        const flood = await connect(srv.url);
        for (let i = 0; i < 300; i++) flood.send({ type: 'lobby_watch', id: 1000 + i });
        const err = flood.inbox.find((m) => m.type === 'error' && m.code === 'rate_limited') ||
            await flood.waitFor((m) => m.type === 'error' && m.code === 'rate_limited', 'rate_limited', 30000);
        assert.match(err.reason, /messages/);
        const closed = await flood.closed_();
        assert.equal(closed.code, 1008);
        assert.equal(closed.reason, 'rate_limited');
        // Less than the whole flood was answered before the close.
        const answered = flood.inbox.filter((m) => m.type === 'lobby' || m.type === 'error').length;
        assert.ok(answered < 150, `${answered} answered`);
        assert.ok(await metric(srv, 'excess_closes_total') >= 1);
        // The calm one is still there and is served once its budget refills.
        await sleep(1500);
        assert.equal(calm.closed, null);
        assert.equal((await calm.request({ type: 'ping' })).type, 'pong');
        assert.equal((await calm.request({ type: 'lobby_watch' })).type, 'lobby');
        calm.close();
    } finally {
        await srv.stop();
    }
});

test('chat: only from a room\'s watchers (not_joined), and 5 per 10 s per identity over all its connections', async () => {
    const srv = await startServer(DEFAULTS);
    try {
        const a = await connect(srv.url);
        const b = await connect(srv.url);
        const { room } = await startGame([a, b], 'ultima');
        // By number, without joining: refused, nothing broadcast.
        const outsider = await connect(srv.url);
        const e = await outsider.expectError({ type: 'chat', room, text: 'drive-by' }, 'not_joined');
        assert.match(e.reason, /join room/);
        // Joined: it goes through, to the spectators' room (a second
        // spectator reads it; the players get a skip: PROTOCOL.md chat).
        await outsider.request({ type: 'join', room });
        const watcher = await connect(srv.url);
        await watcher.request({ type: 'join', room });
        outsider.send({ type: 'chat', room, text: 'hello' });
        const ev = await watcher.event(room, 'chat');
        assert.equal(ev.text, 'hello');
        assert.equal(ev.seat, -1);
        assert.equal((await a.event(room, 'skip')).seq, ev.seq);
        assert.ok(!a.inbox.some((m) => m.type === 'event' && m.text === 'drive-by'));
        // 20 connections of one identity, all watching, one line each: 5 go.
        const conns = await tabs(srv, 20);
        for (const c of conns) await c.request({ type: 'join', room });
        const ids = conns.map((c, i) => {
            const id = c.nextId++;
            c.send({ type: 'chat', room, text: `spam ${i}`, id });
            return id;
        });
        const errs = [];
        for (let i = 0; i < conns.length; i++) {
            const r = await conns[i].waitFor((m) => m.re === ids[i] ||
                (m.type === 'event' && m.kind === 'chat' && m.text === `spam ${i}`), `chat ${i}`);
            if (r.type === 'error') errs.push(r);
        }
        assert.equal(errs.length, 15);
        for (const r of errs) assert.equal(r.code, 'rate_limited');
        await sleep(300);
        const seen = watcher.inbox.filter((m) => m.type === 'event' && m.kind === 'chat' && m.text.startsWith('spam'));
        assert.equal(seen.length, 5);
        assert.ok(await metric(srv, 'chat_refused_total{reason="not_joined"}') >= 1);
        assert.ok(await metric(srv, 'chat_refused_total{reason="rate"}') >= 15);
        for (const c of [a, b, outsider, watcher, ...conns]) c.close();
    } finally {
        await srv.stop();
    }
});

test('lobby: a storm of seeks created and cancelled reaches each watcher as a few batches, and they add up to the lobby', async (t) => {
    // The storm's own limits lifted: what is measured is the batching.
    const srv = await startServer(['--seeks-per-minute', '1000000', '--messages-per-identity', '1000000']);
    try {
        const watchers = [];
        for (let i = 0; i < 20; i++) {
            const w = await connect(srv.url);
            const l = await w.request({ type: 'lobby_watch' });
            w.state = new Map(l.seeks.map((s) => [s.id, s]));
            w.lastSeq = l.seq;
            w.updates = 0;
            w.ws.on('message', (data) => {
                const m = JSON.parse(data.toString());
                if (m.type !== 'lobby_update') return;
                w.updates++;
                assert.ok(m.seq === w.lastSeq + 1, `seq ${m.seq} after ${w.lastSeq}`);
                w.lastSeq = m.seq;
                for (const c of m.changes) {
                    if (c.op === 'remove') w.state.delete(c.seek.id); else w.state.set(c.seek.id, c.seek);
                }
            });
            watchers.push(w);
        }
        // Four players, at once, 12 rounds each: 5 seeks created and
        // cancelled at once, 5 created and cancelled 250 ms later (they
        // outlive a tick). About 70 messages a second per connection.
        const storms = [];
        for (let i = 0; i < 4; i++) storms.push(await connect(srv.url));
        const storm = storms[0];
        const ROUNDS = 12;
        const SEEKS = storms.length * ROUNDS * 10;
        const create = { type: 'seek_create', game: 'ultima', base_ms: 60000, inc_ms: 0 };
        const t0 = Date.now();
        await Promise.all(storms.map(async (c) => {
            for (let r = 0; r < ROUNDS; r++) {
                const held = [];
                for (let i = 0; i < 5; i++) {
                    const cr = await c.request(create);
                    assert.equal(cr.type, 'seek_created', JSON.stringify(cr));
                    held.push(cr.seek.id);
                    const flash = await c.request(create);
                    assert.equal(flash.type, 'seek_created', JSON.stringify(flash));
                    await c.request({ type: 'seek_cancel', seek: flash.seek.id });
                }
                await sleep(250);
                for (const id of held) await c.request({ type: 'seek_cancel', seek: id });
            }
        }));
        // Three stay open.
        const kept = [];
        for (let i = 0; i < 3; i++) {
            kept.push((await storm.request({ type: 'seek_create', game: 'ultima', base_ms: 60000, inc_ms: 0 })).seek.id);
        }
        const elapsed = Date.now() - t0;
        await sleep(1000); // the last batch goes out (200 ms ticks)
        const fresh = await watchers[0].request({ type: 'lobby_watch' });
        t.diagnostic(`${SEEKS} seeks created and cancelled in ${elapsed} ms: ${watchers[0].updates} lobby_update per watcher`);
        for (const w of watchers) {
            // At most one batch per tick: far fewer than the 803 changes.
            assert.ok(w.updates >= 1);
            assert.ok(w.updates <= Math.ceil(elapsed / 200) + 3, `${w.updates} batches in ${elapsed} ms`);
            assert.ok(w.updates * 10 < 2 * SEEKS, `${w.updates} batches for ${2 * SEEKS} changes`);
            // The batches added up to what the lobby holds.
            assert.deepEqual([...w.state.keys()].sort(), fresh.seeks.map((s) => s.id).sort());
        }
        assert.deepEqual(fresh.seeks.map((s) => s.id).sort(), kept.sort());
        assert.ok(await metric(srv, 'lobby_changes_total') >= 2 * SEEKS);
        const flushes = await metric(srv, 'lobby_flushes_total');
        assert.ok(flushes >= 1 && flushes <= watchers[0].updates + 1, `${flushes} flushes`);
        for (const w of [...watchers, ...storms]) w.close();
    } finally {
        await srv.stop();
    }
});

test('seeks per identity: at most 10 open, at most 20 created a minute (too_many_seeks); others unaffected', async () => {
    const srv = await startServer(DEFAULTS);
    try {
        const a = await connect(srv.url);
        const tc = { type: 'seek_create', game: 'ultima', base_ms: 60000, inc_ms: 0 };
        const open = [];
        for (let i = 0; i < 10; i++) open.push((await a.request(tc)).seek.id);
        const cap = await a.expectError(tc, 'too_many_seeks');
        assert.match(cap.reason, /at most 10 open seeks/);
        for (const id of open.splice(0)) assert.equal((await a.request({ type: 'seek_cancel', seek: id })).type, 'seek_cancelled');
        for (let i = 0; i < 10; i++) open.push((await a.request(tc)).seek.id);
        // 20 created: one cancelled leaves room under the cap, not under the rate.
        await a.request({ type: 'seek_cancel', seek: open.pop() });
        const rate = await a.expectError(tc, 'too_many_seeks');
        assert.match(rate.reason, /at most 20 new seeks a minute/);
        // Another connection of the same identity is held back too; another player is not.
        const tab = await connect(srv.url, { token: a.welcome.token });
        await tab.expectError(tc, 'too_many_seeks');
        const b = await connect(srv.url);
        assert.equal((await b.request(tc)).type, 'seek_created');
        assert.ok(await metric(srv, 'seeks_refused_total{limit="open"}') >= 1);
        assert.ok(await metric(srv, 'seeks_refused_total{limit="rate"}') >= 2);
        for (const c of [a, tab, b]) c.close();
    } finally {
        await srv.stop();
    }
});
