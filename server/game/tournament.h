/*
 * tournament.h - correspondence round-robin tournaments (issue 17,
 * docs/TOURNAMENTS.md, PROTOCOL.md "Tournaments"): their life from the
 * creation to the last result, in memory and in the store.
 *
 * Owns: every tournament in memory (a table by id, and one by game id),
 * the watchers of each, the requests waiting their turn, the timer that
 * starts tournaments at their date. Files: tournament.c, tournament_act.c
 * (the requests), tournament_impl.h (theirs only). May call: room.h
 * (starting the games, the results, forfeits), ident.h (the seat of an
 * account), session.h (pushes), store.h, store_tourney.h, accounts.h
 * (usernames of an invitation list or a removal: queued look-ups), notify.h
 * (the start's mail), log.h, metrics.h, protocol/tourney.h and
 * tourney_msg.h (schedules, crosstables, JSON), proto.h, libuv.
 *
 * Start: every game of the section is created at once as a correspondence
 * game (room_start), so each appears in its players' "your turn" lists and
 * follows their clocks and vacation like any other. Results come from the
 * rooms once on disk (room_set_over_cb); a result lost to a crash is read
 * back from the game at start-up. Everything is restored from the store.
 *
 * The loop never waits on the database: writes are queued and answered
 * later (store_tourney.h), and so are the look-ups of usernames (an
 * invitation list, every name at once; a removal). Memory is what is
 * committed: a request changes a tournament in memory
 * only once its write has committed, then pushes it to the watchers and
 * answers; a write that fails changes nothing and the request answers 500
 * db_error. So that each request is checked against the state its write
 * will follow, a tournament takes its requests one at a time, in order of
 * arrival (the director's, the entrants', a start at its date): the next
 * one is checked once the one before has committed or failed (a creation
 * in flight counts toward its director's open tournaments). A join that
 * fills a tournament starting "when full" answers once the start is done.
 * A start creates its games (rooms) and queues its write right behind
 * their creations, in the same batch: they commit together, or none does
 * (the rooms of a failed batch are aborted) and the tournament stays open;
 * at its date it is then tried again at the next tick. Results and the
 * end are the exception, as the places of a game are queued behind its
 * result: in memory at once, written behind; one lost is read back at
 * start-up.
 */
#ifndef TOURNAMENT_H
#define TOURNAMENT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto.h"
#include "session.h"
#include "tourney_msg.h"

struct store;

/* Load every tournament (after room_restore_all: the rooms of running
 * games are in memory), read back lost results, start the date timer.
 * 0 or a negative store error. */
int tournament_init(uv_loop_t *loop, struct store *db);
/* Stop the timer (shutdown). */
void tournament_stop(void);
/* Free everything (after the loop ended). */
void tournament_shutdown(void);

/* An error of a request: the HTTP status, a code and a sentence. */
typedef struct tournament_err {
    unsigned status;
    const char *code;
    char why[200];
} tournament_err;

/* The tournament (NULL if none). */
const tourney_info *tournament_find(int64_t id);
/* The list as JSON (malloc'd; NULL if out of memory): every open and
 * running tournament, and the newest TOURNAMENT_LIST_OVER of the others. */
char *tournament_list_json(void);

/* The answer of a request, on the loop, once: e NULL when done (id: the
 * tournament, as committed, tournament_find), else the error. It may come
 * before the request's function returns (an error found at once). */
typedef void (*tournament_cb)(void *arg, int64_t id, const tournament_err *e);

/* Create (account/name: the director; the invitation list's usernames are
 * looked up, queued, all at once). */
void tournament_create(int64_t account, const char *name, const tourney_create *req,
                       tournament_cb cb, void *arg);
/* join, leave, start, cancel, withdraw; remove (director: `username`
 * before the start). */
void tournament_act(int64_t id, const char *action, int64_t account, const char *name,
                    const char *username, tournament_cb cb, void *arg);

/* WebSocket: tourney_watch answers with the tournament and pushes it again
 * whenever it changes; tourney_unwatch; a closing session stops watching. */
int tournament_watch(session *s, const proto_req *req, char *why, size_t whylen);
int tournament_unwatch(session *s, const proto_req *req, char *why, size_t whylen);
void tournament_unwatch_all(session *s);

enum {
    TOURNAMENT_WATCH_MAX = 8,   /* tournaments one session watches */
    TOURNAMENT_OPEN_MAX = 5,    /* open tournaments one director holds */
    TOURNAMENT_TICK_MS = 1000,  /* start dates checked this often */
    TOURNAMENT_LIST_OVER = 100, /* finished or cancelled ones in the list */
};

#endif
