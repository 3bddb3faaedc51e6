/*
 * rules.h - the one interface to every game of the rules core.
 *
 * The server, the protocol codec, the perft tool and the tests only ever talk
 * to a game through this header; they never branch on which game it is.
 *
 * Two layers:
 *   - rules_pos + struct rules_variant: a position and the hooks of its
 *     game (legal moves into caller storage, make/unmake with a caller-owned
 *     undo record, move and position text). No I/O, no allocation: this is
 *     what perft, bots and search use.
 *   - rules_game: a whole game (position, move list, the hash history that
 *     repetition needs, players who left, the result). Allocated once per
 *     game; this is what the server keeps in a room.
 *
 * Players are numbered 0..nplayers-1 in turn order (player 0 moves first).
 * Cells are numbered 0..ncells-1 by each variant; their names are the ones
 * of ../shared/rules/<game>.md.
 *
 * Owns: the variant interface, positions, whole games (moves, leaves,
 * result, replay, copy, the walk of their history), the lists of errors
 * and reasons, the registry of games (rules_registry.c). May call: libc
 * and the game modules it registers; nothing outside common/.
 */
#ifndef RULES_H
#define RULES_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    RULES_MAX_PLAYERS = 3,
    RULES_MAX_CELLS = 128,
    /* Upper bound on legal moves in any position of any game; callers size
     * their move arrays with it. */
    RULES_MAX_MOVES = 1024,
    /* Bytes a variant may use inside rules_pos and rules_undo. */
    RULES_POS_DATA = 640,
    RULES_UNDO_DATA = 192,
    /* Longest move text (input or display form) including the NUL. */
    RULES_MOVE_TEXT = 64,
    /* Longest position string including the NUL. */
    RULES_POS_TEXT = 512,
    /* Longest error detail including the NUL. */
    RULES_WHY_TEXT = 160,
};

/*
 * Error codes: 0 is success, every error is negative. One list gives the
 * enum, the machine-readable code used by the protocol and a default text.
 */
#define RULES_ERRORS(X)                                                                            \
    X(RULES_EUNKNOWN_GAME, -1, "unknown_game", "no such game id")                                  \
    X(RULES_EBAD_POSITION, -2, "bad_position", "malformed position string")                        \
    X(RULES_EBAD_MOVE_TEXT, -3, "bad_move_text", "malformed move text")                            \
    X(RULES_ENO_PIECE, -4, "no_piece", "no piece on that cell")                                    \
    X(RULES_ENOT_YOURS, -5, "not_your_piece", "that piece is not yours")                           \
    X(RULES_EFROZEN, -6, "frozen", "that piece is frozen")                                         \
    X(RULES_EUNREACHABLE, -7, "unreachable", "the piece cannot move there")                        \
    X(RULES_ESELF_CHECK, -8, "self_check", "the move leaves your king in check")                   \
    X(RULES_EGAME_OVER, -9, "game_over", "the game is over")                                       \
    X(RULES_ENOT_YOUR_TURN, -10, "not_your_turn", "it is not that player's turn")                  \
    X(RULES_EBAD_PLAYER, -11, "bad_player", "no such player")                                      \
    X(RULES_EILLEGAL, -12, "illegal_move", "illegal move")                                         \
    X(RULES_ENOMEM, -13, "no_memory", "out of memory")

typedef enum {
    RULES_OK = 0,
#define RULES_ERR_ENUM(name, value, code, text) name = value,
    RULES_ERRORS(RULES_ERR_ENUM)
#undef RULES_ERR_ENUM
} rules_err;

/* The machine-readable code of an error ("self_check"), or "ok". */
const char *rules_err_code(int err);
/* A default human sentence for an error. */
const char *rules_err_text(int err);

/* Why a game ended (or why a player left it). */
#define RULES_REASONS(X)                                                                           \
    X(RULES_REASON_NONE, "none")                                                                   \
    X(RULES_REASON_CHECKMATE, "checkmate")                                                         \
    X(RULES_REASON_STALEMATE, "stalemate")                                                         \
    X(RULES_REASON_REPETITION, "repetition")                                                       \
    X(RULES_REASON_PLY_LIMIT, "ply_limit")                                                         \
    X(RULES_REASON_CENTRE, "centre")                                                               \
    X(RULES_REASON_JOURNEY, "journey")                                                             \
    X(RULES_REASON_LAST_QUEEN, "last_queen")                                                       \
    X(RULES_REASON_RESIGNATION, "resignation")                                                     \
    X(RULES_REASON_TIMEOUT, "timeout")                                                             \
    X(RULES_REASON_ABANDONMENT, "abandonment")                                                     \
    X(RULES_REASON_AGREEMENT, "agreement")                                                         \
    X(RULES_REASON_ABORTED, "aborted")

