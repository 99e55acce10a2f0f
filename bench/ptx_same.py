#!/usr/bin/env python3
"""Proves that two stencilc binaries emit the same kernels, without a GPU:

    python3 bench/ptx_same.py OLD_STENCILC NEW_STENCILC [--count 300] [--seed 1] [--jobs 2]
                              [--keep DIR] [--nvcc /usr/local/cuda/bin/nvcc]

For a refactoring of codegen/: build the reference from the commit before it in a worktree
(`git worktree add ../wt-old HEAD --detach; cd ../wt-old; meson setup build
-Dbuildtype=release; ninja -C build`), then run this with ../wt-old/build/driver/stencilc as OLD
and build/driver/stencilc as NEW.

It draws --count configurations (deterministic for a seed and an OLD binary) over the 21
benchmark programs (examples/bench/*.st), the other examples (examples/*.st) and
tests/dist/allbc.st: every kernel family (plain, tile, stream, stream-reg, stream-retime,
temporal, temporal-stream, temporal-retime: how codegen/plan.c and opt_*.c pick one from the
configuration), float and double, every boundary condition (copies of a program with each
field's `boundary` replaced), some with --distributed and some with --fast-math. About a fifth
are configurations the tuner measured (tests/data/replay_*_h100.tsv: one-step families of the
benchmark programs), the rest are drawn per family from the values `stencilc --list-space`
prints. A configuration that OLD refuses is counted and another is drawn; NEW must refuse it
too. The temporal families are drawn with fixed boundaries only: stencilc fuses steps under
the other conditions since 2026-11-26 (issue 33), which any OLD from before refuses.

For each one, both binaries emit x.cu and x.h, nvcc compiles each .cu to PTX (-ptx
-arch=sm_90; -I tests/dist/nccl_stub for --distributed), and the PTX is compared after
dropping comments and .file lines (the compiler's version is in comments). The headers are
compared as text, apart from the generator id and the seal's digest, which change with any
edit of codegen/. Host code of the .cu (the launch shapes) is not in the PTX: how many .cu
files differ as text is reported for information only.

Prints one line per configuration that differs or fails, then a summary and the coverage by
family, type, boundary, dimension, --distributed and --fast-math. Exit status 0 when every compared
configuration has the same PTX and header in both binaries, 1 otherwise, 2 for usage errors.
--keep DIR keeps each differing or failing configuration's files (old/ and new/: x.cu, x.h,
x.ptx, and cmd.txt with the stencilc command) for diffing.
"""
import argparse
import collections
import concurrent.futures
import glob
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NCCL_STUB = os.path.join(ROOT, "tests", "dist", "nccl_stub")

FAMILIES = ["plain", "tile", "stream", "stream-reg", "stream-retime",
            "temporal", "temporal-stream", "temporal-retime"]
BOUNDARIES = ["fixed", "constant", "clamp", "mirror", "periodic"]
BC_TEXT = {"fixed": "fixed", "constant": "constant(0.5)", "clamp": "clamp", "mirror": "mirror",
           "periodic": "periodic"}
STENCILC_TIMEOUT = 120
NVCC_TIMEOUT = 600

# ---- programs -----------------------------------------------------------------------------


