/*
 * challenge.h - challenges to a named player: an account challenges
 * another account by its name to a two-player game with a time control;
 * the challenged account's sessions see it at once (and in
 * challenge_list), and it accepts (the game starts for both) or declines;
 * the challenger may cancel. PROTOCOL.md, "Lobby: presence, games to
 * watch, challenges".
 *
 * Owns: the open challenges (a table by id, in memory only: a challenge
 * goes with its challenger's last session, and with a restart), the
 * limits on them (open ones per challenger, per challenged account, and
 * creations a minute per identity), their notices to both sides.
 * May call: accounts.h (the account of a name: a queued call, the
 * session held meanwhile), errmap.h, lobby.h (the time
 * control, checked as a seek's), room.h (room_start), quota.h (games in
 * progress, checked for both at creation and acceptance), ident.h,
 * session.h (the sink), metrics.h, proto.h, uthash. Links without
 * libwebsockets.
 *
 * The requests (the dispatcher checked hello and that the identity is an
 * account) return 0 or a proto_err with a sentence in why.
 */
#ifndef CHALLENGE_H
#define CHALLENGE_H

#include <stddef.h>

#include "ident.h"
#include "proto.h"
#include "session.h"

enum {
    CHALLENGE_PER_IDENT = 5,   /* open challenges one identity has made */
    CHALLENGE_PER_TARGET = 20, /* open challenges to one account */
    CHALLENGE_PER_MINUTE = 10, /* creations per identity (a burst of as
                                  many, then one every 60/N s) */
};

struct store;
void challenge_init(uv_loop_t *loop, struct store *db);

/* challenge_create {to, game, base_ms+inc_ms | corr, rated}: answered
 * `challenge` op "add" (echoing req); every other session of both sides
 * gets the same without re. */
int challenge_create(session *s, const proto_req *req, char *why, size_t whylen);
/* challenge_accept {challenge} (the challenged account only): the game
 * starts (game_started to both, the asker's echoing req), then
 * `challenge` op "remove" reason "accepted" to both sides. */
int challenge_accept(session *s, const proto_req *req, char *why, size_t whylen);
/* challenge_decline (the challenged) / challenge_cancel (the challenger):
 * `challenge` op "remove", reason "declined" / "cancelled", to both sides
 * (the asker's echoing req). */
int challenge_decline(session *s, const proto_req *req, char *why, size_t whylen);
int challenge_cancel(session *s, const proto_req *req, char *why, size_t whylen);
/* challenge_list: `challenges` with every open one made by or to s's
 * account, oldest first. */
int challenge_list(session *s, const proto_req *req, char *why, size_t whylen);

/* who has gone (no session left): the challenges it made go (reason
 * "gone", told to the challenged). Those made to it stay. */
void challenge_forget(const ident *who);
/* Free every challenge (shutdown). */
void challenge_shutdown(void);

#endif
