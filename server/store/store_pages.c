/*
 * store_pages.c - where SQLite's cache pages live: a region of their own,
 * outside malloc's heap. See store_impl.h.
 *
 * Why: a page cache line (a page and its headers, about 4.3 kB) lives as
 * long as its connection, and the caches grow with the database (up to
 * 64 MiB each). Allocated by malloc among the writer thread's short-lived
 * allocations, they left free holes below them that malloc could neither
 * reuse nor give back (smaller than a page): in the soak the live heap
 * outside SQLite stayed flat while malloc's free bytes, and so the RSS
 * outside SQLite, grew with SQLite's caches, about 120 bytes a session
 * (BENCHMARKS.md, the soak).
 *
 * How: SQLite's allocator is wrapped (SQLITE_CONFIG_MALLOC). A request of
 * one cache line takes a slot of a reserved region (mapped, never touched
 * before use); every other request goes to SQLite's own allocator as
 * before. Freed slots are reused first, then the next never-used slot, so
 * only slots once used are resident (SQLITE_CONFIG_PAGECACHE would write
 * every slot at start: the whole region resident). When the region is
 * full, cache lines come from malloc as before. sqlite3_memory_used counts
 * the slots in use (xSize). Pages of another size than 4096 bytes (no
 * database of the server has them) go to malloc.
 */
#include "store_impl.h"
#include <sqlite3.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

enum {
    PAGES_PAGE = 4096,
    /* Both connections' caches full (cache_size -65536) and a margin. */
    PAGES_SLOTS = 2 * (64 << 20) / PAGES_PAGE + 1024,
};

static sqlite3_mem_methods orig; /* SQLite's own allocator */
static char *base, *end;         /* the region */
static size_t slot;              /* bytes of a slot: a page and its headers */
static size_t used;              /* slots ever handed out, from base up */
static void *free_slots;         /* freed slots, linked by their first word */
static size_t nfree;             /* how many */
static uv_mutex_t mu;            /* SQLite's threads allocate at once */

static bool in_region(const void *p)
{
    return (const char *)p >= base && (const char *)p < end;
}

static bool is_line(int n)
{
    return n > PAGES_PAGE && (size_t)n <= slot;
}

static void *slot_take(void)
{
    void *p = NULL;
    uv_mutex_lock(&mu);
    if (free_slots != NULL) {
        p = free_slots;
        memcpy(&free_slots, p, sizeof free_slots);
        nfree--;
    } else if (used < PAGES_SLOTS) {
        p = base + used++ * slot;
    }
    uv_mutex_unlock(&mu);
    return p;
}

static void slot_give(void *p)
{
    uv_mutex_lock(&mu);
    memcpy(p, &free_slots, sizeof free_slots);
    free_slots = p;
    nfree++;
    uv_mutex_unlock(&mu);
}

static void *pages_malloc(int n)
{
    void *p = is_line(n) ? slot_take() : NULL;
    return p != NULL ? p : orig.xMalloc(n);
}

static void pages_free(void *p)
{
    if (in_region(p))
        slot_give(p);
    else
        orig.xFree(p);
}

static void *pages_realloc(void *p, int n)
{
    if (!in_region(p))
        return orig.xRealloc(p, n);
    void *q = pages_malloc(n);
    if (q != NULL) {
        memcpy(q, p, (size_t)n < slot ? (size_t)n : slot);
        slot_give(p);
    }
    return q;
}

static int pages_size(void *p)
{
    return in_region(p) ? (int)slot : orig.xSize(p);
}

static int pages_roundup(int n)
{
    return is_line(n) ? (int)slot : orig.xRoundup(n);
}

static int pages_init_cb(void *app)
{
    (void)app;
    return orig.xInit(orig.pAppData);
}

static void pages_shutdown_cb(void *app)
{
    (void)app;
    orig.xShutdown(orig.pAppData);
}

void pages_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    int hdr = 0;
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &orig) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK || hdr <= 0)
        return; /* SQLite already started: malloc keeps the pages */
    slot = ((size_t)PAGES_PAGE + (size_t)hdr + 7) & ~(size_t)7;
    void *m = mmap(NULL, slot * PAGES_SLOTS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED || uv_mutex_init(&mu) != 0) {
        if (m != MAP_FAILED)
            munmap(m, slot * PAGES_SLOTS);
        return;
    }
    base = m;
    end = base + slot * PAGES_SLOTS;
    sqlite3_mem_methods w = {pages_malloc,  pages_free,    pages_realloc,     pages_size,
                             pages_roundup, pages_init_cb, pages_shutdown_cb, NULL};
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &w) != SQLITE_OK) {
        munmap(m, slot * PAGES_SLOTS);
        base = end = NULL;
    }
}

void store_page_region(int64_t *in_use, int64_t *touched)
{
    *in_use = *touched = 0;
    if (base == NULL)
        return;
    uv_mutex_lock(&mu);
    *in_use = (int64_t)((used - nfree) * slot);
    *touched = (int64_t)(used * slot);
    uv_mutex_unlock(&mu);
}
