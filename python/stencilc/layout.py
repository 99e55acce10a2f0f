"""The padded memory layout of docs/c-api.md, in numpy's axis order.

Axis d of the grid (x = 0, y = 1, z = 2) has n[d] interior points and a halo of h[d] on both
sides; x is contiguous. A numpy/CuPy/PyTorch array of a 3D grid is indexed [k, j, i] (z, y, x),
of a 2D grid [j, i], of a 1D grid [i], so x is the last axis in every case."""


class Layout:
    def __init__(self, dims, halo):
        self.dims = dims                    # 1, 2 or 3
        self.halo = tuple(halo)             # (hx, hy, hz), as NAME_HALO_X/Y/Z

    def _check(self, shape):
        shape = tuple(int(s) for s in shape)
        if len(shape) != self.dims or min(shape) < 1:
            raise ValueError(f"a {self.dims}D grid needs {self.dims} sizes >= 1, not {shape}")
        return shape

    def halo_of_axes(self):
        """The halo widths in array axis order: (hz, hy, hx)[-dims:]."""
        return tuple(reversed(self.halo[:self.dims]))

    def sizes(self, shape):
        """(nx, ny, nz) for NAME_run, from an interior shape in array order."""
        n = list(reversed(self._check(shape))) + [1, 1]
        return n[0], n[1], n[2]

    def padded_shape(self, shape):
        """The padded buffer's shape for an interior shape (both in array order)."""
        return tuple(n + 2 * h for n, h in zip(self._check(shape), self.halo_of_axes()))

    def interior_shape(self, padded_shape):
        shape = tuple(p - 2 * h for p, h in zip(padded_shape, self.halo_of_axes()))
        return self._check(shape)

    def interior(self, shape):
        """The slices that cut the interior out of a padded buffer: buf[layout.interior(shape)]."""
        return tuple(slice(h, h + n) for n, h in zip(self._check(shape), self.halo_of_axes()))

    def index(self, point, shape):
        """The flat element index of interior point (i, j, k) (x first, as NAME_index; negative
        or >= n reaches into the halo) in the padded buffer of an interior shape."""
        padded = list(reversed(self.padded_shape(shape))) + [1, 1]
        point = list(point) + [0] * (3 - len(point))
        i, j, k = (p + h for p, h in zip(point, self.halo))
        return (k * padded[1] + j) * padded[0] + i

    def __repr__(self):
        return f"Layout(dims={self.dims}, halo={self.halo})"
