// Game room: play or watch one game, or view a finished one.
// State comes from the server's `room` message, then numbered events; a gap
// in the numbers (or a reconnection) asks for the missed ones with `since`.
// Correspondence games show each seat's deadline instead of a clock, and
// (two players) the conditional moves editor.

import { h, clockText, timeControl } from '../dom.js';
import { Board, parseMove } from '../board.js';
import { pieceName, ARMY_COLOURS } from '../pieces.js';
import { rebuild, displayCaptures, applyMove } from '../replay.js';
import { GAME_TITLES } from '../geometry.js';
import { corrControl, leftText, HOUR } from '../corr.js';

const REASONS = {
  checkmate: 'checkmate', stalemate: 'stalemate', repetition: 'threefold repetition',
  ply_limit: '150 plies without capture or pawn move', centre: 'queen reached the centre',
  journey: 'king completed its journey', last_queen: 'last queen standing', resignation: 'resignation',
  timeout: 'time out', abandonment: 'abandonment', agreement: 'draw by agreement', aborted: 'game aborted',
};


function piecesMap(list) {
  const m = new Map();
  for (const p of list || []) m.set(p.name, { kind: p.letter, owner: p.owner });
  return m;
}

export function mount(main, params, app) {
  const conn = app.conn;
  const id = params.room;
  const offs = [];
  let st = null; // the room state, kept up to date by events
  let receivedAt = 0; // when st.clocks were true
  let deadlineAt = 0; // when st.now_ms was the server's time
  let viewPly = null; // null: live; else the ply shown (0 = start)
  let viewSeat = null; // whose army is at the bottom
  let snapshots = new Map(); // ply -> pieces Map the server sent
  let rebuilt = null;
  let board = null;

  const boardBox = h('div', { class: 'board-box' });
  const topBars = h('div', { class: 'bars top-bars' });
  const bottomBars = h('div', { class: 'bars bottom-bars' });
  const banner = h('div', { class: 'banner', id: 'banner', hidden: true, role: 'status' });
  const movesBox = h('div', { class: 'moves', id: 'moves', 'aria-label': 'Moves' });
  const status = h('div', { class: 'status', id: 'room-status', role: 'alert' });
  const actions = h('div', { class: 'row actions', id: 'actions' });
  const chatLines = h('div', { class: 'lines', id: 'chat-lines', 'aria-live': 'polite' });
  const chatInput = h('input', { id: 'chat-input', placeholder: 'Say something\u2026', maxlength: 300, 'aria-label': 'Chat message' });
  const typedInput = h('input', { id: 'move-input', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Type a move', placeholder: 'Type a move, e.g. e2-e4' });
  const viewSel = h('select', { id: 'view-seat', 'aria-label': 'Army at the bottom' });
  const heading = h('h1', { class: 'room-title' }, `Game ${id}`);
  // Every legal move as a button: for keyboard and screen-reader players.
  const legalList = h('div', { class: 'legal-list', id: 'legal-list' });
  const legalSummary = h('summary', {}, 'Legal moves');
  const legalBox = h('details', { class: 'legal', hidden: true }, legalSummary, legalList);
  // Conditional moves (two-player correspondence): the stored lines, an
  // editor (one line per row, move texts separated by spaces), save, clear.
  const condLines = h('ol', { id: 'cond-lines' });
  const condNone = h('p', { class: 'muted', id: 'cond-none' }, 'No conditional moves stored.');
  const condInput = h('textarea', { id: 'cond-input', rows: 3, spellcheck: 'false', 'aria-label': 'Conditional lines',
    placeholder: 'One line per row: their move, your answer, their move, your answer\u2026 e.g. e7-e6 d2-d3' });
  const condStatus = h('div', { class: 'status', id: 'cond-status', role: 'status' });
  const condSave = h('button', { type: 'submit', class: 'primary', id: 'cond-save' }, 'Save lines');
  const condClear = h('button', { type: 'button', id: 'cond-clear', onclick: () => condRequest('cond_clear', {}) }, 'Clear all');
  const condBox = h('section', { class: 'cond', id: 'cond', hidden: true },
    h('h3', {}, 'Conditional moves'),
    h('p', { class: 'muted' }, 'If your opponent plays the first move of a line, your answer is played at once, and the line goes on.'),
    condLines, condNone,
    h('form', { onsubmit: (e) => { e.preventDefault(); saveCond(); } }, condInput, h('div', { class: 'row' }, condSave, condClear)),
    condStatus);
  let condFor = -1; // the ply the stored lines were read at

  const step = (fn) => () => { fn(); renderBoard(); renderMoves(); };
  const stepper = h('div', { class: 'step' },
    h('button', { type: 'button', title: 'First position', 'aria-label': 'First position', onclick: step(() => { viewPly = 0; }) }, '\u00ab'),
    h('button', { type: 'button', title: 'Previous move', 'aria-label': 'Previous move', id: 'step-back', onclick: step(() => { viewPly = Math.max(0, (viewPly ?? st.moves.length) - 1); }) }, '\u25c0'),
    h('button', { type: 'button', title: 'Next move', 'aria-label': 'Next move', id: 'step-fwd', onclick: step(() => { if (viewPly !== null) viewPly = viewPly + 1 >= st.moves.length ? null : viewPly + 1; }) }, '\u25b6'),
    h('button', { type: 'button', title: 'Current position', 'aria-label': 'Current position', onclick: step(() => { viewPly = null; }) }, '\u00bb'));

  main.append(h('div', { class: 'room', id: 'room' },
    h('div', { class: 'board-col' }, topBars, boardBox, bottomBars),
    h('div', { class: 'side' },
      heading, banner,
      h('div', { class: 'row' }, h('label', { for: 'view-seat', style: 'margin:0' }, 'View as'), viewSel),
      movesBox, stepper,
      h('form', { class: 'typed', id: 'typed', onsubmit: (e) => { e.preventDefault(); sendTyped(); } },
        typedInput, h('button', { type: 'submit' }, 'Play')),
      legalBox, status, actions, condBox,
      h('div', { class: 'chat' }, chatLines,
        h('form', { onsubmit: (e) => { e.preventDefault(); sendChat(); } }, chatInput)))));

  const onKey = (e) => {
    if (!st || e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowLeft') document.getElementById('step-back').click();
    else if (e.key === 'ArrowRight') document.getElementById('step-fwd').click();
  };
  document.addEventListener('keydown', onKey);

  // The piece moves at once on our board (captures wait for the server);
  // the server's event, or its refusal, then redraws the real position.
  function sendMove(text) {
    status.textContent = '';
    if (board && viewPly === null) {
      board.position = applyMove(st.game, board.position, { move: text, captures: [] });
      board.legal = [];
      board.interactive = false;
      board.render();
    }
    conn.request('move', { room: id, move: text }, false);
  }
  function sendTyped() {
    const t = typedInput.value.trim();
    if (!t) return;
    if (!st || st.you < 0) { status.textContent = 'You are watching this game.'; return; }
    sendMove(t);
    typedInput.value = '';
  }
  function sendChat() {
    const t = chatInput.value.trim();
    if (!t) return;
    conn.request('chat', { room: id, text: t }, false);
    chatInput.value = '';
  }

  // Errors to our requests in this room (a refused move, a refused action).
  offs.push(conn.on('error', (m) => {
    if (m.re === undefined && !m.request) return;
    if (m.request && m.request.startsWith('cond_')) return; // shown by the editor
    status.textContent = m.reason || m.code;
    if (m.request === 'move' && st) renderBoard(); // undo the piece we moved ahead
  }));

  function seatName(s) {
    const seat = st.seats[s];
    return seat && seat.player ? seat.player.name : `seat ${s}`;
  }

  let joining = false; // one join at a time: a reply brings us up to date
  function join(since) {
    if (joining) return;
    joining = true;
    const f = { room: id };
    if (since !== undefined) f.since = since;
    conn.request('join', f).then(onReply)
      .catch((e) => {
        if (e.code === 'unknown_room' && !st) archived();
        else if (e.code !== 'disconnected') status.textContent = e.reason || 'No such game.';
      })
      .finally(() => { joining = false; });
  }

  // A game no longer in the server's memory: the store's archive
  // (GET /api/games/<id>, store_game_json in server/store.c) gives its
  // players, moves, leaves and result;
  // the viewer steps through it with positions rebuilt from the set-up.
  async function archived() {
    try {
      const r = await fetch(`/api/games/${id}`);
      if (!r.ok) throw new Error('not found');
      const g = await r.json();
      const players = g.players || [];
      const moves = (g.moves || []).map((m) => ({ move: m.move, display: m.move, seat: m.player }));
      const seats = players.map((p, i) => ({ seat: p.seat ?? i, color: '', player: { id: p.account || 0, name: p.name }, connected: true, left: null }));
      const leaves = g.leaves || [];
      for (const l of leaves) if (seats[l.player]) seats[l.player].left = l.reason;
      if (g.position) throw new Error('a game from a set position: no viewer yet');
      const pos = rebuild(g.variant, moves);
      const pieces = [...pos[pos.length - 1]].map(([name, p]) => ({ name, letter: p.kind, owner: p.owner, flags: [] }));
      setRoom({
        room: id, seq: 0, game: g.variant, game_name: g.variant,
        base_ms: 0, inc_ms: 0, // no clocks in the viewer
        status: 'over', seats, you: -1, pieces, moves, last_captures: [], check: [], clocks: seats.map(() => 0), clock_running: false,
        to_move: -1, legal: [], draw_offers: [], rematch_offers: [], chat: [],
        result: g.result ? { winner: g.result.winner ?? -1, reason: g.result.reason } : null,
      });
      if (seats.every((s) => !s.color)) board.colours = null;
      viewPly = 0;
      render();
    } catch { status.textContent = 'No such game.'; }
  }

  function onReply(m) {
    if (m.type === 'room') setRoom(m);
    else if (m.type === 'catchup') {
      // Lean events (only the last board change carries the board), then
      // the state now at the top level (PROTOCOL.md, catchup).
      for (const e of m.events) applyEvent(e);
      if (st && m.seq === st.seq) {
        for (const k of ['you', 'clock_running', 'to_move', 'result', 'status', 'pieces', 'check', 'legal', 'draw_offers', 'rematch_offers', 'deadlines']) {
          if (k in m) st[k] = m[k];
        }
        if ('now_ms' in m) { st.now_ms = m.now_ms; deadlineAt = performance.now(); }
        if (m.clocks) { st.clocks = m.clocks; receivedAt = performance.now(); }
        if (m.pieces) snapshots.set(st.moves.length, piecesMap(m.pieces));
      }
      render();
    }
  }

  function setRoom(m) {
    st = m;
    receivedAt = performance.now();
    deadlineAt = receivedAt;
    condFor = -1;
    snapshots = new Map([[st.moves.length, piecesMap(st.pieces)]]);
    rebuilt = null;
    if (viewSeat === null) viewSeat = st.you >= 0 ? st.you : 0;
    if (!board) {
      board = new Board(boardBox, { game: st.game, onMove: sendMove, pieceName: (k) => pieceName(st.game, k) });
      heading.replaceChildren(st.corr ? `${GAME_TITLES[st.game] || st.game_name} ` : `${GAME_TITLES[st.game] || st.game_name} \u00b7 ${timeControl(st.base_ms, st.inc_ms)} `,
        h('a', { href: `#/howto/${st.game}`, class: 'rules-link', target: '_blank' }, 'rules'),
        st.corr ? h('span', { class: 'tc-line', id: 'room-tc' }, `\u2709 Correspondence, ${corrControl(st.corr)}`) : null);
    }
    board.colours = st.seats.map((s) => s.color);
    board.view = viewSeat;
    render();
  }

  function applyEvent(e) {
    if (!st || e.seq <= st.seq) return;
    if (e.seq !== st.seq + 1) { join(st.seq); return; }
    st.seq = e.seq;
    const boardFields = () => {
      if (e.pieces) { st.pieces = e.pieces; snapshots.set(st.moves.length, piecesMap(e.pieces)); }
      if (e.check) st.check = e.check;
      if (e.legal) st.legal = e.legal;
      if (e.clocks) { st.clocks = e.clocks; receivedAt = performance.now(); }
      if (e.deadlines) st.deadlines = e.deadlines;
      if ('now_ms' in e) { st.now_ms = e.now_ms; deadlineAt = performance.now(); }
      if ('clock_running' in e) st.clock_running = e.clock_running;
      if ('to_move' in e) st.to_move = e.to_move;
      if (e.result) { st.result = e.result; st.status = 'over'; st.legal = []; st.clock_running = false; }
    };
    switch (e.kind) {
      case 'move':
        st.moves.push({ move: e.move, display: e.display, seat: e.seat, captures: e.captures });
        st.last_captures = e.captures || [];
        st.draw_offers = [];
        rebuilt = null;
        boardFields();
        app.announce(`${seatName(e.seat)} played ${e.display || e.move}`);
        if (viewPly !== null && viewPly === st.moves.length - 1) viewPly = null;
        break;
      case 'left':
        st.seats[e.seat].left = e.reason;
        boardFields();
        app.announce(`${seatName(e.seat)} left the game: ${REASONS[e.reason] || e.reason}`);
        break;
      case 'end':
        if (e.clocks) { st.clocks = e.clocks; receivedAt = performance.now(); }
        st.deadlines = null;
        st.result = e.result; st.status = 'over'; st.legal = []; st.clock_running = false;
        break;
      case 'draw_offer': st.draw_offers = e.offers; app.announce(`${seatName(e.seat)} offers a draw`); break;
      case 'draw_declined': st.draw_offers = []; break;
      case 'rematch_offer': st.rematch_offers = e.offers; break;
      case 'rematch': st.next_room = e.next_room; break;
      case 'presence': st.seats[e.seat].connected = e.connected; break;
      case 'chat': st.chat.push({ seat: e.seat, name: e.name, text: e.text }); break;
      default: break;
    }
  }

  offs.push(conn.on('room', (m) => { if (m.room === id && m.re === undefined) setRoom(m); }));
  offs.push(conn.on('event', (e) => { if (e.room === id) { applyEvent(e); render(); } }));
  offs.push(conn.on('welcome', () => { condFor = -1; join(st ? st.seq : undefined); }));
  // Our "your turn" list says this game's deadline moved (a vacation
  // started or ended): the room learns it only with its next event, so ask
  // for the state now (a join with since = our seq).
  offs.push(app.onYourTurn((list) => {
    const mine = st && st.corr && st.status !== 'over' && list.find((g) => g.id === id);
    if (mine && st.deadlines && mine.deadline !== st.deadlines[st.to_move]) join(st.seq);
  }));
  if (conn.ready) join();

  // --- rendering -----------------------------------------------------------

  function clockLeft(s) {
    let t = st.clocks[s] || 0;
    if (st.clock_running && s === st.to_move && st.status !== 'over') t -= performance.now() - receivedAt;
    return t;
  }

  // Correspondence: ms left before the seat's deadline, null if it has
  // none (not its turn, or the game is over).
  function deadlineLeft(s) {
    const d = st.deadlines && st.deadlines[s];
    if (d === null || d === undefined || st.status === 'over') return null;
    return d - (st.now_ms || Date.now()) - (performance.now() - deadlineAt);
  }

  function deadlineText(s) {
    const left = deadlineLeft(s);
    if (left !== null) return `${leftText(left)} left`;
    // Increment mode: the bank waiting for its owner's next turn.
    if (st.corr && st.corr.inc_days && st.status !== 'over' && !st.seats[s].left) return `bank ${leftText(st.clocks[s] || 0)}`;
    return '';
  }

  function bar(s) {
    const seat = st.seats[s];
    let clock;
    if (st.corr) {
      clock = h('span', { class: 'deadline', 'data-seat': s }, deadlineText(s));
      const d = st.deadlines && st.deadlines[s];
      if (d && st.status !== 'over') clock.title = `Move by ${new Date(d).toLocaleString()}`;
      clock.hidden = !clock.textContent;
    } else {
      clock = h('span', { class: 'clock', 'data-seat': s }, st.base_ms ? clockText(clockLeft(s)) : '');
      if (!st.base_ms) clock.hidden = true;
    }
    return h('div', { class: `player${s === st.to_move && st.status !== 'over' ? ' to-move' : ''}`, 'data-seat': s },
      h('span', {},
        h('span', { class: 'swatch', style: `background:${ARMY_COLOURS[board.player(s).colour].body}` }),
        seat.player ? seat.player.name : '(empty)',
        seat.connected === false ? h('span', { class: 'muted' }, ' (away)') : null,
        seat.left ? h('span', { class: 'muted' }, ` \u2014 left (${REASONS[seat.left] || seat.left})`) : null,
        s === st.you ? h('span', { class: 'muted' }, ' (you)') : null),
      clock);
  }

  function renderBars() {
    const n = st.seats.length;
    const others = [];
    for (let i = 1; i < n; i++) others.push((viewSeat + i) % n);
    topBars.replaceChildren(...others.reverse().map(bar));
    bottomBars.replaceChildren(bar(viewSeat));
  }

  function tickClocks() {
    if (st && st.corr) {
      for (const c of main.querySelectorAll('.deadline[data-seat]')) {
        const s = Number(c.dataset.seat);
        c.textContent = deadlineText(s);
        const left = deadlineLeft(s);
        c.classList.toggle('low', left !== null && left < 12 * HOUR);
      }
      return;
    }
    if (!st || !st.base_ms) return;
    for (const c of main.querySelectorAll('.clock[data-seat]')) {
      const s = Number(c.dataset.seat);
      const left = clockLeft(s);
      c.textContent = clockText(left);
      c.classList.toggle('low', left < 10000);
    }
  }
  const timer = setInterval(tickClocks, 100);

  function positionAt(ply) {
    if (snapshots.has(ply)) return snapshots.get(ply);
    if (!rebuilt) rebuilt = rebuild(st.game, st.moves);
    return rebuilt[ply];
  }

  function renderBoard() {
    if (!board) return;
    const live = viewPly === null || viewPly >= st.moves.length;
    const ply = live ? st.moves.length : viewPly;
    board.view = viewSeat;
    board.position = positionAt(ply) || new Map();
    const last = ply > 0 ? st.moves[ply - 1] : null;
    const lm = last ? parseMove(last.move) : null;
    const lastCaps = last ? (last.captures || (live ? st.last_captures : null) || displayCaptures(last.display)) : [];
    const flagged = (f) => (live ? st.pieces.filter((p) => (p.flags || []).includes(f)).map((p) => p.name) : []);
    board.marks = {
      last: lm && lm.from ? [lm.from, lm.to] : [],
      captured: lastCaps.filter((c) => !lm || c !== lm.to),
      check: live ? (st.check || []) : [],
      frozen: flagged('frozen'),
      inert: flagged('inert'),
    };
    const mine = live && st.status !== 'over' && st.you >= 0 && st.you === st.to_move;
    board.legal = mine ? (st.legal || []).map(parseMove).filter(Boolean) : [];
    board.interactive = board.legal.length > 0;
    if (!board.interactive) board.selected = null;
    board.render();
    typedInput.disabled = !mine;
    legalBox.hidden = !mine;
    if (mine) {
      legalSummary.textContent = `Legal moves (${st.legal.length})`;
      if (legalBox.open) {
        legalList.replaceChildren(...st.legal.map((t) => h('button', { type: 'button', onclick: () => sendMove(t) }, t)));
      }
    }
  }

  function renderMoves() {
    const n = st.seats.length;
    const cur = viewPly === null ? st.moves.length : viewPly;
    const items = [];
    st.moves.forEach((m, i) => {
      if (i % n === 0) items.push(h('span', { class: 'ply-no' }, `${i / n + 1}.`));
      items.push(h('button', {
        type: 'button', class: i + 1 === cur ? 'current' : '', 'data-ply': i + 1,
        onclick: step(() => { viewPly = i + 1 === st.moves.length ? null : i + 1; }),
      }, m.display || m.move));
    });
    movesBox.replaceChildren(...items);
    const curBtn = movesBox.querySelector('.current');
    if (curBtn && viewPly === null) movesBox.scrollTop = movesBox.scrollHeight;
  }

  function renderBanner() {
    if (!st.result) { banner.hidden = true; return; }
    const r = st.result;
    const reason = REASONS[r.reason] || r.reason;
    let text;
    if (r.reason === 'aborted') text = 'Game aborted';
    else if (r.winner < 0) text = 'Draw';
    else text = `${seatName(r.winner)} wins`;
    banner.replaceChildren(text, h('span', { class: 'reason' }, reason));
    banner.hidden = false;
  }

  function renderActions() {
    const over = st.status === 'over';
    const player = st.you >= 0;
    const act = (type, label, cls, confirmText) => h('button', {
      type: 'button', class: cls || '', id: `btn-${type}`,
      onclick: () => {
        if (confirmText && !window.confirm(confirmText)) return;
        conn.request(type, { room: id }, false);
      },
    }, label);
    const list = [];
    if (player && !over) {
      if ((st.legal || []).includes('pass') && st.you === st.to_move) {
        list.push(h('button', { type: 'button', id: 'btn-pass', onclick: () => sendMove('pass') }, 'Pass'));
      }
      const offered = (st.draw_offers || []).filter((s) => s !== st.you);
      if ((st.draw_offers || []).includes(st.you)) list.push(act('draw_decline', 'Cancel draw offer'));
      else list.push(act('draw_offer', offered.length ? 'Accept draw' : 'Offer draw', offered.length ? 'primary' : ''));
      if (offered.length && !(st.draw_offers || []).includes(st.you)) list.push(act('draw_decline', 'Decline'));
      if (st.moves.length < st.seats.length) list.push(act('abort', 'Abort'));
      list.push(act('resign', 'Resign', '', 'Resign this game?'));
    }
    if (player && over && !st.next_room) {
      const asked = (st.rematch_offers || []).includes(st.you);
      list.push(asked ? h('span', { class: 'muted' }, 'Rematch asked\u2026') : act('rematch', (st.rematch_offers || []).length ? 'Accept rematch' : 'Rematch', 'primary'));
    }
    if (st.next_room) list.push(h('a', { href: `#/game/${st.next_room}` }, 'Go to the rematch'));
    if (st.draw_offers && st.draw_offers.length && !over) {
      list.push(h('span', { class: 'muted', id: 'draw-note' }, `Draw offered by ${st.draw_offers.map(seatName).join(', ')}`));
    }
    actions.replaceChildren(...list);
  }

  // --- conditional moves ---------------------------------------------------

  function condPlayable() {
    return st && st.corr && st.seats.length === 2 && st.you >= 0 && st.status !== 'over' && !st.seats[st.you].left;
  }

  function showCond(lines) {
    // Each line with a button that removes it alone (cond_set of the rest).
    const myTurn = st && st.to_move === st.you;
    condLines.replaceChildren(...lines.map((l, i) => h('li', { 'data-line': l }, l, ' ',
      h('button', { type: 'button', class: 'cond-drop', title: 'Remove this line', 'aria-label': `Remove ${l}`, disabled: myTurn,
        onclick: () => condRequest('cond_set', { lines: lines.filter((_, j) => j !== i) }) }, '\u00d7'))));
    condNone.hidden = lines.length > 0;
    condLines.hidden = lines.length === 0;
    condClear.hidden = lines.length === 0;
  }

  async function condRequest(type, fields) {
    condStatus.textContent = '';
    try {
      const r = await conn.request(type, { room: id, ...fields });
      showCond(r.lines || []);
      if (type === 'cond_set') { condInput.value = ''; condStatus.textContent = `Stored ${r.lines.length} line${r.lines.length === 1 ? '' : 's'}.`; }
      if (type === 'cond_clear') condStatus.textContent = 'Cleared.';
      return r;
    } catch (e) {
      if (e.code !== 'disconnected') condStatus.textContent = e.reason || e.code;
      return null;
    }
  }

  function saveCond() {
    const fresh = condInput.value.split('\n').map((l) => l.trim().split(/\s+/).join(' ')).filter(Boolean);
    if (!fresh.length) { condStatus.textContent = 'Type a line first.'; return; }
    const short = fresh.find((l) => l.split(' ').length < 2);
    if (short) { condStatus.textContent = `\u201c${short}\u201d: a line needs their move and your answer.`; return; }
    // New lines are added after the stored ones (cond_set replaces them all).
    const kept = [...condLines.querySelectorAll('li[data-line]')].map((li) => li.dataset.line);
    condRequest('cond_set', { lines: [...kept, ...fresh] });
  }

  function renderCond() {
    condBox.hidden = !condPlayable();
    if (condBox.hidden) return;
    const myTurn = st.to_move === st.you;
    condSave.disabled = myTurn;
    condInput.disabled = myTurn;
    condInput.placeholder = myTurn ? 'Conditional moves are entered while your opponent is to move.'
      : 'One line per row: their move, your answer, their move, your answer\u2026 e.g. e7-e6 d2-d3';
    // Re-read after every move: a move may have answered or dropped lines.
    if (condFor !== st.moves.length && conn.ready) {
      condFor = st.moves.length;
      condRequest('cond_get', {});
    }
  }

  function renderChat() {
    chatLines.replaceChildren(...(st.chat || []).map((c) => h('div', {}, h('span', { class: 'who' }, c.name), c.text)));
    chatLines.scrollTop = chatLines.scrollHeight;
  }

  function renderViewSel() {
    const cur = String(viewSeat);
    viewSel.replaceChildren(...st.seats.map((s, i) => h('option', { value: i, selected: String(i) === cur },
      `${s.color}${s.player ? ` (${s.player.name})` : ''}`)));
  }
  legalBox.addEventListener('toggle', () => renderBoard());
  viewSel.addEventListener('change', () => { viewSeat = Number(viewSel.value); render(); });

  function render() {
    if (!st) return;
    renderBars();
    renderBoard();
    renderMoves();
    renderBanner();
    renderActions();
    renderChat();
    renderViewSel();
    renderCond();
    tickClocks();
    const yourTurn = st.status !== 'over' && st.you >= 0 && st.you === st.to_move;
    document.title = `${yourTurn ? '\u25cf Your turn \u00b7 ' : ''}${GAME_TITLES[st.game] || st.game_name} \u00b7 chameleon`;
  }

  const title = document.title;
  return () => {
    document.title = title;
    offs.forEach((f) => f());
    clearInterval(timer);
    document.removeEventListener('keydown', onKey);
    if (conn.ready) conn.request('part', { room: id }, false);
  };
}
