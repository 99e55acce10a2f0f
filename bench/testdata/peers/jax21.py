"""Fake jax21.py (tests): the table jax21.py prints, made up; FAKE_NO_JAX=1 fails as a python
without jax does."""
import os, sys, zlib
if os.environ.get("FAKE_NO_JAX"):
    raise ModuleNotFoundError("No module named 'jax'")
t = sys.argv[1] if len(sys.argv) > 1 else "float32"
names = ["box2d1r", "box2d2r", "box3d1r", "gradient2d", "j2d5pt", "star2d1r", "star3d1r", "star3d4r"]
print(f"{'stencil':11s} {'type':8s} {'ms/step':>9s} {'GStencil/s':>11s} {'relerr':>9s}")
for n in names:
    ms = 1.0 + zlib.crc32(n.encode()) % 300 / 100.0
    pts = 512.0 ** 3 if "3d" in n else 8192.0 ** 2
    print(f"{n:11s} {t:8s} {ms:9.4f} {pts / (ms * 1e-3) / 1e9:11.2f} {6e-8:9.1e}", flush=True)
