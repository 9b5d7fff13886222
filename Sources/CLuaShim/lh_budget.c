/*
 * The budget: what an evaluation may spend, and the trials that run it without counting.
 *
 * An evaluation (lh_load, lh_call) has a budget of units: one per VM instruction, counted by a
 * count hook (lh_hook) every `gran` instructions; one per 64 bytes allocated
 * (lh_charge_allocation); and what C functions charge for their loops (lh_charge: patterns,
 * table functions). Past the budget, or past the wall-clock deadline, the evaluation raises an
 * error no pcall can swallow: the hook fires again on every instruction. A host driver's marker
 * renews the budget for each check it runs (lh_new_marker).
 *
 * Trials. The instruction budget is counted by a count hook, and Lua 5.4 stops at every VM instruction
 * while any count hook is set, whatever its count: a sixth to a third of a rule's time. A trial
 * runs a call with no hook and a watchdog: if the call is still running after the time no
 * machine needs to execute the whole budget (budget / LH_TRIAL_RATE: 5 ms for 10 million
 * units), the watchdog interrupts it and the host runs the call again metered, from the start.
 * A trial that ends within that time cannot have executed more instructions than the budget,
 * so its result is the metered run's; one that does not end in time is thrown away. Either way
 * the caller sees what a metered run gives (see lh_call).
 *
 * The watchdog is one thread per process. It looks at the running trials every 5 ms, sleeps
 * on a condition variable once no trial has run for 50 ms, and interrupts a trial by
 * sending its thread a signal whose handler sets the count hook (lua_sethook may be called from
 * a signal handler: lua.c stops scripts on SIGINT that way); the hook then ends the call as an
 * exhausted budget does, so pcall cannot swallow it.
 *
 * Trials are off where the signal cannot be used: when another handler owns it, when the
 * watchdog thread cannot start, when every watch slot is taken, on systems other than Linux,
 * and under ThreadSanitizer (which defers signals to its interceptors, never reached inside an
 * endless Lua loop). Calls are then metered from the start, as they always were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lh_internal.h"

static void lh_hook(lua_State *L, lua_Debug *ar);
/* The trials' watchdog (at the end of this file). */
static void trial_begin(lh_watch *w, int64_t limit_ns);
/* A host driver's mark: the time starts again for the next check. */
static void trial_restart(lh_watch *w);
/* Returns 1 when the trial was interrupted or ran longer than its limit. */
static int trial_end(lh_watch *w);

/* The time limit's clock. The coarse clock (a few milliseconds' resolution, against limits of
 * seconds) is read without a timer query: every call into Lua reads it once. */
static double lh_now(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noreturn)) static void raise_exhausted(lua_State *L, lh_runtime *rt) {
    lua_sethook(L, lh_hook, LUA_MASKCOUNT, 1);
    /* In a trial the main thread runs without a hook: a coroutine that ran out stops it too. */
    if (rt->trials.running && L != rt->L) lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
    if (rt->budget.exhausted == LH_ERR_TIMEOUT)
        luaL_error(L, "time limit exceeded");
    if (rt->budget.exhausted == LH_TRIAL_INTERRUPTED)
        luaL_error(L, "trial interrupted");
    luaL_error(L, "instruction budget exceeded");
    abort(); /* not reached */
}

/* The watchdog's signal handler, on the thread running the trial (below): the trial ends
 * at the main thread's next instruction (a coroutine's own hook sees `exhausted` within its
 * count), and every instruction after that raises again. Async-signal-safe: it writes plain
 * fields, and lua_sethook is made to be called from a signal handler. */
static void lh_interrupt(lh_runtime *rt) {
    if (!rt->budget.exhausted) rt->budget.exhausted = LH_TRIAL_INTERRUPTED;
    lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
}

/* The host's own Lua (lh_push_integers' table maker) is never where a script ran out. */
static int is_host_chunk(const lua_Debug *ar) { return strcmp(ar->short_src, "(host)") == 0; }

