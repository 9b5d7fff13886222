/*
 * Record functions (lh_new_record_function): a host function called with a table literal whose
 * named fields are read straight into descriptions for the host's record callback, with no
 * arguments described and no results pushed. Anything else is a plain host function call.
 */

#include "lh_internal.h"

/* A record function. Upvalues: 1 the record callback's function id, 2 the fallback host
 * function's id, then the names (strings). A table without a metatable is read field by field
 * (raw gets of the names, made once: no pass over its entries, no key compared in C) and handed
 * to the record callback; anything else goes to the fallback, as a host function call. */
static int record_call(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    int plain = rt->host.record != NULL && lua_type(L, 1) == LUA_TTABLE;
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
            lh_describe_value(L, -1, &fields[n]);
            n++;
        }
        lh_tape err = {0};
        if (rt->host.record(rt->host.ctx, L, (int64_t)lua_tointegerx(L, lua_upvalueindex(1), NULL), fields, n, &err) != 0)
            return lh_raise_host_error(L, &err);
        return 0;
    }
    lh_call_host(L, lua_tointegerx(L, lua_upvalueindex(2), NULL));
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
    /* The plain path (LH_PLAIN_RECORDS): the fallback host function, for every call. */
    if (LH_RT(L)->host.plain & LH_PLAIN_RECORDS) return lh_new_function(L, fallback_fnid, "record", ref);
    struct record_params p = { record_fnid, fallback_fnid, nfields, names, lens, LUA_NOREF };
    int st = lh_run_protected(L, new_record_entry, &p);
    *ref = p.ref;
    return st;
}
