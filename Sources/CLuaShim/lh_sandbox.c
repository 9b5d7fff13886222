/*
 * The sandbox: the base environment every plugin reads through (lh_sandbox_build), and the
 * functions that replace the stock ones a plugin could misuse: load (text only), require (the
 * rule roots only), rawset and setmetatable (no writes to frozen tables, no finalizers),
 * xpcall (no handler once the budget is spent), math.random (the same numbers in every
 * evaluation), coroutines (with the budget's hook), table functions (their loops charged) and
 * the string library's patterns and format (lh_pattern.c, lh_format.c).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lh_internal.h"

#define LH_MAX_MODULE_SIZE (16u * 1024u * 1024u)

/* What require keeps for a module while its file runs (a circular require finds it). */
static char loading_mark;

void lh_push_new_env(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    luaL_checkstack(L, 3, NULL);
    lua_createtable(L, 0, 4);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->sandbox.env_mt_ref);
    lua_setmetatable(L, -2);
    lua_pushliteral(L, "_G");
    lua_pushvalue(L, -2);
    lua_rawset(L, -3);
}

static int sb_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    lh_push_backing(L, 1);
    lua_replace(L, 1);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int sb_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    lh_push_backing(L, 1);
    lua_replace(L, 1);
    lua_rawget(L, 1);
    return 1;
}

static int sb_rawlen(lua_State *L) {
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    if (t == LUA_TTABLE) { lh_push_backing(L, 1); lua_replace(L, 1); }
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

static int sb_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (lh_is_frozen(L, 1)) lh_readonly_error(L, 1);
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
    if (rt->host.print) rt->host.print(rt->host.ctx, chunk, chunklen, msg, ml);
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
    if (hasenv) lua_pushvalue(L, 4); else lh_push_new_env(L);
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
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->sandbox.modules_ref); /* 2 */
    lua_pushvalue(L, 1);
    int t = lua_rawget(L, 2);
    if (t == LUA_TLIGHTUSERDATA)
        return luaL_error(L, "require: module '%s' is being loaded (circular require)", name);
    if (t != LUA_TNIL) return 1;
    lua_pop(L, 1);

    char rel[256];
    for (size_t i = 0; i <= l; i++) rel[i] = name[i] == '.' ? '/' : name[i];
    for (int r = 0; r < rt->sandbox.nroots; r++) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s.lua", rt->sandbox.roots[r], rel) >= (int)sizeof path) continue;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        /* the resolved file must stay inside the root (no symlink escapes) */
        char real[PATH_MAX];
        if (realpath(path, real) == NULL) continue;
        size_t rl = strlen(rt->sandbox.roots[r]);
        if (strncmp(real, rt->sandbox.roots[r], rl) != 0 || real[rl] != '/') continue;
        if ((size_t)st.st_size > LH_MAX_MODULE_SIZE)
            return luaL_error(L, "require: module '%s' is too large", name);
        size_t size = (size_t)st.st_size;
        char *buf = (char *)lua_newuserdatauv(L, size ? size : 1, 0); /* 3: GC-owned */
        FILE *f = fopen(real, "rb");
        if (f == NULL) return luaL_error(L, "require: cannot open module '%s'", name);
        size_t got = fread(buf, 1, size, f);
        fclose(f);
        if (got != size) return luaL_error(L, "require: cannot read module '%s'", name);
        lua_pushfstring(L, "@%s/%s.lua", rt->sandbox.root_names[r], rel); /* 4 */
        int lst = luaL_loadbufferx(L, buf, size, lua_tostring(L, 4), "t"); /* 5 */
        if (lst != LUA_OK) return lua_error(L);
        lh_push_new_env(L);
        lua_setupvalue(L, 5, 1);
        /* mark as loading */
        lua_pushvalue(L, 1);
        lua_pushlightuserdata(L, &loading_mark);
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
            lh_freeze_table(L, 5, lua_tostring(L, 7), 1, 0);
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
    if (rt->budget.exhausted) { lua_settop(L, 1); return 1; }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* xpcall's end: true and the function's results, or false and what the handler made of the
 * error, from stack index `first` (where the function was) on. */
static int xpcall_done(lua_State *L, int status, lua_KContext first) {
    lua_pushboolean(L, status == LUA_OK || status == LUA_YIELD);
    lua_insert(L, (int)first);
    return lua_gettop(L) - (int)first + 1;
}

/* xpcall(f, handler, ...): the handler wrapped (xpcall_msgh) in place, then f and its arguments
 * called above it; a yield inside goes on in xpcall_done. */
static int sb_xpcall(lua_State *L) {
    int nargs = lua_gettop(L) - 2;
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_msgh, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, 1);
    lua_insert(L, 3);
    return xpcall_done(L, lua_pcallk(L, nargs < 0 ? 0 : nargs, LUA_MULTRET, 2, 3, xpcall_done), 3);
}

/* math.random: reseeded with 0 on first use in every evaluation. */
static int sb_random(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    if (rt->sandbox.random_eval != rt->budget.eval_id) {
        rt->sandbox.random_eval = rt->budget.eval_id;
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

/* coroutine.create: the new coroutine runs under the budget's hook. */
static int sb_cocreate(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lh_hook_thread(LH_RT(L), co);
    return 1;
}

/* A function made by coroutine.wrap (upvalue 1: the coroutine): resumes it with its arguments
 * and returns what it yields or returns. An error in the coroutine closes it and is raised
 * here, a message with this call's position in front. */
static int wrapped_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int nargs = lua_gettop(L), nresults;
    if (!lua_checkstack(co, nargs)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, nargs);
    int status = lua_resume(co, L, nargs, &nresults);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (lua_checkstack(L, nresults + 1)) {
            lua_xmove(co, L, nresults);
            return nresults;
        }
        lua_pop(co, nresults);
        return luaL_error(L, "too many results to resume");
    }
    int closed = lua_status(co) == LUA_OK ? status : lua_resetthread(co);
    lua_xmove(co, L, 1);
    if (closed != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_cowrap(lua_State *L) {
    sb_cocreate(L);
    lua_pushcclosure(L, wrapped_resume, 1);
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

/* Opens the libraries a plugin may use and builds the base environment every plugin's
 * environment reads through (registry: sandbox.base_ref, sandbox.env_mt_ref). Raises on memory
 * errors: run protected (lh_open). */
void lh_sandbox_build(lua_State *L, lh_runtime *rt) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_settop(L, 0);

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
        lh_freeze_table(L, idx[i], libs[i], 0, 0);
        lua_pushvalue(L, idx[i]);
        lua_setfield(L, B, libs[i]);
    }
    lh_push_backing(L, S);
    lua_setfield(L, SM, "__index");
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, S);
    lua_setfield(L, -2, "__index");
    lh_freeze_table(L, -1, "string metatable", 0, 0);
    lua_setfield(L, SM, "__metatable");

    /* shared metatable of every plugin environment */
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, B); lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0); lua_setfield(L, -2, "__metatable");
    rt->sandbox.env_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, B);
    rt->sandbox.base_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* the original global table keeps nothing dangerous (no io/os/debug/
     * package were opened), but drop load/dofile/loadfile anyway */
    lua_pushnil(L); lua_setglobal(L, "load");
    lua_pushnil(L); lua_setglobal(L, "dofile");
    lua_pushnil(L); lua_setglobal(L, "loadfile");
    lua_pushnil(L); lua_setglobal(L, "collectgarbage");
}
