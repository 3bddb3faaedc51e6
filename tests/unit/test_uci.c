/*
 * test_uci.c - the UCI dialect (protocol/uci.c) driven line by line through
 * its output callback: every command, malformed ones (each answered by one
 * `info string error:` line that changes nothing), positions with moves,
 * the refusal or wait while a search runs, and a legal bestmove from every
 * game.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <time.h>

#include "rules.h"
#include "uci.h"

enum { MAX_LINES = 512 };

/* Every line the engine printed since the last clear. */
typedef struct capture {
    pthread_mutex_t lock;
    char *lines[MAX_LINES];
    int n;
} capture;

static void out(void *arg, const char *line)
{
    capture *c = arg;
    pthread_mutex_lock(&c->lock);
    if (c->n < MAX_LINES)
        c->lines[c->n++] = strdup(line);
    pthread_mutex_unlock(&c->lock);
}

static void clear(capture *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->lines[i]);
    c->n = 0;
}

/* The first line starting with prefix, or NULL. */
static const char *find(capture *c, const char *prefix)
{
    for (int i = 0; i < c->n; i++)
        if (strncmp(c->lines[i], prefix, strlen(prefix)) == 0)
            return c->lines[i];
    return NULL;
}

typedef struct fixture {
    capture cap;
    uci *u;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->cap.lock, NULL);
    f->u = uci_new(out, &f->cap, 1);
    assert_non_null(f->u);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    uci_free(f->u);
    clear(&f->cap);
    pthread_mutex_destroy(&f->cap.lock);
    free(f);
    return 0;
}

/* Send a line that must print exactly one error and nothing else. */
static void expect_error(fixture *f, const char *line, const char *words)
{
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, line), UCI_NONE);
    assert_int_equal(f->cap.n, 1);
    assert_true(strncmp(f->cap.lines[0], "info string error: ", 19) == 0);
    if (words != NULL && strstr(f->cap.lines[0], words) == NULL)
        fail_msg("'%s' answered '%s', expected it to mention '%s'", line, f->cap.lines[0], words);
}

/* The `d` line: variant, moves, player to move and position string. */
static const char *show(fixture *f)
{
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "d"), UCI_NONE);
    assert_true(f->cap.n >= 1);
    return f->cap.lines[0];
}

/* Run a prepared search to its end; returns the bestmove text (static). */
static const char *think(fixture *f)
{
    static char best[RULES_MOVE_TEXT + 16];
    assert_true(uci_busy(f->u));
    assert_false(uci_think(f->u));
    uci_finish(f->u);
    assert_false(uci_busy(f->u));
    assert_true(f->cap.n >= 1);
    const char *last = f->cap.lines[f->cap.n - 1];
    assert_true(strncmp(last, "bestmove ", 9) == 0);
    snprintf(best, sizeof best, "%s", last + 9);
    return best;
}

static void test_uci_and_isready(void **state)
{
    fixture *f = *state;
    assert_int_equal(uci_line(f->u, "uci\n"), UCI_NONE);
    assert_non_null(find(&f->cap, "id name chameleon"));
    assert_non_null(find(&f->cap, "id author "));
    const char *var = find(&f->cap, "option name UCI_Variant type combo default ultima");
    assert_non_null(var);
    for (const rules_variant *const *v = rules_variants; *v; v++) {
        char want[64];
        snprintf(want, sizeof want, " var %s", (*v)->id);
        assert_non_null(strstr(var, want));
    }
    assert_non_null(find(&f->cap, "option name Skill Level type spin default 8 min 1 max 8"));
    assert_non_null(find(&f->cap, "option name Hash type spin"));
    assert_non_null(find(&f->cap, "option name ThreePlayerSearch type combo default paranoid"));
    assert_string_equal(f->cap.lines[f->cap.n - 1], "uciok");

    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "isready"), UCI_NONE);
    assert_int_equal(f->cap.n, 1);
    assert_string_equal(f->cap.lines[0], "readyok");

    /* Empty lines and the accepted no-ops print nothing. */
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, ""), UCI_NONE);
    assert_int_equal(uci_line(f->u, "   \t\n"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "debug on"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "ponderhit"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "stop"), UCI_STOP); /* nothing to stop */
    assert_int_equal(f->cap.n, 0);
    assert_int_equal(uci_line(f->u, "quit"), UCI_QUIT);
}

