/*
 * rollerball.c - Rollerball behind rules.h (see rollerball.h for the cell
 * numbering, the position string and the move text).
 *
 * Geometry is tables built once (call_once): for every cell and piece kind
 * the lines a piece walks (cells in order; the first cells of a line may be
 * "pass only": they must be empty and the piece cannot stop there), and for
 * every (kind, from, to) the masks of the cells that must be empty for the
 * piece on `from` to reach `to`. Move generation walks the lines; legality
 * and check use the masks with a 40-bit occupancy. The evaluation walks the
 * same lines, and reads distance tables built with them (pawn steps to
 * promotion, king steps to the journey's win).
 *
 * Where the rules text leaves the exact walk open, the lines follow the
 * published implementation the rules file names (Jocly's Rollerball):
 *   - a bishop's forward line holds at most 6 cells (rebound included), a
 *     rook's forward line at most 12: both limits are Jocly's and no line on
 *     this board is longer, so they change nothing;
 *   - a rebound happens only after at least one step, on the cell where the
 *     next step would leave the board or enter the hole;
 *   - the rook's run-on sideways lines (b1 north, a6 east, f7 south, g2 west)
 *     pass over the first cell, which the one-step sideways move reaches.
 */
#include "rollerball.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

enum {
    RB_CELLS = 40,
    RB_MAXLINE = 12,
    RB_MAXLINES = 8,
    RB_MAXPATHS = 2,
    RB_BISHOP_REACH = 6,
    RB_ROOK_REACH = 12,
};

/* Piece codes: kind | colour << 3; 0 is an empty cell. */
enum { RB_PAWN = 1, RB_BISHOP = 2, RB_ROOK = 3, RB_KING = 4, RB_NKINDS = 5 };
enum { RB_BLACK = 8 };
#define RB_KIND(pc) ((pc)&7)
#define RB_COLOR(pc) ((pc) >> 3)
#define RB_BIT(c) ((uint64_t)1 << (c))

/* The position inside rules_pos.data. */
typedef struct rb_state {
    uint64_t occ[2]; /* cells of each side's pieces */
    uint8_t board[RB_CELLS];
    uint8_t king[2];  /* cell of each king */
    uint8_t underway; /* bit 0 white king under way, bit 1 black */
} rb_state;
static_assert(sizeof(rb_state) <= RULES_POS_DATA, "rb_state fits rules_pos");

typedef struct rb_undo {
    uint64_t hash;
    uint8_t captured, moved, underway;
} rb_undo;
static_assert(sizeof(rb_undo) <= RULES_UNDO_DATA, "rb_undo fits rules_undo");

/* Move: from | to << 6 | promoted kind << 12. Never 0 (from != to). */
#define RB_MOVE(f, t, pr) ((rules_move)((f) | (t) << 6 | (pr) << 12))
#define RB_FROM(m) ((int)((m)&63))
#define RB_TO(m) ((int)(((m) >> 6) & 63))
#define RB_PROMO(m) ((int)(((m) >> 12) & 7))

/* clang-format off */
static const char *const rb_cell_names[RB_CELLS] = {
    "a1", "b1", "c1", "d1", "e1", "f1", "g1",
    "a2", "b2", "c2", "d2", "e2", "f2", "g2",
    "a3", "b3", "f3", "g3",
    "a4", "b4", "f4", "g4",
    "a5", "b5", "f5", "g5",
    "a6", "b6", "c6", "d6", "e6", "f6", "g6",
    "a7", "b7", "c7", "d7", "e7", "f7", "g7",
};
/* clang-format on */

static const char *const rb_player_names[] = {"white", "black"};

/* Forward direction of each cell, rank 1 first, files a-g ('.' = hole), from
 * the table of rollerball.md. */
static const char rb_forward_map[7][8] = {
    "NWWWWWW", "NNWWWWS", "NN...SS", "NN...SS", "NN...SS", "NEEEESS", "EEEEEES",
};

/* Cells named by the rules. */
enum {
    A1 = 0,
    B1 = 1,
    C1 = 2,
    D1 = 3,
    E1 = 4,
    G1 = 6,
    C2 = 9,
    D2 = 10,
    E2 = 11,
    G2 = 13,
    A6 = 26,
    C6 = 28,
    D6 = 29,
    E6 = 30,
    A7 = 33,
    C7 = 35,
    D7 = 36,
    E7 = 37,
    F7 = 38,
    G7 = 39,
};

typedef struct rb_line {
    uint8_t n;          /* cells in the line */
    uint8_t first_stop; /* index of the first cell the piece may stop on */
    uint8_t cell[RB_MAXLINE];
} rb_line;

typedef struct rb_tables {
    int8_t x[RB_CELLS], y[RB_CELLS]; /* file 0-6, rank 0-6 */
    int8_t at[7][7];                 /* cell at (x, y), -1 in the hole */
    char fwd[RB_CELLS];              /* 'N', 'E', 'S' or 'W' */
    uint8_t nlines[RB_NKINDS][RB_CELLS];
    rb_line lines[RB_NKINDS][RB_CELLS][RB_MAXLINES];
    /* Paths from `from` to `to` for a piece of a kind: the cells between
     * must be empty. */
    uint8_t npaths[RB_NKINDS][RB_CELLS][RB_CELLS];
    uint64_t path[RB_NKINDS][RB_CELLS][RB_CELLS][RB_MAXPATHS];
    uint64_t zobrist[16][RB_CELLS];
    uint64_t zobrist_black, zobrist_underway[2];
    /* The evaluation's tables (rb_build_eval_tables). */
    uint64_t king_ring[RB_CELLS];          /* a king's neighbours */
    uint8_t promo_dist[2][RB_CELLS];       /* pawn steps to promotion */
    uint8_t journey_dist[2][2][RB_CELLS];  /* [side][under way][king cell] */
    uint64_t journey_next[2][2][RB_CELLS]; /* neighbours one step nearer */
} rb_tables;

