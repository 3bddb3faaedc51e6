// The home page. At the top, on every width, what the site is and three
// doors: play now (the computer at once, or the first open game), learn
// (the rules), the games in progress. Below, the lobby: the open seeks,
// live; create a game (public or by invitation);
// accept a seek or an invitation link; play the computer (bot_game: game,
// level, colour, clock) or fill the free seats of your own three-player
// seek with bots (seek_fill). Correspondence seeks (days per move, or a
// bank with an increment) need an account and are listed apart.

import { h, playerName, timeControl } from '../dom.js';
import { corrControl, corrSeek, daysText, isCorr } from '../corr.js';
import { colourName, corrDays, gameInfo, gameName, games } from '../tables.js';
import { lobbyLife } from './lobby-life.js';
import { errText, t } from '../i18n.js';

// Each level with what it does (common/search.c, levels: levels 3 to 7
// look 2 to 6 moves ahead, with less and less noise; 8 has no limit but
// its clock), so that a player can choose (issue 34, item 8).
const LEVELS = () => [[1, t('lobby.level1')], [2, t('lobby.level2')],
  ...[3, 4, 5, 6, 7].map((n) => [n, t('lobby.leveln', { n, d: n - 1 })]), [8, t('lobby.level8')]];

const TIME_CONTROLS = [
  ['1+0', 60000, 0], ['3+2', 180000, 2000], ['5+3', 300000, 3000], ['10+5', 600000, 5000],
  ['15+10', 900000, 10000], ['30+20', 1800000, 20000], ['no clock', 0, 0],
];
const tcName = (n) => (n === 'no clock' ? t('w.noclock') : n);

