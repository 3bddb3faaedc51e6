/*
 * ant_positions.h - Ant Chess (ant2, ant3) positions for the unit tests,
 * included by test_antchess.c, test_engine_ant.c and test_antchess_cross.c.
 *
 * Offers: C() (a cell by name, failing the test if there is none), build()
 * (a piece list "bQg1 rAg9 ..." + player to move + players left -> position
 * string), load() (the same, parsed into a rules_pos) and ant_board() (the
 * board field of a position string from per-cell owner and kind letters,
 * which build() and the cross test's own printer both use).
 *
 * Position strings are written by cell names and the documented cell order
 * (file by file, rank 1 upwards), not by the module's printer. Everything
 * is static inline: each test uses part of it.
 */
#ifndef ANT_POSITIONS_H
#define ANT_POSITIONS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"

/*
 * The board field: the 13 files separated by '/', each file's cells in
 * order, runs of empty cells as counts. Cells come in the documented order,
 * a file's cells one after the other: file_of[c] is the file letter of cell
 * c; owner[c] and kind[c] the piece's letters, kind 0 for an empty cell.
 * Returns the end of what it wrote (not terminated).
 */
static inline char *ant_board(char *w, const char *file_of, const char *owner, const char *kind)
{
    int c = 0;
    for (int f = 0; f < 13; f++) {
        if (f)
            *w++ = '/';
        int run = 0;
        char file = file_of[c];
        for (; c < 127 && file_of[c] == file; c++) {
            if (!kind[c]) {
                run++;
                continue;
            }
            if (run)
                w += sprintf(w, "%d", run);
            run = 0;
            *w++ = owner[c];
            *w++ = kind[c];
        }
        if (run)
            w += sprintf(w, "%d", run);
    }
    return w;
}

static inline int C(const rules_variant *v, const char *name)
{
    int c = rules_cell_parse(v, name);
    if (c < 0)
        fail_msg("no cell %s", name);
    return c;
}

/* "bQg1 rAg9 ..." + player to move + left ("-", "r") -> position string. */
static inline void build(const rules_variant *v, const char *list, char tomove, const char *left,
                         char *out)
{
    char owner[127] = {0}, kind[127] = {0}, file_of[128] = {0};
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        int c = C(v, tok + 2);
        assert_int_equal(kind[c], 0);
        owner[c] = tok[0];
        kind[c] = tok[1];
    }
    for (int c = 0; c < 127; c++)
        file_of[c] = v->cell_names[c][0];
    char *w = ant_board(out, file_of, owner, kind);
    sprintf(w, " %c %s", tomove, left);
}

static inline void load(const rules_variant *v, rules_pos *p, const char *list, char tomove,
                        const char *left)
{
    char text[RULES_POS_TEXT], why[RULES_WHY_TEXT] = "";
    build(v, list, tomove, left, text);
    rules_pos_init(p, v);
    int err = v->parse_position(p, text, why, sizeof why);
    if (err != 0)
        fail_msg("cannot load %s: %s", text, why);
}

#endif