static rb_tables T;
static once_flag rb_once = ONCE_FLAG_INIT;

/* ------------------------------------------------------------------------ */
/* Geometry, built once. */

/* The absolute step of the local step (lx right, ly forward) in the frame of
 * cell c. */
static void rb_frame(int c, int lx, int ly, int *dx, int *dy)
{
    switch (T.fwd[c]) {
    case 'N':
        *dx = lx;
        *dy = ly;
        break;
    case 'E':
        *dx = ly;
        *dy = -lx;
        break;
    case 'S':
        *dx = -lx;
        *dy = -ly;
        break;
    default:
        *dx = -ly;
        *dy = lx;
        break; /* 'W' */
    }
}

/* The cell one step from c, or -1 off the board; *hole is set when the step
 * lands in the hole. */
static int rb_step(int c, int dx, int dy, bool *hole)
{
    int x = T.x[c] + dx, y = T.y[c] + dy;
    *hole = false;
    if (x < 0 || x > 6 || y < 0 || y > 6)
        return -1;
    if (T.at[y][x] < 0) {
        *hole = true;
        return -1;
    }
    return T.at[y][x];
}

static rb_line *rb_new_line(int kind, int c)
{
    assert(T.nlines[kind][c] < RB_MAXLINES);
    rb_line *l = &T.lines[kind][c][T.nlines[kind][c]++];
    memset(l, 0, sizeof *l);
    return l;
}

static void rb_push(rb_line *l, int c)
{
    assert(l->n < RB_MAXLINE);
    l->cell[l->n++] = (uint8_t)c;
}

/* A one-step move to the local step (lx, ly) if that cell exists. */
static void rb_add_step(int kind, int c, int lx, int ly)
{
    int dx, dy;
    bool hole;
    rb_frame(c, lx, ly, &dx, &dy);
    int to = rb_step(c, dx, dy, &hole);
    if (to >= 0)
        rb_push(rb_new_line(kind, c), to);
}

/* A forward slide along the local step (lx, ly) with at most one rebound.
 * Rooks rebound only on the corners and go on forward in the corner's frame;
 * bishops rebound anywhere: in a cell of the start's zone (same forward) the
 * sideways part flips, elsewhere the same local step in the rebound cell's
 * frame. */
static void rb_add_slide(int kind, int c, int lx, int ly, int reach)
{
    int dx, dy;
    bool hole, rebounded = false;
    rb_frame(c, lx, ly, &dx, &dy);
    rb_line l = {0};
    int cur = c;
    while (l.n < reach) {
        int next = rb_step(cur, dx, dy, &hole);
        if (next < 0) {
            if (rebounded || cur == c)
                break;
            bool corner = cur == A1 || cur == G1 || cur == A7 || cur == G7;
            if (kind == RB_ROOK && !corner)
                break;
            if (kind == RB_BISHOP && T.fwd[cur] == T.fwd[c])
                rb_frame(cur, -lx, ly, &dx, &dy);
            else
                rb_frame(cur, lx, ly, &dx, &dy);
            rebounded = true;
            continue;
        }
        rb_push(&l, next);
        cur = next;
    }
    if (l.n > 0)
        *rb_new_line(kind, c) = l;
}

/* The rook's sideways lines that run on as the next zone's forward line:
 * they pass over the first cell. */
static void rb_add_run_on(int c)
{
    static const struct {
        int from, dx, dy;
    } run_on[] = {
        {B1, 0, 1},
        {A6, 1, 0},
        {F7, 0, -1},
        {G2, -1, 0},
    };
    for (size_t i = 0; i < sizeof run_on / sizeof run_on[0]; i++) {
        if (run_on[i].from != c)
            continue;
        rb_line *l = rb_new_line(RB_ROOK, c);
        bool hole;
        for (int cur = rb_step(c, run_on[i].dx, run_on[i].dy, &hole); cur >= 0;
             cur = rb_step(cur, run_on[i].dx, run_on[i].dy, &hole))
            rb_push(l, cur);
        l->first_stop = 1;
    }
}

static void rb_build_eval_tables(void);

