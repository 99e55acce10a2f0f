/* The stencil IR. A program is a list of fields and parameters and a step made of stages.
 * Each stage is a straight-line list of value nodes (SSA: a node's operands come before it),
 * built with hash-consing (common subexpressions are shared) and constant folding, and a list
 * of writes (field <- node). A stage boundary exists where a statement reads, at a non-zero
 * offset, a temp field computed earlier in the same step: every point of that temp must be
 * computed before the reader runs.
 *
 * Memory layout, shared by the interpreter, the generated kernels and the emitted C API:
 * every field of a program has the same padded shape. Axis d has n[d] interior points and a
 * halo of halo[d] points on each side (halo[d] = the largest |offset| on axis d over all reads),
 * so its padded extent is n[d] + 2*halo[d]; axes >= dims have extent 1 and halo 0. x (axis 0)
 * is contiguous: element (i,j,k) of the interior, 0-based, is at
 *   ((k + halo[2]) * P1 + (j + halo[1])) * P0 + (i + halo[0])   with Pd = n[d] + 2*halo[d].
 *
 * Index range: linear indices and strides are 64-bit everywhere (kernels, host code, the
 * interpreter), so a buffer may hold more than 2^31 elements. A coordinate along one axis stays
 * an int, in the kernels' hot arithmetic too, so each axis's padded extent is bounded by
 * IR_MAX_EXTENT: INT_MAX less IR_INDEX_SLACK, the room a launch's last block (a tile of at most
 * 2^18 points along an axis, tb x bm x cm, or sb <= 32768 planes) and its halo (temporal
 * blocking: K x R <= 16 x 255) may reach past the padded extent while computing coordinates.
 * ir_check_grid refuses larger grids; the emitted host code and the runtime refuse them too. */
#ifndef STC_IR_H
#define STC_IR_H
#include "../frontend/ast.h"
#include "../util/strbuf.h"

#define IR_INDEX_SLACK (1 << 20)
#define IR_MAX_EXTENT (2147483647 - IR_INDEX_SLACK) /* largest n[d] + 2*halo[d]: 2146435071 */
/* Largest element count of one buffer: a byte offset (index x 8) stays below 2^63. */
#define IR_MAX_ELEMS_LOG2 59
#define IR_MAX_ELEMS (1LL << IR_MAX_ELEMS_LOG2)

typedef enum {
#define OP(id, name, fn, arity, c_double, c_float) id,
#include "ops.def"
#undef OP
    N_OP_COUNT
} IrOp;

typedef struct {
    IrOp op;
    int a, b, c;      /* operand node indices in the same stage, -1 when unused */
    double value;     /* N_CONST */
    int param;        /* N_PARAM; N_COORD and N_EXTENT: the axis */
    int field;        /* N_READ */
    int level;        /* N_READ: 0 = step t (or this step, for temps), -1 = step t-1 */
    int off[3];       /* N_READ: offsets, 0 on axes >= dims */
    int uses;         /* how many nodes and writes of the stage use it */
} IrNode;

typedef struct {
    int field; /* target */
    int node;  /* value */
    Loc loc;
} IrWrite;

typedef struct {
    IrNode *nodes;
    int nnodes, cap_nodes;
    IrWrite *writes;
    int nwrites, cap_writes;
    int radius[3]; /* largest |offset| read per axis in this stage */
} IrStage;

/* A boundary condition of one face: its kind, and constant(v)'s value (0 for other kinds). */
typedef struct {
    BoundaryKind kind;
    double value;
} IrBc;

typedef struct {
    const char *name;
    FieldRole role;
    int levels;        /* state: 2 or 3 buffers; coef and temp: 1 */
    /* The condition of each face: [axis][0] the low face, [axis][1] the high one. Axes the grid
     * does not have repeat its last axis, so a question over all three reads the grid's axes.
     * Read through ir_bc and the helpers after IrField. */
    IrBc bc_face[3][2];
    int lo[3], hi[3];  /* footprint: smallest and largest offset read per axis, all stages */
    int read, written; /* whether the step reads / writes it */
    int write_stage;   /* temp and state: the stage that writes it, -1 if none */
    Loc loc;
    /* Whether the field lives in memory: state and coef always; a temp only when a later
     * stage reads it (a temp read only at offset 0 in its own stage stays in registers). */
    int materialized;
} IrField;

