/*
 * pgn.h - PGN export and import of a game of any variant.
 *
 * Owns: PGN text (tags, move text, results) and its parser. May call:
 * common/rules.h, and array.h and proto_out.h to grow its items and text
 * (archive.h turns a stored game into a pgn_game).
 *
 * Tags: Event, Site, Date (UTC, YYYY.MM.DD), Round, one tag per player named
 * after the variant's player names, capitalised ([White "ann"] [Black "bob"],
 * Yalta [White ..] [Red ..] [Black ..]), Result, Variant (the rules id),
 * GameId, TimeControl, Termination (rules_reason_name), and SetUp "1" + FEN
 * (the variant's position string) when the game did not start from the
 * set-up.
 *
 * Move text: the input text of ../shared/rules/notation.md, numbered by
 * rounds ("1. e2-e4 e7-e5 2. ..."; a round is one move of every seat, so
 * three moves per number in three-player games). A player leaving the game
 * while others play on is written as the comment "{leave <seat> <reason>}"
 * at its place, so that a re-import can replay it through rules_game_leave.
 *
 * Result: two players "1-0", "0-1", "1/2-1/2"; three players one score per
 * seat in seat order joined by '-', e.g. "0-1-0", "1/2-1/2-0"; "*" while in
 * progress. (PGN has no three-player result; this is our choice.)
 */
#ifndef PGN_H
#define PGN_H

#include <stddef.h>
#include <stdint.h>

#include "rules.h"

enum {
    PGN_MAX_TAGS = 32,
    PGN_TAG_VALUE = 256,
};

typedef struct pgn_tag {
    char name[32];
    char value[PGN_TAG_VALUE];
} pgn_tag;

/* One item of the move text: a move, or a player leaving. */
typedef struct pgn_item {
    char text[RULES_MOVE_TEXT]; /* move input text; "" for a leave */
    int leave_player;           /* -1 for a move */
    rules_reason leave_reason;
} pgn_item;

typedef struct pgn_game {
    int ntags;
    pgn_tag tags[PGN_MAX_TAGS];
    size_t nitems, cap;
    pgn_item *items; /* malloc'd */
} pgn_game;

/* Set (replace or add) a tag. 0 or -1 if there is no room. */
int pgn_set_tag(pgn_game *g, const char *name, const char *value);
/* A tag's value or NULL. */
const char *pgn_tag_value(const pgn_game *g, const char *name);
/* Append a move or a leave. 0 or -1 (out of memory). */
int pgn_add_move(pgn_game *g, const char *text);
int pgn_add_leave(pgn_game *g, int player, rules_reason reason);
void pgn_free(pgn_game *g);

/* The tag name of a seat for a variant: its player name capitalised. */
void pgn_seat_tag(const rules_variant *v, int seat, char *buf, size_t len);

/* The Result tag text for a result of a game of nplayers ("*" if not
 * over). */
void pgn_result_text(const rules_result *r, int nplayers, char *buf, size_t len);

/* Write the PGN text (malloc'd into *out; the caller frees). nplayers sets
 * the numbering of rounds. The move text ends with the Result tag, or "*"
 * if the tag is missing or holds no result. 0 or -1 (out of memory). */
int pgn_write(const pgn_game *g, int nplayers, char **out);

/* Parse one game of PGN text into g (zeroed by the caller or freed before).
 * 0, or -1 with a sentence in why (line and what was expected). */
int pgn_parse(const char *text, pgn_game *g, char *why, size_t whylen);

/*
 * Replay a parsed game through the rules core (rules_game_replay): variant
 * from [Variant], start from [FEN] if [SetUp "1"], then its items in order
 * as steps (moves by whoever is to move, leaves). 0 and *out, or a negative
 * rules error with a why naming the move.
 */
int pgn_replay(const pgn_game *g, rules_game **out, char *why, size_t whylen);

#endif
