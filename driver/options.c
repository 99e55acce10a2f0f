#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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
    "       stencilc check [options] FILE.st      run the interpreter (with a GPU, the kernel too)\n"
    "       stencilc bench [options] FILE.st      time the kernel it would emit (needs a GPU)\n"
    "       stencilc replay [options] RECORD.tsv  compare tuning strategies on recorded timings\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   output file (default: the C prefix + .cu)\n"
    "  --header FILE       the header (default: the output's path with the extension .h:\n"
    "                      k.cu and k.cpp give k.h); the .cu includes it by its relative path\n"
    "  --name PREFIX       the C prefix of every emitted symbol, type, macro and the header\n"
    "                      guard (default: the stencil's name), so variants link together\n"
    "  --stencil NAME      which stencil of the file (needed when it holds several)\n"
    "  --type float|double element type (overrides the file)\n"
    "  --grid NXxNYxNZ     interior grid size for tuning, bench and check (default: the file's\n"
    "                      `size`; check: a small odd grid such as 37x29x23)\n"
    "  --steps N           time steps for tuning, bench and check (default: the file's `steps`;\n"
    "                      check: 3)\n"
    "  --config SPEC       emit exactly this variant, e.g. 'tb=32x8x1,stream=z,sb=64'\n"
    "                      (docs/config.md)\n"
    "  --init FIELD=FILE   check: start FIELD from a .npy file (the grid's shape, z y x; float32\n"
    "                      or float64; FIELD@-1=FILE: a three-level field's level before);\n"
    "                      other fields start from random values\n"
    "  --save DIR|FIELD=FILE  check: write the fields' final values as .npy (DIR/FIELD.npy for\n"
    "                      every state and coef field, or one field to FILE)\n"
    ;
/* in two, as C99 promises strings of 4095 characters and no more */
static const char usage_text_rest[] =
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
    "  --same-bits         round every operation explicitly (__fmaf_rn chains in source order),\n"
    "                      so that every kernel, fused steps and any split of --distributed\n"
    "                      give the same bits; no retime=on, not with --fast-math (docs/config.md)\n"
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
    "option values: after the option (--grid 64x64) or joined to it by '=' (--grid=64x64)\n"
    "exit status: 0 success, 1 errors in the input or the run (check: also NaN, Inf or values\n"
    "that grow without bound), 2 usage errors (an unknown option or command, a missing or bad\n"
    "value, a --stencil or --config that names nothing valid, options that conflict or are\n"
    "given twice), 130 check stopped by Ctrl-C\n";

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

static int known_strategy(const char *s)
{
    for (int k = 0; tune_strategy_names[k]; k++)
        if (!strcmp(s, tune_strategy_names[k]))
            return 1;
    return 0;
}

