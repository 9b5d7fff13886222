#!/usr/bin/env bash
# The long fault soak of the PostgreSQL store (the test suite runs a 15-second one): writer
# processes (shiftctl with the stock rules) book and remove shifts at random, many conflicting on
# purpose; clients are SIGKILLed at random moments and the server is crashed
# (`pg_ctl stop -m immediate`) and restarted, on a throwaway cluster of its own. Every operation
# is recorded (invoked, ok, failed, unknown) and the final schedule and change log are checked
# against that history; the last line printed holds the figures (docs/guarantees.md).
#
#   scripts/pg-soak.sh [SECONDS] [WRITERS]     default: 600 s, 4 writers
#
# SHIFT_SOAK_KILL_MS (default 1500: a client kill about this often), SHIFT_SOAK_CRASH_SECONDS
# (default 20: a server crash about this often), SHIFT_SEED=<n> repeats a run's choices,
# SHIFT_SOAK_REPORT=FILE also writes the figures there. SHIFT_CONTENTION_ROUNDS (default 100) sets
# the rounds of the request contention loop that follows. SCRATCH picks the build folder (default
# .build). Needs Debian's postgresql.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
nice -n 10 swift build --build-tests --scratch-path "$scratch"
SHIFT_SOAK_SECONDS="${1:-600}" SHIFT_SOAK_WRITERS="${2:-4}" \
SHIFT_SOAK_KILL_MS="${SHIFT_SOAK_KILL_MS:-1500}" SHIFT_SOAK_CRASH_SECONDS="${SHIFT_SOAK_CRASH_SECONDS:-20}" \
    swift test --skip-build --scratch-path "$scratch" --filter PostgresSoakTests
# Then the requests' contention loop on a throwaway server of its own: two claims of one open
# shift approved at once, two exchanges for one shift accepted at once (RequestContentionTests).
SHIFT_CONTENTION_ROUNDS="${SHIFT_CONTENTION_ROUNDS:-100}" \
    scripts/with-postgres.sh swift test --skip-build --scratch-path "$scratch" --filter RequestContentionTests
