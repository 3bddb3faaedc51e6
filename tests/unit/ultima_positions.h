/*
 * ultima_positions.h - Ultima positions for the unit tests, included by
 * test_ultima.c, test_engine_ultima.c and test_ultima_cross.c.
 *
 * Offers: board_text() (a position string from a 64-cell board and the side
 * to move), pos_text() (the same from a piece list "Ka1 kh8 Ie5": a letter,
 * upper case White, lower case Black, and a cell) and load() (a position
 * string parsed for a game id, failing the test if it is refused), and
 * xorshift64() (the random numbers of the three tests, each with its own
 * state and seed). The strings are written here, not by the module's
 * printer. Everything is static inline: each test uses part of it.
 */
#ifndef ULTIMA_POSITIONS_H
#define ULTIMA_POSITIONS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"

/* The next number of a xorshift generator (13, 7, 17) with state *s. */
static inline uint64_t xorshift64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A position string from a 64-cell board (a1 first, '.' empty) and the
 * side to move ('w'/'b'). */
static inline void board_text(const char *b, char side, char *buf)
{
    int n = 0;
    for (int y = 7; y >= 0; y--) {
        int run = 0;
        for (int x = 0; x < 8; x++) {
            char c = b[y * 8 + x];
            if (c == '.') {
                run++;
                continue;
            }
            if (run)
                buf[n++] = (char)('0' + run);
            run = 0;
            buf[n++] = c;
        }
        if (run)
            buf[n++] = (char)('0' + run);
        if (y)
            buf[n++] = '/';
    }
    buf[n++] = ' ';
    buf[n++] = side;
    buf[n] = 0;
}

/* A position string from a piece list and the side to move ('w'/'b'), in
 * one of four static buffers used in turn. */
static inline const char *pos_text(const char *pieces, char side)
{
    static char out[4][RULES_POS_TEXT];
    static int slot;
    char *buf = out[slot++ & 3];
    char b[64];
    memset(b, '.', 64);
    for (const char *s = pieces; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        int c = (s[2] - '1') * 8 + (s[1] - 'a');
        assert_true(c >= 0 && c < 64);
        b[c] = s[0];
        s += 3;
    }
    board_text(b, side, buf);
    return buf;
}

/* p set to the position `text` of game `id` ("ultima", "ultima1968"). */
static inline void load(rules_pos *p, const char *id, const char *text)
{
    const rules_variant *v = rules_find(id);
    assert_non_null(v);
    rules_pos_init(p, v);
    char why[RULES_WHY_TEXT] = "";
    int err = v->parse_position(p, text, why, sizeof why);
    if (err != 0)
        print_error("position %s refused: %s\n", text, why);
    assert_int_equal(err, 0);
}

#endif
