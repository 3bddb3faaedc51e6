// "Your games" is live: a game started after the page was loaded (here
// against a bot, and then one from a seek accepted by another player)
// is listed without a reload; a finished one leaves the list.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer } from './lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

async function open() {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 850 } });
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  return page;
}
const roomOf = (page) => Number(/#\/game\/(\d+)$/.exec(page.url())[1]);

test('your games lists the games started since the page loaded, and drops finished ones', { skip }, async () => {
  const a = await open();
  await a.selectOption('#bot-game', 'ultima');
  await a.selectOption('#bot-tc', { label: 'no clock' });
  await a.click('#bot-btn');
  await a.waitForURL(/#\/game\/\d+$/);
  const first = roomOf(a);
  await a.click('a[data-nav="games"]');
  await a.waitForSelector(`#your-games tr[data-room="${first}"]`);

  // A seek of ours accepted by someone else, while we wait in the lobby.
  await a.goto(`${server.url}/#/`);
  await a.waitForSelector('#create-btn:not([disabled])');
  await a.selectOption('#new-game', 'rollerball');
  await a.click('#create-btn');
  const b = await open();
  await b.locator('tr.seek[data-game="rollerball"] button.join').click();
  await a.waitForURL(/#\/game\/\d+$/);
  const second = roomOf(a);
  assert.notEqual(second, first);
  await a.click('a[data-nav="games"]');
  await a.waitForSelector(`#your-games tr[data-room="${second}"]`);
  await a.waitForSelector(`#your-games tr[data-room="${first}"]`);

  // The bot game resigned: no longer in progress.
  await a.goto(`${server.url}/#/game/${first}`);
  await a.click('#btn-resign');
  await a.waitForSelector('#banner:not([hidden])');
  await a.click('a[data-nav="games"]');
  await a.waitForSelector(`#your-games tr[data-room="${second}"]`);
  assert.equal(await a.locator(`#your-games tr[data-room="${first}"]`).count(), 0);
  assert.equal(await a.textContent('#your-games-note'), '');
  await a.context().close();
  await b.context().close();
});
