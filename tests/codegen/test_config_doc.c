/* docs/config.md agrees with the table of passes: its table of parameters is the one
 * cg_params_markdown makes, and its tables of constraints name every constraint of the space and
 * of the passes, and no other.
 *
 *   test_codegen_config_doc [--write] [DOC]   (DOC: $STC_SOURCE_ROOT/docs/config.md)
 *
 * --write puts the table made from the passes into DOC (after a parameter changes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

static const char BEGIN[] = "<!-- parameters: made from codegen's table of passes "
                            "(test_codegen_config_doc --write) -->\n";
static const char END[] = "<!-- end of parameters -->\n";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    text[fread(text, 1, (size_t)n, f)] = 0;
    fclose(f);
    return text;
}

static char *made_table(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cg_params_markdown(f);
    fclose(f);
    return text;
}

static int is_constraint(const char *name, size_t len)
{
    for (const SpaceConstraint *k = space_constraints; k->name; k++)
        if (strlen(k->name) == len && memcmp(k->name, name, len) == 0)
            return 1;
    for (int i = 0; i < cg_npasses; i++)
        for (const SpaceConstraint *k = cg_passes[i]->constraints; k && k->name; k++)
            if (strlen(k->name) == len && memcmp(k->name, name, len) == 0)
                return 1;
    return 0;
}

static const char *next_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? nl + 1 : NULL;
}

/* 1 when every constraint of ks has a row "| `name` |" in doc. */
static int described(const char *doc, const SpaceConstraint *ks)
{
    int all = 1;
    for (const SpaceConstraint *k = ks; k && k->name; k++) {
        char row[64];
        snprintf(row, sizeof row, "\n| `%s` |", k->name);
        if (!strstr(doc, row)) {
            fprintf(stderr, "docs/config.md does not describe the constraint %s\n", k->name);
            all = 0;
        }
    }
    return all;
}

/* Every row "| `name` |" of the doc (outside the parameters) is a constraint, and every
 * constraint has one. */
static int check_constraints(const char *doc, const char *skip_from, const char *skip_to)
{
    int bad = 0;
    for (const char *line = doc; line && *line; line = next_line(line)) {
        if ((line >= skip_from && line < skip_to) || strncmp(line, "| `", 3) != 0)
            continue;
        const char *name = line + 3, *end = strchr(name, '`');
        if (end && !is_constraint(name, (size_t)(end - name))) {
            fprintf(stderr, "docs/config.md names a constraint the passes do not have: %.*s\n",
                    (int)(end - name), name);
            bad = 1;
        }
    }
    bad |= !described(doc, space_constraints);
    for (int i = 0; i < cg_npasses; i++)
        bad |= !described(doc, cg_passes[i]->constraints);
    return bad;
}

static int write_doc(const char *path, const char *doc, const char *from, const char *to,
                     const char *table)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return perror(path), 1;
    fwrite(doc, 1, (size_t)(from - doc), f);
    fputs(table, f);
    fputs(to, f);
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    int write = argc > 1 && strcmp(argv[1], "--write") == 0;
    const char *root = getenv("STC_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/config.md", root ? root : ".");
    const char *file = argc > 1 + write ? argv[1 + write] : path;
    char *doc = slurp(file), *table = made_table();
    if (!doc)
        return perror(file), 1;
    char *begin = strstr(doc, BEGIN), *end = begin ? strstr(begin, END) : NULL;
    if (!end) {
        fprintf(stderr, "%s: no '%s' ... '%s' section\n", file, BEGIN, END);
        return 1;
    }
    char *from = begin + strlen(BEGIN);
    if (write)
        return write_doc(file, doc, from, end, table);
    int bad = check_constraints(doc, from, end);
    if ((size_t)(end - from) != strlen(table) || memcmp(from, table, strlen(table)) != 0) {
        fprintf(stderr, "%s: the table of parameters differs from the passes' rows; update it "
                "with test_codegen_config_doc --write %s. The passes make:\n%s", file, file, table);
        bad = 1;
    }
    free(doc);
    free(table);
    if (!bad)
        puts("config doc: ok");
    return bad;
}
