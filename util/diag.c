#include "diag.h"

#include <stdarg.h>
#include <string.h>

void diag_init(Diag *d, const Source *src, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->src = src;
    d->out = out;
    d->max_errors = 50;
}

/* Prints the source line of loc with a caret (and tildes) under the place. */
static void show_line(Diag *d, Loc loc)
{
    const Source *s = d->src;
    if (!s || !s->text || loc.line <= 0)
        return;
    const char *p = s->text, *end = s->text + s->size;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n')
        e++;
    int width = (int)(e - p);
    if (width > 200) /* a very long line: show the neighbourhood of the column */
        width = 200;
    if (loc.col - 1 > width)
        return;
    fprintf(d->out, " %.*s\n ", width, p);
    for (int i = 1; i < loc.col; i++)
        fputc(p[i - 1] == '\t' ? '\t' : ' ', d->out);
    fputc('^', d->out);
    for (int i = 1; i < loc.len && loc.col + i - 1 < width; i++)
        fputc('~', d->out);
    fputc('\n', d->out);
}

const char *diag_name(const char *s)
{
    enum { KEEP = 120, HEAD = 60, TAIL = 40 };
    static char bufs[4][HEAD + TAIL + 64];
    static int turn;
    size_t n = strlen(s);
    if (n <= KEEP)
        return s;
    char *b = bufs[turn++ % 4];
    snprintf(b, sizeof bufs[0], "%.*s...(%zu characters)...%s", HEAD, s, n, s + n - TAIL);
    return b;
}

__attribute__((format(printf, 5, 0)))
static void report(Diag *d, const char *kind, Loc loc, int code, const char *fmt, va_list ap)
{
    const char *name = d->src && d->src->name ? diag_name(d->src->name) : "stencilc";
    if (loc.line > 0)
        fprintf(d->out, "%s:%d:%d: %s: ", name, loc.line, loc.col, kind);
    else
        fprintf(d->out, "%s: %s: ", name, kind);
    vfprintf(d->out, fmt, ap);
    if (code > 0)
        fprintf(d->out, " [STC-%03d]", code);
    fputc('\n', d->out);
    show_line(d, loc);
}

void diag_error(Diag *d, Loc loc, int code, const char *fmt, ...)
{
    d->errors++;
    if (d->errors > d->max_errors)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, "error", loc, code, fmt, ap);
    va_end(ap);
    if (d->errors == d->max_errors)
        fprintf(d->out, "%s: note: too many errors; stopping here\n",
                d->src && d->src->name ? diag_name(d->src->name) : "stencilc");
}

void diag_warning(Diag *d, Loc loc, int code, const char *fmt, ...)
{
    d->warnings++;
    va_list ap;
    va_start(ap, fmt);
    report(d, "warning", loc, code, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, "note", loc, 0, fmt, ap);
    va_end(ap);
}
