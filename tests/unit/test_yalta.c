/*
 * test_yalta.c - Yalta chess (common/yalta.c) against the examples of
 * ../shared/rules/yalta.md and seed 002, on hand-built positions: each
 * piece, captures, castling, en passant, promotion, check, mate (by one and
 * by both opponents, rescue by the player in between), stalemate, the ply
 * limit, repetition, leaving; texts round-trip; bad input is refused with the
 * right code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules.h"
#include "yalta_positions.h"
#include "yalta.h"

static const rules_variant *V = &yalta_variant;

/* ------------------------------------------------------------------------ */
/* Helpers (positions from placements: yalta_positions.h). */

static int try_move(const rules_pos *p, const char *text)
{
    rules_move m;
    char why[RULES_WHY_TEXT] = "";
    int err = V->parse_move(p, text, &m, why, sizeof why);
    if (err < 0)
        assert_true(strlen(why) > 0);
    return err;
}

/* Play a move that must be legal. */
static void play(rules_pos *p, const char *text)
{
    rules_move m;
    rules_undo u;
    char why[RULES_WHY_TEXT] = "";
    int err = V->parse_move(p, text, &m, why, sizeof why);
    if (err)
        print_error("%s: %s\n", text, why);
    assert_int_equal(err, 0);
    V->make(p, m, &u);
}

static int cell(const char *name)
{
    int c = rules_cell_parse(V, name);
    assert_true(c >= 0);
    return c;
}

/* Sorted, space-separated destinations of the legal moves from `from`. */
static void targets(const rules_pos *p, const char *from, char *out)
{
    rules_move mv[RULES_MAX_MOVES];
    int n = V->legal_moves(p, mv);
    const char *names[RULES_MAX_MOVES];
    int k = 0;
    size_t fl = strlen(from);
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT];
        V->print_move(p, mv[i], t, sizeof t);
        if (strncmp(t, from, fl) == 0 && t[fl] == '-') {
            int to = rules_cell_parse_prefix(V, t + fl + 1, NULL);
            bool dup = false;
            for (int j = 0; j < k; j++)
                dup |= !strcmp(names[j], V->cell_names[to]);
            if (!dup)
                names[k++] = V->cell_names[to];
        }
    }
    /* insertion sort by name */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        strcat(out, names[i]);
        if (i + 1 < k)
            strcat(out, " ");
    }
}

static char piece(const rules_pos *p, const char *name, int *owner)
{
    int o = -1;
    char c = V->piece_at(p, cell(name), &o);
    if (owner)
        *owner = o;
    return c;
}

static void print_pos(const rules_pos *p, char *out)
{
    assert_true(V->print_position(p, out, RULES_POS_TEXT) > 0);
}

/* Kings out of the way for piece tests. */
#define KINGS "wKa1 rKl8 bKl12 "

/* ------------------------------------------------------------------------ */
/* The seed's examples. */

static void test_rook_e3(void **state)
{
    (void)state;
    rules_pos p = pos_of(KINGS "wRe3", "w - - - 0");
    assert_int_equal(try_move(&p, "e3-e11"), 0);
    assert_int_equal(try_move(&p, "e3-e12"), 0);
    assert_int_equal(try_move(&p, "e3-k9"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "e3-i9"), RULES_EUNREACHABLE);
    char t[512];
    targets(&p, "e3", t);
    /* e-file both ways, rank 3 both ways (e3 h3 side and across d3|e3). */
    assert_string_equal(t, "a3 b3 c3 d3 e1 e10 e11 e12 e2 e4 e9 f3 g3 h3");
    /* Blocked: a piece on e9 stops it there. */
    p = pos_of(KINGS "wRe3 rNe9", "w - - - 0");
    assert_int_equal(try_move(&p, "e3-e9"), 0);
    assert_int_equal(try_move(&p, "e3-e10"), RULES_EUNREACHABLE);
}

static void test_bishop_c3(void **state)
{
    (void)state;
    rules_pos p = pos_of(KINGS "wBc3", "w - - - 0");
    assert_int_equal(try_move(&p, "c3-g11"), 0);
    assert_int_equal(try_move(&p, "c3-l8"), RULES_EILLEGAL); /* red king: never captured */
    p = pos_of("wKa1 rKa8 bKl12 wBc3", "w - - - 0");
    assert_int_equal(try_move(&p, "c3-g11"), 0);
    assert_int_equal(try_move(&p, "c3-l8"), 0);
    assert_int_equal(try_move(&p, "c3-k7"), 0);
    assert_int_equal(try_move(&p, "c3-h12"), 0);
    assert_int_equal(try_move(&p, "c3-k11"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "c3-i9"), RULES_EUNREACHABLE);
    char t[512];
    targets(&p, "c3", t);
    /* b4 goes on through the corner on the S1-S2 edge to a5. */
    assert_string_equal(t, "a5 b2 b4 d2 d4 e1 e9 f10 g11 h12 i5 j6 k7 l8");
    /* A piece on d4 blocks both branches of the fork. */
    p = pos_of("wKa1 rKa8 bKl12 wBc3 wPd4", "w - - - 0");
    targets(&p, "c3", t);
    assert_string_equal(t, "a5 b2 b4 d2 e1");
    /* A piece on e9 blocks one branch only. */
    p = pos_of("wKa1 rKa8 bKl12 wBc3 wPe9", "w - - - 0");
    targets(&p, "c3", t);
    assert_string_equal(t, "a5 b2 b4 d2 d4 e1 i5 j6 k7 l8");
}

static void test_knight_e9(void **state)
{
    (void)state;
    rules_pos p = pos_of("wKa1 rKa8 bKl12 wNe9", "w - - - 0");
    char t[512];
    targets(&p, "e9", t);
    assert_string_equal(t, "c4 d3 d5 f11 f3 g10 g4 i11 i6 j10 j5");
}

