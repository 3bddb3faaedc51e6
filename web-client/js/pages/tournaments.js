// Correspondence round-robin tournaments (PROTOCOL.md, "Tournaments"):
//   #/tournaments        the list: open, running, finished
//   #/tournaments/new    the creation form (accounts)
//   #/tournament/<id>    one tournament: entry, standings, the crosstable
//                        (live: tourney_watch), the schedule with a link to
//                        every game, the director's controls, the PGN.
// Reads GET /api/tournaments[/<id>]; acts with POST (the session cookie).

import { errText, fmtDateTime, t as tr } from '../i18n.js';
import { corrControl, daysText } from '../corr.js';
import { h } from '../dom.js';
import { games, gameName, corrDays } from '../tables.js';

async function call(method, path, body) {
  const r = await fetch(path, {
    method, headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw new Error(data ? errText(data) : tr('err.http', { status: r.status }));
  return data;
}

// ½ and ¼ as chess writes them.
export function pts(x) {
  if (x === null || x === undefined) return '';
  const whole = Math.floor(x + 1e-9), frac = x - whole;
  const f = Math.abs(frac - 0.5) < 1e-9 ? '\u00bd' : Math.abs(frac - 0.25) < 1e-9 ? '\u00bc'
    : Math.abs(frac - 0.75) < 1e-9 ? '\u00be' : frac > 1e-9 ? frac.toFixed(2).slice(1) : '';
  return whole === 0 && f ? f : `${whole}${f}`;
}

const tcText = (c) => corrControl(c);

const STATES = [['open', 'tour.open'], ['running', 'tour.running'], ['finished', 'tour.finished']];

function list(main, app) {
  const body = h('div', { id: 'tourney-lists' });
  const status = h('p', { class: 'status', role: 'status' });
  const create = h('a', { href: '#/tournaments/new', class: 'button-link', id: 'tourney-new' }, tr('tour.create'));
  main.append(h('section', { class: 'panel tourney' }, h('div', { class: 'row spread' },
    h('h1', {}, tr('tour.title')), create),
  h('p', { class: 'muted' }, tr('tour.intro')),
  status, body));
  let alive = true;
  async function load() {
    create.hidden = !app.account;
    let data;
    try { data = await call('GET', '/api/tournaments'); } catch (e) { if (alive) status.textContent = tr('tour.noload', { why: e.message }); return; }
    if (!alive) return;
    status.textContent = '';
    const all = data.tournaments.slice().reverse(); // newest first
    body.replaceChildren(...STATES.map(([state, key]) => {
      const title = tr(key);
      const rows = all.filter((t) => t.state === state);
      return h('div', { class: 'tourney-group', 'data-state': state }, h('h2', {}, title),
        rows.length ? h('div', { class: 'table-scroll' }, h('table', { class: 'list' },
          h('thead', {}, h('tr', {}, [tr('tour.name'), tr('w.game'), tr('tour.entrants'), tr('tour.tc'), ''].map((x) => h('th', {}, x)))),
          h('tbody', {}, rows.map((t) => h('tr', { class: 'seek', 'data-id': t.id, onclick: () => app.go(`#/tournament/${t.id}`) },
            h('td', {}, h('a', { href: `#/tournament/${t.id}` }, t.name)),
            h('td', {}, gameName(t.game), t.double ? ` \u00b7 ${tr('tour.dbl')}` : ''),
            h('td', {}, `${t.entrants}/${t.size}`),
            h('td', {}, tcText(t.corr)),
            h('td', {}, state === 'running' ? tr('tour.gamesof', { f: t.games_finished, n: t.games }) : t.invite_only ? tr('tour.byinvite') : ''))))))
          : h('p', { class: 'muted' }, state === 'open' ? tr('tour.noneopen') : tr('tour.noneyet')));
    }));
  }
  const off = app.conn.on('welcome', load);
  load();
  return () => { alive = false; off(); };
}

function form(main, app) {
  const status = h('p', { class: 'status', role: 'alert', id: 'tourney-form-status' });
  const name = h('input', { id: 't-name', required: true, maxlength: 63, value: tr('tour.defname') });
  const game = h('select', { id: 't-game' }, games().map((g) => h('option', { value: g.id }, g.name)));
  const size = h('select', { id: 't-size' }, Array.from({ length: 10 }, (_, i) => h('option', { value: i + 3, selected: i + 3 === 4 }, String(i + 3))));
  const twice = h('select', { id: 't-double' }, h('option', { value: '0' }, tr('tour.single')), h('option', { value: '1' }, tr('tour.double')));
  const days = h('select', { id: 't-days' }, (corrDays().length ? corrDays() : [1, 2, 3, 5, 7, 10, 14]).map((d) => h('option', { value: d, selected: d === 3 }, daysText(d))));
  const inc = h('input', { id: 't-inc', type: 'number', min: 0, max: 14, value: 0 });
  const start = h('input', { id: 't-start', type: 'datetime-local' });
  const invite = h('input', { id: 't-invite', placeholder: tr('tour.inviteph') });
  const rated = h('input', { id: 't-rated', type: 'checkbox' });
  const join = h('input', { id: 't-join', type: 'checkbox', checked: true });
  const submit = h('button', { class: 'primary', type: 'submit', id: 't-create' }, tr('w.create'));
  const f = h('form', { class: 'tourney-form' },
    h('label', { for: 't-name' }, tr('tour.name')), name,
    h('div', { class: 'grid2' },
      h('div', {}, h('label', { for: 't-game' }, tr('w.game')), game),
      h('div', {}, h('label', { for: 't-size' }, tr('tour.atmost')), size),
      h('div', {}, h('label', { for: 't-double' }, tr('tour.rr')), twice),
      h('div', {}, h('label', { for: 't-days' }, tr('tour.days')), days),
      h('div', {}, h('label', { for: 't-inc' }, tr('tour.inc')), inc),
      h('div', {}, h('label', { for: 't-start' }, tr('tour.start')), start)),
    h('label', { for: 't-invite' }, tr('tour.invite')), invite,
    h('div', { class: 'row' }, h('label', { class: 'inline' }, rated, tr('life.rated')),
      h('label', { class: 'inline' }, join, tr('tour.enterme'))),
    h('div', { class: 'row' }, submit), status);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {
      name: name.value.trim(), game: game.value, size: Number(size.value), double: twice.value === '1',
      corr: { days: Number(days.value), inc_days: Number(inc.value) || 0 }, rated: rated.checked,
    };
    if (start.value) body.start_ms = new Date(start.value).getTime();
    const inv = invite.value.split(',').map((x) => x.trim()).filter(Boolean);
    if (inv.length) body.invite = inv;
    submit.disabled = true;
    try {
      const t = await call('POST', '/api/tournaments', body);
      if (join.checked) await call('POST', `/api/tournaments/${t.id}/join`, {});
      app.go(`#/tournament/${t.id}`);
    } catch (err) { status.textContent = err.message; submit.disabled = false; }
  });
  const note = h('p', { class: 'muted' });
  main.append(h('section', { class: 'panel tourney' }, h('h1', {}, tr('tour.new')), note, f));
  const gate = () => {
    f.hidden = !app.account;
    note.replaceChildren(...(app.account ? [tr('tour.direct')]
      : [tr('tour.need'), h('a', { href: '#/login' }, tr('w.login')), tr('w.or'), h('a', { href: '#/register' }, tr('w.register')), '.']));
  };
  const off = app.conn.on('welcome', gate);
  gate();
  return off;
}

