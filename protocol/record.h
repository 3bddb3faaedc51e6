/*
 * record.h - games, turns, profiles and conditional lines as plain structs:
 * what storage gives (server/store/store.h returns them) and what the protocol
 * renders (archive.h: JSON, pgn.h: PGN). No JSON, no SQL, no I/O here.
 *
 * Owns: the record types and record_replay (a recorded game rebuilt
 * through the rules core). May call: common/rules.h only.
 *
 * Strings and arrays inside a record belong to whoever handed it out (the
 * store, for the duration of a callback); a record is read, never freed,
 * by its receiver.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

enum {
    RECORD_NAME_MAX = 32,     /* username or guest name incl. NUL */
    RECORD_VARIANT_MAX = 24,  /* rules id incl. NUL */
    RECORD_DAY_MS = 86400000, /* one day in ms */
};

typedef enum { RECORD_LIVE = 0, RECORD_CORR = 1 } record_kind;

/* "live" or "correspondence". */
const char *record_kind_name(record_kind k);
/* "none", "win", "loss", "draw" for a rules_outcome ("none" if unknown). */
const char *record_outcome_name(int outcome);

/* Time control (store.h says what the fields mean for each kind). */
typedef struct record_tc {
    int64_t base_ms;
    int64_t inc_ms;
    int64_t cap_ms;
} record_tc;

typedef struct record_player {
    int64_t account;            /* 0: a guest or a bot */
    char name[RECORD_NAME_MAX]; /* username, or the guest's display name */
    /* A bot's level (1..8), 0: a person. Only set where a game is created
     * (the store lets bots sit in correspondence games without an
     * account); stored games keep it in their options ("bots"). */
    int bot;
} record_player;

/* A recorded move. */
typedef struct record_move {
    int ply;
    int player;
    const char *text;                    /* notation.md input text */
    int64_t at_ms;                       /* when it was recorded */
    int64_t clock_ms[RULES_MAX_PLAYERS]; /* live: clocks after the move */
} record_move;

/* A player who left during the game (three-player games). */
typedef struct record_leave {
    int after_ply; /* number of moves played when it left */
    int player;
    rules_reason reason;
    int64_t at_ms;
} record_leave;

/* A whole game as recorded. */
typedef struct record_game {
    int64_t id;
    const char *variant;
    const char *position; /* NULL: the set-up */
    record_kind kind;
    bool rated;
    int nplayers;
    record_player players[RULES_MAX_PLAYERS];
    record_tc tc;
    const char *options; /* JSON object text or NULL */
    int64_t created_ms;
    int64_t last_move_ms; /* time of the last move (creation if none) */
    int to_move;          /* -1 if finished */
    /* Live: remaining time of each player as of last_move_ms.
     * Correspondence: each player's bank (increment mode) or base_ms (days
     * per move). */
    int64_t clock_ms[RULES_MAX_PLAYERS];
    /* Correspondence: when the player to move runs out of time, vacation
     * included; 0 for live games and finished games. */
    int64_t deadline_ms;
    bool finished;
    rules_result result; /* when finished */
    int64_t finished_ms;
    int nmoves;
    const record_move *moves;
    int nleaves;
    const record_leave *leaves; /* in order of after_ply */
} record_game;

/*
 * Rebuild a recorded game through the rules core (rules_game_replay): the
 * start position, then its moves and leaves in order, a leave with
 * after_ply k before move k. 0 and *out (free it with rules_game_free), or
 * the rules error of the first step that does not replay, with a why.
 */
int record_replay(const record_game *g, rules_game **out, char *why, size_t whylen);

/* One entry of an account's "your turn" list. */
typedef struct record_turn {
    int64_t game;
    char variant[RECORD_VARIANT_MAX];
    record_kind kind;
    int ply;             /* moves played so far */
    int64_t deadline_ms; /* correspondence; live games: 0 (listed first) */
    /* The names of the other seats still playing, when the room is known
     * here (borrowed for the call; nopponents 0: not known). */
    const char *opponents[RULES_MAX_PLAYERS];
    int nopponents;
} record_turn;

/* A game of an account as its profile lists it. */
typedef struct record_profile_game {
    int64_t id;
    char variant[RECORD_VARIANT_MAX];
    record_kind kind;
    int seat;
    int nmoves;
    int64_t created_ms;
    /* In progress. */
    int to_move;
    int64_t deadline_ms; /* correspondence */
    /* Finished. */
    int outcome; /* rules_outcome of this seat */
    rules_reason reason;
    int64_t finished_ms;
} record_profile_game;

/* The finished games of an account in one variant, with its score. */
typedef struct record_variant_games {
    char variant[RECORD_VARIANT_MAX];
    int wins, losses, draws;
    int ngames;
    const record_profile_game *games; /* newest first */
} record_variant_games;

/* A rating (rating.h) of one account in one variant and pace. */
typedef struct record_rating {
    char variant[RECORD_VARIANT_MAX];
    int pace; /* rating_pace */
    double rating, rd, vol;
    int games;       /* rated games played at this variant and pace */
    int64_t last_ms; /* the last of them */
} record_rating;

/* A rating after one rated game (the history of a profile). */
typedef struct record_rating_point {
    char variant[RECORD_VARIANT_MAX];
    int pace;
    int64_t game, at_ms;
    double rating, rd;
} record_rating_point;

/* One row of a leaderboard. */
typedef struct record_board_entry {
    char username[RECORD_NAME_MAX];
    int pace;
    double rating, rd;
    int games;
    int64_t last_ms;
} record_board_entry;

/* The leaderboard of a variant: per pace, best first. */
typedef struct record_board {
    char variant[RECORD_VARIANT_MAX];
    int n;
    const record_board_entry *entries; /* by pace, then rating downwards */
} record_board;

/* A finished game in a player's archive (one page of it). */
typedef struct record_archive_game {
    int64_t id;
    char variant[RECORD_VARIANT_MAX];
    record_kind kind;
    bool rated;
    int nplayers;
    record_tc tc;
    int seat;    /* the player's */
    int outcome; /* rules_outcome of the player's seat */
    int winner;  /* seat, -1 if none */
    rules_reason reason;
    int64_t created_ms, finished_ms;
    int nmoves;
    char names[RULES_MAX_PLAYERS][RECORD_NAME_MAX]; /* by seat */
    bool has_rating; /* rated: the player's rating before and after */
    double rating_before, rating_after;
} record_archive_game;

/* One page of a player's archive, newest first. */
typedef struct record_archive {
    char username[RECORD_NAME_MAX];
    int n;
    const record_archive_game *games;
    bool more; /* older games match too: ask with before = the last id */
} record_archive;

/* A player's profile. */
typedef struct record_profile {
    int64_t account;
    char username[RECORD_NAME_MAX];
    int nplaying;
    const record_profile_game *playing; /* games in progress, newest first */
    int nvariants;
    const record_variant_games *variants; /* in order of their newest game */
    int nratings;
    const record_rating *ratings; /* by variant, then pace */
    int npoints;
    const record_rating_point *points; /* rating history, oldest first */
} record_profile;

/* A player's conditional lines in one game, in priority order. A line is
 * move texts separated by spaces: the opponent's, the answer, the
 * opponent's next, ... */
typedef struct record_lines {
    int n;
    const char *const *lines;
} record_lines;

/* The next move text of a line at *p into out, *p moved past it: 1, or 0
 * at the end of the line, or -1 for a text too long to be a move (the one
 * reading of a line, for the store's check and the room's matching). */
int record_line_next(const char **p, char out[RULES_MOVE_TEXT]);

#endif
