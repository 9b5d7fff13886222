/*
 * Words: up to LH_OBJECT_WORDS integers the host gives an object for a field epoch
 * (lh_set_words), from which the runtime serves the class's declared fields itself
 * (lh_class_set_word_fields; lh_classes.c, word_field) without calling the host.
 */
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

/* Words are set by the host just before it hands the object over, and taken into the object
 * when it is pushed (or, for an object that exists already, when a field is read). Until then
 * they wait in an open-addressing table by class and id; taking them removes them, so the table
 * holds what is on its way (a few entries, or a query's results) and stays in the cache. An
 * entry of an older field epoch is a free slot. */
static size_t words_home(int32_t cls, int64_t id, size_t mask) {
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)cls * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h >> 32) & mask;
}

/* The slot holding (cls, id), or the free slot where it would go. */
static struct lh_words_entry *words_find(struct lh_words_entry *table, size_t cap, uint64_t tag, int32_t cls, int64_t id) {
    size_t mask = cap - 1;
    for (size_t i = words_home(cls, id, mask);; i = (i + 1) & mask) {
        struct lh_words_entry *e = &table[i];
        if (e->tag != tag || (e->id == id && e->cls == cls)) return e;
    }
}

/* Copies the words of `mask` (the others 0) into `to`; returns the mask kept. */
static uint32_t copy_words(int64_t *to, uint32_t mask, const int64_t *words) {
    mask &= (1u << LH_OBJECT_WORDS) - 1;
    for (int j = 0; j < LH_OBJECT_WORDS; j++) to[j] = (mask >> j & 1) ? words[j] : 0;
    return mask;
}

void lh_set_words(lh_runtime *rt, int32_t cls, int64_t id, uint32_t mask, const int64_t *words) {
    if (rt->host.plain & LH_PLAIN_WORDS) return;
    uint64_t tag = rt->objects.epoch + 1;
    if (rt->words.tag != tag) {
        /* A new epoch: every entry is free. A table a big query grew goes back to its first size. */
        rt->words.tag = tag;
        rt->words.count = 0;
        if (rt->words.cap > 4096) { free(rt->words.table); rt->words.table = NULL; rt->words.cap = 0; }
    }
    struct lh_words_entry *e = rt->words.cap ? words_find(rt->words.table, rt->words.cap, tag, cls, id) : NULL;
    if (e == NULL || e->tag != tag) {
        /* A new entry: the table may have to grow first (words set again replace their entry
         * in place, so that a failed growth never leaves older words behind). */
        if ((rt->words.count + 1) * 4 > rt->words.cap * 3) {
            size_t cap = rt->words.cap ? rt->words.cap * 2 : 1024;
            struct lh_words_entry *table = (struct lh_words_entry *)calloc(cap, sizeof *table);
            if (table == NULL) return; /* the object's fields stay the host's: slower, not wrong */
            for (size_t i = 0; i < rt->words.cap; i++) {
                const struct lh_words_entry *old = &rt->words.table[i];
                if (old->tag == tag) *words_find(table, cap, tag, old->cls, old->id) = *old;
            }
            free(rt->words.table);
            rt->words.table = table;
            rt->words.cap = cap;
        }
        e = words_find(rt->words.table, rt->words.cap, tag, cls, id);
        rt->words.count++;
    }
    e->id = id; e->cls = cls; e->tag = tag;
    e->mask = copy_words(e->w, mask, words);
}

/* Gives the object words of its own for this field epoch unless it has some already. */
void lh_give_words(lh_runtime *rt, lh_object *o, uint32_t mask, const int64_t *words) {
    uint64_t tag = rt->objects.epoch + 1;
    if (mask == 0 || o->words_tag == tag) return;
    o->words_tag = tag;
    o->words_mask = copy_words(o->words, mask, words);
}

/* Takes the object's waiting words, if any were set in this field epoch, out of the table
 * (linear probing's deletion: later entries of the run move back into the hole). */
void lh_take_words(lh_runtime *rt, lh_object *o) {
    uint64_t tag = rt->objects.epoch + 1;
    if (rt->words.count == 0 || rt->words.tag != tag) return;
    size_t mask = rt->words.cap - 1;
    struct lh_words_entry *table = rt->words.table;
    struct lh_words_entry *e = words_find(table, rt->words.cap, tag, o->cls, o->id);
    if (e->tag != tag) return;
    o->words_tag = tag;
    o->words_mask = e->mask;
    memcpy(o->words, e->w, sizeof o->words);
    size_t hole = (size_t)(e - table);
    for (size_t j = (hole + 1) & mask; table[j].tag == tag; j = (j + 1) & mask) {
        size_t home = words_home(table[j].cls, table[j].id, mask);
        /* table[j] may fill the hole when its home is not within (hole, j] (cyclically) */
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) { table[hole] = table[j]; hole = j; }
    }
    table[hole].tag = 0;
    rt->words.count--;
}

int lh_class_set_word_fields(lh_runtime *rt, int32_t cls, int nfields, const uint8_t *sources, const int32_t *classes) {
    if (cls <= 0 || cls >= rt->objects.nclasses || nfields > rt->objects.class_slots[cls]) return LH_ERR_RUNTIME;
    for (int k = 0; k < nfields; k++) {
        int kind = sources[k] >> 4, word = sources[k] & 15;
        if (sources[k] != 0 && (kind < LH_WORD_INTEGER || kind > LH_WORD_OBJECT || word >= LH_OBJECT_WORDS)) return LH_ERR_RUNTIME;
        if (kind == LH_WORD_OBJECT && (classes == NULL || classes[k] <= 0 || classes[k] >= rt->objects.nclasses)) return LH_ERR_RUNTIME;
    }
    /* The plain path (LH_PLAIN_WORDS): the class serves no field from words; the host serves all. */
    if (rt->host.plain & LH_PLAIN_WORDS) return LH_OK;
    if (rt->words.fields == NULL || rt->words.nclasses < rt->objects.nclasses) {
        struct lh_word_fields **all = (struct lh_word_fields **)realloc(rt->words.fields, sizeof *all * (size_t)rt->objects.nclasses);
        if (all == NULL) return LH_ERR_MEMORY;
        for (int c = rt->words.nclasses; c < rt->objects.nclasses; c++) all[c] = NULL;
        rt->words.fields = all;
        rt->words.nclasses = rt->objects.nclasses;
    }
    struct lh_word_fields *wf = rt->words.fields[cls];
    if (wf != NULL) memset(wf, 0, sizeof *wf);
    else if ((wf = (struct lh_word_fields *)calloc(1, sizeof *wf)) == NULL) return LH_ERR_MEMORY;
    for (int k = 0; k < nfields; k++) { wf->sources[k] = sources[k]; wf->classes[k] = classes ? classes[k] : 0; }
    rt->words.fields[cls] = wf;
    return LH_OK;
}
