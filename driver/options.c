#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../util/diag.h"
#include "../util/nearest.h"
#include "../tuner/tune.h"

static const char usage_text[] =
    "usage: stencilc [options] FILE.st            compile a stencil to CUDA (FILE.cu + FILE.h)\n"
    "       stencilc check [options] FILE.st      run the reference interpreter on a small grid\n"
    "       stencilc bench [options] FILE.st      time the kernel it would emit (needs a GPU)\n"
    "       stencilc replay [options] RECORD.tsv  compare tuning strategies on recorded timings\n"
    "\n"
    "options:\n"
    "  -o FILE             output file (default: the stencil's name + .cu); the header goes\n"
    "                      next to it with the extension .h\n"
    "  --stencil NAME      which stencil of the file (needed when it holds several)\n"
    "  --type float|double element type (overrides the file)\n"
    "  --grid NXxNYxNZ     interior grid size for tuning and bench (default: the file's `size`)\n"
    "  --steps N           time steps for tuning and bench (default: the file's `steps`)\n"
    "  --config SPEC       emit exactly this variant, e.g. 'tb=32x8x1,stream=z,sb=64'\n"
    "                      (docs/config.md)\n"
    "  --list-space        print the tuning space of the program and grid, then exit\n"
    "  --dump-ast          print the parsed program back as source\n"
    "  --dump-ir           print the IR and its analyses\n"
    "  --validate          also parse the emitted CUDA with libclang and report its diagnostics\n"
    "  --distributed       also emit the multi-GPU API: NCCL halo exchange over a process grid\n"
    "                      (docs/distributed.md; the header then includes <nccl.h>)\n"
    "  --procs PXxPYxPZ    with --distributed: tune and bench on one rank's part of --grid (the\n"
    "                      largest) split over this process grid\n"
    "  --depth K           with --procs: steps between exchanges (default: chosen by the exchange\n"
    "                      cost model, docs/distributed.md)\n"
    "  --link L            with --procs: the link between GPUs the depth is chosen for: nvlink\n"
    "                      (default) or a bandwidth per GPU in GB/s, e.g. 25 between nodes\n"
    "  --fast-math         float: let the optimized kernels use approximate division, rsqrt,\n"
    "                      exp, log, sin, cos and pow (as nvcc --use_fast_math), verified at a\n"
    "                      relative tolerance of 1e-3 instead of 1e-5 (docs/config.md)\n"
    "  --autotune          search the tuning space on this GPU and emit the fastest correct\n"
    "                      variant\n"
    "  --budget T          tuning budget: seconds ('60s', '2m') or a count of variants ('200')\n"
    "  --strategy S        gest (default), random, genetic or exhaustive\n"
    "  --gest KNOBS        GeST's knobs, e.g. 'dataset=16,groups=5,ar=0.1,lr=0.1,quota=8,priors=4,fill=0'\n"
    "                      (docs/autotune.md)\n"
    "  --seed N            random seed of the search (default 1)\n"
    "  --seeds N           replay: seeds per strategy (default 10)\n"
    "  --tune-log FILE     write one JSON line per evaluated variant\n"
    "  --tune-db DIR       the tuning database (default: ~/.cache/stencilc)\n"
    "  --replay FILE       tune against recorded measurements instead of the GPU\n"
    "  --target GPU        with --autotune: emit the learned model's prediction for GPU (H100,\n"
    "                      H200, A100, L40, or an architecture such as sm_90), timing nothing;\n"
    "                      no GPU needed (docs/model.md)\n"
    "  --guide             with --autotune: the model ranks GeST's proposals, so only the most\n"
    "                      promising are compiled and timed, and gives its starting points\n"
    "  --model FILE        the learned model (default: the one installed with stencilc)\n"
    "  -q, --quiet         no progress line\n"
    "  -h, --help          this text\n"
    "  --version           print the version\n"
    "\n"
    "exit status: 0 success, 1 errors in the input or the run, 2 usage errors (also options\n"
    "that conflict or are given twice), 130 check stopped by Ctrl-C\n";

/* An error on the command line, with a pointer to --help: returns 2, the exit status. */
__attribute__((format(printf, 2, 3))) static int usage_error(Diag *d, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_run_error(d, "%s\n(see stencilc --help)", msg);
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "512x512x512", "8192x8192" or "1024": up to three sizes in [1, hi]; returns how many, or -1 */
static int parse_sizes(const char *s, long hi, long out[3])
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *tok = strtok(buf, "x,"); tok; tok = strtok(NULL, "x,")) {
        if (n == 3 || parse_long(tok, 1, hi, &out[n]) != 0)
            return -1;
        n++;
    }
    return n > 0 ? n : -1;
}

