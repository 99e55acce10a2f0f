#!/usr/bin/env python3
"""The benchmark report without a GPU: bench/suite.py and bench/scaling.py run end to end against
bench/testdata's stand-ins for stencilc, nvcc and the peers (canned outputs in the real
formats), with injected failures, a hang that --timeout stops and a missing peer module; the
parsers are checked on stencilc's real output lines; every SVG must be well-formed XML."""
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.environ.get("STC_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
DATA = os.path.join(BENCH, "testdata")
sys.dont_write_bytecode = True
sys.path.insert(0, BENCH)
import benchlib  # noqa: E402
import merge_convergence  # noqa: E402
import merge_results  # noqa: E402
import report  # noqa: E402
import replay  # noqa: E402
import scaling  # noqa: E402
import suite  # noqa: E402
import svg  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def parsers():
    out = ("device: NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.2 GiB, L2 50 MiB, driver 13.0, NVRTC 13.0\n"
           "stencil star2d1r (float), grid 8192x8192x1, config tb=128x2x1,maxreg=64\n"
           "verified against the interpreter: max relative error 5.96e-08 (tolerance 1e-05)\n"
           "star2d1r: 8192x8192x1, 0.2600 ms/step (median of 12 x 4 steps, L2 flushed), 258.11 GStencil/s, "
           "2065.0 GB/s, 69% of copy bandwidth (2977 GB/s)\n")
    b = benchlib.parse_bench(out, "stencilc: interrupted: emitting the best variant so far\n")
    check(b and b["gst"] == 258.11 and b["config"] == "tb=128x2x1,maxreg=64", f"parse_bench {b}")
    check(b and b["copy_gbs"] == 2977 and b["pct_copy"] == 69 and b["l2_flushed"] and b["reps"] == 12,
          f"parse_bench copy {b}")
    check(b and b["device"] == "NVIDIA H100 80GB HBM3" and b["sm"] == "90" and b.get("tuning_interrupted"),
          f"parse_bench device {b}")
    check(benchlib.parse_bench("stencilc: error: bench needs a GPU") is None, "no report line")
    nt = benchlib.parse_bench(out, "stencilc: warning: not tuned (no GPU found and no tuning record of this "
                                   "program and grid); emitting the default configuration tb=32x8x1\n")
    check(nt and nt.get("not_tuned", "").startswith("no GPU found"), f"not tuned {nt}")
    ir = benchlib.parse_dump_ir("analysis:\n  radius 1, shape star, points 10\n  flops per point: 28 as written, "
                                "26 after folding and CSE\n  bytes per point: 16 (2 fields read, 2 written, "
                                "8-byte elements)\n")
    check(ir == {"flops": 28, "flops_folded": 26, "bytes_per_point": 16, "type": "double", "radius": 1},
          f"dump-ir {ir}")
    peers = benchlib.parse_peer_table("stencil     type     ms/step  GStencil/s    relerr\n"
                                      "box2d1r     float     0.2776      241.78   6.1e-08\n"
                                      "star3d1r    float64   0.5721      234.60   4.7e-17\n")
    check(peers[("box2d1r", "float")]["gst"] == 241.78 and peers[("star3d1r", "double")]["ms"] == 0.5721,
          f"peer table {peers}")
    fw = benchlib.parse_framework("case peer ms GStencil/s relerr\n"
                                  "star2d1r           cudnn-conv         0.5867     114.33   4.4e-08\n"
                                  "box3d2r            torch.compile      failed: OutOfMemoryError: CUDA\n")
    check(fw["cudnn-conv"]["star2d1r"]["gst"] == 114.33 and "error" in fw["torch.compile"]["box3d2r"],
          f"framework {fw}")
    check(benchlib.peer_trusted({"gst": 1, "relerr": 5e-8}, "float")
          and not benchlib.peer_trusted({"gst": 1, "relerr": 5e-8}, "double")
          and not benchlib.peer_trusted({"gst": 1, "relerr": float("nan")}, "float"), "peer_trusted")
    check(benchlib.budget_seconds("10s") == 10 and benchlib.budget_seconds("2m") == 120
          and benchlib.budget_seconds("200") is None, "budget_seconds")
    names = benchlib.stencils_in(os.path.join(ROOT, "examples", "image.st"))
    check(names == ["gaussian3x3", "box5x5", "unsharp", "sobel"], f"stencils_in {names}")
    check(any(s[0] == "two-d-float" and s[2] == "two-d-float" for s in benchlib.example_stencils(ROOT)),
          "example_stencils: quoted names, --stencil for files with several")
    h = scaling.parse_header("typedef float w_real;\n#define W_DIMS 2\ntypedef struct {\n"
                             "    float *u[3]; /* state */\n    const float *c; /* coef */\n} w_fields;\n")
    check(h == {"prefix": "w", "fields": [("u", 3), ("c", 0)], "real": "float", "dims": 2}, f"header {h}")
    src = scaling.harness_source("w.h", h)
    check("f.u[l] = b" in src and "f.c = b" in src and "w_run(&f, &p" in src, "harness source")
    pts = scaling.parse_points("device X\npoint 64 64 64 10 0.5 0.4 5\nfail 512 512 512 1 out of memory\n")
    check(pts[0]["steps"] == 10 and pts[0]["ms"] == 0.5 and pts[1]["error"] == "out of memory", f"points {pts}")


def helpers():
    """The multi-step, convergence and quality helpers of benchlib and report on made-up data."""
    an = benchlib.parse_an5d("# comment\nstar2d1r    star2d1r-256-10-256   1377\nbad line\nbox3d4r x 20.5\n")
    check(an == {"star2d1r": {"config": "star2d1r-256-10-256", "gst": 1377.0},
                 "box3d4r": {"config": "x", "gst": 20.5}}, f"parse_an5d {an}")
    real = benchlib.parse_an5d(open(os.path.join(DATA, "peers", benchlib.AN5D_FILE)).read())
    check(real["star3d4r"]["gst"] == 153, f"testdata AN5D file {real}")
    check(benchlib.parse_dump_ir("stencil star3d1r: 3d, float, 1 field\n")["dims"] == 3, "dims from --dump-ir")
    # The fields of --dump-ir (ir/dump.c), a condition per axis and per face too, and of the file.
    f = benchlib.parse_dump_ir("fields:\n  u: state, levels 3, bc mirror, footprint x[-1,1] y[-1,1], read, written "
                               "in stage 0\n  c: coef, bc constant(1) | clamp, periodic, footprint x[0,0] y[0,0], read\n"
                               "  t: temp, bc fixed, in registers\n")["fields"]
    check(f == [{"name": "u", "role": "state", "levels": 3, "bc": "mirror"},
                {"name": "c", "role": "coef", "bc": "constant(1) | clamp, periodic"},
                {"name": "t", "role": "temp", "bc": "fixed"}], f"fields of --dump-ir {f}")
    check(report.boundaries_cell(f, 2) == "u (3 levels): mirror; c (coef): x constant(1) \\| clamp, y periodic; "
                                          "t (temp): fixed", report.boundaries_cell(f, 2))
    d = benchlib.declared(os.path.join(ROOT, "examples", "all_features.st"), "two-d-float")
    check(d == {"dims": 2, "type": "float", "fields": [{"name": "p", "role": "state", "levels": 2, "bc": "mirror"},
                                                       {"name": "q", "role": "state", "levels": 3, "bc": "periodic"},
                                                       {"name": "speed", "role": "coef", "bc": "constant(1)"}]},
          f"fields of the file {d}")
    check(benchlib.bench_dims("examples/bench/box3d2r.st") == 3 and benchlib.bench_dims("x/j2d5pt.st") == 2
          and benchlib.bench_dims("x/heat.st", {"dims": 3}) == 3, "bench_dims")
    check(benchlib.stencil_args("s", "float", 1) == ["--stencil", "s", "--type", "float", "--steps", "1"]
          and benchlib.stencil_args() == [], "stencil_args")
    rows = [{"ms": 2.0, "status": "ok", "elapsed_s": 1.0, "config": "a"},
            {"ms": None, "status": "fail", "elapsed_s": 2.0},
            {"ms": 1.5, "status": "ok", "elapsed_s": 3.0, "config": "b"},
            {"ms": 1.0, "status": "ok", "elapsed_s": 9.0, "config": "c,tblock=4"}]
    check(benchlib.best_by(rows) == (1.0, "c,tblock=4", 9.0) and benchlib.best_by(rows, 3.0) == (1.5, "b", 3.0)
          and benchlib.best_by(rows, 0.5) == (None, None, None), "best_by")
    with tempfile.TemporaryDirectory() as tmp:  # the search's end is not a variant
        log = os.path.join(tmp, "t.jsonl")
        with open(log, "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows) + "\n"
                    '{"config":"b","ms":0.9,"search_ms":1.5,"status":"chosen","reason":""}\n'
                    '{"config":"c","ms":1.2,"search_ms":1.0,"status":"final","reason":"slower"}\n')
        t = benchlib.parse_tune_log(log)
        check(t["variants"] == 4 and t["valid"] == 3 and t["best_ms"] == 1.0 and t["search_s"] == 9.0,
              f"parse_tune_log skips the final lines {t}")
    med = benchlib.median_curve([[[1, 3.0], [4, 1.0]], [[2, 2.0]], [[5, 4.0]]])
    check(med == [[2, 3.0], [4, 2.0]], f"median_curve {med}")
    # An older results.json (one run per strategy, no "runs") still renders; GeST's verdict.
    conv = {"convergence": {"a/float": {"budget": "5s", "strategies": {
        "gest": {"variants": 9, "valid": 9, "best_ms": 1.02, "curve": [[1, 1.02]], "search_s": 8},
        "random": {"runs": [{"seed": 1, "best_ms": 1.5, "curve": [[1, 1.5]]}, {"seed": 2, "error": "boom"}]},
        "genetic": {"runs": [{"seed": 1, "best_ms": 1.0, "curve": [[2, 1.0]]}]},
        "gest-nopriors": {"runs": [{"seed": 1, "best_ms": 1.2, "curve": [[2, 1.2]]}]},
        "gest-fill": {"runs": [{"seed": 1, "best_ms": 0.75, "curve": [[2, 0.75]]}]}}}}}
    stats, speedup, verdict = report.convergence_stats(conv["convergence"]["a/float"])
    check(abs(speedup - 1.5 / 1.02) < 1e-9 and verdict is True and stats["random"]["finals"] == [1.5],
          f"convergence_stats {speedup} {verdict}")
    md = "\n".join(report.convergence_section(conv, {}))
    check("| random | 1 of 2 |" in md and "random, seed 2: failed: boom" in md and "speed-up 1.47" in md
          and "within noise (3%) of the baselines: yes" in md and "on 1 of 1 stencils" in md
          and "Without its prior configurations (gest-nopriors), random / GeST 1.25." in md
          and "filled to the evaluator's batch (gest-fill), random / GeST 2.00." in md
          and "1 of 6 runs searched for more than 1.5 x the budget (longest 8.0 s)" in md,
          f"convergence section (gest-nopriors and gest-fill are no baselines)\n{md}")
    # Every GeST variant that suite.py can run has its sentence in the report, and no other.
    check(set(report.GEST_VARIANTS) == set(benchlib.STRATEGY_ARGS)
          and all(benchlib.strategy_args(k)[:2] == ["--strategy", "gest"] for k in report.GEST_VARIANTS),
          f"report.GEST_VARIANTS {sorted(report.GEST_VARIANTS)} against benchlib.STRATEGY_ARGS")
    conv["convergence"]["a/float"]["strategies"]["gest"]["best_ms"] = 1.04  # 4% behind genetic
    check(report.convergence_stats(conv["convergence"]["a/float"])[2] is False, "GeST 4% behind is not within noise")
    # Multi-step against AN5D: g is short in IEEE arithmetic and reaches it with --fast-math, s is
    # at it in IEEE, b is short either way; the second count is taken in AN5D's arithmetic, with
    # the stencils at 1.2x or more and the geometric mean there ((927/923 * 1.2 * 0.9)^(1/3)).
    ms = {"an5d": {"figures": {"g": {"gst": 923.0}, "s": {"gst": 100.0}, "b": {"gst": 100.0}}},
          "multistep": {"float": {"g": {"steps": 1000, "tuned": {"gst": 547.0, "config": "x"},
                                        "fast_math": {"gst": 927.0, "config": "y"}},
                                  "s": {"steps": 1000, "tuned": {"gst": 120.0, "config": "x"}},
                                  "b": {"steps": 1000, "tuned": {"gst": 80.0, "config": "x"},
                                        "fast_math": {"gst": 90.0, "config": "y"}}}}}
    # double: no AN5D column even where the name has a float figure; a one-step figure of
    # another run than the multi-step one is named.
    ms["rows"] = [{"kind": "bench", "type": "double", "name": n, "tuned": {"gst": 100.0}, "run": "a"}
                  for n in ("g", "s")]
    ms["multistep"]["double"] = {"g": {"steps": 1000, "tuned": {"gst": 150.0, "config": "x"}, "run": "a"},
                                 "s": {"steps": 1000, "tuned": {"gst": 90.0, "config": "x"}, "run": "b"}}
    md = "\n".join(report.multistep_section(ms, {}, "double"))
    check("| g | 1000 | 150.0 | `x` | 100.0 | 1.50 | - |" in md and "923" not in md
          and "on **1 of 2** stencils with both figures" in md
          and "The one-step figure of s is another run's than the multi-step one" in md, f"double section\n{md}")
    md = "\n".join(report.multistep_section(ms, {}))
    check("on **1 of 3** stencils with both figures" in md
          and "tuned multi-step >= AN5D (quoted) on **2 of 3**, >= 1.2x on 1; geometric mean tuned / AN5D "
          "1.03." in md, f"counts against AN5D\n{md}")


def svgs():
    texts = [svg.bar_chart("t <&>", ["a", "b"], [("x", [1.0, None]), ("y", [2.5, 0.0])], "GStencil/s",
                           [(2.0, "roof")]),
             svg.bar_chart("empty", [], [], "y"),
             svg.line_chart("l", [{"title": "p", "series": [("s", [(1, 2.0), (10, 3.0)])]},
                                  {"title": "empty", "series": []}], "x", "y", xlog=True, step=True),
             svg.line_chart("one point", [{"title": "p", "series": [("s", [(5, 5.0)])]}], "x", "y", ylog=True)]
    for lo, hi in ((0.4, 4.1), (0.175, 0.3), (-3, 7), (0.5, 0.51), (0, 4)):
        ticks = svg.nice_ticks(lo, hi)
        check(ticks[0] <= lo and ticks[-1] >= hi and ticks[0] > lo - (ticks[1] - ticks[0]) * 1.001,
              f"axis ticks {ticks} cover [{lo}, {hi}] tightly")
    for t in texts:
        try:
            ET.fromstring(t)
        except ET.ParseError as e:
            check(False, f"svg does not parse: {e}")


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=240)
    if p.returncode != 0:
        print(p.stdout)
    check(p.returncode == 0, f"exit status {p.returncode}: {' '.join(cmd)}")
    return p.stdout


