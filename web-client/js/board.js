// The board component: draws any game's board from its geometry, the pieces
// of a position, and lets the player pick a move among the server's legal
// moves by click-click or drag-and-drop. It never decides legality itself:
// it only offers moves it was given by setLegal().

import { geometry, viewAngle, rotator } from './geometry.js';
import { drawPiece, ARMY_COLOURS } from './pieces.js';

const SVGNS = 'http://www.w3.org/2000/svg';

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
    this.svg = el('svg', { class: 'board', role: 'img', 'aria-label': `${opts.game} board` });
    this.root.appendChild(this.svg);
    this.picker = html('div', { class: 'picker', hidden: '' });
    this.root.appendChild(this.picker);
    container.appendChild(this.root);
    if (!this.geom) this.root.appendChild(html('p', { class: 'board-error error', role: 'alert' }, `The board cannot be drawn: ${this.failure}.`));
    this.bindPointer();
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
    return c && ARMY_COLOURS[c] ? { name: c[0].toUpperCase() + c.slice(1), colour: c } : base;
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

    const cellsG = el('g', { class: 'cells' }, svg);
    const dec = el('g', { class: 'decor' }, svg);
    const marksG = el('g', { class: 'marks' }, svg);
    const labels = el('g', { class: 'labels' }, svg);
    const piecesG = el('g', { class: 'pieces' }, svg);
    const destsG = el('g', { class: 'dests' }, svg);
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
    const title = cands[0].suicide ? 'Remove this frozen piece (suicide)?'
      : cands[0].promo ? 'Promote to' : 'Choose the ladybug\u2019s walk';
    this.pendingTo = to;
    this.render();
    this.showPicker(title, cands.map((m) => ({ move: m, label: this.choiceLabel(m) })));
  }

  choiceLabel(m) {
    if (m.suicide) return `Remove the piece on ${m.from}`;
    if (m.promo) return (this.opts.pieceName && this.opts.pieceName(m.promo)) || PROMO_NAMES[m.promo] || m.promo;
    if (m.pivot) {
      // What the walk takes, from the rules core (opts.capturesOf).
      const caps = this.opts.capturesOf ? this.opts.capturesOf(m.text) : [];
      const takes = caps.length ? `, takes ${caps.join(' ')}` : '';
      return `round ${m.pivot}, ${m.turn === 'cw' ? 'clockwise' : 'anticlockwise'}${takes}`;
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
    const cancel = html('button', { type: 'button', class: 'picker-cancel' }, 'Cancel');
    cancel.addEventListener('click', () => { this.hidePicker(); this.selected = null; this.render(); });
    p.appendChild(cancel);
    p.hidden = false;
    p.querySelector('button').focus();
  }

  hidePicker() {
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
