"""What bench/suite.py and bench/scaling.py share: running a command with a time limit (its
whole process group is stopped when the limit passes), the parsers of stencilc's and the peers'
outputs, the stencils of the examples, and the run's clock (--max-minutes).

Everything here is plain Python 3 (no third-party module), so the scripts run on any machine
that has python3; the parsers are tested without a GPU by tests/bench/test_bench.py."""
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ELEM_BYTES = {"float": 4, "double": 8}

# Strategy names of the comparisons beyond stencilc's own: the paper's GeST, without the prior
# configurations its dataset starts with (knob priors=0), for a comparison without that head
# start; GeST whose rounds are topped up to the evaluator's batch (knob fill=1). Both are GeST,
# not baselines.
STRATEGY_ARGS = {"gest-nopriors": ["--strategy", "gest", "--gest", "priors=0"],
                 "gest-fill": ["--strategy", "gest", "--gest", "fill=1"],
                 # the two 2D shared-memory priors after the default four (tuner/priors.c)
                 "gest-smem": ["--strategy", "gest", "--gest", "priors=6"],
                 # balanced groups (knob balance=1, docs/gest.md), with and without the priors
                 "gest-balance": ["--strategy", "gest", "--gest", "balance=1"],
                 "gest-nopriors-balance": ["--strategy", "gest", "--gest", "priors=0,balance=1"],
                 # the learned model ranks GeST's proposals and gives its start (--guide, docs/model.md)
                 "gest-guided": ["--strategy", "gest", "--guide"]}


def strategy_args(name):
    """The stencilc arguments that select a strategy of --strategies (or STRATEGY_ARGS)."""
    return STRATEGY_ARGS.get(name, ["--strategy", name])


# ---- the run's clock ----------------------------------------------------------------------

class Clock:
    """Wall time since the start, and what is left of --max-minutes (None: no limit)."""

    def __init__(self, max_minutes=None):
        self.t0 = time.monotonic()
        self.deadline = self.t0 + max_minutes * 60 if max_minutes else None

    def elapsed(self):
        return time.monotonic() - self.t0

    def left(self):
        return None if self.deadline is None else self.deadline - time.monotonic()

    def expired(self, margin=0.0):
        return self.deadline is not None and time.monotonic() + margin >= self.deadline

    def limit(self, timeout):
        """The timeout to give a command: its own, or what is left of the run if that is less."""
        left = self.left()
        return timeout if left is None else max(1.0, min(timeout, left))

    def stamp(self):
        s = self.elapsed()
        return f"[{int(s // 60):3d}:{int(s % 60):02d}]"


def say(clock, text):
    print(f"{clock.stamp()} {text}", flush=True)


# ---- running a command ----------------------------------------------------------------------

class Result:
    def __init__(self, cmd):
        self.cmd = cmd
        self.rc = None
        self.out = ""
        self.err = ""
        self.wall = 0.0
        self.timed_out = False   # the limit passed; the command was stopped
        self.interrupted = False  # it was stopped with SIGINT and then exited by itself

    def ok(self):
        return self.rc == 0 and not self.timed_out

    def first_error(self):
        """A one-line reason for a failure, from stderr first, then stdout."""
        if self.timed_out and not self.interrupted:
            return f"timed out after {self.wall:.0f} s"
        for text in (self.err, self.out):
            for line in text.splitlines():
                if "error" in line.lower() or "failed" in line.lower() or "Error" in line:
                    return line.strip()[:300]
        for text in (self.err, self.out):
            lines = [l for l in text.splitlines() if l.strip()]
            if lines:
                return lines[-1].strip()[:300]
        return f"exit status {self.rc}"


