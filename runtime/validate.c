/* --validate: parses emitted CUDA with libclang, device side for sm_90, and reports clang's
 * warnings and errors as stencilc diagnostics. libclang is opened with dlopen, so stencilc
 * neither links nor needs it unless --validate is asked for. Clang 19 cannot read CUDA 13's
 * headers, so -nocudainc is used and cuda_shim.h (embedded at build time) is force-included,
 * with empty <cuda_runtime.h>, <cuda_runtime_api.h> beside it for the emitted #includes. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt.h"
#include "util/strbuf.h"

extern const char *const rt_cuda_shim_lines[];

/* The slice of libclang's C API used here (clang-c/Index.h, stable ABI). */
typedef void *CXIndex;
typedef void *CXTranslationUnit;
typedef void *CXDiagnostic;
typedef void *CXFile;
typedef struct { const void *data; unsigned private_flags; } CXString;
typedef struct { const void *ptr_data[2]; unsigned int_data; } CXSourceLocation;
struct CXUnsavedFile { const char *Filename; const char *Contents; unsigned long Length; };
enum { CX_SEV_IGNORED, CX_SEV_NOTE, CX_SEV_WARNING, CX_SEV_ERROR, CX_SEV_FATAL };

typedef struct {
    void *lib;
    CXIndex (*createIndex)(int, int);
    int (*parseTranslationUnit2)(CXIndex, const char *, const char *const *, int,
                                 struct CXUnsavedFile *, unsigned, unsigned, CXTranslationUnit *);
    unsigned (*getNumDiagnostics)(CXTranslationUnit);
    CXDiagnostic (*getDiagnostic)(CXTranslationUnit, unsigned);
    int (*getDiagnosticSeverity)(CXDiagnostic);
    CXString (*getDiagnosticSpelling)(CXDiagnostic);
    CXString (*getDiagnosticOption)(CXDiagnostic, CXString *);
    CXSourceLocation (*getDiagnosticLocation)(CXDiagnostic);
    void (*getSpellingLocation)(CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *);
    CXString (*getFileName)(CXFile);
    const char *(*getCString)(CXString);
    void (*disposeString)(CXString);
    void (*disposeDiagnostic)(CXDiagnostic);
    void (*disposeTranslationUnit)(CXTranslationUnit);
    void (*disposeIndex)(CXIndex);
} Clang;

