#include "measure_texts.h"

#include <stdio.h>

#include "load_program.h"

void measure_texts(GpuEval *g, const IrProgram *p, const char *const texts[], int n, Config cs[],
                   GpuEvalResult res[])
{
    for (int i = 0; i < n; i++)
        cs[i] = load_config(p, texts[i]);
    gpu_eval_measure(g, cs, n, 0, 0, res);
    for (int i = 0; i < n; i++)
        printf("%-12s %s %.4f %s\n", texts[i], res[i].ok ? "ok  " : "FAIL", res[i].ms, res[i].why);
}
