/*
 * CLuaShim: sandboxed Lua state, budget hook, memory cap, host-function
 * trampoline and protected helpers for LuaHost. See luahost_shim.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "lh_internal.h"

#define LH_MAGIC 0x4C484F42u /* "LHOB" */
#define LH_MAX_MODULE_SIZE (16u * 1024u * 1024u)
#define LH_MAX_FREEZE_DEPTH 100

typedef struct lh_object {
    uint32_t magic;
    int32_t cls;
    int64_t id;
    /* The field epoch its cache (user value 1) was filled in; 0: none yet. */
    uint64_t epoch;
    /* Declared fields (lh_new_class): field k (1-based) is cached in user value k + 1 while
     * bit k of `filled` is set and `slot_epoch` is the runtime's field epoch. */
    uint64_t slot_epoch;
    uint64_t filled;
    /* Words (lh_set_words) for fields the runtime serves itself, valid while `words_tag` is the
     * field epoch + 1; word j is present when bit j of `words_mask` is set. */
    uint64_t words_tag;
    uint32_t words_mask;
    int64_t words[LH_OBJECT_WORDS];
} lh_object;

static void take_words(lh_runtime *rt, lh_object *o);
/* The class's fields served from words (lh_class_set_word_fields), NULL when it has none. */
static const struct lh_word_fields *word_fields_of(const lh_runtime *rt, int32_t cls);

static char nil_mark; /* light userdata key: a cached nil field */

static char tb_key; /* registry key (light userdata) of the last traceback */

/* The time limit's clock. The coarse clock (a few milliseconds' resolution, against limits of
 * seconds) is read without a timer query: every call into Lua reads it once. */
static double lh_now(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ======================================================================
 * Memory cap
 * ====================================================================== */

static void lh_hook(lua_State *L, lua_Debug *ar);

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
static void pool_release(struct lh_pool *pool) {
    for (void *slab = pool->slabs; slab != NULL;) {
        void *next = *(void **)slab;
        UNPOISON(slab, LH_SLAB_SIZE);
        free(slab);
        slab = next;
    }
    memset(pool, 0, sizeof *pool);
}

static void *lh_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lh_runtime *rt = (lh_runtime *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (ptr != NULL) block_free(&rt->pool, ptr, osize);
        rt->used -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t grow = nsize - old;
        if (rt->used + grow > rt->limit || rt->used + grow < rt->used) {
            rt->mem_refused = 1;
            return NULL; /* Lua raises "not enough memory" */
        }
        if (rt->active && !rt->exhausted) {
            /* Allocation is work too: one budget unit per 64 bytes. The
             * allocator may not raise; it flags the state as exhausted and
             * makes the hook fire on the main thread's next instruction
             * (lua_sethook is async-signal-safe by design). */
            rt->remaining -= (int64_t)(grow >> 6);
            rt->alloc_acc += grow;
            int out = rt->remaining <= 0 ? LH_ERR_BUDGET : 0;
            if (!out && rt->alloc_acc > (1u << 20)) {
                rt->alloc_acc = 0;
                if (rt->time_limit > 0 && lh_now() > rt->deadline) out = LH_ERR_TIMEOUT;
            }
            if (out) {
                rt->exhausted = out;
                if (rt->L) lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
            }
        }
    }
    void *np;
    if (ptr == NULL) {
        np = block_new(&rt->pool, nsize);
    } else if (old <= LH_POOL_MAX || nsize <= LH_POOL_MAX) {
        /* A pooled block (before or after): the same class needs nothing, else copy across. */
        if (old <= LH_POOL_MAX && nsize <= LH_POOL_MAX && pool_class(old) == pool_class(nsize)) {
            np = ptr;
            /* the same block: its bytes past the new size are out of bounds now */
            POISON((char *)ptr, class_bytes(pool_class(old)));
            UNPOISON(ptr, nsize);
        } else {
            np = block_new(&rt->pool, nsize);
            if (np == NULL) return NULL;
            memcpy(np, ptr, old < nsize ? old : nsize);
            block_free(&rt->pool, ptr, old);
        }
    } else {
        np = realloc(ptr, nsize);
    }
    if (np == NULL) return NULL;
    rt->used = rt->used - old + nsize;
    return np;
}

/* ======================================================================
 * Instruction budget
 * ====================================================================== */

__attribute__((noreturn)) static void raise_exhausted(lua_State *L, lh_runtime *rt) {
    lua_sethook(L, lh_hook, LUA_MASKCOUNT, 1);
    /* In a trial the main thread runs without a hook: a coroutine that ran out stops it too. */
    if (rt->trial && L != rt->L) lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
    if (rt->exhausted == LH_ERR_TIMEOUT)
        luaL_error(L, "time limit exceeded");
    if (rt->exhausted == LH_TRIAL_INTERRUPTED)
        luaL_error(L, "trial interrupted");
    luaL_error(L, "instruction budget exceeded");
    abort(); /* not reached */
}

/* The watchdog's signal handler, on the thread running the trial (lh_trial.c): the trial ends
 * at the main thread's next instruction (a coroutine's own hook sees `exhausted` within its
 * count), and every instruction after that raises again. Async-signal-safe: it writes plain
 * fields, and lua_sethook is made to be called from a signal handler. */
void lh_interrupt(lh_runtime *rt) {
    if (!rt->exhausted) rt->exhausted = LH_TRIAL_INTERRUPTED;
    lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
}

/* The host's own Lua (push_integers' table maker) is never where a script ran out. */
static int is_host_chunk(const lua_Debug *ar) { return strcmp(ar->short_src, "(host)") == 0; }

static void record_first_lua_frame(lua_State *L, int level, char *chunk, int *line);

static void record_where(lua_State *L, lua_Debug *ar, char *chunk, int *line) {
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) {
        if (is_host_chunk(ar)) {
            record_first_lua_frame(L, 1, chunk, line);
            return;
        }
        memcpy(chunk, ar->short_src, LUA_IDSIZE);
        chunk[LUA_IDSIZE - 1] = 0;
        *line = ar->currentline;
    }
}

/* First Lua frame at or above `level` (the host's own chunks skipped). */
static void record_first_lua_frame(lua_State *L, int level, char *chunk, int *line) {
    lua_Debug ar;
    chunk[0] = 0; *line = 0;
    for (; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && !is_host_chunk(&ar)) {
            memcpy(chunk, ar.short_src, LUA_IDSIZE);
            chunk[LUA_IDSIZE - 1] = 0;
            *line = ar.currentline;
            return;
        }
    }
}

static void exhaust(lua_State *L, lh_runtime *rt, int why) {
    rt->exhausted = why;
    record_first_lua_frame(L, 0, rt->ex_chunk, &rt->ex_line);
    raise_exhausted(L, rt);
}

static void lh_hook(lua_State *L, lua_Debug *ar) {
    lh_runtime *rt = LH_RT(L);
    if (!rt->active) return;
    if (rt->exhausted) {
        if (rt->ex_line == 0) record_where(L, ar, rt->ex_chunk, &rt->ex_line);
        raise_exhausted(L, rt);
    }
    int count = lua_gethookcount(L);
    if (count != rt->gran) {
        /* a coroutine left over from an exhausted evaluation */
        lua_sethook(L, lh_hook, LUA_MASKCOUNT, rt->gran);
        return;
    }
    rt->remaining -= count;
    if (rt->remaining <= 0) {
        rt->exhausted = LH_ERR_BUDGET;
        record_where(L, ar, rt->ex_chunk, &rt->ex_line);
        raise_exhausted(L, rt);
    }
    if (rt->time_limit > 0 && lh_now() > rt->deadline) {
        rt->exhausted = LH_ERR_TIMEOUT;
        record_where(L, ar, rt->ex_chunk, &rt->ex_line);
        raise_exhausted(L, rt);
    }
}

void lh_charge(lua_State *L, int64_t units) {
    lh_runtime *rt = LH_RT(L);
    if (!rt->active) return;
    if (rt->exhausted) {
        if (rt->ex_line == 0) record_first_lua_frame(L, 1, rt->ex_chunk, &rt->ex_line);
        raise_exhausted(L, rt);
    }
    rt->remaining -= units;
    if (rt->remaining <= 0) exhaust(L, rt, LH_ERR_BUDGET);
    if (units >= 1024 && rt->time_limit > 0 && lh_now() > rt->deadline)
        exhaust(L, rt, LH_ERR_TIMEOUT);
}

/* A trial (lh_trial.c) when asked for and available: no hook on the main thread; else metered. */
static void begin_eval(lh_runtime *rt, int trial) {
    /* The run after a trial that failed keeps its deadline: the time limit is the call's. */
    double deadline = rt->rerun ? rt->deadline : 0;
    rt->rerun = 0;
    rt->eval_id++;
    rt->remaining = rt->budget;
    rt->exhausted = 0;
    rt->ex_chunk[0] = 0; rt->ex_line = 0;
    rt->mem_refused = 0;
    rt->tb_valid = 0;
    rt->alloc_acc = 0;
    rt->gran = rt->budget < 1000 ? (rt->budget < 1 ? 1 : (int)rt->budget) : 1000;
    rt->deadline = deadline > 0 ? deadline : rt->time_limit > 0 ? lh_now() + rt->time_limit : 0;
    rt->mark = 0;
    rt->trial = trial && rt->watch != NULL;
    rt->trial_failed = 0;
    if (rt->trial) {
        lua_sethook(rt->L, NULL, 0, 0);
        lh_trial_begin(rt->watch, rt->trial_limit_ns);
    } else {
        lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, rt->gran);
    }
    rt->active = 1;
}

static void end_eval(lh_runtime *rt) {
    rt->active = 0;
    if (rt->trial) rt->trial_failed = lh_trial_end(rt->watch);
    lua_sethook(rt->L, NULL, 0, 0);
}

/* ======================================================================
 * Describing / pushing values
 * ====================================================================== */

/* The host object at idx, or NULL when the value is anything else (never raises). */
static lh_object *to_object(lua_State *L, int idx) {
    lh_object *o = (lh_object *)lua_touserdata(L, idx);
    return o && lua_rawlen(L, idx) == sizeof(lh_object) && o->magic == LH_MAGIC ? o : NULL;
}

