// The board of a room and the ways to move on it: click or drag (board.js),
// a typed move, the list of legal moves as buttons (for keyboard and
// screen-reader players); and the "view as" choice of the army at the
// bottom. The board shows the ply the move list points at (history.js).

import { h } from '../dom.js';
import { Board, parseMove } from '../board.js';
import { pieceName } from '../pieces.js';

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

  const box = h('div', { class: 'board-box' });
  const typedInput = h('input', { id: 'move-input', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Type a move', placeholder: 'Type a move, e.g. e2-e4' });
  const typed = h('form', { class: 'typed', id: 'typed', onsubmit: (e) => { e.preventDefault(); sendTyped(); } },
    typedInput, h('button', { type: 'submit' }, 'Play'));
  const legalList = h('div', { class: 'legal-list', id: 'legal-list' });
  const legalSummary = h('summary', {}, 'Legal moves');
  const legal = h('details', { class: 'legal', hidden: true }, legalSummary, legalList);
  legal.addEventListener('toggle', () => render());
  const viewSel = h('select', { id: 'view-seat', 'aria-label': 'Army at the bottom' });
  viewSel.addEventListener('change', () => { ctx.view.seat = Number(viewSel.value); ctx.render(); });
  const viewRow = h('div', { class: 'row' }, h('label', { for: 'view-seat', style: 'margin:0' }, 'View as'), viewSel);

  // The board, made with the first state of the room.
  function ensureBoard() {
    const st = model.st;
    if (!board) board = new Board(box, { game: st.game, onMove: sendMove, pieceName: (k) => pieceName(st.game, k) });
    board.colours = st.seats.map((s) => s.color);
    board.view = ctx.view.seat;
  }

  function sendMove(text) {
    ctx.say('');
    if (board && ctx.view.ply === null) {
      board.position = preview(board.position, text);
      board.legal = [];
      board.interactive = false;
      board.render();
    }
    ctx.conn.request('move', { room: ctx.id, move: text }, false);
  }

  function sendTyped() {
    const t = typedInput.value.trim();
    if (!t) return;
    const st = model.st;
    if (!st || st.you < 0) { ctx.say('You are watching this game.'); return; }
    sendMove(t);
    typedInput.value = '';
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
    board.marks = marks(ply, live);
    const mine = live && model.myTurn;
    board.legal = mine ? (st.legal || []).map(parseMove).filter(Boolean) : [];
    board.interactive = board.legal.length > 0;
    if (!board.interactive) board.selected = null;
    board.render();
    typedInput.disabled = !mine;
    // Only a player still in a game in progress types moves.
    typed.hidden = !(st.you >= 0 && st.status !== 'over');
    legal.hidden = !mine;
    if (mine) {
      legalSummary.textContent = `Legal moves (${st.legal.length})`;
      if (legal.open) legalList.replaceChildren(...st.legal.map((t) => h('button', { type: 'button', onclick: () => sendMove(t) }, t)));
    }
  }

  function renderViewSel() {
    const cur = String(ctx.view.seat);
    viewSel.replaceChildren(...model.st.seats.map((s, i) => h('option', { value: i, selected: String(i) === cur },
      `${s.color}${s.player ? ` (${s.player.name})` : ''}`)));
  }

  return { box, typed, legal, viewRow, ensureBoard, board: () => board, render, renderViewSel, sendMove };
}
