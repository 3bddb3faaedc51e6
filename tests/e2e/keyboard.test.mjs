// The board with the keyboard alone (board.js: one tab stop, arrows along
// each board's own neighbours, Enter selects and plays), on
// the real server against the computer: Tab reaches the board, the arrows
// walk to a piece and to one of its destinations, Enter plays, and the
// server's acknowledgement shows in the move list; twice per game (after
// the bots' replies); once per board the client draws (Ultima's 8x8,
// Rollerball's ring, Yalta's 96 cells, Ant Chess's hex: ultima1968 and ant3
// share the first and the last, and games.test plays ant3 by clicking;
// the moves' rules are the server's). Chromium's accessibility tree (CDP
// Accessibility.getFullAXTree) names the cells with piece and owner
// ("e1, white king") or "empty", under a grid.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer } from './lib.mjs';
import { player, request, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

const GAMES = ['ultima', 'rollerball', 'yalta', 'ant2'];
const SEATS = { yalta: 3 };

// The cell the board's focus is on (aria-activedescendant of the grid).
const focused = (page) => page.evaluate(() => {
  const svg = document.activeElement;
  if (!svg || !svg.matches('svg.board')) return null;
  return svg.getAttribute('aria-activedescendant').replace(/^board\d+-/, '');
});

// A cell's centre on the screen.
const centre = (page, cell) => page.evaluate((c) => {
  const r = document.querySelector(`svg.board polygon.cell[data-cell="${c}"]`).getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
}, cell);

const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

// Walks the focus to `cell` with the arrow keys only: at each step the
// arrow nearest the direction of the target not yet tried from there.
async function walk(page, cell) {
  const tried = new Map();
  for (let i = 0; i < 80; i++) {
    const at = await focused(page);
    if (at === cell) return;
    const [ax, ay] = await centre(page, at);
    const [tx, ty] = await centre(page, cell);
    const len = Math.hypot(tx - ax, ty - ay);
    const used = tried.get(at) || new Set();
    tried.set(at, used);
    const order = Object.entries(ARROWS).filter(([k]) => !used.has(k))
      .sort((p, q) => ((tx - ax) * q[1][0] + (ty - ay) * q[1][1]) / len - ((tx - ax) * p[1][0] + (ty - ay) * p[1][1]) / len);
    if (!order.length) tried.set(at, new Set());
    const key = order.length ? order[0][0] : 'ArrowUp';
    used.add(key);
    await page.keyboard.press(key);
    // Each arrow goes to a neighbour: never farther than a cell and a half.
    const now = await focused(page);
    if (now !== at) {
      const [nx, ny] = await centre(page, now);
      const w = await page.evaluate((c) => document.querySelector(`svg.board polygon.cell[data-cell="${c}"]`).getBoundingClientRect().width, at);
      assert.ok(Math.hypot(nx - ax, ny - ay) < 1.5 * w, `${key} from ${at} jumped to ${now}`);
    }
  }
  throw new Error(`the arrows did not reach ${cell} (at ${await focused(page)})`);
}

// Tab until the board has the focus (one tab stop).
async function tabToBoard(page) {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await focused(page)) return;
  }
  throw new Error('Tab never reached the board');
}

// One move with the keyboard: Enter on the piece the focus starts on (or
// walked to), then walk to its nearest destination and Enter.
async function keyboardMove(page, n) {
  if (!(await focused(page))) await tabToBoard(page);
  await page.waitForSelector('svg.board g.piece.movable');
  const from = await page.evaluate(() => document.querySelector('svg.board g.piece.movable').getAttribute('data-cell'));
  await walk(page, from);
  await page.keyboard.press('Enter');
  await page.waitForSelector('svg.board .dest');
  const dests = await page.evaluate(() => [...new Set([...document.querySelectorAll('svg.board .dest')].map((d) => d.getAttribute('data-cell')))]);
  const [fx, fy] = await centre(page, from);
  let to = dests[0], best = Infinity;
  for (const d of dests) {
    const [x, y] = await centre(page, d);
    if (Math.hypot(x - fx, y - fy) < best && d !== from) { best = Math.hypot(x - fx, y - fy); to = d; }
  }
  await walk(page, to);
  await page.keyboard.press('Enter');
  // A picker (promotion, a ladybug's walk): its first choice, by keyboard.
  if (await page.locator('.picker:not([hidden]) .picker-choice').count()) await page.keyboard.press('Enter');
  await page.waitForFunction((k) => document.querySelectorAll('#moves [data-ply]').length >= k, n, { timeout: 20000 });
  return { from, to };
}

