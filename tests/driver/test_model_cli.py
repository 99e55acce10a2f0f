#!/usr/bin/env python3
"""The learned model from the command line (issue 35), no GPU: `stencilc model extract` turns H100
recordings and a tuning database's journals into data, `model train` fits a model (and its leave-one-out table), `model
features` prints a variant's vector; with an H200 recording beside them, `--train-gpu` trains on one GPU's
measurements and judges both, each GPU's rows summarised on their own; `--autotune --target H200` emits the model's prediction
with a header that says it was predicted, for which GPU, by a model of which GPU's measurements,
with nothing timed, and is what the default model, the shipped data/model.txt, predicts too;
mistakes are usage errors (exit 2) or errors naming the GPUs the model knows.

usage: test_model_cli.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import sys
import tempfile

import clitest
from clitest import check, finish

STENCILC = sys.argv[1]
ROOT = os.environ.get("STC_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, "examples", "bench")
DATA = os.path.join(ROOT, "tests", "data")


def run(*args, cwd=None, timeout=300):
    return clitest.run(STENCILC, *args, cwd=cwd, timeout=timeout)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    data = os.path.join(tmp, "data.tsv")
    model = os.path.join(tmp, "model.txt")
    recs = [os.path.join(DATA, f"replay_{n}_h100.tsv") for n in ("box3d3r", "box3d4r", "star3d3r")]

    code, so, se = run("model", "features", os.path.join(BENCH, "star3d1r.st"), "--config",
                       "tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on", "--gpu", "H100")
    check("features: the vector", code == 0 and "p_points             7" in so and "c_cmz                2" in so
          and "d_family_tile        1" in so and "k_known              0" in so, so + se)
    check("features: the occupancy line", "# occupancy on H100" in so, so)
    # every parameter is a feature: select and hold (the fused kernels' choices) too
    code, so, se = run("model", "features", os.path.join(BENCH, "star2d1r.st"), "--steps", "100", "--config",
                       "tb=128x1x1,stream=y,sb=256,tblock=16,bm=2x1x1,select=on", "--gpu", "H100")
    check("features: select and hold", code == 0 and "c_select             1" in so
          and "c_hold               0" in so and "c_tblock             4" in so, so + se)
    # async: planes ahead 2 (prefetch 1), its third slot in the shared memory
    cfg = "tb=256x1x1,stream=z,sb=128,bm=1x8x1,retime=on"
    feats = []
    for extra in (",prefetch=on", ",async=on"):
        code, so, se = run("model", "features", os.path.join(BENCH, "box3d1r.st"), "--config", cfg + extra,
                           "--grid", "512x512x512", "--gpu", "H200")
        feats.append(so)
    check("features: async", "c_prefetch           1" in feats[0] and "c_prefetch           2" in feats[1]
          and "l_smem_kib           20.1562" in feats[0] and "l_smem_kib           30.2344" in feats[1], "".join(feats))

    code, so, se = run("model", "extract", "--src", BENCH, "-o", data, *recs)
    check("extract: three recordings", code == 0 and "variants of 3 programs" in se, se)
    with open(data) as f:
        lines = f.read().splitlines()
    check("extract: a line per variant", lines[0].startswith("#stencilc-model-data") and len(lines) > 300,
          str(len(lines)))

    code, so, se = run("model", "train", "--loo", "--trees", "20", "-o", model, data)
    check("train: leave-one-out table", code == 0 and "| star3d3r |" in so and "within 15%" in so, so + se)
    with open(model) as f:
        text = f.read()
    check("train: the model file", text.startswith("stencilc-model 1\n") and "gpus NVIDIA H100 80GB HBM3" in text
          and "\nexemplar 3 " in text, text[:400])

    # two GPUs: a model of the H100's measurements judged on the H200's too
    data200 = os.path.join(tmp, "data_h200.tsv")
    code, so, se = run("model", "extract", "--src", BENCH, "-o", data200, os.path.join(DATA, "replay_box3d4r_h200.tsv"))
    check("extract: an H200 recording", code == 0 and "variants of 1 programs" in se, se)
    # a target that cannot be written: the error alone, no 'written to'
    code, so, se = run("model", "extract", "--src", BENCH, "-o", os.path.join(tmp, "no", "such.tsv"),
                       os.path.join(DATA, "replay_box3d4r_h200.tsv"))
    check("extract: an unwritable target is an error", code == 1 and "cannot write" in se
          and "written to" not in se, se)
    model_h100 = os.path.join(tmp, "model_h100.txt")
    code, so, se = run("model", "train", "--loo", "--trees", "20", "--train-gpu", "H100", "-o", model_h100, data,
                       data200)
    check("train --train-gpu H100: judged on both GPUs", code == 0 and "| box3d4r | NVIDIA H200 |" in so
          and "trained on the measurements of H100)" in so
          and "\non NVIDIA H200: the model's first choice within 15% of the best: " in so
          and "\non NVIDIA H100 80GB HBM3: the model's first choice" in so, so + se)
    with open(model_h100) as f:
        text = f.read()
    check("train --train-gpu H100: the file names the H100 only", "\ngpus NVIDIA H100 80GB HBM3\n" in text
          and "variants of 3 programs (" in text, text[:400])
    model_both = os.path.join(tmp, "model_both.txt")
    code, so, se = run("model", "train", "--trees", "20", "-o", model_both, data, data200)
    with open(model_both) as f:
        text = f.read()
    check("train on both: the file names both", code == 0 and "\ngpus NVIDIA H100 80GB HBM3,NVIDIA H200\n" in text
          and "variants of 3 programs on 2 GPUs (4 program-GPU pairs; l2 loss, clip " in text, text[:400] + se)
    # a GPU whose name is part of another's is still named (once each)
    rec10, data10 = os.path.join(tmp, "replay_box3d4r_h10.tsv"), os.path.join(tmp, "data_h10.tsv")
    with open(os.path.join(DATA, "replay_box3d4r_h200.tsv")) as f, open(rec10, "w") as g:
        g.write(f.read().replace("gpu=NVIDIA H200", "gpu=NVIDIA H100", 1))
    code, _, se = run("model", "extract", "--src", BENCH, "-o", data10, rec10)
    model_sub = os.path.join(tmp, "model_sub.txt")
    code, so, se = run("model", "train", "--trees", "5", "-o", model_sub, data, data10, data)
    with open(model_sub) as f:
        text = f.read()
    check("train: a GPU name inside another's is kept", code == 0
          and "\ngpus NVIDIA H100 80GB HBM3,NVIDIA H100\n" in text, text[:400] + se)
    code, so, se = run("model", "train", "--train-gpu", "A100", "-o", model_h100, data, data10, data200)
    check("train --train-gpu of no data: every GPU named once", code == 1
          and "(NVIDIA H100 80GB HBM3, NVIDIA H100, NVIDIA H200)" in se, se)
    code, so, se = run("model", "train", "--train-gpu", "A100", "-o", model_h100, data, data200)
    check("train --train-gpu of no data: an error naming the data's GPUs", code == 1
          and "--train-gpu 'A100' matches none of the data's GPUs (NVIDIA H100 80GB HBM3, NVIDIA H200)" in se, se)

    # --target: a prediction, said so in both files' first line
    out = os.path.join(tmp, "s.cu")
    code, so, se = run(os.path.join(BENCH, "star3d2r.st"), "--steps", "1", "--autotune", "--target", "H200",
                       "--model", model, "-o", out)
    check("--target H200: emitted", code == 0 and os.path.exists(out), se)
    for path in (out, out[:-3] + ".h"):
        with open(path) as f:
            first = f.readline()
        check(f"--target: {os.path.basename(path)} says predicted",
              first.startswith("/* predicted by stencilc --autotune --target H200 for H200 (sm_90), no GPU used "
                               "and nothing timed: tb=") and "NVIDIA H100 80GB HBM3, none of a H200" in first, first)
    code, so, se = run(os.path.join(BENCH, "star3d2r.st"), "--steps", "1", "--autotune", "--target", "sm_90",
                       "--model", model, "-o", out)
    with open(out) as f:
        first = f.readline()
    check("--target sm_90", code == 0 and "for sm_90 (sm_90)" in first, first + se)
    code, so, se = run(os.path.join(BENCH, "star3d2r.st"), "--steps", "1", "--autotune", "--target", "H200",
                       "--model", model_both, "-o", out)
    with open(out) as f:
        first = f.readline()
    check("--target H200 with a model of both GPUs", code == 0 and "trained on measurements of this GPU" in first,
          first + se)
    # the shipped model
    code, so, se = run(os.path.join(BENCH, "j2d5pt.st"), "--steps", "1", "--autotune", "--target", "H100",
                       "-o", out)
    with open(out) as f:
        first = f.readline()
    check("--target H100 with the shipped model", code == 0 and "trained on measurements of this GPU" in first,
          first + se)
    # several steps: the shipped model measured no fused kernel, so the table's fused rows for the
    # radius come first (docs/model.md, "One step"); a radius with no such row keeps the model's pick
    for name, steps, fused in (("star2d1r", "1000", True), ("star3d1r", "100", True), ("star2d1r", "1", False),
                               ("box3d2r", "100", False)):
        code, so, se = run(os.path.join(BENCH, name + ".st"), "--steps", steps, "--autotune", "--target", "H200",
                           "-o", out)
        with open(out) as f:
            first = f.readline()
        check(f"--target H200 {name} {steps} steps: {'the table' if fused else 'the model'}'s fused steps or not",
              code == 0 and ("tblock=" in first.split(", ranked")[0]) == fused
              and ("the priors table's fused steps" in first) == fused, first + se)

    # retraining from a tuning database: a search against a recording fills one (journal, .best)
    db = os.path.join(tmp, "db")
    code, _, se = run(os.path.join(BENCH, "box3d4r.st"), "--steps", "1", "--autotune", "--replay", recs[1],
                      "--budget", "12", "--tune-db", db, "-q", "-o", out)
    check("a tuning database to retrain from", code == 0, se)
    dbdata = os.path.join(tmp, "db.tsv")
    code, _, se = run("model", "extract", "--db", db, "--program", os.path.join(BENCH, "box3d3r.st"),
                      "--program", os.path.join(BENCH, "box3d4r.st"), "-o", dbdata)
    with open(dbdata) as f:
        rows = f.read().splitlines()[2:]
    check("extract --db: the journal of the key whose program matches", code == 0 and "1 of 1 keys matched" in se
          and len(rows) == 12 and all(r.startswith("box3d4r\tNVIDIA H100 80GB HBM3 (replay)\t2\t") for r in rows),
          se + "\n".join(rows[:3]))

    # mistakes
    code, _, se = run(os.path.join(BENCH, "j2d5pt.st"), "--autotune", "--target", "Voodoo2", "-o", out)
    check("--target unknown: named, with the known ones", code == 2 and "'Voodoo2' is not a GPU" in se
          and "H200" in se, se)
    code, _, se = run(os.path.join(BENCH, "j2d5pt.st"), "--target", "H100", "-o", out)
    check("--target without --autotune: usage error", code == 2 and "'--target' needs '--autotune'" in se, se)
    code, _, se = run(os.path.join(BENCH, "j2d5pt.st"), "--autotune", "--target", "H100", "--budget", "5s",
                      "-o", out)
    check("--target with --budget: conflict", code == 2 and "conflict" in se, se)
    code, _, se = run(os.path.join(BENCH, "j2d5pt.st"), "--autotune", "--target", "H100", "--model",
                      os.path.join(tmp, "none.txt"), "-o", out)
    check("--target with a missing model", code == 1 and "needs the learned model" in se, se)
    code, _, se = run("model", "train", data, "--bogus")
    check("model: unknown option", code == 2 and "unknown option '--bogus'" in se, se)
    # numbers and words are checked, not read as 0 or a default
    for args, want in ((("--trees", "0"), "--trees takes a whole number from 1 to 100000, not '0'"),
                       (("--rate", "fast"), "--rate takes a number from 1e-06 to 1, not 'fast'"),
                       (("--steps", "10x"), "--steps takes a whole number"),
                       (("--type", "half"), "--type takes float or double, not 'half'"),
                       (("--depth",), "'--depth' needs a value")):
        code, _, se = run("model", "train", data, *args)
        check(f"model: {' '.join(args)} refused", code == 2 and want in se, se)

finish()
