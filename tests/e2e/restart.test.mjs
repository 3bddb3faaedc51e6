// A graceful restart seen from the browser: the server stops (SIGTERM) in
// the middle of a game, the page sees the close 1001 "server restarting"
// and shows it is reconnecting; the server starts again on the same port
// and database; both pages reconnect by themselves (web-client/js/net.js),
// join the room again (pages/room.js) and the game goes on without a
// reload. Skipped (with a message) while no server binary is built.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, realServer, serverBinary } from './lib.mjs';

const skip = serverBinary() && !process.env.CHAMELEON_URL ? false : 'needs the built server (build/chameleon)';

let browser, server;
before(async () => {
  if (skip) return;
  browser = await launch();
  server = await realServer();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function player() {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  return { ctx, page, errors };
}

const moves = (k) => document.querySelectorAll('#moves button').length === k;

async function typeMove(page, mv) {
  await page.fill('#move-input', mv);
  await page.press('#move-input', 'Enter');
}

test('SIGTERM in the middle of a game: the pages see 1001, reconnect to the restarted server and play on', { skip }, async () => {
  const [a, b] = [await player(), await player()];
  await a.page.selectOption('#new-game', 'ultima');
  await a.page.selectOption('#new-tc', { label: '10+5' });
  await a.page.click('#create-btn');
  await b.page.locator('tr.seek[data-game="ultima"] button.join').first().click();
  for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
  await a.page.waitForSelector('svg.board g.piece.movable');
  await typeMove(a.page, 'e2-e3'); // the creator has seat 0, which moves first
  for (const p of [a, b]) await p.page.waitForFunction(moves, 1);
  const room = a.page.url();

  for (const p of [a, b]) {
    await p.page.evaluate(() => {
      window.closes = [];
      window.chameleon.conn.ws.addEventListener('close', (e) => window.closes.push([e.code, e.reason]));
    });
  }
  const st = await server.stop();
  assert.deepEqual(st, { code: 0, signal: null }, server.log().slice(-2000));
  for (const p of [a, b]) {
    await p.page.waitForSelector('#conn.offline');
    assert.deepEqual(await p.page.evaluate(() => window.closes), [[1001, 'server restarting']]);
  }
  const { port, dir } = server;
  server = await realServer({ port, dir });
  for (const p of [a, b]) await p.page.waitForSelector('#conn.online', { timeout: 30000 });
  // The room is joined again: black plays its answer, both see it, no reload.
  await b.page.waitForSelector('svg.board g.piece.movable', { timeout: 15000 });
  await typeMove(b.page, 'e7-e6');
  for (const p of [a, b]) await p.page.waitForFunction(moves, 2);
  assert.equal(a.page.url(), room);
  for (const p of [a, b]) assert.deepEqual(p.errors, []);
  for (const p of [a, b]) await p.ctx.close();
  assert.ok(fs.existsSync(dir));
});
