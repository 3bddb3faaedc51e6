/*
 * ultima.c - Ultima (Baroque chess): move generation, captures, check.
 *
 * Representation: a mailbox (sq[64], one code per cell: 0 or kind | side<<3)
 * for walking rays while generating, plus one bitboard per side and kind
 * for the reverse "can the king be captured" test. Geometry (rays, cells
 * between two cells, neighbour masks, Zobrist keys) is computed once by
 * ultima_tables(), guarded by call_once, and read-only afterwards.
 *
 * Legality: a move is legal when afterwards no enemy move could capture the
 * mover's king (attacked()). attacked() looks backwards from the king, one
 * capture method at a time, skipping frozen enemies. Most moves cannot
 * change the king's safety: when the king is not attacked, a move of a
 * piece other than the king or the immobilizer that captures nothing can
 * only endanger the king by vacating its from-cell, so such moves are
 * tested only when the from-cell lies in a "sensitive" mask computed once
 * per generation (see sensitive_cells()).
 *
 * Rules readings settled here (../shared/rules/ultima.md leaves them open):
 *   - The coordinator captures with its own king wherever it stands, frozen
 *     or not: only the coordinator moves, the king does not capture.
 *   - A chameleon next to an enemy immobilizer freezes it even though the
 *     chameleon is itself frozen by it (rules: "and freezes that chameleon
 *     in turn"; a frozen immobilizer still freezes, by symmetry).
 *   - Check (a king "could be captured") does not ask whether the capturing
 *     move would be legal for the attacker, as in chess.
 *   - A chameleon moving one square onto the enemy king, or any capture of a
 *     king, never arises: positions where the side not to move is in check
 *     are refused, and legal moves never leave the mover in check.
 */
#include "ultima.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

typedef uint64_t u64;

enum { EMPTY = 0, KING, PAWN, WITHDRAWER, LEAPER, COORD, IMMOB, CHAM, NKINDS };
enum { WHITE = 0, BLACK = 1 };
enum { MOVE_SUICIDE = 1 << 12 };

static const char LETTERS[NKINDS] = {'.', 'K', 'P', 'W', 'L', 'C', 'I', 'X'};
static const char *const KIND_NAMES[NKINDS] = {
    "", "king", "pawn", "withdrawer", "long leaper", "coordinator", "immobilizer", "chameleon",
};

/* Directions: N S E W NE SW NW SE; the opposite of d is d ^ 1; 0-3 are
 * orthogonal. */
static const int DX[8] = {0, 0, 1, -1, 1, -1, -1, 1};
static const int DY[8] = {1, -1, 0, 0, 1, -1, 1, -1};

typedef struct ult_pos {
    u64 bb[2][NKINDS]; /* bb[side][0]: every piece of that side */
    uint8_t sq[64];    /* 0 or kind | side << 3 */
    uint8_t king[2];
    uint8_t r1968; /* the 1968 distance rule is on */
} ult_pos;

typedef struct ult_undo {
    u64 caps; /* cells captured */
    u64 hash;
    uint8_t code[16]; /* their codes, in increasing cell order */
} ult_undo;

static_assert(sizeof(ult_pos) <= RULES_POS_DATA, "ult_pos must fit rules_pos");
static_assert(sizeof(ult_undo) <= RULES_UNDO_DATA, "ult_undo must fit rules_undo");

#define BIT(c) ((u64)1 << (c))
#define FILE_OF(c) ((c)&7)
#define RANK_OF(c) ((c) >> 3)
#define SIDE_OF(code) ((code) >> 3)
#define KIND_OF(code) ((code)&7)

/* ------------------------------------------------------------------------ */
/* Tables, computed once. */

static uint8_t RAY[64][8][7]; /* cells along direction d, nearest first */
static uint8_t RAYLEN[64][8];
static u64 RAYBB[64][8];     /* the same as a mask */
static u64 ADJ[64];          /* the 8 neighbours */
static u64 BETWEEN[64][64];  /* cells strictly between two aligned cells */
static int8_t DIRTO[64][64]; /* direction from a to b if aligned, else -1 */
static u64 DIST[64][9];      /* cells within n king steps */
static u64 RANKBB[8], FILEBB[8];
static u64 ZOB[16][64], ZOB_BLACK;
static const char *const CELL_NAMES[64] = {
    "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2",
    "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4",
    "a5", "b5", "c5", "d5", "e5", "f5", "g5", "h5", "a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6",
    "a7", "b7", "c7", "d7", "e7", "f7", "g7", "h7", "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8",
};
static once_flag tables_once = ONCE_FLAG_INIT;

