/*
 * fuzz_proto.c - libFuzzer target: the protocol decoder (proto_decode), the
 * one reader of every WebSocket frame a client sends. Any bytes: no crash,
 * no leak, and a decoded request keeps every string inside its field; an
 * error answer can always be written for it, and it is valid JSON.
 */
#include <jansson.h>

#include "fuzz.h"
#include "proto.h"

#define FITS(field) FUZZ_CHECK(memchr(req.field, '\0', sizeof req.field) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    proto_req req;
    memset(&req, 0xa5, sizeof req); /* the decoder must set what it reports */
    bool typed = false;
    char why[RULES_WHY_TEXT];
    why[0] = '\0';
    int err = proto_decode((const char *)data, size, &req, &typed, why, sizeof why);
    FUZZ_CHECK(err >= 0 && err < PROTO_NERRORS);
    if (err == 0) {
        FUZZ_CHECK(typed);
        FITS(token);
        FITS(name);
        FITS(game);
        FITS(invite);
        FITS(move);
        FITS(text);
        FUZZ_CHECK(req.nlines >= 0 && req.nlines <= PROTO_COND_LINES);
        for (int i = 0; i < req.nlines; i++)
            FITS(lines[i]);
    } else {
        FUZZ_CHECK(memchr(why, '\0', sizeof why) != NULL && why[0] != '\0');
    }
    /* The answer the server would send: an error naming the request. */
    proto_out o;
    proto_out_init(&o, 16);
    proto_write_error(&o, &req, typed, err ? (proto_err)err : PROTO_EILLEGAL, err ? why : NULL);
    FUZZ_CHECK(!o.oom);
    /* What goes out is JSON in valid UTF-8 (a browser drops a text frame
     * that is not), whatever the reason quotes of the input. */
    json_t *back = json_loadb(proto_out_data(&o), o.len, 0, NULL);
    FUZZ_CHECK(back != NULL);
    json_decref(back);
    proto_out_free(&o);
    return 0;
}
