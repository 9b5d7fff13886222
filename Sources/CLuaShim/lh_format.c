/*
 * string.format with a fast path for the formats rules write most
 * (`"%s gets %.1f h of rest (at least %g h)"`): conversions `%s` of strings and integers,
 * `%d` of integers, `%.Nf` (N a single digit) and `%g` of numbers, and `%%`, without flags or
 * width. They are written straight into the result; stock string.format calls luaL_tolstring
 * for every `%s`, which looks up a `__tostring` and a `__name` in the argument's metatable, and
 * formats each number through snprintf. A number is formatted here only when the digits are
 * certain (fixed_count); anything else, a missing argument included, goes to the stock function
 * (upvalue 1, taken from the string table before the sandbox froze it): the result and every
 * error are stock Lua's (FormatTests, and the differential tests against stock Lua in
 * StringDifferentialTests).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lh_internal.h"

/* Writes the decimal digits of `n` ending at `end`; returns where they start. */
static char *format_integer(lua_Integer n, char *end) {
    lua_Unsigned u = n < 0 ? (lua_Unsigned)0 - (lua_Unsigned)n : (lua_Unsigned)n;
    char *p = end;
    do { *--p = (char)('0' + (int)(u % 10)); u /= 10; } while (u != 0);
    if (n < 0) *--p = '-';
    return p;
}

static const double powers_of_ten[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

/* |x| counted in units of 10^-decimals and rounded to the nearest whole unit, as printf rounds
 * x's exact value, or -1 when that is not certain. The product is below 2^32, so it is within
 * 2^-21 of the exact one; a product within 0.0001 of a tie (where printf's rounding of the exact
 * value decides, e.g. 0.25 to one place) is left to printf, as are NaN and infinities. */
static int64_t fixed_count(double x, int decimals) {
    double y = fabs(x) * powers_of_ten[decimals];
    if (!(y < 4294967296.0)) return -1;
    double r = floor(y + 0.5);
    if (fabs(y - r) > 0.4999) return -1;
    return (int64_t)r;
}

/* Writes `count` with `decimals` digits after the point, ending at `end`; returns the start. */
static char *fixed_digits(int64_t count, int decimals, char *end) {
    char *p = end;
    for (int i = 0; i < decimals; i++, count /= 10) *--p = (char)('0' + (int)(count % 10));
    if (decimals > 0) *--p = '.';
    do { *--p = (char)('0' + (int)(count % 10)); count /= 10; } while (count != 0);
    return p;
}

/* `%.Nf` (conversion 'f', `decimals` N) or `%g` (conversion 'g') of `x` into `buffer` (at least
 * 24 bytes, written at its end): the start and length, or NULL when printf must do it. `%g` is
 * done for 0 and for 1 <= |x| < 10^6, where it is six significant digits in fixed notation
 * without trailing zeros. A negative number that rounds to zero keeps its sign, as in printf. */
static const char *number_digits(double x, char conversion, int decimals, char *buffer, size_t *len) {
    char *end = buffer + 24, *p;
    if (conversion == 'f') {
        int64_t count = fixed_count(x, decimals);
        if (count < 0) return NULL;
        p = fixed_digits(count, decimals, end);
    } else if (x == 0) {
        p = end;
        *--p = '0';
    } else {
        double ax = fabs(x);
        if (!(ax >= 1 && ax < 1e6)) return NULL;
        int exponent = 0;
        while (exponent < 5 && ax >= powers_of_ten[exponent + 1]) exponent++;
        decimals = 5 - exponent;
        int64_t count = fixed_count(x, decimals);
        if (count < 0 || count >= 1000000) return NULL;
        p = fixed_digits(count, decimals, end);
        if (decimals > 0) {
            while (end[-1] == '0') end--;
            if (end[-1] == '.') end--;
        }
    }
    if (signbit(x)) *--p = '-';
    *len = (size_t)(end - p);
    return p;
}

/* The conversion at `p` (just after a '%'): its letter, with `*decimals` set for `%.Nf`, and
 * `*next` after it; 0 when the fast path does not take it. */
static char fast_conversion(const char *p, const char *end, int *decimals, const char **next) {
    if (*p == '.' && end - p >= 3 && p[1] >= '0' && p[1] <= '9' && p[2] == 'f') {
        *decimals = p[1] - '0';
        *next = p + 3;
        return 'f';
    }
    *next = p + 1;
    return (*p == 's' || *p == 'd' || *p == 'g') ? *p : 0;
}

/* Whether the fast path can format `fmt` with the arguments from stack index 2 on. */
static int plain_format(lua_State *L, const char *fmt, size_t len, int top) {
    int arg = 1;
    const char *end = fmt + len;
    for (const char *p = fmt; (p = (const char *)memchr(p, '%', (size_t)(end - p))) != NULL;) {
        if (++p == end) return 0;
        if (*p == '%') { p++; continue; }
        if (++arg > top) return 0;
        int decimals = 0;
        char conversion = fast_conversion(p, end, &decimals, &p);
        if (conversion == 's') {
            if (lua_type(L, arg) != LUA_TSTRING && !lua_isinteger(L, arg)) return 0;
        } else if (conversion == 'd') {
            if (!lua_isinteger(L, arg)) return 0;
        } else if (conversion == 'f' || conversion == 'g') {
            char buffer[24];
            size_t n;
            if (lua_type(L, arg) != LUA_TNUMBER
                || number_digits(lua_tonumber(L, arg), conversion, decimals, buffer, &n) == NULL) return 0;
        } else {
            return 0;
        }
    }
    return 1;
}

static int may_run_lua(lua_State *L, int arg) {
    return lua_type(L, arg) > LUA_TSTRING || lua_type(L, arg) == LUA_TLIGHTUSERDATA;
}

/* Raises the stock function's error as if the stock function had been called where this one
 * was. Its argument errors name the function from how it was called ("bad argument #2 to
 * 'format'"): called from here, it has no name and counts `self` of a method call, so they are
 * raised again from this frame with the same argument number and reason. */
static int raise_stock_error(lua_State *L, int status) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    static const char prefix[] = "bad argument #";
    if (status == LUA_ERRRUN && msg != NULL && strncmp(msg, prefix, sizeof prefix - 1) == 0) {
        char *rest;
        long arg = strtol(msg + sizeof prefix - 1, &rest, 10);
        const char *reason = strstr(rest, "' (");
        size_t len = reason ? strlen(reason) : 0;
        if (arg > 0 && len >= 4 && reason[len - 1] == ')') {
            lua_pushlstring(L, reason + 3, len - 4);
            return luaL_argerror(L, (int)arg, lua_tostring(L, -1));
        }
    }
    return lua_error(L);
}

