"""Fake framework_peers.py (tests): its output format, figures made up."""
import os
if os.environ.get("FAKE_NO_TORCH"):
    raise ModuleNotFoundError("No module named 'torch'")
print(f"{'case':18s} {'peer':14s} {'ms/step':>10s} {'GStencil/s':>10s} {'relerr':>9s}")
rows = [("star2d1r", "cudnn-conv", 0.5867, 114.33), ("star2d1r", "torch.compile", 2.1890, 30.64),
        ("box2d1r", "cudnn-conv", 0.5882, 114.04), ("star3d1r", "cudnn-conv", 5.8199, 22.79),
        ("star2d1r", "jax-xla", 0.0901, 745.0), ("box2d1r", "jax-xla", 0.2989, 224.40)]
for n, p, ms, g in rows:
    print(f"{n:18s} {p:14s} {ms:10.4f} {g:10.2f} {5e-8:9.1e}")
print(f"{'box3d2r':18s} {'torch.compile':14s} failed: InductorError: out of resources")
