// Ratings in the browser, through the real server (build/chameleon on a
// free loopback port, temporary database):
//  - the lobby offers "Rated" to an account and not to a guest;
//  - two accounts play rated games (seek, accept and resign sent through the
//    page's own connection); the seek in the lobby and the room show the
//    ratings with '?' while provisional;
//  - the player page shows the rating with its SVG history chart, the
//    record, and the archive with its filters and pages;
//  - the leaderboard page says nobody is on it yet (both are provisional);
//  - accounts' names in the lobby and the room link to their player pages
//    (a guest's does not), and the export link carries the archive's filters.
// Screenshots at 390 and 1440 px: tests/output/e2e/ratings-*.png, with no
// sideways scroll and no "null"/"undefined"/"NaN" in the text.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, settled, browserAndServer } from './lib.mjs';

let browser, server;
const pageErrors = [];
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function register(name) {
  const r = await fetch(`${server.url}/api/register`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: name, password: 'correct horse' }),
  });
  assert.equal(r.status, 200);
  const [pair] = r.headers.get('set-cookie').split(';');
  const [cname, value] = pair.split('=');
  return { name, cookie: { name: cname, value, url: server.url } };
}

async function open(acct, hash = '#/') {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  if (acct) await ctx.addCookies([acct.cookie]);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return { ctx, page };
}

// Full-page screenshots at both widths; returns the problems found.
async function shoot(page, name) {
  const problems = [];
  for (const [width, height] of [[390, 844], [1440, 900]]) {
    await page.setViewportSize({ width, height });
    await settled(page);
    const r = await page.evaluate(() => ({
      text: document.getElementById('main').innerText,
      over: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    }));
    const bad = /undefined|null|NaN/.exec(r.text);
    if (bad) problems.push(`${name} @${width}: "${bad[0]}"`);
    if (r.over > 0) problems.push(`${name} @${width}: ${r.over} px too wide`);
    await page.screenshot({ path: path.join(OUT, `ratings-${name}-${width}.png`), fullPage: true });
  }
  return problems;
}

// One rated game between the pages a and b: a seeks, b accepts, one move,
// `loser` resigns. Returns the room id.
async function ratedGame(a, b, loser, during = async () => {}) {
  const seek = await a.page.evaluate(async () => {
    const app = window.chameleon;
    const g = app.games.find((x) => x.players === 2).id;
    const r = await app.conn.request('seek_create', { game: g, base_ms: 300000, inc_ms: 3000, rated: true });
    return r.seek.id;
  });
  const room = await b.page.evaluate(async (id) => (await window.chameleon.conn.request('seek_accept', { seek: id })).room, seek);
  await a.page.waitForURL(new RegExp(`#/game/${room}$`));
  await b.page.waitForURL(new RegExp(`#/game/${room}$`));
  await during();
  await loser.page.evaluate((r) => window.chameleon.conn.request('resign', { room: r }, false), room);
  await a.page.waitForFunction(() => /over|won|resign/i.test(document.getElementById('main').innerText));
  // A profile read is queued behind the result: once it answers, the new
  // ratings are committed (and shown in the next seek and room).
  await fetch(`${server.url}/api/profile/${A.name}`);
  return room;
}

