/*
 * jsonin.h - JSON from outside (WebSocket messages, HTTP bodies), parsed
 * with duplicate keys refused: {"a":1,"a":2} is an error, never "the last
 * one wins" (a proxy or a log reader taking the first would see another
 * request than the server).
 *
 * Owns: the flags every parse of untrusted JSON uses, and the words of a
 * duplicate key's error.
 * May call: jansson, libc.
 */
#ifndef JSONIN_H
#define JSONIN_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* buf (len bytes) as JSON, any type at the top, duplicate keys refused at
 * every depth; NULL with err filled when it does not parse. */
json_t *jsonin_load(const char *buf, size_t len, json_error_t *err);

/* Whether err (from jsonin_load) is a duplicate key; if so, writes why:
 * "duplicate key \"k\" (each key at most once in an object)". */
bool jsonin_duplicate(const json_error_t *err, char *why, size_t whylen);

/* An HTTP body that must be a JSON object (preferences, lessons, mail
 * requests): the object, or NULL with why: the duplicate key, else "the
 * body must be a JSON object". */
json_t *jsonin_object(const char *buf, size_t len, char *why, size_t whylen);

#endif
