#!/usr/bin/env python3
"""--same-bits on the command line, no GPU needed: the option in --help and in the IR (the
tuning database's key), its conflicts (--fast-math, replay) and its constraint (retime=on), and
the emitted text: in every kernel family, the point arithmetic is the round-to-nearest
intrinsics (codegen/kir_rounded.c) with no bare + - * / between values left, a sum of products
an __fmaf_rn chain on a leading __fmul_rn, a division by a constant a product by its
reciprocal in every kernel (the plain one too), in float and in double. Without the option the
same kernels have bare operators (the check can fail). Where nvcc is, the outputs compile.

usage: test_same_bits.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import clitest
from clitest import check, finish

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
STAR = os.path.join(ROOT, "examples", "bench", "star3d1r.st")
FUSED = "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1"
# star3d1r's kernel families: plain, tile with merging, cyclic merging with constant memory,
# vector, streaming (register mode, shared memory), fused steps (tile and streaming)
STAR_CONFIGS = [None, "tb=32x4x2,uf=2x1x1,bm=2x2x1", "tb=64x1x1,cmem=on,uf=2x1x1,cm=2x2x1",
                "tb=32x8x1,uf=2x1x1,bm=2x1x1,vec=2", "tb=64x4x1,stream=z,sb=64", "tb=32x8x1,stream=z,sb=64,smem=on",
                "tb=32x8x4,tblock=2", FUSED]
# a sub of a product, divisions by a constant and by a value, exp and sqrt, a shared
# subexpression
MIXED = ("stencil mixed {\n  grid 2d;\n  type float;\n  size 64, 128;\n  steps 8;\n"
         "  state u boundary fixed;\n  let s = u[1,0] * u[1,0];\n"
         "  u = u - 0.1 * exp(-u) / (1.0 + s) + s / 7.0 + 1.0 / sqrt(1.0 + u[0,1] * u[0,1])"
         " - 0.5 * u[-1,0] + u[0,-1] / 3.0;\n}\n")
# a real constant, or one in constant memory (cmem=on: p_NAME_c[k])
WEIGHT = re.compile(r"\b\d+\.\d+(e[-+]?\d+)?f?\b|_c\[\d+\]")
# star3d1r's sum: the last term's weight outermost, the centre's innermost, by value or by slot
CHAIN = re.compile(r"__fmaf_rn\((0\.125300005f|\w+_c\[6\]), [^;]*__fmul_rn\((0\.25f|\w+_c\[0\]), ")


def run(*args, cwd=None):
    return clitest.run(STENCILC, *args, cwd=cwd)


def emit(src, out, *args):
    code, _, se = run(src, "-o", out, *args)
    return open(out).read() if code == 0 else f"exit {code}: {se}"


def unsubscripted(line):
    """The line without its array subscripts (index arithmetic), innermost first."""
    prev = None
    while prev != line:
        prev, line = line, re.sub(r"\[[^\[\]]*\]", "", line)
    return line


def arithmetic_lines(text):
    """The lines of the kernels that compute values: those with a real constant or an _rn call
    (the point updates, shared subexpressions and reductions)."""
    device = text[text.find("Device code"):]
    return [ln for ln in device.splitlines() if ("_rn(" in ln or WEIGHT.search(ln))
            and "=" in ln and not ln.lstrip().startswith(("/*", "*", "#", "for ", "if "))]


def bare_ops(text):
    """The arithmetic lines with a bare binary + - * / between values."""
    bare = re.compile(r"[\w)]\s[-+*/]\s")
    return [ln.strip() for ln in arithmetic_lines(text) if bare.search(unsubscripted(ln).split("=", 1)[1])]


def check_families(tmp):
    cu = os.path.join(tmp, "star.cu")
    for cfg in STAR_CONFIGS:
        args = ["--config", cfg] if cfg else []
        text = emit(STAR, cu, *args, "--same-bits")
        lines = arithmetic_lines(text)
        check(f"--same-bits {cfg or 'default'}: intrinsics, no bare operator",
              lines and not bare_ops(text) and "__fmaf_rn(" in text, "\n".join(bare_ops(text)[:5]) or text[-800:])
        check(f"--same-bits {cfg or 'default'}: a chain in source order on a leading __fmul_rn",
              CHAIN.search(text), "\n".join(lines[:3]))
        plain = emit(STAR, cu, *args)
        check(f"without --same-bits {cfg or 'default'}: bare operators, no intrinsics",
              bare_ops(plain) and "_rn(" not in plain, plain[-800:])


def check_mixed(tmp):
    src, cu = os.path.join(tmp, "mixed.st"), os.path.join(tmp, "mixed.cu")
    with open(src, "w") as f:
        f.write(MIXED)
    for typ, fma, div in (("float", "__fmaf_rn(", "__fdiv_rn("), ("double", "__fma_rn(", "__ddiv_rn(")):
        for cfg in ("tb=32x4,uf=2x1,bm=2x2", "tb=64x1,stream=y,sb=32,tblock=4"):
            text = emit(src, cu, "--config", cfg, "--type", typ, "--same-bits")
            check(f"mixed {typ} {cfg}: no bare operator", not bare_ops(text), "\n".join(bare_ops(text)[:5]))
            check(f"mixed {typ} {cfg}: fma, rounded sub and division, exp and sqrt as before",
                  all(s in text for s in (fma, div, "__dsub_rn(" if typ == "double" else "__fsub_rn(", "exp",
                                          "sqrt")), text[-1200:])
            check(f"mixed {typ} {cfg}: x - a*b as an fma of -a", re.search(re.escape(fma) + r"-", text), text[-1200:])
        mul, third, three = ("__fmul_rn(", "0.333333343f", "3.0f") if typ == "float" else \
            ("__dmul_rn(", "0.33333333333333331", ", 3.0)")
        # every kernel multiplies by the reciprocal: the same bits, no division's cost
        check(f"mixed {typ}: the division by 3 as a product by its reciprocal, the one by a value kept",
              mul in text and third in text and three not in text and div in text, text[-1200:])
    plain = emit(src, cu, "--same-bits")  # the default configuration: the plain kernel alone
    check("mixed float, the plain kernel: the reciprocal too", "0.333333343f" in plain and "3.0f" not in plain,
          plain[-1200:])
    return src


def check_options(tmp, mixed):
    code, so, _ = run("--help")
    check("--help lists --same-bits", code == 0 and "--same-bits" in so, so[-600:])
    _, ir, _ = run(STAR, "--dump-ir", "--same-bits")
    _, ir_plain, _ = run(STAR, "--dump-ir")
    check("--same-bits is part of the IR (the tuning database's key)",
          ", same-bits" in ir.splitlines()[0] and "same-bits" not in ir_plain, ir[:200])
    code, _, se = run(STAR, "--same-bits", "--fast-math", "-o", os.path.join(tmp, "x.cu"))
    check("--same-bits with --fast-math: a usage error", code == 2 and "conflict" in se, se)
    code, _, se = run("replay", os.path.join(tmp, "none.tsv"), "--same-bits")
    check("replay --same-bits: a usage error", code == 2 and "--same-bits" in se, se)
    code, _, se = run(STAR, "--same-bits", "--config", "tb=32x32x1,stream=z,sb=128,retime=on",
                      "-o", os.path.join(tmp, "x.cu"))
    check("--same-bits refuses retime=on, naming the constraint", code == 2 and "retime" in se
          and "same-bits" in se, se)
    code, _, _ = run(STAR, "--config", "tb=32x32x1,stream=z,sb=128,retime=on", "-o", os.path.join(tmp, "x.cu"))
    check("retime=on without --same-bits", code == 0)
    code, so, se = run("check", mixed, "--same-bits")
    check("check --same-bits runs", code == 0 and "mixed" in so, se)
    code, _, se = run("bench", STAR, "--same-bits")
    check("bench --same-bits: accepted (no GPU here: a run error, not a usage error)", code in (0, 1), se)
    text = emit(STAR, os.path.join(tmp, "n.cu"), "--same-bits")
    check("the configuration line says same bits", "(same bits:" in text.splitlines()[1]
          and "(same bits:" in open(os.path.join(tmp, "n.h")).read(), text[:300])


def check_nvcc(tmp, mixed):
    nvcc = "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        print("no nvcc: the compile checks skipped")
        return
    for src, args in ((STAR, ["--config", FUSED]), (mixed, ["--type", "double", "--config", "tb=32x4,uf=2x1,bm=2x2"])):
        cu = os.path.join(tmp, "c.cu")
        emit(src, cu, *args, "--same-bits", "--distributed")
        p = subprocess.run([nvcc, "-arch=sm_90", "-c", "-o", os.path.join(tmp, "c.o"), cu,
                            "-I", os.path.join(ROOT, "tests", "dist", "nccl_stub")],
                           capture_output=True, text=True, timeout=300)
        check(f"--same-bits output compiles with nvcc ({os.path.basename(src)} {' '.join(args)})",
              p.returncode == 0, p.stderr[-1500:])


with tempfile.TemporaryDirectory() as tmp:
    check_families(tmp)
    mixed = check_mixed(tmp)
    check_options(tmp, mixed)
    check_nvcc(tmp, mixed)
    for example in sorted(glob.glob(os.path.join(ROOT, "examples", "*.st"))):
        code, _, _ = run(example, "-o", os.path.join(tmp, "e.cu"))
        if code != 0:  # a file of several stencils
            continue
        text = emit(example, os.path.join(tmp, "e.cu"), "--same-bits")
        check(f"{os.path.basename(example)} --same-bits: no bare operator", not bare_ops(text),
              "\n".join(bare_ops(text)[:5]))
finish()