static int parse_grid(const char *s, Options *o)
{
    int n = parse_sizes(s, 1L << 30, o->grid);
    if (n < 0)
        return -1;
    o->ngrid = n;
    return 0;
}

static int parse_budget(const char *s, Options *o)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* nan and inf parse as numbers; neither is a budget, nor is more than a year or 1e9 variants */
    if (errno || end == s || !isfinite(v) || v <= 0 || v > 1e9)
        return -1;
    if (!strcmp(end, "s"))
        o->budget_s = v;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        o->budget_s = v * 60;
    else if (!strcmp(end, "h"))
        o->budget_s = v * 3600;
    else if (*end == 0 && v == (long)v)
        o->budget_count = (long)v;
    else
        return -1;
    if (o->budget_s > 366.0 * 86400)
        return -1;
    return 0;
}

void options_tuning(const Options *o, TuneKnobs *knobs, TuneBudget *budget)
{
    tune_knobs_default(knobs);
    knobs->seed = o->seed;
    if (o->gest) /* checked when the options were read */
        tune_knobs_parse(knobs, o->gest, NULL, 0);
    budget->seconds = o->budget_s;
    budget->count = o->budget_count;
}

const char *options_generator_name(void)
{
    static char name[96];
    if (!name[0])
        snprintf(name, sizeof name, "stencilc %s", cg_version());
    return name;
}

/* 1 when name was in given[]; else it is added (up to the array's 64). */
static int given_before(const char **given, int *n, const char *name)
{
    for (int k = 0; k < *n; k++)
        if (!strcmp(given[k], name))
            return 1;
    if (*n < 64)
        given[(*n)++] = name;
    return 0;
}

/* Edit distance of two short words (longer ones are simply far apart). */
/* `stencilc comp x.st`: a first word that is no file and reads as a misspelt command (it is
 * followed by another argument that is no option, or it is close to a command) says so instead
 * of "more than one input file". Reports and returns 1 when it is one. */
static int unknown_command(int argc, char **argv, Diag *d)
{
    static const char *const commands[] = {"check", "bench", "replay"};
    const char *w = argv[1];
    if (w[0] == '-' || strchr(w, '.') || strchr(w, '/') || access(w, F_OK) == 0)
        return 0;
    const char *near = NULL;
    for (int k = 0; k < 3; k++)
        if (text_distance(w, commands[k]) <= 2)
            near = commands[k];
    int another = 0;
    for (int k = 2; k < argc; k++)
        another |= argv[k][0] != '-';
    if (!near && !another)
        return 0;
    if (near)
        usage_error(d, "unknown command '%s'; did you mean '%s'?", diag_name(w), near);
    else
        usage_error(d, "unknown command '%s' (the commands are check, bench and replay; to compile, "
                    "give the file alone: stencilc FILE.st)", diag_name(w));
    return 1;
}

