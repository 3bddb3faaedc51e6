// Every page at phone widths (360 and 390 px): no sideways scroll (the
// document is never wider than the window), and no "null" or "undefined"
// in a page's headings or its title. The pages are filled as a player
// sees them: a lobby with a live seek and a rated correspondence seek in
// increment mode by a long name (the longest row), a live room, a
// correspondence room, the viewer of a finished game, "your turn", "your
// games", a player page, the leaderboard, the account pages, the analysis
// board and the how-to pages. Screenshots: tests/output/e2e/layout-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(width, hash = '#/') {
  const ctx = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

async function register(page, name) {
  await page.goto(`${server.url}/#/register`);
  await page.fill('#username', name);
  await page.fill('#password', `${name}-secret-pw`);
  await page.click('#account-form button[type=submit]');
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
}

// The page as it is now, at `width` then 390: its overflow and its words.
async function check(page, name, problems) {
  for (const width of [360, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(200);
    const r = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > w + 1
        && ![...e.children].some((c) => c.getBoundingClientRect().right > w + 1));
      return {
        over: document.documentElement.scrollWidth - window.innerWidth,
        wide: wide.slice(0, 3).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`),
        heads: [document.title, ...[...document.querySelectorAll('h1, h2, h3, .player, #view-seat option')].map((e) => e.textContent)].join(' | '),
      };
    });
    if (r.over > 0) problems.push(`${name} @${width}: ${r.over} px too wide (${r.wide.join(', ')})`);
    const bad = /\b(null|undefined|NaN)\b/.exec(r.heads);
    if (bad) problems.push(`${name} @${width}: "${bad[0]}" in ${r.heads}`);
    await page.screenshot({ path: path.join(OUT, `layout-${name}-${width}.png`), fullPage: true });
  }
}

test('every page fits 360 and 390 px wide, with no null in its headings', { skip }, async () => {
  const problems = [];
  // Two accounts with long names; a rated correspondence seek in
  // increment mode and a live seek, seen by a guest.
  const a = await open(1440);
  const b = await open(1440);
  await register(a, 'alexandrina_long');
  await register(b, 'bartholomew_long');
  await a.goto(`${server.url}/#/`);
  await a.waitForSelector('#create-btn:not([disabled])');
  await a.selectOption('#new-game', 'ultima1968');
  await a.check('#kind-corr');
  await a.check('#new-inc');
  await a.check('#new-rated');
  await a.click('#create-btn');
  await a.waitForSelector('#lobby-status:has-text("Waiting")');
  const guest = await open(1440);
  await guest.selectOption('#new-game', 'yalta');
  await guest.selectOption('#new-tc', { label: '15+10' });
  await guest.click('#create-btn');
  await guest.waitForSelector('tr.seek[data-kind="corr"]');
  const g2 = await open(360);
  await g2.waitForSelector('tr.seek[data-kind="corr"]');
  await g2.waitForSelector('tr.seek[data-game="yalta"]');
  await check(g2, 'lobby-guest', problems);
  await b.goto(`${server.url}/#/`);
  await b.waitForSelector('tr.seek[data-kind="corr"] button.join');
  await check(b, 'lobby-account', problems);

  // The correspondence room, once Bartholomew has joined.
  await b.click('tr.seek[data-kind="corr"] button.join');
  await b.waitForURL(/#\/game\/\d+$/);
  await b.waitForSelector('.player');
  await check(b, 'room-corr', problems);
  await a.goto(`${server.url}/#/turn`);
  await a.waitForSelector('#turn-list tr');
  await check(a, 'turn', problems);
  await a.goto(`${server.url}/#/games`);
  await a.reload();
  await a.waitForSelector('#your-games tr');
  await check(a, 'games', problems);
  await a.goto(`${server.url}/#/@/alexandrina_long`);
  await a.waitForSelector('h1');
  await a.waitForTimeout(500);
  await check(a, 'player', problems);
  await a.goto(`${server.url}/#/leaderboard`);
  await a.waitForTimeout(500);
  await check(a, 'leaderboard', problems);
  await a.goto(`${server.url}/#/profile`);
  await a.waitForSelector('#profile-name');
  await check(a, 'profile', problems);
  await a.goto(`${server.url}/#/analysis`);
  await a.waitForSelector('svg.board');
  await check(a, 'analysis', problems);
  await a.goto(`${server.url}/#/howto`);
  await a.waitForTimeout(300);
  await check(a, 'howto', problems);
  await a.goto(`${server.url}/#/howto/yalta`);
  await a.waitForSelector('svg.board');
  await check(a, 'howto-yalta', problems);
  await g2.goto(`${server.url}/#/login`);
  await g2.waitForSelector('#username');
  await check(g2, 'login', problems);

  // A live three-player room, then the viewer of the finished game.
  const g3 = await open(1440);
  await g2.goto(`${server.url}/#/`);
  for (const p of [g2, g3]) await p.locator('tr.seek[data-game="yalta"] button.join').first().click();
  for (const p of [guest, g2, g3]) await p.waitForSelector('.player');
  await check(g2, 'room-live', problems);
  const url = g2.url();
  await guest.click('#btn-resign');
  await g3.waitForSelector('#btn-resign');
  await g3.waitForTimeout(300);
  await g3.click('#btn-resign');
  await g2.waitForSelector('#banner:not([hidden])');
  for (const p of [guest, g2, g3]) await p.context().close();
  const v = await open(360, url.slice(url.indexOf('#')));
  await v.waitForSelector('#banner:not([hidden])');
  await check(v, 'viewer', problems);

  assert.deepEqual(problems, []);
});
