/*
 * yalta.c - Yalta chess (../shared/rules/yalta.md), three players.
 *
 * Geometry. The board is six 4x4 quadrilaterals ("quads"). Cell index is
 * quad * 16 + r * 4 + c, r the rank counted from the quad's back edge (0..3)
 * and c the file counted from its outer edge (0..3). Each quad has two inner
 * sides: its c = 3 side touches the other half of its section (the centre
 * line) and its r = 3 side touches the front rank of the neighbouring
 * section; the other two sides are the board's edge. Quads:
 *   0 S1 left a-d / 1..4    1 S1 right h-e / 1..4
 *   2 S2 right a-d / 8..5   3 S2 left l-i / 8..5
 *   4 S3 left h-e / 12..9   5 S3 right l-i / 12..9
 * A step leaving a quad through its c = 3 side enters the neighbour's
 * (r, 3) cell and the file direction reverses; through its r = 3 side it
 * enters (3, c) and the rank direction reverses. A diagonal step through the
 * centre point (the inner corner of every (3, 3) cell) continues to every
 * centre cell that shares only that point and has the same colour (two of
 * them): that is where diagonal rays fork. All tables (rays, knight, king and
 * pawn steps, Zobrist keys) are built once from these step rules by
 * tables_build() under call_once.
 *
 * Legal moves: pseudo-legal moves, then a move is tested by playing it on
 * the board and asking whether the mover's king is attacked only if it is a
 * king move, an en passant capture, a move of a pinned piece, or the king is
 * in check; any other move cannot uncover the king.
 *
 * Bots. evaluate walks the board twice (pawns, then pieces along their rays
 * into cell sets) and never generates moves. set_to_move gives the turn to
 * a player out of turn, as if it had come round: that player's own en
 * passant entry has then had its chances, so it is parked in ypos.parked
 * (outside the hash) and comes back when the turn is handed back; a make
 * drops parked entries and its unmake restores them, so make/unmake and
 * set/set-back nest in any order the search uses.
 *
 * Choices where the rules file leaves room (seed 002 keeps "every rule of
 * orthodox chess"):
 *   - the king of a player still in the game is never captured, even when
 *     a discovered line lets a third player reach it: mate is judged only on
 *     the owner's turn, which is what "the players in between may still save
 *     it" and "if both attack, the player who moved last wins" presuppose;
 *   - "the player who moved last" is the previous player still in the game;
 *   - a piece of a player who left blocks, can be captured (its king too)
 *     and attacks nothing; the leaver's castling rights and en passant entry
 *     go; the turn skips it;
 *   - an en passant entry lasts until the turn comes back to the pawn's
 *     owner, and ends early if a piece lands on the crossed cell or on the
 *     pawn; each opponent gets its one turn to use it;
 *   - no legal move decides before the 150-ply rule: a mate or stalemate on
 *     the 150th ply counts as such;
 *   - castling needs every cell between king and rook empty (b1 for e1-c1,
 *     k8 for d8-j8, g12 for i12-f12) and checks attacks on the king's cell,
 *     the cell it crosses and the cell it lands on, by both opponents.
 */
#include "yalta.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

enum {
    NCELLS = 96,
    NONE = 0xFF,
    MAXRAYS = 8,
    MAXRAYCELLS = 12288,
};

enum { EMPTY = 0, PAWN = 1, KNIGHT, BISHOP, ROOK, QUEEN, KING };

/* Move encoding: from | to << 7 | promotion kind << 14 | flag << 17. */
enum { MF_NONE = 0, MF_DOUBLE = 1, MF_EP = 2, MF_CASTLE = 3 };
#define MV(f, t, pr, fl)                                                                           \
    ((rules_move)((unsigned)(f) | (unsigned)(t) << 7 | (unsigned)(pr) << 14 | (unsigned)(fl) << 17))
#define MV_FROM(m) ((int)((m)&127))
#define MV_TO(m) ((int)(((m) >> 7) & 127))
#define MV_PROMO(m) ((int)(((m) >> 14) & 7))
#define MV_FLAG(m) ((int)(((m) >> 17) & 3))

/* A piece: kind | owner << 3; 0 is an empty cell. */
#define PC(kind, owner) ((uint8_t)((kind) | (owner) << 3))
#define KIND(pc) ((pc)&7)
#define OWNER(pc) ((pc) >> 3)

typedef struct ypos {
    uint8_t board[NCELLS];
    uint8_t king[3]; /* king cell per player (meaningless once it left) */
    uint8_t castle;  /* bit 2 * player: K side, bit 2 * player + 1: Q side */
    uint8_t ep[3];   /* crossed cell of the player's last double step, or NONE */
    uint8_t left;    /* bit per player who left */
    uint16_t clock;  /* plies since the last capture or pawn move */
    /* The en passant entry of a player made to move out of turn
     * (yalta_set_to_move), held aside until the turn goes back; NONE
     * otherwise. Not part of the position (not hashed, not printed); make
     * clears it and unmake restores it. */
    uint8_t parked[3];
} ypos;
static_assert(sizeof(ypos) <= RULES_POS_DATA, "ypos must fit rules_pos.data");

typedef struct yundo {
    uint64_t hash;
    uint8_t captured; /* piece taken (on `to`, or beside it for en passant) */
    uint8_t castle;
    uint8_t ep[3];
    uint8_t parked[3];
    uint8_t to_move;
    uint16_t clock;
} yundo;
static_assert(sizeof(yundo) <= RULES_UNDO_DATA, "yundo must fit rules_undo.data");

#define Y(p) ((ypos *)(void *)(p)->data)
#define CY(p) ((const ypos *)(const void *)(p)->data)

/* ------------------------------------------------------------------------ */
/* Tables. */

typedef struct ray {
    uint16_t start; /* into ray_cells */
    uint8_t len;
    uint8_t skip; /* leading cells shared with an earlier ray (a fork) */
} ray;

static struct {
    char names[NCELLS][4];
    uint8_t colour[NCELLS]; /* 0 dark, 1 light */
    uint8_t section[NCELLS];
    uint8_t orth_n[NCELLS], diag_n[NCELLS];
    ray orth[NCELLS][4];
    ray diag[NCELLS][MAXRAYS];
    uint8_t ray_cells[MAXRAYCELLS];
    int nray_cells;
    uint8_t knight_n[NCELLS], knight[NCELLS][16];
    uint8_t adj_n[NCELLS], adj[NCELLS][16];
    uint8_t push[3][NCELLS];  /* one step forward or NONE */
    uint8_t push2[3][NCELLS]; /* two steps from the start or NONE */
    uint8_t cap_n[3][NCELLS], cap[3][NCELLS][4];
    uint8_t att_n[3][NCELLS], att[3][NCELLS][6]; /* pawns of player that attack cell */
    uint8_t promo[3][NCELLS];                    /* a pawn of player arriving here promotes */
    uint8_t ep_pawn[NCELLS];                     /* crossed cell -> cell of the pawn */
    uint8_t castle_clear[NCELLS];                /* rights lost when a move touches cell */
    uint8_t hostile[8][64];                      /* by attacker mask and piece: H_* bits */
    uint64_t zpiece[NCELLS][24], zturn[3], zcastle[64], zep[NCELLS], zleft[8];
    uint8_t rank_cells[12][8]; /* cells of each rank, alphabetical */
    /* Cell sets, a bit per cell: a king's cell and its neighbours, the
     * cells a knight attacks, the cells a pawn of player attacks. */
    uint64_t zone[NCELLS][2], knight_set[NCELLS][2], pawn_att[3][NCELLS][2];
    uint8_t advance[3][NCELLS]; /* steps a pawn of player has made from its start (0-5) */
} T;

enum { H_KNIGHT = 1, H_KING = 2, H_ORTH = 4, H_DIAG = 8 };

/* Castling: for each player and side, king from/to, rook from/to and the
 * cells that must be empty (king's path and the cell the rook crosses). */
typedef struct castle_def {
    uint8_t kfrom, kto, rfrom, rto, cross;
    uint8_t empty[3];
    uint8_t nempty;
} castle_def;
static castle_def CASTLE[3][2];

static const uint8_t king_quad[3] = {1, 2, 5};
static const char *const cell_names[NCELLS];

static int cell_of(int q, int r, int c)
{
    return q * 16 + r * 4 + c;
}
static int quad_of(int cell)
{
    return cell >> 4;
}
static int r_of(int cell)
{
    return (cell >> 2) & 3;
}
static int c_of(int cell)
{
    return cell & 3;
}
/* Neighbour quads across the c = 3 side and the r = 3 side. */
static int quad_across_c(int q)
{
    return q ^ 1;
}
static int quad_across_r(int q)
{
    static const int across[6] = {2, 4, 0, 5, 1, 3};
    return across[q];
}

