// Original piece sets drawn for chameleon, as SVG built with DOM calls.
// Every glyph lives in a 100x100 box, base near y = 86, and is made of parts:
//   ['path'|'circle'|'ellipse', attributes, role]
// role 'body' is filled with the army's colour and outlined, 'line' is a
// stroke in the detail colour, 'dot' is filled with the detail colour, 'leg'
// a stroke in the outline colour (outside the body), 'body-stroke' a thick
// outlined stroke in the army's colour (tails, worms), 'bold' a thick stroke
// in the detail colour (the discs' pictograms), 'ring' a hollow circle in
// the detail colour (the discs' other piece, the one captured).

import { currentLang, t, tMaybe } from './i18n.js';

const SVGNS = 'http://www.w3.org/2000/svg';

export const ARMY_COLOURS = {
  white: { body: '#fbfaf6', edge: '#26231f', detail: '#26231f' },
  black: { body: '#2c2a28', edge: '#0d0c0b', detail: '#e9e4da' },
  red: { body: '#c9392c', edge: '#3a0d08', detail: '#fde8c8' },
  green: { body: '#2f8a4e', edge: '#0b2814', detail: '#e5f6d9' },
};

const BASE = ['path', { d: 'M28 86 H72 A3 3 0 0 0 72 80 H28 A3 3 0 0 0 28 86 Z' }, 'body'];

const ROOK = [
  ['path', { d: 'M30 86 H70 V79 H64 L61 45 H68 V22 H60 V30 H54 V22 H46 V30 H40 V22 H32 V45 H39 L36 79 H30 Z' }, 'body'],
  ['path', { d: 'M39 45 H61' }, 'line'],
];

// The chess-like set (Yalta, Rollerball).
const CHESS = {
  K: { name: 'King', parts: [
    ['path', { d: 'M47 10 H53 V18 H60 V24 H53 V36 H47 V24 H40 V18 H47 Z' }, 'body'],
    ['path', { d: 'M30 86 H70 L66 72 C82 60 78 36 60 42 C56 44 53 48 50 54 C47 48 44 44 40 42 C22 36 18 60 34 72 Z' }, 'body'],
    ['path', { d: 'M34 72 C44 68 56 68 66 72' }, 'line'],
  ] },
  Q: { name: 'Queen', parts: [
    ['path', { d: 'M30 86 H70 L66 74 L78 34 L62 56 L58 26 L50 52 L42 26 L38 56 L22 34 L34 74 Z' }, 'body'],
    ['circle', { cx: 22, cy: 31, r: 5 }, 'body'], ['circle', { cx: 42, cy: 23, r: 5 }, 'body'],
    ['circle', { cx: 58, cy: 23, r: 5 }, 'body'], ['circle', { cx: 78, cy: 31, r: 5 }, 'body'],
    ['path', { d: 'M34 74 C44 70 56 70 66 74' }, 'line'],
  ] },
  R: { name: 'Rook', parts: ROOK },
  B: { name: 'Bishop', parts: [
    ['path', { d: 'M30 86 H70 V80 H60 C68 66 68 48 50 22 C32 48 32 66 40 80 H30 Z' }, 'body'],
    ['circle', { cx: 50, cy: 17, r: 6 }, 'body'],
    ['path', { d: 'M55 38 L45 54 M40 80 H60' }, 'line'],
  ] },
  N: { name: 'Knight', parts: [
    ['path', { d: 'M32 86 H74 C74 62 72 40 60 26 L58 14 L50 22 C38 24 26 40 24 54 C26 62 34 62 40 56 C44 53 48 50 52 46 C50 60 34 68 32 86 Z' }, 'body'],
    ['circle', { cx: 44, cy: 34, r: 3 }, 'dot'],
    ['path', { d: 'M62 30 C66 44 66 60 64 78' }, 'line'],
  ] },
  P: { name: 'Pawn', parts: [
    ['path', { d: 'M32 86 H68 C68 74 62 66 57 62 C63 58 65 50 63 43 C61 35 55 31 50 31 C45 31 39 35 37 43 C35 50 37 58 43 62 C38 66 32 74 32 86 Z' }, 'body'],
  ] },
};

