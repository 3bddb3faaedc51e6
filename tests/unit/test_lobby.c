/*
 * test_lobby.c - the lobby without the transport: a seek's life (created,
 * listed for watchers, joined, cancelled, the room started when full),
 * private seeks by invitation, an identity's seeks forgotten when it goes,
 * the errors a seek request can get; changes sent in batches (one
 * lobby_update per flush, a seek added and removed between two flushes
 * not sent at all); the rate of seek creations; lobby_life (the games
 * being played, sent at watch and again only when it changed).
 *
 * Linked without libwebsockets: server_fixture.h is the session sink and
 * records what each session was sent.
 */
#include "server_fixture.h"

#include "quota.h"

static int create(fake *f, const char *game, const char *extra, char *why, size_t whylen)
{
    proto_req req = req_of("{\"type\":\"seek_create\",\"game\":\"%s\"%s}", game, extra);
    why[0] = '\0';
    return lobby_seek_create(&f->s, &req, why, whylen);
}

static int64_t created(const fake *f)
{
    json_t *m = last(f, "seek_created", NULL);
    assert_non_null(m);
    return int_of(json_object_get(m, "seek"), "id");
}

static int accept_seek(fake *f, int64_t id, char *why, size_t whylen)
{
    proto_req req = req_of("{\"type\":\"seek_accept\",\"seek\":%lld}", (long long)id);
    why[0] = '\0';
    return lobby_seek_accept(&f->s, &req, why, whylen);
}

static int cancel(fake *f, int64_t id, char *why, size_t whylen)
{
    proto_req req = req_of("{\"type\":\"seek_cancel\",\"seek\":%lld}", (long long)id);
    why[0] = '\0';
    return lobby_seek_cancel(&f->s, &req, why, whylen);
}

static void watch(fake *f)
{
    char why[RULES_WHY_TEXT];
    proto_req req = req_of("{\"type\":\"lobby_watch\"}");
    assert_int_equal(lobby_watch(&f->s, &req, why, sizeof why), 0);
}

static json_t *seeks_of(const fake *f)
{
    json_t *m = last(f, "lobby", NULL);
    assert_non_null(m);
    return json_object_get(m, "seeks");
}

/* Flush the lobby: the one change of the lobby_update w got (NULL if w got
 * none). */
static json_t *upd(fake *w)
{
    int before = count(w, "lobby_update", NULL);
    lobby_flush();
    if (count(w, "lobby_update", NULL) == before)
        return NULL;
    json_t *ch = json_object_get(last(w, "lobby_update", NULL), "changes");
    assert_int_equal(json_array_size(ch), 1);
    return json_array_get(ch, 0);
}

static const char *LIVE = ",\"base_ms\":60000,\"inc_ms\":0";

/* ------------------------------------------------------------------------ */

static void test_lobby_life(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob");
    presence_came(a->s.who);
    presence_came(b->s.who);
    watch(w);
    json_t *m = last(w, "lobby_life", NULL);
    assert_non_null(m);
    assert_int_equal(int_of(m, "online"), 2);
    assert_int_equal(int_of(m, "playing"), 0);
    assert_int_equal(json_array_size(json_object_get(m, "games")), 0);
    /* A game starts: listed at the next tick, once. */
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    assert_int_equal(accept_seek(b, created(a), why, sizeof why), 0);
    json_t *started = last(a, "game_started", NULL);
    assert_non_null(started);
    presence_tick();
    assert_int_equal(count(w, "lobby_life", NULL), 2);
    m = last(w, "lobby_life", NULL);
    assert_int_equal(int_of(m, "playing"), 1);
    json_t *g = json_array_get(json_object_get(m, "games"), 0);
    assert_int_equal(int_of(g, "room"), int_of(started, "room"));
    assert_string_equal(str_of(g, "game"), "ultima");
    assert_int_equal(int_of(g, "base_ms"), 60000);
    json_t *ps = json_object_get(g, "players");
    assert_string_equal(str_of(json_array_get(ps, 0), "name"), "alice");
    assert_string_equal(str_of(json_array_get(ps, 1), "name"), "bob");
    presence_tick();
    assert_int_equal(count(w, "lobby_life", NULL), 2); /* unchanged: nothing sent */
    /* A second game comes first (newest first). */
    fake *c = player("carol"), *d = player("dave");
    assert_int_equal(create(c, "rollerball", LIVE, why, sizeof why), 0);
    assert_int_equal(accept_seek(d, created(c), why, sizeof why), 0);
    presence_tick();
    json_t *games = json_object_get(last(w, "lobby_life", NULL), "games");
    assert_int_equal(json_array_size(games), 2);
    assert_string_equal(str_of(json_array_get(games, 0), "game"), "rollerball");
    /* Unwatched: nothing more. */
    proto_req req = req_of("{\"type\":\"lobby_unwatch\"}");
    assert_int_equal(lobby_unwatch(&w->s, &req, why, sizeof why), 0);
    presence_went(a->s.who);
    presence_tick();
    assert_int_equal(count(w, "lobby_life", NULL), 3);
}

