/*
 * proto.h - the JSON codec of the chameleon protocol (protocol/PROTOCOL.md).
 *
 * The only code that reads or writes protocol messages. Reading is
 * table-driven: PROTO_REQUESTS lists every client message with its required
 * and optional fields, PROTO_FIELDS every field with its JSON type and where
 * it lands in a proto_req; proto_decode checks a frame against the tables
 * and fills a plain C struct, so the server never sees JSON. Writing goes
 * through a small append-only writer into a proto_out buffer (proto_out.h)
 * that keeps `headroom` free bytes in front (libwebsockets' LWS_PRE), so a
 * message can be sent without a copy.
 *
 * Owns: the message tables, the decoder, the writers. May call: jansson
 * (reading, through jsonin.h), common/rules.h (positions, moves),
 * proto_out.h (the buffer).
 */
#ifndef PROTO_H
#define PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto_out.h"
#include "rules.h"

enum {
    PROTO_VERSION = 1,
    PROTO_MAX_MESSAGE = 16 * 1024, /* bytes of one client message */
    PROTO_TOKEN_MAX = 64,          /* token characters */
    PROTO_NAME_MAX = 24,           /* player name bytes */
    PROTO_GAME_MAX = 31,
    PROTO_INVITE_MAX = 31,
    PROTO_CHAT_MAX = 300,      /* chat text bytes */
    PROTO_CATCHUP_MAX = 64,    /* events a catchup may carry */
    PROTO_COND_LINES = 16,     /* conditional lines per cond_set */
    PROTO_COND_LINE_MAX = 255, /* bytes of one conditional line */
};

/* The days a correspondence time control may give per move (or as the
 * initial bank): PROTOCOL.md CORR. The welcome sends them (`corr_days`) so
 * that clients offer exactly these; whoever checks a seek uses
 * proto_corr_days_allowed. One list, here. */
#define PROTO_CORR_DAYS 1, 2, 3, 5, 7, 10, 14
extern const int proto_corr_days[];
extern const int proto_ncorr_days;
bool proto_corr_days_allowed(int64_t days);

/* Words for people for why a game ended or a player left (welcome
 * `reasons`, keyed by rules_reason_name): "threefold repetition" for
 * "repetition". "" for RULES_REASON_NONE. */
const char *proto_reason_text(rules_reason r);

/* Error codes of the protocol: enum, code string, default sentence. The
 * codes of the rules core (rules.h RULES_ERRORS) that can refuse a move are
 * repeated here so that one list counts every error the server sends. */
