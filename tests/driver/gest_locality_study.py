#!/usr/bin/env python3
"""GeST's knobs compared offline on every 20-minute reference's measurements (no GPU).

For each tests/data/reference_NAME_h100.tsv.xz (a reference search's measurements, written by
`bench/longsearch.py reference`), runs gest_locality (tests/driver/gest_locality.c) for as many
proposals as the reference's own search measured in its first 60 s, over SEEDS seeds and each
knob setting, each proposal answered from the reference (UNMEASURED=invalid: one it lacks counts
as a failed variant, as in replay). Prints a Markdown table: per stencil and setting, the
geometric mean over seeds of best found / the reference's best, and how many seeds came within
5% of it.

The reference is a long GeST search of the default settings, so it holds more of what the default
proposes than of what another setting proposes: the comparison leans towards the default.

    ninja -C build-dev tests/driver/gest_locality
    python3 tests/driver/gest_locality_study.py build-dev/tests/driver/gest_locality \
        [--seeds 10] [--settings 'default=;balance=balance=1;nopriors=priors=0;...']
"""
import argparse
import glob
import lzma
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SETTINGS = ("default=;balance=balance=1;"
                    "nopriors=priors=0;nopriors-balance=priors=0,balance=1")


def reference_log(reference, path):
    """Writes a reference's measurements, decompressed, to path (what gest_locality reads);
    returns the reference's best ms and how many variants its search measured in its first 60 s."""
    with lzma.open(reference, "rt", encoding="utf-8") as f:
        text = f.read()
    head = dict(kv.split("=", 1) for kv in text.split("\n", 1)[0].split("\t")[1:])
    if not text.startswith("#stencilc-reference") or head.get("short") != "60s":
        sys.exit(f"gest_locality_study: {os.path.basename(reference)} is not a reference of 60 s")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return float(head["best_ms"]), int(head["short_variants"])


def run(tool, stencil, logpath, n, seed, knobs):
    env = dict(os.environ, UNMEASURED="invalid", STC_SOURCE_ROOT=ROOT, GEST=knobs)
    if not knobs:
        env.pop("GEST")
    out = subprocess.run([tool, stencil, logpath, str(n), str(seed)], env=env, check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"(\d+) answered by the log.*best ([0-9.e+]+) ms", out)
    return int(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--settings", default=DEFAULT_SETTINGS)
    ap.add_argument("--only", default="", help="comma-separated stencil names")
    ap.add_argument("--check", type=float, default=0,
                    help="exit 1 unless every seed of every setting finds a configuration within "
                         "this factor of the log's best (e.g. 1.05); a test of the priors and GeST")
    a = ap.parse_args()
    misses = []
    settings = [s.split("=", 1) for s in a.settings.split(";") if s]
    names = [s[0] for s in settings]
    print("| stencil | proposals (its first 60 s) | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    ratios = {n: [] for n in names}
    for reference in sorted(glob.glob(os.path.join(ROOT, "tests/data/reference_*_h100.tsv.xz"))):
        name = re.match(r"reference_(.+)_h100\.tsv\.xz$", os.path.basename(reference)).group(1)
        if a.only and name not in a.only.split(","):
            continue
        with tempfile.TemporaryDirectory() as tmp:  # removed whatever fails inside
            logpath = os.path.join(tmp, name + ".tsv")
            best, in60 = reference_log(reference, logpath)
            cells = []
            for label, knobs in settings:
                got = [run(a.tool, os.path.join(ROOT, "examples/bench", name + ".st"), logpath, in60,
                           seed, knobs) for seed in range(1, a.seeds + 1)]
                r = [g[1] / best for g in got]
                if a.check:
                    misses += [f"{name} {label} seed {i + 1}: {x:.3f}"
                               for i, x in enumerate(r) if x > a.check]
                gm = math.exp(sum(map(math.log, r)) / len(r))
                ratios[label].append(gm)
                answered = sum(g[0] for g in got) / (len(got) * in60)
                cells.append(f"{gm:.3f} ({sum(x <= 1.05 for x in r)}/{len(r)}; {answered:.0%})")
        print(f"| {name} | {in60} | " + " | ".join(cells) + " |")
        sys.stdout.flush()
    gms = [math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan") for v in ratios.values()]
    print("| geometric mean | | " + " | ".join(f"{g:.3f}" for g in gms) + " |")
    # Pairs of settings that differ only in balance=1 (default/balance, nopriors/...-balance):
    # on how many stencils the second found a better mean best, and a worse one.
    for label, knobs in settings:
        for other, oknobs in settings:
            if oknobs.replace("balance=1", "").strip(",") == knobs and oknobs != knobs:
                better = sum(y < x - 1e-9 for x, y in zip(ratios[label], ratios[other]))
                worse = sum(y > x + 1e-9 for x, y in zip(ratios[label], ratios[other]))
                print(f"\n{other} against {label}: better on {better}, worse on {worse} "
                      f"of {len(ratios[label])}")
    if a.check:
        print(f"\n{len(misses)} runs beyond {a.check} of their reference's best" +
              "".join("\n  " + m for m in misses))
        return 1 if misses else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