static void *open_libclang(void)
{
    static const char *const names[] = {
        "/usr/lib/llvm-19/lib/libclang-19.so.1", "/usr/lib/llvm-19/lib/libclang.so.1",
        "/usr/lib/llvm-19/lib/libclang.so", "libclang-19.so.1", "libclang-19.so.19",
        "libclang.so.1", "libclang.so",
    };
    const char *env = getenv("STC_LIBCLANG");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

static int load_clang(Clang *c, char *why, int whylen)
{
    memset(c, 0, sizeof *c);
    c->lib = open_libclang();
    if (!c->lib) {
        snprintf(why, (size_t)whylen, "libclang not found (tried libclang-19.so.1 under "
                 "/usr/lib/llvm-19/lib, libclang.so.1 and $STC_LIBCLANG)");
        return -1;
    }
    struct { const char *name; void *slot; } syms[] = {
#define S(f) { "clang_" #f, &c->f }
        S(createIndex), S(parseTranslationUnit2), S(getNumDiagnostics), S(getDiagnostic),
        S(getDiagnosticSeverity), S(getDiagnosticSpelling), S(getDiagnosticOption),
        S(getDiagnosticLocation), S(getSpellingLocation), S(getFileName), S(getCString),
        S(disposeString), S(disposeDiagnostic), S(disposeTranslationUnit), S(disposeIndex),
#undef S
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(c->lib, syms[i].name);
        if (!p) {
            snprintf(why, (size_t)whylen, "libclang lacks %s", syms[i].name);
            dlclose(c->lib);
            c->lib = NULL;
            return -1;
        }
        memcpy(syms[i].slot, &p, sizeof p);
    }
    return 0;
}

int rt_validate_available(char *why, int whylen)
{
    Clang c;
    if (load_clang(&c, why, whylen) != 0)
        return 0;
    dlclose(c.lib);
    return 1;
}

static char *join_lines(const char *const *lines)
{
    size_t len = 0;
    for (int i = 0; lines[i]; i++)
        len += strlen(lines[i]);
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    size_t at = 0;
    for (int i = 0; lines[i]; i++) {
        size_t l = strlen(lines[i]);
        memcpy(s + at, lines[i], l);
        at += l;
    }
    s[at] = 0;
    return s;
}

/* Prints line `line` of text and a caret under column col, as util/diag does; a long line is cut
 * to a window around the column. */
static void print_source_line(FILE *out, const char *text, unsigned line, unsigned col)
{
    enum { WIDTH = 120 };
    const char *p = text;
    for (unsigned l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p || !*p)
        return;
    const char *end = strchr(p, '\n');
    int len = end ? (int)(end - p) : (int)strlen(p);
    int from = 0, caret = col > 0 ? (int)col - 1 : 0;
    if (caret > len)
        caret = len;
    if (len > WIDTH && caret > WIDTH / 2)
        from = caret - WIDTH / 2;
    int shown = len - from < WIDTH ? len - from : WIDTH;
    fprintf(out, "  %s%.*s%s\n  %s", from ? "..." : "", shown, p + from,
            from + shown < len ? "..." : "", from ? "   " : "");
    for (int c = from; c < caret; c++)
        fputc(p[c] == '\t' ? '\t' : ' ', out);
    fputs("^\n", out);
}

#define SHIM_DIR "/stencilc-cuda-shim"

/* One of libclang's diagnostics as `file:line:col: kind: clang: message [option] [STC-nnn]`, with
 * the source line and a caret where it is in the validated file. Returns 1 for a warning or an
 * error, 0 for a note or less. */
static int print_diagnostic(const Clang *c, CXDiagnostic d, const char *name, const char *text, FILE *out)
{
    int sev = c->getDiagnosticSeverity(d);
    if (sev < CX_SEV_NOTE)
        return 0;
    CXFile file = NULL;
    unsigned line = 0, col = 0, off = 0;
    c->getSpellingLocation(c->getDiagnosticLocation(d), &file, &line, &col, &off);
    CXString fname = c->getFileName(file);
    CXString msg = c->getDiagnosticSpelling(d);
    CXString opt = c->getDiagnosticOption(d, NULL);
    const char *fn = file ? c->getCString(fname) : NULL;
    const char *o = c->getCString(opt);
    const char *kind = sev == CX_SEV_NOTE ? "note" : sev == CX_SEV_WARNING ? "warning" : "error";
    fprintf(out, "%s:%u:%u: %s: clang: %s", fn ? fn : name, line, col, kind, c->getCString(msg));
    if (o && *o)
        fprintf(out, " [%s]", o);
    if (sev != CX_SEV_NOTE)
        fprintf(out, " [STC-%03d]", sev == CX_SEV_WARNING ? STC_W_VALIDATE : STC_E_VALIDATE);
    fputc('\n', out);
    if (fn && strcmp(fn, name) == 0)
        print_source_line(out, text, line, col);
    c->disposeString(opt);
    c->disposeString(msg);
    c->disposeString(fname);
    return sev >= CX_SEV_WARNING;
}

/* Parses text (named name) as CUDA device code for sm_90 against the shim and prints its
 * diagnostics: the count of warnings and errors, or -1 where libclang could not parse it. */
static int parse_and_report(const Clang *c, const char *name, const char *text, const char *shim, FILE *out)
{
    /* The CUDA headers emitted code may include: empty, the shim declares their contents. */
    struct CXUnsavedFile files[] = {
        { name, text, (unsigned long)strlen(text) },
        { SHIM_DIR "/cuda_shim.h", shim, (unsigned long)strlen(shim) },
        { SHIM_DIR "/cuda_runtime.h", "#pragma once\n", 13 },
        { SHIM_DIR "/cuda_runtime_api.h", "#pragma once\n", 13 },
        { SHIM_DIR "/device_launch_parameters.h", "#pragma once\n", 13 },
    };
    const char *args[] = {
        "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
        "-std=c++17", "-Wall", "-Wno-unknown-cuda-version",
        /* Sums of 343 terms nest deeper than clang's default 256; nvcc takes them. */
        "-fbracket-depth=4096", "-I" SHIM_DIR, "-include", SHIM_DIR "/cuda_shim.h",
    };
    CXIndex index = c->createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    int err = c->parseTranslationUnit2(index, name, args, (int)(sizeof args / sizeof args[0]), files,
                                       (unsigned)(sizeof files / sizeof files[0]), 0, &tu);
    int count = -1;
    if (err != 0 || !tu) {
        fprintf(out, "%s: error: libclang could not parse the file (error %d) [STC-%03d]\n", name, err,
                STC_E_VALIDATE);
    } else {
        count = 0;
        unsigned n = c->getNumDiagnostics(tu);
        for (unsigned i = 0; i < n; i++) {
            CXDiagnostic d = c->getDiagnostic(tu, i);
            count += print_diagnostic(c, d, name, text, out);
            c->disposeDiagnostic(d);
        }
        c->disposeTranslationUnit(tu);
    }
    c->disposeIndex(index);
    return count;
}

int rt_validate_source(const char *name, const char *text, FILE *diag_out)
{
    char why[512];
    Clang c;
    if (load_clang(&c, why, (int)sizeof why) != 0) {
        fprintf(diag_out, "%s: error: cannot validate: %s [STC-%03d]\n", name, why,
                STC_E_NO_LIBCLANG);
        return -1;
    }
    char *owned = NULL, *shim = join_lines(rt_cuda_shim_lines);
    if (!text)
        text = owned = sb_file_text(name, NULL);
    int count = -1;
    if (!text || !shim)
        fprintf(diag_out, "%s: error: cannot read the file to validate [STC-%03d]\n", name,
                STC_E_VALIDATE);
    else
        count = parse_and_report(&c, name, text, shim, diag_out);
    free(owned);
    free(shim);
    dlclose(c.lib);
    return count;
}