#define PROTO_ERRORS(X)                                                                            \
    X(PROTO_EBAD_JSON, "bad_json", "the message is not a JSON object")                             \
    X(PROTO_EBAD_MESSAGE, "bad_message", "a field is missing or invalid")                          \
    X(PROTO_EUNKNOWN_TYPE, "unknown_type", "unknown message type")                                 \
    X(PROTO_ETOO_LARGE, "too_large", "message too large")                                          \
    X(PROTO_ENOT_HELLO, "not_hello", "send hello first, and only once")                            \
    X(PROTO_ERATE_LIMITED, "rate_limited", "too many messages")                                    \
    X(PROTO_EUNKNOWN_GAME, "unknown_game", "no such game id")                                      \
    X(PROTO_EBAD_TIME_CONTROL, "bad_time_control", "invalid time control")                         \
    X(PROTO_EUNKNOWN_SEEK, "unknown_seek", "no such open seek")                                    \
    X(PROTO_EOWN_SEEK, "own_seek", "you already sit in that seek")                                 \
    X(PROTO_ETOO_MANY_SEEKS, "too_many_seeks", "too many open seeks")                              \
    X(PROTO_ETOO_MANY_GAMES, "too_many_games", "too many games in progress")                       \
    X(PROTO_ETOO_MANY_ROOMS, "too_many_rooms", "too many rooms watched at once")                   \
    X(PROTO_ETOO_MANY_GUESTS, "too_many_guests", "the server holds too many guests: log in")       \
    X(PROTO_EUNKNOWN_ROOM, "unknown_room", "no such room")                                         \
    X(PROTO_ENOT_A_PLAYER, "not_a_player", "you have no seat in this game")                        \
    X(PROTO_ENOT_YOUR_TURN, "not_your_turn", "it is not your turn")                                \
    X(PROTO_EGAME_OVER, "game_over", "the game is over")                                           \
    X(PROTO_EGAME_NOT_OVER, "game_not_over", "the game is not over")                               \
    X(PROTO_ECANNOT_ABORT, "cannot_abort", "every player has moved already")                       \
    X(PROTO_EBAD_MOVE_TEXT, "bad_move_text", "malformed move text")                                \
    X(PROTO_ENO_PIECE, "no_piece", "no piece on that cell")                                        \
    X(PROTO_ENOT_YOUR_PIECE, "not_your_piece", "that piece is not yours")                          \
    X(PROTO_EFROZEN, "frozen", "that piece is frozen")                                             \
    X(PROTO_EUNREACHABLE, "unreachable", "the piece cannot move there")                            \
    X(PROTO_ESELF_CHECK, "self_check", "the move leaves your king in check")                       \
    X(PROTO_EILLEGAL, "illegal_move", "illegal move")                                              \
    X(PROTO_ESTORAGE, "storage_failed", "the move could not be stored")                            \
    X(PROTO_EACCOUNT_REQUIRED, "account_required", "rated and correspondence games need accounts") \
    X(PROTO_EVACATION, "vacation", "not enough vacation days left this year")                      \
    X(PROTO_EBAD_ARGUMENT, "bad_argument", "invalid argument")                                     \
    X(PROTO_ENOT_FOUND, "not_found", "no such record")                                             \
    X(PROTO_ENOT_CORRESPONDENCE, "not_correspondence",                                             \
      "conditional moves are for two-player correspondence games")                                 \
    X(PROTO_ENOT_JOINED, "not_joined", "join the room first")                                      \
    X(PROTO_ENO_TAKEBACK, "no_takeback", "no takeback in this game")                               \
    X(PROTO_ETAKEBACK_PENDING, "takeback_pending", "a takeback is being stored: try again")        \
    X(PROTO_EINTERNAL, "internal", "internal error")

typedef enum {
    PROTO_OK = 0, /* so that every error is non-zero */
#define PROTO_ERR_ENUM(name, code, text) name,
    PROTO_ERRORS(PROTO_ERR_ENUM)
#undef PROTO_ERR_ENUM
        PROTO_NERRORS
} proto_err;

const char *proto_err_code(proto_err e);
const char *proto_err_text(proto_err e);
/* The protocol error whose code is `code` ("self_check"), or fallback if
 * the protocol has none. Errors of the other layers (rules_err_code,
 * store_err_code, cond_err_code) are spelled like the protocol's wherever
 * they mean the same thing, so that they map by their code. */
proto_err proto_err_from_code(const char *code, proto_err fallback);
/* The protocol error for an error of the rules core (rules_err):
 * proto_err_from_code(rules_err_code(rerr), PROTO_EILLEGAL). */
proto_err proto_err_from_rules(int rerr);

/* Fields a client message may carry: bit, JSON name, JSON type. */
#define PROTO_FIELDS(X)                                                                            \
    X(PF_TOKEN, "token", STR)                                                                      \
    X(PF_NAME, "name", STR)                                                                        \
    X(PF_BOARD, "board", BOOL)                                                                     \
    X(PF_GAME, "game", STR)                                                                        \
    X(PF_BASE_MS, "base_ms", INT)                                                                  \
    X(PF_INC_MS, "inc_ms", INT)                                                                    \
    X(PF_RATED, "rated", BOOL)                                                                     \
    X(PF_PRIVATE, "private", BOOL)                                                                 \
    X(PF_SEEK, "seek", INT)                                                                        \
    X(PF_INVITE, "invite", STR)                                                                    \
    X(PF_ROOM, "room", INT)                                                                        \
    X(PF_SINCE, "since", INT)                                                                      \
    X(PF_MOVE, "move", STR)                                                                        \
    X(PF_TEXT, "text", STR)                                                                        \
    X(PF_CORR, "corr", CORR)                                                                       \
    X(PF_DAYS, "days", INT)                                                                        \
    X(PF_LINES, "lines", LINES)                                                                    \
    X(PF_LEVEL, "level", INT)                                                                      \
    X(PF_SEAT, "seat", INT)                                                                        \
    X(PF_RATING_MIN, "rating_min", INT)                                                            \
    X(PF_RATING_MAX, "rating_max", INT)                                                            \
    X(PF_TO, "to", STR)                                                                            \
    X(PF_CHALLENGE, "challenge", INT)                                                              \
    X(PF_TOURNEY, "tourney", INT)

