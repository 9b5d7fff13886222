#!/usr/bin/env python3
"""An independent INRC-II scorer, used by the test suite as a second opinion.

It reads a scenario, a history, the week files and one solution file per week, and prints the
hard-violation counts and the soft cost per category as JSON, written straight from the
competition's definitions (see ../shared/benchmarks/inrc2/README.md and docs/inrc2.md). It shares
no code with the Lua rules in rules/examples/inrc2/: the suite imports every shared solution into
a store, runs `shiftctl validate --score`, and compares the two category by category.

    scripts/inrc2_reference.py INSTANCE_DIR SOLUTION_DIR
    scripts/inrc2_reference.py --scenario Sc.txt --history H0.txt --weeks WD-a.txt … --solutions s0.txt …

With a solution folder named Solution_H_<h>-WD_<w0>-<w1>-…[__variant] the history and the week
files are found from the name.
"""
import argparse
import json
import os
import re
import sys

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
W_UNDER, W_CONS_SHIFT, W_CONS_WORK, W_CONS_OFF = 30, 15, 30, 30
W_PREF, W_WEEKEND, W_TOTAL, W_WEEKENDS = 10, 30, 20, 30


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f.read().replace("\r", "").split("\n")]


def pair(token):
    a, b = token.strip("()").split(",")
    return int(a), int(b)


def read_scenario(path):
    lines = [l for l in lines_of(path) if l]
    sc = {"types": {}, "forbidden": {}, "contracts": {}, "nurses": {}, "skills": []}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("WEEKS"):
            sc["weeks"] = int(line.split("=")[1])
        elif line.startswith("SKILLS"):
            n = int(line.split("=")[1])
            sc["skills"] = lines[i + 1:i + 1 + n]
            i += n
        elif line.startswith("SHIFT_TYPES"):
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                name, bounds = l.split()
                sc["types"][name] = pair(bounds)
            i += n
        elif line.startswith("FORBIDDEN_SHIFT_TYPES_SUCCESSIONS"):
            for l in lines[i + 1:i + 1 + len(sc["types"])]:
                parts = l.split()
                sc["forbidden"][parts[0]] = set(parts[2:2 + int(parts[1])])
            i += len(sc["types"])
        elif line.startswith("CONTRACTS"):
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                p = l.split()
                sc["contracts"][p[0]] = {
                    "total": pair(p[1]), "work": pair(p[2]), "off": pair(p[3]),
                    "max_weekends": int(p[4]), "complete": int(p[5]) == 1,
                }
            i += n
        elif line.startswith("NURSES"):
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                p = l.split()
                sc["nurses"][p[0]] = {"contract": p[1], "skills": set(p[3:3 + int(p[2])])}
            i += n
        i += 1
    return sc


def read_history(path):
    lines = [l for l in lines_of(path) if l]
    start = lines.index("NURSE_HISTORY")
    history = {}
    for l in lines[start + 1:]:
        p = l.split()
        if len(p) < 7:
            continue
        history[p[0]] = {"assignments": int(p[1]), "weekends": int(p[2]), "last": p[3],
                         "cons_shift": int(p[4]), "cons_work": int(p[5]), "cons_off": int(p[6])}
    return history


def read_week(path):
    lines = [l for l in lines_of(path) if l]
    req, requests = {}, []
    i = lines.index("REQUIREMENTS") + 1
    while i < len(lines) and not lines[i].startswith("SHIFT_OFF_REQUESTS"):
        p = lines[i].split()
        for d in range(7):
            req[(p[0], p[1], d)] = pair(p[2 + d])
        i += 1
    n = int(lines[i].split("=")[1])
    for l in lines[i + 1:i + 1 + n]:
        p = l.split()
        requests.append((p[0], p[1], DAYS.index(p[2])))
    return req, requests


def read_solution(path):
    lines = [l for l in lines_of(path) if l]
    i = next(k for k, l in enumerate(lines) if l.startswith("ASSIGNMENTS"))
    n = int(lines[i].split("=")[1])
    out = []
    for l in lines[i + 1:i + 1 + n]:
        p = l.split()
        out.append((p[0], DAYS.index(p[1]), p[2], p[3]))
    return out


