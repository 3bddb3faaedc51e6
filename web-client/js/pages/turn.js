// "Your turn": every game (live or correspondence, two or three players)
// where the logged-in player is to move, most urgent first, as the server
// pushes it (corr.js keeps app.yourTurn). Deadlines count down locally.

import { t } from '../i18n.js';
import { h } from '../dom.js';
import { gameName } from '../tables.js';
import { leftText, isCorr } from '../corr.js';

export function mount(main, params, app) {
  const list = h('tbody', { id: 'turn-list' });
  const note = h('p', { class: 'muted', id: 'turn-note' });
  main.append(h('section', { class: 'panel' }, h('h1', {}, t('nav.turn')),
    h('table', { class: 'list cards' }, h('thead', {}, h('tr', {}, [t('w.game'), t('turn.opponents'), t('w.moves'), t('turn.timeleft'), ''].map((x) => h('th', {}, x)))), list),
    note));

  function render() {
    if (!app.account) {
      note.replaceChildren(t('turn.need'), h('a', { href: '#/login' }, t('w.login')),
        t('w.or'), h('a', { href: '#/register' }, t('w.register')), t('turn.need2'));
    } else note.textContent = app.yourTurn.length ? '' : t('turn.none');
    const now = Date.now();
    list.replaceChildren(...app.yourTurn.map((g) => h('tr', { class: 'seek turn-row', 'data-room': g.id, onclick: () => app.go(`#/game/${g.id}`) },
      h('td', {}, h('a', { href: `#/game/${g.id}` }, `${gameName(g.variant)} #${g.id}`)),
      // Said in words, not a bare column: a phone shows these rows as cards
      // without the table's headings.
      h('td', { class: 'opponents' }, g.opponents ? t('turn.vs', { names: g.opponents.join(', ') }) : ''),
      h('td', { class: 'plies' }, g.ply === 1 ? t('turn.ply1') : t('turn.plies', { n: g.ply ?? 0 })),
      h('td', { class: g.deadline && g.deadline - now < 86400000 ? 'left urgent' : 'left' },
        isCorr(g) && g.deadline ? leftText(g.deadline - now) : t('turn.live')),
      h('td', {}, h('a', { href: `#/game/${g.id}`, class: 'button-link' }, t('w.play'))))));
  }
  const off = app.onYourTurn(render);
  const offW = app.conn.on('welcome', render);
  // Each second: a 30 s period showed a deadline up to 30 s stale.
  const timer = setInterval(render, 1000);
  render();
  return () => { off(); offW(); clearInterval(timer); };
}
