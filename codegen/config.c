/* Configurations as text: 'tb=32x8x1,stream=z,sb=64,...' (docs/config.md). The keys, their
 * syntax and their order are the parameter rows of the table of passes (pass.h). */
#include "config.h"
#include "../util/nearest.h"
#include "pass.h"

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
    static _Thread_local char names[P_COUNT][16];
    int i;
    const CgParam *r = cg_param_of(p, &i);
    if (!r)
        return "?";
    if (r->kind == PK_CHOICE && i == 1)
        return r->id2;
    if (r->kind != PK_TRIPLE)
        return r->key;
    if (!names[p][0])
        snprintf(names[p], sizeof names[p], "%s%c", r->key, "xyz"[i]);
    return names[p];
}

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

static int fail_key(char *err, int errlen, const CgParam *r, const char *what)
{
    return fail(err, errlen, r->key, strlen(r->key), what);
}

static int parse_number(const CgParam *r, const char *val, size_t vlen, long *out, char *err,
                        int errlen)
{
    if ((r->flags & PF_OFF) && (streq_n(val, vlen, "off") || streq_n(val, vlen, "none"))) {
        *out = 1;
        return 0;
    }
    if (parse_int(val, vlen, out) != 0 || *out < 1)
        return fail_key(err, errlen, r, "expected a positive integer");
    if ((r->flags & PF_POW2) && !is_pow2(*out))
        return fail_key(err, errlen, r, "must be a power of two");
    return 0;
}

static int parse_bool(const CgParam *r, const char *val, size_t vlen, Config *c, char *err,
                      int errlen)
{
    if (streq_n(val, vlen, "on") || streq_n(val, vlen, "1") || streq_n(val, vlen, "yes"))
        c->v[r->first] = 2;
    else if (streq_n(val, vlen, "off") || streq_n(val, vlen, "0") || streq_n(val, vlen, "no"))
        c->v[r->first] = 1;
    else
        return fail_key(err, errlen, r, "expected 'on' or 'off'");
    return 0;
}

static int parse_choice(const CgParam *r, const char *val, size_t vlen, Config *c, char *err,
                        int errlen)
{
    for (int i = 0; i < r->nwords; i++)
        if (streq_n(val, vlen, r->words[i].word)) {
            c->v[r->first] = r->words[i].v[0];
            c->v[r->first + 1] = r->words[i].v[1];
            return 0;
        }
    char expected[128] = "expected";
    for (int i = 0; i < r->nwords; i++) {
        size_t at = strlen(expected);
        const char *sep = i == 0 ? " " : i == r->nwords - 1 ? " or " : ", ";
        snprintf(expected + at, sizeof expected - at, "%s'%s'", sep, r->words[i].word);
    }
    return fail_key(err, errlen, r, expected);
}

/* 1 to 3 components separated by 'x'; missing ones are 1. */
static int parse_triple(const CgParam *r, const char *val, size_t vlen, Config *c, char *err,
                        int errlen)
{
    long parts[3] = {1, 1, 1};
    int np = 0;
    const char *p = val, *end = val + vlen;
    while (p <= end) {
        const char *x = p;
        while (x < end && *x != 'x')
            x++;
        if (np == 3)
            return fail_key(err, errlen, r, "at most three components (XxYxZ)");
        if (parse_number(r, p, (size_t)(x - p), &parts[np], err, errlen) != 0)
            return -1;
        np++;
        p = x + 1;
    }
    for (int d = 0; d < 3; d++)
        c->v[r->first + d] = (int)parts[d];
    return 0;
}

static int parse_item(const CgParam *r, const char *val, size_t vlen, Config *c, char *err,
                      int errlen)
{
    long v;
    switch (r->kind) {
    case PK_BOOL:
        return parse_bool(r, val, vlen, c, err, errlen);
    case PK_CHOICE:
        return parse_choice(r, val, vlen, c, err, errlen);
    case PK_TRIPLE:
        return parse_triple(r, val, vlen, c, err, errlen);
    case PK_NUMBER:
        if (parse_number(r, val, vlen, &v, err, errlen) != 0)
            return -1;
        c->v[r->first] = (int)v;
        return 0;
    }
    return -1;
}

static const CgParam *find_key(const char *key, size_t keylen)
{
    for (int i = 0; i < cg_param_count(); i++)
        if (streq_n(key, keylen, cg_param_at(i, NULL)->key))
            return cg_param_at(i, NULL);
    return NULL;
}

