/*
 * uci.c - the UCI dialect of the engine program (see uci.h).
 *
 * A line is split into words; the first word picks a row of the command
 * table, whose handler parses the rest and either changes the state or
 * prints one `info string error:` sentence and changes nothing. Every
 * handler that builds something new (a game from `position`, a search
 * table from `Hash`) builds it aside and swaps it in only once it is whole.
 */
#include "uci.h"

#include "rules.h"
#include "search.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    UCI_HASH_DEFAULT = 16,
    UCI_HASH_MIN = 1,
    UCI_HASH_MAX = 4096,
    UCI_LINE_MAX = 8192, /* longest line printed (an info line with its pv) */
    UCI_MAX_WORDS = 4096,
};

struct uci {
    uci_out_fn out;
    void *arg;
    rules_game *game; /* the position `go` searches, with its history */
    search_ctx *search;
    int hash_mb;
    int level;
    search_multi multi;
    uint64_t ngo; /* searches started: varies the weaker levels' seed */

    /* The prepared search. Written by uci_line on `go` while not busy, read
     * by uci_think, so one thread writes it at a time. */
    atomic_bool busy;
    atomic_bool stopped; /* `stop` or `quit` came during this search */
    search_limits limits;
    bool infinite;
    bool reported; /* an info line was printed for this search */
    int err;
    search_report result;
};

/* ------------------------------------------------------------------------ */
/* Output. */