void lh_describe(lua_State *L, int idx, lh_value *v) {
    int t = lua_type(L, idx);
    v->aux = 0; v->i = 0; v->n = 0; v->s = NULL; v->len = 0;
    switch (t) {
        case LUA_TNONE: case LUA_TNIL: v->kind = LH_NIL; break;
        case LUA_TBOOLEAN: v->kind = LH_BOOLEAN; v->aux = lua_toboolean(L, idx); break;
        case LUA_TNUMBER:
            if (lua_isinteger(L, idx)) { v->kind = LH_INTEGER; v->i = lua_tointegerx(L, idx, NULL); }
            else { v->kind = LH_NUMBER; v->n = lua_tonumberx(L, idx, NULL); }
            break;
        case LUA_TSTRING: v->kind = LH_STRING; v->s = lua_tolstring(L, idx, &v->len); break;
        case LUA_TTABLE: v->kind = LH_TABLE; v->aux = lua_absindex(L, idx); break;
        case LUA_TFUNCTION: v->kind = LH_FUNCTION; v->aux = lua_absindex(L, idx); break;
        case LUA_TUSERDATA: {
            lh_object *o = to_object(L, idx);
            if (o) {
                v->kind = LH_OBJECT; v->aux = o->cls; v->i = o->id;
            } else { v->kind = LH_OTHER; v->aux = lua_absindex(L, idx); }
            break;
        }
        default: v->kind = LH_OTHER; v->aux = lua_absindex(L, idx); break;
    }
}

static void keep_object(lua_State *L, lh_runtime *rt);

/* Objects are interned: while Lua holds the userdata of (class, id), pushing that object again
 * pushes the same userdata, so two reads of one entity are raw-equal and share the fields one
 * of them cached. Per class, a table id -> userdata with weak values (interned_ref[class]).
 * `fresh`: the host says the object was never pushed before, so there is none to look for (and
 * no words waiting for it). */
static void push_object_as(lua_State *L, int32_t cls, int64_t id, int fresh) {
    lh_runtime *rt = LH_RT(L);
    luaL_checkstack(L, 6, NULL);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->interned_ref);
    if (lua_rawgeti(L, -1, cls) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 64);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v"); lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, cls);
    }
    if (!fresh) {
        if (lua_rawgeti(L, -1, (lua_Integer)id) == LUA_TUSERDATA) {
            lua_replace(L, -3);
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
    }
    int slots = cls > 0 && cls < rt->nclasses ? rt->class_slots[cls] : 0;
    lh_object *o = (lh_object *)lua_newuserdatauv(L, sizeof(lh_object), 1 + slots);
    o->magic = LH_MAGIC; o->cls = cls; o->id = id; o->epoch = 0;
    o->slot_epoch = 0; o->filled = 0;
    o->words_tag = 0; o->words_mask = 0;
    if (!fresh && word_fields_of(rt, cls) != NULL) take_words(rt, o);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->classes_ref);
    if (lua_rawgeti(L, -1, cls) != LUA_TTABLE)
        luaL_error(L, "unknown host object class %d", (int)cls);
    lua_setmetatable(L, -3);
    lua_pop(L, 1);
    /* stack: interned, by-class, object */
    if (cls > 0 && cls < rt->kept_classes_cap && rt->kept_classes[cls]) keep_object(L, rt);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)id);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

static void push_object(lua_State *L, int32_t cls, int64_t id) { push_object_as(L, cls, id, 0); }

/* Keeps the object on top of the stack referenced until the field epoch ends (the table of
 * the epoch before is let go when the first object of a new one is kept). */
static void keep_object(lua_State *L, lh_runtime *rt) {
    uint64_t tag = rt->epoch + 1;
    if (rt->kept_tag != tag) {
        lua_createtable(L, 16, 0);
        lua_rawseti(L, LUA_REGISTRYINDEX, rt->kept_ref);
        rt->kept_tag = tag;
        rt->kept_count = 0;
    }
    if (rt->kept_count >= LH_KEPT_MAX) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->kept_ref);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, ++rt->kept_count);
    lua_pop(L, 1);
}

int lh_class_keep_objects(lh_runtime *rt, int32_t classid) {
    if (classid <= 0) return LH_ERR_RUNTIME;
    if (classid >= rt->kept_classes_cap) {
        int cap = classid + 8;
        unsigned char *kept = (unsigned char *)realloc(rt->kept_classes, (size_t)cap);
        if (kept == NULL) return LH_ERR_MEMORY;
        memset(kept + rt->kept_classes_cap, 0, (size_t)(cap - rt->kept_classes_cap));
        rt->kept_classes = kept;
        rt->kept_classes_cap = cap;
    }
    rt->kept_classes[classid] = 1;
    return LH_OK;
}

/* Pushes a new sequence { items[0], ..., items[n-1] }. Up to LH_PACK_MAX items go through the
 * runtime's `pack` (a Lua function `function(...) return { ... } end`): its table constructor
 * sizes the array once and copies the stack into it (OP_SETLIST), about a third of the
 * instructions of one lua_rawseti per item. Longer sequences, or a stack that cannot grow,
 * take the plain loop. Raises on memory errors (C only). */
#define LH_PACK_MAX 8192
static void push_integers(lua_State *L, const int64_t *items, int n) {
    lh_runtime *rt = LH_RT(L);
    if (n > 4 && n <= LH_PACK_MAX && rt->pack_ref > 0 && lua_checkstack(L, n + 2)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, rt->pack_ref);
        for (int j = 0; j < n; j++) lua_pushinteger(L, (lua_Integer)items[j]);
        lua_call(L, n, 1);
        return;
    }
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        lua_pushinteger(L, (lua_Integer)items[j]);
        lua_rawseti(L, -2, j + 1);
    }
}

/* Pushes one value of the tape (raises on memory errors: C only). */
static void push_one(lua_State *L, const lh_tape *t, int32_t *pos, int depth) {
    if (*pos >= t->count) luaL_error(L, "malformed value tape");
    const lh_value *v = &t->values[(*pos)++];
    if (depth > 200) luaL_error(L, "value nested too deeply");
    luaL_checkstack(L, 4, "value nested too deeply");
    switch (v->kind) {
        case LH_NIL: lua_pushnil(L); break;
        case LH_BOOLEAN: lua_pushboolean(L, v->aux); break;
        case LH_INTEGER: lua_pushinteger(L, (lua_Integer)v->i); break;
        case LH_NUMBER: lua_pushnumber(L, (lua_Number)v->n); break;
        case LH_STRING: lua_pushlstring(L, t->arena + v->i, v->len); break;
        case LH_REF: lua_rawgeti(L, LUA_REGISTRYINDEX, (lua_Integer)v->i); break;
        case LH_OBJECT: push_object(L, v->aux, v->i); break;
        case LH_NEWTABLE: {
            int narr = v->aux, nhash = (int)v->len;
            lua_createtable(L, narr, nhash);
            for (int j = 0; j < narr; j++) {
                push_one(L, t, pos, depth + 1);
                lua_rawseti(L, -2, j + 1);
            }
            for (int j = 0; j < nhash; j++) {
                push_one(L, t, pos, depth + 1);
                push_one(L, t, pos, depth + 1);
                lua_rawset(L, -3);
            }
            break;
        }
        case LH_INTARRAY: {
            if (v->len > (size_t)INT_MAX) luaL_error(L, "array too long");
            push_integers(L, (const int64_t *)(const void *)(t->arena + v->i), (int)v->len);
            break;
        }
        default: luaL_error(L, "invalid value kind %d", (int)v->kind);
    }
}

static void push_tape_raw(lua_State *L, const lh_tape *t) {
    int32_t pos = 0;
    if (t == NULL) return;
    luaL_checkstack(L, t->ntop + 4, "too many values");
    for (int32_t j = 0; j < t->ntop; j++) push_one(L, t, &pos, 0);
}

static int map_status(int st) {
    return st == LUA_ERRMEM ? LH_ERR_MEMORY : (st == LUA_OK ? LH_OK : LH_ERR_RUNTIME);
}

/* ======================================================================
 * Read-only tables
 * ====================================================================== */

/* Pushes the backing table of frozen table `idx`, or the table itself. */
static void push_backing(lua_State *L, int idx) {
    lh_runtime *rt = LH_RT(L);
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->frozen_ref);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushvalue(L, idx);
    }
    lua_remove(L, -2);
}

static int is_frozen(lua_State *L, int idx) {
    lh_runtime *rt = LH_RT(L);
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->frozen_ref);
    lua_pushvalue(L, idx);
    int r = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return r;
}

__attribute__((noreturn)) static void ro_error(lua_State *L, int idx) {
    const char *name = "?";
    if (lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    luaL_error(L, "attempt to modify read-only table '%s'", name);
    abort();
}

static int ro_newindex(lua_State *L) { ro_error(L, 1); }

static int ro_len(lua_State *L) {
    push_backing(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

static int raw_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int ro_pairs(lua_State *L) {
    lua_pushcfunction(L, raw_next);
    push_backing(L, 1);
    lua_pushnil(L);
    return 3;
}

static void freeze_table(lua_State *L, int t, const char *name, int deep, int depth) {
    lh_runtime *rt = LH_RT(L);
    t = lua_absindex(L, t);
    if (depth > LH_MAX_FREEZE_DEPTH) luaL_error(L, "freeze: tables nested too deeply");
    luaL_checkstack(L, 10, NULL);
    if (is_frozen(L, t)) return;
    if (lua_getmetatable(L, t)) { lua_pop(L, 1); return; }
    lua_newtable(L);
    int b = lua_gettop(L);
    /* register first so that cycles terminate */
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->frozen_ref);
    lua_pushvalue(L, t); lua_pushvalue(L, b); lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (deep && lua_type(L, -1) == LUA_TTABLE)
            freeze_table(L, -1, name, deep, depth + 1);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, b);
    }
    lua_pushnil(L);
    while (lua_next(L, b)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, t);
    }
    lua_createtable(L, 0, 6);
    lua_pushvalue(L, b); lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex); lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, ro_len); lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, ro_pairs); lua_setfield(L, -2, "__pairs");
    lua_pushstring(L, name); lua_setfield(L, -2, "__lh_name");
    lua_pushboolean(L, 0); lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, t);
    lua_settop(L, b - 1);
}

/* ======================================================================
 * Sandbox base functions
 * ====================================================================== */