static void build_tables(void)
{
    for (int c = 0; c < 64; c++) {
        RANKBB[RANK_OF(c)] |= BIT(c);
        FILEBB[FILE_OF(c)] |= BIT(c);
        for (int o = 0; o < 64; o++)
            DIRTO[c][o] = -1;
    }
    for (int c = 0; c < 64; c++) {
        int x = FILE_OF(c), y = RANK_OF(c);
        for (int d = 0; d < 8; d++) {
            int n = 0;
            u64 between = 0;
            for (int nx = x + DX[d], ny = y + DY[d]; nx >= 0 && nx < 8 && ny >= 0 && ny < 8;
                 nx += DX[d], ny += DY[d]) {
                int t = ny * 8 + nx;
                RAY[c][d][n++] = (uint8_t)t;
                RAYBB[c][d] |= BIT(t);
                DIRTO[c][t] = (int8_t)d;
                BETWEEN[c][t] = between;
                between |= BIT(t);
            }
            RAYLEN[c][d] = (uint8_t)n;
            if (n > 0)
                ADJ[c] |= BIT(RAY[c][d][0]);
        }
        for (int o = 0; o < 64; o++) {
            int dx = FILE_OF(o) - x, dy = RANK_OF(o) - y;
            int dist = (dx < 0 ? -dx : dx) > (dy < 0 ? -dy : dy) ? (dx < 0 ? -dx : dx)
                                                                 : (dy < 0 ? -dy : dy);
            for (int n = dist; n <= 8; n++)
                DIST[c][n] |= BIT(o);
        }
    }
    u64 seed = 0x5eed0f0171a1ull;
    for (int k = 0; k < 16; k++)
        for (int c = 0; c < 64; c++)
            ZOB[k][c] = rules_splitmix64(&seed);
    ZOB_BLACK = rules_splitmix64(&seed);
}

static void ultima_tables(void)
{
    call_once(&tables_once, build_tables);
}

/* The cells next to any cell of b (b itself included; callers only look at
 * cells b cannot occupy or do not care). */
static inline u64 spread(u64 b)
{
    const u64 not_a = ~0x0101010101010101ull, not_h = ~0x8080808080808080ull;
    u64 r = b | ((b << 1) & not_a) | ((b >> 1) & not_h);
    return r | (r << 8) | (r >> 8);
}

/* Cells a slider on c reaches along d with occupancy occ, the first
 * occupied cell included. Even directions increase the cell index. */
static inline u64 ray_attack(int c, int d, u64 occ)
{
    u64 r = RAYBB[c][d], bl = r & occ;
    if (bl) {
        int s = (d & 1) ? 63 - __builtin_clzll(bl) : __builtin_ctzll(bl);
        r ^= RAYBB[s][d];
    }
    return r;
}

static inline u64 rook_attack(int c, u64 occ)
{
    return ray_attack(c, 0, occ) | ray_attack(c, 1, occ) | ray_attack(c, 2, occ) |
           ray_attack(c, 3, occ);
}

static inline u64 queen_attack(int c, u64 occ)
{
    return rook_attack(c, occ) | ray_attack(c, 4, occ) | ray_attack(c, 5, occ) |
           ray_attack(c, 6, occ) | ray_attack(c, 7, occ);
}

/* How far a piece of side s on cell c may move: 8 (no limit) or, under the
 * 1968 rule, its rank counted from its owner's side. */
static inline int reach(bool r1968, int s, int c)
{
    if (!r1968)
        return 8;
    return s == WHITE ? RANK_OF(c) + 1 : 8 - RANK_OF(c);
}

static inline int steps(int a, int b)
{
    int dx = FILE_OF(a) - FILE_OF(b), dy = RANK_OF(a) - RANK_OF(b);
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    return dx > dy ? dx : dy;
}

/* ------------------------------------------------------------------------ */
/* Check: could side v's king on k be captured by a move of side v ^ 1?
 * bb are the bitboards of the position to judge. Frozen enemies (next to
 * one of v's immobilizers) capture nothing. */
static bool attacked(const u64 bb[2][NKINDS], int v, int k, bool r1968)
{
    int e = v ^ 1;
    u64 occ = bb[0][0] | bb[1][0];
    u64 active = bb[e][0] & ~spread(bb[v][IMMOB]);
    u64 adj = ADJ[k];

    /* King and chameleon: one step onto the king. */
    if (adj & (bb[e][KING] | bb[e][CHAM]) & active)
        return true;

    /* Withdrawer next to the king, stepping away from it. */
    if (adj & bb[e][WITHDRAWER] & active) {
        for (int d = 0; d < 8; d++)
            if (RAYLEN[k][d] >= 2 && (bb[e][WITHDRAWER] & active & BIT(RAY[k][d][0])) &&
                !(occ & BIT(RAY[k][d][1])))
                return true;
    }

    /* Pawn: reaches t, orthogonally next to the king, with a friend of the
     * pawn beyond the king. */
    u64 pawns = bb[e][PAWN] & active;
    if (pawns) {
        for (int d = 0; d < 4; d++) {
            if (RAYLEN[k][d] < 1 || RAYLEN[k][d ^ 1] < 1)
                continue;
            int t = RAY[k][d][0], b = RAY[k][d ^ 1][0];
            if ((occ & BIT(t)) || !(bb[e][0] & BIT(b)))
                continue;
            u64 cand = rook_attack(t, occ) & pawns;
            while (cand) {
                int c = __builtin_ctzll(cand);
                cand &= cand - 1;
                if (steps(c, t) <= reach(r1968, e, c))
                    return true;
            }
        }
    }

    /* Long leaper: along a line through the king, the cell beyond the king
     * empty, every piece of v between leaper and king followed by an empty
     * cell, no piece of the leaper's side in between. */
    u64 leapers = bb[e][LEAPER] & active;
    if (leapers) {
        for (int d = 0; d < 8; d++) {
            if (RAYLEN[k][d] < 1 || (occ & BIT(RAY[k][d][0])) || !(RAYBB[k][d ^ 1] & leapers))
                continue;
            int land = RAY[k][d][0];
            bool prev_empty = false;
            for (int i = 0; i < RAYLEN[k][d ^ 1]; i++) {
                int s = RAY[k][d ^ 1][i];
                u64 m = BIT(s);
                if (!(occ & m)) {
                    prev_empty = true;
                } else if (leapers & m) {
                    if (steps(s, land) <= reach(r1968, e, s))
                        return true;
                    break;
                } else if ((bb[v][0] & m) && prev_empty) {
                    prev_empty = false;
                } else {
                    break;
                }
            }
        }
    }

    /* Coordinator: reaches the king's rank with its king on the king's
     * file, or the king's file with its king on the king's rank. */
    u64 coords = bb[e][COORD] & active;
    if (coords && bb[e][KING]) {
        int ke = __builtin_ctzll(bb[e][KING]);
        u64 want = FILE_OF(ke) == FILE_OF(k)   ? RANKBB[RANK_OF(k)]
                   : RANK_OF(ke) == RANK_OF(k) ? FILEBB[FILE_OF(k)]
                                               : 0;
        while (want && coords) {
            int c = __builtin_ctzll(coords);
            coords &= coords - 1;
            if (queen_attack(c, occ) & ~occ & want & DIST[c][reach(r1968, e, c)])
                return true;
        }
    }
    return false;
}

