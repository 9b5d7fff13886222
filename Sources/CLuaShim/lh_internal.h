/*
 * Internal declarations shared by the CLuaShim C files. Not public API (luahost_shim.h is).
 *
 * One file per concern, each calling only files listed before it, never back:
 *   lh_budget.c     the budget, its hook and the trials' watchdog
 *   lh_memory.c     the allocator and its block pool            -> budget
 *   lh_readonly.c   frozen tables
 *   lh_words.c      objects' words, waiting for their objects
 *   lh_objects.c    host objects' identity (interning, kept objects) -> words
 *   lh_values.c     descriptions, tapes, protected value helpers -> objects, readonly
 *   lh_host.c       host functions                               -> values
 *   lh_classes.c    what host objects show (fields, words, cache) -> host, objects, words, values
 *   lh_records.c    record functions                             -> host, values
 *   lh_sequences.c  host sequences                               -> host, objects, words, values
 *   lh_pattern.c    string patterns behind a bound               -> budget
 *   lh_format.c     string.format's fast path
 *   lh_sandbox.c    the base environment and its guarded functions -> budget, readonly, pattern, format
 *   lh_runtime.c    opening a state, running code in it          -> all of them
 */
#ifndef LH_INTERNAL_H
#define LH_INTERNAL_H

#include "luahost_shim.h"
#include <lauxlib.h>
#include <lualib.h>

/* The shim uses Lua 5.4's C API only (user values, lua_resetthread, the generational collector,
 * lua_sethook from a signal handler), never Lua's internals: any 5.4.x builds. */
#if LUA_VERSION_NUM != 504
#error "CLuaShim needs Lua 5.4 (LUA_VERSION_NUM 504): install liblua5.4-dev"
#endif
/* The runtime is found through the state's extra space (LH_RT). */
_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "CLuaShim needs LUA_EXTRASPACE to hold a pointer");

typedef struct lh_watch lh_watch;

/* ---- the runtime, by concern ------------------------------------------------------------ */

/* Blocks up to LH_POOL_MAX bytes come from slabs the runtime keeps, in size classes: 16 bytes
 * apart up to 512 bytes, 256 apart above (lh_memory.c). Each class has a free list; new blocks
 * are cut from the current slab's unused tail. A Lua state makes and drops small objects by the
 * ten thousand (views, tables, strings, a person's columns), and malloc and free cost several
 * times as much as taking a block off a list. */
#define LH_POOL_SMALL 512
#define LH_POOL_MAX 8192
#define LH_POOL_CLASSES (LH_POOL_SMALL / 16 + (LH_POOL_MAX - LH_POOL_SMALL) / 256)
#define LH_SLAB_SIZE (256 * 1024)
struct lh_pool {
    void *free[LH_POOL_CLASSES];
    char *bump, *bump_end;
    void *slabs;   /* each slab's first word points to the one made before it */
};

/* Memory (lh_memory.c): bytes in use, the cap, whether an allocation was refused. */
struct lh_memory {
    size_t used, limit;
    int refused;
    struct lh_pool pool;
};

/* The running evaluation's budget (lh_budget.c). */
struct lh_budget {
    int64_t units, remaining;   /* per evaluation (or per marked check), and what is left */
    int gran;                   /* instructions between two calls of the count hook */
    double time_limit, deadline;
    size_t alloc_acc;           /* bytes allocated since the clock was last read */
    int active;                 /* an evaluation is running */
    int exhausted;              /* 0, LH_ERR_BUDGET, LH_ERR_TIMEOUT or LH_TRIAL_INTERRUPTED */
    char ex_chunk[LUA_IDSIZE]; int ex_line;   /* where it ran out */
    int64_t pattern_limit;      /* steps one pattern call may take (lh_pattern.c) */
    unsigned eval_id;           /* moves on with every evaluation */
    int mark;                   /* the check a host driver marked as running (lh_new_marker), 0 when none */
};

/* Trials (lh_budget.c): the watch slot (NULL: every call is metered), whether the running call
 * is a trial, whether it ran over its time, whether the next call is its metered run again;
 * calls run as trials, and those run again metered. */
struct lh_trials {
    lh_watch *watch;
    int running, failed, rerun;
    int64_t limit_ns;
    int64_t count, reruns;
};

/* The sandbox (lh_sandbox.c, lh_readonly.c): require's roots; registry refs of the plugin
 * environments' metatable, the base environment, the loaded modules and the frozen tables'
 * backing tables; the evaluation math.random was last seeded in. */
struct lh_sandbox {
    char **roots; char **root_names; int nroots;
    int env_mt_ref, base_ref, modules_ref, frozen_ref;
    unsigned random_eval;
};

/* The host's callbacks and the buffers calls to them use (lh_host.c, lh_sequences.c). */
struct lh_host {
    void *ctx;
    lh_host_callback call;
    lh_print_callback print;
    lh_element_callback element;
    lh_column_callback column;
    lh_record_callback record;
    lh_value *args; int argcap;
    int64_t *column_buf; size_t column_cap;   /* where the host writes a sequence's column */
    int plain;                                /* LH_PLAIN_*: fast paths switched off (lh_config) */
};

