#!/usr/bin/env python3
"""Prints the closing line 'N passed, N failed, N skipped' from meson's testlog.json (plus the
fuzz run as one more test) and exits non-zero if anything failed."""
import json
import sys

log, fuzz_ok = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
passed = failed = skipped = 0
failures = []
with open(log) as f:
    for line in f:
        r = json.loads(line)
        res = r.get("result")
        if res in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif res == "SKIP":
            skipped += 1
        else:
            failed += 1
            failures.append(f"{r.get('name')}: {res}")
if fuzz_ok is not None:
    if fuzz_ok == "1":
        passed += 1
    else:
        failed += 1
        failures.append("fuzz: crash or error")
for f in failures:
    print("FAILED", f)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
