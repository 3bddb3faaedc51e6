// Positions of earlier plies, for stepping through a move list. The server
// sends only the current position; earlier ones are rebuilt from the
// starting position by moving the piece, removing the captured cells the
// display text names, promoting, and moving the rook of a Yalta castling.
// Snapshots the server sent while we watched always win over rebuilt ones.

import { startPosition } from './setups.js';
import { parseMove } from './board.js';

// Yalta castlings: king move -> rook move (yalta.md, "Special moves").
const YALTA_CASTLING = {
  'e1-g1': ['h1', 'f1'], 'e1-c1': ['a1', 'd1'],
  'd8-b8': ['a8', 'c8'], 'd8-j8': ['l8', 'i8'],
  'i12-k12': ['l12', 'j12'], 'i12-f12': ['h12', 'e12'],
};

// Cells the display text names as captured: every "x<cell>" after the
// destination ("Lb1-b6xb3xb5" -> b3, b5).
export function displayCaptures(display) {
  const out = [];
  const m = /-[a-n][0-9]{1,2}(.*)$/.exec(display || '');
  if (!m) return out;
  const re = /x([a-n][0-9]{1,2})/g;
  let c;
  while ((c = re.exec(m[1]))) out.push(c[1]);
  return out;
}

// Applies one move to a copy of `pos` (Map cell -> {kind, owner}).
export function applyMove(game, pos, mv) {
  const next = new Map(pos);
  const m = parseMove(mv.move);
  if (!m || m.pass) return next;
  const piece = next.get(m.from);
  if (m.suicide) { next.delete(m.from); return next; }
  for (const c of mv.captures || displayCaptures(mv.display)) next.delete(c);
  next.delete(m.from);
  if (piece) {
    next.set(m.to, m.promo ? { ...piece, kind: m.promo } : piece);
    if (game === 'yalta' && piece.kind === 'K' && YALTA_CASTLING[`${m.from}-${m.to}`]) {
      const [rf, rt] = YALTA_CASTLING[`${m.from}-${m.to}`];
      const rook = next.get(rf);
      if (rook) { next.delete(rf); next.set(rt, rook); }
    }
  }
  return next;
}

// Rebuilds the positions after each ply: result[0] is the start,
// result[i] the position after move i.
export function rebuild(game, moves) {
  const out = [startPosition(game)];
  for (const mv of moves) out.push(applyMove(game, out[out.length - 1], mv));
  return out;
}