typedef enum {
#define RULES_REASON_ENUM(name, text) name,
    RULES_REASONS(RULES_REASON_ENUM)
#undef RULES_REASON_ENUM
        RULES_REASON_COUNT
} rules_reason;

const char *rules_reason_name(rules_reason r);

typedef enum {
    RULES_OUTCOME_NONE = 0, /* still playing */
    RULES_OUTCOME_WIN,
    RULES_OUTCOME_LOSS,
    RULES_OUTCOME_DRAW,
} rules_outcome;

typedef struct rules_result {
    bool over;
    int8_t winner;                      /* player index, -1 if none */
    uint8_t outcome[RULES_MAX_PLAYERS]; /* per player; set for a player
                                           who left while others play on */
    rules_reason reason;                /* why it is over (if over) */
} rules_result;

/*
 * A move, encoded by its variant: opaque to everyone else. 0 is never a
 * legal move, so it can mean "no move".
 */
typedef uint32_t rules_move;

struct rules_variant;

/*
 * A position. Copyable by assignment. `data` belongs to the variant, which
 * keeps its own structure there (static_assert its size).
 */
typedef struct rules_pos {
    const struct rules_variant *variant;
    uint64_t hash;   /* equal positions (same player to move, same rights)
                        hash equal; kept up to date by make/unmake */
    uint8_t to_move; /* player index */
    alignas(16) unsigned char data[RULES_POS_DATA];
} rules_pos;

/* What make() must remember so that unmake() restores the position. */
typedef struct rules_undo {
    alignas(16) unsigned char data[RULES_UNDO_DATA];
} rules_undo;

/* Flags of a cell for display (rules_variant.cell_flags). */
enum {
    RULES_CELL_FROZEN = 1 << 0, /* the piece there cannot move (Ultima) */
    RULES_CELL_INERT = 1 << 1,  /* its owner left the game */
    RULES_CELL_CHECK = 1 << 2,  /* a king or queen in check stands there */
};

/*
 * A game. Every hook is required unless marked optional. All hooks that take
 * a `why` buffer write a human sentence there on error (it may be NULL).
 */
