/*
 * fuzz_tourney.c - libFuzzer target: tournaments. The bytes as the JSON
 * body of POST /api/tournaments (tourney_create_parse) and of an action
 * (tourney_username_parse): no crash, no leak, strings within their bounds;
 * then the same bytes as a section (entrants, finished games and places,
 * withdrawals) through tourney_standings and tourney_json: every score and
 * place within bounds, the points of each game that counts adding up to
 * what the game gives (1, or 1.5 for three players), the JSON valid.
 */
#include <jansson.h>
#include <math.h>

#include "fuzz.h"
#include "tourney.h"
#include "tourney_msg.h"

static tourney_info info;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tourney_create req;
    char why[200] = "";
    if (tourney_create_parse((const char *)data, size, &req, why, sizeof why) == 0) {
        FUZZ_CHECK(strlen(req.name) > 0 && strlen(req.name) < sizeof req.name);
        FUZZ_CHECK(strlen(req.game) > 0 && strlen(req.game) < sizeof req.game);
        FUZZ_CHECK(req.size > 0 && req.ninvite >= 0 && req.ninvite <= TOURNEY_MAX_INVITES);
        for (int i = 0; i < req.ninvite; i++)
            FUZZ_CHECK(strlen(req.invite[i]) < TOURNEY_USER_MAX);
    } else {
        FUZZ_CHECK(why[0] != '\0');
    }
    char user[32];
    why[0] = '\0';
    int u = tourney_username_parse((const char *)data, size, user, sizeof user, why, sizeof why);
    if (u == 0)
        FUZZ_CHECK(strlen(user) > 0 && strlen(user) < sizeof user);
    else if (u < 0)
        FUZZ_CHECK(why[0] != '\0');

    /* A section from the bytes: n entrants, its schedule, results. */
    if (size < 3)
        return 0;
    int n = TOURNEY_MIN_PLAYERS + data[0] % (TOURNEY_MAX_PLAYERS - TOURNEY_MIN_PLAYERS + 1);
    int seats = 2 + data[1] % 2;
    bool twice = data[2] & 1;
    memset(&info, 0, sizeof info);
    info.seats = seats;
    /* Names reach the server as valid UTF-8 (a JSON body): printable ASCII
     * here, quotes and backslashes included. */
    for (size_t i = 0; i < size && i < 40; i++)
        info.name[i] = (char)(' ' + data[i] % 95);
    snprintf(info.variant, sizeof info.variant, "ultima");
    /* Schedules are searched (slow under the sanitizers): each once. */
    static tourney_pairing cache[TOURNEY_MAX_PLAYERS + 1][2][2][TOURNEY_MAX_GAMES];
    static int cached[TOURNEY_MAX_PLAYERS + 1][2][2];
    tourney_pairing *p = cache[n][seats - 2][twice];
    if (cached[n][seats - 2][twice] == 0)
        cached[n][seats - 2][twice] = tourney_schedule(n, seats, twice, p, TOURNEY_MAX_GAMES);
    int ng = cached[n][seats - 2][twice];
    FUZZ_CHECK(ng > 0 && ng <= TOURNEY_MAX_GAMES);
    info.ngames = ng;
    size_t at = 3;
    for (int i = 0; i < ng; i++) {
        tourney_tgame *g = &info.games[i];
        g->game = i + 1;
        g->round = p[i].round;
        uint8_t b = at < size ? data[at++] : 0;
        g->finished = b & 1;
        for (int s = 0; s < seats; s++) {
            g->player[s] = p[i].player[s];
            g->rank[s] = (b >> (1 + 2 * s)) % seats;
        }
    }
    info.nentrants = n;
    for (int e = 0; e < n; e++) {
        uint8_t b = at < size ? data[at++] : 0;
        info.entrants[e] = (tourney_entrant){.account = e + 1,
                                             .idx = e,
                                             .status = b & 1 ? TOURNEY_WITHDRAWN : TOURNEY_JOINED,
                                             .played_at = (b >> 1) % 24};
        snprintf(info.entrants[e].name, sizeof info.entrants[e].name, "p%d", e);
    }
    static tourney_game games[TOURNEY_MAX_GAMES];
    bool withdrawn[TOURNEY_MAX_PLAYERS];
    int played_at[TOURNEY_MAX_PLAYERS];
    FUZZ_CHECK(tourney_section(&info, games, withdrawn, played_at) == n);
    tourney_standing st[TOURNEY_MAX_PLAYERS];
    tourney_standings(games, ng, n, withdrawn, played_at, st, NULL, NULL);
    double total = 0, expect = 0;
    for (int i = 0; i < ng; i++) {
        bool counts = games[i].finished;
        for (int s = 0; s < seats; s++)
            counts = counts && !st[games[i].player[s]].struck;
        expect += counts ? (seats == 3 ? 1.5 : 1) : 0;
    }
    for (int e = 0; e < n; e++) {
        FUZZ_CHECK(st[e].place >= 1 && st[e].place <= n);
        FUZZ_CHECK(st[e].score >= 0 && st[e].score <= st[e].games);
        FUZZ_CHECK(st[e].played <= st[e].games && st[e].tiebreak >= 0);
        FUZZ_CHECK(!st[e].struck || st[e].score == 0);
        total += st[e].score;
    }
    FUZZ_CHECK(fabs(total - expect) < 1e-9);
    char *text = tourney_json(&info);
    FUZZ_CHECK(text != NULL);
    json_t *back = json_loads(text, 0, NULL);
    FUZZ_CHECK(back != NULL);
    json_decref(back);
    free(text);
    return 0;
}
