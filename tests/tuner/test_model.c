/* The learned model (tuner/model*.c) on synthetic data whose times follow known features: it
 * ranks held-out variants in their order, leave-one-program-out picks the fastest, the file
 * round-trips to the same scores and exemplars, a model naming a feature this build lacks still
 * loads, and damaged files are refused with their line. With two GPUs whose fastest blocks
 * differ, a model trained on one GPU's data (ModelParams.gpu) ranks for that GPU only, and one
 * trained on both tells them apart by the GPU's features. No GPU, no program. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fake_space.h"
#include "model.h"

/* Variant k of program p: time = base(p) * 2^(|tbx - best| / 2 + 0.3 * smem) with best at
 * log2 tbx = 5 + p % 3, plus noise; the program's radius tells where its best lies. Variants
 * with tby = 8 and smem fail. */
static void make_gpu_data(ModelData *d, int programs, int per_program, unsigned seed, const char *gpu,
                          double mem_gbs, int shift)
{
    srand(seed);
    for (int p = 0; p < programs; p++) {
        char name[32];
        snprintf(name, sizeof name, "prog%d", p);
        int g = model_data_group(d, name, gpu);
        for (int k = 0; k < per_program; k++) {
            double f[FEAT_COUNT] = {0};
            f[FEAT_p_dims] = 3;
            f[FEAT_p_radius] = p % 3;
            f[FEAT_c_tbx] = 3 + rand() % 8;
            f[FEAT_c_smem] = rand() % 2;
            f[FEAT_c_tby] = rand() % 4; /* irrelevant */
            f[FEAT_g_mem_gbs] = mem_gbs;
            double best_tbx = 5 + p % 3 + shift;
            double ms = (1 + p) * exp2(fabs(f[FEAT_c_tbx] - best_tbx) / 2 + 0.3 * f[FEAT_c_smem])
                        * (1 + 0.01 * (rand() % 100) / 100.0);
            char cfg[64];
            snprintf(cfg, sizeof cfg, "tb=%dx%dx1%s", 1 << (int)f[FEAT_c_tbx], 1 << (int)f[FEAT_c_tby],
                     f[FEAT_c_smem] ? ",smem=on" : "");
            int failed = f[FEAT_c_tby] == 3 && f[FEAT_c_smem] == 1; /* "does not compile" */
            model_data_add(d, g, !failed, failed ? -1 : ms, 0, cfg, f);
        }
    }
    model_data_finish(d);
}

/* The H100's data: the best tbx is 5 + radius (see above). */
static void make_data(ModelData *d, int programs, int per_program, unsigned seed)
{
    make_gpu_data(d, programs, per_program, seed, "NVIDIA H100 80GB HBM3", 3350, 0);
}

static double score_of(const Model *m, int radius, int tbx, int smem)
{
    double f[FEAT_COUNT] = {0};
    f[FEAT_p_dims] = 3;
    f[FEAT_p_radius] = radius;
    f[FEAT_c_tbx] = tbx;
    f[FEAT_c_smem] = smem;
    return model_score(m, f);
}

static void test_learns(void)
{
    ModelData d;
    model_data_init(&d);
    make_data(&d, 9, 300, 7);
    ModelParams p;
    model_params_default(&p);
    p.trees = 60;
    p.clip = 2;
    Model *m = model_train(&d, NULL, &p);
    CHECK(m);
    /* the best tb for radius r is 5 + r, and smem costs */
    for (int r = 0; r < 3; r++) {
        CHECK(score_of(m, r, 5 + r, 0) < score_of(m, r, 5 + r, 1));
        CHECK(score_of(m, r, 5 + r, 0) < score_of(m, r, 5 + r + 3, 0));
        CHECK(score_of(m, r, 5 + r, 0) < score_of(m, r, 3, 0) || r == 0);
        CHECK(model_slowdown(m, score_of(m, r, 5 + r, 0)) < 1.2);
    }
    /* leave one program out: each program's pick is within 15% of its best (its radius was seen
     * in the other programs of the same radius) */
    ModelLooRow rows[16];
    p.trees = 40;
    int n = model_loo(&d, &p, -1, rows, NULL);
    CHECK(n == 9);
    for (int i = 0; i < n; i++)
        CHECK(rows[i].pick_ms > 0 && rows[i].pick_ms <= 1.15 * rows[i].best_ms);
    FILE *sink = fopen("/dev/null", "w");
    model_loo_print(sink, rows, n);
    fclose(sink);

    /* the file: same scores, same exemplars, the info lines */
    model_set_info(m, "NVIDIA H100 80GB HBM3", "a test");
    char path[] = "/tmp/stc_test_model_XXXXXX", err[512];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(model_save(m, path, err, sizeof err) == 0);
    Model *back = model_load(path, err, sizeof err);
    CHECK(back);
    for (int r = 0; r < 3; r++)
        for (int t = 3; t < 11; t++)
            CHECK(fabsf((float)score_of(back, r, t, 1) - (float)score_of(m, r, t, 1)) < 1e-5);
    CHECK(!strcmp(model_gpus(back), "NVIDIA H100 80GB HBM3") && !strcmp(model_note(back), "a test"));
    Config ex[8];
    CHECK(model_exemplars(back, 3, ex, 8) > 0 && model_exemplars(back, 2, ex, 8) == 0);
    CHECK(model_exemplars(back, 3, ex, 8) == model_exemplars(m, 3, ex, 8));
    model_free(back);
    unlink(path);
    model_free(m);
    model_data_free(&d);
}

