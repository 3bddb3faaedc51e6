// Board geometry for every game, from the rules core: the cells' shapes,
// the coordinates round the edge, the decorations and where each army
// starts come from common/geometry.c (rules.wasm, the `board` of each of
// rules.games); nothing of a board is typed or computed here but what
// follows from the polygons (centroids, piece sizes, bounds) and the view's
// rotation.
//
// The boards must be set (setBoards, or loadBoards in the page) before the
// first geometry() call; app.js does that before it routes.
//
// geometry(gameId) returns a frozen record:
//   id, players: [{name, colour}], cells: [{name, poly: [[x,y]...], c: [x,y],
//   size, shade, ring?, q?, r?, centreCell?}], byName: Map,
//   labels: [{x, y, text, keep?}], decor: [...], homes: [[x,y] per player]
//   (where that player's army starts; the view turns that point to the
//   bottom), centre: [x, y], bounds: {x, y, w, h}.
// Coordinates are screen coordinates (y grows downwards), in cell units.

import { pageRules } from './rules.js';

const boards = new Map(); // game id -> the core's board (wasm_board)
const cache = new Map();

// Takes the boards of the rules core's games (rules.games of loadRules).
export function setBoards(games) {
  boards.clear();
  cache.clear();
  for (const g of games) if (g.board) boards.set(g.id, g.board);
}

// The page's boards, from its one rules module (pageRules): resolves once
// they are set; rejects (and may be called again) if the module could not
// be had.
let loading = null;
export function loadBoards() {
  if (!loading) {
    loading = pageRules().then(({ rules }) => setBoards(rules.games));
    loading.catch(() => { loading = null; });
  }
  return loading;
}

export function geometry(id) {
  if (!cache.has(id)) {
    const b = boards.get(id);
    if (!b) {
      throw new Error(boards.size ? `unknown game ${id}`
        : 'the rules module (rules.wasm) is not loaded');
    }
    cache.set(id, finish(id, copy(b)));
  }
  return cache.get(id);
}

// A deep copy of the core's board, so that the frozen record owns its data.
function copy(b) {
  return {
    players: b.players.map((p) => ({ ...p })),
    cells: b.cells.map((c) => ({ ...c, poly: c.poly.map((p) => [...p]), centreCell: !!c.centreCell })),
    labels: b.labels.map((l) => ({ ...l })),
    decor: b.decor.map((d) => structuredClone(d)),
    homes: b.homes.map((p) => [...p]),
    centre: [...b.centre],
  };
}

// Fills in the derived fields every board needs: centroid, piece size,
// the name index and the bounding box.
function finish(id, g) {
  for (const cell of g.cells) {
    cell.c = centroid(cell.poly);
    cell.size = 1.85 * inradius(cell.poly, cell.c);
  }
  g.id = id;
  g.byName = new Map(g.cells.map((cell) => [cell.name, cell]));
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const pts = g.cells.flatMap((cell) => cell.poly).concat(g.labels.map((l) => [l.x, l.y]));
  for (const [x, y] of pts) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  g.bounds = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  return Object.freeze(g);
}

export function centroid(poly) {
  // Area centroid (the vertex mean is off for kites).
  let a = 0, cx = 0, cy = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x0, y0] = poly[i];
    const [x1, y1] = poly[(i + 1) % poly.length];
    const k = x0 * y1 - x1 * y0;
    a += k; cx += (x0 + x1) * k; cy += (y0 + y1) * k;
  }
  return [cx / (3 * a), cy / (3 * a)];
}

function inradius(poly, c) {
  let best = Infinity;
  for (let i = 0; i < poly.length; i++) {
    const [ax, ay] = poly[i];
    const [bx, by] = poly[(i + 1) % poly.length];
    const len = Math.hypot(bx - ax, by - ay);
    const d = Math.abs((bx - ax) * (ay - c[1]) - (ax - c[0]) * (by - ay)) / len;
    best = Math.min(best, d);
  }
  return best;
}

// Two cells are side-adjacent when they share both end points of an edge.
export function sideNeighbours(cells) {
  const key = ([x, y]) => `${Math.round(x * 1000) || 0},${Math.round(y * 1000) || 0}`;
  const edges = new Map();
  const nb = new Map(cells.map((c) => [c.name, []]));
  for (const cell of cells) {
    const p = cell.poly;
    for (let i = 0; i < p.length; i++) {
      const a = key(p[i]), b = key(p[(i + 1) % p.length]);
      const k = a < b ? a + '|' + b : b + '|' + a;
      if (edges.has(k)) {
        const other = edges.get(k);
        nb.get(other).push(cell.name);
        nb.get(cell.name).push(other);
      } else {
        edges.set(k, cell.name);
      }
    }
  }
  return nb;
}

// The angle (radians) that turns player `index`'s home to the bottom of the
// screen, about the board centre.
export function viewAngle(g, index) {
  const [hx, hy] = g.homes[index] || g.homes[0];
  const a = Math.atan2(hy - g.centre[1], hx - g.centre[0]);
  return Math.PI / 2 - a;
}

export function rotator(g, angle) {
  const cos = Math.cos(angle), sin = Math.sin(angle);
  const [ox, oy] = g.centre;
  return ([x, y]) => {
    const dx = x - ox, dy = y - oy;
    // Snap tiny float noise so 180-degree turns of square boards stay crisp.
    const rx = ox + dx * cos - dy * sin, ry = oy + dx * sin + dy * cos;
    return [Math.round(rx * 1e6) / 1e6, Math.round(ry * 1e6) / 1e6];
  };
}
