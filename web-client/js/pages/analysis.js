// The analysis board: any game from its set-up, from a pasted position
// string or from a stored game (#/analysis/game/<id>). Moves for every side
// are checked by the rules core in the browser (rules.js), kept as a tree
// with variations, and the engine thinks in a Web Worker
// (engine-worker.js): nothing here asks the server, so the board goes on
// working when the connection is gone. A game still in progress opens
// without the engine, as on lichess: no help during a game.
//
// Routes: #/analysis (Ultima), #/analysis/<game>, #/analysis/<game>/<position,
// URI-encoded>, #/analysis/game/<id>.

import { errText, t } from '../i18n.js';
import { colourName, gameName, reasonText } from '../tables.js';
import { h } from '../dom.js';
import { Board, parseMove } from '../board.js';
import { pieceName } from '../pieces.js';
import { pageRules } from '../rules.js';

// A node of the move tree: the move that leads to it (input and display
// text) and the moves played from it; children[0] is the main line.
const node = (move, display, parent) => ({ move, display, parent, children: [] });

function pathTo(n) {
  const out = [];
  for (let x = n; x.parent; x = x.parent) out.unshift(x);
  return out;
}

export function mount(main, params, app) {
  const say = h('div', { class: 'status', id: 'analysis-status', role: 'alert' });
  const title = h('h1', { class: 'room-title' }, t('an.title'));
  const boardBox = h('div', { class: 'board-box' });
  const gameSel = h('select', { id: 'analysis-game', 'aria-label': t('w.game') });
  const posIn = h('textarea', { id: 'analysis-paste', rows: 2, placeholder: t('an.paste'), spellcheck: 'false' });
  const engineOn = h('input', { type: 'checkbox', id: 'engine-on', checked: true });
  const engineBox = h('div', { class: 'engine', id: 'engine' });
  const evalText = h('span', { class: 'eval', id: 'engine-eval' }, '\u2026');
  const engineInfo = h('span', { class: 'muted', id: 'engine-info' });
  const pvLine = h('div', { class: 'pv', id: 'engine-pv' });
  const tree = h('div', { class: 'moves tree', id: 'analysis-moves' });
  const fenOut = h('input', { id: 'analysis-position', readonly: true, 'aria-label': t('an.position') });
  const pgnOut = h('textarea', { id: 'analysis-pgn', rows: 4, readonly: true, 'aria-label': 'PGN' });
  const step = (label, aria, fn) => h('button', { type: 'button', 'aria-label': aria, onclick: fn }, label);

  const st = {
    rules: null, game: params.game || 'ultima', root: null, rootPosition: null,
    leaves: [], cur: null, board: null, view: 0, worker: null, question: 0, engineAllowed: true, source: null,
  };

  engineBox.append(h('div', { class: 'row' },
    h('label', { class: 'inline', for: 'engine-on', style: 'margin:0' }, engineOn, t('an.engine')), evalText, engineInfo), pvLine);
  engineOn.addEventListener('change', () => think());

  main.append(h('div', { class: 'room analysis', id: 'analysis' },
    h('div', { class: 'board-col' }, boardBox,
      h('div', { class: 'step' },
        step('\u00ab', t('step.first'), () => go(st.root)),
        step('\u25c0', t('step.prev'), () => go(st.cur.parent || st.cur)),
        step('\u25b6', t('step.next'), () => go(st.cur.children[0] || st.cur)),
        step('\u00bb', t('step.last'), () => { let n = st.cur; while (n.children[0]) n = n.children[0]; go(n); }),
        step('\u21c5', t('room.flip'), () => flip()))),
    h('div', { class: 'side' },
      title, engineBox, tree, say,
      h('div', { class: 'panel export' },
        h('label', { for: 'analysis-position' }, t('an.position')), fenOut,
        h('label', { for: 'analysis-pgn' }, 'PGN'), pgnOut,
        h('div', { class: 'row' },
          h('button', { type: 'button', id: 'analysis-copy', onclick: () => copy(fenOut.value, t('an.copied')) }, t('an.copy')),
          h('button', { type: 'button', id: 'analysis-download', onclick: download }, t('an.download')))),
      h('form', { class: 'panel', id: 'analysis-setup', onsubmit: (e) => { e.preventDefault(); setUpFromForm(); } },
        h('label', { for: 'analysis-game' }, t('w.game')), gameSel,
        h('label', { for: 'analysis-paste' }, t('an.from')), posIn,
        h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('an.setup')))))));

  const onKey = (e) => {
    if (e.target.closest && e.target.closest('input, textarea, select')) return;
    if (e.key === 'ArrowLeft') go(st.cur.parent || st.cur);
    else if (e.key === 'ArrowRight') go(st.cur.children[0] || st.cur);
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  // ---- the position of a node: the game replayed along its path --------
  function gameAt(n) {
    const g = st.rules.newGame(st.game, st.rootPosition || undefined);
    const path = pathTo(n);
    const info = st.rules.games.find((x) => x.id === st.game);
    let left = 0;
    const leavesAt = (k) => {
      for (const l of st.leaves) {
        // Only leaves the others play on after: a leave that ends the
        // game would end the analysis too.
        if (l.after === k && info.players - left - 1 >= 2) { g.leave(l.player, l.reason); left++; }
      }
    };
    path.forEach((x, k) => { leavesAt(k); g.play(x.move); });
    leavesAt(path.length);
    return g;
  }

  function go(n) {
    st.cur = n;
    render();
    think();
  }

  function render() {
    const g = gameAt(st.cur);
    try {
      const { position, check, frozen, inert } = g.boardView();
      const lm = st.cur.move ? parseMove(st.cur.move) : null;
      const b = st.board;
      b.position = position;
      b.view = st.view;
      b.marks = { last: lm && lm.from ? [lm.from, lm.to] : [], captured: [], check, frozen, inert };
      const status = g.status();
      b.legal = status.over ? [] : g.legalMoves().map(parseMove).filter(Boolean);
      b.interactive = b.legal.length > 0;
      if (!b.interactive) b.selected = null;
      b.render();
      fenOut.value = g.position();
      if (status.over) {
        const info = st.rules.games.find((x) => x.id === st.game);
        const who = status.winner === null ? t('room.draw') : t('room.wins', { name: colourName(info.colours[status.winner]) });
        say.textContent = `${who} (${reasonText(status.reason)}).`;
      }
    } finally {
      g.free();
    }
    renderTree();
    pgnOut.value = pgn();
  }

  // ---- the move tree -----------------------------------------------------
  function renderTree() {
    const info = st.rules.games.find((x) => x.id === st.game);
    const n = info.players;
    const out = [];
    const moveBtn = (x, ply, first) => {
      const parts = [];
      if (ply % n === 0) parts.push(h('span', { class: 'ply-no' }, `${ply / n + 1}.`));
      else if (first) parts.push(h('span', { class: 'ply-no' }, `${Math.floor(ply / n) + 1}\u2026`));
      parts.push(h('button', { type: 'button', class: x === st.cur ? 'current' : '', onclick: () => go(x), title: x.move }, x.display));
      return parts;
    };
    // The main line of `from` (whose first move is at `ply`), with each
    // alternative in parentheses after the move it replaces.
    const line = (from, ply, into, first) => {
      let x = from, p = ply, f = first;
      while (x.children.length) {
        const [mainMove, ...alts] = x.children;
        into.push(...moveBtn(mainMove, p, f));
        f = false;
        for (const alt of alts) {
          const v = [h('span', { class: 'paren' }, '(')];
          v.push(...moveBtn(alt, p, true));
          line(alt, p + 1, v, false);
          v.push(h('span', { class: 'paren' }, ')'));
          into.push(h('span', { class: 'variation' }, ...v));
          f = true;
        }
        x = mainMove;
        p++;
      }
    };
    line(st.root, 0, out, false);
    tree.replaceChildren(...(out.length ? out : [h('span', { class: 'muted' }, t('an.playone'))]));
    const cur = tree.querySelector('.current');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
  }

  // The cells a move takes where the board stands (picker labels).
  function capturesOf(text) {
    const g = gameAt(st.cur);
    try {
      return g.captures(text);
    } catch {
      return [];
    } finally {
      g.free();
    }
  }

  function onMove(text) {
    say.textContent = '';
    let next = st.cur.children.find((c) => c.move === text);
    if (!next) {
      const g = gameAt(st.cur);
      try {
        const display = g.play(text);
        next = node(text, display, st.cur);
        st.cur.children.push(next);
      } catch (e) {
        say.textContent = errText({ code: e.code, reason: e.message });
        return;
      } finally {
        g.free();
      }
    }
    go(next);
  }

  // ---- the engine ----------------------------------------------------------
  // A search in hand stops at once when a spare worker, its rules loaded,
  // takes the place of its own (a slice cannot be interrupted:
  // engine-worker.js); without one (the server gone: no worker script to
  // load) the worker sees the stop between its slices.
  function stopSearch() {
    if (!st.searching || !st.worker) return;
    st.searching = false;
    if (st.spare) {
      st.worker.terminate();
      st.worker = st.spare;
      st.spare = null;
      listen(st.worker, 1);
      makeSpare();
    } else {
      st.worker.postMessage({ stop: true });
    }
  }

  // The spare: started quietly; one that fails (offline) is not replaced.
  function makeSpare() {
    if (gone || !st.engineBytes) return;
    const w = engineWorker();
    w.onerror = () => { w.terminate(); if (st.spare === w) st.spare = null; };
    st.spare = w;
  }

  function think() {
    if (!st.worker) return;
    const id = ++st.question;
    const on = st.engineAllowed && engineOn.checked;
    engineBox.classList.toggle('off', !on);
    stopSearch();
    if (!on) {
      evalText.textContent = '';
      engineInfo.textContent = st.engineAllowed ? t('an.engineoff') : t('an.noengine');
      pvLine.textContent = '';
      return;
    }
    evalText.textContent = '\u2026';
    engineInfo.textContent = t('an.thinking');
    pvLine.textContent = '';
    const path = pathTo(st.cur);
    st.searching = true;
    st.worker.postMessage({
      id, game: st.game, position: st.rootPosition, moves: path.map((x) => x.move), leaves: st.leaves, ms: 60000,
    });
  }

  function showInfo(m) {
    if (m.id !== st.question) return;
    if (m.type !== 'info') st.searching = false;
    if (m.type === 'error') { engineInfo.textContent = t('an.engineerr', { why: errText({ code: m.code, reason: m.message }) }); return; }
    if (m.over) { evalText.textContent = ''; engineInfo.textContent = t('an.over'); return; }
    if (m.score === undefined) return;
    const info = st.rules.games.find((x) => x.id === st.game);
    evalText.textContent = evalOf(m.score, m.toMove, info);
    const nps = m.ms > 0 ? Math.round(m.nodes / m.ms) : 0;
    engineInfo.textContent = `${t('an.depth', { d: m.depth })}${m.type === 'done' ? '' : ' \u2026'} \u00b7 ${nps} knodes/s`;
    pvLine.textContent = (m.pv || []).join(' ');
  }

  // Two players: from the first player's side, as lichess shows it (+ is
  // good for White); three: for the player to move.
  function evalOf(score, toMove, info) {
    const WIN = 100000, BOUND = WIN - 1000;
    const mine = info.players === 2 && toMove === 1 ? -score : score;
    const sign = mine > 0 ? '+' : mine < 0 ? '\u2212' : '';
    let text;
    if (Math.abs(score) >= BOUND) {
      const plies = WIN - Math.abs(score);
      text = `${sign}#${Math.ceil(plies / info.players)}`;
    } else {
      text = `${sign}${(Math.abs(mine) / 100).toFixed(2)}`;
    }
    return info.players === 2 ? text : t('an.for', { score: text, colour: colourName(info.colours[toMove]) });
  }

  // ---- export --------------------------------------------------------------
  function pgn() {
    const info = st.rules.games.find((x) => x.id === st.game);
    const n = info.players;
    // A stored game's own tags (players, date, time control: its PGN as
    // the server writes it), and its result while the main line is still
    // the game's moves; else a board of one's own, its result unknown.
    const src = st.sourcePgn;
    const tags = src ? src.tags.filter(([k]) => k !== 'Result')
      : [['Event', 'Analysis'], ['Site', 'chameleon'], ['Variant', st.game]];
    if (!src && st.rootPosition) tags.push(['SetUp', '1'], ['FEN', st.rootPosition]);
    if (!src && st.source) tags.push(['GameId', String(st.source)]);
    const main = [];
    for (let x = st.root; x.children.length; x = x.children[0]) main.push(x.children[0].move);
    const result = src && main.join(' ') === src.moves.join(' ') ? src.result : '*';
    tags.push(['Result', result]);
    const toks = [];
    const num = (ply, first) => (ply % n === 0 ? [`${ply / n + 1}.`] : first ? [`${Math.floor(ply / n) + 1}...`] : []);
    const line = (from, ply, out, first) => {
      let x = from, p = ply, f = first;
      while (x.children.length) {
        const [m, ...alts] = x.children;
        out.push(...num(p, f), m.move);
        f = false;
        for (const alt of alts) {
          const v = ['(', ...num(p, true), alt.move];
          line(alt, p + 1, v, false);
          v.push(')');
          out.push(v.join(' ').replace('( ', '(').replace(' )', ')'));
          f = true;
        }
        x = m;
        p++;
      }
    };
    line(st.root, 0, toks, false);
    toks.push(result);
    const head = tags.map(([k, v]) => `[${k} "${v.replace(/[\\"]/g, '\\$&')}"]`).join('\n');
    // Move text wrapped at 79 columns, as the server writes it.
    const lines = [];
    let lineText = '';
    for (const t of toks) {
      if (lineText && lineText.length + 1 + t.length > 79) { lines.push(lineText); lineText = t; } else lineText = lineText ? `${lineText} ${t}` : t;
    }
    if (lineText) lines.push(lineText);
    return `${head}\n\n${lines.join('\n')}\n`;
  }

  function download() {
    const a = h('a', { href: URL.createObjectURL(new Blob([pgn()], { type: 'application/x-chess-pgn' })), download: `analysis-${st.game}.pgn` });
    document.body.append(a);
    a.click();
    a.remove();
  }

  function copy(text, done) {
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { say.textContent = done; }, () => { fenOut.select(); });
    else fenOut.select();
  }

  function flip() {
    const info = st.rules.games.find((x) => x.id === st.game);
    st.view = (st.view + 1) % info.players;
    render();
  }

  // ---- setting up ------------------------------------------------------------
  function start(game, position, moves = [], leaves = [], engineAllowed = true, source = null) {
    st.game = game;
    st.rootPosition = position || null;
    st.leaves = leaves;
    st.engineAllowed = engineAllowed;
    st.source = source;
    st.sourcePgn = null; // fromStoredGame sets it once the game's PGN is read
    st.root = node(null, null, null);
    st.cur = st.root;
    // Check the position (and the moves) before anything is drawn.
    const g = st.rules.newGame(game, position || undefined);
    try {
      for (const m of moves) {
        const display = g.play(m);
        const x = node(m, display, st.cur);
        st.cur.children.push(x);
        st.cur = x;
      }
    } finally {
      g.free();
    }
    if (st.board) st.board.destroy();
    st.board = new Board(boardBox, { game, onMove, pieceName: (k) => pieceName(game, k), capturesOf });
    st.view = 0;
    for (const o of gameSel.options) o.selected = o.value === game;
    const info = st.rules.games.find((x) => x.id === game);
    title.replaceChildren(t('an.title'), h('span', { class: 'tc-line' },
      `${gameName(game) || info.name}${source ? t('an.fromgame', { id: source }) : position ? t('an.frompos') : t('an.fromsetup')}`));
    if (source) title.querySelector('.tc-line').append(' \u00b7 ', h('a', { href: `#/game/${source}` }, t('an.back')));
    document.title = `${t('nav.analysis')} \u00b7 ${gameName(game) || info.name} \u00b7 chameleon`;
    render();
    think();
  }

  function setUpFromForm() {
    const game = gameSel.value;
    const pos = posIn.value.trim();
    say.textContent = '';
    try {
      start(game, pos || null);
      const hash = pos ? `#/analysis/${game}/${encodeURIComponent(pos)}` : `#/analysis/${game}`;
      history.replaceState(null, '', hash);
    } catch (e) {
      say.textContent = t('an.nosetup', { why: errText({ code: e.code, reason: e.message }) });
    }
  }

  async function fromStoredGame(id) {
    const r = await fetch(`/api/games/${id}`);
    if (!r.ok) throw new Error(t('an.nogame', { id }));
    const g = await r.json();
    const moves = (g.moves || []).map((m) => m.move);
    const leaves = (g.leaves || []).map((l) => ({ after: l.after_ply, player: l.player, reason: l.reason }));
    start(g.variant, g.position || null, moves, leaves, g.status === 'finished', id);
    // Its PGN's tag pairs, for the export (pgn()).
    const text = await fetch(`/api/games/${id}.pgn`).then((x) => (x.ok ? x.text() : '')).catch(() => '');
    const tags = [...text.matchAll(/^\[(\w+) "((?:[^"\\]|\\.)*)"\]$/gm)].map((m) => [m[1], m[2].replace(/\\(.)/g, '$1')]);
    const result = (tags.find(([k]) => k === 'Result') || [])[1];
    if (result && st.source === id) {
      st.sourcePgn = { tags, result, moves };
      pgnOut.value = pgn();
    }
  }

  // The engine's worker. One that fails to start (its script or a module it
  // imports not loaded: the error event says no more) is started once
  // more; a second failure is said where the evaluation goes, never left
  // at "thinking".
  function startWorker(bytes, retries) {
    st.engineBytes = bytes;
    st.worker = engineWorker();
    listen(st.worker, retries);
    if (!st.spare) makeSpare();
  }

  // A worker given the rules' bytes (it fetches nothing more).
  function engineWorker() {
    const w = new Worker(new URL('../engine-worker.js', import.meta.url), { type: 'module' });
    w.postMessage({ bytes: st.engineBytes.slice(0) });
    return w;
  }

  // The worker w in use: its answers shown, its failure to start retried.
  function listen(w, retries) {
    w.onmessage = (e) => showInfo(e.data);
    w.onerror = (e) => {
      if (gone || e.message) return; // an error inside a search is answered by the worker itself
      w.terminate();
      st.searching = false;
      console.warn('chameleon: the engine worker did not start');
      if (retries > 0) {
        startWorker(st.engineBytes, retries - 1);
        if (st.root) think();
        return;
      }
      st.worker = null; // think() stops here: the next move does not say "thinking" again
      evalText.textContent = '';
      engineInfo.textContent = t('an.engineerr', { why: errText({ code: 'engine_failed' }) });
    };
  }

  let gone = false;
  pageRules().then(async ({ bytes, rules }) => {
    if (gone) return;
    st.rules = rules;
    gameSel.replaceChildren(...rules.games.map((x) => h('option', { value: x.id }, gameName(x.id) || x.name)));
    startWorker(bytes, 1);
    try {
      if (params.stored) await fromStoredGame(params.stored);
      else start(rules.games.some((x) => x.id === params.game) ? params.game : 'ultima', params.position || null);
    } catch (e) {
      if (!st.root) start('ultima', null);
      say.textContent = errText({ code: e.code, reason: e.message });
    }
  }).catch((e) => { say.textContent = t('an.norules', { why: e.message }); });

  return () => {
    gone = true;
    document.removeEventListener('keydown', onKey);
    if (st.worker) st.worker.terminate();
    if (st.spare) st.spare.terminate();
  };
}

