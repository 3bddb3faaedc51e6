/*
 * tourney_msg.h - tournaments on the wire (PROTOCOL.md, "Tournaments"): a
 * tournament as the server holds it in memory (plain structs), rendered as
 * JSON with its standings and crosstable (tourney.h computes them), the
 * list of tournaments, and the body of a creation request parsed.
 *
 * Owns: the JSON shape of a tournament and of its creation request.
 * May call: tourney.h, jsonin.h, jansson, libc.
 *
 * Rendering functions return malloc'd NUL-terminated text (the caller
 * frees it), or NULL if memory ran out.
 */
#ifndef TOURNEY_MSG_H
#define TOURNEY_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tourney.h"

enum {
    TOURNEY_NAME_MAX = 64,     /* incl. NUL */
    TOURNEY_USER_MAX = 32,     /* username incl. NUL */
    TOURNEY_VARIANT_MAX = 24,  /* rules id incl. NUL */
    TOURNEY_MAX_INVITES = 24,  /* an invitation list */
    TOURNEY_MAX_ENTRANTS = 40, /* invited and joined together */
};

/* States and entrant statuses, as the store keeps them. */
enum { TOURNEY_OPEN, TOURNEY_RUNNING, TOURNEY_FINISHED, TOURNEY_CANCELLED };
enum { TOURNEY_INVITED, TOURNEY_JOINED, TOURNEY_WITHDRAWN };

typedef struct tourney_entrant {
    int64_t account;
    char name[TOURNEY_USER_MAX];
    int status;
    int idx; /* number in the section from the start, -1 before */
    int64_t at_ms;
    int played_at; /* withdrawn: games finished then */
} tourney_entrant;

typedef struct tourney_tgame {
    int64_t game;
    int round;
    int player[TOURNEY_MAX_SEATS]; /* entrant idx by seat */
    bool finished;
    int rank[TOURNEY_MAX_SEATS];
} tourney_tgame;

typedef struct tourney_info {
    int64_t id;
    char name[TOURNEY_NAME_MAX];
    int64_t director;
    char director_name[TOURNEY_USER_MAX];
    char variant[TOURNEY_VARIANT_MAX];
    int seats; /* players a game: 2 or 3 */
    int size;  /* entrants at most, 3..12 */
    bool twice;
    int64_t days, inc_days, cap_days; /* correspondence time control */
    int64_t start_ms;                 /* 0: when full */
    bool invite_only, rated;
    int state;
    int64_t created_ms, state_ms;
    int nentrants;
    tourney_entrant entrants[TOURNEY_MAX_ENTRANTS];
    int ngames;
    tourney_tgame games[TOURNEY_MAX_GAMES];
} tourney_info;

/* "open", "running", "finished", "cancelled". */
const char *tourney_state_name(int state);

/* The section (entrants with an idx) as tourney.h sees it: games into
 * out (ngames of them), withdrawn/played_at by idx; returns n. */
int tourney_section(const tourney_info *t, tourney_game *out, bool *withdrawn, int *played_at);

/* The whole tournament: its settings, entrants (with score, tie-break,
 * place... once started), games and crosstable. */
char *tourney_json(const tourney_info *t);
/* {"type":"tourney","tourney":{...}}: the push to watchers. */
char *tourney_push_json(const tourney_info *t);
/* {"tournaments":[summary, ...]} for the list. */
char *tourney_list_json(const tourney_info *const *t, int n);

/* The body of POST /api/tournaments. */
typedef struct tourney_create {
    char name[TOURNEY_NAME_MAX];
    char game[TOURNEY_VARIANT_MAX];
    int size;
    bool twice, rated, invite_only;
    int64_t days, inc_days, cap_days;
    int64_t start_ms;
    int ninvite;
    char invite[TOURNEY_MAX_INVITES][TOURNEY_USER_MAX];
} tourney_create;

/* 0, or -1 with a sentence in why (types, lengths; ranges are the
 * server's). */
int tourney_create_parse(const char *body, size_t len, tourney_create *out, char *why,
                         size_t whylen);

/* The "username" of a JSON body ({"username":"ann"}): 0; 1 when there is
 * none (no body, not an object, no such string); -1 with why when the
 * body repeats a key. */
int tourney_username_parse(const char *body, size_t len, char *out, size_t outlen, char *why,
                           size_t whylen);

#endif
