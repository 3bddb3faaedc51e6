// E-mail (PROTOCOL.md, "E-mail"): on the profile, the account's address
// (confirmed by a link before anything else is sent to it) and which
// notices it gets; and the pages the mails link to: #/confirm/<token>,
// #/reset/<token>, and #/forgot (ask for a reset link).

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { api } from '../http.js';

const KINDS = ['move', 'digest', 'low_time', 'start_end'].map((k) => [k, `mail.k.${k}`]);

// The profile's e-mail box (an account is logged in).
export function noticesPanel() {
  const box = h('section', { class: 'notices-box', id: 'notices' }, h('h3', {}, t('mail.email')));
  const status = h('p', { class: 'status', id: 'notices-status', role: 'status' });
  const addrState = h('p', { id: 'mail-address' });
  const addrIn = h('input', { id: 'mail-address-input', type: 'email', autocomplete: 'email', maxlength: 254, required: true });
  const checks = Object.fromEntries(KINDS.map(([k]) => [k, h('input', { type: 'checkbox', id: `notice-${k}` })]));
  const remind = h('input', { id: 'notice-remind', type: 'number', min: 0, max: 30, value: 0, class: 'days' });
  const prefs = h('form', { id: 'notices-form', onsubmit: async (e) => {
    e.preventDefault();
    const body = { remind_days: Number(remind.value) || 0 };
    for (const [k] of KINDS) body[k] = checks[k].checked;
    try { show(await api('POST', '/api/mail/prefs', body)); status.textContent = t('acct.saved'); } catch (err) { status.textContent = err.message; }
  } },
  ...KINDS.map(([k, key]) => h('label', { class: 'check', for: `notice-${k}` }, checks[k], ` ${t(key)}`)),
  h('label', { for: 'notice-remind' }, t('mail.remind')), remind,
  h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', id: 'notices-save' }, t('mail.savenotices'))));

  const addrForm = h('form', { id: 'mail-address-form', onsubmit: async (e) => {
    e.preventDefault();
    try {
      const r = await api('POST', '/api/mail/address', { address: addrIn.value.trim() });
      status.textContent = t('mail.sent', { address: r.address });
    } catch (err) { status.textContent = err.message; }
  } }, h('label', { for: 'mail-address-input', id: 'mail-address-label' }, t('mail.address')), addrIn,
  h('div', { class: 'row' }, h('button', { type: 'submit', id: 'mail-address-save' }, t('mail.sendconfirm'))));

  // Forgetting the address (its pending links and its mail go too; the
  // choices of notices stay for a new one).
  let shown = {};
  const del = h('button', { type: 'button', id: 'mail-address-delete', hidden: true, onclick: async () => {
    try {
      await api('POST', '/api/mail/address/delete', {});
      show({ ...shown, address: null });
      status.textContent = t('mail.deleted');
    } catch (err) { status.textContent = err.message; }
  } }, t('mail.delete'));

  function show(s) {
    shown = s;
    del.hidden = !s.address;
    addrState.textContent = s.address ? t('mail.youraddress', { address: s.address }) : t('mail.noaddress');
    addrForm.querySelector('#mail-address-label').textContent = s.address ? t('mail.newaddress') : t('mail.address');
    for (const [k] of KINDS) checks[k].checked = !!s[k];
    remind.value = String(s.remind_days || 0);
  }

  box.append(h('p', { class: 'muted' }, t('app.loading')));
  api('GET', '/api/mail').then((s) => {
    show(s);
    if (!s.on) { // an address kept from before can still be forgotten
      box.replaceChildren(box.firstChild, h('p', { class: 'muted', id: 'mail-off' }, t('mail.off')), ...(s.address ? [addrState, h('div', { class: 'row' }, del), status] : []));
      return;
    }
    box.replaceChildren(box.firstChild, addrState, h('div', { class: 'row' }, del), addrForm, h('h4', {}, t('mail.notices')), prefs, status);
  }).catch((e) => { box.replaceChildren(box.firstChild, h('p', { class: 'muted' }, e.message)); });
  return box;
}

// #/confirm/<token>, #/reset/<token>, #/forgot.
export function mount(main, params, app) {
  const status = h('p', { class: 'status', role: 'alert', id: 'notices-page-status' });
  const panel = h('section', { class: 'panel narrow' });
  main.append(panel);
  if (params.mode === 'confirm') {
    panel.append(h('h1', {}, t('mail.confirmtitle')), status);
    status.textContent = t('mail.confirming');
    api('POST', '/api/mail/confirm', { token: params.token })
      .then((r) => { status.replaceChildren(t('mail.confirmed', { address: r.address }), h('a', { href: '#/profile' }, t('mail.settings'))); })
      .catch((e) => { status.textContent = e.message; });
    return null;
  }
  if (params.mode === 'reset') {
    const pass = h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 });
    panel.append(h('h1', {}, t('mail.newpwtitle')),
      h('form', { id: 'reset-form', onsubmit: async (e) => {
        e.preventDefault();
        try {
          await api('POST', '/api/password/reset', { token: params.token, password: pass.value });
          status.replaceChildren(t('mail.pwchanged'), h('a', { href: '#/login' }, t('hdr.login')));
          app.conn.drop(); // this browser's session ended too
        } catch (err) { status.textContent = err.message; }
      } }, h('label', { for: 'new-password' }, t('mail.newpw')), pass,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('mail.changepw')))),
      status);
    return null;
  }
  const login = h('input', { id: 'forgot-login', autocomplete: 'username', required: true, maxlength: 254 });
  panel.append(h('h1', {}, t('acct.forgot')),
    h('p', { class: 'muted' }, t('mail.forgotnote')),
    h('form', { id: 'forgot-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('POST', '/api/password/forgot', { login: login.value.trim() });
        status.textContent = t('mail.forgotsent');
      } catch (err) { status.textContent = err.message; }
    } }, h('label', { for: 'forgot-login' }, t('mail.login')), login,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('mail.sendlink')))),
    status);
  return null;
}
