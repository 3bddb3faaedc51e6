/*
 * fanout.c - one relay message per message and node (see fanout.h).
 */
#include "fanout.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "counters.h"
#include "nodemsg.h"

enum { NODES_MAX = 256 }; /* nodes with an entry in one turn, at most */

typedef struct entry {
    struct entry *next;
    char node[NODEMSG_NODE_MAX + 1];
    char boot[NODEMSG_BOOT_MAX + 1];
    char *bytes;
    size_t len;
    uint64_t *serials;
    size_t n, cap;
} entry;

static relay *rl;
static uv_prepare_t prepare;
static uv_check_t check;
static bool started;
static entry *head, *tail;
/* Each node's latest entry in this turn (a node's process: its boot). */
static entry *latest[NODES_MAX];
static int nlatest;

static void on_prepare(uv_prepare_t *h)
{
    (void)h;
    fanout_flush();
}

static void on_check(uv_check_t *h)
{
    (void)h;
    fanout_flush();
}

void fanout_start(uv_loop_t *loop, relay *r)
{
    rl = r;
    uv_prepare_init(loop, &prepare);
    uv_check_init(loop, &check);
    uv_prepare_start(&prepare, on_prepare);
    uv_check_start(&check, on_check);
    /* Neither keeps the loop alive. */
    uv_unref((uv_handle_t *)&prepare);
    uv_unref((uv_handle_t *)&check);
    started = true;
}

static bool add_serial(entry *e, uint64_t serial)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 4;
        uint64_t *s = realloc(e->serials, cap * sizeof *s);
        if (s == NULL)
            return false;
        e->serials = s;
        e->cap = cap;
    }
    e->serials[e->n++] = serial;
    return true;
}

static void lost(const char *node, size_t len)
{
    log_kv(LOG_WARN, "cannot relay an event: out of memory", "node=%s bytes=%zu", node, len);
}

void fanout_send(const char *node, const char *boot, uint64_t serial, const char *bytes, size_t len)
{
    int i = 0;
    while (i < nlatest &&
           (strcmp(latest[i]->node, node) != 0 || strcmp(latest[i]->boot, boot) != 0))
        i++;
    entry *e = i < nlatest ? latest[i] : NULL;
    if (e != NULL && e->len == len && memcmp(e->bytes, bytes, len) == 0) {
        if (!add_serial(e, serial))
            lost(node, len);
        return;
    }
    if ((e = calloc(1, sizeof *e)) == NULL || (e->bytes = malloc(len ? len : 1)) == NULL ||
        !add_serial(e, serial)) {
        if (e != NULL)
            free(e->bytes);
        free(e);
        lost(node, len);
        return;
    }
    memcpy(e->bytes, bytes, len);
    e->len = len;
    snprintf(e->node, sizeof e->node, "%s", node);
    snprintf(e->boot, sizeof e->boot, "%s", boot);
    if (tail != NULL)
        tail->next = e;
    else
        head = e;
    tail = e;
    if (i < nlatest)
        latest[i] = e;
    else if (nlatest < NODES_MAX)
        latest[nlatest++] = e;
    /* (more nodes than that: their messages go one entry each) */
}

/* "SERIAL SERIAL ...\n" of e, into a malloc'd string (NULL: out of
 * memory). */
static char *serial_line(const entry *e, size_t *len)
{
    char *line = malloc(e->n * 21 + 1);
    if (line == NULL)
        return NULL;
    size_t at = 0;
    for (size_t k = 0; k < e->n; k++)
        at += (size_t)sprintf(line + at, "%s%" PRIu64, k ? " " : "", e->serials[k]);
    line[at++] = '\n';
    *len = at;
    return line;
}

void fanout_flush(void)
{
    nlatest = 0;
    while (head != NULL) {
        entry *e = head;
        head = e->next;
        size_t n = 0;
        char *line = serial_line(e, &n);
        char channel[NODEMSG_CHANNEL_MAX];
        nodemsg_channel(channel, e->node);
        int err = line == NULL ? RELAY_ENOMEM
                               : nodemsg_publish(rl, channel, 'E', e->node, e->boot, e->n, line, n,
                                                 e->bytes, e->len);
        if (err == 0) {
            metrics_now.forward_back++;
            metrics_now.forward_copies += e->n;
        } else {
            log_kv(LOG_WARN, "cannot relay an event", "node=%s bytes=%zu error=%s", e->node, e->len,
                   relay_err_text(err));
        }
        free(line);
        free(e->bytes);
        free(e->serials);
        free(e);
    }
    tail = NULL;
}

void fanout_stop(void)
{
    if (!started)
        return;
    fanout_flush();
    uv_prepare_stop(&prepare);
    uv_check_stop(&check);
    uv_close((uv_handle_t *)&prepare, NULL);
    uv_close((uv_handle_t *)&check, NULL);
    started = false;
    rl = NULL;
}