static void test_unknown_command(void **state)
{
    fixture *f = *state;
    expect_error(f, "foo bar", "unknown command 'foo'");
    expect_error(f, "Position startpos", "unknown command");
}

static void test_setoption(void **state)
{
    fixture *f = *state;
    assert_int_equal(uci_line(f->u, "setoption name UCI_Variant value rollerball"), UCI_NONE);
    assert_non_null(strstr(show(f), "variant rollerball moves 0"));
    /* Names are case-insensitive, as UCI says. */
    assert_int_equal(uci_line(f->u, "setoption name uci_variant value YALTA"), UCI_NONE);
    assert_non_null(strstr(show(f), "variant yalta moves 0 to_move white"));

    expect_error(f, "setoption name UCI_Variant value chess", "unknown variant 'chess'");
    expect_error(f, "setoption name UCI_Variant", "unknown variant");
    assert_non_null(strstr(show(f), "variant yalta"));

    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "setoption name Skill Level value 3"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "setoption name Hash value 2"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "setoption name Threads value 4"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "setoption name ThreePlayerSearch value brs"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "setoption name ThreePlayerSearch value MAXN"), UCI_NONE);
    assert_int_equal(f->cap.n, 0);

    expect_error(f, "setoption name Skill Level value 0", "Skill Level");
    expect_error(f, "setoption name Skill Level value 9", "Skill Level");
    expect_error(f, "setoption name Skill Level value x", "Skill Level");
    expect_error(f, "setoption name Skill Level", "Skill Level");
    expect_error(f, "setoption name Hash value 0", "Hash");
    expect_error(f, "setoption name Hash value 99999", "Hash");
    expect_error(f, "setoption name Hash value -5", "Hash");
    expect_error(f, "setoption name Threads value 0", "Threads");
    expect_error(f, "setoption name ThreePlayerSearch value minimax", "paranoid, brs or maxn");
    expect_error(f, "setoption name Ponder value true", "no option named 'Ponder'");
    expect_error(f, "setoption", "setoption name");
    expect_error(f, "setoption value 3", "setoption name");
    expect_error(f, "setoption name value 3", "setoption name");
}

static void test_position(void **state)
{
    fixture *f = *state;
    assert_int_equal(uci_line(f->u, "position startpos moves e2-e4 e7-e5"), UCI_NONE);
    const char *d = show(f);
    assert_non_null(strstr(d, "variant ultima moves 2 to_move white"));
    char fen[RULES_POS_TEXT];
    snprintf(fen, sizeof fen, "%s", strstr(d, " fen ") + 5);

    /* An illegal move, a malformed one, a bad position string: an error
     * naming the move, and the previous position stays. */
    expect_error(f, "position startpos moves e2-e4 e2-e4", "move 2 (e2-e4)");
    expect_error(f, "position startpos moves e2-e9", "move 1 (e2-e9)");
    expect_error(f, "position fen nonsense w", "bad ultima position string");
    expect_error(f, "position fen", "position string");
    expect_error(f, "position", "startpos or fen");
    expect_error(f, "position middle", "startpos or fen");
    expect_error(f, "position startpos e2-e4", "expected 'moves'");
    assert_non_null(strstr(show(f), fen));

    /* The same position given as a string (with spaces), then moves. */
    char line[1024];
    snprintf(line, sizeof line, "position fen %s moves d2-d3", fen);
    assert_int_equal(uci_line(f->u, line), UCI_NONE);
    assert_non_null(strstr(show(f), "moves 1 to_move black"));
    snprintf(line, sizeof line, "position fen %s", fen);
    assert_int_equal(uci_line(f->u, line), UCI_NONE);
    assert_non_null(strstr(show(f), fen));
    assert_non_null(strstr(show(f), "moves 0 to_move white"));
    assert_int_equal(uci_line(f->u, "position startpos moves"), UCI_NONE);
    assert_non_null(strstr(show(f), "moves 0 to_move white"));

    /* ucinewgame: back to the set-up of the same game. */
    uci_line(f->u, "setoption name UCI_Variant value rollerball");
    uci_line(f->u, "position startpos moves c1-b1");
    assert_int_equal(uci_line(f->u, "ucinewgame"), UCI_NONE);
    assert_non_null(strstr(show(f), "variant rollerball moves 0"));
}

/* Every game: a search from the set-up and after a few moves gives info
 * lines and a bestmove that the rules accept in that position. */
