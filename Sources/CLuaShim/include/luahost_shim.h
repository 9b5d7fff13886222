/*
 * CLuaShim: the C half of LuaHost.
 *
 * Rule: no Lua error may ever longjmp through a Swift frame. Everything that
 * can raise (allocation, metamethods, running Lua code) happens either inside
 * a protected call started here, or inside a C function called by Lua (the
 * host-function trampoline), never in Swift. Swift callbacks only fill plain
 * C buffers (lh_tape) that this C code pushes afterwards.
 */
#ifndef LUAHOST_SHIM_H
#define LUAHOST_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- value descriptions exchanged with Swift ---------------------------- */

#define LH_NIL 0
#define LH_BOOLEAN 1  /* aux = 0/1 */
#define LH_INTEGER 2  /* i */
#define LH_NUMBER 3  /* n */
#define LH_STRING 4  /* argument: s/len point into the Lua string;
                         tape: i = offset into tape arena, len = length */
#define LH_TABLE 5  /* argument only: table at stack index aux */
#define LH_FUNCTION 6  /* argument only: function at stack index aux */
#define LH_OBJECT 7  /* host object view: aux = class id, i = object id */
#define LH_OTHER 8  /* argument only: thread/foreign userdata at stack index aux */
#define LH_REF 9  /* tape only: value held in the registry, i = ref */
#define LH_NEWTABLE 10  /* tape only: aux = array count, len = hash count; followed
                         by aux values, then len key/value pairs (preorder) */
#define LH_INTARRAY 11  /* tape only: a new sequence of len integers stored (int64,
                         8-byte aligned) at arena offset i */

typedef struct lh_value {
    int32_t kind;
    int32_t aux;
    int64_t i;
    double n;
    const char *s;
    size_t len;
} lh_value;

/* A flat list of values written by Swift and pushed by C. */
typedef struct lh_tape {
    const lh_value *values; /* all entries, preorder */
    int32_t count;          /* number of entries in values */
    int32_t ntop;           /* number of top-level values */
    const char *arena;      /* string bytes referenced by LH_STRING offsets */
} lh_tape;

/* Host function callback (implemented in Swift). Must not call any raising Lua
 * API. Returns 0 and fills *out with results, or returns 1 with *out holding
 * one LH_STRING value: the error message (raised by C with position info). */
typedef int (*lh_host_callback)(void *ctx, lua_State *L, int64_t fnid,
                                const lh_value *args, int32_t nargs, lh_tape *out);

/* A host sequence's element (lh_new_sequence): element `index` (1-based) of the sequence
 * `handle` is the host object (cls, id), given the words of `mask` (lh_set_words) when it has
 * none yet in this field epoch, or nothing when cls is 0; `fresh` when the host made the object
 * just now (it was never pushed: no interned one to look for). Must not call any raising Lua
 * API. Returns 0, or 1 with *err holding one LH_STRING value: the error message. */
#define LH_OBJECT_WORDS 5
typedef struct lh_element {
    int32_t cls;
    uint32_t mask;
    int64_t id;
    int64_t words[LH_OBJECT_WORDS];
    int32_t fresh;
} lh_element;
typedef int (*lh_element_callback)(void *ctx, int64_t fnid, int64_t handle, int64_t index,
                                   lh_element *out, lh_tape *err);

/* A host sequence's integer column (lh_new_sequence): fills out[0] to out[n - 1] with column
 * `column` (its position among the sequence's column names) of the sequence `handle`, n long.
 * Must not call any raising Lua API. Returns 0, or 1 with *err holding one LH_STRING value: the
 * error message. */
typedef int (*lh_column_callback)(void *ctx, int64_t fnid, int64_t handle, int32_t column,
                                  int64_t *out, int64_t n, lh_tape *err);

/* A record function's record (lh_new_record_function): `fields[k]` describes the value under the
 * function's k-th name in the table it was called with (LH_NIL when absent), as lh_describe
 * would; tables among them stay on the stack of L during the call. Must not call any raising Lua
 * API. Returns 0, or 1 with *err holding one LH_STRING value: the error message (raised by C at
 * the line of the call). */
