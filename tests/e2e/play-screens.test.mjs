// The game page with the tools of sound.js, tools.js, confirm.js and
// offers.js at 360, 390 and 1440 px: a live game, a finished one and a
// correspondence game. No horizontal scroll, no "null" or "undefined" in
// the page, the tools on screen; screenshots in
// tests/output/e2e/play-<kind>-<width>.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer, settled } from './lib.mjs';
import { player, startGame, play, register, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function check(page, kind) {
  for (const width of [360, 390, 1440]) {
    await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
    await settled(page);
    const m = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
      text: document.getElementById('room').innerText,
    }));
    assert.ok(m.scroll <= m.inner, `${kind} at ${width}: ${m.scroll} px wide`);
    assert.doesNotMatch(m.text, /\bnull\b|\bundefined\b|NaN/, `${kind} at ${width}`);
    for (const id of ['#btn-sound', '#btn-flip', '#btn-pgn']) assert.ok(await page.isVisible(id), `${kind}: ${id}`);
    if (width !== 360) await shot(page, `play-${kind}-${width}`);
  }
}

test('the game page with its tools: live, finished, correspondence', { skip, timeout: 120000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'ultima', { base_ms: 300000, inc_ms: 2000 });
  // White's third move closes a pincer on b3: the pawn taken is shown in
  // White's bar, on both pages (Ultima's captures are not on the cell
  // moved to: the room reads them from the move's changes).
  await play(a, room, 'a2-a3', [a, b], 1);
  await play(b, room, 'b7-b3', [a, b], 2);
  await play(a, room, 'c2-c3', [a, b], 3);
  for (const p of [a, b]) {
    await p.waitForSelector('.player[data-seat="0"] .taken .taken-piece[data-kind="P"][data-owner="1"]');
    assert.equal(await p.locator('.taken').count(), 1, 'only White has taken');
    assert.match(await p.getAttribute('.taken', 'aria-label'), /^Taken: 1 × /);
  }
  await a.click('#btn-takeback');
  await b.waitForSelector('#btn-takeback-accept');
  await check(b, 'live');
  await b.click('#btn-takeback-decline');
  await a.click('#btn-resign');
  await a.click('#btn-rematch');
  await b.waitForSelector('#btn-rematch-decline');
  await check(b, 'finished');
  await a.context().close();
  await b.context().close();

  const c = await player(browser, server.url);
  const d = await player(browser, server.url);
  await register(c, 'screenc');
  await register(d, 'screend');
  const corr = await startGame([c, d], 'rollerball', { corr: { days: 2 } });
  await play(c, corr, 'c2-b1', [c, d], 1);
  await check(d, 'corr');
  await c.context().close();
  await d.context().close();
});
