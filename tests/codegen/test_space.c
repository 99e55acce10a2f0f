/* Space: value lists, each constraint's reason, counting. */
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
    expect(&s, "tb=32x8x2", "beyond the grid");
    expect(&s, "tb=1024x2", "1024");
    expect(&s, "tb=8x2", "warp");
    expect(&s, "tb=256x1", "exceeds the grid");  /* 100 points -> 128 */
    expect(&s, "tb=128x1", NULL);
    expect(&s, "maxreg=64", NULL);
    expect(&s, "tb=128x8,maxreg=128", "65536");
    expect(&s, "maxreg=16", "not one of its values");
    int exact = 0;
    double count = space_valid_count(&s, &exact);
    assert(count > 10); /* the passes' parameters multiply it; each pass tests its own part */
    (void)exact;

    /* The run's step count bounds temporal blocking (--steps 1 tunes one step). */
    expect(&s, "tb=32x8,tblock=4", NULL);
    space_set_steps(&s, 2);
    assert(s.params[P_TB].nvalues == 2 && s.params[P_TB].values[1] == 2);
    expect(&s, "tb=32x8,tblock=2", NULL);
    expect(&s, "tb=32x8,tblock=4", "more steps than the run's 2");
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
    FILE *out = tmpfile();
    space_print(out, &s);
    long len = ftell(out);
    assert(len > 100);
    fclose(out);

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