def end_to_end():
    tmp = tempfile.mkdtemp(prefix="stc-bench-")
    env = dict(os.environ, FAKE_STENCILC_FAIL="box2d1r:double:plain,sobel",
               FAKE_STENCILC_HANG="star2d1r:double:tuned:1", FAKE_STENCILC_KILLHANG="j2d5pt:float:plain",
               FAKE_NO_TORCH="1")
    fake = [os.path.join(DATA, "fake_stencilc.py")]
    only = "box2d1r,j2d5pt,star2d1r,star3d1r,heat,sobel,gray_scott"
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--peers",
               os.path.join(DATA, "peers"), "--nvcc", os.path.join(DATA, "fake_nvcc.py"), "--budget", "1s",
               "--timeout", "2", "--types", "float,double", "--only", only, "--out", tmp,
               "--convergence", "star3d1r", "--convergence-seeds", "2",
               "--quality", "star2d1r,box2d1r", "--quality-long", "20s", "--quality-short", "5s",
               "--fast-math", "star2d1r"], env)
    check("FAILED" in out and "wrote" in out, "progress lines")
    res = json.load(open(os.path.join(tmp, "results.json")))
    rows = {(r["name"], r["type"]): r for r in res["rows"]}
    check(len(rows) == 4 * 2 + 3, f"rows {sorted(rows)}")
    check("error" in rows[("box2d1r", "double")]["plain"] and "gst" in rows[("box2d1r", "double")]["tuned"],
          "a failing plain kernel is recorded, its tuned one still runs")
    check(rows[("star2d1r", "double")]["tuned"].get("tuning_interrupted"), "a hung tuning gets SIGINT and finishes")
    check("timed out" in rows[("j2d5pt", "float")]["plain"].get("error", ""), "a hang ignoring SIGINT is killed")
    check(rows[("sobel", "float")]["plain"].get("error") and rows[("heat", "float")]["tuned"]["gst"] > 0,
          "examples at their own type")
    check(rows[("star2d1r", "float")]["flops"] == 9, "flops from --dump-ir")
    check("skipped" in res["peer_status"]["framework"] and "torch" in res["peer_status"]["framework"],
          f"missing torch is a skip: {res['peer_status']}")
    check(res["peers"]["naive"]["float"]["star2d1r"]["gst"] > 0, "naive peer parsed")
    check(set(res["convergence"]["star3d1r/float"]["strategies"]) == {"gest", "random", "genetic"}, "convergence")
    md = open(os.path.join(tmp, "RESULTS.md")).read()
    for s in ("## float", "## double", "## Other examples", "## Tuning convergence", "| star2d1r | ",
              "failed", "naive CUDA", "copy bandwidth", "chart-float.svg", "## Failures",
              "## Multi-step (temporal blocking), float", "## Tuning quality: 5 s against a long search",
              "chart-double.svg", "chart-multistep.svg", "convergence.svg"):
        check(s in md, f"RESULTS.md lacks {s!r}")
    for f in ("chart-float.svg", "chart-double.svg", "chart-multistep.svg", "convergence.svg"):
        check(os.path.exists(os.path.join(tmp, f)), f"{f} written")
    log = open(os.path.join(tmp, "work", "suite.log")).read()
    one_step(res, log)
    multistep(res, md, log)
    multistep_double(res, md)
    convergence(res, md, log)
    quality(res, md, tmp)
    # --merge keeps the earlier rows and adds the new ones.
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--budget", "1s",
               "--types", "float", "--only", "box3d1r", "--no-examples", "--out", tmp, "--merge",
               os.path.join(tmp, "results.json")], env)
    res2 = json.load(open(os.path.join(tmp, "results.json")))
    check(len(res2["rows"]) == len(res["rows"]) + 1 and len(res2["meta"]["runs"]) == 2, "merge")
    ms2 = res2["multistep"]["float"]
    check(ms2["box3d1r"]["steps"] == 100 and "tblock=" in ms2["box3d1r"]["tuned"]["config"]
          and set(res["multistep"]["float"]) < set(ms2), "merge adds a multi-step row and keeps the earlier ones")
    check(res2["quality"] == res["quality"] and res2["convergence"] == res["convergence"],
          "merge keeps convergence and quality")
    # Double next to float: a double-only run merged in renders both sections and both charts.
    run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--peers",
         os.path.join(DATA, "peers"), "--nvcc", os.path.join(DATA, "fake_nvcc.py"), "--budget", "1s",
         "--types", "double", "--only", "star3d1r", "--no-examples", "--peer-set", "naive,jax", "--out", tmp,
         "--merge", os.path.join(tmp, "results.json")], env)
    res4 = json.load(open(os.path.join(tmp, "results.json")))
    md = open(os.path.join(tmp, "RESULTS.md")).read()
    check(res4["multistep"]["float"] == res2["multistep"]["float"] and "## double" in md and "## float" in md
          and "## Multi-step" in md and "## Tuning quality" in md and "## Tuning convergence" in md,
          "double merged next to float, multi-step, convergence and quality")
    # ... and its double multi-step row replaces that of the first run, beside the others.
    msd = res4["multistep"]["double"]
    check(set(msd) == set(res["multistep"]["double"]) and msd["star3d1r"]["run"] == res4["meta"]["runs"][-1]["id"]
          and msd["box2d1r"] == res["multistep"]["double"]["box2d1r"], "a double run merges its multi-step rows")
    # ... and keeps the other stencils' peer figures: it adds star3d1r's to the naive table.
    check(set(res4["peers"]["naive"]["double"]) == set(res["peers"]["naive"]["double"]) | {"star3d1r"}
          and len(res4["peers"]["naive"]["double"]) > 1, f"merge keeps peer figures: {res4['peers']['naive']}")
    check("double: 4 stencils (1 measured in the last run" in res4["peer_status"]["naive"],
          res4["peer_status"]["naive"])
    dbl = md[md.index("## double"):md.index("## Peers")]
    check("| star3d1r | " in dbl and "chart-double.svg" in dbl, "double table row and chart")
    # --max-minutes: a tiny limit stops cleanly and still writes the report.
    tmp2 = tempfile.mkdtemp(prefix="stc-bench-")
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--budget", "1s",
               "--only", "box2d1r,star2d1r,star3d1r", "--out", tmp2, "--max-minutes", "0.05", "--no-multistep"], env)
    res3 = json.load(open(os.path.join(tmp2, "results.json")))
    check(res3["multistep"] == {} and "--steps 1000" not in open(os.path.join(tmp2, "work", "suite.log")).read(),
          "--no-multistep")
    check(res3["meta"]["runs"][-1]["stopped"] and os.path.exists(os.path.join(tmp2, "RESULTS.md")),
          "--max-minutes stops and writes")
    # scaling.py reads the tuned configurations of results.json and adds its section.
    out = run([sys.executable, os.path.join(BENCH, "scaling.py"), "--stencilc", fake[0], "--nvcc",
               os.path.join(DATA, "fake_nvcc.py"), "--out", tmp, "--stencils", "star2d1r,heat,nosuch",
               "--sizes2d", "1024,131072", "--sizes3d", "64,128", "--timeout", "20"], env)
    sc = json.load(open(os.path.join(tmp, "scaling.json")))
    st = {e["name"]: e for e in sc["stencils"]}
    check(st["star2d1r"]["config_source"].startswith("bench/suite.py"), "tuned config from results.json")
    check(any("error" in p for p in st["star2d1r"]["points"]["tuned"]), "a failed grid is kept")
    check(len([p for p in st["heat"]["points"]["plain"] if "gst" in p]) == 8, "heat plain points")
    check("no such stencil" in str(st["nosuch"]["errors"]), "unknown stencil reported")
    md = open(os.path.join(tmp, "RESULTS.md")).read()
    check("[SCALING.md](SCALING.md)" in md, "RESULTS.md links SCALING.md")
    for f in os.listdir(tmp):
        if f.endswith(".svg"):
            try:
                ET.parse(os.path.join(tmp, f))
            except ET.ParseError as e:
                check(False, f"{f}: {e}")
    # report.py alone re-renders from results.json.
    run([sys.executable, os.path.join(BENCH, "report.py"), os.path.join(tmp, "results.json")], env)
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(tmp2, ignore_errors=True)


