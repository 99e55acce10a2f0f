#!/usr/bin/env python3
"""$STC_NVCC: the tuner's compile made by nvcc (runtime/rt_nvcc.c), no GPU. For a few
configurations (box3d1r's eight-row kernel among them, whose registers NVRTC and nvcc give
differently), `stencilc model features --compile` with STC_NVCC reports the registers that nvcc
gives the emitted .cu's step kernel; an nvcc that cannot run is an error that says so; no scratch
folder is left behind. Exits 77 without nvcc or NVRTC.

usage: test_stc_nvcc.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import clitest
from clitest import check, finish

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, "examples", "bench")
CASES = [("box3d1r", "tb=128x2x1,stream=z,sb=64,bm=1x8x1,retime=on,prefetch=on"),
         ("star3d1r", "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1"),
         ("star2d1r", "tb=256x1x1,stream=y,sb=256,tblock=12"),
         ("star3d1r", None), ("box3d1r", None)]


def find_nvcc():
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    return nvcc if os.access(nvcc, os.X_OK) else shutil.which("nvcc")


def k_regs(name, cfg, env):
    args = [STENCILC, "model", "features", os.path.join(BENCH, name + ".st"), "--gpu", "H200", "--compile"]
    args += ["--config", cfg] if cfg else []
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    m = re.search(r"^k_regs +(\d+)$", r.stdout, re.M)
    return (int(m.group(1)) if m else None), r.returncode, r.stderr


def nvcc_regs(nvcc, name, cfg, tmp):
    """The largest count of the step kernels (NAME_step...) of `nvcc -cubin` on the emitted .cu."""
    cu = os.path.join(tmp, name + ".cu")
    args = [STENCILC, os.path.join(BENCH, name + ".st"), "-q", "-o", cu] + (["--config", cfg] if cfg else [])
    subprocess.run(args, check=True, timeout=120)
    r = subprocess.run([nvcc, "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-o", cu + "bin", cu],
                       capture_output=True, text=True, timeout=300)
    regs, kernel = [], None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        kernel = m.group(1) if m else kernel
        m = re.search(r"Used (\d+) registers", line)
        if m and kernel and kernel.startswith(name + "_step") and not kernel.endswith("_single"):
            regs.append(int(m.group(1)))
    return max(regs) if regs else None


nvcc = find_nvcc()
if not nvcc:
    print("no nvcc: skipped")
    sys.exit(77)
with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("STC_NVCC", None)
    plain, code, err = k_regs(*CASES[0], env)
    if plain is None:
        print("no NVRTC (model features --compile failed): skipped\n" + err)
        sys.exit(77)
    env["STC_NVCC"] = nvcc
    for name, cfg in CASES:
        got, code, err = k_regs(name, cfg, env)
        want = nvcc_regs(nvcc, name, cfg, tmp)
        print(f"{name} {cfg or '(default)'}: STC_NVCC {got}, nvcc on the .cu {want}")
        check(f"{name} {cfg}: nvcc's registers", code == 0 and got is not None and got == want, err)
    env["STC_NVCC"] = os.path.join(tmp, "no-such-nvcc")
    got, code, err = k_regs(*CASES[0], env)
    check("an nvcc that cannot run: an error naming STC_NVCC", code != 0 and "STC_NVCC" in err, err)
    left = [f for f in os.listdir(tmp) if f.startswith("stencilc-nvcc-")]
    check("no scratch folder left", not left, str(left))
finish()
