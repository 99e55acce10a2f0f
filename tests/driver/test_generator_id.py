#!/usr/bin/env python3
"""scripts/generator_id.py: the digest that keys the tuning database to the generator follows
every source of ir/ and codegen/, headers too, and the header is not rewritten when nothing
changed (so that a build recompiles nothing)."""
import os
import shutil
import subprocess
import sys
import tempfile

script, root = sys.argv[1], sys.argv[2]
failed = 0


def check(name, ok, detail=""):
    global failed
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    failed += not ok


def make(tree, out):
    subprocess.run([sys.executable, script, out, out + ".d", tree], check=True)
    with open(out) as f:
        return f.read()


with tempfile.TemporaryDirectory() as tmp:
    tree = os.path.join(tmp, "src")
    for d in ("ir", "codegen"):
        shutil.copytree(os.path.join(root, d), os.path.join(tree, d))
    out = os.path.join(tmp, "stc_generator.h")
    first = make(tree, out)
    check("defines STC_GENERATOR_ID", '#define STC_GENERATOR_ID "' in first, first)
    with open(out + ".d") as f:
        deps = f.read()
    check("the depfile names the codegen and ir sources, headers too",
          deps.startswith(out + ": ") and "/codegen/config.h" in deps and "/ir/lower.c" in deps, deps[:300])
    check("the depfile names the folders, so that a new source remakes the header",
          all(os.path.join(tree, d) in deps.split() for d in ("ir", "codegen")), deps[:300])
    check("same sources as the build's", first == make(root, os.path.join(tmp, "root.h")))
    os.utime(out, (1, 1))
    check("unchanged sources: same text", make(tree, out) == first)
    check("unchanged sources: file not rewritten", os.stat(out).st_mtime == 1)
    seen = {first}
    header = sorted(n for n in os.listdir(os.path.join(tree, "codegen")) if n.endswith(".h"))[0]
    with open(os.path.join(tree, "codegen", header), "a") as f:
        f.write("/* a change */\n")
    text = make(tree, out)
    check("a codegen header's change changes the digest", text not in seen, text)
    seen.add(text)
    with open(os.path.join(tree, "ir", "new_pass.c"), "w") as f:
        f.write("int ir_new_pass;\n")
    text = make(tree, out)
    check("a new ir source changes the digest", text not in seen, text)
    seen.add(text)
    with open(os.path.join(tree, "ir", "notes.txt"), "w") as f:
        f.write("not a source\n")
    check("a file that is not C source changes nothing", make(tree, out) == text)

print(f"{failed} failed")
sys.exit(1 if failed else 0)
