// The client under the real server's security headers (issue 18, item 10):
// the page, its modules, the rules core (WebAssembly), the engine's Web
// Worker and the WebSocket all work with the server's Content-Security-
// Policy enforced, and the browser reports no violation. Waits use
// selectors only (waitForFunction would need 'unsafe-eval').

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, realServer, serverBinary } from './lib.mjs';

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, server;
before(async () => {
  if (skip) return;
  browser = await launch({ enforceCSP: true });
  server = await realServer();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the app runs under the server\'s CSP: lobby, WebSocket, rules core, engine worker; no violation', { skip }, async () => {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
  const res = await page.goto(`${server.url}/`);
  const csp = res.headers()['content-security-policy'];
  assert.ok(csp && /frame-ancestors 'none'/.test(csp), 'the page carries the CSP');
  await page.waitForSelector('#conn.online', { timeout: 15000 });
  // The analysis board: the rules core in the page and the engine in its
  // worker, both compiled from rules.wasm.
  await page.goto(`${server.url}/#/analysis/rollerball`);
  await page.waitForSelector('svg.board g.piece.movable', { timeout: 15000 });
  await page.locator('#engine-eval', { hasText: /\d/ }).waitFor({ timeout: 20000 });
  assert.deepEqual(problems, []);
  await ctx.close();
});
