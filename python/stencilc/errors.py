"""The exceptions of the package: stencilc's diagnostics, nvcc's and CUDA's errors."""
import re

_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?:(?P<line>\d+):(?P<col>\d+):)? (?P<severity>error|warning): "
                         r"(?P<message>.*?)(?: \[(?P<code>STC-\d+)\])?$", re.M)


class StencilError(Exception):
    """stencilc rejected the program. str() is stencilc's whole output (the diagnostics with
    their source lines and carets); .diagnostics lists them as dicts (file, line, col,
    severity, message, code) and .code is the first error's code, e.g. 'STC-012'."""

    def __init__(self, text, returncode=1):
        super().__init__(text.rstrip())
        self.text = text
        self.returncode = returncode
        self.diagnostics = [m.groupdict() for m in _DIAGNOSTIC.finditer(text)]
        for d in self.diagnostics:
            d["line"], d["col"] = int(d["line"] or 0), int(d["col"] or 0)   # 0: the whole file
        errors = [d for d in self.diagnostics if d["severity"] == "error"]
        self.code = (errors[0]["code"] if errors else None)


class BuildError(StencilError):
    """nvcc failed on the generated code (or could not be found)."""


class CudaError(RuntimeError):
    """A CUDA call of the kernel library failed; .error is the cudaError_t number."""

    def __init__(self, what, error, text):
        super().__init__(f"{what}: {text} (cudaError {error})")
        self.error = error