function resultText(t, g, idx) {
  if (!g.finished) return '';
  const s = g.players.indexOf(idx);
  return s < 0 ? '' : pts(g.points[s]);
}

function view(main, params, app) {
  const id = params.id;
  const head = h('div', { id: 'tourney-head' });
  const actions = h('div', { class: 'row', id: 'tourney-actions' });
  const status = h('p', { class: 'status', role: 'alert', id: 'tourney-status' });
  const standings = h('div', { id: 'tourney-standings' });
  const cross = h('div', { id: 'tourney-cross' });
  const schedule = h('div', { id: 'tourney-schedule' });
  const standingsTitle = h('h2', {}, tr('tour.standings'));
  main.append(h('section', { class: 'panel tourney' }, head, actions, status),
    h('section', { class: 'panel tourney' }, standingsTitle, standings),
    h('section', { class: 'panel tourney' }, h('h2', {}, tr('tour.crosstable')), cross),
    h('section', { class: 'panel tourney' }, h('h2', {}, tr('tour.schedule')), schedule));
  let t = null;

  const act = (action, body) => async () => {
    status.textContent = '';
    try { render(await call('POST', `/api/tournaments/${id}/${action}`, body || {})); } catch (e) { status.textContent = e.message; }
  };

  function render(next) {
    t = next;
    app.tourney = t; // for the browser tests
    const me = app.account;
    const mine = t.entrants.find((e) => e.username === me);
    const director = me && me === t.director;
    const start = t.start_ms ? tr('tour.starts', { date: fmtDateTime(t.start_ms) }) : tr('tour.startsfull');
    head.replaceChildren(h('h1', {}, t.name),
      h('p', { class: 'muted' }, [gameName(t.game), tr(t.double ? 'tour.doublerr' : 'tour.singlerr'), tcText(t.corr),
        tr(t.rated ? 'tour.rated' : 'tour.unrated'), tr(t.invite_only ? 'tour.byinvite' : 'tour.openentry')].join(' \u00b7 ')),
      h('p', {}, h('span', { class: `tag state ${t.state}`, id: 'tourney-state', 'data-state': t.state }, tr(`tstate.${t.state}`)),
        tr('tour.directed', { name: t.director, n: t.entrants.filter((e) => e.status !== 'invited').length, size: t.size })
        + (t.state === 'open' ? ` \u00b7 ${start}` : t.state === 'running' ? tr('tour.gamesdone', { f: t.games_finished, n: t.games }) : '')));
    const buttons = [];
    if (t.state === 'open' && me) {
      if (mine && mine.status === 'joined') buttons.push(h('button', { id: 't-leave', onclick: act('leave') }, tr('tour.leave')));
      else buttons.push(h('button', { class: 'primary', id: 't-enter', onclick: act('join') }, tr('w.join')));
      if (director) {
        buttons.push(h('button', { id: 't-start-now', onclick: act('start') }, tr('tour.startnow')),
          h('button', { id: 't-cancel', onclick: act('cancel') }, tr('tour.cancel')));
      }
    }
    if (t.state === 'running' && mine && mine.status === 'joined') {
      buttons.push(h('button', { id: 't-withdraw', onclick: () => { if (confirm(tr('tour.withdrawq'))) act('withdraw')(); } }, tr('tour.withdraw')));
    }
    if (t.state !== 'open' && t.state !== 'cancelled') buttons.push(h('a', { href: `/api/tournaments/${id}.pgn`, class: 'button-link', id: 't-pgn', download: `tournament-${id}.pgn` }, 'PGN'));
    if (!me && t.state === 'open') buttons.push(h('span', { class: 'muted' }, h('a', { href: '#/login' }, tr('hdr.login')), tr('tour.toenter')));
    actions.replaceChildren(...buttons);

    const section = t.entrants.filter((e) => e.idx >= 0).sort((a, b) => a.idx - b.idx);
    if (!section.length) {
      // Before the start: who is in.
      standings.replaceChildren(t.entrants.length ? h('ul', { class: 'entrants' }, t.entrants.map((e) => h('li', { 'data-user': e.username },
        h('a', { href: `#/@/${encodeURIComponent(e.username)}` }, e.username),
        e.status === 'invited' ? h('span', { class: 'muted' }, tr('tour.invited')) : null,
        director && t.state === 'open' ? h('button', { class: 'small', onclick: act('remove', { username: e.username }) }, tr('tour.remove')) : null)))
        : h('p', { class: 'muted' }, tr('tour.nobody')));
      cross.replaceChildren(h('p', { class: 'muted' }, t.state === 'cancelled' ? tr('tour.cancelled') : tr('tour.crosslater')));
      schedule.replaceChildren(h('p', { class: 'muted' }, t.state === 'cancelled' ? '' : tr('tour.schedlater')));
      standingsTitle.textContent = tr('tour.entrants');
      return;
    }
    standingsTitle.textContent = tr('tour.standings');
    const order = section.slice().sort((a, b) => a.place - b.place || a.idx - b.idx);
    standings.replaceChildren(h('div', { class: 'table-scroll' }, h('table', { class: 'list standings' },
      h('thead', {}, h('tr', {}, ['#', tr('w.player'), tr('tour.score'), t.seats === 3 ? tr('tour.tiebreak') : 'Sonneborn-Berger', tr('tour.played')].map((x) => h('th', {}, x)))),
      h('tbody', {}, order.map((e) => h('tr', { 'data-user': e.username, class: e.struck ? 'struck' : '' },
        h('td', {}, String(e.place)),
        h('td', {}, h('a', { href: `#/@/${encodeURIComponent(e.username)}` }, e.username),
          e.status === 'withdrawn' ? h('span', { class: 'muted' }, tr(e.struck ? 'tour.withdrewstruck' : 'tour.withdrew')) : null),
        h('td', { class: 'score' }, pts(e.score)),
        h('td', {}, e.tiebreak.toFixed(2)),
        h('td', {}, `${e.played}/${e.games}`)))))));
    // The crosstable: row i, column j: i's points against j (pairwise for
    // three players); every cell links to the games of the pair.
    const gamesOf = (i, j) => t.schedule.filter((g) => g.players.includes(i) && g.players.includes(j));
    cross.replaceChildren(h('div', { class: 'table-scroll cross-scroll' }, h('table', { class: 'cross', id: 'crosstable' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, tr('w.player')), section.map((e) => h('th', { title: e.username }, String(e.idx + 1))), h('th', {}, tr('tour.score')))),
      h('tbody', {}, section.map((e) => h('tr', { 'data-user': e.username },
        h('th', {}, String(e.idx + 1)), h('td', { class: 'name' }, e.username),
        section.map((o) => (o.idx === e.idx ? h('td', { class: 'self' }, '')
          : h('td', { 'data-cell': `${e.idx}-${o.idx}` }, gamesOf(e.idx, o.idx).map((g) => h('a', { href: `#/game/${g.id}`, class: g.finished ? 'res' : 'res pending', title: tr('tour.gametitle', { id: g.id }) },
            g.finished ? resultText(t, g, e.idx) || '0' : '\u00b7'))))),
        h('td', { class: 'score' }, pts(e.score))))))));
    const rounds = [...new Set(t.schedule.map((g) => g.round))];
    const nameOf = (i) => (section.find((e) => e.idx === i) || {}).username || '?';
    schedule.replaceChildren(...rounds.map((r) => h('div', { class: 'round' }, h('h3', {}, tr('tour.round', { r })),
      h('ul', { class: 'pairings' }, t.schedule.filter((g) => g.round === r).map((g) => h('li', { 'data-game': g.id },
        h('a', { href: `#/game/${g.id}` }, g.players.map(nameOf).join(' \u2013 ')), ' ',
        h('span', { class: g.finished ? 'res' : 'muted' }, g.finished ? g.points.map(pts).map((x) => x || '0').join(' \u2013 ') : tr('tour.inprogress')),
        g.finished && !g.counts ? h('span', { class: 'muted' }, tr('tour.struck')) : null))))));
  }

  async function load() {
    try { render(await call('GET', `/api/tournaments/${id}`)); } catch (e) { status.textContent = tr('tour.noload1', { why: e.message }); }
  }
  // Live: the server pushes the whole tournament on every change.
  const offPush = app.conn.on('tourney', (m) => { if (m.tourney && m.tourney.id === id) render(m.tourney); });
  const offW = app.conn.on('welcome', () => {
    app.conn.request('tourney_watch', { tourney: id }, false);
    if (t) render(t); // the account may have changed
  });
  load();
  app.conn.request('tourney_watch', { tourney: id }, false);
  return () => {
    offPush(); offW();
    app.conn.request('tourney_unwatch', { tourney: id }, false);
    app.tourney = null;
  };
}

export function mount(main, params, app) {
  if (params.id) return view(main, params, app);
  if (params.create) return form(main, app);
  return list(main, app);
}