static void test_bestmove_every_game(void **state)
{
    fixture *f = *state;
    for (const rules_variant *const *vp = rules_variants; *vp; vp++) {
        const rules_variant *v = *vp;
        char line[256];
        snprintf(line, sizeof line, "setoption name UCI_Variant value %s", v->id);
        assert_int_equal(uci_line(f->u, line), UCI_NONE);
        rules_game *g = NULL;
        char why[RULES_WHY_TEXT];
        assert_int_equal(rules_game_new(&g, v->id, NULL, why, sizeof why), 0);
        char moves[1024] = "position startpos moves";
        for (int ply = 0; ply < 4; ply++) {
            clear(&f->cap);
            assert_int_equal(uci_line(f->u, moves), UCI_NONE);
            assert_int_equal(f->cap.n, 0);
            assert_int_equal(uci_line(f->u, "go depth 2"), UCI_GO);
            const char *best = think(f);
            const char *info = find(&f->cap, "info depth ");
            assert_non_null(info);
            assert_non_null(strstr(info, " score "));
            assert_non_null(strstr(info, " nodes "));
            assert_non_null(strstr(info, " nps "));
            assert_non_null(strstr(info, " time "));
            assert_non_null(strstr(info, " pv "));
            rules_move m;
            if (rules_game_play_text(g, -1, best, &m, why, sizeof why) != 0)
                fail_msg("%s: bestmove '%s' refused: %s", v->id, best, why);
            size_t len = strlen(moves);
            snprintf(moves + len, sizeof moves - len, " %s", best);
        }
        rules_game_free(g);
    }
}

static void test_go_words(void **state)
{
    fixture *f = *state;
    const char *ok[] = {
        "go nodes 500",
        "go movetime 30",
        "go depth 1 nodes 100000 movetime 1000",
        "go wtime 1000 btime 1000 winc 10 binc 10",
        "go wtime 4000 btime 4000 movestogo 40",
        "go wtime -20 btime 1000",
        "go p1time 1000 p2time 1000 p3time 1000 p1inc 0 p2inc 0 p3inc 0",
        "go depth 1",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        clear(&f->cap);
        assert_int_equal(uci_line(f->u, ok[i]), UCI_GO);
        const char *best = think(f);
        assert_string_not_equal(best, "(none)");
    }
    expect_error(f, "go depth", "depth needs a number");
    expect_error(f, "go depth x", "whole number");
    expect_error(f, "go depth 0", "at least 1");
    expect_error(f, "go movetime -5", "whole number");
    expect_error(f, "go searchmoves e2-e4", "unknown word 'searchmoves'");
    expect_error(f, "go xtime 100", "unknown word 'xtime'");
    expect_error(f, "go p4time 100", "unknown word 'p4time'");
    assert_false(uci_busy(f->u));
}

static void test_three_players_clock(void **state)
{
    fixture *f = *state;
    uci_line(f->u, "setoption name UCI_Variant value ant3");
    uci_line(f->u, "setoption name ThreePlayerSearch value brs");
    char moves[1024] = "position startpos moves", line[256];
    /* Each player in turn, with only its own clock (p1time, p2time,
     * p3time), then the third with only the first two clocks given (the
     * smallest given is used). */
    for (int p = 1; p <= 4; p++) {
        assert_int_equal(uci_line(f->u, moves), UCI_NONE);
        assert_non_null(strstr(show(f), p == 4 ? "to_move black" : ""));
        if (p <= 3)
            snprintf(line, sizeof line, "go p%dtime 3000 p%dinc 0", p, p);
        else
            snprintf(line, sizeof line, "go wtime 3000 btime 2000");
        clear(&f->cap);
        assert_int_equal(uci_line(f->u, line), UCI_GO);
        const char *best = think(f);
        assert_string_not_equal(best, "(none)");
        size_t len = strlen(moves);
        snprintf(moves + len, sizeof moves - len, " %s", best);
    }
    assert_int_equal(uci_line(f->u, moves), UCI_NONE);
    assert_non_null(strstr(show(f), "moves 4 to_move red"));
}

static void test_game_over(void **state)
{
    fixture *f = *state;
    /* A game over by repetition (judged by rules_game): rooks shuffling. */
    uci_line(f->u, "setoption name UCI_Variant value rollerball");
    const char *shuffle = "position startpos moves e2-f2 c6-b6 f2-e2 b6-c6 e2-f2 c6-b6 f2-e2 "
                          "b6-c6";
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, shuffle), UCI_NONE);
    if (f->cap.n != 0)
        fail_msg("%s", f->cap.lines[0]);
    show(f);
    assert_non_null(find(&f->cap, "info string game over: repetition"));
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "go depth 3"), UCI_GO);
    assert_string_equal(think(f), "(none)");
    assert_non_null(find(&f->cap, "info string the game is over"));
}