def one_step(res, log):
    """Every benchmark bench of the one-step table ran with --steps 1; no tblock in its configs."""
    cmds = [l for l in log.splitlines() if l.startswith("$ ") and " bench " in l and "/examples/bench/" in l]
    one = [c for c in cmds if "--steps 1 " in c + " " and "--steps 1000" not in c]
    check(len(one) >= 2 * 4 * 2 - 2, f"one-step bench commands with --steps 1: {len(one)}")
    for r in res["rows"]:
        if r["kind"] == "bench":
            check(r["steps"] == 1, f"{r['name']} steps {r.get('steps')}")
            t = r.get("tuned") or {}
            check("tblock" not in t.get("config", ""), f"one-step config of {r['name']}: {t.get('config')}")


def multistep(res, md, log):
    ms = res["multistep"]["float"]
    check(set(ms) == {"box2d1r", "j2d5pt", "star2d1r", "star3d1r"}, f"multi-step rows {sorted(ms)}")
    check(all(ms[n]["steps"] == 1000 for n in ("box2d1r", "j2d5pt", "star2d1r")) and ms["star3d1r"]["steps"] == 100,
          "1000 steps in 2D, 100 in 3D")
    check("--steps 1000 --autotune" in log and "--steps 100 --autotune" in log, "multi-step commands")
    cmds = [l for l in log.splitlines() if l.startswith("$ ") and "--autotune" in l and "bench" in l.split()[2:3]]
    dbs = {l.split("--tune-db ")[1].split()[0] for l in cmds if "--steps 1 " in l or "--steps 1000 " in l
           or "--steps 100 " in l}
    check(len(dbs) == 1 and dbs.pop().endswith(os.sep + "tunedb"),
          "one-step and multi-step rows in one database (the multi-step search times the one-step winner first)")
    check(res["an5d"]["figures"]["box2d1r"]["gst"] == 1e6 and "2026-11-22" in res["an5d"]["measured"], "AN5D quoted")
    rows = {r["name"]: r for r in res["rows"] if r["type"] == "float"}
    naive = res["peers"]["naive"]["float"]
    for n, an5d in (("star2d1r", 1.0), ("box2d1r", 1e6)):
        t = ms[n]["tuned"]
        check("tblock=4" in t["config"], f"{n} multi-step config {t['config']}")
        one = rows[n]["tuned"]["gst"]
        want = (f"| {n} | 1000 | {t['gst']:.1f} | `{t['config']}` | {an5d:.0f} | {t['gst'] / an5d:.2f} | "
                f"{one:.1f} | {t['gst'] / one:.2f} | {naive[n]['gst']:.1f} |")
        check(want in md, f"multi-step row {want}")
    # star3d1r has no AN5D figure in testdata; j2d5pt's naive figure is untrusted (relerr 0.5).
    check("| star3d1r | 100 | " in md and "| - | - |" in md.split("| star3d1r | 100 | ")[1].split("\n")[0],
          "a stencil without an AN5D figure")
    check("on **2 of 3** stencils with both figures" in md, "count of tuned >= AN5D")
    check("quoted, not measured in this run" in md and "tuned / AN5D (quoted)" in md, "says AN5D is quoted")
    # --fast-math star2d1r: a second multi-step tuning of that stencil only, in its own table
    fm = ms["star2d1r"].get("fast_math") or {}
    check(fm.get("gst") and all("fast_math" not in ms[n] for n in ("box2d1r", "j2d5pt", "star3d1r"))
          and "star2d1r-float-steps1000-fastmath" in fm.get("tune_log", ""), f"fast-math entry {fm}")
    check("--steps 1000 --fast-math --autotune" in log, "the fast-math command")
    g, gf = ms["star2d1r"]["tuned"]["gst"], fm.get("gst", 0)
    want = f"| star2d1r | {g:.1f} | {gf:.1f} | `{fm.get('config')}` | {gf / g:.2f} | 1 | {gf:.2f} |"
    check("With `--fast-math`" in md and want in md, f"fast-math row {want}\n{md[md.find('With `--fast'):][:900]}")
    # counted in AN5D's arithmetic: the fast-math figure adds star2d1r only where IEEE fell short of it
    short = g < 1 <= gf
    want = f"tuned multi-step >= AN5D (quoted) on **{2 + short} of 3**,"
    check(want in md, f"count in AN5D's arithmetic: {want}")


