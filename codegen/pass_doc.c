/* docs/config.md's table of parameters, made from the table of passes (the test
 * test_codegen_config_doc checks that the two agree, and rewrites the doc's with --write). */
#include "pass.h"

#include <stdio.h>

void cg_params_markdown(FILE *out)
{
    fprintf(out, "| key | values | pass | meaning |\n|---|---|---|---|\n");
    for (int i = 0; i < cg_param_count(); i++) {
        const CgPass *p;
        const CgParam *r = cg_param_at(i, &p);
        fprintf(out, "| `%s` | %s | %s%s | %s |\n", r->key, r->doc_values, p->name,
                p->applies && !p->build ? " (not implemented yet)" : "", r->doc);
    }
}