def blank_comments(text):
    """text with //, # and /* */ comments replaced by spaces (offsets kept)."""
    def spaces(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*|#[^\n]*", spaces, text, flags=re.S)


DECL_RE = re.compile(r"\b(state|coef|temp)\b[^;{}]*;")
BC_RE = re.compile(r"\bboundary\s+(fixed|periodic|clamp|mirror|constant\s*\([^()]*\))")


def parse_programs(path):
    """The stencils of one file: dicts with name, dims, steps and the fields' boundaries."""
    bare = blank_comments(read(path))
    out = []
    for m in re.finditer(r"\bstencil\s+(\"[^\"]+\"|\w+)\s*\{", bare):
        depth, i = 1, m.end()
        while depth and i < len(bare):
            depth += {"{": 1, "}": -1}.get(bare[i], 0)
            i += 1
        body = bare[m.end():i]
        dims = int(re.search(r"\bgrid\s+(\d)d", body).group(1))
        steps = re.search(r"\bsteps\s+(\d+)", body)
        bcs = set()
        for d in DECL_RE.finditer(body):
            b = BC_RE.search(d.group(0))
            bcs.add(b.group(1).split("(")[0].strip() if b else "fixed")
        out.append({"path": path, "name": m.group(1).strip('"'), "dims": dims,
                    "steps": int(steps.group(1)) if steps else 1, "bcs": bcs,
                    "stem": os.path.splitext(os.path.basename(path))[0]})
    return out


def with_boundary(text, kind):
    """text with every state, coef and temp declaration given boundary `kind`."""
    bare = blank_comments(text)
    parts, last = [], 0
    for d in DECL_RE.finditer(bare):
        decl = text[d.start():d.end()]
        b = BC_RE.search(bare[d.start():d.end()])
        if b:
            decl = decl[:b.start()] + "boundary " + BC_TEXT[kind] + decl[b.end():]
        else:
            decl = decl[:-1].rstrip() + " boundary " + BC_TEXT[kind] + ";"
        parts += [text[last:d.start()], decl]
        last = d.end()
    parts.append(text[last:])
    return "".join(parts)


def all_programs():
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "bench", "*.st")))
    files += sorted(glob.glob(os.path.join(ROOT, "examples", "*.st")))
    files.append(os.path.join(ROOT, "tests", "dist", "allbc.st"))
    return [p for f in files for p in parse_programs(f)]


