#include "fake_space.h"

#include <math.h>
#include <string.h>

#include "tune_int.h"

static void set(Space *s, ParamId p, const int *v, int n)
{
    s->params[p].id = p;
    s->params[p].nvalues = n;
    for (int i = 0; i < n; i++)
        s->params[p].values[i] = v[i];
}

static void base(Space *s)
{
    memset(s, 0, sizeof *s);
    s->n[0] = s->n[1] = s->n[2] = 256;
    for (int p = 0; p < P_COUNT; p++) {
        s->params[p].id = (ParamId)p;
        s->params[p].values[0] = 1;
        s->params[p].nvalues = 1;
    }
}

void fake_space(Space *s)
{
    static const int tbx[] = {8, 16, 32, 64, 128, 256}, tby[] = {1, 2, 4, 8, 16},
                     tbz[] = {1, 2, 4, 8}, onoff[] = {1, 2}, sb[] = {1, 4, 8, 16, 32},
                     small[] = {1, 2, 4};
    base(s);
    set(s, P_TBX, tbx, 6);
    set(s, P_TBY, tby, 5);
    set(s, P_TBZ, tbz, 4);
    set(s, P_SMEM, onoff, 2);
    set(s, P_STREAM, onoff, 2);
    set(s, P_SD, onoff, 2);
    set(s, P_SB, sb, 5);
    set(s, P_UFX, small, 3);
    set(s, P_CMX, small, 3);
    set(s, P_BMY, small, 3);
    set(s, P_RETIME, onoff, 2);
}

void fake_space_large(Space *s)
{
    static const int wide[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    base(s);
    for (int p = 0; p < P_COUNT; p++)
        set(s, (ParamId)p, wide, 11);
}

int fake_valid(void *ctx, const Config *c, char *why, int whylen)
{
    const int *v = c->v;
    long threads = (long)v[P_TBX] * v[P_TBY] * v[P_TBZ];
    const char *bad = NULL;
    if (threads > 1024)
        bad = "more than 1024 threads per block";
    else if (threads < 32)
        bad = "fewer than 32 threads per block";
    else if (v[P_STREAM] == 1 && (v[P_SD] != 1 || v[P_SB] != 1 || v[P_RETIME] != 1))
        bad = "sd, sb and retime need streaming";
    else if (v[P_STREAM] == 2 && v[P_SB] < 4)
        bad = "streaming needs sb >= 4";
    else if (v[P_STREAM] == 2 && v[P_UFX] > v[P_SB])
        bad = "ufx > sb";
    else if (v[P_CMX] * v[P_BMY] > 8)
        bad = "too much merging";
    if (bad) {
        snprintf(why, (size_t)whylen, "%s", bad);
        return 0;
    }
    return 1;
}

static double l2(int v)
{
    return log2((double)v);
}

double fake_cost(const Config *c)
{
    const int *v = c->v;
    double x = l2(v[P_TBX]), y = l2(v[P_TBY]), z = l2(v[P_TBZ]);
    /* best block 64x4x2; x and y trade off (a coupled pair) */
    double t = 1.0 + 0.08 * (x - 6) * (x - 6) + 0.05 * (y - 2) * (y - 2) +
               0.04 * (x + y - 8) * (x + y - 8) + 0.03 * (z - 1) * (z - 1);
    /* streaming along z with sb=16 and retiming pays off; streaming badly costs */
    if (v[P_STREAM] == 2) {
        double sb = l2(v[P_SB]);
        t += -0.25 + 0.06 * (sb - 4) * (sb - 4) + (v[P_SD] == 2 ? -0.1 : 0.05);
        t += v[P_RETIME] == 2 ? -0.05 : 0;
    }
    t += v[P_SMEM] == 2 ? -0.04 : 0;
    /* merging: cmx * bmy = 4 is best, coupled */
    double m = l2(v[P_CMX]) + l2(v[P_BMY]);
    t += 0.05 * (m - 2) * (m - 2) + 0.02 * (l2(v[P_CMX]) - 1) * (l2(v[P_CMX]) - 1);
    t += 0.03 * (l2(v[P_UFX]) - 1) * (l2(v[P_UFX]) - 1);
    return t;
}

int fake_eval(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    /* a "compile failure" pocket away from the optimum */
    if (c->v[P_TBX] == 256 && c->v[P_UFX] == 4) {
        snprintf(why, (size_t)whylen, "too many registers");
        return 1;
    }
    *ms = fake_cost(c);
    return 0;
}

int fake_watch_eval(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    FakeWatch *w = ctx;
    char tmp[160];
    w->calls++;
    if (!fake_valid(NULL, c, tmp, sizeof tmp))
        w->invalid++;
    if (!tune_seen_add(w->seen, c))
        w->repeated++;
    return fake_eval(NULL, c, ms, why, whylen);
}