// Ultima: seven shapes that differ in silhouette, not only in detail.
const ULTIMA = {
  K: { name: 'King', parts: [
    BASE,
    ['path', { d: 'M32 80 L36 46 H64 L68 80 Z' }, 'body'],
    ['path', { d: 'M36 46 L30 28 L42 36 L50 22 L58 36 L70 28 L64 46 Z' }, 'body'],
    ['path', { d: 'M47.5 6 H52.5 V11 H57 V16 H52.5 V24 H47.5 V16 H43 V11 H47.5 Z' }, 'body'],
  ] },
  P: { name: 'Pawn (pincer)', parts: [
    BASE,
    ['path', { d: 'M40 80 L44 56 H56 L60 80 Z' }, 'body'],
    ['path', { d: 'M44 58 C28 52 24 30 36 16 C37 30 43 40 50 42 C57 40 63 30 64 16 C76 30 72 52 56 58 Z' }, 'body'],
  ] },
  W: { name: 'Withdrawer', parts: [
    BASE,
    ['path', { d: 'M32 80 L38 40 H62 L68 80 Z' }, 'body'],
    ['circle', { cx: 50, cy: 28, r: 11 }, 'body'],
    ['path', { d: 'M42 50 L50 58 L58 50 M42 62 L50 70 L58 62' }, 'line'],
  ] },
  L: { name: 'Long leaper', parts: [
    BASE,
    ['path', { d: 'M30 80 C30 62 40 54 50 54 C60 54 70 62 70 80 Z' }, 'body'],
    ['path', { d: 'M20 50 Q50 -2 80 50 L70 50 Q50 16 30 50 Z' }, 'body'],
    ['path', { d: 'M73 41 L80 51 L87 41' }, 'leg'],
  ] },
  C: { name: 'Coordinator', parts: [
    BASE,
    ['path', { d: 'M32 80 L36 38 H64 L68 80 Z' }, 'body'],
    ['path', { d: 'M36 38 V18 H64 V38 Z' }, 'body'],
    ['path', { d: 'M50 46 V72 M38 59 H62 M44 24 H56 M44 31 H56' }, 'line'],
  ] },
  // The immobilizer is the upside-down rook of the original sets.
  I: { name: 'Immobilizer', parts: ROOK.map(([t, a, r]) => [t, { ...a, transform: 'translate(0 104) scale(1 -1)' }, r]) },
  X: { name: 'Chameleon', parts: [
    BASE,
    ['path', { d: 'M24 80 C22 60 34 48 52 48 C66 48 76 40 74 28 C72 16 56 14 52 24 C49 32 58 36 62 30' }, 'body-stroke'],
    ['ellipse', { cx: 44, cy: 64, rx: 18, ry: 13 }, 'body'],
    ['path', { d: 'M58 60 L72 52 L76 62 L62 70 Z' }, 'body'],
    ['circle', { cx: 68, cy: 60, r: 2.6 }, 'dot'],
    ['path', { d: 'M32 76 L30 80 M50 76 L52 80' }, 'line'],
  ] },
};

