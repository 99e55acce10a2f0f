#!/usr/bin/env python3
"""The C prefix and the header's path (issue 34): `--name PREFIX` puts PREFIX on every emitted
symbol, type, macro and the header guard, so that one stencil compiled for float and for double
links into one program; `--header PATH` puts the header elsewhere, and the .cu includes it by
its path relative to the .cu; `-o k.cpp` gives k.h. Emitting is checked everywhere; compiling
and linking need nvcc only (no GPU), and the distributed API compiles against
tests/dist/nccl_stub (linked where libnccl is found). Exits 77 without nvcc, after the checks
that need none.

usage: test_names.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
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
WAVE = os.path.join(ROOT, "examples", "wave2d.st")
HEAT = os.path.join(ROOT, "examples", "heat.st")

MAIN = r"""
#include <stdio.h>
#include "include/wave_f32.h"
#include "src/wave_f64.h"
int main(void)
{
    wave_f32_params a = wave_f32_params_defaults();
    wave_f64_params b = wave_f64_params_defaults();
    (void)a;
    (void)b;
    printf("%zu %zu %zu %zu %d\n", wave_f32_buffer_elems(10, 10, 1), wave_f64_buffer_elems(10, 10, 1),
           sizeof(wave_f32_real), sizeof(wave_f64_real), WAVE_F32_DIMS + WAVE_F64_DIMS);
    return 0;
}
"""


def run(*args, cwd=None):
    return clitest.run(STENCILC, *args, cwd=cwd, timeout=60)


def sh(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def strong_symbols(obj, cwd):
    """The global symbols obj defines, less the weak ones every CUDA object has."""
    _, out = sh(["nm", "-g", "--defined-only", obj], cwd)
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] in "TDBR"}


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    os.makedirs(os.path.join(tmp, "src"))
    os.makedirs(os.path.join(tmp, "include"))
    code, _, se = run(WAVE, "--name", "wave_f32", "--type", "float", "-o", "src/wave_f32.cu",
                      "--header", "include/wave_f32.h", cwd=tmp)
    check("--name and --header: written", code == 0, se)
    code, _, se = run(WAVE, "--name=wave_f64", "--type=double", "-o", "src/wave_f64.cu", cwd=tmp)
    check("--name=PREFIX: written, the header beside the .cu", code == 0 and
          os.path.exists(os.path.join(tmp, "src", "wave_f64.h")), se)
    texts = {}
    for rel in ["src/wave_f32.cu", "include/wave_f32.h", "src/wave_f64.cu", "src/wave_f64.h"]:
        with open(os.path.join(tmp, rel)) as f:
            texts[rel] = f.read()
    check("no symbol keeps the stencil's name", not any(re.search(r"\bwave2d_|\bWAVE2D_", t) for t in texts.values()))
    h32 = texts["include/wave_f32.h"]
    check("the header guard follows --name", "#ifndef WAVE_F32_STENCIL_H" in h32 and "WAVE_F32_HALO_X" in h32, h32[:300])
    check("the types and functions follow --name", "wave_f32_params wave_f32_params_defaults(void);" in h32)
    check("the seal follows --name", "#define STENCILC_PAIR_wave_f32 " in h32)
    check("the .cu includes the header by its relative path",
          '#include "../include/wave_f32.h"\n' in texts["src/wave_f32.cu"], texts["src/wave_f32.cu"][:600])
    check("the header names itself", h32.startswith("/* wave_f32.h: the C API of stencil wave2d.") or
          "/* wave_f32.h: the C API of stencil wave2d." in h32[:400], h32[:400])
    check("the kernels follow --name", "wave_f32_step(" in texts["src/wave_f32.cu"])

    # the header's default path: the output's with .h for its extension
    code, _, se = run(HEAT, "-o", "k.cpp", cwd=tmp)
    check("-o k.cpp writes k.h", code == 0 and os.path.exists(os.path.join(tmp, "k.h")) and
          not os.path.exists(os.path.join(tmp, "k.cpp.h")), se)
    with open(os.path.join(tmp, "k.cpp")) as f:
        check("k.cpp includes k.h", '#include "k.h"\n' in f.read())
    code, _, se = run(HEAT, "-o", "k.h", cwd=tmp)
    check("-o k.h: the header would be the .cu: usage error", code == 2 and "--header" in se, se)
    code, _, se = run(HEAT, "-o", "a.cu", "--header", "a.cu", cwd=tmp)
    check("--header naming the .cu: usage error", code == 2, se)
    code, _, se = run(HEAT, "-o", "a.cu", "--header", "nowhere/a.h", cwd=tmp)
    check("--header in a missing folder: an error", code == 1 and "does not exist" in se, se)
    for bad in ["1wave", "wave-f32", "", "a b"]:
        code, _, se = run(HEAT, "--name", bad, "-o", "b.cu", cwd=tmp)
        check(f"--name '{bad}': usage error", code == 2 and "--name takes a C identifier" in se, se)
    code, _, se = run(HEAT, cwd=tmp)
    with open(os.path.join(tmp, "heat.h")) as f:
        check("without --name the prefix is the stencil's", code == 0 and "#ifndef HEAT_STENCIL_H" in f.read())
    code, _, se = run(HEAT, "--name", "x", "--validate", "-o", "src/v.cu", "--header", "include/v.h", cwd=tmp)
    check("--validate with the header elsewhere", code == 0 or (code == 1 and "libclang" in se), se)

    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    if not os.access(nvcc, os.X_OK):
        nvcc = shutil.which("nvcc")
    if not nvcc:
        finish()
        print("no nvcc: the compile and link checks skipped")
        sys.exit(77)

    # float and double in one program: compiled apart, linked together, run (host calls only)
    with open(os.path.join(tmp, "main.c"), "w") as f:
        f.write(MAIN)
    for v in ["f32", "f64"]:
        code, out = sh([nvcc, "-c", f"src/wave_{v}.cu", "-o", f"wave_{v}.o"], tmp)
        check(f"nvcc -c wave_{v}.cu", code == 0, out)
    clash = strong_symbols("wave_f32.o", tmp) & strong_symbols("wave_f64.o", tmp)
    check("no symbol defined by both objects", not clash, sorted(clash))
    code, out = sh([nvcc, "-x", "c++", "-c", "main.c", "-o", "main.o"], tmp)
    check("a C file includes both headers", code == 0, out)
    code, out = sh([nvcc, "main.o", "wave_f32.o", "wave_f64.o", "-o", "both"], tmp)
    check("both variants link into one program", code == 0, out)
    if code == 0:
        code, out = sh(["./both"], tmp)
        check("the program runs", code == 0 and out.split() == ["144", "144", "4", "8", "4"], out)

    # the distributed API: the same, against the NCCL declarations of tests/dist/nccl_stub
    stub = os.path.join(ROOT, "tests", "dist", "nccl_stub")
    objs = []
    for v, t in [("f32", "float"), ("f64", "double")]:
        code, _, se = run(WAVE, "--distributed", "--name", f"dwave_{v}", "--type", t, "-o", f"dwave_{v}.cu", cwd=tmp)
        code, out = sh([nvcc, "-I", stub, "-c", f"dwave_{v}.cu", "-o", f"dwave_{v}.o"], tmp)
        check(f"--distributed --name dwave_{v}: compiles", code == 0, out)
        objs.append(f"dwave_{v}.o")
    clash = strong_symbols(objs[0], tmp) & strong_symbols(objs[1], tmp)
    check("--distributed: no symbol defined by both objects", not clash, sorted(clash))
    with open(os.path.join(tmp, "dmain.c"), "w") as f:
        f.write('#include "dwave_f32.h"\n#include "dwave_f64.h"\nint main(void) { return DWAVE_F32_DIMS - DWAVE_F64_DIMS; }\n')
    code, out = sh([nvcc, "-I", stub, "-x", "c++", "-c", "dmain.c", "-o", "dmain.o"], tmp)
    check("--distributed: both headers in one file", code == 0, out)
finish()
