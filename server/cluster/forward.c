/*
 * forward.c - node mode: requests to the node that holds their room or
 * the lobby, answers and events back (see forward.h).
 *
 * Every message between nodes is one or more relay payloads
 * (nodemsg.h): "K NODE BOOT SERIAL PART PARTS" and a part of the body.
 * K: Q a request (body: "FLAGS ACCOUNT TOKEN NAME\n" and the client's
 * message), E what remote sessions were sent (fanout.h: the serials of
 * the sessions, one line, and the bytes for their clients), C the
 * client's session closed (no body), L a take-over (on chameleon_leases;
 * SERIAL is the game), T an account's turns changed and V its vacation
 * (on chameleon_accounts; SERIAL is the account), P a node's share of the
 * lobby's life (to the lobby's node; presence.c writes and reads the
 * body), S and R a game to start on another node and its answer, J a join
 * to make for a client (place.c; SERIAL is the lobby node's ticket, or for
 * J the client's session). In Q, E and C, NODE and BOOT name the client's
 * node and that node's process (its start, so that a node started again
 * never meets the remote sessions of its last life), and in Q and C
 * SERIAL names the session there; in the others NODE names the sender.
 */
#include "forward.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "fanout.h"
#include "ident.h"
#include "log.h"
#include "counters.h"
#include "nodemsg.h"
#include "relay.h"
#include "store.h"

enum {
    NODE_MAX = NODEMSG_NODE_MAX,
    CHANNEL_MAX = NODEMSG_CHANNEL_MAX,
    PAIRS_MAX = 256,  /* rooms (and the lobby) one session forwarded to */
    SENDERS_MAX = 64, /* nodes sending this one events and shares at once */
    OWNERS_MAX = 100000,
    /* A room nobody holds yet may be one just created on another node
     * whose creation has not committed (its game_started overtook it):
     * asked again this often, this many times, before it is unknown. */
    HOLDER_RETRY_MS = 100,
    HOLDER_TRIES = 5,
};

#define LEASES_CHANNEL "chameleon_leases"
#define ACCOUNTS_CHANNEL "chameleon_accounts"
#define LOBBY_GAME 0 /* the lobby's place in a session's pairs */

/* Forwarded by a local session: to `node`, for room `game` (or the
 * lobby). */
typedef struct fwd_pair {
    int64_t game;
    char node[NODE_MAX + 1];
} fwd_pair;

typedef struct forward_link {
    uint64_t serial; /* the hash key */
    session *s;
    fwd_pair *pairs;
    size_t npairs;
    UT_hash_handle hh;
} forward_link;

typedef struct forward_remote {
    char key[NODE_MAX + 48]; /* "NODE BOOT SERIAL": the hash key */
    char node[NODE_MAX + 1];
    char boot[24];
    uint64_t serial;
    session *s;
    nodemsg_parts in; /* Q parts */
    UT_hash_handle hh;
} forward_remote;

/* A request waiting to learn which node holds its room. */
typedef struct waiting {
    struct waiting *next;
    session *s;
    proto_req req; /* type and id only, for an error reply */
    size_t len;
    char buf[];
} waiting;

/* Who holds a room asked for here. */
typedef struct owner {
    int64_t game;
    char node[NODE_MAX + 1];
    bool known, asking;
    int tries;                /* reads that found no holder */
    struct owner *retry_next; /* in the retry list (asking meanwhile) */
    waiting *head, *tail;
    UT_hash_handle hh;
} owner;

static uv_loop_t *loop;
static store *db;
static relay *rl;
static forward_hooks hooks;
static bool on;
static char me[NODE_MAX + 1], boot[24];
static char lobby_node[NODE_MAX + 1]; /* "": not known yet (served here) */
static int64_t lobby_since;           /* when its process started */
static uv_timer_t lobby_timer, retry_timer;
static owner *retries; /* owners to ask again at the next retry tick */
static bool lobby_asking;
static forward_link *links;
static forward_remote *remotes;
static owner *owners;
/* E and P messages under way in parts, one per sending relay (known by
 * its session's pid: one relay's payloads never interleave). */
static struct {
    int pid;
    nodemsg_parts in;
} senders[SENDERS_MAX];

