/*
 * record.c - names of record fields and the replay of a recorded game (see
 * record.h).
 */
#include "record.h"

#include <stdlib.h>
#include <string.h>

const char *record_kind_name(record_kind k)
{
    return k == RECORD_CORR ? "correspondence" : "live";
}

const char *record_outcome_name(int outcome)
{
    static const char *const n[] = {"none", "win", "loss", "draw"};
    return outcome >= 0 && outcome < 4 ? n[outcome] : "none";
}

int record_replay(const record_game *g, rules_game **out, char *why, size_t whylen)
{
    size_t n = (size_t)g->nmoves + (size_t)g->nleaves;
    rules_step *steps = malloc((n + 1) * sizeof *steps);
    if (steps == NULL)
        return RULES_ENOMEM;
    /* Leaves recorded after k moves come before move k; a leave whose
     * after_ply is out of order or past the last move is not a step. */
    size_t k = 0;
    int li = 0;
    for (int i = 0; i <= g->nmoves; i++) {
        for (; li < g->nleaves && g->leaves[li].after_ply == i; li++)
            steps[k++] = (rules_step){NULL, g->leaves[li].player, g->leaves[li].reason};
        if (i < g->nmoves)
            steps[k++] = (rules_step){g->moves[i].text, g->moves[i].player, RULES_REASON_NONE};
    }
    int err = rules_game_replay(out, g->variant, g->position, steps, k, why, whylen);
    free(steps);
    return err;
}

int record_line_next(const char **p, char out[RULES_MOVE_TEXT])
{
    *p += strspn(*p, " ");
    size_t l = strcspn(*p, " ");
    if (l == 0)
        return 0;
    if (l >= RULES_MOVE_TEXT)
        return -1;
    memcpy(out, *p, l);
    out[l] = '\0';
    *p += l;
    return 1;
}
