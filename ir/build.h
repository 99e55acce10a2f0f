/* Private to ir/: building the nodes of one stage with hash-consing (an operation on the same
 * operands yields the same node) and constant folding. Operand -1 stands for "an error was
 * already reported": every builder function passes it through, so lowering can go on. */
#ifndef STC_IR_BUILD_H
#define STC_IR_BUILD_H
#include "ir.h"

typedef struct {
    IrStage *stage;
    Arena *arena;
    int *table;  /* open addressing: node index + 1, 0 = empty */
    int tcap;    /* a power of two, at least twice the node count */
} IrBuilder;

/* A built-in name (ir/builtin.c): x, y, z (N_COORD), nx, ny, nz (N_EXTENT), step (N_STEP). */
typedef struct {
    const char *name;
    IrOp op;
    int axis;
} IrBuiltin;
const IrBuiltin *ir_builtin_find(const char *name); /* NULL: not a built-in */
const char *ir_builtin_name(IrOp op, int axis);
int ir_builtin_dims(const IrBuiltin *b);

void irb_begin(IrBuilder *b, IrStage *stage, Arena *arena);
int irb_const(IrBuilder *b, double value);
int irb_param(IrBuilder *b, int param);
/* A built-in (N_COORD or N_EXTENT along axis, or N_STEP with axis 0). */
int irb_builtin(IrBuilder *b, IrOp op, int axis);
int irb_read(IrBuilder *b, int field, int level, const int off[3]);
int irb_op(IrBuilder *b, IrOp op, int a, int bb, int c); /* unused operands: -1 */
void irb_write(IrBuilder *b, int field, int node, Loc loc);

/* Drops the nodes no write needs, renumbers the rest in order, counts uses and the stage's
 * radius. The builder of the stage must not be used afterwards. */
void ir_stage_compact(IrStage *stage, Arena *arena);

#endif
