/* The kernel representation: what a stencil kernel is made of, built by the kernel families
 * (opt_*.c, emit_*.c) and written out by one printer per target (kir_cuda.c). Expressions are
 * trees of KExpr, statements are KStmt in KBlocks; a KKernel is a signature and a body. Nothing
 * here is text until a printer walks it, so a test can inspect a kernel's structure and a second
 * target (C with OpenMP) needs a printer, not new builders.
 *
 * Everything lives in the arena given to kb_new and is freed with it. */
#ifndef STC_KIR_H
#define STC_KIR_H
#include "../ir/ir.h"
#include "../util/arena.h"
#include "../util/strbuf.h"

typedef enum {
    KE_INT,     /* integer literal: ival, unsigned_lit */
    KE_REAL,    /* floating constant exactly in elem type: fval, elem */
    KE_VAR,     /* a variable, parameter or array by name */
    KE_THREAD,  /* the thread's index in its block along axis (CUDA threadIdx) */
    KE_BLOCK,   /* the block's index along axis (CUDA blockIdx) */
    KE_UNARY,   /* op a */
    KE_BINARY,  /* a op b */
    KE_SELECT,  /* a ? b : c */
    KE_CAST,    /* (type)a */
    KE_INDEX,   /* a[b] */
    KE_CALL,    /* name(args...) */
    KE_BRACE,   /* name{args...}: a vector value built from its lanes */
    KE_MEMBER,  /* a.name: a vector's lane */
    KE_SHUFFLE, /* a's value in another lane of the warp (shuffle: KSH_*, b: lane or distance) */
} KExprKind;

/* Which lane a KE_SHUFFLE reads: lane b, the lane b below, the lane b above (all lanes take part). */
typedef enum { KSH_IDX, KSH_UP, KSH_DOWN } KShuffle;

typedef enum {
    KO_NEG, KO_NOT, KO_ADDR, KO_DEREF,            /* unary: - ! & * */
    KO_MUL, KO_DIV, KO_MOD, KO_ADD, KO_SUB,       /* arithmetic */
    KO_LT, KO_LE, KO_GT, KO_GE, KO_EQ, KO_NE,     /* comparisons */
    KO_LAND, KO_LOR, KO_BOR,                      /* logical, bitwise or */
    KO_BAND,                                      /* bitwise and */
} KOp;

typedef struct KExpr KExpr;
struct KExpr {
    KExprKind kind;
    KOp op;
    int axis;            /* KE_THREAD, KE_BLOCK */
    long long ival;      /* KE_INT; KE_BLOCK: 1 numbers the blocks ends first (k_block_ends_first),
                            2 faces first (k_block_faces_first) */
    int unsigned_lit;    /* KE_INT: printed with a u suffix */
    double fval;         /* KE_REAL */
    ElemType elem;       /* KE_REAL */
    const char *name;    /* KE_VAR, KE_CALL; KE_CAST: the type */
    KExpr *a, *b, *c;
    KExpr **args;        /* KE_CALL */
    int nargs;
    KShuffle shuffle;    /* KE_SHUFFLE */
};

typedef enum {
    KS_DECL,     /* [const] type name [= init]; */
    KS_ASSIGN,   /* lhs = rhs; (op: KO_ADD for +=) */
    KS_IF,       /* if (cond) then [else els] */
    KS_FOR,      /* for (int var = init; var < limit; var += step) body, with an unroll hint */
    KS_BLOCK,    /* { body } */
    KS_RETURN,
    KS_CONTINUE,
    KS_BARRIER,  /* all threads of the block wait (CUDA __syncthreads) */
    KS_COMMENT,
    KS_EVAL,     /* rhs; evaluated for its effect ((void)x: x may go unused) */
    KS_BREAK,    /* out of the innermost loop */
    KS_COPY,     /* lhs (a shared-memory element) = cond ? *rhs : 0, asynchronously where the GPU
                    can (cp.async, sm_80 and later): complete after KS_COPY_COMMIT and KS_COPY_WAIT */
    KS_COPY_COMMIT, /* the copies issued since the last commit form one group */
    KS_COPY_WAIT,   /* this thread waits until at most `extent` groups are pending */
} KStmtKind;

typedef struct KStmt KStmt;
typedef struct {
    KStmt **items;
    int n, cap;
} KBlock;

/* Qualifiers of a declaration. */
enum {
    KQ_CONST = 1,
    KQ_SHARED = 2,    /* in the block's shared memory */
    KQ_CONSTANT = 4,  /* in constant memory (at file scope) */
    KQ_ARRAY = 8,     /* an array of `extent` elements (0: dynamic shared memory) */
};