static void rb_build_tables(void)
{
    memset(&T, 0, sizeof T);
    int n = 0;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            if (rb_forward_map[y][x] == '.') {
                T.at[y][x] = -1;
                continue;
            }
            T.at[y][x] = (int8_t)n;
            T.x[n] = (int8_t)x;
            T.y[n] = (int8_t)y;
            T.fwd[n] = rb_forward_map[y][x];
            n++;
        }
    assert(n == RB_CELLS);

    for (int c = 0; c < RB_CELLS; c++) {
        /* Pawn: forward, forward-left, forward-right. */
        rb_add_step(RB_PAWN, c, 0, 1);
        rb_add_step(RB_PAWN, c, -1, 1);
        rb_add_step(RB_PAWN, c, 1, 1);
        /* Bishop: forward diagonals with a rebound, one step back. */
        rb_add_slide(RB_BISHOP, c, -1, 1, RB_BISHOP_REACH);
        rb_add_slide(RB_BISHOP, c, 1, 1, RB_BISHOP_REACH);
        rb_add_step(RB_BISHOP, c, -1, -1);
        rb_add_step(RB_BISHOP, c, 1, -1);
        /* Rook: forward with a corner rebound, one step right, left, back. */
        rb_add_slide(RB_ROOK, c, 0, 1, RB_ROOK_REACH);
        rb_add_step(RB_ROOK, c, 1, 0);
        rb_add_step(RB_ROOK, c, -1, 0);
        rb_add_step(RB_ROOK, c, 0, -1);
        rb_add_run_on(c);
        /* King: the eight neighbours. */
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                bool hole;
                int to = (dx || dy) ? rb_step(c, dx, dy, &hole) : -1;
                if (to >= 0)
                    rb_push(rb_new_line(RB_KING, c), to);
            }
    }

    /* Paths: every stop of every line, with the cells before it. */
    for (int k = 1; k < RB_NKINDS; k++)
        for (int c = 0; c < RB_CELLS; c++)
            for (int i = 0; i < T.nlines[k][c]; i++) {
                const rb_line *l = &T.lines[k][c][i];
                uint64_t before = 0;
                for (int j = 0; j < l->n; before |= RB_BIT(l->cell[j]), j++) {
                    if (j < l->first_stop)
                        continue;
                    int to = l->cell[j];
                    uint8_t *np = &T.npaths[k][c][to];
                    bool known = false;
                    for (int p = 0; p < *np; p++)
                        known |= T.path[k][c][to][p] == before;
                    if (known)
                        continue;
                    assert(*np < RB_MAXPATHS);
                    T.path[k][c][to][(*np)++] = before;
                }
            }

    uint64_t seed = 0x526f6c6c65726261u; /* fixed: hashes are reproducible */
    for (int p = 0; p < 16; p++)
        for (int c = 0; c < RB_CELLS; c++)
            T.zobrist[p][c] = rules_splitmix64(&seed);
    T.zobrist_black = rules_splitmix64(&seed);
    T.zobrist_underway[0] = rules_splitmix64(&seed);
    T.zobrist_underway[1] = rules_splitmix64(&seed);
    rb_build_eval_tables();
}

static void rb_tables_init(void)
{
    call_once(&rb_once, rb_build_tables);
}

/* ------------------------------------------------------------------------ */
/* Position helpers. */

static inline rb_state *rb_st(rules_pos *p)
{
    return (rb_state *)p->data;
}

static inline const rb_state *rb_cst(const rules_pos *p)
{
    return (const rb_state *)p->data;
}

/* Is `sq` attacked by one of the pieces in `attackers` (cells of one side)
 * when the occupied cells are `occ`? */
static inline bool rb_attacked(const rb_state *s, int sq, uint64_t attackers, uint64_t occ)
{
    while (attackers) {
        int o = __builtin_ctzll(attackers);
        attackers &= attackers - 1;
        int k = RB_KIND(s->board[o]);
        int n = T.npaths[k][o][sq];
        for (int i = 0; i < n; i++)
            if ((T.path[k][o][sq][i] & occ) == 0)
                return true;
    }
    return false;
}

static bool rb_in_check(const rb_state *s, int side)
{
    return rb_attacked(s, s->king[side], s->occ[side ^ 1], s->occ[0] | s->occ[1]);
}

/* The side whose king has completed its journey (-1 if none): on the enemy
 * king's starting cell while under way. The side that just moved first. */
static int rb_journey_winner(const rb_state *s, int to_move)
{
    static const uint8_t goal[2] = {D6, D2};
    for (int i = 0; i < 2; i++) {
        int side = to_move ^ 1 ^ i;
        if ((s->underway >> side & 1) && s->king[side] == goal[side])
            return side;
    }
    return -1;
}

/* The under-way flags after `side`'s king moves from `from` to `to`: set when
 * it crosses from the d-file to the c-file (white, ranks 1-2) or to the
 * e-file (black, ranks 6-7), cleared when it crosses back. */
static inline uint8_t rb_journey_after(uint8_t underway, int side, int from, int to)
{
    static const uint8_t home[2][2] = {{D1, D2}, {D6, D7}};
    static const uint8_t away[2][2] = {{C1, C2}, {E6, E7}};
    bool from_home = from == home[side][0] || from == home[side][1];
    bool from_away = from == away[side][0] || from == away[side][1];
    bool to_home = to == home[side][0] || to == home[side][1];
    bool to_away = to == away[side][0] || to == away[side][1];
    if (from_home && to_away)
        return (uint8_t)(underway | 1u << side);
    if (from_away && to_home)
        return (uint8_t)(underway & ~(1u << side));
    return underway;
}

/* Does a pawn of `side` promote on `c`? Dark promotion cells allow a rook
 * only. */
static inline bool rb_promotes(int side, int c)
{
    return side == 0 ? (c == E6 || c == E7) : (c == C1 || c == C2);
}

static inline bool rb_dark(int c)
{
    return ((T.x[c] + T.y[c]) & 1) == 0; /* a1 is dark */
}

/* Write the legal moves of the side to move whose from cell is in `from_set`
 * into out. */
