// The state of one room, as the server tells it: the `room` message, then
// numbered events (PROTOCOL.md, event), or a `catchup` after a gap. Keeps
// when clocks and deadlines were last true, and the position after each
// move for stepping through the game: replayed by the rules core in the
// page (rules.js), or, when it cannot (not loaded yet, a game begun from
// another position), from each move's `changes` (replay.js).

import { piecesMap, positions } from '../replay.js';
import { loadedRules } from '../rules.js';
import { colourName, gameInfo, reasonText } from '../tables.js';
import { fmtDate, t } from '../i18n.js';

// Fields of a catchup that are the state now (PROTOCOL.md, catchup).
const CATCHUP_NOW = ['you', 'clock_running', 'to_move', 'result', 'status', 'position', 'pieces', 'check', 'legal',
  'draw_offers', 'rematch_offers', 'takeback_offers', 'deadlines'];

export class RoomState {
  constructor() {
    this.st = null; // the room state, kept up to date by events
    this.receivedAt = 0; // when st.clocks were true (performance.now())
    this.deadlineAt = 0; // when st.now_ms was the server's time
    this.plies = null; // positions after each move, built when first asked
  }

  // A whole `room` message (or the viewer's stored game).
  set(m) {
    this.st = m;
    this.receivedAt = performance.now();
    this.deadlineAt = this.receivedAt;
    this.plies = null;
  }

  // A `catchup`: its events (through apply), then the state now.
  catchup(m, hooks) {
    for (const e of m.events) this.apply(e, hooks);
    const st = this.st;
    if (!st || m.seq !== st.seq) return;
    for (const k of CATCHUP_NOW) if (k in m) st[k] = m[k];
    if ('now_ms' in m) { st.now_ms = m.now_ms; this.deadlineAt = performance.now(); }
    if (m.clocks) { st.clocks = m.clocks; this.receivedAt = performance.now(); }
  }

  // One event. hooks: gap(seq) when events were missed, announce(text),
  // moved(ply) after a move was added.
  apply(e, hooks) {
    const st = this.st;
    if (!st || e.seq <= st.seq) return;
    if (e.seq !== st.seq + 1) { hooks.gap(st.seq); return; }
    st.seq = e.seq;
    switch (e.kind) {
      case 'move':
        st.moves.push({ move: e.move, display: e.display, seat: e.seat, captures: e.captures, changes: e.changes });
        st.last_captures = e.captures || [];
        st.draw_offers = [];
        this.plies = null;
        this.boardFields(e);
        hooks.announce(t('ann.played', { name: this.seatName(e.seat), move: e.display || e.move }));
        hooks.moved(st.moves.length);
        break;
      case 'left':
        st.seats[e.seat].left = e.reason;
        this.boardFields(e);
        hooks.announce(t('ann.left', { name: this.seatName(e.seat), reason: reasonText(e.reason) }));
        break;
      case 'end':
        if (e.clocks) { st.clocks = e.clocks; this.receivedAt = performance.now(); }
        st.deadlines = null;
        this.over(e.result);
        break;
      case 'draw_offer': st.draw_offers = e.offers; hooks.announce(t('ann.drawoffer', { name: this.seatName(e.seat) })); break;
      case 'draw_declined': st.draw_offers = []; break;
      case 'rematch_offer': st.rematch_offers = e.offers; break;
      case 'rematch': st.next_room = e.next_room; break;
      // Declines and takebacks (PROTOCOL.md, "Takebacks, rematches and downloads").
      case 'rematch_declined': st.rematch_offers = []; st.rematch_declined = e.seat; break;
      case 'takeback_offer':
        st.takeback_offers = e.offers;
        st.takeback_declined = null;
        hooks.announce(t('ann.tboffer', { name: this.seatName(e.seat) }));
        break;
      case 'takeback_declined': st.takeback_offers = []; st.takeback_declined = { seat: e.seat, ply: st.moves.length }; break;
      case 'takeback':
        st.moves.length = e.ply;
        st.takeback_offers = [];
        st.draw_offers = [];
        st.last_captures = (st.moves[e.ply - 1] || {}).captures || [];
        this.plies = null;
        this.boardFields(e);
        hooks.announce(t(e.removed === 1 ? 'ann.tb1' : 'ann.tb2'));
        break;
      case 'presence': st.seats[e.seat].connected = e.connected; break;
      // A rated game's result is stored: each seat's new rating and change.
      case 'ratings':
        e.players.forEach((p, i) => { if (st.seats[i]) st.seats[i].player = p; });
        break;
      // Our own chat room's lines only (the other's come as `skip`).
      case 'chat': st.chat.push({ seat: e.seat, name: e.name, text: e.text, channel: e.channel }); break;
      case 'vacation': // correspondence: a player's vacation began or ended
        st.seats[e.seat].vacation = e.until;
        if (e.deadlines) st.deadlines = e.deadlines;
        if ('now_ms' in e) { st.now_ms = e.now_ms; this.deadlineAt = performance.now(); }
        hooks.announce(e.until ? t('ann.vacation', { name: this.seatName(e.seat), date: fmtDate(e.until) })
          : t('ann.back', { name: this.seatName(e.seat) }));
        break;
      default: break;
    }
  }

