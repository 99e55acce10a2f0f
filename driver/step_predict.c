/* --autotune --target GPU: the configuration the learned model predicts fastest for GPU (a name
 * of tuner/occupancy.c's table, or an architecture such as sm_90), with nothing
 * measured, so that a build machine without a GPU, or one with another GPU, emits a tuned guess
 * for the GPU the code will run on. The model ranks candidates (tuner/guide_rank.c: the priors
 * table's rows, the configurations that won on the programs it learned from, the plain kernel),
 * the limits of the target prune what cannot run there, and where NVRTC is at hand the first
 * candidates are compiled for the target's architecture: the first whose real registers keep it
 * launchable is emitted. The header says it was predicted, for which GPU, by a
 * model trained on which GPUs' measurements, and that nothing was timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/rt.h"
#include "../tuner/features_kernel.h"
#include "../tuner/guide.h"
#include "steps.h"

#define PREDICT_CANDIDATES 8 /* compiled in turn until one fits the target */

/* Whether c compiles for g's architecture and, with its real registers, is not hopeless there.
 * 1 yes, 0 no (why), -1 when it could not be checked (no NVRTC). */
static int fits_target(RtContext *rc, const Job *job, const OccGpu *g, const Config *c, char *why, int whylen)
{
    if (!rc)
        return -1;
    Arena *arena = arena_new();
    int ok = 0;
    Plan *plan = plan_build(job->prog, c, arena, why, whylen);
    FeatKernel k;
    if (plan && feat_kernel_compile(rc, plan, &k, why, whylen) == 0) {
        int threads, smem;
        double blocks;
        feat_launch_shape(plan, job->space.n, &threads, &smem, &blocks);
        ok = !occ_hopeless(g, threads, k.regs, smem + k.smem_static, blocks, why, whylen);
    }
    arena_free(arena);
    return ok;
}

/* "trained on its measurements" or "trained on X's measurements, not this GPU's". */
static void provenance(const Model *m, const OccGpu *g, char *buf, int len)
{
    const char *gpus = model_gpus(m);
    char list[512];
    snprintf(list, sizeof list, "%s", gpus);
    int own = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        own |= occ_gpu_find(tok) == g;
    if (own)
        snprintf(buf, (size_t)len, "model trained on measurements of this GPU (%.200s)", gpus);
    else
        snprintf(buf, (size_t)len, "model trained on measurements of %.200s, none of a %s", gpus[0] ? gpus : "no GPU",
                 g->name);
}

int step_predict(Job *job)
{
    const Options *o = job->opt;
    const OccGpu *g = occ_gpu_find(o->target);
    if (!g) {
        char known[512] = "";
        for (const OccGpu *r = occ_gpus; r->name; r++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s", r == occ_gpus ? "" : ", ", r->name);
        }
        diag_run_error(&job->diag, "--target: '%s' is not a GPU the model knows (%s)", diag_name(o->target), known);
        return STEP_USAGE;
    }
    const char *path = o->model ? o->model : model_default_path();
    char err[1200], why[512];
    Model *m = model_load(path, err, sizeof err);
    if (!m) {
        diag_run_error(&job->diag, "--target needs the learned model: %s", err);
        return -1;
    }
    TuneGuide *guide = tune_guide_new(m, g, 1);
    TuneProblem pb = {&job->space, tune_space_valid, &job->space};
    TuneGuideCandidate cand[PREDICT_CANDIDATES];
    TuneGuideRankOptions ro;
    tune_guide_rank_defaults(&ro);
    ro.seed = o->seed;
    ro.fused_first = 1;
    int n = tune_guide_rank(guide, &pb, &ro, cand, PREDICT_CANDIDATES);
    int rc = -1;
    if (n == 0) {
        diag_run_error(&job->diag, "--target: no configuration of '%s' is valid and launchable on %s",
                job->prog->name, g->name);
        goto out;
    }
    RtContext *nvrtc = rt_context_compile_only(g->cc / 10, g->cc % 10, why, sizeof why);
    int pick = 0, checked = nvrtc != NULL;
    if (!nvrtc && !o->quiet)
        diag_run_info(&job->diag, "note: --target: NVRTC not found (%s); the prediction is not compiled for sm_%d to check its registers", why, g->cc);
    for (pick = 0; nvrtc && pick < n; pick++) {
        char cfg[512];
        int fits = fits_target(nvrtc, job, g, &cand[pick].config, why, sizeof why);
        if (fits != 0)
            break;
        config_format(&cand[pick].config, cfg, sizeof cfg);
        if (!o->quiet)
            diag_run_info(&job->diag, "--target: %s passed over: %s", cfg, why);
    }
    rt_context_free(nvrtc);
    if (pick == n) {
        diag_run_error(&job->diag, "--target: none of the model's first %d configurations compiles and fits %s", n, g->name);
        goto out;
    }
    job->config = cand[pick].config;
    char cfg[512], prov[400];
    config_format(&job->config, cfg, sizeof cfg);
    provenance(m, g, prov, sizeof prov);
    const char *by = cand[pick].from_table ? "the priors table's fused steps for this radius (docs/priors.md), "
                                             "ahead of the " : "";
    snprintf(job->config_origin, sizeof job->config_origin,
             "predicted by stencilc --autotune --target %.40s for %s (sm_%d), no GPU used and nothing timed: "
             "%.160s, ranked first of %d candidates by %s%s%.120s%s", o->target, g->name, g->cc, cfg, n, by,
             cand[pick].from_table ? "" : "the ", prov, checked ? "; compiled for the target to check it fits" : "");
    if (!o->quiet)
        diag_run_info(&job->diag, "predicted for %s without timing: %s (%s%s)", g->name, cfg,
                      cand[pick].from_table ? "the priors table's fused steps, " : "", prov);
    rc = 0;
out:
    tune_guide_free(guide);
    model_free(m);
    return rc;
}