/* Node mode: the lobby's node adds the other nodes' shares, each person
 * once, and lists the newest games of all. */
static void test_lobby_life_of_every_node(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob");
    presence_came(a->s.who);
    presence_came(b->s.who);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    assert_int_equal(accept_seek(b, created(a), why, sizeof why), 0);
    int64_t here = int_of(last(a, "game_started", NULL), "room");
    char share[600];
    /* alice is also on n2 (another tab): counted once. */
    snprintf(share, sizeof share,
             "playing 4\npersons a7 g%.16s  gbeef\n"
             "{\"room\":%lld,\"game\":\"yalta\",\"players\":[]}\n"
             "{\"room\":%lld,\"game\":broken\n"
             "{\"room\":%lld,\"game\":\"rollerball\",\"players\":[]}",
             a->s.who->key, (long long)here + 10, (long long)here + 5, (long long)here + 2);
    presence_from_node("n2", share, strlen(share));
    presence_from_node("n3", "not a share", 11); /* ignored */
    watch(w);
    json_t *m = last(w, "lobby_life", NULL);
    assert_int_equal(int_of(m, "online"), 4); /* alice, bob, a7, gbeef */
    assert_int_equal(int_of(m, "playing"), 5);
    json_t *games = json_object_get(m, "games");
    assert_int_equal(json_array_size(games), 3); /* the broken one left out */
    assert_int_equal(int_of(json_array_get(games, 0), "room"), here + 10);
    assert_string_equal(str_of(json_array_get(games, 0), "game"), "yalta");
    assert_int_equal(int_of(json_array_get(games, 1), "room"), here + 2);
    assert_int_equal(int_of(json_array_get(games, 2), "room"), here);
    /* A new share of n2 replaces its last. */
    presence_from_node("n2", "playing 0\npersons", 18);
    presence_tick();
    m = last(w, "lobby_life", NULL);
    assert_int_equal(int_of(m, "online"), 2);
    assert_int_equal(int_of(m, "playing"), 1);
    assert_int_equal(json_array_size(json_object_get(m, "games")), 1);
}

static void test_create_and_list(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice");
    watch(w);
    assert_int_equal(json_array_size(seeks_of(w)), 0);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    int64_t id = created(a);
    json_t *up = upd(w);
    assert_string_equal(str_of(up, "op"), "add");
    assert_int_equal(int_of(json_object_get(up, "seek"), "id"), id);
    assert_int_equal(create(a, "yalta", LIVE, why, sizeof why), 0);
    int64_t id2 = created(a);
    assert_non_null(upd(w));
    /* A watcher coming now gets both, oldest first, and the same seq. */
    fake *w2 = player("late");
    watch(w2);
    json_t *list = seeks_of(w2);
    assert_int_equal(json_array_size(list), 2);
    assert_int_equal(int_of(json_array_get(list, 0), "id"), id);
    assert_int_equal(int_of(json_array_get(list, 1), "id"), id2);
    assert_int_equal(int_of(last(w2, "lobby", NULL), "seq"),
                     int_of(last(w, "lobby_update", NULL), "seq"));
    /* Unwatched: no more updates. */
    proto_req req = req_of("{\"type\":\"lobby_unwatch\"}");
    assert_int_equal(lobby_unwatch(&w->s, &req, why, sizeof why), 0);
    int before = count(w, "lobby_update", NULL);
    assert_int_equal(cancel(a, id, why, sizeof why), 0);
    assert_string_equal(str_of(upd(w2), "op"), "remove");
    assert_int_equal(count(w, "lobby_update", NULL), before);
}

