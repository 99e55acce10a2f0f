/* util/npy.c: the bytes written are numpy's, byte for byte (the expected files are spelled out
 * here, as numpy.save writes them, since CI may have no numpy); they read back; and damaged
 * headers (every truncation, every byte of the header changed, a list of foreign or malformed
 * ones) give an error with a reason, never a crash or a misread (ASan and UBSan watch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"
#include "check.h"

/* numpy.save of numpy.arange(6.0).reshape(2, 3) + 0.5: its first 128 bytes */
static const char f8_head[] = "\x93NUMPY\x01\x00\x76\x00"
                              "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"
                              "                                                          \n";
/* numpy.save of numpy.float32([1, -2, 3.25, 0, 1e30]) */
static const char f4_head[] = "\x93NUMPY\x01\x00\x76\x00"
                              "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"
                              "                                                            \n";

static void check_error(const char *bytes, size_t len, const char *words)
{
    NpyHeader h;
    double *v = NULL;
    char why[256] = "";
    int rc = npy_decode((const unsigned char *)bytes, len, &h, &v, why, sizeof why);
    if (rc == 0 || !strstr(why, words)) {
        fprintf(stderr, "expected an error with '%s', got %d '%s'\n", words, rc, why);
        exit(1);
    }
    CHECK(v == NULL);
}

/* A file of header text hdr (version 1) and n data bytes of zeros. */
static size_t make(char *buf, const char *hdr, size_t ndata)
{
    size_t n = strlen(hdr);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(n & 0xff), buf[9] = (char)(n >> 8);
    memcpy(buf + 10, hdr, n);
    memset(buf + 10 + n, 0, ndata);
    return 10 + n + ndata;
}