/* Publish body (a, alen then b, blen) on channel as kind K from this
 * node's process (nodemsg_publish): 0 or a RELAY_E* code. */
static int publish(const char *channel, char kind, uint64_t serial, const char *a, size_t alen,
                   const char *b, size_t blen)
{
    return nodemsg_publish(rl, channel, kind, me, boot, serial, a, alen, b, blen);
}

/* The same on node's own channel. */
static int publish_to(const char *node, char kind, uint64_t serial, const char *a, size_t alen,
                      const char *b, size_t blen)
{
    char channel[CHANNEL_MAX];
    nodemsg_channel(channel, node);
    return publish(channel, kind, serial, a, alen, b, blen);
}

/* ------------------------------------------------------------------------ */
/* The asking side: local sessions and what they forwarded */

static forward_link *link_of(session *s)
{
    if (s->forwarded != NULL)
        return s->forwarded;
    forward_link *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    l->serial = s->serial;
    l->s = s;
    HASH_ADD(hh, links, serial, sizeof l->serial, l);
    s->forwarded = l;
    return l;
}

static void link_note(forward_link *l, int64_t game, const char *node)
{
    for (size_t i = 0; i < l->npairs; i++)
        if (l->pairs[i].game == game) {
            snprintf(l->pairs[i].node, sizeof l->pairs[i].node, "%s", node);
            return;
        }
    if (l->npairs == PAIRS_MAX)
        return;
    fwd_pair *p = realloc(l->pairs, (l->npairs + 1) * sizeof *p);
    if (p == NULL)
        return;
    l->pairs = p;
    p[l->npairs].game = game;
    snprintf(p[l->npairs].node, sizeof p[l->npairs].node, "%s", node);
    l->npairs++;
}

/* Sessions that forwarded game (or the lobby) connect again: what they
 * watch is elsewhere now, or rebuilt by a new process of the same node
 * (which knows nothing of their remote sessions). A scan: rare (a
 * take-over, the lobby moving). */
static void links_moved(int64_t game, const char *node)
{
    forward_link *l, *tmp;
    HASH_ITER(hh, links, l, tmp)
    {
        for (size_t i = 0; i < l->npairs; i++)
            if (l->pairs[i].game == game) {
                log_kv(LOG_INFO, "forwarded room moved", "game=%lld from=%s to=%s", (long long)game,
                       l->pairs[i].node, node);
                session_reconnect(l->s, "moved to another node");
                metrics_now.forward_reconnects++;
                break;
            }
    }
}

/* Send s's message to node, for game (or the lobby). */
static void send_request(session *s, const proto_req *req, int64_t game, const char *node,
                         const char *buf, size_t len)
{
    forward_link *l = link_of(s);
    int err = RELAY_ENOMEM;
    if (l != NULL) {
        link_note(l, game, node);
        const ident *who = s->who;
        char idline[PROTO_TOKEN_MAX + PROTO_NAME_MAX + 64];
        int n = snprintf(idline, sizeof idline, "%u %lld %s %s\n", s->flags & SESSION_BOARD,
                         (long long)who->account,
                         who->account == 0 && who->token[0] ? who->token : "-", who->name);
        err = publish_to(node, 'Q', s->serial, idline, (size_t)n, buf, len);
        if (err == 0)
            metrics_now.forward_sent++;
    }
    if (err < 0) {
        char why[RULES_WHY_TEXT];
        rules_why(why, sizeof why, "cannot reach the node of this room: %s", relay_err_text(err));
        session_send_error(s, req, true, PROTO_EINTERNAL, why);
    }
}

/* The parts of sender_pid's message under way, or NULL (a part that does
 * not begin one, with no room left: lost). */
static nodemsg_parts *parts_of(int sender_pid, int part)
{
    int idle = -1;
    for (int i = 0; i < SENDERS_MAX; i++) {
        if (senders[i].pid == sender_pid)
            return &senders[i].in;
        if (idle < 0 && senders[i].in.next == 0)
            idle = i;
    }
    if (idle < 0 || part != 1) {
        metrics_now.forward_lost++;
        return NULL;
    }
    senders[idle].pid = sender_pid;
    return &senders[idle].in;
}

