/*
 * store_lite.c - what only the SQLite engine of the store has: the lock
 * file (one server per database file), quick_check before anything writes,
 * the pragmas (WAL, synchronous=FULL, foreign keys, the page cache), the
 * schema version (PRAGMA user_version), WAL checkpoints on the thread pool
 * with a connection of their own, SQLite's memory figure and the online
 * backup. The rest of the store is engine-neutral (sql.h). See
 * store_impl.h.
 *
 * Owns: the lock file, the checkpoint connection and job. May call:
 * store_impl.h, sql.h (sql_sqlite_handle for the raw sqlite3), sqlite3,
 * libuv.
 */
#include "store_impl.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* WAL pages after which a checkpoint starts (about 16 MiB). */
enum { CKPT_PAGES = 4000 };

/* ------------------------------------------------------------------------ */
/* Connections */

int lite_connect(const char *path, int flags, unsigned busy_ms, const char *pragmas, sql_conn **out,
                 char *why, size_t whylen)
{
    if (sql_open(out, path, flags, why, whylen) < 0)
        return STORE_EDB;
    sqlite3_busy_timeout(sql_sqlite_handle(*out), (int)busy_ms);
    if (pragmas != NULL && sql_exec(*out, pragmas) < 0) {
        rules_why(why, whylen, "%s: %s", path, sql_errmsg(*out));
        return STORE_EDB;
    }
    return 0;
}

/* Checkpoints run on the thread pool with their own connection, so that a
 * commit only appends to the WAL and fsyncs it; the writer's connection
 * counts the WAL's pages for them. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((store *)arg)->wal_pages = pages;
    return SQLITE_OK;
}

/* One server per database: an exclusive flock on "<path>.lock". flock, not
 * fcntl: SQLite holds fcntl locks on the database itself, and those are per
 * process and dropped when any descriptor of the file closes. The lock goes
 * with the process (even after kill -9); the file stays, holding the pid of
 * its last owner for the message. */
static int lite_lock(store *s, const char *path, char *why, size_t whylen)
{
    char lp[4096];
    if (snprintf(lp, sizeof lp, "%s.lock", path) >= (int)sizeof lp) {
        rules_why(why, whylen, "%s: the path is too long", path);
        return STORE_EBAD_ARG;
    }
    s->lock_fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->lock_fd < 0) {
        rules_why(why, whylen, "cannot open the lock file %s: %s", lp, strerror(errno));
        return STORE_EDB;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        char pid[24] = "";
        ssize_t n = pread(s->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(s->lock_fd);
        s->lock_fd = -1;
        if (e == EWOULDBLOCK) {
            rules_why(why, whylen,
                      "the database is in use by another server (pid %s holds %s); "
                      "one server per database",
                      pid[0] ? pid : "?", lp);
            return STORE_ELOCKED;
        }
        rules_why(why, whylen, "cannot lock %s: %s", lp, strerror(e));
        return STORE_EDB;
    }
    char pid[24];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    /* The pid is only for the message: its failure is no error. */
    if (ftruncate(s->lock_fd, 0) == 0 && pwrite(s->lock_fd, pid, (size_t)n, 0) < 0)
        pid[0] = '\0';
    return 0;
}

/* PRAGMA quick_check before anything writes to the file (the pragmas of
 * db_open do): a corrupt file is refused as it is. Its first complaint goes
 * into why. */
