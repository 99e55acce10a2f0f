#!/usr/bin/env python3
"""Writes the manual page stencilc(1) from `stencilc --help` and `stencilc --version`, so that
the page and the help text cannot drift apart: the build runs this on the stencilc it built.

    gen_manpage.py STENCILC OUT.1
"""
import os
import re
import subprocess
import sys

NAME_LINE = "stencilc \\- compile stencil programs to CUDA with a plain C API"
SEE_ALSO = ("The documentation in the source tree: docs/language.md (the language), docs/errors.md "
            "(every diagnostic code), docs/c-api.md (the emitted API and memory layout), "
            "docs/config.md, docs/autotune.md, docs/cmake.md (CMake and meson builds), "
            "docs/python.md (the Python package).")


def run(binary, flag):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")  # a sanitized build runs this too
    return subprocess.run([binary, flag], check=True, capture_output=True, text=True, env=env).stdout


def roff(text):
    """Escapes text for a roff line: backslashes, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def desc_column(text):
    """The column where the options' descriptions start: the commonest one after a gap."""
    starts = [m.end() - m.start() for m in re.finditer(r"(?m)^  [^ \n][^\n]*?  +(?=[^ \n])", text)]
    return max(set(starts), key=starts.count)


def parse_help(text):
    """Splits the help text into its usage lines, its options [name, description] and the
    sections after them [(title, text)], e.g. ("exit status", "0 success, ...")."""
    usage, options, sections = [], [], []
    part = "usage"
    for line in text.splitlines():
        if not line.strip():
            continue
        head = re.match(r"^(usage|[a-z][a-z ]*):\s*(.*)$", line)
        if head and head.group(1) != "usage":
            part = head.group(1)
            if part != "options":
                sections.append([part, head.group(2)])
            continue
        if part == "usage":
            usage.append(re.sub(r"^(usage:)?\s*", "", line))
        elif part == "options":
            if line.startswith("  ") and line[2] != " ":
                # the descriptions start in one column; a long name leaves one space before it
                name, desc = line[:desc_column(text)], line[desc_column(text):]
                options.append([name.strip(), desc.strip()])
            elif options:
                options[-1][1] += " " + line.strip()
        else:
            sections[-1][1] += " " + line.strip()
    return usage, options, sections


def manpage(help_text, version):
    usage, options, sections = parse_help(help_text)
    out = ['.TH STENCILC 1 "" "%s" "User Commands"' % roff(version.strip()),
           ".ad l", ".SH NAME", NAME_LINE, ".SH SYNOPSIS"]
    described = []
    for line in usage:
        cmd, what = (re.split(r"\s{2,}", line.strip(), maxsplit=1) + [""])[:2]
        out += [".B " + roff(cmd), ".br"]
        described.append((cmd, what))
    out.append(".SH DESCRIPTION")
    for cmd, what in described:
        out += [".TP", ".B " + roff(cmd), roff(what.strip())]
    out.append(".SH OPTIONS")
    for name, desc in options:
        out += [".TP", ".B " + roff(name), roff(desc)]
    for title, body in sections:
        out += [".SH " + roff(title.upper()), roff(body.strip())]
    out += [".SH SEE ALSO", roff(SEE_ALSO), ""]
    return "\n".join(out)


def main():
    binary, dest = sys.argv[1], sys.argv[2]
    page = manpage(run(binary, "--help"), run(binary, "--version"))
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, dest)


if __name__ == "__main__":
    main()
