/* Bad input never crashes: thousands of mutations of valid programs go through parsing,
 * lowering, the dump and (when the halo is small) a step of the interpreter. */
#include "interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const seeds[] = {
    "stencil a {\n grid 2d;\n size 9, 7;\n const R = 1;\n param k = 0.5;\n"
    " state u levels 3 boundary mirror;\n coef c boundary clamp;\n temp t boundary periodic;\n"
    " let l = u[-R,0] + u[R,0] - 2*u;\n t = k * c * l + u@-1;\n"
    " u = select(t > 0, t[1,0] - t[-1,0], sqrt(abs(t))) + min(u, max(c, 1));\n}\n",
    "stencil b {\n grid 3d;\n state u boundary constant(2);\n state v;\n"
    " u = (u[1,0,0] + u[0,-1,0] + v[0,0,1]) / 3;\n v = -u + !(v < 1) || u == 2;\n}\n",
    "stencil c {\n grid 1d;\n temp f;\n temp g boundary clamp;\n state u boundary periodic;\n"
    " f = u[1] - u;\n g = f - f[-1];\n u = u + 0.1 * (g[1] + g) + pow(u, 2) + floor(exp(log(u)));\n}\n",
};

static unsigned rng_state = 12345;
static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) & 0xffffff;
}

static const char *const pieces[] = {"u", "v", "t", "[", "]", "(", ")", "@-1", "@-2", ",", ";",
    "=", "let", "temp", "state", "coef", "const", "param", "1", "-3", "0.5", "x", "*", "/",
    "+", "-", "?", ":", "R", "sqrt", "select", "levels 3", "size 1,1", "}", "{", "grid 2d;"};

int main(void)
{
    char text[4096];
    int runs = 0;
    for (int it = 0; it < 3000; it++) {
        const char *base = seeds[it % 3];
        size_t len = strlen(base);
        memcpy(text, base, len + 1);
        int edits = 1 + (int)(rnd() % 4);
        for (int e = 0; e < edits; e++) {
            len = strlen(text);
            size_t at = rnd() % (len + 1);
            if (rnd() % 2 && len > 0) { /* delete a few characters */
                size_t n = 1 + rnd() % 4;
                if (at + n > len)
                    n = len - at;
                memmove(text + at, text + at + n, len - at - n + 1);
            } else { /* insert a piece */
                const char *p = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
                size_t n = strlen(p);
                if (len + n + 1 >= sizeof text)
                    continue;
                memmove(text + at + n, text + at, len - at + 1);
                memcpy(text + at, p, n);
            }
        }
        Arena *a = arena_new();
        Source src = {"fuzz.st", text, (long)strlen(text)};
        FILE *sink = fopen("/dev/null", "w");
        Diag dg;
        diag_init(&dg, &src, sink);
        AstFile file;
        memset(&file, 0, sizeof file);
        if (parse_source(&src, a, &dg, &file) == 0) {
            for (int s = 0; s < file.nstencils; s++) {
                IrProgram *p = ir_lower(&file.stencils[s], a, &dg);
                if (!p)
                    continue;
                ir_dump(sink, p);
                if (p->halo[0] <= 3 && p->halo[1] <= 3 && p->halo[2] <= 3) {
                    int n[3] = {5, 4, 3};
                    InterpGrid *g = interp_grid_new(p, n);
                    interp_fill_random(g, 1);
                    interp_run(g, 2);
                    interp_grid_free(g);
                    runs++;
                }
            }
        }
        fclose(sink);
        arena_free(a);
    }
    printf("%d mutated programs lowered and run\n", runs);
    return runs > 0 ? 0 : 1;
}
