/*
 * string.find, match, gmatch and gsub: the stock functions behind a bound on their work.
 *
 * Lua's matcher backtracks, and a pattern such as ".-.-.-x" over a long subject runs for hours
 * inside one C call, where no count hook fires. Before a call reaches the stock function, this
 * file works out an upper bound on the matcher's steps from the subject and the pattern, charges
 * it to the evaluation's budget (lh_charge) and refuses the call with "pattern too complex" when
 * the bound is over the runtime's pattern limit (lh_config.pattern_step_limit). A refused call
 * costs the whole limit, as one that ran up to it would. What the stock function returns, and
 * every error it raises, is stock Lua's: this file never matches anything itself.
 *
 * The bound. The matcher walks the pattern's items in order, trying each start position in
 * turn. An item is a node of a tree whose paths are the ways of matching; a node's children are
 * the ways of going on after it:
 *   - a class with `*`, `+` or `-` goes on after 0 to r characters, where r is the longest run
 *     of characters of its class anywhere in the subject's searched part: r + 1 children;
 *   - a class with `?`: 2 children; everything else (captures, %b, %f, back-references, `$`, a
 *     single class): 1.
 * The nodes at item j are at most the product of the children counts before it, and each costs
 * at most what the matcher does there (a class test per character scanned, a %b's scan of the
 * subject, a back-reference's comparison). Summed over the items, that is one attempt's bound
 * T. A start position where the pattern's first item is a mandatory class (no suffix, or `+`)
 * and the character is not in it costs one class test instead of T. find and match try every
 * position once, gsub and gmatch at most twice (after an empty match, the same position again).
 * A plain find costs a scan plus one comparison of the pattern per place its first byte occurs.
 *
 * The bound is far above the real work for most patterns, but patterns that are not
 * catastrophic stay well under the default limit on the strings rules handle (names, dates,
 * notes); the limit is per call (per gmatch loop), not per evaluation.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "lh_internal.h"

#define SPECIALS "^$*+?.([%-"
/* The longest text of a number as a replacement (its digits, sign, point and exponent). */
#define NUMBER_TEXT_MAX 48

/* A pattern item, as the matcher reads it. */
enum { IT_OPEN, IT_CLOSE, IT_POSITION, IT_END, IT_BALANCE, IT_FRONTIER, IT_BACKREF, IT_CLASS, IT_MALFORMED };

typedef struct item {
    int kind;
    const char *cls, *cls_end;   /* IT_CLASS, IT_FRONTIER: the class's bytes ([...] with brackets) */
    char suffix;                 /* IT_CLASS: one of "*+-?", or 0 */
} item;

/* The end of the set starting at `p` ('['), as the matcher finds it: the byte after the first
 * ']' that is not the set's first member nor escaped, or NULL when there is none. */
static const char *set_end(const char *p, const char *end) {
    const char *q = p + 1;
    if (q < end && *q == '^') q++;
    for (;;) {
        if (q >= end) return NULL;
        if (*q++ == '%' && q < end) q++;
        if (q < end && *q == ']') return q + 1;
    }
}

/* Reads the item at `p` (before `end`) into *it; returns where the next one starts. */
static const char *read_item(const char *p, const char *end, item *it) {
    it->suffix = 0;
    it->cls = p;
    switch (*p) {
        case '(':
            if (p + 1 < end && p[1] == ')') { it->kind = IT_POSITION; return p + 2; }
            it->kind = IT_OPEN;
            return p + 1;
        case ')': it->kind = IT_CLOSE; return p + 1;
        case '$':
            if (p + 1 == end) { it->kind = IT_END; return end; }
            break;
        case '%':
            if (p + 1 == end) { it->kind = IT_MALFORMED; return end; }
            if (p[1] == 'b') {
                it->kind = p + 3 < end ? IT_BALANCE : IT_MALFORMED;
                return p + 3 < end ? p + 4 : end;
            }
            if (p[1] == 'f') {
                const char *e = p + 2 < end && p[2] == '[' ? set_end(p + 2, end) : NULL;
                if (e == NULL) { it->kind = IT_MALFORMED; return end; }
                it->kind = IT_FRONTIER; it->cls = p + 2; it->cls_end = e;
                return e;
            }
            if (p[1] >= '0' && p[1] <= '9') { it->kind = IT_BACKREF; return p + 2; }
            break;
        default: break;
    }
    const char *e = *p == '[' ? set_end(p, end) : p + (*p == '%' ? 2 : 1);
    if (e == NULL) { it->kind = IT_MALFORMED; return end; }
    it->kind = IT_CLASS;
    it->cls_end = e;
    if (e < end && strchr("*+-?", *e) != NULL && *e != 0) { it->suffix = *e; e++; }
    return e;
}