static void round_trip(void)
{
    double a[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    long shape[2] = {2, 3};
    StrBuf sb = {0};
    npy_format(&sb, a, 2, shape, 8);
    CHECK(sb.len == 128 + 48);
    CHECK(memcmp(sb.data, f8_head, 128) == 0);
    CHECK(memcmp(sb.data + 128, a, 48) == 0);
    NpyHeader h;
    double *v;
    char why[256];
    CHECK(npy_decode((const unsigned char *)sb.data, sb.len, &h, &v, why, sizeof why) == 0);
    CHECK(h.ndim == 2 && h.shape[0] == 2 && h.shape[1] == 3 && h.elem_size == 8 && h.count == 6);
    CHECK(memcmp(v, a, sizeof a) == 0);
    free(v);

    /* every truncation is refused, none crashes */
    for (size_t n = 0; n < sb.len; n++) {
        CHECK(npy_decode((const unsigned char *)sb.data, n, &h, &v, why, sizeof why) == -1);
        CHECK(v == NULL && why[0]);
    }
    /* a trailing byte too */
    sb_putn(&sb, "", 1);
    check_error(sb.data, sb.len, "bytes of data");
    sb.len--;
    /* every header byte set to each of a few values: an error or a file that reads, no crash */
    static const unsigned char values[] = {0, '\'', '"', '(', ')', ',', ':', '{', '}', ' ', '9', 'x', 0xff, 0x80};
    for (size_t at = 0; at < 128; at++)
        for (size_t k = 0; k < sizeof values; k++) {
            char copy[176];
            memcpy(copy, sb.data, sb.len);
            copy[at] = (char)values[k];
            if (npy_decode((const unsigned char *)copy, sb.len, &h, &v, why, sizeof why) == 0) {
                CHECK(h.count * h.elem_size + (long long)h.data_offset == (long long)sb.len);
                free(v);
            }
        }
    /* a few thousand random damages: bytes changed, the file cut anywhere */
    unsigned seed = 12345;
    for (int round = 0; round < 5000; round++) {
        char copy[176];
        memcpy(copy, sb.data, sb.len);
        int changes = 1 + round % 4;
        for (int c = 0; c < changes; c++) {
            seed = seed * 1103515245u + 12345u;
            copy[(seed >> 8) % 128] = (char)(seed >> 20);
        }
        seed = seed * 1103515245u + 12345u;
        size_t len = round % 3 ? sb.len : (seed >> 8) % (sb.len + 1);
        if (npy_decode((const unsigned char *)copy, len, &h, &v, why, sizeof why) == 0)
            free(v);
    }
    sb_free(&sb);

    float b[5] = {1, -2, 3.25f, 0, 1e30f};
    double bd[5] = {1, -2, 3.25, 0, 1e30};
    long n5 = 5;
    npy_format(&sb, bd, 1, &n5, 4);
    CHECK(sb.len == 128 + 20 && memcmp(sb.data, f4_head, 128) == 0 && memcmp(sb.data + 128, b, 20) == 0);
    CHECK(npy_decode((const unsigned char *)sb.data, sb.len, &h, &v, why, sizeof why) == 0);
    CHECK(h.ndim == 1 && h.shape[0] == 5 && h.elem_size == 4 && v[2] == 3.25 && v[4] == (double)1e30f);
    free(v);
    sb_free(&sb);
}

static void other_writers(void)
{
    char buf[512];
    NpyHeader h;
    double *v;
    char why[256];
    /* big-endian float64, keys in another order, double quotes, no trailing comma */
    size_t n = make(buf, "{\"shape\": (1,), 'descr': '>f8', 'fortran_order': False}\n", 8);
    buf[n - 8] = 0x40; /* 2.0 */
    CHECK(npy_decode((const unsigned char *)buf, n, &h, &v, why, sizeof why) == 0);
    CHECK(v[0] == 2.0);
    free(v);
    /* version 2: a 4-byte header length */
    const char *hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n";
    size_t hl = strlen(hdr);
    memcpy(buf, "\x93NUMPY\x02\x00", 8);
    buf[8] = (char)hl, buf[9] = 0, buf[10] = 0, buf[11] = 0;
    memcpy(buf + 12, hdr, hl);
    double one = 1.0;
    memcpy(buf + 12 + hl, &one, 8);
    CHECK(npy_decode((const unsigned char *)buf, 12 + hl + 8, &h, &v, why, sizeof why) == 0);
    CHECK(h.ndim == 0 && h.count == 1 && v[0] == 1.0);
    free(v);
}

static void malformed(void)
{
    char buf[512];
    static const struct {
        const char *hdr, *words;
    } cases[] = {
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", "not float32"},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", "not float32"},
        {"{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", "Fortran order"},
        {"{'descr': '<f8', 'fortran_order': False}", "lacks one of"},
        {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", "a key twice"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unknown key"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", "not a size"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", "not a size"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576, 1048576), }", "too many elements"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1 2), }", "separated by commas"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': 3, }", "not a tuple"},
        {"{descr: '<f8', 'fortran_order': False, 'shape': (1,), }", "key or value"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } junk", "text after the dict"},
        {"{'descr': '<f8' 'fortran_order': False, 'shape': (1,), }", "not separated by commas"},
        {"['descr', '<f8']", "not a dict"},
        {"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }", "neither True nor False"},
        {"{'descr: '<f8', 'fortran_order': False, 'shape': (1,), }", "key without ':'"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), \x01}", "control character"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,", "not a size"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "bytes of data"}, /* 0 of 8 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_error(buf, make(buf, cases[i].hdr, 0), cases[i].words);
    check_error("PK\x03\x04 a zip file", 18, "not a .npy file");
    check_error("\x93NUMPY\x04\x00\x10\x00{}", 12, "version 4");
    check_error("\x93NUMPY\x01\x00\xff\x7f{'descr'", 17, "cut short in its header");
    check_error("\x93NUMPY\x02\x00\x10\x00", 10, "cut short in its header");
    NpyHeader h;
    double *v;
    char why[256];
    CHECK(npy_read("/nonexistent/u0.npy", &h, &v, why, sizeof why) == -1 && strstr(why, "/nonexistent/u0.npy"));
}

int main(void)
{
    round_trip();
    other_writers();
    malformed();
    puts("npy ok");
    return 0;
}
