// In-tab notices of the opponent's move (issue 15, "In the browser";
// PROTOCOL.md, "Web Push and in-tab notices"): when a move makes it this
// player's turn, a sound, and unless the tab is in front and focused, a
// title badge "(N) ♟ Your move — <the page's title>" (cleared once the tab is seen)
// and, if the tab is hidden and the player allowed it, a system
// notification. Permission is asked only from the button of
// noticeSettings() (a user gesture), never at page load.
//
// The seat this tab holds in each room comes from the `room` messages and
// `game_started`; a move event whose `to_move` is that seat, played by
// another seat, of a game not over, is "your move".

import { sound } from './sound.js';
import { h } from './dom.js';
import { gameName } from './tables.js';
import { t } from './i18n.js';

export function watchNotices(app) {
  const seats = new Map(); // room -> my seat (>= 0)
  const games = new Map(); // room -> game id
  const state = { unseen: 0, notified: 0 };
  app.notices = state; // read by the browser tests

  // The badge goes in front of whatever title the page sets (the room page
  // sets its own on every change): a title set while the badge shows is
  // kept as the one to restore, and badged again.
  let pageTitle = document.title;
  const badge = () => `(${state.unseen}) ${t('notice.badge')} \u2014 ${pageTitle}`;
  new MutationObserver(() => {
    if (state.unseen === 0 || document.title === badge()) return;
    pageTitle = document.title;
    document.title = badge();
  }).observe(document.querySelector('title'), { childList: true, characterData: true, subtree: true });

  const seen = () => !document.hidden && document.hasFocus();
  const clear = () => {
    if (!seen() || state.unseen === 0) return;
    state.unseen = 0;
    document.title = pageTitle;
  };
  document.addEventListener('visibilitychange', clear);
  window.addEventListener('focus', clear);

  app.conn.on('game_started', (m) => { if (m.seat >= 0) seats.set(m.room, m.seat); games.set(m.room, m.game); });
  app.conn.on('room', (m) => {
    if (m.you >= 0) seats.set(m.room, m.you); else seats.delete(m.room);
    games.set(m.room, m.game);
  });
  app.conn.on('welcome', () => seats.clear()); // another identity, maybe

  // A click on a push notice (sw.js) while a tab is open: go to the game.
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data && typeof e.data.open === 'string') app.go(new URL(e.data.open, location.href).hash || '#/');
    });
  }

  app.conn.on('event', (m) => {
    if (m.kind !== 'move' || m.result) return;
    const me = seats.get(m.room);
    if (me === undefined || m.to_move !== me || m.seat === me) return;
    playSound(m.room);
    if (!seen()) {
      if (state.unseen === 0) pageTitle = document.title;
      state.unseen++;
      document.title = badge();
    }
    if (document.hidden && notificationsAllowed()) {
      const game = games.get(m.room);
      const n = new Notification(t('notice.title'), {
        body: `${game ? `${gameName(game)} #${m.room}` : t('sw.game', { id: m.room })}: ${m.display || m.move}`,
        tag: `chameleon-game-${m.room}`,
        icon: '/favicon.svg',
      });
      state.notified++;
      n.onclick = () => { window.focus(); app.go(`#/game/${m.room}`); n.close(); };
    }
  });
}

// The game's own page plays its move sounds (room/sounds.js); elsewhere
// (another page of the site) the opponent's move still sounds.
function playSound(room) {
  if (location.hash !== `#/game/${room}`) sound.play('move');
}

function notificationsAllowed() {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted';
}

// The settings control (profile page): asks for the Notification
// permission on a click, says what the browser answered. `extra` is
// appended below (the Web Push control, for accounts).
export function noticeSettings(...extra) {
  const state = h('p', { id: 'notice-state', class: 'muted' });
  const ask = h('button', { type: 'button', id: 'notice-allow', onclick: async () => {
    try { await Notification.requestPermission(); } catch { /* old browsers take a callback */ }
    draw();
  } }, t('notice.allow'));
  function draw() {
    if (typeof Notification === 'undefined') {
      state.textContent = t('notice.cannot');
      ask.hidden = true;
      return;
    }
    const p = Notification.permission;
    state.dataset.permission = p;
    state.textContent = p === 'granted' ? t('notice.on') : p === 'denied' ? t('notice.blocked') : t('notice.ask');
    ask.hidden = p !== 'default';
  }
  draw();
  return h('section', { id: 'notices' }, h('h3', {}, t('notice.heading')), state, h('div', { class: 'row' }, ask), ...extra);
}
