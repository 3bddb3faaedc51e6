// Bounded identities, games in progress per identity and per address, rooms
// watched per identity and per address (issue 18, items 1 and 2). The real server on
// loopback; a second client address is 127.0.0.2 (all of 127/8 is local).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, Client, connect, startGame } from '../integration/lib.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// A client whose connection comes from localAddress.
class From extends Client {
    constructor(url, localAddress) {
        super(url);
        this.localAddress = localAddress;
    }
    wsOptions() {
        return { ...super.wsOptions(), localAddress: this.localAddress };
    }
}

async function connectFrom(srv, addr, hello = {}) {
    const c = await new From(srv.url, addr).open();
    await c.hello(hello);
    return c;
}

async function metrics(srv) {
    return (await fetch(`${srv.http}/metrics`)).text();
}

// The value of one sample (name with its labels, as printed).
async function metric(srv, sample) {
    const text = await metrics(srv);
    const line = text.split('\n').find((l) => l.startsWith(`chameleon_${sample} `));
    assert.ok(line, `chameleon_${sample} in /metrics`);
    return Number(line.split(' ')[1]);
}

const guests = (srv) => metric(srv, 'identities{kind="guest"}');

async function closeAll(clients) {
    for (const c of clients) {
        c.close();
        await c.closed_();
    }
}

const LIVE = { game: 'ultima', base_ms: 0, inc_ms: 0 };

