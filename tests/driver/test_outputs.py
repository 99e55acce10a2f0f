#!/usr/bin/env python3
"""stencilc's outputs lose nothing (issue 30): never written over the input or a special file (a
FIFO and a UNIX socket made here), a failed write leaves the previous pair as it was, the pair
carries a seal that makes a mismatched .cu and .h fail to compile, stale temporaries of killed
runs are removed, long names work, and a loop of kill -9 during writes never leaves a pair that
would compile mismatched.

usage: test_outputs.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import glob
import os
import random
import re
import resource
import signal
import shutil
import socket
import subprocess
import sys
import tempfile

import clitest
from clitest import check, finish
import time

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
HEAT = os.path.join(ROOT, "examples", "heat.st")
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def run(*args, cwd=None, preexec_fn=None):
    return clitest.run(STENCILC, *args, cwd=cwd, timeout=60, preexec_fn=preexec_fn)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def seal_of_header(h):
    m = re.search(rb"#define STENCILC_PAIR_\w+ (0x[0-9a-f]+ULL)", h)
    return m.group(1) if m else None


def check_block(cu):
    """The #if ... #endif by which the .cu checks its header."""
    m = re.search(rb"#if !defined\(STENCILC_PAIR_.*?#endif\n", cu, re.S)
    return m.group(0) if m else None


def pair_compiles(folder, base):
    """Whether the preprocessor accepts the .cu's check against the header beside it: the .cu's
    #if block after the header's seal lines (the CUDA headers both include are not needed)."""
    block = check_block(read(os.path.join(folder, base + ".cu")))
    if block is None or CC is None:
        return block is not None
    seal = b"".join(re.findall(rb"^#define STENCILC_PAIR_.*\n", read(os.path.join(folder, base + ".h")), re.M))
    p = subprocess.run([CC, "-E", "-x", "c", "-"], input=seal + block, capture_output=True, timeout=60)
    return p.returncode == 0