// Ultima's second set: the pictographic discs of the seed's "Autres
// Représentations" (flat discs like draughts men or poker chips, for
// players whom chess pieces confuse). Each pictogram draws how the piece
// captures, as the rules describe it: the king's crown; the withdrawer
// moving away from the piece beside it; the pawn's pincer (enemy between
// the pawn and a friend); the long leaper's jump over a piece; the
// immobilizer's blocked spokes (everything touching it, corners too,
// stands still); the coordinator's rectangle (its row meets the king's
// column); the chameleon's curled tail (it captures as its victim moves).
const DISC = [
  ['circle', { cx: 50, cy: 50, r: 42 }, 'body'],
  ['circle', { cx: 50, cy: 50, r: 35 }, 'line'],
];
const ENEMY = (cx, cy, r = 6) => ['circle', { cx, cy, r }, 'ring'];
const spokes = [0, 45, 90, 135, 180, 225, 270, 315].map((a) => {
  const r = (a * Math.PI) / 180, c = Math.cos(r), s = Math.sin(r);
  const x = 50 + 21 * c, y = 50 + 21 * s;
  const p = (v) => Math.round(v * 10) / 10;
  return `M${p(50 + 9 * c)} ${p(50 + 9 * s)} L${p(x)} ${p(y)} M${p(x - 6 * s)} ${p(y + 6 * c)} L${p(x + 6 * s)} ${p(y - 6 * c)}`;
}).join(' ');

const ULTIMA_DISCS = {
  K: { name: 'King', parts: [...DISC,
    ['path', { d: 'M31 64 L28 36 L40 47 L50 30 L60 47 L72 36 L69 64 Z' }, 'dot'],
    ['path', { d: 'M31 70 H69' }, 'bold'],
  ] },
  P: { name: 'Pawn (pincer)', parts: [...DISC,
    ['path', { d: 'M22 40 H33 V60 H22 Z M67 40 H78 V60 H67 Z' }, 'dot'],
    ENEMY(50, 50, 8),
    ['path', { d: 'M36 50 H40 M60 50 H64' }, 'bold'],
  ] },
  W: { name: 'Withdrawer', parts: [...DISC,
    ENEMY(28, 50, 7),
    ['circle', { cx: 44, cy: 50, r: 5 }, 'dot'],
    ['path', { d: 'M52 50 H74 M64 40 L75 50 L64 60' }, 'bold'],
  ] },
  L: { name: 'Long leaper', parts: [...DISC,
    ENEMY(50, 62, 7),
    ['path', { d: 'M26 66 C30 30 70 30 74 66 M64 60 L74 68 L80 56' }, 'bold'],
  ] },
  C: { name: 'Coordinator', parts: [...DISC,
    ['path', { d: 'M30 32 H70 V68 H30 Z' }, 'line'],
    ['circle', { cx: 30, cy: 68, r: 6.5 }, 'dot'],
    ['path', { d: 'M63 36 L62 26 L66.5 30 L70 23 L73.5 30 L78 26 L77 36 Z' }, 'dot'],
    ['path', { d: 'M25 27 L35 37 M35 27 L25 37 M65 63 L75 73 M75 63 L65 73' }, 'bold'],
  ] },
  I: { name: 'Immobilizer', parts: [...DISC,
    ['path', { d: spokes }, 'bold'],
    ['circle', { cx: 50, cy: 50, r: 6 }, 'dot'],
  ] },
  X: { name: 'Chameleon', parts: [...DISC,
    ['path', { d: 'M50 50 A4 4 0 0 1 58 50 A8 8 0 0 1 42 50 A12 12 0 0 1 66 50 A16 16 0 0 1 34 50 A19 19 0 0 1 72 52' }, 'bold'],
  ] },
};

// The piece sets a player may choose per game family (prefs.js keeps the
// choice); drawPiece follows the choice made last.
export const ULTIMA_STYLES = { chess: 'Chess pieces', discs: 'Pictographic discs' };
let ultimaStyle = 'chess';
export function setUltimaStyle(style) { ultimaStyle = ULTIMA_STYLES[style] ? style : 'chess'; }
export function ultimaStyleNow() { return ultimaStyle; }

const antLegs = 'M38 44 L24 36 M38 52 L22 54 M40 62 L26 74 M62 44 L76 36 M62 52 L78 54 M60 62 L74 74';
const antBody = [
  ['path', { d: antLegs }, 'leg'],
  ['ellipse', { cx: 50, cy: 70, rx: 13, ry: 15 }, 'body'],
  ['ellipse', { cx: 50, cy: 50, rx: 9, ry: 9 }, 'body'],
  ['circle', { cx: 50, cy: 33, r: 9 }, 'body'],
];

