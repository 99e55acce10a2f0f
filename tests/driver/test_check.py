#!/usr/bin/env python3
"""`stencilc check` (issue 34): it honours --grid, --steps, --type and --config; reads initial
fields from .npy files (--init FIELD=FILE) and writes results as .npy (--save DIR or
FIELD=FILE) that numpy reads; refuses wrong shapes, foreign files and unknown fields with a
reason; warns and fails when values grow without bound. The expected .npy bytes are spelt out
here (CI may have no numpy); where python3 has numpy, the files are also read back with it.

usage: test_check.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import struct
import sys
import tempfile

import clitest
from clitest import check, finish

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
HEAT = os.path.join(ROOT, "examples", "heat.st")
WAVE = os.path.join(ROOT, "examples", "wave2d.st")

PROGRAMS = {
    # one step of this changes nothing: what goes in comes out
    "same.st": "stencil same { grid 2d; type double; param r = 0; state u boundary clamp; coef k;\n"
               "  u = u + r * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u + k); }\n",
    # grows tenfold a step: after 7 steps a millionfold and more
    "grows.st": "stencil grows { grid 1d; state u boundary periodic; u = 10 * u; }\n",
    "decays.st": "stencil decays { grid 1d; state u boundary periodic; u = 0.5 * u; }\n",
    # one step gives back the level before: what --init u@-1 set
    "back.st": "stencil back { grid 1d; type double; state u levels 3 boundary periodic; u = u@-1; }\n",
}


def npy(shape, values, code="<f8", fortran="False"):
    """The bytes numpy.save writes for a C-order array of float64 ('<f8') or float32 ('<f4')."""
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (code, fortran, dims)
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    fmt = {"<f8": "<d", "<f4": "<f", "<i4": "<i"}[code]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + \
        b"".join(struct.pack(fmt, v) for v in values)


def run(*args, cwd):
    return clitest.run(STENCILC, *args, cwd=cwd, timeout=60)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    for name, text in PROGRAMS.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)

    # --grid, --steps, --type
    code, so, se = run("check", HEAT, "--grid", "16x12x8", "--steps", "2", cwd=tmp)
    check("check --grid --steps: the grid and steps asked for", code == 0 and
          "check heat: grid 16 x 12 x 8, halo 1,1,1, 2 steps" in so, so + se)
    code, so, se = run("check", HEAT, "--grid=9x9x9", "--type=double", cwd=tmp)
    check("check --type double: no rounding to float", code == 0 and "grid 9 x 9 x 9" in so and
          "rounded to float" not in so, so + se)
    code, so, se = run("check", HEAT, "--grid", "9x9", cwd=tmp)
    check("check --grid of the wrong dimension: usage error", code == 2, se)
    code, so, se = run("check", HEAT, "--grid", "4096x4096x4096", cwd=tmp)
    check("check on a grid too large for the host: said so", code == 1 and "smaller --grid" in se, se)

    # --config: valid for the check grid (run where a GPU is, else said), or a usage error
    code, so, se = run("check", HEAT, "--config", "tb=32x4x2", "--grid", "40x20x10", cwd=tmp)
    check("check --config: accepted, the kernel run or said not to be", code == 0 and
          ("built but not run" in so or "max relative error" in so), so + se)
    code, so, se = run("check", HEAT, "--config", "tb=2048x1x1", cwd=tmp)
    check("check --config invalid: usage error", code == 2 and "not one of its values" in se, se)

    # .npy in and out: the identity program gives back what it got, byte for byte
    ny, nx = 3, 4
    u0 = [0.25 * i - 1.0 for i in range(ny * nx)]
    with open(os.path.join(tmp, "u0.npy"), "wb") as f:
        f.write(npy((ny, nx), u0))
    code, so, se = run("check", "same.st", "--grid", f"{nx}x{ny}", "--steps", "1", "--init", "u=u0.npy",
                       "--save=u=u1.npy", "--save", "all", cwd=tmp)
    check("check --init --save: runs", code == 0 and "initial u from u0.npy" in so and "saved u to u1.npy" in so,
          so + se)
    with open(os.path.join(tmp, "u1.npy"), "rb") as f:
        got = f.read()
    check("the saved .npy is numpy's bytes for the array", got == npy((ny, nx), u0), repr(got[:140]))
    check("--save DIR: every state and coef field", os.path.exists(os.path.join(tmp, "all", "u.npy")) and
          os.path.exists(os.path.join(tmp, "all", "k.npy")))
    # float32 in; the halo too (the padded shape); a float program saves float32
    with open(os.path.join(tmp, "u0f.npy"), "wb") as f:
        f.write(npy((ny + 2, nx + 2), [float(i) for i in range((ny + 2) * (nx + 2))], "<f4"))
    code, so, se = run("check", "same.st", "--grid", f"{nx}x{ny}", "--steps", "1", "--init", "u=u0f.npy",
                       "--type", "float", "--save", "u=u2.npy", cwd=tmp)
    with open(os.path.join(tmp, "u2.npy"), "rb") as f:
        got = f.read()
    want = [float((j + 1) * (nx + 2) + i + 1) for j in range(ny) for i in range(nx)]
    check("float32 with the halo in, the interior out as float32", code == 0 and got == npy((ny, nx), want, "<f4"),
          so + se + repr(got[:140]))
    try:
        import numpy
        a = numpy.load(os.path.join(tmp, "u1.npy"))
        check("numpy reads the saved file", a.shape == (ny, nx) and a.dtype == numpy.float64 and
              a.ravel().tolist() == u0, repr(a))
        b = numpy.load(os.path.join(tmp, "u2.npy"))
        check("numpy reads the float32 file", b.dtype == numpy.float32 and b.ravel().tolist() == want, repr(b))
    except ImportError:
        print("no numpy: the files were compared with their expected bytes only")

    # --init FIELD@-1: the level before of a three-level field, over what FIELD= set
    with open(os.path.join(tmp, "now.npy"), "wb") as f:
        f.write(npy((5,), [1.0, 2.0, 3.0, 4.0, 5.0]))
    with open(os.path.join(tmp, "before.npy"), "wb") as f:
        f.write(npy((5,), [-1.0, -2.0, -3.0, -4.0, -5.0]))
    code, so, se = run("check", "back.st", "--grid", "5", "--steps", "1", "--init", "u@-1=before.npy",
                       "--init", "u=now.npy", "--save", "u=after.npy", cwd=tmp)
    with open(os.path.join(tmp, "after.npy"), "rb") as f:
        got = f.read()
    check("check --init u@-1: the level before, whatever the order", code == 0 and
          got == npy((5,), [-1.0, -2.0, -3.0, -4.0, -5.0]), so + se + repr(got[-40:]))
    code, so, se = run("check", "decays.st", "--grid", "5", "--init", "u@-1=before.npy", cwd=tmp)
    check("check --init u@-1 of a two-level field: usage error", code == 2 and "three-level" in se, se)

    # what --init refuses
    with open(os.path.join(tmp, "wrong.npy"), "wb") as f:
        f.write(npy((5, 5), [0.0] * 25))
    with open(os.path.join(tmp, "ints.npy"), "wb") as f:
        f.write(npy((ny, nx), list(range(ny * nx)), "<i4"))
    with open(os.path.join(tmp, "fortran.npy"), "wb") as f:
        f.write(npy((ny, nx), u0, fortran="True"))
    with open(os.path.join(tmp, "short.npy"), "wb") as f:
        f.write(npy((ny, nx), u0)[:-5])
    with open(os.path.join(tmp, "text.npy"), "w") as f:
        f.write("1 2 3\n")
    os.mkfifo(os.path.join(tmp, "fifo.npy"))
    for args, want_code, words in [
            (["--init", "u=wrong.npy"], 1, "has shape (5, 5); the grid needs (3, 4) (C order, z y x), or (5, 6) with the halo"),
            (["--init", "u=ints.npy"], 1, "not float32"),
            (["--init", "u=fortran.npy"], 1, "Fortran order"),
            (["--init", "u=short.npy"], 1, "cut short"),
            (["--init", "u=text.npy"], 1, "not a .npy file"),
            (["--init", "u=missing.npy"], 1, "cannot read"),
            (["--init", "u=fifo.npy"], 1, "a FIFO"),
            (["--init", "v=u0.npy"], 2, "has no field 'v'"),
            (["--init", "uu=u0.npy"], 2, "did you mean 'u'"),
            (["--init", "u0.npy"], 2, "--init takes FIELD=FILE.npy"),
            (["--init", "u=u0.npy", "--init", "u=u0.npy"], 2, "names field 'u' twice"),
            (["--save", "w=x.npy"], 2, "has no field 'w'"),
            (["--save", "u=same.st"], 1, "input")]:
        code, so, se = run("check", "same.st", "--grid", f"{nx}x{ny}", *args, cwd=tmp)
        check(f"check {' '.join(args)}: refused", code == want_code and words in se, f"exit {code}\n{se}")
    code, so, se = run("same.st", "--init", "u=u0.npy", cwd=tmp)
    check("--init without check: usage error", code == 2 and "'--init' needs 'check'" in se, se)

    # values that grow without bound
    code, so, se = run("check", "grows.st", "--steps", "7", cwd=tmp)
    check("growth by more than a millionfold: a warning and exit 1", code == 1 and "grow without bound" in se, so + se)
    code, so, se = run("check", "decays.st", "--steps", "7", cwd=tmp)
    check("a decaying program passes", code == 0 and "grow" not in se, so + se)
finish()
