"""What the package needs to know of a kernel, read from the header stencilc wrote (NAME.h):
its C prefix, element type, dimensions, halo, fields and parameters."""
import re

from .layout import Layout

_FIELD = re.compile(r"^\s*(const\s+)?(float|double)\s*\*\s*(\w+)(?:\[(\d+)\])?;\s*/\*\s*(\w+)", re.M)
_PARAM = re.compile(r"^\s*(float|double|int)\s+(\w+);", re.M)


class Field:
    def __init__(self, name, kind, levels, const):
        self.name, self.kind, self.levels, self.const = name, kind, levels, const

    def __repr__(self):
        return f"Field({self.name!r}, {self.kind}, levels={self.levels})"


class KernelInfo:
    """prefix, dtype ('float32'/'float64'), ctype ('float'/'double'), layout, fields (in the
    order of NAME_fields), params (names in the order of NAME_params)."""

    def __init__(self, text):
        m = re.search(r"^typedef (float|double) (\w+)_real;", text, re.M)
        if not m:
            raise ValueError("not a stencilc header: no NAME_real typedef")
        self.ctype, self.prefix = m.group(1), m.group(2)
        self.dtype = {"float": "float32", "double": "float64"}[self.ctype]
        upper = self.prefix.upper()
        dims = int(self._define(text, upper + "_DIMS"))
        halo = [int(self._define(text, f"{upper}_HALO_{a}")) for a in "XYZ"]
        self.layout = Layout(dims, halo)
        self.fields = [Field(name, kind, int(levels or 1), bool(const))
                       for const, _, name, levels, kind in _FIELD.findall(self._struct(text, "fields"))]
        self.params = [name for _, name in _PARAM.findall(self._struct(text, "params"))
                       if name != "unused_"]

    @staticmethod
    def _define(text, name):
        m = re.search(r"^#define %s (\d+)" % name, text, re.M)
        if not m:
            raise ValueError(f"not a stencilc header: no {name}")
        return m.group(1)

    def _struct(self, text, what):
        m = re.search(r"typedef struct \{(.*?)\} %s_%s;" % (self.prefix, what), text, re.S)
        if not m:
            raise ValueError(f"not a stencilc header: no {self.prefix}_{what}")
        return m.group(1)
