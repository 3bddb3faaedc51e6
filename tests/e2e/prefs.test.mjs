// Preferences kept (issue 14): a guest's in this browser (localStorage:
// they survive a reload; the sound module's own key 'chameleon.sound' is
// read as the guest's default), an account's on the server (they follow
// the account to a new browser context at log-in, and are then applied
// before the first paint of the next load there).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, realServer, serverBinary } from './lib.mjs';

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, server;
before(async () => {
  browser = await launch();
  server = skip ? null : await realServer();
});
after(async () => { await browser?.close(); await server?.close(); });

async function open(ctx, hash = '#/') {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

async function choose(page, key, value) {
  if (!(await page.isVisible('#prefs-panel'))) await page.click('#prefs-btn');
  if (key === 'sound') await page.setChecked('#pref-sound', value);
  else await page.selectOption(`#pref-${key}`, value);
}

async function shown(page) {
  if (!(await page.isVisible('#prefs-panel'))) await page.click('#prefs-btn');
  const r = await page.evaluate(() => ({
    theme: document.documentElement.dataset.theme,
    board: document.documentElement.dataset.board,
    menu: ['theme', 'board', 'ultima_pieces'].map((k) => document.getElementById(`pref-${k}`).value).join(' '),
    sound: document.getElementById('pref-sound').checked,
    where: document.querySelector('.prefs-where').textContent,
  }));
  await page.keyboard.press('Escape');
  return r;
}

test("a guest's preferences survive a reload; the sound key is the guest's default", { skip }, async () => {
  const ctx = await browser.newContext();
  await ctx.addInitScript(() => { if (!sessionStorage.getItem('seeded')) { localStorage.setItem('chameleon.sound', 'off'); sessionStorage.setItem('seeded', '1'); } });
  const page = await open(ctx);
  let s = await shown(page);
  assert.equal(s.sound, false, "chameleon.sound 'off' read as the default");
  assert.match(s.where, /this browser/);
  await choose(page, 'theme', 'light');
  await choose(page, 'board', 'green');
  await choose(page, 'ultima_pieces', 'discs');
  await choose(page, 'sound', true);
  assert.equal(await page.evaluate(() => localStorage.getItem('chameleon.sound')), 'on', 'the sound key written for the sound module');
  await page.reload();
  await page.waitForSelector('#conn.online');
  s = await shown(page);
  assert.deepEqual([s.theme, s.board, s.menu, s.sound], ['light', 'green', 'light green discs', true]);
  await ctx.close();
});

test("an account's preferences follow it to a new browser context", { skip }, async () => {
  const name = `prefs${process.pid % 10000}`;
  const a = await browser.newContext();
  const pa = await open(a, '#/register');
  await pa.fill('#username', name);
  await pa.fill('#password', 'correct horse battery');
  await pa.click('#account-form button[type=submit]');
  await pa.waitForFunction((n) => window.chameleon.account === n, name);
  await choose(pa, 'theme', 'light');
  await choose(pa, 'board', 'blue');
  await choose(pa, 'ultima_pieces', 'discs');
  await choose(pa, 'sound', false);
  // Written to the account: the menu says where, and no error.
  await pa.waitForFunction(() => document.getElementById('prefs-status').textContent === '');
  const sa = await shown(pa);
  assert.match(sa.where, new RegExp(`your account \\(${name}\\)`));
  const stored = await pa.evaluate(() => fetch('/api/prefs', { credentials: 'same-origin' }).then((r) => r.json()));
  assert.deepEqual(stored.prefs, { theme: 'light', board: 'blue', ultima_pieces: 'discs', sound: false });
  await a.close();

  // A new browser: dark and default until the log-in, then the account's.
  const b = await browser.newContext();
  const pb = await open(b, '#/login');
  assert.equal((await shown(pb)).theme, 'dark');
  await pb.fill('#username', name);
  await pb.fill('#password', 'correct horse battery');
  await pb.click('#account-form button[type=submit]');
  await pb.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  const sb = await shown(pb);
  assert.deepEqual([sb.theme, sb.board, sb.menu, sb.sound], ['light', 'blue', 'light blue discs', false]);
  // The next load there is light from the first paint (cached locally).
  await pb.goto(`${server.url}/#/howto/ultima`);
  await pb.reload({ waitUntil: 'commit' });
  await pb.waitForSelector('#main', { state: 'attached' });
  assert.equal(await pb.getAttribute('html', 'data-theme'), 'light');
  await pb.waitForSelector('#howto-board g.piece');
  assert.equal(await pb.locator('#howto-board g.piece.disc').count(), 32, 'the discs, from the account');
  await b.close();
});