/* Host objects and their classes (lh_objects.c, lh_classes.c). */
struct lh_objects {
    int classes_ref, interned_ref;
    /* objects' cached fields are valid while this stands (lh_invalidate_fields) */
    uint64_t epoch;
    /* classes whose objects the runtime keeps for the rest of their field epoch
     * (lh_class_keep_objects), by class id; the table holding them (registry kept_ref), the
     * epoch + 1 it is for, and how many it holds */
    unsigned char *kept_classes; int kept_classes_cap;
    int kept_ref; uint64_t kept_tag; int kept_count;
    /* declared fields per class id (lh_new_class), for the user values of new objects */
    int *class_slots; int nclasses;
    /* per class id, its declared fields' names as the interned Lua strings' bytes (NULL when it
     * has none): a field's name is found by pointer (obj_index) */
    const char ***class_names;
    /* the longest strings Lua interns, measured at setup (lh_runtime.c) */
    size_t short_string;
};

/* Words (lh_words.c): per class, the declared fields served from objects' words
 * (lh_class_set_word_fields; NULL when none); words set and not yet taken by their objects
 * (open addressing, entries of an older epoch free; `count` of them in the epoch `tag`); the
 * dates made for LH_WORD_DATE fields (registry table: day -> string), and how many. */
struct lh_words {
    struct lh_word_fields **fields; int nclasses;
    struct lh_words_entry *table; size_t cap, count; uint64_t tag;
    int dates_ref; int dates_count;
};

/* Values (lh_values.c): the Lua function lh_push_integers makes sequences with. */
struct lh_values {
    int pack_ref;
};

/* The last evaluation's error (lh_runtime.c): the stack top before it, whether a traceback
 * was kept, the error's place, message and traceback. */
struct lh_outcome {
    int top0;
    int tb_valid;
    char chunk[LUA_IDSIZE]; int line;
    const char *msg; size_t msg_len;
    const char *tb; size_t tb_len;
};

struct lh_runtime {
    lua_State *L;
    struct lh_memory mem;
    struct lh_budget budget;
    struct lh_trials trials;
    struct lh_sandbox sandbox;
    struct lh_host host;
    struct lh_objects objects;
    struct lh_words words;
    struct lh_values values;
    struct lh_outcome outcome;
};

#define LH_RT(L) (*(lh_runtime **)lua_getextraspace(L))

/* ---- protected calls (every file) ------------------------------------------------------- */

static inline int lh_map_status(int st) {
    return st == LUA_ERRMEM ? LH_ERR_MEMORY : (st == LUA_OK ? LH_OK : LH_ERR_RUNTIME);
}

/* Runs `entry` with `params` (a light userdata argument) in protected mode: LH_OK, or the
 * error's status with nothing left on the stack. */
static inline int lh_run_protected(lua_State *L, lua_CFunction entry, void *params) {
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, entry);
    lua_pushlightuserdata(L, params);
    int st = lua_pcall(L, 1, 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return lh_map_status(st);
}

/* Runs `entry`, which stores a new registry reference through its light userdata argument,
 * in protected mode. */
static inline int lh_protected_ref(lua_State *L, lua_CFunction entry, int *ref) {
    *ref = LUA_NOREF;
    return lh_run_protected(L, entry, ref);
}

/* ---- lh_budget.c ------------------------------------------------------------------------- */

/* `exhausted` of a trial the watchdog interrupted (never reported: the call is run again). */
#define LH_TRIAL_INTERRUPTED 100

/* Budget units per second that no machine is assumed to exceed, in Lua 5.4's fastest loops
 * (about 4 times what a 2024 server core does: 300-460 million VM instructions a second). A
 * trial that ends within budget / LH_TRIAL_RATE seconds cannot have spent its budget. */
#define LH_TRIAL_RATE 2e9

/* Charges `units` against the evaluation budget; raises when it runs out. */
void lh_charge(lua_State *L, int64_t units);
/* What lh_charge_allocation does when the budget may have run out, or a megabyte has been
 * allocated since the clock was last read. */
void lh_allocation_checkpoint(lh_runtime *rt);
/* Allocation is work too: one budget unit per 64 bytes of growth. The allocator may not raise;
 * the evaluation is flagged as exhausted instead (lh_allocation_checkpoint). Inline: it runs
 * on every allocation that grows. */
static inline void lh_charge_allocation(lh_runtime *rt, size_t grow) {
    struct lh_budget *b = &rt->budget;
    if (!b->active || b->exhausted) return;
    b->remaining -= (int64_t)(grow >> 6);
    b->alloc_acc += grow;
    if (b->remaining <= 0 || b->alloc_acc > (1u << 20)) lh_allocation_checkpoint(rt);
}
/* Sets the budget's hook on a new coroutine. */
void lh_hook_thread(lh_runtime *rt, lua_State *co);
/* Starts and ends an evaluation: a trial when asked for and available, else metered. */
void lh_begin_eval(lh_runtime *rt, int trial);
void lh_end_eval(lh_runtime *rt);
/* The first Lua frame at or above `level` (the host's own chunks skipped). */
void lh_first_lua_frame(lua_State *L, int level, char *chunk, int *line);
/* LH_TRIAL_RATE, or a lower rate set for profilers in the environment (LUAHOST_TRIAL_RATE). */
double lh_trial_rate(void);
/* A watch slot for the runtime's trials (NULL when trials are not available), and its release. */
lh_watch *lh_watch_claim(lh_runtime *rt);
void lh_watch_release(lh_watch *w);

