/*
 * presence.c - the lobby's life: counts and games to watch (see presence.h).
 *
 * A node's share (node mode) is text, a line each:
 *
 *   playing N
 *   persons KEY KEY ...
 *   {LIVE}            one line per game, newest first
 *
 * KEY is a person: "a" and an account's id, or "g" and the start of a
 * guest's seat key (the same guest on every node: ident_guest_of).
 */
#include "presence.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "array.h"
#include "ident.h"
#include "counters.h"
#include "proto.h"
#include "room.h"

enum {
    PERSON_KEY = 24, /* "a" + an id, or "g" + 16 hex digits, and a NUL */
    PEERS_MAX = 64,  /* other nodes' shares kept (forward.c's limit) */
    NODE_NAME = 64,  /* a node's name and a NUL */
    PEER_GAMES = PRESENCE_GAMES
};

/* A person with a session here. */
typedef struct person {
    char key[PERSON_KEY];
    int n; /* its identities with a session (one, unless a key repeats) */
    UT_hash_handle hh;
} person;

/* Another node's share, as it came (the lobby's node). */
typedef struct peer {
    char node[NODE_NAME];
    uint64_t at; /* uv_now when it came */
    int64_t playing;
    char *body;     /* the share, each line ended by a NUL in place */
    char **persons; /* into body */
    size_t npersons, cappersons;
    const char *games[PEER_GAMES]; /* LIVE objects, into body */
    size_t lens[PEER_GAMES];
    int64_t rooms[PEER_GAMES];
    int ngames;
} peer;

static uv_loop_t *loop;
static bool (*send_share)(const char *body, size_t len); /* node mode */
static long online;
static person *persons;
static peer peers[PEERS_MAX];
static int npeers;
static session **watchers;
static size_t nwatchers, capwatchers;
static char *last; /* the last lobby_life sent (its JSON), NULL before any */
static size_t lastlen;
static char *shared; /* the last share sent (node mode), NULL before any */
static uint64_t shared_at;
static uv_timer_t timer;
static bool timer_ready;

static void on_tick(uv_timer_t *t)
{
    (void)t;
    presence_tick();
}

void presence_init(uv_loop_t *l, unsigned tick_ms)
{
    loop = l;
    uv_timer_init(loop, &timer);
    uv_unref((uv_handle_t *)&timer);
    unsigned ms = tick_ms ? tick_ms : PRESENCE_TICK_MS;
    uv_timer_start(&timer, on_tick, ms, ms);
    timer_ready = true;
}

static uint64_t now_ms(void)
{
    return loop != NULL ? uv_now(loop) : 0;
}

static void key_of(const struct ident *who, char *out)
{
    if (who->account != 0)
        snprintf(out, PERSON_KEY, "a%" PRId64, who->account);
    else if (who->key[0] != '\0')
        snprintf(out, PERSON_KEY, "g%.16s", who->key);
    else
        snprintf(out, PERSON_KEY, "i%" PRId64, who->id); /* this node only */
}

void presence_came(const struct ident *who)
{
    metrics_now.online = ++online;
    char key[PERSON_KEY];
    key_of(who, key);
    person *p = NULL;
    HASH_FIND_STR(persons, key, p);
    if (p == NULL) {
        if ((p = calloc(1, sizeof *p)) == NULL)
            return; /* out of memory: not in this node's share */
        memcpy(p->key, key, sizeof key);
        HASH_ADD_STR(persons, key, p);
    }
    p->n++;
}

void presence_went(const struct ident *who)
{
    if (online > 0)
        online--;
    metrics_now.online = online;
    char key[PERSON_KEY];
    key_of(who, key);
    person *p = NULL;
    HASH_FIND_STR(persons, key, p);
    if (p != NULL && --p->n <= 0) {
        HASH_DEL(persons, p);
        free(p);
    }
}

long presence_online(void)
{
    return online;
}

/* ------------------------------------------------------------------------ */
/* Other nodes' shares (the lobby's node) */

static void peer_free(peer *p)
{
    free(p->body);
    free(p->persons);
    memset(p, 0, sizeof *p);
}