let A, B;
test('rated games, the player page and the leaderboard in the browser', { skip }, async () => {
  A = await register(`ann${process.pid % 1000}`);
  B = await register(`bob${process.pid % 1000}`);
  const guest = await open(null);
  await guest.page.waitForSelector('#new-rated-label', { state: 'attached' });
  assert.equal(await guest.page.isVisible('#new-rated-label'), false, 'no rated option for a guest');
  await guest.ctx.close();

  const a = await open(A), b = await open(B);
  assert.equal(await a.page.isVisible('#new-rated'), true, 'rated offered to an account');
  const problems = [];
  problems.push(...await shoot(a.page, 'lobby'));

  await ratedGame(a, b, b); // ann wins
  // Once stored, both bars say what the game changed (issue 34, item 2):
  // ann up from 1500, bob down as much (their first rated game).
  for (const p of [a.page, b.page]) {
    const up = await p.waitForSelector('.player .rating-diff.up');
    const down = await p.waitForSelector('.player .rating-diff.down');
    const [u, d] = [(await up.textContent()).trim(), (await down.textContent()).trim()];
    assert.match(u, /^\+\d+$/);
    assert.equal(d, `\u2212${u.slice(1)}`, 'equal and opposite from 1500 each');
  }
  problems.push(...await shoot(a.page, 'room-over'));
  await ratedGame(b, a, b, async () => { // ann wins again
    // The room shows both ratings, provisional.
    await a.page.waitForFunction(() => (document.getElementById('main').innerText.match(/\(\d+\?\)/g) || []).length >= 2);
    // And says the game is rated (issue 34, item 2).
    for (const p of [a.page, b.page]) assert.equal((await p.textContent('#room-rated')).trim(), 'Rated');
    // Both names link to their player pages (accounts).
    for (const x of [A, B])
      assert.equal(await a.page.locator(`.player a.plink[href="#/@/${x.name}"]`).count(), 1, `room link to ${x.name}`);
    problems.push(...await shoot(a.page, 'room'));
  });
  await ratedGame(a, b, a); // bob wins

  // A rated seek in the lobby shows its creator's rating.
  await a.page.goto(`${server.url}/#/`);
  await a.page.waitForSelector('#conn.online');
  await b.page.goto(`${server.url}/#/`);
  await b.page.waitForSelector('#conn.online');
  await a.page.evaluate(async () => {
    const app = window.chameleon;
    await app.conn.request('seek_create', { game: app.games.find((x) => x.players === 2).id, base_ms: 300000, inc_ms: 3000, rated: true });
  });
  await b.page.waitForSelector(`#seeks tr .rating`);
  assert.match(await b.page.textContent('#seeks tr'), new RegExp(`${A.name} \\(\\d+\\?\\)`));
  assert.match(await b.page.textContent('#seeks tr'), /rated/);
  assert.equal(await b.page.locator(`#seeks tr a.plink[href="#/@/${A.name}"]`).count(), 1, 'the lobby links an account');
  problems.push(...await shoot(b.page, 'lobby-seek'));
  // A seek for players rated 3000-4000, made with the form: its creator sees
  // it with its range, bob (far below) does not see it at all.
  await a.page.check('#new-rated');
  await a.page.fill('#new-rating-min', '3000');
  await a.page.fill('#new-rating-max', '4000');
  await a.page.click('#create-btn');
  await a.page.waitForFunction(() => document.querySelectorAll('#seeks tr').length === 2);
  assert.match(await a.page.textContent('#seeks'), /rated 3000\u20134000/);
  problems.push(...await shoot(a.page, 'lobby-range'));
  await b.page.waitForTimeout(1000); // a lobby_update tick or more
  assert.equal(await b.page.locator('#seeks tr').count(), 1, 'a seek out of range is not listed');

  // The player page.
  await b.page.goto(`${server.url}/#/@/${A.name}`);
  await b.page.waitForSelector('.rating-card svg.rating-chart polyline');
  const card = await b.page.textContent('.rating-card');
  assert.match(card, /blitz/);
  assert.match(card, /\d+\?/);
  assert.match(card, /3 games/);
  assert.equal(await b.page.locator('.rating-chart circle').count(), 3);
  assert.match(await b.page.textContent('#record tbody'), /2\s*1\s*0/);
  await b.page.waitForSelector('#archive-rows tr');
  assert.equal(await b.page.locator('#archive-rows tr').count(), 3);
  assert.match(await b.page.textContent('#archive-rows'), /\(\+\d+\)/);
  problems.push(...await shoot(b.page, 'player'));
  // Filters: lost games only, then a player never met.
  await b.page.selectOption('#f-result', 'loss');
  await b.page.click('#archive-filters button[type=submit]');
  await b.page.waitForFunction(() => document.querySelectorAll('#archive-rows tr').length === 1);
  // The export link carries the filters shown, as query parameters.
  const href = await b.page.getAttribute('#export-pgn', 'href');
  assert.equal(href, `/api/games/user/${A.name}?result=loss`);
  const exported = await (await fetch(`${server.url}${href}`)).text();
  assert.equal((exported.match(/\[Event /g) || []).length, 1);
  await b.page.selectOption('#f-result', '');
  await b.page.fill('#f-vs', 'nobody');
  await b.page.click('#archive-filters button[type=submit]');
  await b.page.waitForSelector('#archive-empty:not([hidden])');
  assert.equal(await b.page.isDisabled('#archive-older'), true);

  // The leaderboard: both still provisional.
  await b.page.goto(`${server.url}/#/leaderboard`);
  await b.page.waitForSelector('#board-empty');
  problems.push(...await shoot(b.page, 'leaderboard'));

  // A guest's seek: its name is no link. Clicking ann's linked name in the
  // lobby opens her page and does not join her seek.
  await b.page.goto(`${server.url}/#/`);
  await b.page.waitForSelector('#conn.online');
  const g = await open(null);
  const gseek = await g.page.evaluate(async () => {
    const app = window.chameleon;
    return (await app.conn.request('seek_create', { game: app.games.find((x) => x.players === 2).id, base_ms: 300000, inc_ms: 3000 })).seek.id;
  });
  await b.page.waitForSelector(`#seeks tr[data-seek="${gseek}"]`);
  assert.equal(await b.page.locator(`#seeks tr[data-seek="${gseek}"] .pname`).count(), 1);
  assert.equal(await b.page.locator(`#seeks tr[data-seek="${gseek}"] a.plink`).count(), 0, 'no link for a guest');
  await b.page.click(`#seeks tr a.plink[href="#/@/${A.name}"]`);
  await b.page.waitForURL(new RegExp(`#/@/${A.name}$`));
  await b.page.waitForSelector('.rating-card');
  await g.ctx.close();

  assert.deepEqual(problems, []);
  assert.deepEqual(pageErrors, []);
  await a.ctx.close();
  await b.ctx.close();
});