enum {
#define PROTO_FIELD_BIT(bit, name, kind) bit##_INDEX,
    PROTO_FIELDS(PROTO_FIELD_BIT)
#undef PROTO_FIELD_BIT
        PROTO_NFIELDS
};
enum {
#define PROTO_FIELD_MASK(bit, name, kind) bit = 1 << bit##_INDEX,
    PROTO_FIELDS(PROTO_FIELD_MASK)
#undef PROTO_FIELD_MASK
};

/* Client messages: enum, type string, required fields, optional fields. */
#define PROTO_REQUESTS(X)                                                                          \
    X(PROTO_HELLO, "hello", 0, PF_TOKEN | PF_NAME | PF_BOARD)                                      \
    X(PROTO_PING, "ping", 0, 0)                                                                    \
    X(PROTO_LOBBY_WATCH, "lobby_watch", 0, 0)                                                      \
    X(PROTO_LOBBY_UNWATCH, "lobby_unwatch", 0, 0)                                                  \
    X(PROTO_SEEK_CREATE, "seek_create", PF_GAME,                                                   \
      PF_BASE_MS | PF_INC_MS | PF_RATED | PF_PRIVATE | PF_CORR | PF_RATING_MIN | PF_RATING_MAX)    \
    X(PROTO_SEEK_CANCEL, "seek_cancel", PF_SEEK, 0)                                                \
    X(PROTO_SEEK_ACCEPT, "seek_accept", 0, PF_SEEK | PF_INVITE)                                    \
    X(PROTO_JOIN, "join", PF_ROOM, PF_SINCE)                                                       \
    X(PROTO_PART, "part", PF_ROOM, 0)                                                              \
    X(PROTO_MOVE, "move", PF_ROOM | PF_MOVE, 0)                                                    \
    X(PROTO_RESIGN, "resign", PF_ROOM, 0)                                                          \
    X(PROTO_DRAW_OFFER, "draw_offer", PF_ROOM, 0)                                                  \
    X(PROTO_DRAW_DECLINE, "draw_decline", PF_ROOM, 0)                                              \
    X(PROTO_ABORT, "abort", PF_ROOM, 0)                                                            \
    X(PROTO_REMATCH, "rematch", PF_ROOM, 0)                                                        \
    X(PROTO_REMATCH_DECLINE, "rematch_decline", PF_ROOM, 0)                                        \
    X(PROTO_TAKEBACK, "takeback", PF_ROOM, 0)                                                      \
    X(PROTO_TAKEBACK_DECLINE, "takeback_decline", PF_ROOM, 0)                                      \
    X(PROTO_CHAT, "chat", PF_ROOM | PF_TEXT, 0)                                                    \
    X(PROTO_TURNS, "turns", 0, 0)                                                                  \
    X(PROTO_VACATION_START, "vacation_start", PF_DAYS, 0)                                          \
    X(PROTO_VACATION_END, "vacation_end", 0, 0)                                                    \
    X(PROTO_VACATION_STATUS, "vacation_status", 0, 0)                                              \
    X(PROTO_COND_SET, "cond_set", PF_ROOM | PF_LINES, 0)                                           \
    X(PROTO_COND_CLEAR, "cond_clear", PF_ROOM, 0)                                                  \
    X(PROTO_COND_GET, "cond_get", PF_ROOM, 0)                                                      \
    X(PROTO_BOT_GAME, "bot_game", PF_GAME | PF_LEVEL,                                              \
      PF_SEAT | PF_BASE_MS | PF_INC_MS | PF_RATED | PF_CORR)                                       \
    X(PROTO_SEEK_FILL, "seek_fill", PF_SEEK | PF_LEVEL, 0)                                         \
    X(PROTO_CHALLENGE_CREATE, "challenge_create", PF_TO | PF_GAME,                                 \
      PF_BASE_MS | PF_INC_MS | PF_RATED | PF_CORR)                                                 \
    X(PROTO_CHALLENGE_ACCEPT, "challenge_accept", PF_CHALLENGE, 0)                                 \
    X(PROTO_CHALLENGE_DECLINE, "challenge_decline", PF_CHALLENGE, 0)                               \
    X(PROTO_CHALLENGE_CANCEL, "challenge_cancel", PF_CHALLENGE, 0)                                 \
    X(PROTO_CHALLENGE_LIST, "challenge_list", 0, 0)                                                \
    X(PROTO_TOURNEY_WATCH, "tourney_watch", PF_TOURNEY, 0)                                         \
    X(PROTO_TOURNEY_UNWATCH, "tourney_unwatch", PF_TOURNEY, 0)