typedef struct rules_variant {
    const char *id;   /* "ultima", "ultima1968", "rollerball", ... */
    const char *name; /* "Ultima (1963 rules)" */
    int nplayers;
    const char *const *player_names; /* "white", "black", ... */
    int ncells;
    const char *const *cell_names; /* ncells names, as in the rules file */

    /* Set up the starting position. */
    void (*init)(rules_pos *p);

    /* Parse a position string; 0 or RULES_EBAD_POSITION with a why. p must
     * already be a position of this variant (rules_pos_init): a parser may
     * read p->variant (Ultima's 1968 rule does). */
    int (*parse_position)(rules_pos *p, const char *text, char *why, size_t whylen);
    /* Print the position string (round-trips through parse_position).
     * Returns the length, or -1 if it does not fit. */
    int (*print_position)(const rules_pos *p, char *buf, size_t len);

    /* Write every legal move of the player to move into out (room for
     * RULES_MAX_MOVES) and return how many. No allocation, no I/O. */
    int (*legal_moves)(const rules_pos *p, rules_move *out);
    /* Play a legal move; fill u so that unmake can take it back. */
    void (*make)(rules_pos *p, rules_move m, rules_undo *u);
    void (*unmake)(rules_pos *p, rules_move m, const rules_undo *u);

    /* Parse move text (../shared/rules/notation.md) in this position into a
     * legal move. On error return a negative rules_err that says why the
     * move is refused (syntax, no piece, frozen, self check, ...) with a
     * sentence naming the move in why. */
    int (*parse_move)(const rules_pos *p, const char *text, rules_move *m, char *why,
                      size_t whylen);
    /* Print a legal move in input text ("e2-e4", "b1x", "pass"). Returns the
     * length or -1. */
    int (*print_move)(const rules_pos *p, rules_move m, char *buf, size_t len);
    /* Optional: display text (piece letter and captured cells, e.g.
     * "Lb1-b6xb3xb5"); p is the position before the move. NULL: the core
     * builds "<letter><input text>" plus "x<cell>" for each captured cell. */
    int (*display_move)(const rules_pos *p, rules_move m, char *buf, size_t len);

    /* The piece on a cell: its upper-case letter and owner, or 0 if empty. */
    char (*piece_at)(const rules_pos *p, int cell, int *owner);
    /* Optional: RULES_CELL_* flags of a cell for display. */
    unsigned (*cell_flags)(const rules_pos *p, int cell);

    /* Is the game over in this position by the rules (no legal move, a
     * winning cell reached, last queen, ply limit...)? Repetition is judged
     * by rules_game, which has the history. nlegal is the number of legal
     * moves of the player to move (the caller has them). Fill r. */
    void (*status)(const rules_pos *p, int nlegal, rules_result *r);

    /* Optional (three-player games): the player leaves; its pieces become
     * inert obstacles and the turn skips it. NULL: leaving ends the game. */
    void (*leave)(rules_pos *p, int player);

    /* The bots' hooks (search.h). All optional. */

    /* How well each player stands, in centipawns, judged from the rules of
     * the game (material, mobility, what wins it): score[player] for every
     * player, larger is better. The search compares them; it never calls
     * this on a finished game. NULL: the search counts mobility only. */
    void (*evaluate)(const rules_pos *p, int32_t *score);
    /* Is this legal move a capture (a move quiescence must follow)? NULL:
     * no quiescence. */
    bool (*is_capture)(const rules_pos *p, rules_move m);
    /* Is the player to move in check (its king or queen attacked)? The
     * search extends checks and never prunes forward while in check. NULL:
     * never. */
    bool (*in_check)(const rules_pos *p);
    /* Make `player` the one to move without a move, the hash updated
     * (three-player best-reply search; two-player null-move pruning). The
     * search undoes it by calling it again with the player it replaced. */
    void (*set_to_move)(rules_pos *p, int player);
    /* A bit per player who left the game (`leave`): the search never gives
     * such a player the move. NULL: nobody can leave (two-player games). */
    unsigned (*players_left)(const rules_pos *p);
} rules_variant;

/* Every game the core knows, NULL-terminated. */
extern const rules_variant *const rules_variants[];

/* The game with this id, or NULL. */
const rules_variant *rules_find(const char *id);

/* Cell name <-> index for a variant; rules_cell_parse returns -1 if unknown.
 * rules_cell_parse_prefix parses the longest cell name at the start of s and
 * returns its index (and its length in *len), or -1. */
const char *rules_cell_name(const rules_variant *v, int cell);
int rules_cell_parse(const rules_variant *v, const char *name);
int rules_cell_parse_prefix(const rules_variant *v, const char *s, int *len);

/* Set p to the set-up of v. */
void rules_pos_init(rules_pos *p, const rules_variant *v);

/* Display text of a legal move (see rules_variant.display_move). */
int rules_display_move(const rules_pos *p, rules_move m, char *buf, size_t len);

/* The cells a legal move captures, into cells (room for RULES_MAX_CELLS);
 * returns the count. Found by making the move on a copy. */
int rules_move_captures(const rules_pos *p, rules_move m, int *cells);

/* The next number of the splitmix64 sequence whose state is *s. The games
 * draw their Zobrist keys from it when they build their tables, so a key
 * set depends only on the seed. */
uint64_t rules_splitmix64(uint64_t *s);

/* Count leaf nodes at depth (perft), by make/unmake. depth 0 is 1. */
uint64_t rules_perft(rules_pos *p, int depth);

