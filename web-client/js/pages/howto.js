// "How to play": one page per game with its board at the start (the
// server's set-up), the piece set with names, and the rules in short (the
// full text is in the rules files the server enforces).

import { t } from '../i18n.js';
import { h } from '../dom.js';
import { Board } from '../board.js';
import { pieceSet, drawPiece, localName } from '../pieces.js';
import { piecesMap } from '../replay.js';
import { colourName, gameInfo, gameName, games, tablesLoaded } from '../tables.js';
import { onPrefs } from '../prefs.js';

const TEXT = {
  ultima: [
    'Ultima (Baroque chess, 1963) is played on an 8x8 board. White moves first. Every piece except the king and the pawn moves like a chess queen; the pawn moves like a rook; the king like a chess king. No piece but the king ever moves onto an occupied square: each piece captures in its own way.',
    'Pawn (pincer): an enemy orthogonally next to where it lands is captured when a friendly piece stands beyond it. Withdrawer: captures the enemy it moves directly away from. Long leaper: jumps over enemies on its line, capturing each. Coordinator: captures enemies on the squares where its rank meets its king\u2019s file and its file meets its king\u2019s rank. King: captures by moving onto an enemy. Chameleon: captures each piece the way that piece captures. Immobilizer (the upside-down rook): never captures but freezes every enemy next to it.',
    'A frozen piece (shown with a blue halo) cannot move; instead of moving, you may remove one of your own frozen pieces (suicide): select it and click it again. Checkmate and stalemate both win for the side that delivers them.',
  ],
  ultima1968: [
    'The 1968 option of Ultima: a piece standing on its owner\u2019s N-th rank moves at most N squares. Everything else is as in Ultima.',
  ],
  rollerball: [
    'Rollerball is played on a 7x7 board without its centre: 40 cells in two rings. Play runs clockwise for both sides (the arrows on the rings); every cell has a forward direction along the ring.',
    'King: one step in any direction. Pawn: one step forward or diagonally forward, to move or capture; a white pawn reaching e6 or e7 (a black one c2 or c1) promotes to a rook or a bishop (never a bishop on a dark cell). Rook: forward any distance (rebounding once at a corner of the outer ring), one step back or sideways. Bishop: diagonally forward any distance, rebounding once off a wall, or one step diagonally back.',
    'Checkmate wins, and so does a king that travels clockwise round to the enemy king\u2019s starting cell.',
  ],
  yalta: [
    'Yalta chess is for three players on a hexagonal board of 96 four-sided cells: White, then Red, then Black. Pieces move as in chess, with rays that follow the cells across the sections; a diagonal through the centre point forks in two.',
    'Pawns move towards the centre, then on towards the back rank of the section they enter, where they promote. Castling and en passant exist as in chess.',
    'A mated player loses and the one who gave mate wins. A player who resigns leaves its pieces on the board as obstacles; the other two play on.',
  ],
  ant2: [
    'Ant Chess is played on a hexagon of 127 hexagonal cells. Black moves first. Each army has a queen, nine soldier ants and seven mercenaries. A queen that ends a move on the centre cell (marked) wins at once; checkmate also wins. A player may pass instead of moving (the Pass button).',
    'Queen: one step. Soldier ant: one step forward or forward-diagonally; it becomes a super-ant on the far edges. Super-ant: one or two steps in a line. Beetle: any distance in a line. Grasshopper: jumps to any cell at distance two. Ladybug: walks one to five steps round a neighbouring piece, capturing enemies on the way (when two walks reach one cell you choose the walk). Earthworm: from an edge cell to another edge cell in a line, passing under pieces, capturing exactly one enemy under its path.',
  ],
  ant3: [
    'Three-player Ant Chess: Black, Red and Green, queens on alternate corners. Moves are as in the two-player game; the first queen to reach the centre cell wins, or the last player with a queen.',
  ],
};

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
    h('ul', {}, games().map((g) => h('li', {}, h('a', { href: `#/howto/${g.id}` }, g.name))))));
}

// One game: its board at the start (any army at the bottom), its pieces,
// its rules in short.
function page(main, game) {
  const info = gameInfo(game);
  if (!info) { main.append(h('p', {}, 'No such game.')); return; }
  const boardBox = h('div', { class: 'howto-board', id: 'howto-board' });
  // The legend follows the piece set chosen (Ultima's discs or pieces).
  const items = () => Object.entries(pieceSet(game) || {}).map(([k, p]) => {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 1 1');
    svg.appendChild(drawPiece(game, k, info.colors[0], 0.5, 0.5, 1));
    return [svg, h('span', {}, `${localName(p.name)} (${k})`)];
  }).flat();
  const legend = h('div', { class: 'legend', id: 'howto-legend' }, items());
  const viewSel = h('select', { id: 'howto-view', 'aria-label': 'Army at the bottom' },
    info.colors.map((c, i) => h('option', { value: i }, colourName(c))));
  main.append(h('div', { class: 'howto' },
    h('div', {}, boardBox, h('div', { class: 'row' }, h('label', { for: 'howto-view' }, t('howto.viewas')), viewSel)),
    h('section', { class: 'panel' }, h('h1', {}, gameName(info.id)),
      (TEXT[game] || []).map((t) => h('p', {}, t)),
      h('h2', {}, t('howto.pieces')), legend,
      h('p', { class: 'muted' }, 'Moves can be typed as in the notation: e2-e4, e7-e8=Q, b1x (suicide), h3-i4@h4cw (ladybug), pass.'))));
  const board = new Board(boardBox, { game });
  board.colours = info.colors;
  board.setPosition(piecesMap(info.setup));
  viewSel.addEventListener('change', () => board.setView(Number(viewSel.value)));
  return onPrefs(() => legend.replaceChildren(...items()));
}