static inline bool in_check(const ult_pos *q, int s)
{
    return attacked(q->bb, s, q->king[s], q->r1968);
}

/* The pieces of side s that cannot move: next to an enemy immobilizer, or
 * an immobilizer next to an enemy chameleon. */
static inline u64 frozen_of(const ult_pos *q, int s)
{
    int e = s ^ 1;
    return (spread(q->bb[e][IMMOB]) & q->bb[s][0]) | (spread(q->bb[e][CHAM]) & q->bb[s][IMMOB]);
}

/* ------------------------------------------------------------------------ */
/* Captures of a move of side s from f to t (a valid move of its piece). */

static inline bool is_side(uint8_t code, int s)
{
    return code != 0 && SIDE_OF(code) == s;
}

/* Custodian capture around t; only pawns if pawns_only (chameleon). */
static inline u64 pincer(const ult_pos *q, int s, int f, int t, bool pawns_only)
{
    u64 caps = 0;
    for (int d = 0; d < 4; d++) {
        if (RAYLEN[t][d] < 2)
            continue;
        int a = RAY[t][d][0], b = RAY[t][d][1];
        uint8_t ca = q->sq[a];
        if (is_side(ca, s ^ 1) && (!pawns_only || KIND_OF(ca) == PAWN) && b != f &&
            is_side(q->sq[b], s))
            caps |= BIT(a);
    }
    return caps;
}

/* Coordination of a piece arriving on t with its king; only coordinators if
 * coords_only (chameleon). */
static inline u64 coordinate(const ult_pos *q, int s, int t, bool coords_only)
{
    int k = q->king[s];
    int c1 = RANK_OF(t) * 8 + FILE_OF(k), c2 = RANK_OF(k) * 8 + FILE_OF(t);
    u64 caps = 0;
    uint8_t a = q->sq[c1], b = q->sq[c2];
    if (is_side(a, s ^ 1) && (!coords_only || KIND_OF(a) == COORD))
        caps |= BIT(c1);
    if (is_side(b, s ^ 1) && (!coords_only || KIND_OF(b) == COORD))
        caps |= BIT(c2);
    return caps;
}

/* The withdrawal capture: the enemy behind f, opposite to the move. */
static inline u64 withdraw(const ult_pos *q, int s, int f, int d, bool withdrawers_only)
{
    int back = d ^ 1;
    if (RAYLEN[f][back] < 1)
        return 0;
    int b = RAY[f][back][0];
    uint8_t cb = q->sq[b];
    if (is_side(cb, s ^ 1) && (!withdrawers_only || KIND_OF(cb) == WITHDRAWER))
        return BIT(b);
    return 0;
}

