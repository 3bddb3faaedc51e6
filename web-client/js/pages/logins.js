// The account's sessions on the profile (PROTOCOL.md, "Accounts"): the
// browsers logged in to it (GET /api/sessions), each signed out on its own
// or all but this one (POST /api/sessions/end). A browser signed out comes
// back as a guest at once (the server closes its connection).

import { h } from '../dom.js';
import { fmtDateTime, t } from '../i18n.js';
import { api } from '../http.js';

// "Firefox on Windows" from a User-Agent; the order matters (Edge and
// Opera also say Chrome, Chrome also says Safari, Android also says Linux).
const BROWSERS = [[/Edg\//, 'Edge'], [/OPR\/|Opera/, 'Opera'], [/Firefox\//, 'Firefox'], [/Chrom(e|ium)\//, 'Chrome'], [/Safari\//, 'Safari']];
const SYSTEMS = [[/Android/, 'Android'], [/iPhone|iPad|iPod/, 'iOS'], [/Windows/, 'Windows'], [/Mac OS X|Macintosh/, 'macOS'], [/CrOS/, 'ChromeOS'], [/Linux/, 'Linux']];
export function deviceName(agent) {
  const browser = BROWSERS.find(([re]) => re.test(agent || ''));
  const os = SYSTEMS.find(([re]) => re.test(agent || ''));
  if (!browser) return t('sess.unknown');
  return os ? t('sess.on', { browser: browser[1], os: os[1] }) : browser[1];
}

// The profile's sessions box (an account is logged in).
export function loginsPanel() {
  const list = h('ul', { id: 'sessions-list', class: 'sessions' });
  const status = h('p', { class: 'status', id: 'sessions-status', role: 'status' });
  const others = h('button', { type: 'button', id: 'sessions-others', onclick: () => end({ others: true }) }, t('sess.others'));
  const box = h('section', { class: 'sessions-box', id: 'sessions' }, h('h3', {}, t('sess.title')),
    h('p', { class: 'muted' }, t('sess.note')), list, h('div', { class: 'row' }, others), status);

  async function end(body) {
    try {
      const r = await api('POST', '/api/sessions/end', body);
      status.textContent = r.ended ? t('sess.ended', { n: r.ended }) : t('sess.alone');
      await load();
    } catch (e) { status.textContent = e.message; }
  }

  async function load() {
    let sessions;
    try { ({ sessions } = await api('GET', '/api/sessions')); } catch (e) { status.textContent = e.message; return; }
    sessions.sort((a, b) => Number(b.current) - Number(a.current));
    list.replaceChildren(...sessions.map((s) => h('li', { 'data-current': String(s.current), title: s.agent },
      h('span', { class: 'device' }, deviceName(s.agent)),
      h('span', { class: 'muted' }, ` ${t('sess.since', { date: fmtDateTime(s.created_ms) })}`),
      s.current ? h('strong', { class: 'this-device' }, ` ${t('sess.current')}`)
        : h('button', { type: 'button', class: 'end-session', onclick: () => end({ id: s.id }) }, t('sess.end')))));
    others.disabled = !sessions.some((s) => !s.current);
  }
  load();
  return box;
}
