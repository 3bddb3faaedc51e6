/*
 * rules.c - what every game shares: the registry, error and reason tables,
 * cell names, perft, captures found by difference, and the game layer
 * (move list, repetition, players leaving, the result).
 */
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rules_err_code(int err)
{
    switch (err) {
    case RULES_OK:
        return "ok";
#define RULES_ERR_CODE(name, value, code, text)                                                    \
    case name:                                                                                     \
        return code;
        RULES_ERRORS(RULES_ERR_CODE)
#undef RULES_ERR_CODE
    }
    return "unknown_error";
}

const char *rules_err_text(int err)
{
    switch (err) {
    case RULES_OK:
        return "no error";
#define RULES_ERR_TEXT(name, value, code, text)                                                    \
    case name:                                                                                     \
        return text;
        RULES_ERRORS(RULES_ERR_TEXT)
#undef RULES_ERR_TEXT
    }
    return "unknown error";
}

static const char *const reason_names[] = {
#define RULES_REASON_NAME(name, text) text,
    RULES_REASONS(RULES_REASON_NAME)
#undef RULES_REASON_NAME
};

const char *rules_reason_name(rules_reason r)
{
    if ((unsigned)r >= RULES_REASON_COUNT)
        return "none";
    return reason_names[r];
}

const rules_variant *rules_find(const char *id)
{
    if (id == NULL)
        return NULL;
    for (const rules_variant *const *v = rules_variants; *v != NULL; v++)
        if (strcmp((*v)->id, id) == 0)
            return *v;
    return NULL;
}