static u64 move_caps(const ult_pos *q, int s, int f, int t)
{
    int kind = KIND_OF(q->sq[f]);
    int d = DIRTO[f][t];
    int e = s ^ 1;
    switch (kind) {
    case KING:
        return q->sq[t] ? BIT(t) : 0;
    case PAWN:
        return pincer(q, s, f, t, false);
    case WITHDRAWER:
        return withdraw(q, s, f, d, false);
    case LEAPER:
        return BETWEEN[f][t] & q->bb[e][0];
    case COORD:
        return coordinate(q, s, t, false);
    case CHAM: {
        u64 caps = (BETWEEN[f][t] & q->bb[e][LEAPER]) | withdraw(q, s, f, d, true) |
                   coordinate(q, s, t, true);
        if (d < 4)
            caps |= pincer(q, s, f, t, true);
        if (q->sq[t])
            caps |= BIT(t); /* onto the enemy king; never legal, see top */
        return caps;
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Generation. */

static inline rules_move encode(int f, int t)
{
    return (rules_move)(f | t << 6);
}

typedef struct gen_ctx {
    const ult_pos *q;
    int s;
    bool legal_only; /* false: pseudo-legal (parse_move's diagnosis) */
    bool checked;    /* the king is attacked now */
    u64 sensitive;   /* from-cells whose vacating may expose the king */
    rules_move *out;
    int n;
} gen_ctx;

/* Is the position after s's move f->t (or suicide of f if f == t), which
 * captures caps, free of check for s? */
static bool safe_after(const ult_pos *q, int s, int f, int t, u64 caps)
{
    u64 bb[2][NKINDS];
    memcpy(bb, q->bb, sizeof bb);
    int kind = KIND_OF(q->sq[f]), e = s ^ 1;
    if (f == t) {
        bb[s][0] &= ~BIT(f);
        bb[s][kind] &= ~BIT(f);
    } else {
        u64 mv = BIT(f) | BIT(t);
        bb[s][0] ^= mv;
        bb[s][kind] ^= mv;
    }
    if (caps)
        for (int k = 0; k < NKINDS; k++)
            bb[e][k] &= ~caps;
    return !attacked(bb, s, kind == KING && f != t ? t : q->king[s], q->r1968);
}

/* Cells whose vacating by a non-king piece could let an enemy capture the
 * king on k (the king being safe now): its neighbours (a pawn's landing),
 * the cells two steps away (a withdrawer's retreat), the rook lines from
 * the neighbours where a pawn could pincer, the cells between the king and
 * an active enemy leaper on a line; everything if a coordinator's king
 * shares a line with k (rare; not worth a finer mask). */
static u64 sensitive_cells(const ult_pos *q, int s)
{
    int k = q->king[s], e = s ^ 1;
    u64 active = q->bb[e][0] & ~spread(q->bb[s][IMMOB]);
    u64 m = ADJ[k];
    for (int d = 0; d < 8; d++)
        if (RAYLEN[k][d] >= 2)
            m |= BIT(RAY[k][d][1]);
    if (q->bb[e][PAWN] & active) {
        for (int d = 0; d < 4; d++) {
            if (RAYLEN[k][d] < 1 || RAYLEN[k][d ^ 1] < 1)
                continue;
            int t = RAY[k][d][0], b = RAY[k][d ^ 1][0];
            if (q->bb[e][0] & BIT(b))
                m |= RANKBB[RANK_OF(t)] | FILEBB[FILE_OF(t)];
        }
    }
    u64 leapers = q->bb[e][LEAPER] & active;
    while (leapers) {
        int c = __builtin_ctzll(leapers);
        leapers &= leapers - 1;
        if (DIRTO[k][c] >= 0)
            m |= BETWEEN[k][c];
    }
    if ((q->bb[e][COORD] & active) && q->bb[e][KING]) {
        int ke = q->king[e];
        if (FILE_OF(ke) == FILE_OF(k) || RANK_OF(ke) == RANK_OF(k))
            m = ~(u64)0;
    }
    return m;
}

static inline void emit(gen_ctx *g, int f, int t, u64 caps, int kind)
{
    if (g->legal_only) {
        bool cheap =
            !g->checked && !caps && kind != KING && kind != IMMOB && !(g->sensitive & BIT(f));
        if (!cheap && !safe_after(g->q, g->s, f, t, caps))
            return;
    }
    g->out[g->n++] = encode(f, t);
}

/* Every move of the piece on f (not frozen). */
static void gen_piece(gen_ctx *g, int f)
{
    const ult_pos *q = g->q;
    const uint8_t *sq = q->sq;
    int s = g->s, e = s ^ 1;
    int kind = KIND_OF(sq[f]);
    int lim = reach(q->r1968, s, f);

    switch (kind) {
    case KING:
        for (int d = 0; d < 8; d++) {
            if (RAYLEN[f][d] < 1)
                continue;
            int t = RAY[f][d][0];
            if (sq[t] == 0)
                emit(g, f, t, 0, KING);
            else if (SIDE_OF(sq[t]) == e)
                emit(g, f, t, BIT(t), KING);
        }
        return;
    case LEAPER:
    case CHAM:
        for (int d = 0; d < 8; d++) {
            u64 leapt = 0;
            int n = RAYLEN[f][d] < lim ? RAYLEN[f][d] : lim;
            u64 wcap = kind == CHAM ? withdraw(q, s, f, d, true) : 0;
            for (int i = 0; i < n; i++) {
                int t = RAY[f][d][i];
                uint8_t c = sq[t];
                if (c == 0) {
                    u64 caps = leapt;
                    if (kind == CHAM) {
                        caps |= wcap | coordinate(q, s, t, true);
                        if (d < 4)
                            caps |= pincer(q, s, f, t, true);
                    }
                    emit(g, f, t, caps, kind);
                    continue;
                }
                /* A piece to leap: an enemy (a long leaper for the
                 * chameleon) followed by an empty cell. */
                if (SIDE_OF(c) != e || (kind == CHAM && KIND_OF(c) != LEAPER) || i + 1 >= n ||
                    sq[RAY[f][d][i + 1]] != 0)
                    break;
                leapt |= BIT(t);
            }
        }
        return;
    default:
        break;
    }

    int ndirs = kind == PAWN ? 4 : 8;
    for (int d = 0; d < ndirs; d++) {
        int n = RAYLEN[f][d] < lim ? RAYLEN[f][d] : lim;
        u64 wcap = kind == WITHDRAWER ? withdraw(q, s, f, d, false) : 0;
        for (int i = 0; i < n; i++) {
            int t = RAY[f][d][i];
            if (sq[t])
                break;
            u64 caps = kind == PAWN    ? pincer(q, s, f, t, false)
                       : kind == COORD ? coordinate(q, s, t, false)
                                       : wcap;
            emit(g, f, t, caps, kind);
        }
    }
}

/* Moves of side to move into out: legal ones, or (legal_only false) every
 * pseudo-legal move of the piece on only (-1: every piece). */
static int generate(const ult_pos *q, int s, rules_move *out, bool legal_only, int only)
{
    gen_ctx g = {.q = q, .s = s, .legal_only = legal_only, .out = out, .n = 0};
    if (legal_only) {
        g.checked = in_check(q, s);
        g.sensitive = g.checked ? ~(u64)0 : sensitive_cells(q, s);
    }
    u64 frozen = frozen_of(q, s);
    u64 movers = q->bb[s][0] & ~frozen;
    if (only >= 0)
        movers &= BIT(only);
    while (movers) {
        int f = __builtin_ctzll(movers);
        movers &= movers - 1;
        gen_piece(&g, f);
    }
    /* Suicide of a frozen piece other than the king. */
    u64 sui = frozen & ~q->bb[s][KING];
    if (only >= 0)
        sui &= BIT(only);
    while (sui) {
        int f = __builtin_ctzll(sui);
        sui &= sui - 1;
        if (!legal_only || safe_after(q, s, f, f, 0))
            g.out[g.n++] = (rules_move)(f | f << 6 | MOVE_SUICIDE);
    }
    return g.n;
}

/* ------------------------------------------------------------------------ */
/* The variant hooks. */

static inline ult_pos *U(rules_pos *p)
{
    return (ult_pos *)(void *)p->data;
}

static inline const ult_pos *CU(const rules_pos *p)
{
    return (const ult_pos *)(const void *)p->data;
}

static void put(ult_pos *q, int c, uint8_t code)
{
    q->sq[c] = code;
    q->bb[SIDE_OF(code)][0] |= BIT(c);
    q->bb[SIDE_OF(code)][KIND_OF(code)] |= BIT(c);
    if (KIND_OF(code) == KING)
        q->king[SIDE_OF(code)] = (uint8_t)c;
}

static u64 full_hash(const ult_pos *q, int to_move)
{
    u64 h = to_move == BLACK ? ZOB_BLACK : 0;
    for (int c = 0; c < 64; c++)
        if (q->sq[c])
            h ^= ZOB[q->sq[c]][c];
    return h;
}

static int code_of(char ch)
{
    for (int k = 1; k < NKINDS; k++) {
        if (ch == LETTERS[k])
            return k;
        if (ch == LETTERS[k] + ('a' - 'A'))
            return k | BLACK << 3;
    }
    return -1;
}

static int parse_position(rules_pos *p, const char *text, char *why, size_t whylen)
{
    ultima_tables();
    ult_pos q;
    memset(&q, 0, sizeof q);
    q.r1968 = p->variant == &ultima1968_variant;
    if (text == NULL) {
        rules_why(why, whylen, "no position string");
        return RULES_EBAD_POSITION;
    }
    const char *s = text;
    int kings[2] = {0, 0};
    for (int rank = 7; rank >= 0; rank--) {
        int file = 0;
        bool last_digit = false;
        while (*s && *s != '/' && *s != ' ') {
            char ch = *s++;
            if (ch >= '1' && ch <= '8') {
                if (last_digit) {
                    rules_why(why, whylen, "rank %d: two digits in a row", rank + 1);
                    return RULES_EBAD_POSITION;
                }
                file += ch - '0';
                last_digit = true;
            } else {
                int code = code_of(ch);
                if (code < 0) {
                    rules_why(why, whylen,
                              "rank %d: '%c' is not a piece letter (KPWLCIX, kpwlcix) "
                              "nor a digit 1-8",
                              rank + 1, ch);
                    return RULES_EBAD_POSITION;
                }
                if (file < 8) {
                    put(&q, rank * 8 + file, (uint8_t)code);
                    if (KIND_OF(code) == KING)
                        kings[SIDE_OF(code)]++;
                }
                file++;
                last_digit = false;
            }
            if (file > 8) {
                rules_why(why, whylen, "rank %d has more than 8 cells", rank + 1);
                return RULES_EBAD_POSITION;
            }
        }
        if (file != 8) {
            rules_why(why, whylen, "rank %d has %d cells, not 8", rank + 1, file);
            return RULES_EBAD_POSITION;
        }
        if (rank > 0) {
            if (*s != '/') {
                rules_why(why, whylen, "expected '/' after rank %d", rank + 1);
                return RULES_EBAD_POSITION;
            }
            s++;
        }
    }
    if (s[0] != ' ' || (s[1] != 'w' && s[1] != 'b') || s[2] != '\0') {
        rules_why(why, whylen, "expected \" w\" or \" b\" after the 8 ranks, then the end");
        return RULES_EBAD_POSITION;
    }
    int to_move = s[1] == 'w' ? WHITE : BLACK;
    for (int side = 0; side < 2; side++) {
        if (kings[side] != 1) {
            rules_why(why, whylen, "%s has %d kings; exactly one is needed",
                      side == WHITE ? "white" : "black", kings[side]);
            return RULES_EBAD_POSITION;
        }
    }
    if (in_check(&q, to_move ^ 1)) {
        rules_why(why, whylen, "the side not to move (%s) is in check",
                  to_move == WHITE ? "black" : "white");
        return RULES_EBAD_POSITION;
    }
    memcpy(p->data, &q, sizeof q);
    p->to_move = (uint8_t)to_move;
    p->hash = full_hash(&q, to_move);
    return 0;
}

static int print_position(const rules_pos *p, char *buf, size_t len)
{
    const ult_pos *q = CU(p);
    char out[RULES_POS_TEXT];
    size_t n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int run = 0;
        for (int file = 0; file < 8; file++) {
            uint8_t c = q->sq[rank * 8 + file];
            if (c == 0) {
                run++;
                continue;
            }
            if (run)
                out[n++] = (char)('0' + run);
            run = 0;
            char l = LETTERS[KIND_OF(c)];
            out[n++] = SIDE_OF(c) == BLACK ? (char)(l + ('a' - 'A')) : l;
        }
        if (run)
            out[n++] = (char)('0' + run);
        if (rank > 0)
            out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = p->to_move == WHITE ? 'w' : 'b';
    out[n] = '\0';
    if (n + 1 > len)
        return -1;
    memcpy(buf, out, n + 1);
    return (int)n;
}

static void init_pos(rules_pos *p)
{
    char why[RULES_WHY_TEXT];
    int err = parse_position(p, "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w", why, sizeof why);
    assert(err == 0);
    (void)err;
}

static int legal_moves(const rules_pos *p, rules_move *out)
{
    return generate(CU(p), p->to_move, out, true, -1);
}

static void make(rules_pos *p, rules_move m, rules_undo *un)
{
    ult_pos *q = U(p);
    ult_undo *u = (ult_undo *)(void *)un->data;
    int s = p->to_move, e = s ^ 1;
    int f = m & 63, t = (m >> 6) & 63;
    u64 h = p->hash ^ ZOB_BLACK;
    u->hash = p->hash;
    uint8_t code = q->sq[f];
    if (m & MOVE_SUICIDE) {
        u->caps = 0;
        u->code[0] = code;
        q->sq[f] = 0;
        q->bb[s][0] &= ~BIT(f);
        q->bb[s][KIND_OF(code)] &= ~BIT(f);
        h ^= ZOB[code][f];
    } else {
        u64 caps = move_caps(q, s, f, t);
        u->caps = caps;
        int i = 0;
        for (u64 c = caps; c; c &= c - 1) {
            int x = __builtin_ctzll(c);
            uint8_t cc = q->sq[x];
            u->code[i++] = cc;
            h ^= ZOB[cc][x];
            q->sq[x] = 0;
            q->bb[e][KIND_OF(cc)] &= ~BIT(x);
        }
        q->bb[e][0] &= ~caps;
        u64 mv = BIT(f) | BIT(t);
        q->sq[f] = 0;
        q->sq[t] = code;
        q->bb[s][0] ^= mv;
        q->bb[s][KIND_OF(code)] ^= mv;
        h ^= ZOB[code][f] ^ ZOB[code][t];
        if (KIND_OF(code) == KING)
            q->king[s] = (uint8_t)t;
    }
    p->hash = h;
    p->to_move = (uint8_t)e;
}

static void unmake(rules_pos *p, rules_move m, const rules_undo *un)
{
    ult_pos *q = U(p);
    const ult_undo *u = (const ult_undo *)(const void *)un->data;
    int s = p->to_move ^ 1, e = s ^ 1;
    int f = m & 63, t = (m >> 6) & 63;
    if (m & MOVE_SUICIDE) {
        put(q, f, u->code[0]);
    } else {
        uint8_t code = q->sq[t];
        u64 mv = BIT(f) | BIT(t);
        q->sq[t] = 0;
        q->sq[f] = code;
        q->bb[s][0] ^= mv;
        q->bb[s][KIND_OF(code)] ^= mv;
        if (KIND_OF(code) == KING)
            q->king[s] = (uint8_t)f;
        int i = 0;
        for (u64 c = u->caps; c; c &= c - 1) {
            int x = __builtin_ctzll(c);
            uint8_t cc = u->code[i++];
            q->sq[x] = cc;
            q->bb[e][KIND_OF(cc)] |= BIT(x);
        }
        q->bb[e][0] |= u->caps;
    }
    p->hash = u->hash;
    p->to_move = (uint8_t)s;
}

static bool parse_cell(const char *s, int *cell)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return false;
    *cell = (s[1] - '1') * 8 + (s[0] - 'a');
    return true;
}

static int parse_move(const rules_pos *p, const char *text, rules_move *m, char *why, size_t whylen)
{
    const ult_pos *q = CU(p);
    int s = p->to_move;
    int f, t = -1;
    if (text == NULL)
        text = "";
    bool suicide = false;
    if (parse_cell(text, &f) && text[2] == 'x' && text[3] == '\0') {
        suicide = true;
        t = f;
    } else if (!(parse_cell(text, &f) && text[2] == '-' && parse_cell(text + 3, &t) &&
                 text[5] == '\0')) {
        rules_why(why, whylen,
                  "'%.20s': expected <from>-<to> (e.g. e2-e4) or <cell>x for a suicide (e.g. b1x)",
                  text);
        return RULES_EBAD_MOVE_TEXT;
    }
    uint8_t code = q->sq[f];
    const char *side = s == WHITE ? "white" : "black";
    if (code == 0) {
        rules_why(why, whylen, "%s: there is no piece on %s", text, CELL_NAMES[f]);
        return RULES_ENO_PIECE;
    }
    const char *name = KIND_NAMES[KIND_OF(code)];
    if (SIDE_OF(code) != s) {
        rules_why(why, whylen, "%s: the %s on %s is not %s's", text, name, CELL_NAMES[f], side);
        return RULES_ENOT_YOURS;
    }
    bool frozen = (frozen_of(q, s) & BIT(f)) != 0;
    if (suicide) {
        if (KIND_OF(code) == KING) {
            rules_why(why, whylen, "%s: the king may not be removed", text);
            return RULES_EILLEGAL;
        }
        if (!frozen) {
            rules_why(why, whylen,
                      "%s: the %s on %s is not frozen; only a frozen piece may be "
                      "removed",
                      text, name, CELL_NAMES[f]);
            return RULES_EILLEGAL;
        }
    } else if (frozen) {
        rules_why(why, whylen, "%s: the %s on %s is frozen", text, name, CELL_NAMES[f]);
        return RULES_EFROZEN;
    }
    rules_move list[RULES_MAX_MOVES];
    int n = generate(q, s, list, false, f);
    rules_move want = suicide ? (rules_move)(f | f << 6 | MOVE_SUICIDE) : encode(f, t);
    bool found = false;
    for (int i = 0; i < n && !found; i++)
        found = list[i] == want;
    if (!found) {
        rules_why(why, whylen, "%s: the %s on %s cannot move to %s", text, name, CELL_NAMES[f],
                  CELL_NAMES[t]);
        return RULES_EUNREACHABLE;
    }
    u64 caps = suicide ? 0 : move_caps(q, s, f, t);
    if (!safe_after(q, s, f, t, caps)) {
        rules_why(why, whylen, "%s: the move leaves %s's king in check", text, side);
        return RULES_ESELF_CHECK;
    }
    *m = want;
    return 0;
}

static int print_move(const rules_pos *p, rules_move m, char *buf, size_t len)
{
    (void)p;
    int f = m & 63, t = (m >> 6) & 63;
    int n = (m & MOVE_SUICIDE) ? snprintf(buf, len, "%sx", CELL_NAMES[f])
                               : snprintf(buf, len, "%s-%s", CELL_NAMES[f], CELL_NAMES[t]);
    return n < 0 || (size_t)n >= len ? -1 : n;
}

static char piece_at(const rules_pos *p, int cell, int *owner)
{
    if (cell < 0 || cell >= 64)
        return 0;
    uint8_t c = CU(p)->sq[cell];
    if (c == 0)
        return 0;
    if (owner)
        *owner = SIDE_OF(c);
    return LETTERS[KIND_OF(c)];
}

/* The bots' in_check hook: the side to move's king attacked. */
static bool to_move_in_check(const rules_pos *p)
{
    return in_check(CU(p), p->to_move);
}

/* The bots' set_to_move hook (null-move pruning): the other side moves,
 * nothing else changes. */
static void set_to_move(rules_pos *p, int player)
{
    if (player != p->to_move) {
        p->to_move = (uint8_t)player;
        p->hash ^= ZOB_BLACK;
    }
}

static unsigned cell_flags(const rules_pos *p, int cell)
{
    const ult_pos *q = CU(p);
    if (cell < 0 || cell >= 64 || q->sq[cell] == 0)
        return 0;
    int s = SIDE_OF(q->sq[cell]);
    unsigned fl = 0;
    if (frozen_of(q, s) & BIT(cell))
        fl |= RULES_CELL_FROZEN;
    if (KIND_OF(q->sq[cell]) == KING && in_check(q, s))
        fl |= RULES_CELL_CHECK;
    return fl;
}

static void status(const rules_pos *p, int nlegal, rules_result *r)
{
    if (nlegal > 0)
        return;
    int loser = p->to_move, winner = loser ^ 1;
    r->over = true;
    r->winner = (int8_t)winner;
    r->outcome[winner] = RULES_OUTCOME_WIN;
    r->outcome[loser] = RULES_OUTCOME_LOSS;
    r->reason = in_check(CU(p), loser) ? RULES_REASON_CHECKMATE : RULES_REASON_STALEMATE;
}

/* ------------------------------------------------------------------------ */
/* The bots' hooks: capture test and evaluation (../search.h, ENGINE.md). */

/* A legal move captures when the captures make() would take are not empty:
 * move_caps is the very function make() uses, a few table reads. A suicide
 * removes one's own piece and captures nothing. */
static bool is_capture(const rules_pos *p, rules_move m)
{
    if (m & MOVE_SUICIDE)
        return false;
    return move_caps(CU(p), p->to_move, m & 63, (m >> 6) & 63) != 0;
}

/*
 * The weights of the evaluation, in centipawns (ENGINE.md says where each
 * comes from and how the values were tuned by self-play).
 *   value[k]         a piece of kind k free to move;
 *   frozen_pct[k]    what is left of it, in percent, while an enemy
 *                    immobilizer (or, for an immobilizer, an enemy chameleon)
 *                    holds it: it cannot move nor capture nor check, but it
 *                    still blocks, still anchors a pincer, may be released
 *                    and may always be removed by suicide; a frozen
 *                    immobilizer still freezes, so it keeps more;
 *   mob_piece/pawn   per empty cell a free piece (pawn) could move to;
 *   king_frozen      an immobilized king: it cannot step out of any threat
 *                    and captures nothing, so every attack on it is mate;
 *   king_near[k]     an active enemy piece of kind k within two steps of the
 *                    king (the king and the chameleon capture it by a step,
 *                    the withdrawer from next to it, the immobilizer can
 *                    freeze it with one move);
 *   king_shield      a friend next to the king: it fills a cell a pawn, a
 *                    leaper or a chameleon would need to capture the king;
 *   coord_line       one's king on the enemy king's rank or file with a free
 *                    coordinator: any coordinator move onto the other line
 *                    of the enemy king captures it;
 *   coord_reach      ... and the coordinator can make that move now.
 */
typedef struct ult_eval_weights {
    int value[NKINDS];
    int frozen_pct[NKINDS];
    int mob_piece, mob_pawn;
    int king_frozen;
    int king_near[NKINDS];
    int king_shield;
    int coord_line, coord_reach;
} ult_eval_weights;

static const ult_eval_weights EVAL_W = {
    /*           -  K    P    W    L    C    I    X */
    .value = {0, 0, 100, 400, 450, 350, 600, 350},
    .frozen_pct = {0, 0, 60, 60, 60, 60, 80, 60},
    .mob_piece = 3,
    .mob_pawn = 2,
    .king_frozen = 250,
    .king_near = {0, 15, 5, 20, 10, 8, 25, 20},
    .king_shield = 4,
    .coord_line = 30,
    .coord_reach = 80,
};

/* The cells a free piece of kind k on c could move to (1968 limit
 * included). */
static inline u64 moves_from(const ult_pos *q, int s, int c, int kind, u64 occ)
{
    u64 to = kind == PAWN ? rook_attack(c, occ) : queen_attack(c, occ);
    to &= ~occ;
    if (q->r1968)
        to &= DIST[c][reach(true, s, c)];
    return to;
}

/* How well side s stands on its own terms. */
static int eval_side(const ult_pos *q, int s, u64 occ)
{
    const ult_eval_weights *w = &EVAL_W;
    int e = s ^ 1;
    u64 frozen = frozen_of(q, s);
    int score = 0;

    /* Material and mobility, piece by piece. */
    for (int kind = PAWN; kind < NKINDS; kind++) {
        u64 b = q->bb[s][kind];
        int nfrozen = __builtin_popcountll(b & frozen);
        score += (__builtin_popcountll(b) - nfrozen) * w->value[kind] +
                 nfrozen * w->value[kind] * w->frozen_pct[kind] / 100;
        int mob = 0;
        for (u64 f = b & ~frozen; f; f &= f - 1)
            mob += __builtin_popcountll(moves_from(q, s, __builtin_ctzll(f), kind, occ));
        score += mob * (kind == PAWN ? w->mob_pawn : w->mob_piece);
    }

    /* King safety. */
    int k = q->king[s];
    if (frozen & BIT(k))
        score -= w->king_frozen;
    u64 near = DIST[k][2] & q->bb[e][0] & ~frozen_of(q, e);
    for (; near; near &= near - 1)
        score -= w->king_near[KIND_OF(q->sq[__builtin_ctzll(near)])];
    score += __builtin_popcountll(ADJ[k] & q->bb[s][0]) * w->king_shield;

    /* Coordinator and king against the enemy king: with one's king on the
     * enemy king's file, a coordinator landing on its rank captures it (and
     * the same with rank and file exchanged). */
    u64 coords = q->bb[s][COORD] & ~frozen;
    int ke = q->king[e];
    if (coords) {
        u64 line = FILE_OF(k) == FILE_OF(ke)   ? RANKBB[RANK_OF(ke)]
                   : RANK_OF(k) == RANK_OF(ke) ? FILEBB[FILE_OF(ke)]
                                               : 0;
        if (line) {
            score += w->coord_line;
            for (; coords; coords &= coords - 1)
                if (moves_from(q, s, __builtin_ctzll(coords), COORD, occ) & line) {
                    score += w->coord_reach;
                    break;
                }
        }
    }
    return score;
}

/* Each side's standing on its own terms (what it has, less what threatens
 * it); the search weighs one side's against the other's. */
static void evaluate(const rules_pos *p, int32_t *score)
{
    const ult_pos *q = CU(p);
    u64 occ = q->bb[WHITE][0] | q->bb[BLACK][0];
    score[WHITE] = eval_side(q, WHITE, occ);
    score[BLACK] = eval_side(q, BLACK, occ);
}

static const char *const PLAYER_NAMES[] = {"white", "black"};

/* The two ids differ only in name; the 1968 rule is read from the variant
 * pointer by parse_position (ult_pos.r1968). */
#define ULTIMA_VARIANT(id_, name_)                                                                 \
    {                                                                                              \
        .id = id_, .name = name_, .nplayers = 2, .player_names = PLAYER_NAMES, .ncells = 64,       \
        .cell_names = CELL_NAMES, .init = init_pos, .parse_position = parse_position,              \
        .print_position = print_position, .legal_moves = legal_moves, .make = make,                \
        .unmake = unmake, .parse_move = parse_move, .print_move = print_move,                      \
        .display_move = NULL, .piece_at = piece_at, .cell_flags = cell_flags, .status = status,    \
        .leave = NULL, .evaluate = evaluate, .is_capture = is_capture,                             \
        .in_check = to_move_in_check, .set_to_move = set_to_move,                                  \
    }

const rules_variant ultima_variant = ULTIMA_VARIANT("ultima", "Ultima (1963 rules)");
const rules_variant ultima1968_variant =
    ULTIMA_VARIANT("ultima1968", "Ultima (1968 rule: at most N squares from the N-th rank)");
