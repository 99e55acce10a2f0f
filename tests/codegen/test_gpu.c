/* The emitted C API against the interpreter, on a GPU. For every hand-built program and every
 * stencil of examples/ and examples/bench/, writes NAME.cu/.h, the input data (the
 * interpreter's random fill) and the interpreter's result after a few steps on an odd-sized
 * grid, and a harness that runs NAME_run and compares every buffer of every state field, halo
 * included. The harnesses are compiled with nvcc (several programs per executable) and run;
 * they exit 77 when there is no GPU, and so does this test. STC_GPU_CHECK_DIR=path keeps the
 * files there (to run the harnesses on another machine: cd path && ./run.sh). */
#include <assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ast.h"
#include "codegen.h"
#include "emit.h"
#include "hand_ir.h"
#include "interp.h"

enum { STEPS = 4, MAX_BATCHES = 16, MAX_PER_BATCH = 64 };
static char dir[512];
static int nprog;
static struct {
    int id[MAX_PER_BATCH];
    char *prefix[MAX_PER_BATCH];
    int n;
} batch[MAX_BATCHES];
static int nbatches;

static void add_to_batch(int id, const char *prefix)
{
    for (int b = 0; b < MAX_BATCHES; b++) {
        if (b >= nbatches)
            nbatches = b + 1;
        int clash = batch[b].n >= MAX_PER_BATCH;
        for (int i = 0; i < batch[b].n && !clash; i++)
            clash = strcmp(batch[b].prefix[i], prefix) == 0;
        if (!clash) {
            batch[b].id[batch[b].n] = id;
            batch[b].prefix[batch[b].n++] = strdup(prefix);
            return;
        }
    }
    assert(0);
}

/* API slot s of a state field (0 newest, 1 the one before) is interpreter buffer newest - s. */
static int interp_buffer(const InterpGrid *g, int f, int slot)
{
    int L = g->prog->fields[f].role == ROLE_STATE ? g->prog->fields[f].levels : 1;
    return ((g->newest[f] - slot) % L + L) % L;
}

static void write_buffers(const InterpGrid *g, const char *path, int states_only)
{
    FILE *out = fopen(path, "wb");
    assert(out);
    const IrProgram *p = g->prog;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_TEMP || (states_only && fl->role != ROLE_STATE))
            continue;
        int L = fl->role == ROLE_STATE ? fl->levels : 1;
        for (int s = 0; s < L; s++) {
            const double *b = g->buf[f][interp_buffer(g, f, s)];
            for (long e = 0; e < g->total; e++) {
                if (p->type == ELEM_FLOAT) {
                    float v = (float)b[e];
                    fwrite(&v, sizeof v, 1, out);
                } else {
                    fwrite(&b[e], sizeof b[e], 1, out);
                }
            }
        }
    }
    fclose(out);
}

/* The harness of program id; it compares every buffer of every state field, but where plan
 * fuses steps only those a fused launch leaves: the newest, and a three-level field's two
 * newest (docs/c-api.md). */
