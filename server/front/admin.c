/*
 * admin.c - the operator's commands (see admin.h).
 */
#include "admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "log.h"
#include "store.h"
#include "store_aside.h"

/* chameleon backup FILE [--db DB]: see usage(). */
static int backup_main(int argc, char **argv)
{
    const char *db = "chameleon.db", *dest = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db = argv[++i];
        else if (argv[i][0] != '-' && dest == NULL)
            dest = argv[i];
        else {
            log_error("backup: unknown argument: %s", argv[i]);
            fputs("see chameleon --help\n", stderr);
            return 2;
        }
    }
    if (dest == NULL) {
        log_error("backup: which file? chameleon backup FILE [--db FILE]");
        return 2;
    }
    char why[512];
    if (store_backup(db, dest, why, sizeof why) < 0) {
        log_kv(LOG_ERROR, "backup failed", "db=%s file=%s why=\"%s\"", db, dest, why);
        return 1;
    }
    log_kv(LOG_INFO, "backup written", "db=%s file=%s integrity=ok", db, dest);
    return 0;
}

static void print_set_aside(void *arg, int64_t id, const char *variant, const char *why)
{
    (void)arg;
    printf("%lld\t%s\t%s\n", (long long)id, variant, why);
}

/* chameleon set-aside [--db DB] [--migrations DIR] [--clear ID]: see usage().
 * The server must be stopped (SQLite: it holds the database's lock). */
static int set_aside_main(int argc, char **argv, const char *datadir)
{
    const char *db = "chameleon.db", *migrations = getenv("CHAMELEON_MIGRATIONS");
    char mig_buf[4200];
    if (migrations == NULL && datadir != NULL) {
        snprintf(mig_buf, sizeof mig_buf, "%s/migrations", datadir);
        migrations = mig_buf; /* as the server finds them */
    }
    long long clear = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--migrations") == 0 && i + 1 < argc) {
            migrations = argv[++i];
        } else if (strcmp(argv[i], "--clear") == 0 && i + 1 < argc) {
            char *end;
            clear = strtoll(argv[++i], &end, 10);
            if (*end != '\0' || clear <= 0) {
                log_error("set-aside: --clear wants a game id, not '%s'", argv[i]);
                return 2;
            }
        } else {
            log_error("set-aside: unknown argument: %s", argv[i]);
            fputs("see chameleon --help\n", stderr);
            return 2;
        }
    }
    uv_loop_t loop;
    uv_loop_init(&loop);
    store *st = NULL;
    char why[512];
    store_options sopt = {.migrations_dir = migrations};
    int err = store_open(&st, &loop, db, &sopt, why, sizeof why);
    if (err < 0) {
        log_error("set-aside: cannot open %s: %s", db, why);
        uv_loop_close(&loop);
        return err == STORE_ELOCKED ? 3 : 1;
    }
    err =
        clear ? store_set_aside_clear(st, clear) : store_set_aside_list(st, print_set_aside, NULL);
    store_close(st);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (err < 0) {
        log_error("set-aside: %s", store_err_code(err));
        return 1;
    }
    if (clear && err == 0) {
        log_error("set-aside: game %lld is not set aside", clear);
        return 1;
    }
    if (clear)
        log_kv(LOG_INFO, "set-aside mark cleared: restored at the next start", "game=%lld", clear);
    return 0;
}

int admin_main(int argc, char **argv, const char *datadir)
{
    if (argc > 1 && strcmp(argv[1], "backup") == 0)
        return backup_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "set-aside") == 0)
        return set_aside_main(argc, argv, datadir);
    return ADMIN_NOT_ONE;
}