/* Write the snprintf-style sentence into why (if why is non-NULL). */
void rules_why(char *why, size_t whylen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------------ */
/* A whole game. */

/* A player who left the game while the others played on, after `after`
 * moves had been played. */
typedef struct rules_leave_rec {
    size_t after;
    int player;
    rules_reason reason;
} rules_leave_rec;

/* One step of a recorded game, as storage and PGN keep it: a move as input
 * text, or (text NULL) a player leaving. */
typedef struct rules_step {
    const char *text;    /* notation.md input text; NULL: `player` leaves */
    int player;          /* who moves (-1: whoever is to move) or who leaves */
    rules_reason reason; /* why it leaves (leaves only) */
} rules_step;

typedef struct rules_game {
    const rules_variant *variant;
    rules_pos start;   /* position before the first move */
    rules_pos pos;     /* current position */
    rules_move *moves; /* moves played, nmoves of them */
    uint64_t *hashes;  /* hash before each move and after the last:
                          nmoves + 1 entries */
    size_t nmoves, cap;
    rules_move legal[RULES_MAX_MOVES]; /* legal moves of the player to move */
    int nlegal;
    rules_result result;
    /* Players who left while the others played on (rules_game_leave), in
     * order: each once at most, so the array never grows. */
    rules_leave_rec left[RULES_MAX_PLAYERS];
    int nleft;
} rules_game;

/*
 * Create a game of variant `id` from its set-up, or from a position string if
 * position is non-NULL. Returns 0 and sets *out, or a negative error
 * (RULES_EUNKNOWN_GAME, RULES_EBAD_POSITION, RULES_ENOMEM) with a why.
 */
int rules_game_new(rules_game **out, const char *id, const char *position, char *why,
                   size_t whylen);
void rules_game_free(rules_game *g);

/* Play a move given as text by `player` (or any player if player < 0).
 * On success returns 0 and, if m is non-NULL, stores the move. On error
 * nothing changes; the return value and why say what was wrong. */
int rules_game_play_text(rules_game *g, int player, const char *text, rules_move *m, char *why,
                         size_t whylen);
/* Play a move known to be in g->legal. */
int rules_game_play(rules_game *g, rules_move m);

/* A player leaves the game (resignation, timeout, abandonment): in a
 * two-player game the other wins; with three players the leaver loses and
 * the others play on until the game ends. */
int rules_game_leave(rules_game *g, int player, rules_reason why);

/* End the game as a draw (agreement) or abort it. */
void rules_game_end_draw(rules_game *g, rules_reason why);

/* The player to move, or -1 if the game is over. */
int rules_game_to_move(const rules_game *g);

/*
 * Rebuild a recorded game: variant `id` from its set-up (position NULL) or
 * a position string, then every step in order (moves by text through
 * rules_game_play_text, leaves through rules_game_leave). 0 and *out, or
 * the error of the first step that does not replay, with a why naming it
 * ("move 12 (e2-e4): ..."). The one replay of the server: storage, PGN
 * import and the rooms all rebuild games through it.
 */
int rules_game_replay(rules_game **out, const char *id, const char *position,
                      const rules_step *steps, size_t nsteps, char *why, size_t whylen);

/*
 * A copy of g as it stood after its first nmoves moves (g->nmoves: all of
 * them), the players who left by then included. The copy is independent
 * (free it with rules_game_free). 0 and *out, or RULES_ENOMEM, or
 * RULES_EBAD_PLAYER if nmoves > g->nmoves.
 */
int rules_game_clone(rules_game **out, const rules_game *g, size_t nmoves);

/* One step of a game's history as rules_game_walk shows it: the move
 * g->moves[k] (m non-zero), or a player leaving after k moves (m is 0,
 * `leave` its record in g->left). before and after are the positions around
 * the step, as the live game had them; they belong to the walk and last
 * only for the call. */
typedef struct rules_walk_step {
    size_t k;                     /* moves played before this step */
    rules_move m;                 /* the move, or 0 for a leave */
    const rules_leave_rec *leave; /* the leave, or NULL for a move */
    const rules_pos *before, *after;
} rules_walk_step;

/*
 * The one walk of a game's own history: from g->start, its first `upto`
 * moves (g->nmoves: all of them) and the players who left by then, in the
 * order they happened (a leave recorded after k moves before move k + 1),
 * each step handed to visit. The positions are those of the live game: a
 * leave takes the leaver's pieces out of play (variant->leave) only while
 * two players or more play on, as rules_game_leave does. No allocation.
 * Returns 0 once every step is visited, the first non-zero value a visit
 * returns (the walk stops there), or RULES_EBAD_PLAYER, before any visit,
 * if upto > g->nmoves.
 */
int rules_game_walk(const rules_game *g, size_t upto,
                    int (*visit)(void *arg, const rules_walk_step *s), void *arg);

#endif
