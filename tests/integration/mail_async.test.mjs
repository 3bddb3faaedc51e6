// E-mail's routes answer after queued calls of the store, one callback per
// step (api_mail.c): a request whose connection closes between its steps is
// dropped without harm (the sanitizer build exits clean), but a link taken
// is used to the end; requests in flight at once still count against their
// limits. The relay is a closed port, or smtp_sink.py (as in mail.test.mjs)
// where a link must arrive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcp, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, api, account as newAccount } from './lib.mjs';

const SINK = new URL('./smtp_sink.py', import.meta.url).pathname;

function freePort() {
    return new Promise((ok, fail) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
        s.on('error', fail);
    });
}

async function mailServer(relay) {
    return startServer(['--smtp-url', `smtp://127.0.0.1:${relay || await freePort()}`,
        '--mail-from', 'chameleon@example.org', '--public-url', 'http://chameleon.test']);
}

// smtp_sink.py on a free port: { port, link(to, kind), stop() }; link waits
// for a mail to `to` and gives the token of its link of that kind.
async function smtpSink() {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-mail-'));
    const port = await freePort();
    const proc = spawn('/usr/bin/python3', [SINK, String(port), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((ok, fail) => {
        const t = setTimeout(() => fail(new Error('smtp sink did not start')), 15000);
        proc.stdout.on('data', (d) => { if (String(d).includes('ready')) { clearTimeout(t); ok(); } });
        proc.on('exit', (code) => { clearTimeout(t); fail(new Error(`smtp sink exited ${code}`)); });
    });
    const link = async (to, kind) => {
        const re = new RegExp(`/#/${kind}/([0-9a-f]{64})`);
        for (const end = Date.now() + 30000; Date.now() < end; await sleep(100)) {
            for (const f of readdirSync(dir).filter((x) => x.endsWith('.eml'))) {
                const raw = readFileSync(join(dir, f), 'utf8');
                const m = raw.match(re);
                if (raw.startsWith(`X-Envelope-To: ${to}\r\n`) && m) return m[1];
            }
        }
        throw new Error(`no ${kind} link to ${to}`);
    };
    const stop = async () => {
        const gone = new Promise((ok) => proc.once('exit', ok));
        proc.kill('SIGTERM');
        await gone;
        rmSync(dir, { recursive: true, force: true });
    };
    return { port, link, stop };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const account = (srv) => newAccount(srv, 'ma');

// Send one whole request on a socket of its own and close it at once,
// without reading the answer.
function sendAndHangUp(srv, method, path, body, cookie) {
    return new Promise((ok) => {
        const s = tcp(srv.port, '127.0.0.1');
        const data = body === undefined ? '' : JSON.stringify(body);
        s.on('connect', () => {
            s.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
                (cookie ? `Cookie: ${cookie}\r\n` : '') +
                (body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(data)}\r\n`) +
                `\r\n${data}`, () => s.destroy());
        });
        s.on('error', () => { /* reset by the server: fine */ });
        s.on('close', ok);
    });
}

const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');

test('e-mail requests whose connection closes while the store answers them are dropped; the server goes on and exits clean', async () => {
    const srv = await mailServer();
    try {
        const a = await account(srv);
        const requests = [
            ['GET', '/api/mail', undefined, a.cookie],
            ['POST', '/api/mail/prefs', { move: true, remind_days: 2 }, a.cookie],
            ['POST', '/api/mail/address', { address: `${a.name}@example.org` }, a.cookie],
            ['POST', '/api/mail/confirm', { token: hex(64) }],
            ['POST', `/api/mail/unsubscribe/${hex(32)}`, {}],
            ['POST', '/api/password/reset', { token: hex(64), password: 'a new password' }],
        ];
        for (let round = 0; round < 5; round++) {
            const all = [];
            for (let k = 0; k < 8; k++)
                for (const [method, path, body, cookie] of requests)
                    all.push(sendAndHangUp(srv, method, path, body, cookie));
            await Promise.all(all);
        }
        // Whatever was cut short, the account reads and writes as before.
        const prefs = await api(srv, 'POST', '/api/mail/prefs', { digest: false, remind_days: 3 }, a.cookie);
        assert.equal(prefs.status, 200, prefs.text);
        assert.equal(prefs.json.digest, false);
        assert.equal(prefs.json.remind_days, 3);
        const got = await api(srv, 'GET', '/api/mail', undefined, a.cookie);
        assert.equal(got.status, 200, got.text);
        assert.deepEqual(got.json, prefs.json);
        const reset = await api(srv, 'POST', '/api/password/reset', { token: hex(64), password: 'a new password' });
        assert.equal(reset.status, 400);
        assert.equal(reset.json.error, 'bad_token');
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    }
});

test('confirmation mails asked for at once count against the account\'s limit while they are in flight', async () => {
    const srv = await mailServer();
    try {
        const b = await account(srv);
        const answers = await Promise.all(Array.from({ length: 8 }, () =>
            api(srv, 'POST', '/api/mail/address', { address: `${b.name}@example.org` }, b.cookie)));
        const codes = answers.map((r) => r.status).sort();
        assert.deepEqual(codes, [200, 200, 200, 200, 200, 429, 429, 429], JSON.stringify(answers.map((r) => r.text)));
        for (const r of answers.filter((x) => x.status === 200))
            assert.deepEqual(r.json, { ok: true, address: `${b.name}@example.org` });
        for (const r of answers.filter((x) => x.status === 429))
            assert.equal(r.json.error, 'too_many_attempts');
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    }
});

test('a confirmation or reset link whose request hangs up is used to the end: the address is confirmed, the password changed', async () => {
    const sink = await smtpSink();
    const srv = await mailServer(sink.port);
    try {
        const d = await account(srv);
        const address = `${d.name.toLowerCase()}@example.org`;
        const asked = await api(srv, 'POST', '/api/mail/address', { address }, d.cookie);
        assert.equal(asked.status, 200, asked.text);
        const confirm = await sink.link(address, 'confirm');
        await sendAndHangUp(srv, 'POST', '/api/mail/confirm', { token: confirm });
        // Taken (then the link is used: 400) or not read at all (then it
        // works now); either way the address ends confirmed.
        let again;
        for (const end = Date.now() + 10000; Date.now() < end; await sleep(100)) {
            again = await api(srv, 'GET', '/api/mail', undefined, d.cookie);
            if (again.json && again.json.address === address) break;
        }
        const twice = await api(srv, 'POST', '/api/mail/confirm', { token: confirm });
        assert.ok(twice.status === 400 || twice.status === 200, twice.text);
        const settings = await api(srv, 'GET', '/api/mail', undefined, d.cookie);
        assert.equal(settings.json.address, address, settings.text);

        const forgot = await api(srv, 'POST', '/api/password/forgot', { login: d.name });
        assert.equal(forgot.status, 200, forgot.text);
        const reset = await sink.link(address, 'reset');
        await sendAndHangUp(srv, 'POST', '/api/password/reset', { token: reset, password: 'a new password' });
        for (const end = Date.now() + 10000; Date.now() < end; await sleep(100))
            if ((await api(srv, 'GET', '/api/mail', undefined, d.cookie)).status === 401) break;
        const used = await api(srv, 'POST', '/api/password/reset', { token: reset, password: 'a new password' });
        assert.ok(used.status === 400 || used.status === 200, used.text);
        assert.equal((await api(srv, 'GET', '/api/mail', undefined, d.cookie)).status, 401);
        const login = await api(srv, 'POST', '/api/login', { username: d.name, password: 'a new password' });
        assert.equal(login.status, 200, login.text);
    } finally {
        const st = await srv.stop();
        await sink.stop();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    }
});