def multistep_double(res, md):
    """--types float,double: a multi-step table per type; double's against its own one-step
    figures of the same run, without AN5D (its figures are float's)."""
    ms = res["multistep"].get("double", {})
    check(set(ms) == {"box2d1r", "j2d5pt", "star2d1r", "star3d1r"}, f"double multi-step rows {sorted(ms)}")
    check("## Multi-step (temporal blocking), double" in md, "double multi-step section")
    sec = md[md.find("## Multi-step (temporal blocking), double"):]
    sec = sec[:sec.find("\n## ", 5)]
    check("No AN5D column" in sec and "AN5D GStencil/s" not in sec and "--type double --steps S" in sec,
          f"double multi-step section without AN5D\n{sec}")
    rows = {r["name"]: r for r in res["rows"] if r["type"] == "double" and r["kind"] == "bench"}
    speedups = []
    for n in sorted(ms):
        t, one = ms[n]["tuned"], rows[n]["tuned"]["gst"]
        check(ms[n]["run"] == rows[n]["run"], f"{n}: one-step and multi-step of the same run")
        naive = report.peers_of(res, n, "double").get("naive CUDA")
        want = (f"| {n} | {ms[n]['steps']} | {t['gst']:.1f} | `{t['config']}` | {one:.1f} | {t['gst'] / one:.2f} | "
                f"{report.fmt(naive)} |")
        check(want in sec, f"double multi-step row {want}")
        speedups.append(t["gst"] / one)
    check("tblock=4" in ms["box2d1r"]["tuned"]["config"] and ms["star3d1r"]["steps"] == 100, "double tblock, steps")
    want = (f"Tuned multi-step >= one-step tuned on **{sum(s >= 1 for s in speedups)} of 4** stencils with both "
            f"figures; geometric mean speed-up from temporal blocking (multi-step / one-step tuned) "
            f"{report.geomean(speedups):.2f}.")
    check(want in sec and "another run's" not in sec and "chart-multistep-double.svg" in sec, f"double summary {want}")
    check(all("fast_math" not in e for e in ms.values()), "--fast-math is for float only")


