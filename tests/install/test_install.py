#!/usr/bin/env python3
"""What a user gets from `meson install`, checked against the installed files alone: each test
installs the build into a staging folder of its own (meson install --destdir) and then

  man     the manual page is installed, `man stencilc` finds it and it lists every option of
          `stencilc --help`;
  cmake   examples/cmake-app configures, builds and links with find_package(stencilc), and
          builds its kernel again when the installed stencilc changes; a DISTRIBUTED kernel
          builds against NCCL's header, and the helper's refusals say why;
  meson   the same for examples/meson-app and its custom_target recipe;
  link    the compile and link lines of docs/c-api.md work as written.

The programs run only where a GPU is found (built for its compute capability); without one they
are built for sm_80 and not run. Exits 77 without nvcc (nothing can be built for a GPU), and
`cmake` without cmake.

    test_install.py man|cmake|meson|link MESON BUILD_ROOT SOURCE_ROOT
"""
import glob
import os
import re
import shutil
import subprocess
import sys


def sh(cmd, cwd=None, env=None):
    """Runs cmd; on failure prints its output and exits 1. Returns its stdout and stderr."""
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, shell=isinstance(cmd, str))
    if r.returncode != 0:
        print(f"FAILED ({r.returncode}): {cmd}\n{r.stdout}\n{r.stderr}")
        sys.exit(1)
    return r.stdout + r.stderr


def has_gpu():
    return shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0


def stage(meson, build, work):
    """Installs the build under work/stage; returns the staged prefix (the folder with bin/)."""
    dest = os.path.join(work, "stage")
    shutil.rmtree(dest, ignore_errors=True)
    sh([meson, "install", "-C", build, "--no-rebuild", "--destdir", dest, "--quiet"])
    found = glob.glob(os.path.join(dest, "**", "bin", "stencilc"), recursive=True)
    if len(found) != 1:
        print(f"FAILED: no single bin/stencilc under {dest}: {found}")
        sys.exit(1)
    return os.path.dirname(os.path.dirname(found[0]))


def gpu_arch():
    """The GPU's compute capability ('90'), so that a built program runs on it; 80 without one."""
    if not has_gpu():
        return "80"
    cap = sh(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]).split()[0]
    return cap.replace(".", "")


def run_app(path, expect):
    if not has_gpu():
        print(f"{os.path.basename(path)}: built; not run (no GPU)")
        return
    out = sh([path])
    if expect not in out:
        print(f"FAILED: {path} printed {out!r}, not {expect!r}")
        sys.exit(1)
    print(out.strip())


def rebuilt_after_touch(build_cmd, stencilc, marker):
    """A new stencilc (here: a newer time stamp) must generate the kernel again."""
    sh(build_cmd)
    if marker in sh(build_cmd):
        print(f"FAILED: an up-to-date build ran stencilc again: {build_cmd}")
        sys.exit(1)
    os.utime(stencilc)
    if marker not in sh(build_cmd):
        print(f"FAILED: the kernel was not generated again after stencilc changed: {build_cmd}")
        sys.exit(1)


def test_man(prefix, src, work):
    page = os.path.join(prefix, "share", "man", "man1", "stencilc.1")
    if not os.path.isfile(page):
        print(f"FAILED: no manual page at {page}")
        sys.exit(1)
    help_text = sh([os.path.join(prefix, "bin", "stencilc"), "--help"])
    if shutil.which("man"):
        env = dict(os.environ, MANPATH=os.path.join(prefix, "share", "man"), MANWIDTH="100")
        text = sh(["man", "stencilc"], env=env)
    else:  # the roff source, as far as a reader without man would see it
        text = open(page).read().replace("\\-", "-").replace("\\e", "\\")
    text = text.replace("\u2010", "-").replace("\u2212", "-")
    options = re.findall(r"(?m)^  (-[-\w]+)", help_text)
    missing = [o for o in options if o not in text]
    if len(options) < 10 or missing:
        print(f"FAILED: options of --help missing from the page: {missing} (of {options})")
        sys.exit(1)
    print(f"man stencilc: {len(options)} options, as in --help")


def test_cmake(prefix, src, work):
    if not shutil.which("cmake"):   # scripts/quickstart.sh installs it; a GPU machine may lack it
        print("skip: no cmake")
        sys.exit(77)
    stencilc = os.path.join(prefix, "bin", "stencilc")
    build = os.path.join(work, "build")
    shutil.rmtree(build, ignore_errors=True)
    configured(prefix, os.path.join(src, "examples", "cmake-app"), build)
    rebuilt_after_touch(["cmake", "--build", build], stencilc, "stencilc heat.st")
    run_app(os.path.join(build, "heat_app"), "heat_app: 20 steps")
    cmake_distributed(prefix, src, work)


