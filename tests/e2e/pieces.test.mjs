// Ultima's second piece set (issue 14): the pictographic discs of the
// seed's "Autres Représentations", chosen in the preferences menu. They
// replace the chess-like pieces on every Ultima board (how to play and
// its legend, the analysis board, a game being played), at once and
// after a reload, keep each piece's name for hover and screen readers,
// and leave the other games' pieces alone. Screenshots:
// tests/output/e2e/discs-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, realServer, serverBinary, OUT, settled } from './lib.mjs';

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, server;
before(async () => {
  browser = await launch();
  server = skip ? null : await realServer();
});
after(async () => { await browser?.close(); await server?.close(); });

async function choose(page, key, value) {
  if (!(await page.isVisible('#prefs-panel'))) await page.click('#prefs-btn');
  await page.selectOption(`#pref-${key}`, value);
  await page.keyboard.press('Escape');
}

const pieces = (page, sel) => page.$$eval(`${sel} g.piece`, (gs) => gs.map((g) => ({
  disc: g.classList.contains('disc'), title: g.querySelector('title').textContent,
})));

test('the discs replace the pieces on every Ultima board, names kept', { skip }, async () => {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/#/howto/ultima`);
  await page.waitForSelector('#howto-board g.piece');
  const before = await pieces(page, '#howto-board');
  assert.equal(before.length, 32);
  assert.ok(before.every((p) => !p.disc), 'chess pieces by default');
  await choose(page, 'ultima_pieces', 'discs');
  const after = await pieces(page, '#howto-board');
  assert.equal(after.length, 32);
  assert.ok(after.every((p) => p.disc), 'every piece a disc at once');
  assert.deepEqual(after.map((p) => p.title).sort(), before.map((p) => p.title).sort(), 'the same names');
  // The legend: seven discs, each with its name.
  const legend = await page.$$eval('#howto-legend svg g.piece', (gs) => gs.map((g) => `${g.classList.contains('disc')}:${g.querySelector('title').textContent}`));
  assert.deepEqual(legend.sort(), ['King', 'Pawn (pincer)', 'Withdrawer', 'Long leaper', 'Coordinator', 'Immobilizer', 'Chameleon'].map((n) => `true:${n}`).sort());
  // Seven different pictograms: no two discs drawn alike.
  const shapes = await page.$$eval('#howto-legend svg g.piece', (gs) => gs.map((g) => [...g.children].filter((c) => c.tagName !== 'title').map((c) => c.outerHTML).join('')));
  assert.equal(new Set(shapes).size, 7, 'seven distinct pictograms');
  for (const theme of ['dark', 'light']) {
    await choose(page, 'theme', theme);
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      await page.screenshot({ path: path.join(OUT, `discs-howto-${theme}-${width}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  // The analysis board, after a reload (the choice is kept).
  await page.goto(`${server.url}/#/analysis/ultima`);
  await page.reload();
  await page.waitForSelector('svg.board g.piece');
  const ana = await pieces(page, 'svg.board');
  assert.equal(ana.length, 32);
  assert.ok(ana.every((p) => p.disc), 'discs on the analysis board after a reload');
  await page.screenshot({ path: path.join(OUT, 'discs-analysis-1440.png') });
  // Another game keeps its own set.
  await page.goto(`${server.url}/#/analysis/rollerball`);
  await page.waitForSelector('svg.board g.piece');
  assert.ok((await pieces(page, 'svg.board')).every((p) => !p.disc), 'rollerball keeps its pieces');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a game against the computer is played with discs, switched back live', { skip }, async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#conn.online');
  await choose(page, 'ultima_pieces', 'discs');
  await page.selectOption('#bot-game', 'ultima');
  await page.click('#bot-btn');
  await page.waitForURL(/#\/game\/\d+$/);
  await page.waitForSelector('svg.board g.piece.movable');
  assert.ok((await pieces(page, 'svg.board')).every((p) => p.disc), 'discs in the room');
  // Play a move by clicking once it is our move (the computer may play
  // first: a piece chosen for a premove would lose its choice at its move).
  // (Polled from here: this file keeps the page's CSP, which refuses the
  // string a waitForFunction evaluates.)
  for (const until = Date.now() + 30000; !(await page.title()).includes('\u25cf');) {
    assert.ok(Date.now() < until, `never our move: ${await page.title()}`);
    await page.waitForTimeout(100);
  }
  const cell = await page.locator('svg.board g.piece.movable').first().getAttribute('data-cell');
  await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).scrollIntoViewIfNeeded();
  const box = await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator('svg.board .dest:not(.suicide)').first().click({ force: true });
  await page.waitForFunction(() => document.querySelectorAll('#moves button').length >= 1);
  for (const theme of ['dark', 'light']) {
    await choose(page, 'theme', theme);
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
      await settled(page);
      await page.screenshot({ path: path.join(OUT, `discs-room-${theme}-${width}.png`), fullPage: true });
    }
  }
  await choose(page, 'ultima_pieces', 'chess');
  assert.ok((await pieces(page, 'svg.board')).every((p) => !p.disc), 'back to chess pieces at once');
  await ctx.close();
});
