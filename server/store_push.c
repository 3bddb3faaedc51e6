/*
 * store_push.c - Web Push's tables (migrations/0007_push.sql): the VAPID
 * key pair and each account's subscriptions, synchronous on the loop's
 * connection. See store.h ("Web Push") and store_impl.h.
 */
#include "store_impl.h"

#include <stdio.h>
#include <string.h>

int store_push_vapid_get(store *s, uint8_t priv[32], uint8_t pub[65])
{
    sql_stmt *st = db_use(s->st, ST_PUSH_VAPID_GET);
    int rc = sql_step(st), err = STORE_ENOT_FOUND;
    if (rc == SQL_ROW) {
        err = STORE_EDB;
        if (sql_column_bytes(st, 0) == 32 && sql_column_bytes(st, 1) == 65) {
            memcpy(priv, sql_column_blob(st, 0), 32);
            memcpy(pub, sql_column_blob(st, 1), 65);
            err = 0;
        }
    } else if (rc != SQL_DONE) {
        err = STORE_EDB;
    }
    sql_reset(st);
    return err;
}

int store_push_vapid_put(store *s, const uint8_t priv[32], const uint8_t pub[65])
{
    sql_stmt *st = db_use(s->st, ST_PUSH_VAPID_PUT);
    sql_bind_blob(st, 1, priv, 32);
    sql_bind_blob(st, 2, pub, 65);
    sql_bind_i64(st, 3, store_now(s));
    return db_run(st);
}

int store_push_sub_put(store *s, int64_t account, const store_push_sub *sub, int keep)
{
    sql_stmt *st = db_use(s->st, ST_PUSH_SUB_PUT);
    sql_bind_i64(st, 1, account);
    sql_bind_text(st, 2, sub->endpoint, -1);
    sql_bind_blob(st, 3, sub->p256dh, sizeof sub->p256dh);
    sql_bind_blob(st, 4, sub->auth, sizeof sub->auth);
    sql_bind_i64(st, 5, store_now(s));
    if (db_run(st) < 0)
        return STORE_EDB;
    st = db_use(s->st, ST_PUSH_SUB_TRIM);
    sql_bind_i64(st, 1, account);
    sql_bind_int(st, 2, keep);
    return db_run(st);
}

/* Run a DELETE: 1 if it deleted a row, 0 if none, STORE_EDB. */
static int deleted(store *s, sql_stmt *st)
{
    if (db_run(st) < 0)
        return STORE_EDB;
    return sql_changes(s->db) > 0;
}

int store_push_sub_delete(store *s, int64_t account, const char *endpoint)
{
    sql_stmt *st = db_use(s->st, ST_PUSH_SUB_DELETE);
    sql_bind_i64(st, 1, account);
    sql_bind_text(st, 2, endpoint, -1);
    return deleted(s, st);
}

int store_push_sub_gone(store *s, const char *endpoint)
{
    sql_stmt *st = db_use(s->st, ST_PUSH_SUB_GONE);
    sql_bind_text(st, 1, endpoint, -1);
    return deleted(s, st);
}

int store_push_subs(store *s, int64_t account, store_push_sub *out, int max)
{
    sql_stmt *st = db_use(s->st, ST_PUSH_SUBS_OF);
    sql_bind_i64(st, 1, account);
    sql_bind_int(st, 2, max);
    int n = 0, rc;
    while ((rc = sql_step(st)) == SQL_ROW && n < max) {
        const char *ep = sql_column_text(st, 0);
        if (ep == NULL || sql_column_bytes(st, 1) != 65 || sql_column_bytes(st, 2) != 16)
            continue;
        snprintf(out[n].endpoint, sizeof out[n].endpoint, "%s", ep);
        memcpy(out[n].p256dh, sql_column_blob(st, 1), 65);
        memcpy(out[n].auth, sql_column_blob(st, 2), 16);
        n++;
    }
    int err = rc == SQL_DONE || rc == SQL_ROW ? n : STORE_EDB;
    sql_reset(st);
    return err;
}