def replay_configs():
    """Recorded configurations per benchmark stem, by family."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "replay_*_h100.tsv"))):
        stem = os.path.basename(path)[len("replay_"):-len("_h100.tsv")]
        for line in read(path).splitlines():
            if line.startswith("#") or not line.strip():
                continue
            cfg = line.split("\t")[0].strip()
            out[stem][family_of(cfg)].append(cfg)
    return out


# ---- configurations -----------------------------------------------------------------------


def parse_spec(spec):
    kv = {}
    for item in spec.split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            kv[k.strip()] = v.strip()
    return kv


def family_of(spec):
    """The kernel family that codegen/plan.c picks for a configuration (as config_format
    prints it; stage kernels only: fills and copies are the same in every family)."""
    kv = parse_spec(spec)
    on = lambda k: kv.get(k, "off") in ("on", "1", "yes")  # noqa: E731
    stream = kv.get("stream", "off") in ("y", "z")
    if int(kv.get("tblock", "1")) > 1:
        if stream:
            return "temporal-retime" if on("retime") else "temporal-stream"
        return "temporal"
    if stream:
        if on("retime"):
            return "stream-retime"
        return "stream" if on("smem") else "stream-reg"
    ones = lambda k: all(x == "1" for x in kv.get(k, "1").split("x"))  # noqa: E731
    if on("smem") or on("cmem") or on("hcol") or kv.get("vec", "1") != "1" or \
            not (ones("uf") and ones("cm") and ones("bm")):
        return "tile"
    return "plain"


def triple(v):
    return "x".join(str(x) for x in v)


def spec_text(c):
    """A configuration dict (tb, smem, ...) as --config text."""
    items = ["tb=" + triple(c["tb"])]
    for k in ("smem", "cmem", "hcol", "retime", "prefetch"):
        if c.get(k):
            items.append(k + "=on")
    if c.get("stream"):
        items.append("stream=" + c["stream"])
    for k in ("sb", "tblock", "regq", "maxreg", "vec"):
        if c.get(k, 1) != 1:
            items.append("%s=%d" % (k, c[k]))
    for k in ("uf", "cm", "bm"):
        if k in c and any(x != 1 for x in c[k]):
            items.append(k + "=" + triple(c[k]))
    return ",".join(items)


def pick(rng, values, below=None):
    """One of values (those <= below if any); 2 when there is none (stencilc then refuses)."""
    vals = [v for v in values if below is None or v <= below] or values
    return rng.choice(vals) if vals else 2


def block(rng, dims, lo=32, hi=1024, one_on=None):
    """A thread block of lo..hi threads (one thread along axis one_on)."""
    for _ in range(100):
        tb = [rng.choice([16, 32, 32, 64, 64, 128, 256, 512]), 1, 1]
        if dims >= 2:
            tb[1] = rng.choice([1, 2, 4, 8, 8, 16, 32])
        if dims == 3:
            tb[2] = rng.choice([1, 1, 2, 4])
        if one_on is not None:
            tb[one_on] = 1
        n = tb[0] * tb[1] * tb[2]
        if lo <= n <= hi:
            return tb
    return [32, 8 if dims > 1 and one_on != 1 else 1, 1]


def merge_factors(rng, dims, axes=None):
    f = [1, 1, 1]
    for d in (axes if axes is not None else range(dims)):
        f[d] = rng.choice([1, 1, 2, 4, 8])
    return f


def gen_tile(rng, prog, space):
    dims = prog["dims"]
    c = {"tb": block(rng, dims)}
    c["smem"] = rng.random() < 0.35
    c["cmem"] = rng.random() < 0.3
    c["hcol"] = rng.random() < 0.2
    mode = rng.choice(["none", "bm", "bm", "cm", "cm", "vec-bm", "vec-cm"])
    if mode in ("bm", "cm"):
        f = merge_factors(rng, dims)
        c[mode] = f
        c["uf"] = [x if rng.random() < 0.6 else rng.choice([y for y in (1, 2, 4, 8) if y <= x])
                   for x in f]
    elif mode == "vec-bm":
        c["vec"] = rng.choice([2, 4])
        c["bm"] = [c["vec"] * rng.choice([1, 1, 2])] + merge_factors(rng, dims)[1:]
        c["uf"] = [c["bm"][0], 1, 1]
        c["smem"] = False
    elif mode == "vec-cm":
        c["vec"] = rng.choice([2, 4])
        c["bm"] = [c["vec"], 1, 1]
        c["cm"] = [rng.choice([2, 4]), 1, 1]
        if dims >= 2 and rng.random() < 0.4:
            c["cm"][dims - 1] = rng.choice([2, 4])
        c["uf"] = [c["vec"] * c["cm"][0], 1, 1]
        c["smem"] = False
    if not (c["smem"] or c["cmem"] or c["hcol"] or c.get("vec", 1) > 1 or
            any(x > 1 for k in ("uf", "cm", "bm") for x in c.get(k, []))):
        c[rng.choice(["smem", "cmem"])] = True
    if rng.random() < 0.25:
        c["maxreg"] = pick(rng, [v for v in space["maxreg"] if v > 1])
    return c


def stream_axis(rng, dims):
    return 1 if dims == 2 or rng.random() < 0.3 else 2


def gen_stream(rng, prog, space, kind):
    dims = prog["dims"]
    sd = stream_axis(rng, dims)
    c = {"stream": "yz"[sd - 1], "sb": pick(rng, [v for v in space["sb"] if 8 <= v <= 256])}
    if kind == "stream-reg":
        c["tb"] = block(rng, dims, one_on=sd)
        c["tb"][0] = max(32, c["tb"][0])
        if dims == 3:
            other = 3 - sd  # the other in-plane axis: y when streaming z, z when streaming y
            c["bm"] = [1, 1, 1]
            c["bm"][other] = rng.choice([1, 2, 4])
    else:
        c["tb"] = block(rng, dims, one_on=sd)
    if kind == "stream":
        c["smem"] = True
        c["regq"] = pick(rng, space["regq"])
    if kind == "stream-retime":
        c["retime"] = True
    c["prefetch"] = rng.random() < 0.5
    if rng.random() < 0.5:
        c["uf"] = [1, 1, 1]
        c["uf"][sd] = rng.choice([2, 4])
    if rng.random() < 0.2:
        c["maxreg"] = pick(rng, [v for v in space["maxreg"] if v > 1])
    return c


def gen_temporal(rng, prog, space, kind):
    dims = prog["dims"]
    most = prog["steps"] if dims < 3 else min(prog["steps"], 4)  # 3D tiles are small
    c = {"tblock": pick(rng, [v for v in space["tblock"] if v > 1], below=most)}
    if kind == "temporal":
        shapes = {1: [[128, 1, 1], [256, 1, 1], [512, 1, 1], [1024, 1, 1]],
                  2: [[32, 8, 1], [64, 8, 1], [64, 4, 1], [32, 16, 1], [128, 4, 1], [64, 16, 1]],
                  3: [[32, 16, 2], [32, 8, 2], [32, 4, 4], [16, 16, 2], [32, 8, 4], [64, 8, 2]]}
        c["tb"] = list(rng.choice(shapes[dims]))
    else:
        c["stream"] = "y" if dims == 2 else "z"
        c["sb"] = pick(rng, [v for v in space["sb"] if 16 <= v <= 256])
        if dims == 2:
            c["tb"] = [rng.choice([64, 128, 256, 512]), 1, 1]
        else:
            c["tb"] = [rng.choice([16, 32, 64]), rng.choice([8, 16, 32]), 1]
        c["retime"] = kind == "temporal-retime"
    if rng.random() < 0.15:
        c["maxreg"] = pick(rng, [v for v in space["maxreg"] if v > 1])
    return c


def gen_plain(rng, prog, space):
    c = {"tb": block(rng, prog["dims"])}
    if rng.random() < 0.3:
        c["maxreg"] = pick(rng, [v for v in space["maxreg"] if v > 1])
    return c


def gen_config(rng, family, prog, space):
    if family == "plain":
        return spec_text(gen_plain(rng, prog, space))
    if family == "tile":
        return spec_text(gen_tile(rng, prog, space))
    if family.startswith("stream"):
        return spec_text(gen_stream(rng, prog, space, family))
    return spec_text(gen_temporal(rng, prog, space, family))


# ---- running the tools --------------------------------------------------------------------


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           universal_newlines=True)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "timed out after %d s" % timeout


def emit(stencilc, job, side):
    folder = os.path.join(job["dir"], side)
    os.makedirs(folder, exist_ok=True)
    cmd = [stencilc, job["file"], "--stencil", job["prog"]["name"], "--type", job["type"],
           "--config", job["config"], "-o", os.path.join(folder, "x.cu")] + job["flags"]
    with open(os.path.join(folder, "cmd.txt"), "w") as f:
        f.write(" ".join(shlex.quote(a) for a in cmd) + "\n")
    rc, out = run(cmd, STENCILC_TIMEOUT)
    return rc, out.strip()


def refusal(rc, out):
    """A refusal of the configuration (or of the program variant): exit 1 with a message."""
    return rc == 1 and "error" in out


def space_of(stencilc, path, name, typ, cache):
    """Parameter values of `stencilc --list-space`, as integers (1 = off). A triple's axes are
    keys of their own (tbx, tby, tbz): older binaries print them so ("tbx 1 2 4"), newer ones as
    --config writes them ("tb x 1 2 4", "maxreg off 32 64", "smem off on")."""
    key = (path, name, typ)
    if key not in cache:
        rc, out = run([stencilc, path, "--stencil", name, "--type", typ, "--list-space"],
                      STENCILC_TIMEOUT)
        space = {}
        words = {"off": 1, "on": 2}
        for line in out.splitlines():
            m = re.match(r"\s+([a-z]+)(?: ([xyz]))?\s+((?:(?:\d+|off|on)\s*)+?)\s*(\(fixed\))?\s*$",
                         line)
            if m:
                space[m.group(1) + (m.group(2) or "")] = [int(words.get(v, v))
                                                          for v in m.group(3).split()]
        cache[key] = space if rc == 0 and "tbx" in space else None
    return cache[key]


def normalise_ptx(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        line = line.split("//", 1)[0].rstrip()
        if line.strip() and not line.lstrip().startswith(".file"):
            out.append(line)
    return "\n".join(out) + "\n"


def normalise_source(text):
    """A .h or .cu without what changes with any edit of the generator's sources."""
    text = re.sub(r"\(generator [0-9a-f]+\)", "(generator ID)", text)
    return re.sub(r"(STENCILC_PAIR_\w+\s*(?:!=\s*)?)0x[0-9a-fA-F]+ULL", r"\1SEAL", text)