static void emit_harness(FILE *h, const Plan *plan, const char *pfx, int id, const int n[3], Arena *a)
{
    const IrProgram *p = plan->prog;
    const char *T = p->type == ELEM_DOUBLE ? "double" : "float";
    fprintf(h, "static int check_%03d(void)\n{\n", id);
    fprintf(h, "    const int nx = %d, ny = %d, nz = %d;\n", n[0], n[1], n[2]);
    fprintf(h, "    const size_t elems = %s_buffer_elems(nx, ny, nz);\n", pfx);
    fprintf(h, "    %s_fields f;\n    memset(&f, 0, sizeof f);\n", pfx);
    fprintf(h, "    std::vector<%s> host(elems), want(elems);\n", T);
    fprintf(h, "    FILE *in = fopen(\"p%03d.in\", \"rb\"), *ex = fopen(\"p%03d.out\", \"rb\");\n", id, id);
    fprintf(h, "    if (!in || !ex) { printf(\"p%03d: missing data\\n\"); return 1; }\n", id);
    fprintf(h, "    std::vector<%s *> bufs;\n", T);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_TEMP)
            continue;
        const char *m = cg_member_name(a, fl->name);
        int L = fl->role == ROLE_STATE ? fl->levels : 1;
        for (int s = 0; s < L; s++) {
            fprintf(h, "    {\n        %s *d = NULL;\n        if (fread(host.data(), sizeof(%s), elems, in) != elems) return 1;\n", T, T);
            fprintf(h, "        if (cudaMalloc((void **)&d, elems * sizeof(%s)) != cudaSuccess) return 1;\n", T);
            fprintf(h, "        cudaMemcpy(d, host.data(), elems * sizeof(%s), cudaMemcpyHostToDevice);\n", T);
            fprintf(h, "        bufs.push_back(d);\n");
            if (fl->role == ROLE_STATE)
                fprintf(h, "        f.%s[%d] = d;\n    }\n", m, s);
            else
                fprintf(h, "        f.%s = d;\n    }\n", m);
        }
    }
    fprintf(h, "    %s_params prm = %s_params_defaults();\n", pfx, pfx);
    fprintf(h, "    cudaError_t err = %s_run(&f, &prm, nx, ny, nz, %d, NULL, 0);\n", pfx, STEPS);
    fprintf(h, "    if (err == cudaSuccess) err = cudaDeviceSynchronize();\n");
    fprintf(h, "    if (err != cudaSuccess) { printf(\"p%03d %s: %%s\\n\", cudaGetErrorString(err)); return 1; }\n", id, pfx);
    fprintf(h, "    double worst = 0; long bad = 0;\n");
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role != ROLE_STATE)
            continue;
        const char *m = cg_member_name(a, fl->name);
        int kept = plan->step_count == 1 ? fl->levels : fl->levels == 3 ? 2 : 1;
        for (int s = 0; s < fl->levels; s++) {
            fprintf(h, "    if (fread(want.data(), sizeof(%s), elems, ex) != elems) return 1;\n", T);
            if (s >= kept)
                continue;
            fprintf(h, "    cudaMemcpy(host.data(), f.%s[%d], elems * sizeof(%s), cudaMemcpyDeviceToHost);\n", m, s, T);
            fprintf(h, "    for (size_t e = 0; e < elems; e++) {\n"
                       "        double a = host[e], b = want[e];\n"
                       "        if (a != a && b != b) continue;\n"
                       "        if (a == b) continue;\n"
                       "        double d = fabs(a - b) / (fabs(b) > 1 ? fabs(b) : 1);\n"
                       "        if (!(d <= %g)) { if (bad++ < 3) printf(\"p%03d %s: %s[%d] element %%zu: %%.9g, expected %%.9g\\n\", e, a, b); }\n"
                       "        if (d > worst) worst = d;\n    }\n",
                    p->type == ELEM_DOUBLE ? 1e-11 : p->fast_math ? 1e-3 : 1e-4, id, pfx, m, s);
        }
    }
    fprintf(h, "    for (size_t i = 0; i < bufs.size(); i++) cudaFree(bufs[i]);\n");
    fprintf(h, "    fclose(in);\n    fclose(ex);\n");
    fprintf(h, "    printf(\"p%03d %-22s %%s (largest relative difference %%.3g)\\n\", bad ? \"FAIL\" : \"ok\", worst);\n", id, pfx);
    fprintf(h, "    return bad != 0;\n}\n\n");
}

static void check_program(const IrProgram *p, Arena *a, const char *cfg)
{
    static const int sizes[3][3] = {{301, 1, 1}, {67, 61, 1}, {29, 23, 19}};
    const int *n = sizes[p->dims - 1];
    Config c;
    char why[256];
    assert(config_parse(cfg, p->dims, &c, why, sizeof why) == 0);
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan) {
        fprintf(stderr, "%s: %s\n", p->name, why);
        exit(1);
    }
    int id = nprog++;
    const char *pfx = cg_c_identifier(a, p->name);
    char base[700], path[800];
    snprintf(base, sizeof base, "%s/p%03d_%s", dir, id, pfx);
    hb_emit_files(plan, base);

    InterpGrid *g = interp_grid_new(p, n);
    assert(g);
    interp_fill_random(g, 1234u + (unsigned)id);
    if (p->type == ELEM_FLOAT) /* both sides start from the same float values */
        for (int f = 0; f < p->nfields; f++) {
            int L = p->fields[f].role == ROLE_STATE ? p->fields[f].levels : 1;
            for (int l = 0; l < L; l++)
                for (long e = 0; e < g->total; e++)
                    g->buf[f][l][e] = (float)g->buf[f][l][e];
        }
    snprintf(path, sizeof path, "%s/p%03d.in", dir, id);
    write_buffers(g, path, 0);
    interp_run(g, STEPS);
    snprintf(path, sizeof path, "%s/p%03d.out", dir, id);
    write_buffers(g, path, 1);
    interp_grid_free(g);

    snprintf(path, sizeof path, "%s/p%03d_check.inc", dir, id);
    FILE *hf = fopen(path, "w");
    assert(hf);
    emit_harness(hf, plan, pfx, id, n, a);
    fclose(hf);
    add_to_batch(id, pfx);
}