/* Forced results are `score mate N`: N the side to move's own moves, less
 * than zero when it is the one mated (a Rollerball game that ended so). */
static void test_mate_score(void **state)
{
    fixture *f = *state;
    const char *before = "position startpos moves c2-b1 c6-b6 d1-d7 d6-d7 c1-b2 e6-f5 d2-d1 "
                         "b6-g6 e1-f1 g6-f1 d1-d2 f1-g1 d2-c2 g1-g2 b2-a3 g2-e2 c2-d1 e2-f2";
    char line[512];
    uci_line(f->u, "setoption name UCI_Variant value rollerball");
    assert_int_equal(uci_line(f->u, before), UCI_NONE);
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "go depth 3"), UCI_GO);
    think(f);
    assert_non_null(strstr(f->cap.lines[f->cap.n - 2], " score mate -1 "));

    /* White has moved; black mates at once. */
    snprintf(line, sizeof line, "%s d1-c1", before);
    assert_int_equal(uci_line(f->u, line), UCI_NONE);
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "go depth 3"), UCI_GO);
    char best[RULES_MOVE_TEXT];
    snprintf(best, sizeof best, "%s", think(f));
    assert_non_null(strstr(f->cap.lines[f->cap.n - 2], " score mate 1 "));
    size_t len = strlen(line);
    snprintf(line + len, sizeof line - len, " %s", best);
    assert_int_equal(uci_line(f->u, line), UCI_NONE);
    show(f);
    assert_non_null(find(&f->cap, "info string game over: checkmate"));
}

static void *think_thread(void *arg)
{
    fixture *f = arg;
    bool hold = uci_think(f->u);
    (void)hold;
    uci_finish(f->u);
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* While a search runs: isready answers, a command that ends by itself makes
 * others wait (UCI_WAIT), `go infinite` makes them errors, and stop ends
 * it. */
static void test_busy(void **state)
{
    fixture *f = *state;
    assert_int_equal(uci_line(f->u, "go depth 1"), UCI_GO);
    clear(&f->cap);
    assert_int_equal(uci_line(f->u, "position startpos moves e2-e4"), UCI_WAIT);
    assert_int_equal(uci_line(f->u, "go depth 1"), UCI_WAIT);
    assert_int_equal(uci_line(f->u, "isready"), UCI_NONE);
    assert_int_equal(f->cap.n, 1);
    think(f);
    assert_int_equal(uci_line(f->u, "position startpos moves e2-e4"), UCI_NONE);

    assert_int_equal(uci_line(f->u, "go infinite"), UCI_GO);
    expect_error(f, "position startpos", "send stop");
    expect_error(f, "setoption name Hash value 1", "send stop");
    expect_error(f, "ucinewgame", "send stop");
    expect_error(f, "go depth 2", "send stop");
    pthread_t t;
    clear(&f->cap);
    assert_int_equal(pthread_create(&t, NULL, think_thread, f), 0);
    sleep_ms(100);
    assert_int_equal(uci_line(f->u, "isready"), UCI_NONE);
    assert_int_equal(uci_line(f->u, "stop"), UCI_STOP);
    pthread_join(t, NULL);
    assert_false(uci_busy(f->u));
    assert_non_null(find(&f->cap, "readyok"));
    const char *best = find(&f->cap, "bestmove ");
    assert_non_null(best);
    assert_string_not_equal(best, "bestmove (none)");
    assert_non_null(strstr(show(f), "moves 1 to_move black"));

    /* Once stop has come, commands wait for the answer instead of being
     * refused; a stop that came before the search started still ends it. */
    assert_int_equal(uci_line(f->u, "go infinite"), UCI_GO);
    assert_int_equal(uci_line(f->u, "stop"), UCI_STOP);
    assert_int_equal(uci_line(f->u, "position startpos"), UCI_WAIT);
    clear(&f->cap);
    assert_string_not_equal(think(f), "(none)");
    assert_int_equal(uci_line(f->u, "position startpos"), UCI_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_uci_and_isready, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setoption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_position, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bestmove_every_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_go_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_three_players_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mate_score, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
