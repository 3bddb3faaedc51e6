/*
 * test_geometry.c - the boards' geometry (common/geometry.c) against the
 * facts of the rules files: every registered game has a board whose cells
 * are the variant's, the cells' areas add up to the board's, side
 * neighbours differ in shade; the shades, rings, hex coordinates and
 * decorations the rules files describe; and wasm_board writes every board
 * into the io buffer. (tests/wasm/geometry.test.mjs compares the numbers
 * with the geometry the client drew before it came from the core.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "geometry.h"
#include "rules.h"
#include "wasm.h"

static geometry_board board;

static const geometry_board *build(const char *id)
{
    const rules_variant *v = rules_find(id);
    assert_non_null(v);
    assert_int_equal(geometry_build(v, &board), 0);
    return &board;
}

static const geometry_cell *cell(const geometry_board *b, const char *name)
{
    int i = rules_cell_parse(b->variant, name);
    assert_true(i >= 0);
    return &b->cells[i];
}

/* Signed area (shoelace). */
static double area(const geometry_cell *c)
{
    double a = 0;
    for (int i = 0; i < c->npoints; i++) {
        const double *p = c->poly[i], *q = c->poly[(i + 1) % c->npoints];
        a += p[0] * q[1] - q[0] * p[1];
    }
    return a / 2;
}

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

/* Do two cells share a side (both ends of an edge, within 1e-6)? */
static bool corner_eq(const double *a, const double *b)
{
    return fabs(a[0] - b[0]) < 1e-6 && fabs(a[1] - b[1]) < 1e-6;
}

static bool sides_touch(const geometry_cell *a, const geometry_cell *b)
{
    for (int i = 0; i < a->npoints; i++)
        for (int j = 0; j < b->npoints; j++) {
            const double *a0 = a->poly[i], *a1 = a->poly[(i + 1) % a->npoints];
            const double *b0 = b->poly[j], *b1 = b->poly[(j + 1) % b->npoints];
            if ((corner_eq(a0, b0) && corner_eq(a1, b1)) ||
                (corner_eq(a0, b1) && corner_eq(a1, b0)))
                return true;
        }
    return false;
}

/* Every game has a board; its cells' areas add up to the board's (Yalta's
 * mirrored kites turn their corners the other way: only the size counts);
 * side neighbours never share a shade; the players are the variant's. */
static void test_every_game(void **state)
{
    (void)state;
    const double R = 8, hexagon = 3 * sqrt(3) / 2 * R * R;
    const struct {
        const char *id;
        double area;
    } want[] = {{"ultima", 64},
                {"ultima1968", 64},
                {"rollerball", 40},
                {"yalta", hexagon},
                {"ant2", 127 * 3 * sqrt(3) / 2},
                {"ant3", 127 * 3 * sqrt(3) / 2}};
    int n = 0;
    for (const rules_variant *const *v = rules_variants; *v; v++, n++) {
        assert_int_equal(geometry_build(*v, &board), 0);
        assert_ptr_equal(board.variant, *v);
        assert_int_equal(board.ncells, (*v)->ncells);
        double total = 0;
        for (int c = 0; c < board.ncells; c++) {
            const geometry_cell *a = &board.cells[c];
            assert_true(a->npoints == 4 || a->npoints == 6);
            double s = area(a);
            assert_true(fabs(s) > 0.1);
            total += fabs(s);
            for (int d = c + 1; d < board.ncells; d++)
                if (sides_touch(a, &board.cells[d]))
                    assert_int_not_equal(a->shade, board.cells[d].shade);
        }
        bool found = false;
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            if (strcmp(want[i].id, (*v)->id) == 0) {
                assert_true(fabs(total - want[i].area) < 1e-6);
                found = true;
            }
        assert_true(found);
        for (int p = 0; p < (*v)->nplayers; p++) {
            assert_string_equal(board.colour[p], (*v)->player_names[p]);
            assert_int_equal(strlen(board.name[p]), strlen(board.colour[p]));
            assert_true(board.name[p][0] >= 'A' && board.name[p][0] <= 'Z');
        }
    }
    assert_int_equal(n, 6);
    assert_int_equal(geometry_build(NULL, &board), RULES_EUNKNOWN_GAME);
}

