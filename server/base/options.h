/*
 * options.h - the command line (and so the configuration file, whose
 * `key = value` lines config.c turns into `--key value`) read through one
 * table of options, as Redis's config table: each option's name (the flag
 * without its dashes, and the file's key), what its value is called in the
 * usage, its kind and range, where its value goes, its help. The usage is
 * written from the same table, so a flag, its key and its help cannot
 * drift apart.
 *
 * Owns: nothing (the table and the values are the caller's: main.c).
 * May call: log.h (a bad flag's line), libc.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum option_kind {
    OPTION_TEXT,  /* const char **: the text as given */
    OPTION_LONG,  /* long *, in lo..hi */
    OPTION_INT,   /* int *, in lo..hi */
    OPTION_UINT,  /* unsigned *, in lo..hi (lo >= 0) */
    OPTION_BOOL,  /* bool *: 0 or 1 */
    OPTION_CHECK, /* check reads the text into value */
} option_kind;

typedef struct option {
    const char *name; /* "port": --port, and the key port in the file */
    const char *arg;  /* the value's name in the usage: "N", "URL", "0|1" */
    option_kind kind;
    long lo, hi; /* OPTION_LONG, OPTION_INT, OPTION_UINT */
    void *value;
    /* OPTION_CHECK: 0, or -1 with what the flag wants in why ("wants ...",
     * written after the flag's name). */
    int (*check)(const char *text, void *value, char *why, size_t whylen);
    const char *help; /* one paragraph (the usage wraps it), its default said */
} option;

/* Read argv[1..argc) (flag, value pairs) into the table's values: 0; 1
 * when --help or -h was asked (the usage is written to stdout); 2 after a
 * line saying what is wrong (an unknown flag, a value missing or out of
 * its range: the usage follows on stderr). usage_head: the text written
 * before the options (the synopsis, the commands). */
int options_parse(const option *table, size_t n, int argc, char **argv, const char *usage_head);

/* The usage: usage_head, then each option, its value's name and its help
 * wrapped in 79 columns, then --help. */
void options_usage(FILE *f, const option *table, size_t n, const char *usage_head);

#endif
