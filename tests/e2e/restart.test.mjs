// A graceful restart seen from the browser: the server stops (SIGTERM) in
// the middle of a game, the page sees the close 1001 "server restarting"
// and shows it is reconnecting; the server starts again on the same port
// and database; both pages reconnect by themselves (web-client/js/net.js),
// join the room again (pages/room.js) and the game goes on without a
// reload; and a move lost with a killed server is sent again by the page.
// Skipped (with a message) while no server binary is built.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, realServer, serverBinary, settled, OUT } from './lib.mjs';

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

// Two players' pages and an Ultima 10+5 game between them, a's the seek
// (seat 0), both pages in its room.
async function ultimaGame() {
  const [a, b] = [await player(), await player()];
  await a.page.selectOption('#new-game', 'ultima');
  await a.page.selectOption('#new-tc', { label: '10+5' });
  await a.page.click('#create-btn');
  await b.page.locator('tr.seek[data-game="ultima"] button.join').first().click();
  for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
  return [a, b];
}

async function typeMove(page, mv) {
  await page.fill('#move-input', mv);
  await page.press('#move-input', 'Enter');
}

test('SIGTERM in the middle of a game: the pages see 1001, reconnect to the restarted server and play on', { skip }, async () => {
  const [a, b] = await ultimaGame();
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

// A move that the server never acknowledged is sent again (room/play.js):
// the server frozen (SIGSTOP), black's move made in the page (it goes out
// on the open socket and is lost with the server), the server killed
// (SIGKILL) and started again on the same port and database. The pages
// reconnect and join again; black's page sees its move missing, still its
// turn at that ply, and sends it once more: both pages and the server's
// stored game have it, with no note on the page. Screenshots of black's
// page after it, at 360, 390 and 1440 px.
test('a move lost with a killed server is sent again after the reconnection', { skip }, async () => {
  const [a, b] = await ultimaGame();
  const room = Number(a.page.url().match(/(\d+)$/)[1]);
  await a.page.waitForSelector('svg.board g.piece.movable');
  await typeMove(a.page, 'e2-e3');
  for (const p of [a, b]) await p.page.waitForFunction(moves, 1);
  await b.page.waitForSelector('svg.board g.piece.movable');

  await server.kill('SIGSTOP');
  await typeMove(b.page, 'e7-e6'); // sent on the open socket; nobody reads it
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await b.page.evaluate(() => document.querySelectorAll('#moves button').length), 1,
    'not acknowledged while the server is frozen');
  const st = await server.kill('SIGKILL');
  assert.equal(st.signal, 'SIGKILL');
  for (const p of [a, b]) await p.page.waitForSelector('#conn.offline');
  const { port, dir } = server;
  server = await realServer({ port, dir });
  for (const p of [a, b]) await p.page.waitForSelector('#conn.online', { timeout: 30000 });
  // Black's page sends e7-e6 again; both pages show it.
  for (const p of [a, b]) await p.page.waitForFunction(moves, 2, { timeout: 15000 });
  for (const p of [a, b]) {
    assert.equal(await p.page.locator('#moves button').nth(1).innerText().then((s) => /e7-e6/.test(s)), true);
  }
  const g = await (await fetch(`${server.url}/api/games/${room}`)).json();
  assert.deepEqual(g.moves.map((m) => m.move), ['e2-e3', 'e7-e6'], 'the stored game has it');
  assert.equal(await b.page.locator('#room-status.error').count(), 0, 'no error note');
  assert.equal((await b.page.locator('#room-status').innerText()).trim(), '');
  // White's turn: it plays on.
  await a.page.waitForSelector('svg.board g.piece.movable', { timeout: 15000 });
  await typeMove(a.page, 'e3-e4');
  for (const p of [a, b]) await p.page.waitForFunction(moves, 3);
  for (const w of [360, 390, 1440]) {
    await b.page.setViewportSize({ width: w, height: w < 400 ? 844 : 900 });
    await settled(b.page);
    const over = await b.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 0, `no horizontal scroll at ${w} px (${over})`);
    await b.page.screenshot({ path: path.join(OUT, `restart-resent-${w}.png`) });
  }
  for (const p of [a, b]) assert.deepEqual(p.errors, []);
  for (const p of [a, b]) await p.ctx.close();
});