/* One orthogonal step from cell in direction (dr, dc) (one of them 0).
 * Returns the cell or -1 and updates the direction on crossing a side. */
static int orth_step(int cell, int *dr, int *dc)
{
    int q = quad_of(cell), r = r_of(cell) + *dr, c = c_of(cell) + *dc;
    if (r < 0 || c < 0)
        return -1;
    if (r == 4) {
        *dr = -1;
        return cell_of(quad_across_r(q), 3, c);
    }
    if (c == 4) {
        *dc = -1;
        return cell_of(quad_across_c(q), r, 3);
    }
    return cell_of(q, r, c);
}

/* One diagonal step through corner (dr, dc): up to two cells (the centre
 * point forks) into out, with the direction to go on with. */
static int diag_step(int cell, int dr, int dc, int out[2], int odr[2], int odc[2])
{
    int q = quad_of(cell), r = r_of(cell) + dr, c = c_of(cell) + dc;
    if (r < 0 || c < 0 || r > 4 || c > 4)
        return 0;
    if (r == 4 && c == 4) {
        /* The centre point: every centre cell that shares no side with
         * this one and has its colour. */
        int n = 0;
        for (int q2 = 0; q2 < 6; q2++) {
            int t = cell_of(q2, 3, 3);
            if (q2 == q || q2 == quad_across_c(q) || q2 == quad_across_r(q))
                continue;
            if (T.colour[t] != T.colour[cell])
                continue;
            out[n] = t, odr[n] = -1, odc[n] = -1, n++;
        }
        return n;
    }
    if (r == 4) {
        out[0] = cell_of(quad_across_r(q), 3, c), odr[0] = -1, odc[0] = dc;
        return 1;
    }
    if (c == 4) {
        out[0] = cell_of(quad_across_c(q), r, 3), odr[0] = dr, odc[0] = -1;
        return 1;
    }
    out[0] = cell_of(q, r, c), odr[0] = dr, odc[0] = dc;
    return 1;
}

static void add_unique(uint8_t *list, uint8_t *n, int cell, int cap)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == cell)
            return;
    assert(*n < cap);
    list[(*n)++] = (uint8_t)cell;
}

/* Diagonal rays from `from`, following forks depth first; path holds the
 * cells so far. */
static void diag_rays(int from, int cell, int dr, int dc, uint8_t *path, int len, int shared)
{
    int nx[2], ndr[2], ndc[2];
    int n = diag_step(cell, dr, dc, nx, ndr, ndc);
    if (n == 0) {
        if (len == 0)
            return;
        ray *ry = &T.diag[from][T.diag_n[from]++];
        assert(T.diag_n[from] <= MAXRAYS && T.nray_cells + len <= MAXRAYCELLS);
        ry->start = (uint16_t)T.nray_cells;
        ry->len = (uint8_t)len;
        ry->skip = (uint8_t)shared;
        memcpy(T.ray_cells + T.nray_cells, path, (size_t)len);
        T.nray_cells += len;
        return;
    }
    for (int i = 0; i < n; i++) {
        path[len] = (uint8_t)nx[i];
        /* The second branch repeats the cells before the fork. */
        diag_rays(from, nx[i], ndr[i], ndc[i], path, len + 1, i == 0 ? shared : len);
    }
}

static void tables_build(void)
{
    static const char *files[6] = {"abcd", "hgfe", "abcd", "lkji", "hgfe", "lkji"};
    static const int colour_base[6] = {0, 1, 1, 0, 0, 1};
    for (int cell = 0; cell < NCELLS; cell++) {
        int q = quad_of(cell), r = r_of(cell), c = c_of(cell);
        int rank = q < 2 ? 1 + r : q < 4 ? 8 - r : 12 - r;
        snprintf(T.names[cell], sizeof T.names[cell], "%c%d", files[q][c], rank);
        T.colour[cell] = (uint8_t)((r + c + colour_base[q]) & 1);
        T.section[cell] = (uint8_t)(q / 2);
        assert(strcmp(T.names[cell], cell_names[cell]) == 0);
    }
    /* Ranks in alphabetical file order. */
    for (int rank = 1; rank <= 12; rank++) {
        int n = 0;
        for (char f = 'a'; f <= 'l'; f++)
            for (int cell = 0; cell < NCELLS; cell++)
                if (T.names[cell][0] == f && atoi(T.names[cell] + 1) == rank)
                    T.rank_cells[rank - 1][n++] = (uint8_t)cell;
        assert(n == 8);
    }

    static const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    uint8_t path[32];
    for (int from = 0; from < NCELLS; from++) {
        for (int d = 0; d < 4; d++) {
            int dr = dirs[d][0], dc = dirs[d][1], len = 0;
            for (int cell = orth_step(from, &dr, &dc); cell >= 0; cell = orth_step(cell, &dr, &dc))
                path[len++] = (uint8_t)cell;
            if (len == 0)
                continue;
            assert(T.nray_cells + len <= MAXRAYCELLS);
            ray *ry = &T.orth[from][T.orth_n[from]++];
            ry->start = (uint16_t)T.nray_cells;
            ry->len = (uint8_t)len;
            ry->skip = 0;
            memcpy(T.ray_cells + T.nray_cells, path, (size_t)len);
            T.nray_cells += len;
        }
        for (int dr = -1; dr <= 1; dr += 2)
            for (int dc = -1; dc <= 1; dc += 2)
                diag_rays(from, from, dr, dc, path, 0, 0);
    }

    /* Side neighbours, corner neighbours, king and knight steps. */
    for (int from = 0; from < NCELLS; from++) {
        uint8_t side[4], nside = 0;
        for (int i = 0; i < T.orth_n[from]; i++)
            side[nside++] = T.ray_cells[T.orth[from][i].start];
        for (int i = 0; i < nside; i++)
            add_unique(T.adj[from], &T.adj_n[from], side[i], 16);
        for (int i = 0; i < T.diag_n[from]; i++) {
            const ray *ry = &T.diag[from][i];
            add_unique(T.adj[from], &T.adj_n[from], T.ray_cells[ry->start], 16);
        }
        /* Knight: an orthogonal step then a diagonal one, or the reverse,
         * ending on a cell that is not the start and shares no side with it. */
        for (int d = 0; d < 4; d++) {
            int dr = dirs[d][0], dc = dirs[d][1];
            int mid = orth_step(from, &dr, &dc);
            if (mid < 0)
                continue;
            for (int e = 0; e < 4; e++) {
                int nx[2], ndr[2], ndc[2];
                int n = diag_step(mid, e & 1 ? 1 : -1, e & 2 ? 1 : -1, nx, ndr, ndc);
                for (int i = 0; i < n; i++) {
                    bool bad = nx[i] == from;
                    for (int s = 0; s < nside; s++)
                        bad |= side[s] == nx[i];
                    if (!bad)
                        add_unique(T.knight[from], &T.knight_n[from], nx[i], 16);
                }
            }
        }
        for (int e = 0; e < 4; e++) {
            int mid[2], ndr[2], ndc[2];
            int n = diag_step(from, e & 1 ? 1 : -1, e & 2 ? 1 : -1, mid, ndr, ndc);
            for (int i = 0; i < n; i++) {
                for (int d = 0; d < 4; d++) {
                    int dr = dirs[d][0], dc = dirs[d][1];
                    int t = orth_step(mid[i], &dr, &dc);
                    if (t < 0)
                        continue;
                    bool bad = t == from;
                    for (int s = 0; s < nside; s++)
                        bad |= side[s] == t;
                    if (!bad)
                        add_unique(T.knight[from], &T.knight_n[from], t, 16);
                }
            }
        }
    }

    /* Pawns: forward is r + 1 in the own section, r - 1 elsewhere. */
    for (int pl = 0; pl < 3; pl++) {
        for (int from = 0; from < NCELLS; from++) {
            bool own = T.section[from] == pl;
            int fwd = own ? 1 : -1;
            int dr = fwd, dc = 0;
            int one = orth_step(from, &dr, &dc);
            T.push[pl][from] = one < 0 ? NONE : (uint8_t)one;
            T.push2[pl][from] = NONE;
            if (own && r_of(from) == 1) {
                dr = fwd, dc = 0;
                T.push2[pl][from] = (uint8_t)orth_step(one, &dr, &dc);
            }
            T.promo[pl][from] = !own && r_of(from) == 0;
            for (int side = -1; side <= 1; side += 2) {
                int nx[2], ndr[2], ndc[2];
                int n = diag_step(from, fwd, side, nx, ndr, ndc);
                for (int i = 0; i < n; i++)
                    add_unique(T.cap[pl][from], &T.cap_n[pl][from], nx[i], 4);
            }
        }
        for (int from = 0; from < NCELLS; from++)
            for (int i = 0; i < T.cap_n[pl][from]; i++) {
                int t = T.cap[pl][from][i];
                add_unique(T.att[pl][t], &T.att_n[pl][t], from, 6);
            }
    }
    /* Pawn advance: ranks 1-3 of the own section are 0-2 steps; ranks 3-1 of
     * another section (counted from its back rank) are 3-5. */
    for (int pl = 0; pl < 3; pl++)
        for (int cell = 0; cell < NCELLS; cell++) {
            int r = r_of(cell), adv = T.section[cell] == pl ? r - 1 : 6 - r;
            T.advance[pl][cell] = (uint8_t)(adv < 0 ? 0 : adv > 5 ? 5 : adv);
        }
    for (int cell = 0; cell < NCELLS; cell++) {
        T.zone[cell][cell >> 6] |= 1ull << (cell & 63);
        for (int i = 0; i < T.adj_n[cell]; i++)
            T.zone[cell][T.adj[cell][i] >> 6] |= 1ull << (T.adj[cell][i] & 63);
        for (int i = 0; i < T.knight_n[cell]; i++)
            T.knight_set[cell][T.knight[cell][i] >> 6] |= 1ull << (T.knight[cell][i] & 63);
        for (int pl = 0; pl < 3; pl++)
            for (int i = 0; i < T.cap_n[pl][cell]; i++)
                T.pawn_att[pl][cell][T.cap[pl][cell][i] >> 6] |= 1ull << (T.cap[pl][cell][i] & 63);
    }
    memset(T.ep_pawn, NONE, sizeof T.ep_pawn);
    for (int q = 0; q < 6; q++)
        for (int c = 0; c < 4; c++)
            T.ep_pawn[cell_of(q, 2, c)] = (uint8_t)cell_of(q, 3, c);

    /* Castling. */
    for (int pl = 0; pl < 3; pl++) {
        int kq = king_quad[pl], oq = quad_across_c(kq);
        castle_def *k = &CASTLE[pl][0], *l = &CASTLE[pl][1];
        k->kfrom = l->kfrom = (uint8_t)cell_of(kq, 0, 3);
        k->kto = (uint8_t)cell_of(kq, 0, 1);
        k->cross = k->rto = (uint8_t)cell_of(kq, 0, 2);
        k->rfrom = (uint8_t)cell_of(kq, 0, 0);
        k->empty[0] = k->rto, k->empty[1] = k->kto, k->nempty = 2;
        l->kto = (uint8_t)cell_of(oq, 0, 2);
        l->cross = l->rto = (uint8_t)cell_of(oq, 0, 3);
        l->rfrom = (uint8_t)cell_of(oq, 0, 0);
        l->empty[0] = l->cross, l->empty[1] = l->kto;
        l->empty[2] = (uint8_t)cell_of(oq, 0, 1), l->nempty = 3;
        T.castle_clear[k->kfrom] |= (uint8_t)(3 << (2 * pl));
        T.castle_clear[k->rfrom] |= (uint8_t)(1 << (2 * pl));
        T.castle_clear[l->rfrom] |= (uint8_t)(2 << (2 * pl));
    }

    for (int mask = 0; mask < 8; mask++)
        for (int pc = 0; pc < 64; pc++) {
            int kind = KIND(pc), owner = OWNER(pc);
            if (owner > 2 || !(mask & (1 << owner)))
                continue;
            uint8_t h = 0;
            if (kind == KNIGHT)
                h = H_KNIGHT;
            else if (kind == KING)
                h = H_KING;
            else if (kind == ROOK)
                h = H_ORTH;
            else if (kind == BISHOP)
                h = H_DIAG;
            else if (kind == QUEEN)
                h = H_ORTH | H_DIAG;
            T.hostile[mask][pc] = h;
        }

    uint64_t seed = 0x59616C7461ull; /* "Yalta" */
    for (int cell = 0; cell < NCELLS; cell++) {
        for (int pc = 0; pc < 24; pc++)
            T.zpiece[cell][pc] = rules_splitmix64(&seed);
        T.zep[cell] = rules_splitmix64(&seed);
    }
    for (int i = 0; i < 3; i++)
        T.zturn[i] = rules_splitmix64(&seed);
    for (int i = 1; i < 64; i++)
        T.zcastle[i] = rules_splitmix64(&seed);
    for (int i = 1; i < 8; i++)
        T.zleft[i] = rules_splitmix64(&seed);
}

