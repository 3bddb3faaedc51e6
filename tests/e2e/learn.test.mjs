// The lessons (issue 33): from the home page's "Lessons" door to the end of
// Ultima's course, at 1440 and at 390 px: every task of every lesson played
// on the board by clicking (a frozen piece picked twice for the suicide),
// what it captured marked; a wrong move refused with the hint, then the
// answer shown and played; each lesson ticked in the course, kept across a
// reload; the course's end starts a game against the computer at level 1.
// Rollerball's, Yalta's and Ant Chess's (two and three) courses played to their end at
// both widths too (a promotion and a ladybug's walk chosen in the board's
// picker). In French and Italian, the lesson's texts and buttons are the
// language's. Screenshots: tests/output/e2e/learn-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OUT, ROOT, browserAndServer } from './lib.mjs';
import { clickMove, register } from './play-lib.mjs';

let browser, server;
const skip = browserAndServer((b, s) => { browser = b; server = s; });
const courseOf = (game) => JSON.parse(fs.readFileSync(path.join(ROOT, `web-client/lessons/${game}.json`), 'utf8'));
const course = courseOf('ultima');

async function open(width, locale = 'en-US') {
  const ctx = await browser.newContext({ locale, viewport: { width, height: width < 800 ? 844 : 900 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#conn.online');
  return page;
}

// Plays a task's answer on the board: from-to, or a frozen piece picked
// twice and its removal chosen.
async function playAnswer(page, answer) {
  const suicide = /^([a-h][1-8])x$/.exec(answer);
  if (suicide) {
    const cell = page.locator(`svg.board polygon.cell[data-cell="${suicide[1]}"]`);
    await cell.click({ force: true });
    await cell.click({ force: true });
    await page.click(`.picker-choice[data-move="${answer}"]`);
    return;
  }
  // "d6-e6=B", "g4-h4@g5cw": the cells, then the board's picker when
  // several moves join them.
  const [from, rest] = answer.split('-');
  const to = /^[a-n]\d+/.exec(rest)[0];
  await clickMove(page, from, to);
  if (to !== rest) await page.click(`.picker-choice[data-move="${answer}"]`);
}

// Every lesson of a course from its first, each task's answer played.
async function playCourse(page, c) {
  await page.goto(`${server.url}/#/learn/${c.game}`);
  await page.click(`a[data-lesson="${c.lessons[0].id}"]`);
  for (const [k, lesson] of c.lessons.entries()) {
    await page.waitForFunction((title) => document.querySelector('.learn h1')?.textContent === title, lesson.title.en);
    for (const [i, task] of lesson.tasks.entries()) {
      await page.waitForFunction((n) => document.getElementById('learn-counter')?.textContent.startsWith(`Task ${n} `), i + 1);
      assert.equal(await page.textContent('#learn-ask'), task.ask.en);
      await playAnswer(page, task.answer);
      await page.waitForSelector('#learn-status.ok');
      if (i + 1 < lesson.tasks.length) await page.click('#learn-next');
    }
    if (k + 1 < c.lessons.length) await page.click('#learn-next');
  }
  await page.goto(`${server.url}/#/learn/${c.game}`);
  await page.waitForSelector('#learn-progress');
  assert.equal(await page.textContent('#learn-progress'), `${c.lessons.length} of ${c.lessons.length} lessons done`);
}

const shot = (page, name, width) => page.screenshot({ path: path.join(OUT, `learn-${name}-${width}.png`), fullPage: true });

for (const width of [1440, 390]) {
  test(`Ultima's course played to its end at ${width} px`, { skip, timeout: 180000 }, async () => {
    const page = await open(width);
    // The home page's door, then the courses.
    await page.click('#door-lessons');
    await page.waitForSelector('a[data-course="ultima"]');
    assert.equal(await page.locator('.learn-index h1').textContent(), 'Lessons');
    await page.click('a[data-course="ultima"]');
    await page.waitForSelector('#learn-progress');
    assert.equal(await page.textContent('#learn-progress'), `0 of ${course.lessons.length} lessons done`);
    assert.equal(await page.locator('.lessons li').count(), course.lessons.length);
    if (width === 1440) await shot(page, 'course', width);
    await page.click(`a[data-lesson="${course.lessons[0].id}"]`);

    for (const [k, lesson] of course.lessons.entries()) {
      await page.waitForFunction((title) => document.querySelector('.learn h1')?.textContent === title, lesson.title.en);
      assert.equal(await page.textContent('.learn-text'), lesson.text.en);
      for (const [i, task] of lesson.tasks.entries()) {
        await page.waitForFunction((n) => document.getElementById('learn-counter')?.textContent.startsWith(`Task ${n} `), i + 1);
        assert.equal(await page.textContent('#learn-ask'), task.ask.en);
        if (k === 0 && i === 0) {
          // A legal move that does not do it: refused with the hint, the
          // board back where it was; then the answer, shown and played.
          await clickMove(page, 'c2', 'c3');
          await page.waitForSelector('#learn-status.error');
          assert.equal(await page.textContent('#learn-status'), `Not this one. ${task.hint.en}`);
          assert.equal(await page.locator('svg.board g.piece[data-cell="c2"]').count(), 1, 'the board is back');
          if (width === 390) await shot(page, 'miss', width);
          await page.click('#learn-answer');
          assert.match(await page.textContent('#learn-status'), /^The answer: Pc2-c5xd5\. Play it to go on\.$/);
        }
        await playAnswer(page, task.answer);
        await page.waitForSelector('#learn-status.ok');
        // What it captured is marked, and the captured pieces are gone.
        for (const c of (task.goal.captures || []).filter((x) => x !== task.answer.split('-')[1])) {
          assert.equal(await page.locator(`svg.board g.piece[data-cell="${c}"]`).count(), 0, `${lesson.id}: ${c} taken`);
        }
        assert.ok(await page.locator('svg.board polygon.mark-captured').count() >= (task.goal.captures || []).length, `${lesson.id}: what it took is marked`);
        if (k === 0 && i === 1) await shot(page, 'pincer-done', width);
        if (i + 1 < lesson.tasks.length) await page.click('#learn-next');
      }
      assert.match(await page.textContent('#learn-status'), /Lesson complete\.$/);
      if (k + 1 < course.lessons.length) {
        assert.equal(await page.textContent('#learn-next'), `Next lesson: ${course.lessons[k + 1].title.en}`);
        await page.click('#learn-next');
      }
    }
    // The end of the course: every lesson ticked, kept across a reload.
    await page.waitForSelector('#learn-end');
    await shot(page, 'end', width);
    await page.goto(`${server.url}/#/learn/ultima`);
    await page.waitForSelector('#learn-progress');
    await page.reload();
    await page.waitForSelector('#learn-progress');
    assert.equal(await page.textContent('#learn-progress'), `${course.lessons.length} of ${course.lessons.length} lessons done`);
    assert.equal(await page.locator('.lessons li.done').count(), course.lessons.length);
    if (width === 390) await shot(page, 'course-done', width);
    // The last lesson's button starts a game against the computer.
    await page.goto(`${server.url}/#/learn/ultima/${course.lessons.at(-1).id}`);
    const last = course.lessons.at(-1);
    for (const [i, task] of last.tasks.entries()) {
      await page.waitForFunction((n) => document.getElementById('learn-counter')?.textContent.startsWith(`Task ${n} `), i + 1);
      await playAnswer(page, task.answer);
      await page.waitForSelector('#learn-status.ok');
      if (i + 1 < last.tasks.length) await page.click('#learn-next');
    }
    await page.click('#learn-play');
    await page.waitForFunction(() => /^#\/game\/\d+$/.test(location.hash));
    await page.waitForSelector('svg.board');
    // No sideways scroll on the lesson pages.
    await page.goto(`${server.url}/#/learn/ultima/chameleon`);
    await page.waitForSelector('#learn-ask');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll');
    await shot(page, 'chameleon', width);
    // The other games' courses, each to its end; a screenshot of each
    // course's last lesson done.
    for (const game of ['rollerball', 'yalta', 'ant2', 'ant3']) {
      const c = courseOf(game);
      await playCourse(page, c);
      await page.goto(`${server.url}/#/learn/${game}/${c.lessons.at(-1).id}`);
      await page.waitForSelector('#learn-ask');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${game}: no sideways scroll`);
      await shot(page, game, width);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

for (const [lang, locale, hint] of [['fr', 'fr-FR', 'Indice'], ['it', 'it-IT', 'Suggerimento']]) {
  test(`a lesson in ${locale}: its texts and buttons`, { skip }, async () => {
    const page = await open(390, locale);
    await page.goto(`${server.url}/#/learn/ultima/${course.lessons[1].id}`);
    await page.waitForSelector('#learn-ask');
    const lesson = course.lessons[1];
    assert.equal(await page.textContent('.learn h1'), lesson.title[lang]);
    assert.equal(await page.textContent('.learn-text'), lesson.text[lang]);
    assert.equal(await page.textContent('#learn-ask'), lesson.tasks[0].ask[lang]);
    assert.equal(await page.textContent('#learn-hint'), hint);
    await page.click('#learn-hint');
    assert.equal(await page.textContent('#learn-status'), lesson.tasks[0].hint[lang]);
    await shot(page, `withdrawer-${lang}`, 390);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

// An account's progress follows it to another browser: a lesson done in
// one, logged in in a fresh one (whose guest had done nothing), ticked
// there; a guest in the first browser afterwards sees its own, not the
// account's.
test('progress kept on the account: another browser shows it once logged in', { skip, timeout: 60000 }, async () => {
  const name = `learner${process.pid % 1000}`;
  const one = await open(1440);
  await register(one, name);
  await one.goto(`${server.url}/#/learn/ultima/${course.lessons[0].id}`);
  for (const [i, task] of course.lessons[0].tasks.entries()) {
    await one.waitForFunction((n) => document.getElementById('learn-counter')?.textContent.startsWith(`Task ${n} `), i + 1);
    await playAnswer(one, task.answer);
    await one.waitForSelector('#learn-status.ok');
    if (i + 1 < course.lessons[0].tasks.length) await one.click('#learn-next');
  }
  await one.waitForFunction(() => /Lesson complete\.$/.test(document.getElementById('learn-status').textContent));
  // Stored on the server (the page's POST has answered).
  await one.waitForFunction(async () => ((await (await fetch('/api/lessons')).json()).lessons.ultima || []).length === 1);

  const two = await open(390);
  await two.goto(`${server.url}/#/learn/ultima`);
  await two.waitForSelector('#learn-progress');
  assert.equal(await two.textContent('#learn-progress'), `0 of ${course.lessons.length} lessons done`, 'a guest has its own');
  await two.goto(`${server.url}/#/login`);
  await two.fill('#username', name);
  await two.fill('#password', `${name}-secret-pw`);
  await two.click('#account-form button[type=submit]');
  await two.waitForFunction((n) => window.chameleon.account === n && window.chameleon.conn.ready, name);
  await two.goto(`${server.url}/#/learn/ultima`);
  await two.waitForFunction((m) => document.getElementById('learn-progress')?.textContent === `1 of ${m} lessons done`, course.lessons.length);
  assert.equal(await two.locator('.lessons li.done').count(), 1);
  await shot(two, 'account-progress', 390);
  assert.deepEqual([...one.errors, ...two.errors], []);
  await one.context().close();
  await two.context().close();
});
