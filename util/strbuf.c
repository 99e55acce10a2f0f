#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "outfile.h"

static void reserve(StrBuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p)
        diag_out_of_memory();
    sb->data = p;
    sb->cap = cap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n)
{
    reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = 0;
}

void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_free(StrBuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

char *sb_file_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    StrBuf sb = {0};
    char chunk[1 << 16];
    size_t got;
    sb_putn(&sb, "", 0);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_putn(&sb, chunk, got);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&sb);
        return NULL;
    }
    if (len)
        *len = sb.len;
    return sb.data;
}

int sb_write_file_atomic(const StrBuf *sb, const char *path)
{
    OutFile f = {path, sb->data ? sb->data : "", sb->len};
    char why[512];
    return out_replace(&f, 1, why, sizeof why);
}