static once_flag tables_once = ONCE_FLAG_INIT;
static void tables_init(void)
{
    call_once(&tables_once, tables_build);
}

/* ------------------------------------------------------------------------ */
/* Attacks. */

static int active_opponents(const ypos *y, int me)
{
    return 7 & ~(1 << me) & ~y->left;
}

/* Does the first piece met along one of the rays have a `want` bit in h? */
static bool rays_hit(const uint8_t *b, const ray *rays, int n, const uint8_t *h, uint8_t want)
{
    for (int i = 0; i < n; i++) {
        const uint8_t *rc = T.ray_cells + rays[i].start;
        for (int k = 0; k < rays[i].len; k++) {
            uint8_t pc = b[rc[k]];
            if (pc) {
                if (h[pc] & want)
                    return true;
                break;
            }
        }
    }
    return false;
}

/* Is cell attacked by a piece of any player in mask? */
static bool attacked(const ypos *y, int cell, int mask)
{
    const uint8_t *b = y->board;
    const uint8_t *h = T.hostile[mask];
    for (int i = 0; i < T.knight_n[cell]; i++)
        if (h[b[T.knight[cell][i]]] & H_KNIGHT)
            return true;
    for (int i = 0; i < T.adj_n[cell]; i++)
        if (h[b[T.adj[cell][i]]] & H_KING)
            return true;
    for (int pl = 0; pl < 3; pl++) {
        if (!(mask & (1 << pl)))
            continue;
        uint8_t pawn = PC(PAWN, pl);
        for (int i = 0; i < T.att_n[pl][cell]; i++)
            if (b[T.att[pl][cell][i]] == pawn)
                return true;
    }
    return rays_hit(b, T.orth[cell], T.orth_n[cell], h, H_ORTH) ||
           rays_hit(b, T.diag[cell], T.diag_n[cell], h, H_DIAG);
}

/* Which players of mask attack cell (a mask). */
static int attackers(const ypos *y, int cell, int mask)
{
    int found = 0;
    for (int pl = 0; pl < 3; pl++)
        if ((mask & (1 << pl)) && attacked(y, cell, 1 << pl))
            found |= 1 << pl;
    return found;
}

/* Pieces of `me` standing between its king and a hostile slider on one of
 * the king's rays: into pinned (a bit per cell). */
