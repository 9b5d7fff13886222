/*
 * Host sequences (lh_new_sequence): tables whose elements the host hands over one at a time,
 * as host objects with their words, and whose integer columns it fills in one call.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

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
        if (rt->host.element == NULL) return luaL_error(L, "host sequences are not available");
        if (rt->host.element(rt->host.ctx, (int64_t)lua_tointegerx(L, lua_upvalueindex(1), NULL), handle, (int64_t)i, &e, &err) != 0)
            return lh_raise_host_error(L, &err);
        if (e.cls == 0) { lua_pushnil(L); return 1; }
        /* An element the host made just now was never pushed: no live one to look for. */
        lh_push_object(L, e.cls, e.id, e.fresh);
        lh_object *o = lh_to_object(L, -1);
        if (o != NULL) lh_give_words(rt, o, e.mask, e.words);
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
        if ((size_t)n > rt->host.column_cap) {
            size_t cap = (size_t)n < 1024 ? 1024 : (size_t)n;
            int64_t *buf = (int64_t *)realloc(rt->host.column_buf, cap * sizeof *buf);
            if (buf == NULL) return luaL_error(L, "not enough memory for a sequence's column");
            rt->host.column_buf = buf;
            rt->host.column_cap = cap;
        }
        lh_tape err = {0};
        if (rt->host.column == NULL) return luaL_error(L, "host sequences' columns are not available");
        if (rt->host.column(rt->host.ctx, (int64_t)lua_tointegerx(L, lua_upvalueindex(4), NULL), handle, column,
                          rt->host.column_buf, (int64_t)n, &err) != 0)
            return lh_raise_host_error(L, &err);
        lh_push_integers(L, rt->host.column_buf, (int)n);
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
    if (lh_call_host_from(L, lua_tointegerx(L, lua_upvalueindex(2), NULL), 3) < 1) return 0;
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
    int st = lh_run_protected(L, new_sequence_entry, &p);
    *ref = p.ref;
    return st;
}