static int lite_check(store *s, const char *path, char *why, size_t whylen)
{
    sqlite3 *db = sql_sqlite_handle(s->db);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_READONLY || (sqlite3_extended_errcode(db) & 0xff) == SQLITE_READONLY) {
        /* A WAL database in a folder it cannot write (its -shm): not corrupt. */
        rules_why(why, whylen, "%s cannot be written (%s); refusing to start", path,
                  sqlite3_errmsg(db));
        return STORE_EREAD_ONLY;
    }
    if (rc != SQLITE_OK) {
        rules_why(why, whylen, "%s cannot be read as a database (%s); refusing to open it", path,
                  sqlite3_errmsg(db));
        return STORE_ECORRUPT;
    }
    rc = sqlite3_step(st);
    const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    int err = 0;
    if (res == NULL || strcmp(res, "ok") != 0) {
        /* Its first complaint, on one line. */
        char first[160];
        snprintf(first, sizeof first, "%s", res ? res : sqlite3_errmsg(db));
        for (char *p = first; *p; p++)
            if (*p == '\n')
                *p = ' ';
        rules_why(why, whylen,
                  "%s is corrupt (quick_check: %s); refusing to open it: restore a "
                  "backup (the file was not changed)",
                  path, first);
        err = STORE_ECORRUPT;
    }
    sqlite3_finalize(st);
    return err;
}

/* "<path>.site": written beside a database the first time it opens, so
 * that a later start which finds the database gone says so instead of
 * making an empty one (every game and account lost, silently). */
static int site_path(const char *path, char *out, size_t len, char *why, size_t whylen)
{
    if (snprintf(out, len, "%s.site", path) >= (int)len) {
        rules_why(why, whylen, "%s: the path is too long", path);
        return STORE_EBAD_ARG;
    }
    return 0;
}

static int site_check(const char *path, bool new_database, char *why, size_t whylen)
{
    char sp[4200];
    int err = site_path(path, sp, sizeof sp, why, whylen);
    if (err < 0 || new_database || access(path, F_OK) == 0 || errno != ENOENT)
        return err;
    if (access(sp, F_OK) == 0) {
        rules_why(why, whylen,
                  "%s is missing, but %s says this site had a database there: restore the "
                  "last backup to that path (docs/OPERATING.md), or start with --new-database "
                  "to begin an empty site",
                  path, sp);
        return STORE_EMISSING;
    }
    return 0;
}

static void site_mark(const char *path)
{
    char sp[4200], ignored[8];
    if (site_path(path, sp, sizeof sp, ignored, sizeof ignored) < 0)
        return;
    int fd = open(sp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return; /* there already (or the folder refuses: the database's own writes will say) */
    static const char text[] =
        "chameleon: this site has a database beside this file. If it goes missing, the\n"
        "server refuses to start rather than create an empty one: restore a backup, or\n"
        "start once with --new-database.\n";
    ssize_t n = write(fd, text, sizeof text - 1);
    (void)n;
    close(fd);
}

/* The file as opened, to see it deleted or replaced later. */
static void remember_file(store *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        s->file_dev = st.st_dev;
        s->file_ino = st.st_ino;
        s->file_known = true;
    }
}

int lite_file_check(store *s, char *why, size_t whylen)
{
    if (!s->file_known)
        return 0;
    struct stat st;
    if (stat(s->path, &st) < 0 && errno == ENOENT) {
        rules_why(why, whylen, "the database file %s was deleted while the server ran", s->path);
        return STORE_EMISSING;
    }
    if (st.st_dev != s->file_dev || st.st_ino != s->file_ino) {
        rules_why(why, whylen, "the database file %s was replaced while the server ran", s->path);
        return STORE_EMISSING;
    }
    return 0;
}

int lite_open(store *s, const char *path, unsigned busy_ms, bool new_database, char *why,
              size_t whylen)
{
    pages_init();
    int err = lite_lock(s, path, why, whylen);
    if (err < 0)
        return err;
    if ((err = site_check(path, new_database, why, whylen)) < 0)
        return err;
    if (sql_open(&s->db, path, SQL_OPEN_CREATE, why, whylen) < 0)
        return STORE_EDB;
    sqlite3_busy_timeout(sql_sqlite_handle(s->db), (int)busy_ms);
    if ((err = lite_check(s, path, why, whylen)) < 0)
        return err;
    /* A file SQLite could open only for reading, or whose folder refuses
     * the WAL: refused now rather than at the first move. */
    if (sqlite3_db_readonly(sql_sqlite_handle(s->db), "main") == 1) {
        rules_why(why, whylen, "%s cannot be written (read-only file or folder); refusing to start",
                  path);
        return STORE_EREAD_ONLY;
    }
    if (sql_exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                        " PRAGMA foreign_keys = ON;") < 0 ||
        sql_exec(s->db, "BEGIN IMMEDIATE; COMMIT;") < 0) {
        rules_why(why, whylen, "%s cannot be written (%s); refusing to start", path,
                  sql_errmsg(s->db));
        return STORE_EREAD_ONLY;
    }
    site_mark(path);
    remember_file(s, path);
    return 0;
}

