#!/usr/bin/env python3
"""The benchmark report without a GPU: bench/suite.py and bench/scaling.py run end to end against
bench/testdata's stand-ins for stencilc, nvcc and the peers (canned outputs in the real
formats), with injected failures, a hang that --timeout stops and a missing peer module; the
parsers are checked on stencilc's real output lines; every SVG must be well-formed XML."""
import json
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
import report  # noqa: E402
import scaling  # noqa: E402
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


def svgs():
    texts = [svg.bar_chart("t <&>", ["a", "b"], [("x", [1.0, None]), ("y", [2.5, 0.0])], "GStencil/s",
                           [(2.0, "roof")]),
             svg.bar_chart("empty", [], [], "y"),
             svg.line_chart("l", [{"title": "p", "series": [("s", [(1, 2.0), (10, 3.0)])]},
                                  {"title": "empty", "series": []}], "x", "y", xlog=True, step=True),
             svg.line_chart("one point", [{"title": "p", "series": [("s", [(5, 5.0)])]}], "x", "y", ylog=True)]
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
               FAKE_STENCILC_HANG="star2d1r:double:tuned", FAKE_STENCILC_KILLHANG="j2d5pt:float:plain",
               FAKE_NO_TORCH="1")
    fake = [os.path.join(DATA, "fake_stencilc.py")]
    only = "box2d1r,j2d5pt,star2d1r,star3d1r,heat,sobel,gray_scott"
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--peers",
               os.path.join(DATA, "peers"), "--nvcc", os.path.join(DATA, "fake_nvcc.py"), "--budget", "1s",
               "--timeout", "2", "--types", "float,double", "--only", only, "--out", tmp,
               "--convergence", "star3d1r"], env)
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
              "failed", "naive CUDA", "copy bandwidth", "chart-float.svg", "## Failures"):
        check(s in md, f"RESULTS.md lacks {s!r}")
    # --merge keeps the earlier rows and adds the new ones.
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--budget", "1s",
               "--types", "float", "--only", "box3d1r", "--no-examples", "--out", tmp, "--merge",
               os.path.join(tmp, "results.json")], env)
    res2 = json.load(open(os.path.join(tmp, "results.json")))
    check(len(res2["rows"]) == len(res["rows"]) + 1 and len(res2["meta"]["runs"]) == 2, "merge")
    # --max-minutes: a tiny limit stops cleanly and still writes the report.
    tmp2 = tempfile.mkdtemp(prefix="stc-bench-")
    out = run([sys.executable, os.path.join(BENCH, "suite.py"), "--stencilc", fake[0], "--budget", "1s",
               "--only", "box2d1r,star2d1r,star3d1r", "--out", tmp2, "--max-minutes", "0.05"], env)
    res3 = json.load(open(os.path.join(tmp2, "results.json")))
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


if __name__ == "__main__":
    parsers()
    svgs()
    end_to_end()
    print("bench: %d failures" % failures)
    sys.exit(1 if failures else 0)
