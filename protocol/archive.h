/*
 * archive.h - records rendered for the wire: a recorded game as JSON (GET
 * /api/games/<id>) or PGN (/api/games/<id>.pgn), a profile as JSON
 * (/api/profile/<name>), the "your turn" list and conditional lines as the
 * JSON arrays the protocol's turns and cond messages carry.
 *
 * Owns: the JSON shape of those documents (PROTOCOL.md) and the PGN tags of
 * a stored game. May call: record.h, pgn.h, rating.h, proto.h (a move's changes), common/rules.h,
 * jansson.
 *
 * Every function returns malloc'd NUL-terminated text (the caller frees
 * it), or NULL if memory ran out.
 */
#ifndef ARCHIVE_H
#define ARCHIVE_H

#include "record.h"

/*
 * The game as a JSON object: id, variant, kind, rated, time control,
 * players (seat, name, account, outcome once finished), moves (ply, player,
 * move, at), leaves, created, status, start position, options (less
 * seat_keys, which would link a guest's games together); then the
 * result and finished time, or the player to move (and the deadline of a
 * correspondence game).
 */
char *archive_game_json(const record_game *g);

/*
 * The same object completed for viewers (GET /api/games/<id>), replayed
 * through the rules core: "start" (the pieces before the first move) and,
 * in each move, "display", "captures" (cell names) and "changes" (the cells
 * the move changed with their new contents), so that a client steps through
 * the game without knowing its rules. A record that does not replay is
 * served as archive_game_json gives it.
 */
char *archive_game_view_json(const record_game *g);

/* The game as PGN (pgn.h): Event, Site, Date, Round, one tag per seat,
 * Result, Variant, GameId, TimeControl, Termination, SetUp/FEN. */
char *archive_game_pgn(const record_game *g);
/* The same with the Event and Round of a tournament game and a Section
 * tag (each NULL: as archive_game_pgn). */
char *archive_game_pgn_event(const record_game *g, const char *event, const char *round,
                             const char *section);

/* The profile as a JSON object: account, username, in_progress (a list),
 * finished (per variant: wins, losses, draws and its games), ratings (per
 * variant and pace: rating, rd, vol, provisional, games, last, history). */
char *archive_profile_json(const record_profile *p);

/* One page of a player's archive: {username, games: [{id, variant, kind,
 * rated, players (names by seat), seat, outcome, winner, reason, created,
 * finished, moves, base_ms, inc_ms, rating_before/rating_after if rated}],
 * more, next (the `before` of the next page, when more)}. */
char *archive_list_json(const record_archive *a);

/* A leaderboard: {variant, paces: {pace: [{username, rating, rd, games,
 * last}]}}, best first. */
char *archive_board_json(const record_board *b);

/* The "your turn" list as a JSON array (id, variant, kind, ply, deadline
 * for correspondence games). */
char *archive_turns_json(const record_turn *t, int n);

/* Conditional lines as a JSON array of strings. */
char *archive_lines_json(const record_lines *l);

#endif
