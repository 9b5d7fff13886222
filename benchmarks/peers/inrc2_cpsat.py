#!/usr/bin/env python3
"""INRC-II peer solver: the static (whole-horizon) problem as one Google OR-Tools CP-SAT model.

    python3 inrc2_cpsat.py --scenario Sc.txt --history H0.txt --weeks WD-a.txt WD-b.txt ... \
        --out DIR --time-limit SECONDS --workers N [--seed S] [--exact]
    python3 inrc2_cpsat.py --selftest [--time-limit SECONDS] [--workers N] [--seed S]

It writes the best solution found as one competition solution file per week,
`Sol-<instance>-<wd>-<k>.txt`, and prints one JSON line:
{"status", "objective", "bound", "seconds", "files", ...}. "objective" is the INRC-II cost of
the written roster (the model's objective with every penalty at its exact value); "bound" is
CP-SAT's lower bound; "solver_objective" is CP-SAT's own ObjectiveValue() (can be higher, see
solve()). "seconds" includes reading and building the model ("build_seconds"); the time limit
applies to the CP-SAT search only. Without a feasible solution it writes no files (status
says why) and still exits 0.

Model (file formats, constraints and border rules as in shared/benchmarks/inrc2/README.md):
* x[n,d,s,k] = nurse n works shift type s on day d covering skill k; only created for the
  nurse's own skills (H4). H1: at most one x per nurse and day. H2: coverage >= minimum (hard).
  H3: forbidden successions, including the history's last shift type before day 0.
* S1: 30 * max(0, optimal - max(assigned, minimum)) per (day, type, skill); H2 being hard,
  this is 30 * max(0, optimal - assigned).
* S2/S3 sequences (same shift type 15, working days 30, days off 30), per nurse, with the
  history's running sequence continued at day 0:
  - above the maximum: one indicator per day d, true iff the max+1 days ending on d are all
    in the state (days before the horizon taken from the history's count): cost per day;
  - below the minimum: one indicator per possible short run (state starts on b, lasts l < min
    days, then ends inside the horizon): cost (min - l) once; a run reaching the last day is
    never short. A history run that ends on day 0 (or later) is charged for min - (h + l).
* S4 10 per unmet shift-off request, S5 30 per incomplete weekend, S6 20 per assignment outside
  the contract's total (history count included), S7 30 per working weekend above the maximum
  (history count included).
Penalty variables are bounded from below by their definitions (a clause per pattern, a linear
inequality per count), which minimisation makes tight; --exact defines them by equivalences
instead (a bigger model, slower to presolve on n120w8). Either way the written roster is priced
exactly; --selftest checks that on random rosters against scripts/inrc2_reference.py.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
W_S1, W_S2_TYPE, W_S2_WORK, W_S3, W_S4, W_S5, W_S6, W_S7 = 30, 15, 30, 30, 10, 30, 20, 30


# ---------------------------------------------------------------------------------------------
# Parsing (own small parser; same formats as the competition files)

def _tokens_lines(path):
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("\r", "")
    return [l.strip() for l in text.split("\n") if l.strip()]


def _pair(tok):
    a, b = tok.strip("()").split(",")
    return int(a), int(b)


def parse_scenario(path):
    lines = _tokens_lines(path)
    sc = {"name": None, "skills": [], "types": [], "bounds": {}, "forbidden": {},
          "contracts": {}, "nurses": []}
    i = 0
    while i < len(lines):
        line = lines[i]
        key = line.split("=")[0].strip() if "=" in line else line
        if key == "SCENARIO":
            sc["name"] = line.split("=", 1)[1].strip()
        elif key == "WEEKS":
            sc["weeks"] = int(line.split("=")[1])
        elif key == "SKILLS":
            n = int(line.split("=")[1])
            sc["skills"] = [l.split()[0] for l in lines[i + 1:i + 1 + n]]
            i += n
        elif key == "SHIFT_TYPES":
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                name, b = l.split()[:2]
                sc["types"].append(name)
                sc["bounds"][name] = _pair(b)
            i += n
        elif key == "FORBIDDEN_SHIFT_TYPES_SUCCESSIONS":
            n = len(sc["types"])
            for l in lines[i + 1:i + 1 + n]:
                p = l.split()
                sc["forbidden"][p[0]] = p[2:2 + int(p[1])]
            i += n
        elif key == "CONTRACTS":
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                p = l.split()
                sc["contracts"][p[0]] = {"total": _pair(p[1]), "work": _pair(p[2]),
                                         "off": _pair(p[3]), "max_we": int(p[4]),
                                         "complete": int(p[5]) == 1}
            i += n
        elif key == "NURSES":
            n = int(line.split("=")[1])
            for l in lines[i + 1:i + 1 + n]:
                p = l.split()
                sc["nurses"].append({"name": p[0], "contract": p[1],
                                     "skills": p[3:3 + int(p[2])]})
            i += n
        i += 1
    return sc


def parse_history(path):
    lines = _tokens_lines(path)
    hist = {}
    for l in lines[lines.index("NURSE_HISTORY") + 1:]:
        p = l.split()
        if len(p) < 7:
            continue
        hist[p[0]] = {"assign": int(p[1]), "we": int(p[2]),
                      "last": None if p[3] == "None" else p[3],
                      "cons_type": int(p[4]), "cons_work": int(p[5]), "cons_off": int(p[6])}
    return hist


def parse_week(path):
    lines = _tokens_lines(path)
    req = []          # (type, skill, day, minimum, optimal)
    i = lines.index("REQUIREMENTS") + 1
    while i < len(lines) and not lines[i].startswith("SHIFT_OFF_REQUESTS"):
        p = lines[i].split()
        for d in range(7):
            lo, opt = _pair(p[2 + d])
            req.append((p[0], p[1], d, lo, opt))
        i += 1
    requests = []     # (nurse, type or "Any", day)
    if i < len(lines):
        n = int(lines[i].split("=")[1])
        for l in lines[i + 1:i + 1 + n]:
            p = l.split()
            requests.append((p[0], p[1], DAYS.index(p[2])))
    return req, requests


# ---------------------------------------------------------------------------------------------
# Model

def build_model(cp_model, sc, hist, weeks, hard=True, exact=False):
    """The CP-SAT model. Returns (model, x, terms); terms are the objective's terms
    (coefficient, variable, category, exact) where exact(value) computes the term's penalty
    units from the values of the roster's literals (value(literal) -> 0/1).

    exact=False (default): each penalty variable is only bounded from below by its definition
    (a clause or a linear inequality); minimisation pushes it down, and the written roster is
    priced with the exact() functions. exact=True: each penalty variable is defined by an
    equivalence (about 2.5 times more clauses; slower to presolve). hard=False leaves out H2
    and H3 (used by the self-test to price fixed, possibly infeasible rosters)."""
    m = cp_model.CpModel()
    H = 7 * len(weeks)
    types = sc["types"]
    T = range(len(types))
    tix = {t: i for i, t in enumerate(types)}
    nurses = sc["nurses"]
    terms = []
    cat = ["S2"]

    def AND(lits):
        """A penalty literal that is true if all lits are (and, if exact, only then)."""
        if len(lits) == 1:
            return lits[0]
        p = m.NewBoolVar("")
        if exact:
            m.AddBoolAnd(lits).OnlyEnforceIf(p)
        m.AddBoolOr([l.Not() for l in lits] + [p])
        return p

    def pattern(coef, lits):
        terms.append((coef, AND(lits), cat[0],
                      lambda value, lits=lits: int(all(value(l) for l in lits))))

    def excess(coef, expr_lits, const, ub):
        """Penalty units max(0, const + sum(expr_lits)) (expr_lits: (coefficient, literal)),
        at most ub."""
        e = m.NewIntVar(0, ub, "")
        expr = const + sum(c * l for c, l in expr_lits)
        if exact:
            m.AddMaxEquality(e, [0, expr])
        else:
            m.Add(e >= expr)
        terms.append((coef, e, cat[0], lambda value, el=expr_lits, k=const:
                      max(0, k + sum(c * value(l) for c, l in el))))

    def seq(z, h0, lo, hi, w):
        """Penalties of the runs of days where z is true (z[d] literal per day), given the
        history's running count h0 of that state (0 if the history is not in the state)."""
        # Above the maximum: each day d whose run length reaches hi+1 costs w.
        for d in range(H):
            start = d - hi
            if start >= 0:
                pattern(w, z[start:d + 1])
            elif h0 >= -start:
                pattern(w, z[0:d + 1])
        if lo <= 1:
            return
        # Below the minimum, history run: it has h0 days; it continues l days (l >= 0) and ends
        # on day l (which must be inside the horizon).
        if h0 > 0:
            for l in range(0, H):
                if h0 + l >= lo:
                    break
                pattern(w * (lo - h0 - l), z[0:l] + [z[l].Not()])
        # Below the minimum, runs starting inside the horizon on day b, lasting l < lo days
        # and ending before the last day.
        for b in range(H):
            if b == 0 and h0 > 0:
                continue
            for l in range(1, lo):
                if b + l > H - 1:
                    break
                pattern(w * (lo - l),
                        ([z[b - 1].Not()] if b > 0 else []) + z[b:b + l] + [z[b + l].Not()])

    x = {}               # (n, d, t, skill) -> BoolVar
    y = {}               # (n, d, t) -> BoolVar  (works type t)
    wk = {}              # (n, d) -> BoolVar      (works)
    for n, nu in enumerate(nurses):
        for d in range(H):
            for t in T:
                xs = []
                for k in nu["skills"]:
                    v = m.NewBoolVar(f"x_{n}_{d}_{t}_{k}")
                    x[n, d, t, k] = v
                    xs.append(v)
                y[n, d, t] = m.NewBoolVar(f"y_{n}_{d}_{t}")
                m.Add(sum(xs) == y[n, d, t])
            wk[n, d] = m.NewBoolVar(f"w_{n}_{d}")
            m.Add(sum(y[n, d, t] for t in T) == wk[n, d])       # H1 (w is boolean)

    # H3: forbidden successions, including history -> day 0.
    for n, nu in enumerate(nurses):
        if not hard:
            break
        last = hist[nu["name"]]["last"]
        if last is not None:
            for t2 in sc["forbidden"].get(last, []):
                m.Add(y[n, 0, tix[t2]] == 0)
        for t1 in types:
            for t2 in sc["forbidden"].get(t1, []):
                for d in range(1, H):
                    m.AddBoolOr([y[n, d - 1, tix[t1]].Not(), y[n, d, tix[t2]].Not()])

    # H2 and S1 per (day, type, skill). S1 = max(0, optimal - max(assigned, minimum)); with H2
    # hard that is max(0, optimal - assigned), at most optimal - minimum.
    cat[0] = "S1"
    for wi, (req, _) in enumerate(weeks):
        for t, k, dd, lo, opt in req:
            d = 7 * wi + dd
            cover = [x[n, d, tix[t], k] for n in range(len(nurses)) if (n, d, tix[t], k) in x]
            if lo > 0 and hard:
                m.Add(sum(cover) >= lo)
            if opt <= lo:
                continue
            if hard:
                excess(W_S1, [(-1, v) for v in cover], opt, opt - lo)
            else:
                u = m.NewIntVar(0, opt - lo, "")       # (pricing only) min(opt - lo, u1)
                u1 = m.NewIntVar(0, opt, "")
                m.AddMaxEquality(u1, [0, opt - sum(cover)])
                m.AddMinEquality(u, [u1, opt - lo])
                terms.append((W_S1, u, "S1", lambda value, cv=cover, o=opt, l=lo:
                              max(0, o - max(l, sum(value(v) for v in cv)))))

    # S4 shift-off requests.
    for wi, (_, requests) in enumerate(weeks):
        for name, t, dd in requests:
            n = next(i for i, nu in enumerate(nurses) if nu["name"] == name)
            v = wk[n, 7 * wi + dd] if t == "Any" else y[n, 7 * wi + dd, tix[t]]
            terms.append((W_S4, v, "S4", lambda value, v=v: value(v)))

    for n, nu in enumerate(nurses):
        h = hist[nu["name"]]
        c = sc["contracts"][nu["contract"]]
        # S2: same shift type.
        cat[0] = "S2"
        for t in T:
            h0 = h["cons_type"] if h["last"] == types[t] else 0
            lo, hi = sc["bounds"][types[t]]
            seq([y[n, d, t] for d in range(H)], h0, lo, hi, W_S2_TYPE)
        # S2: working days; S3: days off.
        work_h0 = h["cons_work"] if h["cons_work"] > 0 else 0
        off_h0 = h["cons_off"] if h["cons_work"] == 0 else 0
        seq([wk[n, d] for d in range(H)], work_h0, c["work"][0], c["work"][1], W_S2_WORK)
        cat[0] = "S3"
        seq([wk[n, d].Not() for d in range(H)], off_h0, c["off"][0], c["off"][1], W_S3)
        # S5 complete weekends, S7 working weekends.
        cat[0] = "S5"
        wes = []
        for wi in range(len(weeks)):
            sat, sun = wk[n, 7 * wi + 5], wk[n, 7 * wi + 6]
            we = m.NewBoolVar("")               # worked weekend: exactly sat or sun
            m.AddBoolOr([sat, sun, we.Not()])
            m.AddImplication(sat, we)
            m.AddImplication(sun, we)
            wes.append(we)
            if c["complete"]:
                pattern(W_S5, [sat, sun.Not()])
                pattern(W_S5, [sat.Not(), sun])
        cat[0] = "S7"
        over_we = h["we"] + len(weeks) - c["max_we"]
        if over_we > 0:
            excess(W_S7, [(1, v) for v in wes], h["we"] - c["max_we"], over_we)
        # S6 total assignments.
        cat[0] = "S6"
        lo, hi = c["total"]
        days = [(1, wk[n, d]) for d in range(H)]
        if h["assign"] + H > hi:
            excess(W_S6, days, h["assign"] - hi, h["assign"] + H - hi)
        if lo - h["assign"] > 0:
            excess(W_S6, [(-1, v) for _, v in days], lo - h["assign"], lo - h["assign"])

    m.Minimize(sum(c * v for c, v, _, _ in terms))
    return m, x, terms


