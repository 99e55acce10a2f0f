#!/usr/bin/env python3
"""The default configuration adapts to the grid (issue 30, item 7): on a grid smaller than
config_default's thread block (16^3 in 3D, a 1D grid of 10) or flat (a 3D grid one point deep),
stencilc emits a plain kernel whose block fits instead of refusing. `check` runs there too, and
where a GPU exists `bench` verifies the emitted kernel against the interpreter on that grid.

usage: test_default_fits.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
EX = os.path.join(ROOT, "examples")
failures = []

# (program, grid, the block each axis may hold at most: the grid rounded up to a power of two)
CASES = [("heat.st", "16x16x16", (16, 16, 16)),
         ("heat1d.st", "10", (16, 1, 1)),
         ("heat.st", "64x1x64", (64, 1, 64)),
         ("bench/j3d27pt.st", "64x1x64", (64, 1, 64)),
         ("bench/star2d1r.st", "5x5", (8, 8, 1))]


def run(*args):
    p = subprocess.run([STENCILC, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "\n" + detail))
    if not cond:
        failures.append(name)


with tempfile.TemporaryDirectory() as tmp:
    for prog, grid, room in CASES:
        name = f"{prog} --grid {grid}"
        cu = os.path.join(tmp, "out.cu")
        code, _, se = run(os.path.join(EX, prog), "--grid", grid, "-o", cu)
        check(name + ": emitted", code == 0 and os.path.exists(cu), se)
        if code != 0 or not os.path.exists(cu):
            continue
        with open(cu) as f:
            text = f.read()
        m = re.search(r"Configuration: tb=(\d+)x(\d+)x(\d+)", text)
        check(name + ": its block fits the grid", m is not None
              and all(int(m.group(i + 1)) <= room[i] for i in range(3)), text[:300])
        os.remove(cu)
        code, so, se = run("check", os.path.join(EX, prog), "--grid", grid)
        check(name + ": check runs", code == 0 and "checksum" in so, so + se)
        code, so, se = run("bench", os.path.join(EX, prog), "--grid", grid, "--steps", "3")
        if "needs a GPU" in se:
            print("skip " + name + ": bench (no GPU)")
        else:
            check(name + ": bench verifies it against the interpreter", code == 0
                  and "verified against the interpreter" in so, so + se)
    # the nvcc of the user's build compiles what was emitted for the 1D grid of 10
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if os.path.exists(nvcc):
        cu = os.path.join(tmp, "tiny.cu")
        run(os.path.join(EX, "heat1d.st"), "--grid", "10", "-o", cu)
        p = subprocess.run([nvcc, "-c", "-o", os.path.join(tmp, "tiny.o"), cu], capture_output=True,
                           text=True, timeout=300)
        check("heat1d.st --grid 10: nvcc compiles it", p.returncode == 0, p.stderr[-1500:])

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
