/* The template expander (template.h). */
#include "template.h"

#include <string.h>

static const char *lookup(const TplVar *vars, const char *name, size_t len)
{
    for (; vars && vars->name; vars++)
        if (strlen(vars->name) == len && memcmp(vars->name, name, len) == 0)
            return vars->value;
    return NULL;
}

void tpl_put(StrBuf *o, const char *text, const char *pfx, const char *upper, const TplVar *vars)
{
    const char *t = text;
    while (*t) {
        size_t plain = strcspn(t, "@^$");
        sb_putn(o, t, plain);
        t += plain;
        if (*t == '@' || *t == '^') {
            sb_puts(o, *t == '@' ? pfx : upper);
            t++;
            continue;
        }
        const char *end = *t == '$' && t[1] == '{' ? strchr(t, '}') : NULL;
        const char *value = end ? lookup(vars, t + 2, (size_t)(end - t - 2)) : NULL;
        if (!value) {
            sb_putn(o, t, *t ? 1 : 0);
            t += *t ? 1 : 0;
            continue;
        }
        sb_puts(o, value);
        t = end + 1;
    }
}
