/*
 * rollerball.h - Rollerball (Jean-Louis Cazaux, 1998), game id "rollerball".
 *
 * Rules: ../shared/rules/rollerball.md. The board is 7x7 without the nine
 * centre cells c3-e5: 40 cells, numbered rank by rank from a1 (a1=0, b1=1,
 * ..., g1=6, a2=7, ..., g2=13, a3=14, b3=15, f3=16, g3=17, a4=18, ...,
 * a6=26, ..., a7=33, ..., g7=39). Every cell has a forward direction (the same
 * for both players); pieces move in the frame of the cell they start from.
 *
 * Position string (FEN-like, never contains ';'):
 *
 *     <rank 7>/<rank 6>/<rank 5>/<rank 4>/<rank 3>/<rank 2>/<rank 1> <side> <journey>
 *
 *   - each rank lists files a to g: a piece letter (P pawn, B bishop, R rook,
 *     K king; upper case white, lower case black), a digit 1-7 for that many
 *     empty cells, or '*' for a hole cell. Ranks 3, 4 and 5 must have '*' at
 *     c, d and e (and only there); a digit never covers a hole cell and two
 *     digits are never adjacent;
 *   - side to move: 'w' or 'b';
 *   - journey: '-' or the kings that are "under way" on their clockwise
 *     journey, 'W' (white king crossed from d1/d2 to c1/c2 and has not crossed
 *     back) then 'B' (black king crossed from d6/d7 to e6/e7), e.g. "WB".
 *
 * The set-up: "2rbp2/2rkp2/2***2/2***2/2***2/2PKR2/2PBR2 w -".
 * A parsed position must have exactly one king per side, no white pawn on e6
 * or e7, no black pawn on c1 or c2, and the side not to move not in check.
 *
 * Move text: "<from>-<to>", and "<from>-<to>=R" or "=B" when a pawn promotes
 * (always written; on the dark cells e7 and c1 only "=R" exists).
 *
 * When a king stands on the enemy king's starting cell while under way the
 * game is over (reason "journey"): legal_moves then returns no move, so such
 * a position is a leaf in perft.
 *
 * The bots' hooks (evaluate, is_capture, in_check, set_to_move) are
 * described in common/ENGINE.md, section Rollerball.
 *
 * Owns: the Rollerball game: its cell tables, moves, position and move text,
 * and the bots' evaluation, as hooks of a rules_variant. May call: rules.h, libc.
 */
#ifndef ROLLERBALL_H
#define ROLLERBALL_H

#include "rules.h"

extern const rules_variant rollerball_variant;

#endif
