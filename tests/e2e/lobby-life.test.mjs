// The lobby's life (issue 14): the counts of players online and games
// being played, the games being played listed with links that open them
// as a spectator, and a challenge to a named player: sent from the lobby,
// seen live by the challenged (no reload), declined, cancelled, then
// accepted, which starts the game for both. Screenshots of the lobby with
// all of it at 390 and 1440 px in both themes
// (tests/output/e2e/life-<theme>-<width>.png).

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

async function player(name, viewport = { width: 1440, height: 900 }) {
  const ctx = await browser.newContext({ viewport });
  if (name) {
    const r = await ctx.request.post(`${server.url}/api/register`, { data: { username: name, password: 'correct horse battery' } });
    assert.equal(r.status(), 200);
  }
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('#conn.online');
  if (name) await page.waitForFunction((n) => window.chameleon.account === n, name);
  return { ctx, page, errors };
}

async function challenge(page, to, game = 'ultima') {
  await page.fill('#challenge-to', to);
  await page.selectOption('#challenge-game', game);
  await page.selectOption('#challenge-tc', { label: '3+2' });
  await page.click('#challenge-btn');
  await page.waitForSelector(`#challenge-form-status:has-text("Challenge sent to ${to}")`);
}

test('counts, a challenge declined, cancelled, accepted, and the game watched', { skip }, async () => {
  const ann = await player('ann_ll');
  const ben = await player('ben_ll', { width: 390, height: 844 });
  const guest = await player(null);
  // Three online, nothing played yet.
  await guest.page.waitForSelector('#online-count:has-text("3 players")');
  assert.equal(await guest.page.textContent('#playing-count'), '0 games');
  assert.equal(await guest.page.isVisible('#watch-empty'), true);
  // A guest is told to log in to challenge.
  assert.equal(await guest.page.isVisible('#challenge-login'), true);
  assert.equal(await guest.page.isVisible('#challenge-form'), false);
  // Only two-player games are offered.
  const offered = await ann.page.$$eval('#challenge-game option', (os) => os.map((o) => o.value));
  assert.ok(offered.includes('ultima') && !offered.includes('yalta') && !offered.includes('ant3'), offered.join());

  // Declined.
  await challenge(ann.page, 'ben_ll');
  await ann.page.waitForSelector('#challenges-out li:has-text("You challenge ben_ll")');
  await ben.page.waitForSelector('#challenges-in li:has-text("ann_ll challenges you")');
  assert.match(await ben.page.textContent('#challenges-in li'), /Ultima \(1963 rules\) · 3\+2/);
  await ben.page.click('#challenges-in button.decline');
  await ann.page.waitForSelector('#challenge-status:has-text("ben_ll declined your challenge.")');
  assert.equal(await ann.page.locator('#challenges-out li').count(), 0);
  await ben.page.waitForFunction(() => !document.querySelector('#challenges-in li'));

  // Cancelled by the challenger.
  await challenge(ann.page, 'ben_ll', 'rollerball');
  await ben.page.waitForSelector('#challenges-in li:has-text("Rollerball")');
  await ann.page.click('#challenges-out button.cancel');
  await ben.page.waitForSelector('#challenge-status:has-text("ann_ll withdrew the challenge.")');
  assert.equal(await ben.page.locator('#challenges-in li').count(), 0);

  // A bad name is refused clearly.
  await ann.page.fill('#challenge-to', 'nobody_at_all');
  await ann.page.click('#challenge-btn');
  await ann.page.waitForSelector('#challenge-form-status.error:has-text("no player named")');

  // Accepted: the game starts for both. Ben (on a phone, the navigation
  // behind the menu button) is elsewhere when it comes: the button's badge
  // counts it, and in the menu the Play link's; the lobby shows it.
  await ben.page.click('#menu-btn');
  await ben.page.click('[data-nav="games"]');
  await challenge(ann.page, 'ben_ll');
  await ben.page.waitForSelector('#menu-count:not([hidden]):has-text("1")');
  await ben.page.click('#menu-btn');
  await ben.page.waitForSelector('#challenge-count:not([hidden]):has-text("1")');
  await ben.page.click('[data-nav="lobby"]');
  await ben.page.waitForSelector('#challenges-in button.accept');
  for (const theme of ['dark', 'light']) {
    for (const [who, p] of [['ann', ann.page], ['ben', ben.page]]) {
      await p.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      for (const width of [390, 1440]) {
        await p.setViewportSize({ width, height: width < 800 ? 844 : 900 });
        await settled(p);
        const over = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(over <= 0, `${who} lobby @${width}: ${over} px of sideways scroll`);
        await p.screenshot({ path: path.join(OUT, `life-${who}-${theme}-${width}.png`), fullPage: true });
      }
    }
  }
  await ben.page.setViewportSize({ width: 390, height: 844 });
  // On a phone the challenge to Ben comes first, above "Create a game".
  const tops = await ben.page.evaluate(() => ['challenges', 'create-panel'].map((id) => document.getElementById(id).getBoundingClientRect().top));
  assert.ok(tops[0] < tops[1], `the challenges (${tops[0]} px) above "Create a game" (${tops[1]} px)`);
  await ben.page.click('#challenges-in button.accept');
  await Promise.all([ann.page.waitForURL(/#\/game\/\d+$/), ben.page.waitForURL(/#\/game\/\d+$/)]);
  await ben.page.waitForSelector('#challenge-count[hidden]', { state: 'attached' });
  const room = ann.page.url().split('/').pop();
  assert.equal(ben.page.url().split('/').pop(), room);
  await ann.page.waitForSelector('svg.board g.piece.movable'); // the challenger is White, to move

  // The guest sees the game in the lobby, live, and opens it to watch.
  await guest.page.waitForSelector('#playing-count:has-text("1 game")');
  await guest.page.waitForSelector(`#watch-list li[data-room="${room}"]`);
  const item = await guest.page.textContent(`#watch-list li[data-room="${room}"]`);
  assert.match(item, /Ultima \(1963 rules\) · 3\+2/);
  assert.match(item, /ann_ll vs ben_ll/);
  for (const width of [390, 1440]) {
    await guest.page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
    await guest.page.screenshot({ path: path.join(OUT, `life-guest-${width}.png`), fullPage: true });
  }
  await guest.page.click(`#watch-list li[data-room="${room}"] a.watch-link`);
  await guest.page.waitForURL(new RegExp(`#/game/${room}$`));
  await guest.page.waitForSelector('svg.board g.piece');
  assert.equal(await guest.page.locator('svg.board g.piece.movable').count(), 0, 'a spectator moves nothing');
  const names = await guest.page.$$eval('.player', (ps) => ps.map((p) => p.textContent).join(' '));
  assert.match(names, /ann_ll/);
  assert.match(names, /ben_ll/);
  for (const p of [ann, ben, guest]) assert.deepEqual(p.errors, []);
  for (const p of [ann, ben, guest]) await p.ctx.close();
});