def score(sc, history, weeks, solutions):
    days = 7 * len(weeks)
    # assignment[nurse][day] = list of (type, skill)
    work = {n: [[] for _ in range(days)] for n in sc["nurses"]}
    for k, sol in enumerate(solutions):
        for nurse, d, t, skill in sol:
            work[nurse][7 * k + d].append((t, skill))
    cost = {k: 0 for k in ("S1", "S2", "S3", "S4", "S5", "S6", "S7")}
    hard = {k: 0 for k in ("H1", "H2", "H3", "H4")}

    # Coverage per day, type, skill: H2 counts the nurses missing below the minimum, S1 those
    # missing from the optimum above it (a nurse below the minimum is H2's alone, as the official
    # validator counts it).
    for k, (req, _) in enumerate(weeks):
        for (t, skill, d), (minimum, optimal) in req.items():
            have = sum(1 for n in work for a in work[n][7 * k + d] if a == (t, skill))
            hard["H2"] += max(0, minimum - have)
            cost["S1"] += W_UNDER * max(0, optimal - max(have, minimum))
    # S4: shift-off requests met or not.
    for k, (_, requests) in enumerate(weeks):
        for nurse, t, d in requests:
            if any(t == "Any" or a[0] == t for a in work[nurse][7 * k + d]):
                cost["S4"] += W_PREF

    for nurse, info in sc["nurses"].items():
        contract = sc["contracts"][info["contract"]]
        h = history[nurse]
        row = work[nurse]
        hard["H1"] += sum(max(0, len(a) - 1) for a in row)
        hard["H4"] += sum(1 for a in row for _, skill in a if skill not in info["skills"])
        # The shift type worked each day (the first, when H1 is violated), None for a day off.
        typ = [a[0][0] if a else None for a in row]
        previous = None if h["last"] == "None" else h["last"]
        for d in range(days):
            if previous is not None and typ[d] is not None and typ[d] in sc["forbidden"].get(previous, ()):
                hard["H3"] += 1
            previous = typ[d]

        def runs(key, cur, count, bounds, weight):
            """Penalty of the runs of equal keys. The first run continues the history's count;
            each day beyond the maximum costs `weight` on the day it is reached; a run that ends
            short of its minimum costs `weight` per missing day, once, on the day it ends; a run
            still going on the last day of the horizon is never short."""
            total = 0
            for d in range(days):
                k = key(d)
                if k == cur:
                    count += 1
                else:
                    lo, _ = bounds(cur)
                    if count > 0 and count < lo:
                        total += weight * (lo - count)
                    cur, count = k, 1
                if count > bounds(cur)[1]:
                    total += weight
            return total

        unbounded = (0, 10 ** 9)
        last = None if h["last"] == "None" else h["last"]
        # S2: runs of one shift type (a day off ends them) and runs of working days; S3: days off.
        cost["S2"] += runs(lambda d: typ[d], last, h["cons_shift"] if last else 0,
                           lambda t: sc["types"][t] if t is not None else unbounded, W_CONS_SHIFT)
        working = h["cons_work"] > 0
        start = h["cons_work"] if working else h["cons_off"]
        cost["S2"] += runs(lambda d: typ[d] is not None, working, start,
                           lambda w: contract["work"] if w else unbounded, W_CONS_WORK)
        cost["S3"] += runs(lambda d: typ[d] is not None, working, start,
                           lambda w: contract["off"] if not w else unbounded, W_CONS_OFF)

        weekends = 0
        for k in range(len(weeks)):
            sat, sun = bool(row[7 * k + 5]), bool(row[7 * k + 6])
            if sat or sun:
                weekends += 1
            if contract["complete"] and sat != sun:
                cost["S5"] += W_WEEKEND
        assignments = h["assignments"] + sum(len(a) for a in row)
        lo, hi = contract["total"]
        cost["S6"] += W_TOTAL * (max(0, lo - assignments) + max(0, assignments - hi))
        cost["S7"] += W_WEEKENDS * max(0, h["weekends"] + weekends - contract["max_weekends"])
    return hard, cost


def find_files(instance, solution_dir):
    name = os.path.basename(os.path.normpath(solution_dir))
    m = re.match(r"Solution_H_(\d+)-WD_([\d-]+?)(?:__.*)?$", name)
    if not m:
        sys.exit(f"{solution_dir}: the folder name does not say the history and weeks (Solution_H_<h>-WD_<a>-<b>-…)")
    inst = os.path.basename(os.path.normpath(instance))
    h, wds = m.group(1), m.group(2).split("-")
    sols = []
    files = os.listdir(solution_dir)
    for k, wd in enumerate(wds):
        found = [f for f in files if f == f"sol-week{k}.txt" or re.search(rf"Sol-{inst}-(\d+-)?{wd}-{k}\.txt$", f)]
        if len(found) != 1:
            sys.exit(f"{solution_dir}: no single solution file for week {k} (week data {wd}): {found}")
        sols.append(os.path.join(solution_dir, found[0]))
    return (os.path.join(instance, f"Sc-{inst}.txt"), os.path.join(instance, f"H0-{inst}-{h}.txt"),
            [os.path.join(instance, f"WD-{inst}-{wd}.txt") for wd in wds], sols)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("instance", nargs="?")
    ap.add_argument("solution", nargs="?")
    ap.add_argument("--scenario")
    ap.add_argument("--history")
    ap.add_argument("--weeks", nargs="*")
    ap.add_argument("--solutions", nargs="*")
    a = ap.parse_args()
    if a.instance:
        scenario, hist, week_files, sol_files = find_files(a.instance, a.solution)
    else:
        scenario, hist, week_files, sol_files = a.scenario, a.history, a.weeks, a.solutions
    sc = read_scenario(scenario)
    hard, cost = score(sc, read_history(hist), [read_week(w) for w in week_files],
                       [read_solution(s) for s in sol_files])
    print(json.dumps({"hard": hard, "soft": cost, "total": sum(cost.values())}, sort_keys=True))


if __name__ == "__main__":
    main()
