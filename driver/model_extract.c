/* `stencilc model extract`: measured variants with their features, for training (model.h).
 *
 * Inputs: recordings in the replay format (#stencilc-replay: bench/record_replay.sh,
 * --tune-record), reference searches (#stencilc-reference: bench/longsearch.py, decompressed),
 * and a tuning database (--db DIR with --program FILE.st...): each key's .best file names its
 * program by a hash of the IR dump, its grid, type and GPU; the programs given are lowered with
 * that type, hashed the same way (tuner/tunedb.c), and the key's journal is read for the ones
 * that match. The program of a recording is NAME.st under --src (default examples/bench and
 * examples). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/rt.h"
#include "../tuner/features_kernel.h"
#include "../tuner/model.h"
#include "../tuner/tune.h"
#include "../util/outfile.h"
#include "model_cmd.h"
#include "model_program.h"

enum { SOURCE_RECORDING = 0, SOURCE_REFERENCE = 1, SOURCE_JOURNAL = 2 };

/* ---- the cache of compiled-kernel facts ---------------------------------------------------- */

/* One line per (architecture, program, configuration): what features_kernel.c read from the
 * compile, so that a data set is compiled once. */
typedef struct {
    char *key;
    FeatKernel k;
} CacheEntry;

typedef struct {
    CacheEntry *e;
    long n, cap;
    FILE *append;
    RtContext *rc;
    int rc_cc;
} KernelCache;

static void cache_key(char *buf, int len, int cc, const char *program, const char *config)
{
    snprintf(buf, (size_t)len, "sm_%d\t%s\t%s", cc, program, config);
}

static void cache_put(KernelCache *c, const char *key, const FeatKernel *k)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->e = realloc(c->e, sizeof *c->e * (size_t)c->cap);
    }
    c->e[c->n].key = strdup(key);
    c->e[c->n++].k = *k;
}

static const FeatKernel *cache_get(const KernelCache *c, const char *key)
{
    for (long i = c->n - 1; i >= 0; i--) /* newest first; small data sets */
        if (!strcmp(c->e[i].key, key))
            return &c->e[i].k;
    return NULL;
}

#define KERNEL_FIELDS(k)                                                                          \
    &(k)->known, &(k)->regs, &(k)->spill_bytes, &(k)->stack_bytes, &(k)->smem_static,             \
        &(k)->barriers, &(k)->instr, &(k)->ld_global, &(k)->st_global, &(k)->ld_shared,           \
        &(k)->st_shared, &(k)->ld_const, &(k)->fma, &(k)->farith, &(k)->iarith, &(k)->shfl,       \
        &(k)->branch, &(k)->vector_mem

static void cache_open(KernelCache *c, const char *path)
{
    memset(c, 0, sizeof *c);
    if (!path)
        return;
    FILE *f = fopen(path, "r");
    char line[2048];
    while (f && fgets(line, sizeof line, f)) {
        char arch[32], prog[128], cfg[512];
        FeatKernel k;
        if (line[0] == '#'
            || sscanf(line, "%31[^\t]\t%127[^\t]\t%511[^\t]\t%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
                      arch, prog, cfg, KERNEL_FIELDS(&k)) != 21)
            continue;
        char key[800];
        snprintf(key, sizeof key, "%s\t%s\t%s", arch, prog, cfg);
        cache_put(c, key, &k);
    }
    if (f)
        fclose(f);
    c->append = fopen(path, "a");
}

static void cache_close(KernelCache *c)
{
    for (long i = 0; i < c->n; i++)
        free(c->e[i].key);
    free(c->e);
    if (c->append)
        fclose(c->append);
    rt_context_free(c->rc);
}

/* The kernel facts of (program, config) for GPU g: cached, or compiled when compile is set
 * (and then cached); NULL when neither. */