/* h's part of sender_pid's message: the whole message once its last part
 * is in, else NULL. */
static nodemsg_parts *whole(int sender_pid, const nodemsg_head *h, const char *p, size_t n)
{
    nodemsg_parts *in = parts_of(sender_pid, h->part);
    return in != NULL && nodemsg_take(in, h->part, h->parts, p, n) ? in : NULL;
}

/* An E message: its bytes go to the clients of the sessions it names. */
static void on_event(const char *body, size_t len)
{
    const char *nl = memchr(body, '\n', len);
    if (nl == NULL)
        return;
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_out_append(&o, nl + 1, len - (size_t)(nl + 1 - body));
    net_msg *m = net_msg_from(&o);
    if (m == NULL)
        return;
    for (const char *p = body; p < nl;) {
        char *end;
        uint64_t serial = strtoull(p, &end, 10);
        if (end == p)
            break;
        p = end + (*end == ' ');
        forward_link *l = NULL;
        HASH_FIND(hh, links, &serial, sizeof serial, l);
        if (l != NULL) {
            session_send(l->s, m);
            metrics_now.forward_delivered++;
        }
    }
    net_msg_unref(m);
}

void forward_closed(session *s)
{
    forward_link *l = s->forwarded;
    if (l == NULL)
        return;
    /* Each node once. */
    for (size_t i = 0; i < l->npairs; i++) {
        bool told = false;
        for (size_t j = 0; j < i && !told; j++)
            told = strcmp(l->pairs[j].node, l->pairs[i].node) == 0;
        if (told)
            continue;
        publish_to(l->pairs[i].node, 'C', l->serial, "", 0, NULL, 0);
    }
    HASH_DEL(links, l);
    s->forwarded = NULL;
    free(l->pairs);
    free(l);
}

/* ------------------------------------------------------------------------ */
/* Who holds a room */

static void answer_unknown(session *s, const proto_req *req, const char *why_more)
{
    char why[RULES_WHY_TEXT];
    rules_why(why, sizeof why, "no room %lld%s", (long long)req->room, why_more);
    session_send_error(s, req, true, PROTO_EUNKNOWN_ROOM, why);
}

static void on_holder(void *arg, int status, const char *node);

static void ask_holder(owner *o)
{
    o->asking = true;
    int err = store_lease_holder(db, o->game, on_holder, o);
    if (err < 0)
        on_holder(o, err, NULL);
}

static void on_retry_tick(uv_timer_t *t)
{
    owner *o = retries;
    retries = NULL;
    uv_timer_stop(t);
    while (o != NULL) {
        owner *next = o->retry_next;
        o->retry_next = NULL;
        ask_holder(o);
        o = next;
    }
}

static void on_holder(void *arg, int status, const char *node)
{
    owner *o = arg;
    if (status == STORE_ENOT_FOUND && on && o->head != NULL && ++o->tries < HOLDER_TRIES) {
        o->retry_next = retries; /* still asking: later requests wait too */
        if (retries == NULL)
            uv_timer_start(&retry_timer, on_retry_tick, HOLDER_RETRY_MS, 0);
        retries = o;
        return;
    }
    o->tries = 0;
    o->asking = false;
    o->known = status == 0 && strlen(node) <= NODE_MAX;
    if (o->known)
        snprintf(o->node, sizeof o->node, "%s", node);
    if (status < 0 && status != STORE_ENOT_FOUND)
        log_kv(LOG_WARN, "cannot read a room's node", "game=%lld error=%s", (long long)o->game,
               store_err_code(status));
    waiting *w = o->head;
    o->head = o->tail = NULL;
    while (w != NULL) {
        waiting *next = w->next;
        if (session_release(w->s)) {
            if (o->known && strcmp(o->node, me) != 0)
                send_request(w->s, &w->req, o->game, o->node, w->buf, w->len);
            else
                answer_unknown(w->s, &w->req, status == STORE_EDB ? ": try again" : "");
        }
        free(w);
        w = next;
    }
    if (o->known && strcmp(o->node, me) == 0)
        o->known = false; /* not in memory here: ask again next time */
    if (!on) {
        HASH_DEL(owners, o); /* forward_stop left it for this answer */
        free(o);
    }
}

