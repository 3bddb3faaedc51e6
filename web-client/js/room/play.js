// The board of a room and the ways to move on it: click or drag (board.js),
// a typed move, the list of legal moves as buttons (for keyboard and
// screen-reader players); and the "view as" choice of the army at the
// bottom. The board shows the ply the move list points at (history.js).
//
// Legal moves come from the rules core in the page (rules.js, from the
// room's position string), so hints never wait for the server (its own
// list serves until the module has loaded). In a live game the player may
// premove while the others think: one move, chosen among those it might
// have when its turn comes, played as soon as it is legal, cancelled by a
// click on the board.
//
// The move sent and not yet acknowledged (its `move` event is the
// acknowledgement, PROTOCOL.md) is kept: a connection lost before the
// event (a restart, a node killed, a 1001 "moved to another node") may
// have lost the move with it. Once the room is joined again on another
// connection (rejoined), it is sent once more if it is not in the game,
// the game is still at that ply and it is still that seat's turn; the
// server checks it as any move, and a refusal only redraws the board.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { Board, parseMove } from '../board.js';
import { pieceName } from '../pieces.js';
import { pageRules } from '../rules.js';
import { colourName } from '../tables.js';

// Our own move at once on our board, before the server's answer: the piece
// goes from its cell to the destination (a suicide removes it). Whatever
// else the move does (captures, a castling's rook) waits for the server's
// event, which redraws the real position.
function preview(pos, text) {
  const m = parseMove(text);
  const next = new Map(pos);
  if (!m || m.pass) return next;
  const piece = next.get(m.from);
  next.delete(m.from);
  if (piece && !m.suicide) next.set(m.to, m.promo ? { ...piece, kind: m.promo } : piece);
  return next;
}

