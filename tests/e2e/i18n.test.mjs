// The client in French and Italian (i18n.js): a browser asking for fr-FR or
// it-IT gets <html lang> set and no visible text that is the English of a
// string of the table (a whole text node, or a button's or heading's whole
// text, equal to an English value whose translation differs) on the
// lobby, a live game room, your turn, your games, profile, log in,
// tournaments, the leaderboard, a player page, the analysis board and the
// how-to page. The preferences menu's language switch turns an
// English page French (the page reloads in it) and the choice outlives a
// reload. Screenshots: tests/output/e2e/i18n-*.png (lobby and game page,
// 390 and 1440 px, no sideways scroll).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(locale, hash = '#/', width = 1440) {
  const ctx = await browser.newContext({ locale, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

// The English words of the page: whole text nodes (and whole texts of
// buttons, labels, headings, options) equal to a table value's English
// whose translation in `lang` differs.
async function english(page, lang) {
  return page.evaluate((l) => {
    const { S } = window.chameleonI18n;
    const en = new Set(Object.values(S).filter((v) => v[l] && v[l].trim() !== v.en.trim()).map((v) => v.en.trim()));
    const found = new Set();
    const visible = (e) => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const brand = document.querySelector('.brand');
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const s = n.textContent.trim();
      if (s && en.has(s) && visible(n.parentElement) && !brand.contains(n)) found.add(s);
    }
    for (const e of document.querySelectorAll('button, label, h1, h2, h3, th, a, legend, option')) {
      const s = e.textContent.trim();
      if (en.has(s) && e !== brand && (e.tagName === 'OPTION' || visible(e))) found.add(s);
    }
    return { lang: document.documentElement.lang, found: [...found] };
  }, lang);
}

async function register(page, name) {
  await page.goto(`${server.url}/#/register`);
  await page.fill('#username', name);
  await page.fill('#password', `${name}-secret-pw`);
  await page.click('#account-form button[type=submit]');
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
}

for (const [lang, locale] of [['fr', 'fr-FR'], ['it', 'it-IT']]) {
  test(`every page in ${locale}: html lang, no English string of the table`, { skip }, async () => {
    const problems = [];
    const check = async (page, name) => {
      await page.waitForTimeout(300);
      const r = await english(page, lang);
      if (r.lang !== lang) problems.push(`${name}: html lang ${r.lang}`);
      if (r.found.length) problems.push(`${name}: ${r.found.join(' | ')}`);
    };
    const a = await open(locale);
    await register(a, `anna_${lang}`);
    await a.goto(`${server.url}/#/`);
    await a.waitForSelector('#create-btn:not([disabled])');
    await check(a, 'lobby');
    for (const w of [390, 1440]) {
      await a.setViewportSize({ width: w, height: 900 });
      const over = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (over > 0) problems.push(`lobby @${w}: ${over} px too wide`);
      await a.screenshot({ path: path.join(OUT, `i18n-${lang}-lobby-${w}.png`), fullPage: true });
    }
    await a.setViewportSize({ width: 1440, height: 900 });
    // A live game: Anna's seek, joined by a guest.
    await a.selectOption('#new-game', 'ultima');
    await a.click('#create-btn');
    const b = await open(locale);
    await b.waitForSelector('tr.seek button.join');
    await check(b, 'lobby-seek');
    await b.click('tr.seek button.join');
    for (const p of [a, b]) await p.waitForSelector('.player', { timeout: 8000 }).catch(async (e) => { await p.screenshot({ path: path.join(OUT, `i18n-${lang}-fail.png`) }); throw e; });
    await b.waitForSelector('#btn-resign');
    await check(a, 'room');
    for (const w of [390, 1440]) {
      await a.setViewportSize({ width: w, height: 900 });
      const over = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (over > 0) problems.push(`room @${w}: ${over} px too wide`);
      await a.screenshot({ path: path.join(OUT, `i18n-${lang}-room-${w}.png`), fullPage: true });
    }
    await a.setViewportSize({ width: 1440, height: 900 });
    await b.click('#btn-resign');
    await a.waitForSelector('#banner:not([hidden])');
    await check(a, 'room-over');
    const banner = await a.textContent('#banner');
    assert.match(banner, lang === 'fr' ? /gagne/ : /Vince/);

    for (const [hash, name] of [['#/turn', 'turn'], ['#/games', 'games'], ['#/profile', 'profile'],
      ['#/tournaments', 'tournaments'], ['#/leaderboard', 'leaderboard'], [`#/@/anna_${lang}`, 'player'],
      ['#/analysis', 'analysis'], ['#/howto', 'howto'], ['#/howto/ultima', 'howto-ultima']]) {
      await a.goto(`${server.url}/${hash}`);
      await a.waitForSelector('main h1');
      await check(a, name);
    }
    await b.goto(`${server.url}/#/login`);
    await b.waitForSelector('#username');
    await check(b, 'login');
    await a.context().close();
    await b.context().close();
    assert.deepEqual(problems, []);
  });
}

test('the menu switch changes the language, kept after a reload', { skip }, async () => {
  const p = await open('en-US');
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'en');
  assert.equal((await p.textContent('[data-nav="howto"]')).trim(), 'How to play');
  await p.click('#prefs-btn');
  await Promise.all([p.waitForEvent('load'), p.selectOption('#pref-lang', 'fr')]);
  await p.waitForSelector('#conn.online');
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'fr');
  assert.equal((await p.textContent('[data-nav="howto"]')).trim(), 'Règles du jeu');
  assert.equal((await p.textContent('#create-btn')).trim(), 'Créer');
  await p.reload();
  await p.waitForSelector('#conn.online');
  assert.match((await p.textContent('[data-nav="lobby"]')).trim(), /^Jouer/);
  await p.click('#prefs-btn');
  assert.equal(await p.inputValue('#pref-lang'), 'fr');
  await Promise.all([p.waitForEvent('load'), p.selectOption('#pref-lang', 'it')]);
  await p.waitForSelector('#conn.online');
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'it');
  assert.equal((await p.textContent('[data-nav="howto"]')).trim(), 'Come si gioca');
  await p.context().close();
});
