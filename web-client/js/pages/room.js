// Game room: play or watch one game, or view a finished one.
// State comes from the server's `room` message, then numbered events; a gap
// in the numbers (or a reconnection) asks for the missed ones with `since`.
// Correspondence games show each seat's deadline instead of a clock, and
// (two players) the conditional moves editor.
//
// The parts live in ../room/: the state (state.js), the board and move
// input (play.js), the players' bars with clocks and deadlines (bars.js),
// the move list and stepping (history.js), the result and the buttons
// (actions.js), chat (chat.js), conditional moves (cond.js) and the viewer
// of stored games (archive.js). This page lays them out and connects them.

import { errText, t } from '../i18n.js';
import { h, timeControl } from '../dom.js';
import { corrControl } from '../corr.js';
import { gameName } from '../tables.js';
import { RoomState } from '../room/state.js';
import { createPlay } from '../room/play.js';
import { createBars } from '../room/bars.js';
import { createHistory } from '../room/history.js';
import { createActions } from '../room/actions.js';
import { createChat } from '../room/chat.js';
import { createCond } from '../room/cond.js';
import { loadArchived } from '../room/archive.js';
import { createSounds } from '../room/sounds.js';
import { createTools } from '../room/tools.js';
import { createConfirm } from '../room/confirm.js';

