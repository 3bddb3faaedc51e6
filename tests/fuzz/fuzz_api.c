/*
 * fuzz_api.c - libFuzzer target: the HTTP API's bodies and headers that
 * reach code before any store: the JSON body of POST /api/register and
 * /api/login (proto_decode_credentials, then the username and password
 * rules of accounts.c, as api.c calls them) and the Cookie header
 * (accounts_cookie_token). Any bytes: no crash, no leak; an accepted body
 * holds a username of the documented form and a password of valid UTF-8
 * within its bounds; a refused one gets a reason, written as valid JSON.
 */
#include <ctype.h>
#include <jansson.h>

#include "accounts.h"
#include "totp.h"
#include "fuzz.h"
#include "proto.h"
#include "store.h"

static void check_error_json(const char *code, const char *why)
{
    proto_out o;
    proto_out_init(&o, 0);
    proto_write_http_error(&o, code, why);
    FUZZ_CHECK(!o.oom);
    json_t *back = json_loadb(proto_out_data(&o), o.len, 0, NULL);
    FUZZ_CHECK(back != NULL);
    json_decref(back);
    proto_out_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char user[64], pass[ACCOUNTS_PASSWORD_BYTES + 1], code[TOTP_CODE_MAX + 1],
        why[RULES_WHY_TEXT] = "";
    int err = proto_decode_credentials((const char *)data, size, user, sizeof user, pass,
                                       sizeof pass, code, sizeof code, why, sizeof why);
    if (err != 0) {
        FUZZ_CHECK(err == PROTO_EBAD_JSON || err == PROTO_EBAD_MESSAGE);
        check_error_json("bad_message", why);
    } else {
        FUZZ_CHECK(strlen(user) < sizeof user && strlen(pass) < sizeof pass &&
                   strlen(code) < sizeof code);
        if (accounts_username_check(user, why, sizeof why) == 0) {
            size_t n = strlen(user);
            FUZZ_CHECK(n >= 3 && n <= 20 && isalpha((unsigned char)user[0]));
            /* The answer echoes it: a name needs no escaping. */
            for (size_t i = 0; i < n; i++)
                FUZZ_CHECK(isalnum((unsigned char)user[i]) || user[i] == '_' || user[i] == '-');
        } else {
            check_error_json("bad_username", why);
        }
        if (accounts_password_check(pass) == 0) {
            /* Valid UTF-8 by the rules: jansson, which checks it, agrees. */
            json_t *s = json_string(pass);
            FUZZ_CHECK(s != NULL);
            json_decref(s);
        }
    }
    /* The same bytes as a Cookie header. */
    char *header = fuzz_string(data, size);
    char token[128];
    if (accounts_cookie_token(header, token, sizeof token) == 0) {
        FUZZ_CHECK(strlen(token) < sizeof token);
        FUZZ_CHECK(strstr(header, token) != NULL);
    }
    free(header);
    return 0;
}
