// Positions for stepping through a game's moves. The server sends the
// pieces before the first move (`start`) and, with every move, the cells it
// changed and what stands there after it (`changes`, PROTOCOL.md room): the
// client applies them in order and knows no game's rules.
// A position is a Map cell name -> {kind, owner}.

// A PIECE or SPIECE list of the server ({name, letter, owner, ...}).
export function piecesMap(list) {
  const m = new Map();
  for (const p of list || []) m.set(p.name, { kind: p.letter, owner: p.owner });
  return m;
}

// A copy of `pos` after one move's changes ([[cell, {letter, owner} | null]]).
export function applyChanges(pos, changes) {
  const next = new Map(pos);
  for (const [cell, piece] of changes || []) {
    if (piece) next.set(cell, { kind: piece.letter, owner: piece.owner });
    else next.delete(cell);
  }
  return next;
}

// The position before each move and after the last: result[0] is `start`,
// result[i] the position after move i.
export function positions(start, moves) {
  const out = [piecesMap(start)];
  for (const mv of moves) out.push(applyChanges(out[out.length - 1], mv.changes));
  return out;
}
