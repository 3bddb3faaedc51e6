// The room's chat: its lines, and a field to say something (players and
// spectators alike).

import { h } from '../dom.js';

// ctx: {conn, id, model}. Returns {el, render}.
export function createChat(ctx) {
  const lines = h('div', { class: 'lines', id: 'chat-lines', 'aria-live': 'polite' });
  const input = h('input', { id: 'chat-input', placeholder: 'Say something\u2026', maxlength: 300, 'aria-label': 'Chat message' });

  function send() {
    const t = input.value.trim();
    if (!t) return;
    ctx.conn.request('chat', { room: ctx.id, text: t }, false);
    input.value = '';
  }

  function render() {
    // A stored game has no room left to talk in.
    el.hidden = !!ctx.model.st.archived;
    lines.replaceChildren(...(ctx.model.st.chat || []).map((c) => h('div', {}, h('span', { class: 'who' }, c.name), c.text)));
    lines.scrollTop = lines.scrollHeight;
  }

  const el = h('div', { class: 'chat' }, lines, h('form', { onsubmit: (e) => { e.preventDefault(); send(); } }, input));
  return { el, render };
}
