// "Your data" on the profile (issue 37, account privacy): everything the
// site keeps about the account, as the account itself reads it over the
// API, in one JSON file (profile and ratings, preferences, progress in the
// lessons, e-mail settings, sessions, two-factor state), and every game as
// PGN (the archive's export, aborted games included). The password's hash,
// the push subscriptions' keys and the recovery codes' hashes are not
// given back: they are secrets the account never had in clear.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { api } from '../http.js';

// Each part of the file and where it is read; a part the server cannot
// give (mail off, say) is kept as its error.
const PARTS = [
  ['profile', (name) => `/api/profile/${encodeURIComponent(name)}`],
  ['preferences', () => '/api/prefs'],
  ['lessons', () => '/api/lessons'],
  ['mail', () => '/api/mail'],
  ['sessions', () => '/api/sessions'],
  ['two_factor', () => '/api/2fa'],
];

export async function collect(name) {
  const out = { account: name, exported_at: new Date().toISOString() };
  for (const [key, path] of PARTS) {
    try { out[key] = await api('GET', path(name)); } catch (e) { out[key] = { error: e.message }; }
  }
  return out;
}

export function myDataPanel(name) {
  const status = h('p', { class: 'status', id: 'mydata-status', role: 'status' });
  const json = h('button', { type: 'button', id: 'mydata-json', onclick: async () => {
    status.textContent = t('app.loading');
    const data = await collect(name);
    const a = h('a', { href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' })), download: `chameleon-${name}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    status.textContent = t('data.ready');
  } }, t('data.json'));
  const pgn = h('a', { id: 'mydata-pgn', href: `/api/games/user/${encodeURIComponent(name)}?aborted=include`, download: `chameleon-${name}.pgn` }, t('data.pgn'));
  return h('section', { class: 'mydata-box', id: 'mydata' }, h('h3', {}, t('data.title')),
    h('p', { class: 'muted' }, t('data.note')), h('div', { class: 'row' }, json, pgn), status);
}
