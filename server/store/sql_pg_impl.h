/*
 * sql_pg_impl.h - PRIVATE to sql_pg.c (statements, the pipeline) and
 * sql_pg_conn.c (the connection: opening, reconnection, the transaction as
 * we track it): the PostgreSQL engine's structs and what the two files
 * call in each other. See sql_pg.c's opening comment.
 *
 * Owns: the engine's structs. May call: sql_impl.h, libpq.
 */
#ifndef SQL_PG_IMPL_H
#define SQL_PG_IMPL_H

#include "sql_impl.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#define BYTEA_OID 17
#define BOOL_OID 16

#define PG_BACKOFF_MIN_MS 100
#define PG_BACKOFF_MAX_MS 2000

/* What a statement does to the transaction (tracked by us: it must
 * survive the connection's loss). */
enum { K_OTHER, K_BEGIN, K_COMMIT, K_ROLLBACK, K_SET };

struct pg_stmt_s;

typedef struct pg_conn_s {
    sql_conn base;
    PGconn *pg; /* NULL after a reconnection failed half-way */
    char *url;
    char *settings; /* the SET statements run so far, replayed on a new session */
    sql_session_fn hook;
    void *hook_arg;
    struct pg_stmt_s *stmts; /* every live statement, to prepare again */
    bool txn;                /* BEGIN done, no COMMIT or ROLLBACK since */
    bool lost;               /* the last error is the connection's loss */
    bool broken;             /* the session is over (libpq may not know yet) */
    bool gone;               /* the hook said never again */
    bool commit_unknown;     /* a COMMIT was sent and no answer came */
    bool xid_waiting;        /* txid_current_if_assigned() is in the pipeline */
    int64_t xid, commit_xid; /* the transaction's id, the unknown COMMIT's
                                (0 not known, -1 none: it wrote nothing) */
    uint64_t retry_at_ms;
    unsigned backoff_ms;
    unsigned next_name; /* statement names: "s1", "s2", ... */
    int64_t changes;
    bool piped;      /* in pipeline mode: statements sent, results unread */
    int pending;     /* how many */
    bool unreported; /* a deferred statement failed; no call has said so yet */
    char sqlstate[6];
    char err[512];
    char lost_why[512]; /* the last reconnection's failure */
    char gone_why[512];
} pg_conn_s;

typedef struct pg_stmt_s {
    sql_stmt base;
    pg_conn_s *c;
    struct pg_stmt_s *prev, *next; /* the connection's list */
    char *sql;
    int kind; /* K_ */
    char name[16];
    int nparams;
    char **vals; /* malloc'd copies; NULL = SQL NULL */
    int *lens;
    int *fmts; /* 0 text, 1 binary (blobs) */
    PGresult *res;
    int row;         /* the next row to hand out; the current is row - 1 */
    bool done;       /* the last step returned SQL_DONE or an error */
    bool deferrable; /* returns no rows and is no transaction control */
    int ncols;
    unsigned char **blob; /* decoded bytea of the current row, per column */
    size_t *bloblen;
} pg_stmt_s;

/* sql_pg.c: errors, notices, the engine table. */
void pg__set_err(pg_conn_s *c, const char *what, const PGresult *res);
void pg__clear_err(pg_conn_s *c);
/* The session is gone (or going): calls need a new one. */
bool pg__down(const pg_conn_s *c);
void pg__no_notices(void *arg, const char *msg);
extern const sql_ops pg__ops;

/* sql_pg_conn.c: the connection, opened again if it broke and the back-off
 * allows: 0 or SQL_ERROR (c->err says why). */
int pg__ensure(pg_conn_s *c);
/* Before a statement that is not deferred (kind: K_): 0 to go on, 1 when
 * it is a ROLLBACK with nothing to roll back, SQL_ERROR. */
int pg__before_call(pg_conn_s *c, int kind);
/* After a statement that was sent (ok: it succeeded). */
void pg__after_call(pg_conn_s *c, int kind, bool ok, const char *sql);

#endif
