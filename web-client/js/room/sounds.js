// The room's sounds (sound.js): a move, a capture, a check (any king
// attacked after the move), the end of the game, and low time on the player's own clock
// (once a game, under a tenth of the base time and at most 20 s). The
// start of a game sounds where game_started arrives (app.js).

import { sound } from '../sound.js';

// ctx: {model}. Returns {event(e): after the model applied e, tick()}.
export function createSounds(ctx) {
  const model = ctx.model;
  let lastSeq = -1;
  let lowPlayed = false;

  function event(e) {
    const st = model.st;
    if (!st || e.seq <= lastSeq || e.seq !== st.seq) return; // a replay or a gap
    lastSeq = e.seq;
    if (e.kind === 'move') {
      if (e.result) sound.play('end');
      else if ((e.check || []).length) sound.play('check');
      else sound.play((e.captures || []).length ? 'capture' : 'move');
    } else if (e.kind === 'end' || (e.kind === 'left' && e.result)) {
      sound.play('end');
    }
  }

  function tick() {
    const st = model.st;
    if (!st || lowPlayed || st.corr || st.you < 0 || st.status === 'over' || !st.base_ms) return;
    if (!st.clock_running || st.to_move !== st.you) return;
    const limit = Math.min(20000, st.base_ms / 10);
    if (model.clockLeft(st.you) < limit) { lowPlayed = true; sound.play('lowtime'); }
  }

  return { event, tick, seen: (seq) => { lastSeq = seq; } };
}
