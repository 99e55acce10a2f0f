/* Space: value lists, each constraint's reason (in the words of --config), --list-space,
 * counting. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "hand_ir.h"
#include "space.h"

static void expect(const Space *s, const char *text, const char *needle)
{
    Config c;
    char why[256];
    assert(config_parse(text, s->prog->dims, &c, why, sizeof why) == 0);
    int ok = space_check(s, &c, why, sizeof why);
    if (!needle) {
        if (!ok)
            fprintf(stderr, "'%s' rejected: %s\n", text, why);
        assert(ok);
        return;
    }
    if (ok || !strstr(why, needle)) {
        fprintf(stderr, "'%s': ok=%d why='%s', expected '%s'\n", text, ok, why, needle);
        assert(0);
    }
}

/* --list-space of s holds each of the needles (NULL-terminated). */
static void print_has(const Space *s, const char *const *needles)
{
    static char text[8192];
    FILE *out = tmpfile();
    space_print(out, s);
    rewind(out);
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = 0;
    fclose(out);
    for (; *needles; needles++)
        if (!strstr(text, *needles)) {
            fprintf(stderr, "--list-space lacks '%s':\n%s", *needles, text);
            assert(0);
        }
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *p2 = hb_example(a, 0), *p3 = hb_example(a, 1), *p1 = hb_example(a, 5);
    Space s;
    const long n2[3] = {100, 60, 1};
    space_init(&s, p2, n2);
    assert(s.params[P_TBX].nvalues == 11 && s.params[P_TBY].nvalues == 11);
    assert(s.params[P_TBZ].nvalues == 1 && s.params[P_TBZ].values[0] == 1);
    expect(&s, "", NULL);
    expect(&s, "tb=32x8x2", "tb=32x8x2: the grid is 2D, so tb along z must be 1");
    expect(&s, "tb=1024x2", "1024");
    expect(&s, "tb=8x2", "warp");
    expect(&s, "tb=256x1", "exceeds the grid");  /* 100 points -> 128 */
    expect(&s, "tb=128x1", NULL);
    expect(&s, "maxreg=64", NULL);
    expect(&s, "tb=128x8,maxreg=128", "65536");
    expect(&s, "maxreg=16", "maxreg=16 is not one of its values (off 32 64 128)");
    expect(&s, "tb=2048x1", "tb=2048x1x1: 2048 along x is not one of its values (1 2 4 8 16 32 64 "
                            "128 256 512 1024)");
    expect(&s, "tb=128x1,stream=z,sb=8", "stream=z needs a 3D grid; on this 2D grid stream takes: "
                                         "off y");
    expect(&s, "tb=128x1,stream=y,sb=8,regq=4", "regq=4 is not one of its values (1 2 3)");
    int exact = 0;
    double count = space_valid_count(&s, &exact);
    assert(count > 10); /* the passes' parameters multiply it; each pass tests its own part */
    (void)exact;

    /* The run's step count bounds temporal blocking (--steps 1 tunes one step). */
    expect(&s, "tb=32x8,tblock=4", NULL);
    space_set_steps(&s, 2);
    assert(s.params[P_TB].nvalues == 2 && s.params[P_TB].values[1] == 2);
    expect(&s, "tb=32x8,tblock=2", NULL);
    expect(&s, "tb=32x8,tblock=4", "tblock=4: more steps than the run's 2 (--steps)");
    space_set_steps(&s, 1);
    assert(s.params[P_TB].nvalues == 1);
    expect(&s, "tb=32x8,tblock=2", "more steps than the run's 1");

    const long n3[3] = {64, 64, 64};
    space_init(&s, p3, n3);
    expect(&s, "", NULL);
    expect(&s, "tb=1x8x128", "64 threads on z");
    const long tall[3] = {256, 1000000, 1};
    space_init(&s, p2, tall);
    expect(&s, "tb=256x1", "65535");
    expect(&s, "tb=16x16", NULL);
    space_init(&s, p1, NULL); /* size unknown: no size constraint */
    expect(&s, "tb=1024", NULL);
    expect(&s, "tb=256x2", "beyond");
    expect(&s, "tb=256,prefetch=on", "prefetch=on needs a 2D or 3D grid; on this 1D grid prefetch "
                                     "takes: off");
    /* --list-space: the values as --config takes them */
    const char *const in1d[] = {"  tb x      1 2 4 8 16 32 64 128 256 512 1024\n",
                                "  tb y      1   (fixed)\n", "  smem      off on\n",
                                "  stream    off   (fixed)\n", "  maxreg    off 32 64 128\n",
                                "  steps ", "  tile-vec ", NULL};
    print_has(&s, in1d);
    space_init(&s, p3, n3);
    const char *const in3d[] = {"  stream    off y z\n", "  tblock    1 2 3 4 6 8 12 16\n", NULL};
    print_has(&s, in3d);

    /* Random valid draws: each one passes space_check, and they are not all the same. */
    const long wide[3] = {1024, 1024, 1};
    space_init(&s, p2, wide);
    Rng rng;
    rng_seed(&rng, 12345);
    Config first, c;
    int differ = 0;
    assert(space_random_valid(&s, &rng, 1000, &first));
    for (int i = 0; i < 50; i++) {
        assert(space_random_valid(&s, &rng, 1000, &c) && space_check(&s, &c, NULL, 0));
        differ += memcmp(&c, &first, sizeof c) != 0;
    }
    assert(differ > 0);
    arena_free(a);
    puts("space: ok");
    return 0;
}
