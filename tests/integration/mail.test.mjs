// E-mail (PROTOCOL.md, "E-mail"): the server sends through a real SMTP
// server on loopback (smtp_sink.py, Debian's python3-aiosmtpd), which writes
// every message it accepts to a folder; the tests read the mails from there.
// Time: --clock-offset-file moves the store's clock (deadlines, the outbox's
// back-off) without waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, connect, firstMover, startGame, api, account as newAccount } from './lib.mjs';

const SINK = new URL('./smtp_sink.py', import.meta.url).pathname;
const PUBLIC = 'http://chameleon.test';
const DAY = 86400000;

function freePort() {
    return new Promise((ok, fail) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
        s.on('error', fail);
    });
}

// The SMTP server: start() (again after stop(), on the same port), mails().
async function smtpSink() {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-mail-'));
    const port = await freePort();
    const sink = { dir, port, proc: null };
    sink.start = async () => {
        const proc = spawn('/usr/bin/python3', [SINK, String(port), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        proc.stderr.on('data', (d) => { err += d; });
        await new Promise((ok, fail) => {
            const t = setTimeout(() => fail(new Error('smtp sink did not start: ' + err)), 15000);
            proc.stdout.on('data', (d) => { if (String(d).includes('ready')) { clearTimeout(t); ok(); } });
            proc.on('exit', (code) => { clearTimeout(t); fail(new Error(`smtp sink exited ${code}: ${err}`)); });
        });
        sink.proc = proc;
    };
    sink.stop = async () => {
        if (!sink.proc) return;
        const p = sink.proc;
        sink.proc = null;
        const gone = new Promise((ok) => p.once('exit', ok));
        p.kill('SIGTERM');
        await gone;
    };
    // Every message received so far, oldest first: { to, headers, body, raw }.
    sink.mails = () => readdirSync(dir).filter((f) => f.endsWith('.eml')).sort((a, b) => {
        const [x, y] = [a.split('-')[0], b.split('-')[0]];
        return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
    }).map((f) => parseMail(readFileSync(join(dir, f), 'utf8')));
    // Wait for the mails matching pred to be n (or more); returns them.
    sink.waitFor = async (pred, n = 1, ms = 30000) => {
        const end = Date.now() + ms;
        for (;;) {
            const got = sink.mails().filter(pred);
            if (got.length >= n) return got;
            if (Date.now() > end) throw new Error(`waited for ${n} mail(s), got ${got.length}: ${JSON.stringify(sink.mails().map((m) => [m.to, m.headers.subject]))}`);
            await new Promise((r) => setTimeout(r, 100));
        }
    };
    sink.cleanup = async () => { await sink.stop(); rmSync(dir, { recursive: true, force: true }); };
    await sink.start();
    return sink;
}

function parseMail(raw) {
    const at = raw.indexOf('\r\n\r\n');
    const headers = {};
    for (const line of raw.slice(0, at).split('\r\n')) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return { to: headers['x-envelope-to'], headers, body: raw.slice(at + 4), raw };
}

// A server sending through sink, with its own test clock.
async function mailServer(sink, extra = [], opts = {}) {
    const clockDir = opts.clockDir || mkdtempSync(join(tmpdir(), 'chameleon-clock-'));
    const clock = join(clockDir, 'offset');
    if (!opts.clockDir) writeFileSync(clock, '0\n');
    const srv = await startServer(['--smtp-url', `smtp://127.0.0.1:${sink.port}`,
        '--mail-from', 'chameleon@example.org', '--public-url', PUBLIC,
        '--clock-offset-file', clock, ...extra], opts);
    srv.clockDir = clockDir;
    srv.offset = opts.offset || 0;
    srv.advance = (ms) => { srv.offset += ms; writeFileSync(clock, `${srv.offset}\n`); };
    return srv;
}

async function stopServer(srv, keep = false) {
    const st = await srv.stop(keep);
    if (!keep) rmSync(srv.clockDir, { recursive: true, force: true });
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
}

// A test's body with a sink and a server sending through it (mailServer),
// both stopped after it, whatever happened.
async function withMailServer(body) {
    const sink = await smtpSink();
    const srv = await mailServer(sink);
    try {
        await body(sink, srv);
    } finally {
        await stopServer(srv);
        await sink.cleanup();
    }
}

// An account with the address it will ask for.
async function account(srv, prefix = 'm') {
    const a = await newAccount(srv, prefix);
    return { ...a, address: `${a.name.toLowerCase()}@example.org` };
}

const link = (mail, kind) => {
    const m = mail.body.match(new RegExp(`${PUBLIC.replace(/\./g, '\\.')}/#/${kind}/([0-9a-f]{64})`));
    assert.ok(m, `a ${kind} link in: ${mail.body}`);
    return m[1];
};

// Give acct a confirmed address (the whole flow); returns its mail.
async function confirmAddress(srv, sink, acct) {
    const r = await api(srv, 'POST', '/api/mail/address', { address: acct.address }, acct.cookie);
    assert.equal(r.status, 200, r.text);
    const [mail] = await sink.waitFor((m) => m.to === acct.address && m.headers.subject.startsWith('Confirm'));
    const c = await api(srv, 'POST', '/api/mail/confirm', { token: link(mail, 'confirm') });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.address, acct.address);
    return mail;
}

test('without --smtp-url the server runs and says that mail is off', async () => {
    const srv = await startServer();
    try {
        assert.match(srv.stderr(), /mail is off/);
        const a = await account(srv);
        const r = await api(srv, 'POST', '/api/mail/address', { address: a.address }, a.cookie);
        assert.equal(r.status, 503);
        assert.equal(r.json.error, 'mail_off');
        const s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.equal(s.json.on, false);
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('an address is confirmed by its link before it is used, and never shown to others', () => withMailServer(async (sink, srv) => {
    const a = await account(srv), other = await account(srv);
    assert.equal((await api(srv, 'GET', '/api/mail')).status, 401);
    let s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
    assert.deepEqual(s.json, { on: true, address: null, move: false, digest: true, low_time: true, start_end: true, remind_days: 0 });
    // Bad input: a clear error, nothing sent.
    const bad = await api(srv, 'POST', '/api/mail/address', { address: 'not an address' }, a.cookie);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'bad_address');
    const inj = await api(srv, 'POST', '/api/mail/address', { address: 'x@example.org\r\nBcc: y@example.org' }, a.cookie);
    assert.equal(inj.status, 400);
    assert.equal((await api(srv, 'POST', '/api/mail/address', { address: a.address })).status, 401);

    const r = await api(srv, 'POST', '/api/mail/address', { address: a.address }, a.cookie);
    assert.equal(r.status, 200, r.text);
    const [mail] = await sink.waitFor((m) => m.to === a.address);
    // Not the account's address until the link is used.
    s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
    assert.equal(s.json.address, null);
    assert.match(mail.headers.subject, /Confirm your e-mail address/);
    assert.equal(mail.headers.from, 'chameleon <chameleon@example.org>');
    assert.match(mail.headers['content-type'], /text\/plain; charset=UTF-8/);
    assert.match(mail.headers['list-unsubscribe'], new RegExp(`^<${PUBLIC}/api/mail/unsubscribe/[0-9a-f]{32}>$`));
    assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');
    const token = link(mail, 'confirm');
    assert.equal((await api(srv, 'POST', '/api/mail/confirm', { token: '0'.repeat(64) })).json.error, 'bad_token');
    const c = await api(srv, 'POST', '/api/mail/confirm', { token });
    assert.equal(c.status, 200, c.text);
    s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
    assert.equal(s.json.address, a.address);
    // Single use.
    assert.equal((await api(srv, 'POST', '/api/mail/confirm', { token })).json.error, 'bad_token');
    // Other players never see it: not on the profile, not to another account.
    const prof = await api(srv, 'GET', `/api/profile/${a.name}`);
    assert.equal(prof.status, 200);
    assert.ok(!prof.text.includes('@'), prof.text);
    assert.equal((await api(srv, 'GET', '/api/mail', undefined, other.cookie)).json.address, null);
    const m = await (await fetch(srv.http + '/metrics')).text();
    assert.match(m, /chameleon_mail_sent_total [1-9]/);
    assert.match(m, /chameleon_mail_outbox 0/);
}));

test('an address deleted: gone from the account, its pending links dead, nothing more sent to it; the choices kept', () => withMailServer(async (sink, srv) => {
    const a = await account(srv);
    assert.equal((await api(srv, 'POST', '/api/mail/address/delete', {})).status, 401);
    await confirmAddress(srv, sink, a);
    await api(srv, 'POST', '/api/mail/prefs', { move: true, remind_days: 3 }, a.cookie);
    // A reset link asked for before the deletion, and a second address
    // waiting for its confirmation.
    await api(srv, 'POST', '/api/password/forgot', { login: a.name });
    const [reset] = await sink.waitFor((m) => m.to === a.address && m.headers.subject.startsWith('Reset'));
    const later = `later_${a.address}`;
    await api(srv, 'POST', '/api/mail/address', { address: later }, a.cookie);
    const [confirm] = await sink.waitFor((m) => m.to === later);

    const del = await api(srv, 'POST', '/api/mail/address/delete', {}, a.cookie);
    assert.deepEqual(del.json, { ok: true });
    const s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
    assert.equal(s.json.address, null);
    assert.equal(s.json.move, true, 'the choices stay for a new address');
    assert.equal(s.json.remind_days, 3);
    assert.equal((await api(srv, 'POST', '/api/password/reset', { token: link(reset, 'reset'), password: 'a new password' })).json.error, 'bad_token');
    assert.equal((await api(srv, 'POST', '/api/mail/confirm', { token: link(confirm, 'confirm') })).json.error, 'bad_token');
    // A reset asked for by the old address finds no one now.
    const resets = () => sink.mails().filter((m) => m.to === a.address && m.headers.subject.startsWith('Reset')).length;
    assert.equal(resets(), 1);
    await api(srv, 'POST', '/api/password/forgot', { login: a.address });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(resets(), 1);
    // Deleting again is harmless.
    assert.deepEqual((await api(srv, 'POST', '/api/mail/address/delete', {}, a.cookie)).json, { ok: true });
}));

test('a password reset by e-mail: one link, used once; every session ends; the answer never says who exists', () => withMailServer(async (sink, srv) => {
    const a = await account(srv);
    await confirmAddress(srv, sink, a);
    const second = await api(srv, 'POST', '/api/login', { username: a.name, password: 'correct horse' });
    assert.equal(second.status, 200);
    const ws = await connect(srv.url, {}, { Cookie: a.cookie });
    assert.equal(ws.welcome.account, a.name);

    const unknown = await api(srv, 'POST', '/api/password/forgot', { login: 'nobody_here' });
    const known = await api(srv, 'POST', '/api/password/forgot', { login: a.name });
    const byAddress = await api(srv, 'POST', '/api/password/forgot', { login: 'nobody@example.org' });
    assert.equal(unknown.status, 200);
    assert.equal(known.status, 200);
    assert.equal(byAddress.status, 200);
    assert.equal(unknown.text, known.text);
    assert.equal(byAddress.text, known.text);
    const [mail] = await sink.waitFor((m) => m.to === a.address && m.headers.subject.startsWith('Reset'));
    const token = link(mail, 'reset');

    // A bad password loses nothing: the link still works after it.
    const short = await api(srv, 'POST', '/api/password/reset', { token, password: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.json.error, 'bad_password');
    const ok = await api(srv, 'POST', '/api/password/reset', { token, password: 'a new password' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await api(srv, 'POST', '/api/password/reset', { token, password: 'another one!' })).json.error, 'bad_token');

    // The open WebSocket is closed; every session ended: both cookies
    // are refused, on HTTP and WebSocket.
    const closed = await ws.closed_();
    assert.match(closed.reason, /password changed/);
    assert.equal((await api(srv, 'GET', '/api/mail', undefined, a.cookie)).status, 401);
    assert.equal((await api(srv, 'GET', '/api/mail', undefined, second.cookie)).status, 401);
    const again = await connect(srv.url, {}, { Cookie: a.cookie });
    assert.ok(!again.welcome.account, JSON.stringify(again.welcome));
    again.close();
    assert.equal((await api(srv, 'POST', '/api/login', { username: a.name, password: 'correct horse' })).status, 401);
    assert.equal((await api(srv, 'POST', '/api/login', { username: a.name, password: 'a new password' })).status, 200);

    // Throttled per name: past the free requests a 429, for known and unknown names alike.
    let last;
    for (let i = 0; i < 4; i++) last = await api(srv, 'POST', '/api/password/forgot', { login: 'ghost_name' });
    assert.equal(last.status, 429);
    assert.ok(Number(last.status) && last.json.error === 'too_many_attempts');
}));

// Two accounts with confirmed addresses, connected; a correspondence game
// of `days` per move between them. Returns { A, B, a, b, room, mover, other,
// moverAcct, otherAcct, st } (st: the room state the mover received).
async function corrGame(srv, sink, days) {
    const A = await account(srv), B = await account(srv);
    await confirmAddress(srv, sink, A);
    await confirmAddress(srv, sink, B);
    const a = await connect(srv.url, {}, { Cookie: A.cookie });
    const b = await connect(srv.url, {}, { Cookie: B.cookie });
    const g2 = a.welcome.games.find((g) => g.players === 2);
    const { room, states } = await startGame([a, b], g2.id, { corr: { days } });
    const { mover, other, st } = firstMover([a, b], states);
    const moverAcct = mover === a ? A : B, otherAcct = mover === a ? B : A;
    return { A, B, a, b, room, mover, other, moverAcct, otherAcct, st };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function metric(srv, name) {
    const text = await (await fetch(srv.http + '/metrics')).text();
    const m = text.match(new RegExp(`^chameleon_${name} (\\d+)$`, 'm'));
    return m ? Number(m[1]) : NaN;
}

async function waitMetric(srv, name, pred, ms = 30000) {
    const end = Date.now() + ms;
    for (;;) {
        const v = await metric(srv, name);
        if (pred(v)) return v;
        if (Date.now() > end) throw new Error(`metric ${name} stayed at ${v}`);
        await sleep(200);
    }
}

test('the daily digest lists the games where it is your move, once a day', () => withMailServer(async (sink, srv) => {
    const { room, moverAcct, otherAcct, a, b } = await corrGame(srv, sink, 14);
    // The next day, 07:00:30 UTC on the store's clock (digests go from 07:00).
    const target = (Math.floor(Date.now() / DAY) + 1) * DAY + 7 * 3600000 + 30000;
    srv.advance(target - Date.now());
    const isDigest = (m) => /^Your move in \d+ game/.test(m.headers.subject);
    const [d] = await sink.waitFor((m) => m.to === moverAcct.address && isDigest(m));
    assert.equal(d.headers.subject, 'Your move in 1 game');
    assert.ok(d.body.includes(`${PUBLIC}/#/game/${room}`), d.body);
    assert.ok(d.body.includes(`${PUBLIC}/#/turn`), d.body);
    assert.ok(d.headers['list-unsubscribe'], 'a digest has List-Unsubscribe');
    // Everything queued is out; the player not to move got none.
    await waitMetric(srv, 'mail_outbox', (v) => v === 0);
    assert.equal(sink.mails().filter((m) => m.to === otherAcct.address && isDigest(m)).length, 0);
    // Once a day: an hour later, after more scans, still one.
    srv.advance(3600000);
    await sleep(5000);
    await waitMetric(srv, 'mail_outbox', (v) => v === 0);
    assert.equal(sink.mails().filter(isDigest).length, 1);
    a.close(); b.close();
}));

test('"your move" when asked for, and the low-time alarm at 80% of the time for the move unless on the site', () => withMailServer(async (sink, srv) => {
    const { room, mover, other, moverAcct, otherAcct, st } = await corrGame(srv, sink, 1);
    for (const acct of [moverAcct, otherAcct]) {
        const p = await api(srv, 'POST', '/api/mail/prefs', { move: true }, acct.cookie);
        assert.equal(p.status, 200, p.text);
        assert.equal(p.json.move, true);
    }
    const bad = await api(srv, 'POST', '/api/mail/prefs', { remind_days: 99 }, moverAcct.cookie);
    assert.equal(bad.status, 400);
    const isAlarm = (m) => m.headers.subject.startsWith('Time is running out');
    // 85% of the mover's day, while the mover is connected: no alarm.
    srv.advance(0.85 * DAY);
    await sleep(5000);
    assert.equal(sink.mails().filter(isAlarm).length, 0);

    // The other player leaves the site; the mover moves: "your move" to it.
    other.close();
    await sleep(300);
    mover.send({ type: 'move', room, move: st.legal[0] });
    await mover.event(room, 'move');
    const [ym] = await sink.waitFor((m) => m.to === otherAcct.address && m.headers.subject.startsWith('Your move in'));
    assert.ok(ym.body.includes(`${PUBLIC}/#/game/${room}`), ym.body);
    assert.ok(ym.body.includes(moverAcct.name), ym.body);

    // 85% of its day later, away from the site: the alarm, once.
    srv.advance(0.85 * DAY);
    const [alarm] = await sink.waitFor((m) => m.to === otherAcct.address && isAlarm(m));
    assert.ok(alarm.body.includes(`${PUBLIC}/#/game/${room}`), alarm.body);
    assert.match(alarm.body, /80%/);
    await sleep(5000);
    await waitMetric(srv, 'mail_outbox', (v) => v === 0);
    assert.equal(sink.mails().filter(isAlarm).length, 1);
    mover.close();
}));

test('one-click unsubscribe (RFC 8058): a POST from anywhere, without a log-in, turns every notice off', () => withMailServer(async (sink, srv) => {
    const a = await account(srv);
    const mail = await confirmAddress(srv, sink, a);
    const url = mail.headers['list-unsubscribe'].slice(1, -1);
    const path = url.slice(PUBLIC.length);
    assert.match(path, /^\/api\/mail\/unsubscribe\/[0-9a-f]{32}$/);
    assert.ok(mail.body.includes(url), 'the body has the same link');
    // Opening the link changes nothing: it shows the button.
    const page = await fetch(srv.http + path);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post"/);
    assert.equal((await api(srv, 'GET', '/api/mail', undefined, a.cookie)).json.digest, true);
    // A foreign origin's form POST elsewhere is still refused...
    const foreign = await fetch(srv.http + '/api/mail/prefs', {
        method: 'POST', body: 'digest=false',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://mail.example.com' },
    });
    assert.equal(foreign.status, 403);
    // ...but the mail provider's one-click POST works.
    const r = await fetch(srv.http + path, {
        method: 'POST', body: 'List-Unsubscribe=One-Click',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://mail.example.com' },
    });
    assert.equal(r.status, 200);
    const s = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
    assert.deepEqual(s.json, { on: true, address: a.address, move: false, digest: false, low_time: false, start_end: false, remind_days: 0 });
    const unknown = await fetch(srv.http + '/api/mail/unsubscribe/' + '0'.repeat(32), { method: 'POST', body: 'List-Unsubscribe=One-Click' });
    assert.equal(unknown.status, 404);
}));

test('the relay down while mail is queued, the server restarted, the relay back: every mail arrives once', async () => {
    const sink = await smtpSink();
    let srv = await mailServer(sink);
    try {
        const accts = [await account(srv), await account(srv), await account(srv)];
        await sink.stop();
        for (const a of accts) {
            const r = await api(srv, 'POST', '/api/mail/address', { address: a.address }, a.cookie);
            assert.equal(r.status, 200, r.text);
        }
        // Each was tried and failed, and waits for its next try.
        await waitMetric(srv, 'mail_retries_total', (v) => v >= 3);
        assert.equal(await metric(srv, 'mail_sent_total'), 0);
        await waitMetric(srv, 'mail_outbox', (v) => v === 3);
        // A restart loses none of them.
        await stopServer(srv, true);
        srv = await mailServer(sink, [], { dir: srv.dir, clockDir: srv.clockDir, offset: srv.offset });
        await waitMetric(srv, 'mail_outbox', (v) => v === 3);
        await sink.start();
        srv.advance(3600000); // past the back-off
        const got = await sink.waitFor(() => true, 3);
        await waitMetric(srv, 'mail_outbox', (v) => v === 0);
        assert.equal(await metric(srv, 'mail_sent_total'), 3);
        await sleep(3000); // a few more polls: nothing goes twice
        const all = sink.mails();
        assert.equal(all.length, 3, JSON.stringify(all.map((m) => m.to)));
        assert.deepEqual(all.map((m) => m.to).sort(), accts.map((a) => a.address).sort());
        assert.equal(new Set(all.map((m) => m.headers['message-id'])).size, 3);
        // And they work.
        const c = await api(srv, 'POST', '/api/mail/confirm', { token: link(got[0], 'confirm') });
        assert.equal(c.status, 200, c.text);
    } finally {
        await stopServer(srv);
        await sink.cleanup();
    }
});

test('game end and a reminder after N days of silence, to the player away; nothing to players on the site', () => withMailServer(async (sink, srv) => {
    const A = await account(srv), B = await account(srv);
    await confirmAddress(srv, sink, A);
    await confirmAddress(srv, sink, B);
    const a = await connect(srv.url, {}, { Cookie: A.cookie });
    const b = await connect(srv.url, {}, { Cookie: B.cookie });
    const g2 = a.welcome.games.find((g) => g.players === 2);
    // A seek lives while its creator is connected: both are on the site
    // when the game starts, so neither gets a "has started" mail.
    await a.request({ type: 'turns' }); // pushes once the game is durable
    await b.request({ type: 'turns' });
    const { room, states } = await startGame([a, b], g2.id, { corr: { days: 14 } });
    const st = states[1];
    await firstMover([a, b], states).mover.waitFor((m) => m.type === 'turns' && m.re === undefined, 'turns push');
    // The player to move is away; the other is here.
    const bMoves = st.to_move === st.you;
    (bMoves ? b : a).close();
    await sleep(300);
    const [away, here] = bMoves ? [B, a] : [A, b];
    const p = await api(srv, 'POST', '/api/mail/prefs', { remind_days: 2 }, away.cookie);
    assert.equal(p.json.remind_days, 2);
    const isRemind = (m) => /waiting for your move/.test(m.headers.subject);
    srv.advance(DAY + 60000);
    await sleep(5000);
    assert.equal(sink.mails().filter(isRemind).length, 0, 'not after one day of two');
    assert.deepEqual(sink.mails().filter((m) => /has started/.test(m.headers.subject)).map((m) => [m.to, m.body]), []);
    srv.advance(DAY);
    const [rm] = await sink.waitFor((m) => m.to === away.address && isRemind(m));
    assert.ok(rm.body.includes(`${PUBLIC}/#/game/${room}`), rm.body);
    srv.advance(DAY);
    await sleep(5000);
    assert.equal(sink.mails().filter(isRemind).length, 1, 'once per silence');

    // The one here resigns: the one away hears of the end.
    here.send({ type: 'resign', room });
    const [end] = await sink.waitFor((m) => m.to === away.address && /is over/.test(m.headers.subject));
    assert.match(end.headers.subject, /you won/);
    assert.ok(end.body.includes(`${PUBLIC}/#/game/${room}`), end.body);
    here.close();
}));

test('a tournament\'s start: one mail to each entrant away, with its link; no mail per game', () => withMailServer(async (sink, srv) => {
    const accts = [await account(srv, 't'), await account(srv, 't'), await account(srv, 't')];
    for (const a of accts) await confirmAddress(srv, sink, a);
    const mk = await api(srv, 'POST', '/api/tournaments', { name: 'Postal Cup', game: 'ultima', size: 3, corr: { days: 3 } }, accts[0].cookie);
    assert.equal(mk.status, 200, mk.text);
    const id = mk.json.id;
    let last;
    for (const a of accts) {
        last = await api(srv, 'POST', `/api/tournaments/${id}/join`, {}, a.cookie);
        assert.equal(last.status, 200, last.text);
    }
    assert.equal(last.json.state, 'running', 'full: every game starts');
    const isStart = (m) => /has started/.test(m.headers.subject);
    const mails = await sink.waitFor((m) => isStart(m), 3);
    await sleep(1000); // nothing more comes
    const starts = sink.mails().filter(isStart);
    assert.deepEqual(starts.map((m) => m.to).sort(), accts.map((a) => a.address).sort(), 'one each');
    for (const m of mails) {
        assert.equal(m.headers.subject, 'The tournament Postal Cup has started');
        assert.ok(m.body.includes(`${PUBLIC}/#/tournament/${id}`), m.body);
        assert.match(m.body, /your 2 games/);
    }
}));
