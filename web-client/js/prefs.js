// Preferences: the theme, the board's colours, Ultima's piece set, the
// language (i18n.js) and sound. Everyone's are kept in this browser (localStorage
// 'chameleon.prefs'; sound also under the sound module's own key
// 'chameleon.sound'); an account's are kept on the server too (GET and
// POST /api/prefs, PROTOCOL.md "Preferences"), read at each welcome, so
// they follow the account to another browser. boot.js applies the theme
// before the first paint; apply() does the rest.

import { setUltimaStyle } from './pieces.js';
import { redrawBoards } from './board.js';
import { LANGS, errText, setLang, t } from './i18n.js';

const KEY = 'chameleon.prefs';
const SOUND_KEY = 'chameleon.sound';

// The values each key may take (the server checks the same list).
export const CHOICES = {
  theme: { dark: 'Dark', light: 'Light' },
  board: { wood: 'Wood', blue: 'Blue', green: 'Green', grey: 'Grey' },
  ultima_pieces: { chess: 'Chess pieces', discs: 'Pictographic discs' },
  lang: LANGS, // no default: the browser's language (i18n.js) until chosen
};
export const DEFAULTS = { theme: 'dark', board: 'wood', ultima_pieces: 'chess', sound: true };

function clean(p) {
  const out = {};
  for (const [k, v] of Object.entries(p || {})) {
    if (CHOICES[k] ? Object.hasOwn(CHOICES[k], v) : k === 'sound' && typeof v === 'boolean') out[k] = v;
  }
  return out;
}

function readLocal() {
  let p = {};
  try { p = clean(JSON.parse(localStorage.getItem(KEY) || '{}')); } catch { /* the defaults */ }
  const s = localStorage.getItem(SOUND_KEY);
  if (s !== null && p.sound === undefined) p.sound = !['off', '0', 'false'].includes(s);
  return { ...DEFAULTS, ...p };
}

let current = readLocal();
const listeners = new Set();

export function prefs() { return { ...current }; }
export function onPrefs(fn) { listeners.add(fn); return () => listeners.delete(fn); }

function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
    localStorage.setItem(SOUND_KEY, current.sound ? 'on' : 'off');
  } catch { /* private mode: this page only */ }
}

export function apply() {
  const d = document.documentElement;
  d.dataset.theme = current.theme;
  d.dataset.board = current.board;
  setUltimaStyle(current.ultima_pieces);
  // A language that changed (chosen here or the account's): the callers
  // reload the page, as pages draw their words when mounted.
  const langChanged = setLang(current.lang);
  redrawBoards();
  for (const fn of [...listeners]) { try { fn(prefs()); } catch (e) { console.error(e); } }
  return langChanged;
}

async function http(method, body) {
  const r = await fetch('/api/prefs', {
    method, credentials: 'same-origin', headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw new Error(data ? errText(data) : t('err.http', { status: r.status }));
  return data;
}

// Changes one preference here, and on the server for an account.
// Resolves to an error text when the server did not keep it (the change
// stays in this browser), else null.
export async function setPref(app, key, value) {
  current = { ...current, ...clean({ [key]: value }) };
  save();
  const reload = apply();
  let err = null;
  if (app.account) {
    try { await http('POST', current); } catch (e) { err = t('prefs.notsaved', { why: e.message }); }
  }
  if (reload) location.reload();
  return err;
}

// At each welcome: an account's stored preferences replace this browser's
// (and are cached for the next page load's first paint).
export async function syncFromServer(app) {
  if (!app.account) return;
  try {
    const r = await http('GET');
    const stored = clean(r.prefs);
    if (!Object.keys(stored).length) return; // none yet: keep these
    current = { ...current, ...stored };
    save();
    if (apply()) location.reload();
  } catch (e) { console.warn('prefs', e); }
}
