// The single-page application: one connection, a hash router, the header.
// Each page module exports mount(main, params, app) and returns a function
// that unmounts it (unsubscribing from the connection).

import { Conn } from './net.js';
import * as lobby from './pages/lobby.js';
import * as room from './pages/room.js';
import * as howto from './pages/howto.js';
import * as learn from './pages/learn.js';
import * as games from './pages/games.js';
import * as account from './pages/account.js';
import * as turn from './pages/turn.js';
import * as analysis from './pages/analysis.js';
import * as player from './pages/player.js';
import * as leaderboard from './pages/leaderboard.js';
import * as mailPages from './pages/mail.js';
import * as tournaments from './pages/tournaments.js';
import { watchYourTurn } from './corr.js';
import { watchNotices } from './notices.js';
import { keepPushWords } from './push.js';
import { setTables } from './tables.js';
import { loadBoards } from './geometry.js';
import { apply as applyPrefs, syncFromServer } from './prefs.js';
import { mountPrefsMenu } from './prefs-menu.js';
import { challengeBadge } from './pages/lobby-life.js';
import { sound } from './sound.js';
import { t, translateStatic } from './i18n.js';

// The server takes an upgrade on any path; /ws is the one deploy/nginx.conf
// gives its own location (no buffering, long timeouts).
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

export const app = {
  conn: new Conn(wsUrl),
  games: [], // the server's games (welcome.games; tables.js has every table)
  me: null,
  rooms: [], // rooms with a seat of ours: welcome.rooms and each game_started since
  account: null, // the username when logged in (welcome.account)
  push: undefined, // does the server send Web Push (welcome.push; undefined before the welcome)
  announce(text) {
    const live = document.getElementById('live');
    live.textContent = '';
    setTimeout(() => { live.textContent = text; }, 30);
  },
  go(hash) { location.hash = hash; },
  ready: null, // a promise: the first page is mounted (see the end)
};
window.chameleon = app; // for the browser tests and the console