static const FeatKernel *kernel_facts(KernelCache *c, int compile, const OccGpu *g, const char *program,
                                      const char *config, const Plan *plan, FeatKernel *buf)
{
    char key[800], why[1024];
    cache_key(key, sizeof key, g->cc, program, config);
    const FeatKernel *k = cache_get(c, key);
    if (k || !compile)
        return k;
    if (!c->rc || c->rc_cc != g->cc) {
        rt_context_free(c->rc);
        c->rc = rt_context_compile_only(g->cc / 10, g->cc % 10, why, sizeof why);
        c->rc_cc = g->cc;
        if (!c->rc) {
            diag_run_warning(model_diag, "model: no NVRTC, kernels not compiled: %s", why);
            return NULL;
        }
    }
    if (feat_kernel_compile(c->rc, plan, buf, why, sizeof why) != 0)
        memset(buf, 0, sizeof *buf); /* does not compile: known = 0, cached as such */
    cache_put(c, key, buf);
    if (c->append) {
        const FeatKernel *q = buf;
        fprintf(c->append, "%s\t%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", key, q->known, q->regs,
                q->spill_bytes, q->stack_bytes, q->smem_static, q->barriers, q->instr, q->ld_global,
                q->st_global, q->ld_shared, q->st_shared, q->ld_const, q->fma, q->farith, q->iarith, q->shfl,
                q->branch, q->vector_mem);
        fflush(c->append);
    }
    return buf->known ? buf : NULL;
}

/* ---- one program's measurements ------------------------------------------------------------ */

typedef struct {
    ModelData *d;
    KernelCache *cache;
    int compile;
    long added, skipped;
} Extract;

/* Adds one measured variant of mp; a configuration that no longer builds is skipped. */
static void add_variant(Extract *x, const ModelProgram *mp, int group, const OccGpu *g, const char *cfgtext,
                        int ok, double ms, int source)
{
    Config c;
    char why[1024];
    if (config_parse(cfgtext, mp->prog->dims, &c, why, sizeof why) != 0
        || !space_check(&mp->space, &c, why, sizeof why)) {
        x->skipped++;
        return;
    }
    Arena *arena = arena_new();
    Plan *plan = plan_build(mp->prog, &c, arena, why, sizeof why);
    if (!plan) {
        x->skipped++;
        arena_free(arena);
        return;
    }
    char canon[512];
    config_format(&c, canon, sizeof canon);
    FeatKernel buf;
    char program[160]; /* the kernels differ by element type */
    snprintf(program, sizeof program, "%s:%s", mp->prog->name, ir_elem_name(mp->prog->type));
    const FeatKernel *k = kernel_facts(x->cache, x->compile, g, program, canon, plan, &buf);
    double f[FEAT_COUNT];
    if (feat_variant(&mp->space, &c, plan, k, g, arena, f, why, sizeof why) == 0) {
        model_data_add(x->d, group, ok, ms, source, canon, f);
        x->added++;
    }
    arena_free(arena);
}

/* The value of key in a header line of tab-separated key=value fields, in buf; NULL if absent. */
static const char *header_value(const char *header, const char *key, char *buf, int len)
{
    size_t kl = strlen(key);
    for (const char *p = header; (p = strstr(p, key)); p += kl)
        if ((p == header || p[-1] == '\t') && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, "\t\n");
            snprintf(buf, (size_t)len, "%.*s", (int)n, p + kl + 1);
            return buf;
        }
    return NULL;
}

