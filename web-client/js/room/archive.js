// A game no longer in the server's memory: GET /api/games/<id> (the store's
// record, completed by the codec: PROTOCOL.md, HTTP) gives its players,
// moves with what each changed, leaves, result and start position. Read as
// a room state that nobody plays in, so the room page can show it.

import { piecesMap, positions } from '../replay.js';
import { gameInfo, gameName } from '../tables.js';
import { parseMove } from '../board.js';
import { DAY } from '../corr.js';

// The results that are a player leaving (PROTOCOL.md, `left` events).
const LEAVE_REASONS = ['resignation', 'timeout', 'abandonment'];

// The time control as a room state says it: a live game's base and
// increment (its clocks are not stored: none is shown), or a
// correspondence game's days (CORR, PROTOCOL.md Correspondence).
function timeOf(g) {
  const tc = g.time_control || {};
  if (g.kind === 'correspondence') {
    const days = Math.max(1, Math.round((tc.base_ms || DAY) / DAY));
    const inc = Math.round((tc.inc_ms || 0) / DAY);
    return { base_ms: 0, inc_ms: 0, corr: inc ? { days, inc_days: inc, cap_days: Math.round((tc.cap_ms || 0) / DAY) || 4 * days } : { days } };
  }
  return { base_ms: tc.base_ms || 0, inc_ms: tc.inc_ms || 0, corr: null };
}

// A move's display text ("Pa2-a4"): the store's, else the letter of the
// piece on its first cell before it, then its input text.
function displayOf(m, before) {
  if (m.display) return m.display;
  const mv = parseMove(m.move);
  const piece = mv && mv.from ? before.get(mv.from) : null;
  return piece ? `${piece.kind}${m.move}` : m.move;
}

// Resolves with a room state, or rejects when there is nothing to show.
export async function loadArchived(id) {
  const r = await fetch(`/api/games/${id}`);
  if (!r.ok) throw new Error('not found');
  const g = await r.json();
  if (!g.start || (g.moves || []).some((m) => !m.changes)) throw new Error('this game cannot be stepped through');
  const colors = (gameInfo(g.variant) || {}).colors || [];
  const seats = (g.players || []).map((p, i) => ({
    seat: p.seat ?? i, color: colors[p.seat ?? i] || '', player: { id: p.account || 0, name: p.name, bot: !!p.bot, level: p.level, account: !!p.account && !p.bot }, connected: true, left: null,
  }));
  for (const l of g.leaves || []) if (seats[l.player]) seats[l.player].left = l.reason;
  // The leave that ends a game is stored as its result, not among the
  // leaves (server/room_store.c): the seat that lost by it, the one not
  // winning that had not left before, left for that reason, as the live
  // room says it.
  const res = g.result;
  if (res && LEAVE_REASONS.includes(res.reason) && res.winner >= 0) {
    seats.forEach((s, i) => { if (i !== res.winner && !s.left) s.left = res.reason; });
  }
  const moves = (g.moves || []).map((m) => ({ move: m.move, display: m.display, seat: m.player, captures: m.captures, changes: m.changes }));
  const all = positions(g.start, moves);
  moves.forEach((m, i) => { m.display = displayOf(m, all[i] || piecesMap([])); });
  const end = all[all.length - 1];
  return {
    room: id, seq: 0, game: g.variant, game_name: gameName(g.variant),
    ...timeOf(g), // the heading's time control; no clocks are stored
    status: 'over', archived: true, seats, you: -1, start: g.start, moves, last_captures: [], check: [],
    pieces: [...end].map(([name, p]) => ({ name, letter: p.kind, owner: p.owner, flags: [] })),
    clocks: seats.map(() => 0), clock_running: false,
    to_move: -1, legal: [], draw_offers: [], rematch_offers: [], chat: [],
    result: g.result ? { winner: g.result.winner ?? -1, reason: g.result.reason } : null,
  };
}
