// Move confirmation: the player's move is shown on the board, pending, with
// Confirm and Cancel, and sent only on Confirm. An option per kind of game,
// kept in localStorage ("chameleon.confirm": {"corr":bool,"live":bool}): on
// by default in correspondence games (a move there is meant to be
// considered), off in live ones. Premoves are never held.

import { t } from '../i18n.js';
import { h } from '../dom.js';

const KEY = 'chameleon.confirm';
const DEFAULTS = { corr: true, live: false };

function options() {
  try { return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || '{}') }; } catch { return { ...DEFAULTS }; }
}

// ctx: {model, render()}. Returns {el, wants(), ask(text, send), render()}.
export function createConfirm(ctx) {
  const model = ctx.model;
  const kind = () => (model.st && model.st.corr ? 'corr' : 'live');
  let pending = null; // {text, send}

  const box = h('input', {
    type: 'checkbox', id: 'confirm-opt',
    onchange: () => {
      const o = options();
      o[kind()] = box.checked;
      try { localStorage.setItem(KEY, JSON.stringify(o)); } catch { /* this page only */ }
      if (!box.checked && pending) cancel();
    },
  });
  const label = h('label', { class: 'confirm-opt', for: 'confirm-opt' }, box, ' ', h('span', { id: 'confirm-opt-text' }, ''));
  const what = h('span', { id: 'confirm-text' });
  const ok = h('button', { type: 'button', class: 'primary', id: 'btn-confirm', onclick: () => confirm() }, t('room.confirm'));
  const no = h('button', { type: 'button', id: 'btn-cancel-move', onclick: () => cancel() }, t('w.cancel'));
  const bar = h('div', { class: 'row confirm-bar', id: 'confirm-bar', role: 'group', 'aria-label': t('room.confirmyour'), hidden: true }, what, ok, no);
  const el = h('div', { class: 'confirm' }, bar, label);

  function confirm() {
    const p = pending;
    pending = null;
    bar.hidden = true;
    if (p && model.myTurn) p.send();
    else ctx.render();
  }
  function cancel() {
    pending = null;
    bar.hidden = true;
    ctx.render(); // the board shows the position again
  }

  return {
    el,
    // Should the player's next move wait for Confirm?
    wants: () => !!model.st && model.st.you >= 0 && options()[kind()],
    // Hold `text`; send() plays it once confirmed.
    ask(text, send) {
      pending = { text, send };
      what.textContent = t('confirm.play', { move: text });
      bar.hidden = false;
      ok.focus();
    },
    get pending() { return pending ? pending.text : null; },
    render() {
      const st = model.st;
      if (!st) return;
      // Not to a player who has left a three-player game (issue 34, item 9).
      label.hidden = !model.stillPlaying;
      box.checked = !!options()[kind()];
      label.lastChild.textContent = st.corr ? t('confirm.corr') : t('confirm.live');
      if (pending && !model.myTurn) { pending = null; bar.hidden = true; }
    },
  };
}
