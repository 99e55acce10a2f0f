/* Text templates for the emitted host code and headers: the fixed text is written once, as it
 * appears in the output, with holes: '@' the API prefix (heat), '^' the prefix in capitals
 * (HEAT), and ${name} a value from a table. What depends on the program around the holes is
 * printed by the small functions that call tpl_put. */
#ifndef STC_TEMPLATE_H
#define STC_TEMPLATE_H
#include "../util/strbuf.h"

typedef struct {
    const char *name, *value;
} TplVar;

/* Appends text to o with its holes filled; vars ends with {NULL, NULL} (or is NULL). A ${name}
 * missing from vars is left as it is, so a test that looks for "${" finds it. */
void tpl_put(StrBuf *o, const char *text, const char *pfx, const char *upper, const TplVar *vars);

#endif
