// Validators (PROTOCOL.md, "HTTP"): /rules.wasm and the static files carry
// an ETag and a Last-Modified with Cache-Control: no-cache, so a browser
// keeps them and a reload revalidates instead of fetching them again: a GET
// whose If-None-Match names the ETag is answered 304 with no body (counted
// in chameleon_http_not_modified_total). A changed file gets a new ETag, so
// the same revalidation fetches it: the service worker (/sw.js) updates.
//  - /rules.wasm (--wasm, read at start): its ETag is a hash of its bytes;
//    a restart with another module gives another ETag, and the old one
//    then gets the new bytes;
//  - /sw.js from the web root: edited (same size, within the same
//    second), it is served anew to the browser that had the old one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync, utimesSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './lib.mjs';

async function get(srv, path, headers = {}) {
    const r = await fetch(srv.http + path, { headers });
    return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

async function notModified(srv) {
    const text = await (await fetch(`${srv.http}/metrics`)).text();
    return Number(/^chameleon_http_not_modified_total (\d+)$/m.exec(text)[1]);
}

test('/rules.wasm and static files: ETag, Last-Modified, 304 on revalidation, a new ETag when they change', { timeout: 60000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chameleon-wasm-'));
    const wasm = join(dir, 'rules.wasm');
    const v1 = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.alloc(5000, 7)]);
    writeFileSync(wasm, v1);
    const modified = new Date('2026-03-01T12:00:00Z');
    utimesSync(wasm, modified, modified);
    let srv = await startServer(['--wasm', wasm]);
    try {
        // The module: 200 with its validators; kept and revalidated.
        const first = await get(srv, '/rules.wasm');
        assert.equal(first.status, 200);
        assert.equal(first.headers.get('content-type'), 'application/wasm');
        assert.deepEqual(first.body, v1);
        const etag = first.headers.get('etag');
        assert.match(etag, /^"[0-9a-f]{32}"$/);
        assert.equal(first.headers.get('last-modified'), modified.toUTCString());
        assert.equal(first.headers.get('cache-control'), 'no-cache');
        assert.ok(first.headers.get('content-security-policy'), 'the security headers still');
        const n0 = await notModified(srv);
        // A reload: 304, no body (strong, weak and listed tags alike).
        for (const inm of [etag, `W/${etag}`, `"x", ${etag}`]) {
            const again = await get(srv, '/rules.wasm', { 'If-None-Match': inm });
            assert.equal(again.status, 304, inm);
            assert.equal(again.body.length, 0);
            assert.equal(again.headers.get('etag'), etag);
        }
        assert.equal(await notModified(srv), n0 + 3);
        // Another tag: the module.
        const other = await get(srv, '/rules.wasm', { 'If-None-Match': '"0123"' });
        assert.equal(other.status, 200);
        assert.deepEqual(other.body, v1);

        // The service worker: kept and revalidated; edited at the same
        // size in the same second, a new ETag, and the old one fetches it.
        const sw = join(srv.dir, 'web', 'sw.js');
        writeFileSync(sw, "self.addEventListener('push', () => {}); // v1\n");
        const s1 = await get(srv, '/sw.js');
        assert.equal(s1.status, 200);
        assert.match(s1.headers.get('content-type'), /javascript/);
        assert.equal(s1.headers.get('cache-control'), 'no-cache');
        assert.equal(s1.headers.get('last-modified'), new Date(Math.floor(statSync(sw).mtimeMs / 1000) * 1000).toUTCString());
        const swTag = s1.headers.get('etag');
        assert.equal((await get(srv, '/sw.js', { 'If-None-Match': swTag })).status, 304);
        writeFileSync(sw, "self.addEventListener('push', () => {}); // v2\n");
        const s2 = await get(srv, '/sw.js', { 'If-None-Match': swTag });
        assert.equal(s2.status, 200, 'the changed worker is fetched');
        assert.match(s2.body.toString(), /v2/);
        assert.notEqual(s2.headers.get('etag'), swTag);
        // The API is never kept.
        assert.equal((await get(srv, '/api/tables')).headers.get('cache-control'), 'no-store');

        // A new module (a new build, same size): a new ETag after the
        // restart; the browser's old tag gets the new bytes.
        assert.equal((await srv.stop(true)).code, 0);
        const v2 = Buffer.from(v1);
        v2[100] = 9;
        writeFileSync(wasm, v2);
        utimesSync(wasm, modified, modified);
        srv = await startServer(['--wasm', wasm], { dir: srv.dir });
        const next = await get(srv, '/rules.wasm', { 'If-None-Match': etag });
        assert.equal(next.status, 200);
        assert.deepEqual(next.body, v2);
        assert.notEqual(next.headers.get('etag'), etag);
    } finally {
        assert.equal((await srv.stop()).code, 0);
        rmSync(dir, { recursive: true, force: true });
    }
});