/* The condition of face (0 low, 1 high) of axis: the one place that says how a halo is filled. */
static inline IrBc ir_bc(const IrField *f, int axis, int face) { return f->bc_face[axis][face]; }
/* Whether some face of f has condition kind / every face has it. */
static inline int ir_bc_any(const IrField *f, BoundaryKind kind)
{
    for (int a = 0; a < 3; a++)
        if (f->bc_face[a][0].kind == kind || f->bc_face[a][1].kind == kind)
            return 1;
    return 0;
}
static inline int ir_bc_all(const IrField *f, BoundaryKind kind)
{
    for (int a = 0; a < 3; a++)
        if (f->bc_face[a][0].kind != kind || f->bc_face[a][1].kind != kind)
            return 0;
    return 1;
}
/* Whether every face of f has the same condition (ir_bc(f, 0, 0)). */
static inline int ir_bc_uniform(const IrField *f)
{
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++)
            if (f->bc_face[a][s].kind != f->bc_face[0][0].kind || f->bc_face[a][s].value != f->bc_face[0][0].value)
                return 0;
    return 1;
}
/* Whether the halo of f along axis holds only what the fills leave alone: both faces fixed. */
static inline int ir_bc_axis_fixed(const IrField *f, int axis)
{
    return f->bc_face[axis][0].kind == BC_FIXED && f->bc_face[axis][1].kind == BC_FIXED;
}
/* Sets every face of f (a field built by hand, a test). */
static inline void ir_bc_set(IrField *f, BoundaryKind kind, double value)
{
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++)
            f->bc_face[a][s] = (IrBc){kind, kind == BC_CONSTANT ? value : 0.0};
}

typedef struct {
    const char *name;
    double def;        /* default value */
    int has_default;
    int used;
} IrParam;

/* A global scalar of the fields after the step (`reduce name = kind(expr);`): the expression
 * over the interior, in the node form of a stage (reads at level 0 are the newest buffer), its
 * value the stage's one write, whose field is -1; x, y, z, nx, ny, nz may be read, step not.
 * Sums are accumulated in double. */
typedef enum { RED_SUM, RED_MIN, RED_MAX } IrReduceKind;
typedef struct {
    const char *name;
    IrReduceKind kind;
    IrStage stage;
    Loc loc;           /* of the reduced expression */
} IrReduce;

typedef enum { SHAPE_STAR, SHAPE_BOX, SHAPE_GENERAL } IrShape;

/* A dependence between two writes of a step: the write of `to_field` (in stage to_stage) uses
 * the value that the write of `from_field` (a temp, in stage from_stage) produced. Through
 * registers when both are in one stage (a temp read at offset 0), through memory across a
 * stage boundary, at offsets lo..hi per axis. */
typedef struct {
    int from_field, from_stage;
    int to_field, to_stage;
    int through_memory;
    int lo[3], hi[3];
} IrDep;

#define IR_MAX_DEPS 64

typedef struct {
    int radius;            /* largest |offset| over all axes and fields */
    IrShape shape;         /* of the union of all reads of the (single) state field, or general */
    int points;            /* distinct (field, level, offset) reads over all stages */
    int flops_written;     /* as the literature counts: the source expression, lets expanded */
    int flops;             /* arithmetic nodes after folding and CSE, all stages */
    int bytes_per_point;   /* one read of every field read (each time level read counts:
                              u and u@-1 are two buffers) + one write of every field written
                              to memory, times the element size (no reuse counted twice) */
    int fields_read, fields_written;
    int symmetric;         /* bit d: the step is symmetric along axis d (ir_step_symmetric) */
    IrDep deps[IR_MAX_DEPS]; /* the dependences between the step's writes (ir/deps.c) */
    int ndeps;               /* may stop at IR_MAX_DEPS */
} IrAnalysis;