static void test_three_player_seek_starts_the_room_when_full(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob"), *c = player("carol");
    watch(w);
    assert_int_equal(create(a, "yalta", LIVE, why, sizeof why), 0);
    int64_t id = created(a);
    assert_string_equal(str_of(upd(w), "op"), "add");
    assert_int_equal(accept_seek(b, id, why, sizeof why), 0);
    json_t *joined = last(b, "seek_joined", NULL);
    assert_non_null(joined);
    assert_int_equal(json_array_size(json_object_get(json_object_get(joined, "seek"), "players")),
                     2);
    assert_string_equal(str_of(upd(w), "op"), "update");
    assert_null(last(a, "game_started", NULL));
    /* The last seat: the room starts, seats in the order taken. */
    proto_req req = req_of("{\"type\":\"seek_accept\",\"seek\":%lld,\"id\":7}", (long long)id);
    assert_int_equal(lobby_seek_accept(&c->s, &req, why, sizeof why), 0);
    assert_string_equal(str_of(upd(w), "op"), "remove");
    fake *seated[] = {a, b, c};
    int64_t rid = -1;
    for (int i = 0; i < 3; i++) {
        json_t *st = last(seated[i], "game_started", NULL);
        assert_non_null(st);
        assert_int_equal(int_of(st, "seat"), i);
        assert_string_equal(str_of(st, "game"), "yalta");
        if (rid < 0)
            rid = int_of(st, "room");
        assert_int_equal(int_of(st, "room"), rid);
        assert_int_equal(int_of(last(seated[i], "room", NULL), "you"), i);
    }
    /* Carol's request is echoed in her game_started only. */
    assert_int_equal(int_of(last(c, "game_started", NULL), "re"), 7);
    assert_null(json_object_get(last(a, "game_started", NULL), "re"));
    assert_non_null(room_find(rid));
    /* The seek is gone. */
    assert_int_equal(accept_seek(w, id, why, sizeof why), PROTO_EUNKNOWN_SEEK);
}

static void test_cancel(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob");
    watch(w);
    assert_int_equal(create(a, "yalta", LIVE, why, sizeof why), 0);
    int64_t id = created(a);
    assert_int_equal(accept_seek(b, id, why, sizeof why), 0);
    /* A joined player leaves the seek; it stays open. */
    assert_int_equal(cancel(b, id, why, sizeof why), 0);
    assert_int_equal(int_of(last(b, "seek_cancelled", NULL), "seek"), id);
    /* Created, joined, left in one tick: one "add" with the seek as it is. */
    json_t *up = upd(w);
    assert_string_equal(str_of(up, "op"), "add");
    assert_int_equal(json_array_size(json_object_get(json_object_get(up, "seek"), "players")), 1);
    /* Not seated any more: nothing to cancel. */
    assert_int_equal(cancel(b, id, why, sizeof why), PROTO_EUNKNOWN_SEEK);
    char expected[64];
    snprintf(expected, sizeof expected, "you sit in no open seek %lld", (long long)id);
    assert_string_equal(why, expected);
    /* Its creator cancels it: gone. */
    assert_int_equal(cancel(a, id, why, sizeof why), 0);
    up = upd(w);
    assert_string_equal(str_of(up, "op"), "remove");
    assert_int_equal(int_of(json_object_get(up, "seek"), "id"), id);
    assert_int_equal(accept_seek(b, id, why, sizeof why), PROTO_EUNKNOWN_SEEK);
}

static void test_forget_an_identity_that_goes(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *c = player("carol");
    watch(w);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    int64_t mine = created(a);
    assert_int_equal(create(c, "yalta", LIVE, why, sizeof why), 0);
    int64_t hers = created(c);
    assert_int_equal(accept_seek(a, hers, why, sizeof why), 0);
    /* A second tab keeps alice here. */
    fake *tab = other_tab(a);
    fake_close(a);
    watch(w);
    assert_int_equal(json_array_size(seeks_of(w)), 2);
    /* Her last session goes: her seek goes, she leaves carol's. */
    fake_close(tab);
    watch(w);
    json_t *list = seeks_of(w);
    assert_int_equal(json_array_size(list), 1);
    assert_int_equal(int_of(json_array_get(list, 0), "id"), hers);
    assert_int_equal(json_array_size(json_object_get(json_array_get(list, 0), "players")), 1);
    assert_int_equal(accept_seek(c, mine, why, sizeof why), PROTO_EUNKNOWN_SEEK);
}

