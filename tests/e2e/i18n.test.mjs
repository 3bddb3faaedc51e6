// The client in French and Italian (i18n.js): a browser asking for fr-FR or
// it-IT gets <html lang> set, and on every page no English of the WHOLE
// table is shown (every key's English whose French or Italian differs;
// texts with {placeholders} matched as patterns) and no raw key: in text,
// in the aria-label, title and placeholder attributes, in the pieces'
// SVG titles and in the page's title. The pages: the lobby (with a seek),
// a live game with an error (a move the server refuses, said by its
// code; a challenge to nobody, said by its code and request) and a notice
// (a draw offered), the game over, the finished game opened by a new
// visitor, its analysis board, your turn, your games, the profile with
// its notices and e-mail settings, the password and
// confirmation pages (a refused link), log in and register, the
// tournaments (list, form, one tournament), the leaderboard, a player page
// with its archive, the analysis board, the how-to index and every game's
// how-to (Ultima with both piece sets: never the chess set's words with
// the discs). The preferences menu's switch turns an English page French
// (the page reloads in it) and the choice outlives a reload.
// Screenshots at 390 and 1440 px: tests/output/e2e/i18n-<lang>-<page>-<w>.png
// (no sideways scroll at 360, 390 and 1440 px, no button, clock or label
// wider than the page or than its own box). Last, after a restart, the
// archive's viewer of a finished game (no longer in the server's memory).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer, realServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(locale, hash = '#/', width = 1440) {
  const ctx = await browser.newContext({ locale, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

// What of the page is English (or a raw key): see the header.
async function english(page, lang) {
  return page.evaluate((l) => {
    const { S } = window.chameleonI18n;
    const exact = new Set();
    const patterns = [];
    for (const v of Object.values(S)) {
      const en = v.en.trim();
      if (!v[l] || v[l].trim() === en) continue;
      if (!/\{\w+\}/.test(en)) { exact.add(en); continue; }
      // A pattern only when the English has words of its own besides the
      // placeholders ("{owner} {kind}" would match anything).
      if (en.replace(/\{\w+\}/g, '').replace(/[^A-Za-z]/g, '').length < 4) continue;
      const re = en.split(/\{\w+\}/).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?');
      patterns.push(new RegExp(`^${re}$`));
    }
    const keys = new Set(Object.keys(S));
    const found = new Set();
    const test = (s, where) => {
      const x = (s || '').trim();
      if (!x) return;
      if (exact.has(x) || patterns.some((re) => re.test(x))) found.add(`${where}: ${x}`);
      if (keys.has(x)) found.add(`${where}: raw key ${x}`);
    };
    const visible = (e) => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const brand = document.querySelector('.brand');
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const p = n.parentElement;
      if (brand.contains(n)) continue;
      if (p.closest('svg') ? !p.closest('[hidden]') : visible(p)) test(n.textContent, p.tagName.toLowerCase());
    }
    for (const e of document.querySelectorAll('button, label, h1, h2, h3, h4, th, td, li, a, legend, option, summary, p, span, div')) {
      if (e !== brand && !e.closest('[hidden]') && (e.tagName === 'OPTION' || visible(e)) && e.children.length < 6) test(e.textContent, e.tagName.toLowerCase());
    }
    for (const e of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if (e.closest('[hidden]')) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) if (e.hasAttribute(a)) test(e.getAttribute(a), `@${a}`);
    }
    test(document.title.replace(/^\(\d+\) /, ''), 'title');
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

const fetchJSON = (page, method, url, body) => page.evaluate(async ([m, u, b]) => {
  const r = await fetch(u, { method: m, headers: { 'Content-Type': 'application/json' }, body: b ? JSON.stringify(b) : undefined });
  return r.json();
}, [method, url, body]);

for (const [lang, locale] of [['fr', 'fr-FR'], ['it', 'it-IT']]) {
  test(`every page in ${locale}: html lang, no English string of the table, no raw key`, { skip, timeout: 120000 }, async () => {
    const problems = [];
    const check = async (page, name) => {
      await page.waitForTimeout(150);
      const r = await english(page, lang);
      if (r.lang !== lang) problems.push(`${name}: html lang ${r.lang}`);
      for (const f of r.found) problems.push(`${name}: ${f}`);
    };
    // Screenshots at a phone's and a desktop's width: no sideways scroll,
    // no button or clock wider than the page or cut by its box.
    const shots = async (page, name) => {
      for (const w of [360, 390, 1440]) {
        await page.setViewportSize({ width: w, height: 900 });
        await page.waitForTimeout(150);
        const r = await page.evaluate(() => {
          const W = document.documentElement.clientWidth;
          const over = document.documentElement.scrollWidth - window.innerWidth;
          const cut = [...document.querySelectorAll('button, .button-link, .clock, .tag, select, label')]
            .filter((e) => e.getClientRects().length && !e.closest('.table-scroll, .cross-scroll, .sr-only'))
            .filter((e) => { const b = e.getBoundingClientRect(); return b.right > W + 1 || e.scrollWidth > e.clientWidth + 2; })
            .map((e) => `${e.tagName.toLowerCase()}#${e.id || ''} "${e.textContent.trim().slice(0, 30)}"`);
          return { over, cut };
        });
        if (r.over > 0) problems.push(`${name} @${w}: ${r.over} px too wide`);
        for (const c of r.cut) problems.push(`${name} @${w}: overflows: ${c}`);
        if (w !== 360) await page.screenshot({ path: path.join(OUT, `i18n-${lang}-${name}-${w}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1440, height: 900 });
    };
    const a = await open(locale);
    const keyAsks = [];
    a.on('request', (r) => { if (r.url().includes('/api/push/key')) keyAsks.push(r.url()); });
    const S = await a.evaluate(() => window.chameleonI18n.S);
    const say = (k) => S[k][lang];
    const anna = `anna_${lang}`;
    await register(a, anna);
    await a.goto(`${server.url}/#/`);
    await a.waitForSelector('#create-btn:not([disabled])');
    await check(a, 'lobby');
    await shots(a, 'lobby');
    // An error the protocol gives several causes, said for its request.
    await a.fill('#challenge-to', 'nobody_here');
    await a.click('#challenge-btn');
    await a.waitForSelector('#challenge-form-status.error');
    assert.equal(await a.textContent('#challenge-form-status'), say('err.challenge_create.not_found'));
    await check(a, 'lobby-challenge-error');

    // A game aborted before any move (against the computer, Anna first to
    // move): her archive says it had no result, in the language.
    await a.selectOption('#bot-game', 'rollerball');
    await a.selectOption('#bot-seat', '0');
    await a.click('#bot-btn');
    await a.waitForURL(/#\/game\/\d+$/);
    await a.click('#btn-abort');
    await a.waitForSelector('#banner:not([hidden])');
    await a.goto(`${server.url}/#/`);
    await a.waitForSelector('#create-btn:not([disabled])');

    // A live game: Anna's seek, joined by a guest.
    await a.selectOption('#new-game', 'ultima');
    await a.click('#create-btn');
    await a.waitForFunction((w) => document.getElementById('lobby-status').textContent === w, say('lobby.waiting1'));
    const b = await open(locale);
    await b.waitForSelector('tr.seek button.join');
    await check(b, 'lobby-seek');
    await shots(b, 'lobby-seek');
    await b.click('tr.seek button.join');
    for (const p of [a, b]) await p.waitForSelector('.player', { timeout: 15000 });
    await b.waitForSelector('#btn-resign');
    const room = Number(/#\/game\/(\d+)$/.exec(a.url())[1]);
    // The one to move types a move the server refuses: its words are the
    // table's, by the error's code.
    const mover = (await a.isEnabled('#move-input')) ? a : b;
    const other = mover === a ? b : a;
    await mover.fill('#move-input', 'zz9');
    await mover.press('#move-input', 'Enter');
    await mover.waitForSelector('#room-status.error');
    assert.equal((await mover.textContent('#room-status')).trim(), say('err.bad_move_text'));
    await check(mover, 'room-error');
    // The board's cells are named for screen readers in the language.
    const labels = await mover.evaluate(() => [...document.querySelectorAll('[role=gridcell]')].map((e) => e.getAttribute('aria-label')));
    const owner = { fr: / des (Blancs|Noirs)$/, it: / del (Bianco|Nero)$/ }[lang];
    assert.ok(labels.filter((x) => owner.test(x)).length === 32, labels.slice(0, 10).join(' | '));
    assert.ok(labels.includes(`e4, ${say('a11y.empty')}`), labels.slice(24, 40).join(' | '));
    // A notice: the other offers a draw.
    await other.click('#btn-draw_offer');
    await mover.waitForSelector('#draw-note');
    assert.match(await mover.textContent('#draw-note'), new RegExp(say('room.drawby').replace('{names}', '')));
    await check(mover, 'room-notice');
    await check(other, 'room');
    await shots(a, 'room');
    await b.click('#btn-resign');
    await a.waitForSelector('#banner:not([hidden])');
    await check(a, 'room-over');
    assert.match(await a.textContent('#banner'), lang === 'fr' ? /gagne/ : /Vince/);

    // The finished game opened by a new visitor, and its analysis board.
    const c = await open(locale, `#/game/${room}`);
    await c.waitForSelector('#banner:not([hidden])');
    await check(c, 'finished-game');
    await shots(c, 'finished-game');
    await c.goto(`${server.url}/#/analysis/game/${room}`);
    await c.waitForSelector('#analysis-moves');
    await c.waitForFunction(() => /\S/.test(document.getElementById('engine-info').textContent));
    await check(c, 'analysis-game');

    // A tournament of Anna's, open for entry.
    const tour = await fetchJSON(a, 'POST', '/api/tournaments', { name: `T ${lang}`, game: 'ultima', size: 3, double: false, corr: { days: 3, inc_days: 0 }, rated: false });
    assert.ok(tour.id, JSON.stringify(tour));
    await fetchJSON(a, 'POST', `/api/tournaments/${tour.id}/join`, {});

    for (const [hash, name, shoot] of [['#/turn', 'turn'], ['#/games', 'games'], ['#/profile', 'profile', true],
      ['#/tournaments', 'tournaments'], ['#/tournaments/new', 'tournament-form'], [`#/tournament/${tour.id}`, 'tournament', true],
      ['#/leaderboard', 'leaderboard'], [`#/@/${anna}`, 'player', true], ['#/analysis', 'analysis'], ['#/howto', 'howto'],
      ['#/howto/ultima', 'howto-ultima', true], ['#/howto/ultima1968', 'howto-ultima1968'], ['#/howto/rollerball', 'howto-rollerball'],
      ['#/howto/yalta', 'howto-yalta'], ['#/howto/ant2', 'howto-ant2', true], ['#/howto/ant3', 'howto-ant3']]) {
      await a.goto(`${server.url}/${hash}`);
      await a.waitForSelector('main h1');
      if (name === 'player') {
        // The aborted game is left out of the archive unless asked for.
        await a.check('#f-aborted');
        await a.click('#archive-filters button[type=submit]');
        // The rows of the filter's answer replace the first ones: wait for them.
        await a.waitForFunction((w) => document.getElementById('archive-rows').textContent.includes(w), say('outcome.none'), { timeout: 5000 })
          .catch(async () => assert.fail(`no aborted game listed: ${await a.textContent('#archive-rows')}`));
      }
      if (name === 'profile') {
        await a.waitForSelector('#notice-state');
        // This server sends no pushes (no --vapid-subject): the profile says
        // so from the welcome, without asking for a key it has not got.
        await a.waitForFunction((w) => document.getElementById('push-state').textContent === w, say('push.serveroff'));
        assert.deepEqual(keyAsks, [], 'GET /api/push/key asked of a server without push');
      }
      // Each how-to gives its own game's move text only.
      const notation = { 'howto-ultima': 'ultima', 'howto-ultima1968': 'ultima', 'howto-rollerball': 'rollerball', 'howto-yalta': 'yalta', 'howto-ant2': 'ant', 'howto-ant3': 'ant' }[name];
      if (notation) assert.equal(await a.textContent('#howto-notation'), say(`howto.notation.${notation}`), name);
      await check(a, name);
      if (shoot) await shots(a, name);
    }
    // Ultima's how-to with the pictographic discs: worded for the discs.
    await a.goto(`${server.url}/#/howto/ultima`);
    await a.waitForSelector('#howto-set');
    const chessText = await a.textContent('#howto-set');
    assert.equal(chessText, say('howto.ultima.chess'));
    await a.click('#prefs-btn');
    await a.selectOption('#pref-ultima_pieces', 'discs');
    await a.waitForFunction((w) => document.getElementById('howto-set').textContent === w, say('howto.ultima.discs'));
    const rook = { fr: /tour renversée|Immobiliseur \(la tour/i, it: /torre rovesciata/i }[lang];
    assert.doesNotMatch(await a.textContent('main'), rook);
    await a.click('#prefs-btn');
    await check(a, 'howto-ultima-discs');

    // The guest's pages: log in, register, the password and confirmation
    // pages (a link the server refuses), the profile, your turn.
    for (const [hash, name, wait] of [['#/login', 'login', '#username'], ['#/register', 'register', '#username'],
      ['#/forgot', 'forgot', '#forgot-login'], [`#/reset/${'a'.repeat(64)}`, 'reset', '#new-password'],
      [`#/confirm/${'b'.repeat(64)}`, 'confirm', '#notices-page-status'], ['#/profile', 'profile-guest', '#guest-name'],
      ['#/turn', 'turn-guest', '#turn-note']]) {
      await b.goto(`${server.url}/${hash}`);
      await b.waitForSelector(wait);
      if (name === 'confirm') {
        await b.waitForFunction(() => !/…|\.\.\./.test(document.getElementById('notices-page-status').textContent));
        assert.equal((await b.textContent('#notices-page-status')).trim(), say('err.bad_token'));
      }
      await check(b, name);
    }
    for (const p of [a, b, c]) {
      assert.deepEqual(p.errors, []);
      await p.context().close();
    }
    assert.deepEqual(problems, []);
  });
}

test('the check sees English: an English page read as French shows its words', { skip }, async () => {
  const p = await open('en-US', '#/game/999999');
  await p.waitForFunction(() => /\S/.test(document.getElementById('room-status').textContent));
  let r = await english(p, 'fr');
  assert.ok(r.found.includes('div: No such game.'), r.found.join(' | '));
  await p.goto(`${server.url}/#/`);
  await p.waitForSelector('#create-btn');
  await p.waitForTimeout(300);
  r = await english(p, 'it');
  for (const w of ['h2: Create a game', 'button: Create', '@title: Preferences', 'title: chameleon - unusual chess']) assert.ok(r.found.includes(w), `${w}: ${r.found.join(' | ')}`);
  await p.context().close();
});

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
  assert.equal(await p.title(), 'chameleon - échecs insolites');
  await p.click('#prefs-btn');
  assert.equal(await p.inputValue('#pref-lang'), 'fr');
  await Promise.all([p.waitForEvent('load'), p.selectOption('#pref-lang', 'it')]);
  await p.waitForSelector('#conn.online');
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'it');
  assert.equal((await p.textContent('[data-nav="howto"]')).trim(), 'Come si gioca');
  await p.context().close();
});

test('dates follow the language chosen, not the browser\'s', { skip }, async () => {
  // A French browser with Italian chosen: the dates are Italian.
  const p = await open('fr-FR');
  await p.click('#prefs-btn');
  await Promise.all([p.waitForEvent('load'), p.selectOption('#pref-lang', 'it')]);
  await p.waitForSelector('#conn.online');
  const when = Date.UTC(2026, 0, 15, 12, 0);
  const d = await p.evaluate(async (ms) => ({
    shown: (await import('/js/i18n.js')).fmtDate(ms),
    it: new Intl.DateTimeFormat('it', { dateStyle: 'medium' }).format(new Date(ms)),
    fr: new Intl.DateTimeFormat('fr', { dateStyle: 'medium' }).format(new Date(ms)),
  }), when);
  assert.equal(d.shown, d.it);
  assert.notEqual(d.shown, d.fr);
  assert.match(d.shown, /gen/);
  await p.context().close();
});

// Last: it restarts the server. A finished game is no longer in the
// server's memory after a restart: its page is the archive's viewer
// (room/archive.js), in French and Italian like the rest.
test('the archive\'s viewer of a finished game, after a restart, in fr and it', { skip, timeout: 90000 }, async () => {
  const a = await open('fr-FR');
  const b = await open('it-IT');
  const made = await a.evaluate(() => window.chameleon.conn.request('seek_create', { game: 'ultima', base_ms: 300000, inc_ms: 3000 }));
  await b.evaluate((id) => window.chameleon.conn.request('seek_accept', { seek: id }), made.seek.id);
  for (const p of [a, b]) await p.waitForSelector('#btn-resign');
  const room = Number(/#\/game\/(\d+)$/.exec(a.url())[1]);
  await b.click('#btn-resign');
  await a.waitForSelector('#banner:not([hidden])');
  await a.context().close();
  await b.context().close();
  await server.stop();
  const again = await realServer({ port: server.port, dir: server.dir });
  try {
    for (const [lang, locale] of [['fr', 'fr-FR'], ['it', 'it-IT']]) {
      const c = await open(locale, `#/game/${room}`);
      await c.waitForSelector('#banner:not([hidden])');
      assert.ok(await c.isHidden('#chat'), 'the stored game, not a room (no chat)');
      const r = await english(c, lang);
      assert.deepEqual(r.found, []);
      assert.equal(r.lang, lang);
      await c.setViewportSize({ width: 390, height: 900 });
      assert.ok(await c.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll at 390 px');
      await c.screenshot({ path: path.join(OUT, `i18n-${lang}-archived-390.png`), fullPage: true });
      assert.deepEqual(c.errors, []);
      await c.context().close();
    }
  } finally {
    await again.stop();
  }
});
