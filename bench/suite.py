#!/usr/bin/env python3
"""The benchmark suite: stencilc's kernels for the 21 benchmark stencils (examples/bench) next to
the peer programs, all measured in one run on the GPU at hand, written as a Markdown table.

    python3 bench/suite.py --stencilc build/driver/stencilc --peers ../shared/peers \
        [--types float,double] [--tuned BUDGET] [--only star2d1r,...] --out bench/RESULTS.md

For each stencil and type: `stencilc bench` of the plain kernel (the default configuration;
it verifies against the interpreter before timing) and, with --tuned, of the kernel that
`--autotune --budget BUDGET` picks. Peers, when --peers names a folder holding them:
gen_naive21.py (the hand-written one-thread-per-point kernel, built with nvcc) and jax21.py
(JAX/XLA, when python3 has jax). Ratios compare figures taken in this same run.
"""
import argparse
import datetime
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, timeout=900, cwd=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") if isinstance(e.stdout, str) else ""


def stencilc_bench(stencilc, path, typ, extra, log):
    rc, out = run([stencilc, "bench", path, "--type", typ] + extra)
    log.write(f"$ {stencilc} bench {path} --type {typ} {' '.join(extra)}\n{out}\n")
    m = re.search(r"([\d.]+) GStencil/s", out)
    cfg = re.search(r"config (\S+)", out)
    roof = re.search(r"(\d+)% of copy bandwidth \((\d+) GB/s\)", out)
    if rc != 0 or not m:
        return None
    return {"gst": float(m.group(1)), "config": cfg.group(1) if cfg else "?",
            "roof": int(roof.group(1)) if roof else None, "copy": int(roof.group(2)) if roof else None}


def peer_table(out):
    """Lines 'name type ms GStencil/s relerr' -> {(name, type): GStencil/s}."""
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and re.match(r"^[\d.]+$", f[3]):
            typ = {"float32": "float", "float64": "double"}.get(f[1], f[1])
            res[(f[0], typ)] = float(f[3])
    return res


def naive_peer(peers, types, work, log):
    gen = os.path.join(peers, "gen_naive21.py")
    if not os.path.exists(gen):
        return {}
    src = os.path.join(work, "naive21.cu")
    exe = os.path.join(work, "naive21")
    rc, out = run([sys.executable, gen])
    if rc != 0:
        log.write(out)
        return {}
    open(src, "w").write(out)
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    rc, out = run([nvcc, "-O3", "-gencode=arch=compute_90,code=sm_90", "-o", exe, src])
    log.write(f"$ nvcc naive21.cu\n{out}\n")
    if rc != 0:
        return {}
    res = {}
    for t in types:
        rc, out = run([exe, t])
        log.write(f"$ naive21 {t}\n{out}\n")
        res.update(peer_table(out))
    return res


def jax_peer(peers, types, log):
    script = os.path.join(peers, "jax21.py")
    if not os.path.exists(script):
        return {}
    rc, _ = run([sys.executable, "-c", "import jax"])
    if rc != 0:
        return {}
    res = {}
    for t in types:
        rc, out = run([sys.executable, script, {"float": "float32", "double": "float64"}[t]], timeout=1200)
        log.write(f"$ jax21.py {t}\n{out}\n")
        res.update(peer_table(out))
    return res


def gpu_name():
    rc, out = run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
    return out.strip().splitlines()[0] if rc == 0 and out.strip() else "unknown GPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stencilc", default=os.path.join(ROOT, "build", "driver", "stencilc"))
    ap.add_argument("--peers", default=None, help="folder of peer programs (e.g. ../shared/peers)")
    ap.add_argument("--types", default="float")
    ap.add_argument("--tuned", default=None, help="also tune each stencil with this --budget")
    ap.add_argument("--config", default=None, help="a fixed --config for every stencil, in place of tuning")
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    types = args.types.split(",")
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "bench", "*.st")))
    if args.only:
        keep = set(args.only.split(","))
        files = [f for f in files if os.path.basename(f)[:-3] in keep]
    work = os.path.join(os.path.dirname(os.path.abspath(args.out)), "work")
    os.makedirs(work, exist_ok=True)
    log = open(args.log or os.path.join(work, "suite.log"), "w")

    rows = []
    for typ in types:
        for f in files:
            name = os.path.basename(f)[:-3]
            plain = stencilc_bench(args.stencilc, f, typ, [], log)
            other = None
            if args.tuned:
                other = stencilc_bench(args.stencilc, f, typ, ["--autotune", "--budget", args.tuned, "-q",
                                                                "--tune-db", os.path.join(work, "tunedb")], log)
            elif args.config:
                other = stencilc_bench(args.stencilc, f, typ, ["--config", args.config], log)
            rows.append((name, typ, plain, other))
            print(name, typ, plain and plain["gst"], other and other["gst"], flush=True)
            log.flush()
    peers = {}
    if args.peers:
        peers["naive"] = naive_peer(args.peers, types, work, log)
        peers["jax"] = jax_peer(args.peers, types, log)

    copy = next((r[2]["copy"] for r in rows if r[2] and r[2]["copy"]), None)
    date = datetime.date.today().isoformat()
    with open(args.out, "w") as o:
        o.write(f"# stencilc benchmark results\n\n{gpu_name()}, {date}; device-to-device copy "
                f"{copy or '?'} GB/s (read + write). GStencil/s per time step, interior points; "
                f"8192^2 in 2D, 512^3 in 3D. Every figure in this table comes from one run of "
                f"`bench/suite.py`; ratios compare figures of that run.\n\n")
        other_name = "tuned" if args.tuned else ("config" if args.config else None)
        head = ["stencil", "type", "plain", "% roofline"]
        if other_name:
            head += [other_name, "% roofline", f"{other_name} config"]
        head += ["naive CUDA", "JAX/XLA", "plain / naive", "plain / JAX"]
        if other_name:
            head += [f"{other_name} / naive", f"{other_name} / best peer"]
        o.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for name, typ, plain, other in rows:
            nv = peers.get("naive", {}).get((name, typ))
            jx = peers.get("jax", {}).get((name, typ))
            fmt = lambda v: f"{v:.1f}" if v else "-"
            ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
            p = plain["gst"] if plain else None
            cells = [name, typ, fmt(p), str(plain["roof"]) if plain and plain["roof"] else "-"]
            if other_name:
                g = other["gst"] if other else None
                cells += [fmt(g), str(other["roof"]) if other and other["roof"] else "-",
                          f"`{other['config']}`" if other else "-"]
            cells += [fmt(nv), fmt(jx), ratio(p, nv), ratio(p, jx)]
            if other_name:
                best = max([v for v in (nv, jx) if v] or [0]) or None
                cells += [ratio(g, nv), ratio(g, best)]
            o.write("| " + " | ".join(cells) + " |\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