def compile_ptx(nvcc, folder, dist):
    cmd = [nvcc, "-ptx", "-arch=sm_90", "-std=c++17", os.path.join(folder, "x.cu"),
           "-o", os.path.join(folder, "x.ptx")]
    if dist:
        cmd[1:1] = ["-I", NCCL_STUB]
    rc, out = run(cmd, NVCC_TIMEOUT)
    if rc != 0:
        return None, "nvcc: %s: %s" % (rc, last_line(out))
    with open(os.path.join(folder, "x.ptx")) as f:
        return normalise_ptx(f.read()), None


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    err = [l for l in lines if "error" in l]
    return (err or lines or ["(no output)"])[0][:200]


def read(path):
    with open(path) as f:
        return f.read()


def compare(job, nvcc):
    """Compiles both sides of an emitted job and compares; returns the job with its verdict."""
    try:
        return compare_files(job, nvcc)
    except OSError as e:  # a binary that exits 0 without writing x.cu or x.h
        job["verdict"], job["why"] = "fail", str(e)
        job["h_same"] = job["cu_same"] = None
        return job


def compare_files(job, nvcc):
    dist = "--distributed" in job["flags"]
    ptx, errs = {}, []
    for side in ("old", "new"):
        ptx[side], err = compile_ptx(nvcc, os.path.join(job["dir"], side), dist)
        if err:
            errs.append("%s %s" % (side, err))
    src = {s: {e: normalise_source(read(os.path.join(job["dir"], s, "x." + e)))
               for e in ("cu", "h")} for s in ("old", "new")}
    job["h_same"] = src["old"]["h"] == src["new"]["h"]
    job["cu_same"] = src["old"]["cu"] == src["new"]["cu"]
    if errs:
        job["verdict"], job["why"] = "fail", "; ".join(errs)
    else:
        job["verdict"] = "same" if ptx["old"] == ptx["new"] else "differ"
    return job