static owner *owner_of(int64_t game)
{
    owner *o = NULL;
    HASH_FIND(hh, owners, &game, sizeof game, o);
    if (o != NULL)
        return o;
    if (HASH_COUNT(owners) >= OWNERS_MAX) {
        /* Forget those not being asked: they are read again if needed. */
        owner *t, *tmp;
        HASH_ITER(hh, owners, t, tmp)
        {
            if (!t->asking) {
                HASH_DEL(owners, t);
                free(t);
            }
        }
    }
    if ((o = calloc(1, sizeof *o)) == NULL)
        return NULL;
    o->game = game;
    HASH_ADD(hh, owners, game, sizeof o->game, o);
    return o;
}

bool forward_room(session *s, const proto_req *req, const char *buf, size_t len)
{
    if (!on)
        return false;
    owner *o = owner_of(req->room);
    if (o == NULL) {
        session_send_error(s, req, true, PROTO_EINTERNAL, "out of memory");
        return true;
    }
    if (o->known && !o->asking) {
        if (strcmp(o->node, me) != 0) {
            send_request(s, req, o->game, o->node, buf, len);
            return true;
        }
        o->known = false;
    }
    waiting *w = malloc(sizeof *w + len);
    if (w == NULL) {
        session_send_error(s, req, true, PROTO_EINTERNAL, "out of memory");
        return true;
    }
    w->next = NULL;
    w->s = s;
    w->req =
        (proto_req){.type = req->type, .has_id = req->has_id, .id = req->id, .room = req->room};
    w->len = len;
    memcpy(w->buf, buf, len);
    session_hold(s);
    if (o->tail)
        o->tail->next = w;
    else
        o->head = w;
    o->tail = w;
    if (!o->asking)
        ask_holder(o);
    return true;
}

bool forward_lobby(session *s, const proto_req *req, const char *buf, size_t len)
{
    if (!on || lobby_node[0] == '\0' || strcmp(lobby_node, me) == 0)
        return false;
    send_request(s, req, LOBBY_GAME, lobby_node, buf, len);
    return true;
}

const char *forward_client_node(const session *s)
{
    return s->remote != NULL ? ((const forward_remote *)s->remote)->node : NULL;
}

uint64_t forward_client_serial(const session *s)
{
    return s->remote != NULL ? ((const forward_remote *)s->remote)->serial : s->serial;
}

session *forward_local_session(uint64_t serial)
{
    forward_link *l = NULL;
    HASH_FIND(hh, links, &serial, sizeof serial, l);
    return l != NULL ? l->s : NULL;
}

int forward_send(const char *node, char kind, uint64_t serial, const char *body, size_t len)
{
    if (!on)
        return RELAY_EINVAL;
    fanout_flush(); /* what remote sessions were sent before goes first */
    return publish_to(node, kind, serial, body, len, NULL, 0);
}