def examples_multistep():
    """--examples-multistep: each example at --steps 1 and at the multi-step count, each with its
    own tuning database; its boundaries; a failing multi-step run is a row saying so; and
    --max-minutes cuts the pairs cleanly."""
    tmp = tempfile.mkdtemp(prefix="stc-exms-")
    env = dict(os.environ, FAKE_STENCILC_FAIL="gray_scott:float:tuned:1000,sobel")
    cmd = [sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", os.path.join(DATA, "fake_stencilc.py"),
           "--budget", "1s", "--skip-stencils", "--examples-multistep", "--only", "heat,wave2d,gray_scott,sobel,unsharp"]
    out = run(cmd + ["--out", tmp], env)
    res = json.load(open(os.path.join(tmp, "results.json")))
    md = open(os.path.join(tmp, "RESULTS.md")).read()
    log = open(os.path.join(tmp, "work", "suite.log")).read()
    ex = res["examples_multistep"]
    check(set(ex) == {"heat", "wave2d", "gray_scott", "sobel", "unsharp"} and res["rows"] == [],
          f"example pairs {sorted(ex)}, no other rows")
    check(ex["heat"]["steps"] == 100 and ex["wave2d"]["steps"] == 1000 and ex["heat"]["type"] == "float",
          "1000 steps in 2D, 100 in 3D, the file's type")
    pair = [l for l in log.splitlines() if "heat.st --steps 1 --autotune" in l or "heat.st --steps 100 --autotune" in l]
    check(len(pair) == 2 and all("tunedb-examples-pairs " in l for l in pair),
          "one step and multi-step in the pairs' database (the multi-step search times the one-step winner first)")
    check("heat           100 steps, example" in out and "gray_scott     1000 steps, example FAILED" in out,
          f"a progress line per measurement\n{out}")
    sec = md[md.find("## Other examples: one step against multi-step"):]
    sec = sec[:sec.find("\n## ", 5)]
    ratios = []
    for n, bc in (("heat", "u: fixed"), ("wave2d", "u (3 levels), c (coef): mirror"),
                  ("unsharp", "img, bx (temp): clamp")):
        one, multi = ex[n]["one_step"], ex[n]["multi_step"]
        check("tblock" not in one["config"] and "tblock=4" in multi["config"], f"{n} configurations")
        want = (f"| {n} | `{ex[n]['file']}` | float | {one['grid']} | {bc} | {one['gst']:.1f} | `{one['config']}` "
                f"| {ex[n]['steps']} | {multi['gst']:.1f} | `{multi['config']}` | 4 | {multi['gst'] / one['gst']:.2f} |")
        check(want in sec, f"example row {want}\n{sec}")
        ratios.append(multi["gst"] / one["gst"])
    gs = ex["gray_scott"]
    check("gst" in gs["one_step"] and "error" in gs["multi_step"], f"gray_scott: one step ran, multi-step failed {gs}")
    check(f"| u, v: periodic | {gs['one_step']['gst']:.1f} | `{gs['one_step']['config']}` | 1000 | failed | - | - | - |"
          in sec, "a failed multi-step run is a row saying so")
    check("- gray_scott (float, example, 1000 steps, tuned): stencilc: error: the kernel differs" in md
          and "- sobel (float, example, 1 step, tuned): stencilc: error" in md, "failures listed with their reasons")
    check(f"Multi-step >= one step on **3 of 3** examples with both figures; geometric mean multi-step / one step "
          f"{report.geomean(ratios):.2f}; steps fused on 3 of the 3 multi-step figures" in sec, "examples summary")
    tmp2 = tempfile.mkdtemp(prefix="stc-exms-")
    run(cmd + ["--out", tmp2, "--max-minutes", "0.05"], env)
    res2 = json.load(open(os.path.join(tmp2, "results.json")))
    md2 = open(os.path.join(tmp2, "RESULTS.md")).read()
    check(all(e.get("skipped") and e["one_step"] is None for e in res2["examples_multistep"].values())
          and "| heat | `examples/heat.st` | float | - | u: fixed | not run | - | 100 | not run |" in md2
          and "- heat (float, example, 100 steps, tuned): not run (--max-minutes" in md2, "--max-minutes: not run")
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(tmp2, ignore_errors=True)


def convergence(res, md, log):
    c = res["convergence"]["star3d1r/float"]
    check(c["seeds"] == 2 and c["steps"] == 1, f"convergence entry {c.get('seeds')} {c.get('steps')}")
    for strat in ("gest", "random", "genetic"):
        runs = c["strategies"][strat]["runs"]
        check([r["seed"] for r in runs] == [1, 2] and all(r.get("curve") for r in runs), f"{strat} runs")
    check("--strategy random --budget 1s --seed 2" in log, "--seed passed")
    mean = {s: sum(r["best_ms"] for r in c["strategies"][s]["runs"]) / 2 for s in c["strategies"]}
    check(mean["random"] > mean["gest"] * 1.05, f"the fake's random is slower {mean}")
    check(f"speed-up {mean['random'] / mean['gest']:.2f} (random / GeST)" in md, "GeST's speed-up over random")
    check(f"| gest | 2 of 2 | 40 (36) | {mean['gest']:.4f} |" in md, "gest row: runs, variants, mean")
    check("GeST best or within noise (3%) of the baselines: yes" in md and "within 3% of it on 1 of 1 stencils" in md,
          "GeST verdict and summary")


