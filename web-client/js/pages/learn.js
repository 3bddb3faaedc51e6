// The lessons: a course per game (web-client/lessons/<game>.json), one
// lesson per rule or piece, each a short text and one to five tasks on a
// small board. Moves are the rules core's (rules.js, in the browser): the
// board offers only legal moves, and lesson-goals.js says whether the one
// played does what the task asks. A miss says so and gives the hint; then
// the answer may be shown. Progress is kept in the browser (localStorage),
// per game and lesson, and on the account when logged in.
//
// Routes: #/learn (the courses), #/learn/<game> (its lessons),
// #/learn/<game>/<lesson>.

import { currentLang, errText, t } from '../i18n.js';
import { h } from '../dom.js';
import { Board, parseMove } from '../board.js';
import { localName, pieceIcon, pieceName, pieceSet } from '../pieces.js';
import { pageRules } from '../rules.js';
import { gameInfo, gameName, games, tablesLoaded } from '../tables.js';
import { judge, say } from '../lesson-goals.js';

// The games with a course (a file in web-client/lessons/). Ultima's 1968
// rule has its own to come: the index links its rules meanwhile.
export const COURSES = ['ultima', 'rollerball', 'yalta', 'ant2', 'ant3'];

const STORE = 'chameleon.lessons';

// {game: [lesson ids done]}, in this browser: a guest's under STORE, an
// account's under STORE@name (a copy of the server's, GET/POST
// /api/lessons, PROTOCOL.md "Lessons"), so that two people sharing a
// browser never mix theirs.
let storeKey = STORE;
function progress() {
  try {
    return JSON.parse(localStorage.getItem(storeKey)) || {};
  } catch {
    return {};
  }
}
function keep(p) {
  try { localStorage.setItem(storeKey, JSON.stringify(p)); } catch { /* private mode: this visit only */ }
}
const isDone = (game, id) => (progress()[game] || []).includes(id);

// The union of two progresses, and whether it holds more than `than`.
function union(a, b) {
  const out = {};
  for (const g of new Set([...Object.keys(a), ...Object.keys(b)])) out[g] = [...new Set([...(a[g] || []), ...(b[g] || [])])];
  return out;
}
const holdsMore = (p, than) => Object.entries(p).some(([g, ids]) => ids.some((id) => !(than[g] || []).includes(id)));

async function send(p) {
  await fetch('/api/lessons', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(p) });
}

// With an account: the server's progress merged into the browser's copy,
// written back when the copy knew more (a lesson done while the server
// could not be reached). Offline or refused: the copy alone.
async function syncProgress(app) {
  storeKey = app.account ? `${STORE}@${app.account}` : STORE;
  if (!app.account) return;
  try {
    const r = await fetch('/api/lessons');
    if (!r.ok) return;
    const server = (await r.json()).lessons || {};
    const merged = union(progress(), server);
    keep(merged);
    if (holdsMore(merged, server)) await send(merged);
  } catch { /* the browser's alone */ }
}

function markDone(game, id, app) {
  const p = union(progress(), { [game]: [id] });
  keep(p);
  if (app.account) send(p).catch(() => { /* kept in the browser; sent at the next sync */ });
}

const courseOnce = new Map();
function loadCourse(game) {
  if (!courseOnce.has(game)) {
    const p = fetch(`/lessons/${game}.json`).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))));
    p.catch(() => courseOnce.delete(game));
    courseOnce.set(game, p);
  }
  return courseOnce.get(game);
}

export function mount(main, params, app) {
  let gone = false;
  let cleanup = null;
  const draw = async () => {
    if (!tablesLoaded() || main.childElementCount) return;
    main.append(h('p', { class: 'muted', id: 'learn-loading' }, t('learn.loading')));
    await syncProgress(app);
    if (gone) return;
    try {
      if (!params.game) {
        index(main);
        return;
      }
      if (!COURSES.includes(params.game) || !gameInfo(params.game)) {
        main.replaceChildren(h('section', { class: 'panel' }, h('p', { id: 'learn-none' }, t('learn.none')),
          h('p', {}, h('a', { href: '#/learn' }, t('learn.all')))));
        return;
      }
      const [course, { rules }] = await Promise.all([loadCourse(params.game), pageRules()]);
      if (gone) return;
      if (params.lesson) cleanup = lessonPage(main, course, rules, params.lesson, app);
      else coursePage(main, course);
    } catch (e) {
      if (!gone) main.replaceChildren(h('p', { class: 'status error', role: 'alert' }, t('learn.failed', { why: errText(e) })));
    }
  };
  const off = app.conn.on('welcome', draw);
  draw();
  return () => { gone = true; off(); if (cleanup) cleanup(); };
}