/* ---- lh_memory.c ------------------------------------------------------------------------- */

/* The Lua state's allocator (ud: the runtime), and the same without the pool (LH_PLAIN_POOL). */
void *lh_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void *lh_alloc_plain(void *ud, void *ptr, size_t osize, size_t nsize);
/* Frees the slabs (after lua_close has given every block back). */
void lh_pool_release(struct lh_pool *pool);

/* ---- lh_readonly.c ----------------------------------------------------------------------- */

/* Makes the table at t read-only in place (deep: nested plain tables too). Raises. */
void lh_freeze_table(lua_State *L, int t, const char *name, int deep, int depth);
/* Whether the table at idx is frozen (never raises). */
int lh_is_frozen(lua_State *L, int idx);
/* Raises "attempt to modify read-only table" for the table at idx. */
__attribute__((noreturn)) void lh_readonly_error(lua_State *L, int idx);

/* ---- host objects (lh_objects.c, lh_words.c) --------------------------------------------- */

#define LH_MAGIC 0x4C484F42u /* "LHOB" */
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

/* The host object at idx, or NULL when the value is anything else (never raises). */
static inline lh_object *lh_to_object(lua_State *L, int idx) {
    lh_object *o = (lh_object *)lua_touserdata(L, idx);
    return o && lua_rawlen(L, idx) == sizeof(lh_object) && o->magic == LH_MAGIC ? o : NULL;
}

/* Pushes the object (cls, id): the one Lua holds, or a new one (`fresh`: the host knows there
 * is none). Raises on memory errors. */
void lh_push_object(lua_State *L, int32_t cls, int64_t id, int fresh);

/* A class's declared fields served from words: per field, its source (LH_WORD_* << 4 | word)
 * and, for LH_WORD_OBJECT, the object's class. */
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
/* The class's fields served from words, NULL when it has none. */
static inline const struct lh_word_fields *lh_word_fields_of(const lh_runtime *rt, int32_t cls) {
    return cls > 0 && cls < rt->words.nclasses ? rt->words.fields[cls] : NULL;
}
/* Gives the object its words for this field epoch unless it has some already. */
void lh_give_words(lh_runtime *rt, lh_object *o, uint32_t mask, const int64_t *words);
/* Moves the object's waiting words (lh_set_words), if any, into it. */
void lh_take_words(lh_runtime *rt, lh_object *o);

/* ---- lh_values.c ------------------------------------------------------------------------- */

/* lh_describe, inline for the host calls' arguments (lh_host.c). */
static inline void lh_describe_value(lua_State *L, int idx, lh_value *v) {
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
            lh_object *o = lh_to_object(L, idx);
            if (o) {
                v->kind = LH_OBJECT; v->aux = o->cls; v->i = o->id;
            } else { v->kind = LH_OTHER; v->aux = lua_absindex(L, idx); }
            break;
        }
        default: v->kind = LH_OTHER; v->aux = lua_absindex(L, idx); break;
    }
}

/* Pushes a new sequence of n integers. Raises on memory errors. */
void lh_push_integers(lua_State *L, const int64_t *items, int n);
/* Pushes the tape's top-level values. Raises on memory errors and malformed tapes. */
void lh_push_tape_raw(lua_State *L, const lh_tape *t);

/* ---- lh_host.c --------------------------------------------------------------------------- */

/* Raises the host's error message (the tape's first value) at the line of the calling Lua code. */
int lh_raise_host_error(lua_State *L, const lh_tape *out);
/* Calls host function `fnid` with the stack values from `base` on; pushes its results. */
int lh_call_host_from(lua_State *L, int64_t fnid, int base);
static inline int lh_call_host(lua_State *L, int64_t fnid) { return lh_call_host_from(L, fnid, 1); }

/* ---- the string library (lh_pattern.c, lh_format.c) -------------------------------------- */

/* The stock pattern functions behind a bound on their work; each has the stock function as
 * upvalue 1. */
int lh_str_find(lua_State *L);
int lh_str_match(lua_State *L);
int lh_str_gmatch(lua_State *L);
int lh_str_gsub(lua_State *L);
/* string.format with a fast path, the stock function (upvalue 1) otherwise. */
int lh_str_format(lua_State *L);

/* ---- lh_sandbox.c ------------------------------------------------------------------------ */

/* Pushes a new plugin environment (reads through the base environment). */
void lh_push_new_env(lua_State *L);
/* Opens the libraries and builds the base environment. Raises on memory errors. */
void lh_sandbox_build(lua_State *L, lh_runtime *rt);

#endif
