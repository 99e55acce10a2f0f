"""A PEP 517 build backend for the stencilc package that needs nothing but the standard library,
so that `pip install ./python` works with no network (pip cannot fetch setuptools then). It
builds a pure-Python wheel of the stencilc/ folder: the modules and the CUDA shim they compile."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "stencilc"


def _project():
    """name and version from pyproject.toml (a few lines: no TOML parser before Python 3.11)."""
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    project = text[text.index("[project]"):]
    get = lambda key: re.search(r'(?m)^%s\s*=\s*"([^"]*)"' % key, project).group(1)
    return get("name"), get("version"), get("description"), get("requires-python")


def _files():
    for folder, _, names in os.walk(os.path.join(ROOT, PACKAGE)):
        for name in sorted(names):
            if name.endswith((".py", ".cu")):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, ROOT).replace(os.sep, "/")


def _metadata():
    name, version, description, python = _project()
    return (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {description}\n"
            f"Requires-Python: {python}\nLicense: MIT\nProvides-Extra: numpy\n"
            f"Requires-Dist: numpy; extra == 'numpy'\n")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version = _project()[:2]
    dist = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    entries = [(arc, open(path, "rb").read()) for path, arc in _files()]
    entries.append((f"{dist}/METADATA", _metadata().encode()))
    entries.append((f"{dist}/WHEEL", b"Wheel-Version: 1.0\nGenerator: stencilc_backend\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(arc, data) for arc, data in entries] + [f"{dist}/RECORD,,"]
    entries.append((f"{dist}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(arc, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    name, version = _project()[:2]
    base = f"{name}-{version}"
    with tarfile.open(os.path.join(sdist_directory, base + ".tar.gz"), "w:gz") as t:
        for rel in ["pyproject.toml", "README.md", "_backend/stencilc_backend.py"]:
            if os.path.exists(os.path.join(ROOT, rel)):
                t.add(os.path.join(ROOT, rel), f"{base}/{rel}")
        for path, arc in _files():
            t.add(path, f"{base}/{arc}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"