# ---- the run ------------------------------------------------------------------------------


class Drawer:
    """Draws candidate jobs; which family comes next depends only on what OLD accepted, so a
    seed and an OLD binary give the same configurations whatever NEW does."""

    def __init__(self, rng, old, work):
        self.rng, self.old, self.work = rng, old, work
        self.progs = all_programs()
        self.replay = replay_configs()
        self.spaces, self.variants = {}, {}
        self.valid = collections.Counter()
        self.used = collections.Counter()  # draws of each program for plain and tile

    def variant(self, prog, kind):
        if kind is None or prog["bcs"] == {kind}:
            return prog["path"]
        key = (prog["path"], kind)
        if key not in self.variants:
            folder = os.path.join(self.work, "variants")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, "%s.%s.st" % (prog["stem"], kind))
            with open(path, "w") as f:
                f.write(with_boundary(read(prog["path"]), kind))
            self.variants[key] = path
        return self.variants[key]

    def draw(self):
        rng = self.rng
        family = min(FAMILIES, key=lambda f: (self.valid[f], FAMILIES.index(f)))
        progs = self.progs
        if family.startswith(("stream", "temporal-")):
            progs = [p for p in progs if p["dims"] >= 2]
        if family in ("plain", "tile"):  # they take every program: each one in turn
            fewest = min(self.used[p["path"], p["name"]] for p in progs)
            progs = [p for p in progs if self.used[p["path"], p["name"]] == fewest]
        prog = rng.choice(progs)
        if family in ("plain", "tile"):
            self.used[prog["path"], prog["name"]] += 1
        typ = rng.choice(["float", "double"])
        x = rng.random()
        if family.startswith("temporal"):  # fixed boundaries only (docstring)
            kind = None if x < 0.3 else "fixed" if x < 0.9 else rng.choice(BOUNDARIES)
        else:
            kind = None if x < 0.35 else rng.choice(BOUNDARIES)
        path = self.variant(prog, kind)
        flags = []
        if rng.random() < 0.15:
            flags.append("--distributed")
        if typ == "float" and rng.random() < 0.1:
            flags.append("--fast-math")
        recorded = self.replay.get(prog["stem"], {}).get(family)
        space = space_of(self.old, path, prog["name"], typ, self.spaces)
        if recorded and rng.random() < 0.5:
            config, origin = rng.choice(recorded), "recorded"
        elif space is None:
            config, origin = "default", "drawn"
        else:
            config, origin = gen_config(rng, family, prog, space), "drawn"
        bcs = {kind} if kind else prog["bcs"]
        return {"prog": prog, "file": path, "type": typ, "config": config, "flags": flags,
                "family": family, "bcs": bcs, "origin": origin}