def price(terms, value):
    """Exact cost per category of a roster, from the values of its literals."""
    cats = {}
    for c, _, k, f in terms:
        cats[k] = cats.get(k, 0) + c * f(value)
    return dict(sorted(cats.items()))


def week_file_ids(path):
    m = re.match(r"WD-(.+)-(\d+)\.txt$", os.path.basename(path))
    if not m:
        sys.exit(f"{path}: week file name is not WD-<instance>-<n>.txt")
    return m.group(1), m.group(2)


def solve(args):
    from ortools.sat.python import cp_model
    t0 = time.time()
    sc = parse_scenario(args.scenario)
    hist = parse_history(args.history)
    weeks = [parse_week(w) for w in args.weeks]
    model, x, terms = build_model(cp_model, sc, hist, weeks, exact=args.exact)
    build_seconds = time.time() - t0
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(args.time_limit)
    solver.parameters.num_workers = int(args.workers)
    solver.parameters.random_seed = int(args.seed)

    class Progress(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.trace = []        # (seconds since the solver started, solver objective)

        def on_solution_callback(self):
            self.trace.append((round(self.WallTime(), 2), int(round(self.ObjectiveValue()))))

    progress = Progress()
    status = solver.Solve(model, progress)
    name = solver.StatusName(status)
    out = {"status": name, "objective": None, "bound": None,
           "seconds": None, "files": []}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # "objective" is the model's objective on the returned roster with every penalty at
        # its exact value (= the INRC-II cost of the written files). CP-SAT's own
        # ObjectiveValue() can be higher: penalty variables are only bounded from below, and
        # even with --exact, CP-SAT 9.15 with presolve on was seen to report more than the
        # cost of the assignment it returns (15425 against 15345 on n030w4; with
        # cp_model_presolve=False they agreed). It is reported as solver_objective.
        cats = price(terms, solver.BooleanValue)
        out["objective"] = sum(cats.values())
        out["bound"] = int(round(solver.BestObjectiveBound()))
        out["solver_objective"] = int(round(solver.ObjectiveValue()))
        out["soft"] = dict(sorted(cats.items()))
        roster = {(n, d): (sc["types"][t], k)
                  for (n, d, t, k), v in x.items() if solver.BooleanValue(v)}
        os.makedirs(args.out, exist_ok=True)
        out["files"] = write_solutions(sc, args.weeks, roster, args.out)
    else:
        out["status"] = name if name != "UNKNOWN" else "UNKNOWN (no feasible solution within the limit)"
    out["seconds"] = round(time.time() - t0, 3)
    out["build_seconds"] = round(build_seconds, 3)
    out["solutions"] = len(progress.trace)
    out["first_solution"] = progress.trace[0] if progress.trace else None
    out["solver_wall_time"] = round(solver.WallTime(), 3)
    return out


# ---------------------------------------------------------------------------------------------
# Self-test: price random rosters and solve two instances briefly; compare with the project's
# reference scorer (scripts/inrc2_reference.py, run as a separate program).

SELFTEST = [("n005w4", "0", ["1", "2", "3", "3"]), ("n030w4", "1", ["6", "2", "9", "1"])]
PRICING = ["n005w4", "n012w8", "n021w4", "n030w4", "n040w8"]


def write_solutions(sc, weeks_paths, roster, out):
    """roster[(nurse index, day)] = (type, skill); one competition file per week."""
    files = []
    for k, wpath in enumerate(weeks_paths):
        inst, wd = week_file_ids(wpath)
        rows = [f"{sc['nurses'][n]['name']} {DAYS[d]} {roster[n, 7 * k + d][0]} "
                f"{roster[n, 7 * k + d][1]}"
                for d in range(7) for n in range(len(sc["nurses"])) if (n, 7 * k + d) in roster]
        path = os.path.join(out, f"Sol-{inst}-{wd}-{k}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"SOLUTION\n{k} {sc['name']}\n\nASSIGNMENTS = {len(rows)}\n")
            f.write("".join(r + "\n" for r in rows))
        files.append(path)
    return files


def random_roster(rng, sc, hist, H):
    """Blocks of work and rest of random lengths (1..9), and within work blocks runs of one
    shift type (1..8), so that runs below, at and above every bound occur, also at the
    horizon's borders."""
    roster = {}
    for n, nu in enumerate(sc["nurses"]):
        working = hist[nu["name"]]["cons_work"] > 0 and rng.random() < 0.6
        d = 0
        t = hist[nu["name"]]["last"] or rng.choice(sc["types"])
        while d < H:
            length = rng.randint(1, 9)
            if working:
                left = 0
                for dd in range(d, min(H, d + length)):
                    if left == 0:
                        t, left = (t if dd == d and rng.random() < 0.5 else rng.choice(sc["types"])), rng.randint(1, 8)
                    roster[n, dd] = (t, rng.choice(nu["skills"]))
                    left -= 1
            d += length
            working = not working
    return roster


def price_fixed(cp_model, sc, hist, weeks, roster):
    """Cost per category that the model (without H2/H3) gives a fixed roster."""
    results = []
    for exact in (False, True):
        m, x, terms = build_model(cp_model, sc, hist, weeks, hard=False, exact=exact)
        for (n, d, t, k), v in x.items():
            m.Add(v == (1 if roster.get((n, d)) == (sc["types"][t], k) else 0))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        status = solver.Solve(m)
        if status != cp_model.OPTIMAL:
            return None
        cats = price(terms, solver.BooleanValue)
        # The model's minimum over its penalty variables must be that exact price too.
        if int(round(solver.ObjectiveValue())) != sum(cats.values()):
            cats["model_minimum"] = int(round(solver.ObjectiveValue()))
        results.append(cats)
    return results[0] if results[0] == results[1] else {"one_sided": results[0], "exact": results[1]}


def s1_new(sc, weeks, roster):
    """S1 with the corrected definition, max(0, optimal - max(assigned, minimum))."""
    total = 0
    for wi, (req, _) in enumerate(weeks):
        for t, k, dd, lo, opt in req:
            have = sum(1 for n in range(len(sc["nurses"])) if roster.get((n, 7 * wi + dd)) == (t, k))
            total += W_S1 * max(0, opt - max(have, lo))
    return total


def selftest(args):
    with tempfile.TemporaryDirectory(prefix="inrc2-cpsat-selftest-") as tmp:
        return _selftest(args, tmp)


def _selftest(args, tmp):
    import random
    from ortools.sat.python import cp_model
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.environ.get("INRC2_DATA", os.path.normpath(os.path.join(here, "..", "inrc2")))
    reference = os.path.normpath(os.path.join(here, "..", "..", "scripts", "inrc2_reference.py"))
    ok = True
    # Part 1: price random fixed rosters (all three histories) with the model and with the
    # reference scorer, category by category (S1 as max(0, optimal - max(assigned, minimum))).
    rng = random.Random(args.seed)
    checked, mismatches = 0, []
    for inst in PRICING:
        d = os.path.join(data, inst)
        scp = os.path.join(d, f"Sc-{inst}.txt")
        sc = parse_scenario(scp)
        for h in "012":
            hp = os.path.join(d, f"H0-{inst}-{h}.txt")
            hist = parse_history(hp)
            for _ in range(2):
                wps = [os.path.join(d, f"WD-{inst}-{rng.randint(0, 9)}.txt") for _ in range(sc["weeks"])]
                weeks = [parse_week(w) for w in wps]
                roster = random_roster(rng, sc, hist, 7 * len(weeks))
                mine = price_fixed(cp_model, sc, hist, weeks, roster)
                files = write_solutions(sc, wps, roster, tempfile.mkdtemp(dir=tmp))
                ref = subprocess.run([sys.executable, reference, "--scenario", scp, "--history", hp,
                                      "--weeks", *wps, "--solutions", *files],
                                     capture_output=True, text=True, check=True)
                r = json.loads(ref.stdout)["soft"]
                r["S1"] = s1_new(sc, weeks, roster)
                checked += 1
                if mine is None or set(mine) - set(r) or any(mine.get(k, 0) != r[k] for k in r):
                    mismatches.append({"instance": inst, "history": h, "weeks": wps,
                                       "model": mine, "reference": r})
    print(json.dumps({"priced_random_rosters": checked, "mismatches": mismatches[:3],
                      "ok": not mismatches}))
    ok = not mismatches
    # Part 2: solve two instances briefly; the written files must be valid and the reference
    # total must equal the reported objective.
    for inst, h, wds in SELFTEST:
        d = os.path.join(data, inst)
        a = argparse.Namespace(scenario=os.path.join(d, f"Sc-{inst}.txt"),
                               history=os.path.join(d, f"H0-{inst}-{h}.txt"),
                               weeks=[os.path.join(d, f"WD-{inst}-{w}.txt") for w in wds],
                               out=tempfile.mkdtemp(dir=tmp),
                               time_limit=args.time_limit, workers=args.workers, seed=args.seed,
                               exact=args.exact)
        res = solve(a)
        line = {"instance": f"{inst}_{h}_{'-'.join(wds)}", "status": res["status"],
                "objective": res["objective"]}
        if not res["files"]:
            line["ok"] = False
            ok = False
            print(json.dumps(line))
            continue
        ref = subprocess.run([sys.executable, reference, "--scenario", a.scenario,
                              "--history", a.history, "--weeks", *a.weeks,
                              "--solutions", *res["files"]],
                             capture_output=True, text=True, check=True)
        r = json.loads(ref.stdout)
        line.update({"reference_total": r["total"], "reference_hard": r["hard"],
                     "reference_soft": r["soft"]})
        line["ok"] = sum(r["hard"].values()) == 0 and r["total"] == res["objective"]
        ok = ok and line["ok"]
        print(json.dumps(line))
    print(json.dumps({"selftest": "pass" if ok else "FAIL"}))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario")
    ap.add_argument("--history")
    ap.add_argument("--weeks", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exact", action="store_true",
                    help="define every penalty variable by an equivalence instead of a lower "
                         "bound (bigger model; same costs)")
    ap.add_argument("--selftest", action="store_true",
                    help="solve n005w4 (H0; 1 2 3 3) and n030w4 (H1; 6 2 9 1) briefly and check "
                         "the output with scripts/inrc2_reference.py")
    a = ap.parse_args()
    if a.selftest:
        if a.time_limit is None:
            a.time_limit = 10.0
        sys.exit(selftest(a))
    missing = [o for o in ("scenario", "history", "weeks", "out", "time_limit")
               if getattr(a, o) is None]
    if missing:
        ap.error("missing: " + ", ".join("--" + o.replace("_", "-") for o in missing))
    print(json.dumps(solve(a)))


if __name__ == "__main__":
    main()
