// Accounts and correspondence play through the real server (build/chameleon
// on a free loopback port, temporary database), as PROTOCOL.md describes
// them (HTTP accounts; Correspondence: corr seeks, deadlines, `turns`,
// vacation, conditional moves):
//  - register, log out, log in again, a wrong password, the profile;
//  - a guest is told correspondence needs an account;
//  - two accounts in two browser contexts play an Ultima correspondence
//    game by clicking; the other's "your turn" page and header badge change
//    live; a conditional move is stored, then played by the server; a
//    vacation is started and ended from the profile.
// Screenshots: tests/output/e2e/corr-*.png.
// Skipped (with a message) while no server binary is built, or when the
// built server does not speak correspondence yet.

import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { launch, realServer, serverBinary, OUT } from './lib.mjs';

let skip = serverBinary() ? false : 'the server is not built (build/chameleon)';
let browser, server;
const pageErrors = [];
const contexts = new Set();
let shots = 0;

before(async () => {
  if (skip) return;
  browser = await launch();
  server = await realServer();
});
after(async () => {
  await browser?.close();
  await server?.close();
});
// A test that failed leaves its pages open: screenshot them, then close.
afterEach(async () => {
  for (const ctx of contexts) {
    for (const p of ctx.pages()) await p.screenshot({ path: path.join(OUT, `corr-failed-${++shots}.png`) }).catch(() => {});
    await ctx.close().catch(() => {});
  }
  contexts.clear();
});

async function context() {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 820 } });
  // Moves here go at once: confirmation (on by default in correspondence)
  // has its own test, confirm.test.mjs.
  await ctx.addInitScript(() => localStorage.setItem('chameleon.confirm', '{"corr":false}'));
  contexts.add(ctx);
  return ctx;
}

async function open(ctx, hash = '#/') {
  const page = await ctx.newPage();
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#conn.online');
  return page;
}

// Registers `name` through the page; resolves once the connection is the
// account's (the header shows the username, the log-in link is hidden).
// Fills and sends the log-in (mode 'login') or register form.
async function submitAccount(page, mode, name, password) {
  await page.goto(`${server.url}/#/${mode}`);
  await page.fill('#username', name);
  await page.fill('#password', password);
  await page.click('#account-form button[type=submit]');
}

// A refused log-in or registration: the server's reason is shown, the
// connection stays a guest's.
async function refused(page) {
  await page.waitForFunction(() => document.getElementById('account-status').textContent.length > 0);
  assert.notEqual(await page.textContent('#account-status'), 'Welcome!');
  assert.equal(await page.evaluate(() => window.chameleon.account), null);
}

async function register(page, name) {
  await submitAccount(page, 'register', name, `${name}-secret-pw`);
  await page.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
  assert.equal(await page.textContent('#me'), name);
  assert.ok(await page.isHidden('#login-link'));
}

// The box `sel` of the page at 1440 and 390 px: it fits, and its
// screenshot is taken (name-<width>.png).
async function boxAtWidths(page, sel, name) {
  for (const [w, hgt] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.locator(sel).screenshot({ path: path.join(OUT, `${name}-${w}.png`) });
    const box = await page.locator(sel).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= w, `${sel} fits ${w} px`);
  }
}

