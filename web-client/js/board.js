// The board component: draws any game's board from its geometry, the pieces
// of a position, and lets the player pick a move among the server's legal
// moves by click-click or drag-and-drop. It never decides legality itself:
// it only offers moves it was given by setLegal().

import { geometry, viewAngle, rotator } from './geometry.js';
import { drawPiece, ARMY_COLOURS, pieceName } from './pieces.js';
import { A11Y } from './a11y.js';
import { t, tMaybe } from './i18n.js';

const SVGNS = 'http://www.w3.org/2000/svg';

// Each cell's neighbours: the cells sharing an edge with it (two corners),
// for every kind of board (squares, hexagons, Yalta's quadrilaterals).
const NEIGHBOURS = new WeakMap();
function neighbours(g) {
  if (NEIGHBOURS.has(g)) return NEIGHBOURS.get(g);
  const key = ([x, y]) => `${Math.round(x * 1000)},${Math.round(y * 1000)}`;
  const at = new Map(); // corner -> cells
  for (const cell of g.cells) {
    for (const p of cell.poly) {
      const k = key(p);
      if (!at.has(k)) at.set(k, []);
      at.get(k).push(cell.name);
    }
  }
  const out = new Map();
  for (const cell of g.cells) {
    const count = new Map();
    for (const p of cell.poly) for (const n of at.get(key(p))) if (n !== cell.name) count.set(n, (count.get(n) || 0) + 1);
    out.set(cell.name, [...count].filter(([, k]) => k >= 2).map(([n]) => n));
  }
  NEIGHBOURS.set(g, out);
  return out;
}

