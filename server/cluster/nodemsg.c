/*
 * nodemsg.c - messages between nodes, in parts (see nodemsg.h).
 */
#include "nodemsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

void nodemsg_channel(char *out, const char *node)
{
    snprintf(out, NODEMSG_CHANNEL_MAX, "chameleon_node_%s", node);
}

int nodemsg_publish(relay *rl, const char *channel, char kind, const char *node, const char *boot,
                    uint64_t serial, const char *a, size_t alen, const char *b, size_t blen)
{
    if (rl == NULL)
        return RELAY_EINVAL; /* stopped */
    size_t total = alen + blen;
    char *body = malloc(total + 1);
    if (body == NULL)
        return RELAY_ENOMEM;
    memcpy(body, a, alen);
    if (blen > 0)
        memcpy(body + alen, b, blen);
    /* Count the parts first: the header says how many. */
    size_t cuts[NODEMSG_BODY_MAX / (NODEMSG_PART_MAX / 2) + 2];
    int parts = 0;
    size_t at = 0;
    do {
        size_t end = total - at > NODEMSG_PART_MAX ? at + NODEMSG_PART_MAX : total;
        while (end < total && end > at && ((unsigned char)body[end] & 0xC0) == 0x80)
            end--;
        cuts[parts++] = end;
        at = end;
    } while (at < total && parts < (int)(sizeof cuts / sizeof *cuts) - 1);
    int err = at < total ? RELAY_ETOO_LARGE : 0;
    char payload[RELAY_PAYLOAD_MAX + 1];
    at = 0;
    for (int i = 0; err == 0 && i < parts; i++) {
        int h = snprintf(payload, sizeof payload, "%c %s %s %llu %d %d\n", kind, node, boot,
                         (unsigned long long)serial, i + 1, parts);
        size_t n = cuts[i] - at;
        memcpy(payload + h, body + at, n);
        err = relay_publish(rl, channel, payload, (size_t)h + n);
        at = cuts[i];
    }
    free(body);
    return err;
}

int nodemsg_read_head(const char *payload, nodemsg_head *h)
{
    unsigned long long serial;
    int used = 0;
    if (sscanf(payload, "%c %48s %23s %llu %d %d\n%n", &h->kind, h->node, h->boot, &serial,
               &h->part, &h->parts, &used) != 6 ||
        used == 0 || h->part < 1 || h->part > h->parts)
        return -1;
    h->serial = serial;
    return used;
}

bool nodemsg_take(nodemsg_parts *r, int part, int parts, const char *p, size_t n)
{
    if (part == 1)
        r->len = 0;
    else if (part != r->next) {
        r->next = 0;
        metrics_now.forward_lost++;
        return false;
    }
    if (r->len + n > NODEMSG_BODY_MAX || r->len + n + 1 > r->cap) {
        size_t cap = r->len + n + 1 > 2 * r->cap ? r->len + n + 1 : 2 * r->cap;
        char *b = r->len + n > NODEMSG_BODY_MAX ? NULL : realloc(r->buf, cap);
        if (b == NULL) {
            r->next = 0;
            metrics_now.forward_lost++;
            return false;
        }
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
    r->buf[r->len] = '\0';
    r->next = part == parts ? 0 : part + 1;
    return part == parts;
}

void nodemsg_parts_free(nodemsg_parts *r)
{
    free(r->buf);
    *r = (nodemsg_parts){0};
}
