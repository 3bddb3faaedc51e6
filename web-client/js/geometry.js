// Board geometry for every game, computed once from the rules files'
// descriptions (../shared/rules/*.md), never typed in cell by cell.
//
// geometry(gameId) returns a frozen record:
//   id, players: [{name, colour}], cells: [{name, poly: [[x,y]...], c: [x,y],
//   size, shade}], byName: Map, labels: [{x, y, text}], decor: [...],
//   homes: [[x,y] per player] (where that player's army starts; the view turns
//   that point to the bottom), centre: [x, y], bounds: {x, y, w, h}.
// Coordinates are screen coordinates (y grows downwards), in cell units.

const SQRT3 = Math.sqrt(3);

const cache = new Map();

export function geometry(id) {
  if (!cache.has(id)) {
    const builders = {
      ultima: buildUltima, ultima1968: buildUltima, rollerball: buildRollerball,
      yalta: buildYalta, ant2: () => buildAnt(2), ant3: () => buildAnt(3),
    };
    const b = builders[id];
    if (!b) throw new Error(`unknown game ${id}`);
    cache.set(id, finish(id, b()));
  }
  return cache.get(id);
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
  if (!g.centre) g.centre = [(x0 + x1) / 2, (y0 + y1) / 2];
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

const FILES8 = 'abcdefgh';

function square(x, y) {
  return [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]];
}

// Ultima: 8x8, a1 dark at White's bottom left.
function buildUltima() {
  const cells = [];
  const labels = [];
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      cells.push({ name: FILES8[f] + (r + 1), poly: square(f, 7 - r), shade: (f + r) % 2 === 0 ? 1 : 0 });
    }
  }
  for (let i = 0; i < 8; i++) {
    labels.push({ x: i + 0.5, y: 8.3, text: FILES8[i], keep: 'y' });
    labels.push({ x: -0.3, y: 7.5 - i, text: String(i + 1), keep: 'x' });
  }
  return {
    players: [{ name: 'White', colour: 'white' }, { name: 'Black', colour: 'black' }],
    cells, labels, decor: [], homes: [[4, 8], [4, 0]], centre: [4, 4],
  };
}

// Rollerball: 7x7 without c3-e5; outer ring = edge cells, inner ring = the
// 16 cells around the hole. The rings are drawn as two closed loops through
// the cell centres with arrow heads showing the clockwise flow.
function buildRollerball() {
  const cells = [];
  const labels = [];
  const inHole = (f, r) => f >= 2 && f <= 4 && r >= 2 && r <= 4;
  for (let r = 0; r < 7; r++) {
    for (let f = 0; f < 7; f++) {
      if (inHole(f, r)) continue;
      const outer = f === 0 || f === 6 || r === 0 || r === 6;
      cells.push({
        name: FILES8[f] + (r + 1), poly: square(f, 6 - r),
        shade: (f + r) % 2 === 0 ? 1 : 0, ring: outer ? 'outer' : 'inner',
      });
    }
  }
  for (let i = 0; i < 7; i++) {
    labels.push({ x: i + 0.5, y: 7.3, text: FILES8[i], keep: 'y' });
    labels.push({ x: -0.3, y: 6.5 - i, text: String(i + 1), keep: 'x' });
  }
  // Loops through cell centres, listed clockwise as seen from above
  // (screen: along the bottom to the left, up, right along the top, down).
  const loop = (lo, hi) => {
    const pts = [];
    for (let f = hi; f > lo; f--) pts.push([f + 0.5, 6 - lo + 0.5]); // bottom, westwards
    for (let r = lo; r < hi; r++) pts.push([lo + 0.5, 6 - r + 0.5]); // west side, north
    for (let f = lo; f < hi; f++) pts.push([f + 0.5, 6 - hi + 0.5]); // top, eastwards
    for (let r = hi; r > lo; r--) pts.push([hi + 0.5, 6 - r + 0.5]); // east side, south
    return pts;
  };
  const decor = [
    { kind: 'ring', pts: loop(0, 6) },
    { kind: 'ring', pts: loop(1, 5) },
    { kind: 'hole', poly: [[2, 2], [5, 2], [5, 5], [2, 5]] },
  ];
  return {
    players: [{ name: 'White', colour: 'white' }, { name: 'Black', colour: 'black' }],
    cells, labels, decor, homes: [[3.5, 7], [3.5, 0]], centre: [3.5, 3.5],
  };
}

// Yalta: regular hexagon, centre O, cut into six kites (vertex V, midpoints
// M on the section's centre line and M' towards the next section). A
// quadrilateral's cell (r, c) is the patch [c/4,(c+1)/4] x [r/4,(r+1)/4] of
// P(u,v) = (1-u)(1-v)V + u(1-v)M + (1-u)vM' + uvO.
// White's section is at the bottom (flat bottom side; vertices at 0, 60 ...
// 300 degrees, counted anticlockwise as on paper); Red follows on White's
// left, Black on White's right, as the side adjacencies of yalta.md require
// (a4|a5 joins White's left kite to Red, e4|e9 White's right kite to Black).
export const YALTA_KITES = [
  // [section, files outer->centre, ranks back->front, V, M, M'] (angles in degrees)
  [0, 'abcd', [1, 2, 3, 4], 240, 270, 210],
  [0, 'hgfe', [1, 2, 3, 4], 300, 270, 330],
  [1, 'abcd', [8, 7, 6, 5], 180, 150, 210],
  [1, 'lkji', [8, 7, 6, 5], 120, 150, 90],
  [2, 'hgfe', [12, 11, 10, 9], 0, 30, 330],
  [2, 'lkji', [12, 11, 10, 9], 60, 30, 90],
];