const ROUTES = [
  [/^#?\/?$/, lobby, 'lobby'],
  [/^#invite=([\w-]+)$/, lobby, 'lobby', (m) => ({ invite: m[1] })],
  [/^#\/game\/(\d+)$/, room, 'games', (m) => ({ room: Number(m[1]) })],
  [/^#\/games$/, games, 'games'],
  [/^#\/turn$/, turn, 'turn'],
  [/^#\/analysis$/, analysis, 'analysis'],
  [/^#\/analysis\/game\/(\d+)$/, analysis, 'analysis', (m) => ({ stored: Number(m[1]) })],
  [/^#\/analysis\/(\w+)$/, analysis, 'analysis', (m) => ({ game: m[1] })],
  [/^#\/analysis\/(\w+)\/(.+)$/, analysis, 'analysis', (m) => ({ game: m[1], position: decodeURIComponent(m[2]) })],
  [/^#\/howto$/, howto, 'howto'],
  [/^#\/learn$/, learn, 'howto'],
  [/^#\/learn\/(\w+)$/, learn, 'howto', (m) => ({ game: m[1] })],
  [/^#\/learn\/(\w+)\/([\w-]+)$/, learn, 'howto', (m) => ({ game: m[1], lesson: m[2] })],
  [/^#\/howto\/(\w+)$/, howto, 'howto', (m) => ({ game: m[1] })],
  [/^#\/login$/, account, 'login', () => ({ mode: 'login' })],
  [/^#\/register$/, account, 'login', () => ({ mode: 'register' })],
  [/^#\/profile$/, account, 'login', () => ({ mode: 'profile' })],
  [/^#\/forgot$/, mailPages, 'login', () => ({ mode: 'forgot' })],
  [/^#\/confirm\/([0-9a-f]{64})$/, mailPages, 'login', (m) => ({ mode: 'confirm', token: m[1] })],
  [/^#\/reset\/([0-9a-f]{64})$/, mailPages, 'login', (m) => ({ mode: 'reset', token: m[1] })],
  [/^#\/@\/([\w-]+)$/, player, 'players', (m) => ({ name: m[1] })],
  [/^#\/leaderboard$/, leaderboard, 'players'],
  [/^#\/leaderboard\/(\w+)$/, leaderboard, 'players', (m) => ({ game: m[1] })],
  [/^#\/tournaments$/, tournaments, 'tournaments'],
  [/^#\/tournaments\/new$/, tournaments, 'tournaments', () => ({ create: true })],
  [/^#\/tournament\/(\d+)$/, tournaments, 'tournaments', (m) => ({ id: Number(m[1]) })],
];

let unmount = null;

function route() {
  const hash = location.hash || '#/';
  const main = document.getElementById('main');
  if (unmount) { unmount(); unmount = null; }
  main.replaceChildren();
  openMenu(false);
  for (const [re, page, nav, params] of ROUTES) {
    const m = re.exec(hash);
    if (!m) continue;
    for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', a.dataset.nav === nav);
    unmount = page.mount(main, params ? params(m) : {}, app) || null;
    return;
  }
  main.textContent = t('app.nopage');
}

// On a phone the navigation folds behind the header's menu button (CSS
// shows the button under 700 px), so the header keeps one row; it opens
// below the header, and closes on a choice, a new page, Escape or a click
// elsewhere.
const menuBtn = document.getElementById('menu-btn');
function openMenu(on) {
  document.querySelector('header.top').classList.toggle('menu-open', on);
  menuBtn.setAttribute('aria-expanded', String(on));
}
function menu() {
  const nav = document.getElementById('site-nav');
  // The counts of the links it hides (your turn, challenges), summed on
  // the button.
  const count = document.getElementById('menu-count');
  const sum = () => {
    let n = 0;
    for (const b of nav.querySelectorAll('.badge')) if (!b.hidden) n += Number(b.textContent) || 0;
    count.textContent = String(n);
    count.hidden = n === 0;
  };
  new MutationObserver(sum).observe(nav, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['hidden'] });
  menuBtn.addEventListener('click', (e) => { e.stopPropagation(); openMenu(menuBtn.getAttribute('aria-expanded') !== 'true'); });
  nav.addEventListener('click', () => openMenu(false));
  document.addEventListener('click', (e) => { if (!nav.contains(e.target)) openMenu(false); });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && menuBtn.getAttribute('aria-expanded') === 'true') { openMenu(false); menuBtn.focus(); }
  });
}

function header() {
  const conn = document.getElementById('conn');
  app.conn.on('state', (s) => {
    conn.textContent = s === 'online' ? t('hdr.online') : t('hdr.reconnecting');
    conn.className = `conn ${s}`;
  });
  app.conn.on('welcome', (w) => {
    app.me = w.player;
    app.games = w.games || [];
    app.account = w.account || null;
    app.push = !!w.push; // Web Push on this server (the profile offers it)
    app.rooms = [...(w.rooms || [])];
    document.getElementById('me').textContent = w.player ? w.player.name : t('hdr.guest');
    document.getElementById('login-link').hidden = !!app.account;
    syncFromServer(app);
  });
  watchYourTurn(app);
  watchNotices(app);
}

translateStatic();
applyPrefs();
keepPushWords();
header();
menu();
mountPrefsMenu(app);
challengeBadge(app);
// A game that starts (a seek filled, a rematch) opens its room wherever we are.
// The games this identity plays in: the welcome's, and each one started since
// (app.rooms: "your games" lists them without a reload).
app.conn.on('game_started', (m) => { if (!app.rooms.includes(m.room)) app.rooms.push(m.room); });
app.conn.on('game_started', (m) => { sound.play('start'); if (location.hash !== `#/game/${m.room}`) app.go(`#/game/${m.room}`); });
// Without the rules module no board can be drawn: the page says so at the
// top (the pages without a board go on working).
function rulesMissing(e) {
  console.warn(e);
  const p = document.createElement('p');
  p.id = 'rules-error';
  p.className = 'fatal';
  p.setAttribute('role', 'alert');
  p.textContent = t('app.norules', { why: e.message });
  document.getElementById('main').before(p);
}

// The server's tables (GET /api/tables) and the rules module (rules.wasm,
// which draws the boards) come first: pages draw boards as they mount and
// tables when the welcome arrives, so the page routes and the connection
// opens once both are here (or could not be had: without the tables the
// pages show ids rather than names).
const tables = fetch('/api/tables')
  .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`tables: ${r.status}`))))
  .then(setTables)
  .catch((e) => console.warn(e));
const boards = loadBoards().catch(rulesMissing);
document.getElementById('main').textContent = t('app.loading');
// Resolves once the first page is mounted (the browser tests wait on it).
app.ready = Promise.all([tables, boards]).then(() => {
  window.addEventListener('hashchange', route);
  route();
  app.conn.connect();
});
