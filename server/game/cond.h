/*
 * cond.h - conditional moves checked against the rules: the one checker of
 * a line ("their move, my answer, their move, my answer ...") before the
 * store keeps it (store_cond_set).
 *
 * Owns: what a valid line is and its canonical text. May call:
 * common/rules.h only (it plays the line on a copy of the game).
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
 * core's own move texts (what store_cond_reply compares moves with),
 * separated by single spaces, into canon. Errors: the rules error of the
 * first move refused, with a why naming the move ("move 2 of line '...'
 * (zz): ..."); COND_ESHORT if the line has fewer than two moves;
 * COND_ETOO_LONG if canon is too small; RULES_ENOMEM.
 */
int cond_check_line(const rules_game *g, int player, const char *line, char *canon, size_t canonlen,
                    char *why, size_t whylen);

#endif
