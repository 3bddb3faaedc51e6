/*
 * notify.c - the notices' triggers and text (see notify.h).
 */
#include "notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HASH_NONFATAL_OOM 1 /* a failed add sets hh.tbl to NULL */
#include <uthash.h>

#include "ident.h"
#include "log.h"
#include "mail.h"

/* What the scan already did for a game in progress. */
typedef struct mark {
    int64_t game; /* hash key */
    int low_ply;  /* the alarm was queued at this many moves (-1: none) */
    int remind_ply, remind_days;
    unsigned gen; /* the last scan that saw the game */
    UT_hash_handle hh;
} mark;

static struct {
    bool started;
    uv_timer_t timer;
    store *s;
    mark *marks;
    unsigned gen;
    int64_t digest_day; /* the day (since the epoch, UTC) of the last digest pass */
} n;

/* Is the account on the site (a connection open) now? */
static bool online(int64_t account)
{
    ident *who = ident_find_account(account);
    return who != NULL && who->sessions != NULL;
}

static const char *game_name(const char *variant)
{
    const rules_variant *v = rules_find(variant);
    return v ? v->name : variant;
}

/* "2026-11-28 14:00 UTC" */
static void utc(char *out, size_t len, int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* The other players' names, "a and b". */
static void opponents(const notify_game *g, int seat, char *out, size_t len)
{
    size_t at = 0;
    int k = 0;
    out[0] = '\0';
    for (int i = 0; i < g->nseats && at < len; i++) {
        if (i == seat)
            continue;
        int w =
            snprintf(out + at, len - at, "%s%s", k++ ? " and " : "", g->name[i] ? g->name[i] : "?");
        at += w > 0 ? (size_t)w : 0;
    }
}

/* Queue one notice by mail (the store drops it if the account has no
 * confirmed address or the preference is off). */
static void send_mail(int64_t account, const char *kind, unsigned pref, int silent_days,
                      const char *dedupe, const char *subject, const char *body)
{
    store_mail_new m = {
        .account = account,
        .kind = kind,
        .pref = pref,
        .silent_days = silent_days,
        .dedupe = dedupe,
        .subject = subject,
        .body = body,
    };
    int err = mail_queue(&m);
    if (err < 0)
        log_kv(LOG_WARN, "cannot queue a notice", "kind=%s account=%lld why=\"%s\"", kind,
               (long long)account, store_err_text(err));
}

/* ------------------------------------------------------------------------ */
/* Triggers the rooms call */

void notify_your_move(const notify_game *g)
{
    if (!g->corr || g->to_move < 0 || g->to_move >= g->nseats)
        return;
    int64_t a = g->account[g->to_move];
    if (a <= 0 || online(a))
        return;
    char opp[128], when[40] = "", key[96], subject[200], body[900];
    opponents(g, g->to_move, opp, sizeof opp);
    if (g->deadline_ms > 0)
        utc(when, sizeof when, g->deadline_ms);
    snprintf(key, sizeof key, "move:%lld:%d:%lld", (long long)g->id, g->nmoves, (long long)a);
    snprintf(subject, sizeof subject, "Your move in %s #%lld against %s", game_name(g->variant),
             (long long)g->id, opp);
    snprintf(body, sizeof body,
             "%s has moved in your correspondence game of %s (#%lld, %d moves played).\n"
             "%s%s%s\nPlay: %s/#/game/%lld\n",
             opp, game_name(g->variant), (long long)g->id, g->nmoves, when[0] ? "Move by " : "",
             when, when[0] ? ".\n" : "", mail_link_base(), (long long)g->id);
    send_mail(a, "move", STORE_MAIL_MOVE, 0, key, subject, body);
}

void notify_game_started(const notify_game *g)
{
    if (!g->corr)
        return;
    for (int i = 0; i < g->nseats; i++) {
        int64_t a = g->account[i];
        if (a <= 0 || online(a))
            continue;
        char opp[128], key[96], subject[200], body[900];
        opponents(g, i, opp, sizeof opp);
        snprintf(key, sizeof key, "start:%lld:%lld", (long long)g->id, (long long)a);
        snprintf(subject, sizeof subject, "Your %s game against %s has started",
                 game_name(g->variant), opp);
        snprintf(body, sizeof body,
                 "A correspondence game of %s (#%lld) has started: you against %s.\n%s\n"
                 "The game: %s/#/game/%lld\n",
                 game_name(g->variant), (long long)g->id, opp,
                 g->to_move == i ? "You move first." : "Your opponent moves first.",
                 mail_link_base(), (long long)g->id);
        send_mail(a, "start", STORE_MAIL_START_END, 0, key, subject, body);
    }
}

void notify_tournament_started(int64_t tourney, const char *name, const char *variant,
                               const int64_t *accounts, int naccounts, int games)
{
    for (int i = 0; i < naccounts; i++) {
        int64_t a = accounts[i];
        if (a <= 0 || online(a))
            continue;
        char key[96], subject[200], body[900];
        snprintf(key, sizeof key, "tourney:%lld:%lld", (long long)tourney, (long long)a);
        snprintf(subject, sizeof subject, "The tournament %s has started", name);
        snprintf(body, sizeof body,
                 "The correspondence tournament %s (%s) has started: your %d games\n"
                 "have begun at once. Where it is your move, the game waits for you.\n"
                 "The tournament, its crosstable and your games: %s/#/tournament/%lld\n",
                 name, game_name(variant), games, mail_link_base(), (long long)tourney);
        send_mail(a, "tourney", STORE_MAIL_START_END, 0, key, subject, body);
    }
}

void notify_game_ended(const notify_game *g)
{
    if (g->result != NULL) {
        mark *m;
        HASH_FIND(hh, n.marks, &g->id, sizeof g->id, m);
        if (m != NULL) {
            HASH_DEL(n.marks, m);
            free(m);
        }
    }
    if (!g->corr || g->result == NULL)
        return;
    for (int i = 0; i < g->nseats; i++) {
        int64_t a = g->account[i];
        if (a <= 0 || online(a))
            continue;
        int o = g->result->outcome[i];
        const char *how = o == RULES_OUTCOME_WIN    ? "you won"
                          : o == RULES_OUTCOME_LOSS ? "you lost"
                          : o == RULES_OUTCOME_DRAW ? "a draw"
                                                    : "it is over";
        char opp[128], key[96], subject[200], body[900];
        opponents(g, i, opp, sizeof opp);
        snprintf(key, sizeof key, "end:%lld:%lld", (long long)g->id, (long long)a);
        snprintf(subject, sizeof subject, "Your %s game against %s is over: %s",
                 game_name(g->variant), opp, how);
        snprintf(body, sizeof body,
                 "Your correspondence game of %s (#%lld) against %s is over after %d moves: "
                 "%s (%s).\nThe game: %s/#/game/%lld\n",
                 game_name(g->variant), (long long)g->id, opp, g->nmoves, how,
                 rules_reason_name(g->result->reason), mail_link_base(), (long long)g->id);
        send_mail(a, "end", STORE_MAIL_START_END, 0, key, subject, body);
    }
}

/* ------------------------------------------------------------------------ */
/* The scan: low time, reminders, the digest */

int64_t notify_low_time_ms(int64_t span_ms)
{
    return span_ms * NOTIFY_LOW_TIME_PCT / 100;
}

void notify_low_time(const store_corr_turn *t)
{
    char when[40], key[96], subject[200], body[900];
    utc(when, sizeof when, t->deadline_ms);
    snprintf(key, sizeof key, "low:%lld:%d:%lld", (long long)t->game, t->nmoves,
             (long long)t->account);
    snprintf(subject, sizeof subject, "Time is running out in %s #%lld", game_name(t->variant),
             (long long)t->game);
    snprintf(body, sizeof body,
             "You have used %d%% of the time for your move in your correspondence game of %s "
             "(#%lld).\nMove by %s, or the game is lost on time.\nPlay: %s/#/game/%lld\n",
             NOTIFY_LOW_TIME_PCT, game_name(t->variant), (long long)t->game, when, mail_link_base(),
             (long long)t->game);
    send_mail(t->account, "low_time", STORE_MAIL_LOW_TIME, 0, key, subject, body);
}

static void remind(const store_corr_turn *t, int days)
{
    char key[96], subject[200], body[900];
    snprintf(key, sizeof key, "remind:%lld:%d:%lld", (long long)t->game, t->nmoves,
             (long long)t->account);
    snprintf(subject, sizeof subject, "%s #%lld is waiting for your move", game_name(t->variant),
             (long long)t->game);
    snprintf(body, sizeof body,
             "Nothing has happened for %d days in your correspondence game of %s (#%lld): "
             "it is your move.\nPlay: %s/#/game/%lld\n",
             days, game_name(t->variant), (long long)t->game, mail_link_base(), (long long)t->game);
    /* Sent only if the account asked for reminders after at most `days`. */
    send_mail(t->account, "remind", 0, days, key, subject, body);
}

static mark *mark_of(int64_t game)
{
    mark *m;
    HASH_FIND(hh, n.marks, &game, sizeof game, m);
    if (m != NULL)
        return m;
    m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->game = game;
    m->low_ply = m->remind_ply = -1;
    HASH_ADD(hh, n.marks, game, sizeof m->game, m);
    if (m->hh.tbl == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

/* A game waiting for an account's move, for the digest. */
typedef struct waiting {
    int64_t account, game, deadline_ms;
    const char *variant; /* a rules id (static) */
} waiting;

typedef struct scan_state {
    int64_t now;
    bool digest;
    waiting *w;
    size_t nw, capw;
} scan_state;

static void scan_game(void *arg, const store_corr_turn *t)
{
    scan_state *ss = arg;
    if (t->account <= 0)
        return;
    if (ss->digest) {
        if (ss->nw == ss->capw) {
            size_t cap = ss->capw ? ss->capw * 2 : 64;
            waiting *nw = realloc(ss->w, cap * sizeof *nw);
            if (nw != NULL) {
                ss->w = nw;
                ss->capw = cap;
            }
        }
        const rules_variant *v = rules_find(t->variant);
        if (ss->nw < ss->capw && v != NULL)
            ss->w[ss->nw++] = (waiting){t->account, t->game, t->deadline_ms, v->id};
    }
    mark *m = mark_of(t->game);
    if (m == NULL)
        return;
    m->gen = n.gen;
    int64_t span = t->deadline_ms - t->last_move_ms, used = ss->now - t->last_move_ms;
    if (t->deadline_ms > 0 && span > 0 && ss->now < t->deadline_ms && m->low_ply != t->nmoves &&
        used >= notify_low_time_ms(span) && !online(t->account)) {
        m->low_ply = t->nmoves;
        notify_low_time(t);
    }
    int days = (int)(used / STORE_DAY_MS);
    if (days >= 1 && (m->remind_ply != t->nmoves || m->remind_days != days)) {
        m->remind_ply = t->nmoves;
        m->remind_days = days;
        if (!online(t->account))
            remind(t, days);
        else
            m->remind_days = 0; /* looked at again at the next scan */
    }
}

static int cmp_waiting(const void *a, const void *b)
{
    const waiting *x = a, *y = b;
    if (x->account != y->account)
        return x->account < y->account ? -1 : 1;
    return (x->deadline_ms > y->deadline_ms) - (x->deadline_ms < y->deadline_ms);
}

/* One digest per account with games waiting (sorted by account). */
static void send_digests(scan_state *ss, int64_t day)
{
    if (ss->nw == 0)
        return; /* and ss->w may be NULL, which qsort must not get */
    qsort(ss->w, ss->nw, sizeof *ss->w, cmp_waiting);
    for (size_t i = 0; i < ss->nw;) {
        size_t j = i;
        while (j < ss->nw && ss->w[j].account == ss->w[i].account)
            j++;
        char key[64], subject[120], body[4096], when[40];
        int len = snprintf(body, sizeof body,
                           "It is your move in %zu correspondence game%s, the most urgent "
                           "first:\n\n",
                           j - i, j - i == 1 ? "" : "s");
        for (size_t k = i; k < j && k < i + NOTIFY_DIGEST_MAX && len < (int)sizeof body; k++) {
            utc(when, sizeof when, ss->w[k].deadline_ms);
            len += snprintf(body + len, sizeof body - (size_t)len,
                            "- %s #%lld, move by %s: %s/#/game/%lld\n", game_name(ss->w[k].variant),
                            (long long)ss->w[k].game, when, mail_link_base(),
                            (long long)ss->w[k].game);
        }
        if (len < (int)sizeof body)
            snprintf(body + len, sizeof body - (size_t)len, "\nEvery game waiting: %s/#/turn\n",
                     mail_link_base());
        snprintf(key, sizeof key, "digest:%lld:%lld", (long long)ss->w[i].account, (long long)day);
        snprintf(subject, sizeof subject, "Your move in %zu game%s", j - i, j - i == 1 ? "" : "s");
        send_mail(ss->w[i].account, "digest", STORE_MAIL_DIGEST, 0, key, subject, body);
        i = j;
    }
}

void notify_scan(void)
{
    if (!n.started || !mail_on())
        return;
    scan_state ss = {.now = store_now(n.s)};
    int64_t day = ss.now / STORE_DAY_MS;
    ss.digest =
        day != n.digest_day && ss.now - day * STORE_DAY_MS >= (int64_t)NOTIFY_DIGEST_HOUR * 3600000;
    n.gen++;
    store_corr_each(n.s, scan_game, &ss);
    if (ss.digest) {
        n.digest_day = day;
        send_digests(&ss, day);
    }
    free(ss.w);
    /* Games no longer in progress. */
    mark *m, *tmp;
    HASH_ITER(hh, n.marks, m, tmp)
    if (m->gen != n.gen) {
        HASH_DEL(n.marks, m);
        free(m);
    }
}

static void on_timer(uv_timer_t *t)
{
    (void)t;
    notify_scan();
}

void notify_init(uv_loop_t *loop, store *s)
{
    n.s = s;
    n.digest_day = -1;
    uv_timer_init(loop, &n.timer);
    uv_timer_start(&n.timer, on_timer, NOTIFY_SCAN_MS, NOTIFY_SCAN_MS);
    uv_unref((uv_handle_t *)&n.timer);
    n.started = true;
}

void notify_stop(void)
{
    if (!n.started)
        return;
    uv_timer_stop(&n.timer);
    uv_close((uv_handle_t *)&n.timer, NULL);
    mark *m, *tmp;
    HASH_ITER(hh, n.marks, m, tmp)
    {
        HASH_DEL(n.marks, m);
        free(m);
    }
    n.started = false;
}