  // The fields a move or leave event carries about the board and the turn.
  boardFields(e) {
    const st = this.st;
    if (e.position) st.position = e.position;
    if (e.pieces) st.pieces = e.pieces;
    if (e.check) st.check = e.check;
    if (e.legal) st.legal = e.legal;
    if (e.clocks) { st.clocks = e.clocks; this.receivedAt = performance.now(); }
    if (e.deadlines) st.deadlines = e.deadlines;
    if ('now_ms' in e) { st.now_ms = e.now_ms; this.deadlineAt = performance.now(); }
    if ('clock_running' in e) st.clock_running = e.clock_running;
    if ('to_move' in e) st.to_move = e.to_move;
    if (e.result) this.over(e.result);
  }

  over(result) {
    const st = this.st;
    st.result = result;
    st.status = 'over';
    st.legal = [];
    st.clock_running = false;
  }

  // --- questions -------------------------------------------------------------

  // A seat in a game going on that has not left it (a player who resigned
  // a three-player game that goes on, or ran out of time, has): who may
  // still move, offer, resign or keep conditional lines.
  get stillPlaying() {
    const st = this.st;
    return !!st && st.you >= 0 && st.status !== 'over' && !(st.seats[st.you] || {}).left;
  }

  // The player may move now (a seat, its turn, the game going on).
  get myTurn() {
    const st = this.st;
    return !!st && st.status !== 'over' && st.you >= 0 && st.you === st.to_move;
  }

  // A seat's player's name; with its army's colour when another seat has
  // the same player (the bots of one level filling two seats are one
  // identity: "bot-level-3 (red)").
  seatName(s) {
    const seat = this.st.seats[s];
    if (!seat || !seat.player) return t('ann.seat', { n: s });
    return this.sharedSeat(s) ? `${seat.player.name} (${colourName(seat.color)})` : seat.player.name;
  }

  sharedSeat(s) {
    const me = this.st.seats[s] && this.st.seats[s].player;
    return !!me && this.st.seats.some((o, j) => j !== s && o.player && o.player.id === me.id);
  }

  // The position after `ply` moves (0: the start). The current one is the
  // server's own `pieces`; earlier ones come from `start` and each move's
  // `changes`.
  positionAt(ply) {
    const st = this.st;
    if (ply >= st.moves.length && st.pieces) return piecesMap(st.pieces);
    if (!this.plies) {
      const start = st.start || (gameInfo(st.game) || {}).setup || [];
      this.plies = (!st.start && replayed(st)) || positions(start, st.moves);
    }
    return this.plies[Math.min(ply, this.plies.length - 1)];
  }

  // The pieces each seat has taken, from each move's changes: a piece of
  // another owner gone from (or replaced on) a cell by that seat's move
  // (Ultima's captures at a distance and withdrawals too). [[{kind,
  // owner}], ...] by seat.
  capturedBy() {
    const st = this.st;
    const out = st.seats.map(() => []);
    st.moves.forEach((m, k) => {
      const before = this.positionAt(k);
      for (const [cell, piece] of m.changes || []) {
        const prev = before && before.get(cell);
        if (prev && prev.owner !== m.seat && (!piece || piece.owner !== prev.owner) && out[m.seat]) out[m.seat].push(prev);
      }
    });
    return out;
  }

  // Time left on a seat's clock now (live games).
  clockLeft(s) {
    const st = this.st;
    let t = st.clocks[s] || 0;
    if (st.clock_running && s === st.to_move && st.status !== 'over') t -= performance.now() - this.receivedAt;
    return t;
  }

  // Correspondence: ms left before the seat's deadline, null if it has
  // none (not its turn, or the game is over).
  deadlineLeft(s) {
    const st = this.st;
    const d = st.deadlines && st.deadlines[s];
    if (d === null || d === undefined || st.status === 'over') return null;
    return d - (st.now_ms || Date.now()) - (performance.now() - this.deadlineAt);
  }
}

// The position before the first move and after each one, from the rules
// core: the game's moves played from its set-up, each by the seat that
// played it. A seat skipped in the turn order had left by then (three
// players), and leaves there. null if the core is not loaded or refuses a
// move.
function replayed(st) {
  const rules = loadedRules();
  if (!rules) return null;
  let g = null;
  try {
    g = rules.newGame(st.game);
    const n = g.info.players;
    const at = () => g.boardView().position;
    const out = [at()];
    for (const m of st.moves) {
      for (let guard = 0; guard < n && g.status().toMove !== m.seat; guard++) {
        const skipped = g.status().toMove;
        if (skipped < 0) return null;
        g.leave(skipped);
      }
      g.play(m.move);
      out.push(at());
    }
    return out;
  } catch {
    return null;
  } finally {
    if (g) g.free();
  }
}
