// Helpers of the game-page tests (sound, tools, confirm, rematch): players
// as browser contexts on the real server, a game started between them
// through the protocol (seek_create / seek_accept from each page's own
// connection: the lobby's form is tested elsewhere), moves sent the same
// way, and a spy on HTMLMediaElement.play in every page.

import path from 'node:path';
import { OUT } from './lib.mjs';

// Every page records the sounds it starts (file names) in window.__plays.
const SPY = `(() => {
  window.__plays = [];
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    window.__plays.push(String(this.src).split('/').pop());
    return play.call(this).catch(() => {});
  };
})();`;

// A player: a fresh context (its own identity), on the lobby, online.
// opts: {width, height, init: a script run before the page's own}.
export async function player(browser, url, opts = {}) {
  const ctx = await browser.newContext({ viewport: { width: opts.width || 1100, height: opts.height || 800 } });
  await ctx.addInitScript(SPY);
  if (opts.init) await ctx.addInitScript(opts.init);
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${url}/`);
  await page.waitForSelector('#conn.online');
  return page;
}

export async function request(page, type, fields) {
  const r = await page.evaluate(([t, f]) => window.chameleon.conn.request(t, f).catch((e) => ({ failed: e })), [type, fields]);
  if (r && r.failed) throw new Error(`${type}: ${r.failed.code} ${r.failed.reason}`);
  return r;
}
export const send = (page, type, fields) => page.evaluate(([t, f]) => window.chameleon.conn.request(t, f, false), [type, fields]);

// Starts a game of `game` between pages (seat order = pages order);
// fields: more seek fields (base_ms, inc_ms, corr, rated). Returns the room
// id once every page shows the room.
export async function startGame(pages, game, fields = { base_ms: 600000, inc_ms: 5000 }) {
  const made = await request(pages[0], 'seek_create', { game, ...fields });
  for (const p of pages.slice(1)) await request(p, 'seek_accept', { seek: made.seek.id });
  for (const p of pages) await p.waitForURL(/#\/game\/\d+$/);
  for (const p of pages) await p.waitForSelector('.player', { timeout: 15000 });
  return Number(/#\/game\/(\d+)$/.exec(pages[0].url())[1]);
}

// Moves shown in the move list.
export const moveCount = (page) => page.locator('#moves [data-ply]').count();

// Plays `move` from `page` and waits until every page in `all` shows n moves.
export async function play(page, room, move, all, n) {
  await send(page, 'move', { room, move });
  for (const p of all) {
    await p.waitForFunction((k) => document.querySelectorAll('#moves [data-ply]').length >= k, n, { timeout: 15000 })
      .catch(async () => { throw new Error(`${move}: not shown (${await p.locator('#room-status').textContent()})`); });
  }
}

export const plays = (page) => page.evaluate(() => window.__plays.slice());

export async function shot(page, name) {
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

// Registers `name` from the page (POST /api/register, as the account page
// does) and reconnects so that the connection is the account's.
export async function register(page, name) {
  await page.evaluate(async (n) => {
    const r = await fetch('/api/register', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: n, password: `${n}-secret-pw` }),
    });
    if (!r.ok) throw new Error(`register: ${r.status} ${await r.text()}`);
    window.chameleon.conn.drop();
  }, name);
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
}

// Plays from-to by clicking the piece, then its destination.
export async function clickMove(page, from, to) {
  await page.waitForSelector(`svg.board g.piece.movable[data-cell="${from}"]`);
  const box = await page.locator(`svg.board polygon.cell[data-cell="${from}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator(`svg.board .dest[data-cell="${to}"]`).click({ force: true });
}
