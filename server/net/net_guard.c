/*
 * net_guard.c - the part of the transport that needs no libwebsockets
 * (see net.h, "Private to the net module"): connections counted per
 * address, and the frame scanner that finds unmasked client frames.
 *
 * Connections per address: counted from accept to the end of the
 * connection. An address is a 16-byte key: IPv4 mapped into IPv6, IPv6 by
 * its /64 (one subscriber usually holds a whole /64). Counts live in an
 * open-addressing table with room for every descriptor twice over, so it
 * never fills and nothing scans it; the key each descriptor counts against
 * is kept by descriptor.
 *
 * Unmasked frames: RFC 6455 (5.1) says a server must close a connection
 * whose client sends an unmasked frame. lws 4.1 neither checks the mask bit
 * nor tells it, so the frame headers of each WebSocket are followed here,
 * in the recv that lws calls to read its sockets (defined below: the
 * program's own recv comes before libc's for lws's calls; it is libc's
 * recvfrom plus the scan). Only descriptors net.c turned on (established
 * WebSockets) are scanned; every other caller and descriptor goes straight
 * through. A client may not send frames before the server's handshake
 * reply, so scanning starts on a frame boundary.
 */
#include "net.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

typedef struct addr_key {
    uint8_t b[16];
} addr_key;

typedef struct addr_count {
    addr_key key;
    uint32_t count; /* 0: a free slot */
} addr_count;

typedef struct frame_scan {
    bool on, bad;
    uint8_t got, need; /* header bytes: got so far, need in all */
    uint8_t hdr[14];
    uint64_t left; /* payload bytes still to skip */
} frame_scan;

static addr_count *addr_table;
static size_t addr_mask;
static uint64_t addr_seed;
static int fd_max;
static addr_key *fd_key; /* by descriptor: the key it counts against */
static uint8_t *fd_counted;
static frame_scan *fd_scan;

int net_guard_init(int max_fd)
{
    size_t cap = 1;
    while (cap < 2 * (size_t)max_fd)
        cap <<= 1;
    addr_table = calloc(cap, sizeof *addr_table);
    fd_key = calloc((size_t)max_fd, sizeof *fd_key);
    fd_counted = calloc((size_t)max_fd, 1);
    fd_scan = calloc((size_t)max_fd, sizeof *fd_scan);
    if (addr_table == NULL || fd_key == NULL || fd_counted == NULL || fd_scan == NULL) {
        net_guard_free();
        return -1;
    }
    addr_mask = cap - 1;
    fd_max = max_fd;
    /* A seed unknown to clients: many crafted /64s cannot pile onto one
     * probe chain. */
    if (uv_random(NULL, NULL, &addr_seed, sizeof addr_seed, 0, NULL) != 0)
        addr_seed = (uint64_t)(uintptr_t)&addr_seed ^ uv_hrtime();
    return 0;
}

void net_guard_free(void)
{
    free(addr_table);
    free(fd_key);
    free(fd_counted);
    free(fd_scan);
    addr_table = NULL;
    fd_key = NULL;
    fd_counted = NULL;
    fd_scan = NULL;
    fd_max = 0;
}

