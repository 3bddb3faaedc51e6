/*
 * config.c - `key = value` lines into "--key" "value" pairs (config.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void config_free(char **args, int n)
{
    if (args == NULL)
        return;
    for (int i = 0; i < n; i++)
        free(args[i]);
    free(args);
}

static char *trim(char *s, char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    return s;
}

static bool push(char ***v, int *n, int *cap, const char *prefix, const char *s)
{
    if (*n + 2 > *cap) {
        int nc = *cap ? *cap * 2 : 16;
        char **nv = realloc(*v, (size_t)nc * sizeof *nv);
        if (nv == NULL)
            return false;
        *v = nv;
        *cap = nc;
    }
    size_t pl = strlen(prefix), sl = strlen(s);
    char *c = malloc(pl + sl + 1);
    if (c == NULL)
        return false;
    memcpy(c, prefix, pl);
    memcpy(c + pl, s, sl + 1);
    (*v)[(*n)++] = c;
    (*v)[*n] = NULL;
    return true;
}

/* One line (NUL-terminated, no newline) into the vector; 0, or -1 with
 * the reason in why. */
static int parse_line(char *line, char ***v, int *n, int *cap, const char **why)
{
    /* A comment starts at '#' at the line's start or after whitespace, so
     * that a value may hold one ("url#frag" stays whole). */
    for (char *p = line; *p; p++)
        if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            break;
        }
    char *end = line + strlen(line);
    char *s = trim(line, end);
    if (*s == '\0')
        return 0;
    char *eq = strchr(s, '=');
    if (eq == NULL) {
        *why = "expected key = value";
        return -1;
    }
    char *key = trim(s, eq);
    char *val = trim(eq + 1, eq + 1 + strlen(eq + 1));
    if (*key == '\0') {
        *why = "a key is missing before '='";
        return -1;
    }
    if (strncmp(key, "--", 2) == 0) {
        *why = "write the key without \"--\"";
        return -1;
    }
    for (const char *k = key; *k; k++)
        if (!(islower((unsigned char)*k) || isdigit((unsigned char)*k) || *k == '-')) {
            *why = "a key is lower-case letters, digits and '-'";
            return -1;
        }
    if (strcmp(key, "config") == 0) {
        *why = "config cannot name another file";
        return -1;
    }
    if (*val == '\0') {
        *why = "a value is missing after '='";
        return -1;
    }
    if (!push(v, n, cap, "--", key) || !push(v, n, cap, "", val)) {
        *why = "out of memory";
        return -1;
    }
    return 0;
}

int config_parse(const char *name, const char *text, char ***out, int *n, char *err, size_t errlen)
{
    char **v = NULL;
    int count = 0, cap = 0;
    char line[CONFIG_LINE_MAX + 1];
    int lineno = 0;
    const char *p = text;
    *out = NULL;
    *n = 0;
    while (*p) {
        lineno++;
        size_t len = strcspn(p, "\n");
        const char *why = NULL;
        if (len > CONFIG_LINE_MAX) {
            why = "line too long";
        } else {
            memcpy(line, p, len);
            line[len] = '\0';
            parse_line(line, &v, &count, &cap, &why);
        }
        if (why != NULL) {
            snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
            config_free(v, count);
            return -1;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    if (v == NULL && (v = calloc(1, sizeof *v)) == NULL) { /* empty, still NULL-terminated */
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    *out = v;
    *n = count;
    return 0;
}

int config_read(const char *path, char ***out, int *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return e == ENOENT ? CONFIG_ENOENT : -1;
    }
    /* A configuration file is small: 1 MiB is far beyond any real one. */
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    len = fread(buf, 1, cap + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || len > cap) {
        snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "larger than 1 MiB");
        free(buf);
        return -1;
    }
    buf[len] = '\0';
    int rc;
    if (strlen(buf) != len) {
        snprintf(err, errlen, "%s: NUL byte in file", path);
        rc = -1;
    } else {
        rc = config_parse(path, buf, out, n, err, errlen);
    }
    free(buf);
    return rc;
}

int config_args(int argc, char **argv, const char *default_path, char ***out, int *n, char *err,
                size_t errlen)
{
    const char *path = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--config") == 0)
            path = argv[++i]; /* the last one wins, like every flag */
        else if (strncmp(argv[i], "--", 2) == 0)
            i++; /* a flag's value, even one that reads "--config" */
    char **file = NULL;
    int nfile = 0;
    if (path != NULL || default_path != NULL) {
        int rc = config_read(path ? path : default_path, &file, &nfile, err, errlen);
        if (rc == CONFIG_ENOENT && path == NULL)
            nfile = 0; /* no default file: flags alone */
        else if (rc < 0)
            return -1;
    }
    char **v = calloc((size_t)(argc + nfile + 1), sizeof *v);
    int count = 0;
    bool ok = v != NULL && (v[count++] = strdup(argc > 0 ? argv[0] : "chameleon")) != NULL;
    for (int i = 0; ok && i < nfile; i++)
        ok = (v[count++] = strdup(file[i])) != NULL;
    for (int i = 1; ok && i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            i++;
            continue;
        }
        ok = (v[count++] = strdup(argv[i])) != NULL;
    }
    config_free(file, nfile);
    if (!ok) {
        config_free(v, count);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = v;
    *n = count;
    return 0;
}

static bool has_migrations(const char *dir)
{
    char p[4096];
    struct stat st;
    return snprintf(p, sizeof p, "%s/migrations", dir) < (int)sizeof p && stat(p, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

const char *config_datadir(const char *fallback, char *buf, size_t len)
{
    char exe[4096];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l > 0) {
        exe[l] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            if (snprintf(buf, len, "%s/../share/chameleon", exe) < (int)len && has_migrations(buf))
                return buf;
        }
    }
    if (fallback != NULL && fallback[0] != '\0' && has_migrations(fallback) &&
        snprintf(buf, len, "%s", fallback) < (int)len)
        return buf;
    return NULL;
}