typedef struct {
    const char *name;
    int dims;
    ElemType type;
    long size[3];       /* default interior size (from `size`, else 0) */
    long steps;         /* default step count (from `steps`, else 0) */
    IrField *fields;
    int nfields, cap_fields;
    IrParam *params;
    int nparams, cap_params;
    IrStage *stages;
    int nstages, cap_stages;
    int halo[3];        /* halo width per axis; 0 on axes >= dims */
    int fast_math;      /* --fast-math: the optimized float kernels may use approximate
                           arithmetic (codegen/fast_arith.c), verified at a looser tolerance
                           (rt_tolerance); the plain kernel stays IEEE */
    const char *c_prefix; /* --name: the prefix of every emitted C symbol, type and macro; NULL:
                             the name made an identifier (cg_prefix) */
    int same_bits;      /* --same-bits: every kernel rounds each operation explicitly, in the
                           IR's order (codegen/kir_rounded.c), so all kernel families give the
                           same bits; excludes fast_math */
    int fast_ops;       /* set on the optimized kernels' copy of a fast_math program: the
                           emitter writes the approximate intrinsics (__fdividef, __expf, ...) */
    IrAnalysis an;
    IrReduce *reduces;  /* evaluated on the state after the step, in source order */
    int nreduces, cap_reduces;
} IrProgram;

/* Lowers one stencil of the AST to IR with semantic checks (diagnostics through diag). Returns
 * NULL on errors. The type override, when >= 0, replaces the stencil's element type. */
IrProgram *ir_lower(const AstStencil *st, Arena *arena, Diag *diag);

/* Analyses (fills prog->an and the fields' footprints; lowering calls it). */
void ir_analyse(IrProgram *prog);

/* Finds the dependences between the writes of the step (fills prog->an.deps; ir_analyse calls
 * it). */
void ir_find_deps(IrProgram *prog);

/* Whether every stage of the step gives the same values with every read's offset along axis
 * negated (ir/symmetry.c): the commutative operations' operands compared in any order, sums and
 * products as flat lists. 0 also where that cannot be shown. */
int ir_step_symmetric(const IrProgram *prog, int axis);
/* The axes the step is symmetric along, bit d for axis d (IrAnalysis.symmetric). */
int ir_step_symmetry(const IrProgram *prog);

/* Prints the IR and its analyses readably (--dump-ir). */
void ir_dump(FILE *out, const IrProgram *prog);
/* Appends f's boundary as the language writes it (docs/language.md): one condition where every
 * face has it, else one per axis of a dims-D grid, `low | high` where an axis's faces differ. */
void ir_bc_spec(StrBuf *o, const IrField *f, int dims);

/* Names for printing. */
const char *ir_op_name(IrOp op);
const char *ir_shape_name(IrShape s);

/* Replaces the element type (the CLI's --type) and updates the analyses that depend on it. */
void ir_set_type(IrProgram *prog, ElemType type);

/* Checks that an interior of n[0..dims-1] points fits the program's halo: every axis needs at
 * least max(1, halo[d]) points. Returns 0 when it fits; -1 (radius too large for the grid) or
 * IR_GRID_TOO_LARGE (a padded extent above IR_MAX_EXTENT, or more than IR_MAX_ELEMS elements
 * per buffer) with a reason in why otherwise. */
int ir_check_grid(const IrProgram *prog, const long n[3], char *why, int len);
#define IR_GRID_TOO_LARGE (-2)
/* 0 when an interior of n[0..dims-1] points is small enough to index (ir.h's index range);
 * otherwise IR_GRID_TOO_LARGE with the reason in why (may be NULL). */
int ir_check_extent(int dims, const int halo[3], const long long n[3], char *why, int len);

/* The value of one operation on doubles, as the interpreter and constant folding compute it
 * (comparisons and logic give 1 or 0; select(a,b,c) is a != 0 ? b : c). */
double ir_eval_op(IrOp op, double a, double b, double c);

/* Runs the interpreter on a small odd-sized grid with random data for `steps` steps (0: 10) and
 * prints a summary (grid, steps, per field min/max/mean/checksum, NaN/Inf warnings) to out.
 * Returns 0, or 1 when a field holds NaN or Inf (ir/check.c, `stencilc check`), or 2 when tick
 * (called before each step, as interp_run_ticking does; NULL: never) stopped the run: then
 * nothing is printed. */
