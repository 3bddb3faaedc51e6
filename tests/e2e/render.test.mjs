// Rendering check of every board, in chromium: the number of cells the
// rules files give (Ultima 64, Rollerball 40, Yalta 96, Ant Chess 127), no
// two cells overlapping, the set-up's pieces drawn with their names, and a
// screenshot of each board (tests/output/e2e/board-<game>-<view>.png).
// The "how to play" pages draw the set-up the server sends (welcome): the
// client files are served under a strict content security policy, with
// the WebSocket passed through to the real server (skipped while no server
// binary is built).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, staticServer, realServer, serverBinary, OUT } from './lib.mjs';

// Cells and set-up sizes, from ../shared/rules/*.md.
const BOARDS = [
  { game: 'ultima', cells: 64, pieces: 32, views: 2 },
  { game: 'rollerball', cells: 40, pieces: 12, views: 2 },
  { game: 'yalta', cells: 96, pieces: 48, views: 3 },
  { game: 'ant2', cells: 127, pieces: 34, views: 2 },
  { game: 'ant3', cells: 127, pieces: 51, views: 3 },
];

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, web, server;
before(async () => {
  browser = await launch({ enforceCSP: true });
  server = skip ? null : await realServer();
  web = await staticServer(server && server.url);
});
after(async () => { await browser?.close(); await web?.close(); await server?.close(); });

// Runs in the page: every pair of cell polygons (convex) is checked with
// the separating-axis test; touching edges or corners are not overlaps.
function overlapsInPage() {
  const polys = [...document.querySelectorAll('#howto-board polygon.cell')].map((p) => ({
    name: p.dataset.cell,
    pts: p.getAttribute('points').trim().split(/\s+/).map((s) => s.split(',').map(Number)),
  }));
  const axes = (pts) => pts.map((p, i) => {
    const q = pts[(i + 1) % pts.length];
    return [q[1] - p[1], p[0] - q[0]];
  });
  const proj = (pts, [ax, ay]) => {
    const len = Math.hypot(ax, ay);
    let lo = Infinity, hi = -Infinity;
    for (const [x, y] of pts) { const d = (x * ax + y * ay) / len; lo = Math.min(lo, d); hi = Math.max(hi, d); }
    return [lo, hi];
  };
  const bad = [];
  for (let i = 0; i < polys.length; i++) {
    for (let j = i + 1; j < polys.length; j++) {
      const a = polys[i].pts, b = polys[j].pts;
      let separated = false;
      for (const ax of [...axes(a), ...axes(b)]) {
        const [l1, h1] = proj(a, ax), [l2, h2] = proj(b, ax);
        if (Math.min(h1, h2) - Math.max(l1, l2) <= 1e-6) { separated = true; break; }
      }
      if (!separated) bad.push(`${polys[i].name}/${polys[j].name}`);
    }
  }
  return { count: polys.length, names: polys.map((p) => p.name), bad };
}

for (const b of BOARDS) {
  test(`board ${b.game}: ${b.cells} cells, none overlapping, set-up drawn`, { skip }, async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy/.test(m.text())) errors.push(m.text()); });
    await page.goto(`${web.url}/#/howto/${b.game}`);
    await page.waitForSelector('#howto-board polygon.cell');
    for (let v = 0; v < b.views; v++) {
      await page.selectOption('#howto-view', String(v));
      const r = await page.evaluate(overlapsInPage);
      assert.equal(r.count, b.cells, 'cell count');
      assert.equal(new Set(r.names).size, b.cells, 'cell names are distinct');
      assert.deepEqual(r.bad, [], 'overlapping cells');
      const pieces = await page.$$eval('#howto-board g.piece', (gs) => gs.map((g) => g.querySelector('title').textContent));
      assert.equal(pieces.length, b.pieces, 'pieces of the set-up');
      assert.ok(pieces.every((t) => t.length > 2), 'every piece has a name');
      // The army of the player viewing is the lowest on the screen.
      const low = await page.$$eval('#howto-board g.piece', (gs) => {
        const sum = new Map();
        for (const g of gs) {
          const army = g.querySelector('title').textContent.split(' ')[0];
          const r = g.getBoundingClientRect();
          const [s, n] = sum.get(army) || [0, 0];
          sum.set(army, [s + r.y + r.height / 2, n + 1]);
        }
        return [...sum].map(([a, [s, n]]) => [a, s / n]).sort((x, y) => y[1] - x[1])[0][0];
      });
      const viewer = await page.$eval('#howto-view', (s) => s.options[s.selectedIndex].textContent);
      assert.equal(low, viewer, 'own army at the bottom');
      const box = await page.$('#howto-board');
      await box.screenshot({ path: path.join(OUT, `board-${b.game}-view${v}.png`) });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// Facts of the rules files about shape, checked on the drawn geometry.
test('geometry facts: Yalta centre cells, Ant Chess edge and centre', async () => {
  const page = await browser.newPage();
  await page.goto(`${web.url}/#/howto`);
  const r = await page.evaluate(async () => {
    const { geometry, sideNeighbours, loadBoards } = await import('/js/geometry.js');
    await loadBoards();
    const y = geometry('yalta');
    const atCentre = y.cells.filter((c) => c.poly.some(([x, yy]) => Math.hypot(x, yy) < 1e-9)).map((c) => c.name).sort();
    const ynb = sideNeighbours(y.cells);
    const a = geometry('ant2');
    const anb = sideNeighbours(a.cells);
    const edge = a.cells.filter((c) => anb.get(c.name).length < 6).length;
    const g7 = a.byName.get('g7').c;
    const files = [...new Set(a.cells.map((c) => c.name[0]))].join('');
    const fileG = a.cells.filter((c) => c.name[0] === 'g').length;
    const ro = geometry('rollerball');
    return {
      atCentre, e9: ynb.get('e9').sort(), d4: ynb.get('d4').sort(), edge, g7, files, fileG,
      outer: ro.cells.filter((c) => c.ring === 'outer').length, inner: ro.cells.filter((c) => c.ring === 'inner').length,
      colours: ['a1', 'h1', 'a8', 'l12'].map((n) => y.byName.get(n).shade),
    };
  });
  // yalta.md: "The six cells d4, e4, e9, i9, i5, d5 ... meet at the centre point".
  assert.deepEqual(r.atCentre, ['d4', 'd5', 'e4', 'e9', 'i5', 'i9']);
  // Side adjacency of yalta.md: e4|e9 across sections, e-h|i-l of S3.
  assert.deepEqual(r.e9, ['e10', 'e4', 'f9', 'i9']);
  assert.deepEqual(r.d4, ['c4', 'd3', 'd5', 'e4']);
  // a1 dark; light cells in every player's right-hand corner (h1, a8, l12).
  assert.deepEqual(r.colours, [1, 0, 0, 0]);
  // antchess.md: 36 edge cells, files a-n without j, g has 13 cells, centre g7.
  assert.equal(r.edge, 36);
  assert.equal(r.files, 'abcdefghiklmn');
  assert.equal(r.fileG, 13);
  assert.ok(Math.hypot(r.g7[0], r.g7[1]) < 1e-9);
  // rollerball.md: 24 cells in the outer ring, 16 in the inner.
  assert.equal(r.outer, 24);
  assert.equal(r.inner, 16);
  await page.close();
});
