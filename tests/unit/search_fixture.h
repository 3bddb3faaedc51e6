/*
 * search_fixture.h - one search context for the unit tests that run the
 * bots' search, included by test_search.c, test_engine_rollerball.c and
 * test_engine_yalta.c.
 *
 * Offers: ctx (a search_ctx with a 1 MiB table) and the cmocka fixtures that
 * make and free it, ctx_setup() and ctx_teardown(), for a whole group
 * (cmocka_run_group_tests) or for one test (cmocka_unit_test_setup_teardown).
 */
#ifndef SEARCH_FIXTURE_H
#define SEARCH_FIXTURE_H

#include "search.h"

static search_ctx *ctx;

static inline int ctx_setup(void **state)
{
    (void)state;
    ctx = search_new(1 << 20);
    return ctx == NULL;
}

static inline int ctx_teardown(void **state)
{
    (void)state;
    search_free(ctx);
    return 0;
}

#endif