static Model *load_text(const char *text, char *err, int errlen)
{
    char path[] = "/tmp/stc_test_model_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    Model *m = model_load(path, err, errlen);
    unlink(path);
    return m;
}

static void test_file(void)
{
    char err[512];
    /* a feature this build does not know: its split always goes left */
    Model *m = load_text("stencilc-model 1\nloss l2\nfeatures future_feature c_tbx\nbase 1\ntrees 2\n"
                         "tree 3\nS 0 5 1 2\nL 0.5\nL 7\ntree 3\nS 1 4 1 2\nL -1\nL 1\n", err, sizeof err);
    CHECK(m);
    double f[FEAT_COUNT] = {0};
    f[FEAT_c_tbx] = 5;
    CHECK(m && model_score(m, f) == 1 + 0.5 + 1);
    model_free(m);
    CHECK(!load_text("stencilc-model 2\n", err, sizeof err) && strstr(err, ":1:"));
    CHECK(!load_text("stencilc-model 1\nloss l2\nfeatures c_tbx\nbase 0\ntrees 1\ntree 3\nS 0 1 1 2\nL 1\n",
                     err, sizeof err) && strstr(err, "ends inside a tree"));
    CHECK(!load_text("stencilc-model 1\nloss l2\nfeatures c_tbx\nbase 0\ntrees 1\ntree 3\nS 0 1 0 2\nL 1\nL 2\n",
                     err, sizeof err) && strstr(err, ":7: bad split node"));
    CHECK(!load_text("stencilc-model 1\nloss l2\nfeatures c_tbx\n", err, sizeof err) && strstr(err, "no trees"));
    CHECK(!load_text("stencilc-model 1\nwhat\n", err, sizeof err) && strstr(err, "unknown line"));
    /* a second tree list would run past the array sized by the first one */
    CHECK(!load_text("stencilc-model 1\nfeatures c_tbx\ntrees 1\ntree 1\nL 1\ntrees 1\ntree 1\nL 2\n",
                     err, sizeof err) && strstr(err, ":6: a second 'trees' line"));
    CHECK(!model_load("/nonexistent/model.txt", err, sizeof err) && strstr(err, "cannot read"));
}

static void test_data_file(void)
{
    ModelData d, back;
    model_data_init(&d);
    model_data_init(&back);
    make_data(&d, 2, 20, 3);
    char path[] = "/tmp/stc_test_data_XXXXXX", err[512];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CHECK(model_data_write(f, &d) == 0);
    fclose(f);
    CHECK(model_data_read(&back, path, err, sizeof err) == 0);
    CHECK(back.n == d.n && back.ngroups == 2);
    for (long i = 0; i < d.n; i++) {
        CHECK(back.samples[i].ok == d.samples[i].ok && !strcmp(back.samples[i].config, d.samples[i].config));
        CHECK(back.samples[i].f[FEAT_c_tbx] == d.samples[i].f[FEAT_c_tbx]);
    }
    CHECK(fabs(back.groups[0].best_ms - d.groups[0].best_ms) < 1e-5 * d.groups[0].best_ms);
    unlink(path);
    model_data_free(&d);
    model_data_free(&back);
}