typedef int (*lh_record_callback)(void *ctx, lua_State *L, int64_t fnid, const lh_value *fields, int32_t n,
                                  lh_tape *err);

/* print() handler: chunk (source without '@') and the message, both not
 * NUL-terminated. */
typedef void (*lh_print_callback)(void *ctx, const char *chunk, size_t chunklen,
                                  const char *msg, size_t msglen);

typedef struct lh_config {
    size_t memory_limit;          /* bytes */
    int64_t instruction_budget;   /* VM instructions per evaluation */
    double time_limit;            /* seconds of wall clock per evaluation; <= 0: none */
    int64_t pattern_step_limit;   /* matcher steps per string.find/match/gsub/gmatch step */
    const char *const *require_roots; /* absolute folder paths */
    int32_t nroots;
    int32_t trials;               /* 1: lh_call may run a call as a trial first (see lh_call) */
    void *ctx;                    /* passed to callbacks */
    lh_host_callback host_cb;
    lh_print_callback print_cb;
    lh_element_callback element_cb; /* for sequences (lh_new_sequence); may be NULL */
    lh_column_callback column_cb;   /* for sequences' integer columns; may be NULL */
    lh_record_callback record_cb;   /* for record functions (lh_new_record_function); may be NULL */
    int32_t plain;                  /* LH_PLAIN_*: fast paths switched off, for the tests that
                                       compare each with the plain path it stands in for */
} lh_config;

/* Speed-only mechanisms lh_config.plain switches off. Each gives what its plain path gives. */
#define LH_PLAIN_POOL 1     /* every block from malloc, not the runtime's slabs */
#define LH_PLAIN_WORDS 2    /* declared fields served by the host, never from words */
#define LH_PLAIN_RECORDS 4  /* record functions are their fallback host function */
#define LH_PLAIN_FIELDS 8   /* no field kept in an object: every read asks the host */
#define LH_PLAIN_KEPT 16    /* objects are not kept for the field epoch (lh_class_keep_objects) */

/* ---- status codes -------------------------------------------------------- */
#define LH_OK 0
#define LH_ERR_SYNTAX 1
#define LH_ERR_RUNTIME 2
#define LH_ERR_MEMORY 3
#define LH_ERR_BUDGET 4
#define LH_ERR_TIMEOUT 5
#define LH_ERR_HANDLER 6  /* error while handling an error */
#define LH_RETRY 7  /* lh_call: the trial says nothing; call again with trial = 0 */

typedef struct lh_runtime lh_runtime;

/* Error details of the last failed lh_load/lh_call; strings stay valid until
 * lh_finish(). */
typedef struct lh_error_info {
    const char *message; size_t message_len;
    const char *traceback; size_t traceback_len;
    const char *chunk;     /* chunk of the error position (short source) */
    int32_t line;          /* 0 if unknown */
} lh_error_info;

/* Creates a sandboxed state. Returns NULL if the state cannot be built
 * (e.g. memory limit too small); *why receives a static message. */
lh_runtime *lh_open(const lh_config *cfg, const char **why);
void lh_close(lh_runtime *rt);
lua_State *lh_state(lh_runtime *rt);
size_t lh_memory_in_use(lh_runtime *rt);
/* Calls run as trials so far, and how many of them were run again metered (LH_RETRY). */
void lh_trial_counts(lh_runtime *rt, int64_t *trials, int64_t *reruns);

/* Compiles `len` bytes (text only) as chunk `chunkname` (e.g. "@rules/x.lua"),
 * runs it in a fresh environment under the budget and stores its first return
 * value in the registry (*ref; LUA_REFNIL for nil). Leaves nothing on the
 * stack on success; on error call lh_error() then lh_finish(). */
int lh_load(lh_runtime *rt, const char *buf, size_t len, const char *chunkname, int *ref);