static void say(uci *u, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void say(uci *u, const char *fmt, ...)
{
    char line[UCI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    u->out(u->arg, line);
}

#define ERROR(u, ...) say(u, "info string error: " __VA_ARGS__)

/* A bounded string builder: appends until full, then drops the rest. */
typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_add(strbuf *b, const char *fmt, ...)
{
    if (b->len + 1 >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    b->len += (size_t)n;
    if (b->len >= b->cap)
        b->len = b->cap - 1;
}

/* ------------------------------------------------------------------------ */
/* Words of a line. */

typedef struct words {
    char *buf;
    char **w;
    int n;
} words;

static int split(const char *line, words *ws)
{
    ws->buf = strdup(line);
    ws->w = NULL;
    ws->n = 0;
    if (ws->buf == NULL)
        return -1;
    size_t cap = 0;
    for (char *p = ws->buf; *p;) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        if ((size_t)ws->n == cap) {
            if (cap >= UCI_MAX_WORDS)
                return -1;
            cap = cap ? cap * 2 : 16;
            char **w = realloc(ws->w, cap * sizeof *w);
            if (w == NULL)
                return -1;
            ws->w = w;
        }
        ws->w[ws->n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return 0;
}

static void words_free(words *ws)
{
    free(ws->buf);
    free(ws->w);
}

/* Words [from, to) joined by single spaces into buf; false if too long. */
static bool join(const words *ws, int from, int to, char *buf, size_t len)
{
    strbuf b = {buf, 0, len};
    buf[0] = '\0';
    for (int i = from; i < to; i++)
        sb_add(&b, "%s%s", i > from ? " " : "", ws->w[i]);
    return b.len + 1 < len;
}

/* A whole non-negative decimal number (at most 2^62). */
static bool parse_count(const char *s, long long *v)
{
    if (!isdigit((unsigned char)s[0]) || strlen(s) > 18)
        return false;
    char *end;
    *v = strtoll(s, &end, 10);
    return *end == '\0';
}

/* ------------------------------------------------------------------------ */
/* Formatting of search results. */

/* A score as UCI has it: `cp X`, or `mate N` in moves of the side to move
 * (negative when it is mated) for a forced result. */
static void add_score(strbuf *b, int score, int nplayers)
{
    if (score >= SEARCH_WIN_BOUND || score <= -SEARCH_WIN_BOUND) {
        int plies = SEARCH_WIN - (score < 0 ? -score : score);
        int moves = (plies + nplayers - 1) / nplayers;
        sb_add(b, "mate %d", score < 0 ? -moves : moves);
    } else {
        sb_add(b, "cp %d", score);
    }
}

/* The pv from the root, each move checked legal before it is printed (a
 * table move from a hash collision ends the line instead of crashing). */
static void add_pv(strbuf *b, const rules_pos *root, const rules_move *pv, int npv)
{
    rules_pos p = *root;
    const rules_variant *v = p.variant;
    rules_move legal[RULES_MAX_MOVES];
    for (int i = 0; i < npv; i++) {
        int n = v->legal_moves(&p, legal);
        bool ok = false;
        for (int k = 0; k < n && !ok; k++)
            ok = legal[k] == pv[i];
        char text[RULES_MOVE_TEXT];
        if (!ok || v->print_move(&p, pv[i], text, sizeof text) < 0)
            return;
        sb_add(b, " %s", text);
        rules_undo undo;
        v->make(&p, pv[i], &undo);
    }
}

static void print_info(uci *u, const search_report *r)
{
    char line[UCI_LINE_MAX];
    strbuf b = {line, 0, sizeof line};
    int64_t ms = r->ms > 0 ? r->ms : 0;
    uint64_t nps = ms > 0 ? r->nodes * 1000 / (uint64_t)ms : r->nodes * 1000;
    sb_add(&b, "info depth %d seldepth %d score ", r->depth,
           r->seldepth > r->depth ? r->seldepth : r->depth);
    add_score(&b, r->score, u->game->variant->nplayers);
    sb_add(&b, " nodes %" PRIu64 " nps %" PRIu64 " time %" PRId64, r->nodes, nps, ms);
    if (r->npv > 0) {
        sb_add(&b, " pv");
        add_pv(&b, &u->game->pos, r->pv, r->npv);
    }
    u->out(u->arg, line);
    u->reported = true;
}

static void on_report(void *arg, const search_report *r)
{
    uci *u = arg;
    print_info(u, r);
    /* A stop that came between `go` and the start of search_run was
     * cleared by it: ask again. */
    if (atomic_load(&u->stopped))
        search_stop(u->search);
}

/* ------------------------------------------------------------------------ */
/* Commands. */

static void cmd_uci(uci *u, const words *ws)
{
    say(u, "id name chameleon 1.0");
    say(u, "id author the chameleon authors");
    char line[UCI_LINE_MAX];
    strbuf b = {line, 0, sizeof line};
    sb_add(&b, "option name UCI_Variant type combo default %s", rules_variants[0]->id);
    for (const rules_variant *const *v = rules_variants; *v; v++)
        sb_add(&b, " var %s", (*v)->id);
    u->out(u->arg, line);
    say(u, "option name Skill Level type spin default %d min %d max %d", SEARCH_LEVEL_MAX,
        SEARCH_LEVEL_MIN, SEARCH_LEVEL_MAX);
    say(u, "option name Hash type spin default %d min %d max %d", UCI_HASH_DEFAULT, UCI_HASH_MIN,
        UCI_HASH_MAX);
    say(u, "option name Threads type spin default 1 min 1 max 1");
    say(u, "option name ThreePlayerSearch type combo default %s var %s var %s var %s",
        search_multi_name(SEARCH_MULTI_PARANOID), search_multi_name(SEARCH_MULTI_PARANOID),
        search_multi_name(SEARCH_MULTI_BRS), search_multi_name(SEARCH_MULTI_MAXN));
    say(u, "uciok");
}

static void cmd_isready(uci *u, const words *ws)
{
    say(u, "readyok");
}

static void cmd_ignore(uci *u, const words *ws)
{
}

/* A new game at the set-up of variant v (or of the current one). */
static int reset_game(uci *u, const char *id)
{
    char why[RULES_WHY_TEXT];
    rules_game *g = NULL;
    int err = rules_game_new(&g, id, NULL, why, sizeof why);
    if (err < 0) {
        ERROR(u, "cannot set up %s: %s", id, why);
        return err;
    }
    rules_game_free(u->game);
    u->game = g;
    return 0;
}

static void cmd_ucinewgame(uci *u, const words *ws)
{
    if (reset_game(u, u->game->variant->id) == 0)
        search_clear(u->search);
}

static void cmd_position(uci *u, const words *ws)
{
    if (ws->n < 2) {
        ERROR(u, "position needs startpos or fen <position string>");
        return;
    }
    int i = 2;
    char text[RULES_POS_TEXT];
    const char *fen = NULL;
    if (strcmp(ws->w[1], "fen") == 0) {
        while (i < ws->n && strcmp(ws->w[i], "moves") != 0)
            i++;
        if (i == 2) {
            ERROR(u, "position fen needs a position string");
            return;
        }
        if (!join(ws, 2, i, text, sizeof text)) {
            ERROR(u, "the position string is too long");
            return;
        }
        fen = text;
    } else if (strcmp(ws->w[1], "startpos") != 0) {
        ERROR(u, "position needs startpos or fen, not '%s'", ws->w[1]);
        return;
    }
    if (i < ws->n && strcmp(ws->w[i], "moves") != 0) {
        ERROR(u, "expected 'moves' after startpos, not '%s'", ws->w[i]);
        return;
    }

    const char *id = u->game->variant->id;
    char why[RULES_WHY_TEXT];
    rules_game *g = NULL;
    if (rules_game_new(&g, id, fen, why, sizeof why) < 0) {
        ERROR(u, "bad %s position string: %s", id, why);
        return;
    }
    for (int k = i + 1; k < ws->n; k++) {
        if (rules_game_play_text(g, -1, ws->w[k], NULL, why, sizeof why) < 0) {
            ERROR(u, "move %d (%s) cannot be played: %s", k - i, ws->w[k], why);
            rules_game_free(g);
            return;
        }
    }
    rules_game_free(u->game);
    u->game = g;
}

static bool option_is(const char *name, const char *want)
{
    return strcasecmp(name, want) == 0;
}

static void cmd_setoption(uci *u, const words *ws)
{
    int v = 1;
    while (v < ws->n && strcmp(ws->w[v], "value") != 0)
        v++;
    char name[128], value[128];
    if (ws->n < 3 || strcmp(ws->w[1], "name") != 0 || v == 2) {
        ERROR(u, "setoption needs: setoption name <option> [value <value>]");
        return;
    }
    if (!join(ws, 2, v, name, sizeof name) || !join(ws, v + 1, ws->n, value, sizeof value)) {
        ERROR(u, "setoption: the option name or value is too long");
        return;
    }
    bool has_value = v + 1 < ws->n;
    long long n = 0;
    bool numeric = has_value && parse_count(value, &n);

    if (option_is(name, "UCI_Variant")) {
        const rules_variant *var = NULL;
        for (const rules_variant *const *p = rules_variants; *p && !var; p++)
            if (strcasecmp((*p)->id, value) == 0)
                var = *p;
        if (var == NULL) {
            ERROR(u, "unknown variant '%s'; the uci command lists them", value);
            return;
        }
        if (reset_game(u, var->id) == 0)
            search_clear(u->search);
    } else if (option_is(name, "Skill Level")) {
        if (!numeric || n < SEARCH_LEVEL_MIN || n > SEARCH_LEVEL_MAX) {
            ERROR(u, "Skill Level must be a whole number from %d to %d, not '%s'", SEARCH_LEVEL_MIN,
                  SEARCH_LEVEL_MAX, value);
            return;
        }
        u->level = (int)n;
    } else if (option_is(name, "Hash")) {
        if (!numeric || n < UCI_HASH_MIN || n > UCI_HASH_MAX) {
            ERROR(u, "Hash must be a whole number of megabytes from %d to %d, not '%s'",
                  UCI_HASH_MIN, UCI_HASH_MAX, value);
            return;
        }
        search_ctx *s = search_new((size_t)n << 20);
        if (s == NULL) {
            ERROR(u, "no memory for a %lld MB table; the old one stays", n);
            return;
        }
        search_free(u->search);
        u->search = s;
        u->hash_mb = (int)n;
    } else if (option_is(name, "Threads")) {
        if (!numeric || n < 1) {
            ERROR(u, "Threads must be a whole number from 1, not '%s'", value);
            return;
        }
        /* One search thread whatever is asked. */
    } else if (option_is(name, "ThreePlayerSearch")) {
        search_multi m[] = {SEARCH_MULTI_PARANOID, SEARCH_MULTI_BRS, SEARCH_MULTI_MAXN};
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            if (strcasecmp(value, search_multi_name(m[k])) == 0) {
                u->multi = m[k];
                return;
            }
        }
        ERROR(u, "ThreePlayerSearch must be paranoid, brs or maxn, not '%s'", value);
    } else {
        ERROR(u, "no option named '%s'; the uci command lists them", name);
    }
}

/* The clock words of `go`: wtime/btime (UCI's names for the first and
 * second player in turn order, whatever the game calls their colours) and
 * p1time, p2time, p3time; the same with inc. Returns the player or -1. */
static int clock_word(const char *w, const char *suffix)
{
    size_t n = strlen(suffix), len = strlen(w);
    if (len <= n || strcmp(w + len - n, suffix) != 0)
        return -1;
    if (len == n + 1 && w[0] == 'w')
        return 0;
    if (len == n + 1 && w[0] == 'b')
        return 1;
    if (len == n + 2 && w[0] == 'p' && w[1] >= '1' && w[1] <= '0' + RULES_MAX_PLAYERS)
        return w[1] - '1';
    return -1;
}

static void cmd_go(uci *u, const words *ws)
{
    long long movetime = 0, depth = 0, nodes = 0, togo = 0;
    long long left[RULES_MAX_PLAYERS], inc[RULES_MAX_PLAYERS];
    bool has_left[RULES_MAX_PLAYERS] = {false};
    bool infinite = false;
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        left[p] = inc[p] = 0;

    for (int i = 1; i < ws->n; i++) {
        const char *w = ws->w[i];
        if (strcmp(w, "infinite") == 0) {
            infinite = true;
            continue;
        }
        int tp = clock_word(w, "time"), ip = clock_word(w, "inc");
        long long *slot = strcmp(w, "movetime") == 0    ? &movetime
                          : strcmp(w, "depth") == 0     ? &depth
                          : strcmp(w, "nodes") == 0     ? &nodes
                          : strcmp(w, "movestogo") == 0 ? &togo
                          : tp >= 0                     ? &left[tp]
                          : ip >= 0                     ? &inc[ip]
                                                        : NULL;
        if (slot == NULL) {
            ERROR(u, "go: unknown word '%s'", w);
            return;
        }
        if (i + 1 >= ws->n) {
            ERROR(u, "go: %s needs a number", w);
            return;
        }
        const char *num = ws->w[++i];
        /* GUIs may send a negative time left after a lag: treat it as 0. */
        bool neg_ok = tp >= 0 && num[0] == '-';
        if (!parse_count(neg_ok ? num + 1 : num, slot)) {
            ERROR(u, "go: %s needs a whole number, not '%s'", w, num);
            return;
        }
        if (neg_ok)
            *slot = 0;
        if (tp >= 0)
            has_left[tp] = true;
        if ((slot == &depth || slot == &movetime || slot == &nodes) && *slot == 0) {
            ERROR(u, "go: %s must be at least 1", w);
            return;
        }
    }

    rules_game *g = u->game;
    int me = g->pos.to_move;
    int64_t ms = movetime;
    if (!has_left[me]) {
        /* Clocks given but not the mover's (a two-player GUI in a
         * three-player game): the smallest one given stands in for it. */
        for (int p = 0; p < RULES_MAX_PLAYERS; p++) {
            if (has_left[p] && (!has_left[me] || left[p] < left[me])) {
                left[me] = left[p];
                inc[me] = inc[p];
                has_left[me] = true;
            }
        }
    }
    if (!infinite && ms == 0 && has_left[me]) {
        if (togo > 0)
            ms = left[me] / togo + inc[me] * 3 / 4;
        else
            ms = search_time_for_move(left[me], inc[me],
                                      (int)(g->nmoves / (size_t)g->variant->nplayers));
        /* Keep a little for the answer to travel; never less than 1 ms. */
        if (ms > left[me] - 20 && left[me] > 40)
            ms = left[me] - 20;
        if (ms < 1)
            ms = 1;
    }
    u->ngo++;
    uint64_t seed = g->pos.hash ^ (u->ngo * 0x9e3779b97f4a7c15u);
    search_level_limits(&u->limits, u->level, infinite ? 0 : ms, seed);
    if (depth > 0 && (u->limits.depth == 0 || depth < u->limits.depth))
        u->limits.depth = (int)(depth < SEARCH_MAX_PLY ? depth : SEARCH_MAX_PLY);
    if (nodes > 0 && (u->limits.nodes == 0 || (uint64_t)nodes < u->limits.nodes))
        u->limits.nodes = (uint64_t)nodes;
    u->limits.multi = u->multi;
    u->infinite = infinite;
    u->reported = false;
    u->err = 0;
    memset(&u->result, 0, sizeof u->result);
    atomic_store(&u->stopped, false);
    atomic_store(&u->busy, true);
}

static void cmd_stop(uci *u, const words *ws)
{
    if (!atomic_load(&u->busy))
        return;
    atomic_store(&u->stopped, true);
    search_stop(u->search);
}

static void cmd_d(uci *u, const words *ws)
{
    const rules_game *g = u->game;
    char text[RULES_POS_TEXT];
    if (g->variant->print_position(&g->pos, text, sizeof text) < 0)
        text[0] = '\0';
    say(u, "info string variant %s moves %zu to_move %s fen %s", g->variant->id, g->nmoves,
        g->result.over ? "none" : g->variant->player_names[g->pos.to_move], text);
    if (g->result.over)
        say(u, "info string game over: %s", rules_reason_name(g->result.reason));
}

/* The command table: each row says whether the command may run while a
 * search is running (it must not touch what the search reads). */
typedef struct command {
    const char *name;
    void (*run)(uci *u, const words *ws);
    bool while_busy;
    uci_action action;
} command;

static const command commands[] = {
    {"uci", cmd_uci, true, UCI_NONE},
    {"isready", cmd_isready, true, UCI_NONE},
    {"setoption", cmd_setoption, false, UCI_NONE},
    {"ucinewgame", cmd_ucinewgame, false, UCI_NONE},
    {"position", cmd_position, false, UCI_NONE},
    {"go", cmd_go, false, UCI_GO},
    {"stop", cmd_stop, true, UCI_STOP},
    {"quit", cmd_stop, true, UCI_QUIT},
    {"d", cmd_d, true, UCI_NONE},
    {"debug", cmd_ignore, true, UCI_NONE},
    {"ponderhit", cmd_ignore, true, UCI_NONE},
    {"register", cmd_ignore, true, UCI_NONE},
};

uci_action uci_line(uci *u, const char *line)
{
    words ws;
    if (split(line, &ws) < 0) {
        words_free(&ws);
        ERROR(u, "the line is too long or there is no memory for it");
        return UCI_NONE;
    }
    uci_action act = UCI_NONE;
    if (ws.n == 0)
        goto out_free_words;
    const command *c = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0] && !c; i++)
        if (strcmp(commands[i].name, ws.w[0]) == 0)
            c = &commands[i];
    if (c == NULL) {
        ERROR(u, "unknown command '%s'", ws.w[0]);
        goto out_free_words;
    }
    if (!c->while_busy && atomic_load(&u->busy)) {
        /* A search that ends by itself (or was told to stop) is waited
         * for, as Stockfish does; `go infinite` before its `stop` would
         * never end, so the command is refused. */
        if (!u->infinite || atomic_load(&u->stopped))
            act = UCI_WAIT;
        else
            ERROR(u, "a search is running: send stop and wait for bestmove before %s", c->name);
        goto out_free_words;
    }
    c->run(u, &ws);
    if (c->action == UCI_GO)
        act = atomic_load(&u->busy) ? UCI_GO : UCI_NONE;
    else
        act = c->action;
out_free_words:
    words_free(&ws);
    return act;
}

/* ------------------------------------------------------------------------ */
/* The search. */

bool uci_think(uci *u)
{
    rules_game *g = u->game;
    if (g->result.over) {
        u->err = RULES_EGAME_OVER;
    } else {
        u->err = search_run(u->search, &g->pos, g->hashes, g->nmoves, &u->limits, on_report, u,
                            &u->result);
    }
    return u->infinite && !atomic_load(&u->stopped);
}

void uci_finish(uci *u)
{
    const rules_game *g = u->game;
    char text[RULES_MOVE_TEXT] = "(none)";
    if (u->err == RULES_EGAME_OVER || u->result.best == 0) {
        say(u, "info string the game is over (%s): no move to play",
            rules_reason_name(g->result.reason));
    } else {
        if (!u->reported)
            print_info(u, &u->result);
        if (g->variant->print_move(&g->pos, u->result.best, text, sizeof text) < 0)
            snprintf(text, sizeof text, "(none)");
    }
    /* Accept commands before the answer goes out: a GUI may send the next
     * position as soon as it reads bestmove. */
    atomic_store(&u->busy, false);
    say(u, "bestmove %s", text);
}

bool uci_busy(const uci *u)
{
    return atomic_load(&((uci *)u)->busy);
}

uci *uci_new(uci_out_fn out, void *arg, int hash_mb)
{
    uci *u = calloc(1, sizeof *u);
    if (u == NULL)
        return NULL;
    u->out = out;
    u->arg = arg;
    u->level = SEARCH_LEVEL_MAX;
    u->multi = SEARCH_MULTI_PARANOID;
    u->hash_mb = hash_mb > 0 ? hash_mb : UCI_HASH_DEFAULT;
    atomic_init(&u->busy, false);
    atomic_init(&u->stopped, false);
    u->search = search_new((size_t)u->hash_mb << 20);
    char why[RULES_WHY_TEXT];
    if (u->search == NULL ||
        rules_game_new(&u->game, rules_variants[0]->id, NULL, why, sizeof why) < 0) {
        uci_free(u);
        return NULL;
    }
    return u;
}

void uci_free(uci *u)
{
    if (u == NULL)
        return;
    search_free(u->search);
    rules_game_free(u->game);
    free(u);
}
