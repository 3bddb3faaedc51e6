/*
 * log.c - key=value lines on stderr.
 */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { LINE_MAX_BYTES = 1024 };

static atomic_int level = LOG_INFO;
static const char *const names[] = {"debug", "info", "warn", "error"};

void log_set_level(log_level lv)
{
    atomic_store(&level, (int)lv);
}

bool log_parse_level(const char *s, log_level *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (log_level)i;
            return true;
        }
    return false;
}

bool log_enabled(log_level lv)
{
    return (int)lv >= atomic_load(&level);
}

/* "level=L msg=\"TEXT\"" into b (TEXT escaped, a trailing newline
 * dropped); returns the length. */
static size_t head(char *b, size_t cap, log_level lv, const char *text)
{
    size_t n = (size_t)snprintf(b, cap, "level=%s msg=\"", names[lv]);
    for (const char *p = text; *p && n + 4 < cap; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n' && p[1] == '\0')
            break;
        if (c == '"' || c == '\\') {
            b[n++] = '\\';
            b[n++] = (char)c;
        } else if (c < 0x20) {
            b[n++] = ' ';
        } else {
            b[n++] = (char)c;
        }
    }
    b[n++] = '"';
    return n;
}

static void emit(char *b, size_t n)
{
    b[n++] = '\n';
    fwrite(b, 1, n, stderr);
}

void log_msg(log_level lv, const char *fmt, ...)
{
    if (!log_enabled(lv))
        return;
    char text[LINE_MAX_BYTES / 2], b[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    emit(b, head(b, sizeof b - 1, lv, text));
}

void log_kv(log_level lv, const char *msg, const char *fields, ...)
{
    if (!log_enabled(lv))
        return;
    char b[LINE_MAX_BYTES];
    size_t n = head(b, sizeof b - 1, lv, msg);
    if (n + 2 < sizeof b - 1) {
        /* The fields after a space, if they come to anything. */
        size_t room = sizeof b - 2 - n;
        va_list ap;
        va_start(ap, fields);
        int k = vsnprintf(b + n + 1, room, fields, ap);
        va_end(ap);
        if (k > 0) {
            b[n] = ' ';
            n += 1 + ((size_t)k < room ? (size_t)k : room - 1);
        }
    }
    emit(b, n);
}