/* Calls the registry value `fnref` with the arguments on `args` under the
 * budget. On success the results are the top *nresults stack values; read
 * them, then call lh_finish().
 *
 * With `trial` (and trials available, lh_config.trials), the call first runs as a
 * trial: without the count hook, under a watchdog that stops it once it has run longer
 * than the budget could last on any machine (lh_budget.c). A trial that ends in time
 * gives what a metered call would. Otherwise lh_call returns LH_RETRY: undo what the
 * host functions did during the trial, lh_finish(), and call again with trial = 0. */
int lh_call(lh_runtime *rt, int fnref, const lh_tape *args, int trial, int *nresults);

void lh_error(lh_runtime *rt, lh_error_info *info);
/* Pops everything lh_load/lh_call/lh_push_* left on the stack. */
void lh_finish(lh_runtime *rt);

/* ---- protected helpers (never raise; return LH_OK or an LH_ERR_ code) --- */

/* Stores the value at stack index idx in the registry. */
int lh_ref_at(lua_State *L, int idx, int *ref);
/* Frees registry references. */
int lh_unref(lua_State *L, const int *refs, int n);
/* Pushes the values of the tape onto the stack (ntop values). On error,
 * nothing is pushed. */
int lh_push_tape(lua_State *L, const lh_tape *tape);
/* Pushes t[key] read raw (frozen tables are seen through) for the table held
 * at registry ref `tref`. Pushes nil if it is not a table. */
int lh_rawget_field(lua_State *L, int tref, const char *key, size_t keylen);
/* t[key] = top tape value, raw (writes through frozen tables: host power). */
int lh_rawset_field(lua_State *L, int tref, const char *key, size_t keylen, const lh_tape *value);
/* Sets a field of the shared base environment. */
int lh_set_base(lh_runtime *rt, const char *key, size_t keylen, const lh_tape *value);
/* Makes a new host function (trampoline closure) with id `fnid`; *ref receives it. */
int lh_new_function(lua_State *L, int64_t fnid, const char *name, int *ref);
/* Makes the constructor of host sequences, `make(handle, n)`: a new table with the field
 * `n` = n whose metatable (shown as `name`) serves t[i], for an integer i from 1 to n, as the
 * element the host's element callback gives for (element_fnid, handle, i), any other number
 * as nil, the k-th (0-based) of the `ncolumns` column names as a new sequence of n integers
 * the host's column callback fills for (column_fnid, handle, k), and any other key by calling
 * host function `field_fnid` with (handle, key). A column or field is asked for once: it is
 * stored in the table (raw) and returned; an error the host raises names the line that read
 * the key. #t is n. *ref receives the constructor. */
int lh_new_sequence(lua_State *L, int64_t element_fnid, int64_t column_fnid, int64_t field_fnid,
                    int ncolumns, const char *const *columns, const size_t *lens, const char *name, int *ref);
/* Makes a record function: called with a table that has no metatable, it reads the table's
 * fields under the `nfields` names (at most LH_MAX_RECORD_FIELDS; raw, no metamethods, other
 * keys ignored) straight into a description of each and hands them to the host's record callback
 * for (record_fnid): no arguments described, no host call's results. Called with anything else
 * (a string, a table with a metatable), it is host function `fallback_fnid`. It returns nothing
 * either way. *ref receives it. */
#define LH_MAX_RECORD_FIELDS 16
int lh_new_record_function(lua_State *L, int64_t record_fnid, int64_t fallback_fnid, int nfields,
                           const char *const *names, const size_t *lens, int *ref);
/* A function for host drivers that run several checks in one call: mark(n) before check n
 * records it (lh_mark) and renews the budget and time limit for it. Never hand it to a plugin. */