async function axNames(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  return nodes.filter((x) => !x.ignored).map((x) => ({ role: x.role && x.role.value, name: x.name && x.name.value }));
}

for (const game of GAMES) {
  test(`${game}: played with the keyboard alone, cells named in the accessibility tree`, { skip, timeout: 90000 }, async () => {
    const page = await player(browser, server.url);
    await request(page, 'bot_game', { game, level: 1, seat: 0, base_ms: 600000, inc_ms: 0 });
    await page.waitForURL(/#\/game\/\d+$/);
    await page.waitForSelector('svg.board g.piece.movable', { timeout: 20000 });
    const seats = SEATS[game] || 2;

    const first = await keyboardMove(page, 1);
    const ax = await axNames(page);
    assert.ok(ax.some((x) => x.role === 'grid' && /board/.test(x.name)), 'the board is a grid');
    const cells = ax.filter((x) => x.role === 'gridcell');
    assert.ok(cells.length >= 40, `${cells.length} gridcells`);
    // The moved piece's new cell: its piece and owner; the cell it left: empty.
    const dest = cells.find((x) => x.name.startsWith(`${first.to}, `));
    assert.ok(dest, `no gridcell named for ${first.to}`);
    assert.match(dest.name, new RegExp(`^${first.to}, (white|black|red|blue|green|yellow|grey|brown) [a-z ()-]+$`), dest.name);
    assert.ok(cells.some((x) => x.name === `${first.from}, empty`), `${first.from} not named empty`);

    // The bots answer; the second move by keyboard too.
    await page.waitForFunction((k) => document.querySelectorAll('#moves [data-ply]').length >= k, seats, { timeout: 30000 });
    // Said politely: the latest move, and that it is our turn again.
    await page.waitForFunction((k) => document.getElementById('move-live').textContent.startsWith(`Move ${k}: `), seats);
    await page.waitForFunction(() => /^Your turn/.test(document.getElementById('clock-live').textContent));
    assert.equal(await page.getAttribute('#move-live', 'aria-live'), 'polite');
    assert.equal(await page.getAttribute('#clock-live', 'aria-live'), 'polite');
    await page.waitForSelector('svg.board g.piece.movable', { timeout: 20000 });
    await keyboardMove(page, seats + 1);
    if (game === 'ultima' || game === 'yalta' || game === 'ant2') {
      await page.setViewportSize({ width: 1440, height: 900 });
      await shot(page, `keyboard-${game}-1440`);
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, `keyboard-${game}-390`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('clocks: said at low time once, not at every tick', { skip, timeout: 60000 }, async () => {
  const page = await player(browser, server.url);
  await request(page, 'bot_game', { game: 'ultima', level: 1, seat: 0, base_ms: 33000, inc_ms: 0 });
  await page.waitForURL(/#\/game\/\d+$/);
  await keyboardMove(page, 1);
  // From our second turn the clock runs: 33 s, said once under 30 s.
  await page.waitForFunction(() => document.querySelectorAll('#moves [data-ply]').length >= 2, null, { timeout: 30000 });
  await page.evaluate(() => {
    window.__said = [];
    new MutationObserver(() => window.__said.push(document.getElementById('clock-live').textContent))
      .observe(document.getElementById('clock-live'), { childList: true, characterData: true, subtree: true });
  });
  await page.waitForFunction(() => window.__said.some((t) => /left on your clock/.test(t)), null, { timeout: 20000 });
  await page.waitForTimeout(1500); // 15 ticks of the clock
  const said = await page.evaluate(() => window.__said);
  assert.equal(said.filter((t) => /left on your clock/.test(t)).length, 1, said.join(' | '));
  assert.ok(said.length <= 2, said.join(' | '));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