int ir_check_report(FILE *out, const IrProgram *prog, unsigned seed, int steps,
                    int (*tick)(void *ctx, int done, int total), void *ctx);

static inline int ir_elem_size(const IrProgram *p) { return p->type == ELEM_DOUBLE ? 8 : 4; }
/* The element type's C name. */
static inline const char *ir_elem_name(ElemType t) { return t == ELEM_DOUBLE ? "double" : "float"; }
/* A field role's name as the language spells it. */
static inline const char *ir_role_name(FieldRole r) { return r == ROLE_STATE ? "state" : r == ROLE_COEF ? "coef" : "temp"; }
/* A boundary condition's name as the language spells it (inline, as ir_op_arity). */
static inline const char *ir_bc_name(BoundaryKind bc)
{
    static const char *const names[] = {[BC_FIXED] = "fixed", [BC_CONSTANT] = "constant", [BC_PERIODIC] = "periodic",
                                        [BC_CLAMP] = "clamp", [BC_MIRROR] = "mirror"};
    return bc >= 0 && bc < (int)(sizeof names / sizeof names[0]) && names[bc] ? names[bc] : "?";
}
/* A reduction's kind as the language spells it. */
static inline const char *ir_reduce_kind_name(IrReduceKind k)
{
    return k == RED_SUM ? "sum" : k == RED_MIN ? "min" : k == RED_MAX ? "max" : "?";
}
/* The node holding a reduction's value. */
static inline int ir_reduce_node(const IrReduce *r) { return r->stage.nwrites ? r->stage.writes[0].node : -1; }
/* What an operation is (ir/ops.def, the one table of them). */
typedef struct {
    const char *name;     /* in dumps */
    const char *fn;       /* the language's function, or NULL for an operator */
    int arity;
    const char *c_fn[2];  /* the C function for double and for float, or NULL */
} IrOpInfo;
/* What op is (ir/ops.def; inline, so codegen uses it without linking the IR). */
static inline const IrOpInfo *ir_op(IrOp op)
{
    static const IrOpInfo table[N_OP_COUNT + 1] = {
#define OP(id, name, fn, arity, c_double, c_float) [id] = {name, fn, arity, {c_double, c_float}},
#include "ops.def"
#undef OP
        [N_OP_COUNT] = {"?", NULL, 0, {NULL, NULL}},
    };
    return &table[op >= 0 && op < N_OP_COUNT ? op : N_OP_COUNT];
}
/* Operand count of an op: 0 for leaves. */
static inline int ir_op_arity(IrOp op) { return ir_op(op)->arity; }

/* The built-ins a stage reads (docs/language.md, "Coordinates"), as a mask of
 * IR_USES_COORD(axis) (x, y, z), IR_USES_EXTENT(axis) (nx, ny, nz) and IR_USES_STEP. A point that
 * reads one is not the same function of its neighbours everywhere: analyses that assume so
 * (retiming's weighted sums) refuse such a stage. */
#define IR_USES_COORD(axis) (1 << (axis))
#define IR_USES_EXTENT(axis) (1 << (3 + (axis)))
#define IR_USES_STEP (1 << 6)
#define IR_USES_COORDS (IR_USES_COORD(0) | IR_USES_COORD(1) | IR_USES_COORD(2))
static inline int ir_stage_builtins(const IrStage *st)
{
    int m = 0;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        m |= n->op == N_COORD ? IR_USES_COORD(n->param) : n->op == N_EXTENT ? IR_USES_EXTENT(n->param)
           : n->op == N_STEP  ? IR_USES_STEP : 0;
    }
    return m;
}
/* The same over all the step's stages. */
static inline int ir_program_builtins(const IrProgram *p)
{
    int m = 0;
    for (int s = 0; s < p->nstages; s++)
        m |= ir_stage_builtins(&p->stages[s]);
    return m;
}

/* The number of state fields of p; *first (when given) gets the first one's index, or -1. */
static inline int ir_state_fields(const IrProgram *p, int *first)
{
    int n = 0;
    if (first)
        *first = -1;
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE) {
            if (first && *first < 0)
                *first = f;
            n++;
        }
    return n;
}

#endif
