/*
 * yalta.h - Yalta chess: three players on a 96-cell hexagonal board
 * (../shared/rules/yalta.md). Game id "yalta".
 *
 * Players: 0 white (section S1), 1 red (S2), 2 black (S3); white moves
 * first, then red, then black. Cells are named as in the rules file
 * (a1..h4, a5..d8 + i5..l8, e9..l12). Moves are "<from>-<to>" with
 * "=Q|R|B|N" for a promotion; castling is the king's move ("e1-g1").
 *
 * Position string: six fields separated by single spaces.
 *
 *   <board> <to move> <castling> <en passant> <left> <ply clock>
 *
 *   board      twelve ranks, rank 1 first, separated by '/'. Each rank lists
 *              its eight cells in alphabetical file order (ranks 1-4: a..h,
 *              5-8: a b c d i j k l, 9-12: e..l). A piece is two letters,
 *              its owner (w, r, b) then its kind (P N B R Q K); a run of n
 *              empty cells is the digit n (1-8).
 *   to move    w, r or b.
 *   castling   "-" or, in this order, any of wK wQ rK rQ bK bQ: K is the
 *              king-side castling that stays in the king's half of its
 *              section (e1-g1, d8-b8, i12-k12), Q the one that crosses the
 *              centre line (e1-c1, d8-j8, i12-f12).
 *   en passant "-" or up to three entries separated by ',', each
 *              "<crossed cell>:<players who may still take>", e.g. "e3:rb"
 *              after white's e2-e4. The players are those whose turn comes
 *              before the double-stepping player's next turn, in turn order
 *              (so they follow from the player to move; the text must say
 *              exactly that). Entries are listed in order of the owner
 *              (white, red, black).
 *   left       "-" or the players who left the game, in order (e.g. "r").
 *   ply clock  plies since the last capture or pawn move (0-150).
 *
 * The set-up (yalta_setup_text), written here over three lines:
 *   wRwNwBwQwKwBwNwR/wPwPwPwPwPwPwPwP/8/8/8/8/rPrPrPrPrPrPrPrP/
 *   rRrNrBrKrQrBrNrR/8/8/bPbPbPbPbPbPbPbP/bQbBbNbRbKbBbNbR
 *   w wKwQrKrQbKbQ - - 0
 * After white's e2-e4 the last fields read "r wKwQrKrQbKbQ e3:rb - 0".
 * Every string the parser accepts is the one the printer writes back
 * (one spelling per position); a string never contains ';'.
 *
 * Rules settled where the rules file is silent (see yalta.c for details):
 *   - a king of a player still in the game is never captured: moves onto it
 *     are not legal (mate is judged on its owner's turn); the king of a
 *     player who left is an inert obstacle and can be captured;
 *   - en passant is possible only while the double-stepped pawn is still on
 *     its cell and the crossed cell is empty; a player who leaves loses its
 *     own en passant entries and castling rights.
 *
 * The bots' hooks (rules.h, search.h): evaluate gives each player's own
 * score (material, mobility, pawn advance, king safety against both
 * opponents; INT32_MIN for a player who left), is_capture, and set_to_move,
 * which hands the turn to any player still in the game as if it had come
 * round to it (see yalta.c) and is undone by calling it with the previous
 * player. The weights and how they were chosen: ENGINE.md, "Yalta".
 *
 * Owns: the Yalta game: its cell tables, moves, position and move text, its
 * evaluation, as hooks of a rules_variant. May call: rules.h, libc.
 */
#ifndef YALTA_H
#define YALTA_H

#include "rules.h"

extern const rules_variant yalta_variant;

/* The position string of the set-up (static storage). */
const char *yalta_setup_text(void);

#endif
