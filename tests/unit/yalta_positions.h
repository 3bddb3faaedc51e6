/*
 * yalta_positions.h - Yalta chess positions for the unit tests, included by
 * test_yalta.c and test_engine_yalta.c.
 *
 * Offers: rank_files() (the files of a rank, in position-string order),
 * build() (a position string from placements "wKe1 rRa8 ..." and the other
 * five fields), pos_text() (a position string parsed, failing the test if
 * it is refused) and pos_of() (the two together). The position string is
 * written here, independently of the module's printer. Everything is
 * static inline: each test uses part of it.
 */
#ifndef YALTA_POSITIONS_H
#define YALTA_POSITIONS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "yalta.h"

/* Files of a rank, in the order the position string lists them. */
static inline const char *rank_files(int rank)
{
    return rank <= 4 ? "abcdefgh" : rank <= 8 ? "abcdijkl" : "efghijkl";
}

/* A position string from placements "wKe1 rRa8 ..." (owner, kind, cell) and
 * the other five fields ("w - - - 0"). */
static inline void build(char *out, const char *pieces, const char *rest)
{
    char grid[12][8][3];
    memset(grid, 0, sizeof grid);
    const char *s = pieces;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        char owner = s[0], kind = s[1], file = s[2];
        int rank = atoi(s + 3);
        const char *files = rank_files(rank);
        const char *f = strchr(files, file);
        assert_non_null(f);
        grid[rank - 1][f - files][0] = owner;
        grid[rank - 1][f - files][1] = kind;
        s += 3;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    char *o = out;
    for (int r = 0; r < 12; r++) {
        int run = 0;
        for (int i = 0; i < 8; i++) {
            if (!grid[r][i][0]) {
                run++;
                continue;
            }
            if (run)
                *o++ = (char)('0' + run), run = 0;
            *o++ = grid[r][i][0];
            *o++ = grid[r][i][1];
        }
        if (run)
            *o++ = (char)('0' + run);
        *o++ = r < 11 ? '/' : ' ';
    }
    strcpy(o, rest);
}

/* A Yalta position from its string, which must parse. */
static inline rules_pos pos_text(const char *text)
{
    char why[RULES_WHY_TEXT] = "";
    rules_pos p;
    rules_pos_init(&p, &yalta_variant);
    int err = yalta_variant.parse_position(&p, text, why, sizeof why);
    if (err != 0)
        print_error("%s: %s\n", text, why);
    assert_int_equal(err, 0);
    return p;
}

/* A Yalta position from placements and the other five fields. */
static inline rules_pos pos_of(const char *pieces, const char *rest)
{
    char text[RULES_POS_TEXT];
    build(text, pieces, rest);
    return pos_text(text);
}

#endif