/* --name: a C identifier that the emitted symbols start with. */
static int c_prefix_ok(const char *s)
{
    if (!*s || strlen(s) > 64 || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* --init FIELD=FILE.npy (repeatable) and --save DIR or --save FIELD=FILE.npy (repeatable). */
static int check_file_option(Options *o, const char *opt, const char *v, Diag *d)
{
    int init = !strcmp(opt, "--init");
    const char **list = init ? o->init : o->save;
    int *n = init ? &o->ninit : &o->nsave;
    const char *eq = strchr(v, '=');
    if ((init && (!eq || eq == v || !eq[1])) || (!init && eq && (eq == v || !eq[1])) || !*v)
        return usage_error(d, "%s takes %s, not '%s'", opt, init ? "FIELD=FILE.npy" : "a folder or FIELD=FILE.npy",
                           diag_name(v));
    for (int k = 0; k < *n; k++) {
        const char *e = strchr(list[k], '=');
        if (eq && e && (size_t)(e - list[k]) == (size_t)(eq - v) && !strncmp(list[k], v, (size_t)(eq - v)))
            return usage_error(d, "%s names field '%.*s' twice", opt, (int)(eq - v), v);
        if (!eq && !e)
            return usage_error(d, "%s names a folder twice ('%s' and '%s')", opt, diag_name(list[k]), diag_name(v));
    }
    if (*n == OPT_MAX_FILES)
        return usage_error(d, "%s given more than %d times", opt, OPT_MAX_FILES);
    list[(*n)++] = v;
    return 0;
}

/* `stencilc comp x.st` or `stencilc frobnicate`: a first word that names no file and has neither
 * a '.' nor a '/' (as a stencil file's name has) is a command, misspelt or unknown, and is named
 * as such instead of "cannot read". Reports and returns 1 when it is one. */
static int unknown_command(const char *w, Diag *d)
{
    static const char *const commands[] = {"check", "bench", "replay", "model"};
    if (w[0] == '-' || strchr(w, '.') || strchr(w, '/') || access(w, F_OK) == 0)
        return 0;
    const char *near = text_nearest(w, commands, 4, 2);
    if (near)
        usage_error(d, "unknown command '%s'; did you mean '%s'?", diag_name(w), near);
    else
        usage_error(d, "unknown command '%s' (the commands are check, bench, replay and model; to compile, "
                    "give the file alone: stencilc FILE.st)", diag_name(w));
    return 1;
}

/* Every option, and whether it takes a value (`--opt value` or `--opt=value`). */
static const struct {
    const char *name;
    int takes_value;
} option_table[] = {
    {"-o", 1}, {"--output", 1}, {"--stencil", 1}, {"--type", 1}, {"--grid", 1}, {"--steps", 1},
    {"--config", 1}, {"--name", 1}, {"--header", 1}, {"--init", 1}, {"--save", 1}, {"--list-space", 0},
    {"--dump-ast", 0}, {"--dump-ir", 0}, {"--validate", 0}, {"--fast-math", 0}, {"--same-bits", 0},
    {"--distributed", 0},
    {"--procs", 1}, {"--depth", 1}, {"--link", 1}, {"--autotune", 0}, {"--budget", 1}, {"--strategy", 1}, {"--gest", 1},
    {"--seed", 1}, {"--seeds", 1}, {"--tune-log", 1}, {"--tune-db", 1}, {"--tune-record", 1},
    {"--target", 1}, {"--model", 1}, {"--guide", 0}, {"--replay", 1}, {"-q", 0}, {"--quiet", 0},
    {"-h", 0}, {"--help", 0}, {"--version", 0},
};
enum { NOPTIONS = sizeof option_table / sizeof option_table[0] };

/* The option's row, or -1. */
static int option_find(const char *name)
{
    for (int k = 0; k < NOPTIONS; k++)
        if (!strcmp(option_table[k].name, name))
            return k;
    return -1;
}

/* An option nobody has: named, with the nearest real one when it is close. Returns 2. */
static int unknown_option(Diag *d, const char *name)
{
    const char *names[NOPTIONS];
    for (int k = 0; k < NOPTIONS; k++)
        names[k] = option_table[k].name;
    const char *near = strlen(name) > 2 ? text_nearest(name, names, NOPTIONS, 2) : NULL;
    if (near)
        return usage_error(d, "unknown option '%s'; did you mean '%s'?", diag_name(name), near);
    return usage_error(d, "unknown option '%s'", diag_name(name));
}

/* Splits argv[*i] into the option's name (into buf) and its value: the text after '=' in
 * `--opt=value`, else the next argument (consumed) for an option that takes one. Returns 0, or
 * 2 after a usage error; *name is NULL for an argument that is no option (the input file). */
static int option_split(int argc, char **argv, int *i, char *buf, size_t len, const char **name,
                        const char **value, const char **given, int *ngiven, Diag *d)
{
    const char *a = argv[*i];
    *name = NULL, *value = NULL;
    if (a[0] != '-' || !a[1])
        return 0;
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), a);
    int k = option_find(buf);
    if (k < 0)
        return unknown_option(d, buf);
    *name = option_table[k].name;
    if (!option_table[k].takes_value) {
        if (eq)
            return usage_error(d, "option '%s' takes no value (given '%s')", *name, diag_name(eq + 1));
        return 0;
    }
    if (eq)
        *value = eq + 1;
    else if (*i + 1 < argc)
        *value = argv[++*i];
    else
        return usage_error(d, "option '%s' needs a value", *name);
    /* -o and --output are one option */
    const char *same = !strcmp(*name, "--output") ? "-o" : *name;
    int repeatable = !strcmp(same, "--init") || !strcmp(same, "--save");
    if (!repeatable && given_before(given, ngiven, same))
        return usage_error(d, "'%s' given twice; give it once", *name);
    return 0;
}

