// Perft through build/rules.wasm (web-client/js/rules.js) under Node:
// prints "nodes seconds" for `node wasm_perft.mjs GAME DEPTH`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadRules } from '../../web-client/js/rules.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [game, depth] = process.argv.slice(2);
const rules = await loadRules(readFileSync(path.join(root, 'build/rules.wasm')));
const g = rules.newGame(game);
const t0 = performance.now();
const nodes = g.perft(Number(depth));
console.log(nodes, ((performance.now() - t0) / 1000).toFixed(3));