test('guests are held in a bounded table: a new one replaces the oldest unused, or hello is refused with too_many_guests', async () => {
    const srv = await startServer(['--max-guests', '5']);
    try {
        const held = [];
        for (let i = 0; i < 5; i++) held.push(await connect(srv.url));
        assert.equal(await guests(srv), 5);
        // Every guest is in use (a connection each): none can go.
        const sixth = await new Client(srv.url).open();
        const refused = await sixth.expectError({ type: 'hello' }, 'too_many_guests');
        assert.equal(refused.request, 'hello');
        assert.equal(await metric(srv, 'limit_refused_total{limit="guests"}'), 1);
        assert.equal(sixth.closed, null, 'the connection stays: it may log in or try again');
        // Two guests leave (A first): the next hello takes A's place.
        const [a, b] = held.splice(0, 2);
        a.close();
        await a.closed_();
        await sleep(100);
        b.close();
        await b.closed_();
        await sleep(100);
        const w = await sixth.hello();
        assert.equal(w.type, 'welcome');
        assert.equal(await guests(srv), 5);
        assert.equal(await metric(srv, 'guests_evicted_total'), 1);
        // A comes back with its token: it was forgotten, so A gets a fresh
        // identity (a new token and id, as for any unknown token), taking
        // the place of B, the oldest unused one now.
        const a2 = await connect(srv.url, { token: a.welcome.token });
        assert.notEqual(a2.welcome.token, a.welcome.token);
        assert.notEqual(a2.welcome.player.id, a.welcome.player.id);
        assert.equal(await metric(srv, 'guests_evicted_total'), 2);
        assert.equal(await guests(srv), 5);
        // Full again, every one in use.
        const b2 = await new Client(srv.url).open();
        await b2.expectError({ type: 'hello', token: b.welcome.token }, 'too_many_guests');
        await closeAll([...held, sixth, a2, b2]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('many token-less hellos keep the guests bounded', async () => {
    const srv = await startServer(['--max-guests', '20']);
    try {
        for (let i = 0; i < 200; i++) {
            const c = await connect(srv.url);
            assert.equal(c.welcome.type, 'welcome');
            c.close();
            await c.closed_();
        }
        assert.ok(await guests(srv) <= 20, 'at most --max-guests guests');
        assert.ok(await metric(srv, 'guests_evicted_total') >= 180);
        assert.equal(await metric(srv, 'limit_refused_total{limit="guests"}'), 0);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('an unused identity is forgotten after the idle time; its token then gets a fresh identity', async () => {
    const srv = await startServer(['--identity-idle-seconds', '1']);
    try {
        const a = await connect(srv.url);
        const kept = await connect(srv.url); // in use: never forgotten
        a.close();
        await a.closed_();
        let n = 0;
        for (let i = 0; i < 200 && (n = await metric(srv, 'identities_expired_total')) < 1; i++)
            await sleep(50);
        assert.equal(n, 1);
        assert.equal(await guests(srv), 1);
        const back = await connect(srv.url, { token: a.welcome.token });
        assert.notEqual(back.welcome.token, a.welcome.token);
        const again = await connect(srv.url, { token: kept.welcome.token });
        assert.equal(again.welcome.token, kept.welcome.token);
        assert.equal(again.welcome.player.id, kept.welcome.player.id);
        await closeAll([kept, back, again]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('games in progress per identity: seeks, accepts, bot games and rematches past the cap get too_many_games', async () => {
    const srv = await startServer(['--live-games-per-identity', '3']);
    try {
        const a = await connect(srv.url), b = await connect(srv.url), c = await connect(srv.url);
        const rooms = [];
        for (let i = 0; i < 3; i++) rooms.push((await startGame([a, b], 'ultima')).room);
        // a and b each play 3 live games: no seek, accept or bot game more.
        const e = await a.expectError({ type: 'seek_create', ...LIVE }, 'too_many_games');
        assert.match(e.reason, /3 live games/);
        await b.expectError({ type: 'seek_create', ...LIVE }, 'too_many_games');
        await a.expectError({ type: 'bot_game', game: 'ultima', level: 1, base_ms: 0, inc_ms: 0 },
            'too_many_games');
        const open = await c.request({ type: 'seek_create', ...LIVE });
        await a.expectError({ type: 'seek_accept', seek: open.seek.id }, 'too_many_games');
        // The seek is still there for others.
        assert.equal(open.type, 'seek_created');
        // An open seek counts as a game: c with two more seeks is full.
        await c.request({ type: 'seek_create', ...LIVE });
        await c.request({ type: 'seek_create', ...LIVE });
        await c.expectError({ type: 'seek_create', ...LIVE }, 'too_many_games');
        // a resigns one game: one seat free again, and a rematch of it
        // would take it... but a fills it with a seek first, so the rematch
        // is refused, naming who is full.
        a.send({ type: 'resign', room: rooms[0] });
        await a.event(rooms[0], 'left');
        const mine = await a.request({ type: 'seek_create', ...LIVE });
        assert.equal(mine.type, 'seek_created');
        b.send({ type: 'rematch', room: rooms[0] });
        await b.event(rooms[0], 'rematch_offer');
        const r = await a.expectError({ type: 'rematch', room: rooms[0] }, 'too_many_games');
        assert.match(r.reason, /3 live games/);
        // Cancelling the seek frees the seat: the rematch starts.
        await a.request({ type: 'seek_cancel', seek: mine.seek.id });
        a.send({ type: 'rematch', room: rooms[0] });
        await a.event(rooms[0], 'rematch');
        assert.ok(await metric(srv, 'limit_refused_total{limit="games_per_identity"}') >= 6);
        await closeAll([a, b, c]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('games in progress per address: many guests of one address share one cap; another address is free', async () => {
    const srv = await startServer(['--live-games-per-address', '4']);
    try {
        const one = [];
        for (let i = 0; i < 3; i++) one.push(await connectFrom(srv, '127.0.0.1'));
        const other = await connectFrom(srv, '127.0.0.2');
        // Two games between guests of 127.0.0.1: 4 seats charged to it.
        await startGame([one[0], one[1]], 'ultima');
        await startGame([one[1], one[0]], 'ultima');
        const e = await one[2].expectError({ type: 'seek_create', ...LIVE }, 'too_many_games');
        assert.match(e.reason, /one address/);
        await one[2].expectError({ type: 'bot_game', game: 'ultima', level: 1, base_ms: 0, inc_ms: 0 },
            'too_many_games');
        // 127.0.0.2 may, but no guest of 127.0.0.1 may take its seek.
        const s = await other.request({ type: 'seek_create', ...LIVE });
        assert.equal(s.type, 'seek_created');
        await one[2].expectError({ type: 'seek_accept', seek: s.seek.id }, 'too_many_games');
        assert.ok(await metric(srv, 'limit_refused_total{limit="games_per_address"}') >= 3);
        await closeAll([...one, other]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('rooms watched without a seat per identity (all its connections): too_many_rooms past the cap', async () => {
    const srv = await startServer(['--watched-rooms-per-identity', '2']);
    try {
        const a = await connect(srv.url), b = await connect(srv.url);
        const rooms = [];
        for (let i = 0; i < 3; i++) rooms.push((await startGame([a, b], 'ultima')).room);
        // The players watch their own rooms: seats do not count.
        for (const room of rooms) assert.equal((await a.request({ type: 'join', room })).type, 'room');
        const s = await connect(srv.url);
        const tab = await connect(srv.url, { token: s.welcome.token });
        assert.equal((await s.request({ type: 'join', room: rooms[0] })).type, 'room');
        assert.equal((await tab.request({ type: 'join', room: rooms[1] })).type, 'room');
        // Joining again a room already watched is no new one.
        assert.equal((await s.request({ type: 'join', room: rooms[0] })).type, 'room');
        const e = await s.expectError({ type: 'join', room: rooms[2] }, 'too_many_rooms');
        assert.match(e.reason, /2 rooms/);
        await tab.expectError({ type: 'join', room: rooms[2] }, 'too_many_rooms');
        // part frees one; a closed connection frees its own.
        s.send({ type: 'part', room: rooms[0] });
        assert.equal((await s.request({ type: 'join', room: rooms[2] })).type, 'room');
        tab.close();
        await tab.closed_();
        let room = null;
        for (let i = 0; i < 100; i++) {
            room = await s.request({ type: 'join', room: rooms[1] });
            if (room.type === 'room') break;
            await sleep(20);
        }
        assert.equal(room.type, 'room');
        assert.ok(await metric(srv, 'limit_refused_total{limit="watched_rooms_per_identity"}') >= 2);
        await closeAll([a, b, s]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});

test('rooms watched without a seat per address: guests of one address share one cap', async () => {
    const srv = await startServer(['--watched-rooms-per-address', '3']);
    try {
        const a = await connect(srv.url), b = await connect(srv.url);
        const rooms = [];
        for (let i = 0; i < 3; i++) rooms.push((await startGame([a, b], 'ultima')).room);
        const s1 = await connectFrom(srv, '127.0.0.3'), s2 = await connectFrom(srv, '127.0.0.3');
        const far = await connectFrom(srv, '127.0.0.4');
        assert.equal((await s1.request({ type: 'join', room: rooms[0] })).type, 'room');
        assert.equal((await s1.request({ type: 'join', room: rooms[1] })).type, 'room');
        assert.equal((await s2.request({ type: 'join', room: rooms[0] })).type, 'room');
        const e = await s2.expectError({ type: 'join', room: rooms[2] }, 'too_many_rooms');
        assert.match(e.reason, /one address/);
        // Another address is not concerned; a part gives a place back.
        assert.equal((await far.request({ type: 'join', room: rooms[2] })).type, 'room');
        s1.send({ type: 'part', room: rooms[1] });
        await s1.request({ type: 'ping' }); // the part is done
        assert.equal((await s2.request({ type: 'join', room: rooms[2] })).type, 'room');
        assert.equal(await metric(srv, 'limit_refused_total{limit="watched_rooms_per_address"}'), 1);
        await closeAll([a, b, s1, s2, far]);
        const st = await srv.stop();
        assert.deepEqual(st, { code: 0, sig: null }, srv.stderr());
    } finally {
        await srv.stop();
    }
});
