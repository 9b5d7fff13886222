/*
 * The runtime: making and closing a sandboxed state (lh_open, lh_close) and running code in it
 * (lh_load, lh_call) under the budget, with the error, its place and a traceback kept for the
 * host (lh_error).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

static char tb_key; /* registry key (light userdata) of the last traceback */

/* Message handler: records the first Lua frame, keeps a traceback aside and
 * never calls metamethods of the error object. */
static int lh_msgh(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    lh_first_lua_frame(L, 1, rt->outcome.chunk, &rt->outcome.line);
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
    rt->outcome.tb_valid = 1;
    return 1;
}

static void clear_error(lh_runtime *rt) {
    rt->outcome.chunk[0] = 0; rt->outcome.line = 0;
    rt->outcome.msg = NULL; rt->outcome.msg_len = 0;
    rt->outcome.tb = NULL; rt->outcome.tb_len = 0;
}

static int finish_status(lh_runtime *rt, int st) {
    lua_State *L = rt->L;
    int code;
    /* A trial that ran too long, or ran out of budget (allocations, matcher steps, a
     * coroutine), says nothing for sure: the host runs the call again, metered. */
    if (rt->trials.running) {
        rt->trials.count++;
        if (rt->trials.failed || rt->budget.exhausted) {
            rt->trials.reruns++;
            rt->trials.rerun = 1;
            return LH_RETRY;
        }
    }
    if (rt->budget.exhausted) code = rt->budget.exhausted;
    else if (st == LUA_OK) return LH_OK;
    else if (st == LUA_ERRMEM) code = LH_ERR_MEMORY;
    else if (st == LUA_ERRERR) code = LH_ERR_HANDLER;
    else code = LH_ERR_RUNTIME;
    if (st != LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
        rt->outcome.msg = lua_tolstring(L, -1, &rt->outcome.msg_len);
        if (code == LH_ERR_RUNTIME && rt->mem.refused && strcmp(rt->outcome.msg, "not enough memory") == 0)
            code = LH_ERR_MEMORY;
    }
    if (rt->outcome.tb_valid && lua_checkstack(L, 2)) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &tb_key) == LUA_TSTRING)
            rt->outcome.tb = lua_tolstring(L, -1, &rt->outcome.tb_len);
    }
    if (code == LH_ERR_BUDGET || code == LH_ERR_TIMEOUT) {
        if (rt->budget.ex_line > 0) {
            memcpy(rt->outcome.chunk, rt->budget.ex_chunk, LUA_IDSIZE);
            rt->outcome.line = rt->budget.ex_line;
        }
    }
    return code;
}

struct load_params { int ref; };

static int load_entry(lua_State *L) {
    struct load_params *p = (struct load_params *)lua_touserdata(L, 1);
    /* 2: the compiled chunk */
    lh_push_new_env(L);
    lua_setupvalue(L, 2, 1);
    lua_settop(L, 2);
    lua_call(L, 0, 1);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_load(lh_runtime *rt, const char *buf, size_t len, const char *chunkname, int *ref) {
    lua_State *L = rt->L;
    struct load_params p = { LUA_NOREF };
    rt->outcome.top0 = lua_gettop(L);
    clear_error(rt);
    *ref = LUA_NOREF;
    if (!lua_checkstack(L, 8)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, lh_msgh);
    int msgh = lua_gettop(L);
    rt->mem.refused = 0;
    int st = luaL_loadbufferx(L, buf, len, chunkname, "t");
    if (st != LUA_OK) {
        if (lua_type(L, -1) == LUA_TSTRING) rt->outcome.msg = lua_tolstring(L, -1, &rt->outcome.msg_len);
        return st == LUA_ERRSYNTAX ? LH_ERR_SYNTAX : (st == LUA_ERRMEM ? LH_ERR_MEMORY : LH_ERR_RUNTIME);
    }
    lua_pushcfunction(L, load_entry);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, &p);
    lua_insert(L, -2);
    lh_begin_eval(rt, 0);
    st = lua_pcall(L, 2, 0, msgh);
    lh_end_eval(rt);
    int code = finish_status(rt, st);
    if (code == LH_OK) *ref = p.ref;
    else if (st == LUA_OK && p.ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, p.ref);
    return code;
}

struct call_params { int fnref; const lh_tape *args; };