void lh_first_lua_frame(lua_State *L, int level, char *chunk, int *line);

static void record_where(lua_State *L, lua_Debug *ar, char *chunk, int *line) {
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) {
        if (is_host_chunk(ar)) {
            lh_first_lua_frame(L, 1, chunk, line);
            return;
        }
        memcpy(chunk, ar->short_src, LUA_IDSIZE);
        chunk[LUA_IDSIZE - 1] = 0;
        *line = ar->currentline;
    }
}

/* First Lua frame at or above `level` (the host's own chunks skipped). */
void lh_first_lua_frame(lua_State *L, int level, char *chunk, int *line) {
    lua_Debug ar;
    chunk[0] = 0; *line = 0;
    for (; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && !is_host_chunk(&ar)) {
            memcpy(chunk, ar.short_src, LUA_IDSIZE);
            chunk[LUA_IDSIZE - 1] = 0;
            *line = ar.currentline;
            return;
        }
    }
}

static void exhaust(lua_State *L, lh_runtime *rt, int why) {
    rt->budget.exhausted = why;
    lh_first_lua_frame(L, 0, rt->budget.ex_chunk, &rt->budget.ex_line);
    raise_exhausted(L, rt);
}

static void lh_hook(lua_State *L, lua_Debug *ar) {
    lh_runtime *rt = LH_RT(L);
    if (!rt->budget.active) return;
    if (rt->budget.exhausted) {
        if (rt->budget.ex_line == 0) record_where(L, ar, rt->budget.ex_chunk, &rt->budget.ex_line);
        raise_exhausted(L, rt);
    }
    int count = lua_gethookcount(L);
    if (count != rt->budget.gran) {
        /* a coroutine left over from an exhausted evaluation */
        lua_sethook(L, lh_hook, LUA_MASKCOUNT, rt->budget.gran);
        return;
    }
    rt->budget.remaining -= count;
    if (rt->budget.remaining <= 0) {
        rt->budget.exhausted = LH_ERR_BUDGET;
        record_where(L, ar, rt->budget.ex_chunk, &rt->budget.ex_line);
        raise_exhausted(L, rt);
    }
    if (rt->budget.time_limit > 0 && lh_now() > rt->budget.deadline) {
        rt->budget.exhausted = LH_ERR_TIMEOUT;
        record_where(L, ar, rt->budget.ex_chunk, &rt->budget.ex_line);
        raise_exhausted(L, rt);
    }
}

void lh_allocation_checkpoint(lh_runtime *rt) {
    struct lh_budget *b = &rt->budget;
    int out = b->remaining <= 0 ? LH_ERR_BUDGET : 0;
    if (!out && b->alloc_acc > (1u << 20)) {
        b->alloc_acc = 0;
        if (b->time_limit > 0 && lh_now() > b->deadline) out = LH_ERR_TIMEOUT;
    }
    if (out) {
        b->exhausted = out;
        /* the hook fires on the main thread's next instruction (lua_sethook is async-signal-safe
         * by design) */
        if (rt->L) lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, 1);
    }
}

void lh_charge(lua_State *L, int64_t units) {
    lh_runtime *rt = LH_RT(L);
    if (!rt->budget.active) return;
    if (rt->budget.exhausted) {
        if (rt->budget.ex_line == 0) lh_first_lua_frame(L, 1, rt->budget.ex_chunk, &rt->budget.ex_line);
        raise_exhausted(L, rt);
    }
    rt->budget.remaining -= units;
    if (rt->budget.remaining <= 0) exhaust(L, rt, LH_ERR_BUDGET);
    if (units >= 1024 && rt->budget.time_limit > 0 && lh_now() > rt->budget.deadline)
        exhaust(L, rt, LH_ERR_TIMEOUT);
}