struct KStmt {
    KStmtKind kind;
    int quals;           /* KS_DECL: KQ_*; KS_ASSIGN: 1 for += */
    const char *type;    /* KS_DECL */
    const char *name;    /* KS_DECL, KS_FOR's variable; KS_COMMENT's text */
    long long extent;    /* KS_DECL with KQ_ARRAY: the element count (0: extern, dynamic) */
    int align;           /* KS_DECL: alignment in bytes, or 0 */
    KExpr **inits;       /* KS_DECL with KQ_ARRAY: the initial values, ninits of them */
    int ninits, cap_inits;
    KExpr *init;         /* KS_DECL (may be NULL), KS_FOR's start */
    KExpr *lhs, *rhs;    /* KS_ASSIGN */
    KExpr *cond;         /* KS_IF; KS_FOR's limit (var < cond) */
    KExpr *step;         /* KS_FOR (NULL: 1) */
    int unroll;          /* KS_FOR: 0 no pragma, N > 0 `unroll N`, -1 `unroll` */
    KBlock body, els;    /* KS_IF, KS_FOR, KS_BLOCK */
    int inclusive;       /* KS_FOR: the loop runs while var <= limit */
};

/* A kernel parameter: an array of elem (const unless written) or a scalar. */
typedef struct {
    const char *type;    /* element or scalar type */
    const char *name;
    int pointer, writes;
} KParam;

typedef struct {
    const char *comment; /* printed above the kernel, or NULL */
    const char *name;
    int maxreg;          /* > 1: a register cap; else threads is the launch bound */
    int threads;
    KParam *params;
    int nparams, cap;
    KBlock body;
} KKernel;

/* The device code of a plan as built: file-scope declarations and kernels, in order. */
typedef struct {
    const KStmt *global; /* a comment or a constant-memory array; NULL for a kernel */
    const KKernel *kernel;
} KItem;
typedef struct {
    KItem *items;
    int n, cap;
} KModule;

/* The builder: an arena and the element type's C name. */
typedef struct {
    Arena *arena;
    ElemType elem;
} Kb;

