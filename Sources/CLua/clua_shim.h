/*
 * CLua: the system Lua 5.4 C API (lua.h, lauxlib.h, lualib.h) plus
 * `static inline` wrappers for the API macros Swift cannot import.
 *
 * Swift code in LuaHost calls only the non-raising subset of this API
 * directly (see Sources/LuaHost/LuaRuntime.swift); everything that can
 * raise a Lua error runs inside CLuaShim's protected C helpers.
 */
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

enum {
    CLUA_REGISTRYINDEX = LUA_REGISTRYINDEX,
    CLUA_MULTRET = LUA_MULTRET,
    CLUA_NOREF = LUA_NOREF,
    CLUA_REFNIL = LUA_REFNIL,
    CLUA_MINSTACK = LUA_MINSTACK,
};

static inline int clua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void clua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void clua_newtable(lua_State *L) { lua_newtable(L); }
static inline int clua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}
static inline void clua_call(lua_State *L, int nargs, int nresults) { lua_call(L, nargs, nresults); }
static inline const char *clua_tostring(lua_State *L, int idx) { return lua_tostring(L, idx); }
static inline lua_Number clua_tonumber(lua_State *L, int idx) { return lua_tonumber(L, idx); }
static inline lua_Integer clua_tointeger(lua_State *L, int idx) { return lua_tointeger(L, idx); }
static inline int clua_isnil(lua_State *L, int idx) { return lua_isnil(L, idx); }
static inline int clua_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }
static inline int clua_istable(lua_State *L, int idx) { return lua_istable(L, idx); }
static inline int clua_isfunction(lua_State *L, int idx) { return lua_isfunction(L, idx); }
static inline void clua_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcfunction(L, f); }
static inline void clua_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void clua_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void clua_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline void *clua_getextraspace(lua_State *L) { return lua_getextraspace(L); }
static inline int clua_dostring(lua_State *L, const char *s) { return luaL_dostring(L, s); }
static inline int clua_loadbuffer(lua_State *L, const char *s, size_t len, const char *name) {
    return luaL_loadbufferx(L, s, len, name, "t");
}

#endif
