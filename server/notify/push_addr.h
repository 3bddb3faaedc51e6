/*
 * push_addr.h - where a Web Push endpoint may lead: public addresses only.
 *
 * A subscription's endpoint is a URL the browser hands us, so a guest could
 * point it at the server's own machine, its network or a cloud metadata
 * service and have the server POST there after every move (blind SSRF).
 * Two checks: the endpoint's host when it is subscribed (an address
 * literal, in any of the numeric forms curl's URL parser accepts, must be
 * public; "localhost" names are refused), and every address libcurl is
 * about to connect to (push.c's open-socket callback), which also covers a
 * DNS name that resolves, now or later, to a private address.
 *
 * Not public: IPv4 0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16,
 * 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15,
 * 198.51.100/24, 203.0.113/24, 224/4 (multicast), 240/4 (reserved and
 * broadcast); IPv6 ::, ::1, ::/96 (IPv4-compatible), 100::/64, 2001::/23,
 * 2001:db8::/32, 64:ff9b:1::/48, fc00::/7 (unique-local), fe80::/10,
 * fec0::/10, ff00::/8 (multicast); IPv4-mapped (::ffff:0:0/96), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16) addresses as the IPv4 inside.
 *
 * Owns: that classification. May call: libc (inet_pton).
 */
#ifndef PUSH_ADDR_H
#define PUSH_ADDR_H

#include <stdbool.h>
#include <stddef.h>

#include <sys/socket.h>

/* Is this IPv4 or IPv6 socket address public? (any other family: no) */
bool push_addr_public(const struct sockaddr *sa);

/* Is this loopback (127/8, ::1, or IPv4-mapped 127/8)? */
bool push_addr_loopback(const struct sockaddr *sa);

/* May an endpoint name this host (as curl's URL parser returns it: an IPv6
 * literal in brackets)? true, or false with a sentence in why. A DNS name
 * passes here and is judged by the addresses it resolves to at connect
 * time. allow_loopback (tests only) lets 127/8, ::1 and localhost through. */
bool push_host_allowed(const char *host, bool allow_loopback, char *why, size_t whylen);

#endif