/* A new coroutine runs under the budget's hook (the sandbox's coroutine.create and wrap). */
void lh_hook_thread(lh_runtime *rt, lua_State *co) {
    lua_sethook(co, lh_hook, LUA_MASKCOUNT, rt->budget.exhausted ? 1 : rt->budget.gran);
}

/* A trial (below) when asked for and available: no hook on the main thread; else metered. */
void lh_begin_eval(lh_runtime *rt, int trial) {
    /* The run after a trial that failed keeps its deadline: the time limit is the call's. */
    double deadline = rt->trials.rerun ? rt->budget.deadline : 0;
    rt->trials.rerun = 0;
    rt->budget.eval_id++;
    rt->budget.remaining = rt->budget.units;
    rt->budget.exhausted = 0;
    rt->budget.ex_chunk[0] = 0; rt->budget.ex_line = 0;
    rt->mem.refused = 0;
    rt->outcome.tb_valid = 0;
    rt->budget.alloc_acc = 0;
    rt->budget.gran = rt->budget.units < 1000 ? (rt->budget.units < 1 ? 1 : (int)rt->budget.units) : 1000;
    rt->budget.deadline = deadline > 0 ? deadline : rt->budget.time_limit > 0 ? lh_now() + rt->budget.time_limit : 0;
    rt->budget.mark = 0;
    rt->trials.running = trial && rt->trials.watch != NULL;
    rt->trials.failed = 0;
    if (rt->trials.running) {
        lua_sethook(rt->L, NULL, 0, 0);
        trial_begin(rt->trials.watch, rt->trials.limit_ns);
    } else {
        lua_sethook(rt->L, lh_hook, LUA_MASKCOUNT, rt->budget.gran);
    }
    rt->budget.active = 1;
}

void lh_end_eval(lh_runtime *rt) {
    rt->budget.active = 0;
    if (rt->trials.running) rt->trials.failed = trial_end(rt->trials.watch);
    lua_sethook(rt->L, NULL, 0, 0);
}

/* A host driver's marker (see lh_new_marker): mark(n) records that check n runs now and gives
 * it a whole budget and time limit of its own, as if it had been called alone; an exhausted
 * evaluation stays exhausted. */
static int marker(lua_State *L) {
    lh_runtime *rt = LH_RT(L);
    rt->budget.mark = (int)lua_tointegerx(L, 1, NULL);
    if (!rt->budget.exhausted) {
        rt->budget.remaining = rt->budget.units;
        rt->budget.deadline = rt->budget.time_limit > 0 ? lh_now() + rt->budget.time_limit : 0;
        if (rt->trials.running) trial_restart(rt->trials.watch);
    }
    return 0;
}

