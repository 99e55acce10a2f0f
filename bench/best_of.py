#!/usr/bin/env python3
"""The best known one-step configurations of each program, float, as "NAME CONFIG" lines for
bench/model_live.sh's BEST_OF: the 20-minute reference searches' best (the "quality" section) and
the suite's tuned configurations (bench/results.json, bench/h200/results.json by default).

    python3 bench/best_of.py [RESULTS.json...] > best_of.txt
"""
import json
import sys


def configs(paths):
    best = {}
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        for key, q in (d.get("quality") or {}).items():
            name, typ = key.split("/")
            if typ == "float":
                best.setdefault(name, []).append(q.get("long_config"))
        for r in d.get("rows", []):
            if r.get("type") != "float" or (r.get("kind") == "bench" and r.get("steps") != 1):
                continue
            best.setdefault(r.get("stencil") or r["name"], []).append((r.get("tuned") or {}).get("config"))
    for name in sorted(best):
        seen = []
        for c in best[name]:
            if c and "tblock" not in c and c not in seen:
                seen.append(c)
                print(name, c)


if __name__ == "__main__":
    configs(sys.argv[1:] or ["bench/results.json", "bench/h200/results.json"])