static int rb_generate(const rb_state *s, int us, uint64_t from_set, rules_move *out)
{
    int them = us ^ 1, n = 0;
    uint64_t occ = s->occ[0] | s->occ[1];
    uint64_t own = s->occ[us] & from_set;
    uint64_t enemy = s->occ[them];
    /* A move needs testing only if it is the king's, if the king is in
     * check, or if the piece is the only thing on a path from an enemy
     * piece to the king: no other path can open. */
    uint64_t test = s->occ[us] & RB_BIT(s->king[us]);
    int ksq0 = s->king[us];
    for (uint64_t e = enemy; e; e &= e - 1) {
        int o = __builtin_ctzll(e), k = RB_KIND(s->board[o]);
        for (int i = 0; i < T.npaths[k][o][ksq0]; i++) {
            uint64_t on = T.path[k][o][ksq0][i] & occ;
            if (on == 0)
                test = ~(uint64_t)0;
            else if ((on & (on - 1)) == 0)
                test |= on & s->occ[us];
        }
    }
    while (own) {
        int from = __builtin_ctzll(own);
        own &= own - 1;
        int kind = RB_KIND(s->board[from]);
        bool must_test = (test & RB_BIT(from)) != 0;
        uint64_t seen = 0, occ_from = occ & ~RB_BIT(from);
        for (int li = 0; li < T.nlines[kind][from]; li++) {
            const rb_line *l = &T.lines[kind][from][li];
            for (int j = 0; j < l->n; j++) {
                int to = l->cell[j];
                uint64_t tb = RB_BIT(to);
                bool occupied = (occ & tb) != 0;
                if (j >= l->first_stop && !(seen & tb) && (!occupied || (enemy & tb))) {
                    seen |= tb;
                    int ksq = kind == RB_KING ? to : s->king[us];
                    if (!must_test || !rb_attacked(s, ksq, enemy & ~tb, occ_from | tb)) {
                        if (kind == RB_PAWN && rb_promotes(us, to)) {
                            out[n++] = RB_MOVE(from, to, RB_ROOK);
                            if (!rb_dark(to))
                                out[n++] = RB_MOVE(from, to, RB_BISHOP);
                        } else {
                            out[n++] = RB_MOVE(from, to, 0);
                        }
                    }
                }
                if (occupied)
                    break;
            }
        }
    }
    return n;
}

