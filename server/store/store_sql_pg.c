/*
 * store_sql_pg.c - the PostgreSQL twin of the statement table (store_db.c
 * holds SQLite's): the same statements, ids and parameters, in PostgreSQL's
 * dialect: "$N" parameters, ON CONFLICT for INSERT OR REPLACE/IGNORE,
 * lower() for SQLite's COLLATE NOCASE (accounts.username is NOCASE there:
 * every comparison of it is one here), and ::bigint where a parameter's
 * type cannot be inferred or would be taken as a 4-byte integer
 * ("$3 < 0"). tests/unit/test_sql_pg.c prepares each on a migrated
 * database.
 */
#include "store_impl.h"

static const char *const stmt_sql_pg[ST_COUNT] = {
    /* READ COMMITTED, the default: the writer is the only one to write
     * games, so no serialization failure has to be retried. */
    [ST_BEGIN] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_GAME_INSERT] = "INSERT INTO games (id, variant, position, kind, rated, nplayers,"
                       " tc_base_ms, tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms,"
                       " nmoves, to_move, deadline_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,"
                       "$11,$12,0,$13,$14)",
    [ST_PLAYER_INSERT] = "INSERT INTO game_players (game, seat, account, name, clock_ms)"
                         " VALUES ($1,$2,$3,$4,$5)",
    [ST_MOVE_INSERT] = "INSERT INTO moves (game, ply, player, text, at_ms, clock0, clock1,"
                       " clock2) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
    [ST_MOVES_TRUNCATE] = "DELETE FROM moves WHERE game = $1 AND ply >= $2",
    [ST_MOVE_CLOCKS] =
        "UPDATE moves SET clock0 = $1, clock1 = $2, clock2 = $3 WHERE game = $4 AND ply = $5",
    [ST_GAME_ADVANCE] = "UPDATE games SET nmoves = $1, to_move = $2, last_move_ms = $3,"
                        " deadline_ms = $4 WHERE id = $5",
    [ST_LEAVE_INSERT] = "INSERT INTO leaves (game, player, after_ply, reason, at_ms)"
                        " VALUES ($1,$2,$3,$4,$5)",
    [ST_PLAYER_OUTCOME] = "UPDATE game_players SET outcome = $1 WHERE game = $2 AND seat = $3",
    [ST_GAME_FINISH] = "UPDATE games SET finished = 1, to_move = -1, deadline_ms = 0,"
                       " winner = $1, reason = $2, finished_ms = $3 WHERE id = $4",
    [ST_DEADLINE_SET] = "UPDATE games SET deadline_ms = $1 WHERE id = $2",
    [ST_COND_DELETE] = "DELETE FROM cond_lines WHERE game = $1 AND player = $2",
    [ST_COND_INSERT] = "INSERT INTO cond_lines (game, player, idx, line) VALUES ($1,$2,$3,$4)",
    [ST_COND_SELECT] = "SELECT player, line FROM cond_lines WHERE game = $1 ORDER BY player, idx",
    [ST_GAME_SELECT] = "SELECT variant, position, kind, rated, nplayers, tc_base_ms,"
                       " tc_inc_ms, tc_cap_ms, options, created_ms, last_move_ms, nmoves,"
                       " to_move, deadline_ms, finished, winner, reason, finished_ms"
                       " FROM games WHERE id = $1",
    [ST_PLAYERS_SELECT] = "SELECT seat, account, name, clock_ms, outcome FROM game_players"
                          " WHERE game = $1 ORDER BY seat",
    [ST_MOVES_SELECT] = "SELECT ply, player, text, at_ms, clock0, clock1, clock2 FROM moves"
                        " WHERE game = $1 ORDER BY ply",
    [ST_LEAVES_SELECT] = "SELECT player, after_ply, reason, at_ms FROM leaves WHERE game = $1"
                         " ORDER BY after_ply, at_ms",
    [ST_IN_PROGRESS] = "SELECT id FROM games WHERE finished = 0 AND set_aside IS NULL ORDER BY id",
    [ST_MAX_ID] = "SELECT coalesce(max(id), 0) FROM games",
    [ST_VAC_SELECT] = "SELECT vacation_from_ms, vacation_until_ms, vacation_year,"
                      " vacation_used FROM accounts WHERE id = $1",
    [ST_VAC_UPDATE] = "UPDATE accounts SET vacation_from_ms = $1, vacation_until_ms = $2,"
                      " vacation_year = $3, vacation_used = $4 WHERE id = $5",
    [ST_VAC_ACTIVE] = "SELECT id, vacation_from_ms, vacation_until_ms FROM accounts"
                      " WHERE vacation_until_ms > $1",
    [ST_ACCOUNT_INSERT] = "INSERT INTO accounts (username, pwhash, created_ms) VALUES ($1,$2,$3)"
                          " ON CONFLICT DO NOTHING RETURNING id",
    [ST_ACCOUNT_BY_NAME] = "SELECT id, username, pwhash FROM accounts"
                           " WHERE lower(username) = lower($1)",
    [ST_ACCOUNT_NAME] = "SELECT username FROM accounts WHERE id = $1",
    [ST_ACCOUNT_GAMES] = "SELECT g.id, g.variant, g.kind, g.finished, g.to_move, g.deadline_ms,"
                         " g.reason, p.seat, p.outcome, g.nmoves, g.created_ms, g.finished_ms"
                         " FROM game_players p JOIN games g ON g.id = p.game"
                         " WHERE p.account = $1 ORDER BY g.id DESC",
    [ST_SESSION_INSERT] = "INSERT INTO sessions (token_hash, account, created_ms, expires_ms)"
                          " VALUES ($1,$2,$3,$4)",
    [ST_SESSION_PURGE] = "DELETE FROM sessions WHERE account = $1 AND expires_ms <= $2",
    [ST_SESSION_FIND] = "SELECT a.id, a.username FROM sessions s JOIN accounts a"
                        " ON a.id = s.account WHERE s.token_hash = $1 AND s.expires_ms > $2",
    [ST_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = $1",
    [ST_PREFS_GET] = "SELECT json FROM prefs WHERE account = $1",
    [ST_PREFS_PUT] = "INSERT INTO prefs (account, json, updated_ms) VALUES ($1,$2,$3)"
                     " ON CONFLICT (account) DO UPDATE SET json = EXCLUDED.json,"
                     " updated_ms = EXCLUDED.updated_ms",
    [ST_RATING_GET] = "SELECT rating, rd, vol, games, last_ms FROM ratings"
                      " WHERE account = $1 AND variant = $2 AND pace = $3",
    [ST_RATING_PUT] = "INSERT INTO ratings (account, variant, pace, rating, rd, vol,"
                      " games, last_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)"
                      " ON CONFLICT (account, variant, pace) DO UPDATE SET"
                      " rating = EXCLUDED.rating, rd = EXCLUDED.rd, vol = EXCLUDED.vol,"
                      " games = EXCLUDED.games, last_ms = EXCLUDED.last_ms",
    [ST_RATING_HIST_INSERT] = "INSERT INTO rating_history (account, game, variant, pace, at_ms,"
                              " before, after, rd) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
    [ST_RATINGS_ALL] = "SELECT account, variant, pace, rating, rd, vol, games, last_ms"
                       " FROM ratings",
    [ST_RATINGS_OF] = "SELECT variant, pace, rating, rd, vol, games, last_ms FROM ratings"
                      " WHERE account = $1 ORDER BY variant, pace",
    [ST_RATING_HISTORY_OF] = "SELECT variant, pace, game, at_ms, after, rd FROM rating_history"
                             " WHERE account = $1 ORDER BY at_ms, game",
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
                   " ORDER BY g.id DESC LIMIT $7::bigint",
    [ST_ARCHIVE_NAMES] = "SELECT seat, name FROM game_players WHERE game = $1 ORDER BY seat",
    [ST_PUSH_VAPID_GET] = "SELECT private_key, public_key FROM push_vapid WHERE id = 1",
    [ST_PUSH_VAPID_PUT] = "INSERT INTO push_vapid (id, private_key, public_key, created_ms)"
                          " VALUES (1, $1, $2, $3)",
    [ST_PUSH_SUB_PUT] = "INSERT INTO push_subs (account, endpoint, p256dh, auth, created_ms)"
                        " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint) DO UPDATE SET"
                        " account = EXCLUDED.account, p256dh = EXCLUDED.p256dh,"
                        " auth = EXCLUDED.auth, created_ms = EXCLUDED.created_ms",
    [ST_PUSH_SUB_TRIM] = "DELETE FROM push_subs WHERE account = $1 AND id NOT IN"
                         " (SELECT id FROM push_subs WHERE account = $1 ORDER BY created_ms DESC,"
                         " id DESC LIMIT $2::bigint)",
    [ST_PUSH_SUB_DELETE] = "DELETE FROM push_subs WHERE account = $1 AND endpoint = $2",
    [ST_PUSH_SUB_GONE] = "DELETE FROM push_subs WHERE endpoint = $1",
    [ST_PUSH_SUBS_OF] = "SELECT endpoint, p256dh, auth FROM push_subs WHERE account = $1"
                        " ORDER BY created_ms DESC, id DESC LIMIT $2::bigint",
    [ST_LEADERBOARD] = "SELECT a.username, r.pace, r.rating, r.rd, r.games, r.last_ms"
                       " FROM ratings r JOIN accounts a ON a.id = r.account"
                       " WHERE r.variant = $1 AND r.rd <= $2 AND r.last_ms >= $3"
                       " ORDER BY r.pace, r.rating DESC",
    [ST_MAIL_PREFS_GET] = "SELECT address, prefs, remind_days, unsub FROM mail_addresses"
                          " WHERE account = $1",
    [ST_MAIL_PREFS_SET] = "INSERT INTO mail_addresses (account, prefs, remind_days, unsub)"
                          " VALUES ($1, $2, $3, $4) ON CONFLICT (account) DO UPDATE SET"
                          " prefs = EXCLUDED.prefs, remind_days = EXCLUDED.remind_days",
    [ST_MAIL_ADDRESS_SET] = "INSERT INTO mail_addresses (account, address, prefs, unsub)"
                            " VALUES ($1, $2, $3, $4) ON CONFLICT (account) DO UPDATE SET"
                            " address = EXCLUDED.address",
    [ST_MAIL_ACCOUNTS_OF] = "SELECT account FROM mail_addresses"
                            " WHERE lower(address) = lower($1::text) ORDER BY account"
                            " LIMIT $2::bigint",
    [ST_MAIL_UNSUBSCRIBE] = "UPDATE mail_addresses SET prefs = 0, remind_days = 0 WHERE unsub = $1",
    [ST_MAIL_TOKEN_PURGE] = "DELETE FROM mail_tokens WHERE (account = $1 AND purpose = $2)"
                            " OR expires_ms <= $3",
    [ST_MAIL_TOKEN_INSERT] = "INSERT INTO mail_tokens (token_hash, account, purpose, address,"
                             " expires_ms) VALUES ($1,$2,$3,$4,$5)",
    [ST_MAIL_TOKEN_FIND] = "SELECT account, address FROM mail_tokens WHERE token_hash = $1"
                           " AND purpose = $2 AND expires_ms > $3",
    [ST_MAIL_TOKEN_DELETE] = "DELETE FROM mail_tokens WHERE token_hash = $1",
    [ST_ACCOUNT_SET_PWHASH] = "UPDATE accounts SET pwhash = $1 WHERE id = $2",
    [ST_SESSIONS_END_ALL] = "DELETE FROM sessions WHERE account = $1",
    [ST_MAIL_OUTBOX_INSERT] = "INSERT INTO mail_outbox (account, kind, dedupe, to_addr,"
                              " subject, body, created_ms, next_ms)"
                              " VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING",
    [ST_MAIL_NEXT] = "SELECT o.id, o.account, o.created_ms, o.tries, o.kind, o.to_addr,"
                     " o.subject, o.body, a.unsub FROM mail_outbox o"
                     " LEFT JOIN mail_addresses a ON a.account = o.account"
                     " WHERE o.sent_ms IS NULL AND o.failed_ms IS NULL AND o.next_ms <= $1"
                     " ORDER BY o.next_ms, o.id LIMIT 1",
    [ST_MAIL_NEXT_DUE] = "SELECT min(next_ms) FROM mail_outbox"
                         " WHERE sent_ms IS NULL AND failed_ms IS NULL",
    [ST_MAIL_SENT] = "UPDATE mail_outbox SET sent_ms = $1, tries = tries + 1 WHERE id = $2",
    [ST_MAIL_FAILED] = "UPDATE mail_outbox SET tries = tries + 1, last_error = $2::text,"
                       " next_ms = CASE WHEN $3::bigint > 0 THEN $3::bigint ELSE next_ms END,"
                       " failed_ms = CASE WHEN $3::bigint > 0 THEN NULL ELSE $4::bigint END"
                       " WHERE id = $1::bigint",
    [ST_MAIL_DEPTH] =
        "SELECT count(*) FROM mail_outbox WHERE sent_ms IS NULL AND failed_ms IS NULL",
    [ST_MAIL_PURGE] = "DELETE FROM mail_outbox WHERE coalesce(sent_ms, failed_ms) < $1",
    [ST_T_INSERT] = "INSERT INTO tournaments (name, director, variant, size, double_rr, tc_base_ms,"
                    " tc_inc_ms, tc_cap_ms, start_ms, invite_only, rated, state, created_ms,"
                    " state_ms) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,0,$12,$13)"
                    " RETURNING id",
    [ST_T_STATE] = "UPDATE tournaments SET state = $1, state_ms = $2 WHERE id = $3",
    [ST_T_ENTRANT_PUT] = "INSERT INTO tournament_entrants (tournament, account,"
                         " status, idx, at_ms, played_at) VALUES ($1,$2,$3,$4,$5,$6)"
                         " ON CONFLICT (tournament, account) DO UPDATE SET"
                         " status = EXCLUDED.status, idx = EXCLUDED.idx, at_ms = EXCLUDED.at_ms,"
                         " played_at = EXCLUDED.played_at",
    [ST_T_ENTRANT_DEL] = "DELETE FROM tournament_entrants WHERE tournament = $1 AND account = $2",
    [ST_T_ENTRANT_IDX] = "UPDATE tournament_entrants SET idx = $1 WHERE tournament = $2"
                         " AND account = $3",
    [ST_T_GAME_INSERT] = "INSERT INTO tournament_games (tournament, game, round, p0, p1, p2)"
                         " VALUES ($1,$2,$3,$4,$5,$6)",
    [ST_T_GAME_RESULT] = "UPDATE tournament_games SET rank0 = $1, rank1 = $2, rank2 = $3"
                         " WHERE game = $4",
    [ST_T_ALL] = "SELECT t.id, t.name, t.director, a.username, t.variant, t.size, t.double_rr,"
                 " t.tc_base_ms, t.tc_inc_ms, t.tc_cap_ms, t.start_ms, t.invite_only, t.rated,"
                 " t.state, t.created_ms, t.state_ms FROM tournaments t"
                 " JOIN accounts a ON a.id = t.director ORDER BY t.id",
    [ST_T_ENTRANTS] = "SELECT e.tournament, e.account, a.username, e.status, e.idx, e.at_ms,"
                      " e.played_at FROM tournament_entrants e JOIN accounts a"
                      " ON a.id = e.account ORDER BY e.tournament, e.at_ms, e.account",
    [ST_T_GAMES] = "SELECT tournament, game, round, p0, p1, p2, rank0, rank1, rank2"
                   " FROM tournament_games ORDER BY tournament, round, game",
    /* store_seated_games: as on SQLite (store_db.c). A guest's scans the
     * games in progress for its key (7-12 ms for 10,000 on 2 busy cores),
     * those found materialised first: costed over all of them, the JSON
     * test set off a JIT compile that took twice the query's time. */
    [ST_SEATED_ACCOUNT] = "SELECT g.id FROM games g WHERE g.finished = 0 AND g.id IN"
                          " (SELECT p.game FROM game_players p WHERE p.account = $1"
                          " AND NOT EXISTS (SELECT 1 FROM leaves l WHERE l.game = p.game"
                          " AND l.player = p.seat)) ORDER BY g.created_ms, g.id LIMIT $2",
    [ST_SEATED_GUEST] = "WITH g AS MATERIALIZED (SELECT id, options, created_ms FROM games"
                        " WHERE finished = 0 AND options LIKE '%\"' || $1::text || '\"%')"
                        " SELECT g.id FROM g WHERE EXISTS (SELECT 1"
                        " FROM jsonb_array_elements_text(g.options::jsonb -> 'seat_keys')"
                        " WITH ORDINALITY k(key, n) JOIN game_players p ON p.game = g.id"
                        " AND p.seat = k.n - 1 WHERE k.key = $1::text AND p.account IS NULL"
                        " AND NOT EXISTS (SELECT 1 FROM leaves l WHERE l.game = g.id"
                        " AND l.player = p.seat)) ORDER BY g.created_ms, g.id LIMIT $2",
    /* Start-up's restore and `chameleon set-aside` (store_games.c). */
    [ST_SET_ASIDE] = "UPDATE games SET set_aside = $1 WHERE id = $2 AND finished = 0",
    [ST_SET_ASIDE_CLEAR] =
        "UPDATE games SET set_aside = NULL WHERE id = $1 AND set_aside IS NOT NULL",
    [ST_SET_ASIDE_LIST] = "SELECT id, variant, set_aside FROM games WHERE set_aside IS NOT NULL"
                          " ORDER BY id",
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
