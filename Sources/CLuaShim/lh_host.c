/*
 * Host functions: calls from Lua into the host (lh_host_callback) with the arguments described
 * and the results pushed from the host's tape, and the closures that make them
 * (lh_new_function). The host's errors are raised at the line of the Lua code that called.
 */
#include <stdlib.h>

#include "lh_internal.h"

/* Raises the host's error message (the first value of `out`, a string) at the line of the Lua
 * code that called the running C function. */
int lh_raise_host_error(lua_State *L, const lh_tape *out) {
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
int lh_call_host_from(lua_State *L, int64_t fnid, int base) {
    lh_runtime *rt = LH_RT(L);
    int n = lua_gettop(L) - base + 1;
    if (n > rt->host.argcap) {
        int cap = n < 16 ? 16 : n;
        lh_value *a = (lh_value *)realloc(rt->host.args, sizeof(lh_value) * (size_t)cap);
        if (a == NULL) return luaL_error(L, "not enough memory for host call arguments");
        rt->host.args = a; rt->host.argcap = cap;
    }
    for (int i = 0; i < n; i++) lh_describe_value(L, base + i, &rt->host.args[i]);
    lh_tape out = {0};
    int st = rt->host.call(rt->host.ctx, L, fnid, rt->host.args, n, &out);
    if (st != 0) return lh_raise_host_error(L, &out);
    int top = lua_gettop(L);
    lh_push_tape_raw(L, &out);
    return lua_gettop(L) - top;
}

static int call_from_lua(lua_State *L) {
    return lh_call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
}

struct fn_params { int64_t fnid; const char *name; int ref; };

static int new_function_entry(lua_State *L) {
    struct fn_params *p = (struct fn_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushinteger(L, (lua_Integer)p->fnid);
    lua_pushstring(L, p->name);
    lua_pushcclosure(L, call_from_lua, 2);
    p->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_function(lua_State *L, int64_t fnid, const char *name, int *ref) {
    struct fn_params p = { fnid, name, LUA_NOREF };
    int st = lh_run_protected(L, new_function_entry, &p);
    *ref = p.ref;
    return st;
}
