// "Your games": every game where this identity holds a seat and that is
// still going on (welcome.rooms and the games started since: app.rooms),
// those where it is your turn first. Each room is joined once to read its
// state, then parted; the list is read again when a game starts.

import { t } from '../i18n.js';
import { h, playerName, timeControl } from '../dom.js';
import { corrControl, leftText } from '../corr.js';
import { gameName } from '../tables.js';

export function mount(main, params, app) {
  const conn = app.conn;
  const list = h('tbody', { id: 'your-games' });
  const note = h('p', { class: 'muted', id: 'your-games-note' }, t('app.loading'));
  main.append(h('section', { class: 'panel' }, h('h1', {}, t('nav.games')),
    h('table', { class: 'list cards' }, h('thead', {}, h('tr', {}, [t('w.game'), t('w.time'), t('w.players'), t('w.moves'), ''].map((x) => h('th', {}, x)))), list), note));
  let alive = true;

  let loads = 0; // the latest load wins
  async function load() {
    const mine = ++loads;
    const rooms = [...app.rooms];
    const states = [];
    for (const r of rooms) {
      try {
        const st = await conn.request('join', { room: r });
        conn.request('part', { room: r }, false);
        states.push(st);
      } catch { /* gone meanwhile */ }
    }
    if (!alive || mine !== loads) return;
    // A game that ended since the welcome is no longer in progress.
    for (let i = states.length - 1; i >= 0; i--) if (states[i].status === 'over') states.splice(i, 1);
    const yourTurn = (s) => s.you >= 0 && s.to_move === s.you && s.status !== 'over';
    // Correspondence: the time left of the seat to move (deadlines are
    // server times; now_ms is the server's clock when the state was sent).
    const left = (s) => (s.corr && s.deadlines && s.deadlines[s.to_move] ? s.deadlines[s.to_move] - s.now_ms : Infinity);
    states.sort((a, b) => Number(yourTurn(b)) - Number(yourTurn(a)) || left(a) - left(b) || a.room - b.room);
    list.replaceChildren(...states.map((s) => h('tr', { class: 'seek', 'data-room': s.room, onclick: () => app.go(`#/game/${s.room}`) },
      h('td', {}, gameName(s.game)),
      h('td', {}, s.corr ? h('span', { class: 'tag corr' }, '\u2709 ', corrControl(s.corr)) : timeControl(s.base_ms, s.inc_ms)),
      h('td', {}, s.seats.flatMap((x, i) => [i ? ' \u2013 ' : null, playerName(x.player)])),
      h('td', {}, String(s.moves.length)),
      h('td', {}, yourTurn(s) ? h('strong', { class: 'your-turn' }, t('nav.turn')) : h('span', { class: 'muted' }, t('w.waiting')),
        left(s) < Infinity ? h('span', { class: 'muted' }, t('w.left', { left: leftText(left(s)) })) : null))));
    note.textContent = states.length ? '' : t('games.none');
  }

  const offs = [conn.on('welcome', () => load()), conn.on('game_started', () => load())];
  if (conn.ready) load();
  return () => { alive = false; offs.forEach((f) => f()); };
}
