"""What the command-line tests of tests/driver share: running stencilc, checking, the summary."""
import subprocess
import sys

failures = []


def run(stencilc, *args, cwd=None, timeout=120, preexec_fn=None):
    """(exit status, stdout, stderr) of stencilc ARGS; a run that hangs counts as exit -1."""
    try:
        p = subprocess.run([stencilc, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                           preexec_fn=preexec_fn)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", f"(hung: killed after {timeout} s)"


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print(f"FAIL {name}\n{detail}")
    else:
        print(f"ok   {name}")


def finish():
    if failures:
        print(f"{len(failures)} failed: {failures}")
        sys.exit(1)
    print("all ok")
