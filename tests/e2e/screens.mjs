// Screenshots of every page, to look at (not a test: `node screens.mjs`
// from tests/e2e after run.sh has installed playwright-core). Uses the
// built server (build/chameleon) on a free port; writes
// tests/output/screens/<page>-<width>.png at 390 and 1440 px wide, and
// prints what it checked on the way: no "undefined", "null" or "NaN" in a
// page's text, no sideways overflow, and the positions of earlier moves
// (a Yalta castling, an Ultima capture) live, after a reload and in the
// viewer of the stored game. `node screens.mjs bots`: only the bots' pages.

import path from 'node:path';
import fs from 'node:fs';
import { launch, realServer, staticServer, OUT } from './lib.mjs';

const DIR = path.join(OUT, '..', 'screens');
fs.mkdirSync(DIR, { recursive: true });
const WIDTHS = [[390, 844], [1440, 900]];
const problems = [];
let browser, server;

// Every width: the page's text is checked, then a full-page screenshot.
async function shoot(page, name, ready = async () => {}) {
  for (const [width, height] of WIDTHS) {
    await page.setViewportSize({ width, height });
    await ready();
    await page.waitForTimeout(150);
    const r = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      // The innermost elements that reach past the window's right edge.
      const wide = [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > w + 1
        && ![...e.children].some((c) => c.getBoundingClientRect().right > w + 1));
      return {
        text: document.getElementById('main').innerText,
        over: document.documentElement.scrollWidth - w,
        wide: wide.slice(0, 4).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`),
      };
    });
    const bad = /undefined|null|NaN/.exec(r.text);
    if (bad) problems.push(`${name} @${width}: "${bad[0]}" in the text`);
    if (r.over > 0) problems.push(`${name} @${width}: ${r.over} px wider than the window (${r.wide.join(', ')})`);
    await page.screenshot({ path: path.join(DIR, `${name}-${width}.png`), fullPage: true });
  }
  console.log('shot', name);
}

async function player(url = server.url) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (e) => problems.push(`page error: ${e}`));
  await page.goto(`${url}/`);
  await page.waitForSelector('#conn.online');
  return { ctx, page };
}

async function startGame(game, n) {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(await player());
  await ps[0].page.selectOption('#new-game', game);
  await ps[0].page.selectOption('#new-tc', { label: '10+5' });
  await ps[0].page.click('#create-btn');
  for (let i = 1; i < n; i++) await ps[i].page.locator(`tr.seek[data-game="${game}"] button.join`).first().click();
  for (const p of ps) await p.page.waitForURL(/#\/game\/\d+$/);
  for (const p of ps) await p.page.waitForSelector('.player');
  return ps;
}

const moveCount = (page) => page.$$eval('#moves button', (b) => b.length);
const waitMoves = (ps, k) => Promise.all(ps.map((p) => p.page.waitForFunction((x) => document.querySelectorAll('#moves button').length === x, k)));
const pieces = (page) => page.$$eval('svg.board g.piece', (gs) => gs.map((g) => `${g.dataset.cell}:${g.querySelector('title').textContent}`).sort());
const at = (page, cells) => page.$$eval('svg.board g.piece', (gs, cs) => Object.fromEntries(cs.map((c) => {
  const g = gs.find((x) => x.dataset.cell === c);
  return [c, g ? g.querySelector('title').textContent : '-'];
})), cells);

async function typed(ps, moves) {
  for (const [i, m] of moves.entries()) {
    const p = ps[i % ps.length].page;
    await p.waitForSelector('#move-input:not([disabled])');
    await p.fill('#move-input', m);
    await p.press('#move-input', 'Enter');
    await waitMoves(ps, i + 1);
  }
}

async function clicked(ps, plies) {
  for (let k = 1; k <= plies; k++) {
    let p = null;
    for (let t = 0; t < 50 && !p; t++) {
      for (const q of ps) if (await q.page.locator('svg.board g.piece.movable').count()) { p = q.page; break; }
      if (!p) await new Promise((r) => setTimeout(r, 100));
    }
    const cell = await p.locator('svg.board g.piece.movable').first().getAttribute('data-cell');
    const box = await p.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
    await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await p.locator('svg.board .dest:not(.suicide)').first().click({ force: true });
    const picker = p.locator('.picker:not([hidden]) .picker-choice');
    if (await picker.count()) await picker.first().click();
    await waitMoves(ps, k);
  }
}

// Goes to ply `ply` of the move list (0: the start) by the step buttons.
async function stepTo(page, ply) {
  await page.click('button[title="First position"]');
  for (let i = 0; i < ply; i++) await page.click('#step-fwd');
}

// What an earlier ply must show, per game: [ply, cells, expected before
// and after that move].
const CHECKS = {
  yalta: { moves: ['g1-h3', 'a7-a6', 'l11-l10', 'g2-g3', 'b7-b6', 'k11-k10', 'f1-g2', 'c7-c6', 'j11-j10', 'e1-g1', 'd7-d6'],
    ply: 10, cells: ['e1', 'f1', 'g1', 'h1'],
    before: { e1: 'White king', f1: '-', g1: '-', h1: 'White rook' }, after: { e1: '-', f1: 'White rook', g1: 'White king', h1: '-' } },
  ultima: { moves: ['a2-a4', 'b7-b4', 'c2-c4', 'h7-h6', 'e2-e3'], ply: 3, cells: ['b4', 'c2', 'c4'],
    before: { b4: 'Black pawn (pincer)', c2: 'White pawn (pincer)', c4: '-' }, after: { b4: '-', c2: '-', c4: 'White pawn (pincer)' } },
};

function expect(name, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  console.log(`${ok ? 'ok ' : 'BAD'} ${name}: ${JSON.stringify(got)}`);
  if (!ok) problems.push(`${name}: ${JSON.stringify(got)} instead of ${JSON.stringify(want)}`);
}

async function checkPly(page, game, where) {
  const c = CHECKS[game];
  if (!c) return;
  await stepTo(page, c.ply - 1);
  expect(`${game} ${where}, before move ${c.ply}`, await at(page, c.cells), c.before);
  await page.click('#step-fwd');
  expect(`${game} ${where}, after move ${c.ply}`, await at(page, c.cells), c.after);
}

async function game(id, n) {
  const ps = await startGame(id, n);
  const p0 = ps[0].page;
  if (CHECKS[id]) await typed(ps, CHECKS[id].moves); else await clicked(ps, 4);
  const plies = await moveCount(p0);
  await shoot(p0, `room-${id}-play`);
  if (n === 3) await shoot(ps[1].page, `room-${id}-play-seat1`);
  await checkPly(p0, id, 'live');
  // One ply back, live and after a reload: the same position.
  await p0.click('button[title="Current position"]');
  await p0.click('#step-back');
  const live = await pieces(p0);
  await p0.reload();
  await p0.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, plies);
  await p0.click('#step-back');
  expect(`${id} one ply back after a reload is the live one`, (await pieces(p0)).join() === live.join(), true);
  await shoot(p0, `room-${id}-reload-back`);
  await checkPly(p0, id, 'after a reload');
  await p0.click('button[title="Current position"]');
  if (id === 'ultima') {
    await p0.goto(`${server.url}/#/games`);
    await p0.waitForSelector('#your-games tr');
    await shoot(p0, 'your-games');
    await p0.goBack();
    await p0.waitForSelector('.player');
  }
  const url = p0.url();
  for (let i = 0; i < n - 1; i++) {
    await ps[i].page.click('#btn-resign');
    if (i < n - 2) await ps[n - 1].page.waitForSelector(`.player[data-seat="${i}"] >> text=left`);
  }
  for (const p of ps) await p.page.waitForSelector('#banner:not([hidden])');
  await shoot(ps[n - 1].page, `room-${id}-over`);
  for (const p of ps) await p.ctx.close();
  // The stored game, in the viewer.
  await new Promise((r) => setTimeout(r, 300));
  const v = await player();
  await v.page.goto(url);
  await v.page.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, plies);
  await v.page.waitForSelector('#banner:not([hidden])');
  await shoot(v.page, `viewer-${id}-start`);
  await checkPly(v.page, id, 'in the viewer');
  await shoot(v.page, `viewer-${id}-ply${CHECKS[id] ? CHECKS[id].ply : 1}`);
  await v.page.click('button[title="Current position"]');
  expect(`${id} viewer's last position is the game's`, (await pieces(v.page)).length > 0, true);
  await v.ctx.close();
}

