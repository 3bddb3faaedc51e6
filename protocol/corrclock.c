/*
 * corrclock.c - the correspondence clock and vacations. See corrclock.h.
 */
#include "corrclock.h"

#include <time.h>

int corrclock_year(int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (gmtime_r(&secs, &tm) == NULL)
        return 0;
    return tm.tm_year + 1900;
}

int64_t corrclock_turn_start(int64_t from_ms, int64_t until_ms, int64_t now)
{
    return from_ms <= now && until_ms > now ? until_ms : now;
}

int64_t corrclock_allot(const record_tc *tc, int64_t bank_ms)
{
    return tc->inc_ms ? bank_ms : tc->base_ms;
}

int64_t corrclock_bank_after(const record_tc *tc, int64_t deadline_ms, int64_t start)
{
    /* Time left (not counting the rest of a vacation) plus the increment,
     * up to the cap. */
    int64_t left = deadline_ms - start;
    if (left < 0)
        left = 0;
    left += tc->inc_ms;
    return left < tc->cap_ms ? left : tc->cap_ms;
}

int corrclock_days_used(const corrclock_vacation *v, int64_t now)
{
    return v->year == corrclock_year(now) ? v->used : 0;
}

int corrclock_days_left(const corrclock_vacation *v, int64_t now)
{
    return CORRCLOCK_VACATION_DAYS - corrclock_days_used(v, now);
}

int corrclock_vacation_start(corrclock_vacation *v, int days, int64_t now, int64_t *delta,
                             char *why, size_t whylen)
{
    if (v->until_ms > now) {
        rules_why(why, whylen, "already on vacation");
        return CORRCLOCK_EALREADY;
    }
    int used = corrclock_days_used(v, now);
    if (days > CORRCLOCK_VACATION_DAYS - used) {
        rules_why(why, whylen, "only %d vacation days are left this year",
                  CORRCLOCK_VACATION_DAYS - used);
        return CORRCLOCK_EBUDGET;
    }
    int64_t length = (int64_t)days * RECORD_DAY_MS;
    *v = (corrclock_vacation){now, now + length, corrclock_year(now), used + days};
    /* Clocks running now stop: their deadlines move by the vacation. Turns
     * that begin during it start at its end (corrclock_turn_start). */
    *delta = length;
    return 0;
}

int corrclock_vacation_end(corrclock_vacation *v, int64_t now, int64_t *delta, char *why,
                           size_t whylen)
{
    if (v->until_ms <= now) {
        rules_why(why, whylen, "not on vacation");
        return CORRCLOCK_ENOT_ON;
    }
    /* A day begun is a day used; the others go back to the budget. */
    int64_t started = now - v->from_ms;
    int days_started = (int)((started + RECORD_DAY_MS - 1) / RECORD_DAY_MS);
    if (days_started < 1)
        days_started = 1;
    int64_t total_days = (v->until_ms - v->from_ms) / RECORD_DAY_MS;
    *delta = -(v->until_ms - now);
    v->until_ms = now;
    v->used -= (int)(total_days - days_started);
    return 0;
}

int corrclock_vacation_follow(const corrclock_vacation *row, bool mem_on, int64_t mem_until_ms,
                              int64_t now, int64_t *delta)
{
    bool row_on = row->until_ms > now;
    if (row_on && !mem_on)
        *delta = row->until_ms - row->from_ms; /* began */
    else if (!row_on && mem_on)
        *delta = -(mem_until_ms - row->until_ms); /* ended early, at row's until */
    else if (row_on && mem_until_ms != row->until_ms)
        *delta = row->until_ms - mem_until_ms;
    else
        return CORRCLOCK_ENOT_ON;
    return 0;
}
