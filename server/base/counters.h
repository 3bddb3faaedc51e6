/*
 * counters.h - the counters of the server above the transport: rooms,
 * games, seeks, moves, errors sent, the limits' refusals, push, exports,
 * tournaments, forwarding between nodes (metrics_now), which every layer
 * adds to and GET /metrics shows (metrics.h writes them).
 *
 * Owns: metrics_now. May call: rules.h (the games' ids), proto.h (the
 * number of error codes). Only the loop thread touches the counters.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stdint.h>

#include "proto.h"
#include "rules.h"

enum { METRICS_VARIANTS_MAX = 16 };

typedef struct metrics {
    int64_t rooms;                                  /* rooms in memory */
    int64_t games_in_progress;                      /* rooms whose game is not over */
    int64_t games_set_aside;                        /* not restored: room_restore_all */
    int64_t games_by_variant[METRICS_VARIANTS_MAX]; /* the same by rules_variants[i] */
    int64_t seeks;                                  /* open seeks */
    uint64_t moves;                                 /* moves played and relayed */
    uint64_t takebacks;                             /* takebacks stored (room_takeback.c) */
    uint64_t errors[PROTO_NERRORS];                 /* error messages sent, by code */
    uint64_t started_ms;                            /* uv_now at start */
    /* Limits on messages (dispatch.c, session.c, room_game.c, lobby.c). */
    uint64_t throttled_conn;     /* messages refused: the connection's rate */
    uint64_t throttled_ident;    /* messages refused: the identity's rate */
    uint64_t excess_closes;      /* connections closed (1008) for going on */
    uint64_t chat_rate;          /* chat lines refused: the identity's rate */
    uint64_t chat_not_joined;    /* chat lines refused: room not joined */
    uint64_t seeks_refused_open; /* seek_create refused: too many open */
    uint64_t seeks_refused_rate; /* seek_create refused: too many a minute */
    uint64_t lobby_changes;      /* seeks added, updated, removed (public) */
    uint64_t lobby_flushes;      /* batches of lobby_update sent */
    /* The lobby's life (presence.c, challenge.c). */
    int64_t online;               /* persons with a session */
    int64_t challenges;           /* open challenges */
    uint64_t challenges_made;     /* challenge_create let through */
    uint64_t challenges_accepted; /* of them, accepted (a game started) */
    uint64_t challenges_refused;  /* challenge_create refused by a limit */
    /* Identities (ident.c) and the caps (quota.c, dispatch.c). */
    int64_t identities_guest;       /* guests, restored seats waiting included */
    int64_t identities_account;     /* accounts' identities in memory */
    int64_t identities_bot;         /* bots' identities (one per level used) */
    uint64_t identities_expired;    /* forgotten after the idle time */
    uint64_t guests_evicted;        /* idle guests forgotten to make room */
    uint64_t refused_guests;        /* hello refused: too_many_guests */
    uint64_t refused_games_ident;   /* too_many_games: the identity's cap */
    uint64_t refused_games_addr;    /* too_many_games: the address's cap */
    uint64_t refused_watched_ident; /* too_many_rooms: the identity's cap */
    uint64_t refused_watched_addr;  /* too_many_rooms: the address's cap */
    /* Web Push (push.c): messages the push service took (2xx), given up
     * (other answers, tries spent, queue full), subscriptions removed on
     * 404/410. */
    uint64_t push_sent, push_failed, push_removed;
    uint64_t push_refused_address; /* endpoints refused: not public (push_addr.h) */
    uint64_t push_dropped;         /* messages not queued: the queue or the account's share full */
    /* Game exports (api.c): under way (their reply not yet written whole),
     * refused with 429 (all the slots, or the address's, taken). */
    int64_t exports_running;
    uint64_t exports_refused;
    /* Tournaments (tournament.c). */
    int64_t tournaments_open, tournaments_running; /* in memory, by state */
    uint64_t tournament_games;                     /* games started by tournaments */
    /* Node mode (forward.c). */
    uint64_t forward_sent;       /* requests sent to the node of their room or lobby */
    uint64_t forward_run;        /* requests of other nodes' clients run here */
    uint64_t forward_back;       /* messages sent back to other nodes' clients */
    uint64_t forward_copies;     /* the clients they were for (one message per node) */
    uint64_t forward_delivered;  /* messages from other nodes given to clients here */
    uint64_t forward_lost;       /* messages dropped: a part missing, or unreadable */
    uint64_t forward_reconnects; /* clients asked to reconnect: their room or lobby moved */
    int64_t remote_sessions;     /* sessions here for clients of other nodes */
} metrics;

extern metrics metrics_now;

/* A game of variant v starts (delta 1) or ends (-1): games_in_progress
 * and the count by game id. */
void metrics_game(const rules_variant *v, int delta);

#endif
