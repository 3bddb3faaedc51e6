// Game sounds (web-client/js/sound.js, room/sounds.js): a real game of
// Rollerball between two browser contexts; every page spies on
// HTMLMediaElement.play. Both hear the start; a move and a capture sound
// as played; the mute switch (kept in localStorage "chameleon.sound")
// silences one page and only that one, through a reload; the end sounds
// where sound is on.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAndServer } from './lib.mjs';
import { player, startGame, play, plays, send, shot } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });

test('sounds: start, move, capture, end; the mute switch silences its page', { skip, timeout: 90000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'rollerball');
  for (const p of [a, b]) await p.waitForFunction(() => window.__plays.includes('start.ogg'));
  // The sound files are served as audio.
  const r = await fetch(`${server.url}/sounds/capture.ogg`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'audio/ogg');

  await play(a, room, 'c2-b1', [a, b], 1);
  await play(b, room, 'e6-f5', [a, b], 2);
  await play(a, room, 'd1-c6', [a, b], 3); // takes a piece
  for (const p of [a, b]) {
    await p.waitForFunction(() => window.__plays.includes('capture.ogg'));
    const heard = await plays(p);
    assert.equal(heard.filter((s) => s === 'move.ogg').length, 2, `two quiet moves: ${heard}`);
    assert.equal(heard.filter((s) => s === 'capture.ogg').length, 1, `one capture: ${heard}`);
  }

  // B mutes: the switch says so, and stays so after a reload.
  assert.match(await b.locator('#btn-sound').textContent(), /Sound on/);
  await b.click('#btn-sound');
  assert.match(await b.locator('#btn-sound').textContent(), /Sound off/);
  assert.equal(await b.evaluate(() => localStorage.getItem('chameleon.sound')), 'off');
  await b.reload();
  await b.waitForSelector('#moves [data-ply="3"]');
  assert.match(await b.locator('#btn-sound').textContent(), /Sound off/);
  await shot(b, 'sound-muted');

  const before4 = (await plays(a)).length;
  // Any legal move of B's (the page's own list, from the rules core).
  const legal = await b.evaluate(async () => {
    const { loadedRules, pageRules } = await import('/js/rules.js');
    await pageRules();
    const st = await window.chameleon.conn.request('join', { room: Number(location.hash.split('/').pop()) });
    const g = loadedRules().newGame(st.game, st.position);
    const l = g.legalMoves();
    g.free();
    return l;
  });
  await play(b, room, legal[0], [a, b], 4);
  await a.waitForFunction((n) => window.__plays.length > n, before4);
  assert.deepEqual(await plays(b), [], 'a muted page plays nothing (its spy restarted with the reload)');

  await send(a, 'resign', { room });
  await a.waitForFunction(() => window.__plays.includes('end.ogg'));
  await b.waitForSelector('#banner:not([hidden])');
  assert.deepEqual(await plays(b), [], 'nor the end');

  // Unmuted again: the next sound plays.
  await b.click('#btn-sound');
  assert.equal(await b.evaluate(() => localStorage.getItem('chameleon.sound')), 'on');
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
  await b.context().close();
});

test('low time: the player\'s own clock under a tenth of the base plays once; the flag ends the game', { skip, timeout: 60000 }, async () => {
  const a = await player(browser, server.url);
  const b = await player(browser, server.url);
  const room = await startGame([a, b], 'rollerball', { base_ms: 8000, inc_ms: 0 });
  // Both have moved (each clock runs from its owner's first move at the
  // latest), then A's clock runs down: under 0.8 s left it sounds.
  await play(a, room, 'c2-b1', [a, b], 1);
  await play(b, room, 'e6-f5', [a, b], 2);
  await a.waitForFunction(() => window.__plays.includes('lowtime.ogg'), null, { timeout: 20000 });
  assert.ok(!(await plays(b)).includes('lowtime.ogg'), 'not on the other side');
  await a.waitForFunction(() => window.__plays.includes('end.ogg'), null, { timeout: 20000 });
  const heard = await plays(a);
  assert.equal(heard.filter((s) => s === 'lowtime.ogg').length, 1, `${heard}`);
  await a.context().close();
  await b.context().close();
});
