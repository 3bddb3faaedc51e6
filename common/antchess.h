/*
 * antchess.h - Ant Chess (jeu d'echecs fourmi), two players (`ant2`) and
 * three players (`ant3`), as in ../shared/rules/antchess.md.
 *
 * Players: ant2 0 black (moves first), 1 red; ant3 0 black, 1 red, 2 green,
 * turn in that order, skipping a player who left.
 *
 * Cells are numbered file by file from the west (a..n, no j), each file from
 * its rank 1 (southernmost) upwards: a1 = 0, a7 = 6, b1 = 7, ..., n7 = 126.
 *
 * Position string (never contains ';'), three fields separated by one space:
 *
 *   <file a>/<file b>/.../<file n> <to move> <left>
 *
 *   - each of the 13 files lists its cells from rank 1 northwards: a piece is
 *     its owner's letter (b black, r red, g green; g only in ant3) followed by
 *     its kind (Q queen, A soldier ant, S super-ant, B beetle, L ladybug,
 *     G grasshopper, W earthworm); a run of empty cells is a decimal count
 *     without leading zero (so two counts are never adjacent);
 *   - <to move> is b, r or g;
 *   - <left> is "-" or the letters of the players who left the game, in turn
 *     order (ant3 only; at most one, since the game ends when one is left).
 *     Their pieces are inert obstacles. A '!' after the letters says that
 *     the last event was that player leaving: nobody has ended a turn since,
 *     so no centre win is judged until the next move or pass.
 *   A player's queen that is missing has been captured (ant3 only; in ant2
 *   both queens must be present).
 *   Example, the ant2 set-up:
 *   "7/8/bA7rA/bWbA6rArW/1bGbA5rArG1/2bLbA4rArL2/bQ2bBbA3rArB2rQ/2bLbA4rArL2/
 *    1bGbA5rArG1/bWbA6rArW/bA7rA/8/7 b -" (one line).
 *
 * Also rejected: a count that overruns its file, more pieces of a kind than
 * an army has (Q 1, A+S 9, B 1, L 2, G 2, W 2), a soldier ant standing on its
 * own promotion edge, an ant2 position whose player not to move is in check
 * (it could not have got there), an ant3 position where the player to move
 * has left, more than one player has left, or no player still in has a queen.
 *
 * Move text (../shared/rules/notation.md): "g5-g6", "pass", ladybug
 * "h3-g4@h4cw" (pivot cell, turn cw or ccw as seen on the board drawn north
 * up). Promotion of a soldier ant is automatic and not written; "=S" after a
 * promoting move is accepted and ignored.
 *
 * Choices where the rules text leaves room (see the report to the lead):
 *   - inert pieces (of a player who left) can be neither captured nor moved;
 *     every piece treats them as it treats its own pieces: they stop a beetle,
 *     a super-ant, a ladybug, a landing; the worm passes under them; they can
 *     be a ladybug's pivot;
 *   - a ladybug's walk stops at the board's edge (a ring cell off the board);
 *   - the centre win: after a player's turn (move or pass) its queen stands
 *     on g7 and no enemy could capture her there. In ant3 a queen forced onto
 *     g7 while in check does not win then; if she is still there unthreatened
 *     after a later turn of her player, that player wins. A player leaving
 *     is not a turn: it never hands the centre win to anyone, even when it
 *     removes the only threat to a queen on g7;
 *   - a position where the game is won (centre, last queen) has no legal
 *     moves: legal_moves returns 0 and status says who won and why;
 *   - in ant3 check counts the pieces of every player still in, also of a
 *     player who lost its queen; a player whose queen is captured plays on
 *     without any check constraint; the last queen counts only players who
 *     have not left.
 *
 * Owns: the Ant Chess games (ant2, ant3): their cell tables, moves, position
 * and move text, as hooks of a rules_variant. May call: rules.h, libc.
 */
#ifndef ANTCHESS_H
#define ANTCHESS_H

#include "rules.h"

extern const rules_variant antchess_variant2; /* "ant2" */
extern const rules_variant antchess_variant3; /* "ant3" */

enum { ANTCHESS_NCELLS = 127 };

#endif
