/*
 * ultima.h - Ultima (Baroque chess), ../shared/rules/ultima.md.
 *
 * Two game ids share this module:
 *   ultima      the 1963 rules (the default of the postal clubs);
 *   ultima1968  the same plus the 1968 rule: a piece standing on its owner's
 *               N-th rank (White counts from rank 1, Black from rank 8)
 *               moves at most N squares; a long leaper (or a chameleon
 *               leaping) counts every square crossed, the landing included.
 *
 * Cells: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (cell = 8 * rank
 * + file, both from 0).
 *
 * Position string (FEN-like):
 *   "<rank 8>/<rank 7>/.../<rank 1> <side>"
 *   Each rank lists its cells from file a to file h: a piece letter, upper
 *   case for White and lower case for Black (K king, P pawn, W withdrawer,
 *   L long leaper, C coordinator, I immobilizer, X chameleon), or a digit
 *   1-8 for that many empty cells. Two digits never follow each other and
 *   every rank covers exactly 8 cells. <side> is "w" or "b" (to move).
 *   Exactly one space separates the board from the side; nothing follows.
 *   Each side has exactly one king. A position in which the side NOT to
 *   move could have its king captured is refused (it cannot arise in play).
 *   Set-up: "clxwkxli/pppppppp/8/8/8/8/PPPPPPPP/ILXKWXLC w".
 *
 * Move text: "<from>-<to>" (e.g. "e1-e5") and "<cell>x" for the suicide of
 * one's own frozen piece (e.g. "b1x"). Display text comes from the core
 * (rules_display_move): "Lb1-b6xb3xb5", "Xc1x".
 *
 * Settled readings of the rules (see the doc comment in ultima.c):
 *   - a coordinator captures with its own king wherever that king stands,
 *     frozen or not (the king does not move, so it is not "capturing");
 *   - a frozen chameleon next to an enemy immobilizer still freezes it
 *     (as a frozen immobilizer still freezes);
 *   - check ignores whether the capturing move would itself be legal for
 *     the attacker (as in chess).
 *
 * Owns: the Ultima games (ultima, ultima1968): their tables, moves, position
 * and move text, as hooks of a rules_variant. May call: rules.h, libc.
 */
#ifndef ULTIMA_H
#define ULTIMA_H

#include "rules.h"

extern const rules_variant ultima_variant;
extern const rules_variant ultima1968_variant;

#endif
