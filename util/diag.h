/* Diagnostics: `file:line:col: error: message [STC-NNN]`, then the source line and a caret.
 * Error codes are stable; docs/errors.md lists them and tests/err/ names them.
 *
 * Every message stencilc writes to stderr goes through here: those about a place in the source
 * (diag_error and its kin), those about the run itself (`stencilc: error: ...`: the command line,
 * other files, the GPU, the tuner), the tuner's progress line, and, where no Diag is at hand,
 * diag_plain. One path, so that a message looks the same wherever it comes from and a progress
 * line on a terminal is ended before anything else is printed. */
#ifndef STC_DIAG_H
#define STC_DIAG_H
#include <stdio.h>

typedef struct {
    int line, col; /* 1-based; line 0 means "no location" */
    int len;       /* columns to underline (>= 1) */
} Loc;

typedef struct {
    const char *name; /* as given on the command line */
    const char *text; /* whole file, NUL-terminated (NULs inside are replaced) */
    long size;
} Source;

typedef struct {
    const Source *src;
    FILE *out;
    int errors, warnings;
    int max_errors; /* stop reporting after this many (0: 50) */
    double progress_shown; /* monotonic seconds of the last progress line shown */
    int progress_open;     /* a '\r'-updated progress line on a terminal awaits its end */
} Diag;

void diag_init(Diag *d, const Source *src, FILE *out);
void diag_error(Diag *d, Loc loc, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_warning(Diag *d, Loc loc, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_note(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* About the run, not a place in the source, whatever source d has: "stencilc: error: ...",
 * "stencilc: warning: ...", and "stencilc: ..." (no kind, not counted) for what the run does or
 * found. The message may hold more lines ("...\n(see stencilc --help)"). */
void diag_run_error(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_run_warning(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_run_info(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A progress line (the tuner's): on a terminal rewritten in place at most 10 times a second,
 * elsewhere one line every 5 seconds, so that a log does not fill up; the last one (last != 0)
 * is always shown. The line is printed as it is, without "stencilc:". */
void diag_progress(Diag *d, const char *line, int last);

/* For code that has no Diag (the GPU worker process, the allocators): "stencilc: ..." on stderr
 * by the same path. */
void diag_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "stencilc: out of memory", then exit status 3. */
_Noreturn void diag_out_of_memory(void);

/* s itself, or, where it is longer than 120 characters, its first 60 and last 40 around a
 * count: for echoing a name the user gave (a 1 MB path is not printed whole). The result is one
 * of four static buffers, used in turn, so that up to four may appear in one message. */
const char *diag_name(const char *s);

/* Stable error codes. Add new ones at the end of a range; never renumber. */
enum {
    /* 001-099: lexer and parser */
    STC_E_BAD_CHAR = 1,       /* a character the language does not use */
    STC_E_BAD_NUMBER = 2,     /* malformed numeric literal */
    STC_E_UNTERMINATED = 3,   /* unterminated comment or string */
    STC_E_SYNTAX = 4,         /* parser: unexpected token */
    STC_E_TOO_DEEP = 5,       /* expression nesting too deep */
    STC_E_TOO_LARGE = 6,      /* integer too large, file too large */
    STC_E_BINARY = 7,         /* input is not text */
    STC_E_CANNOT_READ = 8,    /* the input path cannot be opened or read (directory, missing) */
    /* 100-199: declarations and names */
    STC_E_UNDECLARED = 100,
    STC_E_REDECLARED = 101,
    STC_E_NO_GRID = 102,
    STC_E_DUP_DECL = 103,     /* grid/type/size/steps given twice */
    STC_E_BAD_SIZE = 104,     /* size count or value wrong */
    STC_E_BAD_LEVELS = 105,
    STC_E_BAD_OPTION = 106,   /* field option not valid for the role */
    STC_E_NOT_CONST = 107,    /* const initializer or bc value not constant */
    STC_E_NO_STENCIL = 108,   /* --stencil names no stencil, or file has none */
    STC_E_DUP_STENCIL = 109,
    STC_E_TOO_MANY_FIELDS = 110, /* more fields than the interpreter and kernels take (64) */
    STC_E_BAD_BOUNDARY = 111, /* a boundary per axis of the wrong count, or periodic on one face */
    /* 200-299: semantic checks of lowering */
    STC_E_WRITE_READONLY = 200,
    STC_E_OFFSET_NOT_INT = 201,
    STC_E_NO_TIME_LEVEL = 202,
    STC_E_DIM_MISMATCH = 203,
    STC_E_RADIUS_TOO_BIG = 204,
    STC_E_WRITTEN_TWICE = 205,
    STC_E_NOT_A_FIELD = 206,  /* indexing a param/const/let */
    STC_E_FIELD_AS_VALUE = 207,
    STC_E_BAD_CALL = 208,     /* unknown function or wrong arity */
    STC_E_TEMP_BEFORE_WRITE = 209,
    STC_E_NO_WRITE = 210,     /* a step writes nothing */
    STC_E_DIV_BY_ZERO = 211,  /* a division by a constant zero (Inf or NaN in every kernel) */
    STC_E_REDUCE_IN_STEP = 212, /* a reduction read by the step, or sum()/min(x) inside an expression */
    STC_E_BAD_REDUCE = 213,   /* `reduce` of an unknown kind, not kind(expr), or several arguments */
    STC_E_REDUCE_READ = 214,  /* a reduction reads a let, a temp, or beyond the step's halo */
    /* 300-399: warnings */
    STC_W_UNUSED_PARAM = 300,
    STC_W_UNUSED_FIELD = 301,
    STC_W_UNUSED_LET = 302,
    STC_W_UNUSED_CONST = 303,
};

#endif
