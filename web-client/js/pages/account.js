// Log in, register, profile. Accounts live in the store (issue 7): the
// server sets an HttpOnly session cookie on POST /api/login or
// /api/register and the WebSocket picks it up on its next connection.
// A guest can choose the name shown to others (hello's `name`); an account
// sees its profile and manages its vacation (correspondence clocks stop).

import { errText, fmtDateTime, t, tMaybe } from '../i18n.js';
import { h } from '../dom.js';
import { gameName, reasonText } from '../tables.js';
import { daysText, leftText } from '../corr.js';
import { noticeSettings } from '../notices.js';
import { pushSettings } from '../push.js';
import { noticesPanel } from './mail.js';
import { loginsPanel } from './logins.js';
import { totpPanel } from './totp.js';
import { myDataPanel } from './mydata.js';

async function post(path, body) {
  const r = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw Object.assign(new Error(data ? errText(data) : r.status === 404 ? t('acct.noaccounts') : t('err.http', { status: r.status })), { code: data && data.error });
  return data;
}

export function mount(main, params, app) {
  const status = h('p', { class: 'status', role: 'alert', id: 'account-status' });
  if (params.mode === 'profile') return profile(main, app, status);
  const register = params.mode === 'register';
  const user = h('input', { id: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 20 });
  const pass = h('input', { id: 'password', type: 'password', autocomplete: register ? 'new-password' : 'current-password', required: true, minlength: 8, maxlength: 128 });
  // Two-factor sign-in: the code's field shows once the server asks for it.
  const code = h('input', { id: 'login-code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 16, class: 'code' });
  const codeBox = h('div', { id: 'login-code-box', hidden: true }, h('label', { for: 'login-code' }, t('tf.logincode')), code);
  main.append(h('section', { class: 'panel', style: 'max-width:26em;margin:auto' },
    h('h1', {}, register ? t('acct.register') : t('hdr.login')),
    h('form', { id: 'account-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        const body = { username: user.value.trim(), password: pass.value };
        if (!codeBox.hidden && code.value.trim()) body.code = code.value.trim();
        await post(register ? '/api/register' : '/api/login', body);
        status.textContent = t('acct.welcome');
        app.conn.drop(); // reconnect so the server sees the session cookie
        app.go('#/');
      } catch (err) {
        status.textContent = err.message;
        if (err.code === 'totp_required' || err.code === 'bad_totp') {
          codeBox.hidden = false;
          code.value = '';
          code.focus();
        }
      }
    } },
    h('label', { for: 'username' }, t('acct.username')), user,
    h('p', { class: 'muted' }, t('acct.userhint')),
    h('label', { for: 'password' }, t('acct.password')), pass, codeBox,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, register ? t('acct.register') : t('hdr.login')),
      register ? h('a', { href: '#/login' }, t('acct.have')) : h('a', { href: '#/register' }, t('acct.create')),
      register ? null : h('a', { href: '#/forgot', id: 'forgot-link' }, t('acct.forgot')))),
    status));
  return null;
}

