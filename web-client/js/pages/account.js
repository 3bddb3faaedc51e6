// Log in, register, profile. Accounts live in the store (issue 7): the
// server sets an HttpOnly session cookie on POST /api/login or
// /api/register and the WebSocket picks it up on its next connection.
// Until the server offers these endpoints, the page says so and a guest
// can still choose the name shown to others (hello's `name`).

import { h } from '../dom.js';
import { GAME_TITLES } from '../geometry.js';

async function post(path, body) {
  const r = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw new Error((data && (data.reason || data.error)) || (r.status === 404 ? 'Accounts are not available on this server yet.' : `error ${r.status}`));
  return data;
}

export function mount(main, params, app) {
  const status = h('p', { class: 'status', role: 'alert', id: 'account-status' });
  if (params.mode === 'profile') {
    const nameIn = h('input', { id: 'guest-name', maxlength: 24, value: (app.me && app.me.name) || '' });
    const info = h('div', { id: 'profile' });
    main.append(h('section', { class: 'panel' }, h('h1', {}, 'Profile'), info,
      h('form', { onsubmit: (e) => {
        e.preventDefault();
        app.conn.setName(nameIn.value.trim());
        app.conn.drop(); // say hello again with the new name
        status.textContent = 'Saved.';
      } }, h('label', { for: 'guest-name' }, 'Name shown to other players'), nameIn,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Save'),
        h('button', { type: 'button', onclick: async () => {
          try { await post('/api/logout', {}); status.textContent = 'Logged out.'; app.conn.drop(); } catch (e) { status.textContent = e.message; }
        } }, 'Log out'))), status));
    const who = app.me ? app.me.name : null;
    if (who) {
      // The store's profile (store_profile_json): username, in_progress
      // [{id, variant, your_turn, deadline...}], finished {variant: {wins,
      // losses, draws, games: [{id, outcome, reason...}]}}.
      fetch(`/api/profile/${encodeURIComponent(who)}`).then((r) => (r.ok ? r.json() : null)).then((p) => {
        if (!p) { info.append(h('p', { class: 'muted' }, `Playing as ${who} (guest).`)); return; }
        info.append(h('h2', {}, p.username));
        const playing = (p.in_progress || []).slice().sort((a, b) => Number(b.your_turn) - Number(a.your_turn));
        if (playing.length) {
          info.append(h('h3', {}, 'Games in progress'), h('ul', { id: 'profile-playing' }, playing.map((g) => h('li', {},
            h('a', { href: `#/game/${g.id}` }, `${GAME_TITLES[g.variant] || g.variant} #${g.id}`),
            g.your_turn ? h('strong', { class: 'your-turn' }, ' your turn') : '',
            g.deadline ? h('span', { class: 'muted' }, ` (move by ${new Date(g.deadline).toLocaleString()})`) : ''))));
        }
        for (const [variant, v] of Object.entries(p.finished || {})) {
          info.append(h('h3', {}, `${GAME_TITLES[variant] || variant}: ${v.wins} won, ${v.losses} lost, ${v.draws} drawn`),
            h('ul', {}, (v.games || []).map((g) => h('li', {}, h('a', { href: `#/game/${g.id}` }, `#${g.id}`), ` ${g.outcome} (${g.reason})`))));
        }
      }).catch(() => {});
    }
    return null;
  }
  const register = params.mode === 'register';
  const user = h('input', { id: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 20 });
  const pass = h('input', { id: 'password', type: 'password', autocomplete: register ? 'new-password' : 'current-password', required: true, minlength: 8, maxlength: 128 });
  main.append(h('section', { class: 'panel', style: 'max-width:26em;margin:auto' },
    h('h1', {}, register ? 'Register' : 'Log in'),
    h('form', { id: 'account-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await post(register ? '/api/register' : '/api/login', { username: user.value.trim(), password: pass.value });
        status.textContent = 'Welcome!';
        app.conn.drop(); // reconnect so the server sees the session cookie
        app.go('#/');
      } catch (err) { status.textContent = err.message; }
    } },
    h('label', { for: 'username' }, 'Username'), user,
    h('p', { class: 'muted' }, '3 to 20 letters, digits, _ or -, starting with a letter.'),
    h('label', { for: 'password' }, 'Password'), pass,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, register ? 'Register' : 'Log in'),
      register ? h('a', { href: '#/login' }, 'I have an account') : h('a', { href: '#/register' }, 'Create an account'))),
    status));
  return null;
}