/* Whether `c` is in the class letter `cl` (%a, %d, ...; an upper-case letter is the
 * complement; any other byte stands for itself). */
static int in_letter_class(int c, int cl) {
    int in;
    switch (tolower(cl)) {
        case 'a': in = isalpha(c); break;
        case 'c': in = iscntrl(c); break;
        case 'd': in = isdigit(c); break;
        case 'g': in = isgraph(c); break;
        case 'l': in = islower(c); break;
        case 'p': in = ispunct(c); break;
        case 's': in = isspace(c); break;
        case 'u': in = isupper(c); break;
        case 'w': in = isalnum(c); break;
        case 'x': in = isxdigit(c); break;
        default: return cl == c;
    }
    return isupper(cl) ? !in : in != 0;
}

/* Whether `c` is in the set [from, to) ('[' ... ']'). */
static int in_set(int c, const char *from, const char *to) {
    const char *p = from + 1, *last = to - 1; /* members lie between the brackets */
    int negated = p < last && *p == '^';
    if (negated) p++;
    for (; p < last; p++) {
        unsigned char m = (unsigned char)*p;
        if (m == '%') {
            p++;
            if (in_letter_class(c, (unsigned char)*p)) return !negated;
        } else if (p + 2 < last && p[1] == '-') {
            if (m <= c && c <= (unsigned char)p[2]) return !negated;
            p += 2;
        } else if (m == c) {
            return !negated;
        }
    }
    return negated;
}

static int in_class(const item *it, int c) {
    switch (*it->cls) {
        case '.': return 1;
        case '%': return in_letter_class(c, (unsigned char)it->cls[1]);
        case '[': return in_set(c, it->cls, it->cls_end);
        default: return (unsigned char)*it->cls == c;
    }
}

/* Class tests one class test costs, in steps: a set's members are read one by one. */
static double class_cost(const item *it) {
    return *it->cls == '[' ? (double)(it->cls_end - it->cls) : 1;
}

/* What the bound needs to know of one call. */
typedef struct bound {
    const char *s; size_t ls;   /* the subject */
    size_t from;                /* the first position tried (0-based) */
    double limit;               /* steps allowed */
    double work;                /* class tests spent working the bound out (charged too) */
    double attempt;             /* T: steps of one attempt */
    item gate;                  /* the first item, when it is a mandatory class */
    int gated;
    double gate_cost;           /* steps of an attempt that fails at the gate */
} bound;

/* The longest run of the subject's characters (from `b->from` on) in the item's class. */
static double longest_run(bound *b, const item *it) {
    size_t n = b->ls - b->from;
    if (*it->cls == '.' || b->work + (double)n * class_cost(it) > b->limit) return (double)n;
    b->work += (double)n * class_cost(it);
    size_t best = 0, run = 0;
    for (size_t i = b->from; i < b->ls; i++) {
        run = in_class(it, (unsigned char)b->s[i]) ? run + 1 : 0;
        if (run > best) best = run;
    }
    return (double)best;
}

/* Works out T and the gate of the pattern [p, end). */
static void bound_attempt(bound *b, const char *p, const char *end) {
    double paths = 1, steps = 0, lead = 0, n = (double)(b->ls - b->from);
    int first = 1, open = 0;
    b->gated = 0;
    while (p < end && paths < HUGE_VAL) {
        item it;
        p = read_item(p, end, &it);
        switch (it.kind) {
            case IT_OPEN: case IT_POSITION:
                open++; steps += paths; lead += 1;
                continue; /* a capture does not end the search for the first class */
            case IT_CLOSE: steps += paths * (2 + open); break;
            case IT_END: steps += paths; break;
            case IT_BALANCE: steps += paths * (n + 2); break;
            case IT_FRONTIER: steps += paths * (2 * class_cost(&it) + 1); break;
            case IT_BACKREF: steps += paths * (2 + n / 16); break;
            case IT_MALFORMED: steps += paths * ((double)(end - it.cls) + 1); p = end; break;
            case IT_CLASS: {
                double cost = class_cost(&it);
                if (first && (it.suffix == 0 || it.suffix == '+')) {
                    b->gate = it; b->gated = 1; b->gate_cost = lead + cost + 1;
                }
                if (it.suffix == 0) {
                    steps += paths * (cost + 1);
                } else if (it.suffix == '?') {
                    steps += paths * (cost + 1);
                    paths *= 2;
                } else {
                    double run = longest_run(b, &it);
                    steps += paths * ((run + 2) * cost + 1);
                    paths *= run + 1;
                }
                break;
            }
        }
        first = 0;
    }
    b->attempt = p < end ? HUGE_VAL : steps + paths;
}