export function mount(main, params, app) {
  const conn = app.conn;
  const life = lobbyLife(app); // counts, games to watch, challenges
  const offs = [life.off];
  const seeks = new Map();
  let lastSeq = -1;

  const tbody = h('tbody', { id: 'seeks' });
  const empty = h('p', { class: 'muted', id: 'no-seeks' }, t('lobby.noseeks'));
  const status = h('p', { class: 'status', id: 'lobby-status', role: 'status' });
  const invite = h('div', { id: 'invite' });

  // The server's tables (games, days per move) fill the choices once the
  // welcome has come, and again after each one; until then they are empty.
  const refill = (sel, items, fallback) => {
    const keep = sel.value || String(fallback);
    sel.replaceChildren(...items.map(([value, text]) => h('option', { value, selected: String(value) === keep }, text)));
  };
  const gameSel = h('select', { id: 'new-game', name: 'game' });
  const gamesTitle = h('h2', { hidden: true }, t('lobby.thegames'));
  const gameLinks = h('ul', { class: 'game-links' });
  // Their own panel: on a phone it goes last, after the ways to play.
  const gamesPanel = h('section', { class: 'panel', id: 'game-links-panel', hidden: true }, gamesTitle, gameLinks);
  const tcSel = h('select', { id: 'new-tc', name: 'tc' },
    TIME_CONTROLS.map(([n], i) => h('option', { value: i, selected: n === '5+3' }, tcName(n))));
  const priv = h('input', { type: 'checkbox', id: 'new-private' });
  // Rated games need an account on every seat: offered once logged in.
  const rated = h('input', { type: 'checkbox', id: 'new-rated' });
  const ratedLabel = h('label', { id: 'new-rated-label' }, rated, t('lobby.ratedlabel'));
  // A rated seek may say who may accept it, by rating (both or neither).
  const rmin = h('input', { type: 'number', id: 'new-rating-min', min: 0, max: 4000, step: 50, placeholder: t('lobby.from'), class: 'rating-in' });
  const rmax = h('input', { type: 'number', id: 'new-rating-max', min: 0, max: 4000, step: 50, placeholder: t('lobby.to'), class: 'rating-in' });
  const rangeBox = h('div', { id: 'new-range', class: 'row', hidden: true },
    h('label', { for: 'new-rating-min', class: 'inline' }, t('lobby.range')), rmin, '\u2013', rmax);
  rated.addEventListener('change', () => { rangeBox.hidden = !rated.checked; });
  // My ratings ({game: {pace: {rating}}}, from my profile): seeks whose
  // range leaves me out are not listed (the server would refuse me).
  let myRatings = {};
  async function loadMine() {
    myRatings = {};
    if (!app.account) return;
    try {
      const r = await fetch(`/api/profile/${encodeURIComponent(app.account)}`);
      if (r.ok) myRatings = (await r.json()).ratings || {};
    } catch { /* offline: list everything */ }
    renderSeeks();
  }
  const paceOf = (s) => {
    if (isCorr(s)) return 'correspondence';
    const est = Math.floor(s.base_ms / 1000) + 40 * Math.floor(s.inc_ms / 1000);
    return est < 180 ? 'bullet' : est < 480 ? 'blitz' : est < 1500 ? 'rapid' : 'classical';
  };
  // A seek this identity is seated in.
  const isMine = (s) => !!app.me && s.players.some((p) => p.id === app.me.id);
  const outOfRange = (s) => {
    if (!s.rating_range) return false;
    const mine = myRatings[s.game]?.[paceOf(s)];
    const r = mine ? Math.round(mine.rating) : 1500;
    return r < s.rating_range[0] || r > s.rating_range[1];
  };
  const kindLive = h('input', { type: 'radio', name: 'kind', id: 'kind-live', value: 'live', checked: true });
  const kindCorr = h('input', { type: 'radio', name: 'kind', id: 'kind-corr', value: 'corr' });
  const daysSel = h('select', { id: 'new-days', name: 'days' });
  // Play the computer.
  const botGameSel = h('select', { id: 'bot-game', name: 'bot-game' });
  const levelSel = h('select', { id: 'bot-level', name: 'level' },
    LEVELS().map(([v, text]) => h('option', { value: v, selected: v === 3 }, text)));
  const seatSel = h('select', { id: 'bot-seat', name: 'seat' });
  const botTcSel = h('select', { id: 'bot-tc', name: 'bot-tc' });
  const botBtn = h('button', { type: 'submit', class: 'primary', id: 'bot-btn' }, t('w.play'));
  const botStatus = h('p', { class: 'status', id: 'bot-status', role: 'status' });
  const fillSeats = () => {
    const g = gameInfo(botGameSel.value);
    refill(seatSel, [[-1, t('w.random')], ...((g && g.colors) || []).map((c, i) => [i, colourName(c)])], -1);
  };
  const fillBotTc = () => refill(botTcSel, [
    ...TIME_CONTROLS.map(([n], i) => [i, tcName(n)]),
    ...(app.account ? [['corr', t('lobby.corrtc', { days: daysText(1) })]] : []),
  ], 6);
  botGameSel.addEventListener('change', fillSeats);

  // The doors. "Play now" says which game and level the computer plays
  // (the panel below chooses them).
  const doorStatus = h('p', { class: 'status', id: 'door-status', role: 'status' });
  const playText = h('p', { class: 'muted', id: 'door-play-text' });
  const fillPlayText = () => {
    playText.textContent = t('home.playtext', { game: gameName(botGameSel.value), level: levelSel.value });
  };
  botGameSel.addEventListener('change', fillPlayText);
  levelSel.addEventListener('change', fillPlayText);

  const doorBot = h('button', { type: 'button', class: 'primary', id: 'door-computer', onclick: (e) => playBot(e, doorStatus) }, t('lobby.bot'));
  const doorPair = h('button', { type: 'button', id: 'door-pair', onclick: () => quickPair() }, t('home.pair'));

  function fillTables() {
    refill(gameSel, games().map((g) => [g.id, g.name]), '');
    refill(botGameSel, games().map((g) => [g.id, g.players > 2 ? t('lobby.twobots', { game: g.name }) : g.name]), '');
    fillSeats();
    fillBotTc();
    botBtn.disabled = !games().length;
    doorBot.disabled = !games().length;
    doorPair.disabled = !games().length;
    fillPlayText();
    refill(daysSel, corrDays().map((d) => [d, daysText(d)]), 3);
    gameLinks.replaceChildren(...games().map((g) => h('li', {}, h('a', { href: `#/howto/${g.id}` }, g.name),
      h('span', { class: 'muted' }, t('lobby.howto')))));
    gamesTitle.hidden = !games().length;
    gamesPanel.hidden = !games().length;
  }
  fillTables();
  const incMode = h('input', { type: 'checkbox', id: 'new-inc' });
  const liveBox = h('div', { id: 'live-options' },
    h('label', { for: 'new-tc' }, t('lobby.tc')), tcSel);
  const corrNote = h('p', { class: 'muted', id: 'corr-login' });
  const createBtn = h('button', { type: 'submit', class: 'primary', id: 'create-btn' }, t('w.create'));
  const corrBox = h('div', { id: 'corr-options', hidden: true },
    h('label', { for: 'new-days' }, t('lobby.days')), daysSel,
    h('label', {}, incMode, t('lobby.incmode')),
    corrNote);
  function kindChanged() {
    const corr = kindCorr.checked;
    liveBox.hidden = corr;
    corrBox.hidden = !corr;
    const needLogin = corr && !app.account;
    corrNote.replaceChildren(...(needLogin
      ? [t('lobby.corrneed'),
        h('a', { href: '#/login', id: 'corr-login-link' }, t('w.login')), t('w.or'), h('a', { href: '#/register' }, t('w.register')), '.']
      : [t('lobby.corrnote')]));
    corrNote.className = needLogin ? 'status error' : 'muted';
    createBtn.disabled = needLogin || !games().length; // no game to choose before the welcome
    ratedLabel.hidden = !app.account;
    if (!app.account) rated.checked = false;
    rangeBox.hidden = !rated.checked;
  }
  kindLive.addEventListener('change', kindChanged);
  kindCorr.addEventListener('change', kindChanged);

  function renderSeeks() {
    const list = [...seeks.values()].filter((s) => !outOfRange(s) || isMine(s))
      .sort((a, b) => a.id - b.id);
    empty.hidden = list.length > 0;
    tbody.replaceChildren(...list.map((s) => {
      const mine = isMine(s);
      const corr = isCorr(s);
      const guestCorr = (corr || s.rated) && !app.account; // correspondence and rated games need an account
      // Your own seek waiting for more than one player: bots may take the
      // free seats now (seek_fill, at the level chosen below).
      const fill = mine && s.players[0].id === app.me.id && s.seats > 2 && s.players.length < s.seats;
      return h('tr', { class: corr ? 'seek corr' : 'seek', 'data-seek': s.id, 'data-kind': corr ? 'corr' : 'live', 'data-game': s.game, onclick: () => !mine && !guestCorr && accept({ seek: s.id }) },
        h('td', {}, s.players.flatMap((p, i) => [i ? ', ' : null, playerName(p)])),
        h('td', {}, gameName(s.game)),
        h('td', {}, corr ? h('span', { class: 'tag corr' }, '\u2709 ', corrControl(s.corr)) : timeControl(s.base_ms, s.inc_ms),
          s.rated ? h('span', { class: 'tag rated', title: t('lobby.ratedgame') }, t('w.rated'),
            s.rating_range ? ` ${s.rating_range[0]}\u2013${s.rating_range[1]}` : '') : null),
        h('td', {}, `${s.players.length}/${s.seats}`),
        h('td', {}, mine
          ? h('div', { class: 'seek-actions' }, fill ? h('button', { type: 'button', class: 'fill', 'data-seek': s.id, title: t('lobby.filltitle', { level: levelSel.value }), onclick: (e) => { e.stopPropagation(); fillBots(s.id); } }, t('lobby.addbots')) : null,
            h('button', { type: 'button', class: 'cancel', onclick: (e) => { e.stopPropagation(); cancel(s.id); } }, t('w.cancel')))
          : guestCorr
            // The server would refuse a guest (account_required): say why first.
            ? h('a', { href: '#/login', class: 'login-to-join', onclick: (e) => e.stopPropagation() }, t('lobby.logintojoin'))
            : h('button', { type: 'button', class: 'join primary', 'data-seek': s.id }, t('w.join'))));
    }));
  }

  async function accept(what) {
    status.textContent = t('lobby.joining');
    try {
      const r = await conn.request('seek_accept', what);
      if (r.type === 'seek_joined') status.textContent = t('lobby.seattaken');
    } catch (e) { status.textContent = errText(e) || t('lobby.nojoin'); status.className = 'status error'; }
  }

  async function fillBots(id) {
    status.className = 'status';
    status.textContent = t('lobby.startingbots');
    try { await conn.request('seek_fill', { seek: id, level: Number(levelSel.value) }); } catch (e) { status.textContent = errText(e) || t('lobby.nobots'); status.className = 'status error'; }
    invite.replaceChildren();
  }

  // The computer's panel, or the door (which says how it went beside it).
  async function playBot(ev, out = botStatus) {
    ev.preventDefault();
    const tcv = botTcSel.value;
    const tc = tcv === 'corr' ? { corr: { days: 1 } } : { base_ms: TIME_CONTROLS[Number(tcv)][1], inc_ms: TIME_CONTROLS[Number(tcv)][2] };
    out.className = 'status';
    out.textContent = t('lobby.starting');
    try {
      // The reply is game_started: the app opens the room.
      await conn.request('bot_game', { game: botGameSel.value, level: Number(levelSel.value), seat: Number(seatSel.value), ...tc });
      out.textContent = '';
    } catch (e) { out.textContent = errText(e) || t('lobby.nostart'); out.className = 'status error'; }
  }

  // "Find an opponent": the oldest open live game this player may join
  // (as the list shows them); with none, a 5+3 game of the chosen game is
  // offered and waits in the list (one at a time).
  async function quickPair() {
    doorStatus.className = 'status';
    const list = [...seeks.values()].sort((a, b) => a.id - b.id);
    const open = list.find((s) => !isCorr(s) && !isMine(s) && !outOfRange(s) && (!s.rated || app.account));
    try {
      if (open) {
        doorStatus.textContent = t('lobby.joining');
        const r = await conn.request('seek_accept', { seek: open.id });
        doorStatus.textContent = r.type === 'seek_joined' ? t('lobby.seattaken') : '';
        return;
      }
      if (!list.some(isMine)) {
        const [, base, inc] = TIME_CONTROLS.find(([n]) => n === '5+3');
        await conn.request('seek_create', { game: gameSel.value, base_ms: base, inc_ms: inc, rated: false, private: false });
      }
      doorStatus.textContent = t('home.paired');
    } catch (e) { doorStatus.textContent = errText(e) || t('lobby.nojoin'); doorStatus.className = 'status error'; }
  }

  const welcome = h('section', { class: 'welcome', id: 'welcome', 'aria-labelledby': 'welcome-title' },
    h('h1', { id: 'welcome-title' }, t('home.title')),
    h('p', { class: 'lead' }, t('home.lead')),
    h('div', { class: 'doors' },
      h('div', { class: 'door', id: 'door-play' },
        h('h2', {}, t('home.play')), playText,
        h('div', { class: 'row' }, doorBot, doorPair), doorStatus),
      h('div', { class: 'door', id: 'door-learn' },
        h('h2', {}, t('home.learn')), h('p', { class: 'muted' }, t('home.learntext')),
        h('div', { class: 'row' }, h('a', { href: '#/learn', class: 'button-link primary', id: 'door-lessons' }, t('home.lessons')),
          h('a', { href: '#/howto', class: 'button-link', id: 'door-rules' }, t('home.rules')))),
      h('div', { class: 'door', id: 'door-progress' },
        h('h2', {}, t('home.progress')), h('p', { class: 'muted' }, t('home.progresstext')),
        h('div', { class: 'row' },
          h('button', { type: 'button', id: 'door-watch', onclick: () => { life.watch.scrollIntoView({ behavior: 'smooth', block: 'start' }); (life.watch.querySelector('a') || life.watch).focus({ preventScroll: true }); } }, t('home.watch')),
          h('a', { href: '#/games', class: 'button-link', id: 'door-games' }, t('nav.games'))))));
  life.watch.tabIndex = -1;

  async function cancel(id) {
    try { await conn.request('seek_cancel', { seek: id }); } catch (e) { status.textContent = errText(e); }
    invite.replaceChildren();
  }

  async function create(ev) {
    ev.preventDefault();
    const [, base, inc] = TIME_CONTROLS[Number(tcSel.value)];
    const tc = kindCorr.checked ? { base_ms: 0, inc_ms: 0, corr: corrSeek(Number(daysSel.value), incMode.checked) } : { base_ms: base, inc_ms: inc };
    if (rated.checked && rmin.value !== '' && rmax.value !== '') {
      tc.rating_min = Number(rmin.value);
      tc.rating_max = Number(rmax.value);
    }
    status.className = 'status';
    try {
      const r = await conn.request('seek_create', { game: gameSel.value, ...tc, rated: rated.checked, private: priv.checked });
      status.textContent = r.seek.seats > 2 ? t('lobby.waitingn', { n: r.seek.seats - 1 }) : t('lobby.waiting1');
      if (r.invite) {
        const url = `${location.origin}/#invite=${r.invite}`;
        invite.replaceChildren(h('label', { for: 'invite-url' }, t('lobby.invite')),
          h('div', { class: 'row' }, h('input', { id: 'invite-url', readonly: true, value: url, size: 40 }),
            h('button', { type: 'button', onclick: () => navigator.clipboard && navigator.clipboard.writeText(url) }, t('w.copy'))));
      }
    } catch (e) { status.textContent = errText(e) || t('lobby.nocreate'); status.className = 'status error'; }
  }

  main.append(welcome, life.bar,
    h('div', { class: 'grid2 lobby' },
      h('div', { class: 'stack lobby-left' }, life.challenges,
      h('section', { class: 'panel', id: 'open-games' },
        h('h2', {}, t('lobby.open')),
        h('table', { class: 'list cards' }, h('thead', {}, h('tr', {}, [t('w.player'), t('w.game'), t('w.time'), t('w.seats'), ''].map((x) => h('th', {}, x)))), tbody),
        empty), life.watch, life.challengeForm),
      h('div', { class: 'stack' },
      h('section', { class: 'panel', id: 'play-computer' },
        h('h2', {}, t('lobby.bot')),
        h('form', { id: 'bot-form', onsubmit: playBot },
          h('div', { class: 'form-grid' },
            h('label', { for: 'bot-game' }, t('w.game')), botGameSel,
            h('label', { for: 'bot-level' }, t('lobby.level')), levelSel,
            h('label', { for: 'bot-seat' }, t('lobby.youplay')), seatSel,
            h('label', { for: 'bot-tc' }, t('w.time')), botTcSel),
          h('div', { class: 'row' }, botBtn)),
        botStatus),
      h('section', { class: 'panel', id: 'create-panel' },
        h('h2', {}, t('lobby.create')),
        h('form', { id: 'create', onsubmit: create },
          h('label', { for: 'new-game' }, t('w.game')), gameSel,
          h('fieldset', { class: 'kind' }, h('legend', {}, t('lobby.kind')),
            h('label', { class: 'inline' }, kindLive, t('lobby.live')),
            h('label', { class: 'inline' }, kindCorr, t('lobby.corr'))),
          liveBox, corrBox,
          ratedLabel, rangeBox,
          h('label', {}, priv, t('lobby.private')),
          h('div', { class: 'row' }, createBtn)),
        invite, status),
      gamesPanel)));

  const start = () => {
    conn.request('lobby_watch').then((m) => {
      seeks.clear();
      for (const s of m.seeks) seeks.set(s.id, s);
      lastSeq = m.seq;
      renderSeeks();
    }).catch(() => {});
    if (params.invite) { accept({ invite: params.invite }); params.invite = null; }
  };
  // One lobby_update per server tick carries every change since the last
  // (each seek at most once): "add"/"update" give the seek as it is now,
  // "remove" only its id. A batch may repeat what the lobby list already
  // showed, so changes are applied as upserts and deletes.
  offs.push(conn.on('lobby_update', (m) => {
    if (m.seq <= lastSeq) return;
    if (lastSeq >= 0 && m.seq !== lastSeq + 1) { start(); return; }
    lastSeq = m.seq;
    for (const c of m.changes || []) {
      if (c.op === 'remove') seeks.delete(c.seek.id); else seeks.set(c.seek.id, c.seek);
    }
    renderSeeks();
  }));
  offs.push(conn.on('welcome', () => { fillTables(); kindChanged(); renderSeeks(); start(); loadMine(); }));
  levelSel.addEventListener('change', renderSeeks);
  if (conn.ready) { start(); loadMine(); }
  kindChanged();
  renderSeeks();

  return () => {
    offs.forEach((f) => f());
    if (conn.ready) conn.request('lobby_unwatch', {}, false);
  };
}