static void test_knight_jumps_and_gives_check(void **state)
{
    (void)state;
    rules_pos p = pos_of("wKa1 rKa8 bKl12 wNe9 wPe10 wPf9 wPe4 wPi9 wPf10", "w - - - 0");
    char t[512];
    targets(&p, "e9", t);
    assert_string_equal(t, "c4 d3 d5 f11 f3 g10 g4 i11 i6 j10 j5");
    /* A red king on d5 is in check from the knight (a corner-only step). */
    p = pos_of("wKa1 rKd5 bKl12 wNe9", "r - - - 0");
    assert_true(V->cell_flags(&p, cell("d5")) & RULES_CELL_CHECK);
}

static void test_pawn_e4(void **state)
{
    (void)state;
    rules_pos p = pos_of(KINGS "wPe4 rNf9 rBd5 bRi9", "w - - - 0");
    char t[512];
    targets(&p, "e4", t);
    assert_string_equal(t, "d5 e9 f9 i9");
    /* A white pawn e2 walks e3 e4 e9 e10 e11 e12. */
    p = pos_of(KINGS "wPe2", "w - - - 0");
    targets(&p, "e2", t);
    assert_string_equal(t, "e3 e4");
    const char *walk[] = {"e2-e3", "e3-e4", "e4-e9", "e9-e10", "e10-e11", "e11-e12=Q"};
    for (int i = 0; i < 6; i++) {
        p.to_move = 0; /* only white moves here: the others' turns are skipped */
        play(&p, walk[i]);
    }
    int owner;
    assert_int_equal(piece(&p, "e12", &owner), 'Q');
    assert_int_equal(owner, 0);
    /* After taking on d5 the pawn goes on d6 d7 d8; after i9: i10 i11 i12. */
    p = pos_of(KINGS "wPd5", "w - - - 0");
    targets(&p, "d5", t);
    assert_string_equal(t, "d6");
    p = pos_of(KINGS "wPi9", "w - - - 0");
    targets(&p, "i9", t);
    assert_string_equal(t, "i10");
    /* The pawn never captures straight ahead and never moves onto a piece. */
    p = pos_of(KINGS "wPe4 rNe9", "w - - - 0");
    targets(&p, "e4", t);
    assert_string_equal(t, "");
    assert_int_equal(try_move(&p, "e4-e9"), RULES_EUNREACHABLE);
}