static void push_new_env(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    luaL_checkstack(L, 3, NULL);
    lua_createtable(L, 0, 4);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->env_mt_ref);
    lua_setmetatable(L, -2);
    lua_pushliteral(L, "_G");
    lua_pushvalue(L, -2);
    lua_rawset(L, -3);
}

static int sb_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    push_backing(L, 1);
    lua_replace(L, 1);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int sb_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    push_backing(L, 1);
    lua_replace(L, 1);
    lua_rawget(L, 1);
    return 1;
}

static int sb_rawlen(lua_State *L) {
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    if (t == LUA_TTABLE) { push_backing(L, 1); lua_replace(L, 1); }
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

static int sb_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (is_frozen(L, 1)) ro_error(L, 1);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int sb_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: metatables with __gc are not allowed in the sandbox");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static int sb_collectgarbage(lua_State *L) {
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage: only \"count\" is available in the sandbox");
    int k = lua_gc(L, LUA_GCCOUNT);
    int b = lua_gc(L, LUA_GCCOUNTB);
    lua_pushnumber(L, (lua_Number)k + ((lua_Number)b / 1024));
    return 1;
}

static int sb_print(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    lua_Debug ar;
    const char *chunk = "?"; size_t chunklen = 1;
    char src[LUA_IDSIZE];
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "S", &ar) && ar.what[0] != 'C') {
            memcpy(src, ar.short_src, LUA_IDSIZE); src[LUA_IDSIZE - 1] = 0;
            chunk = src; chunklen = strlen(src);
            break;
        }
    }
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        size_t l;
        const char *s = luaL_tolstring(L, i, &l);
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_addlstring(&b, s, l);
        lua_pop(L, 1);
    }
    luaL_pushresult(&b);
    size_t ml;
    const char *msg = lua_tolstring(L, -1, &ml);
    if (rt->print_cb) rt->print_cb(rt->ctx, chunk, chunklen, msg, ml);
    return 0;
}

/* load(chunk [, chunkname [, mode [, env]]]): text strings only. */
static int sb_load(lua_State *L) {
    size_t l;
    const char *s = lua_tolstring(L, 1, &l);
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "load: only string chunks are allowed in the sandbox");
    const char *chunkname = luaL_optstring(L, 2, "=(load)");
    const char *mode = luaL_optstring(L, 3, "t");
    int hasenv = !lua_isnone(L, 4);
    int st;
    if (strchr(mode, 't') == NULL) {
        lua_pushnil(L);
        lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
        return 2;
    }
    st = luaL_loadbufferx(L, s, l, chunkname, "t");
    if (st != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (hasenv) lua_pushvalue(L, 4); else push_new_env(L);
    lua_setupvalue(L, -2, 1);
    return 1;
}

/* require(name): modules from the configured rule roots only. */
static int valid_module_name(const char *s, size_t l) {
    if (l == 0 || l > 200 || s[0] == '.' || s[l - 1] == '.') return 0;
    for (size_t i = 0; i < l; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z')))
            return 0;
        if (c == '.' && s[i + 1] == '.') return 0;
    }
    return 1;
}

static int sb_require(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    size_t l;
    const char *name = luaL_checklstring(L, 1, &l);
    if (lua_type(L, 1) != LUA_TSTRING || !valid_module_name(name, l))
        return luaL_error(L, "require: invalid module name '%s' (use letters, digits, '_' and '.')", name);
    lua_settop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->modules_ref); /* 2 */
    lua_pushvalue(L, 1);
    int t = lua_rawget(L, 2);
    if (t == LUA_TLIGHTUSERDATA)
        return luaL_error(L, "require: module '%s' is being loaded (circular require)", name);
    if (t != LUA_TNIL) return 1;
    lua_pop(L, 1);

    char rel[256];
    for (size_t i = 0; i <= l; i++) rel[i] = name[i] == '.' ? '/' : name[i];
    for (int r = 0; r < rt->nroots; r++) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s.lua", rt->roots[r], rel) >= (int)sizeof path) continue;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        /* the resolved file must stay inside the root (no symlink escapes) */
        char real[PATH_MAX];
        if (realpath(path, real) == NULL) continue;
        size_t rl = strlen(rt->roots[r]);
        if (strncmp(real, rt->roots[r], rl) != 0 || real[rl] != '/') continue;
        if ((size_t)st.st_size > LH_MAX_MODULE_SIZE)
            return luaL_error(L, "require: module '%s' is too large", name);
        size_t size = (size_t)st.st_size;
        char *buf = (char *)lua_newuserdatauv(L, size ? size : 1, 0); /* 3: GC-owned */
        FILE *f = fopen(real, "rb");
        if (f == NULL) return luaL_error(L, "require: cannot open module '%s'", name);
        size_t got = fread(buf, 1, size, f);
        fclose(f);
        if (got != size) return luaL_error(L, "require: cannot read module '%s'", name);
        lua_pushfstring(L, "@%s/%s.lua", rt->root_names[r], rel); /* 4 */
        int lst = luaL_loadbufferx(L, buf, size, lua_tostring(L, 4), "t"); /* 5 */
        if (lst != LUA_OK) return lua_error(L);
        push_new_env(L);
        lua_setupvalue(L, 5, 1);
        /* mark as loading */
        lua_pushvalue(L, 1);
        lua_pushlightuserdata(L, &tb_key);
        lua_rawset(L, 2);
        int cst = lua_pcall(L, 0, 1, 0); /* 5: result or error */
        lua_pushvalue(L, 1);
        if (cst != LUA_OK) {
            lua_pushnil(L);
            lua_rawset(L, 2);
            return lua_error(L);
        }
        if (lua_isnil(L, 5)) { lua_pushboolean(L, 1); lua_replace(L, 5); }
        /* One module value is shared by every plugin that requires it: read-only, so no
         * plugin can change what another one calls (e.g. replace a helper with a no-op). */
        if (lua_type(L, 5) == LUA_TTABLE) {
            lua_pushfstring(L, "module %s", name); /* 7 */
            freeze_table(L, 5, lua_tostring(L, 7), 1, 0);
            lua_settop(L, 6);
        }
        lua_pushvalue(L, 5);
        lua_rawset(L, 2);
        return 1;
    }
    return luaL_error(L, "require: module '%s' not found in the rule roots", name);
}

/* xpcall: the message handler runs inside the erroring frame; when the error
 * was raised by the budget hook, hooks are still disabled there, so a looping
 * handler could never be stopped. Once the budget is exhausted the user's
 * handler is therefore skipped and the error passes through unchanged. */
static int xpcall_msgh(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    if (rt->exhausted) { lua_settop(L, 1); return 1; }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finishpcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_msgh, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finishpcall);
    return finishpcall(L, status, 2);
}

