/*
 * cond.h - conditional moves: the one checker of a line ("their move, my
 * answer, their move, my answer ...") before the store keeps it
 * (store_cond_set), and which line answers the opponent's move once it is
 * played (the store then keeps what is left: store_cond_replace).
 *
 * Owns: what a valid line is, its canonical text, and how lines answer a
 * move. May call: common/rules.h (it plays the line on a copy of the
 * game), protocol/record.h (record_line_next: how a line is read).
 */
#ifndef COND_H
#define COND_H

#include <stddef.h>

#include "rules.h"

/* Errors besides the rules core's (a move of the line refused): negative,
 * distinct from rules_err and store_err; codes spelled like the protocol's
 * (proto_err_from_code). */
#define COND_ERRORS(X)                                                                             \
    X(COND_ESHORT, -201, "bad_message", "a line holds their move and your answer at least")        \
    X(COND_ETOO_LONG, -202, "bad_message", "line too long")

typedef enum {
#define COND_ERR_ENUM(name, value, code, text) name = value,
    COND_ERRORS(COND_ERR_ENUM)
#undef COND_ERR_ENUM
} cond_err;

/* The code and default sentence of an error; rules errors pass through
 * (rules_err_code, rules_err_text). */
const char *cond_err_code(int err);
const char *cond_err_text(int err);

/*
 * Check the line `player` enters in game g: its moves alternate, starting
 * with the opponent's next move, and are played in turn on a copy of g
 * (rules_game_clone). On success returns 0 and writes the line in the rules
 * core's own move texts (what cond_match compares moves with),
 * separated by single spaces, into canon. Errors: the rules error of the
 * first move refused, with a why naming the move ("move 2 of line '...'
 * (zz): ..."); COND_ESHORT if the line has fewer than two moves;
 * COND_ETOO_LONG if canon is too small; RULES_ENOMEM.
 */
int cond_check_line(const rules_game *g, int player, const char *line, char *canon, size_t canonlen,
                    char *why, size_t whylen);

/*
 * The answer of a player's lines (the player's priority order) to the
 * opponent's move `move` (the rules core's text): the first line that
 * starts with it gives its second move, written into reply; returns 1, or
 * 0 (no line starts with it). What is left: the lines that start with
 * `move` and give that same answer, without those two moves, and with two
 * moves at least; rest[] (room for n) points into lines, *nrest says how
 * many. Every other line can no longer happen.
 */
int cond_match(const char *const *lines, int n, const char *move, char reply[RULES_MOVE_TEXT],
               const char **rest, int *nrest);

#endif
