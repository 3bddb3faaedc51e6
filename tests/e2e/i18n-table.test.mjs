// The translation table itself (web-client/js/i18n.js), read in node with
// no browser: every key has its English, French and Italian, none empty,
// each with the same {placeholders}; every key the client names in
// web-client/js (t('key'), tr('key'), tMaybe('key'), and the prefixes of
// the keys it builds, such as t(`pace.${pace}`)) is in the table; every
// error code of the protocol (protocol/proto.h PROTO_ERRORS) and of the
// rules core (common/rules.h RULES_ERRORS) has its words, and so has every
// result reason (RULES_REASONS), game, colour and piece.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, WEB } from './lib.mjs';

const { TABLE } = await import(path.join(WEB, 'js/i18n.js'));
const LANGS = ['en', 'fr', 'it'];

function jsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? jsFiles(p) : e.name.endsWith('.js') ? [p] : [];
  });
}

const holes = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');

test('every key has en, fr and it, none empty, with the same placeholders', () => {
  const bad = [];
  for (const [key, v] of Object.entries(TABLE)) {
    for (const l of LANGS) {
      if (typeof v[l] !== 'string' || !v[l].trim()) bad.push(`${key}: no ${l}`);
      else if (holes(v[l]) !== holes(v.en)) bad.push(`${key}: ${l} has {${holes(v[l])}}, en {${holes(v.en)}}`);
    }
    for (const l of Object.keys(v)) if (!LANGS.includes(l)) bad.push(`${key}: unknown language ${l}`);
  }
  assert.deepEqual(bad, []);
  assert.ok(Object.keys(TABLE).length > 500, `${Object.keys(TABLE).length} keys`);
});

test('every key the client names is in the table', () => {
  const missing = [];
  let named = 0, built = 0;
  const files = [...jsFiles(path.join(WEB, 'js')), path.join(WEB, 'sw.js')];
  for (const f of files) {
    if (f.endsWith('i18n.js')) continue;
    const src = fs.readFileSync(f, 'utf8');
    const rel = path.relative(ROOT, f);
    // Literal keys: t('a.b'), tr('a.b'), tMaybe('a.b'), and keys in lists
    // (the push words, the tournament states: 'tour.open').
    for (const m of src.matchAll(/\b(?:t|tr|tMaybe)\(\s*'([^']+)'/g)) {
      named++;
      if (!TABLE[m[1]]) missing.push(`${rel}: ${m[1]}`);
    }
    for (const m of src.matchAll(/\b(?:t|tr)\(\s*[^'`(),]+\?\s*'([^']+)'\s*:\s*'([^']+)'/g)) {
      for (const k of [m[1], m[2]]) { named++; if (!TABLE[k]) missing.push(`${rel}: ${k}`); }
    }
    for (const m of src.matchAll(/'((?:notice|sw|corr|tour|mail\.k|err|room|nav)\.[a-z0-9_]+)'/g)) {
      named++;
      if (!TABLE[m[1]]) missing.push(`${rel}: ${m[1]}`);
    }
    // Keys built from a prefix: at least one key has that prefix.
    for (const m of src.matchAll(/\b(?:t|tr|tMaybe)\(\s*`([a-z0-9_.]+)\$\{/g)) {
      built++;
      if (!Object.keys(TABLE).some((k) => k.startsWith(m[1]))) missing.push(`${rel}: ${m[1]}*`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(named > 300, `${named} keys named`);
  assert.ok(built >= 8, `${built} keys built from a prefix`);
});

test('every error code of the protocol and of the rules core has its words', () => {
  const codes = new Set();
  for (const [f, list] of [['protocol/proto.h', 'PROTO_ERRORS'], ['common/rules.h', 'RULES_ERRORS']]) {
    const all = fs.readFileSync(path.join(ROOT, f), 'utf8');
    const from = all.indexOf(`#define ${list}(X)`);
    const src = all.slice(from, all.indexOf('\n\n', from));
    for (const m of src.matchAll(/X\(\w+,\s*(?:-?\d+,\s*)?"([a-z_]+)",/g)) codes.add(m[1]);
  }
  assert.ok(codes.size >= 38, `${codes.size} codes`);
  const missing = [...codes].filter((c) => !TABLE[`err.${c}`] && !['bad_player', 'no_memory'].includes(c));
  assert.deepEqual(missing, []);
});

test('every game, piece, colour and result reason the server names has its words', () => {
  const keys = ['game.ultima', 'game.ultima1968', 'game.rollerball', 'game.yalta', 'game.ant2', 'game.ant3',
    'colour.white', 'colour.black', 'colour.red', 'colour.green', 'seat.white', 'seat.black', 'seat.red', 'seat.green',
    'piece.ant_queen', 'piece.soldier_ant', 'piece.super_ant', 'piece.beetle', 'piece.ladybug', 'piece.grasshopper', 'piece.earthworm',
    'piece.withdrawer', 'piece.long_leaper', 'piece.coordinator', 'piece.immobilizer', 'piece.chameleon', 'piece.pincer'];
  assert.deepEqual(keys.filter((k) => !TABLE[k]), []);
  // The reasons: common/rules.h RULES_REASONS (but "none").
  const src = fs.readFileSync(path.join(ROOT, 'common/rules.h'), 'utf8');
  const names = [...src.matchAll(/X\(RULES_REASON_\w+, "([a-z_]+)"\)/g)].map((m) => m[1]).filter((n) => n !== 'none');
  assert.ok(names.length >= 8, `reasons: ${names}`);
  assert.deepEqual(names.filter((n) => !TABLE[`reason.${n}`]), []);
  // Every game's how-to has its paragraphs.
  for (const g of ['ultima', 'ultima1968', 'rollerball', 'yalta', 'ant2', 'ant3']) assert.ok(TABLE[`howto.${g}.1`], g);
});
