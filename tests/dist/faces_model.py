#!/usr/bin/env python3
"""A CPU model of tests/dist/faces.st's distributed run against its one-GPU run (issue 31).

On 2 H100s, faces (periodic x, fixed | constant and clamp | mirror y faces, a 9-point box) split
1x2x1 at depth 3 gave 69 points that differ from one GPU. This model runs, in Python and in
double, what the emitted host code does on each rank (codegen/emit_dist.c: the scatter, the
prologue's halo copy and sided fills, the exchange of x then y over the full padded extent, the
kernel over the virtual interior, the rotation, the sided fills) and what NAME_run does on one
GPU, with the kernel and the fills of faces.st written out by hand. Which buffers the first
exchange sends (NAME_xset_all_) and each later one (NAME_xset_group_) is read from the code that
stencilc emits, so the model follows the generator.

Before every step it checks that every value the owned points read (their box, in every buffer
the kernel reads) equals the one-GPU value of that point, and prints the first one that does
not; at the end it counts the owned points that differ, as dist_check.cu does.

    faces_model.py STENCILC SOURCE_ROOT [PX PY DEPTH STEPS]     (default: every case below)
Exits 0 when every case agrees with one GPU, 1 otherwise.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

NX, NY, H = 67, 61, 1


def buffer_sets(stencilc, root):
    """The buffers (member, level) of faces_xset_all_ and faces_xset_group_ in the emitted code."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "faces.cu")
        subprocess.run([stencilc, os.path.join(root, "tests/dist/faces.st"), "--stencil", "faces", "--type",
                        "float", "--distributed", "-o", out], check=True)
        src = open(out).read()
    sets = {}
    for name in ("all", "group"):
        body = re.search(r"static int faces_xset_%s_\(.*?\n}\n" % name, src, re.S).group(0)
        sets[name] = [(m, int(l) if l else 0) for m, l in re.findall(r"b->(\w+)(?:\[(\d)\])?, \d+\}", body)]
    return sets


def grid(p0, p1, v=0.0):
    return [[v] * p0 for _ in range(p1)]


# ---- faces.st, as the emitted kernels compute it (padded index = point + 1) ----------------

def kernel(na, nb, a, b, k, n0, n1, w=0.1):
    for j in range(1, n1 + 1):
        for i in range(1, n0 + 1):
            v0, v7, v17, v20 = a[j][i], a[j + 1][i - 1], b[j + 1][i + 1], b[j][i]
            na[j][i] = v0 + w * k[j][i] * (a[j - 1][i - 1] + a[j + 1][i + 1] + v7 + a[j - 1][i + 1] - v0 * 4) + 0.01 * v17
            nb[j][i] = v20 + w * (v17 + b[j - 1][i - 1] + b[j][i + 1] + b[j - 1][i] - 4 * v20) - v7 * 0.01


def fill_x(buf, n0, n1):
    """Periodic x (one GPU only: the distributed code exchanges it)."""
    for q in range(n1 + 2):
        buf[q][0] = buf[q][n0]
        buf[q][n0 + 1] = buf[q][1]


def fill_y(field, buf, n0, n1, lo, hi):
    """The y faces of each field: a fixed | constant(0.5), b clamp | mirror, k constant(2) | clamp."""
    for q in range(n0 + 2):
        if field == "a" and hi:
            buf[n1 + 1][q] = 0.5
        if field == "b" and lo:
            buf[0][q] = buf[1][q]
        if field == "b" and hi:
            buf[n1 + 1][q] = buf[n1 - 1][q]
        if field == "k" and lo:
            buf[0][q] = 2.0
        if field == "k" and hi:
            buf[n1 + 1][q] = buf[n1][q]


def halo_copy(dst, src, n0, n1):
    for j in range(n1 + 2):
        for i in range(n0 + 2):
            if not (1 <= i <= n0 and 1 <= j <= n1):
                dst[j][i] = src[j][i]


class Run:
    """One buffer set: a[0..1], b[0..1] (newest first), k; n the interior it computes."""

    def __init__(self, n0, n1, lo_face, hi_face, periodic_fill):
        self.n0, self.n1, self.lo, self.hi, self.pfill = n0, n1, lo_face, hi_face, periodic_fill
        self.bufs = {"a": [grid(n0 + 2, n1 + 2), grid(n0 + 2, n1 + 2)],
                     "b": [grid(n0 + 2, n1 + 2), grid(n0 + 2, n1 + 2)], "k": [grid(n0 + 2, n1 + 2)]}

    def fills(self, field, buf):
        if self.pfill:
            fill_x(buf, self.n0, self.n1)
        fill_y(field, buf, self.n0, self.n1, self.lo, self.hi)

    def prologue(self):
        halo_copy(self.bufs["a"][1], self.bufs["a"][0], self.n0, self.n1)
        for f in ("a", "b", "k"):
            for buf in self.bufs[f]:
                self.fills(f, buf)

    def step(self):
        a, b = self.bufs["a"], self.bufs["b"]
        kernel(a[1], b[1], a[0], b[0], self.bufs["k"][0], self.n0, self.n1)
        a.reverse()
        b.reverse()
        for f in ("a", "b"):
            self.fills(f, self.bufs[f][0])


def piece(n, p, c):
    """NAME_dist_piece_: the size and first index of coordinate c's piece."""
    base, rest = n // p, n % p
    return base + (1 if c < rest else 0), c * base + min(c, rest)


