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
        lines.append(f"- Run: `{run.get('command', '?')}`, {run.get('date', '?')}, "
                     f"{run.get('elapsed_s', 0) / 60:.1f} min{stop}")
    lines += ["",
              "GStencil/s: interior points x time steps / seconds, per step (`stencilc bench` "
              "times about 1 ms of whole launch groups, median of at least 5 repetitions); grids "
              "8192^2 in 2D and 512^3 in 3D for the 21 benchmark stencils, the file's own `size` "
              "for the other examples. GFLOP/s: GStencil/s x flops per point as written (the "
              "literature's count for the 21). % roofline: the share of the memory roofline, copy "
              "bandwidth / bytes per point (2 x the element size for the 21). Peers and ratios: "
              "figures of this same run only (see docs/benchmarks.md).", ""]
    return lines


def precision_section(res, typ, out_dir, charts):
    rows = [r for r in res.get("rows", []) if r["kind"] == "bench" and r["type"] == typ]
    if not rows:
        return []
    copy = copy_bandwidth(res)
    roof = roofline(copy, 2 * benchlib.ELEM_BYTES[typ])
    lines = [f"## {typ}", ""]
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


def convergence_section(res, charts):
    conv = res.get("convergence", {})
    if not conv:
        return []
    lines = ["## Tuning convergence", "",
             "Each strategy tunes the same stencil with the same budget from an empty tuning "
             "database (`stencilc FILE --autotune --strategy S --tune-log LOG`); the curve is "
             "the best search-time ms/step found so far against the tuning clock.", "",
             "| stencil | strategy | budget | variants (valid) | best ms/step | found at s |",
             "|---|---|---|---:|---:|---:|"]
    panels = []
    for key, c in sorted(conv.items()):
        series = []
        for strat, s in c.get("strategies", {}).items():
            if "error" in s:
                lines.append(f"| {key} | {strat} | {c.get('budget', '?')} | failed: {s['error']} | - | - |")
                continue
            curve = s.get("curve") or []
            found = curve[-1][0] if curve else None
            lines.append(f"| {key} | {strat} | {c.get('budget', '?')} | {s.get('variants', 0)} "
                         f"({s.get('valid', 0)}) | {fmt(s.get('best_ms'), 4)} | {fmt(found, 1)} |")
            if curve:
                end = max(s.get("search_s") or 0, curve[-1][0])
                series.append((strat, [tuple(q) for q in curve] + [(end, curve[-1][1])]))
        panels.append({"title": key, "series": series})
    charts["convergence.svg"] = svg.line_chart("Tuning convergence: best ms/step so far", panels,
                                               "tuning time (s)", "ms/step", step=True,
                                               yzero=False)
    return lines + ["", "![tuning convergence](convergence.svg)", ""]


def failures_section(res):
    fails = []
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
    return lines


def render(res, out_dir):
    """Writes RESULTS.md and the charts into out_dir; returns the list of files written."""
    charts = {}
    lines = header(res)
    for typ in ("float", "double"):
        lines += precision_section(res, typ, out_dir, charts)
    lines += examples_section(res)
    lines += peers_section(res)
    lines += convergence_section(res, charts)
    lines += scaling_section(out_dir)
    lines += failures_section(res)
    lines += ["Reproduce: see docs/benchmarks.md. Raw figures: results.json; every command and its "
              "output: work/suite.log.", ""]
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