/* Steps of attempts at every position from b->from to the subject's end. */
static double bound_positions(bound *b, int anchored) {
    if (anchored) return b->attempt;
    double positions = (double)(b->ls - b->from) + 1;
    if (!b->gated || b->attempt * positions <= b->limit
        || b->work + positions * class_cost(&b->gate) > b->limit)
        return b->attempt * positions;
    b->work += positions * class_cost(&b->gate);
    double steps = b->gate_cost; /* the subject's end: no class matches there */
    for (size_t i = b->from; i < b->ls; i++)
        steps += in_class(&b->gate, (unsigned char)b->s[i]) ? b->attempt : b->gate_cost;
    return steps;
}

static void bound_init(bound *b, lua_State *L, const char *s, size_t ls, size_t from) {
    int64_t limit = LH_RT(L)->budget.pattern_limit;
    b->s = s; b->ls = ls; b->from = from;
    b->limit = limit > 0 ? (double)limit : HUGE_VAL;
    b->work = 0;
}

/* Charges `steps` (and the bound's own work), or refuses the call. */
static void charge_or_refuse(lua_State *L, const bound *b, double steps) {
    double total = steps + b->work / 4;
    if (!(total <= b->limit) || total == HUGE_VAL) {
        lh_charge(L, b->limit < (double)INT64_MAX ? (int64_t)b->limit : INT64_MAX / 2);
        luaL_error(L, "pattern too complex");
    }
    lh_charge(L, total < (double)(INT64_MAX / 2) ? (int64_t)total : INT64_MAX / 2);
}

/* The stock function (upvalue 1) called with the arguments as they are. */
static int call_stock(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* A start position as string.find reads it (1-based, negative from the end), made 0-based. */
static size_t start_position(lua_Integer pos, size_t len) {
    if (pos > 0) return (size_t)pos - 1;
    if (pos == 0 || pos < -(lua_Integer)len) return 0;
    return len - (size_t)(-pos);
}

static int has_specials(const char *p, size_t lp) {
    for (const char *c = SPECIALS; *c; c++)
        if (memchr(p, *c, lp) != NULL) return 1;
    return 0;
}

/* A plain search: a scan, and a comparison wherever the pattern's first byte occurs. */
static double plain_steps(const char *s, size_t ls, size_t from, const char *p, size_t lp) {
    if (lp == 0 || lp > ls - from) return 1;
    double candidates = 0;
    const char *at = s + from, *last = s + ls - lp + 1;
    while (at < last && (at = (const char *)memchr(at, *p, (size_t)(last - at))) != NULL) {
        candidates++;
        at++;
    }
    return 1 + (double)(ls - from) / 16 + candidates * (1 + (double)(lp / 16));
}

static int guarded_find(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t from = start_position(luaL_optinteger(L, 3, 1), ls);
    if (from > ls) return call_stock(L); /* nothing to search: stock fails at once */
    bound b;
    bound_init(&b, L, s, ls, from);
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        charge_or_refuse(L, &b, plain_steps(s, ls, from, p, lp));
        return call_stock(L);
    }
    int anchored = lp > 0 && *p == '^';
    bound_attempt(&b, p + anchored, p + lp);
    charge_or_refuse(L, &b, bound_positions(&b, anchored));
    return call_stock(L);
}

int lh_str_find(lua_State *L) { return guarded_find(L, 1); }
int lh_str_match(lua_State *L) { return guarded_find(L, 0); }

/* gmatch: the whole loop is bounded when the iterator is made (a leading '^' is a plain
 * character here, as it is to stock gmatch). */
int lh_str_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t from = start_position(luaL_optinteger(L, 3, 1), ls);
    if (from > ls) return call_stock(L);
    bound b;
    bound_init(&b, L, s, ls, from);
    bound_attempt(&b, p, p + lp);
    charge_or_refuse(L, &b, 2 * bound_positions(&b, 0));
    return call_stock(L);
}

int lh_str_gsub(lua_State *L) {
    size_t ls, lp, lr = 0;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int tr = lua_type(L, 3);
    luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    if (tr == LUA_TSTRING) lua_tolstring(L, 3, &lr);
    else if (tr == LUA_TNUMBER) lr = NUMBER_TEXT_MAX;
    bound b;
    bound_init(&b, L, s, ls, 0);
    int anchored = lp > 0 && *p == '^';
    bound_attempt(&b, p + anchored, p + lp);
    /* each match also reads the replacement (or calls or indexes it) */
    double matches = anchored ? 1 : (double)ls + 1;
    charge_or_refuse(L, &b, (anchored ? 1 : 2) * bound_positions(&b, anchored) + matches * (1 + (double)(lr / 16)));
    return call_stock(L);
}
