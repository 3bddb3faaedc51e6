/*
 * perft - count the leaf nodes of the move tree of any game of the rules core.
 *
 *   perft <game> <depth> [--moves m1,m2,...] [--position STR] [--divide]
 *   perft <game> --epd FILE [--max-depth N]
 *
 * The first form plays the listed moves from the set-up (or from the
 * position string), then counts; --divide prints "move: count" per root move.
 * The last line is "nodes <N>". The second form checks every line of an EPD
 * file ("<position> ;D1 n ;D2 n ...") and prints one line per check, then
 * "N passed, N failed".
 *
 * Exit status: 0 success, 1 an EPD count differs, 2 bad usage, unknown game,
 * bad position or an illegal move (the message names it and says why).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: perft <game> <depth> [--moves m1,m2,...] [--position STR] [--divide]\n"
               "       perft <game> --epd FILE [--max-depth N]\n"
               "games:");
    for (const rules_variant *const *v = rules_variants; *v; v++)
        fprintf(f, " %s", (*v)->id);
    fprintf(f, "\n");
}

static int parse_depth(const char *s, int *depth)
{
    char *end;
    errno = 0;
    long d = strtol(s, &end, 10);
    if (errno || *end || d < 0 || d > 64)
        return -1;
    *depth = (int)d;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Play comma-separated moves on p. Returns 0 or prints why and returns -1. */
static int play_moves(rules_pos *p, char *list)
{
    const rules_variant *v = p->variant;
    for (char *text = strtok(list, ","); text; text = strtok(NULL, ",")) {
        char why[RULES_WHY_TEXT] = "";
        rules_move m;
        int err = v->parse_move(p, text, &m, why, sizeof why);
        if (err < 0) {
            fprintf(stderr, "perft: illegal move '%s': %s\n", text,
                    why[0] ? why : rules_err_text(err));
            return -1;
        }
        rules_undo u;
        v->make(p, m, &u);
    }
    return 0;
}

static uint64_t divide(rules_pos *p, int depth)
{
    const rules_variant *v = p->variant;
    rules_move moves[RULES_MAX_MOVES];
    int n = v->legal_moves(p, moves);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        char text[RULES_MOVE_TEXT];
        if (v->print_move(p, moves[i], text, sizeof text) < 0)
            snprintf(text, sizeof text, "?");
        rules_undo u;
        v->make(p, moves[i], &u);
        uint64_t count = rules_perft(p, depth - 1);
        v->unmake(p, moves[i], &u);
        printf("%s: %" PRIu64 "\n", text, count);
        total += count;
    }
    return total;
}

/* One EPD line: "<position> ;D1 n ;D2 n". Returns failures, or -1 if the
 * line is malformed. */
static int check_epd_line(const rules_variant *v, char *line, int max_depth, int lineno,
                          int *passed)
{
    char *semi = strchr(line, ';');
    if (semi == NULL)
        return -1;
    *semi = '\0';
    char *posend = semi;
    while (posend > line && (posend[-1] == ' ' || posend[-1] == '\t'))
        *--posend = '\0';

    rules_pos p;
    rules_pos_init(&p, v);
    char why[RULES_WHY_TEXT] = "";
    if (v->parse_position(&p, line, why, sizeof why) < 0) {
        fprintf(stderr, "line %d: bad position: %s\n", lineno, why);
        return -1;
    }
    int failed = 0;
    for (char *tok = strtok(semi + 1, ";"); tok; tok = strtok(NULL, ";")) {
        int depth;
        uint64_t expect;
        if (sscanf(tok, " D%d %" SCNu64, &depth, &expect) != 2)
            return -1;
        if (max_depth >= 0 && depth > max_depth)
            continue;
        double t0 = now_seconds();
        uint64_t got = rules_perft(&p, depth);
        double dt = now_seconds() - t0;
        if (got == expect) {
            (*passed)++;
            printf("ok   %s line %d D%d %" PRIu64 " (%.2fs)\n", v->id, lineno, depth, got, dt);
        } else {
            failed++;
            printf("FAIL %s line %d D%d expected %" PRIu64 " got %" PRIu64 "\n", v->id, lineno,
                   depth, expect, got);
        }
    }
    return failed;
}

static int run_epd(const rules_variant *v, const char *file, int max_depth)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "perft: cannot open %s: %s\n", file, strerror(errno));
        return 2;
    }
    char line[4096];
    int lineno = 0, passed = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        int r = check_epd_line(v, line, max_depth, lineno, &passed);
        if (r < 0) {
            fprintf(stderr, "perft: %s:%d: malformed EPD line\n", file, lineno);
            failed++;
        } else {
            failed += r;
        }
    }
    fclose(f);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    const rules_variant *v = rules_find(argv[1]);
    if (v == NULL) {
        fprintf(stderr, "perft: unknown game '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }

    if (!strcmp(argv[2], "--epd")) {
        int max_depth = -1;
        if (argc == 6 && !strcmp(argv[4], "--max-depth")) {
            if (parse_depth(argv[5], &max_depth) < 0) {
                fprintf(stderr, "perft: bad depth '%s'\n", argv[5]);
                return 2;
            }
        } else if (argc != 4) {
            usage(stderr);
            return 2;
        }
        return run_epd(v, argv[3], max_depth);
    }

    int depth;
    if (parse_depth(argv[2], &depth) < 0) {
        fprintf(stderr, "perft: bad depth '%s'\n", argv[2]);
        return 2;
    }
    const char *position = NULL;
    char *moves = NULL;
    int want_divide = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--divide")) {
            want_divide = 1;
        } else if (!strcmp(argv[i], "--moves") && i + 1 < argc) {
            moves = argv[++i];
        } else if (!strcmp(argv[i], "--position") && i + 1 < argc) {
            position = argv[++i];
        } else {
            fprintf(stderr, "perft: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    rules_pos p;
    rules_pos_init(&p, v);
    if (position != NULL) {
        char why[RULES_WHY_TEXT] = "";
        if (v->parse_position(&p, position, why, sizeof why) < 0) {
            fprintf(stderr, "perft: bad position: %s\n", why);
            return 2;
        }
    }
    if (moves != NULL && play_moves(&p, moves) < 0)
        return 2;

    double t0 = now_seconds();
    uint64_t nodes = want_divide && depth > 0 ? divide(&p, depth) : rules_perft(&p, depth);
    double dt = now_seconds() - t0;
    fprintf(stderr, "time %.3fs, %.0f nodes/s\n", dt, dt > 0 ? nodes / dt : 0.0);
    printf("nodes %" PRIu64 "\n", nodes);
    return 0;
}
