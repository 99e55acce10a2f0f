/* Replay of recorded measurements: a strategy runs against a file of (config, time) instead of
 * a GPU, on a simulated clock that charges each evaluation what it cost when it was recorded,
 * so strategies can be compared at equal tuning time, deterministically. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"

#define REPLAY_DEFAULT_COST 0.5
#define REPLAY_MAX_HEADER 16

typedef struct {
    Config config;
    int ok;
    double ms, cost_s;
    char *why;
} Record;

struct Replay {
    char *hkey[REPLAY_MAX_HEADER], *hval[REPLAY_MAX_HEADER];
    int nheader, dims;
    Record *rec;
    long n, cap;
    long *slot; /* open addressing over rec indices, -1 empty */
    long nslot;
};

static long find(const Replay *rp, const Config *c)
{
    if (!rp->nslot)
        return -1;
    long i = (long)(tune_config_hash(c) & (unsigned long long)(rp->nslot - 1));
    for (; rp->slot[i] >= 0; i = (i + 1) & (rp->nslot - 1))
        if (tune_config_equal(&rp->rec[rp->slot[i]].config, c))
            return rp->slot[i];
    return -1;
}

static void index_all(Replay *rp)
{
    rp->nslot = 16;
    while (rp->nslot < rp->n * 2)
        rp->nslot *= 2;
    rp->slot = malloc(sizeof *rp->slot * (size_t)rp->nslot);
    for (long i = 0; i < rp->nslot; i++)
        rp->slot[i] = -1;
    for (long r = 0; r < rp->n; r++) {
        long i = (long)(tune_config_hash(&rp->rec[r].config) & (unsigned long long)(rp->nslot - 1));
        while (rp->slot[i] >= 0)
            i = (i + 1) & (rp->nslot - 1);
        rp->slot[i] = r;
    }
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(malloc(n), s, n);
}

static int parse_header(Replay *rp, char *line)
{
    char *save = NULL;
    char *tok = strtok_r(line, "\t", &save); /* '#stencilc-replay' */
    (void)tok;
    while ((tok = strtok_r(NULL, "\t", &save)) && rp->nheader < REPLAY_MAX_HEADER) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        rp->hkey[rp->nheader] = dup_str(tok);
        rp->hval[rp->nheader++] = dup_str(eq + 1);
    }
    const char *grid = replay_header(rp, "grid");
    if (!grid)
        return -1;
    rp->dims = 1;
    for (const char *p = grid; *p; p++)
        rp->dims += *p == 'x';
    return rp->dims <= 3 ? 0 : -1;
}

/* One record line; 0, or -1 with a message. */
static int parse_record(Replay *rp, char *line, char *msg, int msglen)
{
    char *fields[8];
    int nf = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, "\t", &save); t && nf < 8; t = strtok_r(NULL, "\t", &save))
        fields[nf++] = t;
    if (nf < 2) {
        snprintf(msg, (size_t)msglen, "expected CONFIG<TAB>MS or CONFIG<TAB>fail<TAB>REASON");
        return -1;
    }
    Record r = {.cost_s = REPLAY_DEFAULT_COST};
    char err[160];
    if (config_parse(fields[0], rp->dims, &r.config, err, sizeof err) != 0) {
        snprintf(msg, (size_t)msglen, "bad config '%s': %s", fields[0], err);
        return -1;
    }
    int next = 2;
    if (!strcmp(fields[1], "fail")) {
        r.why = dup_str(nf > 2 && strncmp(fields[2], "cost=", 5) ? fields[2] : "failed");
        next = nf > 2 && strncmp(fields[2], "cost=", 5) ? 3 : 2;
    } else {
        char *end;
        r.ms = strtod(fields[1], &end);
        if (end == fields[1] || *end || !(r.ms >= 0) || !isfinite(r.ms)) {
            snprintf(msg, (size_t)msglen, "bad time '%s' (milliseconds, or 'fail')", fields[1]);
            return -1;
        }
        r.ok = 1;
    }
    for (int i = next; i < nf; i++)
        if (!strncmp(fields[i], "cost=", 5)) {
            char *end;
            r.cost_s = strtod(fields[i] + 5, &end);
            if (end == fields[i] + 5 || !(r.cost_s >= 0)) {
                snprintf(msg, (size_t)msglen, "bad cost '%s' (seconds)", fields[i] + 5);
                free(r.why);
                return -1;
            }
        }
    if (rp->n == rp->cap) {
        rp->cap = rp->cap ? rp->cap * 2 : 256;
        rp->rec = realloc(rp->rec, sizeof *rp->rec * (size_t)rp->cap);
    }
    rp->rec[rp->n++] = r;
    return 0;
}