bool forward_presence(const char *body, size_t len)
{
    if (!on || lobby_node[0] == '\0' || strcmp(lobby_node, me) == 0)
        return false;
    publish_to(lobby_node, 'P', 0, body, len, NULL, 0);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The owning side: remote sessions */

/* What a remote session is sent goes back to its client's node. */
static void remote_sink(session *s, const char *bytes, size_t len)
{
    forward_remote *r = s->remote;
    fanout_send(r->node, r->boot, r->serial, bytes, len);
}

static void remote_end(forward_remote *r)
{
    HASH_DEL(remotes, r);
    session *s = r->s;
    hooks.gone(s); /* closes s: its sink is cut */
    metrics_now.remote_sessions--;
    free(r->in.buf);
    free(r);
}

/* A node's new process: the remote sessions of its earlier ones go. */
static void node_restarted(const char *node, const char *bootid)
{
    forward_remote *r, *tmp;
    HASH_ITER(hh, remotes, r, tmp)
    {
        if (strcmp(r->node, node) == 0 && strcmp(r->boot, bootid) != 0)
            remote_end(r);
    }
}

/* The remote session of (node, bootid, serial), or NULL; key gets its
 * hash key. */
static forward_remote *remote_find(const char *node, const char *bootid, uint64_t serial, char *key,
                                   size_t keylen)
{
    snprintf(key, keylen, "%s %s %llu", node, bootid, (unsigned long long)serial);
    forward_remote *r = NULL;
    HASH_FIND_STR(remotes, key, r);
    return r;
}

/* The identity of a request's first line: "FLAGS ACCOUNT TOKEN NAME". */
static ident *identity_of(const char *line, unsigned *flags)
{
    unsigned f;
    long long account;
    char token[PROTO_TOKEN_MAX + 1];
    int used = 0;
    if (sscanf(line, "%u %lld %64s %n", &f, &account, token, &used) != 3 || used == 0)
        return NULL;
    *flags = f & SESSION_BOARD;
    const char *name = line + used;
    if (account > 0)
        return ident_account(account, name);
    return strcmp(token, "-") == 0 ? NULL : ident_guest_of(token, name);
}

static void on_request(const char *node, const char *bootid, uint64_t serial, int part, int parts,
                       const char *p, size_t n)
{
    char key[sizeof((forward_remote *)0)->key];
    forward_remote *r = remote_find(node, bootid, serial, key, sizeof key);
    if (r == NULL) {
        if (part != 1)
            return;
        node_restarted(node, bootid);
        if ((r = calloc(1, sizeof *r)) == NULL)
            return;
        if ((r->s = session_new_remote(r)) == NULL) {
            free(r);
            return;
        }
        memcpy(r->key, key, sizeof r->key);
        snprintf(r->node, sizeof r->node, "%s", node);
        snprintf(r->boot, sizeof r->boot, "%s", bootid);
        r->serial = serial;
        HASH_ADD_STR(remotes, key, r);
        metrics_now.remote_sessions++;
    }
    if (!nodemsg_take(&r->in, part, parts, p, n))
        return;
    metrics_now.forward_run++;
    char *nl = memchr(r->in.buf, '\n', r->in.len);
    if (nl == NULL)
        return;
    *nl = '\0';
    if (r->s->who == NULL) {
        unsigned flags = 0;
        ident *who = identity_of(r->in.buf, &flags);
        r->s->flags |= flags;
        if (who != NULL && ident_attach(who, r->s))
            hooks.came(who);
    }
    size_t head = (size_t)(nl + 1 - r->in.buf);
    hooks.run(r->s, nl + 1, r->in.len - head);
}

static void on_closed(const char *node, const char *bootid, uint64_t serial)
{
    char key[sizeof((forward_remote *)0)->key];
    forward_remote *r = remote_find(node, bootid, serial, key, sizeof key);
    if (r != NULL)
        remote_end(r);
}

/* ------------------------------------------------------------------------ */
/* Take-overs and the lobby's node */

static void on_lease_moved(int64_t game, const char *node)
{
    owner *o = NULL;
    HASH_FIND(hh, owners, &game, sizeof game, o);
    if (o != NULL && !o->asking) {
        snprintf(o->node, sizeof o->node, "%s", node);
        o->known = true;
    }
    links_moved(game, node);
}

/* Tell every other node of a change of account (kind T or V). */
static void tell_accounts(char kind, int64_t account)
{
    if (on)
        publish(ACCOUNTS_CHANNEL, kind, (uint64_t)account, "", 0, NULL, 0);
}

void forward_turns_changed(int64_t account)
{
    tell_accounts('T', account);
}

void forward_vacation_changed(int64_t account)
{
    tell_accounts('V', account);
}

/* O: "<others 0|1> <the login's hash in hex, or ->". */
void forward_logins_ended(int64_t account, const unsigned char *login, bool others)
{
    if (!on)
        return;
    char text[2 + 64 + 1];
    text[0] = others ? '1' : '0';
    text[1] = ' ';
    if (login == NULL)
        snprintf(text + 2, sizeof text - 2, "-");
    else
        for (int i = 0; i < 32; i++)
            snprintf(text + 2 + 2 * i, 3, "%02x", login[i]);
    publish(ACCOUNTS_CHANNEL, 'O', (uint64_t)account, text, strlen(text), NULL, 0);
}

/* An O message's body: false if it is not one. */
static bool logins_ended_read(const char *p, size_t n, unsigned char login[32], bool *has_login,
                              bool *others)
{
    if (n < 3 || (p[0] != '0' && p[0] != '1') || p[1] != ' ')
        return false;
    *others = p[0] == '1';
    *has_login = !(n == 3 && p[2] == '-');
    if (!*has_login)
        return true;
    if (n != 2 + 64)
        return false;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        char hex[3] = {p[2 + 2 * i], p[3 + 2 * i], '\0'};
        if (!isxdigit((unsigned char)hex[0]) || !isxdigit((unsigned char)hex[1]) ||
            sscanf(hex, "%2x", &v) != 1)
            return false;
        login[i] = (unsigned char)v;
    }
    return true;
}