const ANT = {
  Q: { name: 'Queen', key: 'ant_queen', parts: [
    ...antBody,
    ['path', { d: 'M38 24 L40 8 L45 16 L50 6 L55 16 L60 8 L62 24 Z' }, 'body'],
  ] },
  A: { name: 'Soldier ant', parts: [
    ['path', { d: 'M45 26 L36 10 M55 26 L64 10' }, 'leg'],
    ...antBody,
  ] },
  S: { name: 'Super-ant', parts: [
    ['path', { d: 'M45 26 L36 10 M55 26 L64 10' }, 'leg'],
    ['path', { d: 'M44 48 C28 30 12 34 14 46 C16 56 32 56 44 52 Z M56 48 C72 30 88 34 86 46 C84 56 68 56 56 52 Z' }, 'body'],
    ...antBody,
    ['path', { d: 'M50 64 L52.5 69 L58 69.5 L54 73 L55 78.5 L50 76 L45 78.5 L46 73 L42 69.5 L47.5 69 Z' }, 'dot'],
  ] },
  B: { name: 'Beetle', parts: [
    ['path', { d: 'M36 50 L20 42 M36 62 L18 66 M40 74 L26 86 M64 50 L80 42 M64 62 L82 66 M60 74 L74 86' }, 'leg'],
    ['path', { d: 'M42 26 C38 16 30 14 28 8 C38 10 46 16 47 24 Z M58 26 C62 16 70 14 72 8 C62 10 54 16 53 24 Z' }, 'body'],
    ['ellipse', { cx: 50, cy: 30, rx: 10, ry: 7 }, 'body'],
    ['path', { d: 'M50 36 C70 36 72 56 70 70 C68 84 58 90 50 90 C42 90 32 84 30 70 C28 56 30 36 50 36 Z' }, 'body'],
    ['path', { d: 'M50 40 V88' }, 'line'],
  ] },
  L: { name: 'Ladybug', parts: [
    ['path', { d: 'M30 56 L18 50 M28 68 L16 72 M34 80 L24 90 M70 56 L82 50 M72 68 L84 72 M66 80 L76 90' }, 'leg'],
    ['path', { d: 'M38 30 C40 22 60 22 62 30 Z' }, 'body'],
    ['circle', { cx: 50, cy: 62, r: 25 }, 'body'],
    ['path', { d: 'M50 37 V87' }, 'line'],
    ['circle', { cx: 40, cy: 52, r: 4.5 }, 'dot'], ['circle', { cx: 60, cy: 52, r: 4.5 }, 'dot'],
    ['circle', { cx: 38, cy: 70, r: 4 }, 'dot'], ['circle', { cx: 62, cy: 70, r: 4 }, 'dot'],
  ] },
  G: { name: 'Grasshopper', parts: [
    ['path', { d: 'M30 58 L18 82 M42 60 L40 84 M24 34 L14 18' }, 'leg'],
    ['path', { d: 'M26 44 C36 36 66 40 84 58 C70 62 44 64 30 58 C24 54 22 48 26 44 Z' }, 'body'],
    ['circle', { cx: 24, cy: 42, r: 9 }, 'body'],
    ['path', { d: 'M52 52 L70 22 L76 24 L84 84 L78 84 L70 34 L60 56 Z' }, 'body'],
    ['circle', { cx: 21, cy: 40, r: 2.4 }, 'dot'],
  ] },
  W: { name: 'Earthworm', parts: [
    ['path', { d: 'M18 70 C18 50 34 50 38 62 C42 74 58 74 60 56 C62 40 80 36 84 52' }, 'body-stroke'],
    ['circle', { cx: 85, cy: 52, r: 2 }, 'dot'],
    ['path', { d: 'M34 58 L30 64 M56 62 L62 64' }, 'line'],
  ] },
};

