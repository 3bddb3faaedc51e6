/*
 * tournament_api.c - tournaments over HTTP (tournament_api.h).
 */
#include "tournament_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "archive.h"
#include "log.h"
#include "proto.h"
#include "store.h"
#include "tournament.h"

static store *db;

void tournament_api_init(store *s)
{
    db = s;
}

static void reply_text(net_conn *c, unsigned status, const char *ctype, char *text)
{
    if (text == NULL) {
        net_http_reply(c, 500, "application/json", "{\"error\":\"internal\"}", 20, NULL);
        return;
    }
    net_http_reply(c, status, ctype, text, strlen(text), NULL);
    free(text);
}

/* "<id>" then the rest: 0 if arg does not start with an id. */
static int64_t id_of(const char *arg, const char **rest)
{
    char *end;
    long long n = strtoll(arg, &end, 10);
    if (end == arg || n <= 0)
        return 0;
    *rest = end;
    return n;
}

/* ------------------------------------------------------------------------ */
/* PGN: every finished game, one read at a time. */

typedef struct pgn_job {
    api_pending p; /* first: api_http_closed sees a pending */
    char event[TOURNEY_NAME_MAX];
    int64_t ids[TOURNEY_MAX_GAMES];
    int rounds[TOURNEY_MAX_GAMES];
    int n, at;
    proto_out out;
} pgn_job;

static void pgn_next(pgn_job *j);

static void pgn_free(pgn_job *j)
{
    if (j->p.c != NULL)
        j->p.c->data = NULL;
    proto_out_free(&j->out);
    free(j);
}

static void on_pgn_game(void *arg, int status, const record_game *g)
{
    pgn_job *j = arg;
    if (j->p.c == NULL) {
        pgn_free(j);
        return;
    }
    if (status == 0) {
        char round[16];
        snprintf(round, sizeof round, "%d", j->rounds[j->at - 1]);
        char *text = archive_game_pgn_event(g, j->event, round, "1");
        if (text == NULL)
            j->out.oom = true;
        else {
            proto_out_append(&j->out, text, strlen(text));
            proto_out_append(&j->out, "\n", 1);
            free(text);
        }
    }
    pgn_next(j);
}

static void pgn_next(pgn_job *j)
{
    while (j->at < j->n) {
        if (store_game_get(db, j->ids[j->at++], on_pgn_game, j) == 0)
            return;
    }
    net_conn *c = j->p.c;
    c->data = NULL;
    j->p.c = NULL;
    if (j->out.oom)
        api_reply_error(c, 500, "internal", "out of memory");
    else {
        net_http_reply_out(c, 200, "application/x-chess-pgn", &j->out, NULL);
        proto_out_init(&j->out, 0);
    }
    pgn_free(j);
}

static int get_pgn(net_conn *c, const tourney_info *t)
{
    pgn_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return 500;
    j->p.c = c;
    c->data = j;
    proto_out_init(&j->out, NET_HEADROOM);
    snprintf(j->event, sizeof j->event, "%s", t->name);
    for (int i = 0; i < t->ngames; i++)
        if (t->games[i].finished) {
            j->ids[j->n] = t->games[i].game;
            j->rounds[j->n++] = t->games[i].round;
        }
    pgn_next(j);
    return 0;
}

int tournament_api_get(net_conn *c, const char *arg, const char *body, size_t len)
{
    if (*arg == '\0' || strcmp(arg, "/") == 0) {
        reply_text(c, 200, "application/json", tournament_list_json());
        return 0;
    }
    const char *rest = NULL;
    int64_t id = *arg == '/' ? id_of(arg + 1, &rest) : 0;
    const tourney_info *t = id ? tournament_find(id) : NULL;
    if (t == NULL || (*rest && strcmp(rest, ".pgn") != 0)) {
        api_reply_error(c, 404, "not_found", "no such tournament");
        return 0;
    }
    if (*rest)
        return get_pgn(c, t);
    reply_text(c, 200, "application/json", tourney_json(t));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Requests of an account: the session looked up (api_with_session), then
 * the request in its tournament's turn; the answer once it is done. */

typedef struct post_req {
    api_pending p; /* first: api_http_closed sees a pending */
    bool create;
    tourney_create req;
    int64_t id;
    bool has_user;
    char username[STORE_NAME_MAX];
    char action[]; /* the rest of the path after "<id>/" */
} post_req;

static void on_answer(void *arg, int64_t id, const tournament_err *e)
{
    post_req *r = arg;
    net_conn *c = r->p.c;
    free(r);
    if (c == NULL) /* the connection closed meanwhile */
        return;
    c->data = NULL;
    if (e != NULL)
        api_reply_error(c, e->status, e->code, e->why);
    else
        reply_text(c, 200, "application/json", tourney_json(tournament_find(id)));
}

static void post_with_session(net_conn *c, const store_account *who, void *ctx)
{
    post_req *r = ctx;
    if (c == NULL) { /* closed before the session was known: nothing done */
        free(r);
        return;
    }
    r->p.c = c;
    c->data = &r->p;
    int64_t account = who ? who->id : 0;
    const char *name = who ? who->username : "";
    if (r->create)
        tournament_create(account, name, &r->req, on_answer, r);
    else
        tournament_act(r->id, r->action, account, name, r->has_user ? r->username : NULL, on_answer,
                       r);
}

int tournament_api_post(net_conn *c, const char *arg, const char *body, size_t len)
{
    post_req *r;
    char why[200];
    if (*arg == '\0' || strcmp(arg, "/") == 0) {
        if ((r = calloc(1, sizeof *r)) == NULL)
            return 500;
        r->create = true;
        if (tourney_create_parse(body, len, &r->req, why, sizeof why) < 0) {
            free(r);
            api_reply_error(c, 400, "bad_argument", why);
            return 0;
        }
    } else {
        const char *rest = NULL;
        int64_t id = *arg == '/' ? id_of(arg + 1, &rest) : 0;
        if (id == 0 || *rest != '/') {
            api_reply_error(c, 404, "not_found", "no such tournament");
            return 0;
        }
        if ((r = calloc(1, sizeof *r + strlen(rest + 1) + 1)) == NULL)
            return 500;
        r->id = id;
        strcpy(r->action, rest + 1);
        int has_user =
            tourney_username_parse(body, len, r->username, sizeof r->username, why, sizeof why);
        if (has_user < 0) {
            free(r);
            api_reply_error(c, 400, "bad_message", why);
            return 0;
        }
        r->has_user = has_user == 0;
    }
    if (api_with_session(c, post_with_session, r) < 0) {
        free(r);
        return 500;
    }
    return 0;
}
