/*
 * Trials: evaluations that run without Lua's count hook.
 *
 * The instruction budget is counted by a count hook, and Lua 5.4 stops at every VM instruction
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
void lh_trial_begin(lh_watch *w, int64_t limit_ns) { (void)w; (void)limit_ns; }
void lh_trial_restart(lh_watch *w) { (void)w; }
int lh_trial_end(lh_watch *w) { (void)w; return 1; }

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
        /* Nothing has run for a while: sleep until a trial starts (lh_trial_begin wakes us).
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

void lh_trial_begin(lh_watch *w, int64_t limit_ns) {
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

void lh_trial_restart(lh_watch *w) {
    atomic_store(&w->started, now_ns());
}

int lh_trial_end(lh_watch *w) {
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