def cmake_project(work, name, call):
    """A CMake project in work/name that makes one kernel library with `call`; returns its folder."""
    folder = os.path.join(work, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    open(os.path.join(folder, "CMakeLists.txt"), "w").write(
        "cmake_minimum_required(VERSION 3.18)\nproject(" + name + " LANGUAGES C CUDA)\n"
        "find_package(stencilc REQUIRED)\n" + call + "\n")
    return folder


def cmake_configure(prefix, folder, *defs, build=None):
    """Configures the CMake project in folder (into build, default folder/build) against the staged
    stencilc package, for this machine's GPU; returns cmake's status and output."""
    r = subprocess.run(["cmake", "-S", folder, "-B", build or os.path.join(folder, "build"),
                        "-Dstencilc_DIR=" + os.path.join(prefix, "share", "cmake", "stencilc"),
                        "-DCMAKE_CUDA_ARCHITECTURES=" + gpu_arch(), *defs], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def configured(prefix, folder, build, *defs):
    """cmake_configure, failing the test where it fails."""
    rc, out = cmake_configure(prefix, folder, *defs, build=build)
    if rc != 0:
        print(f"FAILED: cmake could not configure {folder}:\n{out}")
        sys.exit(1)


def cmake_distributed(prefix, src, work):
    """DISTRIBUTED: the multi-GPU API with the depth chosen for PROCS, compiled against NCCL's
    header (the test-only declaration of tests/dist/nccl_stub where NCCL is not installed; only
    the library is built, so the library file is never linked); and its refusals."""
    heat = os.path.join(src, "examples", "cmake-app", "heat.st")
    folder = cmake_project(work, "dist", f'stencilc_add_kernel(heat_dist SOURCE "{heat}" DISTRIBUTED PROCS 1x1x2)')
    fake = os.path.join(folder, "libnccl.so")
    open(fake, "w").close()
    configured(prefix, folder, os.path.join(folder, "build"),
               "-DNCCL_INCLUDE_DIR=" + os.path.join(src, "tests", "dist", "nccl_stub"), "-DNCCL_LIBRARY=" + fake)
    sh(["cmake", "--build", os.path.join(folder, "build"), "--target", "heat_dist"])
    header = open(os.path.join(folder, "build", "stencilc", "heat_dist", "heat.h")).read()
    for want in ("#include <nccl.h>", "int heat_dist_init(", "#define HEAT_DIST_DEPTH", "256x256x256 over\n * 1x1x2"):
        if want not in header:
            print(f"FAILED: the DISTRIBUTED header lacks '{want}'")
            sys.exit(1)
    refusals = [("PROCS 1x1x2", "PROCS and LINK need DISTRIBUTED"),
                ("DISTRIBUTED LINK 25", "LINK needs PROCS")]
    refusals.append(("DISTRIBUTED", "DISTRIBUTED needs NCCL"))   # no nccl.h to find: what to set
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    has = [d for d in ["/usr/include", os.path.join(cuda, "include")] + glob.glob(os.path.join(cuda, "targets", "*", "include"))
           if os.path.exists(os.path.join(d, "nccl.h"))]
    hide = "-DCMAKE_IGNORE_PATH=" + ";".join(sorted(set(has + [os.path.realpath(d) for d in has])))
    for i, (words, message) in enumerate(refusals):
        bad = cmake_project(work, f"bad{i}", f'stencilc_add_kernel(k SOURCE "{heat}" {words})')
        rc, out = cmake_configure(prefix, bad, hide)
        if rc == 0 or message not in out:
            print(f"FAILED: '{words}' configured (rc {rc}) or said no '{message}':\n{out}")
            sys.exit(1)
    # examples/distributed's CMake build, both programs linked against the real NCCL where there is one
    if not has:
        print(f"cmake DISTRIBUTED: the multi-GPU library built, {len(refusals)} refusals (no NCCL to link)")
        return
    build = os.path.join(work, "dist-example")
    shutil.rmtree(build, ignore_errors=True)
    configured(prefix, os.path.join(src, "examples", "distributed"), build)
    sh(["cmake", "--build", build])
    built = [p for p in ("heat_threads", "heat_mpi") if os.path.exists(os.path.join(build, p))]
    if "heat_threads" not in built:
        print("FAILED: examples/distributed built no heat_threads")
        sys.exit(1)
    print(f"cmake DISTRIBUTED: the multi-GPU library built, {len(refusals)} refusals; examples/distributed: {built}")


def test_meson(prefix, src, work):
    stencilc = os.path.join(prefix, "bin", "stencilc")
    build = os.path.join(work, "build")
    shutil.rmtree(build, ignore_errors=True)
    sh(["meson", "setup", build, os.path.join(src, "examples", "meson-app"), "-Dstencilc=" + stencilc,
        "-Dgpu_arch=" + gpu_arch()])
    rebuilt_after_touch(["ninja", "-C", build], stencilc, "Generating diffuse2d")
    run_app(os.path.join(build, "diffuse2d_app"), "diffuse2d_app: 25 steps")


def test_link(prefix, src, work):
    """Runs the command block of docs/c-api.md that holds the link lines, in a folder with heat.cu
    (from the installed stencilc) and the CMake template's main.c."""
    doc = open(os.path.join(src, "docs", "c-api.md")).read()
    blocks = [b for b in re.findall(r"```\n(.*?)```", doc, re.S) if "-lcudart" in b]
    if len(blocks) != 1:
        print("FAILED: docs/c-api.md has no single block of compile and link lines")
        sys.exit(1)
    dest = os.path.join(work, "link")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    shutil.copy(os.path.join(src, "examples", "cmake-app", "main.c"), dest)
    sh([os.path.join(prefix, "bin", "stencilc"), os.path.join(src, "examples", "cmake-app", "heat.st"),
        "-o", os.path.join(dest, "heat.cu")])
    apps = []
    for line in blocks[0].strip().splitlines():
        sh(line.split("#")[0], cwd=dest)
        apps += re.findall(r"-o (\S+)", line)
    for app in apps:
        if not app.endswith(".o"):
            run_app(os.path.join(dest, app), "heat_app: 20 steps")
    print(f"docs/c-api.md: {len(blocks[0].strip().splitlines())} lines ran")


def main():
    what, meson, build, src = sys.argv[1:5]
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    os.environ["PATH"] = os.path.join(cuda, "bin") + os.pathsep + os.environ["PATH"]
    if not shutil.which("nvcc"):
        print("skip: no nvcc")
        return 77
    work = os.path.join(build, "tests", "install", what)
    os.makedirs(work, exist_ok=True)
    prefix = stage(meson, build, work)
    {"man": test_man, "cmake": test_cmake, "meson": test_meson, "link": test_link}[what](prefix, src, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