/* Ultima: a1 dark at White's bottom left; coordinates under and left of
 * the board; the homes at the middle of each back rank. */
static void test_ultima(void **state)
{
    (void)state;
    const geometry_board *b = build("ultima");
    const geometry_cell *a1 = cell(b, "a1");
    assert_true(near(a1->poly[0][0], 0) && near(a1->poly[0][1], 7));
    assert_true(near(a1->poly[2][0], 1) && near(a1->poly[2][1], 8));
    assert_int_equal(a1->shade, 1);
    assert_int_equal(cell(b, "h1")->shade, 0);
    assert_int_equal(cell(b, "h8")->shade, 1);
    assert_true(near(cell(b, "h8")->poly[0][0], 7) && near(cell(b, "h8")->poly[0][1], 0));
    assert_int_equal(b->nlabels, 16);
    assert_string_equal(b->labels[0].text, "a");
    assert_int_equal(b->labels[0].keep, 'y');
    assert_string_equal(b->labels[15].text, "8");
    assert_int_equal(b->labels[15].keep, 'x');
    assert_int_equal(b->ndecor, 0);
    assert_true(near(b->homes[0][1], 8) && near(b->homes[1][1], 0));
    assert_true(near(b->centre[0], 4) && near(b->centre[1], 4));
    assert_string_equal(b->name[0], "White");
}

/* rollerball.md: 24 cells on the outer ring, 16 on the inner; the rings
 * drawn through the cells' centres; the hole over c3-e5. */
static void test_rollerball(void **state)
{
    (void)state;
    const geometry_board *b = build("rollerball");
    int outer = 0, inner = 0;
    for (int c = 0; c < b->ncells; c++) {
        outer += b->cells[c].ring == GEOMETRY_RING_OUTER;
        inner += b->cells[c].ring == GEOMETRY_RING_INNER;
    }
    assert_int_equal(outer, 24);
    assert_int_equal(inner, 16);
    assert_int_equal(cell(b, "b2")->ring, GEOMETRY_RING_INNER);
    assert_int_equal(cell(b, "a4")->ring, GEOMETRY_RING_OUTER);
    assert_int_equal(b->ndecor, 3);
    assert_int_equal(b->decor[0].kind, GEOMETRY_DECOR_RING);
    assert_int_equal(b->decor[0].npoints, 24);
    assert_int_equal(b->decor[1].npoints, 16);
    /* The outer loop starts at the bottom right (g1) going west. */
    assert_true(near(b->decor[0].pts[0][0], 6.5) && near(b->decor[0].pts[0][1], 6.5));
    assert_true(near(b->decor[0].pts[1][0], 5.5));
    assert_int_equal(b->decor[2].kind, GEOMETRY_DECOR_HOLE);
    assert_int_equal(b->decor[2].npoints, 4);
    assert_true(near(b->decor[2].pts[0][0], 2) && near(b->decor[2].pts[2][1], 5));
    assert_int_equal(b->nlabels, 14);
}

/* yalta.md: "The six cells d4, e4, e9, i9, i5, d5 ... meet at the centre
 * point"; a1 dark, the right-hand corners h1, a8, l12 light. */
