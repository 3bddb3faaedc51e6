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
import { startServer, connect, firstMover, startGame } from './lib.mjs';

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

async function call(srv, method, path, body, cookie) {
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (cookie) headers.Cookie = cookie;
    const r = await fetch(srv.http + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: r.status, json, text, cookie: (r.headers.get('set-cookie') || '').split(';')[0] };
}

let seq = 0;
async function account(srv, prefix = 'm') {
    const name = `${prefix}${process.pid % 10000}_${seq++}`;
    const r = await call(srv, 'POST', '/api/register', { username: name, password: 'correct horse' });
    assert.equal(r.status, 200, r.text);
    return { name, cookie: r.cookie, address: `${name.toLowerCase()}@example.org` };
}

const link = (mail, kind) => {
    const m = mail.body.match(new RegExp(`${PUBLIC.replace(/\./g, '\\.')}/#/${kind}/([0-9a-f]{64})`));
    assert.ok(m, `a ${kind} link in: ${mail.body}`);
    return m[1];
};

// Give acct a confirmed address (the whole flow); returns its mail.
async function confirmAddress(srv, sink, acct) {
    const r = await call(srv, 'POST', '/api/mail/address', { address: acct.address }, acct.cookie);
    assert.equal(r.status, 200, r.text);
    const [mail] = await sink.waitFor((m) => m.to === acct.address && m.headers.subject.startsWith('Confirm'));
    const c = await call(srv, 'POST', '/api/mail/confirm', { token: link(mail, 'confirm') });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.address, acct.address);
    return mail;
}

test('without --smtp-url the server runs and says that mail is off', async () => {
    const srv = await startServer();
    try {
        assert.match(srv.stderr(), /mail is off/);
        const a = await account(srv);
        const r = await call(srv, 'POST', '/api/mail/address', { address: a.address }, a.cookie);
        assert.equal(r.status, 503);
        assert.equal(r.json.error, 'mail_off');
        const s = await call(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.equal(s.json.on, false);
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('an address is confirmed by its link before it is used, and never shown to others', async () => {
    const sink = await smtpSink();
    const srv = await mailServer(sink);
    try {
        const a = await account(srv), other = await account(srv);
        assert.equal((await call(srv, 'GET', '/api/mail')).status, 401);
        let s = await call(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.deepEqual(s.json, { on: true, address: null, move: false, digest: true, low_time: true, start_end: true, remind_days: 0 });
        // Bad input: a clear error, nothing sent.
        const bad = await call(srv, 'POST', '/api/mail/address', { address: 'not an address' }, a.cookie);
        assert.equal(bad.status, 400);
        assert.equal(bad.json.error, 'bad_address');
        const inj = await call(srv, 'POST', '/api/mail/address', { address: 'x@example.org\r\nBcc: y@example.org' }, a.cookie);
        assert.equal(inj.status, 400);
        assert.equal((await call(srv, 'POST', '/api/mail/address', { address: a.address })).status, 401);

        const r = await call(srv, 'POST', '/api/mail/address', { address: a.address }, a.cookie);
        assert.equal(r.status, 200, r.text);
        const [mail] = await sink.waitFor((m) => m.to === a.address);
        // Not the account's address until the link is used.
        s = await call(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.equal(s.json.address, null);
        assert.match(mail.headers.subject, /Confirm your e-mail address/);
        assert.equal(mail.headers.from, 'chameleon <chameleon@example.org>');
        assert.match(mail.headers['content-type'], /text\/plain; charset=UTF-8/);
        assert.match(mail.headers['list-unsubscribe'], new RegExp(`^<${PUBLIC}/api/mail/unsubscribe/[0-9a-f]{32}>$`));
        assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');
        const token = link(mail, 'confirm');
        assert.equal((await call(srv, 'POST', '/api/mail/confirm', { token: '0'.repeat(64) })).json.error, 'bad_token');
        const c = await call(srv, 'POST', '/api/mail/confirm', { token });
        assert.equal(c.status, 200, c.text);
        s = await call(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.equal(s.json.address, a.address);
        // Single use.
        assert.equal((await call(srv, 'POST', '/api/mail/confirm', { token })).json.error, 'bad_token');
        // Other players never see it: not on the profile, not to another account.
        const prof = await call(srv, 'GET', `/api/profile/${a.name}`);
        assert.equal(prof.status, 200);
        assert.ok(!prof.text.includes('@'), prof.text);
        assert.equal((await call(srv, 'GET', '/api/mail', undefined, other.cookie)).json.address, null);
        const m = await (await fetch(srv.http + '/metrics')).text();
        assert.match(m, /chameleon_mail_sent_total [1-9]/);
        assert.match(m, /chameleon_mail_outbox 0/);
    } finally {
        await stopServer(srv);
        await sink.cleanup();
    }
});

test('a password reset by e-mail: one link, used once; every session ends; the answer never says who exists', async () => {
    const sink = await smtpSink();
    const srv = await mailServer(sink);
    try {
        const a = await account(srv);
        await confirmAddress(srv, sink, a);
        const second = await call(srv, 'POST', '/api/login', { username: a.name, password: 'correct horse' });
        assert.equal(second.status, 200);
        const ws = await connect(srv.url, {}, { Cookie: a.cookie });
        assert.equal(ws.welcome.account, a.name);
        ws.close();

        const unknown = await call(srv, 'POST', '/api/password/forgot', { login: 'nobody_here' });
        const known = await call(srv, 'POST', '/api/password/forgot', { login: a.name });
        const byAddress = await call(srv, 'POST', '/api/password/forgot', { login: 'nobody@example.org' });
        assert.equal(unknown.status, 200);
        assert.equal(known.status, 200);
        assert.equal(byAddress.status, 200);
        assert.equal(unknown.text, known.text);
        assert.equal(byAddress.text, known.text);
        const [mail] = await sink.waitFor((m) => m.to === a.address && m.headers.subject.startsWith('Reset'));
        const token = link(mail, 'reset');

        // A bad password loses nothing: the link still works after it.
        const short = await call(srv, 'POST', '/api/password/reset', { token, password: 'short' });
        assert.equal(short.status, 400);
        assert.equal(short.json.error, 'bad_password');
        const ok = await call(srv, 'POST', '/api/password/reset', { token, password: 'a new password' });
        assert.equal(ok.status, 200, ok.text);
        assert.equal((await call(srv, 'POST', '/api/password/reset', { token, password: 'another one!' })).json.error, 'bad_token');

        // Every session ended: both cookies are refused, on HTTP and WebSocket.
        assert.equal((await call(srv, 'GET', '/api/mail', undefined, a.cookie)).status, 401);
        assert.equal((await call(srv, 'GET', '/api/mail', undefined, second.cookie)).status, 401);
        const again = await connect(srv.url, {}, { Cookie: a.cookie });
        assert.ok(!again.welcome.account, JSON.stringify(again.welcome));
        again.close();
        assert.equal((await call(srv, 'POST', '/api/login', { username: a.name, password: 'correct horse' })).status, 401);
        assert.equal((await call(srv, 'POST', '/api/login', { username: a.name, password: 'a new password' })).status, 200);

        // Throttled per name: past the free requests a 429, for known and unknown names alike.
        let last;
        for (let i = 0; i < 4; i++) last = await call(srv, 'POST', '/api/password/forgot', { login: 'ghost_name' });
        assert.equal(last.status, 429);
        assert.ok(Number(last.status) && last.json.error === 'too_many_attempts');
    } finally {
        await stopServer(srv);
        await sink.cleanup();
    }
});