// Every game: its course, or its rules while its lessons are written.
function index(main) {
  main.replaceChildren(h('section', { class: 'panel learn-index' },
    h('h1', {}, t('learn.title')),
    h('p', {}, t('learn.intro')),
    h('ul', { class: 'courses' }, games().map((g) => {
      const has = COURSES.includes(g.id);
      const done = (progress()[g.id] || []).length;
      return h('li', {},
        has ? h('a', { href: `#/learn/${g.id}`, 'data-course': g.id }, g.name) : h('span', {}, g.name),
        ' ',
        has ? h('span', { class: 'muted' }, done ? t('learn.started', { n: done }) : t('learn.start'))
          : h('span', { class: 'muted' }, t('learn.soon'), ' ', h('a', { href: `#/howto/${g.id}` }, t('learn.rules'))));
    }))));
}

// One game's lessons, each ticked once done.
function coursePage(main, course) {
  const lang = currentLang();
  const done = course.lessons.filter((l) => isDone(course.game, l.id)).length;
  document.title = `${t('learn.title')} \u00b7 ${gameName(course.game)} \u00b7 chameleon`;
  main.replaceChildren(h('section', { class: 'panel learn-course' },
    h('h1', {}, t('learn.course', { game: gameName(course.game) })),
    h('p', { class: 'muted', id: 'learn-progress' }, t('learn.progress', { n: done, m: course.lessons.length })),
    h('ol', { class: 'lessons' }, course.lessons.map((l) => h('li', { class: isDone(course.game, l.id) ? 'done' : '' },
      h('a', { href: `#/learn/${course.game}/${l.id}`, 'data-lesson': l.id }, say(l.title, lang)),
      isDone(course.game, l.id) ? h('span', { class: 'tick', 'aria-label': t('learn.doneone') }, ' \u2713') : null))),
    h('p', {}, h('a', { href: `#/howto/${course.game}` }, t('howto.title')), ' \u00b7 ', h('a', { href: '#/learn' }, t('learn.all')))));
}