def big_program(path):
    """60 fields, each updated from 24 neighbours: a 140 KB .cu, so that a kill lands in the
    writes now and then."""
    n = 60
    lines = ["stencil big {", "  grid 3d;", "  size 64, 64, 64;"] + [f"  state f{i};" for i in range(n)]
    offs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1), (2, 0, 0), (0, 2, 0)]
    for i in range(n):
        terms = " + ".join(f"0.01 * f{(i + k) % n}[{x},{y},{z}]" for k in range(3) for x, y, z in offs)
        lines.append(f"  f{i} = f{i} + {terms};")
    with open(path, "w") as f:
        f.write("\n".join(lines + ["}"]) + "\n")


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")

    # -o naming the input: refused, the input untouched (also through the header's name)
    src = os.path.join(tmp, "heat.st")
    shutil.copy(HEAT, src)
    before = read(src)
    code, _, se = run(src, "-o", src)
    check("-o the input is refused", code == 1 and "is the input file" in se, se)
    check("-o the input leaves it untouched", read(src) == before)
    hin = os.path.join(tmp, "heat.h")
    shutil.copy(HEAT, hin)
    code, _, se = run(hin, "-o", os.path.join(tmp, "heat.cu"))
    check("input heat.h with -o heat.cu is refused", code == 1 and "is the input file" in se, se)
    check("... heat.h untouched, no heat.cu", read(hin) == before and not os.path.exists(os.path.join(tmp, "heat.cu")))
    os.remove(hin)
    link = os.path.join(tmp, "other.cu")  # compared by device and inode, not by name
    os.symlink(src, link)
    code, _, se = run(src, "-o", link)
    check("-o a link to the input is refused", code == 1 and "is the input file" in se and read(src) == before, se)
    os.remove(link)

    shutil.copy(HEAT, src)  # where the checks above failed, the input was lost

    # special files: a FIFO, a UNIX socket, a directory, as the .cu and as the .h
    fifo = os.path.join(tmp, "fifo.cu")
    os.mkfifo(fifo)
    sock_path = os.path.join(tmp, "sock.h")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(sock_path)
    os.mkdir(os.path.join(tmp, "dir.cu"))
    for name, out, kind in [("FIFO as .cu", fifo, "a FIFO"), ("socket as .h", os.path.join(tmp, "sock.cu"), "a socket"),
                            ("directory as .cu", os.path.join(tmp, "dir.cu"), "a directory")]:
        code, _, se = run(src, "-o", out)
        check(f"{name}: refused with exit 1", code == 1 and kind in se and "refusing" in se, se)
    check("the FIFO, the socket and the directory are still there",
          os.path.exists(fifo) and not os.path.isfile(fifo) and os.path.exists(sock_path)
          and not os.path.isfile(sock_path) and os.path.isdir(os.path.join(tmp, "dir.cu")))
    check("nothing written beside them", not glob.glob(os.path.join(tmp, "fifo.h")) and
          not os.path.exists(os.path.join(tmp, "sock.cu")) and not os.path.exists(os.path.join(tmp, "dir.h")))
    sock.close()

    # a good pair, sealed; then a write that fails (a file size limit) leaves it as it was
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    cu, h = os.path.join(out, "heat.cu"), os.path.join(out, "heat.h")
    code, _, se = run(src, "-o", cu)
    check("compile", code == 0, se)
    good = read(cu), read(h)
    check("the header carries the seal", seal_of_header(good[1]) is not None, good[1][-300:])
    check("the .cu checks the seal right after its #include", check_block(good[0]) is not None
          and good[0].index(b'#include "heat.h"') < good[0].index(b"#if !defined(STENCILC_PAIR_heat)"))
    check("the pair passes its check", pair_compiles(out, "heat"))

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # the .h fits, the .cu not

    code, _, se = run(src, "-o", cu, "--config", "tb=64x4x2", preexec_fn=small_files)
    check("a failed write says why", code == 1 and "File too large" in se, se)
    check("a failed write leaves the previous pair whole", os.path.exists(cu) and os.path.exists(h)
          and (read(cu), read(h)) == good)
    check("a failed write leaves no temporary", sorted(os.listdir(out)) == ["heat.cu", "heat.h"], os.listdir(out))

    # a header of another run: the .cu's check refuses it at compile time
    run(src, "-o", os.path.join(tmp, "b.cu"), "--config", "tb=64x4x2")
    other = read(os.path.join(tmp, "b.h"))
    with open(h, "wb") as f:
        f.write(other)
    check("a header of another run fails the .cu's check", CC is None or not pair_compiles(out, "heat"))
    with open(h, "wb") as f:
        f.write(good[1][:len(good[1]) // 2])
    check("a header cut short fails the .cu's check", CC is None or not pair_compiles(out, "heat"))

    # stale temporaries: of a dead process removed, of a live one (this test) kept
    dead = subprocess.Popen(["true"])
    dead.wait()
    for name in [f".stc-{dead.pid}-0.tmp", f".stc-{dead.pid}-1.tmp", f".stc-{os.getpid()}-0.tmp", ".stc-x-0.tmp",
                 f"heat.cu.tmp.{dead.pid}", f"heat.h.tmp.{dead.pid}"]:  # the last two: older stencilc's names
        with open(os.path.join(out, name), "w") as f:
            f.write("x" * 100)
    code, _, se = run(src, "-o", cu)
    left = sorted(n for n in os.listdir(out) if n.startswith(".stc-") or ".tmp." in n)
    check("stale temporaries of dead runs removed, others kept", code == 0 and
          left == sorted([f".stc-{os.getpid()}-0.tmp", ".stc-x-0.tmp"]), left)

    # a 250-character output name (the temporaries have short names of their own)
    long_cu = os.path.join(out, "a" * 247 + ".cu")
    code, _, se = run(src, "-o", long_cu)
    check("a 250-character output name works", code == 0 and os.path.exists(long_cu)
          and os.path.exists(long_cu[:-3] + ".h"), se)
    # a name too long for the file system: the reason, and the name cut short in the message
    huge = os.path.join(out, "b" * 5000 + ".cu")
    code, _, se = run(src, "-o", huge)
    check("a huge output name: the reason, the name shortened", code == 1 and "File name too long" in se
          and len(se) < 600 and "characters" in se, se[:700])
    code, _, se = run(os.path.join(out, "c" * 100000 + ".st"))
    check("a huge input name is shortened in the message", code == 1 and len(se) < 600, se[:700])

    # kill -9 at random moments while a large program is written, 50 times, alternating two
    # variants: the pair left behind is always both old or both new, or fails its check
    big = os.path.join(tmp, "big.st")
    big_program(big)
    kdir = os.path.join(tmp, "kill")
    os.mkdir(kdir)
    kcu = os.path.join(kdir, "big.cu")
    variants = [[], ["--config", "tb=64x4x2"]]
    pairs = []
    for v in variants:
        code, _, se = run(big, "-o", kcu, *v)
        check("kill loop: the program compiles", code == 0, se)
        pairs.append((read(kcu), read(os.path.join(kdir, "big.h"))))
    check("kill loop: the two variants differ", pairs[0] != pairs[1])
    check("kill loop: each variant passes its check", pair_compiles(kdir, "big"))
    rng = random.Random(30)
    killed_in_time = mixed = 0
    bad = []
    for i in range(50):
        p = subprocess.Popen([STENCILC, big, "-o", kcu, *variants[i % 2]], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, 0.12))
        p.send_signal(signal.SIGKILL)
        p.wait()
        killed_in_time += p.returncode == -signal.SIGKILL
        now = read(kcu), read(os.path.join(kdir, "big.h"))
        if now in pairs:
            continue
        known = now[0] in (pairs[0][0], pairs[1][0]) and now[1] in (pairs[0][1], pairs[1][1])
        mixed += 1
        if not known or pair_compiles(kdir, "big"):
            bad.append(i)
    print(f"     kill loop: {killed_in_time} of 50 killed before the end, {mixed} mixed pairs (all refused)")
    check("kill loop: every pair left is whole, or refused by its check", not bad, bad)
    code, _, se = run(big, "-o", kcu)
    check("kill loop: a run after the kills cleans every temporary", code == 0
          and sorted(os.listdir(kdir)) == ["big.cu", "big.h"], os.listdir(kdir))

finish()
