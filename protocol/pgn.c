/*
 * pgn.c - PGN export and import for every variant (see pgn.h).
 */
#include "pgn.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "proto_out.h"

int pgn_set_tag(pgn_game *g, const char *name, const char *value)
{
    pgn_tag *t = NULL;
    for (int i = 0; i < g->ntags && t == NULL; i++)
        if (strcmp(g->tags[i].name, name) == 0)
            t = &g->tags[i];
    if (t == NULL) {
        if (g->ntags == PGN_MAX_TAGS)
            return -1;
        t = &g->tags[g->ntags++];
        snprintf(t->name, sizeof t->name, "%s", name);
    }
    snprintf(t->value, sizeof t->value, "%s", value);
    return 0;
}

const char *pgn_tag_value(const pgn_game *g, const char *name)
{
    for (int i = 0; i < g->ntags; i++)
        if (strcmp(g->tags[i].name, name) == 0)
            return g->tags[i].value;
    return NULL;
}

static pgn_item *add_item(pgn_game *g)
{
    if (array_reserve((void **)&g->items, &g->cap, g->nitems + 1, sizeof *g->items) < 0)
        return NULL;
    pgn_item *it = &g->items[g->nitems++];
    memset(it, 0, sizeof *it);
    it->leave_player = -1;
    return it;
}

int pgn_add_move(pgn_game *g, const char *text)
{
    if (strlen(text) >= RULES_MOVE_TEXT)
        return -1;
    pgn_item *it = add_item(g);
    if (it == NULL)
        return -1;
    snprintf(it->text, sizeof it->text, "%s", text);
    return 0;
}

int pgn_add_leave(pgn_game *g, int player, rules_reason reason)
{
    pgn_item *it = add_item(g);
    if (it == NULL)
        return -1;
    it->leave_player = player;
    it->leave_reason = reason;
    return 0;
}

void pgn_free(pgn_game *g)
{
    free(g->items);
    memset(g, 0, sizeof *g);
}

void pgn_seat_tag(const rules_variant *v, int seat, char *buf, size_t len)
{
    snprintf(buf, len, "%s", v->player_names[seat]);
    if (buf[0])
        buf[0] = (char)toupper((unsigned char)buf[0]);
}

