/*
 * rollerball_positions.h - Rollerball positions for the unit tests,
 * included by test_rollerball.c, test_engine_rollerball.c and
 * test_rollerball_cross.c.
 *
 * Offers: rb() (the variant), load() (a position string parsed, failing the
 * test if it is refused) and rb_board_text() (the board field of a position
 * string from a 7x7 grid, written here, not by the module's printer).
 * Everything is static inline: each test uses part of it.
 */
#ifndef ROLLERBALL_POSITIONS_H
#define ROLLERBALL_POSITIONS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rules.h"

static inline const rules_variant *rb(void)
{
    const rules_variant *v = rules_find("rollerball");
    assert_non_null(v);
    return v;
}

static inline void load(rules_pos *p, const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    rules_pos_init(p, rb());
    int err = rb()->parse_position(p, text, why, sizeof why);
    if (err != 0)
        print_error("%s: %s\n", text, why);
    assert_int_equal(err, 0);
}

/* The board field from sq[y][x] (y 0 is rank 1, x 0 file a): '.' empty,
 * anything else the letter written ('*' for the holes). Ranks from 7 down,
 * '/' between them, runs of empty cells as counts. Returns the end of what
 * it wrote (not terminated). */
static inline char *rb_board_text(char *o, const char sq[7][7])
{
    for (int y = 6; y >= 0; y--) {
        int run = 0;
        for (int x = 0; x < 7; x++) {
            if (sq[y][x] == '.') {
                run++;
                continue;
            }
            if (run)
                *o++ = (char)('0' + run);
            run = 0;
            *o++ = sq[y][x];
        }
        if (run)
            *o++ = (char)('0' + run);
        if (y)
            *o++ = '/';
    }
    return o;
}

#endif
