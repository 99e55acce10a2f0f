/* The abstract syntax tree of a .st file, as written. Names are not resolved here: the IR
 * lowering (ir/lower.c) checks them. Every node carries its source location. */
#ifndef STC_AST_H
#define STC_AST_H
#include "../util/arena.h"
#include "../util/diag.h"

typedef enum {
    AST_NUM,    /* num */
    AST_NAME,   /* name: param, const, let, or a field read at zero offset */
    AST_READ,   /* name, level (0 or -1...), offs[noffs]: a field read at offsets */
    AST_UNARY,  /* op ('-', '+', '!'), a */
    AST_BINARY, /* op (AstOp), a, b */
    AST_COND,   /* a ? b : c */
    AST_CALL,   /* name(args[nargs]) */
} AstKind;

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_AND, OP_OR,
    OP_NEG, OP_PLUS, OP_NOT,
} AstOp;

typedef struct AstExpr AstExpr;
struct AstExpr {
    AstKind kind;
    Loc loc;
    AstOp op;
    double num;
    int num_is_int;   /* the literal had no '.', exponent */
    const char *name; /* AST_NAME, AST_READ, AST_CALL */
    int level;        /* AST_READ/AST_NAME: 0, or -1 for name@-1 */
    AstExpr *a, *b, *c;
    AstExpr **args;   /* AST_READ: offsets; AST_CALL: arguments */
    int nargs;
};

typedef enum { ROLE_STATE, ROLE_COEF, ROLE_TEMP } FieldRole;
typedef enum { BC_FIXED, BC_CONSTANT, BC_PERIODIC, BC_CLAMP, BC_MIRROR } BoundaryKind;
typedef enum { ELEM_FLOAT, ELEM_DOUBLE } ElemType;

typedef enum {
    DECL_PARAM, /* name, value (may be NULL) */
    DECL_CONST, /* name, value */
    DECL_FIELD, /* name, role, levels (0 = not given), the boundary (bc_axes, bc) */
} DeclKind;

/* One face's boundary condition as written: its kind, constant(v)'s value (may be NULL) and
 * where it is. */
typedef struct {
    BoundaryKind kind;
    AstExpr *value;
    Loc loc;
} AstBc;

typedef struct {
    DeclKind kind;
    Loc loc;      /* of the name */
    const char *name;
    AstExpr *value;
    FieldRole role;
    int levels;
    int has_bc;
    /* `boundary` gives bc_axes conditions (1: every face; else one per axis, x first; more than
     * 3 are counted, not kept), each for the low and the high face: bc[axis][0] and [1], equal
     * where one condition was written for the axis (bc_split[axis] == 0). */
    int bc_axes;
    AstBc bc[3][2];
    int bc_split[3];
    Loc bc_loc;
} AstDecl;

/* STMT_REDUCE: `reduce name = kind(expr);`, value the call (the lowering reads the kind). */
typedef enum { STMT_LET, STMT_ASSIGN, STMT_REDUCE } StmtKind;

typedef struct {
    StmtKind kind;
    Loc loc;      /* of the target name */
    const char *name;
    AstExpr *value;
} AstStmt;

typedef struct {
    const char *name;
    Loc loc;
    int dims;           /* 0 when no `grid` was given */
    Loc dims_loc;
    int has_type;
    ElemType type;
    int nsize;          /* count of `size` values, 0 if absent */
    long size[3];
    Loc size_loc;
    long steps;         /* 0 if absent */
    /* Declarations and statements in source order (they may interleave). */
    AstDecl *decls;
    int ndecls, cap_decls;
    AstStmt *stmts;
    int nstmts, cap_stmts;
    /* For each statement, how many decls came before it (scoping: declare before use). */
    int *stmt_after_decls;
    int cap_sad;
} AstStencil;

typedef struct {
    AstStencil *stencils;
    int nstencils, cap_stencils;
} AstFile;

/* Parses src into *out (allocated in arena). Reports errors through diag; returns the number of
 * errors. Never crashes or hangs on any input; nesting deeper than 256 is an error. */
int parse_source(const Source *src, Arena *arena, Diag *diag, AstFile *out);

/* Reads a file into src (text allocated in arena). Reports unreadable paths, directories,
 * files over 64 MiB and binary input through diag. Returns 0 on success. */
int source_read(const char *path, Arena *arena, Diag *diag, Source *src);

/* Prints the AST back as source (for tests and --dump-ast). */
void ast_print(FILE *out, const AstFile *file);

#endif
