// Exports that are never read (issue 31, item 5): each one held a page of
// games (here about 2 MB) for as long as its reader kept the connection
// open, with no bound across addresses. Now an export holds a slot until
// its reply is written whole or its reader is dropped: API_EXPORTS_PER_ADDRESS
// (4) from one address, API_EXPORTS_MAX (32) on the server, 429
// too_many_exports with Retry-After beyond; a reader that takes nothing for
// --http-stall-seconds is dropped and its slot freed. The real server (the
// sanitizer build) and a real SQLite file holding 100 long games of one
// account; the readers are raw sockets from 127.0.0.x that read nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connect as tcp } from 'node:net';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { startServer, register, api } from '../integration/lib.mjs';

const here = resolve(new URL('.', import.meta.url).pathname);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// 130 finished Ultima games of `name`'s account, 750 moves each (about
// 7 KB of PGN a game: the export's first page of 100 is 700 KB, more than
// loopback's socket buffers take from a reader that reads nothing).
function longGames(db, name) {
    execFileSync('sqlite3', [db], {
        input: `
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 130)
INSERT INTO games (id, variant, kind, nplayers, created_ms, last_move_ms, nmoves, to_move,
                   finished, winner, reason, finished_ms)
SELECT 1000 + i, 'ultima', 0, 2, 1700000000000, 1700000000000, 750, -1, 1, 0, 'resign',
       1700000000000 FROM n;
INSERT INTO game_players (game, seat, account, name, outcome)
SELECT id, 0, (SELECT id FROM accounts WHERE username = '${name}'), '${name}', 1
FROM games WHERE id > 1000;
INSERT INTO game_players (game, seat, account, name, outcome)
SELECT id, 1, NULL, 'Guest1', 2 FROM games WHERE id > 1000;
WITH RECURSIVE p(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM p WHERE i < 749)
INSERT INTO moves (game, ply, player, text, at_ms)
SELECT g.id, p.i, p.i % 2, 'Pa2-a3', 1700000000000 FROM games g, p WHERE g.id > 1000;
COMMIT;
` });
}