static int extract_recording(Extract *x, const char *path, const char *const *src, int nsrc, const char *gpu_name)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag_run_error(model_diag, "model: cannot read %s", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int rc = -1;
    Arena *arena = arena_new();
    if (getline(&line, &cap, f) < 0 || (strncmp(line, "#stencilc-replay", 16) && strncmp(line, "#stencilc-reference", 19))) {
        diag_run_error(model_diag, "model: %s is not a recording (#stencilc-replay) nor a reference (#stencilc-reference)", path);
        goto out;
    }
    int source = strncmp(line, "#stencilc-reference", 19) == 0 ? SOURCE_REFERENCE : SOURCE_RECORDING;
    char name[128], gridtext[64], type[16], gpu[128], steps[16], file[1024], why[1024];
    long grid[3] = {0, 0, 0};
    if (!header_value(line, "program", name, sizeof name)) {
        diag_run_error(model_diag, "model: %s: the header names no program", path);
        goto out;
    }
    if (header_value(line, "grid", gridtext, sizeof gridtext)) {
        char *p = gridtext;
        for (int dd = 0; dd < 3 && *p; dd++) {
            grid[dd] = strtol(p, &p, 10);
            if (*p == 'x')
                p++;
        }
    }
    const char *recorded_gpu = header_value(line, "gpu", gpu, sizeof gpu);
    const OccGpu *g = find_gpu_named(gpu_name ? gpu_name : recorded_gpu ? recorded_gpu : "");
    if (!g)
        goto out;
    const char *st = model_program_find(name, src, nsrc, file, sizeof file);
    if (!st) {
        diag_run_error(model_diag, "model: %s: no %s.st under the source directories (--src)", path, name);
        goto out;
    }
    int etype = header_value(line, "type", type, sizeof type) && !strcmp(type, "double") ? ELEM_DOUBLE : ELEM_FLOAT;
    long nsteps = header_value(line, "steps", steps, sizeof steps) ? atol(steps) : 1;
    ModelProgram mp;
    /* the stencil the header names (examples/image.st holds four), else the file's only one */
    if (model_program_load(st, name, etype, grid, nsteps, arena, &mp, why, sizeof why) != 0
        && model_program_load(st, NULL, etype, grid, nsteps, arena, &mp, why, sizeof why) != 0) {
        diag_run_error(model_diag, "model: %s: %s", path, why);
        goto out;
    }
    int group = model_data_group(x->d, name, recorded_gpu ? recorded_gpu : g->name);
    while (getline(&line, &cap, f) >= 0) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = 0;
        const char *val = tab + 1;
        if (!strncmp(val, "fail", 4))
            add_variant(x, &mp, group, g, line, 0, -1, source);
        else {
            double ms = strtod(val, NULL);
            if (ms > 0)
                add_variant(x, &mp, group, g, line, 1, ms, source);
        }
    }
    rc = 0;
out:
    free(line);
    fclose(f);
    arena_free(arena);
    return rc;
}

/* ---- a tuning database --------------------------------------------------------------------- */

/* A key's .best file: the fields extract needs. */
typedef struct {
    char hash[32], grid[64], type[16], gpu[128], generator[256];
} BestFile;

static int read_best(const char *path, BestFile *b)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(b, 0, sizeof *b);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = 0;
        const char *v = eq + 1;
        if (!strcmp(line, "program_hash"))
            snprintf(b->hash, sizeof b->hash, "%s", v);
        else if (!strcmp(line, "grid"))
            snprintf(b->grid, sizeof b->grid, "%s", v);
        else if (!strcmp(line, "type"))
            snprintf(b->type, sizeof b->type, "%s", v);
        else if (!strcmp(line, "gpu"))
            snprintf(b->gpu, sizeof b->gpu, "%s", v);
        else if (!strcmp(line, "generator"))
            snprintf(b->generator, sizeof b->generator, "%s", v);
    }
    fclose(f);
    return b->hash[0] && b->grid[0] ? 0 : -1;
}

/* The journal of one key whose program is one of programs[]. */
static int extract_key(Extract *x, const char *db, const char *hash, const BestFile *b, const char *const *programs,
                       int nprograms, const char *gpu_name)
{
    long grid[3] = {1, 1, 1};
    char *p = (char *)b->grid;
    for (int d = 0; d < 3 && *p; d++) {
        grid[d] = strtol(p, &p, 10);
        if (*p == 'x')
            p++;
    }
    const char *tb = strstr(b->generator, "tblock<=");
    long steps = tb ? atol(tb + 8) : 1;
    int type = !strcmp(b->type, "double") ? ELEM_DOUBLE : ELEM_FLOAT;
    for (int i = 0; i < nprograms; i++) {
        Arena *arena = arena_new();
        ModelProgram mp;
        char why[1024];
        /* every stencil of the file: try each name the file defines */
        if (model_program_load(programs[i], NULL, type, grid, steps, arena, &mp, why, sizeof why) != 0) {
            arena_free(arena);
            continue;
        }
        char *text = tunedb_program_text(mp.prog), hex[17] = "0000000000000000";
        if (text)
            tunedb_program_hash(text, hex);
        free(text);
        if (strcmp(hex, b->hash)) {
            arena_free(arena);
            continue;
        }
        const OccGpu *g = find_gpu_named(gpu_name ? gpu_name : b->gpu);
        char path[1300];
        snprintf(path, sizeof path, "%s/%s.journal", db, hash);
        FILE *f = g ? fopen(path, "r") : NULL;
        if (f) {
            int group = model_data_group(x->d, mp.prog->name, b->gpu[0] ? b->gpu : g->name);
            char *line = NULL;
            size_t cap = 0;
            while (getline(&line, &cap, f) >= 0) {
                TuneSample s;
                char cfg[512];
                if (tune_log_parse(line, mp.prog->dims, &s) != 0)
                    continue;
                config_format(&s.config, cfg, sizeof cfg);
                add_variant(x, &mp, group, g, cfg, s.ok, s.ms, SOURCE_JOURNAL);
            }
            free(line);
            fclose(f);
        }
        arena_free(arena);
        return 1;
    }
    return 0;
}

