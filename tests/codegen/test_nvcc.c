/* Emits the .cu/.h of every hand-built program, every stencil of examples/, examples/bench/ and
 * tests/programs/ (and a few non-default configurations), compiles them with nvcc for sm_80 and
 * sm_90 with warnings as errors (two jobs at a time), and compiles each Plan's device source
 * alone with NVRTC when libnvrtc loads. Exits 77 when there is no nvcc. The hand-built programs' files are
 * compiled on their own; the examples' files, to keep the test fast, in a few batch files that
 * #include several of them (their C prefixes differ, so they do not clash). */
#include <assert.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "codegen.h"
#include "hand_ir.h"

static char dir[256];
static int nfiles;

/* Batches of generated files compiled as one translation unit. */
enum { MAX_BATCHES = 16, MAX_PER_BATCH = 64 };
static struct {
    char *file[MAX_PER_BATCH];
    char *prefix[MAX_PER_BATCH];
    int n;
} batch[MAX_BATCHES];
static int nbatches = 2;

static void add_to_batch(const char *file, const char *prefix)
{
    for (int b = 0;; b++) {
        assert(b < MAX_BATCHES);
        if (b >= nbatches)
            nbatches = b + 1;
        int clash = batch[b].n >= MAX_PER_BATCH;
        for (int i = 0; i < batch[b].n && !clash; i++)
            clash = strcmp(batch[b].prefix[i], prefix) == 0;
        /* alternate between the first two batches to balance the two jobs */
        if (!clash && (b >= 2 || batch[b].n <= batch[1 - b].n)) {
            batch[b].file[batch[b].n] = strdup(file);
            batch[b].prefix[batch[b].n++] = strdup(prefix);
            return;
        }
    }
}
static const char *nvcc;
static void *nvrtc;
static int nvrtc_failures;

/* NVRTC entry points (declared here so the test needs no CUDA headers). */
typedef int (*CreateFn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*CompileFn)(void *, int, const char *const *);
typedef int (*LogSizeFn)(void *, size_t *);
typedef int (*LogFn)(void *, char *);
typedef int (*DestroyFn)(void **);

static void nvrtc_check(const Plan *plan, const char *name)
{
    if (!nvrtc)
        return;
    CreateFn create;
    CompileFn compile;
    LogSizeFn logsize;
    LogFn getlog;
    DestroyFn destroy;
    /* POSIX's way of turning dlsym's object pointer into a function pointer */
    *(void **)&create = dlsym(nvrtc, "nvrtcCreateProgram");
    *(void **)&compile = dlsym(nvrtc, "nvrtcCompileProgram");
    *(void **)&logsize = dlsym(nvrtc, "nvrtcGetProgramLogSize");
    *(void **)&getlog = dlsym(nvrtc, "nvrtcGetProgramLog");
    *(void **)&destroy = dlsym(nvrtc, "nvrtcDestroyProgram");
    if (!create || !compile || !logsize || !getlog || !destroy)
        return;
    void *prog = NULL;
    if (create(&prog, plan->source, name, 0, NULL, NULL) != 0)
        return;
    const char *opts[] = {"--gpu-architecture=compute_80", "--std=c++17"};
    int rc = compile(prog, 2, opts);
    size_t n = 0;
    logsize(prog, &n);
    char *log = calloc(1, n + 1);
    getlog(prog, log);
    /* the log holds warnings even when compilation succeeds: it must be empty */
    if (rc != 0 || (log[0] && strspn(log, " \n\r") != strlen(log))) {
        fprintf(stderr, "NVRTC %s (rc %d):\n%s\n", name, rc, log);
        nvrtc_failures++;
    }
    free(log);
    destroy(&prog);
}

static void emit(const IrProgram *p, const char *cfg, Arena *a, int standalone)
{
    Config c;
    char why[256];
    assert(config_parse(cfg, p->dims, &c, why, sizeof why) == 0);
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan) {
        fprintf(stderr, "%s: %s\n", p->name, why);
        exit(1);
    }
    char base[512], path[600];
    const char *prefix = cg_c_identifier(a, p->name);
    snprintf(base, sizeof base, "%s/%c%03d_%s", dir, standalone ? 'k' : 'x', nfiles++, prefix);
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, base, &cu, &h) == 0);
    snprintf(path, sizeof path, "%s.cu", base);
    assert(sb_write_file_atomic(&cu, path) == 0);
    if (!standalone)
        add_to_batch(strrchr(path, '/') + 1, prefix);
    snprintf(path, sizeof path, "%s.h", base);
    assert(sb_write_file_atomic(&h, path) == 0);
    nvrtc_check(plan, base);
    sb_free(&cu);
    sb_free(&h);
}

static int emit_file(const char *path)
{
    Arena *a = arena_new();
    Diag diag;
    diag_init(&diag, NULL, stderr);
    Source src;
    if (source_read(path, a, &diag, &src) != 0) {
        arena_free(a);
        return 0;
    }
    diag_init(&diag, &src, stderr);
    AstFile file = {0};
    if (parse_source(&src, a, &diag, &file) != 0) {
        fprintf(stderr, "%s: parse errors\n", path);
        exit(1);
    }
    for (int i = 0; i < file.nstencils; i++) {
        FILE *quiet = tmpfile();
        diag_init(&diag, &src, quiet); /* warnings (unused names) are not this test's business */
        IrProgram *p = ir_lower(&file.stencils[i], a, &diag);
        fclose(quiet);
        if (!p) {
            fprintf(stderr, "%s: stencil %d does not lower\n", path, i);
            exit(1);
        }
        emit(p, "", a, 0);
    }
    arena_free(a);
    return file.nstencils;
}

