// The board component in chromium, driven like a player: click-click,
// drag-and-drop, the promotion picker, the ladybug's walk picker, Ultima's
// suicide. The legal moves are given to it as the server would (texts of
// notation.md); the test checks which text the board sends.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, staticServer, OUT } from './lib.mjs';

let browser, web, page;
before(async () => {
  browser = await launch({ enforceCSP: true });
  web = await staticServer();
});
after(async () => { await browser?.close(); await web?.close(); });

// Opens a page holding one board of `game` with `pieces` ({cell: [kind,
// owner]}) and `legal` moves; every move the board sends lands in
// window.sent.
async function boardPage(game, pieces, legal, view = 0, size = { width: 900, height: 900 }, position = null, locale = 'en-US') {
  page = await browser.newPage({ viewport: size, locale });
  await page.goto(`${web.url}/#/howto`);
  await page.evaluate(async ({ game, pieces, legal, view, position }) => {
    const { Board } = await import('/js/board.js');
    await window.chameleon.ready; // the boards (rules.wasm) are loaded, the page mounted
    document.getElementById('main').replaceChildren();
    const box = document.createElement('div');
    box.id = 'test-board';
    box.style.width = '600px';
    document.getElementById('main').appendChild(box);
    window.sent = [];
    // What a move takes comes from the rules core, in the given position.
    let capturesOf;
    if (position) {
      const { pageRules } = await import('/js/rules.js');
      const core = (await pageRules()).rules.newGame(game, position);
      capturesOf = (t) => core.captures(t);
    }
    const b = new Board(box, { game, onMove: (t) => window.sent.push(t), capturesOf });
    b.setView(view);
    b.setPosition(Object.fromEntries(Object.entries(pieces).map(([c, [kind, owner]]) => [c, { kind, owner }])));
    b.setLegal(legal);
    window.board = b;
  }, { game, pieces, legal, view, position });
  return page;
}

async function centre(cell) {
  const box = await page.locator(`#test-board polygon.cell[data-cell="${cell}"]`).boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}
async function click(cell) { const p = await centre(cell); await page.mouse.click(p.x, p.y); }
const sent = () => page.evaluate(() => window.sent);

test('click-click sends the move; destinations are shown for the picked piece only', async () => {
  await boardPage('ultima', { e2: ['P', 0], d1: ['K', 0], e8: ['K', 1] }, ['e2-e3', 'e2-e4', 'd1-d2']);
  await click('e2');
  const dests = await page.$$eval('#test-board .dest', (d) => d.map((e) => e.dataset.cell).sort());
  assert.deepEqual(dests, ['e3', 'e4']);
  await click('e4');
  assert.deepEqual(await sent(), ['e2-e4']);
  assert.equal(await page.$$eval('#test-board .dest', (d) => d.length), 0);
  await page.close();
});

test('a click on a cell no legal move reaches sends nothing', async () => {
  await boardPage('ultima', { e2: ['P', 0] }, ['e2-e3']);
  await click('e2');
  await click('h8');
  await click('e8');
  assert.deepEqual(await sent(), []);
  await page.close();
});

test('drag-and-drop sends the move (board seen by the second player)', async () => {
  await boardPage('rollerball', { d6: ['K', 1], d7: ['B', 1] }, ['d6-c5', 'd7-e6'], 1);
  const a = await centre('d7'), b = await centre('e6');
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
  assert.deepEqual(await sent(), ['d7-e6']);
  await page.close();
});

test('promotion: the picker offers each piece and sends the choice (Yalta)', async () => {
  await boardPage('yalta', { e11: ['P', 0], e1: ['K', 0] }, ['e11-e12=Q', 'e11-e12=R', 'e11-e12=B', 'e11-e12=N', 'e1-f1']);
  await click('e11');
  await click('e12');
  const choices = await page.$$eval('#test-board .picker-choice', (b) => b.map((e) => e.dataset.move));
  assert.deepEqual(choices, ['e11-e12=Q', 'e11-e12=R', 'e11-e12=B', 'e11-e12=N']);
  await page.screenshot({ path: path.join(OUT, 'picker-promotion.png') });
  await page.click('#test-board .picker-choice[data-move="e11-e12=N"]');
  assert.deepEqual(await sent(), ['e11-e12=N']);
  await page.close();
});

