// GET /api/games/<id>.pgn as a download (PROTOCOL.md, "Takebacks, rematches
// and downloads"): Content-Disposition: attachment with the file name
// chameleon-<id>.pgn, for a game in progress and a finished one; the JSON
// view and errors are no attachment.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame } from './lib.mjs';

let srv;
const clients = [];
before(async () => { srv = await startServer(); });
after(async () => {
    for (const c of clients) c.close(); // a failed test leaves nothing open
    const st = await srv.stop();
    assert.equal(st.code, 0, `server exit status (sanitizers): ${srv.stderr().slice(-3000)}`);
});

test('the PGN of a game is an attachment named chameleon-<id>.pgn', async () => {
    const a = await connect(srv.url, { name: 'ann' });
    const b = await connect(srv.url, { name: 'bob' });
    clients.push(a, b);
    const { room } = await startGame([a, b], 'rollerball', { base_ms: 300000, inc_ms: 0 });
    a.send({ type: 'move', room, move: 'c2-b1' });
    await a.event(room, 'move');
    await b.event(room, 'move');

    // In progress: the moves so far, result "*".
    let r = await fetch(`${srv.http}/api/games/${room}.pgn`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-disposition'), `attachment; filename="chameleon-${room}.pgn"`);
    assert.match(r.headers.get('content-type'), /application\/x-chess-pgn/);
    let text = await r.text();
    assert.match(text, /\[Variant "[^"]*"\]|\[Event /);
    assert.match(text, /c2-b1|Pc2-b1/);

    b.send({ type: 'resign', room });
    await a.event(room, 'left');
    // Finished (the result is written before the event goes out).
    r = await fetch(`${srv.http}/api/games/${room}.pgn`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-disposition'), `attachment; filename="chameleon-${room}.pgn"`);
    text = await r.text();
    assert.match(text, /\[Result "1-0"\]/);

    // The JSON view of the same game, an unknown game, a bad id: no download.
    r = await fetch(`${srv.http}/api/games/${room}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-disposition'), null);
    await r.text();
    r = await fetch(`${srv.http}/api/games/999999.pgn`);
    assert.equal(r.status, 404);
    assert.equal(r.headers.get('content-disposition'), null);
    assert.equal((await r.json()).error, 'not_found');
    // The next reply on a kept-alive connection carries no stale header.
    r = await fetch(`${srv.http}/healthz`);
    assert.equal(r.headers.get('content-disposition'), null);
    await r.text();
    a.close();
    b.close();
});
