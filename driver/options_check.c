/* Options that contradict each other, or that mean nothing without another, are usage errors
 * that name both: silently ignoring one of them (`check --autotune` tuned nothing, `--list-space
 * -o F` wrote nothing, `--replay` without `--autotune` replayed nothing) hides the mistake. */
#include <stdio.h>
#include <string.h>

#include "options.h"

typedef struct {
    const char *name;
    int on;
} Given;

/* A mode, the options it excludes (space-separated), and why. */
static const struct {
    const char *mode, *excludes, *why;
} conflicts[] = {
    {"check", "--autotune --tune-record -o --list-space --validate --replay --dump-ast --dump-ir "
              "--distributed --name --header --link",
     "check runs the interpreter (and, with a GPU, the kernel) and writes only what --save names"},
    {"bench", "-o --list-space --validate --dump-ast --dump-ir --name --header --init --save --link",
     "bench times the kernel and writes nothing"},
    {"replay", "-o --config --autotune --tune-record --replay --stencil --grid --type --steps --list-space "
               "--dump-ast --dump-ir --validate --tune-db --tune-log --fast-math --same-bits --distributed --name "
               "--header --init --save",
     "replay compares strategies on the recording alone"},
    {"--list-space", "-o --autotune --tune-record --config --validate --dump-ast --dump-ir --distributed --name "
                     "--header",
     "--list-space prints the space and stops"},
    {"--dump-ast", "--dump-ir -o --autotune --tune-record --config --validate", "--dump-ast prints the program and stops"},
    {"--dump-ir", "-o --autotune --tune-record --config --validate", "--dump-ir prints the IR and stops"},
    {"--tune-record", "--replay", "--tune-record measures on the GPU"},
    {"--same-bits", "--fast-math", "--same-bits rounds every operation as IEEE does, in the source's "
                                   "order; --fast-math approximates some of them"},
    {"--target", "--replay --tune-record --guide --budget --strategy --tune-log",
     "--target predicts without measuring"},
};

/* An option, and the options of which it needs one (space-separated). */
static const struct {
    const char *option, *needs;
} needs[] = {
    {"--replay", "--autotune"},
    {"--procs", "--distributed"},
    {"--depth", "--procs"},
    {"--link", "--procs"},
    {"--tune-db", "--autotune --tune-record"},
    {"--tune-log", "--autotune --tune-record"},
    {"--budget", "--autotune --tune-record replay"},
    {"--strategy", "--autotune --tune-record replay"},
    {"--gest", "--autotune --tune-record replay"},
    {"--target", "--autotune"},
    {"--guide", "--autotune"},
    {"--model", "--target --guide"},
    {"--init", "check"},
    {"--save", "check"},
};

static int is_on(const Given *g, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(g[i].name, name))
            return g[i].on;
    return 0;
}

/* The first word of the space-separated list that is on, or NULL (copied into buf). */
static const char *first_on(const Given *g, int n, const char *list, char *buf, size_t len)
{
    while (*list) {
        size_t w = strcspn(list, " ");
        snprintf(buf, len, "%.*s", (int)w, list);
        if (is_on(g, n, buf))
            return buf;
        list += w + (list[w] == ' ');
    }
    return NULL;
}

int options_check_conflicts(const Options *o, Diag *d)
{
    const Given g[] = {
        {"check", o->cmd == CMD_CHECK}, {"bench", o->cmd == CMD_BENCH}, {"replay", o->cmd == CMD_REPLAY},
        {"-o", o->output != NULL}, {"--config", o->config != NULL}, {"--stencil", o->stencil != NULL},
        {"--grid", o->ngrid > 0}, {"--type", o->type >= 0}, {"--steps", o->steps > 0},
        {"--autotune", o->autotune && !o->tune_record}, {"--tune-record", o->tune_record != NULL},
        {"--list-space", o->list_space}, {"--dump-ast", o->dump_ast}, {"--dump-ir", o->dump_ir},
        {"--validate", o->validate}, {"--fast-math", o->fast_math}, {"--same-bits", o->same_bits},
        {"--replay", o->replay != NULL},
        {"--budget", o->budget_s > 0 || o->budget_count > 0}, {"--strategy", o->strategy != NULL},
        {"--gest", o->gest != NULL}, {"--tune-log", o->tune_log != NULL}, {"--tune-db", o->tune_db != NULL},
        {"--distributed", o->distributed}, {"--procs", o->nprocs > 0}, {"--depth", o->depth > 0},
        {"--link", o->link != NULL},
        {"--target", o->target != NULL}, {"--model", o->model != NULL}, {"--guide", o->guide},
        {"--name", o->name != NULL}, {"--header", o->header != NULL}, {"--init", o->ninit > 0},
        {"--save", o->nsave > 0},
    };
    int n = (int)(sizeof g / sizeof g[0]);
    char other[32];
    for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++)
        if (is_on(g, n, conflicts[i].mode) && first_on(g, n, conflicts[i].excludes, other, sizeof other)) {
            diag_run_error(d, "'%s' and '%s' conflict: %s\n(see stencilc --help)", conflicts[i].mode, other,
                           conflicts[i].why);
            return 2;
        }
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (is_on(g, n, needs[i].option) && !first_on(g, n, needs[i].needs, other, sizeof other)) {
            char list[128] = "", word[32]; /* "'a' or 'b'" */
            for (const char *l = needs[i].needs; *l; l += strlen(word), l += *l == ' ') {
                snprintf(word, sizeof word, "%.*s", (int)strcspn(l, " "), l);
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s'%s'", used ? " or " : "", word);
            }
            diag_run_error(d, "'%s' needs %s: without it, it would be ignored\n(see stencilc --help)",
                           needs[i].option, list);
            return 2;
        }
    return 0;
}
