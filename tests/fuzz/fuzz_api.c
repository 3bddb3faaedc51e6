/*
 * fuzz_api.c - libFuzzer target: the HTTP API's bodies and headers that
 * reach code before any store: the JSON body of POST /api/register and
 * /api/login (proto_decode_credentials, then the username and password
 * rules of accounts.c, as api.c calls them) and the Cookie header
 * (accounts_cookie_token); the bodies of POST /api/sessions/end
 * (proto_decode_login_end) and /api/2fa/enable and disable
 * (proto_decode_code), and what a code given goes through before the store
 * (totp_check, totp_recovery_hash). Any bytes: no crash, no leak; an
 * accepted body holds a username of the documented form and a password of
 * valid UTF-8 within its bounds, a session's id of 64 hex digits; a refused
 * one gets a reason, written as valid JSON.
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
    static bool ready;
    if (!ready) {
        FUZZ_CHECK(totp_init() == 0);
        ready = true;
    }
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
    /* The same bytes as the body of POST /api/sessions/end. */
    char id[PROTO_LOGIN_ID_HEX + 1];
    bool others = false;
    err = proto_decode_login_end((const char *)data, size, id, &others, why, sizeof why);
    if (err != 0)
        check_error_json("bad_argument", why);
    else
        FUZZ_CHECK(others ? id[0] == '\0'
                          : strlen(id) == PROTO_LOGIN_ID_HEX &&
                                strspn(id, "0123456789abcdef") == PROTO_LOGIN_ID_HEX);
    /* ... and of POST /api/2fa/enable: the code, then its checks. */
    if (proto_decode_code((const char *)data, size, code, sizeof code, why, sizeof why) != 0) {
        check_error_json("bad_message", why);
    } else {
        static const unsigned char secret[TOTP_SECRET_BYTES] = "12345678901234567890";
        int64_t step = 0;
        FUZZ_CHECK(strlen(code) > 0 && strlen(code) < sizeof code);
        if (totp_check(secret, 1111111111, code, 0, &step))
            FUZZ_CHECK(step >= 1111111111 / 30 - 1 && step <= 1111111111 / 30 + 1);
        unsigned char hash[32];
        FUZZ_CHECK((totp_recovery_hash(code, hash) == 0) == totp_is_recovery(code));
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
