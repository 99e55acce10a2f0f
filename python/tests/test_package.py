#!/usr/bin/env python3
"""The GPU-free parts of the stencilc Python package (CI): the layout helpers, reading the
generated header, compiling heat.st and wave2d.st through stencilc and nvcc into a loadable
library, stencilc's diagnostics as StencilError, argument errors, and `pip install` of the
package with no network. Running on arrays needs a GPU: gpu_check.py does that.

Needs $STENCILC (the stencilc to use) and nvcc; exits 77 without nvcc."""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)
import stencilc  # noqa: E402
from stencilc.build import find_nvcc, read_text, stencilc_args  # noqa: E402
from stencilc.header import KernelInfo  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples")
CACHE = tempfile.mkdtemp(prefix="stencilc-py-test-")


def compile_example(name, **kw):
    return stencilc.compile(os.path.join(EXAMPLES, name), cache=CACHE, **kw)


def header_of(example, *args):
    """The header stencilc writes for an example (no nvcc)."""
    out = os.path.join(CACHE, "headers", example)
    os.makedirs(out, exist_ok=True)
    subprocess.run([os.environ["STENCILC"], os.path.join(EXAMPLES, example), "-o",
                    os.path.join(out, "k.cu"), "-q"] + list(args), check=True, capture_output=True)
    return KernelInfo(read_text(os.path.join(out, "k.h")))


class LayoutTest(unittest.TestCase):
    def test_3d(self):
        lay = stencilc.Layout(3, (1, 2, 3))
        self.assertEqual(lay.padded_shape((5, 6, 7)), (11, 10, 9))
        self.assertEqual(lay.interior((5, 6, 7)), (slice(3, 8), slice(2, 8), slice(1, 8)))
        self.assertEqual(lay.sizes((5, 6, 7)), (7, 6, 5))
        self.assertEqual(lay.interior_shape((11, 10, 9)), (5, 6, 7))
        # docs/c-api.md: ((k + h2) * P1 + (j + h1)) * P0 + (i + h0), P0 = nx + 2 h0, P1 = ny + 2 h1
        self.assertEqual(lay.index((2, 1, 4), (5, 6, 7)), ((4 + 3) * 10 + (1 + 2)) * 9 + (2 + 1))
        self.assertEqual(lay.index((-1, -2, -3), (5, 6, 7)), 0)

    def test_2d_and_1d(self):
        lay = stencilc.Layout(2, (1, 1, 0))
        self.assertEqual(lay.padded_shape((4, 3)), (6, 5))
        self.assertEqual(lay.sizes((4, 3)), (3, 4, 1))
        self.assertEqual(lay.index((0, 0), (4, 3)), 6)
        self.assertEqual(stencilc.Layout(1, (2, 0, 0)).padded_shape((10,)), (14,))
        with self.assertRaises(ValueError):
            lay.padded_shape((4, 3, 2))


class HeaderTest(unittest.TestCase):
    def test_two_state_fields(self):
        info = header_of("reaction_diffusion.st")
        self.assertEqual(info.prefix, "gray_scott")
        self.assertEqual([(f.name, f.kind, f.levels) for f in info.fields], [("u", "state", 2), ("v", "state", 2)])
        self.assertEqual(info.params, ["Du", "Dv", "F", "k", "dt"])

    def test_no_params_double(self):
        info = header_of(os.path.join("bench", "star2d1r.st"), "--type", "double")
        self.assertEqual((info.prefix, info.dtype, info.params), ("star2d1r", "float64", []))
        self.assertEqual(info.layout.halo, (1, 1, 0))