/* ---- expressions ---- */
KExpr *k_int(Kb *b, long long v);
KExpr *k_uint(Kb *b, long long v);
KExpr *k_real(Kb *b, double v);              /* in b->elem */
KExpr *k_var(Kb *b, const char *name);
KExpr *k_varf(Kb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
KExpr *k_thread(Kb *b, int axis);
KExpr *k_block(Kb *b, int axis);
/* The block's place along axis when the blocks at both ends are scheduled first: block 0 is
 * 0, block 1 the last, block k > 1 is k - 1. A permutation of [0, gridDim): a kernel whose end
 * blocks are its slow ones starts them in the first wave instead of leaving them for a tail.
 * A copy numbered from an offset (kir_offset_blocks) numbers that axis plainly. */
KExpr *k_block_ends_first(Kb *b, int axis);
/* The place along axis 0 (x) or 1 of a block of a 2D grid whose blocks at both ends along x are
 * scheduled first, all of them (the first 2*gridDim.y), then the others row by row, the rows
 * at both ends along 1 first. A permutation of the grid: a kernel whose blocks at the x faces run
 * other code than the rest keeps the two apart in time (an SM that runs both fetches
 * instructions from both). A copy numbered from an offset (kir_offset_blocks) numbers every
 * axis plainly. */
KExpr *k_block_faces_first(Kb *b, int axis);
KExpr *k_un(Kb *b, KOp op, KExpr *a);
KExpr *k_bin(Kb *b, KOp op, KExpr *x, KExpr *y);
KExpr *k_add(Kb *b, KExpr *x, KExpr *y);
KExpr *k_sub(Kb *b, KExpr *x, KExpr *y);
KExpr *k_mul(Kb *b, KExpr *x, KExpr *y);
/* x + c, x - |c| or x itself for c == 0: an offset term as the old printer wrote it. */
KExpr *k_plus(Kb *b, KExpr *x, long long c);
/* x + c * stride (x - stride, x + stride, x + 3 * stride; x itself for c == 0). */
KExpr *k_plus_scaled(Kb *b, KExpr *x, long long c, KExpr *stride);
KExpr *k_select(Kb *b, KExpr *c, KExpr *x, KExpr *y);
KExpr *k_cast(Kb *b, const char *type, KExpr *a);
KExpr *k_index(Kb *b, KExpr *array, KExpr *index);
KExpr *k_call(Kb *b, const char *fn, int nargs, ...);
/* type{lanes...} from an array of n expressions. */
KExpr *k_brace(Kb *b, const char *type, KExpr **lanes, int n);
KExpr *k_member(Kb *b, KExpr *a, const char *name);
/* a && b with either side NULL meaning true. */
KExpr *k_and(Kb *b, KExpr *x, KExpr *y);
KExpr *k_or(Kb *b, KExpr *x, KExpr *y);

/* ---- statements ---- */
KStmt *k_decl(Kb *b, int quals, const char *type, const char *name, KExpr *init);
KStmt *k_array(Kb *b, int quals, const char *type, const char *name, long long extent);
KStmt *k_assign(Kb *b, KExpr *lhs, KExpr *rhs);
KStmt *k_if(Kb *b, KExpr *cond);
KStmt *k_for(Kb *b, const char *var, KExpr *start, KExpr *limit, KExpr *step, int unroll);
KStmt *k_scope(Kb *b);
KStmt *k_return(Kb *b);
KStmt *k_continue(Kb *b);
KStmt *k_break(Kb *b);
KStmt *k_barrier(Kb *b);
KStmt *k_comment(Kb *b, const char *text);
void k_push(Kb *b, KBlock *block, KStmt *s);
/* Appends an initial value to an array declaration. */
void k_push_init(Kb *b, KStmt *array, KExpr *value);
/* `const type name = init;` pushed onto block; returns a KE_VAR of name. */
KExpr *k_let(Kb *b, KBlock *block, const char *type, const char *name, KExpr *init);

/* ---- kernels ---- */
KKernel *k_kernel(Kb *b, const char *name, int maxreg, int threads);
void k_param(Kb *b, KKernel *k, const char *type, const char *name, int pointer, int writes);

void k_module_add(Kb *b, KModule *m, const KStmt *global, const KKernel *kernel);
/* The kernel of that name in m, or NULL. */
const KKernel *k_module_kernel(const KModule *m, const char *name);

/* A copy of k named `name` whose blocks along the grid axes of `axes` (bit d: axis d) are
 * numbered from offsets, its last parameters `unsigned PARAMx_`, `PARAMy_`, `PARAMz_` (those of
 * axes): launched on a sub-box of k's grid (from the offsets), its blocks compute what k's
 * blocks of the same numbers do (kir_offset.c). */
KKernel *kir_offset_blocks(Kb *b, const KKernel *k, const char *name, unsigned axes, const char *param);

/* ---- walking a kernel (tests check structure with these) ---- */
/* Statements of kind in block and all blocks nested in it. */
int kir_count_stmts(const KBlock *b, KStmtKind kind);
/* The n-th (0-based, depth first, in order) statement of kind in block, or NULL. */
const KStmt *kir_find_stmt(const KBlock *b, KStmtKind kind, int n);
/* Index expressions into the array named `array` anywhere in block (loads and stores). */
int kir_count_index(const KBlock *b, const char *array);

/* ---- the CUDA printer (kir_cuda.c) ---- */
void kir_cuda_expr(StrBuf *out, const KExpr *e);
void kir_cuda_block(StrBuf *out, const KBlock *block, int depth);
void kir_cuda_kernel(StrBuf *out, const KKernel *k);
/* Only the kernel's comment, signature and opening brace. */
void kir_cuda_kernel_head(StrBuf *out, const KKernel *k);
/* A declaration at file scope (constant-memory arrays). */
void kir_cuda_global(StrBuf *out, const KStmt *decl);

/* ---- appended: warp shuffles, compound assignment, expression statements ---- */
KExpr *k_shuffle(Kb *b, KShuffle kind, KExpr *value, KExpr *lane);
/* lhs += rhs; */
KStmt *k_assign_add(Kb *b, KExpr *lhs, KExpr *rhs);
/* `e;` */
KStmt *k_eval(Kb *b, KExpr *e);

/* ---- appended: asynchronous copies into shared memory (KS_COPY) ---- */
/* dst = cond ? *src : 0, dst of type T (float or double), src a pointer to global memory. */
KStmt *k_copy(Kb *b, KExpr *dst, KExpr *src, KExpr *cond, const char *T);
KStmt *k_copy_commit(Kb *b);
KStmt *k_copy_wait(Kb *b, int pending);

/* The element type's C name: "float" or "double" (the one place it is spelled). */
const char *k_elem_name(ElemType t);

#endif