/* math.random: reseeded with 0 on first use in every evaluation. */
static int sb_random(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    if (rt->random_eval != rt->eval_id) {
        rt->random_eval = rt->eval_id;
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_pushinteger(L, 0);
        lua_call(L, 1, 0);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* coroutine.create / wrap that install the budget hook on the new thread */
static void hook_thread(lh_runtime *rt, lua_State *co) {
    lua_sethook(co, lh_hook, LUA_MASKCOUNT, rt->exhausted ? 1 : rt->gran);
}

static int sb_cocreate(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    hook_thread(LH_RT(L), co);
    return 1;
}

static int auxresume(lua_State *L, lua_State *co, int narg) {
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    status = lua_resume(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    } else {
        lua_xmove(co, L, 1);
        return -1;
    }
}

static int auxwrap(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = auxresume(L, co, lua_gettop(L));
    if (r < 0) {
        int stat = lua_status(co);
        if (stat != LUA_OK && stat != LUA_YIELD) {
            stat = lua_resetthread(co);
            lua_xmove(co, L, 1);
        }
        if (stat != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return r;
}

static int sb_cowrap(lua_State *L) {
    sb_cocreate(L);
    lua_pushcclosure(L, auxwrap, 1);
    return 1;
}

/* table.insert/remove/move/sort: charge their C loops to the budget */
enum { CH_LEN = 1, CH_MOVE = 2, CH_SORT = 3 };

static int sb_charged(lua_State *L) {
    int kind = (int)lua_tointegerx(L, lua_upvalueindex(2), NULL);
    if (lua_type(L, 1) == LUA_TTABLE) {
        int64_t cost = 0;
        if (kind == CH_MOVE) {
            lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
            cost = e >= f ? (int64_t)((lua_Unsigned)e - (lua_Unsigned)f) : 0;
            if (cost < 0) cost = INT64_MAX / 2;
        } else {
            lua_Integer n = luaL_len(L, 1);
            cost = n > 0 ? n : 0;
            if (kind == CH_SORT && n > 1) cost = (int64_t)((double)n * log2((double)n));
        }
        lh_charge(L, cost);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* Reads the named fields of the table at `idx` in one raw pass (a read-only table's backing
 * table): out[k] describes the value under names[k] (nil when absent), as lh_describe would.
 * Values that live on the stack (tables, functions, others) are left on it above the previous
 * top, so their stack indices stay valid until the caller resets the top; strings point into
 * the Lua strings, which the table keeps alive. Returns how many entries have a key that is not
 * one of the names (or is not a string), and *unknown is the stack index of the first such key
 * (left on the stack) or 0; -1 when the stack cannot grow, -2 when the table has more than
 * `limit` entries. Never raises and allocates nothing: it pushes at most n + 6 values, checked
 * first, so a host function may call it. */
int lh_read_fields(lua_State *L, int idx, int n, const char *const *names, const size_t *lens,
                   int64_t limit, lh_value *out, int *unknown) {
    *unknown = 0;
    if (!lua_checkstack(L, n + 6)) return -1;
    idx = lua_absindex(L, idx);
    memset(out, 0, sizeof *out * (size_t)n); /* LH_NIL */
    /* A frozen table has a metatable (its proxy's); a table built for the call, the usual
     * options or report table, has none and is read as it is. */
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        push_backing(L, idx);
    } else {
        lua_pushvalue(L, idx);
    }
    int t = lua_gettop(L);
    int strays = 0;
    int64_t entries = 0;
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        if (++entries > limit) return -2;
        int k = n;
        if (lua_type(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *key = lua_tolstring(L, -2, &len);
            /* the length and the first byte settle most names without a call to memcmp */
            for (k = 0; k < n; k++)
                if (lens[k] == len && (len == 0 || (names[k][0] == key[0] && memcmp(names[k], key, len) == 0))) break;
        }
        if (k == n) {
            lua_pop(L, 1);
            if (strays++ == 0) {
                /* keep a copy of the key below the one the iteration goes on from */
                lua_pushvalue(L, -1);
                *unknown = lua_gettop(L) - 1;
            }
            continue;
        }
        lh_describe(L, -1, &out[k]);
        if (out[k].kind == LH_TABLE || out[k].kind == LH_FUNCTION || out[k].kind == LH_OTHER) {
            /* a value described by its stack index: keep it on the stack, below the key */
            lua_rotate(L, -2, 1);
            out[k].aux = lua_gettop(L) - 1;
        } else {
            lua_pop(L, 1);
        }
    }
    return strays;
}

/* ======================================================================
 * Host functions and host objects
 * ====================================================================== */

/* Raises the host's error message (the first value of `out`, a string) at the line of the Lua
 * code that called the running C function. */
static int raise_host_error(lua_State *L, const lh_tape *out) {
    luaL_where(L, 1);
    if (out->count > 0 && out->values[0].kind == LH_STRING)
        lua_pushlstring(L, out->arena + out->values[0].i, out->values[0].len);
    else
        lua_pushliteral(L, "host function failed");
    lua_concat(L, 2);
    return lua_error(L);
}

/* Calls host function `fnid` with the stack values from `base` to the top as its arguments and
 * pushes its results above them; returns how many. Raises the host's error message (the host
 * frame has returned by then). */
static int call_host_from(lua_State *L, int64_t fnid, int base) {
    lh_runtime *rt = LH_RT(L);
    int n = lua_gettop(L) - base + 1;
    if (n > rt->argcap) {
        int cap = n < 16 ? 16 : n;
        lh_value *a = (lh_value *)realloc(rt->args, sizeof(lh_value) * (size_t)cap);
        if (a == NULL) return luaL_error(L, "not enough memory for host call arguments");
        rt->args = a; rt->argcap = cap;
    }
    for (int i = 0; i < n; i++) lh_describe(L, base + i, &rt->args[i]);
    lh_tape out = {0};
    int st = rt->host_cb(rt->ctx, L, fnid, rt->args, n, &out);
    if (st != 0) return raise_host_error(L, &out);
    int top = lua_gettop(L);
    push_tape_raw(L, &out);
    return lua_gettop(L) - top;
}

static int call_host(lua_State *L, int64_t fnid) { return call_host_from(L, fnid, 1); }

static int lh_trampoline(lua_State *L) {
    return call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
}

/* Whether a field's value may be cached: never a table (one table every plugin could write). */
static int cacheable(lua_State *L, int idx) {
    int t = lua_type(L, idx);
    return t == LUA_TNIL || t == LUA_TBOOLEAN || t == LUA_TNUMBER || t == LUA_TSTRING
        || (t == LUA_TUSERDATA && to_object(L, idx) != NULL);
}

/* ======================================================================
 * Fields served from objects' words (lh_class_set_word_fields, lh_set_words)
 * ====================================================================== */

struct lh_word_fields {
    uint8_t sources[LH_MAX_DECLARED_FIELDS];
    int32_t classes[LH_MAX_DECLARED_FIELDS];
};

struct lh_words_entry {
    int64_t id;
    uint64_t tag;   /* the field epoch + 1 it was set in (0: never used) */
    int32_t cls;
    uint32_t mask;
    int64_t w[LH_OBJECT_WORDS];
};

/* Words are set by the host just before it hands the object over, and taken into the object
 * when it is pushed (or, for an object that exists already, when a field is read). Until then
 * they wait in an open-addressing table by class and id; taking them removes them, so the table
 * holds what is on its way (a few entries, or a query's results) and stays in the cache. An
 * entry of an older field epoch is a free slot. */
static size_t words_home(int32_t cls, int64_t id, size_t mask) {
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)cls * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h >> 32) & mask;
}

/* The slot holding (cls, id), or the free slot where it would go. */
static struct lh_words_entry *words_find(struct lh_words_entry *table, size_t cap, uint64_t tag, int32_t cls, int64_t id) {
    size_t mask = cap - 1;
    for (size_t i = words_home(cls, id, mask);; i = (i + 1) & mask) {
        struct lh_words_entry *e = &table[i];
        if (e->tag != tag || (e->id == id && e->cls == cls)) return e;
    }
}

/* Copies the words of `mask` (the others 0) into `to`; returns the mask kept. */
static uint32_t copy_words(int64_t *to, uint32_t mask, const int64_t *words) {
    mask &= (1u << LH_OBJECT_WORDS) - 1;
    for (int j = 0; j < LH_OBJECT_WORDS; j++) to[j] = (mask >> j & 1) ? words[j] : 0;
    return mask;
}

void lh_set_words(lh_runtime *rt, int32_t cls, int64_t id, uint32_t mask, const int64_t *words) {
    uint64_t tag = rt->epoch + 1;
    if (rt->words_tag != tag) {
        /* A new epoch: every entry is free. A table a big query grew goes back to its first size. */
        rt->words_tag = tag;
        rt->words_count = 0;
        if (rt->words_cap > 4096) { free(rt->words); rt->words = NULL; rt->words_cap = 0; }
    }
    struct lh_words_entry *e = rt->words_cap ? words_find(rt->words, rt->words_cap, tag, cls, id) : NULL;
    if (e == NULL || e->tag != tag) {
        /* A new entry: the table may have to grow first (words set again replace their entry
         * in place, so that a failed growth never leaves older words behind). */
        if ((rt->words_count + 1) * 4 > rt->words_cap * 3) {
            size_t cap = rt->words_cap ? rt->words_cap * 2 : 1024;
            struct lh_words_entry *table = (struct lh_words_entry *)calloc(cap, sizeof *table);
            if (table == NULL) return; /* the object's fields stay the host's: slower, not wrong */
            for (size_t i = 0; i < rt->words_cap; i++) {
                const struct lh_words_entry *old = &rt->words[i];
                if (old->tag == tag) *words_find(table, cap, tag, old->cls, old->id) = *old;
            }
            free(rt->words);
            rt->words = table;
            rt->words_cap = cap;
        }
        e = words_find(rt->words, rt->words_cap, tag, cls, id);
        rt->words_count++;
    }
    e->id = id; e->cls = cls; e->tag = tag;
    e->mask = copy_words(e->w, mask, words);
}

/* Gives the object words of its own for this field epoch unless it has some already. */
static void give_words(lh_runtime *rt, lh_object *o, uint32_t mask, const int64_t *words) {
    uint64_t tag = rt->epoch + 1;
    if (mask == 0 || o->words_tag == tag) return;
    o->words_tag = tag;
    o->words_mask = copy_words(o->words, mask, words);
}

/* Takes the object's waiting words, if any were set in this field epoch, out of the table
 * (linear probing's deletion: later entries of the run move back into the hole). */
static void take_words(lh_runtime *rt, lh_object *o) {
    uint64_t tag = rt->epoch + 1;
    if (rt->words_count == 0 || rt->words_tag != tag) return;
    size_t mask = rt->words_cap - 1;
    struct lh_words_entry *table = rt->words;
    struct lh_words_entry *e = words_find(table, rt->words_cap, tag, o->cls, o->id);
    if (e->tag != tag) return;
    o->words_tag = tag;
    o->words_mask = e->mask;
    memcpy(o->words, e->w, sizeof o->words);
    size_t hole = (size_t)(e - table);
    for (size_t j = (hole + 1) & mask; table[j].tag == tag; j = (j + 1) & mask) {
        size_t home = words_home(table[j].cls, table[j].id, mask);
        /* table[j] may fill the hole when its home is not within (hole, j] (cyclically) */
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) { table[hole] = table[j]; hole = j; }
    }
    table[hole].tag = 0;
    rt->words_count--;
}

int lh_class_set_word_fields(lh_runtime *rt, int32_t cls, int nfields, const uint8_t *sources, const int32_t *classes) {
    if (cls <= 0 || cls >= rt->nclasses || nfields > rt->class_slots[cls]) return LH_ERR_RUNTIME;
    for (int k = 0; k < nfields; k++) {
        int kind = sources[k] >> 4, word = sources[k] & 15;
        if (sources[k] != 0 && (kind < LH_WORD_INTEGER || kind > LH_WORD_OBJECT || word >= LH_OBJECT_WORDS)) return LH_ERR_RUNTIME;
        if (kind == LH_WORD_OBJECT && (classes == NULL || classes[k] <= 0 || classes[k] >= rt->nclasses)) return LH_ERR_RUNTIME;
    }
    if (rt->word_fields == NULL || rt->words_classes < rt->nclasses) {
        struct lh_word_fields **all = (struct lh_word_fields **)realloc(rt->word_fields, sizeof *all * (size_t)rt->nclasses);
        if (all == NULL) return LH_ERR_MEMORY;
        for (int c = rt->words_classes; c < rt->nclasses; c++) all[c] = NULL;
        rt->word_fields = all;
        rt->words_classes = rt->nclasses;
    }
    struct lh_word_fields *wf = rt->word_fields[cls];
    if (wf != NULL) memset(wf, 0, sizeof *wf);
    else if ((wf = (struct lh_word_fields *)calloc(1, sizeof *wf)) == NULL) return LH_ERR_MEMORY;
    for (int k = 0; k < nfields; k++) { wf->sources[k] = sources[k]; wf->classes[k] = classes ? classes[k] : 0; }
    rt->word_fields[cls] = wf;
    return LH_OK;
}

/* Pushes "YYYY-MM-DD" for `day` days since 1970-01-01 (years 1 to 9999, else returns 0 and
 * pushes nothing). The strings made are kept by day, up to 65,536 of them. */
static int push_date(lua_State *L, lh_runtime *rt, int64_t day) {
    if (day < -719162 || day > 2932896) return 0;
    luaL_checkstack(L, 3, NULL);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->dates_ref);
    if (lua_rawgeti(L, -1, (lua_Integer)day) == LUA_TSTRING) { lua_remove(L, -2); return 1; }
    lua_pop(L, 1);
    /* days to civil (H. Hinnant's algorithm) */
    int64_t z = day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    char text[10] = {
        (char)('0' + y / 1000 % 10), (char)('0' + y / 100 % 10), (char)('0' + y / 10 % 10), (char)('0' + y % 10), '-',
        (char)('0' + m / 10), (char)('0' + m % 10), '-', (char)('0' + d / 10), (char)('0' + d % 10) };
    lua_pushlstring(L, text, sizeof text);
    if (rt->dates_count >= 65536) {
        lua_pop(L, 2);
        lua_newtable(L);
        lua_rawseti(L, LUA_REGISTRYINDEX, rt->dates_ref);
        rt->dates_count = 0;
        return push_date(L, rt, day);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)day);
    rt->dates_count++;
    lua_remove(L, -2);
    return 1;
}

