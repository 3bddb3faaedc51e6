// Two-factor sign-in on the profile (PROTOCOL.md, "Accounts"): set up (a
// key for an authenticator app, shown as text and as an otpauth:// link),
// turned on by a first code (ten recovery codes, shown once), turned off
// by a code or a recovery code. The login form asks for the code itself
// (account.js).

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { api } from '../http.js';

// The key in groups of four, as apps show it.
const grouped = (key) => key.replace(/(.{4})(?=.)/g, '$1 ');

export function totpPanel() {
  const body = h('div', { id: 'totp-body' });
  const status = h('p', { class: 'status', id: 'totp-status', role: 'status' });
  const box = h('section', { class: 'totp-box', id: 'totp' }, h('h3', {}, t('tf.title')), body, status);

  const codeInput = () => h('input', { id: 'totp-code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 16, required: true, class: 'code' });

  async function act(fn) {
    status.textContent = '';
    try { await fn(); } catch (e) { status.textContent = e.message; }
  }

  function showOff() {
    body.replaceChildren(h('p', { class: 'muted', id: 'totp-state', 'data-state': 'off' }, t('tf.off')),
      h('div', { class: 'row' }, h('button', { type: 'button', id: 'totp-setup', onclick: () => act(setup) }, t('tf.setup'))));
  }

  async function setup() {
    const s = await api('POST', '/api/2fa/setup', {});
    const code = codeInput();
    body.replaceChildren(h('p', { id: 'totp-state', 'data-state': 'pending' }, t('tf.addkey')),
      h('p', {}, h('code', { id: 'totp-secret', class: 'secret' }, grouped(s.secret))),
      h('p', {}, h('a', { href: s.uri, id: 'totp-uri' }, t('tf.openapp'))),
      h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); act(() => enable(code.value)); } },
        h('label', { for: 'totp-code', class: 'inline' }, t('tf.code')), code,
        h('button', { type: 'submit', class: 'primary', id: 'totp-enable' }, t('tf.enable'))));
    code.focus();
  }

  async function enable(code) {
    const r = await api('POST', '/api/2fa/enable', { code: code.trim() });
    showOn(r.recovery_codes.length);
    body.prepend(h('p', {}, t('tf.keep')), h('ul', { id: 'totp-recovery', class: 'recovery' }, r.recovery_codes.map((c) => h('li', {}, h('code', {}, c)))));
    status.textContent = t('tf.turnedon');
  }

  function showOn(left) {
    const code = codeInput();
    body.replaceChildren(h('p', { id: 'totp-state', 'data-state': 'on' }, t('tf.on', { n: left })),
      h('p', { class: 'muted' }, t('tf.offcode')),
      h('form', { class: 'row', onsubmit: (e) => {
        e.preventDefault();
        act(async () => { await api('POST', '/api/2fa/disable', { code: code.value.trim() }); showOff(); status.textContent = t('tf.turnedoff'); });
      } }, h('label', { for: 'totp-code', class: 'inline' }, t('tf.code')), code,
      h('button', { type: 'submit', id: 'totp-disable' }, t('tf.disable'))));
  }

  act(async () => {
    const s = await api('GET', '/api/2fa');
    if (s.enabled) showOn(s.recovery_left); else showOff();
  });
  return box;
}
