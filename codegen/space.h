/* The tuning space of a program on a grid: every parameter of Config with the values it may
 * take, and the constraints that decide, before anything is compiled, whether a configuration
 * is valid, each with a reason a person can read. */
#ifndef STC_SPACE_H
#define STC_SPACE_H
#include "../ir/ir.h"
#include "../util/rng.h"
#include "config.h"

#define SPACE_MAX_VALUES 16

typedef struct {
    ParamId id;
    int values[SPACE_MAX_VALUES]; /* ascending; a parameter that cannot vary has one value, 1 */
    int nvalues;
} SpaceParam;

typedef struct {
    const IrProgram *prog;
    long n[3];                 /* interior grid size; 1 on axes >= dims */
    int dims;                  /* the grid's dimension (a replay's: its recording's); 0: unknown */
    SpaceParam params[P_COUNT];
    long steps;                /* time steps of the run the kernel serves; 0 = unknown */
    int distributed;           /* the local part of a distributed run (pass_temporal.c's edges) */
} Space;

void space_init(Space *s, const IrProgram *prog, const long n[3]);
/* The same for a distributed run's local part (Space.distributed set before the values are
 * computed: a parameter of one GPU only, such as hold, then keeps its off value). */
void space_init_distributed(Space *s, const IrProgram *prog, const long n[3]);
/* The run's step count: temporal blocking that fuses more steps than the run has would never
 * launch its fused kernel, so tblock keeps only values <= steps (`--steps 1` tunes one step). */
void space_set_steps(Space *s, long steps);
/* The default configuration on s's grid (codegen/space_default.c): config_default when it is
 * valid, else the valid plain kernel whose thread block is nearest to it. */
Config space_default(const Space *s);
/* 1 if c satisfies every static constraint; else 0 and the first broken one in why. */
int space_check(const Space *s, const Config *c, char *why, int whylen);
/* Number of configurations in the product of the value lists, valid or not. */
double space_total(const Space *s);
/* Number of valid configurations (exact when small enough to enumerate, else an estimate from
 * sampling; *exact says which). */
double space_valid_count(const Space *s, int *exact);
/* Draws a configuration (not necessarily valid) from a distribution that favours the padded
 * form: each parameter that can be 1 is 1 with probability 1/2, else uniform over its other
 * values. Valid configurations are sparse in the product of the value lists (most passes
 * exclude each other), so uniform draws almost never hit one; these do. Returns the
 * probability of the drawn configuration. */
double space_random(const Space *s, Rng *rng, Config *out);
/* A valid configuration drawn with space_random; an invalid draw is repaired by putting its
 * parameters back to their first value (the padded form) one at a time in a random order, and
 * redrawn when that fails, at most `tries` draws. 1 with it in *out, else 0 (*out invalid).
 * Valid draws are rare (a few in 10 000 on a 2D grid): most passes exclude each other. */
int space_random_valid(const Space *s, Rng *rng, int tries, Config *out);
/* Prints the parameters with their values as --config takes them, the constraints with their
 * reasons and the size of the valid space (--list-space; codegen/space_print.c). */
void space_print(FILE *out, const Space *s);

#endif
