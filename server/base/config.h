/*
 * config.h - the configuration file (/etc/chameleon/chameleon.conf) turned
 * into the command line's flags.
 *
 * The file holds `key = value` lines; `#` starts a comment (a whole line,
 * or after whitespace), blank lines are skipped, spaces around the key and
 * the value are dropped. Every key is a flag's name without "--": the file
 * becomes "--key" "value" pairs that main.c puts before the real command
 * line, so the same parser checks both and a flag wins over the file (the
 * later of two equal flags wins).
 *
 * Owns: the argument vector it returns. May call: libc only.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

enum {
    CONFIG_LINE_MAX = 1024, /* longer lines are an error */
    CONFIG_ENOENT = -2,     /* the file does not exist */
};

/* Reads `path` and returns in *out a NULL-terminated vector of *n strings
 * ("--key", "value", ...), to be freed with config_free. 0 on success; -1
 * with "PATH:LINE: what is wrong" (or "PATH: strerror") in err on a bad
 * line or an unreadable file; CONFIG_ENOENT when it does not exist. */
int config_read(const char *path, char ***out, int *n, char *err, size_t errlen);

/* The same on text already in memory (name is used in messages). */
int config_parse(const char *name, const char *text, char ***out, int *n, char *err, size_t errlen);

void config_free(char **args, int n);

/* The command line with the configuration file's pairs put first: "--config
 * FILE" names the file (it must exist); without it, default_path is read
 * when it exists (NULL: none). *out gets argv[0], the file's pairs, then
 * the other arguments, all copies (config_free(*out, *n)). 0, or -1 with
 * the reason in err. */
int config_args(int argc, char **argv, const char *default_path, char ***out, int *n, char *err,
                size_t errlen);

/* The data directory of an installed server (web-client/, rules.wasm,
 * migrations/): <the executable's directory>/../share/chameleon when it
 * holds migrations/ (so that a DESTDIR or moved tree works), else
 * `fallback` when it does; NULL when neither does (run from a checkout,
 * the paths relative to it apply). Linux only (/proc/self/exe). */
const char *config_datadir(const char *fallback, char *buf, size_t len);

#endif