/* The option a with its value next (NULL for a flag), by group: each returns 1 when a is one of
 * its options and was taken, 0 when a is not one of them, 2 after a usage error. */
static int compile_option(const char *a, const char *next, Options *o, Diag *d)
{
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        o->output = next;
    } else if (!strcmp(a, "--stencil")) {
        o->stencil = next;
    } else if (!strcmp(a, "--type")) {
        if (!strcmp(next, "float"))
            o->type = 0;
        else if (!strcmp(next, "double"))
            o->type = 1;
        else
            return usage_error(d, "--type takes float or double, not '%s'", diag_name(next));
    } else if (!strcmp(a, "--grid")) {
        if (parse_grid(next, o) != 0)
            return usage_error(d, "--grid takes sizes like 512x512x512, not '%s'", diag_name(next));
    } else if (!strcmp(a, "--steps")) {
        if (parse_long(next, 1, 1L << 30, &o->steps) != 0)
            return usage_error(d, "--steps takes a positive count, not '%s'", diag_name(next));
    } else if (!strcmp(a, "--config")) {
        o->config = next;
    } else if (!strcmp(a, "--name")) {
        if (!c_prefix_ok(next))
            return usage_error(d, "--name takes a C identifier (letters, digits and '_', not first a "
                               "digit, at most 64), not '%s'", diag_name(next));
        o->name = next;
    } else if (!strcmp(a, "--header")) {
        o->header = next;
    } else if (!strcmp(a, "--init") || !strcmp(a, "--save")) {
        if (check_file_option(o, a, next, d) != 0)
            return 2;
    } else {
        return 0;
    }
    return 1;
}

static int flag_option(const char *a, Options *o)
{
    static const struct { const char *name; size_t at; } flags[] = {
        {"--list-space", offsetof(Options, list_space)}, {"--dump-ast", offsetof(Options, dump_ast)},
        {"--dump-ir", offsetof(Options, dump_ir)},       {"--validate", offsetof(Options, validate)},
        {"--fast-math", offsetof(Options, fast_math)},   {"--same-bits", offsetof(Options, same_bits)},
        {"--distributed", offsetof(Options, distributed)}, {"--autotune", offsetof(Options, autotune)},
        {"--guide", offsetof(Options, guide)},           {"-q", offsetof(Options, quiet)},
        {"--quiet", offsetof(Options, quiet)},
    };
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
        if (!strcmp(a, flags[k].name)) {
            *(int *)((char *)o + flags[k].at) = 1;
            return 1;
        }
    }
    return 0;
}

static int distributed_option(const char *a, const char *next, Options *o, Diag *d)
{
    if (!strcmp(a, "--procs")) {
        if ((o->nprocs = parse_sizes(next, 1L << 20, o->procs)) < 0)
            return usage_error(d, "--procs takes a process grid like 1x1x4, not '%s'", diag_name(next));
    } else if (!strcmp(a, "--depth")) {
        if (parse_long(next, 1, 1024, &o->depth) != 0)
            return usage_error(d, "--depth takes steps between exchanges, 1 to 1024, not '%s'", diag_name(next));
    } else if (!strcmp(a, "--link")) {
        double gbs;
        char name[32];
        if (cg_dist_parse_link(next, &gbs, name, sizeof name) != 0)
            return usage_error(d, "--link takes nvlink or a bandwidth in GB/s (0.1 to 100000), not '%s'",
                               diag_name(next));
        o->link = next;
    } else {
        return 0;
    }
    return 1;
}

