/*
 * uci.h - the UCI dialect of the engine program (build/chameleon-engine),
 * as Fairy-Stockfish speaks it for variants: the game is the UCI_Variant
 * option, positions are the rules core's position strings, moves are the
 * input text of ../shared/rules/notation.md.
 *
 * Pure: no I/O and no threads. The caller hands in one line at a time
 * (uci_line) and gets every answer through its output callback, one line
 * per call without the newline. A `go` only prepares the search; the caller
 * runs it with uci_think (in the thread of its choice) and then prints the
 * answer with uci_finish. While a search runs, uci_line answers `isready`,
 * `stop`, `quit`, `uci` and `d` at once; a command that would change what
 * the search reads (position, setoption, ucinewgame, go) is not run: it
 * returns UCI_WAIT (the caller waits for bestmove and hands the line in
 * again, as Stockfish waits for its search), or during `go infinite` before
 * its `stop`, which would never come, it is refused with an error. So the
 * searching thread and the reading thread never write the same state.
 *
 * Commands: uci, isready, setoption name N [value V], ucinewgame,
 * position startpos|fen <position string> [moves m1 m2 ...],
 * go [movetime N] [depth N] [nodes N] [wtime|btime|p1time|p2time|p3time N]
 * [winc|binc|p1inc|p2inc|p3inc N] [movestogo N] [infinite] (wtime and btime
 * are the first and second player in turn order; the mover's clock is
 * used, or the smallest given if its own is missing), stop, quit, debug and
 * ponderhit (accepted, ignored), d (the current position as `info string`).
 * A malformed command prints `info string error: <sentence>` and changes
 * nothing.
 *
 * Owns: the UCI engine state (game, options, the prepared search), command
 * parsing, info/bestmove formatting. May call: common/rules.h,
 * common/search.h, libc.
 */
#ifndef UCI_H
#define UCI_H

#include <stdbool.h>
#include <stddef.h>

/* What the caller must do after a line. */
typedef enum {
    UCI_NONE = 0, /* nothing more */
    UCI_GO,       /* a search is prepared: run uci_think, then uci_finish */
    UCI_STOP,     /* the search was asked to stop (wake a held `infinite`) */
    UCI_QUIT,     /* stop the search if any, let it finish, then exit */
    UCI_WAIT,     /* not run: wait for uci_finish, then give the line again */
} uci_action;

typedef struct uci uci;

/* Receives one line of output (no newline). May be called from the
 * thread running uci_think as well as the one calling uci_line. */
typedef void (*uci_out_fn)(void *arg, const char *line);

/* A new engine on the first game (ultima) at its set-up, with a search
 * table of hash_mb megabytes. NULL if out of memory. */
uci *uci_new(uci_out_fn out, void *arg, int hash_mb);
void uci_free(uci *u);

/* Handle one line of input (trailing newline and spaces allowed). */
uci_action uci_line(uci *u, const char *line);

/* Run the search prepared by the last `go`, printing `info` after each
 * depth. Returns true when the answer must wait for `stop` (go infinite,
 * or go ponder, that ended on its own): the caller holds uci_finish until
 * uci_line returns UCI_STOP or UCI_QUIT. */
bool uci_think(uci *u);

/* Print `bestmove` for the search uci_think ran, and accept commands
 * again. */
void uci_finish(uci *u);

/* Is a search prepared or running (between UCI_GO and uci_finish)? */
bool uci_busy(const uci *u);

#endif
