/*
 * wasm.h - the rules core and the search as the browser sees them
 * (build/rules.wasm, driven by web-client/js/rules.js).
 *
 * Text goes in and out through one buffer (wasm_io, WASM_IO_SIZE bytes):
 * the caller writes NUL-terminated input there, a function writes its
 * answer there and returns its length (or a negative rules_err, the reason
 * in the buffer). Games are handles (non-zero ints). Answers that carry
 * structure are JSON, written here by hand (the core has no JSON library):
 * the strings in them are ids, names, cells and move texts of the rules
 * core, which need no escaping beyond quotes and backslashes.
 *
 * The same file builds natively (into libcommon.a), where a unit test
 * drives it; only the wasm build exports its functions.
 *
 * Owns: the exported functions, game handles, the io buffer, the one search
 * context of the module. May call: rules.h, search.h, geometry.h, libc;
 * imports only the host's clock and report functions (wasm build).
 */
#ifndef WASM_H
#define WASM_H

#include <stdint.h>

enum { WASM_IO_SIZE = 1 << 16 };

/* The io buffer. */
char *wasm_io(void);

/* Every game: [{"id","name","players","colours":[..],"cells":[..]}]. */
int wasm_games(void);
/* How the board of game `index` (of wasm_games) is drawn (geometry.h):
 * {"players":[{"name","colour"}],"cells":[{"name","poly":[[x,y]..],"shade",
 * "ring"?,"q"?,"r"?,"centreCell"?}],"labels":[{"x","y","text","keep"?}],
 * "decor":[{"kind":"ring","pts"}|{"kind":"hole","poly"}|{"kind":"centre",
 * "c"}|{"kind":"centre-cell","cell"}],"homes":[[x,y]..],"centre":[x,y]},
 * cells in the game's order. */
int wasm_board(int index);

/* A new game of variant `id`, from its set-up or (position non-empty) from
 * a position string. Returns a handle (> 0) or a negative error. */
int wasm_new(const char *id, const char *position);
void wasm_free(int h);

/* The legal moves of the player to move, input text, one per line. */
int wasm_legal(int h);
/* The moves `player` might have when its turn comes, whatever the others
 * play before it (premoves): the union of its legal moves over every
 * sequence of the others' moves up to its turn, one per line. Its own
 * legal moves if it is to move. */
int wasm_premoves(int h, int player);
/* The cells a legal move given as text captures, by name, one per line. */
int wasm_captures(int h, const char *text);
/* Play a move given as text; its display text into io on success. */
int wasm_play(int h, const char *text);
/* `player` leaves the game for `reason` (a reason's name, "resignation"),
 * as rules_game_leave: three-player games play on without it. */
int wasm_leave(int h, int player, const char *reason);
/* Take back the last move (RULES_EILLEGAL if there is none). */
int wasm_undo(int h);
/* The position string. */
int wasm_position(int h);
/* {"over":b,"winner":i,"reason":"..","to_move":i,"moves":n} */
int wasm_status(int h);
/* [[cell,"L",owner,flags],...] for every occupied cell. */
int wasm_pieces(int h);
/* Leaf count at depth (a double: JavaScript's number). */
double wasm_perft(int h, int depth);
/* Search for ms milliseconds (0: none) and depth (0: none) at full
 * strength, three-player method `multi` (search_multi). The host's
 * report import gets each completed depth as JSON; the answer goes into
 * io: {"depth","seldepth","score","nodes","ms","best","pv":[..]}. */
int wasm_analyse(int h, int ms, int depth, int multi);

#endif
