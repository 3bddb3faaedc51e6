// Leaderboards (#/leaderboard/<game>): per game and pace, the best players
// rated in the last three months who are no longer provisional. Reads GET
// /api/leaderboard/<game> (PROTOCOL.md, "Ratings").

import { t } from '../i18n.js';
import { h } from '../dom.js';
import { games } from '../tables.js';

const PACES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

export function mount(main, params, app) {
  const sel = h('select', { id: 'board-game' });
  const body = h('div', { id: 'boards' });
  const status = h('p', { class: 'status', role: 'status', id: 'board-status' });
  let current = params.game || '';
  const fill = () => {
    const list = games();
    if (!current && list.length) current = list[0].id;
    sel.replaceChildren(...list.map((g) => h('option', { value: g.id, selected: g.id === current }, g.name)));
  };
  sel.addEventListener('change', () => app.go(`#/leaderboard/${sel.value}`));
  main.append(h('section', { class: 'panel' }, h('h1', {}, t('lb.title')),
    h('p', { class: 'muted' }, t('lb.intro')),
    h('label', { for: 'board-game' }, t('w.game')), sel, status, body));

  let alive = true;
  async function load() {
    if (!current) return;
    let b = null;
    try {
      const r = await fetch(`/api/leaderboard/${encodeURIComponent(current)}`);
      if (r.ok) b = await r.json();
    } catch { /* offline */ }
    if (!alive) return;
    if (!b) { status.textContent = t('lb.noload'); return; }
    status.textContent = '';
    const parts = [];
    for (const pace of PACES) {
      const list = b.paces[pace];
      if (!list || !list.length) continue;
      parts.push(h('h2', {}, t(`pace.${pace}`)),
        h('table', { class: 'list board', 'data-pace': pace },
          h('thead', {}, h('tr', {}, ['#', t('w.player'), t('lb.rating'), t('lb.games')].map((x) => h('th', {}, x)))),
          h('tbody', {}, list.map((e, i) => h('tr', {}, h('td', {}, String(i + 1)),
            h('td', {}, h('a', { href: `#/@/${encodeURIComponent(e.username)}` }, e.username)),
            h('td', {}, String(Math.round(e.rating))), h('td', {}, String(e.games)))))));
    }
    body.replaceChildren(...(parts.length ? parts : [h('p', { class: 'muted', id: 'board-empty' }, t('lb.empty'))]));
  }
  const off = app.conn.on('welcome', () => { fill(); load(); });
  fill();
  load();
  return () => { alive = false; off(); };
}
