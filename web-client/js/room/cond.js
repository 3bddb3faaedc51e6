// Conditional moves (two-player correspondence games, PROTOCOL.md
// Conditional moves): the stored lines, each removable alone, and an editor
// (one line per row, move texts separated by spaces) to add more, or clear
// them all. Lines are entered while the opponent is to move.

import { h } from '../dom.js';
import { errText, t } from '../i18n.js';

// ctx: {conn, id, model}. Returns {el, render, reread}.
export function createCond(ctx) {
  const model = ctx.model;
  const lines = h('ol', { id: 'cond-lines' });
  const none = h('p', { class: 'muted', id: 'cond-none' }, t('cond.none'));
  const input = h('textarea', { id: 'cond-input', rows: 3, spellcheck: 'false', 'aria-label': t('cond.lines'), placeholder: t('cond.placeholder') });
  const status = h('div', { class: 'status', id: 'cond-status', role: 'status' });
  const save = h('button', { type: 'submit', class: 'primary', id: 'cond-save' }, t('cond.save'));
  const clear = h('button', { type: 'button', id: 'cond-clear', onclick: () => request('cond_clear', {}) }, t('cond.clear'));
  const el = h('section', { class: 'cond', id: 'cond', hidden: true },
    h('h3', {}, t('cond.title')),
    h('p', { class: 'muted' }, t('cond.note')),
    lines, none,
    h('form', { onsubmit: (e) => { e.preventDefault(); saveLines(); } }, input, h('div', { class: 'row' }, save, clear)),
    status);
  let readAt = -1; // the ply the stored lines were read at

  function playable() {
    const st = model.st;
    return st && st.corr && st.seats.length === 2 && model.stillPlaying;
  }

  // Each line with a button that removes it alone (cond_set of the rest).
  function show(list) {
    const st = model.st;
    const myTurn = st && st.to_move === st.you;
    lines.replaceChildren(...list.map((l, i) => h('li', { 'data-line': l }, l, ' ',
      h('button', { type: 'button', class: 'cond-drop', title: t('cond.remove'), 'aria-label': t('cond.removeline', { line: l }), disabled: myTurn,
        onclick: () => request('cond_set', { lines: list.filter((_, j) => j !== i) }) }, '\u00d7'))));
    none.hidden = list.length > 0;
    lines.hidden = list.length === 0;
    clear.hidden = list.length === 0;
  }

  async function request(type, fields) {
    status.textContent = '';
    try {
      const r = await ctx.conn.request(type, { room: ctx.id, ...fields });
      show(r.lines || []);
      if (type === 'cond_set') { input.value = ''; status.textContent = t(r.lines.length === 1 ? 'cond.stored1' : 'cond.storedn', { n: r.lines.length }); }
      if (type === 'cond_clear') status.textContent = t('cond.cleared');
      return r;
    } catch (e) {
      if (e.code !== 'disconnected') status.textContent = errText(e);
      return null;
    }
  }

  function saveLines() {
    const fresh = input.value.split('\n').map((l) => l.trim().split(/\s+/).join(' ')).filter(Boolean);
    if (!fresh.length) { status.textContent = t('cond.typefirst'); return; }
    const short = fresh.find((l) => l.split(' ').length < 2);
    if (short) { status.textContent = t('cond.short', { line: short }); return; }
    // New lines are added after the stored ones (cond_set replaces them all).
    const kept = [...lines.querySelectorAll('li[data-line]')].map((li) => li.dataset.line);
    request('cond_set', { lines: [...kept, ...fresh] });
  }

  function render() {
    el.hidden = !playable();
    if (el.hidden) return;
    const st = model.st;
    const myTurn = st.to_move === st.you;
    save.disabled = myTurn;
    input.disabled = myTurn;
    input.placeholder = myTurn ? t('cond.yourturn') : t('cond.placeholder');
    // Re-read after every move: a move may have answered or dropped lines.
    if (readAt !== st.moves.length && ctx.conn.ready) {
      readAt = st.moves.length;
      request('cond_get', {});
    }
  }

  // Read the lines again at the next render (a new state, a reconnection).
  return { el, render, reread: () => { readAt = -1; } };
}
