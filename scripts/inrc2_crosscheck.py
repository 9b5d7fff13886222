#!/usr/bin/env python3
"""Scores every shared INRC-II solution twice — `shiftctl inrc2 import` + `validate --score`
with the Lua rules in rules/examples/inrc2, and scripts/inrc2_reference.py — and compares the
eleven categories. Exit 1 on any difference.

    scripts/inrc2_crosscheck.py SHIFTCTL [DATA_DIR]      (DATA_DIR default: benchmarks/inrc2)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = {"H1": "inrc2_h1_single_assignment", "H2": "inrc2_h2_under_staffing", "H3": "inrc2_h3_shift_successions",
         "H4": "inrc2_h4_missing_skill", "S1": "inrc2_s1_optimal_coverage", "S2": "inrc2_s2_consecutive",
         "S3": "inrc2_s3_days_off", "S4": "inrc2_s4_preferences", "S5": "inrc2_s5_complete_weekends",
         "S6": "inrc2_s6_total_assignments", "S7": "inrc2_s7_working_weekends"}


def main():
    shiftctl = os.path.abspath(sys.argv[1])
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "benchmarks", "inrc2")
    solutions = sorted(glob.glob(os.path.join(data, "*", "Solution_*")))
    if not solutions:
        sys.exit(f"{data}: no Solution_* folders")
    bad, slowest = 0, (0.0, "")
    for solution in solutions:
        instance = os.path.dirname(solution)
        name = os.path.relpath(solution, data)
        reference = json.loads(subprocess.check_output(
            [sys.executable, os.path.join(ROOT, "scripts", "inrc2_reference.py"), instance, solution]))
        folder = tempfile.mkdtemp(prefix="inrc2-")
        try:
            store = os.path.join(folder, "s.json")
            loaded = subprocess.run([shiftctl, "--store", store, "inrc2", "import", instance, "--solution", solution],
                                    capture_output=True, text=True)
            if loaded.returncode != 0:
                print(f"{name}: import failed: {loaded.stderr.strip()}")
                bad += 1
                continue
            started = time.monotonic()
            scored = subprocess.run([shiftctl, "--store", store, "validate", "--score", "--format", "json"],
                                    capture_output=True, text=True)
            elapsed = time.monotonic() - started
            slowest = max(slowest, (elapsed, name))
            by_rule = json.loads(scored.stdout)["score"]["byRule"]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        ours = {k: (by_rule[r]["count"] if k[0] == "H" else int(by_rule[r]["penalty"])) for k, r in RULES.items()}
        theirs = {**reference["hard"], **reference["soft"]}
        if ours != theirs:
            bad += 1
            diff = ", ".join(f"{k}: ours {ours[k]} reference {theirs[k]}" for k in RULES if ours[k] != theirs[k])
            print(f"{name}: {diff}")
    print(f"{len(solutions)} solutions: {len(solutions) - bad} match the reference scorer in all 11 categories"
          f" (slowest validate --score {slowest[0]:.2f} s: {slowest[1]})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
