// The lobby's life (issue 14; PROTOCOL.md "Lobby: presence, games to
// watch, challenges"): lobby_life counts the players online and the games
// being played and lists those games (a spectator can join one); a
// challenge from one account to another by name is seen live by the
// challenged, accepted (the game starts for both), declined or cancelled,
// withdrawn when the challenger goes, and bounded per identity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame, register } from './lib.mjs';

async function account(srv, name) {
    const cookie = await register(srv, name);
    const c = await connect(srv.url, {}, { Cookie: cookie });
    assert.equal(c.welcome.account, name);
    c.cookie = cookie;
    return c;
}

// The next lobby_life matching pred (they come at watch and on change).
const life = (c, pred, what) => c.waitFor((m) => m.type === 'lobby_life' && pred(m), what);

test('lobby_life: players online, games being played, a game to watch', async () => {
    const srv = await startServer();
    try {
        const watcher = await connect(srv.url);
        await watcher.request({ type: 'lobby_watch' });
        let m = await life(watcher, () => true, 'lobby_life at watch');
        assert.deepEqual([m.online, m.playing, m.games], [1, 0, []]);
        const a = await connect(srv.url, { name: 'Ann' });
        const b = await connect(srv.url, { name: 'Ben' });
        m = await life(watcher, (x) => x.online === 3, 'three online');
        const { room } = await startGame([a, b], 'ultima', { base_ms: 300000, inc_ms: 2000 });
        m = await life(watcher, (x) => x.playing === 1 && x.games.length === 1, 'one game');
        const g = m.games[0];
        assert.equal(g.room, room);
        assert.equal(g.game, 'ultima');
        assert.deepEqual([g.base_ms, g.inc_ms, g.rated, g.corr], [300000, 2000, false, null]);
        assert.deepEqual(g.players.map((p) => p.name), ['Ann', 'Ben']);
        // A spectator joins the game listed.
        const spec = await connect(srv.url);
        const st = await spec.request({ type: 'join', room: g.room });
        assert.equal(st.type, 'room');
        assert.equal(st.you, -1, 'joined as a spectator');
        // A second game, newer, comes first; the end of the first drops it.
        const c = await connect(srv.url);
        const d = await connect(srv.url);
        const second = await startGame([c, d], 'rollerball', { base_ms: 0, inc_ms: 0 });
        m = await life(watcher, (x) => x.playing === 2, 'two games');
        assert.deepEqual(m.games.map((x) => x.room), [second.room, room]);
        assert.equal(m.online, 6);
        a.send({ type: 'resign', room });
        m = await life(watcher, (x) => x.playing === 1, 'one game after a resignation');
        assert.deepEqual(m.games.map((x) => x.room), [second.room]);
        // Someone leaving is counted.
        spec.close();
        m = await life(watcher, (x) => x.online === 5, 'five online');
        // Unwatched: nothing more.
        watcher.send({ type: 'lobby_unwatch' });
        await watcher.request({ type: 'ping' }); // answered after the unwatch
        watcher.inbox = watcher.inbox.filter((x) => x.type !== 'lobby_life');
        c.close();
        await new Promise((r) => setTimeout(r, 5000)); // two ticks and more
        assert.equal(watcher.inbox.filter((x) => x.type === 'lobby_life').length, 0, 'no lobby_life after unwatch');
        const metrics = await (await fetch(`${srv.http}/metrics`)).text();
        assert.match(metrics, /^chameleon_online 4$/m);
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});

test('challenges: seen live, accepted, declined, cancelled, withdrawn, bounded', async () => {
    const srv = await startServer();
    try {
        const ann = await account(srv, 'ann_ch');
        const ben = await account(srv, 'ben_ch');
        const ben2 = await connect(srv.url, {}, { Cookie: ben.cookie }); // a second tab of ben
        const guest = await connect(srv.url);
        // Guests cannot challenge; bad requests are refused clearly.
        await guest.expectError({ type: 'challenge_create', to: 'ben_ch', game: 'ultima', base_ms: 60000, inc_ms: 0 }, 'account_required');
        await ann.expectError({ type: 'challenge_create', to: 'nobody_here', game: 'ultima', base_ms: 60000, inc_ms: 0 }, 'not_found');
        await ann.expectError({ type: 'challenge_create', to: 'ann_ch', game: 'ultima', base_ms: 60000, inc_ms: 0 }, 'bad_argument');
        await ann.expectError({ type: 'challenge_create', to: 'ben_ch', game: 'yalta', base_ms: 60000, inc_ms: 0 }, 'bad_argument');
        await ann.expectError({ type: 'challenge_create', to: 'ben_ch', game: 'ultima', base_ms: -5, inc_ms: 0 }, 'bad_time_control');
        await ann.expectError({ type: 'challenge_accept', challenge: 999 }, 'not_found');

        // Created (any case of the name): both of ben's tabs see it live.
        const made = await ann.request({ type: 'challenge_create', to: 'BEN_CH', game: 'ultima', base_ms: 180000, inc_ms: 2000 });
        assert.equal(made.type, 'challenge');
        assert.equal(made.op, 'add');
        const ch = made.challenge;
        assert.equal(ch.to, 'ben_ch');
        assert.equal(ch.from.name, 'ann_ch');
        assert.deepEqual([ch.game, ch.base_ms, ch.inc_ms, ch.rated, ch.corr], ['ultima', 180000, 2000, false, null]);
        for (const t of [ben, ben2]) {
            const seen = await t.waitFor((m) => m.type === 'challenge' && m.op === 'add', 'challenge seen');
            assert.deepEqual(seen.challenge, ch);
        }
        // Listed for both sides, not for others.
        assert.deepEqual((await ben.request({ type: 'challenge_list' })).challenges, [ch]);
        assert.deepEqual((await ann.request({ type: 'challenge_list' })).challenges, [ch]);
        assert.deepEqual((await guest.request({ type: 'challenge_list' })).challenges, []);
        // One at a time to the same player; only ben accepts, only ann cancels.
        await ann.expectError({ type: 'challenge_create', to: 'ben_ch', game: 'rollerball', base_ms: 60000, inc_ms: 0 }, 'bad_argument');
        await ann.expectError({ type: 'challenge_accept', challenge: ch.id }, 'bad_argument');
        await ben.expectError({ type: 'challenge_cancel', challenge: ch.id }, 'bad_argument');

        // Accepted: the game starts for both, seats challenger first.
        const started = await ben.request({ type: 'challenge_accept', challenge: ch.id });
        assert.equal(started.type, 'game_started');
        assert.equal(started.seat, 1);
        const annStarted = await ann.waitFor((m) => m.type === 'game_started', 'game_started for ann');
        assert.equal(annStarted.room, started.room);
        assert.equal(annStarted.seat, 0);
        const state = await ann.waitFor((m) => m.type === 'room' && m.room === started.room, 'room');
        assert.deepEqual([state.base_ms, state.inc_ms], [180000, 2000]);
        for (const t of [ann, ben2]) {
            const gone = await t.waitFor((m) => m.type === 'challenge' && m.op === 'remove', 'removed');
            assert.deepEqual([gone.challenge.id, gone.reason], [ch.id, 'accepted']);
        }
        await ben.expectError({ type: 'challenge_accept', challenge: ch.id }, 'not_found');

        // Declined.
        const c2 = (await ann.request({ type: 'challenge_create', to: 'ben_ch', game: 'rollerball', base_ms: 0, inc_ms: 0 })).challenge;
        const dec = await ben.request({ type: 'challenge_decline', challenge: c2.id });
        assert.deepEqual([dec.op, dec.reason], ['remove', 'declined']);
        const told = await ann.waitFor((m) => m.type === 'challenge' && m.reason === 'declined', 'declined told');
        assert.equal(told.challenge.id, c2.id);

        // Cancelled.
        const c3 = (await ann.request({ type: 'challenge_create', to: 'ben_ch', game: 'ant2', corr: { days: 3 } })).challenge;
        assert.deepEqual(c3.corr, { days: 3, inc_days: 0, cap_days: 0 });
        const can = await ann.request({ type: 'challenge_cancel', challenge: c3.id });
        assert.deepEqual([can.op, can.reason], ['remove', 'cancelled']);
        await ben.waitFor((m) => m.type === 'challenge' && m.reason === 'cancelled' && m.challenge.id === c3.id, 'cancel told');

        // Bounded: five open challenges per identity.
        const names = [];
        for (let i = 0; i < 6; i++) names.push(await account(srv, `t${i}_ch`));
        for (let i = 0; i < 5; i++) {
            const r = await ann.request({ type: 'challenge_create', to: `t${i}_ch`, game: 'ultima', base_ms: 60000, inc_ms: 0 });
            assert.equal(r.type, 'challenge', JSON.stringify(r));
        }
        const over = await ann.expectError({ type: 'challenge_create', to: 't5_ch', game: 'ultima', base_ms: 60000, inc_ms: 0 }, 'too_many_seeks');
        assert.match(over.reason, /at most 5 open challenges/);
        // The challenger goes: its challenges are withdrawn, told to each.
        ann.close();
        for (let i = 0; i < 5; i++) {
            const g = await names[i].waitFor((m) => m.type === 'challenge' && m.op === 'remove', `withdrawn ${i}`);
            assert.equal(g.reason, 'gone');
        }
        assert.deepEqual((await names[0].request({ type: 'challenge_list' })).challenges, []);
        const metrics = await (await fetch(`${srv.http}/metrics`)).text();
        assert.match(metrics, /^chameleon_challenges 0$/m);
        assert.match(metrics, /^chameleon_challenges_total 8$/m);
        assert.match(metrics, /^chameleon_challenges_accepted_total 1$/m);
        assert.match(metrics, /^chameleon_challenges_refused_total 1$/m);
    } finally {
        const st = await srv.stop();
        assert.equal(st.code, 0, srv.stderr().slice(-3000));
    }
});