static int emit_dir(const char *root, const char *sub)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, sub);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    int count = 0;
    /* sorted order is not needed: every file is compiled */
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".st") != 0)
            continue;
        char file[1400];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        count += emit_file(file);
    }
    closedir(d);
    return count;
}

/* The batch files: each #includes the generated files of its batch. */
static void write_batches(void)
{
    for (int b = 0; b < nbatches; b++) {
        char path[400];
        snprintf(path, sizeof path, "%s/batch%02d.cu", dir, b);
        FILE *f = fopen(path, "w");
        assert(f);
        for (int i = 0; i < batch[b].n; i++)
            fprintf(f, "#include \"%s\"\n", batch[b].file[i]);
        fclose(f);
    }
}

/* nvcc on the standalone files and the batches, two at a time, warnings as errors; 0, or 1 with
 * the failures' logs printed. */
static int compile_all(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && ls k*.cu batch*.cu | xargs -P 2 -n 1 sh -c '%s -c -gencode arch=compute_80,code=sm_80 "
             "-gencode arch=compute_90,code=sm_90 -Xcompiler -Wall,-Wextra -Werror all-warnings \"$0\" "
             "-o \"$0.o\" > \"$0.log\" 2>&1 || echo \"$0\" >> failed.txt'", dir, nvcc);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && test ! -e failed.txt", dir);
    if (rc == 0 && system(cmd) == 0)
        return 0;
    snprintf(cmd, sizeof cmd, "cd %s && for f in $(cat failed.txt); do echo \"== $f\"; head -30 \"$f.log\"; done", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "nvcc failed (logs in %s)\n", dir);
    fprintf(stderr, "files kept in %s\n", dir);
    return 1;
}

int main(void)
{
    nvcc = hb_nvcc_scratch(dir, sizeof dir, "stc_codegen_nvcc");
    if (!nvcc)
        return 77;
    nvrtc = dlopen("/usr/local/cuda/lib64/libnvrtc.so", RTLD_NOW);
    if (!nvrtc)
        nvrtc = dlopen("libnvrtc.so", RTLD_NOW);

    Arena *a = arena_new();
    for (int i = 0; i < HB_NPROGRAMS; i++)
        emit(hb_example(a, i), "", a, 1);
    emit(hb_example(a, 0), "tb=64x2,maxreg=64", a, 0);
    emit(hb_example(a, 1), "tb=32x32x1", a, 0);
    emit(hb_example(a, 5), "tb=1024", a, 0);
    /* the temporal kernels, which declare values some programs leave unused: the overlapped
     * tile, streaming (in 2D with a plane loop without the plane check too), retimed */
    emit(hb_example(a, 0), "tb=32x8,tblock=2", a, 0);
    emit(hb_example(a, 0), "tb=64x1,stream=y,sb=16,tblock=4", a, 0);
    emit(hb_example(a, 0), "tb=64x1,stream=y,sb=16,tblock=2,retime=on", a, 0);
    /* fused steps of a three-level field (three shared buffers, or the older level's queue; the
     * host's fourth buffer), mapped (clamp) and held (fixed) halos */
    emit(hb_example(a, 2), "tb=32x8,tblock=3", a, 0);
    emit(hb_example(a, 2), "tb=64x1,stream=y,sb=16,tblock=3", a, 0);
    IrProgram *held = hb_example(a, 2);
    ir_bc_set(&held->fields[0], BC_FIXED, 0);
    emit(held, "tb=32x8,tblock=2", a, 0);
    /* several columns per thread in the 3D streaming kernel (a fixed box: a barrier per step) */
    IrProgram *box = hb_example(a, 1);
    for (int f = 0; f < box->nfields; f++)
        if (box->fields[f].role == ROLE_STATE)
            ir_bc_set(&box->fields[f], BC_FIXED, 0);
    emit(box, "tb=16x4x1,stream=z,sb=16,tblock=3,bm=1x4x1", a, 0);
    emit(box, "tb=16x4x1,stream=z,sb=16,tblock=2,retime=on,bm=1x4x1", a, 0);
    /* hold=on: the held run's host code and copies (codegen/emit_hold.c), in 1D, 2D and 3D */
    emit(hb_with_boundary(hb_example(a, 0), BC_PERIODIC), "tb=64x1,stream=y,sb=16,tblock=4,hold=on", a, 0);
    emit(hb_with_boundary(hb_example(a, 1), BC_PERIODIC), "tb=16x8x1,stream=z,sb=8,tblock=2,hold=on", a, 0);
    emit(hb_with_boundary(hb_example(a, 5), BC_PERIODIC), "tb=64,tblock=2,hold=on", a, 0);
    const char *root = getenv("STC_SOURCE_ROOT");
    int examples = 0;
    if (root) {
        examples += emit_dir(root, "examples");
        examples += emit_dir(root, "examples/bench");
        examples += emit_dir(root, "tests/programs");
    }
    printf("%d files (%d example stencils), NVRTC %s\n", nfiles, examples,
           nvrtc ? "checked" : "not found");

    write_batches();
    if (compile_all() != 0)
        return 1;
    if (hb_scratch_done(dir, nvrtc_failures != 0))
        return 1;
    arena_free(a);
    puts("nvcc: ok");
    return 0;
}
