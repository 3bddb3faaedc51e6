// The game room's finish, through the real server:
//  - before its first move a seat's clock does not run, and the bar says so;
//  - "Game aborted" is written once;
//  - a click or a drop on a cell the piece cannot reach says so; a refusal
//    goes away with the next action or the next move;
//  - a finished game opened by a new visitor (#/game/N, the room closed):
//    its time control, no raw "no room N" (not even the previous page's),
//    colours in "View as", no move input, piece letters in the moves, the
//    final position; for a two- and a three-player game.
// Screenshots: tests/output/e2e/room-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open(hash = '#/', width = 1440, height = 900) {
  const ctx = await browser.newContext({ viewport: { width, height } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

async function startGame(game, n, tc = '3+2') {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(await open());
  await ps[0].selectOption('#new-game', game);
  await ps[0].selectOption('#new-tc', { label: tc });
  await ps[0].click('#create-btn');
  for (let i = 1; i < n; i++) await ps[i].locator(`tr.seek[data-game="${game}"] button.join`).first().click();
  for (const p of ps) await p.waitForSelector('.player');
  return ps;
}

const waitMoves = (ps, k) => Promise.all(ps.map((p) => p.waitForFunction((x) => document.querySelectorAll('#moves button').length === x, k)));
async function typed(ps, moves) {
  for (const [i, m] of moves.entries()) {
    const p = ps[i % ps.length];
    await p.waitForSelector('#move-input:not([disabled])');
    await p.fill('#move-input', m);
    await p.press('#move-input', 'Enter');
    await waitMoves(ps, i + 1);
  }
}
async function clickCell(page, cell) {
  const box = await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}
const pieceAt = (page, cell) => page.$$eval(`svg.board g.piece[data-cell="${cell}"]`, (gs) => gs.length);

test('clocks wait for the first moves; "Game aborted" once', { skip }, async () => {
  const [a, b] = await startGame('ultima', 2);
  // White (a) to move: her clock does not run, and says so.
  await a.waitForSelector('.first-move[data-seat="0"]');
  await a.waitForTimeout(1500);
  assert.equal(await a.textContent('.clock[data-seat="0"]'), '03:00');
  await a.screenshot({ path: path.join(OUT, 'room-first-move.png') });
  await a.click('#btn-abort');
  for (const p of [a, b]) {
    await p.waitForSelector('#banner:not([hidden])');
    const text = await p.textContent('#banner');
    assert.equal(text.trim(), 'Game aborted');
  }
  await a.context().close();
  await b.context().close();
});

test('an illegal click or drop is explained; a refusal goes with the next action', { skip }, async () => {
  const [a, b] = await startGame('ultima', 2);
  await a.waitForSelector('svg.board g.piece.movable[data-cell="e2"]');
  // A pawn (pincer) moves as a rook: e2-d3 is not a move.
  await clickCell(a, 'e2');
  await clickCell(a, 'd3');
  await a.waitForSelector('#room-status.error:has-text("not a legal move")');
  // Dragged onto a cell it cannot reach.
  const from = await a.locator('svg.board polygon.cell[data-cell="a2"]').boundingBox();
  const to = await a.locator('svg.board polygon.cell[data-cell="b3"]').boundingBox();
  await a.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await a.mouse.down();
  await a.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
  await a.mouse.up();
  await a.waitForSelector('#room-status.error:has-text("a2\u2013b3 is not a legal move")');
  // A move the server refuses (typed): its reason, then gone with a legal
  // move played by clicking.
  await a.fill('#move-input', 'e2-e9');
  await a.press('#move-input', 'Enter');
  await a.waitForFunction(() => /e2-e9|e9/.test(document.getElementById('room-status').textContent));
  await a.screenshot({ path: path.join(OUT, 'room-refused.png') });
  await clickCell(a, 'e2');
  await a.locator('svg.board .dest[data-cell="e4"]').click({ force: true });
  await waitMoves([a, b], 1);
  assert.equal(await a.textContent('#room-status'), '');
  // Black's refusal goes when he selects a piece on the board.
  await b.waitForSelector('#move-input:not([disabled])');
  await b.fill('#move-input', 'zz');
  await b.press('#move-input', 'Enter');
  await b.waitForSelector('#room-status.error');
  await clickCell(b, 'e7');
  assert.equal(await b.textContent('#room-status'), '');
  await a.context().close();
  await b.context().close();
});

for (const [game, n, moves, emptied, filled] of [
  ['ultima', 2, ['a2-a4', 'b7-b5', 'c2-c4'], 'c2', 'c4'],
  ['yalta', 3, ['g1-h3', 'a7-a6', 'l11-l10'], 'g1', 'h3'],
]) {
  test(`a finished ${game} game opened by a new visitor`, { skip }, async () => {
    const ps = await startGame(game, n);
    await typed(ps, moves);
    const room = Number(/#\/game\/(\d+)$/.exec(ps[0].url())[1]);
    await ps[0].click('#btn-resign');
    if (n === 3) {
      await ps[1].waitForSelector('.player[data-seat="0"]:has-text("left")');
      await ps[1].click('#btn-resign');
    }
    await ps[n - 1].waitForSelector('#banner:not([hidden])');
    for (const p of ps) await p.context().close();

    // A visitor comes from another finished game's page (whose `part`
    // the server answers "no room"), to this one; the room is closed.
    const v = await open(`#/game/${room - 1 > 0 ? room - 1 : room}`, 390, 844);
    await v.waitForSelector('.player');
    await v.goto(`${server.url}/#/game/${room}`);
    await v.waitForSelector('#banner:not([hidden])');
    await v.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, moves.length);
    await v.waitForTimeout(800); // any late answer to the previous page
    await v.setViewportSize({ width: 1440, height: 900 });
    const main = await v.textContent('#main');
    assert.doesNotMatch(main, /no room/i);
    assert.match(await v.textContent('.room-title'), /3\+2/);
    assert.doesNotMatch(await v.textContent('.room-title'), /no clock|null|undefined/);
    const options = await v.$$eval('#view-seat option', (os) => os.map((o) => o.textContent));
    assert.equal(options.length, n);
    for (const o of options) assert.match(o, /^(White|Black|Red|Green) \(guest-\d+\)$/);
    assert.ok(await v.isHidden('#typed'), 'no move input for a visitor of a finished game');
    const texts = await v.$$eval('#moves button', (bs) => bs.map((x) => x.textContent));
    for (const t of texts) assert.match(t, /^[A-Z][a-z]\d+-[a-z]\d+/);
    // The final position, not the set-up.
    assert.equal(await pieceAt(v, emptied), 0);
    assert.equal(await pieceAt(v, filled), 1);
    assert.equal(await v.$$eval('#moves button.current', (bs) => bs.length), 1);
    await v.screenshot({ path: path.join(OUT, `room-viewer-${game}.png`) });
    await v.context().close();
  });
}
