// Every page at 360, 390 and 1440 px, in both themes (one walk for what
// was the layout walk and the themes walk): no sideways scroll (the
// document is never wider than the window), no "null", "undefined" or
// "NaN" in a page's headings or its title, no "undefined" or "NaN" in its
// text, and the chosen theme kept from page to page. The pages are filled
// as a player sees them: a lobby with a live seek and a rated
// correspondence seek in increment mode by a long name (the longest row),
// a live room, a correspondence room, the viewer of a finished game, "your
// turn", "your games", a player page, the leaderboard, the account pages
// (as a guest and as an account), the analysis board and the how-to pages.
// One account has chosen the light theme in the menu, the others keep the
// dark one; each page is also measured in the other theme (the themes
// differ in colours only, so this is cheap). Screenshots:
// tests/output/e2e/layout-<theme>-<page>-<width>.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer, settled } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(width, hash = '#/') {
  const ctx = await browser.newContext({ viewport: { width, height: width < 800 ? 844 : 900 } });
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

// The lobby: the home page's doors first, "Play now" and "Learn to play"
// on a phone's first screen (844 px); then, in one column (phones),
// "Create a game" first of the panels (after only the challenges to you),
// then the open games; in two columns, the open games on the left and
// "Create a game" on the right. A sentence when not so.
async function lobbyOrder(page, width) {
  const box = (id) => page.evaluate((i) => {
    const e = document.getElementById(i);
    if (!e || e.hidden) return null;
    const b = e.getBoundingClientRect();
    return { top: b.top + window.scrollY, bottom: b.bottom + window.scrollY, left: b.left, right: b.right };
  }, id);
  const [create, open, computer, challenges, learn] = await Promise.all(['create-panel', 'open-games', 'play-computer', 'challenges', 'door-learn'].map(box));
  if (!learn || !(learn.bottom < create.top && learn.bottom < open.top)) return 'the doors are not above the panels';
  if (width <= 860) {
    if (learn.bottom > 844) return `"Learn to play" ends ${learn.bottom} px down`;
    if (!(create.top < open.top && create.top < computer.top)) return `"Create a game" is not first (${create.top} px down)`;
    if (challenges && !(challenges.top < create.top)) return 'the challenges to you are not above "Create a game"';
  } else if (!(create.left >= open.right && computer.left >= open.right)) {
    return 'not two columns (the open games left, "Create a game" right)';
  }
  return null;
}

