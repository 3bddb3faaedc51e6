// "How to play": one page per game with its board at the start (the
// server's set-up), the piece set with names, and the rules in short (the
// full text is in the rules files the server enforces).

import { t, tMaybe } from '../i18n.js';
import { h } from '../dom.js';
import { Board } from '../board.js';
import { pieceSet, pieceIcon, localName, ultimaStyleNow } from '../pieces.js';
import { piecesMap } from '../replay.js';
import { colourName, gameInfo, gameName, games, tablesLoaded } from '../tables.js';
import { onPrefs } from '../prefs.js';
import { COURSES } from './learn.js';

// The rules in short, per game: i18n.js 'howto.<game>.<n>' (paragraphs
// 1, 2, ... as long as the table has them).
function paragraphs(game) {
  const out = [];
  for (let i = 1; tMaybe(`howto.${game}.${i}`); i++) out.push(t(`howto.${game}.${i}`));
  return out;
}

// The move text of this game only (rules/notation.md): Ultima's 1968 rule
// writes as Ultima, Ant Chess for three as for two.
const notationKey = (game) => `howto.notation.${game.startsWith('ultima') ? 'ultima' : game.startsWith('ant') ? 'ant' : game}`;

// Ultima's pieces are worded for the set shown: chess pieces (the
// original rules' upside-down rook) or the pictographic discs.
const setNote = (game) => (game.startsWith('ultima') ? t(ultimaStyleNow() === 'discs' ? 'howto.ultima.discs' : 'howto.ultima.chess') : '');

export function mount(main, params, app) {
  // The games, their names and set-ups are the server's (GET /api/tables,
  // read before the connection opens): draw once the welcome says we are
  // connected, nothing before.
  let offPrefs = null;
  const draw = () => {
    if (!tablesLoaded() || main.childElementCount) return;
    if (params.game) offPrefs = page(main, params.game);
    else index(main);
  };
  const off = app.conn.on('welcome', draw);
  draw();
  return () => { off(); if (offPrefs) offPrefs(); };
}

function index(main) {
  main.append(h('section', { class: 'panel' }, h('h1', {}, t('howto.title')),
    h('ul', {}, games().map((g) => h('li', {}, h('a', { href: `#/howto/${g.id}` }, g.name),
      COURSES.includes(g.id) ? [' \u00b7 ', h('a', { href: `#/learn/${g.id}` }, t('learn.title'))] : null)))));
}

// One game: its board at the start (any army at the bottom), its pieces,
// its rules in short.
function page(main, game) {
  const info = gameInfo(game);
  if (!info) { main.append(h('p', {}, t('howto.nosuch'))); return null; }
  const boardBox = h('div', { class: 'howto-board', id: 'howto-board' });
  // The legend follows the piece set chosen (Ultima's discs or pieces).
  const items = () => Object.entries(pieceSet(game) || {}).map(([k, p]) => {
    return [pieceIcon(game, k, info.colors[0]), h('span', {}, `${localName(p.name, p.key)} (${k})`)];
  }).flat();
  const legend = h('div', { class: 'legend', id: 'howto-legend' }, items());
  const note = h('p', { id: 'howto-set', hidden: !setNote(game) }, setNote(game));
  const viewSel = h('select', { id: 'howto-view', 'aria-label': t('play.viewas') },
    info.colors.map((c, i) => h('option', { value: i }, colourName(c))));
  main.append(h('div', { class: 'howto' },
    h('div', {}, boardBox, h('div', { class: 'row' }, h('label', { for: 'howto-view' }, t('howto.viewas')), viewSel)),
    h('section', { class: 'panel' }, h('h1', {}, gameName(info.id)),
      COURSES.includes(game) ? h('p', {}, h('a', { href: `#/learn/${game}`, class: 'button-link primary', id: 'howto-lessons' }, t('howto.lessons', { game: gameName(game) }))) : null,
      paragraphs(game).concat(game === 'ultima1968' ? paragraphs('ultima') : []).map((x) => h('p', {}, x)),
      note,
      h('h2', {}, t('howto.pieces')), legend,
      h('p', { class: 'muted', id: 'howto-notation' }, t(notationKey(game))))));
  const board = new Board(boardBox, { game });
  board.colours = info.colors;
  board.setPosition(piecesMap(info.setup));
  viewSel.addEventListener('change', () => board.setView(Number(viewSel.value)));
  return onPrefs(() => { legend.replaceChildren(...items()); note.textContent = setNote(game); });
}