// The profile page: a guest's display name, or an account's games, record
// and vacation. Drawn again on each welcome (log-in, log-out, reconnection).
function profile(main, app, status) {
  const info = h('div', { id: 'profile' });
  const guestBox = h('div', { id: 'guest-box' });
  const vacBox = h('section', { class: 'vacation-box', id: 'vacation', hidden: true });
  const mailBox = h('div', { id: 'mail-box' });
  const loginsBox = h('div', { id: 'logins-box' });
  const totpBox = h('div', { id: 'totp-box' });
  const dataBox = h('div', { id: 'mydata-box' });
  const logout = h('button', { type: 'button', id: 'logout-btn', onclick: async () => {
    try {
      await post('/api/logout', {});
      status.textContent = t('acct.loggedout');
      app.conn.drop(); // say hello again without the session
    } catch (e) { status.textContent = e.message; }
  } }, t('acct.logout'));
  main.append(h('section', { class: 'panel' }, h('h1', {}, t('acct.profile')), guestBox, info, vacBox, mailBox, noticeSettings(pushSettings(app)), totpBox, loginsBox, dataBox, h('div', { class: 'row' }, logout), status));

  function drawGuest() {
    const nameIn = h('input', { id: 'guest-name', maxlength: 24, value: (app.me && app.me.name) || '' });
    guestBox.replaceChildren(h('p', { class: 'muted' }, t('acct.guest'), h('a', { href: '#/login' }, t('hdr.login')), t('w.or'),
      h('a', { href: '#/register' }, t('w.register')), t('acct.guest2')),
    h('form', { onsubmit: (e) => {
      e.preventDefault();
      app.conn.setName(nameIn.value.trim());
      app.conn.drop(); // say hello again with the new name
      status.textContent = t('acct.saved');
    } }, h('label', { for: 'guest-name' }, t('acct.shown')), nameIn,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('w.save')))));
  }

  // The store's profile (store_profile_json): username, in_progress
  // [{id, variant, your_turn, deadline...}], finished {variant: {wins,
  // losses, draws, games: [{id, outcome, reason...}]}}.
  async function drawAccount(who) {
    let p = null;
    try {
      const r = await fetch(`/api/profile/${encodeURIComponent(who)}`);
      if (r.ok) p = await r.json();
    } catch { /* offline */ }
    if (!p) { info.replaceChildren(h('p', { class: 'muted' }, t('acct.loggedin', { name: who }))); return; }
    const parts = [h('h2', { id: 'profile-name' }, p.username),
      h('p', {}, h('a', { href: `#/@/${encodeURIComponent(p.username)}`, id: 'player-page-link' }, t('acct.playerpage')))];
    const playing = (p.in_progress || []).slice().sort((a, b) => Number(b.your_turn) - Number(a.your_turn));
    if (playing.length) {
      parts.push(h('h3', {}, t('acct.inprogress')), h('ul', { id: 'profile-playing' }, playing.map((g) => h('li', {},
        h('a', { href: `#/game/${g.id}` }, `${gameName(g.variant)} #${g.id}`),
        g.your_turn ? h('strong', { class: 'your-turn' }, ` ${t('nav.turn')}`) : '',
        g.deadline ? h('span', { class: 'muted' }, t('acct.moveby', { date: fmtDateTime(g.deadline) })) : ''))));
    }
    for (const [variant, v] of Object.entries(p.finished || {})) {
      parts.push(h('h3', {}, t('acct.record', { game: gameName(variant), w: v.wins, l: v.losses, d: v.draws })),
        h('ul', {}, (v.games || []).map((g) => h('li', {}, h('a', { href: `#/game/${g.id}` }, `#${g.id}`), ` ${tMaybe(`outcome.${g.outcome}`) || g.outcome} (${reasonText(g.reason)})`))));
    }
    info.replaceChildren(...parts);
  }

  // Vacation (PROTOCOL.md, Vacation): 30 days a calendar year; while on
  // vacation, every correspondence clock of the account stops.
  const vacState = h('p', { id: 'vacation-state' });
  const vacDays = h('input', { id: 'vacation-days', type: 'number', min: 1, max: 30, value: 7, style: 'width:5em' });
  const vacStart = h('button', { type: 'submit', class: 'primary', id: 'vacation-start' }, t('acct.vacstart'));
  const vacEnd = h('button', { type: 'button', id: 'vacation-end', onclick: () => vacation('vacation_end', {}) }, t('acct.vacend'));
  const vacStatus = h('p', { class: 'status', id: 'vacation-status', role: 'status' });
  vacBox.append(h('h3', {}, t('acct.vacation')),
    h('p', { class: 'muted' }, t('acct.vacnote')),
    vacState,
    h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); vacation('vacation_start', { days: Number(vacDays.value) }); } },
      h('label', { for: 'vacation-days', class: 'inline' }, t('acct.days')), vacDays, vacStart, vacEnd),
    vacStatus);

  function showVacation(v) {
    vacState.replaceChildren(v.on
      ? h('strong', {}, t('acct.onvac', { date: fmtDateTime(v.until_ms), left: leftText(v.until_ms - Date.now()) }))
      : t('acct.novac'), ` ${t('acct.daysleft', { days: daysText(v.days_left) })}`);
    vacState.dataset.on = v.on ? 'true' : 'false';
    vacState.dataset.daysLeft = String(v.days_left);
    vacStart.disabled = v.on || v.days_left < 1;
    vacDays.max = String(Math.max(1, v.days_left));
    vacEnd.hidden = !v.on;
  }

  async function vacation(type, fields) {
    vacStatus.textContent = '';
    try {
      const v = await app.conn.request(type, fields);
      showVacation(v);
      if (type === 'vacation_start') vacStatus.textContent = t('acct.enjoy');
      if (type === 'vacation_end') vacStatus.textContent = t('acct.back');
    } catch (e) { if (e.code !== 'disconnected') vacStatus.textContent = errText(e); }
  }

  function draw() {
    const who = app.account;
    logout.hidden = !who;
    vacBox.hidden = !who;
    if (who) {
      guestBox.replaceChildren();
      drawAccount(who);
      vacation('vacation_status', {});
      mailBox.replaceChildren(noticesPanel());
      loginsBox.replaceChildren(loginsPanel());
      totpBox.replaceChildren(totpPanel());
      dataBox.replaceChildren(myDataPanel(who));
    } else {
      mailBox.replaceChildren();
      loginsBox.replaceChildren();
      totpBox.replaceChildren();
      dataBox.replaceChildren();
      info.replaceChildren();
      drawGuest();
    }
  }
  const off = app.conn.on('welcome', draw);
  if (app.conn.ready) draw();
  return off;
}
