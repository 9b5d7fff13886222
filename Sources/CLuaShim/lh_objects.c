/*
 * Host objects' identity: the userdata that stands for the host's object (class, id), interned
 * so that one object is one userdata while Lua holds it, and kept for a whole field epoch for
 * the classes that ask (lh_class_keep_objects). What an object shows is lh_classes.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

static void keep_object(lua_State *L, lh_runtime *rt);

/* Objects are interned: while Lua holds the userdata of (class, id), pushing that object again
 * pushes the same userdata, so two reads of one entity are raw-equal and share the fields one
 * of them cached. Per class, a table id -> userdata with weak values (interned_ref[class]).
 * `fresh`: the host says the object was never pushed before, so there is none to look for (and
 * no words waiting for it). */
void lh_push_object(lua_State *L, int32_t cls, int64_t id, int fresh) {
    lh_runtime *rt = LH_RT(L);
    luaL_checkstack(L, 6, NULL);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->objects.interned_ref);
    if (lua_rawgeti(L, -1, cls) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 64);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v"); lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, cls);
    }
    if (!fresh) {
        if (lua_rawgeti(L, -1, (lua_Integer)id) == LUA_TUSERDATA) {
            lua_replace(L, -3);
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
    }
    int slots = cls > 0 && cls < rt->objects.nclasses ? rt->objects.class_slots[cls] : 0;
    lh_object *o = (lh_object *)lua_newuserdatauv(L, sizeof(lh_object), 1 + slots);
    o->magic = LH_MAGIC; o->cls = cls; o->id = id; o->epoch = 0;
    o->slot_epoch = 0; o->filled = 0;
    o->words_tag = 0; o->words_mask = 0;
    if (!fresh && lh_word_fields_of(rt, cls) != NULL) lh_take_words(rt, o);
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->objects.classes_ref);
    if (lua_rawgeti(L, -1, cls) != LUA_TTABLE)
        luaL_error(L, "unknown host object class %d", (int)cls);
    lua_setmetatable(L, -3);
    lua_pop(L, 1);
    /* stack: interned, by-class, object */
    if (cls > 0 && cls < rt->objects.kept_classes_cap && rt->objects.kept_classes[cls] && !(rt->host.plain & LH_PLAIN_KEPT))
        keep_object(L, rt);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)id);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

/* Keeps the object on top of the stack referenced until the field epoch ends (the table of
 * the epoch before is let go when the first object of a new one is kept). */
static void keep_object(lua_State *L, lh_runtime *rt) {
    uint64_t tag = rt->objects.epoch + 1;
    if (rt->objects.kept_tag != tag) {
        lua_createtable(L, 16, 0);
        lua_rawseti(L, LUA_REGISTRYINDEX, rt->objects.kept_ref);
        rt->objects.kept_tag = tag;
        rt->objects.kept_count = 0;
    }
    if (rt->objects.kept_count >= LH_KEPT_MAX) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, rt->objects.kept_ref);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, ++rt->objects.kept_count);
    lua_pop(L, 1);
}

int lh_class_keep_objects(lh_runtime *rt, int32_t classid) {
    if (classid <= 0) return LH_ERR_RUNTIME;
    if (classid >= rt->objects.kept_classes_cap) {
        int cap = classid + 8;
        unsigned char *kept = (unsigned char *)realloc(rt->objects.kept_classes, (size_t)cap);
        if (kept == NULL) return LH_ERR_MEMORY;
        memset(kept + rt->objects.kept_classes_cap, 0, (size_t)(cap - rt->objects.kept_classes_cap));
        rt->objects.kept_classes = kept;
        rt->objects.kept_classes_cap = cap;
    }
    rt->objects.kept_classes[classid] = 1;
    return LH_OK;
}