static int extract_db(Extract *x, const char *db, const char *const *programs, int nprograms, const char *gpu_name)
{
    DIR *dir = opendir(db);
    if (!dir) {
        diag_run_error(model_diag, "model: cannot read the tuning database %s", db);
        return -1;
    }
    struct dirent *e;
    int keys = 0, matched = 0;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n != 21 || strcmp(e->d_name + 16, ".best"))
            continue;
        char hash[17], path[1300];
        BestFile b;
        snprintf(hash, sizeof hash, "%.16s", e->d_name);
        snprintf(path, sizeof path, "%s/%s", db, e->d_name);
        if (read_best(path, &b) != 0)
            continue;
        keys++;
        matched += extract_key(x, db, hash, &b, programs, nprograms, gpu_name);
    }
    closedir(dir);
    diag_run_info(model_diag, "model: tuning database %s: %d of %d keys matched a program given", db, matched,
            keys);
    return 0;
}

/* d's TSV into out, whole or not at all (util/outfile.h): an interrupted or failed write leaves
 * what was there. 0, or 1 with the error said. */
static int write_data(const ModelData *d, const char *out)
{
    char *text = NULL, why[512];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int bad = !mem || model_data_write(mem, d) != 0;
    if (mem && fclose(mem) != 0)
        bad = 1;
    OutFile file = {out, text, len};
    if (bad)
        snprintf(why, sizeof why, "cannot write '%s': out of memory", out);
    if (bad || out_replace(&file, 1, why, sizeof why) != 0) {
        diag_run_error(model_diag, "model: %s", why);
        bad = 1;
    }
    free(text);
    return bad;
}

int model_extract(const char *out, const char *const *src, int nsrc, const char *gpu_name, int compile,
                  const char *kernels, const char *db, const char *const *programs, int nprograms,
                  const char *const *inputs, int ninputs)
{
    static const char *const default_src[] = {"examples/bench", "examples"};
    if (!out || (ninputs == 0 && !db)) {
        diag_run_error(model_diag, "model extract needs -o DATA.tsv and recordings or --db");
        return 2;
    }
    if (nsrc == 0)
        src = default_src, nsrc = 2;
    ModelData d;
    KernelCache cache;
    model_data_init(&d);
    cache_open(&cache, kernels);
    Extract x = {&d, &cache, compile, 0, 0};
    int rc = 0;
    for (int i = 0; i < ninputs && rc == 0; i++) {
        long before = x.added;
        rc = extract_recording(&x, inputs[i], src, nsrc, gpu_name);
        diag_run_info(model_diag, "model: %s: %ld variants", inputs[i], x.added - before);
    }
    if (rc == 0 && db)
        rc = extract_db(&x, db, programs, nprograms, gpu_name);
    if (rc == 0 && (rc = write_data(&d, out)) == 0)
        diag_run_info(model_diag, "model: %ld variants of %d programs written to %s (%ld skipped: no longer valid or not built)", x.added, d.ngroups, out, x.skipped);
    cache_close(&cache);
    model_data_free(&d);
    return rc ? 1 : 0;
}
