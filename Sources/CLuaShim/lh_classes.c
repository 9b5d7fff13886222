/*
 * Host object classes: what an object shows. A class's __index reads its declared fields
 * (from the object's words, lh_words.c, or from a slot the host filled in this field epoch),
 * then its static fields, then asks the host, caching what it may (lh_new_class).
 */
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

static char nil_mark; /* light userdata key: a cached nil field */

/* Whether a field's value may be cached: never a table (one table every plugin could write). */
static int cacheable(lua_State *L, int idx) {
    int t = lua_type(L, idx);
    return t == LUA_TNIL || t == LUA_TBOOLEAN || t == LUA_TNUMBER || t == LUA_TSTRING
        || (t == LUA_TUSERDATA && lh_to_object(L, idx) != NULL);
}

/* Pushes "YYYY-MM-DD" for `day` days since 1970-01-01 (years 1 to 9999, else returns 0 and
 * pushes nothing). The strings made are kept by day, up to 65,536 of them. */
static int push_date(lua_State *L, lh_runtime *rt, int64_t day) {
    if (day < -719162 || day > 2932896) return 0;
    luaL_checkstack(L, 3, NULL);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->words.dates_ref);
    if (lua_rawgeti(L, -1, (lua_Integer)day) == LUA_TSTRING) { lua_remove(L, -2); return 1; }
    lua_pop(L, 1);
    /* days to civil (H. Hinnant's algorithm) */
    int64_t z = day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    char text[10] = {
        (char)('0' + y / 1000 % 10), (char)('0' + y / 100 % 10), (char)('0' + y / 10 % 10), (char)('0' + y % 10), '-',
        (char)('0' + m / 10), (char)('0' + m % 10), '-', (char)('0' + d / 10), (char)('0' + d % 10) };
    lua_pushlstring(L, text, sizeof text);
    if (rt->words.dates_count >= 65536) {
        lua_pop(L, 2);
        lua_newtable(L);
        lua_rawseti(L, LUA_REGISTRYINDEX, rt->words.dates_ref);
        rt->words.dates_count = 0;
        return push_date(L, rt, day);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)day);
    rt->words.dates_count++;
    lua_remove(L, -2);
    return 1;
}

/* Declared field k (0-based) of `o` served from its words: 1 with the value pushed, or 0 (the
 * class does not serve it so, or the object has no such word in this field epoch). */
static int word_field(lua_State *L, lh_runtime *rt, lh_object *o, int k) {
    const struct lh_word_fields *wf = lh_word_fields_of(rt, o->cls);
    if (wf == NULL || k < 0 || k >= LH_MAX_DECLARED_FIELDS || wf->sources[k] == 0) return 0;
    if (o->words_tag != rt->objects.epoch + 1) lh_take_words(rt, o);
    int word = wf->sources[k] & 15;
    if (o->words_tag != rt->objects.epoch + 1 || !(o->words_mask >> word & 1)) return 0;
    int64_t v = o->words[word];
    switch (wf->sources[k] >> 4) {
        case LH_WORD_INTEGER: lua_pushinteger(L, (lua_Integer)v); return 1;
        case LH_WORD_DATE: return push_date(L, rt, v);
        case LH_WORD_OBJECT:
            if (v == 0) lua_pushnil(L); else lh_push_object(L, wf->classes[k], v, 0);
            return 1;
        default: return 0;
    }
}

/* A declared field (upvalue 5 maps its name to k): served from the object's slot k when the
 * host filled it in this field epoch, else asked of the host with k as a third argument (no
 * name to compare) and kept in the slot. */
static int declared_field(lua_State *L, lh_runtime *rt, lh_object *o, int k) {
    uint64_t bit = (uint64_t)1 << k;
    if (o != NULL && word_field(L, rt, o, k - 1)) return 1;
    if (rt->host.plain & LH_PLAIN_FIELDS) o = NULL; /* the plain path: ask the host every time */
    if (o != NULL) {
        if (o->slot_epoch != rt->objects.epoch) {
            o->slot_epoch = rt->objects.epoch;
            o->filled = 0;
        } else if (o->filled & bit) {
            lua_getiuservalue(L, 1, k + 1);
            return 1;
        }
    }
    lua_pushinteger(L, k);
    int n = lh_call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
    if (o != NULL && n == 1 && cacheable(L, -1)) {
        lua_pushvalue(L, -1);
        if (lua_setiuservalue(L, 1, k + 1)) o->filled |= bit;
    }
    return n;
}

