/*
 * Allocation and the block pool: the Lua state's allocator (lh_alloc), under the runtime's
 * memory cap, with small blocks from slabs the runtime keeps (lh_internal.h, struct lh_pool).
 * Growth is charged to the evaluation's budget (lh_charge_allocation).
 */
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

/* Under AddressSanitizer a free block, and a block's bytes past the size asked for, are poisoned:
 * a use after free or an overflow of a pooled block is reported as it would be for malloc's. */
#if defined(__SANITIZE_ADDRESS__)
#define LH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LH_ASAN 1
#endif
#endif
#ifdef LH_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The size class of a block of `size` bytes (1 to LH_POOL_MAX), and the bytes its blocks have. */
static inline size_t pool_class(size_t size) {
    return size <= LH_POOL_SMALL ? (size - 1) / 16 : LH_POOL_SMALL / 16 + (size - LH_POOL_SMALL - 1) / 256;
}

static inline size_t class_bytes(size_t c) {
    return c < LH_POOL_SMALL / 16 ? (c + 1) * 16 : LH_POOL_SMALL + (c + 1 - LH_POOL_SMALL / 16) * 256;
}

/* Puts a block of class c on its free list (poisoned but for the link, which is read when the
 * block is taken off again). */
static inline void push_free(struct lh_pool *pool, void *block, size_t c) {
    UNPOISON(block, sizeof(void *));
    *(void **)block = pool->free[c];
    pool->free[c] = block;
    POISON((char *)block + sizeof(void *), class_bytes(c) - sizeof(void *));
}

/* A block of `size` bytes: from the pool when it is small enough, else from malloc. */
static void *block_new(struct lh_pool *pool, size_t size) {
    if (size > LH_POOL_MAX) return malloc(size);
    size_t c = pool_class(size);
    void *block = pool->free[c];
    if (block != NULL) {
        pool->free[c] = *(void **)block;
        POISON(block, class_bytes(c));
        UNPOISON(block, size);
        return block;
    }
    size_t bytes = class_bytes(c);
    if ((size_t)(pool->bump_end - pool->bump) < bytes) {
        /* A new slab; what was left of the last one goes to the free lists, biggest class first. */
        while (pool->bump_end - pool->bump >= 16) {
            size_t left = (size_t)(pool->bump_end - pool->bump);
            size_t k = pool_class(left > LH_POOL_MAX ? LH_POOL_MAX : left);
            if (class_bytes(k) > left) k--;
            char *piece = pool->bump;
            pool->bump += class_bytes(k);
            push_free(pool, piece, k);
        }
        char *slab = (char *)malloc(LH_SLAB_SIZE);
        if (slab == NULL) return NULL;
        *(void **)slab = pool->slabs;
        pool->slabs = slab;
        pool->bump = slab + 16; /* the first 16 bytes hold the link, and keep alignment */
        pool->bump_end = slab + LH_SLAB_SIZE;
        POISON(pool->bump, (size_t)(pool->bump_end - pool->bump));
    }
    block = pool->bump;
    pool->bump += bytes;
    UNPOISON(block, size);
    return block;
}

static void block_free(struct lh_pool *pool, void *block, size_t size) {
    if (size > LH_POOL_MAX) { free(block); return; }
    push_free(pool, block, pool_class(size));
}

/* Frees the slabs (after lua_close has given every block back). */
void lh_pool_release(struct lh_pool *pool) {
    for (void *slab = pool->slabs; slab != NULL;) {
        void *next = *(void **)slab;
        UNPOISON(slab, LH_SLAB_SIZE);
        free(slab);
        slab = next;
    }
    memset(pool, 0, sizeof *pool);
}

void *lh_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lh_runtime *rt = (lh_runtime *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (ptr != NULL) block_free(&rt->mem.pool, ptr, osize);
        rt->mem.used -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t grow = nsize - old;
        if (rt->mem.used + grow > rt->mem.limit || rt->mem.used + grow < rt->mem.used) {
            rt->mem.refused = 1;
            return NULL; /* Lua raises "not enough memory" */
        }
        lh_charge_allocation(rt, grow);
    }
    void *np;
    if (ptr == NULL) {
        np = block_new(&rt->mem.pool, nsize);
    } else if (old <= LH_POOL_MAX || nsize <= LH_POOL_MAX) {
        /* A pooled block (before or after): the same class needs nothing, else copy across. */
        if (old <= LH_POOL_MAX && nsize <= LH_POOL_MAX && pool_class(old) == pool_class(nsize)) {
            np = ptr;
            /* the same block: its bytes past the new size are out of bounds now */
            POISON((char *)ptr, class_bytes(pool_class(old)));
            UNPOISON(ptr, nsize);
        } else {
            np = block_new(&rt->mem.pool, nsize);
            if (np == NULL) return NULL;
            memcpy(np, ptr, old < nsize ? old : nsize);
            block_free(&rt->mem.pool, ptr, old);
        }
    } else {
        np = realloc(ptr, nsize);
    }
    if (np == NULL) return NULL;
    rt->mem.used = rt->mem.used - old + nsize;
    return np;
}

/* The allocator without the pool (LH_PLAIN_POOL): every block from malloc, under the same cap
 * and budget, for the tests that compare the pool with what it stands in for. */
void *lh_alloc_plain(void *ud, void *ptr, size_t osize, size_t nsize) {
    lh_runtime *rt = (lh_runtime *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        rt->mem.used -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t grow = nsize - old;
        if (rt->mem.used + grow > rt->mem.limit || rt->mem.used + grow < rt->mem.used) {
            rt->mem.refused = 1;
            return NULL;
        }
        lh_charge_allocation(rt, grow);
    }
    void *np = realloc(ptr, nsize);
    if (np == NULL) return NULL;
    rt->mem.used = rt->mem.used - old + nsize;
    return np;
}
