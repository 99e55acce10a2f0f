#!/usr/bin/env python3
"""Writes RESULTS.md and its SVG charts from the results.json that bench/suite.py records (and
SCALING.md's section from scaling.json, when bench/scaling.py has run). Run it by hand to
re-render a report without measuring again:

    python3 bench/report.py bench/results.json [--out bench/]
"""
import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import svg  # noqa: E402

PEER_LABEL = {"naive": "naive CUDA", "jax": "JAX", "jax-valid": "JAX valid region",
              "cudnn-conv": "cuDNN conv", "torch.compile": "torch.compile"}


# ---- figures derived from a results.json ------------------------------------------------------

def copy_bandwidth(res):
    """The device-to-device copy bandwidth of the run (median of every bench's measurement)."""
    vals = sorted(v for v in res.get("copy_gbs", []) if v)
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def roofline(copy, bytes_per_point):
    """Stencils per second (10^9) of a step that reads and writes each point once."""
    return copy / bytes_per_point if copy and bytes_per_point else None


def figure(entry):
    return entry.get("gst") if isinstance(entry, dict) and "error" not in entry else None


def peers_of(res, name, typ):
    """{peer label: GStencil/s} of the trusted peer figures for a stencil and type."""
    out = {}
    for key, by_type in res.get("peers", {}).items():
        e = by_type.get(typ, {}).get(name)
        if benchlib.peer_trusted(e, typ):
            out[PEER_LABEL.get(key, key)] = e["gst"]
    return out


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def geomean(vals):
    vals = [v for v in vals if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def cell_gst(entry):
    if entry is None:
        return "not run"
    if "error" in entry:
        return "failed"
    return fmt(entry["gst"])


def tuning_cell(t):
    if not t or "error" in t:
        return "-"
    if t.get("not_tuned"):
        return "not tuned"
    s = f"{t['wall_s']:.1f}" if t.get("wall_s") is not None else "?"
    if t.get("variants") is not None:
        s += f" ({t['variants']})"
    if t.get("tuning_interrupted"):
        s += " interrupted"
    return s


# ---- the Markdown -----------------------------------------------------------------------------

def header(res):
    m = res.get("meta", {})
    copy = copy_bandwidth(res)
    cvals = [v for v in res.get("copy_gbs", []) if v]
    lines = ["# stencilc benchmark results", ""]
    lines.append(f"- GPU: {m.get('gpu') or 'unknown'}; date {m.get('date', '?')}; "
                 f"stencilc {m.get('stencilc_version', '?')}")
    if copy:
        spread = f" (range {min(cvals):.0f}-{max(cvals):.0f} over {len(cvals)} measurements)" if len(cvals) > 1 else ""
        lines.append(f"- Device-to-device copy bandwidth: {copy:.0f} GB/s, read + write{spread}; memory "
                     f"roofline {copy / 8:.0f} GStencil/s in float, {copy / 16:.0f} in double")
    else:
        lines.append("- Device-to-device copy bandwidth: not measured")
    lines.append(f"- Tuning budget: {m.get('budget', '?')} per benchmark stencil"
                 + (f", {m['examples_budget']} per other example" if m.get("examples_budget") else "")
                 + " (`stencilc bench --autotune`, GeST, a fresh tuning database)")
    for run in m.get("runs", []):
        stop = f"; stopped early: {run['stopped']}" if run.get("stopped") else ""
        note = f"; {run['note']}" if run.get("note") else ""  # e.g. how a run was merged
        lines.append(f"- Run: `{run.get('command', '?')}`, {run.get('date', '?')}, "
                     f"{run.get('elapsed_s', 0) / 60:.1f} min{stop}{note}")
    lines += ["",
              "GStencil/s: interior points x time steps / seconds, per step (`stencilc bench` "
              "times about 1 ms of whole launch groups, median of at least 5 repetitions); grids "
              "8192^2 in 2D and 512^3 in 3D for the 21 benchmark stencils, the file's own `size` "
              "for the other examples. GFLOP/s: GStencil/s x flops per point as written (the "
              "literature's count for the 21). % roofline: the share of the memory roofline, copy "
              "bandwidth / bytes per point (2 x the element size for the 21). Peers and ratios: "
              + ("figures of this same run only (see docs/benchmarks.md)." if len(m.get("runs", [])) <= 1 else
                 "figures of the runs listed above, merged with `--merge` (one device call is limited in "
                 "time, so the report is assembled from several runs on one machine the same day): a "
                 "peer measured by another run than the row it is compared with gives a same-day, "
                 "same-machine ratio, not a same-run one; each run's peers are named in its command "
                 "(`--peer-set`). See docs/benchmarks.md."), ""]
    return lines


def precision_section(res, typ, out_dir, charts):
    rows = [r for r in res.get("rows", []) if r["kind"] == "bench" and r["type"] == typ]
    if not rows:
        return []
    copy = copy_bandwidth(res)
    roof = roofline(copy, 2 * benchlib.ELEM_BYTES[typ])
    lines = [f"## {typ}", ""]
    steps = sorted({r.get("steps") for r in rows if r.get("steps")})
    if steps == [1]:
        lines += ["One step (`stencilc bench --steps 1`, tuned and plain): no temporal blocking, each launch "
                  "reads and writes the whole grid, so the memory roofline bounds every kernel and the peers "
                  "(one step each) compare like with like.", ""]
    if roof:
        lines += [f"Memory roofline {roof:.0f} GStencil/s ({copy:.0f} GB/s / {2 * benchlib.ELEM_BYTES[typ]} "
                  f"bytes per point).", ""]
    head = ["stencil", "tuned GStencil/s", "GFLOP/s", "% roofline", "plain GStencil/s", "best peer",
            "tuned / best peer", "tuned / naive", "tuning s (variants)", "configuration"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * 8 + ["---"]) + "|")
    r_best, r_naive, r_plain = [], [], []
    for r in sorted(rows, key=lambda r: r["name"]):
        t, p = r.get("tuned"), r.get("plain")
        g, pg = figure(t), figure(p)
        bpp = r.get("bytes_per_point") or 2 * benchlib.ELEM_BYTES[typ]
        peers = peers_of(res, r["name"], typ)
        best = max(peers.items(), key=lambda kv: kv[1]) if peers else None
        naive = peers.get("naive CUDA")
        if g and best:
            r_best.append(g / best[1])
        if g and naive:
            r_naive.append(g / naive)
        if g and pg:
            r_plain.append(g / pg)
        cells = [r["name"], cell_gst(t),
                 fmt(g * r["flops"], 0) if g and r.get("flops") else "-",
                 f"{100 * g / roofline(copy, bpp):.0f}" if g and copy else "-",
                 cell_gst(p),
                 f"{best[0]} {best[1]:.1f}" if best else "-",
                 ratio(g, best[1] if best else None), ratio(g, naive), tuning_cell(t),
                 f"`{t['config']}`" if g else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    gm = [geomean(r_best), geomean(r_naive), geomean(r_plain)]
    lines += ["", f"Geometric means over the stencils measured: tuned / best peer {fmt(gm[0], 2)}, "
                  f"tuned / naive CUDA {fmt(gm[1], 2)}, tuned / plain {fmt(gm[2], 2)}.", ""]
    # The chart: tuned, plain and the two peers that cover all 21.
    names = [r["name"] for r in sorted(rows, key=lambda r: r["name"])]
    by = {r["name"]: r for r in rows}
    series = [("stencilc tuned", [figure(by[n].get("tuned")) for n in names]),
              ("stencilc plain", [figure(by[n].get("plain")) for n in names])]
    for key in ("naive", "jax"):
        vals = [peers_of(res, n, typ).get(PEER_LABEL[key]) for n in names]
        if any(v is not None for v in vals):
            series.append((PEER_LABEL[key], vals))
    hl = [(roof, f"memory roofline {roof:.0f}")] if roof else []
    name = f"chart-{typ}.svg"
    charts[name] = svg.bar_chart(f"21 benchmark stencils, {typ}, {res.get('meta', {}).get('gpu') or ''}",
                                 names, series, "GStencil/s", hl)
    lines += [f"![GStencil/s per stencil, {typ}]({name})", ""]
    return lines


def examples_section(res):
    rows = [r for r in res.get("rows", []) if r["kind"] == "example"]
    if not rows:
        return []
    copy = copy_bandwidth(res)
    lines = ["## Other examples", "",
             "examples/*.st at the size and type their files give (a file with several stencils: "
             "one row each, `--stencil`). No peer computes these. % roofline uses the bytes per "
             "point of `--dump-ir` (every field read and written once).", "",
             "| stencil | file | type | grid | tuned GStencil/s | GFLOP/s | % roofline | plain GStencil/s "
             "| tuned / plain | tuning s (variants) | configuration |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        t, p = r.get("tuned"), r.get("plain")
        g, pg = figure(t), figure(p)
        grid = (t or {}).get("grid") or (p or {}).get("grid") or "-"
        roof = roofline(copy, r.get("bytes_per_point"))
        lines.append("| " + " | ".join([
            r["name"], f"`{r['file']}`", r["type"], grid, cell_gst(t),
            fmt(g * r["flops"], 0) if g and r.get("flops") else "-",
            f"{100 * g / roof:.0f}" if g and roof else "-", cell_gst(p), ratio(g, pg),
            tuning_cell(t), f"`{t['config']}`" if g else "-"]) + " |")
    return lines + [""]


def peers_section(res):
    st = res.get("peer_status", {})
    if not st:
        return ["## Peers", "", "No peers were run (`--peers` not given).", ""]
    lines = ["## Peers", ""]
    about = {
        "naive": "the kernel written by hand (one thread per interior point, weights as literals), "
                 "../shared/peers/gen_naive21.py built with nvcc; all 21, float and double",
        "jax": "jax21.py: jit of shifted slices with the fixed halo written back (`.at[].set`), "
               "the full step a user needs; all 21",
        "framework": "framework_peers.py: cuDNN convolution (PyTorch), torch.compile and JAX over "
                     "shifted slices producing the valid region only (JAX's best case); float, 8 "
                     "shapes, weights of its own (same points as the benchmark stencils)",
    }
    for key, text in about.items():
        lines.append(f"- {text}: {st.get(key, 'not run')}")
    lines += ["", "A peer's figure is left out when its relative error against its float64 "
                  "reference exceeds 1e-3 (float) or 1e-8 (double).", ""]
    return lines


def multistep_section(res, charts, typ="float"):
    """Tuned at 1000 steps (2D) / 100 (3D), where the tuner may fuse steps (tblock), against the
    naive CUDA and one-step tuned figures of the same type and, in float, AN5D's quoted figures
    (float only)."""
    table = res.get("multistep", {}).get(typ, {})
    if not table:
        return []
    an5d = res.get("an5d", {}) if typ == "float" else {}
    quoted = an5d.get("figures", {})
    rows = {r["name"]: r for r in res.get("rows", []) if r["kind"] == "bench" and r["type"] == typ}
    budgets = sorted({e.get("budget") for e in table.values() if e.get("budget")})
    lines = [f"## Multi-step (temporal blocking), {typ}", "",
             f"`stencilc bench FILE --type {typ} --steps S --autotune --budget {'/'.join(budgets) or '?'}` with "
             "S = 1000 in 2D and 100 in 3D: the tuner may fuse up to S steps per launch (configuration item "
             "`tblock=K`); the figure is per step, interior points x steps / seconds. Tuned in this run, "
             "from a tuning database of its own.", ""]
    if typ != "float":
        lines += [f"No AN5D column: AN5D's figures are quoted for float only. The one-step tuned figure is the "
                  f"{typ} table's above and the naive CUDA one its peer's, measured by this suite (the runs "
                  "listed at the top).", ""]
    elif quoted:
        lines += [f"**AN5D's figures are quoted, not measured in this run**: `{an5d.get('file', '?')}`, "
                  f"{an5d.get('measured', '')}. The ratio column is tuned (this run) / AN5D (quoted): "
                  "the two were measured on different days on machines of the same model, so a few "
                  "percent either way is noise. The naive CUDA and one-step tuned figures are measured "
                  "by this suite (the runs listed at the top), like the multi-step one. AN5D's artifact "
                  "compiles its kernels with `nvcc --use_fast_math` (approximate division and square root, "
                  "compiled/nvcc_compile_top5.sh of khaki3/AN5D-Artifact); stencilc's kernels keep IEEE "
                  "division and square root and are verified against the interpreter within 1e-5 relative. "
                  "That matters for gradient2d, whose `1 / sqrt` per point makes it compute-bound: "
                  "even a correctly rounded `__frsqrt_rn` drifts beyond the tolerance over a few fused steps "
                  "there (H100, 2026-11-22).", ""]
    else:
        lines += ["AN5D's figures were not available (no `h100-an5d-best-2026-11.txt` in --peers).", ""]
    with_an5d = typ == "float"
    head = ["stencil", "steps", "tuned multi-step GStencil/s", "configuration"] + (
        ["AN5D GStencil/s (quoted)", "tuned / AN5D (quoted)"] if with_an5d else []) + [
        "one-step tuned", "speed-up from temporal blocking", "naive CUDA per step"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|---|---:|---:|---|" + ("---:|---:|" if with_an5d else "") + "---:|---:|---:|")
    names = sorted(table)
    at_least, compared, ratios, speedups, not_slower, other_run = 0, 0, [], [], 0, []
    in_build = []  # tuned / AN5D in the arithmetic of AN5D's build: the --fast-math figure where there is one
    for n in names:
        e = table[n]
        t = e.get("tuned")
        g = figure(t)
        a = (quoted.get(n) or {}).get("gst")
        one = figure((rows.get(n) or {}).get("tuned"))
        naive = peers_of(res, n, typ).get("naive CUDA")
        if g and a:
            compared += 1
            ratios.append(g / a)
            at_least += g >= a
            in_build.append((figure(e.get("fast_math")) or g) / a)
        if g and one:
            speedups.append(g / one)
            not_slower += g >= one
            if e.get("run") != (rows.get(n) or {}).get("run"):
                other_run.append(n)
        cell = cell_gst(t) if not e.get("skipped") else "not run"
        lines.append("| " + " | ".join([n, str(e.get("steps", "?")), cell, f"`{t['config']}`" if g else "-"] + (
            [fmt(a, 0) if a else "-", ratio(g, a)] if with_an5d else []) + [
            fmt(one), ratio(g, one), fmt(naive)]) + " |")
    if with_an5d:
        lines += ["", f"Tuned multi-step >= AN5D (quoted) on **{at_least} of {compared}** stencils with both "
                      f"figures; geometric mean tuned / AN5D {fmt(geomean(ratios), 2)}; geometric mean speed-up "
                      f"from temporal blocking (multi-step / one-step tuned) {fmt(geomean(speedups), 2)}.", ""]
    else:
        lines += ["", f"Tuned multi-step >= one-step tuned on **{not_slower} of {len(speedups)}** stencils with "
                      f"both figures; geometric mean speed-up from temporal blocking (multi-step / one-step "
                      f"tuned) {fmt(geomean(speedups), 2)}.", ""]
    if other_run:
        lines += [f"The one-step figure of {', '.join(other_run)} is another run's than the multi-step one "
                  "(joined with `--merge`): a same-day ratio, not a same-run one.", ""]
    fast = [n for n in names if table[n].get("fast_math")]
    if fast:
        lines += fast_math_part(table, fast, quoted, at_least, compared, in_build)
    if quoted:
        charts["chart-multistep.svg"] = svg.bar_chart(
            f"Multi-step tuned (this run) vs AN5D (quoted, {an5d.get('file', '')}), float, per step",
            names, [("stencilc tuned, multi-step", [figure(table[n].get("tuned")) for n in names]),
                    ("AN5D (quoted)", [(quoted.get(n) or {}).get("gst") for n in names]),
                    ("stencilc tuned, one step", [figure((rows.get(n) or {}).get("tuned")) for n in names])],
            "GStencil/s per step")
        lines += ["![multi-step tuned vs AN5D (quoted)](chart-multistep.svg)", ""]
    elif not with_an5d:
        name = f"chart-multistep-{typ}.svg"
        charts[name] = svg.bar_chart(
            f"Multi-step tuned vs one step tuned, {typ}, per step", names,
            [("stencilc tuned, multi-step", [figure(table[n].get("tuned")) for n in names]),
             ("stencilc tuned, one step", [figure((rows.get(n) or {}).get("tuned")) for n in names]),
             ("naive CUDA", [peers_of(res, n, typ).get("naive CUDA") for n in names])], "GStencil/s per step")
        lines += [f"![multi-step tuned vs one step, {typ}]({name})", ""]
    return lines


def fast_math_part(table, fast, quoted, at_least, compared, in_build):
    """The --fast-math rows of the float multi-step table, against IEEE and AN5D (quoted); in_build:
    every stencil's tuned / AN5D in the arithmetic of AN5D's build."""
    lines = ["With `--fast-math` (`bench/suite.py --fast-math NAMES`): the optimized kernels use "
             "approximate float arithmetic (rsqrtf, __fdividef, __expf, ...), as AN5D's "
             "`nvcc --use_fast_math` build does, and every variant is verified at a relative 1e-3 "
             "instead of 1e-5 (docs/config.md). Tuned in the same run as the IEEE row.", "",
             "| stencil | IEEE tuned | --fast-math tuned | configuration | fast / IEEE | AN5D (quoted) "
             "| fast / AN5D (quoted) |", "|---|---:|---:|---|---:|---:|---:|"]
    gained = 0  # stencils short of AN5D in IEEE arithmetic that reach it in AN5D's own
    for n in fast:
        t, f = table[n].get("tuned"), table[n]["fast_math"]
        g, gf = figure(t), figure(f)
        a = (quoted.get(n) or {}).get("gst")
        lines.append("| " + " | ".join([n, fmt(g), cell_gst(f), f"`{f['config']}`" if gf else "-",
                                        ratio(gf, g), fmt(a, 0) if a else "-", ratio(gf, a)]) + " |")
        gained += bool(g and a and gf and g < a <= gf)
    fifth = sum(r >= 1.2 for r in in_build)
    return lines + ["", f"In the arithmetic of AN5D's build (the --fast-math figure where there is one): "
                        f"tuned multi-step >= AN5D (quoted) on **{at_least + gained} of {compared}**, >= 1.2x "
                        f"on {fifth}; geometric mean tuned / AN5D {fmt(geomean(in_build), 2)}.", ""]


def boundaries_cell(fields, dims):
    """The fields grouped by boundary: "u (3 levels), c (coef): mirror"; a condition per axis
    as "x periodic, y fixed"."""
    groups = {}
    for f in fields:
        name = f["name"] + (f" ({f['levels']} levels)" if f.get("levels", 2) != 2 else "") + (
            f" ({f['role']})" if f.get("role", "state") != "state" else "")
        axes = f["bc"].split(", ")
        bc = ", ".join(f"{'xyz'[i]} {a}" for i, a in enumerate(axes)) if 1 < len(axes) == (dims or 0) else f["bc"]
        groups.setdefault(bc, []).append(name)
    return "; ".join(f"{', '.join(names)}: {bc}" for bc, names in groups.items()).replace("|", "\\|") or "-"


def fused_steps(config):
    """K of `tblock=K` in a configuration (1: no steps fused)."""
    m = re.search(r"\btblock=(\d+)", config or "")
    return int(m.group(1)) if m else 1


def examples_multistep_section(res):
    table = res.get("examples_multistep", {})
    if not table:
        return []
    budgets = sorted({e.get("budget") for e in table.values() if e.get("budget")})
    lines = ["## Other examples: one step against multi-step", "",
             "Each example at its file's grid and type, tuned twice in the same run, each time from a tuning "
             f"database of its own: `stencilc bench FILE [--stencil NAME] --steps S --autotune --budget "
             f"{'/'.join(budgets) or '?'}` with S = 1 (one step: no temporal blocking) and S = 1000 in 1D and 2D, "
             "100 in 3D (the tuner may fuse up to S steps per launch, `tblock=K`: *fused steps* is K). Figures "
             "are per step. *Fields: boundary* gives each field's boundary condition (per axis x, y, z where "
             "they differ) from `--dump-ir`, and the states with three time levels: temporal blocking refused "
             "every boundary but fixed, and three levels, until issue 33.", "",
             "| stencil | file | type | grid | fields: boundary | one-step GStencil/s | configuration | steps "
             "| multi-step GStencil/s | configuration | fused steps | multi-step / one-step |",
             "|---|---|---|---|---|---:|---|---:|---:|---|---:|---:|"]
    speedups, not_slower, fused, multi_ok = [], 0, 0, 0
    for n, e in sorted(table.items()):
        one, multi = e.get("one_step"), e.get("multi_step")
        g1, gm = figure(one), figure(multi)
        if g1 and gm:
            speedups.append(gm / g1)
            not_slower += gm >= g1
        if gm:
            multi_ok += 1
            fused += fused_steps(multi["config"]) > 1
        grid = (one or {}).get("grid") or (multi or {}).get("grid") or "-"
        lines.append("| " + " | ".join([
            n, f"`{e['file']}`", e.get("type", "?"), grid, boundaries_cell(e.get("fields", []), e.get("dims")),
            cell_gst(one), f"`{one['config']}`" if g1 else "-", str(e.get("steps", "?")), cell_gst(multi),
            f"`{multi['config']}`" if gm else "-", str(fused_steps(multi["config"])) if gm else "-",
            ratio(gm, g1)]) + " |")
    dumped = sum(e.get("fields_from") == "--dump-ir" for e in table.values())
    note = "" if dumped == len(table) else (f" The fields of {len(table) - dumped} are read from the file "
                                            "(`--dump-ir` failed or was not run).")
    return lines + ["", f"Multi-step >= one step on **{not_slower} of {len(speedups)}** examples with both "
                        f"figures; geometric mean multi-step / one step {fmt(geomean(speedups), 2)}; steps fused "
                        f"on {fused} of the {multi_ok} multi-step figures. A failed or skipped measurement is "
                        f"listed under Failures with its reason.{note}", ""]


def seed_runs(strat_entry):
    """The runs of one strategy: a {"runs": [...]} entry, or an older single run."""
    if "runs" in strat_entry:
        return strat_entry["runs"]
    return [strat_entry]


def convergence_stats(c):
    """Per strategy: runs, ok runs, the final best ms of each, mean, min, max; and the GeST
    comparison of one convergence entry."""
    stats = {}
    for strat, se in c.get("strategies", {}).items():
        runs = seed_runs(se)
        finals = [r["best_ms"] for r in runs if "error" not in r and r.get("best_ms")]
        stats[strat] = {"runs": runs, "finals": finals,
                        "mean": sum(finals) / len(finals) if finals else None,
                        "min": min(finals) if finals else None, "max": max(finals) if finals else None,
                        "errors": [r for r in runs if "error" in r]}
    g = stats.get("gest", {}).get("mean")
    rnd = stats.get("random", {}).get("mean")
    # The baselines; GeST without its priors (gest-nopriors) is GeST too, not a baseline.
    others = [v["mean"] for k, v in stats.items() if not k.startswith("gest") and v["mean"]]
    verdict = None
    if g and others:
        verdict = g <= min(others) * 1.03
    return stats, (rnd / g if g and rnd else None), verdict


# GeST with a knob changed (benchlib.STRATEGY_ARGS): GeST too, not a baseline.
GEST_VARIANTS = {"gest-nopriors": "Without its prior configurations (gest-nopriors)",
                 "gest-fill": "With its rounds filled to the evaluator's batch (gest-fill)",
                 "gest-smem": "With the two 2D shared-memory priors (gest-smem, priors=6)",
                 "gest-balance": "With balanced groups (gest-balance, balance=1)",
                 "gest-nopriors-balance": "Without its priors, with balanced groups (gest-nopriors-balance)",
                 "gest-guided": "Guided by the learned model (gest-guided, --guide)"}


def convergence_overview(conv):
    """One line per stencil: the strategies' mean final bests side by side."""
    strats = []
    for c in conv.values():
        strats += [k for k in c.get("strategies", {}) if k not in strats]
    lines = ["| stencil | budget | seeds | " + " | ".join(f"{k}, mean ms" for k in strats)
             + " | random / GeST | GeST best or within 3% |",
             "|---|---|---:|" + "---:|" * len(strats) + "---:|---|"]
    for key, c in sorted(conv.items()):
        stats, speedup, verdict = convergence_stats(c)
        cells = [key, c.get("budget", "?"), str(c.get("seeds") or "?")]
        cells += [fmt(stats.get(k, {}).get("mean"), 4) for k in strats]
        cells += [ratio(speedup, 1) if speedup else "-", "-" if verdict is None else ("yes" if verdict else "no")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def convergence_section(res, charts):
    conv = res.get("convergence", {})
    if not conv:
        return []
    lines = ["## Tuning convergence", "",
             "Each strategy tunes the same stencil with the same budget from an empty tuning "
             "database, once per seed (`stencilc FILE --autotune --strategy S --seed K --tune-log LOG`; "
             "the benchmark stencils with `--steps 1`). Times are the search's own short measurements "
             "(ms/step) from the tune log. The chart plots, per strategy, the median over seeds of "
             "the best ms/step found so far against the tuning clock. GeST's speed-up over random = "
             "random's mean final best / GeST's; \"within noise\": GeST's mean is at most 3% above the "
             "best strategy's mean. A comparison too long for one device call is measured in pieces "
             "(a few stencils or one strategy per call) and joined with `bench/merge_convergence.py`.", ""]
    panels, verdicts, speedups = [], [], []
    lines += convergence_overview(conv)
    for key, c in sorted(conv.items()):
        stats, speedup, verdict = convergence_stats(c)
        nseeds = c.get("seeds") or max((len(v["runs"]) for v in stats.values()), default=1)
        lines += [f"### {key}: budget {c.get('budget', '?')}, {nseeds} seed{'s' if nseeds != 1 else ''}", "",
                  "| strategy | runs ok | variants (valid), mean | final best ms/step, mean | min | max |",
                  "|---|---:|---:|---:|---:|---:|"]
        series = []
        for strat, st in stats.items():
            ok = [r for r in st["runs"] if "error" not in r]
            var = sum(r.get("variants", 0) for r in ok) / len(ok) if ok else 0
            known = [r["valid"] for r in ok if r.get("valid") is not None]
            val = f"{sum(known) / len(known):.0f}" if ok and len(known) == len(ok) else "-"
            cells = [strat, f"{len(st['finals'])} of {len(st['runs'])}", f"{var:.0f} ({val})" if ok else "-",
                     fmt(st["mean"], 4), fmt(st["min"], 4), fmt(st["max"], 4)]
            lines.append("| " + " | ".join(cells) + " |")
            curves = [r.get("curve") for r in ok if r.get("curve")]
            if curves:
                med = benchlib.median_curve(curves)
                end = max([r.get("search_s") or 0 for r in ok] + [med[-1][0]])
                series.append((strat, [tuple(q) for q in med] + [(end, med[-1][1])]))
        errs = [f"- {strat}, seed {r.get('seed', '?')}: failed: {r['error']}"
                for strat, st in stats.items() for r in st["errors"]]
        secs = benchlib.budget_seconds(c.get("budget"))
        over = [r.get("search_s") for st in stats.values() for r in st["runs"]
                if secs and (r.get("search_s") or 0) > 1.5 * secs]
        if over:
            errs.append(f"- {len(over)} of {sum(len(st['runs']) for st in stats.values())} runs searched for more than "
                        f"1.5 x the budget (longest {max(over):.1f} s): their last batch ran to its end. Since "
                        "2026-11-23 a time budget ends the batch in flight (docs/autotune.md); these runs are older.")
        from_log = [strat for strat, st in stats.items() if any(r.get("from_log") for r in st["runs"])]
        if from_log:
            errs.append(f"- {', '.join(from_log)}: read from the suite log (final best and variant count; "
                        "the results.json of that device call was lost, so no curve and no valid count)")
        if errs:
            lines += [""] + errs
        verdicts.append(verdict)
        if speedup:
            speedups.append(speedup)
        rnd = stats.get("random", {}).get("mean")
        variants = "".join(f" {what}, random / GeST {ratio(rnd / stats[k]['mean'], 1)}."
                           for k, what in GEST_VARIANTS.items()
                           if rnd and stats.get(k, {}).get("mean"))
        lines += ["", f"GeST's final best against random's: speed-up {ratio(speedup, 1) if speedup else '-'} "
                      f"(random / GeST); GeST best or within noise (3%) of the baselines: "
                      f"{'-' if verdict is None else ('yes' if verdict else 'no')}.{variants}", ""]
        panels.append({"title": key if series or not from_log else f"{key} (runs from a log: no curves)",
                       "series": series})
    judged = [v for v in verdicts if v is not None]
    plans = sorted({(c.get("budget", "?"), c.get("seeds") or 1) for c in conv.values()}, key=str)
    plan = "; ".join(f"{sum(1 for c in conv.values() if (c.get('budget', '?'), c.get('seeds') or 1) == p)} "
                     f"at {p[0]} x {p[1]} seeds" for p in plans)
    lines += [f"**Summary**: GeST is the best strategy or within 3% of it on {sum(judged)} of {len(judged)} "
              f"stencils; mean speed-up of GeST over random {fmt(sum(speedups) / len(speedups), 2) if speedups else '-'} "
              f"(over {len(speedups)} stencils; {plan}).", ""]
    charts["convergence.svg"] = svg.line_chart("Tuning convergence: median over seeds of the best ms/step so far",
                                               panels, "tuning time (s)", "ms/step", step=True, yzero=False)
    return lines + ["![tuning convergence](convergence.svg)", ""]


def quality_section(res):
    q = res.get("quality", {})
    if not q:
        return []
    longs = sorted({e.get("long", "?") for e in q.values()})
    shorts = sorted({e.get("short", "?") for e in q.values()})
    secs = [benchlib.budget_seconds(x) for x in shorts]
    short_text = "/".join(f"{v:g} s" if v else x for v, x in zip(secs, shorts))
    lines = [f"## Tuning quality: {short_text} against a long search", "",
             f"One GeST tuning per stencil with a long budget ({'/'.join(longs)}, seed 1, empty tuning database, "
             f"`--tune-log`; the benchmark stencils with `--steps 1`). A GeST search's first "
             f"{'/'.join(shorts)} is what a run with that budget does (same seed, same proposals; the "
             "strategy does not look at the time left), so the best of the log's lines with `elapsed_s` <= "
             "the short budget is the short run's result, without a second run. The times are the "
             "search's own short measurements (ms/step) from the tune log, not `stencilc bench` "
             "figures; a short run would also re-time its best few at the end.", "",
             "Where the two bests differ, both configurations were also timed again with `stencilc bench "
             "--config`, in turns, in the same run (`--quality-rounds`); *re-timed* is the long choice's "
             "median GStencil/s over the short one's, and decides *within 5%* where it exists.", "",
             "| stencil | long | short | variants (valid) | best ms, long | found at s | best ms, short "
             "| found at s | short / long | re-timed | within 5% |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    within, judged, ratios = 0, 0, []
    for key, e in sorted(q.items()):
        if "error" in e:
            lines.append(f"| {key} | {e.get('long', '?')} | {e.get('short', '?')} | failed: {e['error']} "
                         "| - | - | - | - | - | - | - |")
            continue
        r = e.get("ratio")
        if r:
            judged += 1
            within += bool(e.get("within_5pct"))
            ratios.append(r)
        long_cell = e.get("long", "?") + ("" if e.get("reached_long", True) else
                                          f" (searched {fmt(e.get('search_s'), 0)} s)")
        lines.append("| " + " | ".join([
            key, long_cell, e.get("short", "?"), f"{e.get('variants', 0)} ({e.get('valid', 0)})", fmt(e.get("long_best_ms"), 4),
            fmt(e.get("long_found_s"), 1), fmt(e.get("short_best_ms"), 4), fmt(e.get("short_found_s"), 1),
            fmt(r, 3), fmt(e.get("ratio_retimed"), 3),
            "-" if r is None else ("yes" if e.get("within_5pct") else "no")]) + " |")
    lines += ["", f"The short budget's best is within 5% of the long search's on **{within} of {judged}** "
                  f"stencils; geometric mean short / long {fmt(geomean(ratios), 3)}.", ""]
    return lines + reference_section(q)


def short_run_cell(sr):
    if not sr:
        return "-"
    if "error" in sr:
        return f"failed: {sr['error']}"
    return f"`{sr['config']}`: {fmt(sr.get('ratio_retimed'), 3)}"


def reference_section(q):
    """The long references of bench/longsearch.py (the quality entries' `reference`)."""
    refs = sorted((k, e["reference"]) for k, e in q.items() if isinstance(e.get("reference"), dict))
    if not refs:
        return []
    lines = ["### Against a longer reference search", "",
             "One GeST search per stencil run in legs of at most 10 minutes by `bench/longsearch.py` "
             "(each leg resumes from the tuning database's journal, so nothing is measured twice), seed 1. "
             "The short best is that of the search's first seconds (the first leg's log). Both choices "
             "were then timed again with `stencilc bench --config`, in turns, in the same run; the "
             "re-timed ratio (long choice's median GStencil/s over the short one's) decides.", "",
             "*separate short run*: where measured (`--short-run`), the choice of a separate run with the short "
             "budget, from an empty database, re-timed in the same turns: the long choice's GStencil/s over its.", "",
             "| stencil | searched s (legs) | variants | best ms, long (found at s) | long choice | best ms, "
             "short | short choice | search ratio | re-timed GStencil/s short / long | re-timed ratio | within 5% "
             "| separate short run |",
             "|---|---:|---:|---:|---|---:|---|---:|---:|---:|---|---|"]
    within = judged = run_within = run_judged = 0
    for key, r in refs:
        srr = (r.get("short_run") or {}).get("ratio_retimed")
        if srr is not None:
            run_judged += 1
            run_within += srr <= 1.05
        t = r.get("retimed", {})
        ts, tl = t.get(r.get("short_config"), {}), t.get(r.get("long_config"), {})
        rr = r.get("ratio_retimed")
        if rr is not None:
            judged += 1
            within += rr <= 1.05
        lines.append("| " + " | ".join([
            key, f"{fmt(r.get('search_s'), 0)} ({len(r.get('legs', []))})", str(r.get("variants", 0)),
            f"{fmt(r.get('long_best_ms'), 4)} ({fmt(r.get('long_found_s'), 0)})", f"`{r.get('long_config')}`",
            fmt(r.get("short_best_ms"), 4), f"`{r.get('short_config')}`", fmt(r.get("ratio_search"), 3),
            f"{fmt(ts.get('median_gst'), 1)} / {fmt(tl.get('median_gst'), 1)}", fmt(rr, 3),
            "-" if rr is None else ("yes" if rr <= 1.05 else "no"), short_run_cell(r.get("short_run"))]) + " |")
    lines += [""] + [f"- {key}: {r['note']}" + (f" ({r['gpu']}, {r['date']})" if r.get("gpu") else "")
                     for key, r in refs if r.get("note")]
    lines += ["", f"Within 5% of the longer reference, re-timed: **{within} of {judged}** stencils measured "
              "(the search's own short part).", ""]
    if run_judged:
        lines += [f"What a separate short run emitted (`--autotune` from an empty database, run after the "
                  f"search with that day's code, where measured), re-timed with the two: **{run_within} of "
                  f"{run_judged}** within 5%.", ""]
    return lines


def failures_section(res):
    fails = []
    for typ in ("float", "double"):
        for name, e in sorted(res.get("multistep", {}).get(typ, {}).items()):
            t = e.get("tuned")
            if isinstance(t, dict) and "error" in t:
                fails.append(f"- {name} ({typ}, {e.get('steps')} steps, tuned): {t['error']}")
            elif e.get("skipped"):
                fails.append(f"- {name} ({typ}, {e.get('steps')} steps, tuned): not run ({e['skipped']})")
    for name, e in sorted(res.get("examples_multistep", {}).items()):
        for what, steps in (("one_step", 1), ("multi_step", e.get("steps"))):
            t = e.get(what)
            where = f"- {name} ({e.get('type', '?')}, example, {steps} step{'s' if steps != 1 else ''}, tuned)"
            if isinstance(t, dict) and "error" in t:
                fails.append(f"{where}: {t['error']}")
            elif t is None and e.get("skipped"):
                fails.append(f"{where}: not run ({e['skipped']})")
    for r in res.get("rows", []):
        for what in ("plain", "tuned"):
            e = r.get(what)
            if isinstance(e, dict) and "error" in e:
                fails.append(f"- {r['name']} ({r['type']}, {what}): {e['error']}")
            elif e is None and r.get("skipped"):
                fails.append(f"- {r['name']} ({r['type']}, {what}): not run ({r['skipped']})")
    if not fails:
        return []
    return ["## Failures and skipped measurements", ""] + fails + [""]


def scaling_section(out_dir):
    path = os.path.join(out_dir, "scaling.json")
    if not os.path.exists(os.path.join(out_dir, "SCALING.md")):
        return ["## Scaling", "", "Not measured yet: `python3 bench/scaling.py` writes SCALING.md "
                "(throughput against step count and grid size) and links it here.", ""]
    lines = ["## Scaling", "",
             "Throughput of the emitted C API (`NAME_run`) over 1 to 1000 steps and growing grids: "
             "[SCALING.md](SCALING.md).", ""]
    try:
        sc = json.load(open(path))
        for chart in sc.get("charts", []):
            lines.append(f"![{chart}]({chart})")
        lines.append("")
    except (OSError, ValueError):
        pass
    if os.path.exists(os.path.join(out_dir, "DISTRIBUTED.md")):
        lines += ["Several GPUs (the distributed API, weak and strong scaling against the MPI + NCCL "
                  "peer, `bench/dist_scaling.sh`): [DISTRIBUTED.md](DISTRIBUTED.md).", ""]
    return lines


def render(res, out_dir):
    """Writes RESULTS.md and the charts into out_dir; returns the list of files written."""
    charts = {}
    lines = header(res)
    for typ in ("float", "double"):
        lines += precision_section(res, typ, out_dir, charts)
    lines += examples_section(res)
    lines += peers_section(res)
    for typ in ("float", "double"):
        lines += multistep_section(res, charts, typ)
    lines += examples_multistep_section(res)
    lines += convergence_section(res, charts)
    lines += quality_section(res)
    lines += scaling_section(out_dir)
    lines += failures_section(res)
    lines += ["Reproduce: see docs/benchmarks.md. Raw figures: results.json; every command and its "
              "output: work/suite.log of the run (not committed).", ""]
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, text in charts.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
        written.append(name)
    with open(os.path.join(out_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines))
    return ["RESULTS.md"] + written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results.json written by bench/suite.py")
    ap.add_argument("--out", default=None, help="folder for RESULTS.md (default: the results' folder)")
    a = ap.parse_args()
    res = json.load(open(a.results))
    out = a.out or os.path.dirname(os.path.abspath(a.results))
    for f in render(res, out):
        print("wrote", os.path.join(out, f))


if __name__ == "__main__":
    main()
