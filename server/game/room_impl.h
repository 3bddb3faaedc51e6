/*
 * room_impl.h - what the files of the room module share (room_game.c,
 * room_clock.c, room_events.c, room_bot.c, room_store.c, room_notify.c,
 * room_push.c, room_list.c, room_rematch.c, room_takeback.c, room_cond.c,
 * room_takeover.c);
 * private to them.
 * See room.h.
 *
 * Owns: struct room and its outbox entries; the room module's internal
 * functions (prefix room__, as libuv's uv__). May call: what room.h may
 * (room_notify.c: notify.h; room_push.c: push.h, and notify.h's
 * low-time moment).
 */
#ifndef ROOM_IMPL_H
#define ROOM_IMPL_H

#include <uthash.h>

#include "bot.h"
#include "room.h"
#include "store.h"

/* An event waiting in a room's outbox until it is durable (moves) and
 * every event before it is out. */
/* A result or leave the store could not write is queued again this many
 * times (each try lasts the store's retries: 1.55 s by default, so about
 * 2.5 min of a full disk). */
enum { ROOM_RESULT_TRIES = 100 };

/* Who an event is for: everyone, or one chat room (PROTOCOL.md chat). */
enum { ROOM_TO_ALL, ROOM_TO_PLAYERS, ROOM_TO_SPECTATORS };

typedef struct outbox_ev {
    struct room *room;
    int seat, ply; /* a move: who played it, how many moves before it */
    int to_move;   /* a move: the seat it made to move (-1: none) */
    uint64_t seq;
    net_msg *lean, *full; /* full: with board fields, NULL if nobody wants it */
    bool durable;
    bool board;             /* a move or a leave: the board changed */
    unsigned char audience; /* ROOM_TO_*: who reads it; the others get a "skip" */
    struct outbox_ev *next;
} outbox_ev;

struct room {
    int64_t id;
    rules_game *g;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr; /* days > 0: correspondence; the store keeps the
                        deadlines and clocks (bank per seat) */
    int nseats;
    ident *seats[RULES_MAX_PLAYERS];
    quota_addr *addr[RULES_MAX_PLAYERS]; /* each seat's address (a reference), or NULL */
    bool charged[RULES_MAX_PLAYERS];     /* the seat counts as a game in progress */
    int left[RULES_MAX_PLAYERS];         /* rules_reason, or -1 */
    bool moved[RULES_MAX_PLAYERS];
    int64_t clocks[RULES_MAX_PLAYERS];
    uint64_t turn_start; /* uv_now when the running clock was last settled */
    bool clock_running;
    uv_timer_t timer;
    uv_timer_t abandon;                     /* fires when an away seat abandons */
    uint64_t away_since[RULES_MAX_PLAYERS]; /* uv_now when its last session
                                               went, 0 if present */
    int open_handles;                       /* timers not yet closed */
    uint64_t seq, emitted_seq;
    uint64_t seq_floor;               /* catchup only from here (rooms rebuilt, at start-up
                                         or by a take-over, start above every seq of their
                                         earlier lives) */
    net_msg *ring[ROOM_EVENT_RING];   /* emitted lean events by seq % RING */
    bool ring_board[ROOM_EVENT_RING]; /* that event changed the board */
    unsigned char ring_audience[ROOM_EVENT_RING]; /* that event's ROOM_TO_* */
    outbox_ev *out_head, *out_tail;
    int pending;      /* moves, leaves, results (and the creation) not yet durable */
    bool unstored;    /* the creation failed: aborted once pending is 0 */
    bool quiet;       /* a tournament's game: its tournament tells of the start */
    int result_tries; /* the result's writes that failed */
    /* Leaves of g->left handed to the store, and written; a leave failed:
     * queued again once nothing is in flight (room_store.c). */
    int leaves_queued, leaves_stored, leave_tries;
    bool leaves_failed;
    unsigned draw_offers, rematch_offers;
    unsigned takeback_offers; /* room_takeback.c: asked at takeback_ply moves */
    int takeback_ply;
    bool takeback_busy; /* a takeback is being stored: moves wait */
    int64_t next_room;
    proto_chat_line chat[ROOM_CHAT_KEEP];
    int nchat, chat_head;
    session **watchers;
    size_t nwatchers, capwatchers;
    /* Spectators (persons watching without a seat): the count last told
     * the watchers, and whether it may have changed since (room_events.c
     * tells them at most once a second). */
    int spectators_told;
    bool spectators_dirty;
    /* Bots (seats whose identity is a bot): the search under way for the
     * seat to move, and for which state of the game (moves, leaves). */
    bot_job *bot_job;
    int bot_seat;
    size_t bot_nmoves;
    int bot_nleft;
    int bot_score[RULES_MAX_PLAYERS];    /* last answer's score, own view */
    bool bot_scored[RULES_MAX_PLAYERS];  /* it has answered once */
    int bot_hopeless[RULES_MAX_PLAYERS]; /* answers in a row scored lost */
    bool finished;                       /* game over was counted */
    /* A rated game: each seat's rating when its result was queued (the
     * store's memory changes at the commit), and whether the new ones went
     * out (event "ratings"; states then carry rating_diff). */
    int rating_before[RULES_MAX_PLAYERS];
    bool ratings_told;
    bool closing;
    bool lost;         /* node mode: another node has the game (room_takeover.c) */
    UT_hash_handle hh; /* the table of rooms, by id */
};