static void test_pawns_of_red_and_black(void **state)
{
    (void)state;
    static const struct {
        const char *pieces, *rest, *from, *expect;
    } cases[] = {
        /* Red pawn d7 walks to d5 then into S1 (d4 ... d1). */
        {KINGS "rPd7", "r - - - 0", "d7", "d5 d6"},
        /* From d5 (light) the centre corner forks to the light e4 and i9. */
        {KINGS "rPd5 wNe4 bNi9 bNe9", "r - - - 0", "d5", "d4 e4 i9"},
        {KINGS "rPd5 wNc4", "r - - - 0", "d5", "c4 d4"},
        {KINGS "rPd3", "r - - - 0", "d3", "d2"},
        /* Black pawn i11 walks i9 then into S2 at i5; h9 goes to h4. */
        {KINGS "bPi11", "b - - - 0", "i11", "i10 i9"},
        {KINGS "bPi9", "b - - - 0", "i9", "i5"},
        {KINGS "bPh9", "b - - - 0", "h9", "h4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rules_pos p = pos_of(cases[i].pieces, cases[i].rest);
        char t[512];
        targets(&p, cases[i].from, t);
        assert_string_equal(t, cases[i].expect);
    }
}

static void test_king_and_queen(void **state)
{
    (void)state;
    char t[512];
    /* A king on a centre cell has 4 side and 5 corner neighbours. */
    rules_pos p = pos_of("wKd4 rKa8 bKl12", "w - - - 0");
    targets(&p, "d4", t);
    assert_string_equal(t, "c3 c4 c5 d3 d5 e3 e4 e9 i5");
    /* A queen from a corner: file, rank and diagonal. */
    p = pos_of("wKe1 rKa8 bKl12 wQh1", "w - - - 0");
    assert_int_equal(try_move(&p, "h1-e4"), 0);
    assert_int_equal(try_move(&p, "h1-a8"), RULES_EILLEGAL); /* a king is never captured */
    assert_int_equal(try_move(&p, "h1-b7"), 0);
    assert_int_equal(try_move(&p, "h1-k11"), 0);
    assert_int_equal(try_move(&p, "h1-h12"), 0);
    assert_int_equal(try_move(&p, "h1-d1"), RULES_EUNREACHABLE); /* own king on e1 */
}

/* ------------------------------------------------------------------------ */
/* Castling. */

static void castle_ok(const char *pieces, const char *rest, const char *move, const char *rook_from,
                      const char *rook_to)
{
    rules_pos p = pos_of(pieces, rest);
    play(&p, move);
    int owner;
    assert_int_equal(piece(&p, rook_from, &owner), 0);
    assert_int_equal(piece(&p, rook_to, &owner), 'R');
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    /* The castling player's rights are gone. */
    char me[3] = {rest[0], 'K', 0};
    assert_null(strstr(strchr(text, ' ') + 3, me));
    me[1] = 'Q';
    assert_null(strstr(strchr(text, ' ') + 3, me));
}

static void test_castling_each_colour_and_side(void **state)
{
    (void)state;
    const char *all = "wKe1 wRa1 wRh1 rKd8 rRa8 rRl8 bKi12 bRh12 bRl12";
    castle_ok(all, "w wKwQrKrQbKbQ - - 0", "e1-g1", "h1", "f1");
    castle_ok(all, "w wKwQrKrQbKbQ - - 0", "e1-c1", "a1", "d1");
    castle_ok(all, "r wKwQrKrQbKbQ - - 0", "d8-b8", "a8", "c8");
    castle_ok(all, "r wKwQrKrQbKbQ - - 0", "d8-j8", "l8", "i8");
    castle_ok(all, "b wKwQrKrQbKbQ - - 0", "i12-k12", "l12", "j12");
    castle_ok(all, "b wKwQrKrQbKbQ - - 0", "i12-f12", "h12", "e12");
    /* Unmake restores everything. */
    rules_pos p = pos_of(all, "b wKwQrKrQbKbQ - - 0");
    rules_pos before = p;
    rules_move m;
    rules_undo u;
    assert_int_equal(V->parse_move(&p, "i12-f12", &m, NULL, 0), 0);
    V->make(&p, m, &u);
    V->unmake(&p, m, &u);
    assert_memory_equal(&before, &p, sizeof p);
}

static void test_castling_refused(void **state)
{
    (void)state;
    const char *all = "wKe1 wRa1 wRh1 rKd8 rRa8 rRl8 bKi12 bRh12 bRl12";
    /* One extra piece, the move refused and why, another castling that
     * stays legal (or NULL). */
    static const struct {
        const char *extra, *to_move, *move;
        int err;
        const char *still;
    } cases[] = {
        /* Blocked, each colour and side (b1, k8, g12: between king and rook
         * although the king does not pass there). */
        {"wBf1", "w", "e1-g1", RULES_EUNREACHABLE, "e1-c1"},
        {"wNb1", "w", "e1-c1", RULES_EUNREACHABLE, "e1-g1"},
        {"rNb8", "r", "d8-b8", RULES_EUNREACHABLE, "d8-j8"},
        {"rNk8", "r", "d8-j8", RULES_EUNREACHABLE, "d8-b8"},
        {"bBj12", "b", "i12-k12", RULES_EUNREACHABLE, "i12-f12"},
        {"bNg12", "b", "i12-f12", RULES_EUNREACHABLE, "i12-k12"},
        /* Through check: the crossed cell attacked, each colour and side. */
        {"rRf3", "w", "e1-g1", RULES_EILLEGAL, "e1-c1"},      /* f1 */
        {"rRd3", "w", "e1-c1", RULES_EILLEGAL, "e1-g1"},      /* d1 */
        {"wRc5", "r", "d8-b8", RULES_EILLEGAL, "d8-j8"},      /* c8 */
        {"wRi6", "r", "d8-j8", RULES_EILLEGAL, "d8-b8"},      /* i8 */
        {"rRj10", "b", "i12-k12", RULES_EILLEGAL, "i12-f12"}, /* j12 */
        {"rRe3", "b", "i12-f12", RULES_EILLEGAL, "i12-k12"},  /* e12 over e4 e9 e10 e11 */
        /* Landing on an attacked cell (black bishop a3-b2-c1). */
        {"bBa3", "w", "e1-c1", RULES_EILLEGAL, "e1-g1"},
        /* Out of check (black rook e4 on the e-file). */
        {"bRe4", "w", "e1-g1", RULES_EILLEGAL, NULL},
        {"bRe4", "w", "e1-c1", RULES_EILLEGAL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char pieces[256], rest[64];
        snprintf(pieces, sizeof pieces, "%s %s", all, cases[i].extra);
        snprintf(rest, sizeof rest, "%s wKwQrKrQbKbQ - - 0", cases[i].to_move);
        rules_pos p = pos_of(pieces, rest);
        assert_int_equal(try_move(&p, cases[i].move), cases[i].err);
        if (cases[i].still)
            assert_int_equal(try_move(&p, cases[i].still), 0);
    }
    /* No right. */
    rules_pos p = pos_of(all, "w wQrKrQbKbQ - - 0");
    assert_int_equal(try_move(&p, "e1-g1"), RULES_EUNREACHABLE);
    /* Rights go when a rook moves or is taken. */
    p = pos_of(all, "w wKwQrKrQbKbQ - - 0");
    play(&p, "h1-h12"); /* white rook takes black's h12 rook */
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    assert_non_null(strstr(text, " r wQrKrQbK - - 0"));
}

/* ------------------------------------------------------------------------ */
/* En passant. */

static void test_en_passant(void **state)
{
    (void)state;
    const char *pieces = "wKa1 rKl8 bKl12 wPe2 rPf4 bPd4 rNa8 bNh12";
    char text[RULES_POS_TEXT];
    /* By the next player (red). */
    rules_pos p = pos_of(pieces, "w - - - 0");
    play(&p, "e2-e4");
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - e3:rb - 0"));
    play(&p, "f4-e3");
    assert_int_equal(piece(&p, "e4", NULL), 0);
    int owner;
    assert_int_equal(piece(&p, "e3", &owner), 'P');
    assert_int_equal(owner, 1);
    /* By the second opponent (black), red having declined. */
    p = pos_of(pieces, "w - - - 0");
    play(&p, "e2-e4");
    play(&p, "a8-b6");
    print_pos(&p, text);
    assert_non_null(strstr(text, " b - e3:b - 1"));
    assert_int_equal(try_move(&p, "d4-e3"), 0);
    play(&p, "d4-e3");
    assert_int_equal(piece(&p, "e4", NULL), 0);
    assert_int_equal(piece(&p, "e3", &owner), 'P');
    assert_int_equal(owner, 2);
    /* Once both had their turn, it is gone. */
    p = pos_of(pieces, "w - - - 0");
    play(&p, "e2-e4");
    play(&p, "a8-b6");
    play(&p, "h12-g10");
    play(&p, "a1-b1");
    assert_int_equal(try_move(&p, "f4-e3"), RULES_EUNREACHABLE);
    rules_move m;
    rules_undo u;
    /* Red's double step can be taken by black then white. */
    p = pos_of("wKa1 rKl8 bKl12 rPc7 wPb5 bPd5", "r - - - 0");
    play(&p, "c7-c5");
    print_pos(&p, text);
    assert_non_null(strstr(text, " b - c6:wb - 0"));
    assert_int_equal(try_move(&p, "d5-c6"), 0);
    play(&p, "l12-k12");
    assert_int_equal(try_move(&p, "b5-c6"), 0);
    play(&p, "b5-c6");
    assert_int_equal(piece(&p, "c5", NULL), 0);
    /* Unmake of en passant restores the taken pawn. */
    p = pos_of(pieces, "w - - - 0");
    play(&p, "e2-e4");
    rules_pos before = p;
    assert_int_equal(V->parse_move(&p, "f4-e3", &m, NULL, 0), 0);
    V->make(&p, m, &u);
    V->unmake(&p, m, &u);
    assert_memory_equal(&before, &p, sizeof p);
    /* En passant that would uncover the king is refused. */
    p = pos_of("wKa1 rKa4 bKl12 wPe2 rPf4 wRh4", "w - - - 0");
    play(&p, "e2-e4");
    assert_int_equal(try_move(&p, "f4-e3"), RULES_ESELF_CHECK);
}

/* ------------------------------------------------------------------------ */
/* Promotion. */

static void test_promotion_each_section(void **state)
{
    (void)state;
    static const struct {
        const char *pieces, *rest, *move, *cell;
        char kind;
    } cases[] = {
        {KINGS "wPe11", "w - - - 0", "e11-e12=Q", "e12", 'Q'}, /* white in S3 */
        {KINGS "wPb7", "w - - - 0", "b7-b8=R", "b8", 'R'},     /* white in S2 */
        {KINGS "rPc2", "r - - - 0", "c2-c1=B", "c1", 'B'},     /* red in S1 */
        {KINGS "rPk11", "r - - - 0", "k11-k12=N", "k12", 'N'}, /* red in S3 */
        {KINGS "bPg2", "b - - - 0", "g2-g1=N", "g1", 'N'},     /* black in S1 */
        {KINGS "bPj7", "b - - - 0", "j7-j8=Q", "j8", 'Q'},     /* black in S2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rules_pos p = pos_of(cases[i].pieces, cases[i].rest);
        char bare[16];
        snprintf(bare, sizeof bare, "%.*s", (int)(strchr(cases[i].move, '=') - cases[i].move),
                 cases[i].move);
        assert_int_equal(try_move(&p, bare), RULES_EILLEGAL); /* the piece must be named */
        for (const char *k = "QRBN"; *k; k++) {
            char t[32];
            snprintf(t, sizeof t, "%s=%c", bare, *k);
            assert_int_equal(try_move(&p, t), 0);
        }
        play(&p, cases[i].move);
        int owner;
        assert_int_equal(piece(&p, cases[i].cell, &owner), cases[i].kind);
        assert_int_equal(owner, cases[i].rest[0] == 'w' ? 0 : cases[i].rest[0] == 'r' ? 1 : 2);
    }
    /* Promotion by capture, and no promotion letter on an ordinary move. */
    rules_pos p = pos_of(KINGS "wPf11 bRe12 wPe2", "w - - - 0");
    assert_int_equal(try_move(&p, "f11-e12=N"), 0);
    assert_int_equal(try_move(&p, "f11-f12=Q"), 0);
    assert_int_equal(try_move(&p, "e2-e3=Q"), RULES_EILLEGAL);
    assert_int_equal(try_move(&p, "e2-e3=K"), RULES_EBAD_MOVE_TEXT);
    assert_int_equal(try_move(&p, "a1-a2=Q"), RULES_EILLEGAL);
    rules_move mv[RULES_MAX_MOVES];
    int n = V->legal_moves(&p, mv), promos = 0;
    for (int i = 0; i < n; i++) {
        char t[RULES_MOVE_TEXT];
        V->print_move(&p, mv[i], t, sizeof t);
        promos += strchr(t, '=') != NULL;
    }
    assert_int_equal(promos, 8);
}

/* ------------------------------------------------------------------------ */
/* Check, mate, stalemate, the game layer. */

static rules_game *game_at(const char *pieces, const char *rest)
{
    char text[RULES_POS_TEXT], why[RULES_WHY_TEXT] = "";
    build(text, pieces, rest);
    rules_game *g = NULL;
    int err = rules_game_new(&g, "yalta", text, why, sizeof why);
    if (err)
        print_error("%s\n", why);
    assert_int_equal(err, 0);
    return g;
}

static void game_play(rules_game *g, const char *move)
{
    char why[RULES_WHY_TEXT] = "";
    int err = rules_game_play_text(g, -1, move, NULL, why, sizeof why);
    if (err)
        print_error("%s\n", why);
    assert_int_equal(err, 0);
}

static void test_check_and_pins(void **state)
{
    (void)state;
    /* A pinned piece may only move along the pin. */
    rules_pos p = pos_of("wKe1 wRe3 rRe10 rKa8 bKl12", "w - - - 0");
    assert_int_equal(try_move(&p, "e3-f3"), RULES_ESELF_CHECK);
    assert_int_equal(try_move(&p, "e3-e9"), 0);
    assert_int_equal(try_move(&p, "e3-e10"), 0);
    /* In check: only moves that end it. */
    p = pos_of("wKe1 wRa3 bRe10 rKa8 bKl12", "w - - - 0");
    assert_true(V->cell_flags(&p, cell("e1")) & RULES_CELL_CHECK);
    assert_int_equal(try_move(&p, "a3-b3"), RULES_ESELF_CHECK);
    assert_int_equal(try_move(&p, "a3-e3"), 0);
    /* A king may not step next to an enemy king. */
    p = pos_of("wKe3 rKa8 bKe10", "w - - - 0");
    assert_int_equal(try_move(&p, "e3-e4"), 0);
    p = pos_of("wKe4 rKa8 bKe10", "w - - - 0");
    assert_int_equal(try_move(&p, "e4-e9"), RULES_ESELF_CHECK);
    /* A king is never captured, even if its owner is in check. */
    p = pos_of("wKe1 wRe3 rKa8 bKe10", "w - - - 0");
    assert_int_equal(try_move(&p, "e3-e10"), RULES_EILLEGAL);
}

static void test_mate_by_one_opponent(void **state)
{
    (void)state;
    /* Red king a8: white queen b7 held by the rook b1. */
    rules_game *g = game_at("wKe1 wQb6 wRb1 rKa8 bKl12", "w - - - 0");
    game_play(g, "b6-b7");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CHECKMATE);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_WIN);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    assert_int_equal(g->result.outcome[2], RULES_OUTCOME_LOSS);
    assert_int_equal(rules_game_to_move(g), -1);
    rules_game_free(g);
}