/* Every stencil of the file; fast_config: only the first, with --fast-math, as that
 * configuration (the approximate intrinsics are in the optimized kernels only). */
static void check_file_as(const char *path, const char *fast_config)
{
    Arena *a = arena_new();
    Diag diag;
    diag_init(&diag, NULL, stderr);
    Source src;
    if (source_read(path, a, &diag, &src) != 0)
        exit(1);
    diag_init(&diag, &src, stderr);
    AstFile file = {0};
    if (parse_source(&src, a, &diag, &file) != 0)
        exit(1);
    for (int i = 0; i < file.nstencils; i++) {
        FILE *quiet = tmpfile();
        diag_init(&diag, &src, quiet);
        IrProgram *p = ir_lower(&file.stencils[i], a, &diag);
        fclose(quiet);
        if (!p)
            exit(1);
        if (fast_config) {
            p->fast_math = 1;
            check_program(p, a, fast_config);
            break;
        }
        check_program(p, a, "");
    }
    arena_free(a);
}

static void check_file(const char *path)
{
    check_file_as(path, NULL);
}

/* Every stencil of the file under cfg2d or cfg3d, by its grid. */
static void check_file_tuned(const char *path, const char *cfg2d, const char *cfg3d)
{
    Arena *a = arena_new();
    Diag diag;
    diag_init(&diag, NULL, stderr);
    Source src;
    AstFile file = {0};
    if (source_read(path, a, &diag, &src) != 0 || parse_source(&src, a, &diag, &file) != 0)
        exit(1);
    for (int i = 0; i < file.nstencils; i++) {
        IrProgram *p = ir_lower(&file.stencils[i], a, &diag);
        if (!p)
            exit(1);
        check_program(p, a, p->dims == 3 ? cfg3d : cfg2d);
    }
    arena_free(a);
}

static void check_dir(const char *root, const char *sub)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, sub);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".st") != 0)
            continue;
        char file[1400];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        check_file(file);
    }
    closedir(d);
}