async function click(page, cell) {
  const box = await page.locator(`svg.board polygon.cell[data-cell="${cell}"]`).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

// Plays from-to by clicking the two cells (the piece, then its destination).
async function playClick(page, from, to) {
  await page.waitForSelector(`svg.board g.piece.movable[data-cell="${from}"]`);
  await click(page, from);
  await page.locator(`svg.board .dest[data-cell="${to}"]`).click({ force: true });
}

const moveTexts = (page) => page.$$eval('#moves button', (b) => b.map((x) => x.textContent));
const waitMoves = (page, n) => page.waitForFunction((k) => document.querySelectorAll('#moves button').length === k, n);

// Does the built server speak correspondence? A guest asking for `turns`
// gets account_required from a server that does, unknown_type otherwise.
async function probe() {
  if (skip) return skip;
  const ctx = await context();
  const page = await open(ctx);
  const code = await page.evaluate(() => window.chameleon.conn.request('turns').then(() => 'ok', (e) => e.code));
  await ctx.close();
  contexts.delete(ctx);
  return code === 'unknown_type' ? 'the built server does not speak correspondence yet' : false;
}

test('accounts: register, log out, log in, a wrong password, the profile', { skip }, async () => {
  const ctx = await context();
  const page = await open(ctx);
  await register(page, 'carol');
  await page.goto(`${server.url}/#/profile`);
  await page.waitForSelector('#profile-name');
  assert.equal(await page.textContent('#profile-name'), 'carol');
  await page.click('#logout-btn');
  await page.waitForFunction(() => window.chameleon.conn.ready && window.chameleon.account === null);
  assert.match(await page.textContent('#me'), /^guest/);
  assert.ok(await page.isVisible('#guest-name'), 'a guest chooses a display name');
  // A wrong password (401), then a name already taken (409).
  await submitAccount(page, 'login', 'carol', 'not-the-password');
  await refused(page);
  await submitAccount(page, 'register', 'carol', 'another-password');
  await refused(page);
  // The right password.
  await submitAccount(page, 'login', 'carol', 'carol-secret-pw');
  await page.waitForFunction(() => window.chameleon.account === 'carol' && window.chameleon.conn.ready);
  assert.equal(await page.textContent('#me'), 'carol');
  // The cookie outlives a reload: still carol.
  await page.reload();
  await page.waitForFunction(() => window.chameleon.account === 'carol');
  await ctx.close();
  contexts.delete(ctx);
  assert.deepEqual(pageErrors, []);
});

test('sessions: a second browser listed on the profile, signed out from the first, back as a guest', { skip }, async () => {
  const dctx = await context();
  const desk = await open(dctx);
  await register(desk, 'dora');
  const pctx = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36' });
  contexts.add(pctx);
  const phone = await open(pctx);
  await submitAccount(phone, 'login', 'dora', 'dora-secret-pw');
  await phone.waitForFunction(() => window.chameleon.account === 'dora' && window.chameleon.conn.ready);

  await desk.goto(`${server.url}/#/profile`);
  await desk.waitForFunction(() => document.querySelectorAll('#sessions-list li').length === 2);
  assert.equal(await desk.locator('#sessions-list li[data-current="true"] .this-device').count(), 1);
  assert.equal(await desk.textContent('#sessions-list li[data-current="false"] .device'), 'Chrome on Android');
  await boxAtWidths(desk, '#sessions', 'corr-sessions');
  await desk.click('#sessions-list li[data-current="false"] .end-session');
  await desk.waitForFunction(() => document.querySelectorAll('#sessions-list li').length === 1);
  assert.equal(await desk.textContent('#sessions-status'), 'Sessions signed out: 1.');
  assert.ok(await desk.isDisabled('#sessions-others'), 'no other session left');
  // The phone is a guest again, at once, without a reload.
  await phone.waitForFunction(() => window.chameleon.account === null && window.chameleon.conn.ready);
  assert.match(await phone.textContent('#me'), /^guest/);
  assert.equal(await desk.evaluate(() => window.chameleon.account), 'dora');
  await dctx.close();
  await pctx.close();
  contexts.delete(dctx);
  contexts.delete(pctx);
  assert.deepEqual(pageErrors, []);
});

// A TOTP code (RFC 6238: HMAC-SHA1, 6 digits, 30 s) of a base32 key at
// unix time t, as an authenticator app computes it.
function totpCode(b32, t) {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...b32.replace(/ /g, '')].map((c) => A.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(t / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  return String((mac.readUInt32BE(mac[19] & 15) & 0x7fffffff) % 1e6).padStart(6, '0');
}

test('two-factor sign-in: set up from the profile, asked for at the next login, turned off with a recovery code', { skip }, async () => {
  const ctx = await context();
  const page = await open(ctx);
  await register(page, 'tess');
  await page.goto(`${server.url}/#/profile`);
  await page.click('#totp-setup');
  await page.waitForSelector('#totp-secret');
  const key = await page.textContent('#totp-secret');
  assert.match(key, /^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
  assert.match(await page.getAttribute('#totp-uri', 'href'), /^otpauth:\/\/totp\/chameleon:tess\?secret=/);
  await page.fill('#totp-code', '000000');
  await page.click('#totp-enable');
  await page.waitForFunction(() => document.getElementById('totp-status').textContent.length > 0);
  assert.match(await page.textContent('#totp-status'), /^wrong or already used code/i);
  await page.fill('#totp-code', totpCode(key, Date.now() / 1000));
  await page.click('#totp-enable');
  await page.waitForSelector('#totp-recovery li');
  const codes = await page.$$eval('#totp-recovery li', (l) => l.map((x) => x.textContent));
  assert.equal(codes.length, 10);
  assert.equal(await page.getAttribute('#totp-state', 'data-state'), 'on');
  await boxAtWidths(page, '#totp', 'corr-totp');
  // Log out, then in: the password alone is not enough; the code's field shows.
  await page.click('#logout-btn');
  await page.waitForFunction(() => window.chameleon.conn.ready && window.chameleon.account === null);
  await submitAccount(page, 'login', 'tess', 'tess-secret-pw');
  await page.waitForSelector('#login-code-box:not([hidden])');
  assert.match(await page.textContent('#account-status'), /code from its authenticator app/);
  await page.screenshot({ path: path.join(OUT, 'corr-totp-login.png') });
  await page.fill('#login-code', totpCode(key, Date.now() / 1000 + 30)); // the next step's: the first was used
  await page.click('#account-form button[type=submit]');
  await page.waitForFunction(() => window.chameleon.account === 'tess' && window.chameleon.conn.ready);
  // Off with a recovery code.
  await page.goto(`${server.url}/#/profile`);
  await page.waitForSelector('#totp-state[data-state="on"]');
  // The account's data in one file: what the profile shows, and no secret.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#mydata-json')]);
  assert.equal(download.suggestedFilename(), 'chameleon-tess.json');
  const file = await download.path();
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(data.account, 'tess');
  assert.equal(data.profile.username, 'tess');
  assert.deepEqual(data.two_factor, { enabled: true, pending: false, recovery_left: 10 });
  assert.ok(data.sessions.sessions.some((x) => x.current));
  assert.ok('prefs' in data.preferences && 'lessons' in data.lessons && 'address' in data.mail, JSON.stringify(data));
  const text = fs.readFileSync(file, 'utf8');
  for (const secret of [key.replace(/ /g, ''), ...codes]) assert.ok(!text.includes(secret), 'no secret in the file');
  assert.equal(await page.getAttribute('#mydata-pgn', 'href'), '/api/games/user/tess?aborted=include');
  assert.equal(await page.evaluate(() => fetch(document.getElementById('mydata-pgn').href).then((r) => r.status)), 200);
  assert.equal(await page.textContent('#totp-state'), 'On. Recovery codes left: 10.');
  await page.fill('#totp-code', codes[0]);
  await page.click('#totp-disable');
  await page.waitForSelector('#totp-state[data-state="off"]');
  assert.equal(await page.textContent('#totp-status'), 'Two-factor sign-in is off.');
  await ctx.close();
  contexts.delete(ctx);
  assert.deepEqual(pageErrors, []);
});

test('correspondence: seek, deadlines, live "your turn", a conditional move, vacation', async (t) => {
  const why = await probe();
  if (why) { t.skip(why); return; }

  // A guest is told why it cannot create a correspondence game.
  const gctx = await context();
  const guest = await open(gctx);
  await guest.check('#kind-corr');
  await guest.waitForSelector('#corr-login-link');
  assert.ok(await guest.isDisabled('#create-btn'));
  await guest.screenshot({ path: path.join(OUT, 'corr-lobby-guest.png') });

  const actx = await context();
  const bctx = await context();
  const a = await open(actx);
  const b = await open(bctx);
  await register(a, 'alice');
  await register(b, 'bob');

  // Alice offers Ultima, 3 days per move; Bob and the guest see it marked
  // as correspondence; Bob accepts.
  await a.selectOption('#new-game', 'ultima');
  await a.check('#kind-corr');
  await a.selectOption('#new-days', '3');
  assert.ok(await a.isEnabled('#create-btn'));
  await a.click('#create-btn');
  for (const p of [b, guest]) {
    const row = p.locator('tr.seek[data-kind="corr"][data-game="ultima"]');
    await row.waitFor();
    assert.match(await row.textContent(), /3 days\/move/);
  }
  assert.equal(await guest.locator('tr.seek[data-kind="corr"] a.login-to-join').count(), 1, 'a guest is sent to log in');
  await b.screenshot({ path: path.join(OUT, 'corr-lobby.png') });
  await gctx.close();
  contexts.delete(gctx);
  await b.locator('tr.seek[data-kind="corr"] button.join').click();
  for (const p of [a, b]) await p.waitForURL(/#\/game\/\d+$/);
  const room = Number(/#\/game\/(\d+)$/.exec(a.url())[1]);

  // Deadlines, not clocks: White (Alice) has 3 days, shown as "2 days 23 h
  // left" a moment later; nobody else has a deadline.
  for (const p of [a, b]) {
    await p.waitForSelector('.deadline[data-seat="0"]:not([hidden])');
    assert.match(await p.textContent('.deadline[data-seat="0"]'), /^(3 days|2 days 23 h) left$/);
    assert.ok(await p.isHidden('.deadline[data-seat="1"]'));
    assert.equal(await p.locator('.clock').count(), 0);
  }
  assert.match(await a.textContent('.room-title'), /Correspondence, 3 days\/move/);

  // Bob's "your turn" page, in a second tab of his browser: empty while
  // Alice is to move; Alice's header badge says 1.
  const bTurn = await open(bctx, '#/turn');
  await bTurn.waitForSelector('#turn-note:has-text("No game is waiting")');
  // His game's tab in front again: a tab behind gets few animation frames,
  // and a click waits for two of them (about 2 s a click).
  await b.bringToFront();
  await a.waitForSelector('#turn-count:not([hidden]):has-text("1")');

  // Alice plays by clicking; Bob's list shows the game at once, with its
  // deadline, and his badge; Alice's badge goes.
  await playClick(a, 'e2', 'e3');
  await bTurn.waitForSelector(`#turn-list tr[data-room="${room}"]`);
  assert.match(await bTurn.textContent(`#turn-list tr[data-room="${room}"]`), /Ultima/);
  assert.match(await bTurn.textContent(`#turn-list tr[data-room="${room}"] td.left`), /^(3 days|2 days 23 h)$/);
  // Against whom, and how far the game is, in words (issue 34, item 7).
  assert.equal(await bTurn.textContent(`#turn-list tr[data-room="${room}"] td.opponents`), 'vs alice');
  assert.equal(await bTurn.textContent(`#turn-list tr[data-room="${room}"] td.plies`), '1 move');
  await bTurn.waitForSelector('#turn-count:has-text("1")');
  await a.waitForSelector('#turn-count[hidden]', { state: 'attached' });
  await bTurn.screenshot({ path: path.join(OUT, 'corr-your-turn.png') });

  // The conditional moves editor is for the player waiting: Bob cannot
  // save lines on his own turn.
  await b.waitForSelector('#cond:not([hidden])');
  assert.ok(await b.isDisabled('#cond-save'));
  await playClick(b, 'e7', 'e6');
  await bTurn.waitForSelector('#turn-note:has-text("No game is waiting")');
  for (const p of [a, b]) await waitMoves(p, 2);

  // Alice to move: Bob enters two lines, removes one, clears all, and at
  // last stores "if d2-d3 then d7-d6".
  await b.waitForSelector('#cond-save:not([disabled])');
  await b.fill('#cond-input', 'h2-h3 h7-h6\nb2-b3   b7-b6');
  await b.click('#cond-save');
  await b.waitForFunction(() => [...document.querySelectorAll('#cond-lines li')].map((l) => l.dataset.line).join('|') === 'h2-h3 h7-h6|b2-b3 b7-b6');
  await b.click('#cond-lines li[data-line="h2-h3 h7-h6"] .cond-drop');
  await b.waitForFunction(() => [...document.querySelectorAll('#cond-lines li')].map((l) => l.dataset.line).join('|') === 'b2-b3 b7-b6');
  await b.click('#cond-clear');
  await b.waitForSelector('#cond-none:not([hidden])');
  // A line of one move is explained, not sent.
  await b.fill('#cond-input', 'd2-d3');
  await b.click('#cond-save');
  await b.waitForSelector('#cond-status:has-text("needs their move and your answer")');
  // A line the rules refuse (a black move where White's is due) is not stored.
  await b.fill('#cond-input', 'd7-d6 d2-d3');
  await b.click('#cond-save');
  await b.waitForFunction(() => /d7-d6/.test(document.getElementById('cond-status').textContent));
  assert.equal(await b.locator('#cond-lines li').count(), 0);
  await b.fill('#cond-input', 'd2-d3 d7-d6');
  await b.click('#cond-save');
  await b.waitForSelector('#cond-lines li:has-text("d2-d3 d7-d6")');
  // Stored on the server, not only on the page: a reload reads it back.
  await b.reload();
  await b.waitForSelector('#cond-lines li:has-text("d2-d3 d7-d6")');
  await b.screenshot({ path: path.join(OUT, 'corr-conditional.png') });

  // Alice plays d2-d3: the server answers d7-d6 for Bob at once.
  await playClick(a, 'd2', 'd3');
  for (const p of [a, b]) await waitMoves(p, 4);
  const texts = await moveTexts(a);
  assert.match(texts[2], /d2-d3$/);
  assert.match(texts[3], /d7-d6$/);
  assert.deepEqual(await moveTexts(b), texts);
  await b.waitForSelector('#cond-none:not([hidden])');
  assert.equal(await b.locator('#cond-lines li').count(), 0);
  // Alice to move again: her badge is back, Bob's list is empty.
  await a.waitForSelector('#turn-count:not([hidden]):has-text("1")');
  await bTurn.waitForSelector('#turn-note:has-text("No game is waiting")');
  await a.screenshot({ path: path.join(OUT, 'corr-room-alice.png') });
  // Alice's "your games" lists it as correspondence, her turn, time left.
  const aGames = await open(actx, '#/games');
  const grow = aGames.locator(`#your-games tr[data-room="${room}"]`);
  await grow.waitFor();
  assert.match(await grow.textContent(), /3 days\/move.*Your turn \((3 days|2 days 23 h) left\)/);
  await aGames.close();

  // Alice plays; Bob goes on vacation for 2 days from his profile: 30 days
  // a year, the running vacation counted as used (PROTOCOL.md, Vacation).
  await playClick(a, 'a2', 'a3');
  await bTurn.waitForSelector(`#turn-list tr[data-room="${room}"]`);
  // Bob's room shows his deadline once it has the move (the "your turn"
  // list may be told first: wait, on a loaded machine, for the room too).
  const before = await (await b.waitForFunction(() => {
    const d = document.querySelector('.deadline[data-seat="1"]');
    return d && d.textContent ? d.textContent : null;
  }, null, { timeout: 15000 })).jsonValue();
  assert.match(before || '', /^(3 days|2 days 23 h) left$/);
  const prof = await open(bctx, '#/profile');
  await prof.waitForSelector('#vacation-state[data-on="false"]');
  assert.equal(await prof.getAttribute('#vacation-state', 'data-days-left'), '30');
  await prof.fill('#vacation-days', '2');
  await prof.click('#vacation-start');
  await prof.waitForSelector('#vacation-state[data-on="true"]');
  assert.equal(await prof.getAttribute('#vacation-state', 'data-days-left'), '28');
  assert.ok(await prof.isVisible('#vacation-end'));
  // The deadline moved back by the vacation: the pushed list says 5 days.
  const leftIs = (re) => bTurn.waitForFunction(([r, src]) => new RegExp(src).test(document.querySelector(`#turn-list tr[data-room="${r}"] td.left`).textContent), [room, re.source]);
  await leftIs(/^(5 days|4 days 23 h)$/);
  // Bob's room shows the moved deadline too.
  await b.waitForFunction(() => /^(5 days|4 days 23 h) left$/.test(document.querySelector('.deadline[data-seat="1"]').textContent));
  await prof.screenshot({ path: path.join(OUT, 'corr-vacation.png') });
  // Ended at once: the day started counts against the year (29 left), and
  // the clock stood still only while the vacation lasted (seconds): the
  // deadline is back where it was.
  await prof.click('#vacation-end');
  await prof.waitForSelector('#vacation-state[data-on="false"]');
  assert.equal(await prof.getAttribute('#vacation-state', 'data-days-left'), '29');
  await leftIs(/^(3 days|2 days 23 h)$/);
  await b.waitForFunction(() => /^(3 days|2 days 23 h) left$/.test(document.querySelector('.deadline[data-seat="1"]').textContent));

  for (const ctx of [actx, bctx]) { await ctx.close(); contexts.delete(ctx); }
  assert.deepEqual(pageErrors, []);
});

// The player to move clicks its first movable piece and the first
// destination shown (choosing the first offer of a picker).
async function playAnyMove(page) {
  await page.waitForSelector('svg.board g.piece.movable');
  await click(page, await page.locator('svg.board g.piece.movable').first().getAttribute('data-cell'));
  await page.locator('svg.board .dest:not(.suicide)').first().click({ force: true });
  const picker = page.locator('.picker:not([hidden]) .picker-choice');
  if (await picker.count()) await picker.first().click();
}

test('three players: a Yalta correspondence game goes round the "your turn" lists', async (t) => {
  const why = await probe();
  if (why) { t.skip(why); return; }
  const names = ['erin', 'frank', 'grace'];
  const ps = [];
  for (const n of names) {
    const page = await open(await context());
    await register(page, n);
    ps.push(page);
  }
  await ps[0].selectOption('#new-game', 'yalta');
  await ps[0].check('#kind-corr');
  await ps[0].selectOption('#new-days', '1');
  await ps[0].check('#new-inc');
  await ps[0].click('#create-btn');
  for (const p of ps.slice(1)) {
    const row = p.locator('tr.seek[data-kind="corr"][data-game="yalta"]');
    await row.waitFor();
    assert.match(await row.textContent(), /1 day \+ 1 day\/move \(max 4 days\)/);
    await row.locator('button.join').click();
  }
  for (const p of ps) await p.waitForURL(/#\/game\/\d+$/);
  const room = Number(/#\/game\/(\d+)$/.exec(ps[0].url())[1]);
  // Each seat in turn: its list holds the game, the others' do not; it
  // plays; no conditional moves in a three-player game.
  for (let seat = 0; seat < 3; seat++) {
    await ps[seat].waitForSelector('#turn-count:not([hidden]):has-text("1")');
    for (const [i, p] of ps.entries()) {
      if (i !== seat) await p.waitForSelector('#turn-count[hidden]', { state: 'attached' });
    }
    assert.ok(await ps[seat].isHidden('#cond'));
    // Increment mode: the seat to move has its bank of 1 day as deadline.
    assert.match(await ps[seat].textContent(`.deadline[data-seat="${seat}"]`), /^(1 day|23 h( \d+ min)?) left$/);
    await playAnyMove(ps[seat]);
    for (const p of ps) await waitMoves(p, seat + 1);
  }
  await ps[0].goto(`${server.url}/#/turn`);
  await ps[0].waitForSelector(`#turn-list tr[data-room="${room}"]`);
  assert.match(await ps[0].textContent(`#turn-list tr[data-room="${room}"]`), /Yalta/);
  assert.match(await ps[0].textContent(`#turn-list tr[data-room="${room}"] td.opponents`), /^vs (frank, grace|grace, frank)$/);
  await ps[0].setViewportSize({ width: 390, height: 844 });
  await ps[0].screenshot({ path: path.join(OUT, 'corr-your-turn-yalta-390.png') });
  await ps[0].screenshot({ path: path.join(OUT, 'corr-your-turn-yalta.png') });
  for (const p of ps) { await p.context().close(); contexts.delete(p.context()); }
  assert.deepEqual(pageErrors, []);
});