/* Black king l12; white queen k11 held by the rook k8. */
#define BLACK_MATED "wKe1 wQk11 wRk8 rKa6 rRi7 bKl12 "

static void test_mate_by_both_opponents(void **state)
{
    (void)state;
    /* Red adds a check with the rook: red moved last, red wins. */
    rules_game *g = game_at(BLACK_MATED, "r - - - 0");
    game_play(g, "i7-l7");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_CHECKMATE);
    assert_int_equal(g->result.winner, 1);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_LOSS);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_WIN);
    assert_int_equal(g->result.outcome[2], RULES_OUTCOME_LOSS);
    rules_game_free(g);
    /* Red plays elsewhere: the mate is white's. */
    g = game_at(BLACK_MATED, "r - - - 0");
    game_play(g, "a6-a7");
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    rules_game_free(g);
}

static void test_mated_player_rescued(void **state)
{
    (void)state;
    /* Black is mated by white, but red (in between) takes the queen. */
    rules_game *g = game_at(BLACK_MATED "rBi9", "r - - - 0");
    assert_false(g->result.over);
    game_play(g, "i9-k11");
    assert_false(g->result.over);
    assert_int_equal(rules_game_to_move(g), 2);
    assert_true(g->nlegal > 0);
    rules_game_free(g);
    /* A player mated while another is to move has not lost yet. */
    g = game_at(BLACK_MATED, "w - - - 0");
    assert_false(g->result.over);
    rules_game_free(g);
}

