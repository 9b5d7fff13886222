#!/usr/bin/env bash
# Long runs of the crash-safety and concurrent-writer harnesses (the test suite runs short ones):
# shiftctl is SIGKILLed at random moments during ROUNDS writes, then WRITERS processes each make
# WRITES changes to one store at once. Every store backend the harness knows is covered.
#
#   scripts/crash-soak.sh [ROUNDS] [WRITERS] [WRITES]     default: 1000 rounds, 8 writers × 25 writes
#
# SHIFT_SEED=<n> repeats a run (the seed is printed when a check fails). SCRATCH picks the build
# folder (default .build-soak).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build-soak}"
nice -n 10 swift build --build-tests --scratch-path "$scratch"
SHIFT_CRASH_ROUNDS="${1:-1000}" SHIFT_WRITERS="${2:-8}" SHIFT_WRITES_PER_WRITER="${3:-25}" \
    swift test --skip-build --scratch-path "$scratch" --filter "CrashSafetyTests|ConcurrentWriterTests"