def quality(res, md, tmp):
    q = res["quality"]
    check(set(q) == {"star2d1r/float", "box2d1r/float"}, f"quality keys {sorted(q)}")
    within = 0
    for key, e in q.items():
        rows = [json.loads(l) for l in open(os.path.join(tmp, e["tune_log"]))]
        ok = [r for r in rows if r["status"] == "ok"]
        long_best = min(r["ms"] for r in ok)
        short_best = min(r["ms"] for r in ok if r["elapsed_s"] <= 5.0)
        check(e["long_best_ms"] == long_best and e["short_best_ms"] == short_best, f"{key} bests from the log")
        check(abs(e["ratio"] - short_best / long_best) < 1e-12, f"{key} ratio")
        # The two choices differ in the fake's logs: both are timed again, 3 rounds in turns, and
        # the re-timed ratio decides.
        t = e.get("retimed", {})
        ts, tl = t.get(e["short_config"], {}), t.get(e["long_config"], {})
        check(e["short_config"] != e["long_config"] and len(ts.get("gst", [])) == 3 and len(tl.get("gst", [])) == 3,
              f"{key} re-timed both choices 3 times: {t}")
        rr = tl["median_gst"] / ts["median_gst"]
        check(abs(e["ratio_retimed"] - rr) < 1e-12 and e["within_5pct"] == (rr <= 1.05), f"{key} re-timed ratio")
        within += e["within_5pct"]
        row = f"| {key} | 20s | 5s | 40 (36) | {long_best:.4f} | "
        check(row in md and f"| {short_best / long_best:.3f} | {rr:.3f} | {'yes' if e['within_5pct'] else 'no'} |" in md,
              f"quality row {row}")
    check(f"on **{within} of 2** stencils" in md, "quality summary")
    check("the search's own short measurements" in md, "quality says the times are the search's")


def names_or_all():
    """--convergence / --quality `all`: the benchmark stencils, those of --only when given."""
    class Stub:
        selected = suite.Suite.selected
        only = {"star2d1r", "heat", "box3d4r"}
    stub = Stub()
    check(suite.Suite.names_or_all(stub, "all") == ["box3d4r", "star2d1r"], "all with --only: the benchmarks")
    check(suite.Suite.names_or_all(stub, "heat,sobel") == ["heat", "sobel"], "names as given")
    check(suite.Suite.names_or_all(stub, None) == [], "none")
    stub.only = None
    check(len(suite.Suite.names_or_all(stub, "all")) == 21, "all: the 21 benchmarks")


def merge_pieces():
    """bench/merge_convergence.py: pieces of a 10-seed comparison measured in several device
    calls join strategy by strategy; a cut-short piece never replaces complete runs; a suite
    log stands in for a lost results.json; the report marks those runs and sums up the plans."""
    def runs(n, ms, cut=0):
        return [{"seed": k, "variants": 9, "valid": 8, "best_ms": ms, "curve": [[0.5, ms]]} for k in range(1, n + 1)] \
            + [{"seed": n + k, "error": "not run (--max-minutes 7.6 reached)"} for k in range(1, cut + 1)]
    target = {"star3d1r/float": {"budget": "8s", "seeds": 3, "strategies": {"gest": {"runs": runs(3, 1.0)}}},
              "j2d5pt/float": {"budget": "4s", "seeds": 3, "strategies": {"gest": {"runs": runs(3, 0.5)}}}}
    said = []
    piece1 = {"convergence": {
        "star3d1r/float": {"budget": "4s", "seeds": 3, "strategies": {"gest": {"runs": runs(0, 0, cut=3)}}},
        "j2d5pt/float": {"budget": "4s", "seeds": 3, "strategies": {"gest": {"runs": runs(2, 0.4, cut=1)},
                                                                     "random": {"runs": runs(2, 0.6, cut=1)}}}}}
    merge_convergence.add(target, piece1, said.append)
    check(target["star3d1r/float"]["budget"] == "8s" and len(target["star3d1r/float"]["strategies"]["gest"]["runs"]) == 3,
          "a cut-short piece keeps the complete runs")
    check(target["j2d5pt/float"]["strategies"]["gest"]["runs"][0]["best_ms"] == 0.5, "complete gest kept")
    check(len(target["j2d5pt/float"]["strategies"]["random"]["runs"]) == 3, "a new strategy, even cut short, is added")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "suite.log")
        with open(log, "w") as f:
            f.write("[  0:07] convergence star3d1r gest seed 1: 60 variants, best 0.4405 ms/step\n"
                    "[  0:15] convergence star3d1r gest seed 2: 58 variants, best 0.4415 ms/step\n"
                    "[  0:23] convergence star3d1r random seed 1: 70 variants, best 0.4615 ms/step\n"
                    "[  0:30] convergence star3d1r random seed 2: FAILED: no variant in the tune log\n")
        merge_convergence.add(target, merge_convergence.from_log(log, "4s", "float"), said.append)
    s3 = target["star3d1r/float"]
    check(s3["budget"] == "4s" and s3["seeds"] == 2, f"the log's entry replaces the 8s one: {s3.get('budget')}")
    check([r["best_ms"] for r in s3["strategies"]["gest"]["runs"]] == [0.4405, 0.4415]
          and all(r["from_log"] and "curve" not in r for r in s3["strategies"]["gest"]["runs"]), "runs from the log")
    check(len(s3["strategies"]["random"]["runs"]) == 1, "a failed line is not a run")
    merge_convergence.add(target, {"convergence": {"j2d5pt/float": {"budget": "4s", "seeds": 3, "strategies": {
        "random": {"runs": runs(3, 0.55)}}}}}, said.append)
    check([r["best_ms"] for r in target["j2d5pt/float"]["strategies"]["random"]["runs"]] == [0.55] * 3,
          "a complete later piece replaces a cut-short strategy")
    md = "\n".join(report.convergence_section({"convergence": target}, {}))
    check("| j2d5pt/float | 4s | 3 | 0.5000 | 0.5500 |" in md, "overview row")
    check("| gest | 2 of 2 | 59 (-) |" in md and "read from the suite log" in md, "log runs: no valid count, marked")
    check("(over 2 stencils; 1 at 4s x 2 seeds; 1 at 4s x 3 seeds)" in md, "summary names the budgets and seeds")


def merge_results_pieces():
    """bench/merge_results.py: a run measured without --merge joins the tables entry by entry
    (rows, multi-step, peers, quality fields), its run record noted; a multi-step entry keeps the
    target's --fast-math figure where the piece has none; another GPU is refused."""
    def row(name, gst):
        return {"kind": "bench", "name": name, "type": "float", "tuned": {"gst": gst}}
    meta = {"gpu": "NVIDIA H100 80GB HBM3", "stencilc_version": "0.1.0 (generator aaaa)", "date": "2026-11-26",
            "runs": [{"id": "r1"}]}
    target = {"meta": meta, "rows": [row("box3d2r", 155.4), row("star2d1r", 363.4)], "copy_gbs": [2990],
              "multistep": {"float": {"box3d2r": {"tuned": 144.6}, "star2d1r": {"tuned": 1428.4},
                                      "gradient2d": {"tuned": 515.1, "fast_math": {"gst": 929.3}}}},
              "peers": {"naive": {"float": {"box3d2r": {"gst": 52.8}, "star2d1r": {"gst": 258.7}}}},
              "quality": {"box3d2r/float": {"reference": {"ms": 1.0}}}}
    piece = {"meta": dict(meta, stencilc_version="0.1.0 (generator bbbb)", date="2026-11-27", runs=[{"id": "r2"}]),
             "rows": [row("box3d2r", 155.5)], "copy_gbs": [2991],
             "multistep": {"float": {"box3d2r": {"tuned": 156.0}, "gradient2d": {"tuned": 555.6}}},
             "peers": {"naive": {"float": {"box3d2r": {"gst": 52.4}}}},
             "quality": {"box3d2r/float": {"gest": {"ms": 1.1}}}}
    merge_results.add(target, piece, "piece")
    gst = {r["name"]: r["tuned"]["gst"] for r in target["rows"]}
    check(gst == {"box3d2r": 155.5, "star2d1r": 363.4}, f"rows replaced by key, others kept: {gst}")
    check(target["multistep"]["float"] == {"box3d2r": {"tuned": 156.0}, "star2d1r": {"tuned": 1428.4},
                                           "gradient2d": {"tuned": 555.6, "fast_math": {"gst": 929.3}}},
          "multi-step entry replaced per stencil, the --fast-math figure kept")
    check(target["peers"]["naive"]["float"]["box3d2r"]["gst"] == 52.4
          and target["peers"]["naive"]["float"]["star2d1r"]["gst"] == 258.7, "peer figures per stencil")
    check(set(target["quality"]["box3d2r/float"]) == {"reference", "gest"}, "a quality entry's fields join")
    check(target["copy_gbs"] == [2990, 2991] and target["meta"]["date"] == "2026-11-27"
          and target["meta"]["stencilc_version"].endswith("bbbb)"), "bandwidth samples, date, newest stencilc")
    check([r["id"] for r in target["meta"]["runs"]] == ["r1", "r2"] and "merged by" in target["meta"]["runs"][1]["note"],
          "the piece's run is listed with a note")
    other = dict(piece, meta=dict(piece["meta"], gpu="NVIDIA H200"))
    try:
        merge_results.add(target, other, "h200")
        check(False, "a piece from another GPU is refused")
    except SystemExit as e:
        check("H200" in str(e), f"the refusal names the GPU: {e}")


