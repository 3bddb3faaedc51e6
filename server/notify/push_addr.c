/*
 * push_addr.c - where a Web Push endpoint may lead (see push_addr.h).
 */
#include "push_addr.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <netinet/in.h>

/* a (host order) in net/bits? */
static bool in4(uint32_t a, uint32_t net, int bits)
{
    uint32_t mask = bits == 0 ? 0 : 0xFFFFFFFFu << (32 - bits);
    return (a & mask) == (net & mask);
}

#define V4(a, b, c, d)                                                                             \
    ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static bool public4(uint32_t a)
{
    static const struct {
        uint32_t net;
        int bits;
    } private4[] = {
        {V4(0, 0, 0, 0), 8},      {V4(10, 0, 0, 0), 8},     {V4(100, 64, 0, 0), 10},
        {V4(127, 0, 0, 0), 8},    {V4(169, 254, 0, 0), 16}, {V4(172, 16, 0, 0), 12},
        {V4(192, 0, 0, 0), 24},   {V4(192, 0, 2, 0), 24},   {V4(192, 88, 99, 0), 24},
        {V4(192, 168, 0, 0), 16}, {V4(198, 18, 0, 0), 15},  {V4(198, 51, 100, 0), 24},
        {V4(203, 0, 113, 0), 24}, {V4(224, 0, 0, 0), 4},    {V4(240, 0, 0, 0), 4},
    };
    for (size_t i = 0; i < sizeof private4 / sizeof private4[0]; i++)
        if (in4(a, private4[i].net, private4[i].bits))
            return false;
    return true;
}

static uint32_t v4_at(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* b (16 bytes) in prefix/bits? */
static bool in6(const uint8_t *b, const uint8_t *prefix, int bits)
{
    for (int i = 0; i < bits; i++) {
        int bit = 7 - i % 8;
        if ((b[i / 8] >> bit & 1) != (prefix[i / 8] >> bit & 1))
            return false;
    }
    return true;
}

static bool public6(const uint8_t *b)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t sixto4[2] = {0x20, 0x02};
    if (in6(b, mapped, 96) || in6(b, nat64, 96))
        return public4(v4_at(b + 12));
    if (in6(b, sixto4, 16))
        return public4(v4_at(b + 2));
    static const struct {
        uint8_t prefix[16];
        int bits;
    } private6[] = {
        {{0}, 96},                                  /* ::, ::1, IPv4-compatible */
        {{0x01, 0x00}, 64},                         /* discard */
        {{0x20, 0x01, 0x00, 0x00}, 23},             /* IETF protocol (Teredo...) */
        {{0x20, 0x01, 0x0d, 0xb8}, 32},             /* documentation */
        {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48}, /* local NAT64 */
        {{0xfc}, 7},                                /* unique-local */
        {{0xfe, 0x80}, 10},                         /* link-local */
        {{0xfe, 0xc0}, 10},                         /* site-local */
        {{0xff}, 8},                                /* multicast */
    };
    for (size_t i = 0; i < sizeof private6 / sizeof private6[0]; i++)
        if (in6(b, private6[i].prefix, private6[i].bits))
            return false;
    return true;
}

bool push_addr_public(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return public4(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr));
    if (sa->sa_family == AF_INET6)
        return public6(((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr);
    return false;
}

bool push_addr_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return in4(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr),
                   V4(127, 0, 0, 0), 8);
    if (sa->sa_family != AF_INET6)
        return false;
    const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
    static const uint8_t one[16] = {[15] = 1};
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(b, one, 16) == 0 || (in6(b, mapped, 96) && b[12] == 127);
}

/* "localhost", "localhost.", "x.localhost", "x.localhost." (RFC 6761). */
static bool localhost_name(const char *host)
{
    size_t n = strlen(host);
    if (n > 0 && host[n - 1] == '.')
        n--;
    const size_t l = sizeof "localhost" - 1;
    return n >= l && strncasecmp(host + n - l, "localhost", l) == 0 &&
           (n == l || host[n - l - 1] == '.');
}

bool push_host_allowed(const char *host, bool allow_loopback, char *why, size_t whylen)
{
    struct sockaddr_storage ss = {0};
    char lit[64];
    size_t n = strlen(host);
    bool literal = false;
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof lit) {
        memcpy(lit, host + 1, n - 2);
        lit[n - 2] = '\0';
        char *zone = strchr(lit, '%'); /* fe80::1%eth0 */
        if (zone != NULL)
            *zone = '\0';
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        literal = inet_pton(AF_INET6, lit, &s6->sin6_addr) == 1;
        if (!literal) {
            snprintf(why, whylen, "'endpoint' has a malformed IPv6 address");
            return false;
        }
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        literal = inet_pton(AF_INET, host, &s4->sin_addr) == 1;
    }
    if (literal) {
        const struct sockaddr *sa = (const struct sockaddr *)&ss;
        if (push_addr_public(sa) || (allow_loopback && push_addr_loopback(sa)))
            return true;
        snprintf(why, whylen, "'endpoint' must be a public address, not %s", host);
        return false;
    }
    if (localhost_name(host)) {
        if (allow_loopback)
            return true;
        snprintf(why, whylen, "'endpoint' must be a public address, not %s", host);
        return false;
    }
    /* Names made only of digits, dots and hex letters after 0x are numeric
     * forms of an address that the parser left alone (127.1, 0x7f000001):
     * no push service has such a name. */
    bool numeric = true;
    for (const char *p = host; *p && numeric; p++)
        numeric = (*p >= '0' && *p <= '9') || *p == '.' || *p == 'x' || *p == 'X' ||
                  (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
    if (numeric && n > 0 && host[0] >= '0' && host[0] <= '9') {
        snprintf(why, whylen, "'endpoint' must be a public address or a DNS name, not %s", host);
        return false;
    }
    return true;
}
