// Helpers of the integration tests: start the real server on a free loopback
// port with a temporary database, and talk to it with real WebSocket clients.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import WebSocket from 'ws';

const root = resolve(new URL('.', import.meta.url).pathname, '../..');
export const serverBin = process.env.CHAMELEON_BIN ||
    join(root, 'build/debug/chameleon');

// Start the server (port 0: it picks a free port and prints it). Returns
// { url, http, port, pid, proc (the child process), stderr(), stop(), dir }.
// extra: more flags (a later flag wins: `--port N` chooses the port).
// opts.dir: reuse that folder (and its database) instead of a new one.
// opts.prefix: a command and its arguments to run the server under
// (['prlimit', '--nofile=256:256']). opts.bin: the server (default serverBin).
// opts.env: more environment (CHAMELEON_MIGRATIONS: another folder).
// opts.db: the database instead of <dir>/test.db (a postgresql:// URL:
// startPostgres below). CHAMELEON_IT_PG=1 with the PostgreSQL of
// tests/pg/run.sh (CHAMELEON_TEST_PG_DIR): every server without opts.db on a
// database of its folder's name there (a whole suite on PostgreSQL).
export async function startServer(extra = [], opts = {}) {
    const dir = opts.dir || mkdtempSync(join(tmpdir(), 'chameleon-it-'));
    const web = join(dir, 'web');
    mkdirSync(web, { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>t</title>\n');
    writeFileSync(join(web, 'app.js'), 'export const x = 1;\n');
    writeFileSync(join(web, 'style.css'), 'body{}\n');
    writeFileSync(join(web, 'piece.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
    // Tests register many accounts, play whole games as fast as the server
    // answers and open many connections, all from 127.0.0.1: lift the
    // registrations (5 by default), the messages per identity (100 per
    // 20 s), the games in progress and the connections (256) per address.
    // extra may set them again.
    let db = opts.db;
    if (!db && process.env.CHAMELEON_IT_PG && process.env.CHAMELEON_TEST_PG_DIR) {
        const name = 'it_' + basename(dir).replace(/[^A-Za-z0-9]/g, '_').toLowerCase();
        const pg = join(root, 'tests/tools/pg.sh');
        // A folder given again (a restart) keeps its database.
        db = opts.dir
            ? process.env.CHAMELEON_TEST_PG.replace(/\/[^/]*$/, '/' + name)
            : execFileSync('sh', [pg, 'createdb', process.env.CHAMELEON_TEST_PG_DIR, name], { encoding: 'utf8' }).trim();
    }
    const args = ['--host', '127.0.0.1', '--port', '0', '--db', db || join(dir, 'test.db'),
        '--web-root', web, '--register-per-address', '1000000',
        '--messages-per-identity', '1000000',
        '--live-games-per-address', '1000000', '--corr-games-per-address', '1000000',
        '--max-connections-per-address', '1000000', ...extra];
    const env = { ...process.env, CHAMELEON_MIGRATIONS: join(root, 'migrations'), ...(opts.env || {}) };
    const bin = opts.bin || serverBin;
    const [cmd, ...pre] = opts.prefix ? [...opts.prefix, bin] : [bin];
    const proc = spawn(cmd, [...pre, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const port = await new Promise((ok, fail) => {
        let out = '';
        const timer = setTimeout(() => fail(new Error('server did not start: ' + stderr)), 15000);
        proc.stdout.on('data', (d) => {
            out += d;
            const m = out.match(/listening on http:\/\/[^:]+:(\d+)\//);
            if (m) { clearTimeout(timer); ok(Number(m[1])); }
        });
        proc.on('exit', (code) => { clearTimeout(timer); fail(new Error(`server exited ${code}: ${stderr}`)); });
        proc.on('error', (e) => { clearTimeout(timer); fail(new Error(`cannot start ${bin}: ${e.message}`)); });
    });
    const exited = new Promise((ok) => proc.on('exit', (code, sig) => ok({ code, sig })));
    return {
        port,
        pid: proc.pid,
        proc,
        url: `ws://127.0.0.1:${port}/`,
        http: `http://127.0.0.1:${port}`,
        dir,
        stderr: () => stderr,
        // Stop with SIGTERM; resolves to the exit status (0 when clean; the
        // sanitizers make it non-zero on a memory error or leak).
        // keep: leave the folder (and database) for a restart.
        async stop(keep = false) {
            proc.kill('SIGTERM');
            const killer = setTimeout(() => proc.kill('SIGKILL'), 10000);
            const st = await exited;
            clearTimeout(killer);
            if (!keep) rmSync(dir, { recursive: true, force: true });
            return st;
        },
    };
}

// An HTTP request to srv (body, if any, sent as JSON with its Content-Type;
// none without one; cookie as "name=value"): { status, json (the answer
// parsed, whatever its Content-Type; null when it is not JSON), text (the
// answer as it came), cookie (the Set-Cookie's "name=value", or "") }.
export async function api(srv, method, path, body, cookie) {
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (cookie) headers.Cookie = cookie;
    const r = await fetch(srv.http + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON: text has it */ }
    return { status: r.status, json, text, cookie: (r.headers.get('set-cookie') || '').split(';')[0] };
}

// Register the account `name` on srv (it must succeed): its session cookie.
export async function register(srv, name) {
    const r = await api(srv, 'POST', '/api/register', { username: name, password: 'correct horse' });
    if (r.status !== 200) throw new Error(`register ${name}: ${r.status} ${r.text}`);
    return r.cookie;
}

// A new account of a name unique in this process (prefix, then numbers):
// { name, cookie }.
let accountSeq = 0;
export async function account(srv, prefix = 'u') {
    const name = `${prefix}${process.pid % 10000}_${accountSeq++}`;
    return { name, cookie: await register(srv, name) };
}

// A WebSocket client that records every message and waits for ones matching
// a predicate.
export class Client {
    // headers: extra HTTP headers of the upgrade request (Cookie).
    constructor(url, headers = {}) {
        this.url = url;
        this.headers = headers;
        this.inbox = [];
        this.waiters = [];
        this.nextId = 1;
        this.closed = null;
    }
    // The options of the WebSocket (ws's): a subclass adds its own
    // (localAddress, TLS) to these.
    wsOptions() {
        return { headers: this.headers };
    }
    async open() {
        this.ws = new WebSocket(this.url, this.wsOptions());
        this.ws.on('message', (data) => {
            const msg = JSON.parse(data.toString());
            this.inbox.push(msg);
            this.wake();
        });
        this.ws.on('close', (code, reason) => {
            this.closed = { code, reason: reason.toString() };
            this.wake();
        });
        await new Promise((ok, fail) => {
            this.ws.once('open', ok);
            this.ws.once('error', fail);
        });
        return this;
    }
    wake() {
        for (const w of [...this.waiters]) w.check();
    }
    sendRaw(text) { this.ws.send(text); }
    send(obj) { this.ws.send(JSON.stringify(obj)); }
    // Wait for (and remove from the inbox) the first message matching pred.
    waitFor(pred, what = 'a message', ms = 10000) {
        return new Promise((ok, fail) => {
            const w = {
                check: () => {
                    const i = this.inbox.findIndex(pred);
                    if (i >= 0) {
                        const [m] = this.inbox.splice(i, 1);
                        done();
                        ok(m);
                    } else if (this.closed && !w.allowClosed) {
                        done();
                        fail(new Error(`closed (${this.closed.code}) while waiting for ${what}`));
                    }
                },
            };
            const timer = setTimeout(() => {
                done();
                fail(new Error(`timed out waiting for ${what}; inbox: ${JSON.stringify(this.inbox).slice(0, 600)}`));
            }, ms);
            const done = () => {
                clearTimeout(timer);
                this.waiters = this.waiters.filter((x) => x !== w);
            };
            this.waiters.push(w);
            w.check();
        });
    }
    // Send obj with a fresh id and wait for the reply that echoes it.
    async request(obj, ms) {
        const id = this.nextId++;
        this.send({ ...obj, id });
        return this.waitFor((m) => m.re === id, `reply to ${obj.type}`, ms);
    }
    // Expect an error with this code in reply to obj.
    async expectError(obj, code) {
        const m = await this.request(obj);
        if (m.type !== 'error' || m.code !== code)
            throw new Error(`expected error ${code} for ${JSON.stringify(obj)}, got ${JSON.stringify(m)}`);
        if (typeof m.reason !== 'string' || m.reason.length === 0)
            throw new Error(`error ${code} without a reason`);
        return m;
    }
    // Wait for a lobby_update (one per server tick, holding every change
    // since the last) with a change `op` (of seek `id` if given). Returns
    // { seq, op, seek } (the batch's seq, the change).
    async lobbyChange(op, id, ms) {
        const pick = (m) => m.type === 'lobby_update' &&
            (m.changes || []).find((c) => c.op === op && (id === undefined || c.seek.id === id));
        const m = await this.waitFor((x) => !!pick(x), `lobby_update ${op} ${id ?? ''}`, ms);
        return { seq: m.seq, ...pick(m) };
    }
    event(room, kind, ms) {
        return this.waitFor((m) => m.type === 'event' && m.room === room && (!kind || m.kind === kind),
            `event ${kind} in room ${room}`, ms);
    }
    async hello(extra = {}) {
        this.welcome = await this.request({ type: 'hello', ...extra });
        return this.welcome;
    }
    close() { this.ws.close(); }
    async closed_() {
        if (this.closed) return this.closed;
        await new Promise((ok) => this.ws.once('close', ok));
        return this.closed;
    }
}

export async function connect(url, hello = {}, headers = {}) {
    const c = await new Client(url, headers).open();
    await c.hello(hello);
    return c;
}

// Start a game of `game` between `players` (already said hello): the first
// creates the seek, the others accept. Returns { room, states } where
// states[i] is the room state player i received.
export async function startGame(players, game, tc = { base_ms: 0, inc_ms: 0 }) {
    const [first, ...rest] = players;
    const created = await first.request({ type: 'seek_create', game, ...tc });
    if (created.type !== 'seek_created') throw new Error(JSON.stringify(created));
    const seek = created.seek.id;
    let last = null;
    for (const p of rest) {
        const r = await p.request({ type: 'seek_accept', seek });
        if (r.type !== 'seek_joined' && r.type !== 'game_started') throw new Error(JSON.stringify(r));
        if (r.type === 'game_started') last = r;
    }
    const states = [];
    for (const p of players) {
        const started = p === players[players.length - 1] ? last
            : await p.waitFor((m) => m.type === 'game_started', 'game_started');
        const st = await p.waitFor((m) => m.type === 'room' && m.room === started.room, 'room state');
        states.push(st);
    }
    return { room: states[0].room, states };
}

// A small deterministic generator (xorshift) so that games are repeatable.
export function rng(seed) {
    let s = seed >>> 0 || 1;
    return () => {
        s ^= s << 13; s >>>= 0;
        s ^= s >>> 17;
        s ^= s << 5; s >>>= 0;
        return s / 4294967296;
    };
}

// Who plays first in a two-player game just started: the player to move,
// the other one, and the room state the player to move received.
export function firstMover(players, states) {
    const i = states[0].to_move === states[0].you ? 0 : 1;
    return { mover: players[i], other: players[1 - i], st: states[i] };
}

// The clients by seat (players[i] received states[i]).
export function bySeatOf(players, states) {
    const bySeat = [];
    states.forEach((st, i) => { bySeat[st.you] = players[i]; });
    return bySeat;
}

// A throw-away PostgreSQL (tests/tools/pg.sh): { url, db(name), stop() }.
// db(name) drops and creates database `name` and returns its URL. The one
// tests/pg/run.sh started (CHAMELEON_TEST_PG_DIR) when there is one; stop
// leaves that one to run.sh.
export function startPostgres() {
    const pg = (...args) => execFileSync('sh', [join(root, 'tests/tools/pg.sh'), ...args],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    const shared = process.env.CHAMELEON_TEST_PG_DIR;
    const dir = shared || mkdtempSync(join(tmpdir(), 'chameleon-pg-'));
    const url = shared ? process.env.CHAMELEON_TEST_PG : pg('start', dir);
    return {
        url,
        db: (name) => pg('createdb', dir, name),
        stop: () => { if (!shared) pg('stop', dir); },
    };
}
