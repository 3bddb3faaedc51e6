/*
 * notify.h - what to tell a player away from the site, and when: "your
 * move", game start and end (the rooms call these), a tournament's start
 * (tournament.c calls it), the low-time alarm,
 * the reminder after days of silence and the daily digest (a scan of the
 * store's correspondence games finds these).
 *
 * Owns: the triggers and their rules (which games, who, when, once), the
 * notices' text and the scan timer. Each trigger is one function a channel
 * joins: e-mail now (mail.h; each mail also needs the account's preference,
 * which the store checks when it writes the mail), Web Push beside it.
 * May call: mail.h, store.h, ident.h (is a player on the site), rules.h,
 * log.h, libuv, uthash.
 *
 * The rules (PROTOCOL.md, "E-mail"): notices concern correspondence games
 * only; none goes to a player connected at that moment (the site shows it)
 * but the digest; each notice goes at most once (a key per game, move and
 * account: a restart that sees the same moment again writes nothing new).
 *
 * Everything runs on the loop thread.
 */
#ifndef NOTIFY_H
#define NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "rules.h"
#include "store.h"

enum {
    NOTIFY_SCAN_MS = 2000,    /* the scan of correspondence games */
    NOTIFY_LOW_TIME_PCT = 80, /* the alarm: this much of the time for the move used */
    NOTIFY_DIGEST_HOUR = 7,   /* the digest goes once a day from this hour (UTC) */
    NOTIFY_DIGEST_MAX = 20,   /* games listed in one digest */
};

/* A game as the triggers see it (strings valid during the call). */
typedef struct notify_game {
    int64_t id;
    const char *variant; /* the rules id */
    bool corr;
    int nseats;
    int64_t account[RULES_MAX_PLAYERS]; /* 0: a guest or a bot */
    const char *name[RULES_MAX_PLAYERS];
    int to_move;                /* -1 once over */
    int nmoves;                 /* moves played */
    int64_t deadline_ms;        /* of the player to move (correspondence), 0 if none */
    const rules_result *result; /* once over */
} notify_game;

/* Start the scan (after mail_init and room_restore_all). */
void notify_init(uv_loop_t *loop, store *s);
/* Stop the scan's timer and free its memory. */
void notify_stop(void);

/* A move is durable and it is g->to_move's turn. */
void notify_your_move(const notify_game *g);
/* A game's creation is durable. */
void notify_game_started(const notify_game *g);
/* A game's result is durable. */
void notify_game_ended(const notify_game *g);
/* A tournament started: tell each entrant away from the site (one mail
 * with the tournament's link, not one per game: its games start quietly).
 * name: the tournament's; games: how many games each entrant plays. */
void notify_tournament_started(int64_t tourney, const char *name, const char *variant,
                               const int64_t *accounts, int naccounts, int games);
/* The player to move in game has used NOTIFY_LOW_TIME_PCT of the time for
 * the move (found by the scan; the player is not on the site). */
void notify_low_time(const store_corr_turn *t);

/* The low-time moment, one rule for every channel (the scan's mail here,
 * the Web Push alarm of room_push.c): a player who had span_ms for its
 * move when its turn began is short of time once it has used
 * NOTIFY_LOW_TIME_PCT of it, this long (ms) into the turn. */
int64_t notify_low_time_ms(int64_t span_ms);

/* Run the scan now (the timer does it every NOTIFY_SCAN_MS). */
void notify_scan(void);

#endif
