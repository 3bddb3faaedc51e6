// The boards as the core draws them (common/geometry.c through
// build/rules.wasm, wasm_board) against geometry.snapshot.json: the
// geometry the client computed in JavaScript before it moved into the core,
// for every game. Numbers must agree within 1e-9, so that the boards look
// as they did. Then the same through web-client/js/geometry.js, which
// builds the page's board records (centroids, piece sizes, bounds) from
// the core's data.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRules } from '../../web-client/js/rules.js';
import { geometry, setBoards } from '../../web-client/js/geometry.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const rules = await loadRules(readFileSync(path.join(root, 'build/rules.wasm')));
const snapshot = JSON.parse(readFileSync(path.join(here, 'geometry.snapshot.json'), 'utf8'));
const EPS = 1e-9;

// Deep equality where numbers may differ by EPS; `where` names the place.
function near(got, want, where) {
  if (typeof want === 'number') {
    assert.equal(typeof got, 'number', `${where}: ${JSON.stringify(got)} is not a number`);
    assert.ok(Math.abs(got - want) <= EPS, `${where}: ${got} != ${want}`);
  } else if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${where}: not an array`);
    assert.equal(got.length, want.length, `${where}: length`);
    want.forEach((w, i) => near(got[i], w, `${where}[${i}]`));
  } else if (want && typeof want === 'object') {
    assert.ok(got && typeof got === 'object', `${where}: not an object`);
    for (const k of Object.keys(want)) near(got[k], want[k], `${where}.${k}`);
  } else {
    assert.equal(got, want, where);
  }
}

// What a snapshot cell says about drawing (tag and section were never
// drawn: the core does not give them).
const drawn = (c) => ({ poly: c.poly, shade: c.shade, ring: c.ring, q: c.q, r: c.r });

test('the core draws every game of the snapshot, and no other', () => {
  assert.deepEqual(rules.games.map((g) => g.id).sort(), Object.keys(snapshot).sort());
});

for (const g of rules.games) {
  const snap = snapshot[g.id];
  if (!snap) continue;

  test(`${g.id}: the core's board is the snapshot's`, () => {
    const b = g.board;
    assert.ok(b, 'wasm_board answered');
    near(b.players, snap.players, 'players');
    // The cells in the core's order, under its names; the same set as drawn.
    assert.deepEqual(b.cells.map((c) => c.name), g.cells, 'cells in the core order');
    assert.deepEqual([...g.cells].sort(), snap.cells.map((c) => c.name).sort(), 'cell names');
    const byName = new Map(b.cells.map((c) => [c.name, c]));
    for (const s of snap.cells) {
      const c = byName.get(s.name);
      near(drawn(c), drawn(s), s.name);
      assert.equal(!!c.centreCell, !!s.centreCell, `${s.name}.centreCell`);
    }
    near(b.labels, snap.labels, 'labels');
    for (const l of b.labels) assert.equal(l.keep, snap.labels[b.labels.indexOf(l)].keep, 'label keep');
    near(b.decor, snap.decor, 'decor');
    near(b.homes, snap.homes, 'homes');
    near(b.centre, snap.centre, 'centre');
  });
}

test('geometry.js builds the same board records from the core', () => {
  assert.throws(() => geometry('ultima'), /rules/, 'no board before setBoards');
  setBoards(rules.games);
  for (const [id, snap] of Object.entries(snapshot)) {
    const g = geometry(id);
    assert.equal(g.id, id);
    assert.ok(Object.isFrozen(g));
    near(g.players, snap.players, `${id}.players`);
    near(g.bounds, snap.bounds, `${id}.bounds`);
    near(g.centre, snap.centre, `${id}.centre`);
    near(g.homes, snap.homes, `${id}.homes`);
    near(g.labels, snap.labels, `${id}.labels`);
    near(g.decor, snap.decor, `${id}.decor`);
    assert.equal(g.cells.length, snap.cells.length);
    for (const s of snap.cells) {
      const c = g.byName.get(s.name);
      assert.ok(c, `${id}: ${s.name}`);
      near({ ...drawn(c), c: c.c, size: c.size }, { ...drawn(s), c: s.c, size: s.size }, `${id}.${s.name}`);
      assert.equal(!!c.centreCell, !!s.centreCell);
    }
  }
  assert.throws(() => geometry('chess'), /unknown game chess/);
});
