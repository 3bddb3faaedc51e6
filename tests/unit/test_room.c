/*
 * test_room.c - rooms without the transport: clocks (a flag falls on the
 * loop's timer, the increment is added), a move after the flag, draws
 * (offered by every remaining player, declined), three-player leaves (the
 * others play on until one is left), leaves and results broadcast only once
 * durable, a move the store refuses (taken back,
 * leaves kept at their place), rematch (seats rotate), presence from
 * an identity's own list of rooms, the chat limit.
 *
 * Linked without libwebsockets: server_fixture.h is the session sink and
 * records what each player was sent. Moves are chosen on a mirror game (the
 * first legal move) and checked against the events the room broadcasts.
 */

#include "server_fixture.h"
#include "sql.h"

/* Another connection holding the store's write lock (pg_fixture.h). */
static sql_conn *hold_write_lock(void)
{
    sql_conn *c = NULL;
    char why[256] = "";
    if (sql_open(&c, W.target, 0, why, sizeof why) != SQL_OK)
        fail_msg("%s: %s", W.target, why);
    if (sql_exec(c, pg_fixture_write_lock_sql()) != SQL_OK)
        fail_msg("%s", sql_errmsg(c));
    return c;
}

typedef struct game {
    room *r;
    int64_t id;
    fake *p[RULES_MAX_PLAYERS];
    int n;
    rules_game *mirror;
} game;

/* A game of `variant` between players named in `names`, started as the
 * lobby does when a seek is full. */
static game start(const char *variant, int64_t base_ms, int64_t inc_ms, int n,
                  const char *const *names)
{
    game g = {.n = n};
    ident *seats[RULES_MAX_PLAYERS];
    for (int i = 0; i < n; i++) {
        g.p[i] = player(names[i]);
        seats[i] = g.p[i]->s.who;
    }
    room_settings rs = {variant, base_ms, inc_ms, false, {0, 0, 0}, {NULL}};
    proto_err err = 0;
    char why[RULES_WHY_TEXT] = "";
    g.r = room_start(&rs, seats, n, NULL, NULL, &err, why, sizeof why);
    if (g.r == NULL)
        fail_msg("room_start: %d %s", err, why);
    g.id = room_id(g.r);
    assert_int_equal(rules_game_new(&g.mirror, variant, NULL, why, sizeof why), 0);
    for (int i = 0; i < n; i++) {
        json_t *st = last(g.p[i], "game_started", NULL);
        assert_non_null(st);
        assert_int_equal(int_of(st, "room"), g.id);
        assert_int_equal(int_of(st, "seat"), i);
        assert_non_null(last(g.p[i], "room", NULL));
    }
    return g;
}

static const char *const TWO[] = {"alice", "bob"};
static const char *const THREE[] = {"alice", "bob", "carol"};

/* Send a request of p in g's room through handler; its error code. The
 * store makes what it queued durable at once (a leave or a result is
 * broadcast then, as a move is). */
static int send_req(game *g, fake *p,
                    int (*handler)(room *, session *, const proto_req *, char *, size_t),
                    const char *type, char *why, size_t whylen)
{
    proto_req req = req_of("{\"type\":\"%s\",\"room\":%lld}", type, (long long)g->id);
    why[0] = '\0';
    int err = handler(g->r, &p->s, &req, why, whylen);
    assert_int_equal(store_flush(W.db), 0);
    return err;
}

/* The player to move plays the first legal move of the mirror; the store
 * makes it durable at once. Returns the move event its author got. */