static void test_stalemate(void **state)
{
    (void)state;
    rules_game *g = game_at("wKe1 wQk9 rKd8 bKl12", "w - - - 0");
    game_play(g, "k9-k10");
    /* Red moves, then black has no move and is not in check. */
    assert_false(g->result.over);
    game_play(g, "d8-c8");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_STALEMATE);
    assert_int_equal(g->result.winner, -1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(g->result.outcome[i], RULES_OUTCOME_DRAW);
    rules_game_free(g);
}

static void test_ply_limit(void **state)
{
    (void)state;
    rules_game *g = game_at("wKe1 wQa4 rKd8 bKi12", "w - - - 148");
    game_play(g, "e1-f1");
    assert_false(g->result.over);
    game_play(g, "d8-c8");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_PLY_LIMIT);
    for (int i = 0; i < 3; i++)
        assert_int_equal(g->result.outcome[i], RULES_OUTCOME_DRAW);
    rules_game_free(g);
    /* A pawn move or a capture resets the clock. */
    rules_pos p = pos_of("wKe1 wPa2 rKd8 rNa8 bKi12", "w - - - 140");
    play(&p, "a2-a3");
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    assert_non_null(strstr(text, " r - - - 0"));
    play(&p, "a8-b6");
    print_pos(&p, text);
    assert_non_null(strstr(text, " b - - - 1"));

    /* At the limit nobody moves on: no legal move, and the game is over. */
    rules_pos q = pos_of("wKe1 wQa4 rKd8 bKi12", "b - - - 150");
    rules_move moves[RULES_MAX_MOVES];
    assert_int_equal(q.variant->legal_moves(&q, moves), 0);
    rules_result r = {0};
    q.variant->status(&q, 0, &r);
    assert_true(r.over);
    assert_int_equal(r.reason, RULES_REASON_PLY_LIMIT);

    /* A stalemate on the 150th ply is a stalemate, not the ply limit. */
    g = game_at("wKe1 wQk9 rKd8 bKl12", "w - - - 148");
    game_play(g, "k9-k10");
    game_play(g, "d8-c8");
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_STALEMATE);
    rules_game_free(g);
}

static void test_repetition(void **state)
{
    (void)state;
    char why[RULES_WHY_TEXT];
    rules_game *g = NULL;
    assert_int_equal(rules_game_new(&g, "yalta", NULL, why, sizeof why), 0);
    const char *cycle[] = {"b1-c3", "b8-c6", "g12-f10", "c3-b1", "c6-b8", "f10-g12"};
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 6; i++) {
            assert_false(g->result.over);
            game_play(g, cycle[i]);
        }
    assert_true(g->result.over);
    assert_int_equal(g->result.reason, RULES_REASON_REPETITION);
    rules_game_free(g);
}