static void test_private_seek_by_invite(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob");
    watch(w);
    assert_int_equal(
        create(a, "ultima", ",\"base_ms\":0,\"inc_ms\":0,\"private\":true", why, sizeof why), 0);
    json_t *m = last(a, "seek_created", NULL);
    const char *invite = str_of(m, "invite");
    int64_t id = int_of(json_object_get(m, "seek"), "id");
    /* Not listed, not taken by id. */
    assert_null(upd(w));
    assert_int_equal(accept_seek(b, id, why, sizeof why), PROTO_EUNKNOWN_SEEK);
    proto_req req = req_of("{\"type\":\"seek_accept\",\"invite\":\"nope\"}");
    assert_int_equal(lobby_seek_accept(&b->s, &req, why, sizeof why), PROTO_EUNKNOWN_SEEK);
    req = req_of("{\"type\":\"seek_accept\",\"invite\":\"%s\"}", invite);
    assert_int_equal(lobby_seek_accept(&b->s, &req, why, sizeof why), 0);
    assert_int_equal(int_of(last(b, "game_started", NULL), "seat"), 1);
    assert_null(upd(w));
}

static void test_seek_errors(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *a = player("alice");
    assert_int_equal(create(a, "chess", LIVE, why, sizeof why), PROTO_EUNKNOWN_GAME);
    assert_int_equal(create(a, "ultima", "", why, sizeof why), PROTO_EBAD_MESSAGE);
    assert_int_equal(create(a, "ultima", ",\"base_ms\":0,\"inc_ms\":5", why, sizeof why),
                     PROTO_EBAD_TIME_CONTROL);
    assert_int_equal(
        create(a, "ultima", ",\"base_ms\":60000,\"inc_ms\":0,\"rated\":true", why, sizeof why),
        PROTO_EACCOUNT_REQUIRED);
    assert_int_equal(create(a, "ultima", ",\"corr\":{\"days\":3}", why, sizeof why),
                     PROTO_EACCOUNT_REQUIRED);
    for (int i = 0; i < LOBBY_SEEKS_PER_IDENT; i++)
        assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), PROTO_ETOO_MANY_SEEKS);
    int64_t id = created(a);
    assert_int_equal(accept_seek(a, id, why, sizeof why), PROTO_EOWN_SEEK);
    proto_req req = req_of("{\"type\":\"seek_accept\"}");
    assert_int_equal(lobby_seek_accept(&a->s, &req, why, sizeof why), PROTO_EBAD_MESSAGE);
    /* A cancelled seek frees a place. */
    assert_int_equal(cancel(a, id, why, sizeof why), 0);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
}

/* Many changes between two flushes: one lobby_update, one change per
 * seek; a seek created and cancelled in between is not sent, unless a
 * watcher saw it in its list meanwhile. */
static void test_batches(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *w = player("watcher"), *a = player("alice"), *b = player("bob");
    watch(w);
    uint64_t seq0 = (uint64_t)int_of(last(w, "lobby", NULL), "seq");
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    int64_t kept = created(a);
    lobby_flush();
    assert_int_equal(count(w, "lobby_update", NULL), 1);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(create(b, "yalta", LIVE, why, sizeof why), 0);
        assert_int_equal(cancel(b, created(b), why, sizeof why), 0);
    }
    assert_int_equal(cancel(a, kept, why, sizeof why), 0);
    assert_int_equal(count(w, "lobby_update", NULL), 1); /* nothing before the flush */
    lobby_flush();
    assert_int_equal(count(w, "lobby_update", NULL), 2);
    json_t *up = last(w, "lobby_update", NULL);
    assert_int_equal(int_of(up, "seq"), (json_int_t)seq0 + 2); /* +1 a batch */
    json_t *ch = json_object_get(up, "changes");
    assert_int_equal(json_array_size(ch), 1);
    assert_string_equal(str_of(json_array_get(ch, 0), "op"), "remove");
    assert_int_equal(int_of(json_object_get(json_array_get(ch, 0), "seek"), "id"), kept);
    /* Nothing changed: no message. */
    lobby_flush();
    assert_int_equal(count(w, "lobby_update", NULL), 2);
    /* A seek a late watcher saw in its list is removed even if it was
     * created since the last flush. */
    assert_int_equal(create(b, "yalta", LIVE, why, sizeof why), 0);
    int64_t seen = created(b);
    fake *late = player("late");
    watch(late);
    assert_int_equal(json_array_size(seeks_of(late)), 1);
    assert_int_equal(cancel(b, seen, why, sizeof why), 0);
    up = upd(late);
    assert_string_equal(str_of(up, "op"), "remove");
    assert_int_equal(int_of(json_object_get(up, "seek"), "id"), seen);
    /* The flush timer sends them without being asked. */
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    int before = count(w, "lobby_update", NULL);
    for (int i = 0; i < 100 && count(w, "lobby_update", NULL) == before; i++)
        uv_run(&W.loop, UV_RUN_ONCE);
    assert_int_equal(count(w, "lobby_update", NULL), before + 1);
}

