/*
 * geometry.h - how every game's board is drawn: the shape of each cell, the
 * coordinates written round the edge, the decorations, where each army
 * starts. Computed from the rules files' descriptions of the boards
 * (../shared/rules/<game>.md), never typed in cell by cell, so that the
 * browser draws the boards from the core (build/rules.wasm, wasm_board)
 * rather than from a second copy in JavaScript.
 *
 * Coordinates are screen coordinates (y grows downwards) in cell units:
 *   - Ultima: the 8x8 square a1..h8, a1 at the bottom left (x 0..8, y 0..8);
 *   - Rollerball: 7x7 without c3-e5, the hole drawn over its nine cells;
 *   - Yalta: a regular hexagon of circumradius 8 about (0, 0) cut into six
 *     kites of 4x4 quadrilaterals, White's section at the bottom;
 *   - Ant Chess: 127 flat-topped hexagons of circumradius 1, g7 at (0, 0).
 * The cells come in the variant's own order (rules_variant.cell_names).
 *
 * Owns: the board geometry of every game (cell polygons, shades, rings,
 * hex coordinates, labels, decorations, homes, centre). May call: rules.h
 * (cell names), libc (math). No I/O, no allocation.
 */
#ifndef GEOMETRY_H
#define GEOMETRY_H

#include "rules.h"

#include <stdbool.h>

enum {
    GEOMETRY_MAX_POINTS = 6,        /* corners of a cell (hexagons) */
    GEOMETRY_MAX_LABELS = 64,       /* Yalta: 8 per kite */
    GEOMETRY_MAX_DECOR = 4,         /* Rollerball: two rings and the hole */
    GEOMETRY_MAX_DECOR_POINTS = 24, /* Rollerball's outer ring */
    GEOMETRY_LABEL_TEXT = 16,
    GEOMETRY_NAME_TEXT = 16,
};

/* Rollerball's two rings (rollerball.md); the other games have none. */
typedef enum {
    GEOMETRY_RING_NONE = 0,
    GEOMETRY_RING_OUTER,
    GEOMETRY_RING_INNER,
} geometry_ring;

typedef struct geometry_cell {
    int npoints;
    double poly[GEOMETRY_MAX_POINTS][2]; /* corners in drawing order */
    /* The cell's colour: 1 dark, 0 light; Ant Chess has three (0..2). */
    int shade;
    geometry_ring ring;
    bool hex;    /* Ant Chess: q and r are the axial coordinates */
    int q, r;    /* (antchess.md: q west to east, r up the file) */
    bool centre; /* the centre cell, marked on the board (Ant Chess g7) */
} geometry_cell;

/* A coordinate written beside the board. keep 'x' or 'y': that coordinate
 * stays where it is when the view turns (labels of square boards stay on
 * the left and under the board); 0: the label turns with the board. */
typedef struct geometry_label {
    double x, y;
    char text[GEOMETRY_LABEL_TEXT];
    char keep;
} geometry_label;

typedef enum {
    GEOMETRY_DECOR_RING,        /* a closed loop through cell centres, pts in
                                   the clockwise order of play */
    GEOMETRY_DECOR_HOLE,        /* a polygon drawn over the cells, pts */
    GEOMETRY_DECOR_CENTRE,      /* a point marked on the board, pts[0] */
    GEOMETRY_DECOR_CENTRE_CELL, /* a cell marked as the centre, cell */
} geometry_decor_kind;

typedef struct geometry_decor {
    geometry_decor_kind kind;
    int npoints;
    double pts[GEOMETRY_MAX_DECOR_POINTS][2];
    int cell;
} geometry_decor;

typedef struct geometry_board {
    const rules_variant *variant;
    /* Per player: the colour (the variant's player name, "white") and its
     * name for display ("White"). */
    const char *colour[RULES_MAX_PLAYERS];
    char name[RULES_MAX_PLAYERS][GEOMETRY_NAME_TEXT];
    int ncells; /* variant->ncells */
    geometry_cell cells[RULES_MAX_CELLS];
    int nlabels;
    geometry_label labels[GEOMETRY_MAX_LABELS];
    int ndecor;
    geometry_decor decor[GEOMETRY_MAX_DECOR];
    /* Where each player's army starts: a view turns that point to the
     * bottom of the screen, about the centre. */
    double homes[RULES_MAX_PLAYERS][2];
    double centre[2];
} geometry_board;

/*
 * Compute the board of variant v into *out (caller storage; about 16 KB).
 * Returns 0, or RULES_EUNKNOWN_GAME if the core has no geometry for that
 * game (or its cells do not carry the names the geometry gives them).
 */
int geometry_build(const rules_variant *v, geometry_board *out);

#endif
