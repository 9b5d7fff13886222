#!/usr/bin/env bash
# Runs the libFuzzer targets in Fuzz/ (JSON store decoder, iCalendar and CSV importers, Lua host,
# damaged SQLite stores) for a bounded time each, with AddressSanitizer. Linux only (libFuzzer ships with the Swift toolchain).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]      default: 60 s, every target
#
# Seeds: Fuzz/corpus/<target>/ (kept in git); FuzzLua is seeded at run time with the repository's
# own Lua (stock rules, rotations, scripts, INRC-II rules, the hostile test corpus), so the seeds
# never drift from the real files. Inputs the fuzzer finds go to
# Fuzz/.build-fuzz/corpus/<target>/; a crash, timeout or leak is written to
# Fuzz/artifacts/<target>/ and the script exits non-zero: turn it into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(FuzzStoreDecoder FuzzICS FuzzCSV FuzzLua FuzzSQLiteStore); fi

build=(swift build --package-path Fuzz --scratch-path Fuzz/.build-fuzz --sanitize=fuzzer --sanitize=address)
nice -n 10 "${build[@]}" 2>&1 | grep -v "ld.gold: warning: Cannot export local symbol" || true
bin="$("${build[@]}" --show-bin-path)"

seeds="Fuzz/.build-fuzz/seeds/FuzzLua"
rm -rf "$seeds" && mkdir -p "$seeds" Fuzz/corpus/FuzzLua
n=0
for file in rules/*.lua rules/lib/*.lua rules/rotations/*.lua rules/scripts/*.lua rules/examples/*/*.lua \
            rules/examples/*/lib/*.lua Tests/ShiftRulesTests/Fixtures/hostile/*.lua; do
    n=$((n + 1)) && cp "$file" "$seeds/$n-$(basename "$file")"
done

status=0
for target in "${targets[@]}"; do
    mkdir -p "Fuzz/.build-fuzz/corpus/$target" "Fuzz/artifacts/$target"
    extra=()
    if [ "$target" = FuzzLua ]; then extra=("$seeds"); fi
    echo "== $target: ${seconds} s"
    if ! nice -n 10 "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="Fuzz/artifacts/$target/" "Fuzz/.build-fuzz/corpus/$target" "Fuzz/corpus/$target" "${extra[@]}" \
        > "Fuzz/.build-fuzz/$target.log" 2>&1; then
        status=1
        echo "   FAILED: see Fuzz/.build-fuzz/$target.log and Fuzz/artifacts/$target/"
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "Fuzz/.build-fuzz/$target.log" | sed 's/^/   /'
done
exit $status