static int new_marker_entry(lua_State *L) {
    int *ref = (int *)lua_touserdata(L, 1);
    lua_pushcfunction(L, marker);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

int lh_new_marker(lua_State *L, int *ref) { return lh_protected_ref(L, new_marker_entry, ref); }

int lh_mark(lh_runtime *rt) { return rt->budget.mark; }

/* ---- trials ---------------------------------------------------------------- */
#if defined(__SANITIZE_THREAD__)
#define LH_NO_TRIALS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LH_NO_TRIALS 1
#endif
#endif
#if !defined(__linux__)
#define LH_NO_TRIALS 1
#endif

#ifdef LH_NO_TRIALS

double lh_trial_rate(void) { return LH_TRIAL_RATE; }
lh_watch *lh_watch_claim(lh_runtime *rt) { (void)rt; return NULL; }
void lh_watch_release(lh_watch *w) { (void)w; }
static void trial_begin(lh_watch *w, int64_t limit_ns) { (void)w; (void)limit_ns; }
static void trial_restart(lh_watch *w) { (void)w; }
static int trial_end(lh_watch *w) { (void)w; return 1; }

#else

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

/* Slot states: the low bits are flags, the rest a generation that each trial moves on, so the
 * watchdog never trips a later trial for an earlier one's time. */
#define W_RUNNING 1u
#define W_TRIPPED 2u   /* the watchdog has sent the signal (or is about to) */
#define W_SENDING 4u   /* the watchdog is in pthread_kill: the thread must not go away */
#define W_GEN 8u

#define LH_WATCH_SLOTS 4096
/* The watchdog's period (a trial is stopped within this of its time running out), how long it
 * stays awake with no trial running, and how long it sleeps at most once asleep (it is woken
 * when a trial starts; the bound only limits what a lost wake-up could cost). */
#define LH_WATCH_PERIOD_NS 5000000
#define LH_WATCH_LINGER_NS 50000000
#define LH_WATCH_NAP_NS 1000000000

struct lh_watch {
    atomic_uint state;
    atomic_int used;
    _Atomic int64_t started;   /* ns, CLOCK_MONOTONIC: when the trial (or its last mark) began */
    _Atomic int64_t limit;     /* ns */
    _Atomic pthread_t thread;
    lh_runtime *rt;
};

static lh_watch watches[LH_WATCH_SLOTS];
static atomic_int watch_high;      /* every slot in use is below this */
static atomic_int trials_running;
static atomic_int watchdog_asleep;
static pthread_mutex_t watchdog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdog_wake;
static pthread_once_t watchdog_once = PTHREAD_ONCE_INIT;
static int trials_available;
static int trial_signal;

/* The trial running on this thread (read by the signal handler), and whether this thread
 * lets the signal through. Initial-exec TLS: reading it in a signal handler allocates nothing. */
static __thread lh_watch *current_watch __attribute__((tls_model("initial-exec")));
static __thread int signal_unblocked __attribute__((tls_model("initial-exec")));

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_trial_signal(int sig, siginfo_t *info, void *context) {
    (void)sig; (void)info; (void)context;
    int saved = errno;
    lh_watch *w = current_watch;
    if (w != NULL && (atomic_load(&w->state) & (W_RUNNING | W_TRIPPED)) == (W_RUNNING | W_TRIPPED))
        lh_interrupt(w->rt);
    errno = saved;
}

static void trip_overdue(int64_t now) {
    int high = atomic_load(&watch_high);
    for (int i = 0; i < high; i++) {
        lh_watch *w = &watches[i];
        unsigned s = atomic_load(&w->state);
        if ((s & (W_RUNNING | W_TRIPPED)) != W_RUNNING) continue;
        if (now - atomic_load(&w->started) <= atomic_load(&w->limit)) continue;
        /* Claim the trip and keep the thread inside its trial while the signal is sent. */
        if (!atomic_compare_exchange_strong(&w->state, &s, s | W_TRIPPED | W_SENDING)) continue;
        pthread_kill(atomic_load(&w->thread), trial_signal);
        atomic_fetch_and(&w->state, ~W_SENDING);
    }
}

static void *watchdog_main(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    int64_t last_busy = now_ns();
    for (;;) {
        struct timespec period = { 0, LH_WATCH_PERIOD_NS };
        nanosleep(&period, NULL);
        int64_t now = now_ns();
        if (atomic_load(&trials_running) > 0) {
            last_busy = now;
            trip_overdue(now);
            continue;
        }
        if (now - last_busy < LH_WATCH_LINGER_NS) continue;
        /* Nothing has run for a while: sleep until a trial starts (trial_begin wakes us).
         * Setting `asleep` before looking at `trials_running` (both sequentially consistent)
         * means a trial that starts meanwhile either is seen here or sees `asleep` and wakes
         * us; the timed wait bounds the damage of any wake-up lost all the same. */
        pthread_mutex_lock(&watchdog_lock);
        atomic_store(&watchdog_asleep, 1);
        if (atomic_load(&trials_running) == 0) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_sec += LH_WATCH_NAP_NS / 1000000000;
            until.tv_nsec += LH_WATCH_NAP_NS % 1000000000;
            if (until.tv_nsec >= 1000000000) { until.tv_sec += 1; until.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&watchdog_wake, &watchdog_lock, &until);
        }
        atomic_store(&watchdog_asleep, 0);
        pthread_mutex_unlock(&watchdog_lock);
        last_busy = now_ns();
    }
    return NULL;
}