def describe(job):
    p = job["prog"]
    where = os.path.relpath(p["path"], ROOT)
    bc = "+".join(sorted(job["bcs"], key=BOUNDARIES.index))
    if job["file"] != p["path"]:
        bc += " (every field's boundary replaced)"
    return "%s %s %s bc=%s %s--config '%s'" % (where, p["name"], job["type"], bc,
                                              "".join(f + " " for f in job["flags"]),
                                              job["config"])


def keep(job, dest):
    if not dest:
        return
    p = job["prog"]
    target = os.path.join(dest, "%04d-%s-%s" % (job["index"], p["name"], job["type"]))
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(job["dir"], target)
    if job["file"] != p["path"]:  # a copy with another boundary: cmd.txt names a temporary
        shutil.copy(job["file"], os.path.join(target, os.path.basename(job["file"])))


def coverage_table(done):
    cols = ["float", "double"] + BOUNDARIES + ["1D", "2D", "3D", "dist", "fast", "total"]
    rows = []
    for fam in FAMILIES:
        js = [j for j in done if j["family"] == fam]
        cnt = [sum(1 for j in js if j["type"] == t) for t in ("float", "double")]
        cnt += [sum(1 for j in js if b in j["bcs"]) for b in BOUNDARIES]
        cnt += [sum(1 for j in js if j["prog"]["dims"] == d) for d in (1, 2, 3)]
        cnt += [sum(1 for j in js if "--distributed" in j["flags"]),
                sum(1 for j in js if "--fast-math" in j["flags"]), len(js)]
        rows.append([fam] + cnt)
    tot = ["all"] + [sum(r[i] for r in rows) for i in range(1, len(cols) + 1)]
    widths = [16] + [max(5, len(c) + 1) for c in cols]
    lines = ["".join(str(v).rjust(w) if i else str(v).ljust(w)
                     for i, (v, w) in enumerate(zip(r, widths)))
             for r in [["family"] + cols] + rows + [tot]]
    return "\n".join(lines)


