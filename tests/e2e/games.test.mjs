// Whole games through the real server (build/chameleon on a free loopback
// port, temporary database): for each board the client draws (Ultima's
// 8x8, Rollerball's ring, Yalta's 96 cells, Ant Chess's hex: ultima1968
// and ant2 share the first and the last; tests/integration plays every
// game id, and keyboard.test plays ant2 in the browser), two or three browser
// contexts create and join a game from the lobby, play moves by clicking,
// each sees the others' moves, then players resign. Also typed move entry
// and a reconnection in the middle of a game. Screenshots of every board go
// to tests/output/e2e/game-<game>-<seat>.png.
// Skipped (with a message) while no server binary is built.

import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, realServer, serverBinary, OUT } from './lib.mjs';

const GAMES = [['ultima', 2], ['rollerball', 2], ['yalta', 3], ['ant3', 3]];
const PLIES = 4;
const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';

let browser, server;
const pageErrors = [];
let offered = [];
before(async () => {
  if (skip) return;
  browser = await launch();
  server = await realServer();
  // The games this server's rules core offers (welcome.games).
  const page = await browser.newPage();
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => window.chameleon.conn.ready);
  offered = await page.evaluate(() => window.chameleon.games.map((g) => g.id));
  await page.close();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// Every page opened. A passing test closes its own; a page still open
// after a test means it failed: its screenshot goes to
// tests/output/e2e/failed-<n>.png for whoever reads the log, then it closes.
const openPages = new Set();
let shots = 0;
afterEach(async () => {
  for (const p of openPages) {
    if (p.isClosed()) continue;
    await p.screenshot({ path: path.join(OUT, `failed-${++shots}.png`) }).catch(() => {});
    await p.context().close().catch(() => {});
  }
  openPages.clear();
});

async function player() {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  openPages.add(page);
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  return { ctx, page };
}

// Opens a game of `game` from the lobby with n players; returns the pages
// in seat order, each in the room.
async function startGame(game, n) {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(await player());
  await ps[0].page.selectOption('#new-game', game);
  await ps[0].page.selectOption('#new-tc', { label: '10+5' });
  await ps[0].page.click('#create-btn');
  for (let i = 1; i < n; i++) {
    const row = ps[i].page.locator(`tr.seek[data-game="${game}"] button.join`);
    await row.first().click();
  }
  for (const p of ps) await p.page.waitForURL(/#\/game\/\d+$/);
  for (const p of ps) await p.page.waitForSelector('.player', { timeout: 10000 });
  return ps;
}

const moveCount = (page) => page.$$eval('#moves button', (b) => b.length);

// The player to move clicks its first movable piece and the first
// destination shown (choosing the first offer of a picker).
async function playByClicking(page) {
  await page.waitForSelector('svg.board g.piece.movable');
  // Click the piece's cell (a worm's body leaves its own centre empty).
  const cell = await page.locator('svg.board g.piece.movable').first().getAttribute('data-cell');
  const box = await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const dest = page.locator('svg.board .dest:not(.suicide)').first();
  await dest.click({ force: true });
  const picker = page.locator('.picker:not([hidden]) .picker-choice');
  if (await picker.count()) await picker.first().click();
}

async function toMove(ps) {
  for (let k = 0; k < 50; k++) {
    for (const p of ps) {
      if (await p.page.locator('svg.board g.piece.movable').count()) return p;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('nobody can move');
}

for (const [game, n] of GAMES) {
  test(`${game}: ${n} players create, join, play by clicking, see the moves, resign`, { skip }, async (t) => {
    if (!offered.includes(game)) { t.skip(`the server does not offer ${game} yet`); return; }
    const ps = await startGame(game, n);
    for (let ply = 1; ply <= PLIES; ply++) {
      const p = await toMove(ps);
      await playByClicking(p.page);
      for (const q of ps) await q.page.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, ply);
    }
    // Stepping back: the position one ply ago, first as the server sent it
    // live, then rebuilt from the move list after a reload; both the same.
    const shown = (page) => page.$$eval('svg.board g.piece', (gs) => gs.map((g) => `${g.dataset.cell}:${g.querySelector('title').textContent}`).sort());
    const p0 = ps[0].page;
    await p0.click('#step-back');
    const live = await shown(p0);
    await p0.reload();
    await p0.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, PLIES);
    await p0.click('#step-back');
    assert.deepEqual(await shown(p0), live, 'replayed position');
    await p0.click('#step-fwd');
    for (const [i, p] of ps.entries()) {
      assert.equal(await moveCount(p.page), PLIES);
      await p.page.locator('.board-wrap').screenshot({ path: path.join(OUT, `game-${game}-seat${i}.png`) });
    }
    // Resign until the game is over (three players: the first to resign
    // leaves, the other two play on, then one of them resigns).
    for (let i = 0; i < n - 1; i++) {
      await ps[i].page.click('#btn-resign');
      if (i < n - 2) {
        await ps[n - 1].page.waitForSelector(`.player[data-seat="${i}"] >> text=left`);
        // Who left no longer resigns, offers a draw or types a move: it
        // is told the game goes on without it (issue 34, item 9).
        const gone = ps[i].page;
        await gone.waitForSelector('#you-left');
        assert.match(await gone.textContent('#you-left'), /You have left this game \(resignation\)/);
        for (const sel of ['#btn-resign', '#btn-draw_offer', '#move-input', '#confirm-opt']) assert.equal(await gone.isVisible(sel), false, sel);
        await gone.screenshot({ path: path.join(OUT, `game-${game}-left.png`) });
      }
    }
    for (const p of ps) {
      await p.page.waitForSelector('#banner:not([hidden])');
      assert.match(await p.page.textContent('#banner'), /wins/);
      assert.match(await p.page.textContent('#banner'), /resignation/);
    }
    for (const p of ps) await p.ctx.close();
    assert.deepEqual(pageErrors, []);
  });
}

// Moves typed in this test: the first two-player game the server offers,
// three opening moves of its rules file's set-up (White, Black, White).
const TYPED = {
  ultima: ['e2-e3', 'e7-e6', 'd2-d3', 'a2-a3'],
  rollerball: ['c2-b2', 'e6-f6', 'c1-b1', 'e2-e3'],
  ant2: ['g5-g6', 'g9-g8', 'f4-f5', 'g13-g12'],
};

test('typed move entry and a reconnection in the middle of a game', { skip }, async (t) => {
  const game = Object.keys(TYPED).find((g) => offered.includes(g));
  if (!game) { t.skip('no two-player game offered'); return; }
  const [m1, m2, m3, wrong] = TYPED[game];
  const [a, b] = await startGame(game, 2);
  await a.page.waitForSelector('svg.board g.piece.movable');
  await a.page.fill('#move-input', m1);
  await a.page.press('#move-input', 'Enter');
  await b.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 1);
  // A refused move (the opponent's piece) shows the server's reason.
  await b.page.fill('#move-input', wrong);
  await b.page.press('#move-input', 'Enter');
  await b.page.waitForFunction(() => document.getElementById('room-status').textContent.length > 0);
  // B drops off and comes back, then plays: its connection resumed.
  await b.page.evaluate(() => window.chameleon.conn.hold());
  await b.page.waitForSelector('#conn.offline');
  await b.page.evaluate(() => window.chameleon.conn.release());
  await b.page.waitForSelector('#conn.online');
  await b.page.fill('#move-input', m2);
  await b.page.press('#move-input', 'Enter');
  for (const p of [a, b]) await p.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 2);
  // B drops off while A moves: once back, B catches up without a reload.
  await b.page.evaluate(() => window.chameleon.conn.hold());
  await a.page.fill('#move-input', m3);
  await a.page.press('#move-input', 'Enter');
  await a.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 3);
  assert.equal(await moveCount(b.page), 2);
  await b.page.evaluate(() => window.chameleon.conn.release());
  await b.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 3);
  await b.page.screenshot({ path: path.join(OUT, 'reconnected.png') });
  // A spectator opens the room's link: it sees the moves, cannot play,
  // and chooses whose army is at the bottom.
  const c = await player();
  await c.page.goto(a.page.url());
  await c.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 3);
  assert.equal(await c.page.locator('svg.board g.piece.movable').count(), 0);
  assert.ok(await c.page.isDisabled('#move-input'));
  await c.page.selectOption('#view-seat', '1');
  await c.page.waitForSelector('.bottom-bars .player[data-seat="1"]');
  await c.ctx.close();
  // Resign, then both ask for a rematch: a new room opens for both.
  const before = a.page.url();
  await a.page.click('#btn-resign');
  for (const p of [a, b]) await p.page.waitForSelector('#banner:not([hidden])');
  await a.page.click('#btn-rematch');
  await b.page.waitForSelector('#btn-rematch:has-text("Accept rematch")');
  await b.page.click('#btn-rematch');
  for (const p of [a, b]) await p.page.waitForURL((u) => String(u) !== before && /#\/game\/\d+$/.test(String(u)));
  for (const p of [a, b]) await p.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 0);
  // Nobody watches the finished game any more: its link opens the viewer
  // on the stored game (GET /api/games/<id>), stepping through its moves.
  const viewer = await player();
  await viewer.page.goto(before);
  await viewer.page.waitForFunction(() => document.querySelectorAll('#moves button').length === 3);
  await viewer.page.waitForSelector('#banner:not([hidden])');
  assert.match(await viewer.page.textContent('#banner'), /resignation/);
  // It opens on the final position (room.test), and steps back from there.
  const atEnd = await viewer.page.$$eval('svg.board g.piece', (g) => g.length);
  assert.ok(atEnd > 0);
  await viewer.page.waitForSelector('#moves button.current[data-ply="3"]');
  await viewer.page.click('#step-back');
  await viewer.page.waitForSelector('#moves button.current[data-ply="2"]');
  await viewer.ctx.close();
  await a.ctx.close();
  await b.ctx.close();
});

