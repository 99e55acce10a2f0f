#!/usr/bin/env python3
"""Several stencilc --autotune runs at once, and a damaged tuning database (issue 30, items 5 and 6),
through the command line and without a GPU:

- 16 processes tune three programs on their replay recordings (tests/data) into one database at
  once, spread over 4 simulated GPUs ($STC_DEVICE): every record is then the fastest result any
  of them reported for its key, and every journal holds exactly the lines of the runs' tune
  logs, each whole;
- a run that wants a GPU another process holds waits, saying whom it waits for;
- a tuning that may fuse steps times first the configuration the one-step tuning of its program,
  grid and GPU stored (issue 33), and says so (not with -q, nor when its journal has it);
- without a GPU, a record that is a FIFO or a link to /dev/zero, holds ms=inf, nan or -1, or is
  truncated is reported by name and skipped (stencilc neither hangs nor prints it into the .cu),
  and a newer damaged record does not hide an older good one.

usage: test_tunedb_cli.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import fcntl
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, "examples", "bench")
DATA = os.path.join(ROOT, "tests", "data")
PROGRAMS = ["star2d1r", "j2d5pt", "box2d1r"]
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "\n" + str(detail)[:3000]))
    if not cond:
        failures.append(name)


def replay_args(prog, db, *more):
    return [STENCILC, os.path.join(BENCH, prog + ".st"), "--autotune", "--replay",
            os.path.join(DATA, f"replay_{prog}_h100.tsv"), "--tune-db", db, "-q", *more]


def reported_ms(cu):
    with open(cu) as f:
        m = re.search(r", ([0-9.e+-]+) ms/step", f.readline())
    return float(m.group(1)) if m else None


def fnv_fields(*fields):
    """tuner/tunedb.c's hash of key fields (FNV-1a, a 0xff after each field)."""
    h = 1469598103934665603
    for field in fields:
        for b in field.encode():
            h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
        h = ((h ^ 0xFF) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def ir_text(prog):
    """The program as the database's key names it: its IR dump."""
    return subprocess.run([STENCILC, os.path.join(BENCH, prog + ".st"), "--dump-ir"], capture_output=True,
                          text=True, timeout=60).stdout


def record_fields(path):
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


def concurrent_runs(tmp):
    db = os.path.join(tmp, "db")
    procs = []
    for i in range(16):
        prog = PROGRAMS[i % 3]
        out = os.path.join(tmp, f"run{i}")
        env = dict(os.environ, STC_DEVICE=str(i % 4))
        args = replay_args(prog, db, "--seed", str(i + 1), "--budget", f"{1 + i % 4}s",
                           "--tune-log", out + ".jsonl", "-o", out + ".cu")
        procs.append((prog, out, subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True)))
    by_prog = {p: {"ms": [], "logs": []} for p in PROGRAMS}
    for prog, out, p in procs:
        _, se = p.communicate(timeout=300)
        check(f"{os.path.basename(out)} ({prog}) exits 0", p.returncode == 0, se)
        ms = reported_ms(out + ".cu") if os.path.exists(out + ".cu") else None
        check(f"{os.path.basename(out)} notes its time in the .cu", ms is not None)
        if ms is not None:
            by_prog[prog]["ms"].append(ms)
        if os.path.exists(out + ".jsonl"):
            with open(out + ".jsonl") as f:
                by_prog[prog]["logs"] += f.read().splitlines(keepends=True)
    bests = glob.glob(os.path.join(db, "*.best"))
    check("one record per program", len(bests) == len(PROGRAMS), bests)
    program_of = {fnv_fields(ir_text(p)): p for p in PROGRAMS}
    for path in bests:
        rec = record_fields(path)
        prog = program_of.get(rec.get("program_hash"))
        ran = by_prog[prog] if prog else {"ms": [], "logs": []}
        # the runs print %.4g: the record must be the least of what they reported
        check(f"{prog}: the record is the fastest of its key", ran["ms"]
              and f"{float(rec['ms']):.4g}" == f"{min(ran['ms']):.4g}", (rec, ran["ms"]))
        journal = path[:-len(".best")] + ".journal"
        with open(journal) as f:
            lines = f.read().splitlines(keepends=True)
        whole = all(l.endswith("\n") and json.loads(l).get("config") for l in lines)
        check(f"{prog}: every journal line whole", whole)
        check(f"{prog}: the journal holds exactly the runs' measurements", sorted(lines) == sorted(ran["logs"]),
              f"{len(lines)} journal lines, {len(ran['logs'])} logged")
    check("no temporary left in the database", not glob.glob(os.path.join(db, "*tmp*")),
          glob.glob(os.path.join(db, "*")))


