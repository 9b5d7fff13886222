/* Internal declarations shared by the CLuaShim C files. Not public API. */
#ifndef LH_INTERNAL_H
#define LH_INTERNAL_H

#include "luahost_shim.h"
#include <lauxlib.h>

/* The shim uses Lua 5.4's C API only (user values, lua_resetthread, the generational collector,
 * lua_sethook from a signal handler), never Lua's internals: any 5.4.x builds. */
#if LUA_VERSION_NUM != 504
#error "CLuaShim needs Lua 5.4 (LUA_VERSION_NUM 504): install liblua5.4-dev"
#endif
/* The runtime is found through the state's extra space (LH_RT). */
_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "CLuaShim needs LUA_EXTRASPACE to hold a pointer");

#if !defined(l_unlikely)
#define l_unlikely(x) (__builtin_expect(((x) != 0), 0))
#endif

typedef struct lh_watch lh_watch;

/* Blocks up to LH_POOL_MAX bytes come from slabs the runtime keeps, in size classes: 16 bytes
 * apart up to 512 bytes, 256 apart above (luahost_shim.c, lh_alloc). Each class has a free list;
 * new blocks are cut from the current slab's unused tail. A Lua state makes and drops small
 * objects by the ten thousand (views, tables, strings, a person's columns), and malloc and free
 * cost several times as much as taking a block off a list. */
#define LH_POOL_SMALL 512
#define LH_POOL_MAX 8192
#define LH_POOL_CLASSES (LH_POOL_SMALL / 16 + (LH_POOL_MAX - LH_POOL_SMALL) / 256)
#define LH_SLAB_SIZE (256 * 1024)
struct lh_pool {
    void *free[LH_POOL_CLASSES];
    char *bump, *bump_end;
    void *slabs;   /* each slab's first word points to the one made before it */
};

struct lh_runtime {
    lua_State *L;
    /* memory */
    size_t used, limit;
    int mem_refused;
    struct lh_pool pool;
    /* budget */
    int64_t budget, remaining;
    int gran;
    double time_limit, deadline;
    size_t alloc_acc;
    int active;
    int exhausted;            /* 0, LH_ERR_BUDGET or LH_ERR_TIMEOUT */
    char ex_chunk[LUA_IDSIZE]; int ex_line;
    int64_t pattern_limit;
    unsigned eval_id, random_eval;
    /* the check a host driver marked as running (lh_new_marker), 0 when none */
    int mark;
    /* trials (lh_trial.c): the watch slot (NULL: every call is metered), whether the running
     * call is a trial, whether it ran over its time, and that time */
    lh_watch *watch;
    int trial, trial_failed, rerun;
    int64_t trial_limit_ns;
    /* calls run as trials, and those run again metered */
    int64_t trials, reruns;
    /* require */
    char **roots; char **root_names; int nroots;
    /* callbacks */
    void *ctx;
    lh_host_callback host_cb;
    lh_print_callback print_cb;
    lh_element_callback element_cb;
    lh_column_callback column_cb;
    lh_record_callback record_cb;
    /* where the host writes a sequence's integer column (grown as needed) */
    int64_t *column_buf; size_t column_cap;
    lh_value *args; int argcap;
    /* registry refs */
    int env_mt_ref, base_ref, modules_ref, frozen_ref, classes_ref, interned_ref, pack_ref;
    /* host objects' cached fields are valid while this stands (lh_invalidate_fields) */
    uint64_t epoch;
    /* classes whose objects the runtime keeps for the rest of their field epoch
     * (lh_class_keep_objects), by class id; the table holding them (registry kept_ref), the
     * epoch + 1 it is for, and how many it holds */
    unsigned char *kept_classes; int kept_classes_cap;
    int kept_ref; uint64_t kept_tag; int kept_count;
    /* declared fields per class id (lh_new_class), for the user values of new objects */
    int *class_slots; int nclasses;
    /* per class id, its declared fields' names as the interned Lua strings' bytes (NULL when it
     * has none): a field's name is found by pointer (see obj_index) */
    const char ***class_names;
    /* declared fields served from objects' words (lh_class_set_word_fields): per class,
     * LH_MAX_DECLARED_FIELDS sources and object classes, NULL when the class has none */
    struct lh_word_fields **word_fields; int words_classes;
    /* words set and not yet taken by their objects (lh_set_words): open addressing, entries of
     * an older epoch (tag != epoch + 1) free; words_count of them in the epoch words_tag */
    struct lh_words_entry *words; size_t words_cap, words_count; uint64_t words_tag;
    /* dates made for LH_WORD_DATE fields (registry table: day -> string), and how many */
    int dates_ref; int dates_count;
    /* the longest strings Lua interns, measured at setup (measure_short_strings) */
    size_t short_string;
    /* last error */
    int top0;
    int tb_valid;
    char err_chunk[LUA_IDSIZE]; int err_line;
    const char *err_msg; size_t err_msg_len;
    const char *err_tb; size_t err_tb_len;
};

#define LH_RT(L) (*(lh_runtime **)lua_getextraspace(L))

/* `exhausted` of a trial the watchdog interrupted (never reported: the call is run again). */
#define LH_TRIAL_INTERRUPTED 100

/* Budget units per second that no machine is assumed to exceed, in Lua 5.4's fastest loops
 * (about 4 times what a 2024 server core does: 300-460 million VM instructions a second). A
 * trial that ends within budget / LH_TRIAL_RATE seconds cannot have spent its budget. */
#define LH_TRIAL_RATE 2e9

/* Trials (lh_trial.c): evaluations without the count hook, under a watchdog. */
/* LH_TRIAL_RATE, or a lower rate set for profilers in the environment (LUAHOST_TRIAL_RATE). */
double lh_trial_rate(void);
lh_watch *lh_watch_claim(lh_runtime *rt);
void lh_watch_release(lh_watch *w);
void lh_trial_begin(lh_watch *w, int64_t limit_ns);
/* A host driver's mark: the time starts again for the next check. */
void lh_trial_restart(lh_watch *w);
/* Returns 1 when the trial was interrupted or ran longer than its limit. */
int lh_trial_end(lh_watch *w);
/* Stops the trial running on this thread (called by the watchdog's signal handler). */
void lh_interrupt(lh_runtime *rt);

/* Charges `units` against the evaluation budget; raises when it runs out. */
void lh_charge(lua_State *L, int64_t units);

/* The stock pattern functions behind a bound on their work (lh_pattern.c); each has the stock
 * function as upvalue 1. */
int lh_str_find(lua_State *L);
int lh_str_match(lua_State *L);
int lh_str_gmatch(lua_State *L);
int lh_str_gsub(lua_State *L);
/* string.format with a fast path, the stock function (upvalue 1) otherwise (lh_format.c). */
int lh_str_format(lua_State *L);

#endif
