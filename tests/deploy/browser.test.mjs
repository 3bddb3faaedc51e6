// The web client in chromium through Debian's nginx with deploy/nginx.conf
// (issue 19): the pages over TLS and HTTP/2, the game over wss:// through
// nginx's WebSocket upgrade, the server run with --public-url set to
// nginx's https origin, so that the Origin check compares the browser's
// real Origin and the session cookie is Secure. Two players (two browser
// contexts) play a short game to its end with the clocks running; one
// reloads in the middle and resumes. Screenshots of the game page at
// 390 px and 1440 px go to tests/output/deploy/.
//
// The certificate is self-signed (made by ./nginx.mjs): the contexts
// ignore certificate errors; everything else is as a visitor's browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, ROOT, WEB } from '../e2e/lib.mjs';
import { startServer } from '../integration/lib.mjs';
import { nginxPorts, startNginx } from './nginx.mjs';

const OUT = path.join(ROOT, 'tests/output/deploy');
fs.mkdirSync(OUT, { recursive: true });

let browser, srv, nginx;
const pageErrors = [];

before(async () => {
    const ports = await nginxPorts();
    srv = await startServer(['--web-root', WEB, '--wasm', path.join(ROOT, 'build/rules.wasm'),
        '--trust-proxy', '127.0.0.2', '--public-url', `https://127.0.0.1:${ports.httpsPort}`]);
    nginx = await startNginx(ports, srv.port);
    browser = await launch();
});

after(async () => {
    await browser?.close();
    await nginx?.stop();
    if (srv) {
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    }
});

async function player() {
    const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 }, ignoreHTTPSErrors: true });
    const page = await ctx.newPage();
    page.on('dialog', (d) => d.accept());
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${nginx.origin}/`);
    await page.waitForSelector('#conn.online');
    return { ctx, page };
}

const moves = (k) => document.querySelectorAll('#moves button').length === k;

async function typeMove(page, mv) {
    await page.fill('#move-input', mv);
    await page.press('#move-input', 'Enter');
}

// Both clocks shown as m:ss (10+5: about ten minutes each, plus the
// increments).
async function clocks(page) {
    const t = await page.$$eval('.clock[data-seat]', (cs) => cs.map((c) => c.textContent.trim()));
    assert.equal(t.length, 2, `two clocks: ${t}`);
    for (const c of t) assert.match(c, /^(09|10):\d\d/, `a clock of 10+5: ${t}`);
}

test('two players in chromium through nginx (TLS, HTTP/2, wss://): a game with clocks, a reload, to its end', async () => {
    const a = await player();
    const b = await player();
    // The page and its files came over HTTP/2, the WebSocket is wss:// to
    // nginx's origin.
    const nav = await a.page.evaluate(() => ({
        proto: performance.getEntriesByType('navigation')[0].nextHopProtocol,
        files: performance.getEntriesByType('resource').map((r) => r.nextHopProtocol),
        ws: window.chameleon.conn.ws.url,
    }));
    assert.equal(nav.proto, 'h2');
    assert.ok(nav.files.length > 0 && nav.files.every((p) => p === 'h2'), `files over h2: ${nav.files}`);
    assert.equal(nav.ws, `${nginx.origin.replace('https:', 'wss:')}/ws`);

    // A registers from the page: a POST with the browser's Origin passes
    // the server's check against --public-url, and the cookie is Secure.
    const reg = await a.page.evaluate(() => fetch('/api/register', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'correct horse 1' }),
    }).then((r) => r.status));
    assert.equal(reg, 200);
    const [cookie] = (await a.ctx.cookies()).filter((c) => c.name === 'chameleon_session');
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.secure, true);
    assert.equal(cookie.httpOnly, true);
    await a.page.reload(); // the WebSocket again, now as alice
    await a.page.waitForSelector('#conn.online');

    // A game of Ultima at 10+5 from the lobby; the creator moves first.
    await a.page.selectOption('#new-game', 'ultima');
    await a.page.selectOption('#new-tc', { label: '10+5' });
    await a.page.click('#create-btn');
    await b.page.locator('tr.seek[data-game="ultima"] button.join').first().click();
    for (const p of [a, b]) await p.page.waitForURL(/#\/game\/\d+$/);
    await a.page.waitForSelector('svg.board g.piece.movable');
    assert.match(await a.page.textContent('body'), /alice/);
    await typeMove(a.page, 'e2-e3');
    for (const p of [a, b]) await p.page.waitForFunction(moves, 1);
    await typeMove(b.page, 'e7-e6');
    for (const p of [a, b]) await p.page.waitForFunction(moves, 2);
    for (const p of [a, b]) await clocks(p.page);

    // B reloads in the middle of the game: a new WebSocket through nginx,
    // the room joined again with its moves and clocks.
    const room = b.page.url();
    await b.page.reload();
    await b.page.waitForSelector('#conn.online');
    assert.equal(b.page.url(), room);
    await b.page.waitForFunction(moves, 2);
    await clocks(b.page);
    await typeMove(a.page, 'd2-d3');
    for (const p of [a, b]) await p.page.waitForFunction(moves, 3);
    await b.page.waitForSelector('svg.board g.piece.movable');
    await typeMove(b.page, 'd7-d6');
    for (const p of [a, b]) await p.page.waitForFunction(moves, 4);

    // The game page through nginx, narrow and wide.
    for (const [w, h] of [[390, 844], [1440, 900]]) {
        await a.page.setViewportSize({ width: w, height: h });
        await a.page.waitForTimeout(200); // the board redraws to its new size
        await a.page.screenshot({ path: path.join(OUT, `game-${w}.png`), fullPage: true });
    }

    // To its end: B resigns, both see the result.
    await b.page.click('#btn-resign');
    for (const p of [a, b]) {
        await p.page.waitForSelector('#banner:not([hidden])');
        assert.match(await p.page.textContent('#banner'), /wins.*resignation|resignation.*wins/s);
    }
    for (const p of [a, b]) await p.ctx.close();
    assert.deepEqual(pageErrors, []);
});
