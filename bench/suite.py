#!/usr/bin/env python3
"""The benchmark report of stencilc, measured on the GPU at hand:

    python3 bench/suite.py --stencilc build/driver/stencilc --peers ../shared/peers \
        [--budget 10s] [--types float,double] [--only star2d1r,heat,...] [--out bench/] \
        [--max-minutes 9] [--no-multistep] [--multistep-budget B] [--examples-multistep] \
        [--merge bench/results.json] \
        [--convergence star3d1r --convergence-seeds N] [--quality NAME,...|all --quality-long 300s] \
        [--fast-math gradient2d,...|all]

In this order: for each --types, the 21 benchmark stencils (examples/bench, 8192^2 / 512^3)
for one step (`--steps 1`: no temporal blocking), each with `stencilc bench` of the plain
kernel (the default configuration) and of the tuned one (`--autotune --budget B -q`, fresh
tuning database, --tune-log), then that type's peers from --peers: gen_naive21.py (naive CUDA,
built with nvcc while the GPU measures), jax21.py (when python3 has jax) and, for float,
framework_peers.py (cuDNN, torch.compile, JAX valid region; when python3 has torch); then
that type's multi-step table: the 21 tuned at --steps 1000 (2D) / 100 (3D), where the tuner may
fuse steps (tblock), against the one-step tuned figure; in float next to AN5D's figures quoted
from PEERS/h100-an5d-best-2026-11.txt (measured earlier, not in this run), and for the stencils
of --fast-math also tuned with `--fast-math` (approximate float arithmetic, as AN5D's nvcc
--use_fast_math build); then every stencil of the other examples (examples/*.st, their own size
and type, --examples-budget); with --examples-multistep, each of them tuned at --steps 1 and at
1000 (1D, 2D) / 100 (3D) steps; then --convergence: each strategy tunes the named stencils
at the same budget once per seed, best-so-far time against tuning time; then --quality: one
long GeST tuning per stencil, the best found by --quality-short against the best overall. The
device's copy bandwidth comes from bench's output.

Writes OUT/RESULTS.md, OUT/results.json (every figure; `bench/report.py` re-renders it), the
SVG charts, and OUT/work/ (suite.log with every command and its output, tune logs, the tuning
databases). A failing stencil or peer is reported as failed; every command has a time limit;
--max-minutes stops cleanly (a tuning in flight gets SIGINT and finishes with its best variant)
and writes what was measured; Ctrl-C does the same. --merge adds this run to an earlier
results.json (e.g. double after float). docs/benchmarks.md has the details.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import report  # noqa: E402

STRATEGIES = ["gest", "random", "genetic"]


def keep_fast_math(entry, old):
    """A multi-step entry measured without --fast-math keeps the earlier entry's --fast-math
    figure (a run of its own, with its own configuration and date), so that merging a plain run
    does not drop the table of AN5D's arithmetic."""
    if old and old.get("fast_math") and not entry.get("fast_math"):
        entry["fast_math"] = old["fast_math"]