static void test_leaving(void **state)
{
    (void)state;
    /* White's queen checks black; white leaves: its pieces are inert. */
    rules_game *g = game_at("wKe1 wQk11 wRk8 rKd8 bKl12 bPh11", "r - - - 0");
    assert_int_equal(rules_game_leave(g, 0, RULES_REASON_RESIGNATION), 0);
    assert_false(g->result.over);
    assert_int_equal(g->result.outcome[0], RULES_OUTCOME_LOSS);
    rules_pos *p = &g->pos;
    assert_true(V->cell_flags(p, cell("k11")) & RULES_CELL_INERT);
    assert_true(V->cell_flags(p, cell("e1")) & RULES_CELL_INERT);
    assert_false(V->cell_flags(p, cell("l12")) & RULES_CELL_CHECK);
    char text[RULES_POS_TEXT];
    print_pos(p, text);
    assert_non_null(strstr(text, " r - - w 0"));
    /* Red moves, then black (white is skipped); black takes the inert
     * queen, then red may even take the inert king. */
    game_play(g, "d8-c8");
    assert_int_equal(rules_game_to_move(g), 2);
    game_play(g, "l12-k11");
    assert_int_equal(rules_game_to_move(g), 1);
    assert_int_equal(try_move(p, "e1-e2"), RULES_ENOT_YOURS);
    rules_game_free(g);
    /* Inert pieces can be captured, the inert king too; they cannot move. */
    g = game_at("wKe1 rKd8 rQa4 bKl12", "w - - - 0");
    assert_int_equal(rules_game_leave(g, 0, RULES_REASON_TIMEOUT), 0);
    assert_int_equal(rules_game_to_move(g), 1);
    game_play(g, "a4-e4");
    game_play(g, "l12-k12");
    game_play(g, "e4-e1");
    assert_int_equal(piece(&g->pos, "e1", NULL), 'Q');
    rules_game_free(g);
    /* Two play on: the first to mate the other wins. */
    g = game_at("wKe1 wQb6 wRb1 rKa8 bKl12 bPh11", "b - - - 0");
    assert_int_equal(rules_game_leave(g, 2, RULES_REASON_ABANDONMENT), 0);
    assert_int_equal(rules_game_to_move(g), 0);
    game_play(g, "b6-b7");
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    assert_int_equal(g->result.outcome[1], RULES_OUTCOME_LOSS);
    assert_int_equal(g->result.outcome[2], RULES_OUTCOME_LOSS);
    rules_game_free(g);
    /* When the second player leaves, the last one wins. */
    assert_int_equal(rules_game_new(&g, "yalta", NULL, NULL, 0), 0);
    assert_int_equal(rules_game_leave(g, 1, RULES_REASON_RESIGNATION), 0);
    game_play(g, "e2-e4");
    assert_int_equal(rules_game_to_move(g), 2);
    assert_int_equal(rules_game_leave(g, 2, RULES_REASON_RESIGNATION), 0);
    assert_true(g->result.over);
    assert_int_equal(g->result.winner, 0);
    rules_game_free(g);
}

/* ------------------------------------------------------------------------ */
/* Texts. */

static void test_setup_position(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V);
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    assert_string_equal(text, yalta_setup_text());
    /* Independently from the rules' set-up list. */
    char built[RULES_POS_TEXT];
    build(built,
          "wRa1 wNb1 wBc1 wQd1 wKe1 wBf1 wNg1 wRh1 wPa2 wPb2 wPc2 wPd2 wPe2 wPf2 wPg2 wPh2 "
          "rRl8 rNk8 rBj8 rQi8 rKd8 rBc8 rNb8 rRa8 rPa7 rPb7 rPc7 rPd7 rPi7 rPj7 rPk7 rPl7 "
          "bRh12 bNg12 bBf12 bQe12 bKi12 bBj12 bNk12 bRl12 bPe11 bPf11 bPg11 bPh11 bPi11 bPj11 "
          "bPk11 bPl11",
          "w wKwQrKrQbKbQ - - 0");
    assert_string_equal(text, built);
    assert_null(strchr(text, ';'));
    /* Queens on light cells at the king's left, kings on dark cells. */
    assert_int_equal(piece(&p, "d1", NULL), 'Q');
    assert_int_equal(piece(&p, "i8", NULL), 'Q');
    assert_int_equal(piece(&p, "e12", NULL), 'Q');
    assert_int_equal(p.to_move, 0);
    assert_string_equal(V->player_names[1], "red");
}

static void test_round_trips(void **state)
{
    (void)state;
    /* Along a pseudo-random game: every move text parses back to the move,
     * every position string parses back to the same position and hash. */
    rules_pos p;
    rules_pos_init(&p, V);
    uint32_t seed = 12345;
    for (int ply = 0; ply < 300; ply++) {
        rules_move mv[RULES_MAX_MOVES];
        int n = V->legal_moves(&p, mv);
        if (n == 0)
            break;
        for (int i = 0; i < n; i++) {
            char t[RULES_MOVE_TEXT];
            assert_true(V->print_move(&p, mv[i], t, sizeof t) > 0);
            rules_move back;
            assert_int_equal(V->parse_move(&p, t, &back, NULL, 0), 0);
            assert_int_equal(back, mv[i]);
        }
        char text[RULES_POS_TEXT], again[RULES_POS_TEXT];
        print_pos(&p, text);
        rules_pos q;
        rules_pos_init(&q, V);
        assert_int_equal(V->parse_position(&q, text, NULL, 0), 0);
        print_pos(&q, again);
        assert_string_equal(text, again);
        assert_true(q.hash == p.hash);
        assert_int_equal(q.to_move, p.to_move);
        seed = seed * 1103515245u + 12345u;
        rules_undo u;
        V->make(&p, mv[(seed >> 8) % (unsigned)n], &u);
    }
    /* A move text too long for the buffer is refused. */
    char small[4];
    rules_pos s;
    rules_pos_init(&s, V);
    rules_move m;
    assert_int_equal(V->parse_move(&s, "e2-e4", &m, NULL, 0), 0);
    assert_int_equal(V->print_move(&s, m, small, sizeof small), -1);
    char tiny[16];
    assert_int_equal(V->print_position(&s, tiny, sizeof tiny), -1);
}

