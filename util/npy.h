/* NumPy's .npy files of float32 or float64 in C order, read and written: what numpy.load,
 * Julia's NPZ and MATLAB's readNPY take. The format: "\x93NUMPY", a version (1, 2 or 3), the
 * length of a header that is a Python dict literal ({'descr': '<f8', 'fortran_order': False,
 * 'shape': (29, 37), }), then the data. */
#ifndef STC_NPY_H
#define STC_NPY_H
#include <stddef.h>

#include "strbuf.h"

#define NPY_MAX_DIMS 32

typedef struct {
    int ndim;
    long shape[NPY_MAX_DIMS];
    long long count;    /* elements: the product of shape (1 for shape ()) */
    int elem_size;      /* 4 (float32) or 8 (float64) */
    int big_endian;
    size_t data_offset; /* where the data start in the file */
} NpyHeader;

/* Parses the header at the start of the len bytes of buf. 0, or -1 with why: not a .npy file,
 * an unknown version, a header cut short or not a dict of the three keys, an element type other
 * than float32 or float64, Fortran order, a shape too large. Checks nothing about the data. */
int npy_parse_header(const unsigned char *buf, size_t len, NpyHeader *h, char *why, size_t whylen);
/* The values of the whole file buf[0, len) as doubles into out (h->count of them, allocated by
 * malloc): 0, or -1 with why (the header's errors, fewer or more data bytes than the shape). */
int npy_decode(const unsigned char *buf, size_t len, NpyHeader *h, double **out, char *why, size_t whylen);
/* npy_decode of the file at path. */
int npy_read(const char *path, NpyHeader *h, double **out, char *why, size_t whylen);
/* The .npy text (version 1, little-endian, C order) of ndim (<= 3) axes of shape holding data,
 * as float32 (elem_size 4) or float64 (8), appended to out. */
void npy_format(StrBuf *out, const double *data, int ndim, const long *shape, int elem_size);

#endif