/* A host object's __index. Upvalues: 1 the class's index function id, 2 its name, 3 the
 * class's static fields (a table: methods), 4 whether fields are cached, 5 its declared fields
 * (name -> k, or nil), read first, then the static fields, then the host.
 * A cached class keeps each other field it served (strings, numbers, booleans, nil, host
 * objects; never tables, which Lua could change) in the object's user value, valid while the
 * runtime's field epoch stands: the host moves the epoch on whenever what its objects show
 * may change, and an object of an older epoch asks the host again (which may refuse it). */
static int obj_index(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 2);
    if (lua_type(L, lua_upvalueindex(5)) == LUA_TTABLE && lua_type(L, 2) == LUA_TSTRING) {
        lh_object *o = lh_to_object(L, 1);
        /* The key's bytes against the declared names' (interned strings: equal names are one
         * string), then, for a name that is not short, the table of names. */
        if (o != NULL && o->cls > 0 && o->cls < rt->objects.nclasses && rt->objects.class_names[o->cls] != NULL) {
            const char *key = lua_tolstring(L, 2, NULL);
            const char *const *names = rt->objects.class_names[o->cls];
            for (int k = 0, n = rt->objects.class_slots[o->cls]; k < n; k++)
                if (names[k] == key) return declared_field(L, rt, o, k + 1);
        }
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(5)) == LUA_TNUMBER) {
            int k = (int)lua_tointegerx(L, -1, NULL);
            lua_pop(L, 1);
            return declared_field(L, rt, o, k);
        }
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(3)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lh_object *o = lua_toboolean(L, lua_upvalueindex(4)) && lua_type(L, 2) == LUA_TSTRING
        && !(rt->host.plain & LH_PLAIN_FIELDS) ? lh_to_object(L, 1) : NULL;
    if (o != NULL && o->epoch == rt->objects.epoch) {
        if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
            lua_pushvalue(L, 2);
            int t = lua_rawget(L, -2);
            if (t == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == &nil_mark) { lua_pushnil(L); return 1; }
            if (t != LUA_TNIL) return 1;
        }
        lua_settop(L, 2);
    }
    int n = lh_call_host(L, lua_tointegerx(L, lua_upvalueindex(1), NULL));
    if (o == NULL || n != 1) return n;
    if (!cacheable(L, -1)) return 1;
    luaL_checkstack(L, 4, NULL);
    if (o->epoch != rt->objects.epoch || lua_getiuservalue(L, 1, 1) != LUA_TTABLE) {
        if (o->epoch == rt->objects.epoch) lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 1);
        o->epoch = rt->objects.epoch;
    }
    lua_pushvalue(L, 2);
    if (lua_type(L, -3) == LUA_TNIL) lua_pushlightuserdata(L, &nil_mark); else lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return 1;
}

static int obj_newindex(lua_State *L) {
    const char *name = "object";
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    return luaL_error(L, "attempt to modify read-only object '%s'", name);
}

static int obj_eq(lua_State *L) {
    lh_value a, b;
    lh_describe(L, 1, &a);
    lh_describe(L, 2, &b);
    lua_pushboolean(L, a.kind == LH_OBJECT && b.kind == LH_OBJECT && a.aux == b.aux && a.i == b.i);
    return 1;
}

