// The move list and the buttons (and arrow keys) that step through it.
// ctx.view.ply is the ply shown: null for the live position, else 0 (the
// start) up to the number of moves.

import { h } from '../dom.js';
import { A11Y } from '../a11y.js';
import { t } from '../i18n.js';
import { ARMY_COLOURS } from '../pieces.js';

// ctx: {model, view: {ply}, stepped(), board()}: stepped() redraws what
// shows the ply.
export function createHistory(ctx) {
  const model = ctx.model;
  const moves = h('div', { class: 'moves', id: 'moves', 'aria-label': t('w.moves') });
  // The latest move, said politely once when it comes (not the whole list).
  const live = h('div', { class: 'sr-only', id: 'move-live', 'aria-live': 'polite' });
  let said = null;

  const count = () => model.st.moves.length;
  const go = (ply) => { ctx.view.ply = ply; ctx.stepped(); };
  // The ply after `ply`, or null once that is the live position.
  const next = (ply) => (ply + 1 >= count() ? null : ply + 1);
  const button = (label, title, id, onclick) => h('button', { type: 'button', title, 'aria-label': title, id, onclick }, label);
  const stepper = h('div', { class: 'step' },
    button('\u00ab', t('step.first'), null, () => go(0)),
    button('\u25c0', t('step.prev'), 'step-back', () => go(Math.max(0, (ctx.view.ply ?? count()) - 1))),
    button('\u25b6', t('step.next'), 'step-fwd', () => { if (ctx.view.ply !== null) go(next(ctx.view.ply)); }),
    button('\u00bb', t('step.current'), null, () => go(null)));

  const onKey = (e) => {
    if (!model.st || e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft') document.getElementById('step-back').click();
    else if (e.key === 'ArrowRight') document.getElementById('step-fwd').click();
  };
  document.addEventListener('keydown', onKey);

  function render() {
    const st = model.st;
    const n = st.seats.length;
    const cur = ctx.view.ply === null ? st.moves.length : ctx.view.ply;
    const items = [];
    // Three players: a column per seat under its colour, a row per round
    // (style.css .moves.p3); a seat that has left leaves its cell empty.
    const p3 = n > 2;
    moves.classList.toggle('p3', p3);
    const board = ctx.board && ctx.board();
    const colour = (s) => (board ? ARMY_COLOURS[board.player(s).colour].body : 'transparent');
    if (p3) {
      st.seats.forEach((s, i) => items.push(h('span', { class: 'seat-head', style: `grid-column:${i + 2}` },
        h('span', { class: 'swatch', style: `background:${colour(i)}` }), model.seatName(i))));
    }
    let round = 0, prev = Infinity;
    st.moves.forEach((m, i) => {
      const seat = m.seat ?? i % n;
      if (p3 ? seat <= prev : i % n === 0) items.push(h('span', { class: 'ply-no', style: p3 ? 'grid-column:1' : null }, `${++round}.`));
      prev = seat;
      items.push(h('button', {
        type: 'button', class: i + 1 === cur ? 'current' : '', 'data-ply': i + 1, 'data-seat': seat,
        style: p3 ? `grid-column:${seat + 2}` : null,
        onclick: () => go(i + 1 === st.moves.length ? null : i + 1),
      }, m.display || m.move));
    });
    moves.replaceChildren(...items, live);
    const last = st.moves[st.moves.length - 1];
    if (said !== null && st.moves.length > said && last) live.textContent = A11Y.move(st.moves.length, last.display || last.move);
    said = st.moves.length;
    if (moves.querySelector('.current') && ctx.view.ply === null) moves.scrollTop = moves.scrollHeight;
  }

  // A new move arrived while its predecessor was shown: follow the game.
  function moved(plies) {
    if (ctx.view.ply !== null && ctx.view.ply === plies - 1) ctx.view.ply = null;
  }

  return { moves, stepper, render, moved, destroy: () => document.removeEventListener('keydown', onKey) };
}