async function accounts() {
  const reg = async (p, name) => {
    await p.page.goto(`${server.url}/#/register`);
    await p.page.fill('#username', name);
    await p.page.fill('#password', `${name}-secret-pw`);
    await p.page.click('#account-form button[type=submit]');
    await p.page.waitForFunction((x) => window.chameleon.account === x && window.chameleon.conn.ready, name);
  };
  const a = await player();
  const b = await player();
  await reg(a, 'alice');
  await reg(b, 'bob');
  await a.page.selectOption('#new-game', 'yalta');
  await a.page.selectOption('#new-game', 'ultima');
  await a.page.check('#kind-corr');
  await shoot(a.page, 'lobby-corr-form');
  await a.page.click('#create-btn');
  await b.page.locator('tr.seek[data-kind="corr"] button.join').waitFor();
  await shoot(b.page, 'lobby-corr-seek');
  await b.page.locator('tr.seek[data-kind="corr"] button.join').click();
  for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
  await a.page.waitForSelector('svg.board g.piece.movable');
  await a.page.fill('#move-input', 'e2-e3');
  await a.page.press('#move-input', 'Enter');
  await a.page.click('#btn-confirm'); // correspondence moves wait for Confirm (room/confirm.js)
  await b.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 1);
  await shoot(b.page, 'room-corr-ultima');
  await b.page.goto(`${server.url}/#/turn`);
  await b.page.waitForSelector('#turn-list tr');
  await shoot(b.page, 'your-turn');
  await b.page.goto(`${server.url}/#/profile`);
  await b.page.waitForSelector('#profile-name');
  await shoot(b.page, 'profile');
  await a.ctx.close();
  await b.ctx.close();
}

