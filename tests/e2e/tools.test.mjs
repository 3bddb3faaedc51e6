// The game page's tools (web-client/js/room/tools.js) on the real server:
// flip the board (two players: the other army at the bottom and back;
// three: each seat in turn), the PGN download (a real download named
// chameleon-<id>.pgn holding the moves), and "copy position" (the rules
// core's position string on the clipboard).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { browserAndServer } from './lib.mjs';
import { player, request, startGame, play, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

// The army at the bottom: the "view as" choice follows the board.
const viewed = (page) => page.locator('#view-seat').inputValue();
// The board's labels in reading order on the screen: they turn with the view.
const labels = (page) => page.evaluate(() => [...document.querySelectorAll('svg.board text')]
  .map((t) => { const r = t.getBoundingClientRect(); return [Math.round(r.y / 4), Math.round(r.x), t.textContent]; })
  .sort((p, q) => p[0] - q[0] || p[1] - q[1]).map((x) => x[2]).join(''));

test('flip: two players swap sides, three players rotate through every seat', { skip, timeout: 60000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  await startGame([a, b], 'ultima');
  assert.equal(await viewed(a), '0');
  const before0 = await labels(a);
  assert.match(await a.locator('#btn-flip').textContent(), /Flip board/);
  await a.click('#btn-flip');
  assert.equal(await viewed(a), '1');
  assert.notEqual(await labels(a), before0, 'the board turned');
  await a.click('#btn-flip');
  assert.equal(await viewed(a), '0');
  assert.equal(await labels(a), before0);
  await b.context().close();
  await a.context().close();

  // Three players: a game with two bots.
  const c = await player(browser, server.url);
  await request(c, 'bot_game', { game: 'yalta', level: 1, seat: 0, base_ms: 600000, inc_ms: 0 });
  await c.waitForURL(/#\/game\/\d+$/);
  await c.waitForSelector('.player');
  assert.match(await c.locator('#btn-flip').textContent(), /Rotate board/);
  const seen = [await viewed(c)];
  for (let i = 0; i < 3; i++) {
    await c.click('#btn-flip');
    seen.push(await viewed(c));
  }
  assert.deepEqual(seen, ['0', '1', '2', '0']);
  assert.deepEqual(c.errors, []);
  await c.context().close();
});

test('PGN download and copy position', { skip, timeout: 60000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  await a.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const room = await startGame([a, b], 'rollerball');
  await play(a, room, 'c2-b1', [a, b], 1);
  await play(b, room, 'e6-f5', [a, b], 2);

  const [download] = await Promise.all([a.waitForEvent('download'), a.click('#btn-pgn')]);
  assert.equal(download.suggestedFilename(), `chameleon-${room}.pgn`);
  const text = fs.readFileSync(await download.path(), 'utf8');
  assert.match(text, /c2-b1/);
  assert.match(text, /e6-f5/);

  await a.click('#btn-copy-position');
  await a.waitForFunction(() => document.getElementById('room-status').textContent === 'Position copied.');
  const copied = await a.evaluate(() => navigator.clipboard.readText());
  const st = await request(a, 'join', { room });
  assert.equal(copied, st.position);
  assert.match(copied, /^[0-9A-Za-z*/]+ [wb] /, copied);
  await shot(a, 'tools-live-1100');
  assert.deepEqual(a.errors, []);
  await a.context().close();
  await b.context().close();
});
