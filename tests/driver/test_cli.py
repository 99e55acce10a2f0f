#!/usr/bin/env python3
"""The stencilc command line: exit codes (0 ok, 1 bad input or run, 2 usage), what goes to
stdout and stderr, that an error leaves no output file, and --autotune where there is no GPU
(the tuning database record of another machine, or the default configuration), --autotune
--replay and `stencilc replay`.

usage: test_cli.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import subprocess
import sys
import tempfile

import clitest
from clitest import check, finish

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
HEAT = os.path.join(ROOT, "examples", "heat.st")


def run(*args, cwd=None):
    return clitest.run(STENCILC, *args, cwd=cwd)


def expect(name, args, rc, out=None, err=None, cwd=None):
    code, so, se = run(*args, cwd=cwd)
    good = code == rc and (out is None or out in so) and (err is None or err in se)
    check(name, good, f"  args {args}\n  exit {code} (want {rc})\n  stdout {so[:600]!r}\n"
                      f"  stderr {se[:600]!r}")
    return code, so, se


def fnv(h, s):
    for b in s.encode():
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    h ^= 0xFF
    return (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF


def tunedb_record(dirpath, program, grid, etype, gpu, cuda, generator, config, ms, date):
    """A database file as tuner/tunedb.c writes it (the key hash recomputed here)."""
    h = 1469598103934665603
    for field in (program, "x".join(map(str, grid)), etype, gpu, cuda, generator):
        h = fnv(h, field)
    ph = fnv(1469598103934665603, program)
    os.makedirs(dirpath, exist_ok=True)
    with open(os.path.join(dirpath, f"{h:016x}.best"), "w") as f:
        f.write(f"# stencilc tuning result\nconfig={config}\nms={ms}\ndate={date}\ngpu={gpu}\n"
                f"program_hash={ph:016x}\ngrid={'x'.join(map(str, grid))}\ntype={etype}\n"
                f"cuda={cuda}\ngenerator={generator}\n")


def first_line(path):
    with open(path) as f:
        return f.readline()


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # never the user's database

    # --help, --version
    expect("help", ["--help"], 0, out="usage: stencilc")
    code, so, _ = expect("version", ["--version"], 0, out="stencilc ")
    version = so.strip()  # "stencilc X.Y.Z": also the database's generator field

    # usage errors: exit 2 and a pointer to --help
    for name, args in [("no input", []), ("unknown option", [HEAT, "--frobnicate"]),
                       ("bad grid", [HEAT, "--grid", "12xq"]), ("bad budget", [HEAT, "--budget", "soon"]),
                       ("bad type", [HEAT, "--type", "half"]), ("two inputs", [HEAT, HEAT]),
                       ("-o without file", [HEAT, "-o"]), ("bad seeds", ["replay", "x.tsv", "--seeds", "0"])]:
        expect("usage error: " + name, args, 2, err="see stencilc --help")

    # bad input: exit 1, and neither file written
    out = os.path.join(tmp, "bad.cu")
    for name, args in [
            ("syntax error", [os.path.join(ROOT, "tests", "err", "missing_semicolon.st")]),
            ("missing file", [os.path.join(tmp, "nonexistent.st")]),
            ("--replay of a missing file", [HEAT, "--autotune", "--replay", os.path.join(tmp, "no.tsv")]),
            ("--replay of a 2D recording", [HEAT, "--autotune", "--replay",
                                            os.path.join(ROOT, "tests", "data", "replay_tiny.tsv")])]:
        code, so, se = expect("bad input: " + name, args + ["-o", out], 1)
        check("bad input leaves no file: " + name,
              not os.path.exists(out) and not os.path.exists(os.path.join(tmp, "bad.h")))
        check("bad input says error: " + name, "error" in se, se)

    # usage errors found once the file is read (issue 34): exit 2 as well, and nothing written
    for name, args in [
            ("unknown stencil", [HEAT, "--stencil", "nope"]),
            ("bad --config", [HEAT, "--config", "tb=banana"]),
            ("invalid --config", [HEAT, "--config", "tb=2048x1x1"]),
            ("grid of the wrong dimension", [HEAT, "--grid", "64x64"]),
            ("unknown strategy", [HEAT, "--autotune", "--strategy", "annealing"])]:
        code, so, se = expect("usage error: " + name, args + ["-o", out], 2)
        check("usage error leaves no file: " + name,
              not os.path.exists(out) and not os.path.exists(os.path.join(tmp, "bad.h")))

    # --opt=value as well as --opt value
    eq_out = os.path.join(tmp, "eq.cu")
    expect("--output=FILE", [HEAT, f"--output={eq_out}", "--config=tb=32x4x2", "--grid=64x64x64"], 0)
    check("--output=FILE writes the pair", os.path.exists(eq_out) and os.path.exists(os.path.join(tmp, "eq.h")))
    expect("--budget=10s", [HEAT, "--autotune", "--budget=10s", "--replay=" + os.path.join(tmp, "no.tsv"),
                            "-o", out], 1, err="--replay")

    # the read-only modes
    expect("check", ["check", HEAT], 0)
    code, ir_text, _ = expect("--dump-ir", [HEAT, "--dump-ir"], 0)
    check("--dump-ir prints the IR", len(ir_text) > 50 and "heat" in ir_text, ir_text[:200])
    expect("--dump-ast", [HEAT, "--dump-ast"], 0, out="stencil heat")
    code, space, _ = expect("--list-space", [HEAT, "--list-space"], 0, out="tuning space of heat")
    for line in ["  smem      off on\n", "  stream    off y z\n", "  maxreg    off 32 64 128\n",
                 "  tb x      1 2 4 8 16 32 64 128 256 512 1024\n"]:
        check("--list-space prints what --config takes: " + line.strip(), line in space, space)

    # an invalid --config is explained in the words of --config, with the values it may take
    STAR2D = os.path.join(ROOT, "examples", "bench", "star2d1r.st")
    for name, args, words in [
            ("stream=z on a 2D grid", [STAR2D, "--config", "stream=z"],
             "stream=z needs a 3D grid; on this 2D grid stream takes: off y"),
            ("a value not in the space", [HEAT, "--config", "tb=2048x1x1"],
             "2048 along x is not one of its values (1 2 4 8 16 32 64 128 256 512 1024)"),
            ("an unknown key", [HEAT, "--config", "vect=2"],
             "(known: tb smem cmem stream sb uf cm bm vec hcol retime prefetch tblock regq maxreg select hold hwrap async)")]:
        code, so, se = expect("--config: " + name, args + ["-o", os.path.join(tmp, "x.cu")], 2,
                              err=words)
        check("--config names no internal id: " + name, " sd" not in se and "tbx" not in se, se)

    # compiling: both files, with the note of how the configuration was chosen
    cu = os.path.join(tmp, "heat.cu")
    expect("compile", [HEAT, "-o", cu], 0)
    check("compile writes .cu and .h", os.path.exists(cu) and os.path.exists(os.path.join(tmp, "heat.h")))
    with open(cu) as f, open(os.path.join(tmp, "heat.h")) as g:
        heads = f.read(300), g.read(300)
    # the generator that wrote them, digest included (--version prints the same words)
    check("the .cu and .h name their generator", all(f"Generated by {version}; do not edit" in t for t in heads), heads)
    expect("--config", [HEAT, "-o", cu, "--config", "tb=64x4x2"], 0)
    check("--config noted in the .cu", "--config" in first_line(cu), first_line(cu))

    # --fast-math: the optimized kernels of a float program use the approximate intrinsics, the
    # plain (default) kernel and a double program do not; the IR (the tuning database's key)
    # and the emitted files' configuration line say so
    fm = os.path.join(tmp, "fm.st")
    with open(fm, "w") as f:
        f.write("stencil fm {\n  grid 2d;\n  type float;\n  size 64, 64;\n  steps 2;\n"
                "  state u boundary fixed;\n  u = u + 0.1 * exp(-u) / (1.0 + u[1,0] * u[1,0])"
                " + 1.0 / sqrt(1.0 + u[0,1] * u[0,1]) + 0.5 * u[-1,0] / 3.0;\n}\n")
    fcu = os.path.join(tmp, "fm.cu")
    intrinsics = ("__expf(", "__fdividef(", "rsqrtf(")

    def emitted(*args):
        code, _, se = run(fm, "-o", fcu, *args)
        if code != 0:
            return f"exit {code}: {se}"
        with open(fcu) as f:
            return f.read()

    tiled = ["--config", "tb=32x4,uf=2x1,bm=2x2"]
    text = emitted(*tiled, "--fast-math")
    check("--fast-math: intrinsics in the optimized kernel", all(i in text for i in intrinsics), text[-1500:])
    check("--fast-math: noted on the configuration line", "Configuration: tb=32x4x1,uf=2x1x1,bm=2x2x1 (fast math"
          in text and "(fast math" in open(os.path.join(tmp, "fm.h")).read(), text[:300])
    text = emitted(*tiled)
    check("without --fast-math: IEEE arithmetic", not any(i in text for i in intrinsics) and "(fast math" not in text,
          text[-1500:])
    text = emitted("--fast-math")
    check("--fast-math: the plain kernel stays IEEE", not any(i in text for i in intrinsics), text[-1500:])
    code, _, se = run(fm, "-o", fcu, *tiled, "--fast-math", "--type", "double")
    text = open(fcu).read() if code == 0 else ""
    check("--fast-math on a double program: a warning, no intrinsics", code == 0 and "changes nothing" in se
          and not any(i in text for i in intrinsics), se)
    _, ir_fast, _ = run(fm, "--dump-ir", "--fast-math")
    _, ir_ieee, _ = run(fm, "--dump-ir")
    check("--fast-math is part of the IR (the tuning database's key)", ", fast-math" in ir_fast.splitlines()[0]
          and ", fast-math" not in ir_ieee, ir_fast[:200])
    nvcc = "/usr/local/cuda/bin/nvcc"
    if os.path.exists(nvcc):  # the intrinsics as the user's nvcc sees them
        emitted(*tiled, "--fast-math")
        p = subprocess.run([nvcc, "-c", "-o", os.path.join(tmp, "fm.o"), fcu], capture_output=True, text=True,
                           timeout=300)
        check("--fast-math output compiles with nvcc", p.returncode == 0, p.stderr[-1500:])

    # --autotune without a GPU (skipped where one exists: then it would tune)
    code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", os.path.join(tmp, "emptydb"), "-q",
                      "--budget", "3")  # short where a GPU exists
    if "no GPU found" in se:
        check("autotune without GPU exits 0", code == 0, se)
        check("autotune without GPU warns", "warning" in se and "not tuned" in se, se)
        check("autotune without GPU notes it in the .cu", "not tuned" in first_line(cu), first_line(cu))
        check("autotune without GPU points to --target", "--target GPU" in se, se)

        # a record of this program and grid made on some GPU is used
        db = os.path.join(tmp, "db")
        # the key's generator names the largest tblock the run's step count allows
        generator = version + "; tblock<=16"
        tunedb_record(db, ir_text, (256, 256, 256), "float", "NVIDIA Test GPU", "13.0", generator,
                      "tb=64x4x2", 0.123, "2026-01-02T03:04:05Z")
        code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", db)
        check("no GPU: database record used", code == 0 and
              "using the tuned configuration recorded on NVIDIA Test GPU on 2026-01-02" in se, se)
        check("no GPU: record noted in the .cu", "tb=64x4x2" in first_line(cu)
              and "NVIDIA Test GPU" in first_line(cu), first_line(cu))
        # ... but not for another grid or another element type
        code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", db, "--grid", "128x128x128")
        check("no GPU: record of another grid ignored", code == 0 and "not tuned" in se, se)
        code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", db, "--type", "double")
        check("no GPU: record of another type ignored", code == 0 and "not tuned" in se, se)
        code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", db, "--steps", "1")
        check("no GPU: record of a run that may fuse steps ignored for one step",
              code == 0 and "not tuned" in se, se)
        # the newest of two records wins
        tunedb_record(db, ir_text, (256, 256, 256), "float", "NVIDIA Newer GPU", "13.1", generator,
                      "tb=128x2x2", 0.1, "2026-05-06T00:00:00Z")
        code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", db)
        check("no GPU: newest record used", code == 0 and "NVIDIA Newer GPU" in se
              and "tb=128x2x2" in first_line(cu), se + first_line(cu))
        # a record made by another generator with the same version number (the key's generator
        # carries a digest of ir/ and codegen/) is not used
        same_number = version.split(" (")[0] + "; tblock<=16"
        check("--version names the generator's digest", version != version.split(" (")[0]
              and "(generator " in version, version)
        for name, other in [("no digest", same_number),
                            ("another digest", same_number.replace("; ", " (generator 000000000000); "))]:
            olddb = os.path.join(tmp, "olddb-" + name.replace(" ", "-"))
            tunedb_record(olddb, ir_text, (256, 256, 256), "float", "NVIDIA Test GPU", "13.0", other,
                          "tb=64x4x2", 0.123, "2026-01-02T03:04:05Z")
            code, _, se = run(HEAT, "--autotune", "-o", cu, "--tune-db", olddb)
            check("no GPU: record of another generator ignored (" + name + ")",
                  code == 0 and "not tuned" in se, se)
        code, _, se = run(HEAT, "--tune-record", os.path.join(tmp, "rec.tsv"), "-o", cu)
        check("--tune-record without GPU fails", code == 1 and "needs a GPU" in se, se)
    else:
        print("skip autotune-without-GPU cases: a GPU is present")

    # --autotune --replay: tuning on a recording of this program
    rec = os.path.join(tmp, "heat.tsv")
    with open(rec, "w") as f:
        f.write("#stencilc-replay\tprogram=heat\tgrid=256x256x256\ttype=float\tgpu=Recorded GPU\n"
                "tb=32x4x2\t0.50\tcost=0.5\ntb=64x4x2\t0.30\ntb=128x4x2\tfail\ttoo many resources\n"
                "tb=32x8x2\t0.40\ntb=64x8x2\t0.35\ntb=256x2x2\t0.45\n")
    log = os.path.join(tmp, "tune.jsonl")
    code, _, se = expect("--autotune --replay", [HEAT, "--autotune", "--replay", rec, "--budget", "20",
                                                 "--strategy", "exhaustive", "--tune-log", log, "-o", cu], 0)
    check("--replay picks the recorded best", "tb=64x4x2" in first_line(cu)
          and "Recorded GPU" in first_line(cu), first_line(cu))
    with open(log) as f:
        lines = f.read().splitlines()
    check("--tune-log: a JSON line per variant", len(lines) == 6 and all(l.startswith("{") for l in lines),
          "\n".join(lines))

    # the H100 recording of star3d1r (tests/driver/data, made with --tune-record)
    h100 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "star3d1r_256_h100.tsv")
    star = os.path.join(ROOT, "examples", "bench", "star3d1r.st")
    code, _, se = expect("--autotune --replay of the H100 recording",
                         [star, "--grid", "256x256x256", "--autotune", "--replay", h100, "--budget", "60s",
                          "-q", "-o", cu], 0)
    check("H100 recording: its best is found", "tb=128x2x1,maxreg=64" in first_line(cu)
          and "NVIDIA H100" in first_line(cu), first_line(cu))
    expect("replay of the H100 recording", ["replay", h100, "--seeds", "3", "--budget", "10s"], 0,
           out="NVIDIA H100 80GB HBM3: 842 recorded configs")

    # stencilc replay
    tiny = os.path.join(ROOT, "tests", "data", "replay_tiny.tsv")
    expect("replay", ["replay", tiny, "--seeds", "2", "--budget", "5s"], 0, out="gest")
    expect("replay one strategy", ["replay", rec, "--strategy", "genetic", "--seeds", "3"], 0, out="genetic")
    expect("replay unknown strategy", ["replay", tiny, "--strategy", "bogus"], 2, err="--strategy takes")
    expect("replay missing file", ["replay", os.path.join(tmp, "none.tsv")], 1, err="error")

finish()
