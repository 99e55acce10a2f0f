#!/usr/bin/env python3
"""Adds the figures of other results.json files to one results.json, as `bench/suite.py --merge
TARGET` would have at the time of the run: for a piece measured without --merge (a device call's
output, the target not at hand on the GPU machine).

    python3 bench/merge_results.py bench/results.json PIECE/results.json [PIECE2/results.json ...]

Later pieces win, entry by entry: a row (kind, name, type) replaces the target's; a stencil's
multi-step entry replaces the target's for that type and stencil (keeping the target's
--fast-math figure where the piece has none), an example pair's or a quality
entry's fields the target's; a
peer's figures replace the target's for that stencil; the copy bandwidth samples are added. The
pieces' run records (meta.runs) are added, each with a note saying it was merged here. The
target's peer_status lines, AN5D quotation and convergence entries stay (bench/merge_convergence.py
joins convergence pieces). A piece from another GPU model is refused: the tables compare figures
of one machine model.
"""
import argparse
import json
import os
import sys

import suite

# results.json's sections keyed by type, then stencil (multistep), and by one key per entry
# (examples_multistep: the example's label; quality: NAME/TYPE, whose entry bench/longsearch.py
# adds a "reference" to, so an entry is updated, not replaced)
BY_TYPE = ("multistep",)
BY_KEY = ("examples_multistep", "quality")


def row_key(r):
    return (r["kind"], r["name"], r["type"])


def check_same(target, piece, path):
    a, b = target["meta"].get("gpu"), piece["meta"].get("gpu")
    if a and b and a != b:
        sys.exit(f"merge_results: {path}: GPU {b!r} is not the target's {a!r}")
    # as suite.py --merge: the newest stencilc names the tables; each run record keeps its own
    if piece["meta"].get("stencilc_version"):
        target["meta"]["stencilc_version"] = piece["meta"]["stencilc_version"]


def add(target, piece, path):
    check_same(target, piece, path)
    rows = {row_key(r): r for r in target.get("rows", [])}
    rows.update({row_key(r): r for r in piece.get("rows", [])})
    target["rows"] = sorted(rows.values(), key=lambda r: (r["kind"] != "bench", r["type"], r["name"]))
    target.setdefault("copy_gbs", []).extend(piece.get("copy_gbs", []))
    for section in BY_TYPE:
        for typ, table in piece.get(section, {}).items():
            old = target.setdefault(section, {}).setdefault(typ, {})
            for name, entry in table.items():
                suite.keep_fast_math(entry, old.get(name))
            old.update(table)
    for section in BY_KEY:
        for key, entry in piece.get(section, {}).items():
            target.setdefault(section, {}).setdefault(key, {}).update(entry)
    for peer, types in piece.get("peers", {}).items():
        for typ, table in types.items():
            target.setdefault("peers", {}).setdefault(peer, {}).setdefault(typ, {}).update(table)
    runs = target["meta"].setdefault("runs", [])
    ids = {r.get("id") for r in runs}
    for run in piece["meta"].get("runs", []):
        if run.get("id") not in ids:
            runs.append(dict(run, note="measured without --merge, merged by bench/merge_results.py"))
    target["meta"]["date"] = max(target["meta"].get("date", ""), piece["meta"].get("date", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("pieces", nargs="+")
    a = ap.parse_args()
    target = json.load(open(a.target))
    for p in a.pieces:
        add(target, json.load(open(p)), p)
    tmp = a.target + ".tmp"
    with open(tmp, "w") as f:
        json.dump(target, f, indent=1, default=str)
    os.replace(tmp, a.target)
    print(f"merged {len(a.pieces)} piece(s) into {a.target}")


if __name__ == "__main__":
    main()