void rules_why(char *why, size_t whylen, const char *fmt, ...)
{
    if (why == NULL || whylen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

const char *rules_cell_name(const rules_variant *v, int cell)
{
    if (cell < 0 || cell >= v->ncells)
        return "?";
    return v->cell_names[cell];
}

int rules_cell_parse(const rules_variant *v, const char *name)
{
    int len;
    int cell = rules_cell_parse_prefix(v, name, &len);
    return (cell >= 0 && name[len] == '\0') ? cell : -1;
}

int rules_cell_parse_prefix(const rules_variant *v, const char *s, int *len)
{
    int best = -1, bestlen = 0;
    for (int c = 0; c < v->ncells; c++) {
        const char *n = v->cell_names[c];
        size_t l = strlen(n);
        if ((int)l > bestlen && strncmp(s, n, l) == 0) {
            best = c;
            bestlen = (int)l;
        }
    }
    if (len != NULL)
        *len = bestlen;
    return best;
}

void rules_pos_init(rules_pos *p, const rules_variant *v)
{
    memset(p, 0, sizeof *p);
    p->variant = v;
    v->init(p);
}

int rules_move_captures(const rules_pos *p, rules_move m, int *cells)
{
    const rules_variant *v = p->variant;
    rules_pos after = *p;
    rules_undo u;
    int mover = p->to_move, n = 0;
    v->make(&after, m, &u);
    for (int c = 0; c < v->ncells; c++) {
        int before_owner, after_owner;
        char before = v->piece_at(p, c, &before_owner);
        if (before == 0 || before_owner == mover)
            continue;
        char now = v->piece_at(&after, c, &after_owner);
        if (now == 0 || after_owner != before_owner)
            cells[n++] = c;
    }
    return n;
}

int rules_display_move(const rules_pos *p, rules_move m, char *buf, size_t len)
{
    const rules_variant *v = p->variant;
    if (v->display_move != NULL)
        return v->display_move(p, m, buf, len);

    char text[RULES_MOVE_TEXT];
    if (v->print_move(p, m, text, sizeof text) < 0)
        return -1;
    /* The moving piece stands on the first cell named by the text. */
    int owner, clen;
    int from = rules_cell_parse_prefix(v, text, &clen);
    char letter = from >= 0 ? v->piece_at(p, from, &owner) : 0;
    int cells[RULES_MAX_CELLS];
    int ncap = rules_move_captures(p, m, cells);

    size_t used = 0;
    int w = snprintf(buf, len, "%s%s", letter ? (char[]){letter, 0} : "", text);
    if (w < 0 || (size_t)w >= len)
        return -1;
    used = (size_t)w;
    for (int i = 0; i < ncap; i++) {
        w = snprintf(buf + used, len - used, "x%s", rules_cell_name(v, cells[i]));
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return (int)used;
}

uint64_t rules_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t rules_perft(rules_pos *p, int depth)
{
    if (depth <= 0)
        return 1;
    const rules_variant *v = p->variant;
    rules_move moves[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    rules_undo u;
    for (int i = 0; i < n; i++) {
        v->make(p, moves[i], &u);
        total += rules_perft(p, depth - 1);
        v->unmake(p, moves[i], &u);
    }
    return total;
}

/* ------------------------------------------------------------------------ */
/* The game layer. */

static int game_reserve(rules_game *g, size_t need)
{
    if (need <= g->cap)
        return 0;
    size_t cap = g->cap ? g->cap * 2 : 64;
    while (cap < need)
        cap *= 2;
    rules_move *moves = realloc(g->moves, cap * sizeof *moves);
    if (moves == NULL)
        return RULES_ENOMEM;
    g->moves = moves;
    uint64_t *hashes = realloc(g->hashes, (cap + 1) * sizeof *hashes);
    if (hashes == NULL)
        return RULES_ENOMEM;
    g->hashes = hashes;
    g->cap = cap;
    return 0;
}

static int players_left_in(const rules_game *g)
{
    int n = 0;
    for (int i = 0; i < g->variant->nplayers; i++)
        if (g->result.outcome[i] == RULES_OUTCOME_NONE)
            n++;
    return n;
}

/* Whether a leave, after which `in` players are still in, takes the
 * leaver's pieces out of play while the others play on (else it ends the
 * game and the position stays as it is). rules_game_leave and
 * rules_game_walk both ask here, so the walk's positions are the game's. */
static bool leave_plays_on(const rules_variant *v, int in)
{
    return v->leave != NULL && in >= 2;
}

/* After a change of position: list the legal moves, then ask the variant
 * and the history whether the game is over. */
static void game_refresh(rules_game *g)
{
    const rules_variant *v = g->variant;
    g->nlegal = v->legal_moves(&g->pos, g->legal);

    rules_result r = g->result;
    v->status(&g->pos, g->nlegal, &r);
    if (r.over) {
        /* The variant decides for the players still in; those who left
         * before keep their loss. */
        for (int i = 0; i < v->nplayers; i++)
            if (g->result.outcome[i] == RULES_OUTCOME_LOSS)
                r.outcome[i] = RULES_OUTCOME_LOSS;
        g->result = r;
        return;
    }

    /* Threefold repetition: the same position, same player to move. */
    uint64_t h = g->pos.hash;
    int seen = 0;
    for (size_t i = 0; i <= g->nmoves; i++)
        if (g->hashes[i] == h)
            seen++;
    if (seen >= 3)
        rules_game_end_draw(g, RULES_REASON_REPETITION);
}

int rules_game_new(rules_game **out, const char *id, const char *position, char *why, size_t whylen)
{
    const rules_variant *v = rules_find(id);
    if (v == NULL) {
        rules_why(why, whylen, "unknown game id '%s'", id ? id : "(null)");
        return RULES_EUNKNOWN_GAME;
    }
    rules_game *g = calloc(1, sizeof *g);
    if (g == NULL)
        return RULES_ENOMEM;
    g->variant = v;
    rules_pos_init(&g->pos, v);
    if (position != NULL) {
        int err = v->parse_position(&g->pos, position, why, whylen);
        if (err < 0) {
            free(g);
            return err;
        }
    }
    g->start = g->pos;
    g->result.winner = -1;
    if (game_reserve(g, 64) < 0) {
        rules_game_free(g);
        return RULES_ENOMEM;
    }
    g->hashes[0] = g->pos.hash;
    game_refresh(g);
    *out = g;
    return 0;
}

void rules_game_free(rules_game *g)
{
    if (g == NULL)
        return;
    free(g->moves);
    free(g->hashes);
    free(g);
}

int rules_game_to_move(const rules_game *g)
{
    return g->result.over ? -1 : g->pos.to_move;
}

int rules_game_play(rules_game *g, rules_move m)
{
    if (g->result.over)
        return RULES_EGAME_OVER;
    int legal = 0;
    for (int i = 0; i < g->nlegal && !legal; i++)
        legal = g->legal[i] == m;
    if (!legal)
        return RULES_EILLEGAL;
    if (game_reserve(g, g->nmoves + 1) < 0)
        return RULES_ENOMEM;
    rules_undo u;
    g->variant->make(&g->pos, m, &u);
    g->moves[g->nmoves++] = m;
    g->hashes[g->nmoves] = g->pos.hash;
    game_refresh(g);
    return 0;
}

int rules_game_play_text(rules_game *g, int player, const char *text, rules_move *m, char *why,
                         size_t whylen)
{
    if (g->result.over) {
        rules_why(why, whylen, "the game is over");
        return RULES_EGAME_OVER;
    }
    if (player >= 0 && player != g->pos.to_move) {
        rules_why(why, whylen, "it is %s's turn", g->variant->player_names[g->pos.to_move]);
        return RULES_ENOT_YOUR_TURN;
    }
    rules_move mv;
    int err = g->variant->parse_move(&g->pos, text, &mv, why, whylen);
    if (err < 0)
        return err;
    err = rules_game_play(g, mv);
    if (err < 0) {
        rules_why(why, whylen, "%s: %s", text, rules_err_text(err));
        return err;
    }
    if (m != NULL)
        *m = mv;
    return 0;
}

int rules_game_leave(rules_game *g, int player, rules_reason why)
{
    const rules_variant *v = g->variant;
    if (player < 0 || player >= v->nplayers)
        return RULES_EBAD_PLAYER;
    if (g->result.over)
        return RULES_EGAME_OVER;
    if (g->result.outcome[player] != RULES_OUTCOME_NONE)
        return RULES_EBAD_PLAYER;

    g->result.outcome[player] = RULES_OUTCOME_LOSS;
    g->left[g->nleft++] = (rules_leave_rec){g->nmoves, player, why};
    if (leave_plays_on(v, players_left_in(g))) {
        v->leave(&g->pos, player);
        /* Earlier positions had this player in them: repetition restarts. */
        g->hashes[g->nmoves] = g->pos.hash;
        game_refresh(g);
        return 0;
    }
    /* One player is left: it wins. */
    for (int i = 0; i < v->nplayers; i++) {
        if (g->result.outcome[i] == RULES_OUTCOME_NONE) {
            g->result.outcome[i] = RULES_OUTCOME_WIN;
            g->result.winner = (int8_t)i;
        } else {
            g->result.outcome[i] = RULES_OUTCOME_LOSS;
        }
    }
    g->result.over = true;
    g->result.reason = why;
    g->nlegal = 0;
    return 0;
}

void rules_game_end_draw(rules_game *g, rules_reason why)
{
    const rules_variant *v = g->variant;
    for (int i = 0; i < v->nplayers; i++)
        if (g->result.outcome[i] != RULES_OUTCOME_LOSS)
            g->result.outcome[i] =
                why == RULES_REASON_ABORTED ? RULES_OUTCOME_NONE : RULES_OUTCOME_DRAW;
    g->result.over = true;
    g->result.winner = -1;
    g->result.reason = why;
    g->nlegal = 0;
}

int rules_game_replay(rules_game **out, const char *id, const char *position,
                      const rules_step *steps, size_t nsteps, char *why, size_t whylen)
{
    rules_game *g;
    int err = rules_game_new(&g, id, position, why, whylen);
    if (err < 0)
        return err;
    size_t nmove = 0;
    for (size_t i = 0; i < nsteps && err == 0; i++) {
        const rules_step *st = &steps[i];
        if (st->text == NULL) {
            err = rules_game_leave(g, st->player, st->reason);
            if (err < 0)
                rules_why(why, whylen, "player %d cannot leave after move %zu: %s", st->player,
                          nmove, rules_err_text(err));
            continue;
        }
        char sub[RULES_WHY_TEXT];
        err = rules_game_play_text(g, st->player, st->text, NULL, sub, sizeof sub);
        nmove++;
        if (err < 0)
            rules_why(why, whylen, "move %zu (%s): %s", nmove, st->text, sub);
    }
    if (err < 0) {
        rules_game_free(g);
        return err;
    }
    *out = g;
    return 0;
}

int rules_game_walk(const rules_game *g, size_t upto,
                    int (*visit)(void *arg, const rules_walk_step *s), void *arg)
{
    if (upto > g->nmoves)
        return RULES_EBAD_PLAYER;
    const rules_variant *v = g->variant;
    rules_pos pos = g->start, before;
    int in = v->nplayers, li = 0, err;
    for (size_t k = 0;; k++) {
        /* Recorded leaves are accepted ones: each takes one player out. */
        for (; li < g->nleft && g->left[li].after == k; li++) {
            const rules_leave_rec *l = &g->left[li];
            before = pos;
            in--;
            if (leave_plays_on(v, in))
                v->leave(&pos, l->player);
            err = visit(arg, &(rules_walk_step){k, 0, l, &before, &pos});
            if (err)
                return err;
        }
        if (k == upto)
            return 0;
        rules_undo u;
        before = pos;
        v->make(&pos, g->moves[k], &u);
        err = visit(arg, &(rules_walk_step){k, g->moves[k], NULL, &before, &pos});
        if (err)
            return err;
    }
}

/* rules_game_clone's visit: each step through the game layer, so that the
 * copy has the result, legal moves and hashes of the original. */
static int clone_step(void *arg, const rules_walk_step *s)
{
    rules_game *c = arg;
    if (s->m == 0) {
        rules_game_leave(c, s->leave->player, s->leave->reason);
        return 0;
    }
    return rules_game_play(c, s->m) < 0 ? RULES_EILLEGAL : 0;
}

int rules_game_clone(rules_game **out, const rules_game *g, size_t nmoves)
{
    if (nmoves > g->nmoves)
        return RULES_EBAD_PLAYER;
    rules_game *c = calloc(1, sizeof *c);
    if (c == NULL)
        return RULES_ENOMEM;
    c->variant = g->variant;
    c->start = c->pos = g->start;
    c->result.winner = -1;
    if (game_reserve(c, nmoves + 1) < 0) {
        rules_game_free(c);
        return RULES_ENOMEM;
    }
    c->hashes[0] = c->pos.hash;
    game_refresh(c);
    /* Draws and aborts are not steps: a copy of the whole game takes g's
     * result as it is. */
    if (rules_game_walk(g, nmoves, clone_step, c) < 0) {
        rules_game_free(c);
        return RULES_EILLEGAL;
    }
    if (nmoves == g->nmoves && g->result.over && !c->result.over) {
        c->result = g->result;
        c->nlegal = 0;
    }
    *out = c;
    return 0;
}