/* Read body into p (lines cut in place): false if it is not a share. */
static bool peer_parse(peer *p, char *body)
{
    p->body = body;
    char *line = body, *nl;
    int at = 0;
    for (; line != NULL && *line != '\0'; line = nl ? nl + 1 : NULL, at++) {
        if ((nl = strchr(line, '\n')) != NULL)
            *nl = '\0';
        long long v;
        if (at == 0) {
            if (sscanf(line, "playing %lld", &v) != 1 || v < 0)
                return false;
            p->playing = v;
        } else if (at == 1) {
            if (strncmp(line, "persons", 7) != 0)
                return false;
            for (char *k = line + 7; *k != '\0';) {
                *k++ = '\0'; /* the space before a key ends the last */
                char *end = strchr(k, ' ');
                if (end == k)
                    continue;
                if (array_reserve((void **)&p->persons, &p->cappersons, p->npersons + 1,
                                  sizeof *p->persons) < 0)
                    return false;
                p->persons[p->npersons++] = k;
                k = end != NULL ? end : k + strlen(k);
            }
        } else if (p->ngames < PEER_GAMES && sscanf(line, "{\"room\":%lld", &v) == 1) {
            p->games[p->ngames] = line;
            p->lens[p->ngames] = strlen(line);
            p->rooms[p->ngames++] = v;
        }
    }
    return at >= 2;
}

void presence_from_node(const char *node, const char *body, size_t len)
{
    int i = 0;
    while (i < npeers && strcmp(peers[i].node, node) != 0)
        i++;
    if (i == PEERS_MAX)
        return;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return;
    memcpy(copy, body, len);
    copy[len] = '\0';
    peer p = {.at = now_ms()};
    snprintf(p.node, sizeof p.node, "%s", node);
    if (!peer_parse(&p, copy)) {
        peer_free(&p);
        return;
    }
    if (i == npeers)
        npeers++;
    else
        peer_free(&peers[i]);
    peers[i] = p;
}

/* Shares not renewed in time go: their node is gone, or holds the lobby. */
static void peers_expire(void)
{
    uint64_t now = now_ms();
    for (int i = 0; i < npeers;) {
        if (now - peers[i].at > 3 * PRESENCE_SHARE_MS) {
            peer_free(&peers[i]);
            peers[i] = peers[--npeers];
            memset(&peers[npeers], 0, sizeof peers[npeers]);
        } else {
            i++;
        }
    }
}

/* Persons here and in every share, each counted once. */
static long online_everywhere(void)
{
    size_t n = 0;
    for (int i = 0; i < npeers; i++)
        n += peers[i].npersons;
    person *seen = NULL, *cells = calloc(n ? n : 1, sizeof *cells);
    if (cells == NULL)
        return online;
    long total = online;
    size_t used = 0;
    for (int i = 0; i < npeers; i++)
        for (size_t k = 0; k < peers[i].npersons; k++) {
            const char *key = peers[i].persons[k];
            person *p = NULL;
            HASH_FIND_STR(persons, key, p);
            if (p == NULL)
                HASH_FIND_STR(seen, key, p);
            if (p != NULL)
                continue;
            p = &cells[used++];
            snprintf(p->key, sizeof p->key, "%s", key);
            HASH_ADD_STR(seen, key, p);
            total++;
        }
    HASH_CLEAR(hh, seen);
    free(cells);
    return total;
}

typedef struct listed {
    int64_t room;
    const char *json;
    size_t len;
} listed;

static int newest_first(const void *a, const void *b)
{
    int64_t x = ((const listed *)a)->room, y = ((const listed *)b)->room;
    return (x < y) - (x > y);
}

/* lobby_life over every node: this one's games (n of them) and the
 * shares'. */
static void write_everywhere(proto_out *o, const proto_live_game *games, int n)
{
    proto_out mine;
    proto_out_init(&mine, 0);
    size_t ends[PRESENCE_GAMES];
    for (int i = 0; i < n; i++) {
        proto_put_live_game(&mine, &games[i]);
        ends[i] = mine.len;
    }
    listed all[PRESENCE_GAMES * (PEERS_MAX + 1)];
    int nall = 0;
    int64_t playing = metrics_now.games_in_progress;
    for (int i = 0; i < n && !mine.oom; i++)
        all[nall++] = (listed){games[i].room, mine.buf + (i ? ends[i - 1] : 0),
                               ends[i] - (i ? ends[i - 1] : 0)};
    for (int i = 0; i < npeers; i++) {
        playing += peers[i].playing;
        for (int k = 0; k < peers[i].ngames; k++)
            all[nall++] = (listed){peers[i].rooms[k], peers[i].games[k], peers[i].lens[k]};
    }
    qsort(all, (size_t)nall, sizeof *all, newest_first);
    const char *json[PRESENCE_GAMES];
    size_t lens[PRESENCE_GAMES];
    int nout = 0;
    for (int i = 0; i < nall && nout < PRESENCE_GAMES; i++) {
        if (i > 0 && all[i].room == all[i - 1].room)
            continue; /* one moving between nodes */
        json[nout] = all[i].json;
        lens[nout++] = all[i].len;
    }
    proto_write_lobby_life_json(o, online_everywhere(), playing, json, lens, nout);
    proto_out_free(&mine);
}

