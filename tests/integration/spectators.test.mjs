// The spectators' count of a room (PROTOCOL.md, `room`'s `spectators` and
// the `spectators` message): persons watching without a seat, a person
// with two connections counted once, players never; told to every watcher
// when it changes, at most once a second, and in the state a newcomer gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, connect, startGame } from './lib.mjs';

const count = (c, room, n) => c.waitFor((m) => m.type === 'spectators' && m.room === room && m.n === n, `spectators ${n}`, 5000);

test('spectators: counted once per person, told to players and watchers, in the state of a newcomer', async () => {
    const srv = await startServer();
    try {
        const a = await connect(srv.url), b = await connect(srv.url);
        const game = a.welcome.games.find((g) => g.players === 2);
        const { room, states } = await startGame([a, b], game.id, { base_ms: 600000, inc_ms: 0 });
        assert.equal(states[0].spectators, 0);

        // Carol watches from two tabs: one spectator.
        const carol = await connect(srv.url);
        const carolToken = carol.welcome.token;
        const joined = await carol.request({ type: 'join', room });
        assert.equal(joined.type, 'room');
        await count(a, room, 1);
        await count(b, room, 1);
        const carol2 = await connect(srv.url, { token: carolToken });
        assert.equal(carol2.welcome.player.id, carol.welcome.player.id, 'the same person');
        const again = await carol2.request({ type: 'join', room });
        assert.equal(again.spectators, 1, 'a second tab of the same person is not a second spectator');

        // Dan makes two; a player rejoining counts for nothing.
        const dan = await connect(srv.url);
        await dan.request({ type: 'join', room });
        await count(a, room, 2);
        await count(carol, room, 2);
        const st = await a.request({ type: 'join', room });
        assert.equal(st.spectators, 2);

        // A catchup carries no state: the count comes apart.
        const late = await connect(srv.url);
        const cu = await late.request({ type: 'join', room, since: st.seq });
        assert.equal(cu.type, 'catchup');
        await count(late, room, 3);

        // Carol's tabs close: one spectator less once both are gone.
        await count(a, room, 3);
        carol.close();
        await new Promise((r) => setTimeout(r, 1500));
        assert.ok(!a.inbox.some((m) => m.type === 'spectators'), 'carol still watches from her other tab');
        carol2.close();
        await count(a, room, 2);
        for (const c of [a, b, dan, late]) c.close();
    } finally {
        await srv.stop();
    }
});