typedef enum {
#define PROTO_REQ_ENUM(name, type, req, opt) name,
    PROTO_REQUESTS(PROTO_REQ_ENUM)
#undef PROTO_REQ_ENUM
        PROTO_NREQUESTS
} proto_type;

const char *proto_type_name(proto_type t);

/* A decoded client message. `present` has the PF_* bit of every field the
 * message carried; absent fields are zero. Strings are NUL-terminated. */
typedef struct proto_req {
    proto_type type;
    bool has_id;
    int64_t id;
    unsigned present;
    char token[PROTO_TOKEN_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    bool board;
    char game[PROTO_GAME_MAX + 1];
    int64_t base_ms, inc_ms;
    bool rated, private_;
    int64_t seek;
    char invite[PROTO_INVITE_MAX + 1];
    int64_t room, since;
    char move[RULES_MOVE_TEXT];
    char text[PROTO_CHAT_MAX + 1];
    /* corr (seek_create): days, inc_days, cap_days as sent (0 if absent). */
    int64_t corr_days, corr_inc_days, corr_cap_days;
    int64_t days; /* vacation_start */
    int nlines;   /* cond_set */
    char lines[PROTO_COND_LINES][PROTO_COND_LINE_MAX + 1];
    int64_t level; /* bot_game, seek_fill: the bots' level (1..8) */
    int64_t seat;  /* bot_game: the seat to take (-1 or absent: random) */
    /* seek_create (rated): who may accept, by rating (0: no bound). */
    int64_t rating_min, rating_max;
    char to[PROTO_NAME_MAX + 1]; /* challenge_create: the account challenged */
    int64_t challenge;           /* challenge_accept, _decline, _cancel */
    int64_t tourney;             /* tourney_watch, tourney_unwatch */
} proto_req;

/*
 * Decode one client frame. Returns 0 and fills *req, or a proto_err with a
 * sentence in why. On error after the type was read, req->type is set and
 * req->has_id/id too, so the error can name the request; *typed says
 * whether req->type is meaningful.
 */
int proto_decode(const char *buf, size_t len, proto_req *req, bool *typed, char *why,
                 size_t whylen);

/* ------------------------------------------------------------------------ */
/* Writing. */

/* A correspondence time control in whole days (PROTOCOL.md CORR); days 0:
 * a live game (written as null). */
typedef struct proto_corr {
    int64_t days, inc_days, cap_days;
} proto_corr;

/* Players and seats as the encoders see them (owned by the caller). */
typedef struct proto_player {
    int64_t id;
    const char *name;
    int bot; /* a bot's level (1..8), written "bot":true,"level":N; 0: a person */
    /* The player's rating at the game's variant and pace (rounded), written
     * "rating":N,"provisional":bool; 0: none (a guest, a bot, no rated game
     * yet at that pace). */
    int rating;
    bool provisional;
    bool account; /* logged in as an account: written "account":true (its
                     player page is #/@/<name>); guests and bots: false */
    /* A finished rated game whose ratings are stored: what it changed
     * (written "rating_diff":N, e.g. 61 or -12). */
    bool has_diff;
    int rating_diff;
} proto_player;

typedef struct proto_seek_view {
    int64_t id;
    const char *game;
    int64_t base_ms, inc_ms;
    bool rated, private_;
    int seats;
    int nplayers;
    proto_player players[RULES_MAX_PLAYERS];
    proto_corr corr;
    int rating_min, rating_max; /* written "rating_range":[min,max] if set */
} proto_seek_view;

/* A challenge to a named account (PROTOCOL.md, "Lobby: presence, games to
 * watch, challenges"). */
typedef struct proto_challenge_view {
    int64_t id;
    const char *game;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr;
    proto_player from;
    const char *to; /* the challenged account's name */
} proto_challenge_view;

/* A game being played, as the lobby lists it to watch. */
typedef struct proto_live_game {
    int64_t room;
    const char *game;
    int64_t base_ms, inc_ms;
    bool rated;
    proto_corr corr;
    int nplayers;
    proto_player players[RULES_MAX_PLAYERS];
} proto_live_game;

typedef struct proto_chat_line {
    int seat;
    bool spectators; /* the spectators' room (else the players'): PROTOCOL.md chat */
    char name[PROTO_NAME_MAX + 1];
    char text[PROTO_CHAT_MAX + 1];
} proto_chat_line;

typedef struct proto_room_view {
    int64_t room;
    uint64_t seq;
    const rules_game *game;
    bool rated;
    int64_t base_ms, inc_ms;
    proto_player players[RULES_MAX_PLAYERS];
    bool connected[RULES_MAX_PLAYERS];
    int left[RULES_MAX_PLAYERS];         /* rules_reason, or -1 */
    int64_t vacation[RULES_MAX_PLAYERS]; /* the end of the seat's vacation (ms), 0: none */
    int you;
    int64_t clocks[RULES_MAX_PLAYERS];
    bool clock_running;
    unsigned draw_offers, rematch_offers; /* bit per seat */
    unsigned takeback_offers;             /* bit per seat */
    const proto_chat_line *chat;          /* nchat lines, oldest first */
    int nchat;
    /* Correspondence (corr.days > 0): deadline per seat (0: none, written
     * null) and the server's clock, both ms since the epoch. */
    proto_corr corr;
    int64_t deadlines[RULES_MAX_PLAYERS];
    int64_t now_ms;
    /* The tournament the game belongs to: its id (0: none) and name. */
    int64_t tourney_id;
    const char *tourney_name;
    int spectators; /* persons watching without a seat */
} proto_room_view;

/* What a move changed (the position before the move is needed to name it,
 * so the caller computes display text and captures before playing). The
 * cells whose contents changed (the event's `changes`) are found by the
 * writer itself, from the game. */
typedef struct proto_move_view {
    int ply, seat;
    const char *move, *display;
    const int *captures;
    int ncaptures;
    /* The position the move was played in (its changes are this against
     * the game's position now): rooms have it at hand. */
    const rules_pos *before;
} proto_move_view;

void proto_write_error(proto_out *o, const proto_req *req, bool typed, proto_err e,
                       const char *reason);
/* account: the username if the connection is logged in, else NULL; push:
 * whether the server sends Web Push notices (a client asks for the key
 * only then). */
void proto_write_welcome(proto_out *o, const proto_req *req, const char *token,
                         const proto_player *me, const char *account, const int64_t *rooms,
                         int nrooms, bool push);
void proto_write_pong(proto_out *o, const proto_req *req);
/* One change of a lobby_update: op "add", "update" (seek: the seek as it
 * is now) or "remove" (seek NULL: only the id is written). */
typedef struct proto_lobby_change {
    const char *op;
    int64_t id;
    const proto_seek_view *seek;
} proto_lobby_change;

/* lobby: seeks[nseeks]; lobby_update: the changes of one batch. */
void proto_write_lobby(proto_out *o, const proto_req *req, uint64_t seq,
                       const proto_seek_view *seeks, int nseeks);
void proto_write_lobby_update(proto_out *o, uint64_t seq, const proto_lobby_change *ch, int n);
/* kind: "seek_created", "seek_joined"; invite may be NULL. */
void proto_write_seek(proto_out *o, const proto_req *req, const char *kind,
                      const proto_seek_view *s, const char *invite);
void proto_write_seek_cancelled(proto_out *o, const proto_req *req, int64_t seek);
/* lobby_life: the counts and the games being played (PROTOCOL.md). */
void proto_write_lobby_life(proto_out *o, int64_t online, int64_t playing,
                            const proto_live_game *games, int n);
/* Node mode: one LIVE object alone (a node's games, sent to the lobby's
 * node), and lobby_life with its games given as such objects (one that is
 * not a JSON object is left out). */
void proto_put_live_game(proto_out *o, const proto_live_game *g);
void proto_write_lobby_life_json(proto_out *o, int64_t online, int64_t playing,
                                 const char *const *games, const size_t *lens, int n);
/* challenge: op "add" or "remove" (reason: "accepted", "declined",
 * "cancelled", "gone"; NULL with "add"). challenges: the list. */
void proto_write_challenge(proto_out *o, const proto_req *req, const char *op,
                           const proto_challenge_view *c, const char *reason);
void proto_write_challenges(proto_out *o, const proto_req *req, const proto_challenge_view *c,
                            int n);
void proto_write_game_started(proto_out *o, const proto_req *req, int64_t room, int seat,
                              const char *game);
void proto_write_room(proto_out *o, const proto_req *req, const proto_room_view *v);
/* {"type":"spectators","room":..,"n":..}: the persons watching a room
 * without a seat, when that changes (at most once a second). */
void proto_write_spectators(proto_out *o, int64_t room, int n);

/*
 * Events. Each writes a whole `event` message. proto_write_event_move and
 * proto_write_event_left write the lean form (no board); append the board
 * with proto_event_add_board, which turns a lean event into the full one.
 */
void proto_write_event_move(proto_out *o, int64_t room, uint64_t seq, const proto_move_view *m,
                            const rules_game *g, const int64_t *clocks, bool clock_running);
void proto_write_event_left(proto_out *o, int64_t room, uint64_t seq, int seat, int reason,
                            const rules_game *g, const int64_t *clocks, bool clock_running);
void proto_write_event_end(proto_out *o, int64_t room, uint64_t seq, const rules_game *g,
                           const int64_t *clocks);
/* kind "draw_offer", "rematch_offer" or "takeback_offer" (offers = bit per
 * seat) or "draw_declined", "rematch_declined", "takeback_declined"
 * (offers ignored). */
void proto_write_event_offer(proto_out *o, int64_t room, uint64_t seq, const char *kind, int seat,
                             unsigned offers, int nseats);
void proto_write_event_rematch(proto_out *o, int64_t room, uint64_t seq, int64_t next_room);
/* kind "takeback": the game now has `ply` moves (`removed` were taken back),
 * with the turn and clocks as in a move event. */
void proto_write_event_takeback(proto_out *o, int64_t room, uint64_t seq, int ply, int removed,
                                const rules_game *g, const int64_t *clocks, bool clock_running);
void proto_write_event_presence(proto_out *o, int64_t room, uint64_t seq, int seat, bool connected);
void proto_write_event_chat(proto_out *o, int64_t room, uint64_t seq, const proto_chat_line *line);
/* An event number spent on the other chat room: nothing to apply. */
void proto_write_event_skip(proto_out *o, int64_t room, uint64_t seq);
/* "ratings": a rated game's result is stored; players: every seat as the
 * state's `players` gives it, with its new rating and rating_diff. */
void proto_write_event_ratings(proto_out *o, int64_t room, uint64_t seq,
                               const proto_player *players, int n);
/* A correspondence seat's vacation began (until_ms, the end) or ended
 * (until_ms 0: written null), with the deadlines it moved. */
void proto_write_event_vacation(proto_out *o, int64_t room, uint64_t seq, int seat,
                                int64_t until_ms, const int64_t *deadlines, int nseats,
                                int64_t now_ms);
/* Copy the lean event `lean` (len bytes, ending in '}') into o with the board
 * fields of g added. */
void proto_event_add_board(proto_out *o, const char *lean, size_t len, const rules_game *g);
/* Turn a lean move/left event (just written in o, ending in '}') of a
 * correspondence game into one with "deadlines" and "now_ms". */
void proto_event_add_corr(proto_out *o, const int64_t *deadlines, int nseats, int64_t now_ms);
/* catchup: the events (each a whole lean event message), then the current
 * board of the room view. */
void proto_write_catchup(proto_out *o, const proto_req *req, const proto_room_view *v,
                         const char *const *events, const size_t *lens, int nevents);

/* Correspondence replies. games_json / lines_json: JSON array texts from the
 * store, copied as they are. */
void proto_write_turns(proto_out *o, const proto_req *req, const char *games_json);
void proto_write_vacation(proto_out *o, const proto_req *req, int64_t until_ms, int days_left);
void proto_write_cond(proto_out *o, const proto_req *req, int64_t room, const char *lines_json);

/* One cell's contents after a move: letter 0 when empty (owner -1 then). */
typedef struct proto_cell_change {
    int cell;
    char letter;
    int owner;
} proto_cell_change;

/* The cells whose contents differ from position a to b, in cell order, each
 * with its contents in b (a move's CHANGES, PROTOCOL.md). out has room for
 * RULES_MAX_CELLS; returns the count. */
int proto_pos_changes(const rules_variant *v, const rules_pos *a, const rules_pos *b,
                      proto_cell_change *out);

/* HTTP bodies. */
/* The body of POST /api/register and /api/login: {"username":..,
 * "password":..} and, for a login, "code" (two-factor sign-in: into code,
 * "" when absent; clen 0 takes none). 0, or PROTO_EBAD_JSON /
 * PROTO_EBAD_MESSAGE with a why. */
int proto_decode_credentials(const char *buf, size_t len, char *user, size_t ulen, char *pass,
                             size_t plen, char *code, size_t clen, char *why, size_t whylen);
/* {"username":..} after register/login, {"ok":true} after logout. */
void proto_write_account(proto_out *o, const char *username);
/* One login of an account (GET /api/sessions): id is the hex of its
 * token's hash (the token is never stored), agent the browser's User-Agent
 * as it logged in (printable ASCII), current whether it is the asker's. */
typedef struct proto_login {
    const char *id;
    int64_t created_ms, expires_ms;
    const char *agent;
    bool current;
} proto_login;
/* {"sessions":[{"id","created_ms","expires_ms","agent","current"}...]}. */
void proto_write_logins(proto_out *o, const proto_login *l, size_t n);
/* The body of POST /api/sessions/end: {"id": 64 hex digits} (the id into
 * id, others false) or {"others": true}. 0, or PROTO_EBAD_JSON /
 * PROTO_EBAD_ARGUMENT with a why. */
enum { PROTO_LOGIN_ID_HEX = 64 };
int proto_decode_login_end(const char *buf, size_t len, char id[PROTO_LOGIN_ID_HEX + 1],
                           bool *others, char *why, size_t whylen);
/* Two-factor sign-in (PROTOCOL.md, "Accounts"). The body {"code": ..}
 * of POST /api/2fa/enable and /disable: 0, or PROTO_EBAD_JSON /
 * PROTO_EBAD_MESSAGE with a why. */
int proto_decode_code(const char *buf, size_t len, char *code, size_t clen, char *why,
                      size_t whylen);
/* {"enabled":..,"pending":..,"recovery_left":n}. */
void proto_write_totp_state(proto_out *o, bool enabled, bool pending, int recovery_left);
/* {"secret":"<base32>","uri":"otpauth://..."} of a new pending secret. */
void proto_write_totp_setup(proto_out *o, const char *secret, const char *uri);
/* {"enabled":true,"recovery_codes":[..]}: shown once. */
void proto_write_recovery_codes(proto_out *o, const char *const *codes, int n);
/* {"error":code,"reason":..} for an HTTP API error. */
void proto_write_http_error(proto_out *o, const char *code, const char *reason);
/*
 * GET /api/tables: the server's tables, which clients keep no copy of
 * (PROTOCOL.md, HTTP): {"protocol", "games" (id, name, players, colors,
 * cells, setup), "corr_days", "reasons" (reason -> words)}. They never
 * change while the server runs: the server writes them once.
 */
void proto_write_tables(proto_out *o);
void proto_write_health(proto_out *o, int64_t uptime_s, int64_t connections, int64_t rooms);
/* GET /healthz while the server cannot write (answered 503):
 * {"status":"unavailable","storage":"<why>","uptime_s":N}. */
void proto_write_unhealthy(proto_out *o, int64_t uptime_s, const char *storage);

#endif