def damaged_own_record(tmp):
    """A run whose own record is damaged says so, by name, tunes again and replaces it."""
    db = os.path.join(tmp, "db")
    program_hash = fnv_fields(ir_text("star2d1r"))
    paths = [p for p in glob.glob(os.path.join(db, "*.best")) if record_fields(p).get("program_hash") == program_hash]
    check("star2d1r has a record", len(paths) == 1)
    if len(paths) != 1:
        return
    with open(paths[0]) as f:
        text = f.read()
    with open(paths[0], "w") as f:
        f.write(re.sub(r"ms=.*", "ms=inf", text))
    p = subprocess.run(replay_args("star2d1r", db, "--budget", "1s", "-o", os.path.join(tmp, "d.cu")),
                       capture_output=True, text=True, timeout=120)
    check("a damaged record of the run's key is reported by name", p.returncode == 0
          and f"{paths[0]}: damaged record: ms=inf is not a positive, finite time; tuning again" in p.stderr, p.stderr)
    ms = record_fields(paths[0]).get("ms", "inf")
    check("... and replaced by the new result", float(ms) > 0 and float(ms) != float("inf"), ms)


def gpu_lock_wait(tmp):
    """A run whose GPU another process holds waits for it and says whom it waits for."""
    db = os.path.join(tmp, "db-wait")
    locks = glob.glob(os.path.join(tmp, "stencilc-gpu-replay-*-0.lock"))
    check("the replay's GPU lock lives in $TMPDIR", len(locks) == 1, os.listdir(tmp))
    if len(locks) != 1:
        return
    with open(locks[0], "r+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.truncate(0)
        held.write("pid 4242 (stencilc tuning 'heat' of heat.st) is timing on it\n")
        held.flush()
        p = subprocess.Popen(replay_args("star2d1r", db, "--budget", "1s", "-o", os.path.join(tmp, "w.cu")),
                             env=dict(os.environ, STC_DEVICE="0"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        check("it waits while the GPU is held", p.poll() is None)
        fcntl.flock(held, fcntl.LOCK_UN)
    _, se = p.communicate(timeout=120)
    check("then it tunes", p.returncode == 0 and os.path.exists(os.path.join(tmp, "w.cu")), se)
    check("it said whom it waited for", "waiting for the GPU NVIDIA H100 80GB HBM3 (replay)" in se
          and "pid 4242 (stencilc tuning 'heat' of heat.st)" in se, se)


def no_gpu_records(tmp):
    """Without a GPU: damaged records of the database are reported by name and skipped."""
    heat = os.path.join(ROOT, "examples", "heat.st")
    probe = subprocess.run([STENCILC, heat, "--autotune", "-q", "--tune-db", os.path.join(tmp, "e"),
                            "-o", os.path.join(tmp, "probe.cu"), "--budget", "1"],
                           capture_output=True, text=True, timeout=120)
    if "no GPU found" not in probe.stderr:
        print("skip the no-GPU cases: a GPU is present")
        return
    db = os.path.join(tmp, "db-damaged")
    os.makedirs(db)
    good = write_record(db, "NVIDIA Test GPU", "2026-01-02T03:04:05Z", "0.123")
    with open(good) as f:
        text = f.read()
    cu = os.path.join(tmp, "nogpu.cu")

    def no_gpu_run():
        try:
            p = subprocess.run([STENCILC, os.path.join(BENCH, "star2d1r.st"), "--autotune", "--tune-db", db,
                                "-o", cu], capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            return None, "timed out (hung)"
        with open(cu) as f:
            return p.returncode, p.stderr + f.readline()

    bad = os.path.join(db, "0000000000000bad.best")
    cases = [("a FIFO", lambda: os.mkfifo(bad), "not a regular file"),
             ("a link to /dev/zero", lambda: os.symlink("/dev/zero", bad), "not a regular file")]
    for ms in ("inf", "nan", "-1"):
        cases.append((f"ms={ms}", lambda ms=ms: open(bad, "w").write(re.sub(r"ms=.*", "ms=" + ms, text)),
                      "is not a positive, finite time"))
    cases.append(("a truncated record", lambda: open(bad, "w").write(text[:-3]), "truncated"))
    for name, make, why in cases:
        make()
        rc, out = no_gpu_run()
        check(f"no GPU, a record that is {name}: reported by name and skipped", rc == 0
              and f"{bad}: " in out and why in out and "using the tuned configuration recorded on "
              "NVIDIA Test GPU" in out and "inf" not in out.splitlines()[-1]
              and "nan" not in out.splitlines()[-1], out)
        os.remove(bad)
    # a newer record of another GPU for the same key, damaged: the older good one stays in use
    newer = write_record(db, "NVIDIA Newer GPU", "2099-01-01T00:00:00Z", "inf")
    rc, out = no_gpu_run()
    check("no GPU: a newer damaged record does not hide an older good one", rc == 0
          and "recorded on NVIDIA Test GPU" in out and newer in out, out)
    write_record(db, "NVIDIA Newer GPU", "2099-01-01T00:00:00Z", "0.1")
    rc, out = no_gpu_run()
    check("no GPU: ... and once it is good, the newer one is used", rc == 0 and "NVIDIA Newer GPU" in out, out)


def one_step_first(tmp):
    """Issue 33, in replay: star2d1r's tuning at the file's steps (tblock up to 16) times first what
    its one-step tuning (--steps 1) stored in the database. The record's configuration is then
    replaced by a recorded one that no prior names (the search found the first prior), so that
    only the record can put it first."""
    db = os.path.join(tmp, "db-one-step")
    p = subprocess.run(replay_args("star2d1r", db, "--steps", "1", "--budget", "2s", "-o", os.path.join(tmp, "1.cu")),
                       capture_output=True, text=True, timeout=120)
    one = glob.glob(os.path.join(db, "*.best"))
    check("the one-step tuning stores its record", p.returncode == 0 and len(one) == 1, p.stderr)
    if len(one) != 1:
        return
    config, log = "tb=128x1x1,smem=on,bm=1x4x1,maxreg=32", os.path.join(tmp, "multi.jsonl")
    with open(one[0]) as f:
        text = f.read()
    with open(one[0], "w") as f:
        f.write(re.sub(r"(?m)^config=.*$", "config=" + config, text))
    said = f"timing first the one-step tuning's configuration {config} (recorded on "

    def multi(quiet):
        args = replay_args("star2d1r", db, "--seed", "9", "--budget", "1s", "--tune-log", log,
                           "-o", os.path.join(tmp, "m.cu"))
        p = subprocess.run([a for a in args if quiet or a != "-q"], capture_output=True, text=True, timeout=120)
        with open(log) as f:
            first = json.loads(f.readline())["config"] if os.path.getsize(log) else None
        own = [b for b in glob.glob(os.path.join(db, "*.best")) if b != one[0]]
        for b in own:  # the next run searches again
            os.remove(b)
        return p, first, own
    p, first, own = multi(True)
    check("the multi-step tuning times the one-step configuration first", p.returncode == 0 and first == config
          and len(own) == 1, (p.stderr, first, config))
    check("... silently with -q", said not in p.stderr, p.stderr)
    p, first, _ = multi(False)
    check("resumed from a journal that has it, it says nothing of it", p.returncode == 0 and "resuming" in p.stderr
          and said not in p.stderr, p.stderr)
    os.remove(own[0][:-len(".best")] + ".journal")
    p, first, _ = multi(False)
    check("a fresh run says it", p.returncode == 0 and said in p.stderr and first == config, p.stderr)


def write_record(db, gpu, date, ms):
    """A record of star2d1r on its 8192^2 grid as tuner/tunedb.c writes it; returns its path."""
    version = subprocess.run([STENCILC, "--version"], capture_output=True, text=True).stdout.strip()
    program, grid, generator = ir_text("star2d1r"), "8192x8192x1", version + "; tblock<=16"
    path = os.path.join(db, fnv_fields(program, grid, "float", gpu, "13.0", generator) + ".best")
    with open(path, "w") as f:
        f.write(f"# stencilc tuning result\nconfig=tb=64x4x1\nms={ms}\ndate={date}\ngpu={gpu}\n"
                f"program_hash={fnv_fields(program)}\ngrid={grid}\ntype=float\ncuda=13.0\ngenerator={generator}\n")
    return path


with tempfile.TemporaryDirectory() as tmp:
    os.environ["TMPDIR"] = tmp  # the GPU locks: this test's own
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    concurrent_runs(tmp)
    damaged_own_record(tmp)
    gpu_lock_wait(tmp)
    one_step_first(tmp)
    no_gpu_records(tmp)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