/* Is `to` a destination of the piece on `from`, legality aside? */
static bool rb_reaches(const rb_state *s, int from, int to)
{
    int kind = RB_KIND(s->board[from]);
    uint64_t occ = s->occ[0] | s->occ[1];
    int side = RB_COLOR(s->board[from]);
    if (s->occ[side] & RB_BIT(to))
        return false;
    for (int i = 0; i < T.npaths[kind][from][to]; i++)
        if ((T.path[kind][from][to][i] & occ) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* The hooks. */

static void rb_place(rules_pos *p, int c, int pc)
{
    rb_state *s = rb_st(p);
    s->board[c] = (uint8_t)pc;
    s->occ[RB_COLOR(pc)] |= RB_BIT(c);
    p->hash ^= T.zobrist[pc][c];
    if (RB_KIND(pc) == RB_KING)
        s->king[RB_COLOR(pc)] = (uint8_t)c;
}

static void rb_clear(rules_pos *p)
{
    memset(p->data, 0, sizeof(rb_state));
    p->hash = 0;
    p->to_move = 0;
}

static void rb_init(rules_pos *p)
{
    rb_tables_init();
    rb_clear(p);
    static const struct {
        uint8_t cell, pc;
    } setup[] = {
        {C1, RB_PAWN},
        {C2, RB_PAWN},
        {D1, RB_BISHOP},
        {D2, RB_KING},
        {E1, RB_ROOK},
        {E2, RB_ROOK},
        {E7, RB_PAWN | RB_BLACK},
        {E6, RB_PAWN | RB_BLACK},
        {D7, RB_BISHOP | RB_BLACK},
        {D6, RB_KING | RB_BLACK},
        {C7, RB_ROOK | RB_BLACK},
        {C6, RB_ROOK | RB_BLACK},
    };
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++)
        rb_place(p, setup[i].cell, setup[i].pc);
}

static int rb_legal_moves(const rules_pos *p, rules_move *out)
{
    const rb_state *s = rb_cst(p);
    if (s->underway && rb_journey_winner(s, p->to_move) >= 0)
        return 0;
    return rb_generate(s, p->to_move, ~(uint64_t)0, out);
}

static void rb_make(rules_pos *p, rules_move m, rules_undo *ud)
{
    rb_state *s = rb_st(p);
    rb_undo *u = (rb_undo *)ud->data;
    int from = RB_FROM(m), to = RB_TO(m), promo = RB_PROMO(m);
    int us = p->to_move, them = us ^ 1;
    int pc = s->board[from], cap = s->board[to];
    uint64_t h = p->hash;
    u->hash = h;
    u->captured = (uint8_t)cap;
    u->moved = (uint8_t)pc;
    u->underway = s->underway;

    h ^= T.zobrist[pc][from];
    if (cap) {
        h ^= T.zobrist[cap][to];
        s->occ[them] &= ~RB_BIT(to);
    }
    int npc = promo ? (promo | (us << 3)) : pc;
    s->board[from] = 0;
    s->board[to] = (uint8_t)npc;
    h ^= T.zobrist[npc][to];
    s->occ[us] ^= RB_BIT(from) | RB_BIT(to);
    if (RB_KIND(pc) == RB_KING) {
        s->king[us] = (uint8_t)to;
        uint8_t w = rb_journey_after(s->underway, us, from, to);
        if (w != s->underway) {
            h ^= T.zobrist_underway[us];
            s->underway = w;
        }
    }
    p->hash = h ^ T.zobrist_black;
    p->to_move = (uint8_t)them;
}

static void rb_unmake(rules_pos *p, rules_move m, const rules_undo *ud)
{
    rb_state *s = rb_st(p);
    const rb_undo *u = (const rb_undo *)ud->data;
    int from = RB_FROM(m), to = RB_TO(m);
    int them = p->to_move, us = them ^ 1;
    s->board[from] = u->moved;
    s->board[to] = u->captured;
    s->occ[us] ^= RB_BIT(from) | RB_BIT(to);
    if (u->captured)
        s->occ[them] |= RB_BIT(to);
    if (RB_KIND(u->moved) == RB_KING)
        s->king[us] = (uint8_t)from;
    s->underway = u->underway;
    p->hash = u->hash;
    p->to_move = (uint8_t)us;
}

static const char rb_letters[RB_NKINDS] = {0, 'P', 'B', 'R', 'K'};
static const char *const rb_kind_names[RB_NKINDS] = {"", "pawn", "bishop", "rook", "king"};

static char rb_piece_at(const rules_pos *p, int cell, int *owner)
{
    if (cell < 0 || cell >= RB_CELLS)
        return 0;
    int pc = rb_cst(p)->board[cell];
    if (pc == 0)
        return 0;
    if (owner != NULL)
        *owner = RB_COLOR(pc);
    return rb_letters[RB_KIND(pc)];
}

static unsigned rb_cell_flags(const rules_pos *p, int cell)
{
    const rb_state *s = rb_cst(p);
    if (cell < 0 || cell >= RB_CELLS)
        return 0;
    int pc = s->board[cell];
    if (pc == 0 || RB_KIND(pc) != RB_KING)
        return 0;
    return rb_in_check(s, RB_COLOR(pc)) ? RULES_CELL_CHECK : 0;
}

static void rb_status(const rules_pos *p, int nlegal, rules_result *r)
{
    const rb_state *s = rb_cst(p);
    int mover = p->to_move;
    int winner = s->underway ? rb_journey_winner(s, mover) : -1;
    rules_reason reason = RULES_REASON_JOURNEY;
    if (winner < 0 && nlegal == 0) {
        if (rb_in_check(s, mover)) {
            winner = mover ^ 1;
            reason = RULES_REASON_CHECKMATE;
        } else {
            reason = RULES_REASON_STALEMATE;
        }
    } else if (winner < 0) {
        return;
    }
    r->over = true;
    r->reason = reason;
    r->winner = (int8_t)winner;
    for (int i = 0; i < 2; i++)
        r->outcome[i] = winner < 0    ? RULES_OUTCOME_DRAW
                        : winner == i ? RULES_OUTCOME_WIN
                                      : RULES_OUTCOME_LOSS;
}

/* ------------------------------------------------------------------------ */
/* Text. */

static int rb_print_move(const rules_pos *p, rules_move m, char *buf, size_t len)
{
    (void)p;
    int from = RB_FROM(m), to = RB_TO(m), promo = RB_PROMO(m);
    if (from >= RB_CELLS || to >= RB_CELLS || from == to)
        return -1;
    int w;
    if (promo)
        w = snprintf(buf, len, "%s-%s=%c", rb_cell_names[from], rb_cell_names[to],
                     rb_letters[promo]);
    else
        w = snprintf(buf, len, "%s-%s", rb_cell_names[from], rb_cell_names[to]);
    return (w < 0 || (size_t)w >= len) ? -1 : w;
}

/* A cell name at s: sets *cell (or -1 for a hole cell) and returns 2, or 0
 * if s does not start with a file a-g and a rank 1-7. */
static int rb_parse_cell(const char *s, int *cell)
{
    if (s[0] < 'a' || s[0] > 'g' || s[1] < '1' || s[1] > '7')
        return 0;
    *cell = T.at[s[1] - '1'][s[0] - 'a'];
    return 2;
}

static int rb_parse_move(const rules_pos *p, const char *text, rules_move *m, char *why,
                         size_t whylen)
{
    const rb_state *s = rb_cst(p);
    int from, to;
    if (text == NULL)
        text = "";
    if (strlen(text) >= RULES_MOVE_TEXT) {
        rules_why(why, whylen, "move text too long: expected <from>-<to>");
        return RULES_EBAD_MOVE_TEXT;
    }
    if (rb_parse_cell(text, &from) == 0 || text[2] != '-' || rb_parse_cell(text + 3, &to) == 0) {
        rules_why(why, whylen, "%s: expected <from>-<to> with cells a1 to g7, e.g. c2-b2", text);
        return RULES_EBAD_MOVE_TEXT;
    }
    char letter = 0;
    if (text[5] == '=') {
        letter = text[6];
        if ((letter != 'R' && letter != 'B') || text[7] != '\0') {
            rules_why(why, whylen, "%s: a pawn promotes to =R (rook) or =B (bishop)", text);
            return RULES_EBAD_MOVE_TEXT;
        }
    } else if (text[5] != '\0') {
        rules_why(why, whylen,
                  "%s: unexpected text after the move; expected "
                  "<from>-<to> or <from>-<to>=R",
                  text);
        return RULES_EBAD_MOVE_TEXT;
    }
    if (from < 0 || to < 0) {
        rules_why(why, whylen, "%s: %.2s is in the hole (c3-e5), not a cell of the board", text,
                  from < 0 ? text : text + 3);
        return RULES_EBAD_MOVE_TEXT;
    }
    int us = p->to_move;
    if (rb_journey_winner(s, us) >= 0) {
        rules_why(why, whylen, "%s: the game is over (a king completed its journey)", text);
        return RULES_EGAME_OVER;
    }
    int pc = s->board[from];
    if (pc == 0) {
        rules_why(why, whylen, "%s: there is no piece on %s", text, rb_cell_names[from]);
        return RULES_ENO_PIECE;
    }
    const char *name = rb_kind_names[RB_KIND(pc)];
    if (RB_COLOR(pc) != us) {
        rules_why(why, whylen, "%s: the %s on %s is %s's, and %s is to move", text, name,
                  rb_cell_names[from], rb_player_names[RB_COLOR(pc)], rb_player_names[us]);
        return RULES_ENOT_YOURS;
    }
    if (!rb_reaches(s, from, to)) {
        rules_why(why, whylen, "%s: the %s on %s cannot move to %s", text, name,
                  rb_cell_names[from], rb_cell_names[to]);
        return RULES_EUNREACHABLE;
    }
    bool promotes = RB_KIND(pc) == RB_PAWN && rb_promotes(us, to);
    if (promotes && letter == 0) {
        rules_why(why, whylen, "%s: the pawn promotes on %s: write %s=R%s", text, rb_cell_names[to],
                  text, rb_dark(to) ? "" : " or =B");
        return RULES_EBAD_MOVE_TEXT;
    }
    if (!promotes && letter != 0) {
        rules_why(why, whylen, "%s: only a pawn reaching its promotion cell promotes", text);
        return RULES_EBAD_MOVE_TEXT;
    }
    if (letter == 'B' && rb_dark(to)) {
        rules_why(why, whylen,
                  "%s: %s is a dark cell: the pawn becomes a rook (=R), "
                  "never a bishop",
                  text, rb_cell_names[to]);
        return RULES_EILLEGAL;
    }
    rules_move want = RB_MOVE(from, to, letter == 'R' ? RB_ROOK : letter == 'B' ? RB_BISHOP : 0);
    rules_move moves[64];
    int n = rb_generate(s, us, RB_BIT(from), moves);
    for (int i = 0; i < n; i++)
        if (moves[i] == want) {
            *m = want;
            return 0;
        }
    rules_why(why, whylen, "%s: the %s on %s cannot move to %s: that leaves your king in check",
              text, name, rb_cell_names[from], rb_cell_names[to]);
    return RULES_ESELF_CHECK;
}

static int rb_print_position(const rules_pos *p, char *buf, size_t len)
{
    const rb_state *s = rb_cst(p);
    char out[RULES_POS_TEXT];
    size_t n = 0;
    for (int y = 6; y >= 0; y--) {
        int empty = 0;
        for (int x = 0; x < 7; x++) {
            int c = T.at[y][x];
            int pc = c >= 0 ? s->board[c] : 0;
            if (c >= 0 && pc == 0) {
                empty++;
                continue;
            }
            if (empty)
                out[n++] = (char)('0' + empty);
            empty = 0;
            if (c < 0)
                out[n++] = '*';
            else
                out[n++] =
                    RB_COLOR(pc) ? (char)(rb_letters[RB_KIND(pc)] + 32) : rb_letters[RB_KIND(pc)];
        }
        if (empty)
            out[n++] = (char)('0' + empty);
        if (y > 0)
            out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = p->to_move ? 'b' : 'w';
    out[n++] = ' ';
    if (s->underway & 1)
        out[n++] = 'W';
    if (s->underway & 2)
        out[n++] = 'B';
    if (!s->underway)
        out[n++] = '-';
    out[n] = '\0';
    if (n + 1 > len)
        return -1;
    memcpy(buf, out, n + 1);
    return (int)n;
}

static int rb_bad_position(char *why, size_t whylen, const char *msg, int at)
{
    if (at >= 0)
        rules_why(why, whylen, "bad position: %s (at character %d)", msg, at + 1);
    else
        rules_why(why, whylen, "bad position: %s", msg);
    return RULES_EBAD_POSITION;
}

static int rb_parse_position(rules_pos *p, const char *text, char *why, size_t whylen)
{
    rb_tables_init();
    if (text == NULL)
        return rb_bad_position(why, whylen, "no text", -1);
    size_t tlen = strnlen(text, RULES_POS_TEXT);
    if (tlen >= RULES_POS_TEXT)
        return rb_bad_position(why, whylen, "too long", -1);

    rules_pos q;
    memset(&q, 0, sizeof q);
    q.variant = p->variant;
    rb_clear(&q);
    int kings[2] = {0, 0};
    int i = 0;
    for (int y = 6; y >= 0; y--) {
        int x = 0;
        bool last_digit = false;
        while (x < 7) {
            char ch = text[i];
            int c = T.at[y][x];
            if (ch >= '1' && ch <= '7') {
                if (last_digit)
                    return rb_bad_position(why, whylen, "two digits in a row", i);
                int k = ch - '0';
                for (int j = 0; j < k; j++, x++) {
                    if (x >= 7)
                        return rb_bad_position(why, whylen, "a rank holds more than 7 cells", i);
                    if (T.at[y][x] < 0)
                        return rb_bad_position(
                            why, whylen, "an empty run covers the hole; write '*' for c3-e5", i);
                }
                last_digit = true;
                i++;
                continue;
            }
            last_digit = false;
            if (ch == '*') {
                if (c >= 0)
                    return rb_bad_position(why, whylen, "'*' marks the hole cells c3-e5 only", i);
                x++;
                i++;
                continue;
            }
            if (c < 0)
                return rb_bad_position(why, whylen, "the hole cells c3-e5 must be written '*'", i);
            const char *l = strchr("PBRKpbrk", ch);
            if (ch == '\0' || l == NULL)
                return rb_bad_position(why, whylen,
                                       "expected a piece letter (PBRK, pbrk), a digit or '*'", i);
            int idx = (int)(l - "PBRKpbrk");
            int kind = idx % 4 + 1, side = idx / 4;
            if (kind == RB_PAWN &&
                ((side == 0 && (c == E6 || c == E7)) || (side == 1 && (c == C1 || c == C2))))
                return rb_bad_position(why, whylen, "a pawn stands on its promotion cell", i);
            if (kind == RB_KING && ++kings[side] > 1)
                return rb_bad_position(why, whylen, "more than one king of a side", i);
            rb_place(&q, c, kind | side << 3);
            x++;
            i++;
        }
        if (y > 0) {
            if (text[i] != '/')
                return rb_bad_position(why, whylen, "expected '/' after 7 cells of a rank", i);
            i++;
        }
    }
    if (text[i] != ' ' || (text[i + 1] != 'w' && text[i + 1] != 'b') || text[i + 2] != ' ')
        return rb_bad_position(why, whylen, "expected ' w ' or ' b ' after the board", i);
    q.to_move = text[i + 1] == 'b';
    i += 3;
    rb_state *s = rb_st(&q);
    if (text[i] == '-') {
        i++;
    } else {
        if (text[i] == 'W') {
            s->underway |= 1;
            i++;
        }
        if (text[i] == 'B') {
            s->underway |= 2;
            i++;
        }
        if (s->underway == 0)
            return rb_bad_position(why, whylen, "expected the journey flags '-', 'W', 'B' or 'WB'",
                                   i);
    }
    if (text[i] != '\0')
        return rb_bad_position(why, whylen, "unexpected text after the journey flags", i);
    if (kings[0] != 1 || kings[1] != 1)
        return rb_bad_position(why, whylen, "each side needs exactly one king", -1);
    if (rb_in_check(s, q.to_move ^ 1))
        return rb_bad_position(why, whylen, "the side not to move is in check", -1);
    for (int side = 0; side < 2; side++)
        if (s->underway >> side & 1)
            q.hash ^= T.zobrist_underway[side];
    if (q.to_move)
        q.hash ^= T.zobrist_black;
    *p = q;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The bots' hooks: capture test and evaluation. */

/* A legal move captures exactly when its target cell holds a piece (never
 * the mover's own). */
static bool rb_is_capture(const rules_pos *p, rules_move m)
{
    return rb_cst(p)->board[RB_TO(m)] != 0;
}

enum { RB_DIST_NONE = 255, RB_JOURNEY_SLOTS = 16, RB_PROMO_SLOTS = 16 };

/* Distances the evaluation reads, ignoring the pieces in the way:
 *   - promo_dist: a pawn's steps (its own moves: forward, forward-left,
 *     forward-right, always clockwise) to its side's promotion cells;
 *   - journey_dist: a king's steps to a journey win, over the states
 *     (cell, under way) with the flag changing as rb_journey_after says; so
 *     a king not under way counts the detour over the c-file line, and one
 *     under way is never sent back the short way round;
 *   - journey_next: the neighbours of a king's cell one step nearer. */
static void rb_build_eval_tables(void)
{
    static const uint8_t promo[2][2] = {{E6, E7}, {C1, C2}};
    static const uint8_t goal[2] = {D6, D2};
    for (int c = 0; c < RB_CELLS; c++)
        for (int i = 0; i < T.nlines[RB_KING][c]; i++)
            T.king_ring[c] |= RB_BIT(T.lines[RB_KING][c][i].cell[0]);
    for (int side = 0; side < 2; side++) {
        uint8_t *d = T.promo_dist[side];
        memset(d, RB_DIST_NONE, RB_CELLS);
        d[promo[side][0]] = d[promo[side][1]] = 0;
        for (bool changed = true; changed;) {
            changed = false;
            for (int c = 0; c < RB_CELLS; c++)
                for (int i = 0; i < T.nlines[RB_PAWN][c]; i++) {
                    int t = T.lines[RB_PAWN][c][i].cell[0];
                    if (d[t] != RB_DIST_NONE && d[t] + 1 < d[c]) {
                        d[c] = (uint8_t)(d[t] + 1);
                        changed = true;
                    }
                }
        }
        uint8_t(*j)[RB_CELLS] = T.journey_dist[side];
        memset(j, RB_DIST_NONE, sizeof T.journey_dist[side]);
        j[1][goal[side]] = 0;
        for (bool changed = true; changed;) {
            changed = false;
            for (int u = 0; u < 2; u++)
                for (int c = 0; c < RB_CELLS; c++) {
                    if (u == 1 && c == goal[side])
                        continue;
                    for (uint64_t r = T.king_ring[c]; r; r &= r - 1) {
                        int t = __builtin_ctzll(r);
                        int ut = rb_journey_after((uint8_t)(u << side), side, c, t) >> side & 1;
                        if (j[ut][t] != RB_DIST_NONE && j[ut][t] + 1 < j[u][c]) {
                            j[u][c] = (uint8_t)(j[ut][t] + 1);
                            changed = true;
                        }
                    }
                }
        }
        for (int u = 0; u < 2; u++)
            for (int c = 0; c < RB_CELLS; c++)
                for (uint64_t r = T.king_ring[c]; r; r &= r - 1) {
                    int t = __builtin_ctzll(r);
                    int ut = rb_journey_after((uint8_t)(u << side), side, c, t) >> side & 1;
                    if (j[ut][t] + 1 == j[u][c])
                        T.journey_next[side][u][c] |= RB_BIT(t);
                }
    }
}

/* The evaluation's weights, in centipawns (see common/ENGINE.md). */
typedef struct rb_weights {
    int value[RB_NKINDS];          /* material by kind; the king has none */
    int mobility[RB_NKINDS];       /* per cell a piece may move to */
    int promo[RB_PROMO_SLOTS];     /* a pawn by its steps to promotion */
    int journey[RB_JOURNEY_SLOTS]; /* the king by its steps to the win */
    int journey_guarded;           /* % of it kept while the enemy guards the goal */
    int journey_stuck;             /* % kept when no step ahead is free and safe */
    int journey_now;               /* the side to move can end the journey */
    int king_attack;               /* per attack of an enemy piece on the king's ring */
    int king_attackers;            /* extra per attacker beyond the first */
    int king_safe;                 /* per free, unattacked cell around the king */
    int tempo;                     /* for the side to move */
} rb_weights;

static const rb_weights rb_weights_tuned = {
    .value = {0, 100, 250, 330, 0},
    .mobility = {0, 0, 6, 5, 0},
    .promo = {0, 150, 90, 55, 35, 20, 10, 5},
    .journey = {0, 400, 200, 110, 70, 45, 30, 20, 12, 6},
    .journey_guarded = 40,
    .journey_stuck = 60,
    .journey_now = 1500,
    .king_attack = 6,
    .king_attackers = 10,
    .king_safe = 3,
    .tempo = 10,
};

/* What evaluation needs of one side's pieces: material, mobility, pawns,
 * the cells it attacks (defended own cells included), and its attacks on
 * the enemy king's ring. */
typedef struct rb_side_eval {
    int score;
    uint64_t attacks;
    int ring_hits, ring_attackers;
} rb_side_eval;

static void rb_eval_side(const rb_state *s, const rb_weights *w, int side, rb_side_eval *e)
{
    uint64_t occ = s->occ[0] | s->occ[1];
    uint64_t enemy_ring = T.king_ring[s->king[side ^ 1]];
    e->score = 0;
    e->attacks = T.king_ring[s->king[side]];
    e->ring_hits = e->ring_attackers = 0;
    for (uint64_t pcs = s->occ[side] & ~RB_BIT(s->king[side]); pcs; pcs &= pcs - 1) {
        int o = __builtin_ctzll(pcs);
        int kind = RB_KIND(s->board[o]);
        uint64_t reach = 0;
        for (int li = 0; li < T.nlines[kind][o]; li++) {
            const rb_line *l = &T.lines[kind][o][li];
            for (int j = 0; j < l->n; j++) {
                uint64_t tb = RB_BIT(l->cell[j]);
                if (j >= l->first_stop)
                    reach |= tb;
                if (occ & tb)
                    break;
            }
        }
        e->attacks |= reach;
        e->score +=
            w->value[kind] + w->mobility[kind] * __builtin_popcountll(reach & ~s->occ[side]);
        if (kind == RB_PAWN) {
            int d = T.promo_dist[side][o];
            e->score += w->promo[d < RB_PROMO_SLOTS ? d : RB_PROMO_SLOTS - 1];
        }
        int hits = __builtin_popcountll(reach & enemy_ring);
        if (hits) {
            e->ring_hits += hits;
            e->ring_attackers++;
        }
    }
}

static void rb_eval_with(const rules_pos *p, const rb_weights *w, int32_t *score)
{
    static const uint8_t goal[2] = {D6, D2};
    const rb_state *s = rb_cst(p);
    rb_side_eval e[2];
    rb_eval_side(s, w, 0, &e[0]);
    rb_eval_side(s, w, 1, &e[1]);
    for (int side = 0; side < 2; side++) {
        int them = side ^ 1, k = s->king[side];
        int32_t v = e[side].score;
        /* King safety: the enemy's attacks on its ring, and where it can go. */
        const rb_side_eval *t = &e[them];
        v -= w->king_attack * t->ring_hits;
        if (t->ring_attackers > 1)
            v -= w->king_attackers * (t->ring_attackers - 1);
        uint64_t safe = T.king_ring[k] & ~s->occ[side] & ~t->attacks;
        v += w->king_safe * __builtin_popcountll(safe);
        /* The journey: steps left, whether the goal is held, whether the
         * next step is free. */
        int u = s->underway >> side & 1;
        int d = T.journey_dist[side][u][k];
        int32_t j = w->journey[d < RB_JOURNEY_SLOTS ? d : RB_JOURNEY_SLOTS - 1];
        uint64_t ahead = T.journey_next[side][u][k] & ~s->occ[side] & ~t->attacks;
        bool held = s->king[them] == goal[side];
        if (j) {
            if (held || (t->attacks & RB_BIT(goal[side])))
                j = j * w->journey_guarded / 100;
            if (ahead == 0)
                j = j * w->journey_stuck / 100;
        }
        /* One step from the goal, free and unattacked, and to move: the
         * win is there (quiescence follows captures only, so say it). */
        if (d == 1 && side == p->to_move && !held && (ahead & RB_BIT(goal[side])))
            j += w->journey_now;
        v += j;
        score[side] = v;
    }
    score[p->to_move] += w->tempo;
}

static void rb_evaluate(const rules_pos *p, int32_t *score)
{
    rb_eval_with(p, &rb_weights_tuned, score);
}

/* The bots' in_check hook: the king of the side to move attacked. */
static bool rb_in_check_hook(const rules_pos *p)
{
    return rb_in_check(rb_cst(p), p->to_move);
}

/* The bots' set_to_move hook (the search's null move): the other side to
 * move, nothing else changed; the hash as if parsed that way. */
static void rb_set_to_move(rules_pos *p, int player)
{
    if (player == p->to_move)
        return;
    p->hash ^= T.zobrist_black;
    p->to_move = (uint8_t)player;
}

const rules_variant rollerball_variant = {
    .id = "rollerball",
    .name = "Rollerball",
    .nplayers = 2,
    .player_names = rb_player_names,
    .ncells = RB_CELLS,
    .cell_names = rb_cell_names,
    .init = rb_init,
    .parse_position = rb_parse_position,
    .print_position = rb_print_position,
    .legal_moves = rb_legal_moves,
    .make = rb_make,
    .unmake = rb_unmake,
    .parse_move = rb_parse_move,
    .print_move = rb_print_move,
    .display_move = NULL,
    .piece_at = rb_piece_at,
    .cell_flags = rb_cell_flags,
    .status = rb_status,
    .leave = NULL,
    .evaluate = rb_evaluate,
    .is_capture = rb_is_capture,
    .in_check = rb_in_check_hook,
    .set_to_move = rb_set_to_move,
};