static void test_bad_moves(void **state)
{
    (void)state;
    rules_pos p;
    rules_pos_init(&p, V);
    static const char *syntax[] = {
        "",       "e2",     "e2-",    "e2e4",   "e2-e4=", "e2-e4=K",  "e2-e4=q", "E2-E4", "e2-e44",
        "m1-e2",  "e2-e4 ", " e2-e4", "e13-e4", "e2--e4", "e2-e4=QQ", "e2xe4",   "pass",  "e2-m4",
        "a5-e4x", "e2-e4@", "0-0",    "O-O",    "e1-g1=", "\xff\xfe", "e2-e4\n",
    };
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        char why[RULES_WHY_TEXT] = "";
        rules_move m;
        int err = V->parse_move(&p, syntax[i], &m, why, sizeof why);
        if (err != RULES_EBAD_MOVE_TEXT)
            print_error("'%s' gave %d\n", syntax[i], err);
        assert_int_equal(err, RULES_EBAD_MOVE_TEXT);
        assert_true(strlen(why) > 0);
    }
    assert_int_equal(try_move(&p, "e3-e4"), RULES_ENO_PIECE);
    assert_int_equal(try_move(&p, "a7-a6"), RULES_ENOT_YOURS);
    assert_int_equal(try_move(&p, "e12-e10"), RULES_ENOT_YOURS);
    assert_int_equal(try_move(&p, "e2-e5"), RULES_EBAD_MOVE_TEXT); /* there is no e5 */
    assert_int_equal(try_move(&p, "e2-f3"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "e2-e9"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "a1-a3"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "e1-g1"), RULES_EUNREACHABLE);
    assert_int_equal(try_move(&p, "g1-f3"), 0);
    assert_int_equal(try_move(&p, "g1-e2"), RULES_EUNREACHABLE);
    char why[RULES_WHY_TEXT];
    rules_move m;
    V->parse_move(&p, "e2-f3", &m, why, sizeof why);
    assert_non_null(strstr(why, "e2-f3"));
    assert_non_null(strstr(why, "pawn"));
    /* The game layer: not your turn. */
    rules_game *g = NULL;
    assert_int_equal(rules_game_new(&g, "yalta", NULL, NULL, 0), 0);
    assert_int_equal(rules_game_play_text(g, 1, "a7-a6", NULL, why, sizeof why),
                     RULES_ENOT_YOUR_TURN);
    assert_int_equal(rules_game_play_text(g, 0, "e2-e4", NULL, why, sizeof why), 0);
    assert_int_equal(rules_game_play_text(g, 1, "a7-a5", NULL, why, sizeof why), 0);
    assert_int_equal(rules_game_play_text(g, 2, "l11-l9", NULL, why, sizeof why), 0);
    assert_int_equal(g->nmoves, 3);
    rules_game_free(g);
}

static void expect_bad(const char *text)
{
    rules_pos p;
    rules_pos_init(&p, V);
    char why[RULES_WHY_TEXT] = "";
    int err = V->parse_position(&p, text, why, sizeof why);
    if (err != RULES_EBAD_POSITION)
        print_error("accepted: '%s'\n", text);
    assert_int_equal(err, RULES_EBAD_POSITION);
    assert_true(strlen(why) > 0);
}

static void test_bad_positions(void **state)
{
    (void)state;
    const char *setup = yalta_setup_text();
    char buf[2 * RULES_POS_TEXT];
    /* Every truncation. */
    for (size_t len = 0; len < strlen(setup); len++) {
        snprintf(buf, sizeof buf, "%.*s", (int)len, setup);
        expect_bad(buf);
    }
    /* Field by field. */
    const char *board = "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/"
                        "rRrNrBrKrQrBrNrR/8/8/bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR";
    static const char *tails[] = {
        "x wKwQrKrQbKbQ - - 0",
        "ww wKwQrKrQbKbQ - - 0",
        "W wKwQrKrQbKbQ - - 0",
        "w wQwK - - 0",
        "w wKwK - - 0",
        "w xK - - 0",
        "w wX - - 0",
        "w w - - 0",
        "w -- - - 0",
        "w - - - -1",
        "w - - - 151",
        "w - - - 01",
        "w - - - 1a",
        "w - - - 99999999999999999999",
        "w - - wrb 0",
        "w - - rb 0",
        "w - - rw 0",
        "w - - w 0",
        "w - - x 0",
        "w - - - 0 0",
        "w - - -  0",
        "w  - - - 0",
        "w - - -",
        "w - e3:rb - 0",
        "w - e4:rb - 0",
        "w - z3:rb - 0",
        "w - e3 - 0",
        "r - e3:rb - 0",
        "w - - bb 0",
        "b - - b 0",
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        snprintf(buf, sizeof buf, "%s %s", board, tails[i]);
        expect_bad(buf);
    }
    static const char *boards[] = {
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR/8",
        "wRwNwBwQwKwBwNwRwP/wPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/9/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/0/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/44/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/7/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/wK7/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQ1wBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wPwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbP",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbr",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/xQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP//8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
        "wRwNwBwQwKwBwNwR;wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/8/8/"
        "bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR",
    };
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
        snprintf(buf, sizeof buf, "%s w - - - 0", boards[i]);
        expect_bad(buf);
    }
    expect_bad("");
    expect_bad(" ");
    char longer[4 * RULES_POS_TEXT];
    memset(longer, 'w', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    expect_bad(longer);
    snprintf(longer, sizeof longer, "%s%*s", setup, 600, "0");
    expect_bad(longer);

    /* Random mutations never crash; what is accepted prints back the same. */
    uint32_t seed = 99;
    int accepted = 0;
    for (int i = 0; i < 20000; i++) {
        strcpy(buf, setup);
        size_t len = strlen(buf);
        int edits = 1 + (int)(seed % 3);
        for (int e = 0; e < edits; e++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 10) % len;
            static const char alphabet[] = "wrbPNBRQK0123456789/ -:,eKQ";
            seed = seed * 1664525u + 1013904223u;
            switch ((seed >> 12) % 3) {
            case 0:
                buf[at] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
                break;
            case 1:
                memmove(buf + at, buf + at + 1, len - at);
                len--;
                break;
            default:
                if (len + 2 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at + 1);
                    buf[at] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
                    len++;
                }
            }
        }
        rules_pos p;
        rules_pos_init(&p, V);
        char why[RULES_WHY_TEXT] = "";
        if (V->parse_position(&p, buf, why, sizeof why) == 0) {
            accepted++;
            char again[RULES_POS_TEXT];
            print_pos(&p, again);
            assert_string_equal(again, buf);
            rules_move mv[RULES_MAX_MOVES];
            V->legal_moves(&p, mv);
        } else {
            assert_true(strlen(why) > 0);
        }
    }
    assert_true(accepted > 0);
}

