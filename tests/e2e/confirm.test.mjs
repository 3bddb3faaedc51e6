// Move confirmation (web-client/js/room/confirm.js): in a correspondence
// game a move played on the board is held, shown, with Confirm / Cancel,
// and reaches the server only on Confirm; Cancel puts the piece back. In a
// live game moves go at once, unless the player turns the option on (kept
// in localStorage per kind of game).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer } from './lib.mjs';
import { player, request, startGame, register, clickMove, moveCount, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

const serverMoves = async (page, room) => (await request(page, 'join', { room })).moves.length;

test('correspondence: a move waits for Confirm; Cancel takes it back', { skip, timeout: 90000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  await register(a, 'confirmann');
  await register(b, 'confirmbob');
  const room = await startGame([a, b], 'rollerball', { corr: { days: 3 } });
  assert.equal(await a.isChecked('#confirm-opt'), true, 'on by default in correspondence');

  await clickMove(a, 'c2', 'b1');
  await a.waitForSelector('#confirm-bar:not([hidden])');
  assert.equal(await a.textContent('#confirm-text'), 'Play c2-b1?');
  assert.equal(await a.locator('svg.board g.piece[data-cell="b1"]').count(), 1, 'the pending move is shown');
  await shot(a, 'confirm-corr-1100');
  assert.equal(await serverMoves(a, room), 0, 'not sent yet');

  await a.click('#btn-cancel-move');
  assert.equal(await a.isHidden('#confirm-bar'), true);
  await a.waitForSelector('svg.board g.piece.movable[data-cell="c2"]');
  assert.equal(await a.locator('svg.board g.piece[data-cell="b1"]').count(), 0, 'the piece is back');
  assert.equal(await serverMoves(a, room), 0);

  await clickMove(a, 'c2', 'b1');
  await a.click('#btn-confirm');
  await b.waitForSelector('#moves [data-ply="1"]');
  assert.equal(await serverMoves(a, room), 1);
  assert.equal(await moveCount(a), 1);
  await a.context().close();
  await b.context().close();
});

test('live: moves go at once; the option turns confirmation on for live games only', { skip, timeout: 90000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'rollerball');
  assert.equal(await a.isChecked('#confirm-opt'), false, 'off by default in live games');
  await clickMove(a, 'c2', 'b1');
  await b.waitForSelector('#moves [data-ply="1"]');
  assert.equal(await a.isHidden('#confirm-bar'), true);

  await b.check('#confirm-opt');
  const opts = JSON.parse(await b.evaluate(() => localStorage.getItem('chameleon.confirm')));
  assert.deepEqual(opts, { corr: true, live: true });
  await clickMove(b, 'e6', 'f5');
  await b.waitForSelector('#confirm-bar:not([hidden])');
  assert.equal(await serverMoves(b, room), 1);
  await b.click('#btn-confirm');
  await a.waitForSelector('#moves [data-ply="2"]');
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
  await b.context().close();
});
