/* Configurations as text: 'tb=32x8x1,stream=z,sb=64,...' (docs/config.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Config config_default(int dims)
{
    Config c;
    for (int p = 0; p < P_COUNT; p++)
        c.v[p] = 1;
    if (dims <= 1) {
        c.v[P_TBX] = 256;
    } else if (dims == 2) {
        c.v[P_TBX] = 32;
        c.v[P_TBY] = 8;
    } else {
        c.v[P_TBX] = 32;
        c.v[P_TBY] = 4;
        c.v[P_TBZ] = 2;
    }
    return c;
}

const char *config_param_name(ParamId p)
{
    static const char *const names[P_COUNT] = {
        [P_TBX] = "tbx", [P_TBY] = "tby", [P_TBZ] = "tbz",
        [P_SMEM] = "smem", [P_CMEM] = "cmem", [P_STREAM] = "stream", [P_SD] = "sd",
        [P_SB] = "sb",
        [P_UFX] = "ufx", [P_UFY] = "ufy", [P_UFZ] = "ufz",
        [P_CMX] = "cmx", [P_CMY] = "cmy", [P_CMZ] = "cmz",
        [P_BMX] = "bmx", [P_BMY] = "bmy", [P_BMZ] = "bmz",
        [P_RETIME] = "retime", [P_PREFETCH] = "prefetch", [P_TB] = "tblock",
        [P_REGQ] = "regq", [P_MAXREG] = "maxreg", [P_VEC] = "vec",
        [P_HCOL] = "hcol",
    };
    if ((int)p < 0 || p >= P_COUNT)
        return "?";
    return names[p];
}

/* How each key of the text syntax maps onto Config. */
typedef enum { K_TRIPLE, K_BOOL, K_NUMBER, K_STREAM } KeyKind;

typedef struct {
    const char *key;
    KeyKind kind;
    ParamId first;   /* K_TRIPLE: x of three consecutive ids */
    int pow2;        /* K_NUMBER: value must be a power of two */
    int allow_off;   /* K_NUMBER: 'off'/'none' means 1 */
} KeySpec;