static json_t *play(game *g)
{
    int seat = rules_game_to_move(g->mirror);
    assert_true(seat >= 0);
    char text[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
    assert_true(g->mirror->nlegal > 0);
    assert_true(g->mirror->variant->print_move(&g->mirror->pos, g->mirror->legal[0], text,
                                               sizeof text) > 0);
    proto_req req =
        req_of("{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)g->id, text);
    int before = count(g->p[seat], "event", "move");
    int err = room_move(g->r, &g->p[seat]->s, &req, why, sizeof why);
    if (err != 0)
        fail_msg("move %s refused: %d %s", text, err, why);
    assert_int_equal(store_flush(W.db), 0); /* durable: broadcast now */
    assert_int_equal(rules_game_play_text(g->mirror, seat, text, NULL, why, sizeof why), 0);
    assert_int_equal(count(g->p[seat], "event", "move"), before + 1);
    json_t *ev = last(g->p[seat], "event", "move");
    assert_string_equal(str_of(ev, "move"), text);
    return ev;
}

static void finish(game *g)
{
    rules_game_free(g->mirror);
}

static int64_t clock_of(const json_t *ev, int seat)
{
    return json_integer_value(json_array_get(json_object_get(ev, "clocks"), (size_t)seat));
}

static bool got_left(void *arg)
{
    return last((fake *)arg, "event", "left") != NULL;
}

/* ------------------------------------------------------------------------ */
/* Clocks. */

static void test_flag_falls_on_timer(void **state)
{
    game g = start("ultima", 100, 0, 2, TWO);
    /* Clocks run once both have moved (lichess); then nobody sends
     * anything: the room's timer ends white's time. */
    play(&g);
    play(&g);
    run_until(got_left, g.p[1]);
    json_t *ev = last(g.p[1], "event", "left");
    assert_int_equal(int_of(ev, "seat"), 0);
    assert_string_equal(str_of(ev, "reason"), "timeout");
    assert_int_equal(clock_of(ev, 0), 0);
    json_t *res = json_object_get(ev, "result");
    assert_int_equal(int_of(res, "winner"), 1);
    assert_string_equal(str_of(res, "reason"), "timeout");
    /* The spectator's and the loser's view agree. */
    assert_non_null(last(g.p[0], "event", "left"));
    int64_t none[1];
    assert_int_equal(room_active_of(g.p[0]->s.who, none, 1), 0);
    finish(&g);
}

static void test_increment_added(void **state)
{
    game g = start("ultima", 60000, 2000, 2, TWO);
    /* The first moves: no clock ran, no increment; Black's clock waits
     * for his first move, White's runs once he has made it. */
    json_t *ev = play(&g);
    assert_int_equal(clock_of(ev, 0), 60000);
    assert_false(json_is_true(json_object_get(ev, "clock_running")));
    ev = play(&g);
    assert_int_equal(clock_of(ev, 1), 60000);
    assert_true(json_is_true(json_object_get(ev, "clock_running")));
    ev = play(&g);
    /* White's clock: 60 s minus the (tiny) time it took, plus 2 s. */
    assert_true(clock_of(ev, 0) > 60000 && clock_of(ev, 0) <= 62000);
    assert_int_equal(clock_of(ev, 1), 60000);
    assert_true(json_is_true(json_object_get(ev, "clock_running")));
    assert_int_equal(int_of(ev, "to_move"), 1);
    /* Black gets the same event. */
    assert_int_equal(int_of(last(g.p[1], "event", "move"), "seq"), int_of(ev, "seq"));
    ev = play(&g);
    assert_true(clock_of(ev, 1) > 60000 && clock_of(ev, 1) <= 62000);
    finish(&g);
}

static void test_move_after_flag_refused(void **state)
{
    game g = start("ultima", 30, 0, 2, TWO);
    play(&g); /* the first moves: no clock runs */
    play(&g);
    usleep(60 * 1000);
    uv_update_time(&W.loop); /* the timer has not run yet */
    char text[RULES_MOVE_TEXT], why[RULES_WHY_TEXT];
    g.mirror->variant->print_move(&g.mirror->pos, g.mirror->legal[0], text, sizeof text);
    proto_req req =
        req_of("{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)g.id, text);
    assert_int_equal(room_move(g.r, &g.p[0]->s, &req, why, sizeof why), PROTO_EGAME_OVER);
    assert_string_equal(why, "your time ran out");
    assert_int_equal(store_flush(W.db), 0); /* the leave is durable: broadcast now */
    json_t *ev = last(g.p[1], "event", "left");
    assert_non_null(ev);
    assert_string_equal(str_of(ev, "reason"), "timeout");
    assert_int_equal(count(g.p[1], "event", "move"), 2); /* the first moves only */
    /* The game is over for the other player too. */
    assert_int_equal(send_req(&g, g.p[1], room_resign, "resign", why, sizeof why),
                     PROTO_EGAME_OVER);
    finish(&g);
}

/* ------------------------------------------------------------------------ */
/* Draws. */

static void test_draw_decline_then_agree(void **state)
{
    game g = start("ultima", 0, 0, 2, TWO);
    char why[RULES_WHY_TEXT];
    play(&g);
    assert_int_equal(send_req(&g, g.p[0], room_draw_offer, "draw_offer", why, sizeof why), 0);
    json_t *ev = last(g.p[1], "event", "draw_offer");
    assert_int_equal(int_of(ev, "seat"), 0);
    assert_int_equal(json_array_size(json_object_get(ev, "offers")), 1);
    assert_int_equal(send_req(&g, g.p[1], room_draw_decline, "draw_decline", why, sizeof why), 0);
    assert_non_null(last(g.p[0], "event", "draw_declined"));
    /* The offer is gone: black's own offer does not end the game. */
    assert_int_equal(send_req(&g, g.p[1], room_draw_offer, "draw_offer", why, sizeof why), 0);
    assert_null(last(g.p[0], "event", "end"));
    /* A move withdraws the standing offers. */
    play(&g);
    assert_int_equal(send_req(&g, g.p[0], room_draw_offer, "draw_offer", why, sizeof why), 0);
    assert_null(last(g.p[0], "event", "end"));
    assert_int_equal(send_req(&g, g.p[1], room_draw_offer, "draw_offer", why, sizeof why), 0);
    ev = last(g.p[0], "event", "end");
    assert_non_null(ev);
    json_t *res = json_object_get(ev, "result");
    assert_string_equal(str_of(res, "reason"), "agreement");
    assert_string_equal(json_string_value(json_array_get(json_object_get(res, "outcomes"), 0)),
                        "draw");
    /* Over: no more moves, offers or aborts. */
    assert_int_equal(send_req(&g, g.p[0], room_draw_offer, "draw_offer", why, sizeof why),
                     PROTO_EGAME_OVER);
    finish(&g);
}

static void test_three_players_draw_needs_every_remaining_player(void **state)
{
    game g = start("yalta", 0, 0, 3, THREE);
    char why[RULES_WHY_TEXT];
    assert_int_equal(send_req(&g, g.p[0], room_resign, "resign", why, sizeof why), 0);
    rules_game_leave(g.mirror, 0, RULES_REASON_RESIGNATION);
    assert_int_equal(send_req(&g, g.p[1], room_draw_offer, "draw_offer", why, sizeof why), 0);
    assert_null(last(g.p[2], "event", "end"));
    /* The player who left has no say. */
    assert_int_equal(send_req(&g, g.p[0], room_draw_offer, "draw_offer", why, sizeof why),
                     PROTO_EGAME_OVER);
    assert_int_equal(send_req(&g, g.p[2], room_draw_offer, "draw_offer", why, sizeof why), 0);
    json_t *ev = last(g.p[0], "event", "end");
    assert_non_null(ev);
    json_t *outcomes = json_object_get(json_object_get(ev, "result"), "outcomes");
    assert_string_equal(json_string_value(json_array_get(outcomes, 0)), "loss");
    assert_string_equal(json_string_value(json_array_get(outcomes, 1)), "draw");
    assert_string_equal(json_string_value(json_array_get(outcomes, 2)), "draw");
    finish(&g);
}

/* ------------------------------------------------------------------------ */
/* Three-player leaves. */

static void test_three_players_leave_one_by_one(void **state)
{
    game g = start("yalta", 0, 0, 3, THREE);
    char why[RULES_WHY_TEXT];
    play(&g); /* seat 0 */
    /* Seat 1 is to move and resigns: the others play on, seat 2 to move. */
    assert_int_equal(send_req(&g, g.p[1], room_resign, "resign", why, sizeof why), 0);
    rules_game_leave(g.mirror, 1, RULES_REASON_RESIGNATION);
    json_t *ev = last(g.p[2], "event", "left");
    assert_int_equal(int_of(ev, "seat"), 1);
    assert_true(json_is_null(json_object_get(ev, "result")));
    assert_int_equal(int_of(ev, "to_move"), rules_game_to_move(g.mirror));
    assert_int_equal(int_of(ev, "to_move"), 2);
    /* The one who left may not move; the others do. */
    assert_int_equal(send_req(&g, g.p[1], room_abort, "abort", why, sizeof why), PROTO_EGAME_OVER);
    ev = play(&g); /* seat 2 */
    assert_int_equal(int_of(ev, "seat"), 2);
    ev = play(&g); /* seat 0: seat 1 is skipped */
    assert_int_equal(int_of(ev, "seat"), 0);
    /* Seat 2 resigns: one is left, it wins. */
    assert_int_equal(send_req(&g, g.p[2], room_resign, "resign", why, sizeof why), 0);
    ev = last(g.p[0], "event", "left");
    assert_int_equal(int_of(ev, "seat"), 2);
    json_t *res = json_object_get(ev, "result");
    assert_int_equal(int_of(res, "winner"), 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(res, "outcomes"), 0)),
                        "win");
    finish(&g);
}

/* The store refuses a move: the room takes it back to the game as it stood
 * before it (the leave in between at its place), and tells its author. */
static void test_move_not_stored_is_taken_back(void **state)
{
    game g = start("yalta", 0, 0, 3, THREE);
    char why[RULES_WHY_TEXT];
    play(&g); /* seat 0 */
    assert_int_equal(send_req(&g, g.p[1], room_resign, "resign", why, sizeof why), 0);
    rules_game_leave(g.mirror, 1, RULES_REASON_RESIGNATION);
    play(&g); /* seat 2 */
    /* The game ends in the store behind the room's back: the next move is
     * refused there. */
    rules_result res = {.over = true, .winner = -1, .reason = RULES_REASON_AGREEMENT};
    assert_int_equal(store_game_finish(W.db, g.id, &res, NULL, NULL), 0);
    assert_int_equal(store_flush(W.db), 0);
    int moves = count(g.p[1], "event", "move");
    char text[RULES_MOVE_TEXT];
    g.mirror->variant->print_move(&g.mirror->pos, g.mirror->legal[0], text, sizeof text);
    proto_req req =
        req_of("{\"type\":\"move\",\"room\":%lld,\"move\":\"%s\"}", (long long)g.id, text);
    assert_int_equal(room_move(g.r, &g.p[0]->s, &req, why, sizeof why), 0);
    assert_int_equal(store_flush(W.db), 0);
    json_t *err = last(g.p[0], "error", NULL);
    assert_non_null(err);
    assert_string_equal(str_of(err, "code"), "storage_failed");
    assert_int_equal(count(g.p[1], "event", "move"), moves);
    /* The state: two moves, seat 1 gone, seat 0 to move again. */
    fake *spec = player("spectator");
    req = req_of("{\"type\":\"join\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_join(g.r, &spec->s, &req, why, sizeof why), 0);
    json_t *st = last(spec, "room", NULL);
    assert_int_equal(json_array_size(json_object_get(st, "moves")), 2);
    assert_int_equal(int_of(st, "to_move"), 0);
    assert_string_equal(str_of(st, "status"), "playing");
    finish(&g);
}

/* The result of a resignation cannot be written (another connection holds
 * the database's write lock, past the store's retries): it was announced,
 * so the room queues it again until it is written. */
static void test_result_written_after_a_failure(void **state)
{
    game g = start("ultima", 0, 0, 2, TWO);
    assert_int_equal(store_flush(W.db), 0);
    char sql[160], why[RULES_WHY_TEXT];
    sql_conn *lock = hold_write_lock();
    /* Not send_req: its flush would fail here. */
    proto_req req = req_of("{\"type\":\"resign\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_resign(g.r, &g.p[0]->s, &req, why, sizeof why), 0);
    assert_null(last(g.p[1], "event", "left"));     /* waits for the store's answer */
    assert_true(store_flush(W.db) < 0);             /* failed, and queued again */
    assert_non_null(last(g.p[1], "event", "left")); /* sent all the same */
    assert_true(store_flush(W.db) < 0);
    assert_int_equal(sql_exec(lock, "COMMIT"), SQL_OK);
    assert_int_equal(store_flush(W.db), 0);
    snprintf(sql, sizeof sql, "SELECT finished, reason FROM games WHERE id = %lld",
             (long long)g.id);
    sql_stmt *st;
    assert_int_equal(sql_prepare(lock, sql, &st), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 1);
    assert_string_equal(sql_column_text(st, 1), "resignation");
    sql_finalize(st);
    sql_close(lock);
    finish(&g);
}

/* Three players: one resigns and the others play on, while the leave
 * cannot be written. It is queued again until it is, before the next move,
 * so that the stored game replays. */
static void test_leave_written_after_a_failure(void **state)
{
    game g = start("yalta", 0, 0, 3, THREE);
    char sql[200], why[RULES_WHY_TEXT];
    play(&g); /* seat 0 */
    sql_conn *lock = hold_write_lock();
    /* Not send_req: its flush would fail here. */
    proto_req req = req_of("{\"type\":\"resign\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_resign(g.r, &g.p[1]->s, &req, why, sizeof why), 0);
    rules_game_leave(g.mirror, 1, RULES_REASON_RESIGNATION);
    assert_true(store_flush(W.db) < 0); /* failed, and queued again */
    assert_true(store_flush(W.db) < 0);
    assert_int_equal(sql_exec(lock, "COMMIT"), SQL_OK);
    play(&g); /* seat 2, after the leave */
    snprintf(sql, sizeof sql,
             "SELECT count(*), max(after_ply), max(player) FROM leaves WHERE game = %lld",
             (long long)g.id);
    sql_stmt *st;
    assert_int_equal(sql_prepare(lock, sql, &st), SQL_OK);
    assert_int_equal(sql_step(st), SQL_ROW);
    assert_int_equal(sql_column_int(st, 0), 1);
    assert_int_equal(sql_column_int(st, 1), 1);
    assert_int_equal(sql_column_int(st, 2), 1);
    sql_finalize(st);
    sql_close(lock);
    finish(&g);
}

/* A resignation (a leave with a result) and a draw agreed are broadcast,
 * like a move, only once the store has them: a kill in between must not
 * take back a result the players saw (issue 18, the kill test). */
static void test_result_sent_once_durable(void **state)
{
    game g = start("ultima", 60000, 0, 2, TWO);
    char why[RULES_WHY_TEXT];
    play(&g);
    proto_req req = req_of("{\"type\":\"resign\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_resign(g.r, &g.p[0]->s, &req, why, sizeof why), 0);
    assert_null(last(g.p[1], "event", "left"));
    assert_int_equal(store_flush(W.db), 0);
    json_t *ev = last(g.p[1], "event", "left");
    assert_non_null(ev);
    assert_string_equal(str_of(json_object_get(ev, "result"), "reason"), "resignation");
    finish(&g);

    g = start("yalta", 0, 0, 3, THREE);
    /* Three players: a leave the others play on after waits too. */
    req = req_of("{\"type\":\"resign\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_resign(g.r, &g.p[1]->s, &req, why, sizeof why), 0);
    assert_null(last(g.p[0], "event", "left"));
    assert_int_equal(store_flush(W.db), 0);
    assert_non_null(last(g.p[0], "event", "left"));
    req = req_of("{\"type\":\"draw_offer\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_draw_offer(g.r, &g.p[0]->s, &req, why, sizeof why), 0);
    assert_int_equal(room_draw_offer(g.r, &g.p[2]->s, &req, why, sizeof why), 0);
    assert_null(last(g.p[0], "event", "end"));
    assert_int_equal(store_flush(W.db), 0);
    ev = last(g.p[0], "event", "end");
    assert_non_null(ev);
    assert_string_equal(str_of(json_object_get(ev, "result"), "reason"), "agreement");
    finish(&g);
}

/* ------------------------------------------------------------------------ */
/* Rematch. */

static void test_rematch_rotates_seats(void **state)
{
    game g = start("yalta", 60000, 0, 3, THREE);
    char why[RULES_WHY_TEXT];
    assert_int_equal(send_req(&g, g.p[0], room_rematch, "rematch", why, sizeof why),
                     PROTO_EGAME_NOT_OVER);
    /* Abort before everyone moved: over, nobody won. */
    assert_int_equal(send_req(&g, g.p[0], room_abort, "abort", why, sizeof why), 0);
    assert_string_equal(str_of(json_object_get(last(g.p[1], "event", "end"), "result"), "reason"),
                        "aborted");
    assert_int_equal(send_req(&g, g.p[0], room_rematch, "rematch", why, sizeof why), 0);
    assert_int_equal(send_req(&g, g.p[2], room_rematch, "rematch", why, sizeof why), 0);
    json_t *ev = last(g.p[1], "event", "rematch_offer");
    assert_int_equal(json_array_size(json_object_get(ev, "offers")), 2);
    assert_null(last(g.p[1], "event", "rematch"));
    int started = count(g.p[0], "game_started", NULL);
    assert_int_equal(send_req(&g, g.p[1], room_rematch, "rematch", why, sizeof why), 0);
    ev = last(g.p[0], "event", "rematch");
    assert_non_null(ev);
    int64_t next = int_of(ev, "next_room");
    assert_true(next != g.id);
    /* Seat i of the new game is seat i + 1 of the old one. */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(count(g.p[i], "game_started", NULL), started + 1);
        json_t *st = last(g.p[i], "game_started", NULL);
        assert_int_equal(int_of(st, "room"), next);
        assert_int_equal(int_of(st, "seat"), (i + 2) % 3);
    }
    int64_t rooms[4];
    assert_int_equal(room_active_of(g.p[0]->s.who, rooms, 4), 1);
    assert_int_equal(rooms[0], next);
    /* Asking again changes nothing. */
    assert_int_equal(send_req(&g, g.p[1], room_rematch, "rematch", why, sizeof why), 0);
    assert_int_equal(count(g.p[1], "game_started", NULL), started + 1);
    finish(&g);
}

/* ------------------------------------------------------------------------ */
/* Presence, watchers, chat. */

static void test_presence_from_the_identity(void **state)
{
    game g = start("ultima", 0, 0, 2, TWO);
    char why[RULES_WHY_TEXT];
    int64_t rooms[4];
    assert_int_equal(room_active_of(g.p[1]->s.who, rooms, 4), 1);
    assert_int_equal(rooms[0], g.id);
    char token[PROTO_TOKEN_MAX + 1];
    snprintf(token, sizeof token, "%s", g.p[0]->s.who->token);
    /* A second tab of alice: she is still there when the first closes. */
    fake *tab = other_tab(g.p[0]);
    fake_close(g.p[0]);
    assert_null(last(g.p[1], "event", "presence"));
    fake_close(tab);
    json_t *ev = last(g.p[1], "event", "presence");
    assert_non_null(ev);
    assert_int_equal(int_of(ev, "seat"), 0);
    assert_true(json_is_false(json_object_get(ev, "connected")));
    /* She comes back (hello: her first session again), as the dispatcher
     * does it. */
    assert_null(g.p[0]->s.who); /* both sessions let go of her */
    assert_null(tab->s.who);
    fake *back = calloc(1, sizeof *back);
    assert_non_null(back);
    back->s.lobby_index = -1;
    W.fakes[W.nfakes++] = back;
    ident *who = ident_by_token(token);
    assert_non_null(who);
    assert_true(ident_attach(who, &back->s));
    room_presence(who, true);
    ev = last(g.p[1], "event", "presence");
    assert_true(json_is_true(json_object_get(ev, "connected")));
    assert_int_equal(room_active_of(who, rooms, 4), 1);
    assert_int_equal(rooms[0], g.id);
    /* A spectator joins: it gets the state, and has no seat. */
    fake *spec = player("spectator");
    proto_req req = req_of("{\"type\":\"join\",\"room\":%lld}", (long long)g.id);
    assert_int_equal(room_join(g.r, &spec->s, &req, why, sizeof why), 0);
    json_t *st = last(spec, "room", NULL);
    assert_non_null(st);
    assert_int_equal(int_of(st, "you"), -1);
    /* Not a player. */
    assert_int_equal(send_req(&g, spec, room_resign, "resign", why, sizeof why),
                     PROTO_ENOT_A_PLAYER);
    finish(&g);
}

static void test_chat_limit(void **state)
{
    game g = start("ultima", 0, 0, 2, TWO);
    char why[RULES_WHY_TEXT];
    for (int i = 0; i < SESSION_CHAT_BURST; i++) {
        proto_req req =
            req_of("{\"type\":\"chat\",\"room\":%lld,\"text\":\"hi %d\"}", (long long)g.id, i);
        assert_int_equal(room_chat(g.r, &g.p[0]->s, &req, why, sizeof why), 0);
    }
    assert_int_equal(count(g.p[1], "event", "chat"), SESSION_CHAT_BURST);
    assert_string_equal(str_of(last(g.p[1], "event", "chat"), "name"), "alice");
    proto_req req = req_of("{\"type\":\"chat\",\"room\":%lld,\"text\":\"more\"}", (long long)g.id);
    assert_int_equal(room_chat(g.r, &g.p[0]->s, &req, why, sizeof why), PROTO_ERATE_LIMITED);
    /* Bob's own limit is his. */
    assert_int_equal(room_chat(g.r, &g.p[1]->s, &req, why, sizeof why), 0);
    finish(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_flag_falls_on_timer, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_increment_added, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_move_after_flag_refused, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_draw_decline_then_agree, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_three_players_draw_needs_every_remaining_player,
                                        world_up, world_down),
        cmocka_unit_test_setup_teardown(test_three_players_leave_one_by_one, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_result_written_after_a_failure, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_leave_written_after_a_failure, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_move_not_stored_is_taken_back, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_result_sent_once_durable, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_rematch_rotates_seats, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_presence_from_the_identity, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_chat_limit, world_up, world_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
