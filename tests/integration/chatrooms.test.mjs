// Two chat rooms per game, as lichess (PROTOCOL.md, chat): the players'
// lines reach only the players, the spectators' only the spectators; the
// others get a "skip" event of the same number, live and in a catchup, and
// the room state lists one's own room's lines. And the `vacation` event: a
// correspondence player's opponents are told at once, with the deadlines
// the vacation moved (no waiting for the next move).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, bySeatOf, register } from './lib.mjs';

let srv;
before(async () => { srv = await startServer(); });
after(async () => { await srv.stop(); });

const DAY = 86400000;

test('players and spectators each have their own chat room', async () => {
    const a = await connect(srv.url);
    const b = await connect(srv.url);
    const { room } = await startGame([a, b], 'ultima', { base_ms: 0, inc_ms: 0 });
    const v = await connect(srv.url);
    const joined = await v.request({ type: 'join', room });
    const seq0 = joined.seq;

    // A player's line: the players read it, the spectator gets a skip.
    await a.request({ type: 'join', room });
    a.send({ type: 'chat', room, text: 'good luck' });
    const pa = await b.event(room, 'chat');
    assert.deepEqual([pa.text, pa.channel, pa.seat], ['good luck', 'players', pa.seat]);
    const sv = await v.waitFor((m) => m.type === 'event' && m.room === room && m.seq === pa.seq, 'the same seq');
    assert.equal(sv.kind, 'skip');
    assert.equal(sv.text, undefined);

    // The spectator's line: spectators only.
    const w = await connect(srv.url);
    await w.request({ type: 'join', room });
    v.send({ type: 'chat', room, text: 'nice opening' });
    const sw = await w.event(room, 'chat');
    assert.deepEqual([sw.text, sw.channel, sw.seat], ['nice opening', 'spectators', -1]);
    const sb = await b.waitFor((m) => m.type === 'event' && m.room === room && m.seq === sw.seq, 'the skip');
    assert.equal(sb.kind, 'skip');

    // The room state: each side's own lines.
    const stA = await a.request({ type: 'join', room });
    assert.deepEqual(stA.chat.map((c) => [c.text, c.channel]), [['good luck', 'players']]);
    const stV = await v.request({ type: 'join', room });
    assert.deepEqual(stV.chat.map((c) => [c.text, c.channel]), [['nice opening', 'spectators']]);

    // A catchup: the other room's events as skips, numbering unbroken.
    const cu = await v.request({ type: 'join', room, since: seq0 });
    assert.equal(cu.type, 'catchup');
    const kinds = cu.events.map((e) => [e.seq, e.kind, e.text]);
    assert.ok(kinds.some(([s, k]) => s === pa.seq && k === 'skip'), JSON.stringify(kinds));
    assert.ok(kinds.some(([s, k, t]) => s === sw.seq && k === 'chat' && t === 'nice opening'), JSON.stringify(kinds));
    const cuA = await a.request({ type: 'join', room, since: seq0 });
    assert.ok(cuA.events.some((e) => e.seq === sw.seq && e.kind === 'skip'));
    assert.ok(!JSON.stringify(cuA).includes('nice opening'), 'players never read the spectators\' lines');
    assert.ok(!JSON.stringify(cu).includes('good luck'), 'spectators never read the players\' lines');
    for (const c of [a, b, v, w]) c.close();
});

async function account(prefix) {
    const cookie = await register(srv, `${prefix}${process.pid % 10000}`);
    return connect(srv.url, {}, { Cookie: cookie });
}

test('a vacation is told to the opponents at once, with the deadline it moved', async () => {
    const a = await account('va');
    const b = await account('vb');
    const { room, states } = await startGame([a, b], 'ultima', { corr: { days: 3 } });
    const bySeat = bySeatOf([a, b], states);
    const mover = bySeat[states[0].to_move];
    const other = mover === a ? b : a;
    const seat = states[0].to_move;
    const before = states[0].deadlines[seat];
    // The player to move goes on vacation: the other sees it at once.
    await mover.request({ type: 'vacation_start', days: 2 });
    const ev = await other.event(room, 'vacation', 5000);
    assert.equal(ev.seat, seat);
    assert.ok(ev.until > Date.now() + DAY, `until ${ev.until}`);
    const moved = ev.deadlines[seat] - before;
    assert.ok(moved > 2 * DAY - 60000 && moved <= 2 * DAY + 60000, `the deadline moved by ${moved}`);
    assert.equal(typeof ev.now_ms, 'number');
    // And back.
    await mover.request({ type: 'vacation_end' });
    const back = await other.event(room, 'vacation', 5000);
    assert.equal(back.until, null);
    assert.ok(Math.abs(back.deadlines[seat] - before) < 60000);
    a.close(); b.close();
});