/* An identity creates LOBBY_SEEKS_PER_MINUTE seeks at once, then no more
 * (too_many_seeks, saying so) until time passes. */
static void test_seek_rate(void **state)
{
    char why[RULES_WHY_TEXT];
    fake *a = player("alice"), *b = player("bob");
    for (int i = 0; i < LOBBY_SEEKS_PER_MINUTE; i++) {
        assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
        assert_int_equal(cancel(a, created(a), why, sizeof why), 0);
    }
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), PROTO_ETOO_MANY_SEEKS);
    assert_non_null(strstr(why, "a minute"));
    /* Another identity is not held back. */
    assert_int_equal(create(b, "ultima", LIVE, why, sizeof why), 0);
}

/* A player logged in as account `id` (correspondence needs one). */
static fake *account_player(int64_t id, const char *name)
{
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->s.lobby_index = -1;
    ident *who = ident_account(id, name);
    assert_non_null(who);
    ident_attach(who, &f->s);
    W.fakes[W.nfakes++] = f;
    return f;
}

static const char *CORR = ",\"corr\":{\"days\":3}";

/* Games in progress per identity, live and correspondence apart; a seat in
 * an open seek counts, and is given back when the seek goes, becomes a game
 * or its player leaves it. */
static void test_game_caps(void **state)
{
    char why[RULES_WHY_TEXT];
    quota_limits caps = {.live_per_ident = 2, .corr_per_ident = 3};
    quota_init(&caps);
    fake *a = account_player(1, "alice"), *b = account_player(2, "bob");
    for (int i = 0; i < 3; i++)
        assert_int_equal(create(a, "ultima", CORR, why, sizeof why), 0);
    assert_int_equal(create(a, "ultima", CORR, why, sizeof why), PROTO_ETOO_MANY_GAMES);
    assert_non_null(strstr(why, "3 correspondence games"));
    /* The live cap is apart. */
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    int64_t live = created(a);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), 0);
    assert_int_equal(create(a, "ultima", LIVE, why, sizeof why), PROTO_ETOO_MANY_GAMES);
    assert_int_equal(a->s.who->ngames[0], 2);
    assert_int_equal(a->s.who->ngames[1], 3);
    /* A seek that becomes a game still counts once; the acceptor's too. */
    assert_int_equal(accept_seek(b, live, why, sizeof why), 0);
    assert_non_null(last(b, "game_started", NULL));
    assert_int_equal(a->s.who->ngames[0], 2);
    assert_int_equal(b->s.who->ngames[0], 1);
    /* The accept past the cap is refused; the seek stays. */
    fake *c = account_player(3, "carol");
    assert_int_equal(create(c, "ultima", LIVE, why, sizeof why), 0);
    int64_t cs = created(c);
    assert_int_equal(accept_seek(a, cs, why, sizeof why), PROTO_ETOO_MANY_GAMES);
    assert_int_equal(accept_seek(b, cs, why, sizeof why), 0);
    assert_int_equal(b->s.who->ngames[0], 2);
    /* The creator goes: its seeks go and give their seats back. */
    fake_close(a);
    assert_null(a->s.who);
    ident *alice = ident_find_account(1);
    assert_int_equal(alice->ngames[1], 0);
    assert_int_equal(alice->ngames[0], 1); /* the game with bob goes on */
    quota_init(&(quota_limits){0});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_list, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_lobby_life_of_every_node, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_lobby_life, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_three_player_seek_starts_the_room_when_full, world_up,
                                        world_down),
        cmocka_unit_test_setup_teardown(test_cancel, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_forget_an_identity_that_goes, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_private_seek_by_invite, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_seek_errors, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_batches, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_seek_rate, world_up, world_down),
        cmocka_unit_test_setup_teardown(test_game_caps, world_up, world_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
