#!/usr/bin/env python3
"""Mistakes on stencilc's command line are caught and explained (issue 30): non-finite or absurd
numbers, options that conflict or mean nothing alone, an option given twice and an unknown
command are usage errors (exit 2) that name what is wrong; a FIFO or a socket as input is
refused instead of blocking; `replay DIR` says it is a directory; a long `check` says how long
it will take, shows progress and stops cleanly on Ctrl-C (exit 130).

usage: test_cli_errors.py PATH/TO/stencilc   (STC_SOURCE_ROOT: the source tree)
"""
import os
import signal
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
TINY = os.path.join(ROOT, "tests", "data", "replay_tiny.tsv")


def run(*args, cwd=None):
    return clitest.run(STENCILC, *args, cwd=cwd, timeout=20)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    out = os.path.join(tmp, "x.cu")

    # numbers: not finite, or absurd
    for value in ["nan", "inf", "-inf", "NaN", "infinity", "1e300", "1e300s", "nans", "infs", "nanh", "-infm", "0", "-5", "1e400"]:
        code, _, se = run(HEAT, "--autotune", "--budget", value, "-o", out)
        check(f"--budget {value}: usage error", code == 2 and "--budget takes" in se, se)

    # conflicting options, and options that mean nothing without another: exit 2 naming both
    for args, a, b in [
            (["check", HEAT, "--autotune"], "check", "--autotune"),
            (["check", HEAT, "-o", out], "check", "-o"),
            (["check", HEAT, "--name", "x"], "check", "--name"),
            ([HEAT, "--list-space", "-o", out], "--list-space", "-o"),
            ([HEAT, "--list-space", "--autotune"], "--list-space", "--autotune"),
            ([HEAT, "--dump-ast", "--dump-ir"], "--dump-ast", "--dump-ir"),
            ([HEAT, "--dump-ir", "-o", out], "--dump-ir", "-o"),
            (["bench", HEAT, "-o", out], "bench", "-o"),
            (["replay", TINY, "-o", out], "replay", "-o"),
            (["replay", TINY, "--autotune"], "replay", "--autotune"),
            ([HEAT, "--tune-record", "r.tsv", "--replay", TINY], "--tune-record", "--replay")]:
        code, _, se = run(*args)
        check(f"'{a}' with '{b}': usage error naming both", code == 2 and f"'{a}' and '{b}' conflict" in se, se)
    for args, opt in [([HEAT, "--replay", TINY, "-o", out], "--replay"),
                      ([HEAT, "--budget", "10", "-o", out], "--budget"),
                      ([HEAT, "--strategy", "random", "-o", out], "--strategy"),
                      ([HEAT, "--tune-log", "l.jsonl", "-o", out], "--tune-log"),
                      ([HEAT, "--tune-db", tmp, "-o", out], "--tune-db")]:
        code, _, se = run(*args)
        check(f"{opt} without --autotune: usage error", code == 2 and f"'{opt}' needs '--autotune'" in se, se)
    check("a conflict writes nothing", not os.path.exists(out))
    for opt, v1, v2 in [("--stencil", "heat", "other"), ("-o", out, out), ("--grid", "64x64x64", "32x32x32"),
                        ("--config", "tb=32x4x2", "tb=64x4x2"), ("--steps", "2", "3")]:
        code, _, se = run(HEAT, opt, v1, opt, v2)
        check(f"{opt} given twice: usage error", code == 2 and f"'{opt}' given twice" in se, se)
    # the combinations that stay allowed
    code, _, se = run(HEAT, "--autotune", "--replay", TINY, "--budget", "3", "-o", out)
    check("--autotune --replay --budget is no conflict", code != 2, se)
    code, _, se = run("check", HEAT, "--steps", "2", "--seed", "3")
    check("check --steps --seed is no conflict", code == 0, se)

    # an unknown command
    code, _, se = run("comp", HEAT)
    check("unknown command: says so", code == 2 and "unknown command 'comp'" in se, se)
    code, _, se = run("chekc", HEAT)
    check("misspelt command: a suggestion", code == 2 and "did you mean 'check'" in se, se)
    code, _, se = run("bnech")
    check("misspelt command alone: a suggestion", code == 2 and "did you mean 'bench'" in se, se)
    code, _, se = run(HEAT, "-o", out)
    check("a file name is no command", code == 0, se)

    # special files as input: refused, not read forever
    fifo = os.path.join(tmp, "in.st")
    os.mkfifo(fifo)
    code, _, se = run(fifo, "-o", out)
    check("a FIFO as input is refused", code == 1 and "a FIFO" in se and "not a regular file" in se, se)
    sock_path = os.path.join(tmp, "sock.st")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(sock_path)
    code, _, se = run(sock_path, "-o", out)
    check("a socket as input is refused", code == 1 and "a socket" in se, se)
    sock.close()
    code, _, se = run(HEAT, "--autotune", "--replay", fifo, "-o", out)
    check("a FIFO as --replay file is refused", code == 1 and "a FIFO" in se, se)
    code, _, se = run("replay", fifo)
    check("replay of a FIFO is refused", code == 1 and "a FIFO" in se, se)
    code, _, se = run("replay", tmp)
    check("replay of a directory says so", code == 1 and "a directory" in se and "empty" not in se, se)
    code, so, se = subprocess.run([STENCILC, "-", "--dump-ast"], input=open(HEAT).read(), capture_output=True,
                                  text=True, timeout=20).returncode, None, None
    check("standard input ('-') is still read", code == 0)

    # a long check: an estimate, a warning for an absurd count, progress, Ctrl-C stops it
    err_path = os.path.join(tmp, "check.err")
    with open(err_path, "w") as err_file:
        p = subprocess.Popen([STENCILC, "check", HEAT, "--steps", "1000000000"], stdout=subprocess.PIPE,
                             stderr=err_file, text=True)
        deadline = time.time() + 20
        while time.time() < deadline and "will take about" not in open(err_path).read():
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        try:
            so, _ = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            so, _ = p.communicate()
    se = open(err_path).read()
    check("a long check says how long it will take, with a warning", "will take about" in se and "warning" in se, se)
    check("Ctrl-C stops check with exit 130 and a message", p.returncode == 130 and "interrupted after" in se,
          f"exit {p.returncode}: {se}")
    check("an interrupted check prints no summary", "checksum" not in so, so)
    code, _, se = run("check", HEAT)
    check("a short check prints no estimate", code == 0 and se == "", se)

finish()
