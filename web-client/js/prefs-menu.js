// The preferences menu in the header (the gear): theme, board colours,
// Ultima's piece set, language, sound. Every change applies at once (prefs.js) and
// is kept for the account when logged in (a new language reloads the page).

import { h } from './dom.js';
import { CHOICES, prefs, setPref, onPrefs } from './prefs.js';
import { currentLang, t, tMaybe } from './i18n.js';

export function mountPrefsMenu(app) {
  const btn = document.getElementById('prefs-btn');
  const panel = document.getElementById('prefs-panel');
  const status = h('p', { class: 'status muted', id: 'prefs-status', role: 'status' });
  const selects = {};
  const rows = Object.entries(CHOICES).map(([key, values]) => {
    const sel = h('select', { id: `pref-${key}`, 'data-pref': key },
      Object.entries(values).map(([v, label]) => h('option', { value: v }, tMaybe(`choice.${v}`) || label)));
    sel.addEventListener('change', async () => { status.textContent = (await setPref(app, key, sel.value)) || ''; });
    selects[key] = sel;
    return [h('label', { for: `pref-${key}` }, t(`prefs.${key}`)), sel];
  });
  const sound = h('input', { type: 'checkbox', id: 'pref-sound' });
  sound.addEventListener('change', async () => { status.textContent = (await setPref(app, 'sound', sound.checked)) || ''; });
  const where = h('p', { class: 'muted prefs-where' });
  panel.replaceChildren(
    h('h2', {}, t('hdr.prefs')),
    h('div', { class: 'form-grid' }, rows.flat(), h('label', { for: 'pref-sound' }, t('prefs.sound')), h('span', {}, sound)),
    where, status);
  const show = (p) => {
    for (const [k, sel] of Object.entries(selects)) sel.value = k === 'lang' ? (p.lang || currentLang()) : p[k];
    sound.checked = !!p.sound;
    where.textContent = app.account ? t('prefs.account', { name: app.account }) : t('prefs.browser');
  };
  onPrefs(show);
  app.conn.on('welcome', () => show(prefs()));
  show(prefs());
  const open = (on) => {
    panel.hidden = !on;
    btn.setAttribute('aria-expanded', String(on));
    if (on) panel.querySelector('select').focus();
  };
  btn.addEventListener('click', (e) => { e.stopPropagation(); open(panel.hidden); });
  panel.addEventListener('click', (e) => e.stopPropagation());
  document.addEventListener('click', () => { if (!panel.hidden) open(false); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !panel.hidden) { open(false); btn.focus(); } });
}