static void start_watchdog(void) {
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) return;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int ok = pthread_cond_init(&watchdog_wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok) return;
    /* A real-time signal nobody else has claimed. */
    trial_signal = SIGRTMIN + 6;
    if (trial_signal > SIGRTMAX) return;
    struct sigaction old;
    if (sigaction(trial_signal, NULL, &old) != 0) return;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trial_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(trial_signal, &sa, NULL) != 0) return;
    pthread_attr_t tattr;
    pthread_t thread;
    if (pthread_attr_init(&tattr) != 0) return;
    pthread_attr_setdetachstate(&tattr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&tattr, 64 * 1024);
    ok = pthread_create(&thread, &tattr, watchdog_main, NULL) == 0;
    pthread_attr_destroy(&tattr);
    if (ok) trials_available = 1;
}

double lh_trial_rate(void) {
    static double rate;
    if (rate == 0) {
        /* Profilers only (valgrind runs code 50 times slower): a lower assumed rate, within
         * 10^6..LH_TRIAL_RATE, lengthens the trials' time instead of making every one fail. */
        const char *text = getenv("LUAHOST_TRIAL_RATE");
        double value = text ? strtod(text, NULL) : 0;
        rate = value >= 1e6 && value < LH_TRIAL_RATE ? value : LH_TRIAL_RATE;
    }
    return rate;
}

lh_watch *lh_watch_claim(lh_runtime *rt) {
    pthread_once(&watchdog_once, start_watchdog);
    if (!trials_available) return NULL;
    for (int i = 0; i < LH_WATCH_SLOTS; i++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&watches[i].used, &expected, 1)) continue;
        lh_watch *w = &watches[i];
        w->rt = rt;
        atomic_store(&w->state, atomic_load(&w->state) & ~(W_GEN - 1));
        int high = atomic_load(&watch_high);
        while (high < i + 1 && !atomic_compare_exchange_weak(&watch_high, &high, i + 1)) {}
        return w;
    }
    return NULL;
}

void lh_watch_release(lh_watch *w) {
    if (w == NULL) return;
    w->rt = NULL;
    atomic_store(&w->used, 0);
}

static void trial_begin(lh_watch *w, int64_t limit_ns) {
    if (!signal_unblocked) {
        /* libdispatch's worker threads (Swift's concurrency pool among them) block every
         * signal they do not expect. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, trial_signal);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        signal_unblocked = 1;
    }
    atomic_store(&w->thread, pthread_self());
    atomic_store(&w->limit, limit_ns);
    atomic_store(&w->started, now_ns());
    current_watch = w;
    unsigned gen = (atomic_load(&w->state) & ~(W_GEN - 1)) + W_GEN;
    atomic_store(&w->state, gen | W_RUNNING);
    if (atomic_fetch_add(&trials_running, 1) == 0 && atomic_load(&watchdog_asleep)) {
        pthread_mutex_lock(&watchdog_lock);
        pthread_cond_signal(&watchdog_wake);
        pthread_mutex_unlock(&watchdog_lock);
    }
}

static void trial_restart(lh_watch *w) {
    atomic_store(&w->started, now_ns());
}

static int trial_end(lh_watch *w) {
    unsigned s = atomic_load(&w->state);
    /* Wait out a signal being sent to this thread (a few microseconds, rarely). */
    while ((s & W_SENDING) || !atomic_compare_exchange_weak(&w->state, &s, s & ~(W_GEN - 1)))
        s = atomic_load(&w->state);
    int64_t ran = now_ns() - atomic_load(&w->started);
    current_watch = NULL;
    atomic_fetch_sub(&trials_running, 1);
    return (s & W_TRIPPED) || ran > atomic_load(&w->limit);
}

#endif
