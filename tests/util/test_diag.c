/* util/diag.c, the one path of every message on stderr: a place in the source gets the file,
 * line, column, source line and caret; a message about the run is "stencilc: ..." whatever
 * source the Diag has; messages count; a progress line off a terminal shows at most every 5 s
 * but always at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/diag.h"
#include "check.h"

typedef struct {
    Diag d;
    char *text;
    size_t len;
} Capture;

static void capture(Capture *c, const Source *src)
{
    c->text = NULL;
    c->len = 0;
    diag_init(&c->d, src, open_memstream(&c->text, &c->len));
    CHECK(c->d.out != NULL);
}

/* Ends the capture and compares what was printed with want. */
static int printed(Capture *c, const char *want)
{
    fclose(c->d.out);
    int same = c->text && !strcmp(c->text, want);
    if (!same)
        fprintf(stderr, "printed:\n%s\nwanted:\n%s\n", c->text ? c->text : "(nothing)", want);
    free(c->text);
    return same;
}

static void test_places(void)
{
    static const char text[] = "stencil s {\n  u = u + v;\n}\n";
    Source src = {"s.st", text, (long)sizeof text - 1};
    Capture c;
    capture(&c, &src);
    diag_error(&c.d, (Loc){2, 11, 1}, STC_E_UNDECLARED, "undeclared name 'v'");
    diag_error(&c.d, (Loc){0, 0, 0}, STC_E_NO_STENCIL, "no stencil named 'x'");
    diag_run_error(&c.d, "--config: %s", "bad");
    diag_run_warning(&c.d, "not tuned");
    diag_run_info(&c.d, "using %s", "a record");
    CHECK(c.d.errors == 3 && c.d.warnings == 1);
    CHECK(printed(&c, "s.st:2:11: error: undeclared name 'v' [STC-100]\n"
                      "   u = u + v;\n"
                      "           ^\n"
                      "s.st: error: no stencil named 'x' [STC-108]\n"
                      "stencilc: error: --config: bad\n"
                      "stencilc: warning: not tuned\n"
                      "stencilc: using a record\n"));
}

static void test_no_source(void)
{
    Capture c;
    capture(&c, NULL);
    diag_run_error(&c.d, "'%s' needs %s\n(see stencilc --help)", "--replay", "'--autotune'");
    diag_note(&c.d, (Loc){0, 0, 0}, "a note");
    CHECK(printed(&c, "stencilc: error: '--replay' needs '--autotune'\n(see stencilc --help)\n"
                      "stencilc: note: a note\n"));
}

static void test_progress(void)
{
    Capture c;
    capture(&c, NULL);
    diag_progress(&c.d, "tuning: 0 evaluated", 0);
    diag_progress(&c.d, "tuning: 12 evaluated", 0); /* within 5 s of the first: not shown */
    diag_progress(&c.d, "tuned: 24 evaluated", 1);  /* the last: always */
    diag_run_info(&c.d, "chose x");
    CHECK(printed(&c, "tuning: 0 evaluated\ntuned: 24 evaluated\nstencilc: chose x\n"));
}

int main(void)
{
    test_places();
    test_no_source();
    test_progress();
    printf("diag: ok\n");
    return 0;
}
