// A game no longer in the server's memory: GET /api/games/<id> (the store's
// record, completed by the codec: PROTOCOL.md, HTTP) gives its players,
// moves with what each changed, leaves, result and start position. Read as
// a room state that nobody plays in, so the room page can show it.

import { positions } from '../replay.js';
import { gameInfo, gameName } from '../tables.js';

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
  const moves = (g.moves || []).map((m) => ({ move: m.move, display: m.display || m.move, seat: m.player, captures: m.captures, changes: m.changes }));
  const end = positions(g.start, moves).pop();
  return {
    room: id, seq: 0, game: g.variant, game_name: gameName(g.variant),
    base_ms: 0, inc_ms: 0, // no clocks in the viewer
    status: 'over', archived: true, seats, you: -1, start: g.start, moves, last_captures: [], check: [],
    pieces: [...end].map(([name, p]) => ({ name, letter: p.kind, owner: p.owner, flags: [] })),
    clocks: seats.map(() => 0), clock_running: false,
    to_move: -1, legal: [], draw_offers: [], rematch_offers: [], chat: [],
    result: g.result ? { winner: g.result.winner ?? -1, reason: g.result.reason } : null,
  };
}
