// The engine in a Web Worker, so that the page never waits on a search.
//
// Messages in: {bytes} once (rules.wasm, so that the worker fetches
// nothing and works with the server gone), then questions {id, game,
// position, moves, leaves, ms, multi}: the worker plays the moves (and the
// leaves, [{after, player, reason}]) from the position (null: the set-up)
// and searches for up to ms. A new question replaces the one in hand, and
// {stop: true} ends it.
// Messages out: {type: 'info', id, ...} after each depth, {type: 'done',
// id, ...} at the end, or {type: 'error', id, message}.
//
// A search cannot be interrupted from outside while it runs, so it runs in
// slices, one depth more each time (the engine's table keeps what the
// earlier slices found), with a pause between them in which a new question
// is seen. A slice starts at SLICE ms, is four times the last depth's
// after each, and doubles each time its depth does not complete: with
// fixed 400 ms slices a depth that took longer never completed, and the
// engine stalled there (depth 7 of Ultima's set-up, for good: issue 34,
// item 1). The page does not wait for a long slice to end:
// it swaps in a spare worker (analysis.js); this pause serves when it has
// none (the server gone, no worker script to load).

import { loadRules } from './rules.js';

const SLICE = 400;
let rules = null;
let current = 0; // the question in hand (its id); 0: none

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

function setUp(q) {
  const g = rules.newGame(q.game, q.position || undefined);
  const moves = q.moves || [];
  const leaves = q.leaves || [];
  for (let k = 0; k <= moves.length; k++) {
    for (const l of leaves) if (l.after === k) g.leave(l.player, l.reason);
    if (k < moves.length) g.play(moves[k]);
  }
  return g;
}

async function answer(q) {
  let g = null;
  try {
    g = setUp(q);
    const st = g.status();
    if (st.over) { self.postMessage({ type: 'done', id: q.id, over: true }); return; }
    const started = performance.now();
    const budget = q.ms || 30000;
    let depth = 1, last = null, slice = SLICE;
    while (current === q.id && depth < 64) {
      const left = budget - (performance.now() - started);
      if (left <= 0) break;
      const t0 = performance.now();
      const r = g.analyse({ depth, ms: Math.min(slice, left), multi: q.multi || 0 });
      if (r.depth >= depth) {
        last = { ...r, toMove: st.toMove, ms: Math.round(performance.now() - started) };
        self.postMessage({ type: 'info', id: q.id, ...last });
        depth = r.depth + 1;
        // The next depth costs some times this one: a slice that fits it.
        slice = Math.max(slice, SLICE, 4 * (performance.now() - t0));
      } else {
        slice *= 2;
      }
      await pause();
    }
    if (current === q.id) self.postMessage({ type: 'done', id: q.id, ...(last || {}) });
  } catch (err) {
    self.postMessage({ type: 'error', id: q.id, code: err.code, message: String(err.message || err) });
  } finally {
    if (g) g.free();
  }
}

let ready = null; // the rules, once the bytes have been instantiated

self.onmessage = async (e) => {
  const q = e.data;
  if (q.bytes) { ready = loadRules(q.bytes); return; }
  if (q.stop) { current = 0; return; }
  if (!ready) { self.postMessage({ type: 'error', id: q.id, code: 'engine_not_loaded', message: 'the engine is not loaded' }); return; }
  current = q.id;
  rules = await ready;
  await pause();
  if (current === q.id) answer(q);
};
