/* What a compiled kernel uses and executes, read from text: ptxas's verbose report (registers,
 * spills, shared memory) and the PTX (the instruction mix). Text only, so it is tested without
 * CUDA; tuner/features_kernel.c gets the text from NVRTC. */
#include "feat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PTX ----------------------------------------------------------------------------------- */

/* The body of `.entry NAME(` (from its '{' to the matching '}'), or of the next entry after
 * *from when name is NULL; NULL when none. *end gets the body's end. */
static const char *entry_body(const char *ptx, const char *name, const char **end)
{
    const char *at = ptx;
    for (;;) {
        at = strstr(at, ".entry ");
        if (!at)
            return NULL;
        const char *id = at + 7;
        while (*id == ' ')
            id++;
        size_t n = strcspn(id, " (\n");
        at = id + n;
        if (!name || (strlen(name) == n && !strncmp(id, name, n)))
            break;
    }
    const char *open = strchr(at, '{');
    if (!open)
        return NULL;
    int depth = 0;
    for (const char *p = open; *p; p++) {
        if (*p == '{')
            depth++;
        else if (*p == '}' && --depth == 0) {
            *end = p;
            return open + 1;
        }
    }
    return NULL;
}

static int starts(const char *op, const char *prefix) { return !strncmp(op, prefix, strlen(prefix)); }

static int has(const char *op, const char *part) { return strstr(op, part) != NULL; }

/* A floating-point type suffix (.f32, .f64, .f16) on the opcode. */
static int floating(const char *op) { return has(op, ".f32") || has(op, ".f64") || has(op, ".f16"); }

static void count_op(const char *op, FeatKernel *k)
{
    k->instr++;
    int vector = has(op, ".v2") || has(op, ".v4");
    if (starts(op, "ld.global") || starts(op, "ldu.global"))
        k->ld_global++, k->vector_mem += vector;
    else if (starts(op, "st.global"))
        k->st_global++, k->vector_mem += vector;
    else if (starts(op, "ld.shared"))
        k->ld_shared++, k->vector_mem += vector;
    else if (starts(op, "st.shared"))
        k->st_shared++, k->vector_mem += vector;
    else if (starts(op, "ld.const"))
        k->ld_const++;
    else if (starts(op, "shfl"))
        k->shfl++;
    else if (starts(op, "bra") || starts(op, "brx"))
        k->branch++;
    else if ((starts(op, "fma") || starts(op, "mad")) && floating(op))
        k->fma++;
    else if (floating(op) && !starts(op, "cvt") && !starts(op, "mov") && !starts(op, "setp")
             && !starts(op, "selp") && !starts(op, "ld") && !starts(op, "st"))
        k->farith++;
    else if (starts(op, "add") || starts(op, "sub") || starts(op, "mul") || starts(op, "mad")
             || starts(op, "shl") || starts(op, "shr") || starts(op, "and") || starts(op, "or")
             || starts(op, "xor") || starts(op, "div") || starts(op, "rem") || starts(op, "min")
             || starts(op, "max") || starts(op, "neg"))
        k->iarith++;
}

int feat_ptx_mix(const char *ptx, const char *name, FeatKernel *k)
{
    const char *end, *body = entry_body(ptx, name, &end);
    if (!body)
        return -1;
    while (body) {
        for (const char *line = body; line < end;) {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            const char *stop = nl ? nl : end;
            while (line < stop && isspace((unsigned char)*line))
                line++;
            if (line < stop && *line == '@') /* a guard predicate: @%p1 bra ... */
                while (line < stop && !isspace((unsigned char)*line))
                    line++;
            while (line < stop && isspace((unsigned char)*line))
                line++;
            char op[64];
            size_t n = strcspn(line, " \t;\n");
            if (n > 0 && n < sizeof op && line + n <= stop && *line != '.' && *line != '/'
                && *line != '{' && *line != '}' && line[n - 1] != ':' && *line != '$') {
                memcpy(op, line, n);
                op[n] = 0;
                if (strcmp(op, "ret") && strcmp(op, "exit"))
                    count_op(op, k);
            }
            line = stop + 1;
        }
        if (name)
            break;
        body = entry_body(end, NULL, &end);
    }
    return 0;
}

/* ---- ptxas's report ------------------------------------------------------------------------ */

/* The number before `unit` on [from, to): "32 registers" -> 32; -1 when absent. */
static int number_before(const char *from, const char *to, const char *unit)
{
    size_t ul = strlen(unit);
    for (const char *p = from; p + ul <= to; p++) {
        if (strncmp(p, unit, ul))
            continue;
        const char *q = p;
        while (q > from && q[-1] == ' ')
            q--;
        const char *digits = q;
        while (digits > from && isdigit((unsigned char)digits[-1]))
            digits--;
        if (digits < q)
            return atoi(digits);
    }
    return -1;
}

static void keep_max(int *slot, int v)
{
    if (v > *slot)
        *slot = v;
}

int feat_ptxas_parse(const char *report, const char *name, FeatKernel *k)
{
    char head[300];
    snprintf(head, sizeof head, "Compiling entry function '%s'", name);
    const char *from = strstr(report, head);
    if (!from)
        return -1;
    from += strlen(head);
    const char *to = strstr(from, "Compiling entry function");
    if (!to)
        to = from + strlen(from);
    keep_max(&k->regs, number_before(from, to, " registers"));
    int stores = number_before(from, to, " bytes spill stores");
    int loads = number_before(from, to, " bytes spill loads");
    keep_max(&k->spill_bytes, (stores > 0 ? stores : 0) + (loads > 0 ? loads : 0));
    keep_max(&k->stack_bytes, number_before(from, to, " bytes stack frame"));
    keep_max(&k->smem_static, number_before(from, to, " bytes smem"));
    keep_max(&k->barriers, number_before(from, to, " barriers"));
    return 0;
}

int feat_kernel_from_text(const Plan *plan, const char *ptx, const char *report, FeatKernel *k)
{
    memset(k, 0, sizeof *k);
    int found = 0, stages = 0;
    for (int i = 0; i < plan->nstep; i++) {
        const PlanLaunch *l = &plan->step[i];
        if (l->fill)
            continue;
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= !strcmp(plan->step[j].kernel, l->kernel);
        if (dup)
            continue;
        stages++;
        found += feat_ptx_mix(ptx, l->kernel, k) == 0 && feat_ptxas_parse(report, l->kernel, k) == 0;
    }
    k->known = stages > 0 && found == stages;
    return k->known ? 0 : -1;
}