/* Two GPUs, the second's fastest blocks 4x wider (2^(2/2) = 2x slower at the first's best). */
static void test_two_gpus(void)
{
    CHECK(model_gpu_matches("NVIDIA H100 80GB HBM3", "H100") && !model_gpu_matches("NVIDIA H200", "H100"));
    CHECK(!model_gpu_matches("NVIDIA H100 PCIe", "H100") && model_gpu_matches("NVIDIA H200", "h200"));
    CHECK(model_gpu_matches("Some Future GPU", "Future") && !model_gpu_matches("Some Future GPU", "Past"));
    ModelData d;
    model_data_init(&d);
    make_gpu_data(&d, 9, 200, 7, "NVIDIA H100 80GB HBM3", 3350, 0);
    make_gpu_data(&d, 9, 200, 8, "NVIDIA H200", 4800, 2);
    CHECK(d.ngroups == 18);
    ModelParams p;
    model_params_default(&p);
    p.trees = 40;
    p.clip = 2;
    ModelLooRow rows[32];
    /* trained on both, each program left out of both GPUs' data: right on each */
    int n = model_loo(&d, &p, -1, rows, NULL);
    CHECK(n == 18);
    for (int i = 0; i < n; i++)
        CHECK(rows[i].pick_ms > 0 && rows[i].pick_ms <= 1.15 * rows[i].best_ms);
    /* trained on the H100's only: right there, the H100's blocks on the H200 */
    p.gpu = "H100";
    n = model_loo(&d, &p, -1, rows, NULL);
    CHECK(n == 18);
    int h100 = 0, h200 = 0;
    for (int i = 0; i < n; i++) {
        double q = rows[i].pick_ms / rows[i].best_ms;
        if (strstr(rows[i].gpu, "H100"))
            h100 += q <= 1.15;
        else
            h200 += q >= 1.5;
    }
    CHECK(h100 == 9 && h200 == 9);
    /* its exemplars are the H100's fastest (blocks 32 to 128 wide; the H200's are 128 to 512) */
    Model *m = model_train(&d, NULL, &p);
    Config ex[64];
    int nex = model_exemplars(m, 3, ex, 64);
    CHECK(nex > 0);
    for (int i = 0; i < nex; i++)
        CHECK(ex[i].v[P_TBX] >= 32 && ex[i].v[P_TBX] <= 128);
    model_free(m);
    /* the summary of each GPU after that of all */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    model_loo_print(out, rows, n);
    fclose(out);
    CHECK(strstr(text, "\nthe model's first choice within 15% of the best: 9 of 18")
          && strstr(text, "\non NVIDIA H100 80GB HBM3: the model's first choice within 15% of the best: 9 of 9")
          && strstr(text, "\non NVIDIA H200: the model's first choice within 15% of the best: 0 of 9"));
    free(text);
    /* a GPU none of the data was measured on: nothing to train on */
    p.gpu = "A100";
    CHECK(!model_train(&d, NULL, &p));
    model_data_free(&d);
}

/* Family support: 3D stars measured in the tile family (fast) and the retime family (slow), 3D
 * boxes in retime (fast): the model supports retime for boxes, not for stars, tile for stars,
 * and the temporal family (never measured) and plain (never measured on stars) everywhere; the
 * file keeps it, and a model file without support lines supports everything. */
static void sample(ModelData *d, int g, int star, int family, double ms)
{
    double f[FEAT_COUNT] = {0};
    f[FEAT_p_dims] = 3;
    f[star ? FEAT_p_star : FEAT_p_box] = 1;
    f[family] = 1;
    f[FEAT_c_tbx] = 5 + family % 3;
    model_data_add(d, g, 1, ms, 0, "tb=32x8x1", f);
}

static int supports(const Model *m, int star, int family)
{
    double f[FEAT_COUNT] = {0};
    f[FEAT_p_dims] = 3;
    f[star ? FEAT_p_star : FEAT_p_box] = 1;
    f[family] = 1;
    return model_supports(m, f);
}

static void test_support(void)
{
    ModelData d;
    model_data_init(&d);
    for (int p = 0; p < 4; p++) {
        char name[16];
        snprintf(name, sizeof name, "%s%d", p < 2 ? "star" : "box", p);
        int g = model_data_group(&d, name, "NVIDIA H100 80GB HBM3");
        for (int k = 0; k < 8; k++) {
            sample(&d, g, p < 2, p < 2 ? FEAT_d_family_tile : FEAT_d_family_retime, 1 + 0.01 * k);
            sample(&d, g, p < 2, p < 2 ? FEAT_d_family_retime : FEAT_d_family_tile, 3 + k);
        }
    }
    model_data_finish(&d);
    ModelParams prm;
    model_params_default(&prm);
    prm.trees = 5;
    Model *m = model_train(&d, NULL, &prm);
    CHECK(m);
    CHECK(supports(m, 1, FEAT_d_family_tile) && !supports(m, 1, FEAT_d_family_retime));
    CHECK(supports(m, 0, FEAT_d_family_retime) && !supports(m, 0, FEAT_d_family_tile));
    CHECK(supports(m, 1, FEAT_d_family_temporal) && supports(m, 1, FEAT_d_family_plain));
    char path[] = "/tmp/stc_test_support_XXXXXX", err[512];
    close(mkstemp(path));
    CHECK(model_save(m, path, err, sizeof err) == 0);
    Model *back = model_load(path, err, sizeof err);
    unlink(path);
    CHECK(back && !supports(back, 1, FEAT_d_family_retime) && supports(back, 1, FEAT_d_family_tile));
    model_free(back);
    model_free(m);
    model_data_free(&d);
    Model *old = load_text("stencilc-model 1\nloss l2\nfeatures c_tbx\nbase 1\ntrees 0\n", err, sizeof err);
    CHECK(old && supports(old, 1, FEAT_d_family_retime));
    model_free(old);
    CHECK(!load_text("stencilc-model 1\nsupport 3 1 2 4\n", err, sizeof err) && strstr(err, ":2: expected"));
}

int main(void)
{
    test_learns();
    test_support();
    test_two_gpus();
    test_file();
    test_data_file();
    puts("model: ok");
    return 0;
}