test('the picker is in the page language: Cancel in French, and it cancels', async () => {
  await boardPage('yalta', { e11: ['P', 0], e1: ['K', 0] }, ['e11-e12=Q', 'e11-e12=R', 'e11-e12=B', 'e11-e12=N'], 0, undefined, null, 'fr-FR');
  await click('e11');
  await click('e12');
  assert.equal((await page.textContent('#test-board .picker-cancel')).trim(), 'Annuler');
  await page.click('#test-board .picker-cancel');
  assert.equal(await page.isVisible('#test-board .picker-choice'), false);
  assert.deepEqual(await sent(), []);
  await page.close();
});

test('ladybug: two walks to one cell, the player picks pivot and turn (Ant Chess)', async () => {
  // The same pieces as a position of the rules core (and the red queen
  // ant2 needs), which names what each walk takes.
  await boardPage('ant2', { h3: ['L', 0], h4: ['A', 0], i3: ['A', 1], g1: ['Q', 0] },
    ['h3-i4@h4cw', 'h3-i4@h4ccw', 'h3-g4@h4cw', 'pass'], 0, undefined,
    '7/8/9/10/11/12/bQ11rQ/2bLbA8/2rA8/10/9/8/7 b -');
  await click('h3');
  const dests = await page.$$eval('#test-board .dest', (d) => d.map((e) => e.dataset.cell).sort());
  assert.deepEqual(dests, ['g4', 'i4']);
  await click('i4');
  const labels = await page.$$eval('#test-board .picker-choice', (b) => b.map((e) => e.textContent));
  // Round h4 from h3 (antchess.md's axial cells): clockwise goes g4 g5 h5
  // i4; anticlockwise enters i3, where the enemy ant stands, then i4.
  assert.deepEqual(labels, ['round h4, clockwise', 'round h4, anticlockwise, takes i3']);
  await page.screenshot({ path: path.join(OUT, 'picker-ladybug.png') });
  await page.click('#test-board .picker-choice[data-move="h3-i4@h4ccw"]');
  assert.deepEqual(await sent(), ['h3-i4@h4ccw']);
  await page.close();
});

test('Ultima suicide: picking a frozen piece twice offers to remove it', async () => {
  await boardPage('ultima', { b1: ['L', 0], b2: ['I', 1], d1: ['K', 0] }, ['b1x', 'd1-c1']);
  await page.evaluate(() => window.board.setMarks({ frozen: ['b1'] }));
  assert.equal(await page.$$eval('#test-board .mark-frozen', (m) => m.length), 1);
  await click('b1');
  await click('b1');
  const choices = await page.$$eval('#test-board .picker-choice', (b) => b.map((e) => e.dataset.move));
  assert.deepEqual(choices, ['b1x']);
  await page.click('#test-board .picker-choice');
  assert.deepEqual(await sent(), ['b1x']);
  await page.close();
});

test('a phone in portrait: the board fits the width and a tap plays', async () => {
  await boardPage('ant2', { g5: ['A', 0] }, ['g5-g6', 'g5-f6', 'g5-h5'], 0, { width: 390, height: 844 });
  await page.evaluate(() => { document.getElementById('test-board').style.width = '100%'; });
  const box = await page.locator('#test-board svg').boundingBox();
  assert.ok(box.width <= 390 && box.width > 300, `board width ${box.width}`);
  await click('g5');
  await click('g6');
  assert.deepEqual(await sent(), ['g5-g6']);
  await page.close();
});

test('without rules.wasm the page says the boards cannot be drawn, and does not crash', async () => {
  page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route('**/rules.wasm', (r) => r.fulfill({ status: 404, body: '' }));
  await page.goto(`${web.url}/#/howto`);
  await page.evaluate(async () => {
    await window.chameleon.ready;
    const { Board } = await import('/js/board.js');
    window.board = new Board(document.getElementById('main'), { game: 'yalta' });
    window.board.setPosition({ a1: { kind: 'K', owner: 0 } });
  });
  assert.match(await page.textContent('#rules-error'), /rules\.wasm.*could not be loaded.*no board can be drawn/);
  assert.match(await page.textContent('main .board-error'), /cannot be drawn.*rules module/);
  assert.equal(await page.$$eval('polygon.cell', (c) => c.length), 0);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: path.join(OUT, 'board-no-rules.png') });
  await page.close();
});
