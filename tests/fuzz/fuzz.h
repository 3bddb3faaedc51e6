/*
 * fuzz.h - what the libFuzzer targets of tests/fuzz/ share: the entry point's
 * prototype, a checked abort that names the broken property, a game picked
 * from a byte, and the input as a C string.
 *
 * Also the properties every position must keep (fuzz_check_position), which
 * the position, move text, PGN and playout targets all apply.
 *
 * Owns: nothing but these helpers. May call: libc, common/rules.h.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property is a crash for libFuzzer: it keeps the input. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static inline int fuzz_nvariants(void)
{
    int n = 0;
    while (rules_variants[n] != NULL)
        n++;
    return n;
}

/* The game a byte names (every game in turn). */
static inline const rules_variant *fuzz_variant(uint8_t b)
{
    return rules_variants[b % fuzz_nvariants()];
}

/* data[0..size) as a malloc'd NUL-terminated string (an inner NUL ends it
 * early, as it would for any C caller). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The position string of p; it always fits. */
static inline void fuzz_print(const rules_pos *p, char *buf)
{
    int n = p->variant->print_position(p, buf, RULES_POS_TEXT);
    FUZZ_CHECK(n >= 0 && n < RULES_POS_TEXT && (size_t)n == strlen(buf));
}

/* Same position by everything the rules show: text, hash, player. */
static inline void fuzz_check_same(const rules_pos *a, const rules_pos *b)
{
    char ta[RULES_POS_TEXT], tb[RULES_POS_TEXT];
    fuzz_print(a, ta);
    fuzz_print(b, tb);
    FUZZ_CHECK(strcmp(ta, tb) == 0);
    FUZZ_CHECK(a->hash == b->hash);
    FUZZ_CHECK(a->to_move == b->to_move);
}

/* text -> position -> text gives the text back, with the same hash (so an
 * incrementally kept hash equals the one computed from scratch) and the
 * same legal moves in the same order. */
static inline void fuzz_check_round_trip(const rules_pos *p, const rules_move *legal, int nlegal)
{
    const rules_variant *v = p->variant;
    char text[RULES_POS_TEXT], why[RULES_WHY_TEXT];
    fuzz_print(p, text);
    rules_pos back;
    rules_pos_init(&back, v);
    int err = v->parse_position(&back, text, why, sizeof why);
    if (err != 0)
        fprintf(stderr, "%s: printed position refused: %s: %s\n", v->id, text, why);
    FUZZ_CHECK(err == 0);
    fuzz_check_same(p, &back);
    rules_move again[RULES_MAX_MOVES];
    FUZZ_CHECK(v->legal_moves(&back, again) == nlegal);
    FUZZ_CHECK(memcmp(again, legal, (size_t)nlegal * sizeof *legal) == 0);
}

/*
 * Every property of one position, p unchanged on return: the round trip;
 * every legal move made and unmade restores the position exactly (text,
 * hash, player), the position after it round-trips too, and the move's
 * text parses back to the same move; the display hooks, the status and the
 * search's hooks answer without fault. Returns the number of legal moves
 * and leaves them in legal. Not deep (random play, where the next position
 * is checked in its turn): the moves' texts and the positions after them
 * are left out, and make/unmake is compared by hash and player only.
 */
static inline int fuzz_check_position(rules_pos *p, rules_move *legal, bool deep)
{
    const rules_variant *v = p->variant;
    FUZZ_CHECK(p->to_move < v->nplayers);
    int n = v->legal_moves(p, legal);
    FUZZ_CHECK(n >= 0 && n <= RULES_MAX_MOVES);
    fuzz_check_round_trip(p, legal, n);
    rules_result r;
    memset(&r, 0, sizeof r);
    v->status(p, n, &r);
    FUZZ_CHECK(!r.over || (r.winner >= -1 && r.winner < v->nplayers));
    for (int c = 0; c < v->ncells; c++) {
        int owner = -1;
        char letter = v->piece_at(p, c, &owner);
        FUZZ_CHECK(letter == 0 || (owner >= 0 && owner < v->nplayers));
        if (v->cell_flags)
            (void)v->cell_flags(p, c);
    }
    if (v->evaluate && !r.over) {
        int32_t score[RULES_MAX_PLAYERS];
        v->evaluate(p, score);
    }
    if (v->in_check)
        (void)v->in_check(p);
    const rules_pos before = *p;
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(legal[i] != 0);
        rules_undo u;
        if (!deep) {
            v->make(p, legal[i], &u);
            v->unmake(p, legal[i], &u);
            FUZZ_CHECK(p->hash == before.hash && p->to_move == before.to_move);
            continue;
        }
        char text[RULES_MOVE_TEXT], shown[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
        int len = v->print_move(p, legal[i], text, sizeof text);
        FUZZ_CHECK(len > 0 && (size_t)len == strlen(text));
        rules_move m = 0;
        int err = v->parse_move(p, text, &m, why, sizeof why);
        if (err != 0 || m != legal[i])
            fprintf(stderr, "%s: move %s does not parse back: %s\n", v->id, text,
                    err ? why : "another move");
        FUZZ_CHECK(err == 0 && m == legal[i]);
        FUZZ_CHECK(rules_display_move(p, legal[i], shown, sizeof shown) > 0);
        if (v->is_capture)
            (void)v->is_capture(p, legal[i]);
        int cells[RULES_MAX_CELLS];
        int nc = rules_move_captures(p, legal[i], cells);
        FUZZ_CHECK(nc >= 0 && nc <= RULES_MAX_CELLS);
        v->make(p, legal[i], &u);
        rules_move next[RULES_MAX_MOVES];
        int nn = v->legal_moves(p, next);
        FUZZ_CHECK(nn >= 0 && nn <= RULES_MAX_MOVES);
        fuzz_check_round_trip(p, next, nn);
        v->unmake(p, legal[i], &u);
        fuzz_check_same(p, &before);
    }
    return n;
}

#endif