static const KeySpec keys[] = {
    {"tb", K_TRIPLE, P_TBX, 1, 0},
    {"smem", K_BOOL, P_SMEM, 0, 0},
    {"cmem", K_BOOL, P_CMEM, 0, 0},
    {"stream", K_STREAM, P_STREAM, 0, 0},
    {"sb", K_NUMBER, P_SB, 1, 0},
    {"uf", K_TRIPLE, P_UFX, 1, 0},
    {"cm", K_TRIPLE, P_CMX, 1, 0},
    {"bm", K_TRIPLE, P_BMX, 1, 0},
    {"vec", K_NUMBER, P_VEC, 1, 0},
    {"hcol", K_BOOL, P_HCOL, 0, 0},
    {"retime", K_BOOL, P_RETIME, 0, 0},
    {"prefetch", K_BOOL, P_PREFETCH, 0, 0},
    /* tblock counts fused steps: the space has 3, 6 and 12 besides powers of two. regq counts
     * planes of a 2R+1 window (3, 5, ...). Neither is restricted to powers of two. */
    {"tblock", K_NUMBER, P_TB, 0, 0},
    {"regq", K_NUMBER, P_REGQ, 0, 0},
    {"maxreg", K_NUMBER, P_MAXREG, 1, 1},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

/* Parses a positive decimal integer that fills [s, s+len). */
static int parse_int(const char *s, size_t len, long *out)
{
    if (len == 0 || len > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int streq_n(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

static int fail(char *err, int errlen, const char *key, size_t keylen, const char *what)
{
    if (err && errlen > 0)
        snprintf(err, (size_t)errlen, "configuration key '%.*s': %s", (int)keylen, key, what);
    return -1;
}

static int parse_number(const KeySpec *k, const char *val, size_t vlen, long *out, char *err,
                        int errlen)
{
    if (k->allow_off && (streq_n(val, vlen, "off") || streq_n(val, vlen, "none"))) {
        *out = 1;
        return 0;
    }
    if (parse_int(val, vlen, out) != 0 || *out < 1)
        return fail(err, errlen, k->key, strlen(k->key), "expected a positive integer");
    if (k->pow2 && !is_pow2(*out))
        return fail(err, errlen, k->key, strlen(k->key), "must be a power of two");
    return 0;
}

static int parse_item(const KeySpec *k, const char *val, size_t vlen, Config *c, char *err,
                      int errlen)
{
    long v;
    switch (k->kind) {
    case K_BOOL:
        if (streq_n(val, vlen, "on") || streq_n(val, vlen, "1") || streq_n(val, vlen, "yes"))
            c->v[k->first] = 2;
        else if (streq_n(val, vlen, "off") || streq_n(val, vlen, "0") || streq_n(val, vlen, "no"))
            c->v[k->first] = 1;
        else
            return fail(err, errlen, k->key, strlen(k->key), "expected 'on' or 'off'");
        return 0;
    case K_STREAM:
        if (streq_n(val, vlen, "off")) {
            c->v[P_STREAM] = 1;
            c->v[P_SD] = 1;
        } else if (streq_n(val, vlen, "y")) {
            c->v[P_STREAM] = 2;
            c->v[P_SD] = 1;
        } else if (streq_n(val, vlen, "z")) {
            c->v[P_STREAM] = 2;
            c->v[P_SD] = 2;
        } else {
            return fail(err, errlen, k->key, strlen(k->key), "expected 'y', 'z' or 'off'");
        }
        return 0;
    case K_NUMBER:
        if (parse_number(k, val, vlen, &v, err, errlen) != 0)
            return -1;
        c->v[k->first] = (int)v;
        return 0;
    case K_TRIPLE: {
        /* 1 to 3 components separated by 'x'; missing ones are 1. */
        long parts[3] = {1, 1, 1};
        int np = 0;
        const char *p = val, *end = val + vlen;
        while (p <= end) {
            const char *x = p;
            while (x < end && *x != 'x')
                x++;
            if (np == 3)
                return fail(err, errlen, k->key, strlen(k->key), "at most three components (XxYxZ)");
            if (parse_number(k, p, (size_t)(x - p), &parts[np], err, errlen) != 0)
                return -1;
            np++;
            p = x + 1;
        }
        for (int d = 0; d < 3; d++)
            c->v[k->first + d] = (int)parts[d];
        return 0;
    }
    }
    return -1;
}

int config_parse(const char *text, int dims, Config *c, char *err, int errlen)
{
    *c = config_default(dims);
    if (err && errlen > 0)
        err[0] = 0;
    if (!text)
        return 0;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == 0 || strcmp(p, "default") == 0 || strcmp(p, "plain") == 0)
        return 0;
    while (*p) {
        const char *item_end = strchr(p, ',');
        if (!item_end)
            item_end = p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(item_end - p));
        const char *key = p;
        size_t keylen = (size_t)((eq ? eq : item_end) - p);
        while (keylen > 0 && key[0] == ' ')
            key++, keylen--;
        while (keylen > 0 && key[keylen - 1] == ' ')
            keylen--;
        if (keylen == 0)
            return fail(err, errlen, "", 0, "empty item (stray ',')");
        const KeySpec *k = NULL;
        for (int i = 0; i < NKEYS; i++)
            if (streq_n(key, keylen, keys[i].key))
                k = &keys[i];
        if (!k)
            return fail(err, errlen, key, keylen,
                        "unknown key (known: tb smem cmem stream sb uf cm bm retime prefetch "
                        "tblock regq maxreg)");
        if (!eq)
            return fail(err, errlen, key, keylen, "expected '=' and a value");
        const char *val = eq + 1;
        size_t vlen = (size_t)(item_end - val);
        while (vlen > 0 && val[0] == ' ')
            val++, vlen--;
        while (vlen > 0 && val[vlen - 1] == ' ')
            vlen--;
        if (parse_item(k, val, vlen, c, err, errlen) != 0)
            return -1;
        p = *item_end ? item_end + 1 : item_end;
        if (*item_end && *p == 0)
            return fail(err, errlen, "", 0, "empty item (trailing ',')");
    }
    return 0;
}

/* Appends text to buf without overflowing it. */
static void put(char *buf, int len, int *at, const char *text)
{
    while (*text && *at < len - 1)
        buf[(*at)++] = *text++;
    buf[*at] = 0;
}

static void put_int(char *buf, int len, int *at, int v)
{
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%d", v);
    put(buf, len, at, tmp);
}

void config_format(const Config *c, char *buf, int len)
{
    if (!buf || len <= 0)
        return;
    buf[0] = 0;
    int at = 0;
    /* tb is always printed: its default depends on the grid's dimension, which is not known
     * here, and a configuration must read back the same in any dimension. */
    for (int i = 0; i < NKEYS; i++) {
        const KeySpec *k = &keys[i];
        int v = c->v[k->first];
        int shown = k->first == P_TBX || v != 1 ||
                    (k->kind == K_TRIPLE && (c->v[k->first + 1] != 1 || c->v[k->first + 2] != 1));
        if (!shown)
            continue;
        if (at)
            put(buf, len, &at, ",");
        put(buf, len, &at, k->key);
        put(buf, len, &at, "=");
        switch (k->kind) {
        case K_TRIPLE:
            put_int(buf, len, &at, v);
            put(buf, len, &at, "x");
            put_int(buf, len, &at, c->v[k->first + 1]);
            put(buf, len, &at, "x");
            put_int(buf, len, &at, c->v[k->first + 2]);
            break;
        case K_BOOL:
            put(buf, len, &at, v == 2 ? "on" : "off");
            break;
        case K_STREAM:
            put(buf, len, &at, c->v[P_SD] == 2 ? "z" : "y");
            break;
        case K_NUMBER:
            put_int(buf, len, &at, v);
            break;
        }
    }
}
