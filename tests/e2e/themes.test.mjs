// Themes and board colours (issue 14, "What players expect"): the light
// theme beside the dark one, chosen in the header's preferences menu,
// applied before the first paint on the next load (no flash of the dark
// theme: the app's own script is held back and the page is already
// light), the board colour sets, the text readable in both themes (the
// contrast of each text colour on its background, WCAG's formula), and
// the open menu on a phone. Every page in both themes at 360, 390 and
// 1440 px is layout.test.mjs's walk.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, realServer, serverBinary, OUT } from './lib.mjs';

const skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, server;
before(async () => {
  browser = await launch();
  server = skip ? null : await realServer();
});
after(async () => { await browser?.close(); await server?.close(); });

async function open(hash = '#/', viewport = { width: 1440, height: 900 }) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return { ctx, page, errors };
}

async function choose(page, key, value) {
  if (!(await page.isVisible('#prefs-panel'))) await page.click('#prefs-btn');
  await page.selectOption(`#pref-${key}`, value);
}

const bodyBg = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('the light theme is chosen in the menu, kept, and applied before the app runs', { skip }, async () => {
  const { ctx, page, errors } = await open();
  assert.equal(await bodyBg(page), 'rgb(22, 21, 18)', 'dark by default');
  await page.click('#prefs-btn');
  assert.equal(await page.getAttribute('#prefs-btn', 'aria-expanded'), 'true');
  await choose(page, 'theme', 'light');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  assert.equal(await bodyBg(page), 'rgb(244, 242, 239)');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#prefs-panel'), false, 'Escape closes the menu');
  // The next load, with the app's module held back: the boot script alone
  // has made the page light.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/js/app.js', async (route) => { await held; await route.continue(); });
  await page.reload({ waitUntil: 'commit' });
  await page.waitForSelector('#main', { state: 'attached' }); // the body is parsed; the module waits
  assert.equal(await page.evaluate(() => window.chameleon === undefined), true, 'the app has not run yet');
  assert.equal(await bodyBg(page), 'rgb(244, 242, 239)', 'light before the app runs');
  release();
  await page.waitForSelector('#conn.online');
  await page.click('#prefs-btn');
  assert.equal(await page.inputValue('#pref-theme'), 'light', 'the menu shows the kept choice');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('board colour sets recolour the cells at once', { skip }, async () => {
  const { ctx, page } = await open('#/howto/ultima');
  await page.waitForSelector('#howto-board polygon.cell');
  const fills = () => page.$eval('#howto-board polygon.cell.shade0', (c) => getComputedStyle(c).fill);
  assert.equal(await fills(), 'rgb(240, 217, 181)', 'wood by default');
  for (const [set, want] of [['blue', 'rgb(222, 227, 230)'], ['green', 'rgb(255, 255, 221)'], ['grey', 'rgb(196, 196, 196)']]) {
    await choose(page, 'board', set);
    assert.equal(await fills(), want, set);
    assert.notEqual(await page.$eval('#howto-board polygon.cell.shade1', (c) => getComputedStyle(c).fill), want, `${set}: two shades`);
    await page.screenshot({ path: path.join(OUT, `theme-board-${set}.png`) });
  }
  await ctx.close();
});

// WCAG 2 contrast of the page's text colours on their backgrounds, read
// from the theme's variables as the browser computed them.
function contrasts() {
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const rgb = (v) => {
    probe.style.color = `var(${v})`;
    return getComputedStyle(probe).color.match(/\d+/g).slice(0, 3).map(Number);
  };
  const lum = ([r, g, b]) => {
    const f = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const pairs = [['--fg', '--bg'], ['--fg', '--bg2'], ['--fg-strong', '--bg3'], ['--muted', '--bg'], ['--muted', '--bg2'],
    ['--accent', '--bg2'], ['--error', '--bg2'], ['--fg-strong', '--to-move'], ['--fg-strong', '--low'], ['--current-fg', '--current'],
    ['--fg-strong', '--banner-bg'], ['--corr', '--bg2'], ['--info', '--bg2'], ['--fatal-fg', '--fatal-bg']];
  const out = Object.fromEntries(pairs.map(([a, b]) => [`${a} on ${b}`, Math.round(ratio(a, b) * 10) / 10]));
  probe.remove();
  return out;
}

for (const theme of ['dark', 'light']) {
  test(`${theme} theme: readable text, the menu fits a phone`, { skip }, async () => {
    const { ctx, page, errors } = await open('#/', { width: 390, height: 844 });
    await choose(page, 'theme', theme);
    assert.equal(await page.getAttribute('html', 'data-theme'), theme);
    const c = await page.evaluate(contrasts);
    const low = Object.entries(c).filter(([, r]) => r < 4.5);
    assert.deepEqual(low, [], `text colours under 4.5:1 in the ${theme} theme: ${JSON.stringify(c)}`);
    // The menu itself, open, at phone width.
    const box = await page.locator('#prefs-panel').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `the menu fits the phone: ${JSON.stringify(box)}`);
    await page.screenshot({ path: path.join(OUT, `theme-${theme}-menu-390.png`) });
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}
