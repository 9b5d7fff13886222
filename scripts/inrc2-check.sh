#!/bin/sh
# Scores all 96 shared INRC-II solutions with the Lua rules and with the independent Python
# scorer, and compares every category (docs/inrc2.md). Builds shiftctl in release first.
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product shiftctl >/dev/null
exec python3 scripts/inrc2_crosscheck.py "$(swift build -c release --show-bin-path)/shiftctl" "$@"