int lite_open_writer(store *s, const char *path, unsigned busy_ms, char *why, size_t whylen)
{
    /* The moves of many games touch many pages: keep them cached (64 MiB). */
    sql_exec(s->db, "PRAGMA cache_size = -65536");
    char ignored[160];
    if (lite_connect(path, 0, 100, "PRAGMA synchronous = FULL", &s->ckpt_db, ignored,
                     sizeof ignored) == 0) {
        /* Counted on the writer's connection only (the thread). */
        sqlite3_wal_autocheckpoint(sql_sqlite_handle(s->db), 0);
    } else {
        /* Fall back to checkpoints by the connections themselves. */
        sql_close(s->ckpt_db);
        s->ckpt_db = NULL;
    }
    /* The writer's connection, same settings. */
    if (lite_connect(path, 0, busy_ms,
                     "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
                     " PRAGMA cache_size = -65536",
                     &s->wdb, why, whylen) < 0)
        return STORE_EDB;
    if (s->ckpt_db != NULL) {
        sqlite3 *w = sql_sqlite_handle(s->wdb);
        sqlite3_wal_autocheckpoint(w, 0);
        sqlite3_wal_hook(w, wal_hook, s);
    }
    return 0;
}

void lite_close(store *s)
{
    sql_close(s->ckpt_db);
    sql_close(s->wdb);
    sql_close(s->db);
    s->ckpt_db = s->wdb = s->db = NULL;
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* after the connections: the next server may start */
    s->lock_fd = -1;
}

/* ------------------------------------------------------------------------ */
/* The schema version */

int lite_version_get(sql_conn *c, int *v)
{
    sql_stmt *st;
    if (sql_prepare(c, "PRAGMA user_version", &st) < 0)
        return STORE_EDB;
    int rc = sql_step(st);
    *v = rc == SQL_ROW ? sql_column_int(st, 0) : 0;
    sql_finalize(st);
    return rc == SQL_ROW ? 0 : STORE_EDB;
}

int lite_version_set(sql_conn *c, int v)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    return sql_exec(c, sql) == SQL_OK ? 0 : STORE_EDB;
}

/* ------------------------------------------------------------------------ */
/* Checkpoints */

static void ckpt_run(uv_work_t *w)
{
    store *s = w->data;
    sqlite3_wal_checkpoint_v2(sql_sqlite_handle(s->ckpt_db), NULL, SQLITE_CHECKPOINT_PASSIVE, NULL,
                              NULL);
}

static void ckpt_done(uv_work_t *w, int status)
{
    (void)status;
    store *s = w->data;
    s->ckpt_running = false;
    store_work_end(s);
}

void lite_checkpoint(store *s)
{
    if (s->ckpt_db == NULL || s->ckpt_running || s->closing || s->wal_pages < CKPT_PAGES)
        return;
    s->ckpt_work.data = s;
    if (uv_queue_work(s->loop, &s->ckpt_work, ckpt_run, ckpt_done) == 0) {
        s->ckpt_running = true;
        s->wal_pages = 0;
        store_work_begin(s);
    }
}

/* The file watched from the loop (every deadline tick, a stat on the
 * thread pool): a database deleted or replaced while nobody writes is
 * noticed within a second or two, not at the next move. The store goes
 * unwritable (healthz 503, moves refused) and stays so: every write checks
 * the file again (lite_file_check). */