/* "unknown key; did you mean 'vec'? (known: tb smem ...)": the keys of the table. */
static int unknown_key(char *err, int errlen, const char *key, size_t keylen)
{
    const char *keys[32];
    int n = 0;
    char text[256] = "unknown key", word[32];
    for (int i = 0; i < cg_param_count() && n < 32; i++)
        keys[n++] = cg_param_at(i, NULL)->key;
    snprintf(word, sizeof word, "%.*s", (int)keylen, key);
    const char *near = text_nearest(word, keys, n, strlen(word) > 3 ? 2 : 1);
    if (near)
        snprintf(text + strlen(text), sizeof text - strlen(text), "; did you mean '%s'?", near);
    snprintf(text + strlen(text), sizeof text - strlen(text), " (known:");
    for (int i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s", keys[i]);
    snprintf(text + strlen(text), sizeof text - strlen(text), ")");
    return fail(err, errlen, key, keylen, text);
}

/* [*s, *s + *len) without its leading and trailing spaces. */
static void trim(const char **s, size_t *len)
{
    while (*len > 0 && (*s)[0] == ' ')
        (*s)++, (*len)--;
    while (*len > 0 && (*s)[*len - 1] == ' ')
        (*len)--;
}

static int parse_one(const char *p, const char *item_end, Config *c, char *err, int errlen)
{
    const char *eq = memchr(p, '=', (size_t)(item_end - p));
    const char *key = p;
    size_t keylen = (size_t)((eq ? eq : item_end) - p);
    trim(&key, &keylen);
    if (keylen == 0)
        return fail(err, errlen, "", 0, "empty item (stray ',')");
    const CgParam *r = find_key(key, keylen);
    if (!r)
        return unknown_key(err, errlen, key, keylen);
    if (!eq)
        return fail(err, errlen, key, keylen, "expected '=' and a value");
    const char *val = eq + 1;
    size_t vlen = (size_t)(item_end - val);
    trim(&val, &vlen);
    return parse_item(r, val, vlen, c, err, errlen);
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
        if (parse_one(p, item_end, c, err, errlen) != 0)
            return -1;
        p = *item_end ? item_end + 1 : item_end;
        if (*item_end && *p == 0)
            return fail(err, errlen, "", 0, "empty item (trailing ',')");
    }
    return 0;
}

void cg_param_value_text(const CgParam *r, int index, int v, char *buf, int len)
{
    if (r->kind == PK_BOOL)
        snprintf(buf, (size_t)len, "%s", v == 2 ? "on" : "off");
    else if (v == 1 && (r->flags & PF_OFF))
        snprintf(buf, (size_t)len, "off");
    else if (r->kind == PK_CHOICE && index == 0 && v == 1)
        snprintf(buf, (size_t)len, "%s", r->words[0].word);
    else
        snprintf(buf, (size_t)len, "%d", v);
}

/* The word of a choice that c holds, NULL where none sets both its ids as c does (no text
 * gives such a configuration; a draw at random can). */
static const char *choice_word(const CgParam *r, const Config *c)
{
    for (int i = 0; i < r->nwords; i++) {
        const CgWord *w = &r->words[i];
        if (w->v[0] == c->v[r->first] && w->v[1] == c->v[r->first + 1])
            return w->word;
    }
    return NULL;
}

/* r's value in c as --config takes it ("32x8x1", "on", "z", "64"). */
static void value_text(const CgParam *r, const Config *c, char *buf, int len)
{
    const int *v = &c->v[r->first];
    if (r->kind == PK_TRIPLE)
        snprintf(buf, (size_t)len, "%dx%dx%d", v[0], v[1], v[2]);
    else if (r->kind == PK_CHOICE && choice_word(r, c))
        snprintf(buf, (size_t)len, "%s", choice_word(r, c));
    else if (r->kind == PK_CHOICE)
        snprintf(buf, (size_t)len, "%s (with %s=%d)", v[0] == 1 ? r->words[0].word : "on", r->id2,
                 v[1]);
    else
        cg_param_value_text(r, 0, v[0], buf, len);
}

void config_item(const Config *c, ParamId id, char *buf, int len)
{
    const CgParam *r = cg_param_of(id, NULL);
    char value[48];
    if (!r) {
        snprintf(buf, (size_t)len, "?=%d", c->v[id]);
        return;
    }
    value_text(r, c, value, sizeof value);
    snprintf(buf, (size_t)len, "%s=%s", r->key, value);
}

/* Appends text to buf without overflowing it. */
static void put(char *buf, int len, int *at, const char *text)
{
    while (*text && *at < len - 1)
        buf[(*at)++] = *text++;
    buf[*at] = 0;
}

static int shown(const CgParam *r, const Config *c)
{
    const int *v = &c->v[r->first];
    return (r->flags & PF_SHOWN) || v[0] != 1 || (r->kind == PK_TRIPLE && (v[1] != 1 || v[2] != 1));
}

void config_format(const Config *c, char *buf, int len)
{
    if (!buf || len <= 0)
        return;
    buf[0] = 0;
    int at = 0;
    for (int i = 0; i < cg_param_count(); i++) {
        const CgParam *r = cg_param_at(i, NULL);
        if (!shown(r, c))
            continue;
        char item[64];
        config_item(c, r->first, item, sizeof item);
        if (at)
            put(buf, len, &at, ",");
        put(buf, len, &at, item);
    }
}