static const struct lh_word_fields *word_fields_of(const lh_runtime *rt, int32_t cls) {
    return cls > 0 && cls < rt->words_classes ? rt->word_fields[cls] : NULL;
}

/* Declared field k (0-based) of `o` served from its words: 1 with the value pushed, or 0 (the
 * class does not serve it so, or the object has no such word in this field epoch). */
static int word_field(lua_State *L, lh_runtime *rt, lh_object *o, int k) {
    const struct lh_word_fields *wf = word_fields_of(rt, o->cls);
    if (wf == NULL || k < 0 || k >= LH_MAX_DECLARED_FIELDS || wf->sources[k] == 0) return 0;
    if (o->words_tag != rt->epoch + 1) take_words(rt, o);
    int word = wf->sources[k] & 15;
    if (o->words_tag != rt->epoch + 1 || !(o->words_mask >> word & 1)) return 0;
    int64_t v = o->words[word];
    switch (wf->sources[k] >> 4) {
        case LH_WORD_INTEGER: lua_pushinteger(L, (lua_Integer)v); return 1;
        case LH_WORD_DATE: return push_date(L, rt, v);
        case LH_WORD_OBJECT:
            if (v == 0) lua_pushnil(L); else push_object(L, wf->classes[k], v);
            return 1;
        default: return 0;
    }
}

/* A declared field (upvalue 5 maps its name to k): served from the object's slot k when the
 * host filled it in this field epoch, else asked of the host with k as a third argument (no
 * name to compare) and kept in the slot. */
static int declared_field(lua_State *L, lh_runtime *rt, lh_object *o, int k) {
    uint64_t bit = (uint64_t)1 << k;
    if (o != NULL && word_field(L, rt, o, k - 1)) return 1;
    if (o != NULL) {
        if (o->slot_epoch != rt->epoch) {
            o->slot_epoch = rt->epoch;
            o->filled = 0;
        } else if (o->filled & bit) {
            lua_getiuservalue(L, 1, k + 1);
            return 1;
        }
    }
    lua_pushinteger(L, k);
    int n = call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
    if (o != NULL && n == 1 && cacheable(L, -1)) {
        lua_pushvalue(L, -1);
        if (lua_setiuservalue(L, 1, k + 1)) o->filled |= bit;
    }
    return n;
}

/* A host object's __index. Upvalues: 1 the class's index function id, 2 its name, 3 the
 * class's static fields (a table: methods), 4 whether fields are cached, 5 its declared fields
 * (name -> k, or nil), read first, then the static fields, then the host.
 * A cached class keeps each other field it served (strings, numbers, booleans, nil, host
 * objects; never tables, which Lua could change) in the object's user value, valid while the
 * runtime's field epoch stands: the host moves the epoch on whenever what its objects show
 * may change, and an object of an older epoch asks the host again (which may refuse it). */
static int obj_index(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 2);
    if (lua_type(L, lua_upvalueindex(5)) == LUA_TTABLE && lua_type(L, 2) == LUA_TSTRING) {
        lh_object *o = to_object(L, 1);
        /* The key's bytes against the declared names' (interned strings: equal names are one
         * string), then, for a name that is not short, the table of names. */
        if (o != NULL && o->cls > 0 && o->cls < rt->nclasses && rt->class_names[o->cls] != NULL) {
            const char *key = lua_tolstring(L, 2, NULL);
            const char *const *names = rt->class_names[o->cls];
            for (int k = 0, n = rt->class_slots[o->cls]; k < n; k++)
                if (names[k] == key) return declared_field(L, rt, o, k + 1);
        }
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(5)) == LUA_TNUMBER) {
            int k = (int)lua_tointegerx(L, -1, NULL);
            lua_pop(L, 1);
            return declared_field(L, rt, o, k);
        }
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(3)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lh_object *o = lua_toboolean(L, lua_upvalueindex(4)) && lua_type(L, 2) == LUA_TSTRING ? to_object(L, 1) : NULL;
    if (o != NULL && o->epoch == rt->epoch) {
        if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
            lua_pushvalue(L, 2);
            int t = lua_rawget(L, -2);
            if (t == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == &nil_mark) { lua_pushnil(L); return 1; }
            if (t != LUA_TNIL) return 1;
        }
        lua_settop(L, 2);
    }
    int n = call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
    if (o == NULL || n != 1) return n;
    if (!cacheable(L, -1)) return 1;
    luaL_checkstack(L, 4, NULL);
    if (o->epoch != rt->epoch || lua_getiuservalue(L, 1, 1) != LUA_TTABLE) {
        if (o->epoch == rt->epoch) lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
        o->epoch = rt->epoch;
    }
    lua_pushvalue(L, 2);
    if (lua_type(L, -3) == LUA_TNIL) lua_pushlightuserdata(L, &nil_mark); else lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return 1;
}

static int obj_newindex(lua_State *L) {
    const char *name = "object";
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    return luaL_error(L, "attempt to modify read-only object '%s'", name);
}

static int obj_eq(lua_State *L) {
    lh_value a, b;
    lh_describe(L, 1, &a);
    lh_describe(L, 2, &b);
    lua_pushboolean(L, a.kind == LH_OBJECT && b.kind == LH_OBJECT && a.aux == b.aux && a.i == b.i);
    return 1;
}

static int obj_tostring(lua_State *L) {
    lh_value a;
    const char *name = "object";
    lh_describe(L, 1, &a);
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    lua_pushfstring(L, "%s: %I", name, (lua_Integer)a.i);
    return 1;
}

/* ======================================================================
 * Protected helpers
 * ====================================================================== */

static int ref_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_settop(L, 2);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_ref_at(lua_State *L, int idx, int *ref) {
    idx = lua_absindex(L, idx);
    *ref = LUA_NOREF;
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, ref_entry);
    lua_pushlightuserdata(L, ref);
    lua_pushvalue(L, idx);
    int st = lua_pcall(L, 2, 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return map_status(st);
}

struct unref_params { const int *refs; int n; };
static int unref_entry(lua_State *L) {
    struct unref_params *p = (struct unref_params *)lua_touserdata(L, 1);
    for (int i = 0; i < p->n; i++) luaL_unref(L, LUA_REGISTRYINDEX, p->refs[i]);
    return 0;
}

/* Runs `entry` with `params` (a light userdata argument) in protected mode: LH_OK, or the
 * error's status with nothing left on the stack. */
static int run_protected(lua_State *L, lua_CFunction entry, void *params) {
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, entry);
    lua_pushlightuserdata(L, params);
    int st = lua_pcall(L, 1, 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return map_status(st);
}

int lh_unref(lua_State *L, const int *refs, int n) {
    struct unref_params p = { refs, n };
    return run_protected(L, unref_entry, &p);
}

