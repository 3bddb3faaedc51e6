// Three-player games on a laptop screen: at 1440x900 and 1366x768 the
// player's own bar (name and clock, below the board) is on screen without
// scrolling, for Yalta and three-player Ant Chess (against two bots).
// Screenshots: tests/output/e2e/fold-<game>-<width>.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, browserAndServer, settled } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

for (const game of ['yalta', 'ant3']) {
  test(`${game}: your own clock is visible at 1440x900 and 1366x768`, { skip }, async () => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#conn.online');
    await page.selectOption('#bot-game', game);
    await page.selectOption('#bot-seat', '0');
    await page.selectOption('#bot-tc', { label: '3+2' });
    await page.click('#bot-btn');
    await page.waitForURL(/#\/game\/\d+$/);
    await page.waitForSelector('.bottom-bars .clock');
    for (const [width, height] of [[1440, 900], [1366, 768]]) {
      await page.setViewportSize({ width, height });
      await settled(page);
      const r = await page.evaluate(() => {
        const c = document.querySelector('.bottom-bars .player').getBoundingClientRect();
        const b = document.querySelector('svg.board').getBoundingClientRect();
        return { bottom: c.bottom, top: c.top, board: b.height, scrollY: window.scrollY, h: window.innerHeight };
      });
      await page.screenshot({ path: path.join(OUT, `fold-${game}-${width}.png`) });
      assert.equal(r.scrollY, 0);
      assert.ok(r.bottom <= r.h, `${game} at ${width}x${height}: own bar ends at ${r.bottom} px, the window at ${r.h}`);
      assert.ok(r.board > height * 0.5, `the board is still large (${r.board} px)`);
    }
    await ctx.close();
  });
}
