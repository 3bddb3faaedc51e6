// build/rules.wasm through web-client/js/rules.js, against the native core:
// the perft files' counts, random games move by move (legal moves, position
// strings, status), errors, undo, pieces and the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { loadRules } from '../../web-client/js/rules.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rules = await loadRules(readFileSync(path.join(root, 'build/rules.wasm')));
const ids = rules.games.map((g) => g.id);

test('every game of the core is there, with its cells and colours', () => {
  for (const id of ['ultima', 'ultima1968', 'rollerball', 'yalta', 'ant2', 'ant3']) {
    const g = rules.games.find((x) => x.id === id);
    assert.ok(g, id);
    assert.equal(g.colours.length, g.players);
    assert.ok(g.cells.length >= 40, id);
  }
});

// "position ;D1 n ;D2 n ..." -> counts up to depth 3, as build/perft checks them.
for (const file of readdirSync(path.join(root, 'tests/perft')).filter((f) => f.endsWith('.epd'))) {
  const id = file.replace(/\.epd$/, '');
  test(`perft ${id} to depth 3 through rules.js`, () => {
    const lines = readFileSync(path.join(root, 'tests/perft', file), 'utf8').split('\n');
    let checked = 0;
    for (const line of lines) {
      if (!line.trim() || line.startsWith('#')) continue;
      const [pos, ...fields] = line.split(';').map((s) => s.trim());
      const g = rules.newGame(id, pos);
      for (const f of fields) {
        const m = /^D(\d+)\s+(\d+)$/.exec(f);
        if (!m || Number(m[1]) > 3) continue;
        assert.equal(g.perft(Number(m[1])), Number(m[2]), `${id} ${pos} D${m[1]}`);
        checked++;
      }
      g.free();
    }
    assert.ok(checked > 0);
  });
}

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; };
}

test('random games agree with the native core move by move', () => {
  const rand = rng(2026);
  const games = [];
  for (const id of ids) {
    for (let k = 0; k < 10; k++) {
      const g = rules.newGame(id);
      const moves = [];
      const mine = [];
      for (let ply = 0; ply < 160; ply++) {
        const st = g.status();
        const legal = g.legalMoves().sort();
        mine.push(`${g.position()}\t${legal.join(' ')}\t${st.over ? 'over' : '-'} ${st.over ? (st.winner ?? -1) : -1} ${st.over ? st.reason : 'none'}`);
        if (st.over) break;
        const m = legal[Math.floor(rand() * legal.length)];
        g.play(m);
        moves.push(m);
      }
      if (!g.status().over) {
        const st = g.status();
        const legal = g.legalMoves().sort();
        mine.push(`${g.position()}\t${legal.join(' ')}\t- -1 none`);
        assert.equal(st.over, false);
      }
      g.free();
      games.push({ id, moves, mine });
    }
  }
  const input = games.map((g) => `${g.id}\t${g.moves.join(' ')}`).join('\n') + '\n';
  const out = execFileSync(path.join(root, 'build/rules_trace'), { input, maxBuffer: 1 << 28 })
    .toString().split('\n');
  let i = 0;
  for (const g of games) {
    for (const [k, line] of g.mine.entries()) {
      assert.equal(out[i], line, `${g.id}, after ${k} moves (${g.moves.slice(0, k).join(' ')})`);
      i++;
    }
    assert.equal(out[i++], 'end');
  }
});

test('an illegal move throws the core\'s reason and changes nothing', () => {
  const g = rules.newGame('ultima');
  const before = g.position();
  assert.throws(() => g.play('a1-a9'), (e) => e instanceof Error && e.message.length > 5);
  assert.throws(() => g.play('nonsense'), /./);
  assert.equal(g.position(), before);
  assert.throws(() => g.undo(), /no move/);
  assert.throws(() => rules.newGame('chess'), /chess/);
  assert.throws(() => rules.newGame('ultima', 'not a position'), /./);
  g.free();
});

test('play, display text, undo, pieces', () => {
  for (const id of ids) {
    const g = rules.newGame(id);
    const start = g.position();
    const n0 = g.pieces().length;
    assert.ok(n0 > 0);
    const p0 = g.pieces()[0];
    assert.equal(typeof p0.cell, 'string');
    assert.match(p0.letter, /^[A-Z]$/);
    const m = g.legalMoves()[0];
    const shown = g.play(m);
    assert.ok(shown.length >= m.length, `${id}: ${shown} for ${m}`);
    assert.notEqual(g.position(), start);
    assert.equal(g.status().moves, 1);
    g.undo();
    assert.equal(g.position(), start);
    assert.equal(g.status().moves, 0);
    g.free();
  }
});

test('the engine answers with a legal move and reports each depth', () => {
  for (const id of ids) {
    const g = rules.newGame(id);
    const infos = [];
    const r = g.analyse({ depth: 3, onInfo: (i) => infos.push(i) });
    assert.ok(g.legalMoves().includes(r.best), `${id}: ${r.best}`);
    assert.ok(infos.length >= 1);
    assert.ok(r.pv.length >= 1);
    assert.equal(typeof r.score, 'number');
    g.free();
  }
  // A time limit is kept.
  const g = rules.newGame('ultima');
  const t0 = performance.now();
  g.analyse({ ms: 300 });
  assert.ok(performance.now() - t0 < 2000);
  g.free();
});

test('premoves: the union of a player\'s moves over every reply before its turn', () => {
  for (const id of ['ultima', 'rollerball', 'ant2', 'yalta']) {
    const g = rules.newGame(id);
    g.play(g.legalMoves()[0]);
    const me = (g.status().toMove + g.info.players - 1) % g.info.players; // who just moved
    const want = new Set();
    // Every sequence of the others' moves until `me` is to move again.
    const walk = () => {
      if (g.status().over) return;
      if (g.status().toMove === me) { for (const m of g.legalMoves()) want.add(m); return; }
      for (const m of g.legalMoves()) { g.play(m); walk(); g.undo(); }
    };
    walk();
    assert.deepEqual(new Set(g.premoves(me)), want, id);
    // The player to move: its own legal moves.
    assert.deepEqual(new Set(g.premoves(g.status().toMove)), new Set(g.legalMoves()), id);
    g.free();
  }
});

test('captures: the cells a move takes, from the core', () => {
  const g = rules.newGame('ant2', '7/8/9/10/11/12/bQ11rQ/2bLbA8/2rA8/10/9/8/7 b -');
  assert.deepEqual(g.captures('h3-i4@h4ccw'), ['i3']); // the walk enters i3
  assert.deepEqual(g.captures('h3-i4@h4cw'), []);
  assert.throws(() => g.captures('h3-n7'), /./);
  g.free();
});