/* Set by room_init. */
extern uv_loop_t *room__loop;
extern struct store *room__db;
extern int64_t room__abandon_ms;

/* room_game.c */
/* The table of rooms (iterate with hh.next). */
room *room__table(void);
/* The seat of who in r, or -1. */
int room__seat_of(const room *r, const ident *who);
/* The seat of s's identity, or minus a proto_err with a why (no seat; with
 * need_playing: the game is over or the seat left). */
int room__acting_seat(room *r, const session *s, bool need_playing, char *why, size_t whylen);
/* Close r if it has nothing left to store and is over and unwatched, or
 * lost. */
void room__maybe_free(room *r);
/* Rebuild the room of a game in progress read from the store (start-up
 * restore, take-over): seats, clocks (the time away charged to nobody),
 * timers, in the table. NULL (logged) if it does not replay. */
room *room__rebuild(const store_game_info *gi, char *why, size_t whylen);
/* r leaves the table and is marked lost (freed once nothing is pending). */
void room__table_remove(room *r);
/* Seat s leaves the game that goes on (resign, flag, abandon). */
void room__player_leaves(room *r, int s, rules_reason reason);
/* End the game without a winner (agreement, abort). */
void room__end_drawn(room *r, rules_reason why);
/* Seat s plays `input` now, as a move request does (clock settled, a
 * fallen flag first): 0 or a proto_err with a why. */
int room__play_as(room *r, int s, const char *input, char *why, size_t whylen);

/* room_bot.c */
/* After any change of r: if a bot is to move, make sure it is thinking
 * about this very position; cancel a search about another one (or when
 * the game is over or r is closing). */
void room__bot_kick(room *r);
/* Forget r's search (r closes). */
void room__bot_cancel(room *r);
/* Bit per seat held by a bot still in the game. */
unsigned room__bot_seats(const room *r);
/* Does the bot at seat s take a draw now (its last score is within
 * ROOM_BOT_DRAW_MARGIN of equal, or worse)? */
bool room__bot_takes_draw(const room *r, int s);
/* Stop every bot for good (shutdown). */
void room__bots_stop(void);

/* room_store.c */
/* Queue the result of r's game (finished); queued again if it fails. e
 * (or NULL), the event announcing it, waits for the store's first answer. */
void room__store_result(room *r, outbox_ev *e);
/* The tournament of r's game (room_set_tourney_of), 0 for none. */
int64_t room__tourney_of(const room *r, char *name, size_t namelen);
/* The result is on disk: tell room_set_over_cb's callback (room_tourney.c). */
void room__over(room *r);
/* room_start_quiet is starting a game: room_start tells no session. */
extern bool room__quiet;
/* Queue the leaves of r's game not yet handed to the store (each after the
 * moves the store has); again after a failure, once r has nothing in
 * flight. e (or NULL), the event of the newest leave, waits for the store's
 * first answer to it. */
