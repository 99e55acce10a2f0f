#!/usr/bin/env python3
"""Model-guided GeST against plain GeST offline, on the 20-minute reference searches (no GPU).

For each tests/data/reference_NAME_h100.tsv.xz: trains a model that never saw NAME (`stencilc model
train --exclude NAME` on DATA, the features of the recordings and references: bench/model.sh's
WORKDIR), then runs GeST (tests/driver/gest_locality.c) for the share of the reference's first-60 s
proposals that FRACTION of its time allows, each proposal answered from the reference (one it lacks
counts as failed, as in replay), plain and guided by the model (MODEL=..., tuner/guide.h: the model
ranks three times the proposals measured and gives the starting configurations). Prints per
stencil the geometric mean over seeds of best found / the reference's best and the seeds within 5%.

Measured proposals are the clock here: a guided run measures as many variants as the plain one,
while the model scores three times as many (each a plan and a feature vector, about a millisecond).

    sh bench/model.sh build/driver/stencilc /tmp/model tests/data/replay_*_h100.tsv
    python3 bench/model_gest.py build/driver/stencilc build/tests/driver/gest_locality \\
        /tmp/model/recordings.tsv --seeds 3
"""
import argparse
import glob
import lzma
import math
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN = ["--clip", "1", "--min-leaf", "5", "--depth", "6", "--trees", "200"]


def run_gest(tool, stencil, log, n, seed, model):
    env = dict(os.environ, UNMEASURED="invalid", STC_SOURCE_ROOT=ROOT)
    env.pop("MODEL", None)
    if model:
        env["MODEL"] = model
    out = subprocess.run([tool, stencil, log, str(n), str(seed)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return float(re.search(r"best ([0-9.e+]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stencilc")
    ap.add_argument("tool")
    ap.add_argument("data", nargs="+")
    ap.add_argument("--fraction", type=float, default=1 / 3, help="of the reference's first 60 s (1/3: 20 s)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    print(f"| stencil | proposals in {60 * a.fraction:.0f} s | GeST | GeST guided by the model | "
          "GeST, 60 s |")
    print("|---|---:|---:|---:|---:|")
    within = {"plain": 0, "guided": 0, "plain60": 0}
    logs = {"plain": [], "guided": [], "plain60": []}
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for ref in sorted(glob.glob(os.path.join(ROOT, "tests/data/reference_*_h100.tsv.xz"))):
            name = re.match(r"reference_(.+)_h100\.tsv\.xz$", os.path.basename(ref)).group(1)
            if a.only and name not in a.only.split(","):
                continue
            with lzma.open(ref, "rt") as f:
                text = f.read()
            head = dict(kv.split("=", 1) for kv in text.split("\n", 1)[0].split("\t")[1:])
            best, in60 = float(head["best_ms"]), int(head["short_variants"])
            log = os.path.join(tmp, name + ".tsv")
            with open(log, "w") as f:
                f.write(text)
            model = os.path.join(tmp, f"model_{name}.txt")
            subprocess.run([a.stencilc, "model", "train", *TRAIN, "--exclude", name, "-o", model, *a.data],
                           check=True, capture_output=True)
            stencil = os.path.join(ROOT, "examples", "bench", name + ".st")
            n = max(16, int(in60 * a.fraction))
            cells = []
            for key, m, nn in (("plain", None, n), ("guided", model, n), ("plain60", None, in60)):
                r = [run_gest(a.tool, stencil, log, nn, s, m) / best for s in range(1, a.seeds + 1)]
                g = math.exp(sum(math.log(x) for x in r) / len(r))
                ok = sum(x <= 1.05 for x in r)
                within[key] += ok == len(r)
                logs[key].append(math.log(g))
                cells.append(f"{g:.3f} ({ok}/{len(r)})")
            count += 1
            print(f"| {name} | {n} | " + " | ".join(cells) + " |", flush=True)
    gm = {k: math.exp(sum(v) / len(v)) for k, v in logs.items() if v}
    print(f"\nevery seed within 5% of the reference: GeST {within['plain']}, guided {within['guided']}, "
          f"GeST at 60 s {within['plain60']} of {count}; geometric means {gm.get('plain', 0):.3f}, "
          f"{gm.get('guided', 0):.3f}, {gm.get('plain60', 0):.3f}")


if __name__ == "__main__":
    main()