export const PIECE_SETS = {
  ultima: ULTIMA, ultima1968: ULTIMA, rollerball: CHESS, yalta: CHESS, ant2: ANT, ant3: ANT,
};

// The set a game's pieces are drawn with now (Ultima's follows the choice).
export function pieceSet(game) {
  if (game.startsWith('ultima') && ultimaStyle === 'discs') return ULTIMA_DISCS;
  return PIECE_SETS[game];
}

function el(name, attrs) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// Returns the piece's name ("Long leaper") or null for an unknown letter.
export function pieceName(game, kind) {
  const p = PIECE_SETS[game] && pieceSet(game)[kind];
  return p ? localName(p.name, p.key) : null;
}

// A piece's name in the language in use (i18n.js 'piece.*'; the English
// of the set otherwise), capitalised as the set's.
const PIECE_KEYS = { 'Pawn (pincer)': 'pincer', 'Long leaper': 'long_leaper', 'Soldier ant': 'soldier_ant', 'Super-ant': 'super_ant' };
export function localName(name, key) {
  const w = currentLang() === 'en' ? null : tMaybe(`piece.${key || PIECE_KEYS[name] || name.toLowerCase()}`);
  if (!w) return name;
  return w[0].toUpperCase() + w.slice(1);
}

// Builds a <g> drawing piece `kind` of army colour `colour` centred at
// (cx, cy) with height `size` (board units). Carries a <title> with the
// piece's name, for hover and screen readers.
export function drawPiece(game, kind, colour, cx, cy, size, armyName) {
  const set = PIECE_SETS[game] ? pieceSet(game) : {};
  const def = set[kind];
  const col = ARMY_COLOURS[colour] || ARMY_COLOURS.white;
  const s = size / 100;
  const g = el('g', { class: set === ULTIMA_DISCS ? 'piece disc' : 'piece', transform: `translate(${cx - 50 * s} ${cy - 50 * s}) scale(${s})` });
  const title = el('title', {});
  const named = def ? localName(def.name, def.key) : kind;
  title.textContent = armyName ? t('a11y.piece', { owner: tMaybe(`colour.${colour}`) || armyName, kind: named.toLowerCase() }) : named;
  g.appendChild(title);
  if (!def) {
    const t = el('text', { x: 50, y: 64, 'text-anchor': 'middle', 'font-size': 44, fill: col.body, stroke: col.edge });
    t.textContent = kind;
    g.appendChild(t);
    return g;
  }
  for (const [type, attrs, role] of def.parts) {
    const a = { ...attrs, 'stroke-linejoin': 'round', 'stroke-linecap': 'round' };
    if (role === 'body') Object.assign(a, { fill: col.body, stroke: col.edge, 'stroke-width': 3 });
    else if (role === 'line') Object.assign(a, { fill: 'none', stroke: col.edge === col.detail ? col.edge : col.detail, 'stroke-width': 3 });
    else if (role === 'leg') Object.assign(a, { fill: 'none', stroke: col.edge, 'stroke-width': 3.5 });
    else if (role === 'dot') Object.assign(a, { fill: col.detail, stroke: 'none' });
    else if (role === 'ring') Object.assign(a, { fill: 'none', stroke: col.detail, 'stroke-width': 4.5 });
    else if (role === 'bold') Object.assign(a, { fill: 'none', stroke: col.detail, 'stroke-width': 6 });
    if (role === 'body-stroke') {
      // A thick stroke in the army colour with an outline: drawn twice.
      g.appendChild(el(type, { ...a, fill: 'none', stroke: col.edge, 'stroke-width': 13 }));
      g.appendChild(el(type, { ...a, fill: 'none', stroke: col.body, 'stroke-width': 8 }));
      continue;
    }
    g.appendChild(el(type, a));
  }
  return g;
}

// One piece alone in a small <svg> of its own (legends, a player's bar).
export function pieceIcon(game, kind, colour) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 1 1');
  svg.appendChild(drawPiece(game, kind, colour, 0.5, 0.5, 1));
  return svg;
}
