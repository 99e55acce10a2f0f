#!/usr/bin/env python3
"""Adds the convergence entries of other results.json files to one results.json, strategy by
strategy: a device call has at most 10 minutes, so a 10-seed comparison across the benchmarks is
measured in pieces (`bench/suite.py --convergence NAMES --strategies S --out DIR` per call).

    python3 bench/merge_convergence.py bench/results.json PIECE/results.json [PIECE2/suite.log ...]

Later pieces win: for each stencil and strategy in a piece, its runs replace those already in
the target, but a strategy whose runs were cut short (an entry with an error like "not run
(--max-minutes ...)") never replaces a complete one. Only the "convergence" key changes, and
the pieces' run records (meta.runs: command, date, host) are added to the target's.

A piece whose name ends in .log is a suite log: its per-run lines are read instead (`convergence NAME STRATEGY
seed K: N variants, best X ms/step`), for a piece whose results.json was lost: those runs carry
the final best and the variant count, not the curve; they are marked `"from_log": true`.
"""
import argparse
import json
import os
import re
import sys

LINE = re.compile(r"convergence (\S+) (\S+) seed (\d+): (\d+) variants, best ([0-9.eE+-]+) ms/step")


def complete(runs):
    return bool(runs) and not any("error" in r for r in runs)


def add(target, piece, say):
    for key, entry in piece.get("convergence", {}).items():
        have = target.setdefault(key, {"strategies": {}})
        for strat, se in entry.get("strategies", {}).items():
            runs = se.get("runs", [])
            old = have.get("strategies", {}).get(strat, {}).get("runs", [])
            if not complete(runs) and complete(old):
                say(f"{key} {strat}: kept the complete runs already there ({len(old)}), not this piece's")
                continue
            if not runs:
                continue
            if have.get("budget") not in (None, entry.get("budget")):
                # One entry is one budget: a piece at another budget starts the entry afresh.
                say(f"{key}: budget {have.get('budget')} -> {entry.get('budget')}; earlier strategies dropped")
                have.clear()
                have["strategies"] = {}
            for k in ("budget", "seeds", "steps"):
                if k in entry:
                    have[k] = entry[k]
            have.setdefault("strategies", {})[strat] = {"runs": runs}
            say(f"{key} {strat}: {sum('error' not in r for r in runs)} of {len(runs)} runs")


def from_log(path, budget, typ):
    piece = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            name, strat, seed, nvar, best = m.groups()
            e = piece.setdefault(f"{name}/{typ}", {"budget": budget, "steps": 1, "strategies": {}})
            runs = e["strategies"].setdefault(strat, {"runs": []})["runs"]
            runs.append({"seed": int(seed), "variants": int(nvar), "best_ms": float(best), "from_log": True})
    for e in piece.values():
        e["seeds"] = max(len(s["runs"]) for s in e["strategies"].values())
    return {"convergence": piece}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target", help="the results.json to add to (rewritten in place)")
    ap.add_argument("pieces", nargs="+", help="results.json files (or suite logs) of the pieces, oldest first")
    ap.add_argument("--log-budget", default="4s", help="the --convergence-budget of the runs in a suite log")
    ap.add_argument("--log-type", default="float")
    a = ap.parse_args()
    with open(a.target) as f:
        res = json.load(f)
    conv = res.setdefault("convergence", {})
    say = lambda s: print(s, file=sys.stderr)  # noqa: E731
    for p in a.pieces:
        if p.endswith(".log"):
            add(conv, from_log(p, a.log_budget, a.log_type), say)
        else:
            with open(p) as f:
                piece = json.load(f)
            add(conv, piece, say)
            runs = res.setdefault("meta", {}).setdefault("runs", [])
            runs += [r for r in piece.get("meta", {}).get("runs", []) if r not in runs]
    tmp = a.target + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1)
    os.replace(tmp, a.target)


if __name__ == "__main__":
    main()