/* Whether stock string.format fails at conversion `c` of argument `arg` (of `top`) before it
 * could run any Lua code. */
static int conversion_fails(lua_State *L, char c, int arg, int top) {
    int ok = 1;
    if (arg > top) return 1;
    switch (c) {
        case 's': case 'p': return 0;
        case 'd': case 'i': case 'u': case 'c': case 'o': case 'x': case 'X':
            lua_tointegerx(L, arg, &ok);
            return !ok;
        case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
            lua_tonumberx(L, arg, &ok);
            return !ok;
        case 'q': return may_run_lua(L, arg);
        default: return 1;
    }
}

/* Stock string.format runs Lua code in one place: the `__tostring` of a `%s` argument. Those
 * arguments are made strings here, in order, as stock Lua would, up to the first conversion
 * where it would fail; their `__tostring` runs in this frame, so an error in one keeps its
 * place, and the stock function, which can then run no Lua code, runs protected. */
static void convert_strings(lua_State *L, const char *fmt, size_t len, int top) {
    const char *end = fmt + len;
    int arg = 1;
    for (const char *p = fmt; (p = (const char *)memchr(p, '%', (size_t)(end - p))) != NULL; p++) {
        if (++p == end) return;
        if (*p == '%') continue;
        size_t spec = strspn(p, "-+ #0123456789.");
        p += spec;
        if (p >= end || spec > 20 || conversion_fails(L, *p, ++arg, top)) return;
        if (*p == 's' && may_run_lua(L, arg)) {
            luaL_tolstring(L, arg, NULL);
            lua_replace(L, arg);
        }
    }
}

/* The stock function with this call's arguments, protected, so that its argument errors can be
 * raised again from here (raise_stock_error). */
static int stock_format(lua_State *L, const char *fmt, size_t len, int top) {
    if (fmt != NULL) convert_strings(L, fmt, len, top);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, top, 1, 0);
    if (status != LUA_OK) return raise_stock_error(L, status);
    return 1;
}

/* The fast path's result is written here when it fits, then made a Lua string in one go. */
#define LH_FORMAT_BUFFER 512

int lh_str_format(lua_State *L) {
    int top = lua_gettop(L);
    size_t len;
    const char *fmt = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
    if (fmt == NULL || !plain_format(L, fmt, len, top))
        return stock_format(L, fmt, fmt ? len : 0, top);
    /* Most messages fit a buffer on the C stack: each piece is copied into it, and the result is
       made a string once. A longer one goes on in a luaL_Buffer from where the copy stopped. */
    char out[LH_FORMAT_BUFFER];
    size_t used = 0;
    luaL_Buffer b;
    int buffered = 0;
    int arg = 1;
    const char *start = fmt, *end = fmt + len;
    for (int last = 0; !last;) {
        const char *percent = start < end ? (const char *)memchr(start, '%', (size_t)(end - start)) : NULL;
        const char *piece[2] = { start, NULL };
        size_t lens[2] = { (size_t)((percent ? percent : end) - start), 0 };
        char digits[24];
        if (percent != NULL) {
            if (percent[1] == '%') {
                start = percent + 2;
                piece[1] = "%"; lens[1] = 1;
            } else {
                int decimals = 0;
                char conversion = fast_conversion(percent + 1, end, &decimals, &start);
                arg++;
                if (conversion == 'f' || conversion == 'g') {
                    piece[1] = number_digits(lua_tonumber(L, arg), conversion, decimals, digits, &lens[1]);
                } else if (lua_type(L, arg) == LUA_TSTRING) {
                    piece[1] = lua_tolstring(L, arg, &lens[1]);
                } else {
                    char *digits_end = digits + sizeof digits;
                    piece[1] = format_integer(lua_tointegerx(L, arg, NULL), digits_end);
                    lens[1] = (size_t)(digits_end - piece[1]);
                }
            }
        } else {
            last = 1;
        }
        for (int k = 0; k < 2; k++) {
            if (piece[k] == NULL || lens[k] == 0) continue;
            if (!buffered && lens[k] <= sizeof out - used) {
                memcpy(out + used, piece[k], lens[k]);
                used += lens[k];
                continue;
            }
            if (!buffered) {
                luaL_buffinit(L, &b);
                luaL_addlstring(&b, out, used);
                buffered = 1;
            }
            luaL_addlstring(&b, piece[k], lens[k]);
        }
    }
    if (buffered) luaL_pushresult(&b);
    else lua_pushlstring(L, out, used);
    return 1;
}