static size_t addr_hash(const addr_key *k)
{
    uint64_t h = 1469598103934665603ULL ^ addr_seed; /* FNV-1a, seeded */
    for (int i = 0; i < 16; i++)
        h = (h ^ k->b[i]) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

/* The slot of k: its own, or the free one where it would go. */
static size_t addr_find(const addr_key *k)
{
    size_t i = addr_hash(k) & addr_mask;
    while (addr_table[i].count != 0 && memcmp(&addr_table[i].key, k, sizeof *k) != 0)
        i = (i + 1) & addr_mask;
    return i;
}

/* Free slot i, moving back the keys after it that would no longer be found
 * (linear probing without tombstones). */
static void addr_remove(size_t i)
{
    for (size_t j = (i + 1) & addr_mask; addr_table[j].count != 0; j = (j + 1) & addr_mask) {
        size_t home = addr_hash(&addr_table[j].key) & addr_mask;
        /* j stays unless its home lies cyclically outside (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            addr_table[i] = addr_table[j];
            i = j;
        }
    }
    addr_table[i].count = 0;
}

static bool key_of_fd(int fd, addr_key *k)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    memset(k, 0, sizeof *k);
    if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
        return false;
    if (ss.ss_family == AF_INET) {
        k->b[10] = k->b[11] = 0xff;
        memcpy(k->b + 12, &((struct sockaddr_in *)&ss)->sin_addr, 4);
        return true;
    }
    if (ss.ss_family == AF_INET6) {
        const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        memcpy(k->b, a, 16);
        if (!IN6_IS_ADDR_V4MAPPED(a))
            memset(k->b + 8, 0, 8);
        return true;
    }
    return false;
}

int net_guard_accept(int fd, int max_per_address)
{
    addr_key k;
    if (fd < 0 || fd >= fd_max || !key_of_fd(fd, &k))
        return -1;
    size_t i = addr_find(&k);
    if (addr_table[i].count >= (uint32_t)max_per_address)
        return 1;
    addr_table[i].key = k;
    addr_table[i].count++;
    fd_key[fd] = k;
    fd_counted[fd] = 1;
    return 0;
}

/* The address as a 16-byte key without the /64 cut (the proxy is one host). */
static bool host_of(const char *text, unsigned char b[16])
{
    struct in_addr a4;
    memset(b, 0, 16);
    if (inet_pton(AF_INET, text, &a4) == 1) {
        b[10] = b[11] = 0xff;
        memcpy(b + 12, &a4, 4);
        return true;
    }
    return inet_pton(AF_INET6, text, b) == 1;
}

int net_trust_proxy(net_config *cfg, const char *text)
{
    if (!host_of(text, cfg->trust_proxy))
        return -1;
    cfg->trust_proxy_on = true;
    return 0;
}

bool net_guard_is_proxy(int fd, const net_config *cfg)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    unsigned char b[16] = {0};
    if (!cfg->trust_proxy_on || getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
        return false;
    if (ss.ss_family == AF_INET) {
        b[10] = b[11] = 0xff;
        memcpy(b + 12, &((struct sockaddr_in *)&ss)->sin_addr, 4);
    } else if (ss.ss_family == AF_INET6) {
        memcpy(b, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
    } else {
        return false;
    }
    return memcmp(b, cfg->trust_proxy, 16) == 0;
}

int net_guard_forwarded(const char *xff, char *out, size_t len)
{
    const char *comma = strrchr(xff, ',');
    const char *s = comma ? comma + 1 : xff;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strcspn(s, " \t");
    unsigned char b[16];
    if (n == 0 || n >= len)
        return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    return host_of(out, b) ? 0 : -1;
}

bool net_guard_release(int fd)
{
    if (fd < 0 || fd >= fd_max || !fd_counted[fd])
        return false;
    fd_counted[fd] = 0;
    fd_scan[fd].on = false;
    size_t i = addr_find(&fd_key[fd]);
    if (addr_table[i].count > 1)
        addr_table[i].count--;
    else if (addr_table[i].count == 1)
        addr_remove(i);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The frame scanner. */

static void scan_bytes(frame_scan *f, const uint8_t *p, size_t n)
{
    while (n > 0 && !f->bad) {
        if (f->left > 0) {
            size_t k = f->left < n ? (size_t)f->left : n;
            f->left -= k;
            p += k;
            n -= k;
            continue;
        }
        f->hdr[f->got++] = *p++;
        n--;
        if (f->got == 2) {
            unsigned len7 = f->hdr[1] & 0x7f;
            f->bad = !(f->hdr[1] & 0x80); /* the MASK bit */
            f->need = (uint8_t)(2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4);
        }
        if (f->got >= 2 && f->got == f->need) {
            unsigned len7 = f->hdr[1] & 0x7f, ext = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
            uint64_t len = ext ? 0 : len7;
            for (unsigned i = 0; i < ext; i++)
                len = len << 8 | f->hdr[2 + i];
            f->left = len;
            f->got = f->need = 0;
        }
    }
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (n > 0 && !(flags & MSG_PEEK) && fd >= 0 && fd < fd_max && fd_scan[fd].on)
        scan_bytes(&fd_scan[fd], buf, (size_t)n);
    return n;
}

void net_guard_scan(int fd, bool on)
{
    if (fd >= 0 && fd < fd_max)
        fd_scan[fd] = (frame_scan){.on = on};
}

bool net_guard_unmasked(int fd)
{
    return fd >= 0 && fd < fd_max && fd_scan[fd].bad;
}

int net_guard_file(const char *root, const char *path, char *real, char *etag, size_t etag_len,
                   time_t *mtime)
{
    char want[PATH_MAX];
    size_t pl = strlen(path), rl = strlen(root);
    int n = snprintf(want, sizeof want, "%s%s%s", root, path,
                     pl > 0 && path[pl - 1] == '/' ? "index.html" : "");
    if (root[0] == '\0' || path[0] != '/' || n < 0 || (size_t)n >= sizeof want ||
        realpath(want, real) == NULL)
        return -1;
    if (strncmp(real, root, rl) != 0 || real[rl] != '/')
        return 1;
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    /* Nanoseconds: a file edited twice within a second, at the same size,
     * still changes its tag. */
    snprintf(etag, etag_len, "\"%llx-%llx\"", (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                 (unsigned long long)st.st_mtim.tv_nsec);
    *mtime = st.st_mtime;
    return 0;
}

/* Our tags are quoted and hold no quote, so a substring is a whole tag. */
bool net_guard_etag_match(const char *if_none_match, const char *etag)
{
    return strcmp(if_none_match, "*") == 0 || strstr(if_none_match, etag) != NULL;
}
