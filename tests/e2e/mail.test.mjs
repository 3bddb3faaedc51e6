// E-mail in the browser (PROTOCOL.md, "E-mail"), through the real server
// and a real SMTP server on loopback (tests/integration/smtp_sink.py,
// python3-aiosmtpd): an account gives its address on the profile, opens the
// confirmation link from the mail, chooses its notices; a second browser
// asks for a password reset, follows the mail's link and sets a new
// password; the first browser's session has ended.
// Screenshots: tests/output/e2e/mail-*.png at 1440, 390 and 360 px.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { launch, realServer, serverBinary, freePort, OUT, ROOT, settled } from './lib.mjs';

const skip = serverBinary() && !process.env.CHAMELEON_URL ? false : 'needs the built server (build/chameleon)';
let browser, server, sink, sinkDir;

before(async () => {
  if (skip) return;
  sinkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chameleon-e2e-mail-'));
  const sinkPort = await freePort();
  sink = spawn('/usr/bin/python3', [path.join(ROOT, 'tests/integration/smtp_sink.py'), String(sinkPort), sinkDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok, fail) => {
    sink.stdout.on('data', (d) => { if (String(d).includes('ready')) ok(); });
    sink.on('exit', (c) => fail(new Error(`smtp sink exited ${c}`)));
  });
  const port = await freePort();
  server = await realServer({ port, args: ['--smtp-url', `smtp://127.0.0.1:${sinkPort}`, '--mail-from', 'chameleon@example.org', '--public-url', `http://127.0.0.1:${port}`] });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
  sink?.kill('SIGTERM');
  if (sinkDir) fs.rmSync(sinkDir, { recursive: true, force: true });
});

// The first link of `kind` in a mail to `to` (waits for the mail).
async function mailLink(to, kind) {
  const end = Date.now() + 20000;
  for (;;) {
    for (const f of fs.readdirSync(sinkDir).filter((x) => x.endsWith('.eml')).sort().reverse()) {
      const raw = fs.readFileSync(path.join(sinkDir, f), 'utf8');
      const m = raw.match(new RegExp(`http://127\\.0\\.0\\.1:\\d+/#/${kind}/[0-9a-f]{64}`));
      if (raw.startsWith(`X-Envelope-To: ${to}`) && m) return m[0];
    }
    if (Date.now() > end) throw new Error(`no ${kind} mail to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Screenshots at three widths, each without a horizontal scroll bar.
async function shots(page, name) {
  for (const width of [1440, 390, 360]) {
    await page.setViewportSize({ width, height: 900 });
    await settled(page);
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 0, `${name} at ${width} px scrolls sideways by ${over} px`);
    await page.screenshot({ path: path.join(OUT, `mail-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1100, height: 820 });
}

test('an address confirmed by its link, notices chosen, a password reset by e-mail', { skip }, async () => {
  const errors = [];
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 820 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  const name = `mailer${process.pid % 10000}`;
  const address = `${name}@example.org`;
  await page.goto(`${server.url}/#/register`);
  await page.waitForSelector('#conn.online');
  await page.fill('#username', name);
  await page.fill('#password', 'first password');
  await page.click('#account-form button[type=submit]');
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);

  await page.goto(`${server.url}/#/profile`);
  await page.waitForSelector('#mail-address-input');
  assert.match(await page.textContent('#mail-address'), /No confirmed address/);
  await page.fill('#mail-address-input', address);
  await page.click('#mail-address-save');
  await page.waitForFunction(() => /confirmation link is on its way/.test(document.getElementById('notices-status').textContent));
  await page.goto(await mailLink(address, 'confirm'));
  await page.waitForFunction(() => /Confirmed/.test(document.getElementById('notices-page-status').textContent));

  await page.goto(`${server.url}/#/profile`);
  await page.waitForFunction((a) => (document.getElementById('mail-address') || {}).textContent === `Your address: ${a}`, address);
  assert.equal(await page.isChecked('#notice-move'), false);
  assert.equal(await page.isChecked('#notice-digest'), true);
  await page.check('#notice-move');
  await page.fill('#notice-remind', '3');
  await page.click('#notices-save');
  await page.waitForFunction(() => document.getElementById('notices-status').textContent === 'Saved.');
  await page.reload();
  await page.waitForSelector('#notice-move');
  assert.equal(await page.isChecked('#notice-move'), true);
  assert.equal(await page.inputValue('#notice-remind'), '3');
  const text = await page.textContent('main');
  assert.ok(!/undefined|null|NaN/.test(text), text);
  await shots(page, 'profile');

  // Another browser: forgot the password.
  const other = await (await browser.newContext({ viewport: { width: 390, height: 800 } })).newPage();
  other.on('pageerror', (e) => errors.push(String(e)));
  await other.goto(`${server.url}/#/login`);
  await other.waitForSelector('#conn.online');
  await other.click('#forgot-link');
  await other.waitForSelector('#forgot-login');
  await other.fill('#forgot-login', name);
  await other.click('#forgot-form button[type=submit]');
  await other.waitForFunction(() => /link is on its way/.test(document.getElementById('notices-page-status').textContent));
  await shots(other, 'forgot');
  await other.goto(await mailLink(address, 'reset'));
  await other.waitForSelector('#new-password');
  await shots(other, 'reset');
  await other.fill('#new-password', 'second password');
  await other.click('#reset-form button[type=submit]');
  await other.waitForFunction(() => /password is changed/.test(document.getElementById('notices-page-status').textContent));

  // The first browser's session has ended: after a reload it is a guest.
  await page.reload();
  await page.waitForSelector('#conn.online');
  await page.waitForFunction(() => window.chameleon.conn.ready);
  assert.equal(await page.evaluate(() => window.chameleon.account), null);
  // The new password works.
  await other.goto(`${server.url}/#/login`);
  await other.fill('#username', name);
  await other.fill('#password', 'second password');
  await other.click('#account-form button[type=submit]');
  await other.waitForFunction((n) => window.chameleon.account === n, name);
  // The address deleted from the profile: gone, and said so.
  await other.goto(`${server.url}/#/profile`);
  await other.waitForSelector('#mail-address-delete:not([hidden])');
  await other.click('#mail-address-delete');
  await other.waitForFunction(() => /Address deleted/.test(document.getElementById('notices-status').textContent));
  assert.match(await other.textContent('#mail-address'), /No confirmed address/);
  assert.ok(await other.isHidden('#mail-address-delete'));
  await other.reload();
  await other.waitForSelector('#mail-address-input');
  assert.match(await other.textContent('#mail-address'), /No confirmed address/);
  assert.equal(await other.isChecked('#notice-move'), true, 'the choices stay');
  assert.deepEqual(errors, []);
});