// Readers that read nothing (unread.py: a 4 KB receive buffer each, so
// that the kernel holds little of an answer, as over a real network).
// readers.open(srv, from): { id, status, head } once the server answered
// the export's headers; readers.close(id).
function startReaders() {
    const py = spawn('python3', [join(here, 'unread.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
    const waiting = [];
    let out = '';
    py.stdout.on('data', (d) => {
        out += d;
        for (let i; (i = out.indexOf('\n')) >= 0;) {
            const line = out.slice(0, i);
            out = out.slice(i + 1);
            waiting.shift()(JSON.parse(line));
        }
    });
    py.on('exit', (code) => {
        for (const w of waiting.splice(0)) w({ id: 0, status: 0, head: `unread.py exited ${code}` });
    });
    return {
        open(srv, from) {
            return new Promise((ok) => {
                waiting.push(ok);
                py.stdin.write(`open ${srv.port} ${from} /api/games/user/reader\n`);
            });
        },
        close(id) { py.stdin.write(`close ${id}\n`); },
        end() { py.stdin.end(); return new Promise((ok) => py.on('exit', ok)); },
    };
}

async function metric(srv, name) {
    const r = await api(srv, 'GET', '/metrics');
    const m = r.text.match(new RegExp(`^chameleon_${name} (\\d+)$`, 'm'));
    assert.ok(m, `no ${name} in /metrics`);
    return Number(m[1]);
}

// A whole export, read: its status and size.
async function readAll(srv, name, from) {
    const s = tcp({ host: '127.0.0.1', port: srv.port, localAddress: from });
    let text = '';
    s.setEncoding('latin1');
    s.on('data', (d) => { text += d; });
    await new Promise((ok) => s.once('connect', ok));
    s.write(`GET /api/games/user/${name} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await new Promise((ok) => s.on('close', ok));
    return { status: Number(text.slice(9, 12)), bytes: text.length, text };
}

test('exports nobody reads: 4 per address, 32 on the server, 429 beyond, dropped when stalled', async () => {
    const first = await startServer();
    await register(first, 'reader');
    await first.stop(true);
    longGames(join(first.dir, 'test.db'), 'reader');
    const srv = await startServer([], { dir: first.dir });
    const held = [];
    let whole;
    let readers = startReaders();
    try {
        // One whole export, read: 130 games in two parts, about 940 KB.
        whole = await readAll(srv, 'reader', '127.0.0.1');
        assert.equal(whole.status, 200);
        assert.ok(whole.bytes > 900000, `an export of ${whole.bytes} bytes`);
        assert.equal((whole.text.match(/\[GameId /g) || []).length, 130);
        assert.equal(await metric(srv, 'exports_running'), 0);

        // Four from one address, unread: the fifth is refused.
        for (let i = 0; i < 4; i++) {
            const s = await readers.open(srv, '127.0.0.2');
            assert.equal(s.status, 200);
            held.push(s);
        }
        const fifth = await readers.open(srv, '127.0.0.2');
        assert.equal(fifth.status, 429, fifth.head);
        assert.match(fifth.head, /retry-after: 10/i);
        assert.match(fifth.head, /too_many_exports/);
        readers.close(fifth.id);
        assert.equal(await metric(srv, 'exports_running'), 4);

        // 28 more from seven other addresses fill the server's 32: the next
        // is refused from an address that has none.
        for (let a = 3; a < 10; a++)
            for (let i = 0; i < 4; i++) {
                const s = await readers.open(srv, `127.0.0.${a}`);
                assert.equal(s.status, 200, `127.0.0.${a}: ${s.head}`);
                held.push(s);
            }
        assert.equal(await metric(srv, 'exports_running'), 32);
        const over = await readers.open(srv, '127.0.0.20');
        assert.equal(over.status, 429, over.head);
        readers.close(over.id);
        assert.ok(await metric(srv, 'exports_refused_total') >= 2);

        // A reader that goes frees its slot at once.
        readers.close(held.shift().id);
        for (let t = 0; t < 100 && await metric(srv, 'exports_running') !== 31; t++) await sleep(50);
        assert.equal(await metric(srv, 'exports_running'), 31);
        const freed = await readers.open(srv, '127.0.0.20');
        assert.equal(freed.status, 200, freed.head);
        held.push(freed);

        for (const s of held) readers.close(s.id);
        held.length = 0;
        for (let t = 0; t < 100 && await metric(srv, 'exports_running') !== 0; t++) await sleep(50);
        assert.equal(await metric(srv, 'exports_running'), 0);
    } finally {
        await readers.end();
        const st = await srv.stop(true);
        assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
    }

    // Readers that take nothing for --http-stall-seconds (2) are dropped and
    // their slots freed; the server answers a whole export afterwards.
    const again = await startServer(['--http-stall-seconds', '2'], { dir: first.dir });
    held.length = 0;
    readers = startReaders();
    try {
        for (let i = 0; i < 4; i++) {
            const s = await readers.open(again, '127.0.0.2');
            assert.equal(s.status, 200, s.head);
            held.push(s);
        }
        assert.equal(await metric(again, 'exports_running'), 4);
        const t0 = Date.now();
        while (Date.now() - t0 < 15000 && await metric(again, 'exports_running') > 0) await sleep(100);
        const waited = Date.now() - t0;
        assert.equal(await metric(again, 'exports_running'), 0, `after ${waited} ms`);
        assert.ok(waited >= 1500, `stalled readers dropped after ${waited} ms`);
        const after = await readAll(again, 'reader', '127.0.0.2');
        assert.equal(after.status, 200);
        assert.equal(after.bytes, whole.bytes);
    } finally {
        await readers.end();
        const st = await again.stop();
        assert.equal(st.code, 0, `server exit status (sanitizers): ${again.stderr().slice(-3000)}`);
    }
});