void room__store_leaves(room *r, outbox_ev *e);

/* room_notify.c: the moments notices (notify.h) may tell players away. */
/* The move at ply is durable. */
void room__notify_move(room *r, int ply);
/* The game's creation is durable. */
void room__notify_start(room *r);
/* The game's result is durable. */
void room__notify_end(room *r);

/* room_clock.c */
/* A seat's first move must come within this (0: no limit); see room.h. */
extern int64_t room__first_move_ms;
bool room__timed(const room *r);
/* Charge the time since the last settle to the player to move. */
void room__clock_settle(room *r);
/* Start the clock of the player to move (or stop all if the game is over). */
void room__clock_arm(room *r);
/* Arm the abandonment timer for the earliest away seat (or stop it). */
void room__abandon_arm(room *r);
/* Init r's two timers (r->open_handles counts them). */
void room__timers_init(room *r);

/* room_push.c */
/* After a move by seat `mover` (-1: the room was just restored): set the
 * room's low-time alarm (replacing the last). */
void room__notify_turn(room *r, int mover);
/* The move e is durable: push "your move" to the player it made to move
 * if that player is away. */
void room__push_move(room *r, const outbox_ev *e);
/* Drop every alarm (shutdown). */
void room__notify_stop(void);

/* room_events.c */
/* s watches r (gets its events); 0 or -1 if out of memory. */
int room__watch(room *r, session *s);
/* Does s watch r (joined it, or was seated there at the start)? */
bool room__watching(const room *r, const session *s);
/* Start an event: the next seq, and o ready to write it. */
void room__new_event(room *r, proto_out *o);
/* A new outbox entry for seq r->seq, linked at the tail, content not yet
 * written (room__ev_fill). NULL if out of memory. */
outbox_ev *room__ev_link(room *r, bool with_board);
/* The same in two steps, for a change that must not begin unless its event
 * exists: room__ev_new allocates (NULL if out of memory; free() if unused),
 * room__ev_append numbers it r->seq and links it at the tail. */
outbox_ev *room__ev_new(bool with_board);
void room__ev_append(room *r, outbox_ev *e);
/* Put the event written in lean into e (adding the board if e changed it). */
void room__ev_fill(room *r, outbox_ev *e, proto_out *lean);
/* Queue the event written in lean (seq r->seq); with_board adds the board
 * for the watchers that want it; durable events go out at once (after
 * those before them). */
outbox_ev *room__push_event(room *r, proto_out *lean, bool with_board, bool durable);
/* Send the outbox in order up to the first event not yet durable. */
void room__flush(room *r);
/* Take e out of the outbox, unsent, and free it. */
void room__outbox_drop(room *r, outbox_ev *e);
/* Broadcast an offer event (draw_offer, draw_declined, rematch_offer). */
void room__push_offer(room *r, const char *kind, int seat, unsigned offers);
/* Correspondence: the clocks (banks) from the store and the deadline of
 * the seat to move (others 0). */
void room__corr_clocks(room *r, int64_t deadlines[RULES_MAX_PLAYERS]);
/* Add the deadlines to a move or left event of a correspondence game. */
void room__corr_event(room *r, proto_out *o, const int64_t *deadlines);
/* A rated game's result is queued: its seats' ratings as they stand. */
void room__ratings_before(room *r);
/* Its result is stored: the "ratings" event, once. */
void room__ratings_told(room *r);
/* Send r's whole state to s (req: the request to echo, or NULL). */
void room__send_state(room *r, session *s, const proto_req *req);
/* The persons watching r without a seat (each counted once, however many
 * connections it has). */
int room__spectators(const room *r);
/* Stop telling the spectators' count (room_shutdown). */
void room__spectators_shutdown(void);
/* Free what the events hold (ring, outbox, watchers). */
void room__events_free(room *r);
/* Every watcher of r stops watching it, told why by an error event
 * (code e, no "re"), then (close_why not NULL) asked to connect again
 * (session_reconnect: 1001, close_why). */
void room__drop_watchers(room *r, proto_err e, const char *why, const char *close_why);

/* room_takeover.c (node mode) */
/* Stop the take-over timer for good (shutdown). */
void room__takeover_stop(void);

#endif
