#!/usr/bin/env python3
"""A long reference search for the tuning-quality target (#6: a 60 s search against one of 20
minutes), in legs, since a device call may run only 10 minutes.

    python3 bench/longsearch.py leg    --stencilc S --name star2d1r --work DIR --budget 570s
    python3 bench/longsearch.py leg    ...                              (resumes from the journal)
    python3 bench/longsearch.py finish --stencilc S --name star2d1r --work DIR [--short 60s]
                                       [--rounds 3] [--merge bench/results.json]
    python3 bench/longsearch.py merge  --work DIR --merge bench/results.json
    python3 bench/longsearch.py rest   --work DIR [--total 1200s]       (prints e.g. 135s)
    python3 bench/longsearch.py reference --work DIR --name star2d1r --gpu G --date D --out F.tsv.xz

`leg` runs one GeST search (`stencilc FILE --autotune --budget B --seed 1 --tune-db DIR/db
--tune-log DIR/legN.jsonl`). The first leg starts from an empty database; a later one deletes the
database's answer (the `.best` file) so that the search resumes from the journal: nothing
measured before is measured again, and the strategy learns from all of it. Its first `--short`
seconds are what a search with that budget does (same seed, same proposals), as in
`suite.py --quality`.

`finish` joins the legs (elapsed times offset by the legs before), takes the best of the first
`--short` seconds and the best of the whole search, and times both configurations again with
`stencilc bench --config` in turns (`--rounds`), since a search's best figure is the minimum of
many short noisy measurements; with `--short-run`, also what a separate run with the short
budget emits (its own search and re-timing of its best few, from an empty database). It writes DIR/summary.json and, with --merge, stores it in the
results file as the stencil's quality entry's `reference` (bench/report.py shows it); `merge`
does only that, for a summary brought back from the GPU machine. `rest` prints the search time
left of `--total` after the legs run so far (their `search_s`), the last leg's budget.

`reference` writes what the offline study of GeST (tests/driver/gest_locality_study.py) and the
test tuner_reference_logs read of a finished search: every configuration the legs and then the
separate short run measured ok, with its first time (CONFIG<TAB>ms, sorted), under a header that
names the GPU and date and holds the log's best time and how many variants the search measured
in its first `--short` seconds. With `.xz` at the end of `--out` the file is compressed.
"""
import argparse
import glob
import json
import lzma
import os
import shutil
import sys

import benchlib as bl


def legs_of(work):
    """The legs run so far, in order: [(index, log path, info dict)]."""
    out = []
    for info_path in glob.glob(os.path.join(work, "leg*.json")):
        base = os.path.basename(info_path)[3:-5]
        if base.isdigit():
            with open(info_path, encoding="utf-8") as f:
                out.append((int(base), os.path.join(work, f"leg{base}.jsonl"), json.load(f)))
    return sorted(out)


def target(name):
    found = bl.find_stencil(name)
    if not found:
        sys.exit(f"longsearch: no stencil named {name}")
    return found