def pieces_end_to_end():
    """bench/convergence_pieces.sh packs each piece into one archive; merge_convergence.py joins
    the pieces' results.json into one comparison."""
    tmp = tempfile.mkdtemp(prefix="stc-pieces-")
    env = dict(os.environ, STENCILC=os.path.join(DATA, "fake_stencilc.py"), PEERS=os.path.join(DATA, "peers"),
               BUDGET="1s", SEEDS="2")
    out = run(["sh", os.path.join(BENCH, "convergence_pieces.sh"), tmp, "a", "5", "gest,random", "star3d1r",
               "b", "5", "genetic", "star3d1r"], env)
    check(sorted(os.listdir(tmp)) == ["a.tgz", "b.tgz"], f"one archive per piece: {os.listdir(tmp)}\n{out}")
    pieces = []
    for tag in ("a", "b"):
        subprocess.run(["tar", "xzf", f"{tag}.tgz"], cwd=tmp, check=True)
        files = os.listdir(os.path.join(tmp, tag))
        check("results.json" in files and f"{tag}.log" in files and len(os.listdir(os.path.join(tmp, tag, "logs"))) >= 2,
              f"piece {tag} holds results.json, its log and the tune logs: {files}")
        pieces.append(os.path.join(tmp, tag, "results.json"))
        # The piece's own output, read as a log, gives the runs its results.json holds (the
        # line format suite.py writes and merge_convergence.py reads stays in step).
        logged = merge_convergence.from_log(os.path.join(tmp, tag, f"{tag}.log"), "1s", "float")
        saved = json.load(open(pieces[-1]))["convergence"]["star3d1r/float"]["strategies"]
        check({k: [(r["seed"], r["variants"], r["best_ms"]) for r in v["runs"]]
               for k, v in logged["convergence"]["star3d1r/float"]["strategies"].items()}
              == {k: [(r["seed"], r["variants"], r["best_ms"]) for r in v["runs"]] for k, v in saved.items()},
              f"piece {tag}: its log's runs are its results.json's")
    target = os.path.join(tmp, "results.json")
    with open(target, "w") as f:
        json.dump({"version": 1, "meta": {"runs": []}}, f)
    run([sys.executable, os.path.join(BENCH, "merge_convergence.py"), target] + pieces, env)
    res = json.load(open(target))
    strategies = res["convergence"]["star3d1r/float"]["strategies"]
    check(sorted(strategies) == ["genetic", "gest", "random"]
          and all(len(v["runs"]) == 2 and all("best_ms" in r for r in v["runs"]) for v in strategies.values()),
          f"the pieces joined: {strategies}")
    check(len(res["meta"]["runs"]) == 2, "the pieces' run records are kept")
    shutil.rmtree(tmp, ignore_errors=True)


def longsearch_leg_script():
    """bench/longsearch-leg.sh: a leg on a "fresh machine" (its work folder gone) resumes from the
    carried state folder, and the folder comes back as $OUT/ls.tgz; without the state it starts over."""
    tmp = tempfile.mkdtemp(prefix="stc-legsh-")
    fake = os.path.join(DATA, "fake_stencilc.py")
    env = dict(os.environ, LS_TMP=os.path.join(tmp, "machine", "ls"), LS_STATE=os.path.join(tmp, "state"),
               OUT=os.path.join(tmp, "out"))
    os.makedirs(env["OUT"])
    cmd = ["sh", os.path.join(BENCH, "longsearch-leg.sh"), "star2d1r", "1s", fake]
    out = run(cmd, env)
    check("leg 1:" in out and "from" not in out, "first leg from nothing: " + out)
    # what comes back is unpacked as the state; the machine is fresh (its folder gone)
    os.makedirs(env["LS_STATE"])
    subprocess.run(["tar", "xzf", os.path.join(env["OUT"], "ls.tgz"), "-C", tmp], check=True)
    os.rename(os.path.join(tmp, "ls", "star2d1r"), os.path.join(env["LS_STATE"], "star2d1r"))
    shutil.rmtree(os.path.join(tmp, "machine"))
    out = run(cmd[:-2] + ["rest", fake], dict(env, LS_TOTAL="3s"))
    check("state of star2d1r from" in out and "leg 2:" in out and "last leg of star2d1r: 2s" in out,
          "second leg resumes from the state, with the rest of 3 s: " + out)
    legs = sorted(f for f in os.listdir(os.path.join(env["LS_TMP"], "star2d1r")) if f.endswith(".jsonl"))
    check(legs == ["leg1.jsonl", "leg2.jsonl"], f"both legs' logs on the machine: {legs}")
    out = run(cmd[:-2] + ["rest", fake], dict(env, LS_TOTAL="3s"))
    legs = sorted(f for f in os.listdir(os.path.join(env["LS_TMP"], "star2d1r")) if f.endswith(".jsonl"))
    check("no search time left" in out and legs == ["leg1.jsonl", "leg2.jsonl"],
          f"nothing left of 3 s: no third leg ({legs}): " + out)
    shutil.rmtree(tmp)


