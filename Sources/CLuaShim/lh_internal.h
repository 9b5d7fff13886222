/* Internal declarations shared by the CLuaShim C files. Not public API. */
#ifndef LH_INTERNAL_H
#define LH_INTERNAL_H

#include "luahost_shim.h"
#include <lauxlib.h>

#if !defined(l_unlikely)
#define l_unlikely(x) (__builtin_expect(((x) != 0), 0))
#endif

struct lh_runtime {
    lua_State *L;
    /* memory */
    size_t used, limit;
    int mem_refused;
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
    /* require */
    char **roots; char **root_names; int nroots;
    /* callbacks */
    void *ctx;
    lh_host_callback host_cb;
    lh_print_callback print_cb;
    lh_value *args; int argcap;
    /* registry refs */
    int env_mt_ref, base_ref, modules_ref, frozen_ref, classes_ref, interned_ref;
    /* host objects' cached fields are valid while this stands (lh_invalidate_fields) */
    uint64_t epoch;
    /* last error */
    int top0;
    int tb_valid;
    char err_chunk[LUA_IDSIZE]; int err_line;
    const char *err_msg; size_t err_msg_len;
    const char *err_tb; size_t err_tb_len;
};

#define LH_RT(L) (*(lh_runtime **)lua_getextraspace(L))

/* Charges `units` against the evaluation budget; raises when it runs out. */
void lh_charge(lua_State *L, int64_t units);

/* Guarded pattern functions (lh_strlib.c). */
int lh_str_find(lua_State *L);
int lh_str_match(lua_State *L);
int lh_str_gmatch(lua_State *L);
int lh_str_gsub(lua_State *L);

#endif