static int push_tape_entry(lua_State *L) {
    const lh_tape *t = (const lh_tape *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    push_tape_raw(L, t);
    return lua_gettop(L);
}

int lh_push_tape(lua_State *L, const lh_tape *tape) {
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, push_tape_entry);
    lua_pushlightuserdata(L, (void *)tape);
    int st = lua_pcall(L, 1, tape ? tape->ntop : 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return map_status(st);
}

struct field_params { int tref; const char *key; size_t keylen; const lh_tape *value; };

static int rawget_entry(lua_State *L) {
    struct field_params *p = (struct field_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE) {
        lua_pushnil(L);
        return 1;
    }
    push_backing(L, 1);
    lua_pushlstring(L, p->key, p->keylen);
    lua_rawget(L, -2);
    return 1;
}

int lh_rawget_field(lua_State *L, int tref, const char *key, size_t keylen) {
    struct field_params p = { tref, key, keylen, NULL };
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, rawget_entry);
    lua_pushlightuserdata(L, &p);
    int st = lua_pcall(L, 1, 1, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return map_status(st);
}

static int rawset_entry(lua_State *L) {
    struct field_params *p = (struct field_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE)
        return luaL_error(L, "not a table");
    push_backing(L, 1);
    lua_pushlstring(L, p->key, p->keylen);
    push_tape_raw(L, p->value);
    lua_settop(L, 4);
    lua_rawset(L, 2);
    return 0;
}

int lh_rawset_field(lua_State *L, int tref, const char *key, size_t keylen, const lh_tape *value) {
    struct field_params p = { tref, key, keylen, value };
    return run_protected(L, rawset_entry, &p);
}

int lh_set_base(lh_runtime *rt, const char *key, size_t keylen, const lh_tape *value) {
    return lh_rawset_field(rt->L, rt->base_ref, key, keylen, value);
}

struct fn_params {
    int64_t fnid; const char *name; int ref; int32_t cls; int caches;
    int nfields; const char *const *fields; const size_t *lens;
};

/* A host driver's marker (see lh_new_marker): mark(n) records that check n runs now and gives
 * it a whole budget and time limit of its own, as if it had been called alone; an exhausted
 * evaluation stays exhausted. */
static int marker(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    rt->mark = (int)lua_tointegerx(L, 1, NULL);
    if (!rt->exhausted) {
        rt->remaining = rt->budget;
        rt->deadline = rt->time_limit > 0 ? lh_now() + rt->time_limit : 0;
        if (rt->trial) lh_trial_restart(rt->watch);
    }
    return 0;
}

static int new_marker_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_pushcfunction(L, marker);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* Runs `entry`, which stores a new registry reference through its light userdata argument,
 * in protected mode. */
static int protected_ref(lua_State *L, lua_CFunction entry, int *ref) {
    *ref = LUA_NOREF;
    return run_protected(L, entry, ref);
}

int lh_new_marker(lua_State *L, int *ref) { return protected_ref(L, new_marker_entry, ref); }

int lh_mark(lh_runtime *rt) { return rt->mark; }

static int new_function_entry(lua_State *L) {
    struct fn_params *p = (struct fn_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushinteger(L, (lua_Integer)p->fnid);
    lua_pushstring(L, p->name);
    lua_pushcclosure(L, lh_trampoline, 2);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_function(lua_State *L, int64_t fnid, const char *name, int *ref) {
    struct fn_params p = { fnid, name, LUA_NOREF, 0, 0, 0, NULL, NULL };
    int st = run_protected(L, new_function_entry, &p);
    *ref = p.ref;
    return st;
}

/* ======================================================================
 * Record functions (lh_new_record_function)
 * ====================================================================== */

/* A record function. Upvalues: 1 the record callback's function id, 2 the fallback host
 * function's id, then the names (strings). A table without a metatable is read field by field
 * (raw gets of the names, made once: no pass over its entries, no key compared in C) and handed
 * to the record callback; anything else goes to the fallback, as a host function call. */
static int record_call(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    int plain = rt->record_cb != NULL && lua_type(L, 1) == LUA_TTABLE;
    if (plain && lua_getmetatable(L, 1)) {
        lua_pop(L, 1);
        plain = 0;
    }
    if (plain) {
        lh_value fields[LH_MAX_RECORD_FIELDS];
        int n = 0;
        lua_settop(L, 1);
        luaL_checkstack(L, LH_MAX_RECORD_FIELDS + 2, NULL);
        while (n < LH_MAX_RECORD_FIELDS && lua_type(L, lua_upvalueindex(3 + n)) == LUA_TSTRING) {
            lua_pushvalue(L, lua_upvalueindex(3 + n));
            lua_rawget(L, 1);
            lh_describe(L, -1, &fields[n]);
            n++;
        }
        lh_tape err = {0};
        if (rt->record_cb(rt->ctx, L, (int64_t)lua_tointegerx(L, lua_upvalueindex(1), NULL), fields, n, &err) != 0)
            return raise_host_error(L, &err);
        return 0;
    }
    call_host(L, lua_tointegerx(L, lua_upvalueindex(2), NULL));
    return 0;
}

struct record_params {
    int64_t record_fnid, fallback_fnid;
    int nfields; const char *const *names; const size_t *lens;
    int ref;
};

static int new_record_entry(lua_State *L) {
    struct record_params *p = (struct record_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushinteger(L, (lua_Integer)p->record_fnid);
    lua_pushinteger(L, (lua_Integer)p->fallback_fnid);
    for (int k = 0; k < p->nfields; k++) lua_pushlstring(L, p->names[k], p->lens[k]);
    lua_pushcclosure(L, record_call, 2 + p->nfields);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_record_function(lua_State *L, int64_t record_fnid, int64_t fallback_fnid, int nfields,
                           const char *const *names, const size_t *lens, int *ref) {
    *ref = LUA_NOREF;
    if (nfields < 0 || nfields > LH_MAX_RECORD_FIELDS) return LH_ERR_RUNTIME;
    struct record_params p = { record_fnid, fallback_fnid, nfields, names, lens, LUA_NOREF };
    int st = run_protected(L, new_record_entry, &p);
    *ref = p.ref;
    return st;
}

/* ======================================================================
 * Host sequences (lh_new_sequence)
 * ====================================================================== */

/* A host sequence: a userdata with the handle and length the host made it with. User value 1 is
 * the other fields it served (a table, made on the first), user value 2 + k its integer column
 * k once made. */
#define LH_SEQ_MAGIC 0x4C485351u /* "LHSQ" */
typedef struct lh_sequence {
    uint32_t magic;
    int64_t handle;
    lua_Integer n;
} lh_sequence;

static lh_sequence *to_sequence(lua_State *L, int idx) {
    lh_sequence *q = (lh_sequence *)lua_touserdata(L, idx);
    return q && lua_type(L, idx) == LUA_TUSERDATA && lua_rawlen(L, idx) == sizeof(lh_sequence) && q->magic == LH_SEQ_MAGIC ? q : NULL;
}

/* A sequence's __index. Upvalues: 1 the element function id, 2 the field function id, 3 the
 * column names (name -> k), 4 the column function id, 5 "n". */
static int seq_index(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    lh_sequence *q = to_sequence(L, 1);
    if (q == NULL) return 0;
    lua_settop(L, 2);
    luaL_checkstack(L, 8, NULL);
    int64_t handle = q->handle;
    lua_Integer n = q->n;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        int isint = 0;
        lua_Integer i = lua_tointegerx(L, 2, &isint);
        if (!isint || i < 1 || i > n) { lua_pushnil(L); return 1; }
        lh_element e;
        memset(&e, 0, sizeof e);
        lh_tape err = {0};
        if (rt->element_cb == NULL) return luaL_error(L, "host sequences are not available");
        if (rt->element_cb(rt->ctx, (int64_t)lua_tointegerx(L, lua_upvalueindex(1), NULL), handle, (int64_t)i, &e, &err) != 0)
            return raise_host_error(L, &err);
        if (e.cls == 0) { lua_pushnil(L); return 1; }
        /* An element the host made just now was never pushed: no live one to look for. */
        push_object_as(L, e.cls, e.id, e.fresh);
        lh_object *o = to_object(L, -1);
        if (o != NULL) give_words(rt, o, e.mask, e.words);
        return 1;
    }
    if (lua_rawequal(L, 2, lua_upvalueindex(5))) {
        lua_pushinteger(L, n);
        return 1;
    }
    /* An integer column: filled by the host in the runtime's buffer, pushed from it, kept. */
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(3)) == LUA_TNUMBER) {
        int column = (int)lua_tointegerx(L, -1, NULL);
        lua_settop(L, 2);
        if (lua_getiuservalue(L, 1, 2 + column) == LUA_TTABLE) return 1;
        lua_settop(L, 2);
        if (n < 0 || n > INT_MAX) return luaL_error(L, "sequence too long");
        if ((size_t)n > rt->column_cap) {
            size_t cap = (size_t)n < 1024 ? 1024 : (size_t)n;
            int64_t *buf = (int64_t *)realloc(rt->column_buf, cap * sizeof *buf);
            if (buf == NULL) return luaL_error(L, "not enough memory for a sequence's column");
            rt->column_buf = buf;
            rt->column_cap = cap;
        }
        lh_tape err = {0};
        if (rt->column_cb == NULL) return luaL_error(L, "host sequences' columns are not available");
        if (rt->column_cb(rt->ctx, (int64_t)lua_tointegerx(L, lua_upvalueindex(4), NULL), handle, column,
                          rt->column_buf, (int64_t)n, &err) != 0)
            return raise_host_error(L, &err);
        push_integers(L, rt->column_buf, (int)n);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 2 + column);
        return 1;
    }
    /* Any other key: the host's (handle, key), asked once and kept in user value 1. */
    lua_settop(L, 2);
    if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, 3) != LUA_TNIL) return 1;
    }
    lua_settop(L, 2);
    lua_pushinteger(L, (lua_Integer)handle);
    lua_pushvalue(L, 2);
    /* stack: sequence, key, handle, key */
    if (call_host_from(L, lua_tointegerx(L, lua_upvalueindex(2), NULL), 3) < 1) return 0;
    lua_settop(L, 5);
    if (lua_getiuservalue(L, 1, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 2);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
    }
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 5);
    lua_rawset(L, -3);
    lua_settop(L, 5);
    return 1;
}

static int seq_len(lua_State *L) {
    lh_sequence *q = to_sequence(L, 1);
    if (q == NULL) return 0;
    lua_pushinteger(L, q->n);
    return 1;
}

/* Upvalue 1: the sequences' name. */
static int seq_newindex(lua_State *L) {
    return luaL_error(L, "attempt to modify read-only %s", lua_tostring(L, lua_upvalueindex(1)));
}

/* The constructor. Upvalues: 1 the sequences' metatable, 2 how many user values one has. */
static int seq_make(lua_State *L) {
    lua_Integer handle = luaL_checkinteger(L, 1), n = luaL_checkinteger(L, 2);
    if (n < 0) return luaL_argerror(L, 2, "a sequence's length cannot be negative");
    lh_sequence *q = (lh_sequence *)lua_newuserdatauv(L, sizeof *q, (int)lua_tointegerx(L, lua_upvalueindex(2), NULL));
    q->magic = LH_SEQ_MAGIC;
    q->handle = (int64_t)handle;
    q->n = n;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setmetatable(L, -2);
    return 1;
}

struct seq_params {
    int64_t element_fnid, column_fnid, field_fnid;
    int ncolumns; const char *const *columns; const size_t *lens;
    const char *name; int ref;
};

static int new_sequence_entry(lua_State *L) {
    struct seq_params *p = (struct seq_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    /* 1: the metatable every sequence of this constructor shares (protected, shown as `name`) */
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)p->element_fnid);
    lua_pushinteger(L, (lua_Integer)p->field_fnid);
    lua_createtable(L, 0, p->ncolumns);
    for (int k = 0; k < p->ncolumns; k++) {
        lua_pushlstring(L, p->columns[k], p->lens[k]);
        lua_pushinteger(L, k);
        lua_rawset(L, -3);
    }
    lua_pushinteger(L, (lua_Integer)p->column_fnid);
    lua_pushliteral(L, "n");
    lua_pushcclosure(L, seq_index, 5);
    lua_setfield(L, 1, "__index");
    lua_pushcfunction(L, seq_len);
    lua_setfield(L, 1, "__len");
    lua_pushstring(L, p->name);
    lua_pushcclosure(L, seq_newindex, 1);
    lua_setfield(L, 1, "__newindex");
    lua_pushstring(L, p->name);
    lua_setfield(L, 1, "__metatable");
    lua_pushinteger(L, 1 + p->ncolumns);
    lua_pushcclosure(L, seq_make, 2);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_sequence(lua_State *L, int64_t element_fnid, int64_t column_fnid, int64_t field_fnid,
                    int ncolumns, const char *const *columns, const size_t *lens, const char *name, int *ref) {
    struct seq_params p = { element_fnid, column_fnid, field_fnid, ncolumns, columns, lens, name, LUA_NOREF };
    int st = run_protected(L, new_sequence_entry, &p);
    *ref = p.ref;
    return st;
}

