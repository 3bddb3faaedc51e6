/*
 * pgn_check.c - read PGN games from stdin (several, as an export holds
 * them: each begins with its [Event] tag), parse each with the PGN reader
 * and replay it through the rules core. Prints one line per game, "ok
 * <GameId> <moves> <Result>", then "games <N>"; exits 1 at the first game
 * that does not parse or replay, with the reason.
 *
 *   build/pgn_check < games.pgn
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgn.h"
#include "rules.h"

static int check(const char *text, int n)
{
    pgn_game g;
    memset(&g, 0, sizeof g);
    char why[256];
    if (pgn_parse(text, &g, why, sizeof why) < 0) {
        printf("game %d does not parse: %s\n", n, why);
        pgn_free(&g);
        return -1;
    }
    rules_game *rg = NULL;
    if (pgn_replay(&g, &rg, why, sizeof why) < 0) {
        printf("game %d does not replay: %s\n", n, why);
        pgn_free(&g);
        return -1;
    }
    const char *id = pgn_tag_value(&g, "GameId"), *res = pgn_tag_value(&g, "Result");
    printf("ok %s %zu %s\n", id ? id : "?", g.nitems, res ? res : "?");
    rules_game_free(rg);
    pgn_free(&g);
    return 0;
}

int main(void)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, stdin)) > 0;) {
        len += got;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (buf == NULL) {
        fprintf(stderr, "pgn_check: out of memory\n");
        return 2;
    }
    buf[len] = '\0';
    /* Split at each "[Event " that starts a line. */
    int n = 0;
    char *at = strstr(buf, "[Event ");
    while (at != NULL) {
        char *next = strstr(at + 1, "\n[Event ");
        if (next != NULL)
            next[0] = '\0';
        if (check(at, ++n) < 0) {
            free(buf);
            return 1;
        }
        at = next ? next + 1 : NULL;
    }
    printf("games %d\n", n);
    free(buf);
    return 0;
}
