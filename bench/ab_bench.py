#!/usr/bin/env python3
"""Two stencilc binaries side by side on the same kernels, in one run on one GPU: the tuned
configurations of bench/results.json (the one-step rows, float and double, and the float
multi-step table), each timed with `stencilc bench --config C` by the old binary and the new one
in turns (ROUNDS rounds, old first then new first), so that a change of the code generator shows
as a ratio measured on one machine at one time. No tuning: the same configuration both times.

    python3 bench/ab_bench.py OLD_STENCILC NEW_STENCILC [--rounds 2] [--only star2d1r,...]
                              [--tables onestep,multistep] [--max-minutes 9]

Prints one line per kernel (GStencil/s of each, new / old) and the geometric mean and range of
the ratios; exits 1 when a kernel fails in one binary and not the other."""
import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def grid_of(grid, dims):
    """The --grid text of a program of dims axes (a 2D program refuses a third size)."""
    return "x".join(grid.split("x")[:dims])


def kernels(results, tables, only):
    """(label, file, type, config, grid, steps) of the tuned kernels the tables hold."""
    out = []
    if "onestep" in tables:
        for r in results["rows"]:
            if r["kind"] == "bench" and r.get("tuned") and (not only or r["name"] in only):
                out.append((f"{r['name']}/{r['type']}/1", r["file"], r["type"], r["tuned"]["config"],
                            grid_of(r["tuned"]["grid"], r["dims"]), 1))
    if "multistep" in tables:
        for name, m in sorted(results.get("multistep", {}).get("float", {}).items()):
            t = m.get("tuned")
            if t and (not only or name in only):
                out.append((f"{name}/float/{m['steps']}", f"examples/bench/{name}.st", "float", t["config"],
                            grid_of(t["grid"], m["dims"]), m["steps"]))
    return out


def bench(binary, k):
    _, path, typ, config, grid, steps = k
    cmd = [binary, "bench", os.path.join(ROOT, path), "--type", typ, "--config", config, "--grid", grid,
           "--steps", str(steps), "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    res = benchlib.parse_bench(p.stdout, p.stderr)
    return res["gst"] if p.returncode == 0 and res else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--tables", default="onestep,multistep")
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results.json"))
    ap.add_argument("--max-minutes", type=float, default=9)
    a = ap.parse_args()
    results = json.load(open(a.results))
    ks = kernels(results, a.tables.split(","), set(filter(None, a.only.split(","))))
    deadline = time.time() + 60 * a.max_minutes
    ratios, broken = [], 0
    print(f"{'kernel':28} {'old':>9} {'new':>9} {'new/old':>8}  config")
    for k in ks:
        if time.time() > deadline:
            print(f"stopped at --max-minutes {a.max_minutes}: {len(ratios)} of {len(ks)} measured")
            break
        runs = {"old": [], "new": []}
        for r in range(a.rounds):
            for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                runs[side].append(bench(a.old if side == "old" else a.new, k))
        best = {s: max((v for v in runs[s] if v), default=None) for s in runs}
        if best["old"] is None or best["new"] is None:
            broken += (best["old"] is None) != (best["new"] is None)
            print(f"{k[0]:28} {best['old'] or 'failed':>9} {best['new'] or 'failed':>9}           {k[3]}")
            continue
        ratio = best["new"] / best["old"]
        ratios.append(ratio)
        print(f"{k[0]:28} {best['old']:9.1f} {best['new']:9.1f} {ratio:8.3f}  {k[3]}")
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{len(ratios)} kernels: new/old geometric mean {gm:.3f}, range {min(ratios):.3f} .. {max(ratios):.3f}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
