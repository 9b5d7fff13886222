/*
 * Read-only tables (lh_freeze): a frozen table is emptied into a backing table that its
 * metatable reads through, and refuses writes; the sandbox's libraries, shared modules and the
 * host's tables are frozen so that no plugin can change what another one sees.
 */
#include <stdlib.h>

#include "lh_internal.h"

#define LH_MAX_FREEZE_DEPTH 100

/* Pushes the backing table of frozen table `idx`, or the table itself. */
void lh_push_backing(lua_State *L, int idx) {
    lh_runtime *rt = LH_RT(L);
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->sandbox.frozen_ref);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushvalue(L, idx);
    }
    lua_remove(L, -2);
}

int lh_is_frozen(lua_State *L, int idx) {
    lh_runtime *rt = LH_RT(L);
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->sandbox.frozen_ref);
    lua_pushvalue(L, idx);
    int r = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return r;
}

__attribute__((noreturn)) void lh_readonly_error(lua_State *L, int idx) {
    const char *name = "?";
    if (lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    luaL_error(L, "attempt to modify read-only table '%s'", name);
    abort();
}

static int ro_newindex(lua_State *L) { lh_readonly_error(L, 1); }

static int ro_len(lua_State *L) {
    lh_push_backing(L, 1);
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
    lh_push_backing(L, 1);
    lua_pushnil(L);
    return 3;
}

void lh_freeze_table(lua_State *L, int t, const char *name, int deep, int depth) {
    lh_runtime *rt = LH_RT(L);
    t = lua_absindex(L, t);
    if (depth > LH_MAX_FREEZE_DEPTH) luaL_error(L, "freeze: tables nested too deeply");
    luaL_checkstack(L, 10, NULL);
    if (lh_is_frozen(L, t)) return;
    if (lua_getmetatable(L, t)) { lua_pop(L, 1); return; }
    lua_newtable(L);
    int b = lua_gettop(L);
    /* register first so that cycles terminate */
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->sandbox.frozen_ref);
    lua_pushvalue(L, t); lua_pushvalue(L, b); lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (deep && lua_type(L, -1) == LUA_TTABLE)
            lh_freeze_table(L, -1, name, deep, depth + 1);
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

struct freeze_params { int tref; const char *name; int deep; };
static int freeze_entry(lua_State *L) {
    struct freeze_params *p = (struct freeze_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE)
        return luaL_error(L, "freeze: not a table");
    lh_freeze_table(L, 1, p->name, p->deep, 0);
    return 0;
}

int lh_freeze(lua_State *L, int tref, const char *name, int deep) {
    struct freeze_params p = { tref, name, deep };
    return lh_run_protected(L, freeze_entry, &p);
}