void forward_taken(int64_t game)
{
    if (!on)
        return;
    publish(LEASES_CHANNEL, 'L', (uint64_t)game, "", 0, NULL, 0);
    on_lease_moved(game, me); /* this node's sessions that asked the dead one */
}

/* The lobby's node: the first live one. */
static void lobby_holder(const char *node, int64_t since_ms)
{
    if (strlen(node) > NODE_MAX || (strcmp(node, lobby_node) == 0 && since_ms == lobby_since))
        return;
    bool was_here = lobby_node[0] == '\0' || strcmp(lobby_node, me) == 0;
    bool moved = lobby_node[0] != '\0';
    lobby_since = since_ms; /* a new process of the same node: a new lobby */
    snprintf(lobby_node, sizeof lobby_node, "%.48s", node);
    log_kv(LOG_INFO, "lobby's node", "node=%s", node);
    if (moved)
        links_moved(LOBBY_GAME, node);
    if (was_here && strcmp(node, me) != 0)
        hooks.lobby_moved();
}

/* The remote sessions of nodes no longer alive go: their clients are gone
 * (to other nodes, which made them new ones). */
static void remotes_of_dead(const store_node *nodes, int n)
{
    forward_remote *r, *tmp;
    HASH_ITER(hh, remotes, r, tmp)
    {
        bool alive = false;
        for (int i = 0; i < n && !alive; i++)
            alive = strcmp(nodes[i].name, r->node) == 0;
        if (!alive) {
            log_kv(LOG_DEBUG, "remote session of a dead node ended", "node=%s", r->node);
            remote_end(r);
        }
    }
}

static void on_live_nodes(void *arg, int status, const store_node *nodes, int n)
{
    (void)arg;
    lobby_asking = false;
    if (status < 0 || !on || n == 0)
        return; /* none: not even this one's heartbeat yet */
    lobby_holder(nodes[0].name, nodes[0].started_ms);
    remotes_of_dead(nodes, n);
}

static void on_lobby_tick(uv_timer_t *t)
{
    (void)t;
    if (lobby_asking)
        return;
    lobby_asking = true;
    if (store_live_nodes(db, on_live_nodes, NULL) < 0)
        lobby_asking = false;
}

/* ------------------------------------------------------------------------ */
/* The relay */

