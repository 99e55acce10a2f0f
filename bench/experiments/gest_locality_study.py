#!/usr/bin/env python3
"""GeST's knobs compared offline on every 20-minute reference's log (no GPU).

For each bench/logs/longsearch-NAME-*.tar.gz, runs gest_locality (bench/experiments/
gest_locality.c) for as many proposals as the reference's own search measured in its first 60 s,
over SEEDS seeds and each knob setting, each proposal answered from the reference's log
(UNMEASURED=invalid: one the log lacks counts as a failed variant, as in replay); the log is the
legs joined, then the separate short run's log where the tarball has one. Prints a
Markdown table: per stencil and setting, the geometric mean over seeds of best found / the log's
best, and how many seeds came within 5% of it.

The log is a long GeST search of the default settings, so it holds more of what the default
proposes than of what another setting proposes: the comparison leans towards the default.

    ninja -C build-dev tests/driver/gest_locality
    python3 bench/experiments/gest_locality_study.py build-dev/tests/driver/gest_locality \
        [--seeds 10] [--settings 'default=;balance=balance=1;nopriors=priors=0;...']
"""
import argparse
import glob
import math
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib as bl  # noqa: E402
DEFAULT_SETTINGS = ("default=;balance=balance=1;"
                    "nopriors=priors=0;nopriors-balance=priors=0,balance=1")


def reference_log(tarball, path):
    """Writes a reference's legs, joined in order, to path (the tune log gest_locality reads);
    returns the log's best ms and how many variants the search measured in its first 60 s."""
    with tarfile.open(tarball) as t:
        members = [m for m in t.getmembers() if m.isfile()]
        legs = sorted((m for m in members if re.search(r"/leg\d+\.jsonl$", m.name)),
                      key=lambda m: m.name)
        if not legs:  # star2d2r's 12-minute search names its legs l1, l2
            legs = sorted((m for m in members if re.search(r"/l\d+\.jsonl$", m.name)),
                          key=lambda m: m.name)
        if not legs:
            sys.exit(f"gest_locality_study: {os.path.basename(tarball)} holds no leg logs (NAME/legN.jsonl)")
        # The separate short run's log after the legs: a kernel it measured that the search never
        # tried (box2d4r's float2 prior, newer than its first leg) is part of the reference's best.
        # gest_locality answers a configuration from its first line, so the legs' times come first.
        legs += [m for m in members if m.name.endswith("/short-run.jsonl")]
        texts = [t.extractfile(m).read().decode() for m in legs]
    with open(path, "w") as f:
        f.write("".join(text if text.endswith("\n") else text + "\n" for text in texts))
    with open(path + ".leg1", "w") as f:
        f.write(texts[0])
    in60 = sum(1 for r in bl.parse_tune_log_rows(path + ".leg1")
               if isinstance(r.get("elapsed_s"), (int, float)) and r["elapsed_s"] <= 60)
    os.unlink(path + ".leg1")
    return bl.best_by(bl.parse_tune_log_rows(path))[0], in60


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
    for tarball in sorted(glob.glob(os.path.join(ROOT, "bench/logs/longsearch-*-h100-*.tar.gz"))):
        name = re.match(r"longsearch-(.+)-h100-", os.path.basename(tarball)).group(1)
        if a.only and name not in a.only.split(","):
            continue
        with tempfile.TemporaryDirectory() as tmp:  # removed whatever fails inside
            logpath = os.path.join(tmp, name + ".jsonl")
            best, in60 = reference_log(tarball, logpath)
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
