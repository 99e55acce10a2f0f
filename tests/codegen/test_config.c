/* Config text: defaults, parse/format round trip, error messages naming the key, and the
 * parameter rows of the table of passes that config_parse reads. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "pass.h"

static void roundtrip(const char *text, int dims, const char *expect)
{
    Config c, back;
    char err[200], out[300];
    int rc = config_parse(text, dims, &c, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "parse '%s': %s\n", text, err);
    assert(rc == 0);
    config_format(&c, out, sizeof out);
    if (expect && strcmp(out, expect) != 0) {
        fprintf(stderr, "format '%s' -> '%s', expected '%s'\n", text, out, expect);
        assert(0);
    }
    assert(config_parse(out, dims, &back, err, sizeof err) == 0);
    assert(memcmp(&c, &back, sizeof c) == 0);
}

static void bad(const char *text, const char *needle)
{
    Config c;
    char err[200];
    assert(config_parse(text, 3, &c, err, sizeof err) == -1);
    if (!strstr(err, needle)) {
        fprintf(stderr, "error for '%s' is '%s', expected to mention '%s'\n", text, err, needle);
        assert(0);
    }
}

/* Every id belongs to exactly one parameter row; keys are unique; pos counts 0, 1, ... */
static void table_is_whole(void)
{
    int owner[P_COUNT] = {0};
    int n = cg_param_count();
    for (int i = 0; i < n; i++) {
        const CgParam *r = cg_param_at(i, NULL);
        assert(r && r->key && r->doc && r->doc_values);
        for (int k = 0; k < cg_param_ids(r); k++)
            owner[r->first + k]++;
        for (int j = 0; j < i; j++)
            assert(strcmp(cg_param_at(j, NULL)->key, r->key) != 0);
    }
    assert(cg_param_at(n, NULL) == NULL);
    for (int p = 0; p < P_COUNT; p++) {
        if (owner[p] != 1)
            fprintf(stderr, "id %d (%s) belongs to %d rows\n", p, config_param_name((ParamId)p),
                    owner[p]);
        assert(owner[p] == 1);
    }
    /* the plain kernel comes last and always applies */
    Config c = config_default(3);
    assert(cg_pass_for(&c) == cg_passes[cg_npasses - 1] && cg_passes[cg_npasses - 1]->build);
}

int main(void)
{
    table_is_whole();
    Config c = config_default(2);
    assert(c.v[P_TBX] == 32 && c.v[P_TBY] == 8 && c.v[P_TBZ] == 1);
    c = config_default(3);
    assert(c.v[P_TBX] == 32 && c.v[P_TBY] == 4 && c.v[P_TBZ] == 2);
    c = config_default(1);
    assert(c.v[P_TBX] == 256 && c.v[P_TBY] == 1 && c.v[P_TBZ] == 1);
    for (int p = P_SMEM; p < P_COUNT; p++)
        assert(c.v[p] == 1);
    for (int p = 0; p < P_COUNT; p++)
        assert(strcmp(config_param_name((ParamId)p), "?") != 0);

    roundtrip("", 2, "tb=32x8x1");
    roundtrip("default", 3, "tb=32x4x2");
    roundtrip("tb=64x4", 2, "tb=64x4x1");
    roundtrip("tb=32x8x1,smem=on,cmem=on,stream=z,sb=64,uf=1x2x1,cm=1x2x1,bm=1x1x2,retime=on,"
              "prefetch=on,tblock=4,regq=3,maxreg=64", 3,
              "tb=32x8x1,smem=on,cmem=on,stream=z,sb=64,uf=1x2x1,cm=1x2x1,bm=1x1x2,retime=on,"
              "prefetch=on,tblock=4,regq=3,maxreg=64");
    roundtrip(" tb = 128x1x1 , stream=y ", 2, "tb=128x1x1,stream=y");
    roundtrip("tb=256x1,stream=y,sb=256,tblock=12", 2, "tb=256x1x1,stream=y,sb=256,tblock=12"); /* not a power of two */
    roundtrip("stream=off,smem=off,maxreg=none", 2, "tb=32x8x1");
    Config z;
    assert(config_parse("stream=z", 3, &z, NULL, 0) == 0);
    assert(z.v[P_STREAM] == 2 && z.v[P_SD] == 2);
    assert(config_parse("stream=y", 3, &z, NULL, 0) == 0);
    assert(z.v[P_STREAM] == 2 && z.v[P_SD] == 1);

    bad("tb=33x8x1", "'tb'");
    bad("tb=33x8x1", "power of two");
    bad("sb=48", "'sb'");
    bad("smem=maybe", "'smem'");
    bad("stream=x", "'stream'");
    bad("tblock=0", "'tblock'");
    bad("tb=1x2x4x4", "three");
    bad("foo=1", "'foo'");
    /* the known keys come from the table: all of them, in config_format's order */
    bad("foo=1", "(known: tb smem cmem stream sb uf cm bm vec hcol retime prefetch tblock regq "
                 "maxreg select hold hwrap async)");
    bad("stream=x", "expected 'off', 'y' or 'z'");
    bad("vect=2", "unknown key; did you mean 'vec'?");
    bad("prefech=on", "did you mean 'prefetch'?");
    bad("tb", "'tb'");
    bad("tb=32x8x1,", "trailing");
    bad("tb=32x8x1,,smem=on", "empty");
    bad("maxreg=-4", "'maxreg'");
    bad("uf=1xx2", "'uf'");
    assert(strcmp(config_param_name(P_SD), "sd") == 0 && strcmp(config_param_name(P_BMZ), "bmz") == 0);

    /* an item in the words of --config */
    char item[64];
    assert(config_parse("tb=64x2,stream=z,maxreg=none,uf=1x2", 3, &c, NULL, 0) == 0);
    config_item(&c, P_SD, item, sizeof item);
    assert(strcmp(item, "stream=z") == 0);
    config_item(&c, P_TBY, item, sizeof item);
    assert(strcmp(item, "tb=64x2x1") == 0);
    config_item(&c, P_MAXREG, item, sizeof item);
    assert(strcmp(item, "maxreg=off") == 0);
    config_item(&c, P_SMEM, item, sizeof item);
    assert(strcmp(item, "smem=off") == 0);
    puts("config: ok");
    return 0;
}