def cmd_leg(a):
    label, path, stencil = target(a.name)
    os.makedirs(a.work, exist_ok=True)
    db = os.path.join(a.work, "db")
    legs = legs_of(a.work)
    n = legs[-1][0] + 1 if legs else 1
    if n == 1:
        shutil.rmtree(db, ignore_errors=True)
    for best in glob.glob(os.path.join(db, "*.best")):
        os.remove(best)  # the search resumes from the journal instead of answering from the database
    logf = os.path.join(a.work, f"leg{n}.jsonl")
    budget_s = bl.budget_seconds(a.budget) or 600
    cmd = [a.stencilc, path, *bl.stencil_args(stencil, a.type, a.steps), "--autotune",
           "--budget", a.budget, "--seed", str(a.seed), "-q", "--tune-db", db, "--tune-log", logf,
           "-o", os.path.join(a.work, f"leg{n}.cu")] + (["--gest", a.gest] if a.gest else [])
    r = bl.run(cmd, budget_s + 120, interrupt_first=True, grace=60)
    tl = bl.parse_tune_log(logf) or {}
    info = {"leg": n, "budget": a.budget, "rc": r.rc, "wall_s": round(r.wall, 1),
            "search_s": tl.get("search_s"), "variants": tl.get("variants", 0),
            "valid": tl.get("valid", 0), "best_ms": tl.get("best_ms")}
    if not r.ok():
        info["error"] = r.first_error()
    with open(os.path.join(a.work, f"leg{n}.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    print(f"longsearch {label} leg {n}: {info['variants']} variants in {info['search_s']} s, "
          f"best {info['best_ms']} ms" + (f", FAILED: {info['error']}" if "error" in info else ""))
    return 0 if r.ok() else 1


def cmd_finish(a):
    label, path, stencil = target(a.name)
    legs = legs_of(a.work)
    if not legs:
        sys.exit(f"longsearch: no legs in {a.work}")
    rows, offset = [], 0.0
    for _, logf, info in legs:
        for r in bl.parse_tune_log_rows(logf) or []:
            if isinstance(r.get("elapsed_s"), (int, float)):
                r = dict(r, elapsed_s=r["elapsed_s"] + offset)
            rows.append(r)
        offset += info.get("search_s") or 0.0
    short_s = bl.budget_seconds(a.short)
    long_best, short_best = bl.best_by(rows), bl.best_by(rows, short_s)
    if long_best[0] is None or short_best[0] is None:
        sys.exit("longsearch: no valid variant in the legs' logs")
    summary = {"name": label, "type": a.type, "steps": a.steps, "seed": a.seed,
               "legs": [info for _, _, info in legs], "search_s": round(offset, 1),
               "variants": len(rows), "short": a.short,
               "long_best_ms": long_best[0], "long_config": long_best[1], "long_found_s": long_best[2],
               "short_best_ms": short_best[0], "short_config": short_best[1],
               "short_found_s": short_best[2], "ratio_search": short_best[0] / long_best[0]}
    extra = bl.stencil_args(stencil, a.type, a.steps)
    configs = [short_best[1], long_best[1]]
    if a.short_run:
        # What a user's run with the short budget emits: its own search, then its re-timing of
        # its best few, from an empty database.
        db = os.path.join(a.work, "short-db")
        shutil.rmtree(db, ignore_errors=True)
        r = bl.run([a.stencilc, "bench", path, *extra, "--autotune", "--budget", a.short, "--seed", str(a.seed),
                    "-q", "--tune-db", db, "--tune-log", os.path.join(a.work, "short-run.jsonl")],
                   (short_s or 60) + 180, interrupt_first=True, grace=60)
        fig = bl.parse_bench(r.out, r.err) if r.rc == 0 else None
        summary["short_run"] = {"config": fig["config"], "gst": fig["gst"]} if fig else {"error": r.first_error()}
        if fig:
            configs.append(fig["config"])
    if a.rounds > 0:
        t = bl.retime_configs(a.stencilc, path, configs, a.rounds, extra)
        summary["retimed"] = t
        rr = bl.retimed_ratio(t, short_best[1], long_best[1])
        if rr is not None:
            summary["ratio_retimed"] = rr
            summary["within_5pct"] = rr <= 1.05
        run_cfg = summary.get("short_run", {}).get("config")
        rr = bl.retimed_ratio(t, run_cfg, long_best[1]) if run_cfg else None
        if rr is not None:
            summary["short_run"]["ratio_retimed"] = rr
    with open(os.path.join(a.work, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(f"longsearch {label}: {summary['variants']} variants in {summary['search_s']} s; best "
          f"{long_best[0]:.5g} ms at {long_best[2]:.0f} s ({long_best[1]}), by {a.short} "
          f"{short_best[0]:.5g} ms ({short_best[1]}): search ratio {summary['ratio_search']:.3f}"
          + (f", re-timed {summary['ratio_retimed']:.3f}" if "ratio_retimed" in summary else "")
          + (f"; a separate {a.short} run chose {summary['short_run']['config']}, re-timed "
             f"{summary['short_run']['ratio_retimed']:.3f}" if "ratio_retimed" in summary.get("short_run", {}) else ""))
    if a.merge:
        merge(summary, a.merge)
    return 0


def merge(summary, results):
    """Stores a summary in a results file as its stencil's quality entry's `reference`."""
    with open(results, encoding="utf-8") as f:
        res = json.load(f)
    key = f"{summary['name']}/{summary['type']}"
    res.setdefault("quality", {}).setdefault(key, {})["reference"] = summary
    with open(results + ".tmp", "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    os.replace(results + ".tmp", results)


def cmd_merge(a):
    """A finished search's summary (DIR/summary.json, e.g. brought back from the device) into --merge."""
    if not a.merge:
        sys.exit("longsearch: merge needs --merge RESULTS")
    with open(os.path.join(a.work, "summary.json"), encoding="utf-8") as f:
        merge(json.load(f), a.merge)
    return 0


def cmd_rest(a):
    """The last leg's budget: --total less the legs' search time so far, in whole seconds."""
    done = sum(info.get("search_s") or 0.0 for _, _, info in legs_of(a.work))
    print(f"{max(0, int(bl.budget_seconds(a.total) - done))}s")
    return 0


def cmd_reference(a):
    """The measurements of a finished search as tests/data/reference_NAME_GPU.tsv.xz."""
    legs = legs_of(a.work)
    if not legs:
        sys.exit(f"longsearch: no legs in {a.work}")
    logs = [logf for _, logf, _ in legs]
    short_run = os.path.join(a.work, "short-run.jsonl")
    if os.path.exists(short_run):
        logs.append(short_run)  # a kernel only the separate run measured is part of the best
    rows, first = [], {}
    for logf in logs:
        for r in bl.parse_tune_log_rows(logf) or []:
            rows.append(r)
            if r.get("status") == "ok" and isinstance(r.get("config"), str):
                ms = r.get("ms")
                first.setdefault(r["config"], ms if isinstance(ms, (int, float)) else 0)
    best = bl.best_by(rows)[0]
    if best is None:
        sys.exit("longsearch: no valid variant in the legs' logs")
    short_s = bl.budget_seconds(a.short)
    in_short = sum(1 for r in bl.parse_tune_log_rows(logs[0]) or []
                   if isinstance(r.get("elapsed_s"), (int, float)) and r["elapsed_s"] <= short_s)
    head = {"program": a.name, "type": a.type, "steps": a.steps, "gpu": a.gpu, "date": a.date,
            "search_s": round(sum(info.get("search_s") or 0.0 for _, _, info in legs), 1),
            "short": a.short, "short_variants": in_short, "best_ms": repr(best)}
    text = ("#stencilc-reference\t" + "\t".join(f"{k}={v}" for k, v in head.items()) + "\n"
            "# bench/longsearch.py reference: each configuration the search's legs, then its separate "
            "short run, measured ok, with its first time: CONFIG<TAB>ms per step\n"
            + "".join(f"{c}\t{first[c]!r}\n" for c in sorted(first)))
    data = text.encode()
    with open(a.out, "wb") as f:
        f.write(lzma.compress(data, preset=9) if a.out.endswith(".xz") else data)
    print(f"longsearch {a.name}: {len(first)} configurations, best {best:.5g} ms, "
          f"{in_short} variants in the first {a.short} -> {a.out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("leg", "finish", "merge", "rest", "reference"))
    ap.add_argument("--stencilc", help="leg, finish: the stencilc to run")
    ap.add_argument("--name", help="leg, finish: a benchmark stencil (examples/bench)")
    ap.add_argument("--work", required=True, help="the folder of the legs, the database and the summary")
    ap.add_argument("--type", default="float")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", default="570s", help="leg: this leg's search budget")
    ap.add_argument("--gest", default=None, help="leg: GeST knobs (--gest)")
    ap.add_argument("--short", default="60s", help="finish: the short search's budget")
    ap.add_argument("--rounds", type=int, default=3, help="finish: re-timing rounds (0: none)")
    ap.add_argument("--short-run", action="store_true",
                    help="finish: also run a separate search with the short budget (`stencilc bench --autotune`, "
                         "empty database) and re-time what it emits with the two bests")
    ap.add_argument("--merge", default=None, help="finish, merge: results.json to store the summary in")
    ap.add_argument("--total", default="1200s", help="rest: the whole search's budget")
    ap.add_argument("--gpu", help="reference: the GPU the search ran on")
    ap.add_argument("--date", help="reference: the day the search ran (YYYY-MM-DD)")
    ap.add_argument("--out", help="reference: the file to write (.tsv or .tsv.xz)")
    a = ap.parse_args()
    if a.what == "reference" and not (a.name and a.gpu and a.date and a.out):
        ap.error("reference needs --name, --gpu, --date and --out")
    if a.what not in ("merge", "rest", "reference") and not (a.stencilc and a.name):
        ap.error(f"{a.what} needs --stencilc and --name")
    return {"leg": cmd_leg, "finish": cmd_finish, "merge": cmd_merge, "rest": cmd_rest,
            "reference": cmd_reference}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