static void write_batches(void)
{
    char path[800];
    for (int b = 0; b < nbatches; b++) {
        snprintf(path, sizeof path, "%s/harness%02d.cu", dir, b);
        FILE *f = fopen(path, "w");
        assert(f);
        fprintf(f, "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n#include <vector>\n");
        for (int i = 0; i < batch[b].n; i++)
            fprintf(f, "#include \"p%03d_%s.cu\"\n#include \"p%03d_check.inc\"\n", batch[b].id[i],
                    batch[b].prefix[i], batch[b].id[i]);
        fprintf(f, "int main(void)\n{\n    int count = 0;\n"
                   "    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {\n"
                   "        printf(\"no GPU\\n\");\n        return 77;\n    }\n    int failed = 0;\n");
        for (int i = 0; i < batch[b].n; i++)
            fprintf(f, "    failed += check_%03d();\n", batch[b].id[i]);
        fprintf(f, "    return failed ? 1 : 0;\n}\n");
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/run.sh", dir);
    FILE *f = fopen(path, "w");
    assert(f);
    fprintf(f, "#!/bin/sh\n# runs every harness; exit 77 when there is no GPU\ncd \"$(dirname \"$0\")\"\nrc=0\n"
               "for h in harness*.bin; do ./$h; r=$?; [ $r = 77 ] && exit 77; [ $r = 0 ] || rc=1; done\nexit $rc\n");
    fclose(f);
    chmod(path, 0755);
}

int main(void)
{
    const char *nvcc = access("/usr/local/cuda/bin/nvcc", X_OK) == 0 ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    if (system("command -v nvcc >/dev/null 2>&1") != 0 && access(nvcc, X_OK) != 0) {
        puts("no nvcc: skipped");
        return 77;
    }
    const char *keep = getenv("STC_GPU_CHECK_DIR");
    if (keep && *keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        mkdir(dir, 0755);
    } else {
        snprintf(dir, sizeof dir, "/tmp/stc_codegen_gpu_XXXXXX");
        assert(mkdtemp(dir));
    }
    Arena *a = arena_new();
    for (int i = 0; i < HB_NPROGRAMS; i++)
        check_program(hb_example(a, i), a, "");
    /* blocks of other shapes, a register cap; a clash of prefixes puts these in other batches */
    check_program(hb_example(a, 0), a, "tb=64x2,maxreg=64");
    check_program(hb_example(a, 1), a, "tb=8x8x8");
    check_program(hb_example(a, 2), a, "tb=1024x1");
    check_program(hb_example(a, 4), a, "tb=16x16");
    /* fused steps of a three-level field: after STEPS steps its fourth buffer (the workspace's)
     * lies at [3] (tblock=2), at [2] (3: a fused and a single step) and at [1] (4) */
    check_program(hb_example(a, 2), a, "tb=32x8,tblock=2");
    check_program(hb_example(a, 2), a, "tb=32x8,tblock=3");
    check_program(hb_example(a, 2), a, "tb=32x8,tblock=4");
    check_program(hb_example(a, 2), a, "tb=64x1,stream=y,sb=16,tblock=3");
    const char *root = getenv("STC_SOURCE_ROOT");
    if (root) {
        check_dir(root, "examples");
        check_dir(root, "examples/bench");
        /* --fast-math: rsqrtf (gradient2d); __fdividef, __expf, __logf, __sinf, __cosf and
         * __powf (a program written here) */
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/bench/gradient2d.st", root);
        check_file_as(path, "tb=32x4,uf=2x1,bm=2x2");
        /* fused steps of three-level fields under each kind of halo, 3 steps a launch */
        snprintf(path, sizeof path, "%s/tests/programs/levels3.st", root);
        check_file_tuned(path, "tb=32x8,tblock=3", "tb=16x8x8,tblock=2");
        check_file_tuned(path, "tb=64x1,stream=y,sb=16,tblock=3", "tb=16x8x1,stream=z,sb=8,tblock=2");
    }
    char fast[1024];
    snprintf(fast, sizeof fast, "%s/fast_ops.st", dir);
    FILE *ff = fopen(fast, "w");
    assert(ff);
    fputs("stencil fast_ops {\n  grid 2d;\n  type float;\n  state u boundary periodic;\n"
          "  let a = abs(u[-1,0]) + 0.5;\n"
          "  u = 0.25 * (u[1,0] + u[0,-1]) / (1 + a) + 0.1 * exp(-a) + 0.1 * log(a)\n"
          "      + 0.1 * sin(u[0,1]) * cos(u) + 0.1 * pow(a, 0.5);\n}\n", ff);
    fclose(ff);
    check_file_as(fast, "tb=32x4,uf=2x1,bm=2x2");
    write_batches();
    printf("%d programs in %d harnesses\n", nprog, nbatches);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && ls harness*.cu | xargs -P 2 -n 1 sh -c '%s -O1 -gencode arch=compute_80,code=sm_80 "
             "-gencode arch=compute_90,code=sm_90 \"$0\" -o \"${0%%.cu}.bin\" > \"$0.log\" 2>&1 || "
             "{ echo \"$0\"; head -20 \"$0.log\"; exit 255; }'", dir, nvcc);
    if (system(cmd) != 0) {
        fprintf(stderr, "harness compile failed (files in %s)\n", dir);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "%s/run.sh", dir);
    int rc = system(cmd);
    int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
    if (!(keep && *keep) && status != 1) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    arena_free(a);
    if (status == 77)
        puts("no GPU: skipped after compiling the harnesses");
    return status;
}