/* ------------------------------------------------------------------------ */
/* This node's share (node mode, the lobby elsewhere) */

void presence_share_with(bool (*send)(const char *body, size_t len))
{
    send_share = send;
}

static void share(void)
{
    if (send_share == NULL)
        return;
    proto_live_game games[PRESENCE_GAMES];
    int n = room_playing(games, PRESENCE_GAMES);
    proto_out o;
    proto_out_init(&o, 0);
    char line[64];
    proto_out_append(&o, line,
                     (size_t)snprintf(line, sizeof line, "playing %" PRId64 "\npersons",
                                      metrics_now.games_in_progress));
    for (person *p = persons; p != NULL; p = p->hh.next) {
        proto_out_append(&o, " ", 1);
        proto_out_append(&o, p->key, strlen(p->key));
    }
    for (int i = 0; i < n; i++) {
        proto_out_append(&o, "\n", 1);
        proto_put_live_game(&o, &games[i]);
    }
    uint64_t now = now_ms();
    if (o.oom ||
        (shared != NULL && strcmp(shared, o.buf) == 0 && now - shared_at < PRESENCE_SHARE_MS)) {
        proto_out_free(&o);
        return;
    }
    if (!send_share(o.buf, o.len)) {
        proto_out_free(&o); /* the lobby is here */
        free(shared);
        shared = NULL;
        return;
    }
    free(shared);
    shared = o.buf; /* proto_out's buffer, headroom 0: the string itself */
    shared_at = now;
}

/* ------------------------------------------------------------------------ */
/* The lobby's watchers */

/* The lobby_life of now, written into o. */
static void write_now(proto_out *o)
{
    proto_live_game games[PRESENCE_GAMES];
    int n = room_playing(games, PRESENCE_GAMES);
    proto_out_init(o, NET_HEADROOM);
    peers_expire();
    if (npeers > 0)
        write_everywhere(o, games, n);
    else
        proto_write_lobby_life(o, online, metrics_now.games_in_progress, games, n);
}

void presence_watch(session *s)
{
    for (size_t i = 0; i < nwatchers; i++)
        if (watchers[i] == s)
            goto send;
    if (array_reserve((void **)&watchers, &capwatchers, nwatchers + 1, sizeof *watchers) < 0)
        return; /* out of memory: no lobby_life for s */
    watchers[nwatchers++] = s;
send:;
    proto_out o;
    write_now(&o);
    session_send_out(s, &o);
}

void presence_unwatch(session *s)
{
    for (size_t i = 0; i < nwatchers; i++)
        if (watchers[i] == s) {
            watchers[i] = watchers[--nwatchers];
            return;
        }
}

void presence_tick(void)
{
    share();
    if (nwatchers == 0)
        return;
    proto_out o;
    write_now(&o);
    if (o.oom) {
        proto_out_free(&o);
        return;
    }
    const char *data = proto_out_data(&o);
    if (last != NULL && lastlen == o.len && memcmp(last, data, o.len) == 0) {
        proto_out_free(&o);
        return;
    }
    char *copy = malloc(o.len);
    if (copy != NULL)
        memcpy(copy, data, o.len);
    free(last);
    last = copy;
    lastlen = copy ? o.len : 0;
    net_msg *m = net_msg_from(&o);
    if (m == NULL)
        return;
    for (size_t i = 0; i < nwatchers; i++)
        session_send(watchers[i], m);
    net_msg_unref(m);
}

void presence_shutdown(void)
{
    if (timer_ready) {
        uv_timer_stop(&timer);
        uv_close((uv_handle_t *)&timer, NULL);
        timer_ready = false;
    }
    free(watchers);
    watchers = NULL;
    nwatchers = capwatchers = 0;
    free(last);
    last = NULL;
    free(shared);
    shared = NULL;
    for (int i = 0; i < npeers; i++)
        peer_free(&peers[i]);
    npeers = 0;
    person *p, *tmp;
    HASH_ITER(hh, persons, p, tmp)
    {
        HASH_DEL(persons, p);
        free(p);
    }
    online = 0;
}
