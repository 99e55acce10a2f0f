#!/usr/bin/env python3
"""A stand-in for stencilc, for tests without a GPU: prints what `stencilc bench`, `--dump-ir`,
`--version` and the emitting command print (same line formats as driver/step_bench.c and
runtime/rt_bench.c), with figures made up from the stencil's name. Fault injection through
the environment, each a comma-separated list of NAME[:TYPE[:plain|tuned[:STEPS]]] (STEPS: the
--steps given):
FAKE_STENCILC_FAIL (exit 1 with an error), FAKE_STENCILC_HANG (sleep until SIGINT, then finish
as stencilc does after Ctrl-C), FAKE_STENCILC_KILLHANG (sleep, ignoring SIGINT).

--steps S (default: the file's steps) and --seed K (default 1) act as in stencilc: with S > 1
the tuning space has temporal blocking (configurations `tblock=K`, K <= S) and the tuned
figure is faster per step; the seed changes the search's trajectory. The tune log
(--tune-log) has 40 lines spread evenly over the budget (`elapsed_s`), one in nine failing."""
import json
import os
import re
import signal
import sys
import time
import zlib

args = sys.argv[1:]


def opt(name, default=None):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else default


if "--version" in args:
    print("stencilc 0.1.0-fake")
    sys.exit(0)
cmd = "emit"
if args and args[0] in ("bench", "check"):
    cmd = args.pop(0)
files = [a for a in args if a.endswith(".st")]
if not files:
    print("stencilc: error: no input file", file=sys.stderr)
    sys.exit(2)
path = files[0]
text = open(path).read()
blocks = re.split(r'(?m)^\s*stencil\s+', text)[1:]
names = [re.match(r'"?([\w-]+)"?', b).group(1) for b in blocks]
name = opt("--stencil") or names[0]
block = blocks[names.index(name)] if name in names else ""
typ = opt("--type") or (re.search(r"type (float|double)", block) or [None, "float"])[1]
dims = int((re.search(r"grid (\d)d", block) or [None, "2"])[1])
size = [int(x) for x in re.findall(r"\d+", (re.search(r"size ([\d, ]+);", block) or [None, "64"])[1])]
grid = opt("--grid") or "x".join(str(x) for x in (size + [1, 1, 1])[:3])
file_steps = int((re.search(r"steps (\d+);", block) or [None, "100"])[1])
steps = int(opt("--steps") or file_steps)
seed = int(opt("--seed") or 1)
tuned = "--autotune" in args
what = "tuned" if tuned else "plain"
h = zlib.crc32(name.encode()) % 1000


def matches(var):
    for item in filter(None, os.environ.get(var, "").split(",")):
        p = item.split(":")
        if p[0] == name and (len(p) < 2 or p[1] == typ) and (len(p) < 3 or p[2] == what) \
                and (len(p) < 4 or p[3] == opt("--steps")):
            return True
    return False


if "--dump-ir" in args:
    m = re.search(r"(\d+) flops per point", text)
    flops = int(m.group(1)) if m and path.find("/bench/") >= 0 else 10
    eb = 4 if typ == "float" else 8
    print(f"stencil {name}: {dims}d, {typ}, fields 1")
    print("fields:")  # ir/dump.c's lines, the boundary as the file writes it (default fixed)
    for role, fname, opts in re.findall(r"(?m)^\s*(state|coef|temp)\s+(\w+)([^;]*);", block):
        lv = (re.search(r"levels (\d)", opts) or [None, "2"])[1]
        levels = f", levels {lv}" if role == "state" else ""
        bc = (re.search(r"boundary ([^;]+?)(?: levels \d)?$", opts.strip()) or [None, "fixed"])[1]
        print(f"  {fname}: {role}{levels}, bc {bc}, footprint x[-1,1], read")
    print(f"analysis:\n  radius 1, shape star, points 5\n  flops per point: {flops} as written, {flops} after "
          f"folding and CSE\n  bytes per point: {2 * eb} (1 field read, 1 written, {eb}-byte elements)")
    sys.exit(0)

interrupted = False


def on_int(*_):
    global interrupted
    interrupted = True


if matches("FAKE_STENCILC_FAIL"):
    print("stencilc: error: the kernel differs from the interpreter (relative error 0.5 > 1e-05)", file=sys.stderr)
    sys.exit(1)
if matches("FAKE_STENCILC_HANG"):
    signal.signal(signal.SIGINT, on_int)
    while not interrupted:
        time.sleep(0.05)
    print("stencilc: interrupted: emitting the best variant so far (not stored in the tuning database; "
          "run again to resume from the journal, Ctrl-C again to quit)", file=sys.stderr)
if matches("FAKE_STENCILC_KILLHANG"):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    time.sleep(3600)

