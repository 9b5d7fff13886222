/*
 * Values between Lua and the host: descriptions of stack values (lh_describe, lh_read_fields),
 * tapes pushed onto the stack (lh_push_tape_raw, lh_push_integers), and the protected helpers
 * the host calls for registry references and raw table fields.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lh_internal.h"

void lh_describe(lua_State *L, int idx, lh_value *v) { lh_describe_value(L, idx, v); }

/* Pushes a new sequence { items[0], ..., items[n-1] }. Up to LH_PACK_MAX items go through the
 * runtime's `pack` (a Lua function `function(...) return { ... } end`): its table constructor
 * sizes the array once and copies the stack into it (OP_SETLIST), about a third of the
 * instructions of one lua_rawseti per item. Longer sequences, or a stack that cannot grow,
 * take the plain loop. Raises on memory errors (C only). */
#define LH_PACK_MAX 8192
void lh_push_integers(lua_State *L, const int64_t *items, int n) {
    lh_runtime *rt = LH_RT(L);
    if (n > 4 && n <= LH_PACK_MAX && rt->values.pack_ref > 0 && lua_checkstack(L, n + 2)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, rt->values.pack_ref);
        for (int j = 0; j < n; j++) lua_pushinteger(L, (lua_Integer)items[j]);
        lua_call(L, n, 1);
        return;
    }
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        lua_pushinteger(L, (lua_Integer)items[j]);
        lua_rawseti(L, -2, j + 1);
    }
}

/* Pushes one value of the tape (raises on memory errors: C only). */
static void push_one(lua_State *L, const lh_tape *t, int32_t *pos, int depth) {
    if (*pos >= t->count) luaL_error(L, "malformed value tape");
    const lh_value *v = &t->values[(*pos)++];
    if (depth > 200) luaL_error(L, "value nested too deeply");
    luaL_checkstack(L, 4, "value nested too deeply");
    switch (v->kind) {
        case LH_NIL: lua_pushnil(L); break;
        case LH_BOOLEAN: lua_pushboolean(L, v->aux); break;
        case LH_INTEGER: lua_pushinteger(L, (lua_Integer)v->i); break;
        case LH_NUMBER: lua_pushnumber(L, (lua_Number)v->n); break;
        case LH_STRING: lua_pushlstring(L, t->arena + v->i, v->len); break;
        case LH_REF: lua_rawgeti(L, LUA_REGISTRYINDEX, (lua_Integer)v->i); break;
        case LH_OBJECT: lh_push_object(L, v->aux, v->i, 0); break;
        case LH_NEWTABLE: {
            int narr = v->aux, nhash = (int)v->len;
            lua_createtable(L, narr, nhash);
            for (int j = 0; j < narr; j++) {
                push_one(L, t, pos, depth + 1);
                lua_rawseti(L, -2, j + 1);
            }
            for (int j = 0; j < nhash; j++) {
                push_one(L, t, pos, depth + 1);
                push_one(L, t, pos, depth + 1);
                lua_rawset(L, -3);
            }
            break;
        }
        case LH_INTARRAY: {
            if (v->len > (size_t)INT_MAX) luaL_error(L, "array too long");
            lh_push_integers(L, (const int64_t *)(const void *)(t->arena + v->i), (int)v->len);
            break;
        }
        default: luaL_error(L, "invalid value kind %d", (int)v->kind);
    }
}

void lh_push_tape_raw(lua_State *L, const lh_tape *t) {
    int32_t pos = 0;
    if (t == NULL) return;
    luaL_checkstack(L, t->ntop + 4, "too many values");
    for (int32_t j = 0; j < t->ntop; j++) push_one(L, t, &pos, 0);
}

/* Reads the named fields of the table at `idx` in one raw pass (a read-only table's backing
 * table): out[k] describes the value under names[k] (nil when absent), as lh_describe would.
 * Values that live on the stack (tables, functions, others) are left on it above the previous
 * top, so their stack indices stay valid until the caller resets the top; strings point into
 * the Lua strings, which the table keeps alive. Returns how many entries have a key that is not
 * one of the names (or is not a string), and *unknown is the stack index of the first such key
 * (left on the stack) or 0; -1 when the stack cannot grow, -2 when the table has more than
 * `limit` entries. Never raises and allocates nothing: it pushes at most n + 6 values, checked
 * first, so a host function may call it. */