test('a private game by invitation link, drawn by agreement', { skip }, async () => {
  const a = await player();
  const b = await player();
  await a.page.selectOption('#new-game', offered[0]);
  await a.page.check('#new-private');
  await a.page.click('#create-btn');
  const link = await a.page.inputValue('#invite-url');
  assert.match(link, /#invite=/);
  assert.equal(await b.page.locator('tr.seek').count(), 0, 'private seeks are not listed');
  await b.page.goto(link.replace(/^https?:\/\/[^/]+/, server.url));
  for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
  for (const p of [a, b]) await p.page.waitForSelector('.player');
  // A offers a draw, B sees the offer and accepts: drawn by agreement.
  await a.page.click('#btn-draw_offer');
  await b.page.waitForSelector('#btn-draw_offer:has-text("Accept draw")');
  await b.page.click('#btn-draw_offer');
  for (const p of [a, b]) {
    await p.page.waitForSelector('#banner:not([hidden])');
    assert.match(await p.page.textContent('#banner'), /Draw.*agreement/);
  }
  await a.ctx.close();
  await b.ctx.close();
});

test("the server's cell names and colours match the drawn boards", { skip }, async () => {
  const a = await player();
  const r = await a.page.evaluate(async () => {
    const { geometry, loadBoards } = await import('/js/geometry.js');
    await loadBoards();
    return window.chameleon.games.map((g) => {
      let drawn = null;
      try {
        const geo = geometry(g.id);
        drawn = { cells: geo.cells.map((c) => c.name).sort(), colours: geo.players.map((p) => p.colour) };
      } catch { /* a game the client does not know */ }
      return { id: g.id, cells: [...(g.cells || [])].sort(), colours: g.colors, drawn };
    });
  });
  assert.ok(r.length > 0, 'the server offers games');
  for (const g of r) {
    assert.ok(g.drawn, `the client draws ${g.id}`);
    assert.deepEqual(g.drawn.cells, g.cells, `${g.id} cells`);
    assert.deepEqual(g.drawn.colours, g.colours, `${g.id} colours`);
  }
  await a.ctx.close();
});
