// Live clocks start as on lichess (PROTOCOL.md, room: `clocks`): a seat's
// clock does not run before its first move, nor gets the increment for
// it; it runs from its second turn on. Abort stays allowed until every
// seat has moved; a seat that does not make its first move within
// --first-move-seconds ends the game, aborted. Two and three players.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, bySeatOf } from './lib.mjs';

let srv;
before(async () => { srv = await startServer(['--first-move-seconds', '2']); });
after(async () => { await srv.stop(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('two players: no clock runs before each seat has moved once', async () => {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], 'ultima', { base_ms: 60000, inc_ms: 5000 });
    const bySeat = bySeatOf([a, b], states);
    assert.equal(states[0].clock_running, false, 'White\'s clock waits for her first move');
    assert.deepEqual(states[0].clocks, [60000, 60000]);
    await sleep(300);
    // A state asked for now: still full time.
    const view = await a.request({ type: 'join', room });
    assert.deepEqual(view.clocks, [60000, 60000]);
    assert.equal(view.clock_running, false);

    bySeat[0].send({ type: 'move', room, move: states[0].legal[0] });
    const e1 = await a.event(room, 'move');
    assert.deepEqual(e1.clocks, [60000, 60000], 'no time charged, no increment for a first move');
    assert.equal(e1.clock_running, false, 'Black\'s clock waits for his first move');
    await sleep(300);
    bySeat[1].send({ type: 'move', room, move: e1.legal[0] });
    const e2 = await a.event(room, 'move');
    assert.deepEqual(e2.clocks, [60000, 60000]);
    assert.equal(e2.clock_running, true, 'from White\'s second move on, clocks run');
    await sleep(300);
    bySeat[0].send({ type: 'move', room, move: e2.legal[0] });
    const e3 = await a.event(room, 'move');
    assert.ok(e3.clocks[0] < 65000 && e3.clocks[0] > 60000, `White was charged her think and got the increment: ${e3.clocks}`);
    assert.equal(e3.clocks[1], 60000);
    assert.equal(e3.clock_running, true);
    // Everyone has moved: no abort now.
    await bySeat[0].expectError({ type: 'abort', room }, 'cannot_abort');
    bySeat[0].send({ type: 'resign', room });
    await a.event(room, 'left');
    a.close(); b.close();
});

test('two players: abort is allowed after the first move, before the second', async () => {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], 'rollerball', { base_ms: 60000, inc_ms: 0 });
    const bySeat = bySeatOf([a, b], states);
    bySeat[0].send({ type: 'move', room, move: states[0].legal[0] });
    await a.event(room, 'move');
    bySeat[1].send({ type: 'abort', room });
    const end = await a.event(room, 'end');
    assert.equal(end.result.reason, 'aborted');
    a.close(); b.close();
});

test('a seat that does not make its first move in time: the game is aborted, nobody flags', async () => {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room, states } = await startGame([a, b], 'ultima', { base_ms: 1000, inc_ms: 0 });
    const bySeat = bySeatOf([a, b], states);
    // White plays at once; Black never does (1 s of clock, 2 s for the
    // first move): the game is aborted, not lost on time.
    bySeat[0].send({ type: 'move', room, move: states[0].legal[0] });
    await a.event(room, 'move');
    const end = await a.waitFor((m) => m.type === 'event' && m.room === room && (m.kind === 'end' || m.kind === 'left'), 'the end', 10000);
    assert.equal(end.kind, 'end');
    assert.equal(end.result.reason, 'aborted');
    assert.equal(end.result.winner, -1);
    assert.deepEqual(end.clocks, [1000, 1000]);
    a.close(); b.close();
});

test('three players: each clock starts at its own second turn', async () => {
    const p = [await connect(srv.url), await connect(srv.url), await connect(srv.url)];
    const { room, states } = await startGame(p, 'yalta', { base_ms: 60000, inc_ms: 0 });
    const bySeat = bySeatOf(p, states);
    let legal = states[0].legal;
    for (let s = 0; s < 3; s++) {
        bySeat[s].send({ type: 'move', room, move: legal[0] });
        const e = await p[0].event(room, 'move');
        assert.deepEqual(e.clocks, [60000, 60000, 60000]);
        // After the third seat's first move, the first seat's clock runs.
        assert.equal(e.clock_running, s === 2, `after seat ${s}'s first move`);
        legal = e.legal;
    }
    await sleep(200);
    bySeat[0].send({ type: 'move', room, move: legal[0] });
    const e = await p[0].event(room, 'move');
    assert.ok(e.clocks[0] < 60000, `seat 0 was charged its think: ${e.clocks}`);
    assert.equal(e.clock_running, true);
    for (const c of p) c.close();
});