export function mount(main, params, app) {
  // The connection as this page's parts use it: the ids of the requests
  // they send are kept, so that only their errors are shown here (not,
  // say, the "no room" answer to the previous page's `part`).
  const sent = new Set();
  const quiet = new Set(); // of those, moves sent again after a reconnection (play.js)
  const conn = Object.create(app.conn);
  conn.request = (...args) => { sent.add(app.conn.nextId); return app.conn.request(...args); };
  const id = params.room;
  const model = new RoomState();
  const status = h('div', { class: 'status', id: 'room-status', role: 'alert' });
  const heading = h('h1', { class: 'room-title' }, t('room.title', { id }));
  const ctx = {
    app, conn, id, model, sent, quiet,
    view: { ply: null, seat: null }, // ply shown (null: live), army at the bottom
    // A note under the moves; `error` marks a refusal, cleared by the
    // player's next action or the game's next move (clearError).
    say: (text, error = false) => {
      status.textContent = text;
      status.classList.toggle('error', error && !!text);
      placeNote();
      // In its place under the input, the note is brought into view (the
      // input was perhaps at the window's foot).
      if (text && !status.classList.contains('float') && main.contains(status)) status.scrollIntoView({ block: 'nearest' });
    },
    clearError: () => { if (status.classList.contains('error')) ctx.say(''); },
    render: () => render(),
    stepped: () => { play.render(); history.render(); },
    board: () => play.board(),
    sendMove: (text) => play.sendMove(text),
  };
  ctx.confirm = createConfirm(ctx); // before play.js, which asks it
  const play = createPlay(ctx);
  const bars = createBars(ctx);
  const history = createHistory(ctx);
  const actions = createActions(ctx);
  const chat = createChat(ctx);
  const cond = createCond(ctx);
  const sounds = createSounds(ctx);
  const tools = createTools(ctx);

  const roomEl = h('div', { class: 'room', id: 'room' },
    h('div', { class: 'board-col' }, bars.top, play.box, bars.bottom),
    h('div', { class: 'side' },
      heading, actions.banner, play.viewRow, history.moves, history.stepper, play.typed,
      status, play.legal, ctx.confirm.el, actions.actions, tools.el, cond.el, chat.el));
  main.append(roomEl);
  // The note's place: under the move input. On one column (a phone: the
  // side column is below the board) it floats at the window's foot, to be
  // seen from the board, but never over the move input: while the player
  // types, or when the floating note would cover it, it stays in its place.
  function placeNote() {
    status.classList.add('float');
    if (!status.textContent || play.typed.hidden) return;
    const a = status.getBoundingClientRect(), b = play.typed.getBoundingClientRect();
    const over = a.top < b.bottom && b.top < a.bottom && a.left < b.right && b.left < a.right;
    if (over || play.typed.contains(document.activeElement)) status.classList.remove('float');
  }
  const onView = () => { if (status.textContent) placeNote(); };
  window.addEventListener('scroll', onView, { passive: true });
  window.addEventListener('resize', onView);
  play.typed.addEventListener('focusin', onView);
  // Any new action (a click on the board or a button, a typed move) puts
  // an old refusal away; capture: before the action says anything new.
  for (const type of ['pointerdown', 'submit']) roomEl.addEventListener(type, () => ctx.clearError(), true);

  function setRoom(m) {
    model.set(m);
    cond.reread();
    // "Your games" is lit for a game of one's own, not one watched.
    const nav = document.querySelector('[data-nav="games"]');
    if (nav) nav.classList.toggle('active', m.you >= 0);
    if (ctx.view.seat === null) ctx.view.seat = m.you >= 0 ? m.you : 0;
    if (!play.board()) heading.replaceChildren(...headingOf(m));
    if (m.spectators !== undefined) showSpectators(m.spectators);
    // Three bars around the board: a smaller board keeps one's own in view.
    roomEl.classList.toggle('p3', m.seats.length > 2);
    play.ensureBoard();
    // The bars as wide as the board, not the column (style.css .board-col).
    const box = play.box.querySelector('svg.board')?.viewBox.baseVal;
    if (box && box.height) roomEl.style.setProperty('--board-aspect', String(box.width / box.height));
    render();
  }

  function render() {
    const st = model.st;
    if (!st) return;
    bars.render();
    play.render();
    history.render();
    actions.render();
    tools.render();
    ctx.confirm.render();
    chat.render();
    play.renderViewSel();
    cond.render();
    bars.tick();
    document.title = `${model.myTurn ? `\u25cf ${t('nav.turn')} \u00b7 ` : ''}${gameName(st.game)} \u00b7 chameleon`;
  }
  const timer = setInterval(() => { bars.tick(); sounds.tick(); }, 100);
  let archiving = false; // the stored game is being read (once)

  const offs = wire(ctx, {
    setRoom,
    moved: (ply) => { history.moved(ply); play.moved(); },
    reread: cond.reread,
    refused: play.refused,
    online: play.online,
    rejoined: play.rejoined,
    async archived() {
      if (archiving) return;
      archiving = true;
      // Opened on its final position, as a game that just ended.
      try {
        ctx.view.ply = null;
        setRoom(await loadArchived(id));
        ctx.say('');
      } catch { ctx.say(t('room.nosuch')); }
    },
  });
  offs.push(conn.on('event', (e) => { if (e.room === id) sounds.event(e); })); // after the model applied it

  const title = document.title;
  return () => {
    document.title = title;
    offs.forEach((f) => f());
    clearInterval(timer);
    window.removeEventListener('scroll', onView);
    window.removeEventListener('resize', onView);
    history.destroy();
    tools.destroy();
    if (app.conn.ready && !(model.st && model.st.archived)) app.conn.request('part', { room: id }, false);
  };
}

// The title line: the game, its time control, rated or casual, a link to
// its rules.
function headingOf(st) {
  const name = gameName(st.game);
  return [st.corr ? `${name} ` : `${name} \u00b7 ${timeControl(st.base_ms, st.inc_ms)} `,
    h('span', { class: `tag ${st.rated ? 'rated-game' : 'casual-game'}`, id: 'room-rated', title: st.rated ? t('lobby.ratedgame') : t('room.casualtitle') },
      st.rated ? t('room.rated') : t('room.casual')), ' ',
    h('a', { href: `#/howto/${st.game}`, class: 'rules-link', target: '_blank' }, t('room.rules')),
    // A tournament's game names and links its tournament.
    st.tournament ? h('span', { class: 'tc-line' }, h('a', { href: `#/tournament/${st.tournament.id}`, id: 'room-tourney' },
      t('room.tourney', { name: st.tournament.name }))) : '',
    st.corr ? h('span', { class: 'tc-line', id: 'room-tc' }, t('room.corrhead', { tc: corrControl(st.corr) })) : '',
    // The persons watching without a seat (the room's `spectators`).
    h('span', { class: 'tc-line muted', id: 'room-spectators', hidden: !st.spectators }, t('room.spectators', { n: st.spectators || 0 }))];
}

