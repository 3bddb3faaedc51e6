/*
 * rules_trace.c - the native rules core's answers along given games, for
 * comparing the wasm build against it (tests/wasm/rules.test.mjs).
 *
 * Reads lines "<game id>\t<move> <move> ..." on stdin and prints, for each
 * position of each game (the start, then after every move): the position
 * string, the legal moves sorted and joined by spaces, and the status as
 * "over winner reason" ("- -1 none" while playing), separated by tabs.
 * A move that does not play prints "error <code>" and ends that game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void print_state(const rules_game *g)
{
    char pos[RULES_POS_TEXT];
    g->variant->print_position(&g->pos, pos, sizeof pos);
    static char texts[RULES_MAX_MOVES][RULES_MOVE_TEXT];
    static const char *order[RULES_MAX_MOVES];
    int n = g->result.over ? 0 : g->nlegal;
    for (int i = 0; i < n; i++) {
        g->variant->print_move(&g->pos, g->legal[i], texts[i], sizeof texts[i]);
        order[i] = texts[i];
    }
    qsort(order, (size_t)n, sizeof order[0], by_text);
    printf("%s\t", pos);
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? " " : "", order[i]);
    printf("\t%s %d %s\n", g->result.over ? "over" : "-", g->result.over ? g->result.winner : -1,
           g->result.over ? rules_reason_name(g->result.reason) : "none");
}

int main(void)
{
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (tab == NULL)
            continue;
        *tab = '\0';
        rules_game *g = NULL;
        char why[RULES_WHY_TEXT];
        if (rules_game_new(&g, line, NULL, why, sizeof why) < 0) {
            printf("error %s\n", why);
            continue;
        }
        print_state(g);
        for (char *m = strtok(tab + 1, " "); m != NULL; m = strtok(NULL, " ")) {
            int err = rules_game_play_text(g, -1, m, NULL, why, sizeof why);
            if (err < 0) {
                printf("error %s\n", rules_err_code(err));
                break;
            }
            print_state(g);
        }
        printf("end\n");
        rules_game_free(g);
    }
    return 0;
}
