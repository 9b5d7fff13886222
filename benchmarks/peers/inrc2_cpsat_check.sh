#!/bin/sh
# Self-test of the CP-SAT peer (inrc2_cpsat.py --selftest): prices 30 random rosters with the
# model and with scripts/inrc2_reference.py, then solves n005w4 (H0; 1 2 3 3) and n030w4
# (H1; 6 2 9 1) briefly and checks 0 hard violations and reference total == objective.
# Exit status 0 on success. Extra arguments go to the script (default --time-limit 10).
# PYTHON overrides the interpreter (default: the repository's .venv-bench with ortools);
# INRC2_DATA overrides the data folder (default the repository's benchmarks/inrc2).
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-$here/../../.venv-bench/bin/python}
exec "$PYTHON" "$here/inrc2_cpsat.py" --selftest --workers 2 "$@"