// The count of spectators, from the room or its `spectators` message.
function showSpectators(n) {
  const el = document.getElementById('room-spectators');
  if (!el) return;
  el.hidden = !n;
  el.dataset.n = String(n || 0);
  el.textContent = t('room.spectators', { n: n || 0 });
}

// The room on the connection: join (again after each welcome, with `since`
// once we have a state), apply events and catchups, show refused requests.
// A room the server no longer has is read from the store (room.archived).
// Returns the unsubscribe functions.
function wire(ctx, room) {
  const { app, conn, id, model } = ctx;
  const hooks = {
    gap: (seq) => join(seq),
    announce: (text) => app.announce(text),
    moved: room.moved,
  };
  let joining = false; // one join at a time: a reply brings us up to date
  function join(since) {
    if (joining || (model.st && model.st.archived)) return; // a stored game has no room to join
    joining = true;
    const f = { room: id };
    if (since !== undefined) f.since = since;
    conn.request('join', f).then(onReply)
      .catch((e) => {
        // No room (any more: a game that ended while we were away): its record.
        if (e.code === 'unknown_room') room.archived();
        else if (e.code !== 'disconnected') ctx.say(errText(e) || t('room.nosuch'));
      })
      .finally(() => { joining = false; });
  }
  function onReply(m) {
    if (m.type === 'room') room.setRoom(m);
    else if (m.type === 'catchup') { model.catchup(m, hooks); ctx.render(); }
    room.rejoined();
  }

  const offs = [
    // Errors to our requests in this room (a refused move, a refused action).
    conn.on('error', (m) => {
      if (!ctx.sent.has(m.re)) return; // another page's request
      ctx.sent.delete(m.re);
      if (m.request && m.request.startsWith('cond_')) return; // shown by the editor
      if (m.request === 'join') return; // answered by join() (unknown_room: the stored game)
      // The room is gone (the game ended and closed): no raw "no room N";
      // the stored game is shown instead.
      if (m.code === 'unknown_room') { if (!(model.st && model.st.archived)) room.archived(); return; }
      // A move sent again after a reconnection, refused: the board as the
      // server has it, no note (the player did not just ask for it).
      if (ctx.quiet.delete(m.re)) { if (model.st) room.refused(true); return; }
      ctx.say(errText(m), true);
      if (m.request === 'move' && model.st) room.refused(); // undo the piece we moved ahead, give back the typed text
    }),
    conn.on('room', (m) => { if (m.room === id && m.re === undefined) room.setRoom(m); }),
    conn.on('spectators', (m) => { if (m.room === id) showSpectators(m.n); }),
    conn.on('event', (e) => {
      if (e.room !== id) return;
      if (e.kind === 'move' || e.kind === 'left' || e.kind === 'end') ctx.clearError(); // the game moved on
      model.apply(e, hooks);
      ctx.render();
    }),
    conn.on('welcome', () => { room.online(); room.reread(); join(model.st ? model.st.seq : undefined); }),
    // Our "your turn" list says this game's deadline moved (a vacation
    // started or ended): the room learns it only with its next event, so
    // ask for the state now (a join with since = our seq).
    app.onYourTurn((list) => {
      const st = model.st;
      const mine = st && st.corr && st.status !== 'over' && list.find((g) => g.id === id);
      if (mine && st.deadlines && mine.deadline !== st.deadlines[st.to_move]) join(st.seq);
    }),
  ];
  if (conn.ready) join();
  return offs;
}
