#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "stencilc" /* names the messages that are about no file */

void diag_init(Diag *d, const Source *src, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->src = src;
    d->out = out;
    d->max_errors = 50;
    d->progress_shown = -1e9;
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

static const char *source_name(const Diag *d)
{
    return d->src && d->src->name ? diag_name(d->src->name) : PROGRAM;
}

/* A progress line left open on a terminal ends before anything else is printed after it. */
static void end_progress(Diag *d)
{
    if (d->progress_open)
        fputc('\n', d->out);
    d->progress_open = 0;
}

/* The one place a message is printed: "WHERE[:LINE:COL]: [KIND: ]message[ [STC-NNN]]", then
 * the source line with a caret. kind NULL: a message without one. */
__attribute__((format(printf, 6, 0)))
static void report(Diag *d, const char *where, const char *kind, Loc loc, int code, const char *fmt,
                   va_list ap)
{
    end_progress(d);
    if (loc.line > 0)
        fprintf(d->out, "%s:%d:%d: ", where, loc.line, loc.col);
    else
        fprintf(d->out, "%s: ", where);
    if (kind)
        fprintf(d->out, "%s: ", kind);
    vfprintf(d->out, fmt, ap);
    if (code > 0)
        fprintf(d->out, " [STC-%03d]", code);
    fputc('\n', d->out);
    show_line(d, loc);
}

/* Counts an error: 0 when it is to be shown, -1 past the limit. */
static int count_error(Diag *d)
{
    d->errors++;
    return d->errors > d->max_errors ? -1 : 0;
}

static void maybe_stop_note(Diag *d)
{
    if (d->errors == d->max_errors)
        fprintf(d->out, "%s: note: too many errors; stopping here\n", source_name(d));
}

void diag_error(Diag *d, Loc loc, int code, const char *fmt, ...)
{
    if (count_error(d) != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, source_name(d), "error", loc, code, fmt, ap);
    va_end(ap);
    maybe_stop_note(d);
}

void diag_warning(Diag *d, Loc loc, int code, const char *fmt, ...)
{
    d->warnings++;
    va_list ap;
    va_start(ap, fmt);
    report(d, source_name(d), "warning", loc, code, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, source_name(d), "note", loc, 0, fmt, ap);
    va_end(ap);
}

static const Loc nowhere = {0, 0, 0};

void diag_run_error(Diag *d, const char *fmt, ...)
{
    if (count_error(d) != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(d, PROGRAM, "error", nowhere, 0, fmt, ap);
    va_end(ap);
    maybe_stop_note(d);
}

void diag_run_warning(Diag *d, const char *fmt, ...)
{
    d->warnings++;
    va_list ap;
    va_start(ap, fmt);
    report(d, PROGRAM, "warning", nowhere, 0, fmt, ap);
    va_end(ap);
}

void diag_run_info(Diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, PROGRAM, NULL, nowhere, 0, fmt, ap);
    va_end(ap);
}

void diag_plain(const char *fmt, ...)
{
    Diag d;
    diag_init(&d, NULL, stderr);
    va_list ap;
    va_start(ap, fmt);
    report(&d, PROGRAM, NULL, nowhere, 0, fmt, ap);
    va_end(ap);
}

_Noreturn void diag_out_of_memory(void)
{
    diag_plain("out of memory");
    exit(3);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void diag_progress(Diag *d, const char *line, int last)
{
    int tty = isatty(fileno(d->out));
    double now = now_s();
    if (!last && now - d->progress_shown < (tty ? 0.1 : 5.0))
        return;
    d->progress_shown = now;
    if (tty)
        fprintf(d->out, "\r%s\033[K", line);
    else
        fprintf(d->out, "%s\n", line);
    d->progress_open = tty && !last;
    if (tty && last)
        fputc('\n', d->out);
    fflush(d->out);
}
