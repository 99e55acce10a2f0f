/* .npy reading and writing (npy.h). The header is parsed as the small grammar numpy writes,
 * strictly, so that a damaged or foreign file is refused with a reason instead of misread. */
#include "npy.h"
#include "outfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

typedef struct {
    const char *at, *end;
    char *why;
    size_t whylen;
} Cursor;

static int fail(Cursor *c, const char *what)
{
    snprintf(c->why, c->whylen, "the .npy header %s", what);
    return -1;
}

static void skip_space(Cursor *c)
{
    while (c->at < c->end && (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r'))
        c->at++;
}

static int eat(Cursor *c, char ch)
{
    skip_space(c);
    if (c->at < c->end && *c->at == ch) {
        c->at++;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "...", no escapes, as numpy writes) into buf. */
static int quoted(Cursor *c, char *buf, size_t len)
{
    skip_space(c);
    if (c->at >= c->end || (*c->at != '\'' && *c->at != '"'))
        return fail(c, "has a key or value that is not a quoted string");
    char q = *c->at++;
    size_t n = 0;
    while (c->at < c->end && *c->at != q) {
        if (n + 1 >= len)
            return fail(c, "has an overlong string");
        buf[n++] = *c->at++;
    }
    if (c->at >= c->end)
        return fail(c, "has an unterminated string");
    c->at++;
    buf[n] = 0;
    return 0;
}

static int descr(Cursor *c, NpyHeader *h)
{
    char d[16];
    if (quoted(c, d, sizeof d) != 0)
        return -1;
    if ((d[0] == '<' || d[0] == '>' || d[0] == '=') && d[1] == 'f' && (d[2] == '4' || d[2] == '8') && !d[3]) {
        h->elem_size = d[2] - '0';
        h->big_endian = d[0] == '>';
        return 0;
    }
    snprintf(c->why, c->whylen, "the .npy file holds '%s' values, not float32 ('<f4') or float64 ('<f8'); "
             "convert it with a.astype(numpy.float64)", d);
    return -1;
}

static int fortran_order(Cursor *c)
{
    skip_space(c);
    if ((size_t)(c->end - c->at) >= 5 && !memcmp(c->at, "False", 5)) {
        c->at += 5;
        return 0;
    }
    if ((size_t)(c->end - c->at) >= 4 && !memcmp(c->at, "True", 4)) {
        snprintf(c->why, c->whylen, "the .npy file is in Fortran order; save it in C order "
                                    "(numpy.ascontiguousarray)");
        return -1;
    }
    return fail(c, "has a 'fortran_order' that is neither True nor False");
}

/* (n, n, ...) with an optional trailing comma; each n below 2^40, their product too. */
static int shape(Cursor *c, NpyHeader *h)
{
    if (!eat(c, '('))
        return fail(c, "has a 'shape' that is not a tuple");
    h->ndim = 0;
    h->count = 1;
    for (;;) {
        if (eat(c, ')'))
            return 0;
        skip_space(c);
        long v = 0;
        int digits = 0;
        while (c->at < c->end && *c->at >= '0' && *c->at <= '9' && digits < 14) {
            v = v * 10 + (*c->at++ - '0');
            digits++;
        }
        if (!digits || (c->at < c->end && *c->at >= '0' && *c->at <= '9') || v >= (1L << 40))
            return fail(c, "has a 'shape' with an entry that is not a size");
        if (h->ndim == NPY_MAX_DIMS)
            return fail(c, "has a 'shape' of too many axes");
        h->shape[h->ndim++] = v;
        h->count *= v;
        if (h->count >= (1LL << 40))
            return fail(c, "has a 'shape' of too many elements");
        if (eat(c, ')'))
            return 0;
        if (!eat(c, ','))
            return fail(c, "has a 'shape' whose entries are not separated by commas");
    }
}

/* {'descr': ..., 'fortran_order': ..., 'shape': ..., } in any order, each once. */
static int dict(Cursor *c, NpyHeader *h)
{
    int seen[3] = {0, 0, 0};
    if (!eat(c, '{'))
        return fail(c, "is not a dict");
    while (!eat(c, '}')) {
        char key[32];
        if (quoted(c, key, sizeof key) != 0)
            return -1;
        if (!eat(c, ':'))
            return fail(c, "has a key without ':'");
        int k = !strcmp(key, "descr") ? 0 : !strcmp(key, "fortran_order") ? 1 : !strcmp(key, "shape") ? 2 : -1;
        if (k < 0 || seen[k]++)
            return fail(c, k < 0 ? "has an unknown key" : "has a key twice");
        int rc = k == 0 ? descr(c, h) : k == 1 ? fortran_order(c) : shape(c, h);
        if (rc != 0)
            return -1;
        if (!eat(c, ',')) {
            if (!eat(c, '}'))
                return fail(c, "has entries not separated by commas");
            break;
        }
    }
    if (!seen[0] || !seen[1] || !seen[2])
        return fail(c, "lacks one of 'descr', 'fortran_order' and 'shape'");
    skip_space(c);
    if (c->at != c->end)
        return fail(c, "has text after the dict");
    return 0;
}

int npy_parse_header(const unsigned char *buf, size_t len, NpyHeader *h, char *why, size_t whylen)
{
    memset(h, 0, sizeof *h);
    if (len < 10 || memcmp(buf, magic, sizeof magic) != 0) {
        snprintf(why, whylen, "not a .npy file (it does not start with \\x93NUMPY)");
        return -1;
    }
    int major = buf[6];
    if (major < 1 || major > 3) {
        snprintf(why, whylen, "a .npy file of version %d, which is not 1, 2 or 3", major);
        return -1;
    }
    size_t at = major == 1 ? 10 : 12, hlen;
    if (len < at) {
        snprintf(why, whylen, "the .npy file is cut short in its header");
        return -1;
    }
    hlen = major == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8
                      : (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    if (hlen > len - at) {
        snprintf(why, whylen, "the .npy file is cut short in its header (%zu bytes of %zu)", len - at, hlen);
        return -1;
    }
    for (size_t i = at; i < at + hlen; i++)
        if (buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r') {
            snprintf(why, whylen, "the .npy header holds a control character");
            return -1;
        }
    Cursor c = {(const char *)buf + at, (const char *)buf + at + hlen, why, whylen};
    if (dict(&c, h) != 0)
        return -1;
    h->data_offset = at + hlen;
    return 0;
}

static double load(const unsigned char *p, int size, int big)
{
    unsigned char b[8];
    for (int i = 0; i < size; i++)
        b[i] = p[big ? size - 1 - i : i]; /* little-endian order, as on every machine stencilc runs on */
    if (size == 4) {
        float f;
        memcpy(&f, b, 4);
        return f;
    }
    double d;
    memcpy(&d, b, 8);
    return d;
}

int npy_decode(const unsigned char *buf, size_t len, NpyHeader *h, double **out, char *why, size_t whylen)
{
    *out = NULL;
    if (npy_parse_header(buf, len, h, why, whylen) != 0)
        return -1;
    unsigned long long want = (unsigned long long)h->count * (unsigned long long)h->elem_size;
    unsigned long long have = len - h->data_offset;
    if (have != want) {
        snprintf(why, whylen, "the .npy file has %llu bytes of data where its shape needs %llu%s", have, want,
                 have < want ? " (cut short?)" : "");
        return -1;
    }
    double *v = malloc((size_t)(h->count ? h->count : 1) * sizeof *v);
    if (!v) {
        snprintf(why, whylen, "out of memory for %lld values", h->count);
        return -1;
    }
    for (long long i = 0; i < h->count; i++)
        v[i] = load(buf + h->data_offset + (size_t)i * (size_t)h->elem_size, h->elem_size, h->big_endian);
    *out = v;
    return 0;
}

int npy_read(const char *path, NpyHeader *h, double **out, char *why, size_t whylen)
{
    *out = NULL;
    char kind[256];
    if (in_check_regular(path, kind, sizeof kind) != 0) { /* a FIFO would block the read */
        snprintf(why, whylen, "%s", kind);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    StrBuf sb = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_putn(&sb, chunk, n);
    int err = ferror(f);
    fclose(f);
    int rc = -1;
    if (err)
        snprintf(why, whylen, "cannot read '%s'", path);
    else if (npy_decode((const unsigned char *)(sb.data ? sb.data : ""), sb.len, h, out, why, whylen) == 0)
        rc = 0;
    else { /* name the file */
        char inner[512];
        snprintf(inner, sizeof inner, "%s", why);
        snprintf(why, whylen, "'%s': %s", path, inner);
    }
    sb_free(&sb);
    return rc;
}

void npy_format(StrBuf *out, const double *data, int ndim, const long *shape, int elem_size)
{
    char dict[160], dims[96] = "";
    long long count = 1;
    for (int d = 0; d < ndim; d++) {
        size_t used = strlen(dims);
        snprintf(dims + used, sizeof dims - used, "%ld%s", shape[d], ndim == 1 || d + 1 < ndim ? ", " : "");
        count *= shape[d];
    }
    if (ndim == 1 || ndim == 0) /* (5,) and () as Python writes them */
        dims[strlen(dims) ? strlen(dims) - 1 : 0] = 0;
    int n = snprintf(dict, sizeof dict, "{'descr': '<f%d', 'fortran_order': False, 'shape': (%s), }", elem_size,
                     dims);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64; /* the data start on a multiple of 64 */
    int hlen = n + pad + 1;
    sb_putn(out, (const char *)magic, sizeof magic);
    char head[4] = {1, 0, (char)(hlen & 0xff), (char)(hlen >> 8)};
    sb_putn(out, head, 4);
    sb_putn(out, dict, (size_t)n);
    for (int i = 0; i < pad; i++)
        sb_putn(out, " ", 1);
    sb_putn(out, "\n", 1);
    for (long long i = 0; i < count; i++) {
        if (elem_size == 4) {
            float f = (float)data[i];
            sb_putn(out, (const char *)&f, 4);
        } else
            sb_putn(out, (const char *)&data[i], 8);
    }
}