strategy = opt("--strategy", "gest")
plain_cfg = "tb=32x8x1" if dims < 3 else "tb=32x4x2"
tblock = min(4, steps) if tuned else 1  # what the fake tuner settles on: 4 fused steps at most
cfg = opt("--config") or (f"tb=64x4x1,maxreg={64 + h % 3 * 32}" + (f",tblock={tblock}" if tblock > 1 else "")
                          if tuned else plain_cfg)
base_ms = 0.25 + (h % 100) / 100.0 * (2 if typ == "double" else 1)
speedup = 1 + 0.5 * (tblock - 1)  # temporal blocking's gain per step
ms = base_ms / (1.3 if tuned else 1.0) / speedup
if not tuned and opt("--config"):  # a given configuration: 0-10% slower than the tuned figure, by its text
    ms = base_ms / 1.3 / speedup * (1 + (zlib.crc32(cfg.encode()) % 11) / 100)
if tuned and opt("--tune-log"):
    walk = (zlib.crc32(strategy.encode()) + 5 * (seed - 1)) % 7
    budget = float(re.sub(r"[^\d.]", "", opt("--budget", "10")) or 10) * (60 if opt("--budget", "").endswith("m") else 1)
    # How close a search gets: GeST best, genetic 2% and random 10% behind, 1% more per seed mod 3.
    reach = {"gest": 1.0, "genetic": 1.02, "random": 1.10}.get(strategy, 1.05) + 0.01 * (seed % 3)
    with open(opt("--tune-log"), "w") as f:
        best = base_ms * 1.2 * reach
        for i in range(40):
            t = budget * (i + 1) / 40
            k = 1 + i % min(4, steps)  # tblock of this variant
            cur = base_ms * (1.2 - 0.5 * ((i * (walk + 3)) % 17) / 17) / (1 + 0.5 * (k - 1)) * reach / (1 + 0.03 * t)
            ok = i % 9 != 4
            f.write(json.dumps({"config": f"tb={32 * (1 + i % 4)}x{1 + i % 8}x1" + (f",tblock={k}" if k > 1 else ""),
                                "ms": cur if ok else None,
                                "status": "ok" if ok else "fail", "reason": "" if ok else "too many registers",
                                "elapsed_s": round(t, 3)}) + "\n")
            best = min(best, cur)
        ms = min(ms, best)

if "--fast-math" in args:  # the fake's approximate arithmetic: 1.25x
    ms /= 1.25
n = [int(x) for x in grid.split("x")] + [1, 1]
pts = n[0] * (n[1] if dims > 1 else 1) * (n[2] if dims > 2 else 1)
ms *= max(pts, 1) / (8192.0 ** 2 if dims < 3 else 512.0 ** 3)
gst = pts / (ms * 1e-3) / 1e9
if cmd == "bench":
    eb = 4 if typ == "float" else 8
    gbs = gst * 2 * eb
    copy = 2950 + h % 50
    print(f"device: NVIDIA H100 80GB HBM3 (fake), sm_90, 132 SMs, 79.1 GiB, L2 50 MiB, driver 13.0, NVRTC 13.0")
    print(f"stencil {name} ({typ}), grid {n[0]}x{n[1]}x{n[2]}, config {cfg}")
    print(f"verified against the interpreter: max relative error 1.2e-07 (tolerance 1e-05)")
    print(f"{name}: {n[0]}x{n[1] if dims > 1 else 1}x{n[2] if dims > 2 else 1}, {ms:.4f} ms/step (median of 5 x 4 "
          f"steps), {gst:.2f} GStencil/s, {gbs:.1f} GB/s, {100 * gbs / copy:.0f}% of copy bandwidth ({copy} GB/s)")
    sys.exit(0)

# Emitting: FILE.cu + FILE.h, the header's structs as codegen/emit_api.c writes them.
out = opt("-o") or name + ".cu"
base = os.path.splitext(out)[0]
pfx = re.sub(r"\W", "_", name)
with open(out, "w") as f:
    f.write(f"/* {os.path.basename(out)}: stencil {name}. Generated by stencilc 0.1.0-fake; do not edit.\n"
            f" * Configuration: {cfg}\n */\n#include \"{os.path.basename(base)}.h\"\n")
real = typ
with open(base + ".h", "w") as f:
    f.write(f"""/* fake header */
#include <stddef.h>
#include <cuda_runtime_api.h>
#define {pfx.upper()}_DIMS {dims}
typedef {real} {pfx}_real;
typedef struct {{
    {real} *u[2]; /* state */
    const {real} *c; /* coef */
}} {pfx}_fields;
typedef struct {{
    int unused_;
}} {pfx}_params;
{pfx}_params {pfx}_params_defaults(void);
size_t {pfx}_buffer_elems(int nx, int ny, int nz);
size_t {pfx}_workspace_bytes(int nx, int ny, int nz);
cudaError_t {pfx}_run({pfx}_fields *f, const {pfx}_params *p, int nx, int ny, int nz, int steps,
    void *workspace, cudaStream_t stream);
""")
