/* Helper of the GPU evaluation tests: the configurations written in texts[0..n), loaded for p
 * into cs and measured by g in one batch into res, with a line printed for each (text, ok or
 * FAIL, ms, the reason). */
#ifndef STC_TEST_MEASURE_TEXTS_H
#define STC_TEST_MEASURE_TEXTS_H
#include "../../tuner/gpu_eval.h"

void measure_texts(GpuEval *g, const IrProgram *p, const char *const texts[], int n, Config cs[],
                   GpuEvalResult res[]);

#endif