int options_parse(int argc, char **argv, Options *o, Diag *d)
{
    memset(o, 0, sizeof *o);
    o->type = -1;
    o->seed = 1;
    o->seeds = 10;
    int i = 1;
    if (argc > 1) {
        if (!strcmp(argv[1], "check"))
            o->cmd = CMD_CHECK, i = 2;
        else if (!strcmp(argv[1], "bench"))
            o->cmd = CMD_BENCH, i = 2;
        else if (!strcmp(argv[1], "replay"))
            o->cmd = CMD_REPLAY, i = 2;
        else if (unknown_command(argc, argv, d))
            return 2;
    }
    const char *given[64]; /* the options with a value seen so far */
    int ngiven = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                      \
    do {                                                                \
        if (!next)                                                      \
            return usage_error(d, "option '%s' needs an argument", a);  \
        if (given_before(given, &ngiven, a))                            \
            return usage_error(d, "'%s' given twice; give it once", a); \
        i++;                                                            \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            puts(options_generator_name());
            return 1;
        } else if (!strcmp(a, "-o")) {
            NEED_ARG();
            o->output = next;
        } else if (!strcmp(a, "--stencil")) {
            NEED_ARG();
            o->stencil = next;
        } else if (!strcmp(a, "--type")) {
            NEED_ARG();
            if (!strcmp(next, "float"))
                o->type = 0;
            else if (!strcmp(next, "double"))
                o->type = 1;
            else
                return usage_error(d, "--type takes float or double, not '%s'", diag_name(next));
        } else if (!strcmp(a, "--grid")) {
            NEED_ARG();
            if (parse_grid(next, o) != 0)
                return usage_error(d, "--grid takes sizes like 512x512x512, not '%s'", diag_name(next));
        } else if (!strcmp(a, "--steps")) {
            NEED_ARG();
            if (parse_long(next, 1, 1L << 30, &o->steps) != 0)
                return usage_error(d, "--steps takes a positive count, not '%s'", diag_name(next));
        } else if (!strcmp(a, "--config")) {
            NEED_ARG();
            o->config = next;
        } else if (!strcmp(a, "--list-space")) {
            o->list_space = 1;
        } else if (!strcmp(a, "--dump-ast")) {
            o->dump_ast = 1;
        } else if (!strcmp(a, "--dump-ir")) {
            o->dump_ir = 1;
        } else if (!strcmp(a, "--validate")) {
            o->validate = 1;
        } else if (!strcmp(a, "--fast-math")) {
            o->fast_math = 1;
        } else if (!strcmp(a, "--distributed")) {
            o->distributed = 1;
        } else if (!strcmp(a, "--procs")) {
            NEED_ARG();
            if ((o->nprocs = parse_sizes(next, 1L << 20, o->procs)) < 0)
                return usage_error(d, "--procs takes a process grid like 1x1x4, not '%s'", diag_name(next));
        } else if (!strcmp(a, "--depth")) {
            NEED_ARG();
            if (parse_long(next, 1, 1024, &o->depth) != 0)
                return usage_error(d, "--depth takes steps between exchanges, 1 to 1024, not '%s'", diag_name(next));
        } else if (!strcmp(a, "--link")) {
            NEED_ARG();
            double gbs;
            char name[32];
            if (cg_dist_parse_link(next, &gbs, name, sizeof name) != 0)
                return usage_error(d, "--link takes nvlink or a bandwidth in GB/s (0.1 to 100000), not '%s'",
                                   diag_name(next));
            o->link = next;
        } else if (!strcmp(a, "--autotune")) {
            o->autotune = 1;
        } else if (!strcmp(a, "--budget")) {
            NEED_ARG();
            if (parse_budget(next, o) != 0)
                return usage_error(d, "--budget takes a time ('60s', '2m') or a count ('200'), not '%s'", diag_name(next));
        } else if (!strcmp(a, "--strategy")) {
            NEED_ARG();
            o->strategy = next;
        } else if (!strcmp(a, "--gest")) {
            NEED_ARG();
            TuneKnobs k;
            char err[256];
            tune_knobs_default(&k);
            if (tune_knobs_parse(&k, next, err, sizeof err) != 0)
                return usage_error(d, "--gest: %s", err);
            o->gest = next;
        } else if (!strcmp(a, "--seed")) {
            long v;
            NEED_ARG();
            if (parse_long(next, 0, 0x7fffffff, &v) != 0)
                return usage_error(d, "--seed takes a number, not '%s'", diag_name(next));
            o->seed = (unsigned)v;
        } else if (!strcmp(a, "--seeds")) {
            long v;
            NEED_ARG();
            if (parse_long(next, 1, 1000, &v) != 0)
                return usage_error(d, "--seeds takes a count from 1 to 1000, not '%s'", diag_name(next));
            o->seeds = (int)v;
        } else if (!strcmp(a, "--tune-log")) {
            NEED_ARG();
            o->tune_log = next;
        } else if (!strcmp(a, "--tune-db")) {
            NEED_ARG();
            o->tune_db = next;
        } else if (!strcmp(a, "--tune-record")) { /* hidden: for recording replay data */
            NEED_ARG();
            o->tune_record = next;
            o->autotune = 1;
        } else if (!strcmp(a, "--target")) {
            NEED_ARG();
            o->target = next;
        } else if (!strcmp(a, "--model")) {
            NEED_ARG();
            o->model = next;
        } else if (!strcmp(a, "--guide")) {
            o->guide = 1;
        } else if (!strcmp(a, "--replay")) {
            NEED_ARG();
            o->replay = next;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error(d, "unknown option '%s'", diag_name(a));
        } else if (o->input) {
            return usage_error(d, "more than one input file ('%s')", diag_name(a));
        } else {
            o->input = a;
        }
#undef NEED_ARG
    }
    if (!o->input)
        return usage_error(d, "%s", "no input file");
    return options_check_conflicts(o, d);
}
