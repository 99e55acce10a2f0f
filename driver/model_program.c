/* Loading a stencil program for the model's commands (model_program.h). */
#include "model_program.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "../frontend/ast.h"

int model_program_load(const char *path, const char *stencil, int type, const long grid[3],
                       long steps, Arena *arena, ModelProgram *mp, char *why, int whylen)
{
    Source *src = arena_alloc(arena, sizeof *src);
    Diag *diag = arena_alloc(arena, sizeof *diag);
    AstFile ast;
    memset(mp, 0, sizeof *mp);
    diag_init(diag, src, stderr);
    src->name = path;
    if (source_read(path, arena, diag, src) != 0 || parse_source(src, arena, diag, &ast) != 0) {
        snprintf(why, (size_t)whylen, "%s: cannot be read or parsed", path);
        return -1;
    }
    const AstStencil *st = NULL;
    for (int i = 0; i < ast.nstencils && !st; i++)
        if (stencil ? !strcmp(ast.stencils[i].name, stencil) : ast.nstencils == 1)
            st = &ast.stencils[i];
    if (!st) {
        snprintf(why, (size_t)whylen, "%s: no stencil %s%s", path, stencil ? "named " : "",
                 stencil ? stencil : "alone in the file (name one)");
        return -1;
    }
    if (!(mp->prog = ir_lower(st, arena, diag))) {
        snprintf(why, (size_t)whylen, "%s: stencil %s does not lower", path, st->name);
        return -1;
    }
    if (type >= 0)
        ir_set_type(mp->prog, (ElemType)type);
    static const long fallback[4][3] = {{1, 1, 1}, {1 << 24, 1, 1}, {4096, 4096, 1}, {256, 256, 256}};
    const IrProgram *p = mp->prog;
    for (int d = 0; d < 3; d++) {
        long g = grid && grid[d] > 0 ? grid[d] : 0;
        mp->grid[d] = d >= p->dims ? 1 : g ? g : p->size[d] > 0 ? p->size[d] : fallback[p->dims][d];
    }
    if (ir_check_grid(p, mp->grid, why, whylen) != 0)
        return -1;
    space_init(&mp->space, mp->prog, mp->grid);
    space_set_steps(&mp->space, steps ? steps : p->steps ? p->steps : 100);
    return 0;
}

/* Whether the file at path has a line `stencil NAME {` (or `stencil "NAME" {`). */
static int defines(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    char line[512], a[300], b[300];
    snprintf(a, sizeof a, "stencil %s ", name);
    snprintf(b, sizeof b, "stencil \"%s\" ", name);
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = !strncmp(line, a, strlen(a)) || !strncmp(line, b, strlen(b));
    if (f)
        fclose(f);
    return found;
}

const char *model_program_find(const char *name, const char *const *dirs, int ndirs, char *buf, int len)
{
    for (int i = 0; i < ndirs; i++) {
        snprintf(buf, (size_t)len, "%s/%s.st", dirs[i], name);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    for (int i = 0; i < ndirs; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n < 4 || strcmp(e->d_name + n - 3, ".st"))
                continue;
            snprintf(buf, (size_t)len, "%s/%s", dirs[i], e->d_name);
            if (defines(buf, name)) {
                closedir(d);
                return buf;
            }
        }
        if (d)
            closedir(d);
    }
    return NULL;
}