def _killpg(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd, timeout, log=None, cwd=None, interrupt_first=False, grace=30.0, stdin_text=None):
    """Runs cmd (a list) in its own process group. When `timeout` seconds pass, the group gets
    SIGINT first when interrupt_first (stencilc then stops its search and finishes with the best
    variant so far) and SIGKILL `grace` seconds later, else SIGKILL at once. Never raises for
    the command's failures; KeyboardInterrupt stops the command and is raised again."""
    r = Result(cmd)
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", cwd=cwd, start_new_session=True,
                             stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL)
    except OSError as e:
        r.rc = 127
        r.err = f"cannot run {cmd[0]}: {e}"
        _log(log, r)
        return r
    try:
        try:
            r.out, r.err = p.communicate(input=stdin_text, timeout=timeout)
        except subprocess.TimeoutExpired:
            r.timed_out = True
            if interrupt_first:
                _killpg(p.pid, signal.SIGINT)
                try:
                    r.out, r.err = p.communicate(timeout=grace)
                    r.interrupted = True
                except subprocess.TimeoutExpired:
                    _killpg(p.pid, signal.SIGKILL)
                    r.out, r.err = p.communicate()
            else:
                _killpg(p.pid, signal.SIGKILL)
                r.out, r.err = p.communicate()
    except KeyboardInterrupt:
        _killpg(p.pid, signal.SIGKILL)
        try:
            p.communicate(timeout=10)
        except Exception:
            pass
        raise
    r.rc = p.returncode
    r.out = r.out or ""
    r.err = r.err or ""
    r.wall = time.monotonic() - t0
    _log(log, r)
    return r


_LOG_LOCK = threading.Lock()  # the naive peer is built in a thread while the GPU measures


def _log(log, r):
    if not log:
        return
    with _LOG_LOCK:
        _log_locked(log, r)


def _log_locked(log, r):
    log.write(f"$ {' '.join(map(str, r.cmd))}\n# rc {r.rc}, {r.wall:.1f} s"
              f"{', timed out' if r.timed_out else ''}{', interrupted' if r.interrupted else ''}\n")
    if r.out:
        log.write(r.out if r.out.endswith("\n") else r.out + "\n")
    if r.err:
        log.write("# stderr:\n" + (r.err if r.err.endswith("\n") else r.err + "\n"))
    log.write("\n")
    log.flush()


def run_to_the_end(job):
    """Runs a benchmark job (suite.py's Suite, scaling.py's Scaling): job.run(), and on Ctrl-C a
    note in job.stopped; job.finish() writes what was measured either way."""
    try:
        job.run()
    except KeyboardInterrupt:
        job.stopped = "interrupted (Ctrl-C)"
        job.say("interrupted: writing what was measured")
    finally:
        job.finish()


def gpu_query(log=None):
    """(name, sm) of the first GPU from nvidia-smi, or (None, None) when it does not answer."""
    r = run(["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"], 30, log)
    if not (r.ok() and r.out.strip()):
        return None, None
    name, _, cap = r.out.strip().splitlines()[0].partition(",")
    return name.strip() or None, cap.strip().replace(".", "") or None


def default_nvcc():
    """$CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc, else nvcc on the PATH."""
    for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if d and os.access(os.path.join(d, "bin", "nvcc"), os.X_OK):
            return os.path.join(d, "bin", "nvcc")
    return shutil.which("nvcc") or "nvcc"


# ---- budgets and stencils -------------------------------------------------------------------

def budget_seconds(budget):
    """'10s' -> 10, '2m' -> 120, '200' (a count of variants) -> None."""
    m = re.fullmatch(r"\s*([\d.]+)\s*(s|m|min)\s*", budget or "")
    if not m:
        return None
    return float(m.group(1)) * (60 if m.group(2) != "s" else 1)


STENCIL_RE = re.compile(r'^\s*stencil\s+(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))', re.M)


