/* Config text: defaults, parse/format round trip, error messages naming the key. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

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

int main(void)
{
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
    bad("tb", "'tb'");
    bad("tb=32x8x1,", "trailing");
    bad("tb=32x8x1,,smem=on", "empty");
    bad("maxreg=-4", "'maxreg'");
    bad("uf=1xx2", "'uf'");
    puts("config: ok");
    return 0;
}