static int tune_option(const char *a, const char *next, Options *o, Diag *d)
{
    long v;
    if (!strcmp(a, "--budget")) {
        if (parse_budget(next, o) != 0)
            return usage_error(d, "--budget takes a time ('60s', '2m') or a count ('200'), not '%s'", diag_name(next));
    } else if (!strcmp(a, "--strategy")) {
        if (!known_strategy(next))
            return usage_error(d, "--strategy takes gest, random, genetic or exhaustive, not '%s'",
                               diag_name(next));
        o->strategy = next;
    } else if (!strcmp(a, "--gest")) {
        TuneKnobs k;
        char err[256];
        tune_knobs_default(&k);
        if (tune_knobs_parse(&k, next, err, sizeof err) != 0)
            return usage_error(d, "--gest: %s", err);
        o->gest = next;
    } else if (!strcmp(a, "--seed")) {
        if (parse_long(next, 0, 0x7fffffff, &v) != 0)
            return usage_error(d, "--seed takes a number, not '%s'", diag_name(next));
        o->seed = (unsigned)v;
    } else if (!strcmp(a, "--seeds")) {
        if (parse_long(next, 1, 1000, &v) != 0)
            return usage_error(d, "--seeds takes a count from 1 to 1000, not '%s'", diag_name(next));
        o->seeds = (int)v;
    } else if (!strcmp(a, "--tune-log")) {
        o->tune_log = next;
    } else if (!strcmp(a, "--tune-db")) {
        o->tune_db = next;
    } else if (!strcmp(a, "--tune-record")) { /* hidden: for recording replay data */
        o->tune_record = next;
        o->autotune = 1;
    } else if (!strcmp(a, "--target")) {
        o->target = next;
    } else if (!strcmp(a, "--model")) {
        o->model = next;
    } else if (!strcmp(a, "--replay")) {
        o->replay = next;
    } else {
        return 0;
    }
    return 1;
}

/* The command word (check, bench, replay), if any: the index of the first option, or -1 after
 * an unknown command. */
static int command_word(int argc, char **argv, Options *o, Diag *d)
{
    if (argc <= 1)
        return 1;
    if (!strcmp(argv[1], "check"))
        o->cmd = CMD_CHECK;
    else if (!strcmp(argv[1], "bench"))
        o->cmd = CMD_BENCH;
    else if (!strcmp(argv[1], "replay"))
        o->cmd = CMD_REPLAY;
    else if (unknown_command(argv[1], d))
        return -1;
    else
        return 1;
    return 2;
}

int options_parse(int argc, char **argv, Options *o, Diag *d)
{
    memset(o, 0, sizeof *o);
    o->type = -1;
    o->seed = 1;
    o->seeds = 10;
    int i = command_word(argc, argv, o, d);
    if (i < 0)
        return 2;
    const char *given[64]; /* the options with a value seen so far */
    int ngiven = 0;
    for (; i < argc; i++) {
        char namebuf[64];
        const char *a, *next;
        if (option_split(argc, argv, &i, namebuf, sizeof namebuf, &a, &next, given, &ngiven, d) != 0)
            return 2;
        if (!a) { /* the input */
            if (o->input)
                return usage_error(d, "more than one input file ('%s')", diag_name(argv[i]));
            o->input = argv[i];
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            fputs(usage_text_rest, stdout);
            return 1;
        }
        if (!strcmp(a, "--version")) {
            puts(options_generator_name());
            return 1;
        }
        int r = compile_option(a, next, o, d);
        if (!r)
            r = flag_option(a, o);
        if (!r)
            r = distributed_option(a, next, o, d);
        if (!r)
            r = tune_option(a, next, o, d);
        if (r == 2)
            return 2;
    }
    if (!o->input)
        return usage_error(d, "%s", "no input file");
    return options_check_conflicts(o, d);
}