static void watch_done(uv_fs_t *req)
{
    store *s = req->data;
    bool gone = req->result == UV_ENOENT;
    bool replaced = req->result == 0 && (req->statbuf.st_dev != (uint64_t)s->file_dev ||
                                         req->statbuf.st_ino != (uint64_t)s->file_ino);
    uv_fs_req_cleanup(req);
    s->watch_running = false;
    if ((gone || replaced) && !s->closing && !s->file_lost) {
        s->file_lost = true;
        char why[sizeof s->failing_why];
        snprintf(why, sizeof why, "the database file %s was %s while the server ran", s->path,
                 gone ? "deleted" : "replaced");
        log_kv(LOG_ERROR, "STORE: THE DATABASE FILE IS GONE: no move is acknowledged any more",
               "why=\"%s\" do=\"stop the server, restore the file or the last backup\"", why);
        store_mark_unwritable(s, why);
    }
    store_work_end(s);
}

void lite_watch(store *s)
{
    if (!s->file_known || s->watch_running || s->closing)
        return;
    s->watch_req.data = s;
    if (uv_fs_stat(s->loop, &s->watch_req, s->path, watch_done) == 0) {
        s->watch_running = true;
        store_work_begin(s);
    }
}

int64_t lite_memory_bytes(void)
{
    return (int64_t)sqlite3_memory_used();
}

/* ------------------------------------------------------------------------ */
/* Online backup (a separate process: chameleon backup FILE). */

/* fsync the file or directory at path. */
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int store_backup(const char *path, const char *dest, char *why, size_t whylen)
{
    if (sql_engine_of(path) == SQL_POSTGRES) {
        rules_why(why, whylen,
                  "chameleon backup copies SQLite files only; back up a PostgreSQL "
                  "database with pg_dump (e.g. pg_dump -Fc -f %s '%s')",
                  dest, path);
        return STORE_EBAD_ARG;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.partial", dest) >= (int)sizeof tmp) {
        rules_why(why, whylen, "path too long: %s", dest);
        return STORE_EDB;
    }
    unlink(tmp);
    sqlite3 *src = NULL, *dst = NULL;
    int err = STORE_EDB;
    /* Read only, and never the server's "<db>.lock": in WAL mode a reader
     * sees the last commit and the writer goes on meanwhile. */
    if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        rules_why(why, whylen, "cannot open %s: %s", path, src ? sqlite3_errmsg(src) : "no memory");
        goto out_close;
    }
    sqlite3_busy_timeout(src, 10000);
    if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        rules_why(why, whylen, "cannot create %s: %s", tmp,
                  dst ? sqlite3_errmsg(dst) : "no memory");
        goto out_close;
    }
    /* One step for every page: one read transaction, one snapshot. */
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
    if (b == NULL) {
        rules_why(why, whylen, "cannot back up %s: %s", path, sqlite3_errmsg(dst));
        goto out_close;
    }
    int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        rules_why(why, whylen, "backing up %s failed: %s", path, sqlite3_errstr(rc));
        goto out_close;
    }
    /* The copy is checked before it takes the name asked for. */
    sqlite3_stmt *st = NULL;
    char res[160] = "";
    if (sqlite3_prepare_v2(dst, "PRAGMA integrity_check(1)", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(res, sizeof res, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (strcmp(res, "ok") != 0) {
        rules_why(why, whylen, "the copy fails integrity_check: %s", res[0] ? res : "no answer");
        goto out_close;
    }
    err = 0;
out_close:
    sqlite3_close(src);
    if (dst != NULL && sqlite3_close(dst) != SQLITE_OK && err == 0) {
        rules_why(why, whylen, "cannot close %s", tmp);
        err = STORE_EDB;
    }
    if (err == 0 && (sync_path(tmp) < 0 || rename(tmp, dest) < 0)) {
        rules_why(why, whylen, "cannot move %s to %s: %s", tmp, dest, strerror(errno));
        err = STORE_EDB;
    }
    if (err == 0) {
        /* The rename is durable once its directory is. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", dest);
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            snprintf(dir, sizeof dir, ".");
        else if (slash == dir)
            dir[1] = '\0';
        else
            *slash = '\0';
        sync_path(dir);
    } else {
        unlink(tmp);
    }
    return err;
}
