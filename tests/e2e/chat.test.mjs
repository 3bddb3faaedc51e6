// Chat rooms and vacation in the game room, through the real server:
//  - spectators talk among themselves; the players never see their lines,
//    nor they the players' (PROTOCOL.md, Chat rooms);
//  - in a correspondence game, the opponent's bar says at once that a
//    player went on vacation, and the deadline moves with it.
// Screenshots: tests/output/e2e/chat-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(hash = '#/') {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}
const lines = (page) => page.$$eval('#chat-lines > div', (ds) => ds.map((d) => d.textContent));
async function say(page, text) {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

test('spectators have their own chat room', { skip }, async () => {
  const a = await open();
  const b = await open();
  await a.selectOption('#new-game', 'rollerball');
  await a.click('#create-btn');
  await b.locator('tr.seek[data-game="rollerball"] button.join').click();
  for (const p of [a, b]) await p.waitForSelector('.player');
  assert.ok(await a.isHidden('#room-spectators'), 'nobody watching: nothing said');
  const hash = new URL(a.url()).hash;
  const v = await open(hash);
  const w = await open(hash);
  for (const p of [v, w]) await p.waitForSelector('#chat[data-channel="spectators"]');
  await a.waitForSelector('#chat[data-channel="players"]');
  // The players and the spectators see how many watch (each page a person).
  for (const p of [a, b, v]) await p.waitForSelector('#room-spectators[data-n="2"]:not([hidden])');
  assert.equal(await a.textContent('#room-spectators'), 'Watching: 2');

  await say(v, 'what a start');
  await w.waitForFunction(() => document.getElementById('chat-lines').textContent.includes('what a start'));
  await say(a, 'good luck');
  await b.waitForFunction(() => document.getElementById('chat-lines').textContent.includes('good luck'));
  await v.waitForTimeout(500);
  assert.deepEqual((await lines(a)).filter((t) => t.includes('what a start')), []);
  assert.deepEqual((await lines(b)).filter((t) => t.includes('what a start')), []);
  assert.deepEqual((await lines(v)).filter((t) => t.includes('good luck')), []);
  // After a reload each side still sees only its own room's lines.
  await v.reload();
  // The room draws its chat once connected, after the page's load.
  await v.waitForFunction(() => document.getElementById('chat-lines')?.textContent.includes('what a start'));
  assert.doesNotMatch((await lines(v)).join('|'), /good luck/);
  await v.screenshot({ path: path.join(OUT, 'chat-spectator.png') });
  await w.context().close();
  await a.waitForSelector('#room-spectators[data-n="1"]');
  for (const p of [a, b, v]) await p.context().close();
});

async function register(page, name) {
  await page.goto(`${server.url}/#/register`);
  await page.fill('#username', name);
  await page.fill('#password', `${name}-secret-pw`);
  await page.click('#account-form button[type=submit]');
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
}

test('the opponent is told at once of a vacation; the deadline moves', { skip }, async () => {
  const a = await open();
  const b = await open();
  await register(a, 'vera');
  await register(b, 'walt');
  await a.goto(`${server.url}/#/`);
  await a.waitForSelector('#create-btn:not([disabled])');
  await a.selectOption('#new-game', 'ultima');
  await a.check('#kind-corr');
  await a.selectOption('#new-days', '3');
  await a.click('#create-btn');
  await b.goto(`${server.url}/#/`);
  await b.locator('tr.seek[data-kind="corr"] button.join').click();
  for (const p of [a, b]) await p.waitForSelector('.deadline[data-seat="0"]:not([hidden])');
  // Vera (White, to move) goes on vacation for 5 days: Walt's page says so
  // and shows her deadline 5 days later, without a move or a reload.
  const before = await b.textContent('.deadline[data-seat="0"]');
  assert.match(before, /^(3 days|2 days 23 h) left$/);
  await a.evaluate(() => window.chameleon.conn.request('vacation_start', { days: 5 }));
  await b.waitForSelector('.player[data-seat="0"] .vacation');
  assert.match(await b.textContent('.player[data-seat="0"]'), /on vacation until/);
  await b.waitForFunction(() => /^(8 days|7 days 23 h) left$/.test(document.querySelector('.deadline[data-seat="0"]').textContent));
  await b.screenshot({ path: path.join(OUT, 'chat-vacation.png') });
  // Walt's page opened again (a state, not the event): still said.
  await b.reload();
  await b.waitForSelector('.player[data-seat="0"] .vacation');
  assert.match(await b.textContent('.player[data-seat="0"]'), /on vacation until/);
  await a.evaluate(() => window.chameleon.conn.request('vacation_end'));
  await b.waitForSelector('.player[data-seat="0"] .vacation', { state: 'detached' });
  await b.waitForFunction(() => /^(3 days|2 days 23 h) left$/.test(document.querySelector('.deadline[data-seat="0"]').textContent));
  for (const p of [a, b]) await p.context().close();
});