Replay *replay_load(const char *path, char *err, int errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, (size_t)errlen, "%s: cannot open", path);
        return NULL;
    }
    Replay *rp = calloc(1, sizeof *rp);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int have_header = 0;
    char msg[400];
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!have_header) {
            if (strncmp(line, "#stencilc-replay", 16) != 0 || parse_header(rp, line) != 0) {
                snprintf(err, (size_t)errlen, "%s:%ld: expected a header '#stencilc-replay"
                         "<TAB>program=...<TAB>grid=NxNxN<TAB>gpu=...'", path, lineno);
                goto fail;
            }
            have_header = 1;
            continue;
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (parse_record(rp, line, msg, sizeof msg) != 0) {
            snprintf(err, (size_t)errlen, "%s:%ld: %s", path, lineno, msg);
            goto fail;
        }
    }
    if (!have_header) {
        snprintf(err, (size_t)errlen, "%s: empty replay file", path);
        goto fail;
    }
    free(line);
    fclose(f);
    index_all(rp); /* in file order: a config recorded twice answers with its first line */
    return rp;
fail:
    free(line);
    fclose(f);
    replay_free(rp);
    return NULL;
}

void replay_free(Replay *rp)
{
    if (!rp)
        return;
    for (int i = 0; i < rp->nheader; i++) {
        free(rp->hkey[i]);
        free(rp->hval[i]);
    }
    for (long i = 0; i < rp->n; i++)
        free(rp->rec[i].why);
    free(rp->rec);
    free(rp->slot);
    free(rp);
}

const char *replay_header(const Replay *rp, const char *key)
{
    for (int i = 0; i < rp->nheader; i++)
        if (!strcmp(rp->hkey[i], key))
            return rp->hval[i];
    return NULL;
}

int replay_dims(const Replay *rp)
{
    return rp->dims;
}

int replay_count(const Replay *rp)
{
    return (int)rp->n;
}

double replay_best_ms(const Replay *rp, Config *best)
{
    double b = -1;
    for (long i = 0; i < rp->n; i++)
        if (rp->rec[i].ok && (b < 0 || rp->rec[i].ms < b)) {
            b = rp->rec[i].ms;
            if (best)
                *best = rp->rec[i].config;
        }
    return b;
}

static void insert_sorted(SpaceParam *sp, int v)
{
    int i = 0;
    while (i < sp->nvalues && sp->values[i] < v)
        i++;
    if (i < sp->nvalues && sp->values[i] == v)
        return;
    if (sp->nvalues == SPACE_MAX_VALUES)
        return;
    memmove(&sp->values[i + 1], &sp->values[i], sizeof(int) * (size_t)(sp->nvalues - i));
    sp->values[i] = v;
    sp->nvalues++;
}

void replay_space(const Replay *rp, Space *s)
{
    memset(s, 0, sizeof *s);
    s->dims = rp->dims;
    for (int d = 0; d < 3; d++)
        s->n[d] = 1;
    const char *grid = replay_header(rp, "grid");
    for (int d = 0; grid && d < 3; d++) {
        s->n[d] = strtol(grid, (char **)&grid, 10);
        if (*grid != 'x')
            break;
        grid++;
    }
    for (int p = 0; p < P_COUNT; p++) {
        s->params[p].id = (ParamId)p;
        for (long i = 0; i < rp->n; i++)
            insert_sorted(&s->params[p], rp->rec[i].config.v[p]);
        if (s->params[p].nvalues == 0)
            s->params[p].values[s->params[p].nvalues++] = 1;
    }
}

int replay_valid(void *ctx, const Config *c, char *why, int whylen)
{
    if (find(ctx, c) >= 0)
        return 1;
    snprintf(why, (size_t)whylen, "not recorded");
    return 0;
}

void replay_run_init(ReplayRun *r, const Replay *rp)
{
    r->rp = rp;
    r->now_s = 0;
}

static int replay_evaluate(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    ReplayRun *r = ctx;
    long i = find(r->rp, c);
    if (i < 0) {
        r->now_s += REPLAY_DEFAULT_COST;
        snprintf(why, (size_t)whylen, "not recorded");
        return 1;
    }
    const Record *rec = &r->rp->rec[i];
    r->now_s += rec->cost_s;
    if (!rec->ok) {
        snprintf(why, (size_t)whylen, "%s", rec->why);
        return 1;
    }
    *ms = rec->ms;
    return 0;
}

static double replay_clock(void *ctx)
{
    return ((ReplayRun *)ctx)->now_s;
}

void replay_evaluator(ReplayRun *r, TuneEvaluator *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->evaluate = replay_evaluate;
    ev->ctx = r;
    ev->clock = replay_clock;
    ev->clock_ctx = r;
}

void replay_tune(const Replay *rp, const TuneProblem *pb, TuneStrategy *st, const TuneRunOptions *ro,
                 TuneHistory *h, TuneResult *res)
{
    ReplayRun rr;
    TuneEvaluator ev;
    replay_run_init(&rr, rp);
    replay_evaluator(&rr, &ev);
    tune_history_init(h);
    tune_run(pb, st, &ev, h, ro, res);
}
