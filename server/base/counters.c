/*
 * counters.c - the counters of counters.h.
 */
#include "counters.h"

metrics metrics_now;

void metrics_game(const rules_variant *v, int delta)
{
    metrics_now.games_in_progress += delta;
    for (int i = 0; rules_variants[i] != NULL && i < METRICS_VARIANTS_MAX; i++)
        if (rules_variants[i] == v)
            metrics_now.games_by_variant[i] += delta;
}