const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
let boardSeq = 0;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs = {}, text = '') {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

// Parses one move of notation.md. Returns {text, from, to, promo, pivot,
// turn, suicide, pass} or null when the text is not a move form.
export function parseMove(text) {
  const t = String(text).trim();
  if (t === 'pass') return { text: t, pass: true };
  let m = /^([a-n][0-9]{1,2})x$/.exec(t);
  if (m) return { text: t, from: m[1], to: m[1], suicide: true };
  m = /^([a-n][0-9]{1,2})-([a-n][0-9]{1,2})(?:=([A-Z]))?(?:@([a-n][0-9]{1,2})(cw|ccw))?$/.exec(t);
  if (!m) return null;
  return { text: t, from: m[1], to: m[2], promo: m[3] || null, pivot: m[4] || null, turn: m[5] || null };
}

// The boards on the page, drawn again when the piece set changes
// (redrawBoards, from prefs.js); a board leaves at destroy() or when it is
// found out of the page.
const LIVE = new Set();
export function redrawBoards() {
  for (const b of LIVE) {
    if (b.root.isConnected) b.render(); else LIVE.delete(b);
  }
}

export const PROMO_NAMES = { Q: 'Queen', R: 'Rook', B: 'Bishop', N: 'Knight' };

export class Board {
  // opts: {game, onMove(text), pieceName(kind), capturesOf(text): the cells
  // a move takes, for the picker's labels (the rules core's answer),
  // onIllegal(from, to): a selected or dragged piece was put on a cell it
  // cannot reach}
  constructor(container, opts) {
    this.container = container;
    this.opts = opts;
    // Without the rules module (or for a game it does not know) there is
    // no geometry: the board says so where it would be drawn.
    try {
      this.geom = geometry(opts.game);
    } catch (e) {
      this.geom = null;
      this.failure = e.message;
    }
    this.view = 0;
    this.position = new Map();
    this.legal = [];
    this.marks = { last: [], captured: [], check: [], frozen: [], inert: [], premove: [] };
    this.colours = null; // army colour per seat, from the server's seat list
    this.selected = null;
    this.interactive = false;
    this.showNames = opts.game.startsWith('ant');
    this.root = html('div', { class: 'board-wrap', 'data-game': opts.game });
    // One tab stop: the svg holds the focus, aria-activedescendant names
    // the focused cell (the cells are drawn again at every render).
    this.uid = `board${++boardSeq}`;
    this.focusCell = null;
    this.svg = el('svg', { class: 'board', role: 'grid', tabindex: 0, 'aria-label': A11Y.board(opts.game) });
    this.root.appendChild(this.svg);
    this.picker = html('div', { class: 'picker', hidden: '' });
    this.root.appendChild(this.picker);
    container.appendChild(this.root);
    if (!this.geom) this.root.appendChild(html('p', { class: 'board-error error', role: 'alert' }, `The board cannot be drawn: ${this.failure}.`));
    this.bindPointer();
    this.bindKeys();
    this.render();
    LIVE.add(this);
  }

  setView(index) { this.view = index; this.render(); }

  // pieces: Map or object cell -> {kind, owner}
  setPosition(pieces) {
    this.position = pieces instanceof Map ? pieces : new Map(Object.entries(pieces || {}));
    this.render();
  }

  // moves: array of move texts the player to move may send now.
  setLegal(moves) {
    this.legal = (moves || []).map(parseMove).filter(Boolean);
    this.interactive = this.legal.length > 0;
    if (this.selected && !this.movesFrom(this.selected).length) this.selected = null;
    this.render();
  }

  // colours: the seats' colour names ("white", "red", ...) in seat order.
  setColours(colours) { this.colours = colours; this.render(); }

  player(owner) {
    const base = this.geom.players[owner] || this.geom.players[0];
    const c = this.colours && this.colours[owner];
    // A colour the piece sets do not paint keeps the geometry's own.
    const named = (p) => ({ ...p, name: tMaybe(`colour.${p.colour}`) || p.name });
    return named(c && ARMY_COLOURS[c] ? { name: c[0].toUpperCase() + c.slice(1), colour: c } : base);
  }

  setMarks(marks) { Object.assign(this.marks, marks); this.render(); }

  movesFrom(cell) { return this.legal.filter((m) => !m.pass && m.from === cell); }

  // --- drawing -------------------------------------------------------------

  render() {
    const g = this.geom;
    if (!g) return;
    const rot = rotator(g, viewAngle(g, this.view));
    this.rot = rot;
    const svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    // Bounds of the turned board, with room for the labels.
    const pts = g.cells.flatMap((c) => c.poly.map(rot)).concat(g.labels.map((l) => {
      const [x, y] = rot([l.x, l.y]);
      return [l.keep === 'x' ? l.x : x, l.keep === 'y' ? l.y : y];
    }));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const pad = 0.35;
    const x0 = Math.min(...xs) - pad, y0 = Math.min(...ys) - pad;
    svg.setAttribute('viewBox', `${x0} ${y0} ${Math.max(...xs) - x0 + pad} ${Math.max(...ys) - y0 + pad}`);

    const hide = { 'aria-hidden': 'true' }; // the a11y layer speaks for them
    const cellsG = el('g', { class: 'cells', ...hide }, svg);
    const dec = el('g', { class: 'decor', ...hide }, svg);
    const marksG = el('g', { class: 'marks', ...hide }, svg);
    const labels = el('g', { class: 'labels', ...hide }, svg);
    const piecesG = el('g', { class: 'pieces', ...hide }, svg);
    const destsG = el('g', { class: 'dests', ...hide }, svg);
    this.piecesLayer = piecesG;

    const ptsAttr = (poly) => poly.map(rot).map((p) => p.join(',')).join(' ');
    for (const cell of g.cells) {
      const poly = el('polygon', {
        class: `cell shade${cell.shade}`, points: ptsAttr(cell.poly), 'data-cell': cell.name,
      }, cellsG);
      const t = el('title', {}, poly);
      t.textContent = cell.name;
      if (cell.centreCell) {
        const [cx, cy] = rot(cell.c);
        el('circle', { class: 'centre-mark', cx, cy, r: 0.55 }, dec);
        el('circle', { class: 'centre-mark', cx, cy, r: 0.25 }, dec);
      }
      if (this.showNames) {
        const [cx, cy] = rot(cell.c);
        const t2 = el('text', { class: 'cell-name', x: cx, y: cy + cell.size * 0.42 }, labels);
        t2.textContent = cell.name;
      }
    }
    for (const d of g.decor) {
      if (d.kind === 'ring') {
        el('polygon', { class: 'ring', points: d.pts.map(rot).map((p) => p.join(',')).join(' ') }, dec);
        // Arrows every few cells show the clockwise flow.
        for (let i = 1; i < d.pts.length; i += 3) {
          const [ax, ay] = rot(d.pts[i - 1]), [bx, by] = rot(d.pts[i]);
          const mx = (ax + bx) / 2, my = (ay + by) / 2;
          const ang = (Math.atan2(by - ay, bx - ax) * 180) / Math.PI;
          el('path', { class: 'ring-arrow', d: 'M-0.12,-0.12 L0.06,0 L-0.12,0.12', transform: `translate(${mx} ${my}) rotate(${ang})` }, dec);
        }
      } else if (d.kind === 'hole') {
        el('polygon', { class: 'hole', points: ptsAttr(d.poly) }, cellsG);
      } else if (d.kind === 'centre') {
        const [cx, cy] = rot(d.c);
        el('circle', { class: 'centre-point', cx, cy, r: 0.18 }, dec);
      }
    }
    for (const l of g.labels) {
      let [x, y] = rot([l.x, l.y]);
      if (l.keep === 'x') x = l.x;
      if (l.keep === 'y') y = l.y;
      const t = el('text', { class: 'coord', x, y: y + 0.1 }, labels);
      t.textContent = l.text;
    }

    const fillCell = (name, cls) => {
      const cell = g.byName.get(name);
      if (cell) el('polygon', { class: cls, points: ptsAttr(cell.poly) }, marksG);
    };
    for (const n of this.marks.last) fillCell(n, 'mark-last');
    for (const n of this.marks.captured) fillCell(n, 'mark-captured');
    for (const n of this.marks.premove || []) fillCell(n, 'mark-premove');
    if (this.selected) fillCell(this.selected, 'mark-selected');
    if (this.pendingTo) fillCell(this.pendingTo, 'mark-selected');
    for (const n of this.marks.check) {
      const cell = g.byName.get(n);
      if (!cell) continue;
      const [cx, cy] = rot(cell.c);
      el('circle', { class: 'mark-check', cx, cy, r: cell.size * 0.55 }, marksG);
    }

    const frozen = new Set(this.marks.frozen);
    for (const [name, p] of this.position) {
      const cell = g.byName.get(name);
      if (!cell || !p) continue;
      const [cx, cy] = rot(cell.c);
      const player = this.player(p.owner);
      const pg = drawPiece(g.id, p.kind, player.colour, cx, cy, cell.size, player.name);
      if (this.marks.inert.includes(name)) pg.classList.add('inert');
      pg.setAttribute('data-cell', name);
      if (frozen.has(name)) pg.classList.add('frozen');
      // A premove's pieces are not "movable": they cannot move now.
      if (this.movesFrom(name).length) pg.classList.add(this.premoving ? 'premovable' : 'movable');
      piecesG.appendChild(pg);
      if (frozen.has(name)) {
        el('circle', { class: 'mark-frozen', cx, cy, r: cell.size * 0.52, 'data-cell': name }, marksG);
      }
    }

    if (this.selected) {
      const seen = new Set();
      for (const m of this.movesFrom(this.selected)) {
        if (seen.has(m.to)) continue;
        seen.add(m.to);
        const cell = g.byName.get(m.to);
        const [cx, cy] = rot(cell.c);
        if (m.suicide) {
          const c = el('g', { class: 'dest suicide', 'data-cell': m.to }, destsG);
          const r = cell.size * 0.22;
          el('path', { d: `M${cx - r},${cy - r} L${cx + r},${cy + r} M${cx + r},${cy - r} L${cx - r},${cy + r}` }, c);
        } else if (this.position.get(m.to)) {
          el('polygon', { class: 'dest capture', points: ptsAttr(cell.poly), 'data-cell': m.to }, destsG);
        } else {
          el('circle', { class: 'dest', cx, cy, r: cell.size * 0.16, 'data-cell': m.to }, destsG);
        }
      }
    }
    this.renderA11y(ptsAttr);
  }

  // The accessible layer, drawn last: one gridcell per cell, named with its
  // piece and owner, in rows by the number of the cell's name. It takes no
  // pointer events (cellAt never sees it); the focused cell has the ring.
  renderA11y(ptsAttr) {
    const g = this.geom;
    // Until the player moves the focus it follows the pieces that may move.
    if (!this.focusMoved || !g.byName.has(this.focusCell)) this.focusCell = this.startCell();
    const dests = new Set(this.selected ? this.movesFrom(this.selected).map((m) => m.to) : []);
    const layer = el('g', { class: 'a11y', role: 'rowgroup' }, this.svg);
    const rows = new Map();
    for (const cell of g.cells) {
      const rank = cell.name.replace(/^[a-z]+/, '');
      if (!rows.has(rank)) rows.set(rank, el('g', { role: 'row' }, layer));
      const p = this.position.get(cell.name);
      let what = p ? A11Y.piece(this.player(p.owner).colour, pieceName(g.id, p.kind) || p.kind) : A11Y.empty;
      if (this.selected === cell.name) what += `, ${A11Y.selected}`;
      else if (dests.has(cell.name)) what += `, ${A11Y.dest}`;
      el('polygon', {
        class: cell.name === this.focusCell ? 'a11y-cell focused' : 'a11y-cell', points: ptsAttr(cell.poly),
        role: 'gridcell', id: `${this.uid}-${cell.name}`, 'aria-label': A11Y.cell(cell.name, what),
        'aria-selected': this.selected === cell.name ? 'true' : 'false',
      }, rows.get(rank));
    }
    this.svg.setAttribute('aria-activedescendant', `${this.uid}-${this.focusCell}`);
  }

  // Where the focus starts: a piece that may move, else the cell nearest
  // the bottom middle of the view.
  startCell() {
    const g = this.geom;
    const mov = g.cells.find((c) => this.movesFrom(c.name).length);
    if (mov) return mov.name;
    let best = g.cells[0], bs = -Infinity;
    for (const c of g.cells) {
      const [x, y] = this.rot(c.c);
      const s = y - Math.abs(x - this.rot(g.centre)[0]) * 0.5;
      if (s > bs) { bs = s; best = c; }
    }
    return best.name;
  }

  // The neighbour of the focused cell whose direction on screen best
  // matches the arrow (rank/file on square boards).
  step(dx, dy) {
    const g = this.geom;
    const from = g.byName.get(this.focusCell);
    const [fx, fy] = this.rot(from.c);
    let best = null, bc = 0.3;
    for (const n of neighbours(g).get(from.name) || []) {
      const [x, y] = this.rot(g.byName.get(n).c);
      const len = Math.hypot(x - fx, y - fy) || 1;
      const cos = ((x - fx) * dx + (y - fy) * dy) / len;
      if (cos > bc) { bc = cos; best = n; }
    }
    return best;
  }

  // Enter or Space on the focused cell: what a click on it does.
  activate(name) {
    this.focusMoved = true;
    if (!this.interactive) return;
    this.hidePicker();
    if (this.selected && name !== this.selected && this.movesFrom(this.selected).some((m) => m.to === name)) {
      this.tryMove(this.selected, name);
    } else if (this.selected === name) {
      if (this.movesFrom(name).some((m) => m.suicide)) this.tryMove(name, name);
      else { this.selected = null; this.render(); }
    } else if (this.movesFrom(name).length) {
      this.selected = name;
      this.render();
    } else if (this.selected) {
      const from = this.selected;
      this.selected = null;
      this.render();
      if (this.opts.onIllegal) this.opts.onIllegal(from, name);
    }
  }

  bindKeys() {
    this.svg.addEventListener('keydown', (ev) => {
      if (!this.geom || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const arrow = ARROWS[ev.key];
      if (arrow) {
        ev.preventDefault();
        ev.stopPropagation(); // not the move list's stepping
        const n = this.step(...arrow);
        if (n) { this.focusCell = n; this.focusMoved = true; this.render(); }
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        this.activate(this.focusCell);
      } else if (ev.key === 'Escape' && this.selected) {
        this.selected = null;
        this.render();
      }
    });
  }

  // --- input ---------------------------------------------------------------

  cellAt(clientX, clientY) {
    const hit = document.elementsFromPoint(clientX, clientY);
    for (const e of hit) {
      const c = e.closest && e.closest('[data-cell]');
      if (c && this.svg.contains(c)) return c.getAttribute('data-cell');
    }
    return null;
  }

  bindPointer() {
    let drag = null;
    this.svg.addEventListener('pointerdown', (ev) => {
      if (!this.interactive || ev.button !== 0) return;
      const name = this.cellAt(ev.clientX, ev.clientY);
      if (!name) return;
      this.hidePicker();
      if (this.selected && name !== this.selected && this.movesFrom(this.selected).some((m) => m.to === name)) {
        ev.preventDefault();
        this.tryMove(this.selected, name);
        return;
      }
      if (this.movesFrom(name).length) {
        ev.preventDefault();
        const wasSelected = this.selected === name;
        this.selected = name;
        this.render();
        const piece = this.piecesLayer.querySelector(`[data-cell="${name}"]`);
        drag = { from: name, piece, x: ev.clientX, y: ev.clientY, moved: false, wasSelected };
        this.svg.setPointerCapture(ev.pointerId);
      } else if (this.selected) {
        const from = this.selected;
        this.selected = null;
        this.render();
        if (this.opts.onIllegal) this.opts.onIllegal(from, name);
      }
    });
    this.svg.addEventListener('pointermove', (ev) => {
      if (!drag || !drag.piece) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      drag.moved = true;
      const k = this.svg.viewBox.baseVal.width / this.svg.getBoundingClientRect().width;
      drag.piece.classList.add('dragging');
      drag.piece.style.transform = `translate(${dx * k}px, ${dy * k}px)`;
    });
    const end = (ev) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (d.piece) { d.piece.style.transform = ''; d.piece.classList.remove('dragging'); }
      const name = this.cellAt(ev.clientX, ev.clientY);
      if (d.moved && name && name !== d.from) {
        this.tryMove(d.from, name);
      } else if (!d.moved && name === d.from && this.movesFrom(d.from).some((m) => m.suicide)) {
        // Clicking a piece that may commit suicide offers it right away.
        if (d.wasSelected) this.tryMove(d.from, d.from);
      } else if (!d.moved && d.wasSelected && name === d.from) {
        this.selected = null;
        this.render();
      }
    };
    this.svg.addEventListener('pointerup', end);
    this.svg.addEventListener('pointercancel', () => { drag = null; this.render(); });
  }

  // Sends the move from -> to, asking the player to choose when several
  // legal moves join the two cells (promotion piece, ladybug pivot and turn).
  tryMove(from, to) {
    const cands = this.movesFrom(from).filter((m) => m.to === to);
    if (!cands.length) {
      this.selected = null;
      this.render();
      if (this.opts.onIllegal) this.opts.onIllegal(from, to);
      return;
    }
    if (cands.length === 1 && !cands[0].suicide) { this.commit(cands[0]); return; }
    const title = cands[0].suicide ? t('board.suicide')
      : cands[0].promo ? t('board.promote') : t('board.ladybug');
    this.pendingTo = to;
    this.render();
    this.showPicker(title, cands.map((m) => ({ move: m, label: this.choiceLabel(m) })));
  }

  choiceLabel(m) {
    if (m.suicide) return t('board.removeon', { cell: m.from });
    if (m.promo) return (this.opts.pieceName && this.opts.pieceName(m.promo)) || PROMO_NAMES[m.promo] || m.promo;
    if (m.pivot) {
      // What the walk takes, from the rules core (opts.capturesOf).
      const caps = this.opts.capturesOf ? this.opts.capturesOf(m.text) : [];
      const takes = caps.length ? t('board.takes', { cells: caps.join(' ') }) : '';
      return t(m.turn === 'cw' ? 'board.walkcw' : 'board.walkccw', { pivot: m.pivot }) + takes;
    }
    return m.text;
  }

  showPicker(title, choices) {
    const p = this.picker;
    p.replaceChildren();
    p.appendChild(html('div', { class: 'picker-title' }, title));
    for (const c of choices) {
      const b = html('button', { type: 'button', class: 'picker-choice', 'data-move': c.move.text }, c.label);
      if (c.move.promo) {
        const svg = el('svg', { viewBox: '0 0 1 1', class: 'picker-piece' });
        const own = this.position.get(c.move.from);
        const player = this.player(own ? own.owner : 0);
        svg.appendChild(drawPiece(this.geom.id, c.move.promo, player.colour, 0.5, 0.5, 1, player.name));
        b.prepend(svg);
      }
      b.addEventListener('click', () => { this.hidePicker(); this.commit(c.move); });
      p.appendChild(b);
    }
    const cancel = html('button', { type: 'button', class: 'picker-cancel' }, t('w.cancel'));
    cancel.addEventListener('click', () => { this.hidePicker(); this.selected = null; this.render(); });
    p.appendChild(cancel);
    p.hidden = false;
    p.querySelector('button').focus();
  }

  hidePicker() {
    // A choice made with the keyboard gives the focus back to the board.
    if (!this.picker.hidden && this.picker.contains(document.activeElement)) this.svg.focus();
    this.picker.hidden = true;
    if (this.pendingTo) { this.pendingTo = null; this.render(); }
  }

  commit(m) {
    this.selected = null;
    this.render();
    if (this.opts.onMove) this.opts.onMove(m.text);
  }

  destroy() { LIVE.delete(this); this.root.remove(); }
}