def longsearch():
    """bench/longsearch.py: two legs, joined with the second's times after the first's, the two
    choices re-timed in turns, the summary merged into a results file and rendered."""
    tmp = tempfile.mkdtemp(prefix="stc-long-")
    fake = os.path.join(DATA, "fake_stencilc.py")
    ls = [sys.executable, os.path.join(BENCH, "longsearch.py")]
    common = ["--stencilc", fake, "--name", "star2d1r", "--work", os.path.join(tmp, "w")]
    for budget in ("20s", "10s"):
        out = run(ls + ["leg"] + common + ["--budget", budget], dict(os.environ))
        check("variants in" in out, f"leg output: {out}")
    rest = run(ls + ["rest", "--work", os.path.join(tmp, "w"), "--total", "45s"], dict(os.environ)).strip()
    check(rest == "15s", f"rest of 45 s after legs of 20 and 10: {rest}")
    legs = [json.load(open(os.path.join(tmp, "w", f"leg{i}.json"))) for i in (1, 2)]
    check([l["leg"] for l in legs] == [1, 2] and [l["variants"] for l in legs] == [40, 40], f"two legs: {legs}")
    res = {"quality": {}}
    json.dump(res, open(os.path.join(tmp, "results.json"), "w"))
    run(ls + ["finish"] + common + ["--short", "5s", "--rounds", "2", "--short-run", "--merge",
                                     os.path.join(tmp, "results.json")], dict(os.environ))
    sm = json.load(open(os.path.join(tmp, "w", "summary.json")))
    rows1 = [json.loads(l) for l in open(os.path.join(tmp, "w", "leg1.jsonl"))]
    rows2 = [json.loads(l) for l in open(os.path.join(tmp, "w", "leg2.jsonl"))]
    ok = [(r["ms"], r["elapsed_s"]) for r in rows1 if r["status"] == "ok"] + \
         [(r["ms"], r["elapsed_s"] + legs[0]["search_s"]) for r in rows2 if r["status"] == "ok"]
    check(sm["variants"] == 80 and abs(sm["search_s"] - 30) < 0.01, f"joined legs: {sm['variants']}, {sm['search_s']}")
    check(sm["long_best_ms"] == min(ok)[0] and sm["long_found_s"] == min(ok)[1], "long best over both legs")
    check(sm["short_best_ms"] == min(m for m, t in ok if t <= 5), "short best of the first 5 s")
    t = sm["retimed"]
    check(all(len(t[c]["gst"]) == 2 for c in (sm["short_config"], sm["long_config"])), f"re-timed twice: {t}")
    sr = sm["short_run"]
    check(sr["config"] in t and len(t[sr["config"]]["gst"]) == 2
          and abs(sr["ratio_retimed"] - t[sm["long_config"]]["median_gst"] / t[sr["config"]]["median_gst"]) < 1e-12,
          f"the separate short run's choice re-timed with the two: {sr}")
    rr = t[sm["long_config"]]["median_gst"] / t[sm["short_config"]]["median_gst"]
    check(abs(sm["ratio_retimed"] - rr) < 1e-12 and sm["within_5pct"] == (rr <= 1.05), "re-timed ratio")
    merged = json.load(open(os.path.join(tmp, "results.json")))
    check(merged["quality"]["star2d1r/float"]["reference"] == sm, "summary merged as the quality entry's reference")
    json.dump({"quality": {"star2d1r/float": {"long": "120s"}}}, open(os.path.join(tmp, "r2.json"), "w"))
    run(ls + ["merge", "--work", os.path.join(tmp, "w"), "--merge", os.path.join(tmp, "r2.json")], dict(os.environ))
    r2 = json.load(open(os.path.join(tmp, "r2.json")))["quality"]["star2d1r/float"]
    check(r2 == {"long": "120s", "reference": sm}, "merge adds the reference and keeps the entry")
    # What the offline study reads: every configuration measured ok (the legs, then the separate
    # short run), its first time, sorted; the best and the count of the first --short seconds.
    ref = os.path.join(tmp, "reference.tsv.xz")
    run(ls + ["reference", "--work", os.path.join(tmp, "w"), "--name", "star2d1r", "--gpu", "G",
              "--date", "2000-01-01", "--short", "5s", "--out", ref], dict(os.environ))
    lines = lzma.open(ref, "rt").read().splitlines()
    head = dict(kv.split("=", 1) for kv in lines[0].split("\t")[1:])
    short_rows = [json.loads(l) for l in open(os.path.join(tmp, "w", "short-run.jsonl"))]
    first = {}
    for r in rows1 + rows2 + short_rows:
        if r["status"] == "ok":
            first.setdefault(r["config"], r["ms"])
    got = [l.split("\t") for l in lines[1:] if not l.startswith("#")]
    check(lines[0].startswith("#stencilc-reference\t") and head["gpu"] == "G"
          and head["date"] == "2000-01-01" and head["program"] == "star2d1r", f"reference header: {lines[0]}")
    check(got == [[c, repr(first[c])] for c in sorted(first)], "reference rows: each ok configuration's first time")
    check(float(head["best_ms"]) == min(r["ms"] for r in rows1 + rows2 + short_rows if r["status"] == "ok") and
          int(head["short_variants"]) == sum(1 for r in rows1 if r["elapsed_s"] <= 5),
          f"reference best and count of the first 5 s: {head}")
    md = "\n".join(report.reference_section(merged["quality"]))
    check("### Against a longer reference search" in md and f"| {rr:.3f} | {'yes' if rr <= 1.05 else 'no'} |" in md
          and "| star2d1r/float | 30 (2) | 80 |" in md and f"| `{sr['config']}`: {sr['ratio_retimed']:.3f} |" in md
          and f"**{int(sr['ratio_retimed'] <= 1.05)} of 1** within 5%" in md,
          f"reference table:\n{md}")


def replay_parser():
    """bench/replay.py reads `stencilc replay`'s table (real output, stencilc 0.1.0) and a
    recording's header and costs."""
    out = ("replay: star2d1r on 8192x8192, NVIDIA H100 80GB HBM3: 396 recorded configs, recorded best 0.1421 ms\n"
           "budget: 5.9 s of simulated tuning time; 10 seeds from 1\n"
           "strategy       mean best ms speed-up vs rand  best or within 2% mean evals\n"
           "gest                 0.1632           0.930x                10%       92.3\n"
           "genetic              0.1641           0.927x                20%       97.4\n"
           "random               0.1482           1.000x                50%       97.2\n"
           "exhaustive   exhaustive search refuses this space: more than 200000 valid configurations\n")
    rows = replay.parse_replay(out)
    check(sorted(rows) == ["genetic", "gest", "random"], "replay rows")
    check(rows["gest"] == {"mean_best_ms": 0.1632, "speedup_vs_random": 0.930, "seeds_best_2pct": 10.0,
                           "mean_evals": 92.3}, "replay gest row")
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, "r.tsv")
        with open(rec, "w") as f:
            f.write("#stencilc-replay\tprogram=j2d5pt\tgrid=64x64\tgpu=G\tdate=2026-11-22\n# comment\n"
                    "tb=32x8x1\t0.5\tcost=0.25\ntb=64x4x1\tfail\tno\tcost=1.5\ntb=128x2x1\t0.4\n")
        head, n, cost = replay.recording_facts(rec)
        check(head.get("program") == "j2d5pt" and head.get("date") == "2026-11-22", "recording header")
        check(n == 3 and abs(cost - 2.25) < 1e-9, "recording count and cost (0.5 s where none is recorded)")


if __name__ == "__main__":
    parsers()
    replay_parser()
    longsearch()
    longsearch_leg_script()
    merge_pieces()
    merge_results_pieces()
    pieces_end_to_end()
    names_or_all()
    helpers()
    svgs()
    end_to_end()
    examples_multistep()
    print("bench: %d failures" % failures)
    sys.exit(1 if failures else 0)
