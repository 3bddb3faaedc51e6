// Tournament pages through the real server (PROTOCOL.md, "Tournaments";
// web-client/js/pages/tournaments.js): the list, the creation form, entry
// (two more accounts join over HTTP and the page shows them live), the
// start when full with the crosstable and schedule, and the crosstable
// updated live when a game ends (the loser resigns in a second browser
// context). At 1440, 390 and 360 px: no horizontal scroll (the crosstable
// scrolls inside its own box). Screenshots: tests/output/e2e/tourney-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const pageErrors = [];
const skip = browserAndServer((b, s) => { browser = b; server = s; });

const uniq = `${process.pid % 1000}`;

async function registerHttp(name) {
  const r = await fetch(`${server.url}/api/register`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: name, password: `${name}-secret-pw` }),
  });
  assert.equal(r.status, 200);
  return r.headers.get('set-cookie').split(';')[0];
}

async function page(ctx, hash) {
  const p = await ctx.newPage();
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  p.on('dialog', (d) => d.accept());
  await p.goto(`${server.url}/${hash}`);
  await p.waitForSelector('#conn.online');
  return p;
}

async function loggedIn(name, cookie, width = 1440) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const [k, v] = cookie.split('=');
  await ctx.addCookies([{ name: k, value: v, url: server.url }]);
  return ctx;
}

async function noHorizontalScroll(p, what) {
  const [sw, cw] = await p.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(sw <= cw, `${what}: page scrolls sideways (${sw} > ${cw})`);
}

test('tournaments: list, create, join, start when full, live crosstable', { skip }, async () => {
  const names = [`tdir${uniq}`, `tbee${uniq}`, `tcee${uniq}`];
  const cookies = [];
  for (const n of names) cookies.push(await registerHttp(n));
  const ctxA = await loggedIn(names[0], cookies[0]);
  const a = await page(ctxA, '#/tournaments');
  await a.waitForFunction((n) => window.chameleon.account === n, names[0]);
  await a.waitForSelector('.tourney-group[data-state=open] p.muted');
  await a.screenshot({ path: path.join(OUT, 'tourney-list-empty-1440.png') });

  // Create through the form (three entrants, Ultima; "enter it myself").
  await a.click('#tourney-new');
  await a.waitForSelector('#t-name');
  await a.fill('#t-name', 'Browser cup');
  await a.selectOption('#t-game', 'ultima');
  await a.selectOption('#t-size', '3');
  await a.screenshot({ path: path.join(OUT, 'tourney-form-1440.png'), fullPage: true });
  await a.click('#t-create');
  await a.waitForFunction(() => /^#\/tournament\/\d+$/.test(location.hash) && window.chameleon.tourney
    && window.chameleon.tourney.entrants.length === 1);
  const id = await a.evaluate(() => window.chameleon.tourney.id);
  assert.equal(await a.getAttribute('#tourney-state', 'data-state'), 'open');
  assert.ok(await a.isVisible('#t-start-now'), 'the director can start early');
  assert.ok(await a.isVisible('#t-leave'));

  // The other two join over HTTP: the page shows each at once, and the
  // third fills it: running, crosstable and schedule.
  const join = (cookie) => fetch(`${server.url}/api/tournaments/${id}/join`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie }, body: '{}',
  });
  assert.equal((await join(cookies[1])).status, 200);
  await a.waitForSelector(`#tourney-standings li[data-user="${names[1]}"]`);
  // The director may remove an entrant before the start.
  assert.equal(await a.locator('#tourney-standings li button').count(), 2);
  await a.screenshot({ path: path.join(OUT, 'tourney-open-1440.png'), fullPage: true });
  assert.equal((await join(cookies[2])).status, 200);
  await a.waitForSelector('#crosstable');
  assert.equal(await a.getAttribute('#tourney-state', 'data-state'), 'running');
  assert.equal(await a.locator('#tourney-schedule li[data-game]').count(), 3);
  assert.equal(await a.locator('#crosstable tbody tr').count(), 3);
  // Every cell of another player links to its game.
  assert.equal(await a.locator('#crosstable td[data-cell] a[href^="#/game/"]').count(), 6);
  await a.screenshot({ path: path.join(OUT, 'tourney-running-1440.png'), fullPage: true });
  await noHorizontalScroll(a, 'tournament 1440');

  // B resigns the game B-C in its own browser: A's crosstable changes live.
  const t = await a.evaluate(() => window.chameleon.tourney);
  const idx = Object.fromEntries(t.entrants.map((e) => [e.username, e.idx]));
  const g = t.schedule.find((x) => x.players.includes(idx[names[1]]) && x.players.includes(idx[names[2]]));
  const ctxB = await loggedIn(names[1], cookies[1]);
  const b = await page(ctxB, `#/game/${g.id}`);
  await b.waitForSelector('#btn-resign');
  // The game's room names its tournament and links to it.
  assert.equal(await b.getAttribute('#room-tourney', 'href'), `#/tournament/${id}`);
  assert.match(await b.textContent('#room-tourney'), /^Tournament: /);
  await b.screenshot({ path: path.join(OUT, 'tourney-game-1440.png') });
  await b.click('#btn-resign');
  const cell = `#crosstable td[data-cell="${idx[names[2]]}-${idx[names[1]]}"] a.res:not(.pending)`;
  await a.waitForSelector(cell);
  assert.equal(await a.textContent(cell), '1');
  assert.equal(await a.textContent(`#crosstable td[data-cell="${idx[names[1]]}-${idx[names[2]]}"] a.res`), '0');
  const row = `#tourney-standings tr[data-user="${names[2]}"] td.score`;
  assert.equal(await a.textContent(row), '1');
  await a.screenshot({ path: path.join(OUT, 'tourney-result-1440.png'), fullPage: true });

  // The list shows it running; narrow screens: no sideways scroll.
  for (const width of [390, 360]) {
    const ctx = await loggedIn(names[0], cookies[0], width);
    const p = await page(ctx, `#/tournament/${id}`);
    await p.waitForSelector('#crosstable');
    await noHorizontalScroll(p, `tournament ${width}`);
    await p.screenshot({ path: path.join(OUT, `tourney-running-${width}.png`), fullPage: true });
    await p.goto(`${server.url}/#/tournaments`);
    await p.waitForSelector(`.tourney-group[data-state=running] tr[data-id="${id}"]`);
    await noHorizontalScroll(p, `list ${width}`);
    await p.screenshot({ path: path.join(OUT, `tourney-list-${width}.png`), fullPage: true });
    await p.goto(`${server.url}/#/tournaments/new`);
    await p.waitForSelector('#t-name');
    await noHorizontalScroll(p, `form ${width}`);
    await p.screenshot({ path: path.join(OUT, `tourney-form-${width}.png`), fullPage: true });
    await ctx.close();
  }
  const text = await a.textContent('main');
  assert.ok(!/undefined|null|NaN/.test(text), `no undefined/null/NaN on the page: ${text}`);
  await ctxA.close();
  await ctxB.close();
  assert.deepEqual(pageErrors, []);
});