class CompileTest(unittest.TestCase):
    def test_heat(self):
        k = compile_example("heat.st")
        self.assertEqual((k.prefix, k.dtype, k.layout.dims, k.layout.halo), ("heat", "float32", 3, (1, 1, 1)))
        self.assertEqual(list(k.fields), ["u"])
        self.assertEqual(k.fields["u"].levels, 2)
        self.assertAlmostEqual(k.params["alpha"], 0.1, places=6)   # from the library itself
        size = getattr(k.so, "heat_buffer_elems")
        size.restype = ctypes.c_size_t
        self.assertEqual(size(5, 6, 7), 7 * 8 * 9)
        self.assertEqual(compile_example("heat.st").cu, k.cu)     # the second time: the cache

    def test_wave2d_double_with_config(self):
        k = compile_example("wave2d.st", type="float64", config="tb=32x4x1")
        self.assertEqual((k.prefix, k.dtype), ("wave2d", "float64"))
        self.assertEqual([(f.name, f.kind, f.levels) for f in k.fields.values()], [("u", "state", 3), ("c", "coef", 1)])
        self.assertEqual(k.params, {"dt2_h2": 0.25})
        self.assertIn("tb=32x4x1", read_text(k.cu)[:2000])

    def test_diagnostics_become_exceptions(self):
        program = "stencil bad {\n  grid 2d;\n  state u;\n  u = u + v;\n}\n"
        with self.assertRaises(stencilc.StencilError) as caught:
            stencilc.compile(program, cache=CACHE)
        e = caught.exception
        self.assertEqual(e.code, "STC-100")
        self.assertEqual((e.diagnostics[0]["line"], e.diagnostics[0]["col"]), (4, 11))
        self.assertIn("program.st:4:11: error: 'v' is not declared [STC-100]", str(e))
        self.assertIn("^", str(e))   # the caret under the place
        with self.assertRaises(stencilc.StencilError) as caught:
            compile_example("all_features.st")   # three stencils: which one?
        self.assertEqual(caught.exception.code, "STC-108")
        self.assertEqual(compile_example("all_features.st", stencil="minimal1d").layout.dims, 1)

    def test_argument_errors(self):
        self.assertEqual(stencilc_args(type="float64", autotune=True, budget="5s"),
                         ["--type", "double", "--autotune", "--budget", "5s"])
        with self.assertRaises(ValueError):
            stencilc_args(config="tb=32x8x1", autotune=True)
        with self.assertRaises(stencilc.BuildError):
            compile_example("heat.st", stencilc="/nonexistent/stencilc")
        wave = compile_example("wave2d.st")
        with self.assertRaises(TypeError) as caught:
            wave(u=object(), steps=1)    # c is missing; found before any array is touched
        self.assertIn("['c']", str(caught.exception))
        with self.assertRaises(TypeError):
            wave.grid(u=object(), c=object(), w=object())

    @unittest.skipUnless(shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0, "no GPU")
    def test_numpy_run(self):
        import numpy
        heat = compile_example("heat.st")
        g = heat(u=numpy.zeros((3, 4, 5)), steps=1, halo=1.0, alpha=0.1)
        self.assertAlmostEqual(float(g.u[0, 0, 0]), 0.3, places=6)   # three faces at 1


class PipTest(unittest.TestCase):
    def test_pip_install_offline(self):
        target = os.path.join(CACHE, "site")
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "-q",
                            "--target", target, PYTHON_DIR], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = subprocess.run([sys.executable, "-c", "import stencilc, os; print(stencilc.__file__); "
                            "print(os.path.exists(os.path.join(os.path.dirname(stencilc.__file__), 'shim.cu')))"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=target), cwd=CACHE)
        self.assertEqual(r.stdout.split(), [os.path.join(target, "stencilc", "__init__.py"), "True"], r.stderr)


if __name__ == "__main__":
    try:
        find_nvcc()
    except stencilc.BuildError:
        print("skip: no nvcc")
        sys.exit(77)
    try:
        result = unittest.main(exit=False, verbosity=2).result
    finally:
        shutil.rmtree(CACHE, ignore_errors=True)
    sys.exit(0 if result.wasSuccessful() else 1)