class Run:
    """One comparison: draws in this thread, compiles in a pool of --jobs, counts."""

    def __init__(self, a):
        self.a = a
        self.old, self.new = os.path.abspath(a.old), os.path.abspath(a.new)
        self.keep_dir = os.path.abspath(a.keep) if a.keep else None
        self.start = time.time()
        self.lock = threading.Lock()
        self.stats = collections.Counter()
        self.refused_by = collections.Counter()
        self.done, self.bad = [], []
        self.tried = self.nprogs = 0

    def report(self, job, problem):
        with self.lock:
            self.bad.append(job)
            keep(job, self.keep_dir)
            print("#%d %s: %s" % (job["index"], problem, describe(job)), flush=True)

    def finished(self, job):
        with self.lock:
            self.done.append(job)
            self.stats[job["verdict"]] += 1
            if job["h_same"] is not None:
                self.stats["h_same" if job["h_same"] else "h_differ"] += 1
                self.stats["cu_same" if job["cu_same"] else "cu_differ"] += 1
            n = len(self.done)
        problems = []
        if job["verdict"] == "differ":
            problems.append("PTX differs")
        elif job["verdict"] == "fail":
            problems.append("FAILED (%s)" % job["why"])
        if job["h_same"] is False:
            problems.append("header differs")
        if problems:
            self.report(job, ", ".join(problems))
        else:
            shutil.rmtree(job["dir"], ignore_errors=True)
        if n % 25 == 0:
            print("ptx_same: %d/%d compared, %.0f s" % (n, self.a.count, time.time() - self.start),
                  file=sys.stderr, flush=True)

    def refused(self, job, rc_new, out_new, out_old):
        """OLD refused job: NEW must refuse it too."""
        self.stats["refused"] += 1
        self.refused_by[job["family"]] += 1
        if not refusal(rc_new, out_new):
            self.stats["refusal_differs"] += 1
            what = ("accepts" if rc_new == 0
                    else "fails (exit %s: %s) on" % (rc_new, last_line(out_new)))
            self.report(job, "NEW %s what OLD refused (%s)" % (what, last_line(out_old)))
        shutil.rmtree(job["dir"], ignore_errors=True)

    def draw_and_compare(self, work):
        """Draws until --count configurations that OLD accepts; nvcc runs in the pool meanwhile."""
        a = self.a
        drawer = Drawer(random.Random(a.seed), self.old, work)
        self.nprogs = len(drawer.progs)
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = []
            while sum(drawer.valid.values()) < a.count and self.tried < 50 * a.count:
                job = drawer.draw()
                job["index"] = self.tried
                job["dir"] = os.path.join(work, "%04d" % self.tried)
                self.tried += 1
                rc_old, out_old = emit(self.old, job, "old")
                rc_new, out_new = emit(self.new, job, "new")
                if rc_old != 0 and refusal(rc_old, out_old):
                    self.refused(job, rc_new, out_new, out_old)
                    continue
                if rc_old == 0:  # the family of what OLD emitted (stencilc normalises the text)
                    cu = read(os.path.join(job["dir"], "old", "x.cu"))
                    m = re.search(r"Configuration: (\S*)", cu)
                    job["family"] = family_of(m.group(1)) if m else job["family"]
                drawer.valid[job["family"]] += 1
                if rc_old != 0 or rc_new != 0:
                    self.stats["fail_emit"] += 1
                    job["verdict"] = "fail"
                    job["why"] = "; ".join("%s stencilc exit %s: %s" % (s, rc, last_line(out))
                                           for s, rc, out in (("old", rc_old, out_old),
                                                              ("new", rc_new, out_new)) if rc != 0)
                    job["h_same"] = job["cu_same"] = None  # nothing to compare
                    self.finished(job)
                    continue
                fut = pool.submit(compare, job, a.nvcc)
                fut.add_done_callback(lambda f: self.finished(f.result()))
                futures.append(fut)
            concurrent.futures.wait(futures)

    def ok(self):
        return not self.bad and len(self.done) >= self.a.count

    def summary(self):
        a, st, done = self.a, self.stats, self.done
        print()
        print("ptx_same: OLD %s" % self.old)
        print("          NEW %s" % self.new)
        print("seed %d: %d configurations drawn, %d refused by OLD (%s), %d compared in %.0f s "
              "with %d jobs" % (a.seed, self.tried, st["refused"],
                                ", ".join("%s %d" % (f, self.refused_by[f])
                                          for f in FAMILIES if self.refused_by[f]),
                                len(done), time.time() - self.start, a.jobs))
        if len(done) < a.count:
            print("only %d valid configurations after %d draws" % (len(done), self.tried))
        print("PTX: %d identical, %d different, %d failed to emit or compile in either binary"
              % (st["same"], st["differ"], st["fail"]))
        unseen = len(done) - st["h_same"] - st["h_differ"]
        print("header (.h): %d identical, %d different%s" % (
            st["h_same"], st["h_differ"], ", %d not emitted" % unseen if unseen else ""))
        print(".cu text (for information; host code is not in the PTX): %d identical, %d different"
              % (st["cu_same"], st["cu_differ"]))
        if st["refusal_differs"]:
            print("refusals: NEW did not refuse %d configurations that OLD refused"
                  % st["refusal_differs"])
        print("recorded configurations (tests/data/replay_*_h100.tsv): %d of %d"
              % (sum(1 for j in done if j["origin"] == "recorded"), len(done)))
        print("programs: %d of the %d stencils" % (len({(j["prog"]["path"], j["prog"]["name"])
                                                        for j in done}), self.nprogs))
        print()
        print("coverage of the compared configurations (a program with several boundaries "
              "counts under each):")
        print(coverage_table(done))
        if self.keep_dir and self.bad:
            print("\nfiles of the %d configurations listed above: %s"
                  % (len(self.bad), self.keep_dir))
        print("\n%s" % ("SAME: every compared configuration has the same PTX and header"
                        if self.ok() else "DIFFERENT: see the lines above"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--count", type=int, default=300, help="configurations to compare (300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="nvcc processes at once (2)")
    ap.add_argument("--keep", metavar="DIR", help="keep the differing configurations' files here")
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    a = ap.parse_args()
    for b in (a.old, a.new, a.nvcc):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            ap.error("not an executable: %s" % b)
    if a.count < 1 or a.jobs < 1:
        ap.error("--count and --jobs must be at least 1")
    r = Run(a)
    work = tempfile.mkdtemp(prefix="ptx_same.")
    try:
        r.draw_and_compare(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    r.summary()
    return 0 if r.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