// ctx: {conn, id, model, view: {ply, seat}, say(text), render()}.
export function createPlay(ctx) {
  const model = ctx.model;
  let board = null;
  let rules = null; // the rules core, once loaded
  let premove = null; // the move to play when our turn comes
  let unacked = null; // { text, ply, seat, ws (null: queued until the next hello) }
  pageRules().then((r) => { rules = r.rules; if (model.st) render(); }).catch(() => {});

  // The rules core's answer for the room's position now, cached by
  // position: f(game) with a game set up there.
  const cache = { key: null, legal: null, premoves: null };
  function fromCore(kind) {
    const st = model.st;
    if (!rules || !st || !st.position) return null;
    const key = `${st.game}|${st.position}|${st.you}`;
    if (cache.key !== key) Object.assign(cache, { key, legal: null, premoves: null });
    if (cache[kind] === null) {
      let g = null;
      try {
        g = rules.newGame(st.game, st.position);
        cache[kind] = kind === 'legal' ? g.legalMoves() : g.premoves(st.you);
      } catch {
        return null; // a position the module cannot read: the server's list
      } finally {
        if (g) g.free();
      }
    }
    return cache[kind];
  }
  const legalNow = () => fromCore('legal') || model.st.legal || [];
  // The cells a move takes in the room's position now (picker labels).
  function capturesOf(text) {
    const st = model.st;
    if (!rules || !st || !st.position) return [];
    let g = null;
    try {
      g = rules.newGame(st.game, st.position);
      return g.captures(text);
    } catch {
      return [];
    } finally {
      if (g) g.free();
    }
  }
  // Premoves: live games only, a player still in, not its turn.
  const canPremove = () => {
    const st = model.st;
    return !!st && !st.corr && model.stillPlaying && !model.myTurn;
  };

  let typedSent = null; // the last typed move, until the server answers it
  const box = h('div', { class: 'board-box' });
  const typedInput = h('input', { id: 'move-input', autocomplete: 'off', spellcheck: 'false', 'aria-label': t('play.type'), placeholder: t('play.typeeg') });
  const typed = h('form', { class: 'typed', id: 'typed', onsubmit: (e) => { e.preventDefault(); sendTyped(); } },
    typedInput, h('button', { type: 'submit' }, t('w.play')));
  const legalList = h('div', { class: 'legal-list', id: 'legal-list' });
  const legalSummary = h('summary', {}, t('play.legal'));
  const legal = h('details', { class: 'legal', hidden: true }, legalSummary, legalList);
  legal.addEventListener('toggle', () => render());
  const viewSel = h('select', { id: 'view-seat', 'aria-label': t('play.viewas') });
  viewSel.addEventListener('change', () => { ctx.view.seat = Number(viewSel.value); ctx.render(); });
  const viewRow = h('div', { class: 'row' }, h('label', { for: 'view-seat', style: 'margin:0' }, t('howto.viewas')), viewSel);

  // The board, made with the first state of the room.
  function ensureBoard() {
    const st = model.st;
    if (!board) {
      board = new Board(box, { game: st.game, onMove: boardMove, onIllegal: illegal, pieceName: (k) => pieceName(st.game, k), capturesOf });
      // Any click on the board cancels a premove (and may start another).
      box.addEventListener('pointerdown', () => { if (premove) cancelPremove(t('play.premovecancelled')); }, true);
    }
    board.colours = st.seats.map((s) => s.color);
    board.view = ctx.view.seat;
  }

  function boardMove(text) {
    if (model.myTurn || !canPremove()) { sendMove(text); return; }
    premove = text;
    ctx.say(t('play.premove', { move: text }));
    render();
  }

  // A click or drop on a cell the piece cannot reach (board.js).
  function illegal(from, to) {
    ctx.say(t(model.myTurn ? 'play.illegal' : 'play.illegalpre', { from, to }), true);
  }

  function cancelPremove(why) {
    premove = null;
    ctx.say(why);
    render();
  }

  // After each move of the game: our premove, if it is legal now.
  function moved() {
    typedSent = null;
    unacked = null; // ours acknowledged, or the game moved on without it
    if (!premove || !model.myTurn) return;
    const text = premove;
    premove = null;
    if (legalNow().includes(text)) sendMove(text, true);
    else ctx.say(t('play.prenotlegal', { move: text }));
  }

  // direct: a premove, never held for confirmation (ctx.confirm, confirm.js);
  // again: the unacknowledged move sent again (rejoined), its refusal quiet.
  function sendMove(text, direct = false, again = false) {
    ctx.say('');
    if (board && ctx.view.ply === null) {
      board.position = preview(board.position, text);
      board.legal = [];
      board.interactive = false;
      board.render();
    }
    const send = () => {
      const c = ctx.conn;
      const st = model.st;
      unacked = again ? null : { text, ply: st.moves.length, seat: st.you, ws: c.ready ? c.ws : null };
      if (again) ctx.quiet.add(c.nextId);
      c.request('move', { room: ctx.id, move: text }, false);
    };
    if (!direct && ctx.confirm && ctx.confirm.wants()) ctx.confirm.ask(text, send);
    else send();
  }

  function sendTyped() {
    const text = typedInput.value.trim();
    if (!text) return;
    const st = model.st;
    if (!st || st.you < 0) { ctx.say(t('play.watching')); return; }
    sendMove(text);
    typedInput.value = '';
    typedSent = text;
  }

  // A hello answered: a move queued while offline went out with it.
  function online() {
    if (unacked && unacked.ws === null) unacked.ws = ctx.conn.ws;
  }

  // The room joined again (a `room` or `catchup` in reply to `join`): the
  // unacknowledged move, if it went out on another connection, once more
  // when the game still waits for it (see the top of the file).
  function rejoined() {
    const u = unacked;
    const st = model.st;
    if (!u || !st || u.ws === ctx.conn.ws) return;
    unacked = null;
    if (st.status === 'over' || st.you !== u.seat || st.to_move !== u.seat || st.moves.length !== u.ply) return;
    sendMove(u.text, true, true);
  }

  // A move the server refused: the board as it was, and the text typed
  // given back to be corrected (unless the player typed another since, or
  // quiet: the move sent again after a reconnection).
  function refused(quiet = false) {
    unacked = null;
    if (quiet) typedSent = null;
    if (typedSent && !typedInput.value) typedInput.value = typedSent;
    typedSent = null;
    render();
  }

  // Marks of the ply shown: the last move's cells and captures; check,
  // frozen and inert pieces as the server flags them now (live only).
  function marks(ply, live) {
    const st = model.st;
    const last = ply > 0 ? st.moves[ply - 1] : null;
    const lm = last ? parseMove(last.move) : null;
    const lastCaps = last ? (last.captures || (live ? st.last_captures : null) || []) : [];
    const flagged = (f) => (live ? st.pieces.filter((p) => (p.flags || []).includes(f)).map((p) => p.name) : []);
    return {
      last: lm && lm.from ? [lm.from, lm.to] : [],
      captured: lastCaps.filter((c) => !lm || c !== lm.to),
      check: live ? (st.check || []) : [],
      frozen: flagged('frozen'),
      inert: flagged('inert'),
    };
  }

  function render() {
    if (!board) return;
    const st = model.st;
    const live = ctx.view.ply === null || ctx.view.ply >= st.moves.length;
    const ply = live ? st.moves.length : ctx.view.ply;
    board.view = ctx.view.seat;
    board.position = model.positionAt(ply) || new Map();
    const held = live && ctx.confirm && ctx.confirm.pending; // shown until Confirm or Cancel
    if (held) board.position = preview(board.position, held);
    board.marks = marks(ply, live);
    const mine = live && model.myTurn;
    const pre = live && !mine && canPremove() && !premove ? fromCore('premoves') : null;
    if (premove && live) {
      const pm = parseMove(premove);
      if (pm && pm.from) board.marks.premove = [pm.from, pm.to];
    }
    board.legal = held ? [] : (mine ? legalNow() : pre || []).map(parseMove).filter(Boolean);
    board.premoving = !!pre;
    board.interactive = board.legal.length > 0;
    if (!board.interactive) board.selected = null;
    board.render();
    typedInput.disabled = !mine;
    // Only a player still in a game in progress types moves.
    typed.hidden = !model.stillPlaying;
    legal.hidden = !mine;
    if (mine) {
      const list = legalNow();
      legalSummary.textContent = t('play.legaln', { n: list.length });
      if (legal.open) legalList.replaceChildren(...list.map((m) => h('button', { type: 'button', onclick: () => sendMove(m) }, m)));
    }
  }

  function renderViewSel() {
    const cur = String(ctx.view.seat);
    viewSel.replaceChildren(...model.st.seats.map((s, i) => h('option', { value: i, selected: String(i) === cur },
      `${colourName(s.color)}${s.player ? ` (${s.player.name})` : ''}`)));
  }

  return { box, typed, legal, viewRow, ensureBoard, board: () => board, render, renderViewSel, sendMove, moved, refused, online, rejoined };
}