// The page as it is now, at each width, in its own theme then in the
// other: its overflow and its words. `theme` is the theme the page's
// player chose (it must hold on every page).
async function check(page, name, problems, theme = 'dark') {
  const kept = await page.getAttribute('html', 'data-theme');
  if (kept !== theme) problems.push(`${name}: theme ${kept}, not ${theme}`);
  const other = theme === 'dark' ? 'light' : 'dark';
  for (const width of [360, 390, 1440]) {
    await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
    for (const th of [theme, other]) {
      await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, th);
      await settled(page);
      const r = await page.evaluate(() => {
        const w = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > w + 1
          && ![...e.children].some((c) => c.getBoundingClientRect().right > w + 1));
        return {
          over: document.documentElement.scrollWidth - window.innerWidth,
          wide: wide.slice(0, 3).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`),
          heads: [document.title, ...[...document.querySelectorAll('h1, h2, h3, .player, #view-seat option')].map((e) => e.textContent)].join(' | '),
          text: document.getElementById('main').innerText,
        };
      });
      if (r.over > 0) problems.push(`${name} @${width} ${th}: ${r.over} px too wide (${r.wide.join(', ')})`);
      if (name.startsWith('lobby') && th === theme) {
        const why = await lobbyOrder(page, width);
        if (why) problems.push(`${name} @${width}: ${why}`);
      }
      const bad = /\b(null|undefined|NaN)\b/.exec(r.heads);
      if (bad) problems.push(`${name} @${width}: "${bad[0]}" in ${r.heads}`);
      const badText = /\b(undefined|NaN)\b/.exec(r.text);
      if (badText) problems.push(`${name} @${width}: "${badText[0]}" in the page's text`);
      // Screenshots: 390 and 1440 in the page's theme, 390 in the other.
      if (width === 390 || (width === 1440 && th === theme)) {
        await page.screenshot({ path: path.join(OUT, `layout-${th}-${name}-${width}.png`), fullPage: true });
      }
    }
    await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
  }
}

test('every page fits 360, 390 and 1440 px in both themes, with no null in its headings', { skip, timeout: 240000 }, async () => {
  const problems = [];
  // Two accounts with long names; a rated correspondence seek in
  // increment mode and a live seek, seen by a guest. Alexandrina chooses
  // the light theme in the menu.
  const a = await open(1440);
  const b = await open(1440);
  await register(a, 'alexandrina_long');
  await register(b, 'bartholomew_long');
  await a.goto(`${server.url}/#/`);
  await a.click('#prefs-btn');
  await a.selectOption('#pref-theme', 'light');
  await a.keyboard.press('Escape');
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
  // Alexandrina's pages, in the theme she chose (kept for her account:
  // the reload reads it back).
  await a.goto(`${server.url}/#/turn`);
  await a.waitForSelector('#turn-list tr');
  await check(a, 'turn', problems, 'light');
  await a.goto(`${server.url}/#/games`);
  await a.reload();
  await a.waitForSelector('#your-games tr');
  await check(a, 'games', problems, 'light');
  await a.goto(`${server.url}/#/@/alexandrina_long`);
  await a.waitForSelector('#player-ratings > *');
  await a.waitForSelector('#archive-rows tr, #archive-empty:not([hidden])');
  await check(a, 'player', problems, 'light');
  await a.goto(`${server.url}/#/leaderboard`);
  await a.waitForSelector('#boards > *');
  await check(a, 'leaderboard', problems, 'light');
  await a.goto(`${server.url}/#/profile`);
  await a.waitForSelector('#profile-name');
  await check(a, 'profile', problems, 'light');
  await a.goto(`${server.url}/#/analysis`);
  await a.waitForSelector('svg.board');
  await check(a, 'analysis', problems, 'light');
  await a.goto(`${server.url}/#/howto`);
  await a.waitForSelector('#main h1');
  await check(a, 'howto', problems, 'light');
  await a.goto(`${server.url}/#/howto/yalta`);
  await a.waitForSelector('svg.board');
  await check(a, 'howto-yalta', problems, 'light');
  await a.goto(`${server.url}/#/howto/ultima`);
  await a.waitForSelector('#howto-board polygon.cell');
  await check(a, 'howto-ultima', problems, 'light');
  // A guest's account pages.
  await g2.goto(`${server.url}/#/login`);
  await g2.waitForSelector('#username');
  await check(g2, 'login', problems);
  await g2.goto(`${server.url}/#/register`);
  await g2.waitForSelector('#username');
  await check(g2, 'register', problems);
  for (const hash of ['turn', 'games', 'profile']) {
    await g2.goto(`${server.url}/#/${hash}`);
    await g2.waitForFunction(() => document.getElementById('main').innerText.trim().length > 0);
    await check(g2, `${hash}-guest`, problems);
  }

  // A live three-player room, then the viewer of the finished game.
  const g3 = await open(1440);
  await g2.goto(`${server.url}/#/`);
  for (const p of [g2, g3]) await p.locator('tr.seek[data-game="yalta"] button.join').first().click();
  for (const p of [guest, g2, g3]) await p.waitForSelector('.player');
  await check(g2, 'room-live', problems);
  const url = g2.url();
  await guest.click('#btn-resign');
  // Either resignation may reach the server first: both end the game.
  await g3.click('#btn-resign');
  await g2.waitForSelector('#banner:not([hidden])');
  for (const p of [guest, g2, g3]) await p.context().close();
  const v = await open(360, url.slice(url.indexOf('#')));
  await v.waitForSelector('#banner:not([hidden])');
  await check(v, 'viewer', problems);

  assert.deepEqual(problems, []);
});
