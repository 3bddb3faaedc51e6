// The rules core and the engine, from the server's own C (build/rules.wasm,
// common/wasm.h), for the browser and for Node. No rule lives here: every
// answer comes from the module.
//
//   const rules = await loadRules(bytes?)   // bytes: Node and tests
//   rules.games                             // [{id, name, players, colours, cells, board}]
//                                           // board: how it is drawn (common/geometry.h)
//   const g = rules.newGame('ultima', position?)
//   g.legalMoves() g.play(text) g.undo() g.leave(player, reason)
//   g.position() g.status()
//   g.premoves(player) g.captures(text) g.perft(depth) g.pieces() g.boardView()
//   g.analyse({ms, depth, multi, onInfo}) g.free()
//
// analyse() is synchronous: in the browser, call it in a Web Worker
// (engine-worker.js) so that the page never waits on a search.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// WASI's "function not supported": the module never writes to files, but
// libc's formatting code links the imports.
const ENOSYS = 52;

// A piece's flags in pieces() (common/wasm.h).
const FLAG_FROZEN = 1, FLAG_INERT = 2, FLAG_CHECK = 4;

// The core's error codes by value (common/rules.h RULES_ERRORS: -1, -2, ...),
// so that a refusal carries its code (i18n.js says it by that code).
const RULES_CODES = ['unknown_game', 'bad_position', 'bad_move_text', 'no_piece', 'not_your_piece', 'frozen',
  'unreachable', 'self_check', 'game_over', 'not_your_turn', 'bad_player', 'illegal_move', 'no_memory'];

// The page's one instance (browser): rules.wasm fetched once; its bytes are
// kept for workers (engine-worker.js), which get a copy and fetch nothing.
let pageOnce = null;
let pageLoaded = null; // the rules once pageRules() has resolved
export function pageRules() {
  if (!pageOnce) {
    pageOnce = fetch('/rules.wasm')
      .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`rules.wasm: HTTP ${r.status}`))))
      .then(async (bytes) => {
        pageLoaded = await loadRules(bytes.slice(0));
        return { bytes, rules: pageLoaded };
      });
    pageOnce.catch(() => { pageOnce = null; }); // try again next time
  }
  return pageOnce;
}

// The page's rules if they have loaded, else null (for code that cannot
// wait: it falls back on what the server sent).
export const loadedRules = () => pageLoaded;

export async function loadRules(bytes) {
  if (!bytes) {
    const res = await fetch(new URL('/rules.wasm', globalThis.location?.href));
    if (!res.ok) throw new Error(`rules.wasm: HTTP ${res.status}`);
    bytes = await res.arrayBuffer();
  }
  let ex = null;
  let onReport = null;
  const heap = () => new Uint8Array(ex.memory.buffer);
  const read = (ptr, len) => decoder.decode(heap().subarray(ptr, ptr + len));
  const imports = {
    env: {
      now_ms: () => performance.now(),
      report: (ptr, len) => { if (onReport) onReport(JSON.parse(read(ptr, len))); },
    },
    wasi_snapshot_preview1: {
      clock_time_get: (id, precision, out) => {
        const ns = BigInt(Math.round(performance.timeOrigin + performance.now())) * 1000000n;
        new DataView(ex.memory.buffer).setBigUint64(out, ns, true);
        return 0;
      },
      fd_close: () => ENOSYS,
      fd_seek: () => ENOSYS,
      fd_write: () => ENOSYS,
    },
  };
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  ex = instance.exports;
  if (ex._initialize) ex._initialize();
  const io = ex.wasm_io();

  // Strings go in at io (and at io + offset for a second one).
  function put(text, offset = 0) {
    const b = encoder.encode(String(text));
    const h = heap();
    h.set(b, io + offset);
    h[io + offset + b.length] = 0;
    return io + offset;
  }
  // A function's answer: its text, or an Error with the core's reason.
  function answer(n) {
    if (n < 0) throw Object.assign(new Error(read(io, heap().indexOf(0, io) - io)), { code: RULES_CODES[-n - 1] });
    return read(io, n);
  }

  const games = JSON.parse(answer(ex.wasm_games()));
  // How each board is drawn (geometry.js builds its records from these).
  games.forEach((g, i) => { g.board = JSON.parse(answer(ex.wasm_board(i))); });

  class Game {
    constructor(id, position) {
      const p = put(position || '', 256);
      const h = ex.wasm_new(put(id), p);
      answer(Math.min(h, 0));
      this.handle = h;
      this.id = id;
      this.info = games.find((g) => g.id === id);
    }
    legalMoves() {
      const t = answer(ex.wasm_legal(this.handle));
      return t ? t.split('\n') : [];
    }
    // The moves `player` might have when its turn comes, whatever the
    // others play first (premoves).
    premoves(player) {
      const t = answer(ex.wasm_premoves(this.handle, player));
      return t ? t.split('\n') : [];
    }
    // The cells a legal move (text) captures, by name.
    captures(text) {
      const t = answer(ex.wasm_captures(this.handle, put(text)));
      return t ? t.split('\n') : [];
    }
    // Plays a move given as text; returns its display text ("Lb1-b6xb3").
    play(text) {
      return answer(ex.wasm_play(this.handle, put(text)));
    }
    // `player` leaves (a reason's name: "resignation", "timeout", ...).
    leave(player, reason = 'resignation') {
      answer(ex.wasm_leave(this.handle, player, put(reason)));
    }
    undo() {
      answer(ex.wasm_undo(this.handle));
    }
    position() {
      return answer(ex.wasm_position(this.handle));
    }
    // {over, winner, reason, toMove, moves}
    status() {
      const s = JSON.parse(answer(ex.wasm_status(this.handle)));
      return { over: s.over, winner: s.winner, reason: s.reason, toMove: s.to_move, moves: s.moves };
    }
    perft(depth) {
      const n = ex.wasm_perft(this.handle, depth);
      if (n < 0) throw new Error('bad perft depth');
      return n;
    }
    // [{cell: name, letter, owner, flags}] for every occupied cell.
    pieces() {
      const cells = this.info.cells;
      return JSON.parse(answer(ex.wasm_pieces(this.handle)))
        .map(([c, letter, owner, flags]) => ({ cell: cells[c], letter, owner, flags }));
    }
    // The board as the client draws it: position (cell -> {kind, owner},
    // board.js's form) and the cells flagged check, frozen and inert.
    boardView() {
      const pieces = this.pieces();
      const cells = (f) => pieces.filter((p) => p.flags & f).map((p) => p.cell);
      return {
        position: new Map(pieces.map((p) => [p.cell, { kind: p.letter, owner: p.owner }])),
        check: cells(FLAG_CHECK), frozen: cells(FLAG_FROZEN), inert: cells(FLAG_INERT),
      };
    }
    // Full-strength search; onInfo gets each completed depth. Returns
    // {depth, seldepth, score, nodes, ms, best, pv} (score for the side to
    // move, pv in display text).
    analyse({ ms = 1000, depth = 0, multi = 0, onInfo = null } = {}) {
      onReport = onInfo;
      try {
        return JSON.parse(answer(ex.wasm_analyse(this.handle, ms, depth, multi)));
      } finally {
        onReport = null;
      }
    }
    free() {
      ex.wasm_free(this.handle);
      this.handle = 0;
    }
  }

  return { games, newGame: (id, position) => new Game(id, position) };
}