static int obj_tostring(lua_State *L) {
    lh_value a;
    const char *name = "object";
    lh_describe(L, 1, &a);
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__lh_name");
        if (lua_rawget(L, -2) == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    lua_pushfstring(L, "%s: %I", name, (lua_Integer)a.i);
    return 1;
}

struct class_params {
    int64_t fnid; const char *name; int32_t cls; int caches;
    int nfields; const char *const *fields; const size_t *lens;
};

static int new_class_entry(lua_State *L) {
    struct class_params *p = (struct class_params *)lua_touserdata(L, 1);
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 0);
    lua_createtable(L, 0, 8);
    lua_newtable(L);                       /* 2: static fields */
    lua_pushvalue(L, 2);
    lua_setfield(L, 1, "__lh_statics");
    lua_pushinteger(L, (lua_Integer)p->fnid);
    lua_pushstring(L, p->name);
    lua_pushvalue(L, 2);
    lua_pushboolean(L, p->caches);
    if (p->nfields > 0) {
        if (p->cls >= rt->objects.nclasses) {
            int cap = p->cls + 8;
            int *slots = (int *)realloc(rt->objects.class_slots, sizeof(int) * (size_t)cap);
            if (slots == NULL) return luaL_error(L, "not enough memory");
            rt->objects.class_slots = slots;
            const char ***all = (const char ***)realloc(rt->objects.class_names, sizeof *all * (size_t)cap);
            if (all == NULL) return luaL_error(L, "not enough memory");
            rt->objects.class_names = all;
            for (int c = rt->objects.nclasses; c < cap; c++) { slots[c] = 0; all[c] = NULL; }
            rt->objects.nclasses = cap;
        }
        const char **names = (const char **)calloc((size_t)p->nfields, sizeof *names);
        if (names == NULL) return luaL_error(L, "not enough memory");
        free(rt->objects.class_names[p->cls]);
        rt->objects.class_names[p->cls] = names;
        /* declared fields: name -> k (1-based); the table keeps the names' strings alive */
        lua_createtable(L, 0, p->nfields);
        for (int k = 0; k < p->nfields; k++) {
            const char *name = lua_pushlstring(L, p->fields[k], p->lens[k]);
            /* a short string is interned: the same name read in a script is this string */
            names[k] = p->lens[k] <= rt->objects.short_string ? name : NULL;
            lua_pushinteger(L, k + 1);
            lua_rawset(L, -3);
        }
        rt->objects.class_slots[p->cls] = p->nfields;
    } else {
        lua_pushnil(L);
    }
    lua_pushcclosure(L, obj_index, 5);
    lua_setfield(L, 1, "__index");
    lua_pushcfunction(L, obj_newindex); lua_setfield(L, 1, "__newindex");
    lua_pushcfunction(L, obj_eq); lua_setfield(L, 1, "__eq");
    lua_pushcfunction(L, obj_tostring); lua_setfield(L, 1, "__tostring");
    lua_pushstring(L, p->name); lua_setfield(L, 1, "__lh_name");
    lua_pushboolean(L, 0); lua_setfield(L, 1, "__metatable");
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->objects.classes_ref);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, p->cls);
    return 0;
}

int lh_new_class(lua_State *L, int32_t classid, const char *name, int64_t index_fnid, int caches_fields,
                 int nfields, const char *const *fields, const size_t *lens) {
    if (nfields > LH_MAX_DECLARED_FIELDS) return LH_ERR_RUNTIME;
    struct class_params p = { index_fnid, name, classid, caches_fields, nfields, fields, lens };
    return lh_run_protected(L, new_class_entry, &p);
}

struct static_params { int32_t cls; const char *key; size_t keylen; const lh_tape *value; };
static int set_static_entry(lua_State *L) {
    struct static_params *p = (struct static_params *)lua_touserdata(L, 1);
    lh_runtime *rt = LH_RT(L);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->objects.classes_ref);
    if (lua_rawgeti(L, 1, p->cls) != LUA_TTABLE) return luaL_error(L, "unknown host object class %d", (int)p->cls);
    lua_getfield(L, 2, "__lh_statics");
    lua_pushlstring(L, p->key, p->keylen);
    lh_push_tape_raw(L, p->value);
    lua_settop(L, 5);
    lua_rawset(L, 3);
    return 0;
}

int lh_class_set_static(lua_State *L, int32_t classid, const char *key, size_t keylen, const lh_tape *value) {
    struct static_params p = { classid, key, keylen, value };
    return lh_run_protected(L, set_static_entry, &p);
}

void lh_invalidate_fields(lh_runtime *rt) { rt->objects.epoch++; }
