/*
 * corrclock.h - the correspondence clock, as NOST's postal games keep it:
 * how long a turn may last, when its deadline falls, what a move leaves
 * in the player's bank, and how a vacation stops the clock (its days
 * counted against a yearly budget, its start and early end moving the
 * deadlines of the turns it covers).
 *
 * Owns: that arithmetic; pure functions on milliseconds since the epoch
 * (UTC), tested alone (tests/unit/test_corrclock.c).
 * May call: record.h (the time control), rules_why (the refusals' text)
 * and libc (gmtime_r for the calendar year); no I/O, no allocation.
 *
 * The store keeps the deadlines and vacations, in memory and on disk, and
 * calls these to compute them (server/store/store_games.c,
 * store_corr.c).
 */
#ifndef CORRCLOCK_H
#define CORRCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum {
    CORRCLOCK_VACATION_DAYS = 30, /* vacation days per account per calendar year (UTC) */
};

/* What a vacation request may be refused for. */
enum {
    CORRCLOCK_EALREADY = -1, /* a start while on vacation */
    CORRCLOCK_EBUDGET = -2,  /* a start beyond the year's days */
    CORRCLOCK_ENOT_ON = -3,  /* an end while not on vacation; a sync with no change */
};

/* An account's vacation record: the last vacation (from, until; until in
 * the past once over) and the days used in `year`. */
typedef struct corrclock_vacation {
    int64_t from_ms, until_ms;
    int year, used;
} corrclock_vacation;

/* The calendar year (UTC) of a time. */
int corrclock_year(int64_t ms);

/* When a turn that begins at `now` starts counting: the end of a vacation
 * running now (from <= now < until), else now. from = until = 0: none. */
int64_t corrclock_turn_start(int64_t from_ms, int64_t until_ms, int64_t now);

/* The time a turn may last: the bank (bank_ms) with an increment, the
 * base time per move without. */
int64_t corrclock_allot(const record_tc *tc, int64_t bank_ms);

/* The bank after a move played at a turn that counted from `start` with
 * deadline `deadline`: the time left (none if past) plus the increment, up
 * to the cap. Only for a control with an increment. */
int64_t corrclock_bank_after(const record_tc *tc, int64_t deadline_ms, int64_t start);

/* Days of the budget used in now's year (a record of another year: 0). */
int corrclock_days_used(const corrclock_vacation *v, int64_t now);
/* Days of the budget left in now's year. */
int corrclock_days_left(const corrclock_vacation *v, int64_t now);

/* A vacation of `days` days begins now: *v becomes the new record and
 * *delta how far the running deadlines move (later). 0, or
 * CORRCLOCK_EALREADY / CORRCLOCK_EBUDGET with a why (v unchanged). */
int corrclock_vacation_start(corrclock_vacation *v, int days, int64_t now, int64_t *delta,
                             char *why, size_t whylen);

/* The vacation ends now: the days not begun go back to the budget, *delta
 * (negative) moves the running deadlines earlier. 0 or CORRCLOCK_ENOT_ON
 * with a why (v unchanged). */
int corrclock_vacation_end(corrclock_vacation *v, int64_t now, int64_t *delta, char *why,
                           size_t whylen);

/* Several nodes: another node changed the record to *row; this node's
 * memory had the vacation (from, until; on = whether it was running at
 * now). *delta: how far this node's running deadlines move to follow.
 * 0, or CORRCLOCK_ENOT_ON when nothing changes. */
int corrclock_vacation_follow(const corrclock_vacation *row, bool mem_on, int64_t mem_until_ms,
                              int64_t now, int64_t *delta);

#endif