static void test_yalta(void **state)
{
    (void)state;
    const geometry_board *b = build("yalta");
    int at_centre = 0;
    for (int c = 0; c < b->ncells; c++)
        for (int k = 0; k < b->cells[c].npoints; k++)
            if (hypot(b->cells[c].poly[k][0], b->cells[c].poly[k][1]) < 1e-9) {
                const char *name = b->variant->cell_names[c];
                assert_true(strcmp(name, "d4") == 0 || strcmp(name, "e4") == 0 ||
                            strcmp(name, "e9") == 0 || strcmp(name, "i9") == 0 ||
                            strcmp(name, "i5") == 0 || strcmp(name, "d5") == 0);
                at_centre++;
            }
    assert_int_equal(at_centre, 6);
    assert_int_equal(cell(b, "a1")->shade, 1);
    assert_int_equal(cell(b, "h1")->shade, 0);
    assert_int_equal(cell(b, "a8")->shade, 0);
    assert_int_equal(cell(b, "l12")->shade, 0);
    assert_true(sides_touch(cell(b, "e4"), cell(b, "e9")));
    assert_true(sides_touch(cell(b, "a4"), cell(b, "a5")));
    assert_false(sides_touch(cell(b, "d4"), cell(b, "i5")));
    assert_int_equal(b->nlabels, 48);
    assert_int_equal(b->ndecor, 1);
    assert_int_equal(b->decor[0].kind, GEOMETRY_DECOR_CENTRE);
    /* White at the bottom, Red on White's left, Black on its right. */
    assert_true(near(b->homes[0][0], 0) && near(b->homes[0][1], 8));
    assert_true(b->homes[1][0] < 0 && b->homes[1][1] < 0);
    assert_true(b->homes[2][0] > 0 && b->homes[2][1] < 0);
    assert_string_equal(b->name[1], "Red");
}

/* antchess.md: 127 hexagons, files a-n without j, g7 at the centre, three
 * shades; Black at the bottom. */
static void test_ant(void **state)
{
    (void)state;
    const geometry_board *b = build("ant3");
    const geometry_cell *g7 = cell(b, "g7");
    assert_true(g7->hex && g7->centre && g7->q == 0 && g7->r == 0);
    double cx = 0, cy = 0;
    for (int k = 0; k < 6; k++) {
        cx += g7->poly[k][0] / 6;
        cy += g7->poly[k][1] / 6;
    }
    assert_true(near(cx, 0) && near(cy, 0));
    int centres = 0;
    for (int c = 0; c < b->ncells; c++) {
        assert_true(b->cells[c].hex);
        assert_true(b->cells[c].shade >= 0 && b->cells[c].shade <= 2);
        centres += b->cells[c].centre;
    }
    assert_int_equal(centres, 1);
    const geometry_cell *a1 = cell(b, "a1"), *n7 = cell(b, "n7");
    assert_true(a1->q == -6 && a1->r == 0);
    assert_true(n7->q == 6 && n7->r == 0);
    assert_int_equal(b->nlabels, 26);
    assert_int_equal(b->decor[0].kind, GEOMETRY_DECOR_CENTRE_CELL);
    assert_int_equal(b->decor[0].cell, rules_cell_parse(b->variant, "g7"));
    assert_true(near(b->homes[0][0], 0) && b->homes[0][1] > 10);
    assert_true(b->homes[1][0] < 0 && b->homes[2][0] > 0);
    assert_string_equal(b->name[2], "Green");
    b = build("ant2");
    assert_true(near(b->homes[1][0], 0) && b->homes[1][1] < -10);
}

/* wasm_board: every board fits the io buffer; a bad index is refused. */
static void test_wasm_board(void **state)
{
    (void)state;
    int n = 0;
    for (; rules_variants[n]; n++) {
        int len = wasm_board(n);
        assert_true(len > 0 && len < WASM_IO_SIZE / 2);
        assert_int_equal((int)strlen(wasm_io()), len);
        assert_memory_equal(wasm_io(), "{\"players\":[", 12);
        assert_non_null(strstr(wasm_io(), "\"centre\":["));
    }
    assert_int_equal(wasm_board(n), RULES_EUNKNOWN_GAME);
    assert_int_equal(wasm_board(-1), RULES_EUNKNOWN_GAME);
    assert_non_null(strstr(wasm_io(), "no such game"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_game), cmocka_unit_test(test_ultima),
        cmocka_unit_test(test_rollerball), cmocka_unit_test(test_yalta),
        cmocka_unit_test(test_ant),        cmocka_unit_test(test_wasm_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