class Rank(Run):
    """A rank's part (NAME_dist_layout_): owned n, offset, ext per face (x periodic: both)."""

    def __init__(self, px, py, cx, cy, depth):
        self.w = depth * 1  # depth x reach (1)
        ext = self.w - H
        self.nx, self.ox = piece(NX, px, cx)
        self.ny, self.oy = piece(NY, py, cy)
        self.cx, self.cy = cx, cy
        self.ext = [ext, ext, ext if cy > 0 else 0, ext if cy < py - 1 else 0]  # x lo, x hi, y lo, y hi
        super().__init__(self.nx + 2 * ext, self.ny + self.ext[2] + self.ext[3], cy == 0, cy == py - 1, False)

    def glob(self, i, j):
        """The global point of local padded (i, j)."""
        return i - H - self.ext[0] + self.ox, j - H - self.ext[2] + self.oy

    def scatter(self, field, level, g):
        buf = self.bufs[field][level]
        for j in range(self.n1 + 2):
            for i in range(self.n0 + 2):
                x, y = self.glob(i, j)
                if -H <= x < NX + H and -H <= y < NY + H:
                    buf[j][i] = g[y + H][x + H]


def exchange(grid_, members):
    """NAME_dist_exchange_: x (periodic: the ends exchange, a rank alone is its own neighbour),
    then y between ranks, each over the full padded extent of the other axis; every message is
    packed before any is unpacked."""
    px, py = len(grid_[0]), len(grid_)
    for row in grid_:
        sent = []
        for r in row:
            own, w = H + r.ext[0], r.w
            sent.append({(m, l): [(line[own:own + w], line[own + r.nx - w:own + r.nx]) for line in r.bufs[m][l]]
                         for m, l in members})
        for cx, r in enumerate(row):
            own, w = H + r.ext[0], r.w
            for m, l in members:
                for q, line in enumerate(r.bufs[m][l]):
                    line[own - w:own] = sent[(cx - 1) % px][(m, l)][q][1]
                    line[own + r.nx:own + r.nx + w] = sent[(cx + 1) % px][(m, l)][q][0]
    for cx in range(px):
        for cy in range(py - 1):
            r, s = grid_[cy][cx], grid_[cy + 1][cx]
            for m, l in members:
                rb, sb = r.bufs[m][l], s.bufs[m][l]
                r_own, s_own = H + r.ext[2], H + s.ext[2]
                for t in range(r.w):
                    rb[r_own + r.ny + t] = list(sb[s_own + t])  # the first owned rows above, into r's halo
                    sb[s_own - r.w + t] = list(rb[r_own + r.ny - r.w + t])


def first_bad_read(grid_, one, step):
    """The first value an owned point reads that differs from one GPU's (None: none)."""
    for r in (r for row in grid_ for r in row):
        for f in ("a", "b", "k"):
            buf = r.bufs[f][0]
            for j in range(H + r.ext[2] - 1, H + r.ext[2] + r.ny + 1):
                for i in range(H + r.ext[0] - 1, H + r.ext[0] + r.nx + 1):
                    x, y = r.glob(i, j)
                    want = one.bufs[f][0][y + H][x % NX + H]
                    if buf[j][i] != want:
                        return "step %d reads %s(%d, %d) on rank (%d, %d): %r, one GPU %r" % (
                            step + 1, f, x, y, r.cx, r.cy, buf[j][i], want)
    return None


def case(sets, px, py, depth, steps, seed=12345):
    rnd = random.Random(seed)
    init = {f: [[rnd.uniform(0.5, 1.5) for _ in range(NX + 2)] for _ in range(NY + 2)] for f in "abk"}
    one = Run(NX, NY, True, True, True)
    for f in "abk":
        for buf in one.bufs[f]:
            for j, row in enumerate(init[f]):
                buf[j][:] = row
    grid_ = [[Rank(px, py, cx, cy, depth) for cx in range(px)] for cy in range(py)]
    ranks = [r for row in grid_ for r in row]
    for r in ranks:
        for f in "abk":
            for level in range(len(r.bufs[f])):
                r.scatter(f, level, init[f])
        r.prologue()
    one.prologue()
    exchange(grid_, sets["all"])
    bad = None
    for s in range(steps):
        if s and s % depth == 0:
            exchange(grid_, sets["group"])
        bad = bad or first_bad_read(grid_, one, s)
        for r in ranks:
            r.step()
        one.step()
    differ = 0
    for f in ("a", "b"):
        for r in ranks:
            for y in range(r.oy, r.oy + r.ny):
                for x in range(r.ox, r.ox + r.nx):
                    differ += r.bufs[f][0][y - r.oy + H + r.ext[2]][x - r.ox + H + r.ext[0]] != one.bufs[f][0][y + H][x + H]
    return differ, bad


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    sets = buffer_sets(sys.argv[1], sys.argv[2])
    cases = [(1, 1, 3, 6), (1, 2, 1, 6), (1, 2, 2, 6), (1, 2, 3, 6), (2, 1, 3, 6), (2, 2, 2, 6), (4, 1, 3, 6),
             (1, 4, 2, 5), (3, 3, 4, 9)]
    if len(sys.argv) == 7:
        cases = [tuple(int(v) for v in sys.argv[3:7])]
    print("first exchange: %s; later ones: %s" % (sets["all"], sets["group"]))
    failed = 0
    for px, py, depth, steps in cases:
        differ, bad = case(sets, px, py, depth, steps)
        print("%s faces %dx%dx1 grid %dx%d steps %d depth %d: %d points differ from one GPU%s" %
              ("FAIL" if differ or bad else "PASS", px, py, NX, NY, steps, depth, differ,
               "; first: " + bad if bad else ""))
        failed += bool(differ or bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
