// The lessons (web-client/lessons/*.json) against the rules core: every
// task's position is legal and not over, the last mover's king not in check,
// its answer is a legal move that
// meets the goal (lesson-goals.js, as the lessons page judges it), and some
// legal move does not (the task asks something); every text is there in
// English, French and Italian.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRules } from '../../web-client/js/rules.js';
import { judge } from '../../web-client/js/lesson-goals.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'web-client/lessons');
const rules = await loadRules(fs.readFileSync(path.join(root, 'build/rules.wasm')));
const LANGS = ['en', 'fr', 'it'];
const GOALS = ['captures', 'empty', 'frozen', 'free', 'reach', 'win'];

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const course = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  test(`lessons ${file}: every task legal, answered by its answer, not by every move; three languages`, () => {
    assert.equal(file, `${course.game}.json`);
    assert.ok(rules.games.some((g) => g.id === course.game), `game ${course.game}`);
    const ids = new Set();
    let tasks = 0;
    for (const lesson of course.lessons) {
      assert.match(lesson.id, /^[a-z0-9-]+$/);
      assert.ok(!ids.has(lesson.id), `lesson ${lesson.id} twice`);
      ids.add(lesson.id);
      for (const k of ['title', 'text']) for (const l of LANGS) assert.ok(lesson[k]?.[l], `${lesson.id}: ${k} in ${l}`);
      assert.ok(lesson.tasks.length >= 1 && lesson.tasks.length <= 5, `${lesson.id}: 1 to 5 tasks`);
      lesson.tasks.forEach((task, i) => {
        const where = `${lesson.id} task ${i + 1}`;
        for (const k of ['ask', 'hint']) for (const l of LANGS) assert.ok(task[k]?.[l], `${where}: ${k} in ${l}`);
        assert.ok(Object.keys(task.goal).length && Object.keys(task.goal).every((k) => GOALS.includes(k)), `${where}: goal`);
        const g = rules.newGame(course.game, task.position);
        try {
          assert.equal(g.status().over, false, `${where}: over already`);
          // The player who moved last never left its king in check: such
          // a position teaches what no game reaches. (The player to move
          // may be in check, a lesson about answering it; with three, the
          // one between may be too, a line opened after its move.)
          const toMove = g.status().toMove, n = rules.games.find((x) => x.id === course.game).players;
          const last = (toMove + n - 1) % n;
          assert.deepEqual(g.pieces().filter((p) => (p.flags & 4) && p.owner === last).map((p) => p.cell), [], `${where}: the last mover's king in check`);
          const legal = g.legalMoves();
          assert.ok(legal.includes(task.answer), `${where}: answer ${task.answer} not legal`);
          assert.ok(judge(g, task.answer, task.goal).ok, `${where}: answer ${task.answer} misses the goal`);
          const misses = legal.filter((m) => !judge(g, m, task.goal).ok);
          assert.ok(misses.length > 0, `${where}: every move meets the goal`);
          // The position is the task's again after judging every move.
          const fresh = rules.newGame(course.game, task.position);
          assert.equal(g.position(), fresh.position());
          fresh.free();
        } finally {
          g.free();
        }
        tasks++;
      });
    }
    assert.ok(tasks >= course.lessons.length);
  });
}
