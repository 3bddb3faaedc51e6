// The home page says what the site is and opens three doors (issue 33,
// "The home page"): at 390 px (a phone, 844 px tall) and 1440 px, the one
// line and the doors "Play now", "Learn to play" and "Games in progress"
// are at the top, and at 390 px the first two fit in the first screen;
// the header is one row there, its navigation behind a menu button (which
// opens it, carries the "your turn" count, and closes on a choice or
// Escape). Each door is played to its end: the computer at once (a room
// with a bot), "Find an opponent" offering a 5+3 game that a second
// visitor's "Find an opponent" joins (both in the room), the rules, a
// game being played watched, your games.
// Screenshots: tests/output/e2e/home-<width>.png, home-menu-390.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer, settled } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(width, height = 900) {
  const ctx = await browser.newContext({ viewport: { width, height } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  await page.waitForSelector('#door-computer:not([disabled])');
  return page;
}
const box = (page, sel) => page.locator(sel).boundingBox();

test('the home page: what the site is, three doors on the first screen, the header in one row at 390 px', { skip }, async () => {
  for (const [width, height] of [[390, 844], [1440, 900]]) {
    const p = await open(width, height);
    assert.equal((await p.textContent('#welcome h1')).trim(), 'Four unusual chess games');
    assert.match(await p.textContent('#welcome .lead'), /Ultima, Rollerball, Yalta and Ant Chess/);
    assert.match(await p.textContent('#door-play-text'), /Ultima \(1963 rules\), level 3/);
    // The doors, in order, above the lobby's panels.
    const doors = [];
    for (const id of ['#door-play', '#door-learn', '#door-progress']) doors.push(await box(p, id));
    const openGames = await box(p, '#open-games');
    assert.ok(doors[2].y + doors[2].height <= openGames.y, `${width}: the doors come before the open games`);
    if (width === 390) {
      // One column; the first two doors within the first screen.
      assert.ok(doors[0].y < doors[1].y && doors[1].y < doors[2].y);
      assert.ok(doors[1].y + doors[1].height <= height, `390: "Learn" ends at ${doors[1].y + doors[1].height}`);
      // The header: one row (brand, gear and menu button side by side), the
      // navigation folded.
      const [brand, gear, menu, header] = await Promise.all(['.brand', '#prefs-btn', '#menu-btn', 'header.top'].map((s) => box(p, s)));
      assert.ok(header.height < 56, `header ${header.height} px high`);
      for (const b of [gear, menu]) assert.ok(Math.abs((b.y + b.height / 2) - (brand.y + brand.height / 2)) < 8);
      assert.ok(menu.x + menu.width <= width);
      assert.equal(await p.isVisible('#site-nav'), false);
      assert.equal(await p.getAttribute('#menu-btn', 'aria-expanded'), 'false');
    } else {
      // Three side by side, all in the first screen; no menu button.
      assert.ok(Math.abs(doors[0].y - doors[2].y) < 2 && doors[0].x < doors[1].x && doors[1].x < doors[2].x);
      assert.ok(doors[2].y + doors[2].height <= height);
      assert.equal(await p.isVisible('#menu-btn'), false);
      assert.equal(await p.isVisible('#site-nav'), true);
    }
    await settled(p);
    await p.screenshot({ path: path.join(OUT, `home-${width}.png`) });
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});

test('the menu button opens the navigation on a phone and closes on a choice or Escape', { skip }, async () => {
  const p = await open(390, 844);
  await p.click('#menu-btn');
  await p.waitForSelector('#site-nav a[data-nav="howto"]', { state: 'visible' });
  assert.equal(await p.getAttribute('#menu-btn', 'aria-expanded'), 'true');
  const nav = await box(p, '#site-nav');
  const header = await box(p, 'header.top');
  assert.ok(nav.y >= header.y + header.height - 1 && nav.x + nav.width <= 390, 'below the header, within the page');
  await p.screenshot({ path: path.join(OUT, 'home-menu-390.png') });
  await p.keyboard.press('Escape');
  await p.waitForSelector('#site-nav', { state: 'hidden' });
  assert.equal(await p.evaluate(() => document.activeElement.id), 'menu-btn');
  await p.click('#menu-btn');
  await p.click('#site-nav a[data-nav="howto"]');
  await p.waitForURL(/#\/howto$/);
  await p.waitForSelector('#site-nav', { state: 'hidden' });
  // A click elsewhere closes it too.
  await p.click('#menu-btn');
  await p.waitForSelector('#site-nav', { state: 'visible' });
  await p.click('main', { position: { x: 20, y: 300 } });
  await p.waitForSelector('#site-nav', { state: 'hidden' });
  assert.deepEqual(p.errors, []);
  await p.context().close();
});

test('the doors played to their end: the computer, an opponent found, the rules, a game watched, your games', { skip }, async () => {
  // The computer at once: a room with a bot, from the phone's first screen.
  const solo = await open(390, 844);
  await solo.click('#door-computer');
  await solo.waitForURL(/#\/game\/\d+$/);
  await solo.waitForSelector('.player');
  const botRoom = /#\/game\/(\d+)$/.exec(solo.url())[1];
  await solo.context().close();

  // "Find an opponent": nobody waits, so a 5+3 game is offered; a second
  // visitor's click on the same door joins it and both are in its room.
  const a = await open(1440);
  await a.click('#door-pair');
  await a.waitForSelector('#door-status:has-text("waiting for an opponent")');
  await a.waitForSelector('#seeks tr.seek[data-game="ultima"]');
  assert.match(await a.textContent('#seeks tr.seek'), /5\+3/);
  // A second click does not offer a second game.
  await a.click('#door-pair');
  await settled(a);
  assert.equal(await a.locator('#seeks tr.seek').count(), 1);
  const b = await open(390, 844);
  await b.waitForSelector('#seeks tr.seek[data-game="ultima"]', { state: 'attached' });
  await b.click('#door-pair');
  await a.waitForURL(/#\/game\/\d+$/);
  await b.waitForURL(/#\/game\/\d+$/);
  assert.equal(a.url().split('#')[1], b.url().split('#')[1]);
  // The room says the game is casual (the door's games are not rated).
  await b.waitForSelector('#room-rated');
  assert.equal((await b.textContent('#room-rated')).trim(), 'Casual');
  await b.screenshot({ path: path.join(OUT, 'home-paired-390.png') });

  // The rules.
  const c = await open(1440);
  await c.click('#door-rules');
  await c.waitForURL(/#\/howto$/);
  // A game being played, watched: the bot game and the pairing are listed.
  await c.goto(`${server.url}/#/`);
  await c.waitForSelector(`#watch-list li[data-room="${botRoom}"]`);
  await c.click('#door-watch');
  await c.waitForFunction(() => document.activeElement && document.activeElement.classList.contains('watch-link'));
  const focusedRoom = await c.evaluate(() => document.activeElement.closest('li').dataset.room);
  // The list is drawn again when the games change (here a new one
  // starts): the focus stays on the same game's link, and Enter opens it.
  const listed = await c.locator('#watch-list li').count();
  const d = await open(1440);
  await d.click('#door-computer');
  await d.waitForURL(/#\/game\/\d+$/);
  await c.waitForFunction((n) => document.querySelectorAll('#watch-list li').length > n, listed);
  assert.equal(await c.evaluate(() => document.activeElement.closest('#watch-list li')?.dataset.room), focusedRoom);
  await c.keyboard.press('Enter');
  await c.waitForURL(new RegExp(`#/game/${focusedRoom}$`));
  await c.waitForSelector('.player');
  // A game watched is not one of "Your games": that link is not lit; a
  // player's own game lights it.
  assert.equal(await c.locator('[data-nav="games"].active').count(), 0, 'a spectator');
  assert.equal(await d.locator('[data-nav="games"].active').count(), 1, 'a player');
  // Your games: the one found by the door.
  await a.goto(`${server.url}/#/`);
  await a.waitForSelector('#door-games');
  const room = /#\/game\/(\d+)$/.exec(b.url())[1];
  await a.click('#door-games');
  await a.waitForSelector(`#your-games tr[data-room="${room}"]`);
  for (const p of [a, b, c, d]) {
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});