int lh_read_fields(lua_State *L, int idx, int n, const char *const *names, const size_t *lens,
                   int64_t limit, lh_value *out, int *unknown) {
    *unknown = 0;
    if (!lua_checkstack(L, n + 6)) return -1;
    idx = lua_absindex(L, idx);
    memset(out, 0, sizeof *out * (size_t)n); /* LH_NIL */
    /* A frozen table has a metatable (its proxy's); a table built for the call, the usual
     * options or report table, has none and is read as it is. */
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        lh_push_backing(L, idx);
    } else {
        lua_pushvalue(L, idx);
    }
    int t = lua_gettop(L);
    int strays = 0;
    int64_t entries = 0;
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        if (++entries > limit) return -2;
        int k = n;
        if (lua_type(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *key = lua_tolstring(L, -2, &len);
            /* the length and the first byte settle most names without a call to memcmp */
            for (k = 0; k < n; k++)
                if (lens[k] == len && (len == 0 || (names[k][0] == key[0] && memcmp(names[k], key, len) == 0))) break;
        }
        if (k == n) {
            lua_pop(L, 1);
            if (strays++ == 0) {
                /* keep a copy of the key below the one the iteration goes on from */
                lua_pushvalue(L, -1);
                *unknown = lua_gettop(L) - 1;
            }
            continue;
        }
        lh_describe_value(L, -1, &out[k]);
        if (out[k].kind == LH_TABLE || out[k].kind == LH_FUNCTION || out[k].kind == LH_OTHER) {
            /* a value described by its stack index: keep it on the stack, below the key */
            lua_rotate(L, -2, 1);
            out[k].aux = lua_gettop(L) - 1;
        } else {
            lua_pop(L, 1);
        }
    }
    return strays;
}

static int ref_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_settop(L, 2);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_ref_at(lua_State *L, int idx, int *ref) {
    idx = lua_absindex(L, idx);
    *ref = LUA_NOREF;
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, ref_entry);
    lua_pushlightuserdata(L, ref);
    lua_pushvalue(L, idx);
    int st = lua_pcall(L, 2, 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return lh_map_status(st);
}

struct unref_params { const int *refs; int n; };
static int unref_entry(lua_State *L) {
    struct unref_params *p = (struct unref_params *)lua_touserdata(L, 1);
    for (int i = 0; i < p->n; i++) luaL_unref(L, LUA_REGISTRYINDEX, p->refs[i]);
    return 0;
}

int lh_unref(lua_State *L, const int *refs, int n) {
    struct unref_params p = { refs, n };
    return lh_run_protected(L, unref_entry, &p);
}

static int push_tape_entry(lua_State *L) {
    const lh_tape *t = (const lh_tape *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lh_push_tape_raw(L, t);
    return lua_gettop(L);
}

int lh_push_tape(lua_State *L, const lh_tape *tape) {
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, push_tape_entry);
    lua_pushlightuserdata(L, (void *)tape);
    int st = lua_pcall(L, 1, tape ? tape->ntop : 0, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return lh_map_status(st);
}

struct field_params { int tref; const char *key; size_t keylen; const lh_tape *value; };

static int rawget_entry(lua_State *L) {
    struct field_params *p = (struct field_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE) {
        lua_pushnil(L);
        return 1;
    }
    lh_push_backing(L, 1);
    lua_pushlstring(L, p->key, p->keylen);
    lua_rawget(L, -2);
    return 1;
}

int lh_rawget_field(lua_State *L, int tref, const char *key, size_t keylen) {
    struct field_params p = { tref, key, keylen, NULL };
    if (!lua_checkstack(L, 4)) return LH_ERR_MEMORY;
    lua_pushcfunction(L, rawget_entry);
    lua_pushlightuserdata(L, &p);
    int st = lua_pcall(L, 1, 1, 0);
    if (st != LUA_OK) lua_pop(L, 1);
    return lh_map_status(st);
}

static int rawset_entry(lua_State *L) {
    struct field_params *p = (struct field_params *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, p->tref) != LUA_TTABLE)
        return luaL_error(L, "not a table");
    lh_push_backing(L, 1);
    lua_pushlstring(L, p->key, p->keylen);
    lh_push_tape_raw(L, p->value);
    lua_settop(L, 4);
    lua_rawset(L, 2);
    return 0;
}

int lh_rawset_field(lua_State *L, int tref, const char *key, size_t keylen, const lh_tape *value) {
    struct field_params p = { tref, key, keylen, value };
    return lh_run_protected(L, rawset_entry, &p);
}

int lh_set_base(lh_runtime *rt, const char *key, size_t keylen, const lh_tape *value) {
    return lh_rawset_field(rt->L, rt->sandbox.base_ref, key, keylen, value);
}

static int new_table_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_newtable(L);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_table(lua_State *L, int *ref) { return lh_protected_ref(L, new_table_entry, ref); }

void lh_ref_source(lua_State *L, int ref, char *buf, size_t n) {
    lua_Debug ar;
    if (n == 0) return;
    buf[0] = 0;
    if (!lua_checkstack(L, 2)) return;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TFUNCTION) { lua_pop(L, 1); return; }
    if (lua_getinfo(L, ">S", &ar) && ar.what[0] != 'C') {
        snprintf(buf, n, "%s", ar.short_src);
    }
}

void lh_push_ref(lua_State *L, int ref) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
}
