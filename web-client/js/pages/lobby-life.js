// The lobby's life (PROTOCOL.md, "Lobby: presence, games to watch,
// challenges"): how many players are online and games being played
// (lobby_life, sent while the lobby is watched), the games being played
// now, each a link that opens it as a spectator, and challenges to a named
// player: an account challenges another by name with a game and a time
// control; the challenged sees it here at once and accepts (the game
// starts for both) or declines; the challenger may cancel.
// lobby.js places the parts and calls off() when it unmounts.

import { errText, t } from '../i18n.js';
import { h, playerName, timeControl } from '../dom.js';
import { corrControl, daysText } from '../corr.js';
import { corrDays, gameName, games } from '../tables.js';

const tcName = (n) => (n === 'no clock' ? t('w.noclock') : n);
const TCS = [['3+2', 180000, 2000], ['5+3', 300000, 3000], ['10+5', 600000, 5000], ['15+10', 900000, 10000], ['no clock', 0, 0]];

const tcText = (x) => (x.corr ? corrControl(x.corr) : timeControl(x.base_ms, x.inc_ms));
const REASONS = {
  declined: (c, mine) => (mine ? t('ch.declinedyours', { name: c.to }) : t('ch.declined')),
  cancelled: (c, mine) => (mine ? t('ch.cancelled') : t('ch.withdrew', { name: c.from.name })),
  gone: (c, mine) => (mine ? t('ch.withdrawn') : t('ch.gone', { name: c.from.name })),
  accepted: () => '',
};

