/*
 * store_sql_pg.c - PostgreSQL's own statements, where its dialect differs
 * from SQLite's: the statement table (store_db.c) is written once, and
 * PostgreSQL runs each of its statements with "$N" parameters but these:
 * ON CONFLICT for INSERT OR REPLACE/IGNORE, lower() for SQLite's COLLATE
 * NOCASE (accounts.username is NOCASE there: every comparison of it is one
 * here), ::bigint or ::text where a parameter's type cannot be inferred or
 * would be taken as a 4-byte integer ("$3 < 0"); and node mode's (leases,
 * the nodes' heartbeats), which SQLite does not have.
 * tests/unit/test_sql_pg.c prepares each statement on a migrated database.
 */
#include "store_impl.h"

static const char *const stmt_sql_pg[ST_COUNT] = {
    /* READ COMMITTED, the default: the writer is the only one to write
     * games, so no serialization failure has to be retried. */
    [ST_BEGIN] = "BEGIN",
    [ST_ACCOUNT_BY_NAME] = "SELECT id, username, pwhash FROM accounts"
                           " WHERE lower(username) = lower($1)",
    [ST_PREFS_PUT] = "INSERT INTO prefs (account, json, updated_ms) VALUES ($1,$2,$3)"
                     " ON CONFLICT (account) DO UPDATE SET json = EXCLUDED.json,"
                     " updated_ms = EXCLUDED.updated_ms",
    [ST_RATING_PUT] = "INSERT INTO ratings (account, variant, pace, rating, rd, vol,"
                      " games, last_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)"
                      " ON CONFLICT (account, variant, pace) DO UPDATE SET"
                      " rating = EXCLUDED.rating, rd = EXCLUDED.rd, vol = EXCLUDED.vol,"
                      " games = EXCLUDED.games, last_ms = EXCLUDED.last_ms",
    [ST_ARCHIVE] = "SELECT g.id, g.variant, g.kind, g.rated, g.nplayers, g.tc_base_ms,"
                   " g.tc_inc_ms, g.tc_cap_ms, p.seat, p.outcome, g.winner, g.reason,"
                   " g.created_ms, g.finished_ms, g.nmoves, h.before, h.after"
                   " FROM game_players p JOIN games g ON g.id = p.game"
                   " LEFT JOIN rating_history h ON h.account = p.account AND h.game = g.id"
                   " WHERE p.account = $1 AND g.finished = 1"
                   " AND ($2::text IS NULL OR g.variant = $2::text)"
                   " AND ($3::bigint < 0 OR g.kind = $3::bigint)"
                   " AND ($4::bigint = 0 OR p.outcome = $4::bigint)"
                   " AND ($5::bigint = 0 OR g.id < $5::bigint)"
                   " AND ($6::text IS NULL OR EXISTS (SELECT 1 FROM game_players o"
                   " JOIN accounts a ON a.id = o.account WHERE o.game = g.id"
                   " AND o.seat <> p.seat AND lower(a.username) = lower($6::text)))"
                   " AND ($8::bigint = 1 OR g.reason IS NULL OR g.reason <> 'aborted')"
                   " ORDER BY g.id DESC LIMIT $7::bigint",
    [ST_PUSH_SUB_PUT] = "INSERT INTO push_subs (account, endpoint, p256dh, auth, created_ms)"
                        " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint) DO UPDATE SET"
                        " account = EXCLUDED.account, p256dh = EXCLUDED.p256dh,"
                        " auth = EXCLUDED.auth, created_ms = EXCLUDED.created_ms",
    [ST_PUSH_SUB_TRIM] = "DELETE FROM push_subs WHERE account = $1 AND id NOT IN"
                         " (SELECT id FROM push_subs WHERE account = $1 ORDER BY created_ms DESC,"
                         " id DESC LIMIT $2::bigint)",
    [ST_PUSH_SUBS_OF] = "SELECT endpoint, p256dh, auth FROM push_subs WHERE account = $1"
                        " ORDER BY created_ms DESC, id DESC LIMIT $2::bigint",
    [ST_MAIL_PREFS_SET] = "INSERT INTO mail_addresses (account, prefs, remind_days, unsub)"
                          " VALUES ($1, $2, $3, $4) ON CONFLICT (account) DO UPDATE SET"
                          " prefs = EXCLUDED.prefs, remind_days = EXCLUDED.remind_days",
    [ST_MAIL_ADDRESS_SET] = "INSERT INTO mail_addresses (account, address, prefs, unsub)"
                            " VALUES ($1, $2, $3, $4) ON CONFLICT (account) DO UPDATE SET"
                            " address = EXCLUDED.address",
    [ST_MAIL_ACCOUNTS_OF] = "SELECT account FROM mail_addresses"
                            " WHERE lower(address) = lower($1::text) ORDER BY account"
                            " LIMIT $2::bigint",
    [ST_MAIL_OUTBOX_INSERT] = "INSERT INTO mail_outbox (account, kind, dedupe, to_addr,"
                              " subject, body, created_ms, next_ms)"
                              " VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING",
    [ST_MAIL_FAILED] = "UPDATE mail_outbox SET tries = tries + 1, last_error = $2::text,"
                       " next_ms = CASE WHEN $3::bigint > 0 THEN $3::bigint ELSE next_ms END,"
                       " failed_ms = CASE WHEN $3::bigint > 0 THEN NULL ELSE $4::bigint END"
                       " WHERE id = $1::bigint",
    [ST_T_ENTRANT_PUT] = "INSERT INTO tournament_entrants (tournament, account,"
                         " status, idx, at_ms, played_at) VALUES ($1,$2,$3,$4,$5,$6)"
                         " ON CONFLICT (tournament, account) DO UPDATE SET"
                         " status = EXCLUDED.status, idx = EXCLUDED.idx, at_ms = EXCLUDED.at_ms,"
                         " played_at = EXCLUDED.played_at",
    /* store_seated_games: as on SQLite (store_db.c). A guest's scans the
     * games in progress for its key (7-12 ms for 10,000 on 2 busy cores),
     * those found materialised first: costed over all of them, the JSON
     * test set off a JIT compile that took twice the query's time. */
    [ST_SEATED_GUEST] = "WITH g AS MATERIALIZED (SELECT id, options, created_ms FROM games"
                        " WHERE finished = 0 AND options LIKE '%\"' || $1::text || '\"%')"
                        " SELECT g.id FROM g WHERE EXISTS (SELECT 1"
                        " FROM jsonb_array_elements_text(g.options::jsonb -> 'seat_keys')"
                        " WITH ORDINALITY k(key, n) JOIN game_players p ON p.game = g.id"
                        " AND p.seat = k.n - 1 WHERE k.key = $1::text AND p.account IS NULL"
                        " AND NOT EXISTS (SELECT 1 FROM leaves l WHERE l.game = g.id"
                        " AND l.player = p.seat)) ORDER BY g.created_ms, g.id LIMIT $2",
    /* Node mode (store_lease.c). $now, $me: the store's time, the node. */
    [ST_LEASE_NEW] = "INSERT INTO room_leases (game, node, fence, expires_ms)"
                     " VALUES ($1, $2, nextval('room_fence'), $3) RETURNING fence",
    /* Free, expired or ours: taken (the fence kept only if it was ours and
     * alive); held by another live node: no row. Only a game in progress
     * (the SELECT yields no row for another id, so the foreign key never
     * fails the batch). */
    [ST_LEASE_TAKE] = "INSERT INTO room_leases (game, node, fence, expires_ms)"
                      " SELECT $1::bigint, $2::text, nextval('room_fence'), $3::bigint"
                      " FROM games WHERE id = $1::bigint AND finished = 0"
                      " ON CONFLICT (game) DO UPDATE SET node = EXCLUDED.node,"
                      " fence = CASE WHEN room_leases.node = EXCLUDED.node"
                      " AND room_leases.expires_ms >= $4::bigint THEN room_leases.fence"
                      " ELSE EXCLUDED.fence END, expires_ms = EXCLUDED.expires_ms"
                      " WHERE room_leases.expires_ms < $4::bigint OR room_leases.node = $2::text"
                      " RETURNING fence",
    [ST_LEASE_HOLDER] = "SELECT node FROM room_leases WHERE game = $1",
    /* Held until the COMMIT: a take-over waits for it. The batch's games
     * at once ($1: '{1,2,...}'), in one order; one game's (a vacation). */
    [ST_LEASE_CHECK] = "SELECT game, fence FROM room_leases WHERE game = ANY($1::bigint[])"
                       " ORDER BY game FOR SHARE",
    [ST_LEASE_FENCE] = "SELECT fence FROM room_leases WHERE game = $1 FOR SHARE",
    [ST_LEASE_DELETE] = "DELETE FROM room_leases WHERE game = $1 AND fence = $2",
    /* Only the leases still alive when the renewal was queued: one lost
     * locally stays lost. */
    [ST_LEASE_RENEW] = "UPDATE room_leases SET expires_ms = $1::bigint + $2::bigint"
                       " WHERE node = $3 AND expires_ms >= $1::bigint RETURNING game",
    [ST_NODE_BEAT] = "INSERT INTO nodes (name, started_ms, heartbeat_ms) VALUES ($1, $2, $2)"
                     " ON CONFLICT (name) DO UPDATE SET heartbeat_ms = EXCLUDED.heartbeat_ms",
    [ST_LEASE_EXPIRED] =
        "SELECT g.id FROM games g LEFT JOIN room_leases l ON l.game = g.id"
        " WHERE g.finished = 0 AND g.set_aside IS NULL AND (l.game IS NULL OR l.expires_ms < $1)"
        " ORDER BY g.id LIMIT $2",
    [ST_GAME_ID_BLOCK] = "SELECT nextval('game_id_blocks')",
    /* The live nodes: the first holds the lobby. */
    [ST_NODES_LIVE] = "SELECT name, started_ms FROM nodes WHERE heartbeat_ms >= $1"
                      " ORDER BY name LIMIT $2",
    /* An account's turns in every node's games (store_your_turn reads this
     * node's memory), most urgent first as there: live (no deadline) first. */
    [ST_TURNS_OF] = "SELECT g.id, g.variant, g.kind, g.nmoves, g.deadline_ms FROM games g"
                    " JOIN game_players p ON p.game = g.id AND p.seat = g.to_move"
                    " WHERE g.finished = 0 AND g.to_move >= 0 AND p.account = $1"
                    " ORDER BY g.deadline_ms, g.id LIMIT $2",
};

const char *db_sql_pg(enum db_stmt which)
{
    return stmt_sql_pg[which];
}
