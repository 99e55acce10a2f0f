"""Charts as SVG text, written by hand so the report needs nothing beyond python3: grouped bars
(one group per stencil, one bar per kernel or peer) and line charts in panels (the tuning
convergence, the scaling runs). Missing values (None) leave a gap."""
import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]
FONT = 'font-family="sans-serif"'


def _fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e4 or a < 1e-3:
        return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{v:g}"


def nice_ticks(lo, hi, n=5):
    """Round tick values covering [lo, hi] (a linear axis)."""
    if not (hi > lo):
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step + 1e-9) * step
    ticks = []
    t = start
    # Up to the first tick at or past hi: the axis ends there, so every value stays inside it.
    while (not ticks or ticks[-1] < hi - step * 1e-9) and len(ticks) < 50:
        ticks.append(round(t, 12))
        t += step
    return ticks


def log_ticks(lo, hi):
    """Ticks of a log axis over [lo, hi] (lo > 0): decades, with 2 and 5 when few decades."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if b - a <= 3 else (1,)
    ticks = [m * 10 ** e for e in range(a, b + 1) for m in mults]
    inside = [t for t in ticks if lo * 0.999 <= t <= hi * 1.001]
    return inside if len(inside) >= 2 else [10 ** a, 10 ** b]


class _Axis:
    def __init__(self, lo, hi, p0, p1, log=False, zero=False):
        self.log = log
        if log:
            lo = max(lo, 1e-12)
            hi = max(hi, lo * 1.0001)
            self.lo, self.hi = lo / 1.15, hi * 1.15
            self.ticks = log_ticks(self.lo, self.hi)
        else:
            if zero:
                lo = min(lo, 0.0)
            self.ticks = nice_ticks(lo, hi)
            self.lo, self.hi = self.ticks[0], self.ticks[-1]
            if self.hi <= self.lo:
                self.hi = self.lo + 1
        self.p0, self.p1 = p0, p1

    def __call__(self, v):
        if self.log:
            f = (math.log10(max(v, 1e-300)) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.p0 + f * (self.p1 - self.p0)


def _text(x, y, s, size=11, anchor="start", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {FONT} {extra}>'
            f'{escape(str(s))}</text>')


def _legend(names, x, y, colors, dashed=()):
    parts, cx = [], x
    for i, name in enumerate(names):
        c = colors[i % len(colors)]
        dash = ' stroke-dasharray="5,3"' if name in dashed else ""
        parts.append(f'<line x1="{cx}" y1="{y - 4}" x2="{cx + 18}" y2="{y - 4}" stroke="{c}" stroke-width="6"{dash}/>')
        parts.append(_text(cx + 22, y, name))
        cx += 30 + 7 * len(str(name))
    return parts


def bar_chart(title, categories, series, ylabel, hlines=(), height=440):
    """categories: labels along x; series: [(name, [value or None per category])];
    hlines: [(value, label)] drawn as dashed reference lines (e.g. the memory roofline)."""
    nser = max(1, len(series))
    bar_w = 7 if nser > 2 else 10
    group_w = nser * bar_w + 8
    left, right, top, bottom = 64, 24, 58, 96
    width = left + right + max(1, len(categories)) * group_w
    width = max(width, 520)
    group_w = (width - left - right) / max(1, len(categories))
    vals = [v for _, vs in series for v in vs if v is not None]
    vals += [v for v, _ in hlines]
    y = _Axis(0.0, max(vals) * 1.05 if vals else 1.0, height - bottom, top, zero=True)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
           f'viewBox="0 0 {width:.0f} {height}">',
           f'<rect width="100%" height="100%" fill="white"/>',
           _text(left, 20, title, 14, extra='font-weight="bold"')]
    out += _legend([n for n, _ in series], left, 40, COLORS)
    for t in y.ticks:
        out.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{width - right:.0f}" y2="{y(t):.1f}" stroke="#ddd"/>')
        out.append(_text(left - 6, y(t) + 4, _fmt(t), 10, "end"))
    out.append(_text(16, (top + height - bottom) / 2, ylabel, 11, "middle",
                     f'transform="rotate(-90 16 {(top + height - bottom) / 2:.0f})"'))
    for gi, cat in enumerate(categories):
        gx = left + gi * group_w + (group_w - nser * bar_w) / 2
        for si, (name, vs) in enumerate(series):
            v = vs[gi] if gi < len(vs) else None
            if v is None:
                continue
            x0 = gx + si * bar_w
            y0 = y(max(v, 0.0))
            out.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{bar_w - 1}" '
                       f'height="{max(0.0, y(0) - y0):.1f}" fill="{COLORS[si % len(COLORS)]}">'
                       f'<title>{escape(f"{cat} {name}: {v:.4g}")}</title></rect>')
        lx = left + gi * group_w + group_w / 2
        out.append(_text(lx, height - bottom + 12, cat, 10, "end",
                         f'transform="rotate(-50 {lx:.1f} {height - bottom + 12:.1f})"'))
    for v, label in hlines:
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - right:.0f}" y2="{y(v):.1f}" '
                   f'stroke="black" stroke-dasharray="6,4"/>')
        out.append(_text(width - right, y(v) - 4, label, 10, "end"))
    out.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right:.0f}" y2="{y(0):.1f}" stroke="black"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def line_chart(title, panels, xlabel, ylabel, xlog=False, ylog=False, step=False, cols=2,
               panel_w=440, panel_h=290, dashed=(), yzero=True):
    """panels: [{"title": str, "series": [(name, [(x, y), ...])]}]; one color per series name
    across panels, one shared legend. step: draw best-so-far curves as steps. Series named in
    `dashed` are drawn dashed."""
    names = []
    for p in panels:
        for name, _ in p["series"]:
            if name not in names:
                names.append(name)
    color = {n: COLORS[i % len(COLORS)] for i, n in enumerate(names)}
    cols = max(1, min(cols, len(panels)))
    rows = max(1, math.ceil(len(panels) / cols))
    legend_rows = 1 + sum(1 for _ in names) // 6
    head = 34 + 18 * legend_rows
    width, height = cols * panel_w, head + rows * panel_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">',
           '<rect width="100%" height="100%" fill="white"/>',
           _text(12, 20, title, 14, extra='font-weight="bold"')]
    for r in range(legend_rows):
        chunk = names[r * 6:(r + 1) * 6]
        out += _legend(chunk, 12, 40 + 18 * r, [color[n] for n in chunk], dashed)
    for i, p in enumerate(panels):
        ox, oy = (i % cols) * panel_w, head + (i // cols) * panel_h
        left, right, top, bottom = ox + 62, ox + panel_w - 16, oy + 26, oy + panel_h - 42
        pts = [pt for _, s in p["series"] for pt in s if pt[1] is not None]
        if xlog:
            pts = [pt for pt in pts if pt[0] > 0]
        if ylog:
            pts = [pt for pt in pts if pt[1] > 0]
        out.append(_text((left + right) / 2, oy + 16, p.get("title", ""), 12, "middle", 'font-weight="bold"'))
        if not pts:
            out.append(_text((left + right) / 2, (top + bottom) / 2, "no data", 11, "middle"))
            continue
        xs, ys = [q[0] for q in pts], [q[1] for q in pts]
        xa = _Axis(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1, left, right, xlog)
        ya = _Axis(min(ys) * (0.95 if not ylog else 1), max(ys) * 1.05 if not ylog else max(ys),
                   bottom, top, ylog, zero=yzero and not ylog)
        for t in ya.ticks:
            if ya.lo <= t <= ya.hi:
                out.append(f'<line x1="{left}" y1="{ya(t):.1f}" x2="{right}" y2="{ya(t):.1f}" stroke="#ddd"/>')
                out.append(_text(left - 5, ya(t) + 4, _fmt(t), 10, "end"))
        for t in xa.ticks:
            if xa.lo <= t <= xa.hi:
                out.append(f'<line x1="{xa(t):.1f}" y1="{top}" x2="{xa(t):.1f}" y2="{bottom}" stroke="#eee"/>')
                out.append(_text(xa(t), bottom + 14, _fmt(t), 10, "middle"))
        out.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
                   f'fill="none" stroke="black"/>')
        out.append(_text((left + right) / 2, bottom + 32, xlabel, 11, "middle"))
        out.append(_text(ox + 14, (top + bottom) / 2, ylabel, 11, "middle",
                         f'transform="rotate(-90 {ox + 14} {(top + bottom) / 2:.0f})"'))
        for name, s in p["series"]:
            s = [q for q in s if q[1] is not None and (not xlog or q[0] > 0) and (not ylog or q[1] > 0)]
            if not s:
                continue
            s = sorted(s)
            coords = []
            for j, (x, yv) in enumerate(s):
                if step and j > 0:
                    coords.append((xa(x), ya(s[j - 1][1])))
                coords.append((xa(x), ya(yv)))
            if step:
                coords.append((right, coords[-1][1]))
            dash = ' stroke-dasharray="6,4"' if name in dashed else ""
            path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color[name]}" stroke-width="2"{dash}>'
                       f'<title>{escape(str(name))}</title></polyline>')
            if not step:
                for x, yv in s:
                    out.append(f'<circle cx="{xa(x):.1f}" cy="{ya(yv):.1f}" r="2.5" fill="{color[name]}">'
                               f'<title>{escape(f"{name}: {x:g}, {yv:.4g}")}</title></circle>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