class Suite:
    def __init__(self, args):
        self.a = args
        self.clock = bl.Clock(args.max_minutes)
        self.out = os.path.abspath(args.out)
        self.work = os.path.join(self.out, "work")
        for d in ("logs", "conv", "quality"):
            os.makedirs(os.path.join(self.work, d), exist_ok=True)
        self.log = open(os.path.join(self.work, "suite.log"), "a" if args.merge else "w")
        self.types = [t for t in args.types.split(",") if t]
        self.only = set(args.only.split(",")) if args.only else None
        self.fast_math = set(args.fast_math.split(",")) if args.fast_math else set()
        self.tunedb = os.path.join(self.work, "tunedb")
        self.stopped = None
        self.res = self.load_merge()
        self.run_meta = {"command": " ".join(["python3", "bench/suite.py"] + sys.argv[1:]),
                         "date": datetime.date.today().isoformat(), "types": self.types,
                         "budget": args.budget, "examples_budget": args.examples_budget,
                         "host": platform.node(),
                         "id": datetime.datetime.now().isoformat(timespec="seconds")}
        self.rows = {(r["kind"], r["name"], r["type"]): r for r in self.res["rows"]}

    # ---- bookkeeping ---------------------------------------------------------------------

    def load_merge(self):
        empty = {"version": 1, "meta": {"runs": []}, "rows": [], "copy_gbs": [], "peers": {},
                 "peer_status": {}, "convergence": {}, "multistep": {}, "quality": {},
                 "examples_multistep": {}}
        if not self.a.merge:
            return empty
        try:
            res = json.load(open(self.a.merge))
        except (OSError, ValueError) as e:
            print(f"--merge: cannot read {self.a.merge}: {e}; starting afresh", flush=True)
            return empty
        for k, v in empty.items():
            res.setdefault(k, v)
        return res

    def save(self):
        self.res["rows"] = sorted(self.rows.values(), key=lambda r: (r["kind"] != "bench", r["type"], r["name"]))
        m = self.res["meta"]
        m["date"] = self.run_meta["date"]
        if not self.a.skip_stencils:  # the budget the tables' tunings had
            m["budget"] = self.a.budget
            if not self.a.no_examples:
                m["examples_budget"] = self.a.examples_budget
        run = dict(self.run_meta, elapsed_s=round(self.clock.elapsed(), 1), stopped=self.stopped)
        m["runs"] = [r for r in m.get("runs", []) if r.get("id") != run["id"]] + [run]
        tmp = os.path.join(self.out, "results.json.tmp")
        with open(tmp, "w") as f:
            json.dump(self.res, f, indent=1, default=str)
        os.replace(tmp, os.path.join(self.out, "results.json"))

    def say(self, text):
        bl.say(self.clock, text)

    def out_of_time(self):
        if self.stopped:
            return True
        if self.clock.expired(margin=5):
            self.stopped = f"--max-minutes {self.a.max_minutes} reached"
            self.say(f"stopping: {self.stopped}; writing what was measured")
            return True
        return False

    def stencilc(self, *args):
        return [self.a.stencilc] + [str(x) for x in args]

    # ---- stencilc -------------------------------------------------------------------------

    def info(self):
        r = bl.run(self.stencilc("--version"), 30, self.log)
        if r.ok():
            self.res["meta"]["stencilc_version"] = r.out.strip().replace("stencilc ", "")
        else:
            self.say(f"warning: {self.a.stencilc} --version failed: {r.first_error()}")
        name, sm = bl.gpu_query(self.log)
        if name:
            self.res["meta"].setdefault("gpu", name)
        if sm:
            self.res["meta"]["sm"] = sm

    def analyse(self, row, path, stencil, typ):
        r = bl.run(self.stencilc(path, "--dump-ir", *bl.stencil_args(stencil, typ)), 60, self.log)
        info = bl.parse_dump_ir(r.out) if r.ok() else {}
        row.update({k: info[k] for k in ("flops", "bytes_per_point") if k in info})
        row["dims"] = bl.bench_dims(path, info)
        return info

    def bench(self, path, stencil, typ, tuned, budget, tag, steps=None, tunedb=None, fast_math=False):
        """One `stencilc bench`: a dict of figures, or {"error": reason}. steps: --steps (the
        benchmark stencils: 1 for the one-step table, 1000 / 100 for the multi-step one);
        fast_math: with --fast-math."""
        extra = bl.stencil_args(stencil, typ, steps) + (["--fast-math"] if fast_math else [])
        timeout = self.a.timeout
        logf = None
        if tuned:
            logf = os.path.join(self.work, "logs", f"{tag}.jsonl")
            if os.path.exists(logf):
                os.remove(logf)
            extra += ["--autotune", "--budget", budget, "-q", "--tune-db", tunedb or self.tunedb, "--tune-log", logf]
            timeout += bl.budget_seconds(budget) or 600
        r = bl.run(self.stencilc("bench", path, *extra), self.clock.limit(timeout), self.log,
                   interrupt_first=tuned, grace=min(30, self.a.timeout))
        fig = bl.parse_bench(r.out, r.err) if r.rc == 0 else None
        if not fig:
            return {"error": r.first_error(), "wall_s": round(r.wall, 1)}
        fig["wall_s"] = round(r.wall, 1)
        if r.timed_out:
            fig["tuning_interrupted"] = True
        if fig.get("copy_gbs"):
            self.res["copy_gbs"].append(fig["copy_gbs"])
        if fig.get("device"):
            self.res["meta"]["gpu"] = fig["device"]
            self.res["meta"]["sm"] = fig.get("sm")
        if tuned:
            tl = bl.parse_tune_log(logf) if logf else None
            if tl:
                fig.update({k: tl[k] for k in ("variants", "valid", "search_s", "best_ms")})
                fig["tune_log"] = os.path.relpath(logf, self.out)
                if tl["variants"] == 0 and not fig.get("not_tuned"):
                    fig["from_database"] = True
        return fig

    def measure_row(self, kind, label, path, stencil, typ, budget):
        """Plain and tuned bench of one stencil; the row is stored whatever happens."""
        steps = self.a.bench_steps if kind == "bench" else None
        row = {"kind": kind, "name": label, "file": os.path.relpath(path, bl.ROOT), "stencil": stencil,
               "type": typ, "plain": None, "tuned": None, "steps": steps, "run": self.run_meta["id"]}
        key_type = typ
        if self.out_of_time():
            row["skipped"] = self.stopped
        else:
            info = self.analyse(row, path, stencil, typ if kind == "bench" else None)
            if kind == "example":
                key_type = row["type"] = info.get("type") or "?"
            tag = f"{label}-{key_type}"
            for what in ("plain", "tuned"):
                if self.out_of_time():
                    row["skipped"] = self.stopped
                    break
                fig = self.bench(path, stencil, typ if kind == "bench" else None, what == "tuned", budget, tag,
                                 steps=steps)
                row[what] = fig
                if "error" in fig:
                    self.say(f"{key_type:6s} {label:14s} {what:5s} FAILED: {fig['error']}")
                else:
                    note = f" in {fig['wall_s']:.1f} s" + (f", {fig.get('variants')} variants"
                                                            if what == "tuned" else "")
                    self.say(f"{key_type:6s} {label:14s} {what:5s} {fig['gst']:8.2f} GStencil/s "
                             f"({fig['config']}){note}")
        self.rows[(kind, label, key_type)] = row
        self.save()

    # ---- peers ----------------------------------------------------------------------------

    def peer_status(self, key, typ, text):
        st = self.res["peer_status"]
        parts = [p for p in st.get(key, "").split("; ") if p and not p.startswith(f"{typ}: ")]
        st[key] = "; ".join(parts + [f"{typ}: {text}"])

    def store_peer(self, key, typ, table):
        """Adds this run's figures to the peer's table: with --merge and --only, the other
        stencils' figures of earlier runs stay."""
        self.res["peers"].setdefault(key, {}).setdefault(typ, {}).update(table)

    @staticmethod
    def peer_count(merged, table):
        """'N stencils', and how many of them this run measured when earlier runs gave others."""
        if len(merged) == len(table):
            return f"{len(table)} stencils"
        return f"{len(merged)} stencils ({len(table)} measured in the last run that merged here)"

    def build_naive(self):
        """gen_naive21.py and nvcc, on the CPU (run in a thread while the GPU measures)."""
        gen = os.path.join(self.a.peers, "gen_naive21.py")
        if not os.path.exists(gen):
            self.naive_error = "skipped: no gen_naive21.py in --peers"
            return
        r = bl.run([self.a.python, gen], 120, self.log)
        if not r.ok():
            self.naive_error = f"failed: gen_naive21.py: {r.first_error()}"
            return
        src = os.path.join(self.work, "naive21.cu")
        exe = os.path.join(self.work, "naive21")
        with open(src, "w") as f:
            f.write(r.out)
        sm = self.res["meta"].get("sm") or self.a.arch
        r = bl.run([self.a.nvcc, "-O3", f"-gencode=arch=compute_{sm},code=sm_{sm}", "-o", exe, src], 900, self.log)
        if not r.ok():
            self.naive_error = f"failed: nvcc: {r.first_error()}"
            return
        self.naive_exe = exe

    def run_naive(self, builder, typ):
        if self.out_of_time():
            self.peer_status("naive", typ, f"not run ({self.stopped})")
            return
        builder.join(self.clock.limit(900))
        if builder.is_alive():
            self.peer_status("naive", typ, "not run (nvcc was still building naive21.cu)")
            return
        if not self.naive_exe:
            self.peer_status("naive", typ, self.naive_error)
            return
        table, r = {}, None
        for only in self.peer_names():
            r = bl.run([self.naive_exe, typ] + only, self.clock.limit(self.a.timeout * 2), self.log)
            table.update({n: e for (n, t), e in bl.parse_peer_table(r.out).items() if t == typ})
            if self.out_of_time():
                break
        self.store_peer("naive", typ, table)
        status = self.peer_count(self.res["peers"]["naive"][typ], table) + (
            "" if r.ok() else f", then failed: {r.first_error()}")
        self.peer_status("naive", typ, status)
        self.say(f"{typ:6s} naive CUDA: {status}")

    def peer_names(self):
        """Extra arguments per peer run: all 21 in one run, or one run per stencil of --only."""
        names = self.bench_names
        return [[]] if not self.only or len(names) >= 21 else [[n] for n in names]

    def run_python_peer(self, script, args, module, timeout):
        path = os.path.join(self.a.peers, script)
        if not os.path.exists(path):
            return None, f"skipped: no {script} in --peers"
        if self.out_of_time():
            return None, f"not run ({self.stopped})"
        r = bl.run([self.a.python, path] + args, self.clock.limit(timeout), self.log)
        if f"No module named '{module}'" in r.out + r.err:
            return None, f"skipped: {self.a.python} has no {module}"
        return r, None

    def run_jax(self, typ):
        table, r = {}, None
        for only in self.peer_names():
            r, why = self.run_python_peer("jax21.py", [{"float": "float32", "double": "float64"}[typ]] + only,
                                          "jax", self.a.timeout * 3)
            if r is None:
                break
            table.update({n: e for (n, t), e in bl.parse_peer_table(r.out).items() if t == typ})
        if r is None:
            self.peer_status("jax", typ, why)
            self.say(f"{typ:6s} JAX: {why}")
            return
        self.store_peer("jax", typ, table)
        status = self.peer_count(self.res["peers"]["jax"][typ], table) + (
            "" if r.ok() else f", then failed: {r.first_error()}")
        self.peer_status("jax", typ, status)
        self.say(f"{typ:6s} JAX: {status}")

    def run_framework(self):
        r, why = self.run_python_peer("framework_peers.py", [], "torch", self.a.framework_timeout)
        if r is None:
            self.peer_status("framework", "float", why)
            self.say(f"float  cuDNN / torch.compile: {why}")
            return
        got = bl.parse_framework(r.out)
        counts = []
        for peer, table in got.items():
            key = "jax-valid" if peer == "jax-xla" else peer
            self.store_peer(key, "float", table)
            counts.append(f"{bl.FRAMEWORK_PEERS[peer]} {sum(1 for e in table.values() if 'gst' in e)}")
        status = ", ".join(counts) or "no figures"
        if not r.ok():
            status += f"; failed: {r.first_error()}"
        self.peer_status("framework", "float", status)
        self.say(f"float  framework peers: {status}")

    # ---- multi-step (temporal blocking) ------------------------------------------------------

    def load_an5d(self):
        """AN5D's figures, quoted from the peers folder (measured earlier, not in this run)."""
        path = self.a.an5d or (os.path.join(self.a.peers, bl.AN5D_FILE) if self.a.peers else None)
        if not path:
            return
        try:
            figures = bl.parse_an5d(open(path).read())
        except OSError as e:
            self.say(f"AN5D figures: cannot read {path}: {e}")
            return
        self.res["an5d"] = {"file": os.path.basename(path), "figures": figures,
                            "measured": "measured on 2026-11-22 on an H100 of this model: AN5D's "
                                        "generated code with its V100-tuned preserved configurations, best "
                                        "of two per stencil, 1000 fused steps in 2D and 100 in 3D"}
        self.say(f"AN5D figures quoted from {path}: {len(figures)} stencils")

    def multistep_steps(self, dims):
        return self.a.multistep_steps_3d if dims == 3 else self.a.multistep_steps_2d

    def say_tuned(self, head, fig):
        """The progress line of a tuned multi-step or example measurement."""
        if "error" in fig:
            self.say(f"{head} FAILED: {fig['error']}")
        else:
            self.say(f"{head} {fig['gst']:8.2f} GStencil/s per step ({fig['config']}) in {fig['wall_s']:.1f} s, "
                     f"{fig.get('variants')} variants")

    def multistep(self, label, path, stencil, typ):
        """The tuned kernel at 1000 steps (2D) or 100 (3D): the tuner may fuse steps (tblock).
        In the one-step rows' database (the step count is part of the key), so that the search
        times the one-step tuning's winner first (issue 33). --fast-math is for float only:
        AN5D's figures, which it is compared with, are float's."""
        table = self.res["multistep"].setdefault(typ, {})
        row = self.rows.get(("bench", label, typ)) or {}
        dims = row.get("dims")
        if not dims:
            r = bl.run(self.stencilc(path, "--dump-ir", *bl.stencil_args(stencil, typ)), 60, self.log)
            dims = bl.bench_dims(path, bl.parse_dump_ir(r.out) if r.ok() else None)
        steps = self.multistep_steps(dims)
        entry = {"steps": steps, "dims": dims, "budget": self.a.multistep_budget, "tuned": None,
                 "run": self.run_meta["id"]}
        if self.out_of_time():
            entry["skipped"] = self.stopped
        else:
            fig = self.bench(path, stencil, typ, True, self.a.multistep_budget, f"{label}-{typ}-steps{steps}",
                             steps=steps)
            entry["tuned"] = fig
            runs = [(fig, "")]
            if typ == "float" and (label in self.fast_math or "all" in self.fast_math) and not self.out_of_time():
                entry["fast_math"] = self.bench(path, stencil, typ, True, self.a.multistep_budget,
                                                f"{label}-{typ}-steps{steps}-fastmath", steps=steps,
                                                fast_math=True)
                runs.append((entry["fast_math"], " --fast-math"))
            for f, note in runs:
                self.say_tuned(f"{typ:6s} {label:14s} {steps} steps{note}", f)
        keep_fast_math(entry, table.get(label))
        table[label] = entry
        self.save()

    # ---- the other examples: one step against multi-step ------------------------------------

    def example_pair(self, label, path, stencil):
        """An example at its file's grid and type, tuned at --steps 1 (no temporal blocking) and
        at the multi-step count, in this run, in a database of the pairs (not the example rows':
        their record at the file's steps may be the multi-step key), so that the multi-step search
        times the one-step winner first (issue 33); with its fields' boundaries and levels (what
        temporal blocking refused)."""
        entry = {"file": os.path.relpath(path, bl.ROOT), "stencil": stencil, "budget": self.a.examples_budget,
                 "one_step": None, "multi_step": None, "run": self.run_meta["id"]}
        info = {}
        if not self.out_of_time():
            r = bl.run(self.stencilc(path, "--dump-ir", *bl.stencil_args(stencil)), 60, self.log)
            info = bl.parse_dump_ir(r.out) if r.ok() else {}
        written = bl.declared(path, stencil)
        typ = info.get("type") or written.get("type") or "?"
        dims = info.get("dims") or written.get("dims") or bl.bench_dims(path)
        entry.update({"type": typ, "dims": dims, "steps": self.multistep_steps(dims),
                      "fields": info.get("fields") or written.get("fields", []),
                      "fields_from": "--dump-ir" if info.get("fields") else "the file"})
        if self.stopped:
            entry["skipped"] = self.stopped
        else:
            for what, steps in (("one_step", 1), ("multi_step", entry["steps"])):
                if self.out_of_time():
                    entry["skipped"] = self.stopped
                    break
                entry[what] = self.bench(path, stencil, None, True, self.a.examples_budget,
                                         f"{label}-{typ}-steps{steps}", steps=steps,
                                         tunedb=f"{self.tunedb}-examples-pairs")
                self.say_tuned(f"{typ:6s} {label:14s} {steps} step{'s' if steps > 1 else ''}, example", entry[what])
        self.res["examples_multistep"][label] = entry
        self.save()

    # ---- tuning convergence ---------------------------------------------------------------

    def tune_once(self, path, stencil, typ, steps, strat, budget, seed, tag, folder):
        """One `stencilc FILE --autotune` from an empty database with --tune-log; returns
        (parsed log or None, the command's result, the log's path)."""
        db = os.path.join(self.work, folder, f"db-{tag}")
        shutil.rmtree(db, ignore_errors=True)
        logf = os.path.join(self.work, folder, f"{tag}.jsonl")
        if os.path.exists(logf):
            os.remove(logf)
        cmd = self.stencilc(path, *bl.stencil_args(stencil, typ, steps), "--autotune",
                            *bl.strategy_args(strat),
                            "--budget", budget, "--seed", seed, "-q", "--tune-db", db, "--tune-log", logf,
                            "-o", os.path.join(self.work, folder, f"{tag}.cu"))
        r = bl.run(cmd, self.clock.limit(self.a.timeout + (bl.budget_seconds(budget) or 600)), self.log,
                   interrupt_first=True, grace=min(30, self.a.timeout))
        return bl.parse_tune_log(logf), r, logf

    def tuning_target(self, name, flag):
        found = bl.find_stencil(name)
        if not found:
            self.say(f"{flag}: no stencil named {name}")
            return None
        label, path, stencil = found
        is_bench = os.path.dirname(path).endswith("bench")
        typ = self.types[0] if is_bench else None
        # The benchmark stencils are tuned for one step, the space of the one-step table.
        return label, path, stencil, typ, (self.a.bench_steps if is_bench else None)

    def convergence(self, name):
        target = self.tuning_target(name, "--convergence")
        if not target:
            return
        label, path, stencil, typ, steps = target
        budget = self.a.convergence_budget or self.a.budget
        key = f"{label}/{typ or 'own type'}"
        entry = self.res["convergence"].setdefault(key, {})
        entry.update({"budget": budget, "seeds": self.a.convergence_seeds, "steps": steps})
        strategies = entry.setdefault("strategies", {})
        for strat in self.a.strategies.split(","):
            strategies[strat] = {"runs": []}
            runs = strategies[strat]["runs"]
            for seed in range(1, self.a.convergence_seeds + 1):
                if self.out_of_time():
                    runs.append({"seed": seed, "error": f"not run ({self.stopped})"})
                    continue
                tl, r, _ = self.tune_once(path, stencil, typ, steps, strat, budget, seed,
                                          f"{label}-{strat}-seed{seed}", "conv")
                if not tl or tl["variants"] == 0:
                    why = next((l.strip() for l in r.err.splitlines() if "not tuned" in l), None)
                    err = r.first_error() if not r.ok() else why or "no variant in the tune log"
                    runs.append({"seed": seed, "error": err})
                    self.say(f"convergence {label} {strat} seed {seed}: FAILED: {err}")
                else:
                    runs.append(dict(tl, seed=seed))
                    self.say(f"convergence {label} {strat} seed {seed}: {tl['variants']} variants, best "
                             + (f"{tl['best_ms']} ms/step" if tl["best_ms"] else "none valid"))
                self.save()

    # ---- tuning quality: a short budget against a long one ------------------------------

    def quality(self, name):
        target = self.tuning_target(name, "--quality")
        if not target:
            return
        label, path, stencil, typ, steps = target
        long_s = bl.budget_seconds(self.a.quality_long)
        short_s = bl.budget_seconds(self.a.quality_short)
        key = f"{label}/{typ or 'own type'}"
        entry = {"long": self.a.quality_long, "short": self.a.quality_short, "strategy": "gest", "seed": 1,
                 "steps": steps}
        if self.out_of_time():
            entry["error"] = f"not run ({self.stopped})"
        else:
            tl, r, logf = self.tune_once(path, stencil, typ, steps, "gest", self.a.quality_long, 1,
                                         f"{label}-gest-{self.a.quality_long}", "quality")
            rows = bl.parse_tune_log_rows(logf) or []
            long_best = bl.best_by(rows)
            short_best = bl.best_by(rows, short_s)
            entry.update({"variants": len(rows), "valid": (tl or {}).get("valid", 0),
                          "search_s": (tl or {}).get("search_s"), "interrupted": r.timed_out,
                          "tune_log": os.path.relpath(logf, self.out)})
            if long_best[0] is None:
                entry["error"] = r.first_error() if not r.ok() else "no valid variant in the tune log"
            else:
                entry.update({"long_best_ms": long_best[0], "long_config": long_best[1], "long_found_s": long_best[2],
                              "short_best_ms": short_best[0], "short_config": short_best[1],
                              "short_found_s": short_best[2],
                              "reached_long": (entry["search_s"] or 0) >= 0.9 * (long_s or 0)})
                if short_best[0]:
                    entry["ratio"] = short_best[0] / long_best[0]
                    entry["within_5pct"] = entry["ratio"] <= 1.05
                if short_best[1] and short_best[1] != long_best[1] and self.a.quality_rounds > 0 \
                        and not self.out_of_time():
                    # The search's figures are minima of short noisy measurements: the two
                    # choices are compared again, in turns, in this run.
                    t = bl.retime_configs(self.a.stencilc, path, [short_best[1], long_best[1]],
                                          self.a.quality_rounds, bl.stencil_args(stencil, typ, steps),
                                          self.a.timeout, self.log, self.clock)
                    entry["retimed"] = t
                    rr = bl.retimed_ratio(t, short_best[1], long_best[1])
                    if rr is not None:
                        entry["ratio_retimed"] = rr
                        entry["within_5pct"] = rr <= 1.05
        self.res["quality"][key] = entry
        if "error" in entry:
            self.say(f"quality {label}: FAILED: {entry['error']}")
        else:
            self.say(f"quality {label}: best {entry['long_best_ms']:.4g} ms after {self.a.quality_long}, "
                     f"{entry['short_best_ms'] or float('nan'):.4g} ms by {self.a.quality_short} "
                     f"({entry.get('ratio', float('nan')):.3f}"
                     + (f", re-timed {entry['ratio_retimed']:.3f}" if "ratio_retimed" in entry else "") + ")")
        self.save()

    # ---- the run --------------------------------------------------------------------------

    def selected(self, stencils):
        return [s for s in stencils if not self.only or s[0] in self.only]

    def phase(self, name, fn, *args):
        t0 = self.clock.elapsed()
        try:
            return fn(*args)
        finally:
            ph = self.run_meta.setdefault("phases_s", {})
            ph[name] = round(ph.get(name, 0) + self.clock.elapsed() - t0, 1)

    def run(self):
        self.info()
        if not self.a.keep_db:  # the one-step, multi-step and examples' databases
            for f in glob.glob(self.tunedb + "*/*"):
                if os.path.isfile(f):
                    os.remove(f)
        bench = [] if self.a.skip_stencils else self.selected(bl.bench_stencils())
        examples = [] if self.a.no_examples or self.a.skip_stencils else self.selected(bl.example_stencils())
        self.bench_names = [b[0] for b in self.selected(bl.bench_stencils())]
        peer_set = set(self.a.peer_set.split(",")) if self.a.peers and self.bench_names else set()
        # Multi-step: on by default with the one-step rows, on with --skip-stencils only when asked.
        want_ms = self.a.multistep if self.a.multistep is not None else not self.a.skip_stencils
        multistep = self.selected(bl.bench_stencils()) if want_ms else []
        if multistep and "float" in self.types:  # AN5D's figures are float's
            self.load_an5d()
        pairs = self.selected(bl.example_stencils()) if self.a.examples_multistep else []
        self.say(f"{len(bench)} benchmark stencils x {','.join(self.types)}, {len(examples)} other examples; "
                 f"budget {self.a.budget} ({self.a.examples_budget} for the examples); peers: "
                 f"{','.join(sorted(peer_set)) or 'none'}"
                 + (f"; multi-step ({self.a.multistep_budget}) for {len(multistep)}" if multistep else "")
                 + (f"; one step against multi-step ({self.a.examples_budget}) for {len(pairs)} examples"
                    if pairs else "")
                 + (f"; stops after {self.a.max_minutes} min" if self.a.max_minutes else ""))
        builder = None
        self.naive_exe, self.naive_error = None, "not built"
        if "naive" in peer_set:
            builder = threading.Thread(target=self.build_naive, daemon=True)
            builder.start()
        # The 21, their peers and their multi-step rows first (the float framework peers right
        # after float's: JAX's valid-region form is often the best peer), then the other
        # examples, one step and then one step against multi-step, then convergence: what
        # --max-minutes cuts first is what matters least.
        for typ in self.types:
            for label, path, stencil in bench:
                self.phase(f"stencilc {typ}", self.measure_row, "bench", label, path, stencil, typ, self.a.budget)
            if builder:
                self.phase(f"naive {typ}", self.run_naive, builder, typ)
            if "jax" in peer_set:
                self.phase(f"jax {typ}", self.run_jax, typ)
            if "framework" in peer_set and typ == "float":
                self.phase("framework float", self.run_framework)
            self.save()
            for label, path, stencil in multistep:
                self.phase(f"multi-step {typ}", self.multistep, label, path, stencil, typ)
        for label, path, stencil in examples:
            self.phase("stencilc examples", self.measure_row, "example", label, path, stencil, None,
                       self.a.examples_budget)
        for label, path, stencil in pairs:
            self.phase("examples one step, multi-step", self.example_pair, label, path, stencil)
        for name in self.names_or_all(self.a.convergence):
            self.phase("convergence", self.convergence, name)
        for name in self.names_or_all(self.a.quality):
            self.phase("quality", self.quality, name)

    def names_or_all(self, text):
        """The stencils of --convergence / --quality: comma-separated names, or `all`: the 21
        benchmarks (those of --only, when given)."""
        names = [s for s in (text or "").split(",") if s]
        return [b[0] for b in self.selected(bl.bench_stencils())] if names == ["all"] else names

    def finish(self):
        self.save()
        phases = self.run_meta.get("phases_s", {})
        if phases:
            self.say("time per phase: " + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items()))
        files = report.render(self.res, self.out)
        self.say(f"wrote {', '.join(os.path.join(self.out, f) for f in files)}")
        self.log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stencilc", default=os.path.join(bl.ROOT, "build", "driver", "stencilc"))
    ap.add_argument("--peers", default=None, help="folder of the peer programs (e.g. ../shared/peers)")
    ap.add_argument("--budget", default="10s", help="tuning budget per benchmark stencil (default 10s)")
    ap.add_argument("--examples-budget", default=None,
                    help="tuning budget per other example (default: half of --budget, at least 3s)")
    ap.add_argument("--types", default="float", help="float, double or float,double (default float)")
    ap.add_argument("--only", default=None, help="comma-separated stencil names (benchmarks and examples)")
    ap.add_argument("--no-examples", action="store_true", help="only the 21 benchmark stencils")
    ap.add_argument("--peer-set", default="naive,jax,framework",
                    help="which peers of --peers to run (default naive,jax,framework)")
    ap.add_argument("--framework-timeout", type=float, default=240,
                    help="seconds for framework_peers.py (its figures so far are kept; default 240)")
    ap.add_argument("--skip-stencils", action="store_true",
                    help="measure no stencilc kernel (only peers and --convergence; with --merge)")
    ap.add_argument("--out", default=bl.HERE, help="folder for RESULTS.md, results.json, charts, work/")
    ap.add_argument("--max-minutes", type=float, default=None, help="stop cleanly after this long")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds a command may take (a tuning: its budget more; peers: 2-3x)")
    ap.add_argument("--convergence", default=None,
                    help="stencils to tune with each strategy (comma-separated, or 'all' benchmarks)")
    ap.add_argument("--convergence-budget", default=None, help="budget per strategy (default --budget)")
    ap.add_argument("--convergence-seeds", type=int, default=1,
                    help="tunings per strategy and stencil, --seed 1..N (default 1)")
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="strategies of --convergence (default gest,random,genetic; also gest-nopriors: "
                         "GeST without its prior configurations; gest-fill: GeST with fill=1; gest-smem: priors=6; "
                         "gest-balance, gest-nopriors-balance: balanced groups, balance=1; gest-guided: --guide, "
                         "the learned model ranks)")
    ap.add_argument("--steps", dest="bench_steps", type=int, default=1,
                    help="--steps of the one-step table's benchmark stencils, convergence and quality (default 1: "
                         "no temporal blocking)")
    ms = ap.add_mutually_exclusive_group()
    ms.add_argument("--multistep", dest="multistep", action="store_true", default=None,
                    help="the multi-step table (each type of --types, the 21 benchmarks; default on, off with "
                         "--skip-stencils)")
    ms.add_argument("--no-multistep", dest="multistep", action="store_false")
    ap.add_argument("--multistep-budget", default=None, help="tuning budget of a multi-step row (default --budget)")
    ap.add_argument("--multistep-steps-2d", type=int, default=1000)
    ap.add_argument("--multistep-steps-3d", type=int, default=100)
    ap.add_argument("--examples-multistep", action="store_true",
                    help="the other examples (those of --only) tuned at --steps 1 and at the multi-step count "
                         "(--multistep-steps-2d in 1D and 2D, -3d in 3D), --examples-budget each; with "
                         "--no-examples and --skip-stencils too")
    ap.add_argument("--fast-math", default=None,
                    help="stencils (or 'all') whose multi-step row is also tuned with --fast-math")
    ap.add_argument("--an5d", default=None,
                    help=f"AN5D's quoted figures (default PEERS/{bl.AN5D_FILE})")
    ap.add_argument("--quality", default=None,
                    help="stencils (or 'all' benchmarks) to tune once with --quality-long, comparing the best "
                         "found by --quality-short")
    ap.add_argument("--quality-long", default="300s")
    ap.add_argument("--quality-short", default="60s")
    ap.add_argument("--quality-rounds", type=int, default=3,
                    help="time the short and the long search's choices again, in turns, this many times "
                         "each (stencilc bench --config; 0: no re-timing)")
    ap.add_argument("--merge", default=None, help="a results.json of an earlier run to add to")
    ap.add_argument("--keep-db", action="store_true",
                    help="keep the tuning databases OUT/work/tunedb* (tuning results are reused)")
    ap.add_argument("--python", default=sys.executable, help="the python that runs the peers")
    ap.add_argument("--nvcc", default=bl.default_nvcc())
    ap.add_argument("--arch", default="90", help="sm_XX for nvcc when nvidia-smi does not say (default 90)")
    a = ap.parse_args()
    if a.examples_budget is None:
        secs = bl.budget_seconds(a.budget)
        a.examples_budget = f"{max(3, int(secs // 2))}s" if secs else a.budget
    a.stencilc = os.path.abspath(a.stencilc) if os.sep in a.stencilc else a.stencilc
    if a.peers:
        a.peers = os.path.abspath(a.peers)
    a.multistep_budget = a.multistep_budget or a.budget
    if a.convergence_seeds < 1:
        ap.error("--convergence-seeds takes a count of at least 1")
    for opt in ("quality_long", "quality_short"):
        if bl.budget_seconds(getattr(a, opt)) is None:
            ap.error(f"--{opt.replace('_', '-')}: a time like 60s or 5m")
    if a.an5d:
        a.an5d = os.path.abspath(a.an5d)
    bad = [t for t in a.types.split(",") if t not in bl.ELEM_BYTES]
    if bad:
        ap.error(f"--types: unknown type {bad[0]} (float, double)")
    bl.run_to_the_end(Suite(a))


if __name__ == "__main__":
    main()