static void on_message(void *arg, const char *channel, const char *payload, size_t len,
                       int sender_pid)
{
    (void)arg;
    (void)channel;
    nodemsg_head h;
    int used = nodemsg_read_head(payload, &h);
    if (used < 0) {
        log_kv(LOG_WARN, "relay message not understood", "bytes=%zu", len);
        return;
    }
    const char *p = payload + used;
    size_t n = len - (size_t)used;
    bool from_me = strcmp(h.node, me) == 0 && strcmp(h.boot, boot) == 0;
    nodemsg_parts *in;
    switch (h.kind) {
    case 'Q':
        on_request(h.node, h.boot, h.serial, h.part, h.parts, p, n);
        break;
    case 'E': /* NODE and BOOT name the clients' node: this one */
        if (from_me && (in = whole(sender_pid, &h, p, n)) != NULL)
            on_event(in->buf, in->len);
        break;
    case 'C':
        on_closed(h.node, h.boot, h.serial);
        break;
    case 'T':
        if (!from_me)
            hooks.turns_changed((int64_t)h.serial);
        break;
    case 'V':
        if (!from_me)
            hooks.vacation_changed((int64_t)h.serial);
        break;
    case 'O': {
        unsigned char login[32];
        bool has_login = false, others = false;
        if (!from_me && h.parts == 1 && hooks.logins_ended != NULL &&
            logins_ended_read(p, n, login, &has_login, &others))
            hooks.logins_ended((int64_t)h.serial, has_login ? login : NULL, others);
        break;
    }
    case 'P': /* NODE names the sender */
        if (strcmp(h.node, me) != 0 && (in = whole(sender_pid, &h, p, n)) != NULL &&
            hooks.presence != NULL)
            hooks.presence(h.node, in->buf, in->len);
        break;
    case 'S': /* place.c: NODE names the sender */
    case 'R':
    case 'J':
        if (strcmp(h.node, me) != 0 && (in = whole(sender_pid, &h, p, n)) != NULL &&
            hooks.place != NULL)
            hooks.place(h.kind, h.node, h.serial, in->buf, in->len);
        break;
    case 'L':
        if (strcmp(h.node, me) != 0)
            on_lease_moved((int64_t)h.serial, h.node);
        break;
    default:
        log_kv(LOG_WARN, "relay message not understood", "kind=%c", h.kind);
    }
}

int forward_start(uv_loop_t *l, store *st, const char *pg_url, const char *node, unsigned ttl_ms,
                  const forward_hooks *h, char *why, size_t whylen)
{
    if (!relay_valid_name(node) || strlen(node) > NODE_MAX) {
        snprintf(why, whylen, "a node's name is 1..%d letters, digits and _", NODE_MAX);
        return -1;
    }
    loop = l;
    db = st;
    hooks = *h;
    snprintf(me, sizeof me, "%s", node);
    /* This process among the node's lives: its start and its pid. */
    snprintf(boot, sizeof boot, "%llx%x", (unsigned long long)uv_hrtime() / 1000000,
             (unsigned)uv_os_getpid());
    rl = relay_open(loop, pg_url, node, on_message, NULL, why, whylen);
    if (rl == NULL)
        return -1;
    char channel[CHANNEL_MAX];
    nodemsg_channel(channel, node);
    int err;
    if ((err = relay_listen(rl, channel)) < 0 || (err = relay_listen(rl, LEASES_CHANNEL)) < 0 ||
        (err = relay_listen(rl, ACCOUNTS_CHANNEL)) < 0) {
        snprintf(why, whylen, "%s", relay_err_text(err));
        relay_close(rl);
        rl = NULL;
        return -1;
    }
    session_set_remote_sink(remote_sink);
    fanout_start(loop, rl);
    uv_timer_init(loop, &lobby_timer);
    uv_timer_init(loop, &retry_timer);
    uv_timer_start(&lobby_timer, on_lobby_tick, 0, ttl_ms / 2 ? ttl_ms / 2 : 1);
    on = true;
    return 0;
}

bool forward_on(void)
{
    return on;
}

relay *forward_relay(void)
{
    return rl;
}

void forward_stop(void)
{
    if (!on)
        return;
    on = false;
    uv_timer_stop(&lobby_timer);
    uv_close((uv_handle_t *)&lobby_timer, NULL);
    /* Those waiting for a retry are answered now (unknown room). */
    uv_close((uv_handle_t *)&retry_timer, NULL);
    while (retries != NULL) {
        owner *o = retries;
        retries = o->retry_next;
        o->retry_next = NULL;
        on_holder(o, STORE_ENOT_FOUND, NULL);
    }
    forward_remote *r, *rtmp;
    HASH_ITER(hh, remotes, r, rtmp)
    remote_end(r);
    fanout_stop(); /* what they were sent last goes */
    owner *o, *otmp;
    HASH_ITER(hh, owners, o, otmp)
    {
        /* Their store answers come before the store closes: an owner
         * being asked stays until then. */
        if (!o->asking) {
            HASH_DEL(owners, o);
            free(o);
        }
    }
    for (int i = 0; i < SENDERS_MAX; i++) {
        nodemsg_parts_free(&senders[i].in);
        senders[i].pid = 0;
    }
    relay_close(rl);
    rl = NULL;
}
