/*
 * log.h - the server's log: one line per event on stderr, with a level and
 * key=value fields (journald keeps stderr):
 *
 *   level=info msg="listening" addr=127.0.0.1 port=8080
 *
 * Lines under the level set (--log-level, default info) are dropped. Any
 * thread may log: a line is built whole and written with one call.
 *
 * Owns: the level and the format of a line. May call: libc only.
 */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

typedef enum { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR } log_level;

/* Lines below lv are dropped from now on (set once at start). */
void log_set_level(log_level lv);
/* "debug", "info", "warn" or "error" into *out; false for another word. */
bool log_parse_level(const char *s, log_level *out);
/* Whether a line at lv would be written. */
bool log_enabled(log_level lv);

/* A line whose msg is the formatted text (quoted and escaped). */
__attribute__((format(printf, 2, 3))) void log_msg(log_level lv, const char *fmt, ...);
/* A line with a fixed msg and key=value fields formatted by the caller
 * (a value with spaces is written in quotes: why=\"%s\"). */
__attribute__((format(printf, 3, 4))) void log_kv(log_level lv, const char *msg, const char *fields,
                                                  ...);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
