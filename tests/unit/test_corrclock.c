/*
 * test_corrclock.c - the correspondence clock alone: a turn's start during
 * a vacation, the allotment with and without a bank, the bank after a move
 * (late, early, capped), the yearly budget of vacation days (a new year
 * resets it), a start refused while on vacation or beyond the budget, an
 * early end giving back the days not begun, and a node following another
 * node's change of the record.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "corrclock.h"

#define DAY ((int64_t)RECORD_DAY_MS)
/* 2026-03-01 00:00:00 UTC and 2027-01-02 00:00:00 UTC. */
#define MAR_2026 ((int64_t)1772323200000)
#define JAN_2027 ((int64_t)1798848000000)

static void test_year(void **state)
{
    (void)state;
    assert_int_equal(corrclock_year(MAR_2026), 2026);
    assert_int_equal(corrclock_year(JAN_2027), 2027);
    assert_int_equal(corrclock_year(JAN_2027 - 2 * DAY), 2026); /* 31 December */
}

static void test_turn_start(void **state)
{
    (void)state;
    int64_t now = MAR_2026;
    assert_true(corrclock_turn_start(0, 0, now) == now);
    /* On vacation now: the turn counts from its end. */
    assert_true(corrclock_turn_start(now - DAY, now + 3 * DAY, now) == now + 3 * DAY);
    /* Over, or not begun: now. */
    assert_true(corrclock_turn_start(now - 5 * DAY, now - DAY, now) == now);
    assert_true(corrclock_turn_start(now + DAY, now + 2 * DAY, now) == now);
    assert_true(corrclock_turn_start(now - DAY, now, now) == now); /* ends now */
}

static void test_allot_and_bank(void **state)
{
    (void)state;
    record_tc plain = {3 * DAY, 0, 0};
    record_tc bank = {3 * DAY, 1 * DAY, 5 * DAY};
    assert_true(corrclock_allot(&plain, 17) == 3 * DAY);
    assert_true(corrclock_allot(&bank, 2 * DAY) == 2 * DAY);
    int64_t start = MAR_2026;
    /* A day and a half used of three: 1.5 left + 1. */
    assert_true(corrclock_bank_after(&bank, start + 3 * DAY, start + DAY + DAY / 2) ==
                DAY / 2 + DAY + DAY);
    /* Past the deadline (the timeout not yet fired): only the increment. */
    assert_true(corrclock_bank_after(&bank, start, start + DAY) == DAY);
    /* At once, with 4.5 days left: capped at 5. */
    assert_true(corrclock_bank_after(&bank, start + 4 * DAY + DAY / 2, start) == 5 * DAY);
}

static void test_vacation_budget(void **state)
{
    (void)state;
    char why[128];
    int64_t now = MAR_2026, delta = 0;
    corrclock_vacation v = {0};
    assert_int_equal(corrclock_days_left(&v, now), CORRCLOCK_VACATION_DAYS);
    assert_int_equal(corrclock_vacation_start(&v, 10, now, &delta, why, sizeof why), 0);
    assert_true(delta == 10 * DAY);
    assert_true(v.from_ms == now && v.until_ms == now + 10 * DAY);
    assert_int_equal(v.year, 2026);
    assert_int_equal(corrclock_days_left(&v, now), CORRCLOCK_VACATION_DAYS - 10);
    /* A second start while on vacation is refused, the record kept. */
    corrclock_vacation kept = v;
    assert_int_equal(corrclock_vacation_start(&v, 1, now + DAY, &delta, why, sizeof why),
                     CORRCLOCK_EALREADY);
    assert_string_equal(why, "already on vacation");
    assert_memory_equal(&v, &kept, sizeof v);
    /* After it: 21 more days are too many, 20 are the rest. */
    int64_t later = now + 40 * DAY;
    assert_int_equal(corrclock_vacation_start(&v, 21, later, &delta, why, sizeof why),
                     CORRCLOCK_EBUDGET);
    assert_string_equal(why, "only 20 vacation days are left this year");
    assert_int_equal(corrclock_vacation_start(&v, 20, later, &delta, why, sizeof why), 0);
    assert_int_equal(corrclock_days_left(&v, later + 30 * DAY), 0);
    /* A new year, a new budget; a huge request never overflows. */
    assert_int_equal(corrclock_days_left(&v, JAN_2027), CORRCLOCK_VACATION_DAYS);
    assert_int_equal(corrclock_vacation_start(&v, 2147483647, JAN_2027, &delta, why, sizeof why),
                     CORRCLOCK_EBUDGET);
}

static void test_vacation_end(void **state)
{
    (void)state;
    char why[128];
    int64_t now = MAR_2026, delta = 0;
    corrclock_vacation v = {0};
    assert_int_equal(corrclock_vacation_end(&v, now, &delta, why, sizeof why), CORRCLOCK_ENOT_ON);
    assert_string_equal(why, "not on vacation");
    assert_int_equal(corrclock_vacation_start(&v, 7, now, &delta, why, sizeof why), 0);
    /* Ended in its third day: three days used, four go back; running
     * deadlines move earlier by the 4.5 days not taken. */
    int64_t end = now + 2 * DAY + DAY / 2;
    assert_int_equal(corrclock_vacation_end(&v, end, &delta, why, sizeof why), 0);
    assert_true(delta == -(4 * DAY + DAY / 2));
    assert_true(v.until_ms == end);
    assert_int_equal(v.used, 3);
    assert_int_equal(corrclock_days_left(&v, end), CORRCLOCK_VACATION_DAYS - 3);
    /* Ended at once: one day counts. */
    assert_int_equal(corrclock_vacation_start(&v, 5, end, &delta, why, sizeof why), 0);
    assert_int_equal(corrclock_vacation_end(&v, end + 1000, &delta, why, sizeof why), 0);
    assert_int_equal(v.used, 4);
}

static void test_vacation_follow(void **state)
{
    (void)state;
    int64_t now = MAR_2026, delta = 0;
    corrclock_vacation row = {now - DAY, now + 4 * DAY, 2026, 5};
    /* Begun on the other node: this node's deadlines move by its length. */
    assert_int_equal(corrclock_vacation_follow(&row, false, 0, now, &delta), 0);
    assert_true(delta == 5 * DAY);
    /* The same as here: nothing. */
    assert_int_equal(corrclock_vacation_follow(&row, true, now + 4 * DAY, now, &delta),
                     CORRCLOCK_ENOT_ON);
    /* Lengthened elsewhere by two days. */
    assert_int_equal(corrclock_vacation_follow(&row, true, now + 2 * DAY, now, &delta), 0);
    assert_true(delta == 2 * DAY);
    /* Ended early elsewhere (until is when it ended). */
    row.until_ms = now - DAY / 2;
    assert_int_equal(corrclock_vacation_follow(&row, true, now + 4 * DAY, now, &delta), 0);
    assert_true(delta == -(4 * DAY + DAY / 2));
    /* Over in both: nothing. */
    assert_int_equal(corrclock_vacation_follow(&row, false, 0, now, &delta), CORRCLOCK_ENOT_ON);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_year),           cmocka_unit_test(test_turn_start),
        cmocka_unit_test(test_allot_and_bank), cmocka_unit_test(test_vacation_budget),
        cmocka_unit_test(test_vacation_end),   cmocka_unit_test(test_vacation_follow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