int lh_new_marker(lua_State *L, int *ref);
/* The check last marked in the current (or last) call, 0 when none. */
int lh_mark(lh_runtime *rt);
/* Registers a host object class: userdata views whose __index reads the class's static
 * fields first, then calls the host function `index_fnid` with (object, key). With
 * `caches_fields`, each object keeps the fields the host served (not tables) until
 * lh_invalidate_fields.
 *
 * The class's `nfields` declared fields (names and byte lengths; at most
 * LH_MAX_DECLARED_FIELDS) come before its static fields: the host function is called with
 * (object, name, k) for the k-th of them (1-based), and each object keeps what it served for
 * them (not tables) in a slot of its own until lh_invalidate_fields, caching or not. */
#define LH_MAX_DECLARED_FIELDS 62
int lh_new_class(lua_State *L, int32_t classid, const char *name, int64_t index_fnid, int caches_fields,
                 int nfields, const char *const *fields, const size_t *lens);
/* Declared fields the runtime serves itself from an object's words (lh_set_words), without
 * calling the host: `sources[k]` for the k-th declared field (0-based, `nfields` of them) is
 * 0 (the host serves it) or one of LH_WORD_* shifted left by 4, or'ed with the word's number
 * (0 to LH_OBJECT_WORDS - 1, at most 5 words an object); for LH_WORD_OBJECT, `classes[k]` is the class of the object.
 * A field whose object has no words in this field epoch, or not that word, is the host's. */
#define LH_WORD_INTEGER 1 /* the word as an integer */
#define LH_WORD_DATE 2    /* "YYYY-MM-DD" of the word as days since 1970-01-01 */
#define LH_WORD_OBJECT 3  /* the host object (classes[k], the word as its id); 0 is nil */
int lh_class_set_word_fields(lh_runtime *rt, int32_t classid, int nfields, const uint8_t *sources, const int32_t *classes);
/* Gives the object (classid, id) its words for this field epoch (until lh_invalidate_fields):
 * word j is words[j] when bit j of `mask` is set, absent otherwise. The words wait in a table
 * until the object is pushed (or, if it exists, one of its fields is read) and takes them out of
 * it: set them just before handing the object over. No Lua call: safe anywhere. */
void lh_set_words(lh_runtime *rt, int32_t classid, int64_t id, uint32_t mask, const int64_t *words);
/* The runtime keeps the objects of the class it makes (up to LH_KEPT_MAX of all such classes in
 * a field epoch) referenced until the field epoch ends (lh_invalidate_fields), so they keep the
 * fields they cached when Lua lets go of them: for classes with few objects that are read again
 * and again (a schedule's shift types). No Lua call: safe anywhere. */
#define LH_KEPT_MAX 1024
int lh_class_keep_objects(lh_runtime *rt, int32_t classid);
/* Sets a static field of a class (top tape value): every object of the class shows it. */
int lh_class_set_static(lua_State *L, int32_t classid, const char *key, size_t keylen, const lh_tape *value);
/* Forgets every host object's cached fields (they are asked of the host again). */
void lh_invalidate_fields(lh_runtime *rt);
/* Makes the table at `tref` read-only in place (deep: nested plain tables too).
 * Tables that already carry a metatable are left as they are (not deep-frozen). */
int lh_freeze(lua_State *L, int tref, const char *name, int deep);
/* New empty table in the registry. */
int lh_new_table(lua_State *L, int *ref);
/* Pushes the registry value `ref` (never raises). */
void lh_push_ref(lua_State *L, int ref);

/* Pushes the backing table of a frozen table at idx (or the table itself).
 * Never raises. */
void lh_push_backing(lua_State *L, int idx);
/* Short source (e.g. "rules/x.lua") of the function held at registry ref;
 * empty if it is not a Lua function. Never raises. */
void lh_ref_source(lua_State *L, int ref, char *buf, size_t n);

/* ---- reading arguments inside a callback -------------------------------- */
/* Describes stack value idx into *v without raising. */
void lh_describe(lua_State *L, int idx, lh_value *v);
/* Reads the string-keyed fields `names` of the table at idx in one raw pass (see the shim). */
int lh_read_fields(lua_State *L, int idx, int n, const char *const *names, const size_t *lens,
                   int64_t limit, lh_value *out, int *unknown);

#ifdef __cplusplus
}
#endif
#endif