function buildYalta() {
  const R = 8; // hexagon circumradius in cell units: 4 cells along each half-side
  const O = [0, 0];
  const at = (deg, rad) => [rad * Math.cos((deg * Math.PI) / 180), -rad * Math.sin((deg * Math.PI) / 180)];
  const vertex = (deg) => at(deg, R);
  const midpoint = (deg) => at(deg, R * Math.cos(Math.PI / 6));
  const cells = [];
  const labels = [];
  for (const [section, files, ranks, vd, md, mpd] of YALTA_KITES) {
    const V = vertex(vd), M = midpoint(md), Mp = midpoint(mpd);
    const P = (u, v) => [0, 1].map((k) =>
      (1 - u) * (1 - v) * V[k] + u * (1 - v) * M[k] + (1 - u) * v * Mp[k] + u * v * O[k]);
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const poly = [P(c / 4, r / 4), P((c + 1) / 4, r / 4), P((c + 1) / 4, (r + 1) / 4), P(c / 4, (r + 1) / 4)];
        cells.push({ name: files[c] + ranks[r], poly, section, shade: -1 });
      }
    }
    // Coordinates on the edges: file letters beyond the back rank (v < 0),
    // rank numbers beyond the outer file (u < 0).
    for (let c = 0; c < 4; c++) {
      const [x, y] = P((c + 0.5) / 4, -0.09);
      labels.push({ x, y, text: files[c] });
    }
    for (let r = 0; r < 4; r++) {
      const [x, y] = P(-0.09, (r + 0.5) / 4);
      labels.push({ x, y, text: String(ranks[r]) });
    }
  }
  colourBySides(cells, 'a1');
  const home = (deg) => at(deg, R);
  return {
    players: [{ name: 'White', colour: 'white' }, { name: 'Red', colour: 'red' }, { name: 'Black', colour: 'black' }],
    cells, labels, decor: [{ kind: 'centre', c: O }], homes: [home(270), home(150), home(30)], centre: O,
  };
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

// "a1 dark; side-adjacent cells differ": breadth-first from the first cell.
function colourBySides(cells, first) {
  const nb = sideNeighbours(cells);
  const byName = new Map(cells.map((c) => [c.name, c]));
  byName.get(first).shade = 1;
  const queue = [first];
  while (queue.length) {
    const n = queue.shift();
    for (const m of nb.get(n)) {
      const cell = byName.get(m);
      if (cell.shade === -1) {
        cell.shade = 1 - byName.get(n).shade;
        queue.push(m);
      }
    }
  }
}

// Ant Chess: 127 flat-topped hexagons, axial (q, r), names from antchess.md.
export const ANT_FILES = 'abcdefghiklmn';

export function antName(q, r) {
  return ANT_FILES[q + 6] + (r - Math.max(-6, -6 - q) + 1);
}

function buildAnt(players) {
  const cells = [];
  const labels = [];
  for (let q = -6; q <= 6; q++) {
    for (let r = -6; r <= 6; r++) {
      if (Math.abs(q + r) > 6) continue;
      const x = 1.5 * q, y = -SQRT3 * (r + q / 2);
      const poly = [];
      for (let k = 0; k < 6; k++) {
        const a = (Math.PI / 3) * k;
        poly.push([x + Math.cos(a), y + Math.sin(a)]);
      }
      const name = antName(q, r);
      cells.push({ name, poly, q, r, shade: (((q - r) % 3) + 3) % 3, centreCell: q === 0 && r === 0, tag: name });
    }
  }
  // File letters under each file's bottom cell and above its top cell.
  for (let q = -6; q <= 6; q++) {
    const rLo = Math.max(-6, -6 - q), rHi = Math.min(6, 6 - q);
    const bottom = -SQRT3 * (rLo + q / 2), top = -SQRT3 * (rHi + q / 2);
    labels.push({ x: 1.5 * q, y: bottom + 1.35, text: ANT_FILES[q + 6] });
    labels.push({ x: 1.5 * q, y: top - 1.35, text: ANT_FILES[q + 6] });
  }
  const cellAt = (name) => cells.find((c) => c.name === name);
  const pos = (name) => { const c = cellAt(name); return [1.5 * c.q, -SQRT3 * (c.r + c.q / 2)]; };
  const homes = players === 2 ? [pos('g1'), pos('g13')] : [pos('g1'), pos('a7'), pos('n7')];
  const pl = players === 2
    ? [{ name: 'Black', colour: 'black' }, { name: 'Red', colour: 'red' }]
    : [{ name: 'Black', colour: 'black' }, { name: 'Red', colour: 'red' }, { name: 'Green', colour: 'green' }];
  return { players: pl, cells, labels, decor: [{ kind: 'centre-cell', cell: 'g7' }], homes, centre: [0, 0] };
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