void pgn_result_text(const rules_result *r, int nplayers, char *buf, size_t len)
{
    bool any = false;
    for (int p = 0; p < nplayers; p++)
        any = any || r->outcome[p] != RULES_OUTCOME_NONE;
    if (!r->over || !any) {
        snprintf(buf, len, "*");
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 0; p < nplayers; p++) {
        const char *score = r->outcome[p] == RULES_OUTCOME_WIN    ? "1"
                            : r->outcome[p] == RULES_OUTCOME_DRAW ? "1/2"
                                                                  : "0";
        int w = snprintf(buf + used, len - used, "%s%s", p ? "-" : "", score);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

/* The text being written (a proto_out without headroom: out.oom after an
 * allocation failure) and the column its last line has reached. */
typedef struct sbuf {
    proto_out out;
    int col;
} sbuf;

static void put(sbuf *b, const char *text)
{
    size_t l = strlen(text);
    proto_out_append(&b->out, text, l);
    const char *nl = strrchr(text, '\n');
    b->col = nl ? (int)(l - (size_t)(nl - text) - 1) : b->col + (int)l;
}

/* A move-text token, wrapped at 79 columns. */
static void put_token(sbuf *b, const char *tok)
{
    if (b->col > 0 && b->col + 1 + (int)strlen(tok) > 79)
        put(b, "\n");
    else if (b->col > 0)
        put(b, " ");
    put(b, tok);
}

/* A result token of the move text: only digits, '/' and '-' (a move always
 * names a cell, so never only these), or "*". */
static bool is_result(const char *t)
{
    return *t != '\0' && (strspn(t, "0123456789/-") == strlen(t) || strcmp(t, "*") == 0);
}

int pgn_write(const pgn_game *g, int nplayers, char **out)
{
    sbuf b = {.col = 0};
    proto_out_init(&b.out, 0);
    for (int i = 0; i < g->ntags; i++) {
        put(&b, "[");
        put(&b, g->tags[i].name);
        put(&b, " \"");
        for (const char *c = g->tags[i].value; *c; c++) {
            char esc[3] = {*c, 0, 0};
            if (*c == '"' || *c == '\\') {
                esc[0] = '\\';
                esc[1] = *c;
            }
            put(&b, esc);
        }
        put(&b, "\"]\n");
    }
    put(&b, "\n");
    int k = 0;
    char tok[RULES_MOVE_TEXT + 32];
    for (size_t i = 0; i < g->nitems; i++) {
        const pgn_item *it = &g->items[i];
        if (it->leave_player >= 0) {
            snprintf(tok, sizeof tok, "{leave %d %s}", it->leave_player,
                     rules_reason_name(it->leave_reason));
            put_token(&b, tok);
            continue;
        }
        if (k % nplayers == 0) {
            snprintf(tok, sizeof tok, "%d.", k / nplayers + 1);
            put_token(&b, tok);
        }
        put_token(&b, it->text);
        k++;
    }
    /* The tag as the game's last token, unless it is no result (an
     * imported tag may hold anything): a re-import would read it as a
     * move. */
    const char *result = pgn_tag_value(g, "Result");
    put_token(&b, result && is_result(result) ? result : "*");
    put(&b, "\n");
    if (b.out.oom) {
        proto_out_free(&b.out);
        return -1;
    }
    *out = b.out.buf;
    return 0;
}

static rules_reason reason_from(const char *name)
{
    for (int r = 0; r < RULES_REASON_COUNT; r++)
        if (strcmp(name, rules_reason_name((rules_reason)r)) == 0)
            return (rules_reason)r;
    return RULES_REASON_NONE;
}

int pgn_parse(const char *text, pgn_game *g, char *why, size_t whylen)
{
    const char *p = text;
    int line = 1;
    /* Tags. */
    for (;;) {
        while (isspace((unsigned char)*p)) {
            line += *p == '\n';
            p++;
        }
        if (*p != '[')
            break;
        p++;
        char name[32];
        size_t n = 0;
        while (isalnum((unsigned char)*p) || *p == '_') {
            if (n + 1 < sizeof name)
                name[n++] = *p;
            p++;
        }
        name[n] = '\0';
        while (*p == ' ')
            p++;
        if (n == 0 || *p != '"') {
            rules_why(why, whylen, "line %d: expected [Name \"value\"]", line);
            return -1;
        }
        p++;
        char value[PGN_TAG_VALUE];
        n = 0;
        while (*p && *p != '"' && *p != '\n') {
            if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            if (n + 1 < sizeof value)
                value[n++] = *p;
            p++;
        }
        value[n] = '\0';
        if (*p != '"' || p[1] != ']') {
            rules_why(why, whylen, "line %d: unterminated tag %s", line, name);
            return -1;
        }
        p += 2;
        if (pgn_set_tag(g, name, value) < 0) {
            rules_why(why, whylen, "line %d: too many tags", line);
            return -1;
        }
    }
    /* Move text. */
    for (;;) {
        while (isspace((unsigned char)*p)) {
            line += *p == '\n';
            p++;
        }
        if (*p == '\0')
            return 0;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            if (end == NULL) {
                rules_why(why, whylen, "line %d: unterminated comment", line);
                return -1;
            }
            char body[128];
            size_t l = (size_t)(end - p - 1);
            if (l >= sizeof body)
                l = sizeof body - 1;
            memcpy(body, p + 1, l);
            body[l] = '\0';
            int player;
            char reason[32];
            if (sscanf(body, "leave %d %31s", &player, reason) == 2 &&
                pgn_add_leave(g, player, reason_from(reason)) < 0)
                return -1;
            for (const char *c = p; c < end; c++)
                line += *c == '\n';
            p = end + 1;
            continue;
        }
        if (*p == ';') {
            p += strcspn(p, "\n");
            continue;
        }
        char tok[RULES_MOVE_TEXT];
        size_t l = strcspn(p, " \t\r\n{;");
        if (l >= sizeof tok) {
            rules_why(why, whylen, "line %d: token too long", line);
            return -1;
        }
        memcpy(tok, p, l);
        tok[l] = '\0';
        p += l;
        /* A move number "12." or "12..." (possibly glued to the move). */
        char *t = tok;
        size_t digits = strspn(t, "0123456789");
        if (digits > 0 && t[digits] == '.') {
            t += digits;
            t += strspn(t, ".");
            if (*t == '\0')
                continue;
        }
        if (is_result(t))
            continue;
        if (pgn_add_move(g, t) < 0)
            return -1;
    }
}

int pgn_replay(const pgn_game *pg, rules_game **out, char *why, size_t whylen)
{
    const char *variant = pgn_tag_value(pg, "Variant");
    const char *setup = pgn_tag_value(pg, "SetUp");
    const char *fen = setup && strcmp(setup, "1") == 0 ? pgn_tag_value(pg, "FEN") : NULL;
    if (variant == NULL) {
        rules_why(why, whylen, "the PGN has no [Variant] tag");
        return RULES_EUNKNOWN_GAME;
    }
    rules_step *steps = malloc((pg->nitems + 1) * sizeof *steps);
    if (steps == NULL)
        return RULES_ENOMEM;
    for (size_t i = 0; i < pg->nitems; i++) {
        const pgn_item *it = &pg->items[i];
        steps[i] = it->leave_player >= 0 ? (rules_step){NULL, it->leave_player, it->leave_reason}
                                         : (rules_step){it->text, -1, RULES_REASON_NONE};
    }
    int err = rules_game_replay(out, variant, fen, steps, pg->nitems, why, whylen);
    free(steps);
    return err;
}
