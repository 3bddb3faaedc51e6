// The Web Push tests' peer (push.test.mjs, push-durable.test.mjs): a push
// service written for the tests (a Node http server on loopback: the server
// runs with --push-allow-http 1), a browser's subscription keys, RFC 8291
// decryption of what the service receives, and the HTTP API calls both make.

import assert from 'node:assert/strict';
import http from 'node:http';
import crypto from 'node:crypto';

export const SUBJECT = 'mailto:ops@example.org';
export const b64u = (buf) => Buffer.from(buf).toString('base64url');

// The test's push service: answers each path from its script (one status
// per request, the last repeated; 201 by default) and records what came.
export async function pushService() {
    const got = [];
    const script = new Map();
    const waiters = [];
    const srv = http.createServer((req, res) => {
        const chunks = [];
        req.on('data', (d) => chunks.push(d));
        req.on('end', () => {
            const list = script.get(req.url) || [201];
            const status = list.length > 1 ? list.shift() : list[0];
            got.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks), status, at: Date.now() });
            res.writeHead(status);
            res.end();
            for (const w of [...waiters]) w();
        });
    });
    await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${srv.address().port}`;
    return {
        base,
        got,
        script,
        // Wait until pred(got) holds.
        until(pred, what, ms = 20000) {
            return new Promise((ok, fail) => {
                const check = () => {
                    if (pred(got)) { waiters.splice(waiters.indexOf(check), 1); clearTimeout(t); ok(); }
                };
                const t = setTimeout(() => {
                    waiters.splice(waiters.indexOf(check), 1);
                    fail(new Error(`timed out waiting for ${what}; got ${JSON.stringify(got.map((g) => [g.path, g.status]))}`));
                }, ms);
                waiters.push(check);
                check();
            });
        },
        close: () => new Promise((ok) => srv.close(ok)),
    };
}

// A browser's subscription: a P-256 key pair and a 16-byte auth secret.
export function browserKeys() {
    const ecdh = crypto.createECDH('prime256v1');
    ecdh.generateKeys();
    return { ecdh, pub: ecdh.getPublicKey(), auth: crypto.randomBytes(16) };
}

// RFC 8291 decryption with the subscription's private key and auth secret.
export function decrypt(body, keys) {
    const salt = body.subarray(0, 16);
    const rs = body.readUInt32BE(16);
    const idlen = body[20];
    const asPub = body.subarray(21, 21 + idlen);
    const ct = body.subarray(21 + idlen);
    assert.equal(idlen, 65);
    assert.ok(ct.length <= rs, 'one record');
    const secret = keys.ecdh.computeSecret(asPub);
    const info = Buffer.concat([Buffer.from('WebPush: info\0'), keys.pub, asPub]);
    const ikm = Buffer.from(crypto.hkdfSync('sha256', secret, keys.auth, info, 32));
    const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const d = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
    d.setAuthTag(ct.subarray(ct.length - 16));
    const padded = Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    assert.equal(padded[end], 2, 'the last record\'s delimiter');
    return JSON.parse(padded.subarray(0, end).toString());
}

export async function api(srv, method, path, body, cookie) {
    const r = await fetch(srv.http + path, {
        method,
        headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, json: await r.json(), headers: r.headers };
}

let nameSeq = 0;
// A new account (its name starts with prefix): { name, cookie }.
export async function account(srv, prefix = 'p') {
    const name = `${prefix}${process.pid % 10000}_${nameSeq++}`;
    const r = await api(srv, 'POST', '/api/register', { username: name, password: 'correct horse' });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return { name, cookie: r.headers.get('set-cookie').split(';')[0] };
}

// The subscription a browser sends for endpoint with keys.
export const subscription = (endpoint, keys) => ({ endpoint, expirationTime: null, keys: { p256dh: b64u(keys.pub), auth: b64u(keys.auth) } });