static void test_positions_accepted(void **state)
{
    (void)state;
    /* A left player may have no king, and its pieces stay. */
    rules_pos p = pos_of("wKe1 rKd8 bQe12", "w - - b 0");
    rules_move mv[RULES_MAX_MOVES];
    assert_true(V->legal_moves(&p, mv) > 0);
    assert_true(V->cell_flags(&p, cell("e12")) & RULES_CELL_INERT);
    /* Two en passant entries at once. */
    p = pos_of("wKa1 rKl8 bKl12 wPe4 rPc5 bPd4", "b - e3:b,c6:wb - 0");
    char text[RULES_POS_TEXT];
    print_pos(&p, text);
    assert_non_null(strstr(text, " b - e3:b,c6:wb - 0"));
    assert_int_equal(try_move(&p, "d4-e3"), 0);
    play(&p, "d4-e3");
    print_pos(&p, text);
    assert_non_null(strstr(text, " w - c6:w - 0"));
    assert_int_equal(piece(&p, "e4", NULL), 0);
}

/* Found by tests/fuzz/fuzz_position (corpus/position/regress-yalta-ep-clock):
 * an en passant entry whose owner moved last was accepted with a ply clock
 * of 1; one ply later the entry still stood with the clock at 2 and the
 * printed position no longer parsed. The clock may count the plies since
 * the double step, and one more (a changed player to move). */
static void test_en_passant_clock(void **state)
{
    (void)state;
    /* Red's entry is new (black moves next): its clock may be 0, or 1 (a
     * changed player to move), not 2. White's is one ply old: up to 2. */
    expect_bad("wK2wQ4/8/8/3bPwP2wR/2rP5/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b,c6:wb - 2");
    expect_bad("wK2wQ4/8/8/3bPwP2wR/8/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b - 3");
    static const char *const accepted[] = {
        "wK2wQ4/8/8/3bPwP2wR/2rP5/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b,c6:wb - 0",
        "wK2wQ4/8/8/3bPwP2wR/2rP5/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b,c6:wb - 1",
        "wK2wQ4/8/8/3bPwP2wR/8/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b - 1",
        "wK2wQ4/8/8/3bPwP2wR/8/8/8/4rQ2rK/8/8/8/bQ6bK b - e3:b - 2",
    };
    for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; k++) {
        rules_pos p;
        rules_pos_init(&p, V);
        char why[RULES_WHY_TEXT], text[RULES_POS_TEXT];
        if (V->parse_position(&p, accepted[k], why, sizeof why) != 0)
            fail_msg("refused: '%s': %s", accepted[k], why);
        /* Every move of black leaves a position that parses back. */
        rules_move mv[RULES_MAX_MOVES];
        int n = V->legal_moves(&p, mv);
        assert_true(n > 0);
        for (int i = 0; i < n; i++) {
            rules_undo u;
            V->make(&p, mv[i], &u);
            assert_true(V->print_position(&p, text, sizeof text) > 0);
            rules_pos back;
            rules_pos_init(&back, V);
            if (V->parse_position(&back, text, why, sizeof why) != 0)
                fail_msg("refused after a move: '%s': %s", text, why);
            assert_int_equal(back.hash, p.hash);
            V->unmake(&p, mv[i], &u);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rook_e3),
        cmocka_unit_test(test_bishop_c3),
        cmocka_unit_test(test_knight_e9),
        cmocka_unit_test(test_knight_jumps_and_gives_check),
        cmocka_unit_test(test_pawn_e4),
        cmocka_unit_test(test_pawns_of_red_and_black),
        cmocka_unit_test(test_king_and_queen),
        cmocka_unit_test(test_castling_each_colour_and_side),
        cmocka_unit_test(test_castling_refused),
        cmocka_unit_test(test_en_passant),
        cmocka_unit_test(test_promotion_each_section),
        cmocka_unit_test(test_check_and_pins),
        cmocka_unit_test(test_mate_by_one_opponent),
        cmocka_unit_test(test_mate_by_both_opponents),
        cmocka_unit_test(test_mated_player_rescued),
        cmocka_unit_test(test_stalemate),
        cmocka_unit_test(test_ply_limit),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_leaving),
        cmocka_unit_test(test_setup_position),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bad_moves),
        cmocka_unit_test(test_bad_positions),
        cmocka_unit_test(test_positions_accepted),
        cmocka_unit_test(test_en_passant_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
