// Text that looks like HTML or SQL, typed by players, is shown as text
// (issue 18, the bad-input matrix: "SQL and HTML in every text field, shown
// as text in the browser"): two guests whose names are markup play in the
// real server (build/chameleon, temporary database), say
// `<img src=x onerror=...>` and `'); DROP TABLE games;--` in the room's
// chat from its input field; both players and a spectator who opens the
// room later see the exact text, and no element is made of it.
// Skipped (with a message) while no server binary is built.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, realServer, serverBinary, OUT } from './lib.mjs';

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
const HTML = '<img src=x onerror="window.pwned=1">';
const SQL = "'); DROP TABLE games;--";
const NAMES = ['<b>bold</b><img src=x>', "Robert'); --"]; // names: at most 24 bytes

let browser, server;
const pageErrors = [];
before(async () => {
  if (skip) return;
  browser = await launch();
  server = await realServer();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// A guest page whose stored name (the client's hello) is `name`.
async function open(name, hash = '#/') {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  if (name) await page.addInitScript((n) => localStorage.setItem('chameleon.name', n), name);
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return { ctx, page };
}

// What the page shows of the chat, and every element the chat holds.
async function chatOf(page) {
  return page.evaluate(() => {
    const lines = document.getElementById('chat-lines');
    return {
      text: lines.textContent,
      tags: [...new Set([...lines.querySelectorAll('*')].map((e) => e.tagName))],
      imgs: document.querySelectorAll('img[src="x"], b').length,
      pwned: window.pwned === 1,
    };
  });
}

test('chat and names that look like HTML or SQL are shown as text', { skip }, async () => {
  const a = await open(NAMES[0]);
  const b = await open(NAMES[1]);
  // A game between them through the page's own connection.
  await a.page.evaluate(async () => {
    const c = window.chameleon.conn;
    window.started = new Promise((resolve) => c.on('game_started', (m) => resolve(m.room)));
    await c.request('seek_create', { game: 'ultima', base_ms: 600000, inc_ms: 0 });
  });
  await b.page.evaluate(async () => {
    const c = window.chameleon.conn;
    const l = await c.request('lobby_watch', {});
    await c.request('seek_accept', { seek: l.seeks.find((s) => s.game === 'ultima').id });
  });
  const room = await a.page.evaluate(() => window.started);
  for (const p of [a, b]) {
    await p.page.waitForURL(/#\/game\/\d+$/);
    await p.page.waitForSelector('#chat-input');
  }
  // Each says its line from the chat field.
  for (const [p, text] of [[a, HTML], [b, SQL]]) {
    await p.page.fill('#chat-input', text);
    await p.page.press('#chat-input', 'Enter');
  }
  const both = (t) => t.includes(HTML) && t.includes(SQL);
  // A spectator has its own chat room (PROTOCOL.md, Chat rooms): it says
  // both lines itself, and reads none of the players'.
  const spectator = await open(null, `#/game/${room}`);
  await spectator.page.waitForSelector('#chat[data-channel="spectators"]');
  for (const text of [HTML, SQL]) {
    await spectator.page.fill('#chat-input', text);
    await spectator.page.press('#chat-input', 'Enter');
    await spectator.page.waitForFunction((w) => document.getElementById('chat-lines').textContent.includes(w), text);
  }
  assert.equal(await spectator.page.$$eval('#chat-lines > div', (ds) => ds.length), 2);
  for (const p of [a, b]) assert.equal(await p.page.$$eval('#chat-lines > div', (ds) => ds.length), 2);
  for (const p of [a, b, spectator]) {
    await p.page.waitForFunction((want) => want.every((w) => document.getElementById('chat-lines')?.textContent.includes(w)),
      [HTML, SQL], { timeout: 10000 });
    const seen = await chatOf(p.page);
    assert.ok(both(seen.text), seen.text);
    assert.deepEqual(seen.tags.sort(), ['DIV', 'SPAN'], 'the chat holds its own lines only');
    assert.equal(seen.imgs, 0, 'no element made of the text');
    assert.equal(seen.pwned, false);
    // The names, as typed, where the page shows the players.
    const body = await p.page.evaluate(() => document.body.innerText);
    for (const n of NAMES) assert.ok(body.includes(n), `name ${n} shown`);
  }
  await spectator.page.screenshot({ path: path.join(OUT, 'hostile-text.png') });
  // The game is still there to be read.
  const r = await fetch(`${server.url}/api/games/${room}`);
  assert.equal(r.status, 200);
  assert.deepEqual((await r.json()).players.map((p) => p.name), NAMES);
  for (const p of [a, b, spectator]) await p.ctx.close();
  assert.deepEqual(pageErrors, []);
});
