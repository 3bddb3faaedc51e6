// Playing the computer in the browser, through the real server: from the
// lobby's "Play the computer" form a game starts at once, the player's
// move is answered by the bot, whose bar carries the bot mark; a
// three-player seek gets its free seats filled with bots from its row.
// Screenshots: tests/output/e2e/bot-*.png.
// Skipped (with a message) while no server binary is built.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const pageErrors = [];
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function player() {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  await page.waitForSelector('#bot-game option', { state: 'attached' });
  return page;
}

const moves = (page) => page.$$eval('#moves button', (b) => b.map((x) => x.textContent));

test('play the computer from the lobby: a move, and the bot answers', { skip }, async () => {
  const page = await player();
  await page.selectOption('#bot-game', 'ultima');
  await page.selectOption('#bot-level', '1');
  await page.selectOption('#bot-seat', { label: 'White' });
  await page.selectOption('#bot-tc', { label: '10+5' });
  await page.click('#bot-btn');
  await page.waitForURL(/#\/game\/\d+$/);
  // The bot's bar is marked; ours is not.
  const botBar = page.locator('.player', { hasText: 'bot-level-1' });
  await botBar.locator('.tag.bot').waitFor();
  assert.equal(await page.locator('.player', { hasText: '(you)' }).locator('.tag.bot').count(), 0);
  // Our move, by clicking a movable piece and a destination.
  await page.waitForSelector('svg.board g.piece.movable');
  const cell = await page.locator('svg.board g.piece.movable').first().getAttribute('data-cell');
  const box = await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator('svg.board .dest:not(.suicide)').first().click({ force: true });
  // The bot answers: a second move in the list, and it is our turn again.
  await page.waitForFunction(() => document.querySelectorAll('#moves button').length === 2, null, { timeout: 15000 });
  const list = await moves(page);
  assert.equal(list.length, 2);
  await page.waitForSelector('svg.board g.piece.movable');
  await page.screenshot({ path: path.join(OUT, 'bot-ultima.png') });
  await page.click('#btn-resign');
  await page.waitForSelector('#banner:not([hidden])');
  await page.context().close();
  assert.deepEqual(pageErrors, []);
});

test('a three-player seek filled with bots from its row in the lobby', { skip }, async () => {
  const page = await player();
  await page.selectOption('#new-game', 'ant3');
  await page.selectOption('#bot-level', '2');
  await page.click('#create-btn');
  await page.locator('tr.seek[data-game="ant3"] button.fill').click();
  await page.waitForURL(/#\/game\/\d+$/);
  await page.waitForFunction(() => document.querySelectorAll('.player .tag.bot').length === 2);
  // The two bots are one identity (bot-level-2): each bar and the move
  // list's heads say which army is which.
  const colours = await page.$$eval('.player .seat-colour', (e) => e.map((x) => x.textContent.trim()));
  assert.equal(colours.length, 2);
  assert.notEqual(colours[0], colours[1]);
  const heads = await page.$$eval('.seat-head', (e) => e.map((x) => x.textContent));
  assert.equal(heads.filter((x) => /^bot-level-2 \(.+\)$/.test(x)).length, 2, heads.join(' | '));
  await page.screenshot({ path: path.join(OUT, 'bot-ant3.png') });
  await page.click('#btn-resign');
  await page.context().close();
  assert.deepEqual(pageErrors, []);
});
