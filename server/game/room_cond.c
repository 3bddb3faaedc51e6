/*
 * room_cond.c - conditional moves of a room (see room.h, PROTOCOL.md
 * "Conditional moves"): a player's lines are checked by the rules core,
 * kept by the store (in memory at once, written like a move) and the
 * answer ("cond") goes out once they are written, the session held
 * meanwhile (session_hold). The answering of a line after the opponent's
 * move is room_game.c's (cond_answer), part of playing a move.
 */
#include "room_impl.h"

#include <stdlib.h>

#include "archive.h"
#include "cond.h"
#include "errmap.h"
#include "store.h"

/* A line in the rules core's own move texts (what cond_match compares
 * with), checked by replaying it after the game's moves: opponent first. */
static int cond_canon(const room *r, int me, const char *line, char *out, size_t outlen, char *why,
                      size_t whylen)
{
    int err = cond_check_line(r->g, me, line, out, outlen, why, whylen);
    return err < 0 ? (int)proto_err_from_code(cond_err_code(err), PROTO_EINTERNAL) : 0;
}

/* The "cond" answer: the player's lines as they are now. 0 or a
 * proto_err. */
static int cond_reply(room *r, session *c, int seat, const proto_req *req, char *why, size_t whylen)
{
    record_lines cl;
    char *json = NULL;
    int err = store_cond_get(room__db, r->id, seat, &cl, NULL);
    if (err == 0 && (json = archive_lines_json(&cl)) == NULL)
        err = STORE_ENOMEM;
    if (err < 0)
        return errmap_store_fail(err, why, whylen);
    proto_out o;
    proto_out_init(&o, NET_HEADROOM);
    proto_write_cond(&o, req, r->id, json);
    free(json);
    session_send_out(c, &o);
    return 0;
}

/* A cond_set or cond_clear waiting for its write. */
typedef struct cond_wait {
    session *c; /* held */
    int64_t room;
    int seat;
    proto_req req;
} cond_wait;

static void cond_written(void *arg, int status)
{
    cond_wait *w = arg;
    if (session_release(w->c)) {
        char why[RULES_WHY_TEXT] = "";
        room *r = room_find(w->room);
        int err = status < 0 ? errmap_store_fail(status, why, sizeof why)
                  : r == NULL
                      ? (rules_why(why, sizeof why, "the game is over"), PROTO_EUNKNOWN_ROOM)
                      : cond_reply(r, w->c, w->seat, &w->req, why, sizeof why);
        if (err != 0)
            session_send_error(w->c, &w->req, true, (proto_err)err, why);
    }
    free(w);
}

int room_cond(room *r, session *c, const proto_req *req, char *why, size_t whylen)
{
    int s = room__acting_seat(r, c, true, why, whylen); /* lines end with the game */
    if (s < 0)
        return -s;
    if (r->corr.days <= 0 || r->nseats != 2) {
        rules_why(why, whylen, "conditional moves are for two-player correspondence games");
        return PROTO_ENOT_CORRESPONDENCE;
    }
    int err = 0;
    cond_wait *w = NULL;
    if (req->type != PROTO_COND_GET) {
        /* Answered once written (the session held meanwhile). */
        if ((w = malloc(sizeof *w)) == NULL)
            return PROTO_EINTERNAL;
        *w = (cond_wait){c, r->id, s, *req};
    }
    if (req->type == PROTO_COND_SET) {
        if (rules_game_to_move(r->g) == s) {
            free(w);
            rules_why(why, whylen, "%s", store_err_text(STORE_ENOT_YOUR_TURN));
            return PROTO_ENOT_YOUR_TURN;
        }
        static char canon[PROTO_COND_LINES][PROTO_COND_LINE_MAX + 1];
        const char *lines[PROTO_COND_LINES];
        for (int i = 0; i < req->nlines; i++) {
            err = cond_canon(r, s, req->lines[i], canon[i], sizeof canon[i], why, whylen);
            if (err) {
                free(w);
                return err;
            }
            lines[i] = canon[i];
        }
        err = store_cond_set(room__db, r->id, s, lines, req->nlines, cond_written, w, why, whylen);
    } else if (req->type == PROTO_COND_CLEAR) {
        err = store_cond_clear(room__db, r->id, s, cond_written, w);
    } else {
        return cond_reply(r, c, s, req, why, whylen);
    }
    if (err < 0) {
        free(w);
        return errmap_store_fail(err, why, whylen);
    }
    session_hold(c);
    return 0;
}