export function lobbyLife(app) {
  const conn = app.conn;
  const offs = [];
  const challenges = new Map();

  // Counts, above the lists.
  const online = h('span', { id: 'online-count' }, '\u2013');
  const playing = h('span', { id: 'playing-count' }, '\u2013');
  const bar = h('p', { class: 'life-bar muted', id: 'lobby-life' },
    h('span', { class: 'dot-online', 'aria-hidden': 'true' }), online, t('life.online'), playing, t('life.beingplayed'));

  // Games being played now.
  const watchList = h('ul', { class: 'watch-list', id: 'watch-list' });
  const watchEmpty = h('p', { class: 'muted', id: 'watch-empty' }, t('life.nowatch'));
  const watch = h('section', { class: 'panel', id: 'watch' }, h('h2', {}, t('life.watch')), watchList, watchEmpty);

  offs.push(conn.on('lobby_life', (m) => {
    online.textContent = t(m.online === 1 ? 'life.player1' : 'life.playersn', { n: m.online });
    playing.textContent = t(m.playing === 1 ? 'life.game1' : 'life.gamesn', { n: m.playing });
    watchEmpty.hidden = m.games.length > 0;
    // A redraw keeps the keyboard's place: the link of the game that had
    // the focus has it again.
    const focused = watchList.contains(document.activeElement) ? document.activeElement.closest('li')?.dataset.room : null;
    watchList.replaceChildren(...m.games.map((g) => h('li', { 'data-room': g.room },
      h('a', { href: `#/game/${g.room}`, class: 'watch-link', title: t('life.watchthis') },
        h('span', { class: 'watch-game' }, gameName(g.game)),
        h('span', { class: 'muted' }, ` \u00b7 ${tcText(g)}${g.rated ? ` \u00b7 ${t('w.rated')}` : ''}`)),
      h('div', { class: 'watch-players' }, g.players.flatMap((p, i) => [i ? t('w.vs') : null, playerName(p)])))));
    if (focused) watchList.querySelector(`li[data-room="${focused}"] a`)?.focus({ preventScroll: true });
  }));

  // Challenges: to me (accept, decline) and mine (cancel).
  const inList = h('ul', { class: 'challenge-list', id: 'challenges-in' });
  const outList = h('ul', { class: 'challenge-list', id: 'challenges-out' });
  const chStatus = h('p', { class: 'status', id: 'challenge-status', role: 'status' });
  const inBox = h('section', { class: 'panel challenges', id: 'challenges', hidden: true },
    h('h2', {}, t('life.challenges')), inList, outList);

  const what = (c) => `${gameName(c.game)} \u00b7 ${tcText(c)}${c.rated ? ` \u00b7 ${t('w.rated')}` : ''}`;
  const fail = (e) => { chStatus.textContent = errText(e) || t('ch.cannot'); chStatus.className = 'status error'; };
  const say = (text) => { chStatus.textContent = text; chStatus.className = 'status'; };
  function render() {
    const all = [...challenges.values()].sort((a, b) => a.id - b.id);
    const mine = (c) => app.me && c.from.id === app.me.id;
    inList.replaceChildren(...all.filter((c) => !mine(c)).map((c) => h('li', { 'data-challenge': c.id, class: 'challenge in' },
      h('span', {}, playerName(c.from), t('ch.challengesyou'), h('strong', {}, what(c))),
      h('span', { class: 'seek-actions' },
        h('button', { type: 'button', class: 'primary accept', onclick: () => conn.request('challenge_accept', { challenge: c.id }).catch(fail) }, t('w.accept')),
        h('button', { type: 'button', class: 'decline', onclick: () => conn.request('challenge_decline', { challenge: c.id }).catch(fail) }, t('w.decline'))))));
    outList.replaceChildren(...all.filter(mine).map((c) => h('li', { 'data-challenge': c.id, class: 'challenge out' },
      h('span', {}, t('ch.youchallenge', { name: c.to }), h('strong', {}, what(c)), h('span', { class: 'muted' }, ` \u2014 ${t('w.waiting')}`)),
      h('span', { class: 'seek-actions' },
        h('button', { type: 'button', class: 'cancel', onclick: () => conn.request('challenge_cancel', { challenge: c.id }).catch(fail) }, t('w.cancel'))))));
    inBox.hidden = all.length === 0 && !chStatus.textContent;
  }
  offs.push(conn.on('challenge', (m) => {
    const c = m.challenge;
    if (m.op === 'add') {
      challenges.set(c.id, c);
      say(''); // an older notice is stale now
      if (app.me && c.from.id !== app.me.id) app.announce(t('ann.challenge', { name: c.from.name, what: what(c) }));
    } else {
      challenges.delete(c.id);
      const text = (REASONS[m.reason] || (() => ''))(c, app.me && c.from.id === app.me.id);
      if (text) say(text);
    }
    render();
  }));
  inBox.append(chStatus);

  // The form: a name, a two-player game, a time control.
  const toIn = h('input', { id: 'challenge-to', autocomplete: 'off', required: true, minlength: 3, maxlength: 20, placeholder: t('life.username') });
  const gameSel = h('select', { id: 'challenge-game' });
  const tcSel = h('select', { id: 'challenge-tc' });
  const ratedBox = h('input', { type: 'checkbox', id: 'challenge-rated' });
  const sendBtn = h('button', { type: 'submit', class: 'primary', id: 'challenge-btn' }, t('life.challenge'));
  const formStatus = h('p', { class: 'status', id: 'challenge-form-status', role: 'status' });
  const loginNote = h('p', { class: 'muted', id: 'challenge-login' },
    t('life.needacct'), h('a', { href: '#/login' }, t('w.login')), t('life.needacct2'));
  const form = h('form', { id: 'challenge-form', onsubmit: async (e) => {
    e.preventDefault();
    const v = tcSel.value;
    const tc = v.startsWith('corr') ? { corr: { days: Number(v.slice(4)) } } : { base_ms: TCS[Number(v)][1], inc_ms: TCS[Number(v)][2] };
    formStatus.className = 'status';
    formStatus.textContent = t('ch.sending');
    try {
      const r = await conn.request('challenge_create', { to: toIn.value.trim(), game: gameSel.value, rated: ratedBox.checked, ...tc });
      formStatus.textContent = t('ch.sent', { name: r.challenge.to });
      toIn.value = '';
    } catch (err) { formStatus.textContent = errText(err) || t('ch.nosend'); formStatus.className = 'status error'; }
  } },
  h('div', { class: 'form-grid' },
    h('label', { for: 'challenge-to' }, t('w.player')), toIn,
    h('label', { for: 'challenge-game' }, t('w.game')), gameSel,
    h('label', { for: 'challenge-tc' }, t('w.time')), tcSel),
  h('label', {}, ratedBox, t('life.rated')),
  h('div', { class: 'row' }, sendBtn));
  const challengeForm = h('section', { class: 'panel', id: 'challenge-panel' }, h('h2', {}, t('life.challengeplayer')), form, loginNote, formStatus);

  function fill() {
    const keepG = gameSel.value, keepT = tcSel.value || '1';
    gameSel.replaceChildren(...games().filter((g) => g.players === 2).map((g) => h('option', { value: g.id, selected: g.id === keepG }, g.name)));
    tcSel.replaceChildren(...TCS.map(([n], i) => h('option', { value: String(i), selected: String(i) === keepT }, tcName(n))),
      ...corrDays().filter((d) => d <= 3).map((d) => h('option', { value: `corr${d}`, selected: `corr${d}` === keepT }, t('lobby.corrtc', { days: daysText(d) }))));
    form.hidden = !app.account;
    loginNote.hidden = !!app.account;
  }

  const start = () => {
    fill();
    challenges.clear();
    conn.request('challenge_list').then((m) => {
      for (const c of m.challenges) challenges.set(c.id, c);
      render();
    }).catch(() => {});
  };
  offs.push(conn.on('welcome', start));
  if (conn.ready) start(); else fill();
  render();

  return { bar, watch, challenges: inBox, challengeForm, off: () => offs.forEach((f) => f()) };
}

// On every page: the number of challenges made to me, as a badge on the
// "Play" link (the lobby, where they are answered), kept live.
export function challengeBadge(app) {
  const conn = app.conn;
  const link = document.querySelector('[data-nav="lobby"]');
  if (!link) return;
  const badge = h('span', { class: 'badge', id: 'challenge-count', hidden: true, title: t('ch.toyou') }, '0');
  link.append(' ', badge);
  const incoming = new Set();
  const show = () => { badge.textContent = String(incoming.size); badge.hidden = incoming.size === 0; };
  const mine = (c) => app.me && c.from.id === app.me.id;
  conn.on('welcome', () => {
    incoming.clear();
    show();
    if (!app.account) return;
    conn.request('challenge_list').then((m) => {
      for (const c of m.challenges) if (!mine(c)) incoming.add(c.id);
      show();
    }).catch(() => {});
  });
  conn.on('challenge', (m) => {
    if (m.op === 'add' && !mine(m.challenge)) incoming.add(m.challenge.id); else incoming.delete(m.challenge.id);
    show();
  });
}
