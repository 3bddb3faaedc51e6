// The room's chat: its lines, and a field to say something. Two rooms, as
// lichess: the players talk among themselves, spectators among themselves
// (PROTOCOL.md, Chat rooms); the server sends each only its own room's.

import { t } from '../i18n.js';
import { h } from '../dom.js';

// ctx: {conn, id, model}. Returns {el, render}.
export function createChat(ctx) {
  const lines = h('div', { class: 'lines', id: 'chat-lines', 'aria-live': 'polite' });
  const input = h('input', { id: 'chat-input', placeholder: t('chat.say'), maxlength: 300, 'aria-label': t('chat.label') });

  function send() {
    const t = input.value.trim();
    if (!t) return;
    ctx.conn.request('chat', { room: ctx.id, text: t }, false);
    input.value = '';
  }

  function render() {
    // A stored game has no room left to talk in.
    el.hidden = !!ctx.model.st.archived;
    const players = ctx.model.st.you >= 0;
    title.textContent = players ? t('chat.players') : t('chat.spectators');
    el.dataset.channel = players ? 'players' : 'spectators';
    lines.replaceChildren(...(ctx.model.st.chat || []).map((c) => h('div', {}, h('span', { class: 'who' }, c.name), c.text)));
    lines.scrollTop = lines.scrollHeight;
  }

  const title = h('div', { class: 'chat-title', id: 'chat-title' });
  const el = h('div', { class: 'chat', id: 'chat' }, title, lines, h('form', { onsubmit: (e) => { e.preventDefault(); send(); } }, input));
  return { el, render };
}
