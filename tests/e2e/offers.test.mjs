// Takebacks, rematches and "new game with the same settings" on the game
// page (web-client/js/room/offers.js) with the real server and two
// browser contexts: a takeback asked, declined, asked again and accepted
// (the move list and board go back for both); after the game a rematch
// declined, then asked and accepted (both pages open the new room, colours
// swapped); "New game, same settings" opens a seek of the same game and
// time control.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer } from './lib.mjs';
import { player, request, startGame, play, moveCount, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

const roomOf = (page) => Number(/#\/game\/(\d+)$/.exec(page.url())[1]);

test('takeback: asked, declined, asked again, accepted', { skip, timeout: 90000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'rollerball', { base_ms: 300000, inc_ms: 0 });
  assert.equal(await a.locator('#btn-takeback').count(), 0, 'no move of A to take back yet');
  await play(a, room, 'c2-b1', [a, b], 1);

  await a.click('#btn-takeback');
  await a.waitForSelector('#btn-takeback-cancel');
  await b.waitForSelector('#btn-takeback-accept');
  await shot(b, 'takeback-asked-1100');
  await b.click('#btn-takeback-decline');
  await a.waitForSelector('#takeback-note:text("Takeback declined")');
  assert.equal(await moveCount(a), 1);

  // On a phone, the offer's buttons come up under the board, in the first
  // screen (issue 34, item 3: they were some 160 px below it); then a
  // draw offer likewise.
  await b.setViewportSize({ width: 390, height: 844 });
  const inView = async (sel) => {
    await b.evaluate(() => window.scrollTo(0, 0));
    const box = await b.locator(sel).boundingBox();
    return box && box.y + box.height <= 844 ? true : `${sel} at ${box && Math.round(box.y)} px`;
  };
  await a.click('#btn-takeback');
  await b.waitForSelector('#btn-takeback-accept');
  assert.equal(await inView('#btn-takeback-accept'), true);
  await shot(b, 'takeback-asked-390');
  await b.click('#btn-takeback-decline');
  await a.click('#btn-draw_offer');
  await b.waitForSelector('#draw-note');
  assert.equal(await inView('#btn-draw_offer'), true);
  assert.match(await b.textContent('#btn-draw_offer'), /Accept draw/);
  await shot(b, 'draw-offered-390');
  await b.click('#btn-draw_decline');
  await b.waitForSelector('#draw-note', { state: 'detached' });
  await b.setViewportSize({ width: 1100, height: 900 });

  await a.click('#btn-takeback');
  await b.click('#btn-takeback-accept');
  for (const p of [a, b]) await p.waitForFunction(() => document.querySelectorAll('#moves [data-ply]').length === 0);
  // The piece is back where it was, and A may play again.
  await a.waitForSelector('svg.board g.piece.movable[data-cell="c2"]');
  assert.equal(await b.locator('svg.board g.piece[data-cell="b1"]').count(), 0);
  await play(a, room, 'c2-b1', [a, b], 1);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
  await b.context().close();
});

test('rematch: declined, then accepted (colours swap); new game with the same settings', { skip, timeout: 90000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'rollerball', { base_ms: 240000, inc_ms: 3000 });
  await a.click('#btn-resign'); // the dialog is accepted
  for (const p of [a, b]) await p.waitForSelector('#banner:not([hidden])');

  await a.click('#btn-rematch');
  await a.waitForSelector('#btn-rematch-cancel');
  await b.waitForSelector('#btn-rematch-decline');
  assert.match(await b.textContent('#btn-rematch'), /Accept rematch/);
  await shot(b, 'rematch-asked-1100');
  await b.click('#btn-rematch-decline');
  await a.waitForSelector('#rematch-note:text("Rematch declined")');

  await a.click('#btn-rematch');
  await b.waitForSelector('#btn-rematch-decline');
  await b.click('#btn-rematch');
  for (const p of [a, b]) await p.waitForURL((u) => /#\/game\/\d+$/.test(u.hash) && roomOf(p) !== room);
  const next = roomOf(a);
  assert.equal(roomOf(b), next);
  const st = await request(b, 'join', { room: next });
  assert.equal(st.you, 0, 'B plays first now');
  assert.equal(st.base_ms, 240000);
  assert.equal(st.inc_ms, 3000);

  // After this one: a seek of the same game and time control.
  await a.click('#btn-resign');
  await a.waitForSelector('#btn-new-same');
  await a.click('#btn-new-same');
  await a.waitForURL((u) => u.hash === '#/' || u.hash === '');
  const lobby = await request(b, 'lobby_watch', {});
  const me = await a.evaluate(() => window.chameleon.me.name);
  const seek = lobby.seeks.find((s) => s.players[0].name === me && s.game === 'rollerball');
  assert.ok(seek, JSON.stringify(lobby.seeks));
  assert.equal(seek.base_ms, 240000);
  assert.equal(seek.inc_ms, 3000);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
  await b.context().close();
});