static void find_pins(const ypos *y, int me, int mask, uint64_t pinned[2])
{
    const uint8_t *b = y->board;
    const uint8_t *h = T.hostile[mask];
    int k = y->king[me];
    pinned[0] = pinned[1] = 0;
    for (int type = 0; type < 2; type++) {
        int n = type ? T.diag_n[k] : T.orth_n[k];
        const ray *rays = type ? T.diag[k] : T.orth[k];
        uint8_t want = type ? H_DIAG : H_ORTH;
        for (int i = 0; i < n; i++) {
            const uint8_t *rc = T.ray_cells + rays[i].start;
            int own = -1;
            for (int j = 0; j < rays[i].len; j++) {
                uint8_t pc = b[rc[j]];
                if (!pc)
                    continue;
                if (own < 0 && OWNER(pc) == me) {
                    own = rc[j];
                    continue;
                }
                if (own >= 0 && (h[pc] & want))
                    pinned[own >> 6] |= 1ull << (own & 63);
                break;
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Move generation. */

typedef struct gen_ctx {
    ypos b; /* scratch copy: moves are tried on it and taken back */
    int me, mask;
    bool check;  /* the king is attacked now */
    bool pseudo; /* keep moves that leave the king attacked */
    uint64_t pinned[2];
    rules_move *out;
    int n;
} gen_ctx;

/* Would the move leave the mover's king safe? Played on g->b and undone. */
static bool safe_after(gen_ctx *g, int from, int to, int flag)
{
    uint8_t *b = g->b.board;
    uint8_t pc = b[from], cap = b[to];
    int epcell = flag == MF_EP ? T.ep_pawn[to] : -1;
    uint8_t epcap = 0;
    b[to] = pc;
    b[from] = 0;
    if (epcell >= 0) {
        epcap = b[epcell];
        b[epcell] = 0;
    }
    int k = KIND(pc) == KING ? to : g->b.king[g->me];
    bool ok = !attacked(&g->b, k, g->mask);
    b[from] = pc;
    b[to] = cap;
    if (epcell >= 0)
        b[epcell] = epcap;
    return ok;
}

static inline void add(gen_ctx *g, int from, int to, int promo, int flag)
{
    g->out[g->n++] = MV(from, to, promo, flag);
}

static void add_checked(gen_ctx *g, int from, int to, int flag, bool test)
{
    if (test && !g->pseudo && !safe_after(g, from, to, flag))
        return;
    add(g, from, to, 0, flag);
}

/* May the mover take what stands on cell? (not its own piece, not the king
 * of a player still in the game) */
static inline bool can_take(const gen_ctx *g, uint8_t pc)
{
    return OWNER(pc) != g->me && (KIND(pc) != KING || (g->b.left & (1 << OWNER(pc))));
}

static void gen_slides(gen_ctx *g, int from, const ray *rays, int n, bool test)
{
    const uint8_t *b = g->b.board;
    for (int i = 0; i < n; i++) {
        const uint8_t *rc = T.ray_cells + rays[i].start;
        for (int j = 0; j < rays[i].len; j++) {
            int t = rc[j];
            uint8_t pc = b[t];
            if (j < rays[i].skip) {
                if (pc)
                    break;
                continue;
            }
            if (pc) {
                if (can_take(g, pc))
                    add_checked(g, from, t, MF_NONE, test);
                break;
            }
            add_checked(g, from, t, MF_NONE, test);
        }
    }
}

/* Single steps (knight, king) to the listed cells. */
static void gen_steps(gen_ctx *g, int from, const uint8_t *cells, int n, bool test)
{
    for (int i = 0; i < n; i++) {
        uint8_t v = g->b.board[cells[i]];
        if (!v || can_take(g, v))
            add_checked(g, from, cells[i], MF_NONE, test);
    }
}

static void gen_pawn_to(gen_ctx *g, int from, int to, int flag, bool test)
{
    if (test && !g->pseudo && !safe_after(g, from, to, flag))
        return;
    if (T.promo[g->me][to]) {
        for (int k = QUEEN; k >= KNIGHT; k--)
            add(g, from, to, k, flag);
    } else {
        add(g, from, to, 0, flag);
    }
}

static void gen_piece(gen_ctx *g, int from)
{
    const uint8_t *b = g->b.board;
    int me = g->me;
    uint8_t pc = b[from];
    bool test = g->check || (g->pinned[from >> 6] >> (from & 63) & 1);
    switch (KIND(pc)) {
    case PAWN: {
        int one = T.push[me][from];
        if (one != NONE && !b[one]) {
            gen_pawn_to(g, from, one, MF_NONE, test);
            int two = T.push2[me][from];
            if (two != NONE && !b[two])
                gen_pawn_to(g, from, two, MF_DOUBLE, test);
        }
        for (int i = 0; i < T.cap_n[me][from]; i++) {
            int t = T.cap[me][from][i];
            uint8_t v = b[t];
            if (v) {
                if (can_take(g, v))
                    gen_pawn_to(g, from, t, MF_NONE, test);
                continue;
            }
            /* En passant: t is the crossed cell of an opponent's double step
             * that this player may still take. */
            for (int pl = 0; pl < 3; pl++) {
                if (pl == me || g->b.ep[pl] != t)
                    continue;
                gen_pawn_to(g, from, t, MF_EP, true);
            }
        }
        break;
    }
    case KNIGHT:
        gen_steps(g, from, T.knight[from], T.knight_n[from], test);
        break;
    case BISHOP:
        gen_slides(g, from, T.diag[from], T.diag_n[from], test);
        break;
    case ROOK:
        gen_slides(g, from, T.orth[from], T.orth_n[from], test);
        break;
    case QUEEN:
        gen_slides(g, from, T.orth[from], T.orth_n[from], test);
        gen_slides(g, from, T.diag[from], T.diag_n[from], test);
        break;
    case KING:
        gen_steps(g, from, T.adj[from], T.adj_n[from], true);
        for (int side = 0; side < 2; side++) {
            if (!(g->b.castle & (1 << (2 * me + side))))
                continue;
            const castle_def *cd = &CASTLE[me][side];
            if (from != cd->kfrom || b[cd->rfrom] != PC(ROOK, me))
                continue;
            bool ok = true;
            for (int i = 0; i < cd->nempty; i++)
                ok &= !b[cd->empty[i]];
            if (!ok)
                continue;
            if (!g->pseudo && (g->check || attacked(&g->b, cd->cross, g->mask) ||
                               attacked(&g->b, cd->kto, g->mask)))
                continue;
            add(g, from, cd->kto, 0, MF_CASTLE);
        }
        break;
    }
}

/* Moves of the player to move; from >= 0 limits them to one cell. pseudo
 * keeps moves that leave the king attacked (for error messages). */
static int gen_moves(const ypos *y, int me, rules_move *out, int only_from, bool pseudo)
{
    gen_ctx g;
    g.b = *y;
    g.me = me;
    g.mask = active_opponents(y, me);
    g.pseudo = pseudo;
    g.out = out;
    g.n = 0;
    g.check = attacked(y, y->king[me], g.mask);
    find_pins(y, me, g.mask, g.pinned);
    if (only_from >= 0) {
        if (y->board[only_from] && OWNER(y->board[only_from]) == me)
            gen_piece(&g, only_from);
        return g.n;
    }
    for (int from = 0; from < NCELLS; from++) {
        uint8_t pc = y->board[from];
        if (pc && OWNER(pc) == me)
            gen_piece(&g, from);
    }
    return g.n;
}

/* Once the 150-ply rule has ended the game nobody moves on, as in every
 * decided position of the core (a move would also push the clock past what
 * a position string may hold). */
static int yalta_legal_moves(const rules_pos *p, rules_move *out)
{
    if (CY(p)->clock >= 150)
        return 0;
    return gen_moves(CY(p), p->to_move, out, -1, false);
}

/* ------------------------------------------------------------------------ */
/* Make / unmake. */

static int next_player(const ypos *y, int me)
{
    for (int i = 1; i <= 3; i++) {
        int pl = (me + i) % 3;
        if (!(y->left & (1 << pl)))
            return pl;
    }
    return me;
}

static void yalta_make(rules_pos *p, rules_move m, rules_undo *ru)
{
    ypos *y = Y(p);
    yundo *u = (yundo *)(void *)ru->data;
    int from = MV_FROM(m), to = MV_TO(m), promo = MV_PROMO(m), flag = MV_FLAG(m);
    int me = p->to_move;
    uint64_t h = p->hash;
    u->hash = h;
    u->castle = y->castle;
    memcpy(u->ep, y->ep, 3);
    memcpy(u->parked, y->parked, 3);
    memset(y->parked, NONE, 3);
    u->to_move = (uint8_t)me;
    u->clock = y->clock;

    uint8_t pc = y->board[from];
    int capcell = flag == MF_EP ? T.ep_pawn[to] : to;
    uint8_t cap = y->board[capcell];
    u->captured = cap;
    if (cap) {
        h ^= T.zpiece[capcell][cap];
        y->board[capcell] = 0;
    }
    uint8_t now = promo ? PC(promo, me) : pc;
    h ^= T.zpiece[from][pc] ^ T.zpiece[to][now];
    y->board[from] = 0;
    y->board[to] = now;
    if (KIND(pc) == KING) {
        y->king[me] = (uint8_t)to;
        if (flag == MF_CASTLE) {
            const castle_def *cd = &CASTLE[me][to == CASTLE[me][0].kto ? 0 : 1];
            uint8_t rook = PC(ROOK, me);
            y->board[cd->rfrom] = 0;
            y->board[cd->rto] = rook;
            h ^= T.zpiece[cd->rfrom][rook] ^ T.zpiece[cd->rto][rook];
        }
    }
    uint8_t castle = y->castle & ~(T.castle_clear[from] | T.castle_clear[to]);
    if (castle != y->castle) {
        h ^= T.zcastle[y->castle] ^ T.zcastle[castle];
        y->castle = castle;
    }
    /* En passant entries: the one of the player whose turn comes now has
     * had its chances; one whose pawn or crossed cell this move lands on is
     * gone. */
    int next = next_player(y, me);
    for (int pl = 0; pl < 3; pl++) {
        int e = y->ep[pl];
        if (e != NONE && (pl == next || e == to || T.ep_pawn[e] == to)) {
            h ^= T.zep[e];
            y->ep[pl] = NONE;
        }
    }
    if (flag == MF_DOUBLE) {
        int crossed = T.push[me][from];
        y->ep[me] = (uint8_t)crossed;
        h ^= T.zep[crossed];
    }
    y->clock = (KIND(pc) == PAWN || cap) ? 0 : (uint16_t)(y->clock + 1);
    h ^= T.zturn[me] ^ T.zturn[next];
    p->to_move = (uint8_t)next;
    p->hash = h;
}

static void yalta_unmake(rules_pos *p, rules_move m, const rules_undo *ru)
{
    ypos *y = Y(p);
    const yundo *u = (const yundo *)(const void *)ru->data;
    int from = MV_FROM(m), to = MV_TO(m), promo = MV_PROMO(m), flag = MV_FLAG(m);
    int me = u->to_move;
    uint8_t pc = promo ? PC(PAWN, me) : y->board[to];
    y->board[from] = pc;
    if (flag == MF_EP) {
        y->board[to] = 0;
        y->board[T.ep_pawn[to]] = u->captured;
    } else {
        y->board[to] = u->captured;
    }
    if (KIND(pc) == KING) {
        y->king[me] = (uint8_t)from;
        if (flag == MF_CASTLE) {
            const castle_def *cd = &CASTLE[me][to == CASTLE[me][0].kto ? 0 : 1];
            y->board[cd->rto] = 0;
            y->board[cd->rfrom] = PC(ROOK, me);
        }
    }
    y->castle = u->castle;
    memcpy(y->ep, u->ep, 3);
    memcpy(y->parked, u->parked, 3);
    y->clock = u->clock;
    p->to_move = (uint8_t)me;
    p->hash = u->hash;
}

/* ------------------------------------------------------------------------ */
/* Hash, set-up, position text. */

static uint64_t full_hash(const ypos *y, int to_move)
{
    uint64_t h = T.zturn[to_move] ^ T.zcastle[y->castle] ^ T.zleft[y->left];
    for (int c = 0; c < NCELLS; c++)
        if (y->board[c])
            h ^= T.zpiece[c][y->board[c]];
    for (int pl = 0; pl < 3; pl++)
        if (y->ep[pl] != NONE)
            h ^= T.zep[y->ep[pl]];
    return h;
}

static const char SETUP[] =
    "wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/rRrNrBrKrQrBrNrR/"
    "8/8/bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR w wKwQrKrQbKbQ - - 0";

const char *yalta_setup_text(void)
{
    return SETUP;
}

static const char PLAYER_CH[3] = {'w', 'r', 'b'};
static const char KIND_CH[8] = " PNBRQK";

static int player_of_char(char ch)
{
    const char *s = memchr(PLAYER_CH, ch, 3);
    return ch && s ? (int)(s - PLAYER_CH) : -1;
}

static int kind_of_char(char ch)
{
    const char *s = ch ? strchr(KIND_CH + 1, ch) : NULL;
    return s ? (int)(s - KIND_CH) : 0;
}

/* The players whose turn comes, from the player to move, before owner's:
 * those who may still take owner's pawn en passant. */
static int ep_takers(const ypos *y, int to_move, int owner)
{
    int mask = 0;
    for (int pl = to_move; pl != owner; pl = (pl + 1) % 3)
        if (!(y->left & (1 << pl)))
            mask |= 1 << pl;
    return mask;
}

static int yalta_print_position(const rules_pos *p, char *buf, size_t len)
{
    const ypos *y = CY(p);
    char s[RULES_POS_TEXT];
    size_t n = 0;
    for (int rank = 0; rank < 12; rank++) {
        int run = 0;
        for (int i = 0; i < 8; i++) {
            uint8_t pc = y->board[T.rank_cells[rank][i]];
            if (!pc) {
                run++;
                continue;
            }
            if (run)
                s[n++] = (char)('0' + run), run = 0;
            s[n++] = PLAYER_CH[OWNER(pc)];
            s[n++] = KIND_CH[KIND(pc)];
        }
        if (run)
            s[n++] = (char)('0' + run);
        s[n++] = rank < 11 ? '/' : ' ';
    }
    s[n++] = PLAYER_CH[p->to_move];
    s[n++] = ' ';
    if (!y->castle)
        s[n++] = '-';
    for (int i = 0; i < 6; i++)
        if (y->castle & (1 << i)) {
            s[n++] = PLAYER_CH[i / 2];
            s[n++] = i & 1 ? 'Q' : 'K';
        }
    s[n++] = ' ';
    int any = 0;
    for (int pl = 0; pl < 3; pl++) {
        if (y->ep[pl] == NONE)
            continue;
        if (any++)
            s[n++] = ',';
        n += (size_t)sprintf(s + n, "%s:", T.names[y->ep[pl]]);
        int takers = ep_takers(y, p->to_move, pl);
        for (int t = 0; t < 3; t++)
            if (takers & (1 << t))
                s[n++] = PLAYER_CH[t];
    }
    if (!any)
        s[n++] = '-';
    s[n++] = ' ';
    if (!y->left)
        s[n++] = '-';
    for (int pl = 0; pl < 3; pl++)
        if (y->left & (1 << pl))
            s[n++] = PLAYER_CH[pl];
    n += (size_t)sprintf(s + n, " %u", (unsigned)y->clock);
    if (n + 1 > len)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return (int)n;
}

static int bad(char *why, size_t whylen, const char *msg, const char *detail)
{
    rules_why(why, whylen, "bad position: %s%s%s", msg, detail ? ": " : "", detail ? detail : "");
    return RULES_EBAD_POSITION;
}

/* Split a copy of text at single spaces into exactly 6 non-empty fields. */
static int split_fields(const char *text, char buf[RULES_POS_TEXT], char *fields[6])
{
    size_t len = strlen(text);
    if (len >= RULES_POS_TEXT)
        return -1;
    memcpy(buf, text, len + 1);
    int nf = 0;
    for (char *s = buf;;) {
        if (nf == 6 || *s == ' ' || *s == '\0')
            return -1;
        fields[nf++] = s;
        char *sp = strchr(s, ' ');
        if (sp == NULL)
            break;
        *sp = '\0';
        s = sp + 1;
    }
    return nf == 6 ? 0 : -1;
}

static int yalta_parse_position(rules_pos *p, const char *text, char *why, size_t whylen)
{
    tables_init();
    if (text == NULL)
        return bad(why, whylen, "no text", NULL);
    if (strlen(text) >= RULES_POS_TEXT)
        return bad(why, whylen, "too long", NULL);
    char copy[RULES_POS_TEXT], *f[6];
    if (split_fields(text, copy, f) < 0)
        return bad(why, whylen,
                   "expected 6 fields separated by single spaces "
                   "(board, to move, castling, en passant, left, clock)",
                   NULL);
    ypos y;
    memset(&y, 0, sizeof y);
    memset(y.ep, NONE, sizeof y.ep);
    memset(y.parked, NONE, sizeof y.parked);

    /* Board. */
    const char *s = f[0];
    for (int rank = 0; rank < 12; rank++) {
        int i = 0;
        while (i < 8) {
            if (*s >= '1' && *s <= '8') {
                int run = *s - '0';
                /* Two runs in a row would not round-trip. */
                if (i + run > 8 || (s > f[0] && s[-1] >= '1' && s[-1] <= '8'))
                    return bad(why, whylen, "bad run of empty cells in rank",
                               T.names[T.rank_cells[rank][i]] + 1);
                i += run;
                s++;
                continue;
            }
            int owner = player_of_char(s[0]), kind = owner >= 0 ? kind_of_char(s[1]) : 0;
            if (owner < 0 || kind == 0)
                return bad(why, whylen,
                           "expected a piece (owner w/r/b then P N B R Q K) or a digit at cell",
                           T.names[T.rank_cells[rank][i]]);
            y.board[T.rank_cells[rank][i]] = PC(kind, owner);
            i++;
            s += 2;
        }
        if (*s != (rank < 11 ? '/' : '\0'))
            return bad(why, whylen,
                       rank < 11 ? "expected '/' after 8 cells of rank"
                                 : "extra text after rank 12",
                       T.names[T.rank_cells[rank][0]] + 1);
        s++;
    }

    /* To move. */
    int to_move = f[1][1] ? -1 : player_of_char(f[1][0]);
    if (to_move < 0)
        return bad(why, whylen, "player to move must be w, r or b", f[1]);

    /* Left. */
    if (strcmp(f[4], "-") != 0) {
        int last = -1;
        for (s = f[4]; *s; s++) {
            int pl = player_of_char(*s);
            if (pl <= last)
                return bad(why, whylen, "left players must be among w, r, b in order", f[4]);
            y.left |= (uint8_t)(1 << pl);
            last = pl;
        }
        if (y.left == 7 || (y.left & (y.left - 1)))
            return bad(why, whylen, "at most one player may have left (two play on)", f[4]);
    }
    if (y.left & (1 << to_move))
        return bad(why, whylen, "the player to move has left", NULL);

    /* Kings and pawns. */
    int kings[3] = {0, 0, 0};
    for (int c = 0; c < NCELLS; c++) {
        uint8_t pc = y.board[c];
        if (KIND(pc) == KING) {
            kings[OWNER(pc)]++;
            y.king[OWNER(pc)] = (uint8_t)c;
        }
        if (KIND(pc) == PAWN && r_of(c) == 0)
            return bad(why, whylen, "a pawn cannot stand on a back rank", T.names[c]);
    }
    for (int pl = 0; pl < 3; pl++) {
        bool gone = y.left & (1 << pl);
        if (gone ? kings[pl] > 1 : kings[pl] != 1) {
            static const char *const pn[3] = {"white", "red", "black"};
            return bad(why, whylen, gone ? "too many kings for" : "exactly one king needed for",
                       pn[pl]);
        }
        if (gone && kings[pl] == 0)
            y.king[pl] = 0;
    }

    /* Castling. */
    if (strcmp(f[2], "-") != 0) {
        int last = -1;
        for (s = f[2]; *s; s += 2) {
            int pl = player_of_char(s[0]);
            int side = s[1] == 'K' ? 0 : s[1] == 'Q' ? 1 : -1;
            int bit = 2 * pl + side;
            if (pl < 0 || side < 0 || bit <= last)
                return bad(why, whylen, "castling must be '-' or among wK wQ rK rQ bK bQ in order",
                           f[2]);
            last = bit;
            const castle_def *cd = &CASTLE[pl][side];
            if (y.left & (1 << pl))
                return bad(why, whylen, "a player who left has no castling right", f[2]);
            if (y.board[cd->kfrom] != PC(KING, pl) || y.board[cd->rfrom] != PC(ROOK, pl))
                return bad(why, whylen, "castling right without king and rook on their cells",
                           f[2]);
            y.castle |= (uint8_t)(1 << bit);
        }
    }

    /* Clock (before en passant: at most one ply since a double step). */
    s = f[5];
    unsigned clock = 0;
    if (s[0] == '0' && s[1])
        return bad(why, whylen, "ply clock has a leading zero", f[5]);
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || clock > 150)
            return bad(why, whylen, "ply clock must be a number 0-150", f[5]);
        clock = clock * 10 + (unsigned)(*s - '0');
    }
    if (clock > 150)
        return bad(why, whylen, "ply clock must be a number 0-150", f[5]);
    y.clock = (uint16_t)clock;

    /* En passant. */
    if (strcmp(f[3], "-") != 0) {
        int last = -1;
        for (s = f[3]; *s;) {
            int len;
            int cell = rules_cell_parse_prefix(&yalta_variant, s, &len);
            if (cell < 0 || s[len] != ':')
                return bad(why, whylen, "en passant entries are <cell>:<players>, separated by ','",
                           f[3]);
            int owner = T.section[cell];
            if (r_of(cell) != 2 || owner <= last)
                return bad(why, whylen,
                           "en passant cell must be on the third rank of its owner's section, "
                           "one per player, in order",
                           T.names[cell]);
            last = owner;
            int pawn = T.ep_pawn[cell];
            if (y.left & (1 << owner))
                return bad(why, whylen, "no en passant for a player who left", T.names[cell]);
            /* In a game the clock counts at most the plies played since
             * the double step: one per player between its owner and the
             * player to move, in turn order (one who left since may have
             * played first). One more is allowed: the engine's change of
             * the player to move (set_to_move) makes such positions, and
             * they must print and parse back. Both grow by one a ply while
             * the entry lasts, so what parses here still parses after
             * every move (a fixed bound of 1 did not: fuzz_position). */
            unsigned since = 0;
            for (int pl = (owner + 1) % 3; pl != to_move; pl = (pl + 1) % 3)
                since++;
            if (y.board[pawn] != PC(PAWN, owner) || y.board[cell] || y.clock > since + 1)
                return bad(why, whylen, "no pawn can just have crossed", T.names[cell]);
            s += len + 1;
            int takers = 0, lastp = -1;
            for (; *s && *s != ','; s++) {
                int pl = player_of_char(*s);
                if (pl <= lastp)
                    return bad(why, whylen, "en passant takers must be among w, r, b in order",
                               T.names[cell]);
                takers |= 1 << pl;
                lastp = pl;
            }
            if (takers == 0 || takers != ep_takers(&y, to_move, owner))
                return bad(why, whylen,
                           "en passant takers must be the players who move before its owner",
                           T.names[cell]);
            y.ep[owner] = (uint8_t)cell;
            if (*s == ',') {
                s++;
                if (!*s)
                    return bad(why, whylen, "trailing ',' in en passant", f[3]);
            }
        }
    }

    /* Kings of players not to move may stand in check (another player may
     * have given it); the one to move may be attacked by both opponents. */
    memcpy(p->data, &y, sizeof y);
    p->to_move = (uint8_t)to_move;
    p->hash = full_hash(&y, to_move);
    return 0;
}

static void yalta_init(rules_pos *p)
{
    int err = yalta_parse_position(p, SETUP, NULL, 0);
    assert(err == 0);
    (void)err;
}

/* ------------------------------------------------------------------------ */
/* Move text. */

static int yalta_print_move(const rules_pos *p, rules_move m, char *buf, size_t len)
{
    tables_init();
    int promo = MV_PROMO(m);
    int n;
    if (promo)
        n = snprintf(buf, len, "%s-%s=%c", T.names[MV_FROM(m)], T.names[MV_TO(m)], KIND_CH[promo]);
    else
        n = snprintf(buf, len, "%s-%s", T.names[MV_FROM(m)], T.names[MV_TO(m)]);
    return n < 0 || (size_t)n >= len ? -1 : n;
}

static int yalta_parse_move(const rules_pos *p, const char *text, rules_move *m, char *why,
                            size_t whylen)
{
    tables_init();
    const ypos *y = CY(p);
    int me = p->to_move;
    int l1, l2;
    if (text == NULL)
        text = "";
    int from = rules_cell_parse_prefix(&yalta_variant, text, &l1);
    int to = from >= 0 && text[l1] == '-'
                 ? rules_cell_parse_prefix(&yalta_variant, text + l1 + 1, &l2)
                 : -1;
    int promo = 0;
    if (to >= 0) {
        const char *rest = text + l1 + 1 + l2;
        if (rest[0] == '=' && rest[1] && strchr("QRBN", rest[1]) && rest[2] == '\0')
            promo = kind_of_char(rest[1]);
        else if (rest[0] != '\0')
            to = -1;
    }
    if (from < 0 || to < 0) {
        rules_why(why, whylen,
                  "'%.20s': expected <from>-<to> or <from>-<to>=Q|R|B|N with cells "
                  "such as e2",
                  text);
        return RULES_EBAD_MOVE_TEXT;
    }
    uint8_t pc = y->board[from];
    if (!pc) {
        rules_why(why, whylen, "%s: there is no piece on %s", text, T.names[from]);
        return RULES_ENO_PIECE;
    }
    if (OWNER(pc) != me) {
        rules_why(why, whylen, "%s: the piece on %s is not %s's", text, T.names[from],
                  yalta_variant.player_names[me]);
        return RULES_ENOT_YOURS;
    }
    rules_move moves[RULES_MAX_MOVES];
    int n = gen_moves(y, me, moves, from, false);
    for (int i = 0; i < n; i++)
        if (MV_TO(moves[i]) == to && MV_PROMO(moves[i]) == promo) {
            *m = moves[i];
            return 0;
        }
    static const char *const kname[8] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};
    for (int i = 0; i < n; i++)
        if (MV_TO(moves[i]) == to) {
            if (promo)
                rules_why(why, whylen, "%s: choose the promotion piece among Q, R, B, N", text);
            else
                rules_why(why, whylen, "%s: a pawn reaching %s must promote (add =Q, =R, =B or =N)",
                          text, T.names[to]);
            return RULES_EILLEGAL;
        }
    if (promo && KIND(pc) != PAWN) {
        rules_why(why, whylen, "%s: only a pawn promotes", text);
        return RULES_EILLEGAL;
    }
    n = gen_moves(y, me, moves, from, true);
    for (int i = 0; i < n; i++) {
        if (MV_TO(moves[i]) != to || MV_PROMO(moves[i]) != promo)
            continue;
        if (MV_FLAG(moves[i]) == MF_CASTLE) {
            rules_why(why, whylen, "%s: the king may not castle out of, through or into check",
                      text);
            return RULES_EILLEGAL;
        }
        rules_why(why, whylen, "%s: the move would leave %s's king in check", text,
                  yalta_variant.player_names[me]);
        return RULES_ESELF_CHECK;
    }
    if (promo && !T.promo[me][to]) {
        rules_why(why, whylen, "%s: a pawn promotes only on the back rank of another section",
                  text);
        return RULES_EILLEGAL;
    }
    uint8_t v = y->board[to];
    if (v && KIND(v) == KING && OWNER(v) != me && !(y->left & (1 << OWNER(v)))) {
        rules_why(why, whylen, "%s: a king is never captured (the game ends by checkmate)", text);
        return RULES_EILLEGAL;
    }
    rules_why(why, whylen, "%s: the %s on %s cannot move to %s", text, kname[KIND(pc)],
              T.names[from], T.names[to]);
    return RULES_EUNREACHABLE;
}

/* ------------------------------------------------------------------------ */
/* Display, status, leaving. */

static char yalta_piece_at(const rules_pos *p, int cell, int *owner)
{
    uint8_t pc = (cell >= 0 && cell < NCELLS) ? CY(p)->board[cell] : 0;
    if (!pc)
        return 0;
    if (owner)
        *owner = OWNER(pc);
    return KIND_CH[KIND(pc)];
}

/* The bots' in_check hook: the king of the player to move attacked by
 * an opponent still in. */
static bool yalta_in_check(const rules_pos *p)
{
    tables_init();
    const ypos *y = CY(p);
    int me = p->to_move;
    for (int c = 0; c < NCELLS; c++) {
        uint8_t pc = y->board[c];
        if (pc && KIND(pc) == KING && OWNER(pc) == me)
            return attacked(y, c, active_opponents(y, me));
    }
    return false;
}

static unsigned yalta_cell_flags(const rules_pos *p, int cell)
{
    tables_init();
    const ypos *y = CY(p);
    uint8_t pc = (cell >= 0 && cell < NCELLS) ? y->board[cell] : 0;
    if (!pc)
        return 0;
    int owner = OWNER(pc);
    if (y->left & (1 << owner))
        return RULES_CELL_INERT;
    if (KIND(pc) == KING && attacked(y, cell, active_opponents(y, owner)))
        return RULES_CELL_CHECK;
    return 0;
}

/* The player who moved last before `me`: the previous one still in. */
static int previous_player(const ypos *y, int me)
{
    for (int i = 1; i <= 3; i++) {
        int pl = (me + 3 - i) % 3;
        if (!(y->left & (1 << pl)))
            return pl;
    }
    return me;
}

static void yalta_status(const rules_pos *p, int nlegal, rules_result *r)
{
    tables_init();
    const ypos *y = CY(p);
    int me = p->to_move;
    r->over = false;
    r->winner = -1;
    r->reason = RULES_REASON_NONE;
    if (y->clock >= 150) {
        /* legal_moves gave none: count the moves the board allows, since
         * having none (mate, stalemate) decides before the ply limit. */
        rules_move moves[RULES_MAX_MOVES];
        nlegal = gen_moves(y, me, moves, -1, false);
    }
    if (nlegal == 0) {
        int mask = active_opponents(y, me);
        int att = attackers(y, y->king[me], mask);
        r->over = true;
        if (att) {
            /* Checkmate: the attacker wins; if both attack, the player who
             * moved last. */
            int w = previous_player(y, me);
            if (!(att & (att - 1)))
                w = att == 1 ? 0 : att == 2 ? 1 : 2;
            r->winner = (int8_t)w;
            r->reason = RULES_REASON_CHECKMATE;
            for (int pl = 0; pl < 3; pl++)
                r->outcome[pl] = pl == w ? RULES_OUTCOME_WIN : RULES_OUTCOME_LOSS;
        } else {
            r->reason = RULES_REASON_STALEMATE;
            for (int pl = 0; pl < 3; pl++)
                r->outcome[pl] = RULES_OUTCOME_DRAW;
        }
        return;
    }
    if (y->clock >= 150) {
        r->over = true;
        r->reason = RULES_REASON_PLY_LIMIT;
        for (int pl = 0; pl < 3; pl++)
            r->outcome[pl] = RULES_OUTCOME_DRAW;
    }
}

static void yalta_leave(rules_pos *p, int player)
{
    tables_init();
    ypos *y = Y(p);
    if (player < 0 || player > 2 || (y->left & (1 << player)))
        return;
    uint64_t h = p->hash;
    h ^= T.zleft[y->left];
    y->left |= (uint8_t)(1 << player);
    h ^= T.zleft[y->left];
    uint8_t castle = y->castle & (uint8_t) ~(3 << (2 * player));
    h ^= T.zcastle[y->castle] ^ T.zcastle[castle];
    y->castle = castle;
    if (y->ep[player] != NONE) {
        h ^= T.zep[y->ep[player]];
        y->ep[player] = NONE;
    }
    if (p->to_move == player) {
        int next = next_player(y, player);
        h ^= T.zturn[player] ^ T.zturn[next];
        p->to_move = (uint8_t)next;
        /* The turn is back to next: its own double step has had its chances. */
        if (y->ep[next] != NONE) {
            h ^= T.zep[y->ep[next]];
            y->ep[next] = NONE;
        }
    }
    p->hash = h;
}

/* ------------------------------------------------------------------------ */
/* The bots' hooks (search.h): evaluation, capture test, turn change. */

/*
 * Evaluation weights, in centipawns. The values come from chess, adapted by
 * how far each piece reaches on this board (ENGINE.md, "Yalta"): on an empty
 * Yalta board a knight has 5.6 moves on average (chess 5.25), a bishop 9.4
 * (8.75; its rays fork at the centre), a rook 13.6 (14), a queen 23.0
 * (22.75), so knights and bishops gain a little against the rook.
 */
typedef struct eval_weights {
    int value[7];     /* material by kind (index PAWN..QUEEN; the king 0) */
    int bishop_pair;  /* both bishops still on the board */
    int mobility[7];  /* per cell a piece reaches that no enemy pawn guards */
    int advance[6];   /* a pawn by steps made from its starting rank */
    int shield;       /* an own pawn next to the king in its own section */
    int king_unit[7]; /* attack units of a piece that hits the king's zone */
    int danger;       /* king danger: danger * units^2 / 16 (halved for one
                         attacker) */
    int check;        /* the king is attacked (its owner not to move) */
} eval_weights;

static const eval_weights EVAL_W = {
    .value = {0, 100, 325, 345, 500, 950, 0},
    .bishop_pair = 30,
    .mobility = {0, 0, 4, 4, 2, 1, 0},
    .advance = {0, 5, 12, 25, 45, 80},
    .shield = 12,
    .king_unit = {0, 1, 2, 2, 3, 5, 0},
    .danger = 6,
    .check = 40,
};

static inline bool in_set(const uint64_t s[2], int cell)
{
    return s[cell >> 6] >> (cell & 63) & 1;
}
/* Bits set in a0 and a1 (by hand: without -mpopcnt the builtin is a call). */
static inline int count_set(uint64_t a0, uint64_t a1)
{
    uint64_t x = a0 - ((a0 >> 1) & 0x5555555555555555ull);
    uint64_t z = a1 - ((a1 >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    z = (z & 0x3333333333333333ull) + ((z >> 2) & 0x3333333333333333ull);
    x = ((x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full) + ((z + (z >> 4)) & 0x0f0f0f0f0f0f0f0full);
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* What one player's pieces do: a sum of terms and the cells they attack. */
typedef struct side_eval {
    int raw;
    int bishops;
    int units, attackers; /* on this player's king zone, by both opponents */
    uint64_t occ[2];      /* cells of its pieces */
    uint64_t pawn_att[2], att[2];
} side_eval;

/* The cells a slider attacks along its rays: every cell up to and with the
 * first piece met (the cells a fork repeats are walked once). */
static void slider_reach(const uint8_t *b, const ray *rays, int n, uint64_t a[2])
{
    uint64_t lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t *rc = T.ray_cells + rays[i].start;
        for (int j = 0; j < rays[i].len; j++) {
            int t = rc[j];
            if (j >= rays[i].skip) {
                uint64_t bit = 1ull << (t & 63), high = 0 - (uint64_t)(t >> 6);
                hi |= bit & high;
                lo |= bit & ~high;
            }
            if (b[t])
                break;
        }
    }
    a[0] |= lo;
    a[1] |= hi;
}

/*
 * score[pl]: material, mobility, pawn advance and king safety of each player
 * on its own (the search compares each with the mean of the others); a
 * player who left gets INT32_MIN. Two passes: the board (material, advance, who stands where,
 * the cells pawns guard), then the pieces, whose mobility counts the cells
 * they attack that hold no piece of their own and no enemy pawn guards. No
 * allocation, no move generation.
 */
static void eval_with(const ypos *y, int to_move, const eval_weights *w, int32_t *score)
{
    const uint8_t *b = y->board;
    int active = 7 & ~y->left;
    side_eval s[3];
    memset(s, 0, sizeof s);
    uint8_t pieces[NCELLS];
    int npieces = 0;

    for (int c = 0; c < NCELLS; c++) {
        uint8_t pc = b[c];
        if (!pc)
            continue;
        int pl = OWNER(pc), kind = KIND(pc);
        s[pl].occ[c >> 6] |= 1ull << (c & 63);
        if (!(active & (1 << pl)))
            continue;
        s[pl].raw += w->value[kind];
        if (kind != PAWN) {
            if (kind != KING)
                pieces[npieces++] = (uint8_t)c;
            continue;
        }
        s[pl].raw += w->advance[T.advance[pl][c]];
        s[pl].pawn_att[0] |= T.pawn_att[pl][c][0];
        s[pl].pawn_att[1] |= T.pawn_att[pl][c][1];
    }

    /* What the enemy pawns guard; their attacks on the king's zone. */
    uint64_t free_[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    for (int pl = 0; pl < 3; pl++) {
        if (!(active & (1 << pl)))
            continue;
        const uint64_t *z = T.zone[y->king[pl]];
        uint64_t g0 = s[pl].occ[0], g1 = s[pl].occ[1];
        for (int op = 0; op < 3; op++) {
            if (op == pl || !(active & (1 << op)))
                continue;
            g0 |= s[op].pawn_att[0];
            g1 |= s[op].pawn_att[1];
            if ((s[op].pawn_att[0] & z[0]) | (s[op].pawn_att[1] & z[1]))
                s[pl].units += w->king_unit[PAWN];
        }
        free_[pl][0] = ~g0;
        free_[pl][1] = ~g1;
    }

    for (int i = 0; i < npieces; i++) {
        int c = pieces[i], pl = OWNER(b[c]), kind = KIND(b[c]);
        uint64_t a[2] = {0, 0};
        switch (kind) {
        case KNIGHT:
            a[0] = T.knight_set[c][0];
            a[1] = T.knight_set[c][1];
            break;
        case BISHOP:
            s[pl].bishops++;
            slider_reach(b, T.diag[c], T.diag_n[c], a);
            break;
        case ROOK:
            slider_reach(b, T.orth[c], T.orth_n[c], a);
            break;
        default: /* QUEEN */
            slider_reach(b, T.orth[c], T.orth_n[c], a);
            slider_reach(b, T.diag[c], T.diag_n[c], a);
            break;
        }
        s[pl].raw += w->mobility[kind] * count_set(a[0] & free_[pl][0], a[1] & free_[pl][1]);
        s[pl].att[0] |= a[0];
        s[pl].att[1] |= a[1];
        for (int op = 0; op < 3; op++) {
            if (op == pl || !(active & (1 << op)))
                continue;
            const uint64_t *z = T.zone[y->king[op]];
            if ((a[0] & z[0]) | (a[1] & z[1])) {
                s[op].units += w->king_unit[kind];
                s[op].attackers++;
            }
        }
    }

    for (int pl = 0; pl < 3; pl++) {
        if (!(active & (1 << pl)))
            continue;
        side_eval *e = &s[pl];
        int k = y->king[pl];
        if (e->bishops >= 2)
            e->raw += w->bishop_pair;
        int penalty = w->danger * e->units * e->units / 16;
        e->raw -= e->attackers >= 2 ? penalty : penalty / 2;
        if (T.section[k] == pl && r_of(k) <= 1) {
            int shield = 0;
            for (int i = 0; i < T.adj_n[k]; i++)
                shield += b[T.adj[k][i]] == PC(PAWN, pl);
            e->raw += w->shield * (shield < 3 ? shield : 3);
        }
        if (pl != to_move)
            for (int op = 0; op < 3; op++)
                if (op != pl && (active & (1 << op)) &&
                    (in_set(s[op].att, k) || in_set(s[op].pawn_att, k))) {
                    e->raw -= w->check;
                    break;
                }
    }
    for (int pl = 0; pl < 3; pl++)
        score[pl] = active & (1 << pl) ? s[pl].raw : INT32_MIN;
}

static void yalta_evaluate(const rules_pos *p, int32_t *score)
{
    eval_with(CY(p), p->to_move, &EVAL_W, score);
}

/* A legal move captures when it lands on a piece (castling never does) or
 * takes en passant. */
static bool yalta_is_capture(const rules_pos *p, rules_move m)
{
    return CY(p)->board[MV_TO(m)] != 0 || MV_FLAG(m) == MF_EP;
}

/*
 * Give the turn to `player` as if it had come round to it: its own en
 * passant entry has had its chances, so it is parked (out of the hash)
 * until the turn goes back; the entry parked for the player that had the
 * turn comes back. Calling it again with the previous player restores the
 * position exactly. A make clears the parked entries (the player has moved:
 * its old double step is over) and the unmake restores them.
 */
static unsigned yalta_players_left(const rules_pos *p)
{
    return CY(p)->left;
}

static void yalta_set_to_move(rules_pos *p, int player)
{
    tables_init();
    ypos *y = Y(p);
    int was = p->to_move;
    /* The search asks only for players in the game (players_left); a
     * release build ignores any other request rather than abort. */
#ifdef CHAMELEON_CHECKS
    assert(player >= 0 && player < 3 && !(y->left & (1 << player)));
#endif
    if (player == was || player < 0 || player > 2 || (y->left & (1 << player)))
        return;
    uint64_t h = p->hash ^ T.zturn[was] ^ T.zturn[player];
    if (y->parked[was] != NONE) {
        y->ep[was] = y->parked[was];
        y->parked[was] = NONE;
        h ^= T.zep[y->ep[was]];
    }
    if (y->ep[player] != NONE) {
        h ^= T.zep[y->ep[player]];
        y->parked[player] = y->ep[player];
        y->ep[player] = NONE;
    }
    p->to_move = (uint8_t)player;
    p->hash = h;
}

/* ------------------------------------------------------------------------ */

static const char *const player_names[3] = {"white", "red", "black"};

/* Cell names in index order (quad, rank from the back, file from the
 * outer edge); tables_build checks them against the names it derives. */
static const char *const cell_names[NCELLS] = {
    "a1",  "b1",  "c1",  "d1",  "a2",  "b2",  "c2",  "d2",  "a3",  "b3",  "c3",  "d3",
    "a4",  "b4",  "c4",  "d4",  "h1",  "g1",  "f1",  "e1",  "h2",  "g2",  "f2",  "e2",
    "h3",  "g3",  "f3",  "e3",  "h4",  "g4",  "f4",  "e4",  "a8",  "b8",  "c8",  "d8",
    "a7",  "b7",  "c7",  "d7",  "a6",  "b6",  "c6",  "d6",  "a5",  "b5",  "c5",  "d5",
    "l8",  "k8",  "j8",  "i8",  "l7",  "k7",  "j7",  "i7",  "l6",  "k6",  "j6",  "i6",
    "l5",  "k5",  "j5",  "i5",  "h12", "g12", "f12", "e12", "h11", "g11", "f11", "e11",
    "h10", "g10", "f10", "e10", "h9",  "g9",  "f9",  "e9",  "l12", "k12", "j12", "i12",
    "l11", "k11", "j11", "i11", "l10", "k10", "j10", "i10", "l9",  "k9",  "j9",  "i9",
};

const rules_variant yalta_variant = {
    .id = "yalta",
    .name = "Yalta chess (three players)",
    .nplayers = 3,
    .player_names = player_names,
    .ncells = NCELLS,
    .cell_names = cell_names,
    .init = yalta_init,
    .parse_position = yalta_parse_position,
    .print_position = yalta_print_position,
    .legal_moves = yalta_legal_moves,
    .make = yalta_make,
    .unmake = yalta_unmake,
    .parse_move = yalta_parse_move,
    .print_move = yalta_print_move,
    .display_move = NULL,
    .piece_at = yalta_piece_at,
    .cell_flags = yalta_cell_flags,
    .status = yalta_status,
    .leave = yalta_leave,
    .evaluate = yalta_evaluate,
    .is_capture = yalta_is_capture,
    .set_to_move = yalta_set_to_move,
    .players_left = yalta_players_left,
    .in_check = yalta_in_check,
};