static int new_class_entry(lua_State *L) {
    struct fn_params *p = (struct fn_params *)lua_touserdata(L, 1);
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 0);
    lua_createtable(L, 0, 8);
    lua_newtable(L);                       /* 2: static fields */
    lua_pushvalue(L, 2);
    lua_setfield(L, 1, "__lh_statics");
    lua_pushinteger(L, (lua_Integer)p->fnid);
    lua_pushstring(L, p->name);
    lua_pushvalue(L, 2);
    lua_pushboolean(L, p->caches);
    if (p->nfields > 0) {
        if (p->cls >= rt->nclasses) {
            int cap = p->cls + 8;
            int *slots = (int *)realloc(rt->class_slots, sizeof(int) * (size_t)cap);
            if (slots == NULL) return luaL_error(L, "not enough memory");
            rt->class_slots = slots;
            const char ***all = (const char ***)realloc(rt->class_names, sizeof *all * (size_t)cap);
            if (all == NULL) return luaL_error(L, "not enough memory");
            rt->class_names = all;
            for (int c = rt->nclasses; c < cap; c++) { slots[c] = 0; all[c] = NULL; }
            rt->nclasses = cap;
        }
        const char **names = (const char **)calloc((size_t)p->nfields, sizeof *names);
        if (names == NULL) return luaL_error(L, "not enough memory");
        free(rt->class_names[p->cls]);
        rt->class_names[p->cls] = names;
        /* declared fields: name -> k (1-based); the table keeps the names' strings alive */
        lua_createtable(L, 0, p->nfields);
        for (int k = 0; k < p->nfields; k++) {
            const char *name = lua_pushlstring(L, p->fields[k], p->lens[k]);
            /* a short string is interned: the same name read in a script is this string */
            names[k] = p->lens[k] <= rt->short_string ? name : NULL;
            lua_pushinteger(L, k + 1);
            lua_rawset(L, -3);
        }
        rt->class_slots[p->cls] = p->nfields;
    } else {
        lua_pushnil(L);
    }
    lua_pushcclosure(L, obj_index, 5);
    lua_setfield(L, 1, "__index");
    lua_pushcfunction(L, obj_newindex); lua_setfield(L, 1, "__newindex");
    lua_pushcfunction(L, obj_eq); lua_setfield(L, 1, "__eq");
    lua_pushcfunction(L, obj_tostring); lua_setfield(L, 1, "__tostring");
    lua_pushstring(L, p->name); lua_setfield(L, 1, "__lh_name");
    lua_pushboolean(L, 0); lua_setfield(L, 1, "__metatable");
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->classes_ref);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, p->cls);
    return 0;
}

int lh_new_class(lua_State *L, int32_t classid, const char *name, int64_t index_fnid, int caches_fields,
                 int nfields, const char *const *fields, const size_t *lens) {
    if (nfields > LH_MAX_DECLARED_FIELDS) return LH_ERR_RUNTIME;
    struct fn_params p = { index_fnid, name, LUA_NOREF, classid, caches_fields, nfields, fields, lens };
    return run_protected(L, new_class_entry, &p);
}

struct static_params { int32_t cls; const char *key; size_t keylen; const lh_tape *value; };
static int set_static_entry(lua_State *L) {
    struct static_params *p = (struct static_params *)lua_touserdata(L, 1);
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->classes_ref);
    if (lua_rawgeti(L, 1, p->cls) != LUA_TTABLE) return luaL_error(L, "unknown host object class %d", (int)p->cls);
    lua_getfield(L, 2, "__lh_statics");
    lua_pushlstring(L, p->key, p->keylen);
    push_tape_raw(L, p->value);
    lua_settop(L, 5);
    lua_rawset(L, 3);
    return 0;
}

int lh_class_set_static(lua_State *L, int32_t classid, const char *key, size_t keylen, const lh_tape *value) {
    struct static_params p = { classid, key, keylen, value };
    return run_protected(L, set_static_entry, &p);
}

void lh_invalidate_fields(lh_runtime *rt) { rt->epoch++; }

struct freeze_params { int tref; const char *name; int deep; };
static int freeze_entry(lua_State *L) {
    struct freeze_params *p = (struct freeze_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE)
        return luaL_error(L, "freeze: not a table");
    freeze_table(L, 1, p->name, p->deep, 0);
    return 0;
}

int lh_freeze(lua_State *L, int tref, const char *name, int deep) {
    struct freeze_params p = { tref, name, deep };
    return run_protected(L, freeze_entry, &p);
}

static int new_table_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_newtable(L);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_table(lua_State *L, int *ref) { return protected_ref(L, new_table_entry, ref); }

void lh_push_backing(lua_State *L, int idx) { push_backing(L, idx); }

void lh_ref_source(lua_State *L, int ref, char *buf, size_t n) {
    lua_Debug ar;
    if (n == 0) return;
    buf[0] = 0;
    if (!lua_checkstack(L, 2)) return;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TFUNCTION) { lua_pop(L, 1); return; }
    if (lua_getinfo(L, ">S", &ar) && ar.what[0] != 'C') {
        snprintf(buf, n, "%s", ar.short_src);
    }
}

void lh_push_ref(lua_State *L, int ref) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
}

/* ======================================================================
 * Evaluations
 * ====================================================================== */

/* Message handler: records the first Lua frame, keeps a traceback aside and
 * never calls metamethods of the error object. */
static int lh_msgh(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    record_first_lua_frame(L, 1, rt->err_chunk, &rt->err_line);
    int t = lua_type(L, 1);
    if (t == LUA_TNUMBER) {
        lua_tolstring(L, 1, NULL); /* converts in place: no metamethods */
    } else if (t != LUA_TSTRING) {
        lua_pushfstring(L, "error object is a %s value", lua_typename(L, t));
        lua_replace(L, 1);
    }
    lua_settop(L, 1);
    luaL_traceback(L, L, NULL, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &tb_key);
    rt->tb_valid = 1;
    return 1;
}

static void clear_error(lh_runtime *rt) {
    rt->err_chunk[0] = 0; rt->err_line = 0;
    rt->err_msg = NULL; rt->err_msg_len = 0;
    rt->err_tb = NULL; rt->err_tb_len = 0;
}

static int finish_status(lh_runtime *rt, int st) {
    lua_State *L = rt->L;
    int code;
    /* A trial that ran too long, or ran out of budget (allocations, matcher steps, a
     * coroutine), says nothing for sure: the host runs the call again, metered. */
    if (rt->trial) {
        rt->trials++;
        if (rt->trial_failed || rt->exhausted) {
            rt->reruns++;
            rt->rerun = 1;
            return LH_RETRY;
        }
    }
    if (rt->exhausted) code = rt->exhausted;
    else if (st == LUA_OK) return LH_OK;
    else if (st == LUA_ERRMEM) code = LH_ERR_MEMORY;
    else if (st == LUA_ERRERR) code = LH_ERR_HANDLER;
    else code = LH_ERR_RUNTIME;
    if (st != LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
        rt->err_msg = lua_tolstring(L, -1, &rt->err_msg_len);
        if (code == LH_ERR_RUNTIME && rt->mem_refused && strcmp(rt->err_msg, "not enough memory") == 0)
            code = LH_ERR_MEMORY;
    }
    if (rt->tb_valid && lua_checkstack(L, 2)) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &tb_key) == LUA_TSTRING)
            rt->err_tb = lua_tolstring(L, -1, &rt->err_tb_len);
    }
    if (code == LH_ERR_BUDGET || code == LH_ERR_TIMEOUT) {
        if (rt->ex_line > 0) {
            memcpy(rt->err_chunk, rt->ex_chunk, LUA_IDSIZE);
            rt->err_line = rt->ex_line;
        }
    }
    return code;
}

struct load_params { int ref; };

static int load_entry(lua_State *L) {
    struct load_params *p = (struct load_params *)lua_touserdata(L, 1);
    /* 2: the compiled chunk */
    push_new_env(L);
    lua_setupvalue(L, 2, 1);
    lua_settop(L, 2);
    lua_call(L, 0, 1);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_load(lh_runtime *rt, const char *buf, size_t len, const char *chunkname, int *ref) {
    lua_State *L = rt->L;
    struct load_params p = { LUA_NOREF };
    rt->top0 = lua_gettop(L);
    clear_error(rt);
    *ref = LUA_NOREF;
    if (!lua_checkstack(L, 8)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, lh_msgh);
    int msgh = lua_gettop(L);
    rt->mem_refused = 0;
    int st = luaL_loadbufferx(L, buf, len, chunkname, "t");
    if (st != LUA_OK) {
        if (lua_type(L, -1) == LUA_TSTRING) rt->err_msg = lua_tolstring(L, -1, &rt->err_msg_len);
        return st == LUA_ERRSYNTAX ? LH_ERR_SYNTAX : (st == LUA_ERRMEM ? LH_ERR_MEMORY : LH_ERR_RUNTIME);
    }
    lua_pushcfunction(L, load_entry);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, &p);
    lua_insert(L, -2);
    begin_eval(rt, 0);
    st = lua_pcall(L, 2, 0, msgh);
    end_eval(rt);
    int code = finish_status(rt, st);
    if (code == LH_OK) *ref = p.ref;
    else if (st == LUA_OK && p.ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, p.ref);
    return code;
}

struct call_params { int fnref; const lh_tape *args; };