// One lesson: its text, then its tasks one after the other on the board.
function lessonPage(main, course, rules, id, app) {
  const lang = currentLang();
  const game = course.game;
  const at = course.lessons.findIndex((l) => l.id === id);
  if (at < 0) {
    main.replaceChildren(h('p', { id: 'learn-none' }, t('learn.none')));
    return null;
  }
  const lesson = course.lessons[at];
  const nextLesson = course.lessons[at + 1] || null;
  document.title = `${say(lesson.title, lang)} \u00b7 ${gameName(game)} \u00b7 chameleon`;

  const boardBox = h('div', { class: 'board-box' });
  const counter = h('p', { class: 'muted', id: 'learn-counter' });
  const ask = h('p', { class: 'learn-ask', id: 'learn-ask' });
  const status = h('p', { class: 'status', id: 'learn-status', role: 'alert' });
  const hintBtn = h('button', { type: 'button', id: 'learn-hint' }, t('learn.hint'));
  const answerBtn = h('button', { type: 'button', id: 'learn-answer', hidden: '' }, t('learn.answer'));
  const retryBtn = h('button', { type: 'button', id: 'learn-retry', hidden: '' }, t('learn.retry'));
  const nextBtn = h('button', { type: 'button', class: 'primary', id: 'learn-next', hidden: '' }, t('learn.next'));
  const after = h('div', { class: 'learn-after', id: 'learn-after' });
  const legend = h('div', { class: 'legend learn-legend', id: 'learn-legend' });
  main.replaceChildren(h('div', { class: 'learn' },
    h('div', { class: 'board-col' }, boardBox),
    h('section', { class: 'panel' },
      h('p', { class: 'muted' }, h('a', { href: `#/learn/${game}` }, t('learn.course', { game: gameName(game) })),
        ` \u00b7 ${at + 1} / ${course.lessons.length}`),
      h('h1', {}, say(lesson.title, lang)),
      h('p', { class: 'learn-text' }, say(lesson.text, lang)),
      legend, counter, ask, status,
      h('div', { class: 'row actions' }, hintBtn, answerBtn, retryBtn, nextBtn),
      after)));

  const info = gameInfo(game);
  const st = { task: 0, misses: 0, solved: false, g: null };
  const board = new Board(boardBox, { game, onMove, pieceName: (k) => pieceName(game, k), capturesOf });
  board.colours = info.colors;

  function show(marks = {}) {
    const { position, check, frozen, inert } = st.g.boardView();
    board.position = position;
    board.marks = { last: [], captured: [], check, frozen, inert, premove: [], ...marks };
    board.legal = st.solved ? [] : st.g.legalMoves().map(parseMove).filter(Boolean);
    board.interactive = !st.solved && board.legal.length > 0;
    if (!board.interactive) board.selected = null;
    board.render();
  }

  // The pieces on the board, drawn and named (a newcomer knows none).
  function showLegend() {
    const set = pieceSet(game) || {};
    const seen = new Map(); // kind -> owner drawn: the mover's where it has one
    const mover = st.g.status().toMove;
    for (const p of st.g.pieces()) {
      if (set[p.letter] && (!seen.has(p.letter) || (p.owner === mover && seen.get(p.letter) !== mover))) seen.set(p.letter, p.owner);
    }
    legend.replaceChildren(...[...seen].map(([k, owner]) => {
      return h('span', { class: 'legend-item' }, pieceIcon(game, k, info.colors[owner]), localName(set[k].name, set[k].key));
    }));
  }

  function startTask(i) {
    const task = lesson.tasks[i];
    if (st.g) st.g.free();
    st.task = i;
    st.misses = 0;
    st.solved = false;
    st.g = rules.newGame(game, task.position);
    board.view = st.g.status().toMove;
    counter.textContent = t('learn.task', { n: i + 1, m: lesson.tasks.length });
    ask.textContent = say(task.ask, lang);
    status.textContent = '';
    status.className = 'status';
    hintBtn.hidden = false;
    answerBtn.hidden = true;
    retryBtn.hidden = true;
    nextBtn.hidden = true;
    after.replaceChildren();
    showLegend();
    show();
  }

  function capturesOf(text) {
    try {
      return st.g.captures(text);
    } catch {
      return [];
    }
  }

  function onMove(text) {
    if (st.solved) return;
    const task = lesson.tasks[st.task];
    let r;
    try {
      r = judge(st.g, text, task.goal);
    } catch (e) {
      status.textContent = errText({ code: e.code, reason: e.message });
      return;
    }
    if (!r.ok) {
      st.misses++;
      status.className = 'status error';
      status.textContent = `${t('learn.wrong')} ${say(task.hint, lang)}`;
      answerBtn.hidden = false;
      show();
      return;
    }
    st.solved = true;
    st.g.play(text);
    const m = parseMove(text);
    show({ last: m && m.from ? [m.from, m.to] : [], captured: r.captures });
    status.className = 'status ok';
    status.textContent = t('learn.right');
    hintBtn.hidden = true;
    answerBtn.hidden = true;
    retryBtn.hidden = false;
    if (st.task + 1 < lesson.tasks.length) {
      nextBtn.textContent = t('learn.next');
      nextBtn.hidden = false;
      nextBtn.focus();
      return;
    }
    markDone(game, lesson.id, app);
    status.textContent = `${t('learn.right')} ${t('learn.done')}`;
    if (nextLesson) {
      nextBtn.textContent = t('learn.nextlesson', { title: say(nextLesson.title, lang) });
      nextBtn.hidden = false;
      nextBtn.focus();
    } else {
      // The end of the course: a first game at the lowest level.
      const out = h('p', { class: 'status', role: 'status' });
      const play = h('button', { type: 'button', class: 'primary', id: 'learn-play' }, t('learn.playbot'));
      play.addEventListener('click', async () => {
        out.textContent = t('lobby.starting');
        try {
          await app.conn.request('bot_game', { game, level: 1, seat: 0, base_ms: 600000, inc_ms: 5000 });
        } catch (e) {
          out.textContent = errText(e) || t('lobby.nostart');
          out.className = 'status error';
        }
      });
      after.replaceChildren(h('p', { id: 'learn-end' }, t('learn.coursedone', { game: gameName(game) })), play, out);
    }
  }

  hintBtn.addEventListener('click', () => {
    status.className = 'status';
    status.textContent = say(lesson.tasks[st.task].hint, lang);
  });
  answerBtn.addEventListener('click', () => {
    const task = lesson.tasks[st.task];
    const m = parseMove(task.answer);
    let display = task.answer;
    try { display = judge(st.g, task.answer, task.goal).display; } catch { /* shown as written */ }
    status.className = 'status';
    status.textContent = t('learn.answeris', { move: display });
    show({ last: m && m.from ? [m.from, m.to] : [] });
  });
  retryBtn.addEventListener('click', () => startTask(st.task));
  nextBtn.addEventListener('click', () => {
    if (st.task + 1 < lesson.tasks.length) startTask(st.task + 1);
    else if (nextLesson) app.go(`#/learn/${game}/${nextLesson.id}`);
  });

  startTask(0);
  return () => { if (st.g) st.g.free(); board.destroy(); };
}
