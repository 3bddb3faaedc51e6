/*
 * wasm.c - the exports of build/rules.wasm (see wasm.h).
 */
#include "wasm.h"

#include "geometry.h"
#include "rules.h"
#include "search.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__wasm__)
#define EXPORT(name) __attribute__((export_name(#name)))
/* The host's clock (ms) and its listener for the search's progress. */
__attribute__((import_module("env"), import_name("now_ms"))) double host_now_ms(void);
__attribute__((import_module("env"), import_name("report"))) void host_report(const char *json,
                                                                              int len);

/* wasi-libc's single-threaded build declares call_once, which the games
 * use to build their tables, but does not define it: with one thread, once
 * is a flag. */
#include <threads.h>
void call_once(once_flag *flag, void (*func)(void))
{
    if (*flag == 0) {
        *flag = 1;
        func();
    }
}
#else
#define EXPORT(name)
#endif

static char io[WASM_IO_SIZE];

/* The writer of answers into io: stops (and marks overflow) at the end. */
typedef struct writer {
    char *buf;
    size_t len, cap;
    bool full;
} writer;

static writer writer_io(void)
{
    return (writer){io, 0, sizeof io, false};
}

static void w_put(writer *w, const char *s, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        w->full = true;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void w_str(writer *w, const char *s)
{
    w_put(w, s, strlen(s));
}

static void w_fmt(writer *w, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        w_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A JSON string (quotes and backslashes escaped; the core's texts are
 * printable ASCII). */
static void w_json(writer *w, const char *s)
{
    w_put(w, "\"", 1);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            w_put(w, "\\", 1);
        w_put(w, s, 1);
    }
    w_put(w, "\"", 1);
}

static int w_done(writer *w)
{
    if (w->full) {
        rules_why(io, sizeof io, "answer too long for the io buffer");
        return RULES_ENOMEM;
    }
    return (int)w->len;
}

static int fail(int err, const char *why)
{
    if (why != io)
        snprintf(io, sizeof io, "%s", why);
    return err;
}

EXPORT(wasm_io) char *wasm_io(void)
{
    return io;
}

EXPORT(wasm_games) int wasm_games(void)
{
    writer w = writer_io();
    w_str(&w, "[");
    for (int i = 0; rules_variants[i] != NULL; i++) {
        const rules_variant *v = rules_variants[i];
        if (i)
            w_str(&w, ",");
        w_str(&w, "{\"id\":");
        w_json(&w, v->id);
        w_str(&w, ",\"name\":");
        w_json(&w, v->name);
        w_fmt(&w, ",\"players\":%d,\"colours\":[", v->nplayers);
        for (int p = 0; p < v->nplayers; p++) {
            if (p)
                w_str(&w, ",");
            w_json(&w, v->player_names[p]);
        }
        w_str(&w, "],\"cells\":[");
        for (int c = 0; c < v->ncells; c++) {
            if (c)
                w_str(&w, ",");
            w_json(&w, v->cell_names[c]);
        }
        w_str(&w, "]}");
    }
    w_str(&w, "]");
    return w_done(&w);
}

/* ------------------------------------------------------------------------ */
/* Boards (geometry.h). */

/* A number with 12 significant digits (the boards' coordinates are below
 * 20: within 1e-10 of the core's double), -0 written as 0. */
static void w_num(writer *w, double x)
{
    w_fmt(w, "%.12g", x + 0.0);
}

static void w_point(writer *w, const double *p)
{
    w_str(w, "[");
    w_num(w, p[0]);
    w_str(w, ",");
    w_num(w, p[1]);
    w_str(w, "]");
}

static void w_points(writer *w, const double (*pts)[2], int n)
{
    w_str(w, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            w_str(w, ",");
        w_point(w, pts[i]);
    }
    w_str(w, "]");
}

static void w_cell(writer *w, const geometry_board *b, int i)
{
    static const char *const rings[] = {"", "outer", "inner"};
    const geometry_cell *c = &b->cells[i];
    w_str(w, "{\"name\":");
    w_json(w, b->variant->cell_names[i]);
    w_str(w, ",\"poly\":");
    w_points(w, (const double(*)[2])c->poly, c->npoints);
    w_fmt(w, ",\"shade\":%d", c->shade);
    if (c->ring != GEOMETRY_RING_NONE)
        w_fmt(w, ",\"ring\":\"%s\"", rings[c->ring]);
    if (c->hex)
        w_fmt(w, ",\"q\":%d,\"r\":%d", c->q, c->r);
    if (c->centre)
        w_str(w, ",\"centreCell\":true");
    w_str(w, "}");
}

static void w_decor(writer *w, const geometry_board *b, const geometry_decor *d)
{
    switch (d->kind) {
    case GEOMETRY_DECOR_RING:
        w_str(w, "{\"kind\":\"ring\",\"pts\":");
        w_points(w, (const double(*)[2])d->pts, d->npoints);
        break;
    case GEOMETRY_DECOR_HOLE:
        w_str(w, "{\"kind\":\"hole\",\"poly\":");
        w_points(w, (const double(*)[2])d->pts, d->npoints);
        break;
    case GEOMETRY_DECOR_CENTRE:
        w_str(w, "{\"kind\":\"centre\",\"c\":");
        w_point(w, d->pts[0]);
        break;
    case GEOMETRY_DECOR_CENTRE_CELL:
        w_str(w, "{\"kind\":\"centre-cell\",\"cell\":");
        w_json(w, d->cell >= 0 ? b->variant->cell_names[d->cell] : "");
        break;
    }
    w_str(w, "}");
}

static geometry_board board;

EXPORT(wasm_board) int wasm_board(int index)
{
    int n = 0;
    while (rules_variants[n] != NULL)
        n++;
    if (index < 0 || index >= n)
        return fail(RULES_EUNKNOWN_GAME, "no such game index");
    const rules_variant *v = rules_variants[index];
    if (geometry_build(v, &board) < 0)
        return fail(RULES_EUNKNOWN_GAME, "no board geometry for that game");
    const geometry_board *b = &board;
    writer w = writer_io();
    w_str(&w, "{\"players\":[");
    for (int p = 0; p < v->nplayers; p++) {
        w_str(&w, p ? ",{\"name\":" : "{\"name\":");
        w_json(&w, b->name[p]);
        w_str(&w, ",\"colour\":");
        w_json(&w, b->colour[p]);
        w_str(&w, "}");
    }
    w_str(&w, "],\"cells\":[");
    for (int i = 0; i < b->ncells; i++) {
        if (i)
            w_str(&w, ",");
        w_cell(&w, b, i);
    }
    w_str(&w, "],\"labels\":[");
    for (int i = 0; i < b->nlabels; i++) {
        const geometry_label *l = &b->labels[i];
        w_str(&w, i ? ",{\"x\":" : "{\"x\":");
        w_num(&w, l->x);
        w_str(&w, ",\"y\":");
        w_num(&w, l->y);
        w_str(&w, ",\"text\":");
        w_json(&w, l->text);
        if (l->keep)
            w_fmt(&w, ",\"keep\":\"%c\"", l->keep);
        w_str(&w, "}");
    }
    w_str(&w, "],\"decor\":[");
    for (int i = 0; i < b->ndecor; i++) {
        if (i)
            w_str(&w, ",");
        w_decor(&w, b, &b->decor[i]);
    }
    w_str(&w, "],\"homes\":");
    w_points(&w, (const double(*)[2])b->homes, v->nplayers);
    w_str(&w, ",\"centre\":");
    w_point(&w, b->centre);
    w_str(&w, "}");
    return w_done(&w);
}

/* ------------------------------------------------------------------------ */
/* Handles: a small table of games; a handle is its index + 1. */

enum { MAX_GAMES = 64 };
static rules_game *games[MAX_GAMES];

static rules_game *game_of(int h)
{
    if (h < 1 || h > MAX_GAMES)
        return NULL;
    return games[h - 1];
}

EXPORT(wasm_new) int wasm_new(const char *id, const char *position)
{
    int slot = 0;
    while (slot < MAX_GAMES && games[slot] != NULL)
        slot++;
    if (slot == MAX_GAMES)
        return fail(RULES_ENOMEM, "too many games open at once (free some)");
    char why[RULES_WHY_TEXT] = "";
    rules_game *g = NULL;
    int err = rules_game_new(&g, id, position && position[0] ? position : NULL, why, sizeof why);
    if (err < 0)
        return fail(err, why[0] ? why : rules_err_text(err));
    games[slot] = g;
    return slot + 1;
}

EXPORT(wasm_free) void wasm_free(int h)
{
    rules_game *g = game_of(h);
    if (g != NULL) {
        rules_game_free(g);
        games[h - 1] = NULL;
    }
}

#define GAME_OR_FAIL(g, h)                                                                         \
    rules_game *g = game_of(h);                                                                    \
    if (g == NULL)                                                                                 \
        return fail(RULES_EBAD_PLAYER, "no such game handle");

EXPORT(wasm_legal) int wasm_legal(int h)
{
    GAME_OR_FAIL(g, h);
    writer w = writer_io();
    if (g->result.over)
        return w_done(&w);
    for (int i = 0; i < g->nlegal; i++) {
        char t[RULES_MOVE_TEXT];
        if (g->variant->print_move(&g->pos, g->legal[i], t, sizeof t) < 0)
            continue;
        if (i)
            w_str(&w, "\n");
        w_str(&w, t);
    }
    return w_done(&w);
}

/* The texts collected by wasm_premoves: a set by hash (open addressing),
 * the texts written one per line into io as they are first seen. */
enum { PREMOVE_SLOTS = 4096 };
static uint32_t premove_seen[PREMOVE_SLOTS];

static uint32_t text_hash(const char *t)
{
    uint32_t h = 2166136261u;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 16777619u;
    return h | 1; /* 0 marks an empty slot */
}

static void premove_add(writer *w, const char *t)
{
    uint32_t h = text_hash(t);
    for (uint32_t i = h & (PREMOVE_SLOTS - 1);; i = (i + 1) & (PREMOVE_SLOTS - 1)) {
        if (premove_seen[i] == h)
            return; /* (a collision drops a move: harmless for hints) */
        if (premove_seen[i] == 0) {
            premove_seen[i] = h;
            break;
        }
    }
    if (w->len)
        w_str(w, "\n");
    w_str(w, t);
}

static void premoves_from(writer *w, rules_pos *p, int player, int depth)
{
    const rules_variant *v = p->variant;
    rules_move mv[RULES_MAX_MOVES];
    int n = v->legal_moves(p, mv);
    rules_result r = {0};
    r.winner = -1;
    v->status(p, n, &r);
    if (r.over)
        return;
    if (p->to_move == player) {
        char t[RULES_MOVE_TEXT];
        for (int i = 0; i < n; i++)
            if (v->print_move(p, mv[i], t, sizeof t) >= 0)
                premove_add(w, t);
        return;
    }
    if (depth == 0)
        return;
    for (int i = 0; i < n; i++) {
        rules_undo u;
        v->make(p, mv[i], &u);
        premoves_from(w, p, player, depth - 1);
        v->unmake(p, mv[i], &u);
    }
}

EXPORT(wasm_premoves) int wasm_premoves(int h, int player)
{
    GAME_OR_FAIL(g, h);
    writer w = writer_io();
    if (g->result.over || player < 0 || player >= g->variant->nplayers)
        return w_done(&w);
    memset(premove_seen, 0, sizeof premove_seen);
    rules_pos p = g->pos;
    premoves_from(&w, &p, player, g->variant->nplayers - 1);
    return w_done(&w);
}

EXPORT(wasm_captures) int wasm_captures(int h, const char *text)
{
    GAME_OR_FAIL(g, h);
    char why[RULES_WHY_TEXT] = "";
    char move[RULES_MOVE_TEXT];
    snprintf(move, sizeof move, "%s", text);
    rules_move m = 0;
    int err = g->result.over ? RULES_EGAME_OVER
                             : g->variant->parse_move(&g->pos, move, &m, why, sizeof why);
    if (err < 0)
        return fail(err, why[0] ? why : rules_err_text(err));
    int cells[RULES_MAX_CELLS];
    int n = rules_move_captures(&g->pos, m, cells);
    writer w = writer_io();
    for (int i = 0; i < n; i++) {
        if (i)
            w_str(&w, "\n");
        w_str(&w, rules_cell_name(g->variant, cells[i]));
    }
    return w_done(&w);
}

EXPORT(wasm_play) int wasm_play(int h, const char *text)
{
    GAME_OR_FAIL(g, h);
    char why[RULES_WHY_TEXT] = "";
    char move[RULES_MOVE_TEXT];
    snprintf(move, sizeof move, "%s", text);
    rules_pos before = g->pos;
    rules_move m = 0;
    int err = rules_game_play_text(g, -1, move, &m, why, sizeof why);
    if (err < 0)
        return fail(err, why[0] ? why : rules_err_text(err));
    char shown[RULES_MOVE_TEXT];
    int n = rules_display_move(&before, m, shown, sizeof shown);
    if (n < 0)
        snprintf(shown, sizeof shown, "%s", move);
    snprintf(io, sizeof io, "%s", shown);
    return (int)strlen(io);
}

EXPORT(wasm_leave) int wasm_leave(int h, int player, const char *reason)
{
    GAME_OR_FAIL(g, h);
    rules_reason r = RULES_REASON_RESIGNATION;
    for (int i = 0; i < RULES_REASON_COUNT; i++)
        if (strcmp(reason, rules_reason_name((rules_reason)i)) == 0)
            r = (rules_reason)i;
    int err = rules_game_leave(g, player, r);
    if (err < 0)
        return fail(err, rules_err_text(err));
    io[0] = '\0';
    return 0;
}

EXPORT(wasm_undo) int wasm_undo(int h)
{
    GAME_OR_FAIL(g, h);
    if (g->nmoves == 0)
        return fail(RULES_EILLEGAL, "no move to take back");
    rules_game *back = NULL;
    int err = rules_game_clone(&back, g, g->nmoves - 1);
    if (err < 0)
        return fail(err, rules_err_text(err));
    rules_game_free(g);
    games[h - 1] = back;
    io[0] = '\0';
    return 0;
}

EXPORT(wasm_position) int wasm_position(int h)
{
    GAME_OR_FAIL(g, h);
    int n = g->variant->print_position(&g->pos, io, sizeof io);
    return n < 0 ? fail(RULES_EBAD_POSITION, "position does not fit") : n;
}

EXPORT(wasm_status) int wasm_status(int h)
{
    GAME_OR_FAIL(g, h);
    writer w = writer_io();
    w_fmt(&w, "{\"over\":%s,\"winner\":", g->result.over ? "true" : "false");
    if (g->result.over && g->result.winner >= 0)
        w_fmt(&w, "%d", g->result.winner);
    else
        w_str(&w, "null");
    w_str(&w, ",\"reason\":");
    if (g->result.over)
        w_json(&w, rules_reason_name(g->result.reason));
    else
        w_str(&w, "null");
    w_fmt(&w, ",\"to_move\":%d,\"moves\":%zu}", rules_game_to_move(g), g->nmoves);
    return w_done(&w);
}

EXPORT(wasm_pieces) int wasm_pieces(int h)
{
    GAME_OR_FAIL(g, h);
    const rules_variant *v = g->variant;
    writer w = writer_io();
    w_str(&w, "[");
    bool first = true;
    for (int c = 0; c < v->ncells; c++) {
        int owner = -1;
        char letter = v->piece_at(&g->pos, c, &owner);
        if (!letter)
            continue;
        unsigned flags = v->cell_flags ? v->cell_flags(&g->pos, c) : 0;
        w_fmt(&w, "%s[%d,\"%c\",%d,%u]", first ? "" : ",", c, letter, owner, flags);
        first = false;
    }
    w_str(&w, "]");
    return w_done(&w);
}

EXPORT(wasm_perft) double wasm_perft(int h, int depth)
{
    rules_game *g = game_of(h);
    if (g == NULL || depth < 0)
        return -1;
    rules_pos p = g->pos;
    return (double)rules_perft(&p, depth);
}

/* ------------------------------------------------------------------------ */
/* The engine. */

static search_ctx *engine;

#if defined(__wasm__)
static int64_t now_ms(void)
{
    return (int64_t)host_now_ms();
}
#endif

/* A report or answer: {"depth",..,"pv":[texts]}; the line stops at the
 * first move that is not legal where it stands (best-reply lines may skip
 * a player). */
static int write_report(const rules_pos *root, const search_report *r)
{
    const rules_variant *v = root->variant;
    writer w = writer_io();
    w_fmt(&w, "{\"depth\":%d,\"seldepth\":%d,\"score\":%d", r->depth, r->seldepth, r->score);
    w_fmt(&w, ",\"nodes\":%.0f,\"ms\":%.0f,\"best\":", (double)r->nodes, (double)r->ms);
    char t[RULES_MOVE_TEXT];
    if (r->best && v->print_move(root, r->best, t, sizeof t) >= 0)
        w_json(&w, t);
    else
        w_str(&w, "null");
    w_str(&w, ",\"pv\":[");
    rules_pos p = *root;
    for (int i = 0; i < r->npv; i++) {
        rules_move legal[RULES_MAX_MOVES];
        int n = v->legal_moves(&p, legal);
        bool ok = false;
        for (int k = 0; k < n && !ok; k++)
            ok = legal[k] == r->pv[i];
        if (!ok || rules_display_move(&p, r->pv[i], t, sizeof t) < 0)
            break;
        if (i)
            w_str(&w, ",");
        w_json(&w, t);
        rules_undo u;
        v->make(&p, r->pv[i], &u);
    }
    w_str(&w, "]}");
    return w_done(&w);
}

static void on_report(void *arg, const search_report *r)
{
    int n = write_report(arg, r);
#if defined(__wasm__)
    if (n > 0)
        host_report(io, n);
#else
    (void)n;
#endif
}

EXPORT(wasm_analyse) int wasm_analyse(int h, int ms, int depth, int multi)
{
    GAME_OR_FAIL(g, h);
    if (g->result.over)
        return fail(RULES_EGAME_OVER, "the game is over");
    if (engine == NULL)
        engine = search_new(16u << 20);
    if (engine == NULL)
        return fail(RULES_ENOMEM, "no memory for the engine's table");
    search_limits l = {.ms = ms > 0 ? ms : 0,
                       .depth = depth > 0 ? depth : 0,
                       .level = SEARCH_LEVEL_MAX,
                       .multi = (search_multi)(multi >= 0 && multi <= 2 ? multi : 0)};
#if defined(__wasm__)
    l.now_ms = now_ms;
#endif
    if (l.ms == 0 && l.depth == 0)
        l.depth = 6;
    search_report r;
    /* The game's earlier positions, for repetitions. */
    int err = search_run(engine, &g->pos, g->hashes, g->nmoves, &l, on_report, &g->pos, &r);
    if (err < 0)
        return fail(err, rules_err_text(err));
    return write_report(&g->pos, &r);
}
