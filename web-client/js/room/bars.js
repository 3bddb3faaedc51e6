// The players' bars above and below the board: name, presence, who left
// and why, whose turn it is, and the clock (live games) or the deadline
// (correspondence games), counted down locally between messages.

import { fmtDate, fmtDateTime, t } from '../i18n.js';
import { h, clockText, playerName } from '../dom.js';
import { ARMY_COLOURS, localName, pieceIcon, pieceSet } from '../pieces.js';
import { leftText, HOUR } from '../corr.js';
import { colourName, reasonText } from '../tables.js';
import { A11Y } from '../a11y.js';

// ctx: {model, view: {seat}, board()}. Returns {top, bottom, render, tick}.
export function createBars(ctx) {
  const top = h('div', { class: 'bars top-bars' });
  const bottom = h('div', { class: 'bars bottom-bars' });
  const model = ctx.model;
  // Said politely: whose turn it is when it changes, and the player's own
  // clock when it runs low (once per threshold and turn), never each tick.
  const live = h('div', { class: 'sr-only', id: 'clock-live', 'aria-live': 'polite' });
  let turnSaid = null, lowSaid = new Set();
  const LOW = [30000, 10000];

  function deadlineText(s) {
    const st = model.st;
    const left = model.deadlineLeft(s);
    if (left !== null) return t('bars.left', { left: leftText(left) });
    // Increment mode: the bank waiting for its owner's next turn.
    if (st.corr && st.corr.inc_days && st.status !== 'over' && !st.seats[s].left) return t('bars.bank', { left: leftText(st.clocks[s] || 0) });
    return '';
  }

  function clock(s) {
    const st = model.st;
    if (st.corr) {
      const c = h('span', { class: 'deadline', 'data-seat': s }, deadlineText(s));
      const d = st.deadlines && st.deadlines[s];
      if (d && st.status !== 'over') c.title = t('room.moveby', { date: fmtDateTime(d) });
      c.hidden = !c.textContent;
      return c;
    }
    // A stored game's clocks are not kept: its viewer shows none.
    const c = h('span', { class: 'clock', 'data-seat': s }, st.base_ms && !st.archived ? clockText(model.clockLeft(s)) : '');
    if (!st.base_ms || st.archived) c.hidden = true;
    // Before its first move a seat's clock does not run (PROTOCOL.md,
    // room: clocks): said beside it, the clock dimmed.
    if (st.base_ms && st.status !== 'over' && s === st.to_move && !st.clock_running && !st.moves.some((m) => m.seat === s)) {
      c.classList.add('waiting');
      return h('span', { class: 'clock-box' }, h('span', { class: 'muted first-move', 'data-seat': s }, `${t('bars.firstmove')} `), c);
    }
    return c;
  }

  // What a seat has taken: each kind of each owner once, drawn small, with
  // its count when more than one; named for screen readers.
  function taken(s, captured) {
    const st = model.st;
    const set = pieceSet(st.game) || {};
    const groups = new Map();
    for (const p of captured[s] || []) {
      const k = `${p.owner}:${p.kind}`;
      groups.set(k, { ...p, n: (groups.get(k)?.n || 0) + 1 });
    }
    if (!groups.size) return null;
    const items = [...groups.values()].sort((a, b) => a.owner - b.owner || a.kind.localeCompare(b.kind));
    const label = items.map((p) => `${p.n} \u00d7 ${set[p.kind] ? localName(set[p.kind].name, set[p.kind].key) : p.kind}`).join(', ');
    return h('span', { class: 'taken', 'data-seat': s, 'aria-label': t('bars.taken', { pieces: label }), title: t('bars.taken', { pieces: label }) },
      ...items.map((p) => {
        const svg = pieceIcon(st.game, p.kind, ctx.board().player(p.owner).colour);
        svg.setAttribute('aria-hidden', 'true');
        return h('span', { class: 'taken-piece', 'data-kind': p.kind, 'data-owner': p.owner }, svg, p.n > 1 ? h('sub', {}, String(p.n)) : null);
      }));
  }

  function bar(s, captured = []) {
    const st = model.st;
    const seat = st.seats[s];
    return h('div', { class: `player${s === st.to_move && st.status !== 'over' ? ' to-move' : ''}`, 'data-seat': s },
      h('span', {},
        h('span', { class: 'swatch', style: `background:${ARMY_COLOURS[ctx.board().player(s).colour].body}` }),
        playerName(seat.player),
        model.sharedSeat(s) ? h('span', { class: 'muted seat-colour' }, ` (${colourName(seat.color)})`) : null,
        seat.connected === false ? h('span', { class: 'muted' }, t('bars.away')) : null,
        seat.left ? h('span', { class: 'muted' }, t('bars.leftgame', { reason: reasonText(seat.left) })) : null,
        seat.vacation && st.status !== 'over' ? h('span', { class: 'muted vacation', 'data-seat': s, title: t('room.back', { date: fmtDateTime(seat.vacation) }) },
          ` \u2014 ${t('bars.vacation', { date: fmtDate(seat.vacation) })}`) : null,
        s === st.you ? h('span', { class: 'muted' }, t('bars.you')) : null,
        taken(s, captured)),
      clock(s));
  }

  // The army at the bottom of the board has its bar below it; the others,
  // in turn order from the top, above.
  function render() {
    const n = model.st.seats.length;
    const others = [];
    for (let i = 1; i < n; i++) others.push((ctx.view.seat + i) % n);
    const captured = model.capturedBy();
    top.replaceChildren(...others.reverse().map((s) => bar(s, captured)));
    bottom.replaceChildren(bar(ctx.view.seat, captured), live);
    const st = model.st;
    const turn = st.status === 'over' ? null : `${st.moves.length}:${st.to_move}`;
    if (turn !== turnSaid) {
      const timed = st.base_ms && !st.corr && !st.archived;
      const left = timed ? clockText(model.clockLeft(st.to_move)) : null;
      if (turnSaid !== null && turn !== null) {
        live.textContent = st.to_move === st.you ? A11Y.yourTurn(left) : A11Y.toMove(ctx.board().player(st.to_move).name, left);
      }
      turnSaid = turn;
      lowSaid = new Set();
    }
  }

  // Every 100 ms: the clocks and deadlines shown, without redrawing bars.
  // A text is written only when it changes (about once a second above ten
  // seconds): writing the same text still makes the page lay out and paint
  // again, ten times a second for each clock, a phone's battery spent.
  const shown = (sel) => [...top.querySelectorAll(sel), ...bottom.querySelectorAll(sel)];
  const setText = (e, text) => { if (e.textContent !== text) e.textContent = text; };
  function tick() {
    const st = model.st;
    if (!st) return;
    if (st.corr) {
      for (const c of shown('.deadline[data-seat]')) {
        const s = Number(c.dataset.seat);
        setText(c, deadlineText(s));
        const left = model.deadlineLeft(s);
        c.classList.toggle('low', left !== null && left < 12 * HOUR);
      }
      return;
    }
    if (!st.base_ms || st.archived) return;
    for (const c of shown('.clock[data-seat]')) {
      const s = Number(c.dataset.seat);
      const left = model.clockLeft(s);
      setText(c, clockText(left));
      c.classList.toggle('low', left < 10000);
      if (s === st.you && s === st.to_move && st.clock_running && st.status !== 'over') {
        const t = LOW.find((x) => left < x && left > 0 && !lowSaid.has(x));
        if (t) { for (const x of LOW) if (x >= t) lowSaid.add(x); live.textContent = A11Y.lowTime(clockText(left)); }
      }
    }
  }

  return { top, bottom, render, tick };
}
