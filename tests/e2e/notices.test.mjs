// In-tab notices (web-client/js/notices.js; PROTOCOL.md, "Web Push and
// in-tab notices") through the real server: two guests play a live game
// from the lobby; the second's tab is made hidden (document.visibilityState
// and document.hidden overridden, visibilitychange dispatched) and the
// first moves: the hidden tab's title gets the badge "(1) ♟ Your move" and
// a Notification is constructed (window.Notification spied on in the page,
// the permission granted through the browser context); once the tab is
// seen again the title is back. The mover's own tab gets no badge. The
// profile's notification control is shot at 360, 390 and 1440 px (no
// sideways scroll). Screenshots: tests/output/e2e/notices-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const pageErrors = [];
const skip = browserAndServer((b, s) => { browser = b; server = s; }, {}, { notifications: true });

// A spy on the Notification constructor, installed before the page's
// scripts: each construction is recorded (then really made).
function spyNotifications() {
  window.__notes = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, opts) {
      window.__notes.push({ title, body: opts && opts.body, tag: opts && opts.tag });
      super(title, opts);
    }
  };
  // And the sounds: each play() of an audio element, by its file.
  window.__sounds = [];
  const realPlay = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    window.__sounds.push(String(this.src).replace(/^.*\//, ''));
    return realPlay.call(this).catch(() => {}); // no user gesture in a test
  };
}

async function player(permissions = []) {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 }, permissions });
  await ctx.addInitScript(spyNotifications);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  return { ctx, page };
}

function setHidden(page, hidden) {
  return page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.hasFocus = () => !h;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

test('a move in a hidden tab: title badge and a notification', { skip, timeout: 60000 }, async () => {
  const a = await player();
  const b = await player(['notifications']);
  assert.equal(await b.page.evaluate(() => Notification.permission), 'granted');
  await a.page.selectOption('#new-game', 'ultima');
  await a.page.selectOption('#new-tc', { label: '10+5' });
  await a.page.click('#create-btn');
  await b.page.locator('tr.seek[data-game="ultima"] button.join').first().click();
  for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
  const room = Number(/#\/game\/(\d+)$/.exec(a.page.url())[1]);
  const baseTitle = await b.page.title();
  assert.ok(!baseTitle.startsWith('('), baseTitle);

  // Which tab is to move (the creator holds seat 0, who moves first).
  const st = await a.page.evaluate((r) => window.chameleon.conn.request('join', { room: r }), room);
  assert.equal(st.you, st.to_move, 'the creator moves first');
  await b.page.evaluate(() => {
    window.__moves = 0;
    window.chameleon.conn.on('event', (m) => { if (m.kind === 'move') window.__moves++; });
  });

  await setHidden(b.page, true);
  await a.page.evaluate(([r, mv]) => window.chameleon.conn.request('move', { room: r, move: mv }, false), [room, st.legal[0]]);
  await b.page.waitForFunction(() => window.__moves === 1, null, { timeout: 15000 });
  assert.match(await b.page.title(), /^\(1\) \u265f Your move/);
  // The move sounded in the hidden tab (js/sound.js through room/sounds.js).
  await b.page.waitForFunction(() => window.__sounds.some((f) => /^(move|capture|check)\.ogg$/.test(f)), null, { timeout: 5000 });
  const notes = await b.page.evaluate(() => window.__notes);
  assert.equal(notes.length, 1, JSON.stringify(notes));
  assert.equal(notes[0].title, 'Your move');
  assert.match(notes[0].body, new RegExp(`#${room}:`));
  assert.equal(notes[0].tag, `chameleon-game-${room}`);
  // The mover's tab: no badge, no notification.
  assert.ok(!(await a.page.title()).startsWith('('));
  assert.equal((await a.page.evaluate(() => window.__notes)).length, 0);
  await b.page.screenshot({ path: path.join(OUT, 'notices-hidden-tab.png') });

  // Seen again: the badge goes.
  await setHidden(b.page, false);
  await b.page.waitForFunction(() => !document.title.startsWith('('));
  assert.match(await b.page.title(), /chameleon$/);
  assert.equal(await b.page.evaluate(() => window.chameleon.notices.unseen), 0);

  // B answers; then a move while B's tab is in front: no badge, no
  // notification.
  const stb = await b.page.evaluate((r) => window.chameleon.conn.request('join', { room: r }), room);
  await b.page.evaluate(([r, mv]) => window.chameleon.conn.request('move', { room: r, move: mv }, false), [room, stb.legal[0]]);
  await b.page.waitForFunction(() => window.__moves === 2, null, { timeout: 15000 });
  const stc = await a.page.evaluate((r) => window.chameleon.conn.request('join', { room: r }), room);
  assert.equal(stc.moves.length, 2);
  await a.page.evaluate(([r, mv]) => window.chameleon.conn.request('move', { room: r, move: mv }, false), [room, stc.legal[0]]);
  await b.page.waitForFunction(() => window.__moves === 3, null, { timeout: 15000 });
  assert.ok(!(await b.page.title()).startsWith('('), await b.page.title());
  assert.equal((await b.page.evaluate(() => window.__notes)).length, 1);
  await a.ctx.close();
  await b.ctx.close();
  assert.deepEqual(pageErrors, []);
});

test('the profile asks for the permission only on a click', { skip, timeout: 60000 }, async () => {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.addInitScript(() => {
    window.__asked = 0;
    const real = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = (...a) => { window.__asked++; return real(...a); };
  });
  await page.goto(`${server.url}/#/profile`);
  await page.waitForSelector('#notice-allow');
  assert.equal(await page.evaluate(() => window.__asked), 0, 'not asked at page load');
  assert.equal(await page.getAttribute('#notice-state', 'data-permission'), 'default');
  for (const [w, hgt] of [[360, 740], [390, 844], [1440, 900]]) {
    await page.setViewportSize({ width: w, height: hgt });
    const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(over, 0, `sideways scroll at ${w} px`);
    await page.screenshot({ path: path.join(OUT, `notices-profile-${w}.png`), fullPage: true });
  }
  await page.click('#notice-allow');
  await page.waitForFunction(() => window.__asked === 1);
  await ctx.close();
  assert.deepEqual(pageErrors, []);
});