def _source(path):
    """A .st file's text without its comments ('' when unreadable)."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return ""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def stencils_in(path):
    """Names of the stencils a .st file defines, in order (comments stripped first)."""
    return [a or b for a, b in STENCIL_RE.findall(_source(path))]


DECL_RE = re.compile(r"^\s*(state|coef|temp)\s+([A-Za-z_]\w*)([^;]*);", re.M)


def declared(path, stencil=None):
    """What --dump-ir says of a stencil's grid, type and fields, read from the file instead (for
    when --dump-ir fails or does not run): {"dims", "type", "fields": [{name, role, levels (states),
    bc as written}]}."""
    text = _source(path)
    heads = list(STENCIL_RE.finditer(text))
    i = next((k for k, m in enumerate(heads) if stencil in (None, m.group(1) or m.group(2))), None)
    if i is None:
        return {}
    block = text[heads[i].end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]
    m = re.search(r"\btype\s+(float|double)\s*;", block)
    res = {"fields": [], "type": m.group(1) if m else "float"}  # float: the language's default
    m = re.search(r"\bgrid\s+([123])d\b", block)
    if m:
        res["dims"] = int(m.group(1))
    for role, name, opts in DECL_RE.findall(block):
        f = {"name": name, "role": role, "bc": "fixed"}
        if role == "state":
            lv = re.search(r"\blevels\s+(\d+)", opts)
            f["levels"] = int(lv.group(1)) if lv else 2
        bc = re.search(r"\bboundary\s+(.+?)\s*(?:\blevels\s+\d+\s*)?$", opts, re.S)
        if bc:
            f["bc"] = " ".join(bc.group(1).split())
        res["fields"].append(f)
    return res


def example_stencils(root=ROOT):
    """(label, file, stencil-or-None) of every stencil in examples/*.st: --stencil is given
    when the file holds several."""
    out = []
    for f in sorted(os.listdir(os.path.join(root, "examples"))):
        if not f.endswith(".st"):
            continue
        path = os.path.join(root, "examples", f)
        names = stencils_in(path)
        if len(names) <= 1:
            out.append((names[0] if names else f[:-3], path, None))
        else:
            out.extend((n, path, n) for n in names)
    return out


def stencil_args(stencil=None, typ=None, steps=None):
    """The options that select a stencil of a file, its element type and step count."""
    return ((["--stencil", stencil] if stencil else []) + (["--type", typ] if typ else [])
            + (["--steps", str(steps)] if steps else []))


def find_stencil(name, root=ROOT):
    """(label, file, stencil-or-None) of a benchmark or example stencil by its label, or None."""
    return next((s for s in bench_stencils(root) + example_stencils(root) if s[0] == name), None)


def bench_dims(path, dump_ir_info=None):
    """2 or 3: the dimension from --dump-ir when it says, else from the file name (*3d* is 3D)."""
    if dump_ir_info and dump_ir_info.get("dims"):
        return dump_ir_info["dims"]
    return 3 if "3d" in os.path.basename(path) else 2


def bench_stencils(root=ROOT):
    d = os.path.join(root, "examples", "bench")
    return [(f[:-3], os.path.join(d, f), None) for f in sorted(os.listdir(d)) if f.endswith(".st")]


# ---- parsing stencilc's output ----------------------------------------------------------------

BENCH_LINE = re.compile(
    r"^(?P<name>.+?): (?P<grid>\d+x\d+x\d+), (?P<ms>[\d.eE+-]+) ms/step \(median of (?P<reps>\d+) x "
    r"(?P<steps>\d+) steps(?P<flushed>, L2 flushed)?\), (?P<gst>[\d.eE+-]+) GStencil/s, "
    r"(?P<gbs>[\d.eE+-]+) GB/s(?:, (?P<pct>[\d.]+)% of copy bandwidth \((?P<copy>[\d.]+) GB/s\))?",
    re.M)


def parse_bench(out, err=""):
    """The figures of `stencilc bench` (see driver/step_bench.c and runtime/rt_bench.c), or None
    when its report line is missing."""
    m = BENCH_LINE.search(out)
    if not m:
        return None
    res = {"gst": float(m.group("gst")), "ms": float(m.group("ms")), "grid": m.group("grid"),
           "gbs": float(m.group("gbs")), "reps": int(m.group("reps")),
           "steps_per_rep": int(m.group("steps")), "l2_flushed": bool(m.group("flushed")),
           "pct_copy": float(m.group("pct")) if m.group("pct") else None,
           "copy_gbs": float(m.group("copy")) if m.group("copy") else None}
    d = re.search(r"^device: (?P<name>.+?), sm_(?P<sm>\d+), ", out, re.M)
    if d:
        res["device"] = d.group("name")
        res["sm"] = d.group("sm")
    c = re.search(r"^stencil .*?, grid \S+, config (.+?)\s*$", out, re.M)
    res["config"] = c.group(1) if c else "?"
    v = re.search(r"max relative error (\S+) \(tolerance (\S+)\)", out)
    if v:
        res["max_rel_err"] = float(v.group(1))
    # How the configuration was chosen (tuner/policy*.c's messages on stderr).
    m = re.search(r"warning: not tuned \((.*?)\);", err)
    if m:
        res["not_tuned"] = m.group(1)
    if "stencilc: interrupted" in err:
        res["tuning_interrupted"] = True
    return res


# A field of --dump-ir (ir/dump.c): "  u: state, levels 3, bc mirror, footprint ...", its
# boundary one condition, or one per axis ("periodic, fixed"), each "kind" or "low | high".
FIELD_LINE = re.compile(r"^  (\S+): (state|coef|temp)(?:, levels (\d+))?, bc (.+?)"
                        r"(?=, footprint|, read|, written|, in registers|, in memory|$)", re.M)


def parse_dump_ir(out):
    """flops per point (as written, as the literature counts them for examples/bench), bytes
    per point, and the fields with their levels and boundaries from `stencilc FILE --dump-ir`."""
    res = {}
    m = re.search(r"^stencil \S+: (\d)d", out, re.M)
    if m:
        res["dims"] = int(m.group(1))
    m = re.search(r"flops per point: (\d+) as written, (\d+) after", out)
    if m:
        res["flops"] = int(m.group(1))
        res["flops_folded"] = int(m.group(2))
    m = re.search(r"bytes per point: (\d+)", out)
    if m:
        res["bytes_per_point"] = int(m.group(1))
    m = re.search(r"(\d+)-byte elements", out)
    if m:
        res["type"] = {"4": "float", "8": "double"}.get(m.group(1))
    m = re.search(r"radius (\d+)", out)
    if m:
        res["radius"] = int(m.group(1))
    fields = [{"name": name, "role": role, "bc": bc, **({"levels": int(lv)} if lv else {})}
              for name, role, lv, bc in FIELD_LINE.findall(out)]
    if fields:
        res["fields"] = fields
    return res


def parse_tune_log(path):
    """The JSON lines of --tune-log (tuner/log.c): variants, valid ones, the search's clock and
    the best-so-far curve [(elapsed_s, best ms)] over valid variants (the lines of the search's
    end, status "final" and "chosen", are not variants)."""
    res = {"variants": 0, "valid": 0, "search_s": None, "best_ms": None, "curve": []}
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None
    best = None
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if r.get("status") in ("final", "chosen"):
            continue
        res["variants"] += 1
        t = r.get("elapsed_s")
        if isinstance(t, (int, float)) and t >= 0:
            res["search_s"] = max(res["search_s"] or 0.0, float(t))
        ms = r.get("ms")
        if r.get("status") == "ok" and isinstance(ms, (int, float)) and ms > 0:
            res["valid"] += 1
            if best is None or ms < best:
                best = ms
                if isinstance(t, (int, float)) and t >= 0:
                    res["curve"].append([round(float(t), 3), ms])
    res["best_ms"] = best
    return res


def parse_tune_log_rows(path):
    """Every line of a --tune-log as a dict (config, ms, status, elapsed_s); None when unreadable."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None
    rows = []
    for line in lines:
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def best_by(rows, until_s=None):
    """(best ms, its config, elapsed_s) over the valid rows of a tune log, counting only those
    measured by `until_s` seconds of search when given; (None, None, None) when none."""
    best = (None, None, None)
    for r in rows:
        ms, t = r.get("ms"), r.get("elapsed_s")
        if r.get("status") != "ok" or not isinstance(ms, (int, float)) or ms <= 0:
            continue
        if until_s is not None and not (isinstance(t, (int, float)) and 0 <= t <= until_s):
            continue
        if best[0] is None or ms < best[0]:
            best = (ms, r.get("config"), t)
    return best


def curve_at(curve, t):
    """The best-so-far value of a curve [(elapsed_s, ms)] at time t (None before its first point)."""
    v = None
    for x, y in curve:
        if x > t:
            break
        v = y
    return v


def retime_configs(stencilc, path, configs, rounds, extra=(), timeout=300, log=None, clock=None):
    """Times each configuration `rounds` times with `stencilc bench FILE --config C` (every
    call compiles it, verifies it against the interpreter and the plain kernel, and reports the
    median of its repetitions), the configurations taking turns, so that two kernels found by
    different searches are compared in the same run and the drift of a shared machine falls on
    both. A search's own figure for its best variant is the minimum over many short, noisy
    measurements and reads low: the figures of this are what compares two searches' choices.
    Returns {config: {"gst": [per round], "ms": [...], "median_gst", "median_ms"} or
    {"error": reason}}."""
    res = {c: {"gst": [], "ms": []} for c in dict.fromkeys(configs)}
    for _ in range(rounds):
        for c, e in res.items():
            if "error" in e:
                continue
            limit = clock.limit(timeout) if clock else timeout
            r = run([stencilc, "bench", path, *extra, "--config", c], limit, log)
            fig = parse_bench(r.out, r.err) if r.rc == 0 else None
            if not fig:
                e.clear()
                e["error"] = r.first_error()
                continue
            e["gst"].append(fig["gst"])
            e["ms"].append(fig["ms"])
    for e in res.values():
        if "error" not in e:
            e["median_gst"] = median(e["gst"])
            e["median_ms"] = median(e["ms"])
    return res


def retimed_ratio(retimed, short_config, long_config):
    """The long choice's median GStencil/s over the short one's in a retime_configs result
    (> 1: the long search's choice is faster), or None when either failed."""
    s, l = retimed.get(short_config, {}), retimed.get(long_config, {})
    return l["median_gst"] / s["median_gst"] if "median_gst" in s and "median_gst" in l else None


def median(vals):
    vals = sorted(vals)
    n = len(vals)
    if not n:
        return None
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


def median_curve(curves):
    """The median over runs of best-so-far curves, on the union of their times; a run without a
    valid variant yet counts as infinitely slow, so a point shows once half the runs have one."""
    times = sorted({x for c in curves for x, _ in c})
    out = []
    for t in times:
        vals = [curve_at(c, t) for c in curves]
        m = median([float("inf") if v is None else v for v in vals])
        if m is not None and m != float("inf") and (not out or m != out[-1][1]):
            out.append([t, m])
    return out


def parse_emitted_config(cu_text):
    """The configuration named at the top of an emitted .cu (' * Configuration: tb=...')."""
    m = re.search(r"Configuration: (\S+)", cu_text)
    return m.group(1) if m else None


# ---- parsing the peers' output ----------------------------------------------------------------

PEER_TYPES = {"float32": "float", "float64": "double", "float": "float", "double": "double"}


def parse_peer_table(out):
    """Lines 'NAME TYPE MS GSTENCIL RELERR' (naive21 and jax21.py) -> {(name, type): {...}}."""
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[1] in PEER_TYPES:
            try:
                res[(f[0], PEER_TYPES[f[1]])] = {"ms": float(f[2]), "gst": float(f[3]),
                                                 "relerr": float(f[4])}
            except ValueError:
                continue
    return res


FRAMEWORK_PEERS = {"cudnn-conv": "cuDNN conv", "torch.compile": "torch.compile",
                   "jax-xla": "JAX valid region"}


def parse_framework(out):
    """framework_peers.py: 'CASE PEER MS GSTENCIL RELERR' per case and peer (float only), and
    'CASE PEER failed: ...' -> {peer: {name: {...}}}."""
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] in FRAMEWORK_PEERS:
            entry = res.setdefault(f[1], {})
            if len(f) == 5:
                try:
                    entry[f[0]] = {"ms": float(f[2]), "gst": float(f[3]), "relerr": float(f[4])}
                    continue
                except ValueError:
                    pass
            if f[2] == "failed:":
                entry[f[0]] = {"error": " ".join(f[3:])[:200]}
    return res


def peer_trusted(entry, typ):
    """A peer's figure counts when it ran and its relative error is what its precision gives."""
    if not entry or "gst" not in entry:
        return False
    tol = 1e-3 if typ == "float" else 1e-8
    rel = entry.get("relerr")
    if rel is None:
        return True
    return rel == rel and rel <= tol  # NaN (rel != rel) is not trusted


AN5D_FILE = "h100-an5d-best-2026-11.txt"


def parse_an5d(text):
    """The quoted AN5D figures ('NAME CONFIG GSTENCIL' per line) -> {name: {config, gst}}."""
    res = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and not line.lstrip().startswith("#"):
            try:
                res[f[0]] = {"config": f[1], "gst": float(f[2])}
            except ValueError:
                continue
    return res
