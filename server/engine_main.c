/*
 * engine_main.c - build/chameleon-engine: the bots' search as a UCI engine
 * on stdin/stdout (the dialect is protocol/uci.h).
 *
 * The main thread reads lines and hands them to uci_line; a `go` starts one
 * search thread, so `stop`, `isready` and `quit` are answered while it
 * thinks, and a command that must wait for the search (UCI_WAIT) waits for
 * the thread to end. Output from both threads goes through one mutex, a whole line at
 * a time, flushed at once. End of input is `quit`.
 *
 *   build/chameleon-engine [--hash MB]
 */
#include "uci.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct engine {
    uci *u;
    pthread_mutex_t lock; /* stdout and stop_seen */
    pthread_cond_t stopped;
    bool stop_seen; /* `stop` or `quit` came during this search */
    pthread_t thread;
    bool running; /* thread started and not joined yet */
} engine;

static void out_line(void *arg, const char *line)
{
    engine *e = arg;
    pthread_mutex_lock(&e->lock);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&e->lock);
}

static void *think(void *arg)
{
    engine *e = arg;
    if (uci_think(e->u)) {
        /* go infinite: the answer waits for stop. */
        pthread_mutex_lock(&e->lock);
        while (!e->stop_seen)
            pthread_cond_wait(&e->stopped, &e->lock);
        pthread_mutex_unlock(&e->lock);
    }
    uci_finish(e->u);
    return NULL;
}

static void join_search(engine *e)
{
    if (e->running) {
        pthread_join(e->thread, NULL);
        e->running = false;
    }
}

static void signal_stop(engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->stop_seen = true;
    pthread_cond_signal(&e->stopped);
    pthread_mutex_unlock(&e->lock);
}

/* Start the prepared search in its own thread; false if it cannot. */
static bool start_search(engine *e)
{
    /* The last search has printed bestmove (go is refused until then), so
     * its thread is ending: join it first. */
    join_search(e);
    e->stop_seen = false;
    if (pthread_create(&e->thread, NULL, think, e) != 0) {
        uci_think(e->u);
        uci_finish(e->u);
        return false;
    }
    e->running = true;
    return true;
}

int main(int argc, char **argv)
{
    int hash_mb = 16;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hash") == 0 && i + 1 < argc) {
            hash_mb = atoi(argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: %s [--hash MB]\n"
                    "Speaks UCI on stdin/stdout (README.md, protocol/uci.h).\n",
                    argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }

    engine e = {.running = false};
    pthread_mutex_init(&e.lock, NULL);
    pthread_cond_init(&e.stopped, NULL);
    e.u = uci_new(out_line, &e, hash_mb);
    if (e.u == NULL) {
        fprintf(stderr, "chameleon-engine: out of memory\n");
        return 1;
    }

    char *line = NULL;
    size_t cap = 0;
    bool quit = false;
    while (!quit && getline(&line, &cap, stdin) >= 0) {
        uci_action act = uci_line(e.u, line);
        if (act == UCI_WAIT) {
            join_search(&e);
            act = uci_line(e.u, line);
        }
        switch (act) {
        case UCI_GO:
            start_search(&e);
            break;
        case UCI_STOP:
            signal_stop(&e);
            break;
        case UCI_QUIT:
            signal_stop(&e);
            quit = true;
            break;
        case UCI_NONE:
        case UCI_WAIT:
            break;
        }
    }
    if (!quit) {
        uci_line(e.u, "quit");
        signal_stop(&e);
    }
    join_search(&e);
    free(line);
    uci_free(e.u);
    pthread_cond_destroy(&e.stopped);
    pthread_mutex_destroy(&e.lock);
    return 0;
}
