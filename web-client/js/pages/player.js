// A player's page (#/@/<name>): ratings per game and pace with their
// history as an SVG chart, won / lost / drawn per game, games in progress,
// and the archive of finished games with filters (game, live or
// correspondence, result, opponent) and pages. Reads GET /api/profile/<name>
// and GET /api/archive/<name>?<key>=<value>&... (PROTOCOL.md, "Ratings").

import { fmtDate, t, tMaybe } from '../i18n.js';
import { h, ratingText, timeControl } from '../dom.js';
import { gameName, games, reasonText } from '../tables.js';

const PACES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

// The rating after each rated game, as a line (oldest on the left); the
// band is the deviation (rating +- 2 rd, clipped to the chart).
export function ratingChart(history) {
  const W = 320, H = 110, L = 38, R = 6, T = 8, B = 18;
  const pts = history.map((p) => p.rating);
  const lo = Math.floor((Math.min(...pts) - 20) / 50) * 50, hi = Math.ceil((Math.max(...pts) + 20) / 50) * 50;
  const x = (i) => L + (pts.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (pts.length - 1));
  const y = (v) => T + ((hi - Math.max(lo, Math.min(hi, v))) * (H - T - B)) / (hi - lo);
  const band = history.map((p, i) => `${x(i)},${y(p.rating + 2 * p.rd)}`)
    .concat(history.map((p, i) => `${x(i)},${y(p.rating - 2 * p.rd)}`).reverse()).join(' ');
  const line = history.map((p, i) => `${x(i)},${y(p.rating)}`).join(' ');
  const first = fmtDate(history[0].at), last = fmtDate(history[history.length - 1].at);
  return svg('svg', { class: 'rating-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t('pl.chart', { n: pts.length, from: Math.round(pts[0]), to: Math.round(pts[pts.length - 1]) }) },
    svg('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }),
    svg('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }),
    svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end', class: 'label' }, String(hi)),
    svg('text', { x: L - 4, y: H - B, 'text-anchor': 'end', class: 'label' }, String(lo)),
    svg('text', { x: L, y: H - 4, class: 'label' }, first),
    svg('text', { x: W - R, y: H - 4, 'text-anchor': 'end', class: 'label' }, last),
    svg('polygon', { points: band, class: 'band' }),
    svg('polyline', { points: line, class: 'line' }),
    ...history.map((p, i) => svg('circle', { cx: x(i), cy: y(p.rating), r: pts.length > 40 ? 1 : 2, class: 'dot' },
      svg('title', {}, t('pl.after', { rating: Math.round(p.rating), game: p.game })))));
}

export function mount(main, params, app) {
  const name = params.name;
  const head = h('h1', { id: 'player-name' }, name);
  const ratingsBox = h('div', { id: 'player-ratings', class: 'rating-cards' });
  const recordBox = h('div', { id: 'player-record' });
  const playingBox = h('div', { id: 'player-playing' });
  const status = h('p', { class: 'status', role: 'status', id: 'player-status' }, t('app.loading'));
  // The archive's filters and pages.
  const gameSel = h('select', { id: 'f-game' });
  const kindSel = h('select', { id: 'f-kind' }, [['', t('pl.allkinds')], ['live', t('pl.live')], ['correspondence', t('w.corr')]]
    .map(([v, text]) => h('option', { value: v }, text)));
  const resultSel = h('select', { id: 'f-result' }, [['', t('pl.anyresult')], ['win', t('pl.won')], ['loss', t('pl.lost')], ['draw', t('pl.drawn')]]
    .map(([v, text]) => h('option', { value: v }, text)));
  const vsIn = h('input', { id: 'f-vs', placeholder: t('pl.opponent'), maxlength: 20, size: 12 });
  // Aborted games (no move played) are left out unless asked for.
  const abortedIn = h('input', { type: 'checkbox', id: 'f-aborted' });
  const rows = h('tbody', { id: 'archive-rows' });
  const empty = h('p', { class: 'muted', id: 'archive-empty', hidden: true }, t('pl.nomatch'));
  const exportLink = h('a', { href: `/api/games/user/${encodeURIComponent(name)}`, id: 'export-pgn', download: `${name}.pgn` }, t('pl.download'));
  const newer = h('button', { type: 'button', id: 'archive-newer', disabled: true }, t('pl.newer'));
  const older = h('button', { type: 'button', id: 'archive-older', disabled: true }, t('pl.older'));
  const fillGames = () => {
    const keep = gameSel.value;
    gameSel.replaceChildren(h('option', { value: '' }, t('pl.everygame')),
      ...games().map((g) => h('option', { value: g.id, selected: g.id === keep }, g.name)));
  };
  fillGames();

  main.append(h('section', { class: 'panel player-page' }, head, status,
    h('h2', {}, t('pl.ratings')), ratingsBox,
    recordBox, playingBox,
    h('h2', {}, t('lb.games')),
    h('form', { class: 'filters', id: 'archive-filters', onsubmit: (e) => { e.preventDefault(); pages = [0]; loadPage(); } },
      h('label', { class: 'sr-only', for: 'f-game' }, t('w.game')), gameSel,
      h('label', { class: 'sr-only', for: 'f-kind' }, t('pl.kind')), kindSel,
      h('label', { class: 'sr-only', for: 'f-result' }, t('pl.result')), resultSel,
      h('label', { class: 'sr-only', for: 'f-vs' }, t('pl.opponent')), vsIn,
      h('label', { class: 'inline', for: 'f-aborted' }, abortedIn, ` ${t('pl.aborted')}`),
      h('button', { type: 'submit', class: 'primary' }, t('pl.show'))),
    h('div', { class: 'table-scroll' }, h('table', { class: 'list archive' },
      h('thead', {}, h('tr', {}, [t('w.game'), t('w.players'), t('pl.result'), t('lb.rating'), t('pl.date')].map((x) => h('th', {}, x)))), rows)),
    empty,
    h('div', { class: 'row' }, newer, older,
      exportLink)));

  let alive = true;
  // pages[i]: the `before` of page i (0: the newest).
  let pages = [0], page = 0, next = 0;

  async function loadProfile() {
    let p = null;
    try {
      const r = await fetch(`/api/profile/${encodeURIComponent(name)}`);
      if (r.status === 404) { status.textContent = t('pl.nosuch', { name }); return; }
      if (r.ok) p = await r.json();
    } catch { /* offline */ }
    if (!alive) return;
    if (!p) { status.textContent = t('pl.noload'); return; }
    status.textContent = '';
    head.textContent = p.username;
    const cards = [];
    for (const [variant, paces] of Object.entries(p.ratings || {})) {
      for (const pace of PACES) {
        const r = paces[pace];
        if (!r) continue;
        cards.push(h('div', { class: 'rating-card', 'data-game': variant, 'data-pace': pace },
          h('div', { class: 'rating-title' }, `${gameName(variant)} \u00b7 ${t(`pace.${pace}`).toLowerCase()}`),
          h('div', { class: 'rating-value' }, ratingText(r.rating, r.provisional),
            h('span', { class: 'muted' }, ` RD ${Math.round(r.rd)} \u00b7 ${t(r.games === 1 ? 'life.game1' : 'life.gamesn', { n: r.games })}`)),
          r.history && r.history.length ? ratingChart(r.history) : null));
      }
    }
    ratingsBox.replaceChildren(...(cards.length ? cards : [h('p', { class: 'muted' }, t('pl.norated'))]));
    const fin = Object.entries(p.finished || {});
    recordBox.replaceChildren(...(fin.length ? [h('h2', {}, t('pl.record')), h('table', { class: 'list', id: 'record' },
      h('thead', {}, h('tr', {}, [t('w.game'), t('pl.won'), t('pl.lost'), t('pl.drawn')].map((x) => h('th', {}, x)))),
      h('tbody', {}, fin.map(([v, x]) => h('tr', { 'data-game': v }, h('td', {}, gameName(v)), h('td', {}, String(x.wins)),
        h('td', {}, String(x.losses)), h('td', {}, String(x.draws))))))] : []));
    const playing = p.in_progress || [];
    playingBox.replaceChildren(...(playing.length ? [h('h2', {}, t('pl.playing')), h('ul', { id: 'player-current' },
      playing.map((g) => h('li', {}, h('a', { href: `#/game/${g.id}` }, `${gameName(g.variant)} #${g.id}`),
        g.kind === 'correspondence' ? h('span', { class: 'muted' }, ` ${t('pl.corr')}`) : null)))] : []));
  }

  function outcomeText(g) {
    return tMaybe(`outcome.${g.outcome}`) || g.outcome;
  }

  async function loadPage() {
    const q = new URLSearchParams();
    if (gameSel.value) q.set('game', gameSel.value);
    if (kindSel.value) q.set('kind', kindSel.value);
    if (resultSel.value) q.set('result', resultSel.value);
    if (vsIn.value.trim()) q.set('vs', vsIn.value.trim());
    if (abortedIn.checked) q.set('aborted', 'include');
    // The export takes the same filters: the link downloads what is shown.
    exportLink.href = `/api/games/user/${encodeURIComponent(name)}${q.toString() ? `?${q}` : ''}`;
    q.set('limit', '20');
    if (pages[page]) q.set('before', String(pages[page]));
    let a = null;
    try {
      const r = await fetch(`/api/archive/${encodeURIComponent(name)}?${q}`);
      if (r.ok) a = await r.json();
    } catch { /* offline */ }
    if (!alive) return;
    if (!a) { rows.replaceChildren(); empty.hidden = false; newer.disabled = older.disabled = true; return; }
    rows.replaceChildren(...a.games.map((g) => {
      const diff = g.rating_after !== undefined ? Math.round(g.rating_after) - Math.round(g.rating_before) : null;
      return h('tr', { 'data-id': g.id },
        h('td', {}, h('a', { href: `#/analysis/game/${g.id}` }, gameName(g.variant)), h('br'),
          h('span', { class: 'muted' }, g.kind === 'correspondence' ? t('pl.corr') : timeControl(g.base_ms, g.inc_ms), g.rated ? ` \u00b7 ${t('w.rated')}` : '')),
        h('td', {}, g.players.flatMap((n, i) => [i ? ' \u2013 ' : null, n === a.username ? h('strong', {}, n) : h('a', { href: `#/@/${encodeURIComponent(n)}` }, n)])),
        h('td', { class: `outcome ${g.outcome}` }, outcomeText(g), h('br'), h('span', { class: 'muted' }, reasonText(g.reason))),
        h('td', {}, diff === null ? '' : h('span', { class: diff >= 0 ? 'up' : 'down' }, `${Math.round(g.rating_after)} (${diff >= 0 ? '+' : ''}${diff})`)),
        h('td', {}, fmtDate(g.finished)));
    }));
    empty.hidden = a.games.length > 0;
    next = a.more ? a.next : 0;
    newer.disabled = page === 0;
    older.disabled = !next;
  }
  newer.addEventListener('click', () => { if (page > 0) { page--; loadPage(); } });
  older.addEventListener('click', () => { if (next) { pages[page + 1] = next; page++; loadPage(); } });

  const off = app.conn.on('welcome', fillGames);
  loadProfile();
  loadPage();
  return () => { alive = false; off(); };
}