static int call_entry(lua_State *L) {
    struct call_params *p = (struct call_params *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->fnref);
    lh_push_tape_raw(L, p->args);
    lua_call(L, p->args ? p->args->ntop : 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

int lh_call(lh_runtime *rt, int fnref, const lh_tape *args, int trial, int *nresults) {
    lua_State *L = rt->L;
    struct call_params p = { fnref, args };
    rt->outcome.top0 = lua_gettop(L);
    clear_error(rt);
    *nresults = 0;
    if (!lua_checkstack(L, 8)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, lh_msgh);
    int msgh = lua_gettop(L);
    lua_pushcfunction(L, call_entry);
    lua_pushlightuserdata(L, &p);
    lh_begin_eval(rt, trial);
    int st = lua_pcall(L, 1, LUA_MULTRET, msgh);
    lh_end_eval(rt);
    int code = finish_status(rt, st);
    if (code == LH_OK) *nresults = lua_gettop(L) - msgh;
    return code;
}

void lh_error(lh_runtime *rt, lh_error_info *info) {
    info->message = rt->outcome.msg; info->message_len = rt->outcome.msg_len;
    info->traceback = rt->outcome.tb; info->traceback_len = rt->outcome.tb_len;
    info->chunk = rt->outcome.chunk;
    info->line = rt->outcome.line;
}

void lh_finish(lh_runtime *rt) {
    lua_settop(rt->L, rt->outcome.top0);
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
    rt->objects.short_string = measure_short_strings(L);

    /* registry tables */
    lua_newtable(L); /* frozen: weak keys */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k"); lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    rt->sandbox.frozen_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->sandbox.modules_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->objects.classes_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->objects.kept_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->objects.interned_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); rt->words.dates_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* lh_push_integers' table maker: host code, no environment */
    static const char pack_src[] = "return function(...) return { ... } end";
    if (luaL_loadbufferx(L, pack_src, sizeof pack_src - 1, "=(host)", "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    rt->values.pack_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    lh_sandbox_build(L, rt);
    return 0;
}

static void free_roots(lh_runtime *rt) {
    for (int i = 0; i < rt->sandbox.nroots; i++) { free(rt->sandbox.roots[i]); free(rt->sandbox.root_names[i]); }
    free(rt->sandbox.roots); free(rt->sandbox.root_names);
    rt->sandbox.roots = rt->sandbox.root_names = NULL; rt->sandbox.nroots = 0;
}

lh_runtime *lh_open(const lh_config *cfg, const char **why) {
    lh_runtime *rt = (lh_runtime *)calloc(1, sizeof(lh_runtime));
    *why = NULL;
    if (rt == NULL) { *why = "out of memory"; return NULL; }
    rt->mem.limit = cfg->memory_limit;
    rt->budget.units = cfg->instruction_budget > 0 ? cfg->instruction_budget : 1;
    rt->budget.time_limit = cfg->time_limit;
    rt->budget.pattern_limit = cfg->pattern_step_limit;
    rt->host.ctx = cfg->ctx;
    rt->host.call = cfg->host_cb;
    rt->host.print = cfg->print_cb;
    rt->host.element = cfg->element_cb;
    rt->host.column = cfg->column_cb;
    rt->host.record = cfg->record_cb;
    rt->host.plain = cfg->plain;
    rt->budget.gran = 1000;
    /* A trial lasts as long as the budget could last on the fastest machine, and never longer
     * than the time limit (which only a counted run checks). */
    double trial_seconds = (double)rt->budget.units / lh_trial_rate();
    if (rt->budget.time_limit > 0 && rt->budget.time_limit < trial_seconds) trial_seconds = rt->budget.time_limit;
    rt->trials.limit_ns = (int64_t)(trial_seconds * 1e9);
    if (cfg->nroots > 0) {
        rt->sandbox.roots = (char **)calloc((size_t)cfg->nroots, sizeof(char *));
        rt->sandbox.root_names = (char **)calloc((size_t)cfg->nroots, sizeof(char *));
        if (!rt->sandbox.roots || !rt->sandbox.root_names) { free_roots(rt); free(rt); *why = "out of memory"; return NULL; }
        for (int i = 0; i < cfg->nroots; i++) {
            char real[PATH_MAX];
            if (realpath(cfg->require_roots[i], real) == NULL) continue; /* missing root: skip */
            const char *slash = strrchr(real, '/');
            const char *base = (slash && slash[1]) ? slash + 1 : real;
            rt->sandbox.roots[rt->sandbox.nroots] = strdup(real);
            rt->sandbox.root_names[rt->sandbox.nroots] = strdup(base);
            rt->sandbox.nroots++;
        }
    }
    lua_State *L = lua_newstate(cfg->plain & LH_PLAIN_POOL ? lh_alloc_plain : lh_alloc, rt);
    if (L == NULL) { lh_pool_release(&rt->mem.pool); free_roots(rt); free(rt); *why = "cannot create a Lua state within the memory limit"; return NULL; }
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
        lh_pool_release(&rt->mem.pool);
        free_roots(rt); free(rt);
        return NULL;
    }
    if (cfg->trials) rt->trials.watch = lh_watch_claim(rt);
    return rt;
}

void lh_close(lh_runtime *rt) {
    if (rt == NULL) return;
    lh_watch_release(rt->trials.watch);
    lua_close(rt->L);
    lh_pool_release(&rt->mem.pool);
    free_roots(rt);
    free(rt->host.args);
    free(rt->objects.class_slots);
    free(rt->objects.kept_classes);
    for (int c = 0; c < rt->objects.nclasses; c++) if (rt->objects.class_names) free(rt->objects.class_names[c]);
    free(rt->objects.class_names);
    for (int c = 0; c < rt->words.nclasses; c++) free(rt->words.fields[c]);
    free(rt->words.fields);
    free(rt->words.table);
    free(rt->host.column_buf);
    free(rt);
}

lua_State *lh_state(lh_runtime *rt) { return rt->L; }
size_t lh_memory_in_use(lh_runtime *rt) { return rt->mem.used; }
void lh_trial_counts(lh_runtime *rt, int64_t *trials, int64_t *reruns) {
    *trials = rt->trials.count;
    *reruns = rt->trials.reruns;
}