static int call_entry(lua_State *L) {
    struct call_params *p = (struct call_params *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->fnref);
    push_tape_raw(L, p->args);
    lua_call(L, p->args ? p->args->ntop : 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

int lh_call(lh_runtime *rt, int fnref, const lh_tape *args, int trial, int *nresults) {
    lua_State *L = rt->L;
    struct call_params p = { fnref, args };
    rt->top0 = lua_gettop(L);
    clear_error(rt);
    *nresults = 0;
    if (!lua_checkstack(L, 8)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, lh_msgh);
    int msgh = lua_gettop(L);
    lua_pushcfunction(L, call_entry);
    lua_pushlightuserdata(L, &p);
    begin_eval(rt, trial);
    int st = lua_pcall(L, 1, LUA_MULTRET, msgh);
    end_eval(rt);
    int code = finish_status(rt, st);
    if (code == LH_OK) *nresults = lua_gettop(L) - msgh;
    return code;
}

void lh_error(lh_runtime *rt, lh_error_info *info) {
    info->message = rt->err_msg; info->message_len = rt->err_msg_len;
    info->traceback = rt->err_tb; info->traceback_len = rt->err_tb_len;
    info->chunk = rt->err_chunk;
    info->line = rt->err_line;
}

void lh_finish(lh_runtime *rt) {
    lua_settop(rt->L, rt->top0);
}

/* ======================================================================
 * State creation
 * ====================================================================== */

static void copy_global(lua_State *L, int base, const char *name) {
    lua_getglobal(L, name);
    lua_setfield(L, base, name);
}

static void set_fn(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, t, name);
}

/* t[name] = f, with the function t[name] was (the stock one) as f's upvalue. */
static void wrap_stock(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_getfield(L, t, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, t, name);
}

static void wrap_charged(lua_State *L, int t, const char *name, int kind) {
    lua_getfield(L, t, name);
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, sb_charged, 2);
    lua_setfield(L, t, name);
}

/* The longest strings Lua interns (two equal ones are one object), found by making two equal
 * strings of each length up to 255 until they are two objects. Declared fields' names are found
 * by pointer up to this length (new_class_entry); a wrong answer would only make them slower to
 * find, never wrong, as the table of names is read when no pointer matches. */
static size_t measure_short_strings(lua_State *L) {
    char a[256], b[256];
    memset(a, 'x', sizeof a);
    memset(b, 'x', sizeof b);
    size_t longest = 0;
    for (size_t len = 1; len < sizeof a; len++) {
        const char *p = lua_pushlstring(L, a, len);
        const char *q = lua_pushlstring(L, b, len);
        int same = p == q;
        lua_pop(L, 2);
        if (!same) break;
        longest = len;
    }
    return longest;
}

static int setup_entry(lua_State *L) {
    lh_runtime *rt = (lh_runtime *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    rt->short_string = measure_short_strings(L);
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_settop(L, 0);

    /* registry tables */
    lua_newtable(L); /* frozen: weak keys */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k"); lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    rt->frozen_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->modules_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->classes_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->kept_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->interned_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->dates_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* push_integers' table maker: host code, no environment */
    static const char pack_src[] = "return function(...) return { ... } end";
    if (luaL_loadbufferx(L, pack_src, sizeof pack_src - 1, "=(host)", "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    rt->pack_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* base environment */
    lua_newtable(L);
    int B = lua_gettop(L);
    static const char *const kept[] = {
        "assert", "error", "ipairs", "pairs", "pcall", "rawequal", "select",
        "getmetatable", "tonumber", "tostring", "type", "_VERSION", NULL };
    for (int i = 0; kept[i]; i++) copy_global(L, B, kept[i]);
    set_fn(L, B, "next", sb_next);
    set_fn(L, B, "xpcall", sb_xpcall);
    set_fn(L, B, "rawget", sb_rawget);
    set_fn(L, B, "rawset", sb_rawset);
    set_fn(L, B, "rawlen", sb_rawlen);
    set_fn(L, B, "setmetatable", sb_setmetatable);
    set_fn(L, B, "collectgarbage", sb_collectgarbage);
    set_fn(L, B, "print", sb_print);
    set_fn(L, B, "load", sb_load);
    set_fn(L, B, "require", sb_require);

    /* string */
    lua_getglobal(L, "string");
    int S = lua_gettop(L);
    wrap_stock(L, S, "find", lh_str_find);
    wrap_stock(L, S, "match", lh_str_match);
    wrap_stock(L, S, "gmatch", lh_str_gmatch);
    wrap_stock(L, S, "gsub", lh_str_gsub);
    wrap_stock(L, S, "format", lh_str_format);
    lua_pushnil(L); lua_setfield(L, S, "dump");
    /* table */
    lua_getglobal(L, "table");
    int T = lua_gettop(L);
    wrap_charged(L, T, "insert", CH_LEN);
    wrap_charged(L, T, "remove", CH_LEN);
    wrap_charged(L, T, "move", CH_MOVE);
    wrap_charged(L, T, "sort", CH_SORT);
    /* math */
    lua_getglobal(L, "math");
    int M = lua_gettop(L);
    lua_getfield(L, M, "random");
    lua_getfield(L, M, "randomseed");
    lua_pushcclosure(L, sb_random, 2);
    lua_setfield(L, M, "random");
    lua_pushnil(L); lua_setfield(L, M, "randomseed");
    /* coroutine */
    lua_getglobal(L, "coroutine");
    int C = lua_gettop(L);
    set_fn(L, C, "create", sb_cocreate);
    set_fn(L, C, "wrap", sb_cowrap);
    lua_getglobal(L, "utf8");
    int U = lua_gettop(L);

    /* string metatable: __index = the sandbox string functions (backing),
     * __metatable = a read-only stand-in */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    int SM = lua_gettop(L);

    static const char *const libs[] = { "string", "table", "math", "coroutine", "utf8" };
    int idx[] = { S, T, M, C, U };
    for (int i = 0; i < 5; i++) {
        freeze_table(L, idx[i], libs[i], 0, 0);
        lua_pushvalue(L, idx[i]);
        lua_setfield(L, B, libs[i]);
    }
    push_backing(L, S);
    lua_setfield(L, SM, "__index");
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, S);
    lua_setfield(L, -2, "__index");
    freeze_table(L, -1, "string metatable", 0, 0);
    lua_setfield(L, SM, "__metatable");

    /* shared metatable of every plugin environment */
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, B); lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0); lua_setfield(L, -2, "__metatable");
    rt->env_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, B);
    rt->base_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* the original global table keeps nothing dangerous (no io/os/debug/
     * package were opened), but drop load/dofile/loadfile anyway */
    lua_pushnil(L); lua_setglobal(L, "load");
    lua_pushnil(L); lua_setglobal(L, "dofile");
    lua_pushnil(L); lua_setglobal(L, "loadfile");
    lua_pushnil(L); lua_setglobal(L, "collectgarbage");
    return 0;
}

static void free_roots(lh_runtime *rt) {
    for (int i = 0; i < rt->nroots; i++) { free(rt->roots[i]); free(rt->root_names[i]); }
    free(rt->roots); free(rt->root_names);
    rt->roots = rt->root_names = NULL; rt->nroots = 0;
}

lh_runtime *lh_open(const lh_config *cfg, const char **why) {
    lh_runtime *rt = (lh_runtime *)calloc(1, sizeof(lh_runtime));
    *why = NULL;
    if (rt == NULL) { *why = "out of memory"; return NULL; }
    rt->limit = cfg->memory_limit;
    rt->budget = cfg->instruction_budget > 0 ? cfg->instruction_budget : 1;
    rt->time_limit = cfg->time_limit;
    rt->pattern_limit = cfg->pattern_step_limit;
    rt->ctx = cfg->ctx;
    rt->host_cb = cfg->host_cb;
    rt->print_cb = cfg->print_cb;
    rt->element_cb = cfg->element_cb;
    rt->column_cb = cfg->column_cb;
    rt->record_cb = cfg->record_cb;
    rt->gran = 1000;
    /* A trial lasts as long as the budget could last on the fastest machine, and never longer
     * than the time limit (which only a counted run checks). */
    double trial_seconds = (double)rt->budget / lh_trial_rate();
    if (rt->time_limit > 0 && rt->time_limit < trial_seconds) trial_seconds = rt->time_limit;
    rt->trial_limit_ns = (int64_t)(trial_seconds * 1e9);
    if (cfg->nroots > 0) {
        rt->roots = (char **)calloc((size_t)cfg->nroots, sizeof(char *));
        rt->root_names = (char **)calloc((size_t)cfg->nroots, sizeof(char *));
        if (!rt->roots || !rt->root_names) { free_roots(rt); free(rt); *why = "out of memory"; return NULL; }
        for (int i = 0; i < cfg->nroots; i++) {
            char real[PATH_MAX];
            if (realpath(cfg->require_roots[i], real) == NULL) continue; /* missing root: skip */
            const char *slash = strrchr(real, '/');
            const char *base = (slash && slash[1]) ? slash + 1 : real;
            rt->roots[rt->nroots] = strdup(real);
            rt->root_names[rt->nroots] = strdup(base);
            rt->nroots++;
        }
    }
    lua_State *L = lua_newstate(lh_alloc, rt);
    if (L == NULL) { pool_release(&rt->pool); free_roots(rt); free(rt); *why = "cannot create a Lua state within the memory limit"; return NULL; }
    /* Generational collection: a rule's check leaves mostly young garbage (views, query
       results, messages), which minor collections free cheaply; the incremental collector's
       longer cycles set the slowest mutations (p99 about 40 % lower in shiftbench rules). */
    lua_gc(L, LUA_GCGEN, 0, 0);
    rt->L = L;
    LH_RT(L) = rt;
    lua_pushcfunction(L, setup_entry);
    lua_pushlightuserdata(L, rt);
    int st = lua_pcall(L, 1, 0, 0);
    if (st != LUA_OK) {
        *why = st == LUA_ERRMEM ? "cannot build the sandbox within the memory limit"
                                : "cannot build the sandbox";
        lua_close(L);
        pool_release(&rt->pool);
        free_roots(rt); free(rt);
        return NULL;
    }
    if (cfg->trials) rt->watch = lh_watch_claim(rt);
    return rt;
}

void lh_close(lh_runtime *rt) {
    if (rt == NULL) return;
    lh_watch_release(rt->watch);
    lua_close(rt->L);
    pool_release(&rt->pool);
    free_roots(rt);
    free(rt->args);
    free(rt->class_slots);
    free(rt->kept_classes);
    for (int c = 0; c < rt->nclasses; c++) if (rt->class_names) free(rt->class_names[c]);
    free(rt->class_names);
    for (int c = 0; c < rt->words_classes; c++) free(rt->word_fields[c]);
    free(rt->word_fields);
    free(rt->words);
    free(rt->column_buf);
    free(rt);
}

lua_State *lh_state(lh_runtime *rt) { return rt->L; }
size_t lh_memory_in_use(lh_runtime *rt) { return rt->used; }
void lh_trial_counts(lh_runtime *rt, int64_t *trials, int64_t *reruns) {
    *trials = rt->trials;
    *reruns = rt->reruns;
}