// Bots: the lobby's "Play the computer" form, your own three-player seek
// with its "Add bots" button, a Yalta game against two bots (the bots'
// marks in the bars) and the list of your games.
async function bots() {
  const p = await player();
  await p.page.waitForSelector('#bot-game option', { state: 'attached' });
  await p.page.selectOption('#new-game', 'yalta');
  await p.page.click('#create-btn');
  await p.page.locator('tr.seek[data-game="yalta"] button.fill').waitFor();
  await shoot(p.page, 'lobby-bots');
  await p.page.locator('tr.seek[data-game="yalta"] button.fill').click();
  await p.page.waitForURL(/#\/game\/\d+$/);
  await p.page.waitForSelector('.player .tag.bot');
  await p.page.goto(`${server.url}/#/`);
  await p.page.selectOption('#bot-game', 'ultima');
  await p.page.selectOption('#bot-level', '2');
  await p.page.selectOption('#bot-seat', '0');
  await p.page.click('#bot-btn');
  await p.page.waitForURL(/#\/game\/\d+$/);
  await p.page.waitForSelector('svg.board g.piece.movable');
  await p.page.fill('#move-input', 'e2-e3');
  await p.page.press('#move-input', 'Enter');
  await p.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 2);
  await shoot(p.page, 'room-bot-ultima');
  await p.page.goto(`${server.url}/#/games`);
  await p.page.reload(); // the welcome lists the games started since
  await p.page.waitForSelector('#your-games tr');
  await shoot(p.page, 'your-games-bots');
  await p.ctx.close();
}

async function main() {
  browser = await launch();
  if (process.argv[2] === 'bots') {
    server = await realServer();
    try { await bots(); } finally { await browser.close(); await server.close(); }
    console.log(problems.length ? `PROBLEMS:\n${problems.join('\n')}` : 'no problems found');
    process.exit(problems.length ? 1 : 0);
  }
  // Before any welcome: the client alone, no WebSocket behind it.
  const lone = await staticServer();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  for (const [hash, name] of [['#/', 'nowelcome-lobby'], ['#/howto', 'nowelcome-howto'], ['#/howto/yalta', 'nowelcome-howto-yalta'],
    ['#/games', 'nowelcome-games'], ['#/turn', 'nowelcome-turn'], ['#/game/1', 'nowelcome-room']]) {
    await page.goto(`${lone.url}/${hash}`);
    await shoot(page, name);
  }
  await ctx.close();
  await lone.close();

  server = await realServer();
  try {
    const g = await player();
    await shoot(g.page, 'lobby');
    await g.page.goto(`${server.url}/#/howto`);
    await g.page.waitForSelector('main li a');
    await shoot(g.page, 'howto');
    for (const id of ['ultima', 'ultima1968', 'rollerball', 'yalta', 'ant2', 'ant3']) {
      await g.page.goto(`${server.url}/#/howto/${id}`);
      await g.page.waitForSelector('#howto-board g.piece');
      await shoot(g.page, `howto-${id}`);
    }
    for (const id of ['ultima', 'rollerball', 'yalta', 'ant2', 'ant3']) {
      await g.page.goto(`${server.url}/#/analysis/${id}`);
      await g.page.waitForSelector('svg.board g.piece');
      await g.page.waitForFunction(() => /depth/.test(document.getElementById('engine-info').textContent), null, { timeout: 20000 });
      await shoot(g.page, `analysis-${id}`);
    }
    await g.page.goto(`${server.url}/#/turn`);
    await shoot(g.page, 'your-turn-guest');
    await g.page.goto(`${server.url}/#/games`);
    await g.page.waitForSelector('#your-games-note:not(:empty)');
    await shoot(g.page, 'your-games-none');
    await g.ctx.close();
    for (const [id, n] of [['ultima', 2], ['yalta', 3], ['ultima1968', 2], ['rollerball', 2], ['ant2', 2], ['ant3', 3]]) await game(id, n);
    await accounts();
    await bots();
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(problems.length ? `PROBLEMS:\n${problems.join('\n')}` : 'no problems found');
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
