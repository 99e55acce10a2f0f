/* --tune-record: the measurements of a search on the GPU, written in the format replay.c reads
 * (tune.h, replay_load): a header naming the program, grid, type, GPU, CUDA, generator and date,
 * then one line per configuration with its time or why it failed, and what measuring it cost,
 * so that a replay charges each evaluation what it cost here. */
#include <stdio.h>

#include "policy_int.h"

static void write_header(const Tuning *t, GpuEval *g, FILE *f)
{
    const IrProgram *p = t->rq->prog;
    char day[16], cuda[32];
    tune_today(day, sizeof day);
    gpu_eval_cuda_version(g, cuda, sizeof cuda);
    fprintf(f, "#stencilc-replay\tprogram=%s\tgrid=", p->name);
    for (int d = 0; d < p->dims; d++)
        fprintf(f, "%s%ld", d ? "x" : "", t->rq->grid[d]);
    fprintf(f, "\ttype=%s\tgpu=%s\tcuda=%s\tgenerator=%s\tdate=%s\n", tune_elem_name(p),
            gpu_eval_device(g)->name, cuda, t->rq->generator, day);
    fprintf(f, "# stencilc --tune-record (%s): CONFIG<TAB>ms per step, or fail<TAB>reason; "
               "cost = compile s / compile threads + GPU s\n", t->strategy);
}

static void record_batch(void *ctx, const Config *cs, int n, int *ok, double *ms, char (*why)[160])
{
    TuneRecorder *r = ctx;
    r->inner.evaluate_batch(r->inner.ctx, cs, n, ok, ms, why);
    const GpuEvalResult *res;
    int got = gpu_eval_last(r->g, &res);
    for (int i = 0; i < n && i < got; i++) {
        char cfg[512];
        config_format(&cs[i], cfg, sizeof cfg);
        if (res[i].ok)
            fprintf(r->out, "%s\t%.6g\tcost=%.3f\n", cfg, res[i].ms, res[i].cost_s);
        else
            fprintf(r->out, "%s\tfail\t%s\tcost=%.3f\n", cfg, res[i].why[0] ? res[i].why : "failed",
                    res[i].cost_s);
    }
    fflush(r->out);
}

static int record_one(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    int ok;
    char w[1][160];
    record_batch(ctx, c, 1, &ok, ms, w);
    snprintf(why, (size_t)whylen, "%s", w[0]);
    return ok ? 0 : -1;
}

int tune_record_open(Tuning *t, GpuEval *g, TuneRecorder *r, TuneEvaluator *ev)
{
    r->g = g;
    r->inner = *ev;
    r->out = fopen(t->rq->record, "w");
    if (!r->out) {
        diag_run_error(t->d, "--tune-record: cannot write '%s'", t->rq->record);
        return -1;
    }
    write_header(t, g, r->out);
    ev->ctx = r;
    ev->evaluate = record_one;
    ev->evaluate_batch = record_batch;
    ev->set_deadline = NULL; /* a recording measures every batch to the end */
    return 0;
}

void tune_record_close(TuneRecorder *r)
{
    if (r->out)
        fclose(r->out);
    r->out = NULL;
}
