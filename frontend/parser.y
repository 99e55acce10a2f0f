/* The grammar of docs/language.md, for GNU Bison. Builds the AST of ast.h; reports syntax
 * errors with their location and what was expected, and recovers at ';' and '}' so that one
 * run reports several errors. */
%define api.pure full
%define api.prefix {parse_}
%define api.token.prefix {TOK_}
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%param {ParseState *ps}
/* On the token `error` after a stencil's items: shifting (recovering inside the stencil) is right. */
%expect 1

%code requires {
#include "ast.h"
typedef struct ParseState ParseState;
/* An expression with its syntactic nesting (brackets, unary operators, conditionals) and its
 * tree depth, both bounded so that later recursive passes stay within the stack. */
typedef struct { AstExpr *e; int nest, depth; } ExprVal;
typedef struct { AstExpr **items; int n, cap, nest, depth; } ExprList;
typedef struct { AstBc bc; int known; } BcVal;
/* `boundary`'s conditions: per axis, the low and the high face (docs/language.md). */
typedef struct { AstBc face[2]; int split, known; } BcAxis;
typedef struct { AstBc bc[3][2]; int split[3], n, known; } BcAxes;
typedef struct { int levels; Loc levels_loc; int has_bc; BcAxes bc; Loc bc_loc; } FieldOpts;
typedef struct { long v[3]; int n; } SizeList;
}

%code {
#include "lexer.h"
#include "../util/nearest.h"

#include <string.h>

#define PARSE_MAX_DEPTH 10000 /* deepest expression tree (long sums are left-deep chains) */
#define YYMAXDEPTH 10000      /* parser stack; valid input nested 256 deep needs far less */
#define YYINITDEPTH 256

#define YYLLOC_DEFAULT(Cur, Rhs, N) do {                                              \
    if (N) {                                                                           \
        (Cur) = YYRHSLOC(Rhs, 1);                                                      \
        Loc end_ = YYRHSLOC(Rhs, N);                                                   \
        if (end_.line == (Cur).line && end_.col + end_.len > (Cur).col + (Cur).len)    \
            (Cur).len = end_.col + end_.len - (Cur).col;                               \
    } else {                                                                           \
        (Cur) = YYRHSLOC(Rhs, 0);                                                      \
        (Cur).col += (Cur).len;                                                        \
        (Cur).len = 1;                                                                 \
    }                                                                                  \
} while (0)

struct ParseState {
    Lexer lx;
    Arena *arena;
    Diag *diag;
    AstFile *file;
    int cur;           /* index of the stencil being parsed */
    Loc type_loc, steps_loc;
    int item_token;    /* the token that began the current declaration or statement */
    int prev_token;    /* the last token read (the lookahead, when an error is found) */
    int before_token;  /* the one before it */
    int *names;        /* the stencils by name: open addressing, index + 1 (0: empty slot), so
                          that a file of 40,000 stencils is not checked in quadratic time */
    int names_cap, names_used;
};

static int parse_lex(PARSE_STYPE *val, Loc *loc, ParseState *ps);
static void parse_error(Loc *loc, ParseState *ps, const char *msg);

static AstStencil *cur_stencil(ParseState *ps) { return &ps->file->stencils[ps->cur]; }

/* Reports an expression that crosses a limit; its children were within the limits. */
static void check_limits(ParseState *ps, Loc loc, int nest, int child_nest, int depth)
{
    if (nest > LEX_MAX_NEST && child_nest <= LEX_MAX_NEST)
        diag_error(ps->diag, loc, STC_E_TOO_DEEP, "expression nested too deeply (the limit is %d levels)",
                   LEX_MAX_NEST);
    if (depth == PARSE_MAX_DEPTH + 1)
        diag_error(ps->diag, loc, STC_E_TOO_DEEP,
                   "expression too long (its tree is deeper than %d levels); split it with 'let'", PARSE_MAX_DEPTH);
}

/* A node whose children have nesting child_nest; brackets, unary operators and conditionals
 * nest one deeper (grows), binary operators do not. */
static ExprVal expr_new(ParseState *ps, AstKind kind, Loc loc, int child_nest, int grows, int depth)
{
    AstExpr *e = arena_alloc(ps->arena, sizeof *e);
    e->kind = kind;
    e->loc = loc;
    check_limits(ps, loc, child_nest + grows, child_nest, depth);
    return (ExprVal){e, child_nest + grows, depth};
}

static int max2(int a, int b) { return a > b ? a : b; }

static ExprVal expr_num(ParseState *ps, Loc loc, double v, int is_int)
{
    ExprVal r = expr_new(ps, AST_NUM, loc, 0, 0, 1);
    r.e->num = v;
    r.e->num_is_int = is_int;
    return r;
}

static ExprVal expr_unary(ParseState *ps, Loc loc, AstOp op, ExprVal a)
{
    ExprVal r = expr_new(ps, AST_UNARY, loc, a.nest, 1, a.depth + 1);
    r.e->op = op;
    r.e->a = a.e;
    return r;
}

static ExprVal expr_binary(ParseState *ps, Loc loc, AstOp op, ExprVal a, ExprVal b)
{
    ExprVal r = expr_new(ps, AST_BINARY, loc, max2(a.nest, b.nest), 0, max2(a.depth, b.depth) + 1);
    r.e->op = op;
    r.e->a = a.e;
    r.e->b = b.e;
    return r;
}

static ExprVal expr_cond(ParseState *ps, Loc loc, ExprVal a, ExprVal b, ExprVal c)
{
    ExprVal r = expr_new(ps, AST_COND, loc, max2(a.nest, max2(b.nest, c.nest)), 1,
                         max2(a.depth, max2(b.depth, c.depth)) + 1);
    r.e->a = a.e;
    r.e->b = b.e;
    r.e->c = c.e;
    return r;
}

static ExprVal expr_name(ParseState *ps, Loc loc, AstKind kind, const char *name, int level, ExprList *args)
{
    ExprVal r = expr_new(ps, kind, loc, args ? args->nest : 0, args != NULL, args ? args->depth + 1 : 1);
    r.e->name = name;
    r.e->level = level;
    if (args) {
        r.e->args = args->items;
        r.e->nargs = args->n;
    }
    return r;
}

static ExprList list_add(ParseState *ps, ExprList l, ExprVal v)
{
    *ARENA_PUSH(ps->arena, l.items, l.n, l.cap) = v.e;
    l.nest = max2(l.nest, v.nest);
    l.depth = max2(l.depth, v.depth);
    return l;
}

static Loc after(Loc l)
{
    if (l.line <= 0)
        return l;
    return (Loc){l.line, l.col + l.len, 1};
}

/* Reports a second `grid`, `type`, ... in one stencil; returns 1 when it was a duplicate. */
static int check_dup(ParseState *ps, int given, Loc first, Loc here, const char *what)
{
    if (!given)
        return 0;
    diag_error(ps->diag, here, STC_E_DUP_DECL, "'%s' given twice in stencil '%s'", what, cur_stencil(ps)->name);
    diag_note(ps->diag, first, "first given here");
    return 1;
}

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of name in ps->names: the one holding it, or the empty one where it would go. */
static int *name_slot(ParseState *ps, const char *name)
{
    unsigned mask = (unsigned)ps->names_cap - 1;
    for (unsigned i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int *slot = &ps->names[i];
        if (!*slot || strcmp(ps->file->stencils[*slot - 1].name, name) == 0)
            return slot;
    }
}

/* Adds stencil index i under its name, growing the table to stay at most half full. */
static void name_add(ParseState *ps, int i)
{
    if (2 * (ps->names_used + 1) > ps->names_cap) {
        int *old = ps->names, old_cap = ps->names_cap;
        ps->names_cap = old_cap ? 2 * old_cap : 64;
        ps->names = arena_alloc(ps->arena, sizeof(int) * (size_t)ps->names_cap);
        for (int k = 0; k < old_cap; k++)
            if (old[k])
                *name_slot(ps, ps->file->stencils[old[k] - 1].name) = old[k];
    }
    *name_slot(ps, ps->file->stencils[i].name) = i + 1;
    ps->names_used++;
}

static void begin_stencil(ParseState *ps, const char *name, Loc loc)
{
    AstFile *f = ps->file;
    int first = -1;
    if (!name[0])
        diag_error(ps->diag, loc, STC_E_SYNTAX, "a stencil name must not be empty");
    else if (ps->names_cap && *name_slot(ps, name)) {
        first = *name_slot(ps, name) - 1;
        diag_error(ps->diag, loc, STC_E_DUP_STENCIL, "a stencil named '%s' is already defined", name);
        diag_note(ps->diag, f->stencils[first].loc, "the first '%s' is here", name);
    }
    AstStencil *st = ARENA_PUSH(ps->arena, f->stencils, f->nstencils, f->cap_stencils);
    memset(st, 0, sizeof *st);
    st->name = name;
    st->loc = loc;
    ps->cur = f->nstencils - 1;
    if (name[0] && first < 0)
        name_add(ps, ps->cur);
    ps->type_loc = ps->steps_loc = (Loc){0, 0, 0};
}

static void add_decl(ParseState *ps, AstDecl d)
{
    AstStencil *st = cur_stencil(ps);
    *ARENA_PUSH(ps->arena, st->decls, st->ndecls, st->cap_decls) = d;
}

static void add_stmt(ParseState *ps, StmtKind kind, const char *name, Loc loc, AstExpr *value)
{
    AstStencil *st = cur_stencil(ps);
    int i = st->nstmts;
    *ARENA_PUSH(ps->arena, st->stmts, st->nstmts, st->cap_stmts) = (AstStmt){kind, loc, name, value};
    arena_grow(ps->arena, (void **)&st->stmt_after_decls, &st->cap_sad, i, sizeof(int));
    st->stmt_after_decls[i] = st->ndecls;
}

/* `boundary perodic`: the kinds, and the nearest one. */
static void unknown_bc(ParseState *ps, Loc at, const char *word)
{
    static const char *const kinds[] = {"fixed", "constant", "periodic", "clamp", "mirror"};
    const char *near = text_nearest(word, kinds, 5, 2);
    diag_error(ps->diag, at, STC_E_SYNTAX, "unknown boundary condition '%s'%s%s%s; expected fixed, constant(v), "
               "periodic, clamp or mirror", word, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
}
}

%union {
    long ival;
    double rval;
    const char *str;
    ExprVal ex;
    ExprList list;
    FieldOpts opts;
    BcVal bc;
    BcAxis bc_axis;
    BcAxes bc_axes;
    SizeList sizes;
    FieldRole role;
}

%token STENCIL "stencil" GRID "grid" TYPE "type" SIZE "size" STEPS "steps" PARAM "param"
%token CONST "const" STATE "state" COEF "coef" TEMP "temp" LEVELS "levels" BOUNDARY "boundary"
%token FIXED "fixed" CONSTANT "constant" PERIODIC "periodic" CLAMP "clamp" MIRROR "mirror"
%token LET "let" REDUCE "reduce" FLOAT "float" DOUBLE "double"
%token EQ "==" NE "!=" LE "<=" GE ">=" AND "&&" OR "||"
%token <str> IDENT "identifier" STRING "string"
%token <ival> INT "integer" DIMS "dimension"
%token <rval> REAL "number"

%type <str> stencil_name
%type <ex> expr primary
%type <list> args offsets
%type <opts> field_opts
%type <bc> bc
%type <bc_axis> bc_axis
%type <bc_axes> bc_axes
%type <sizes> sizes
%type <role> role

%right '?' ':'
%left OR
%left AND
%left EQ NE '<' LE '>' GE
%left '+' '-'
%left '*' '/'
%precedence UNARY

%%

file
    : %empty
    | file stencil
    | file error
    ;

stencil
    : stencil_head items '}'
    | stencil_head items error '}' { yyerrok; }
    | stencil_head items {
          Loc at = after(ps->lx.before);
          if (!ps->lx.stopped)
              diag_error(ps->diag, at, STC_E_SYNTAX, "expected '}' to close stencil '%s'", cur_stencil(ps)->name);
      }
    ;

stencil_head
    : "stencil" stencil_name '{' { begin_stencil(ps, $2, @2); }
    ;

stencil_name
    : IDENT
    | STRING
    ;

items
    : %empty
    | items item
    ;

item
    : decl
    | stmt
    | error ';' { yyerrok; }
    ;

decl
    : "grid" DIMS ';' {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->dims != 0, st->dims_loc, @1, "grid")) {
              if ($2 < 1 || $2 > 3)
                  diag_error(ps->diag, @2, STC_E_SYNTAX, "a grid is 1d, 2d or 3d, not %ldd", $2);
              else {
                  st->dims = (int)$2;
                  st->dims_loc = @2;
              }
          }
      }
    | "grid" INT ';' {
          diag_error(ps->diag, @2, STC_E_SYNTAX, "write the grid dimension as 1d, 2d or 3d");
      }
    | "type" FLOAT ';' {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->has_type, ps->type_loc, @1, "type")) {
              st->has_type = 1;
              st->type = ELEM_FLOAT;
              ps->type_loc = @1;
          }
      }
    | "type" DOUBLE ';' {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->has_type, ps->type_loc, @1, "type")) {
              st->has_type = 1;
              st->type = ELEM_DOUBLE;
              ps->type_loc = @1;
          }
      }
    | "type" IDENT ';' {
          diag_error(ps->diag, @2, STC_E_SYNTAX, "unknown element type '%s'; expected float or double", $2);
      }
    | "size" sizes ';' {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->nsize != 0, st->size_loc, @1, "size")) {
              st->nsize = $2.n > 3 ? 3 : $2.n;
              memcpy(st->size, $2.v, sizeof st->size);
              st->size_loc = @2;
              if ($2.n > 3)
                  diag_error(ps->diag, @2, STC_E_BAD_SIZE, "'size' takes at most 3 values (one per dimension), not %d", $2.n);
          }
      }
    | "steps" INT ';' {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->steps != 0 || ps->steps_loc.line, ps->steps_loc, @1, "steps")) {
              ps->steps_loc = @1;
              if ($2 < 1)
                  diag_error(ps->diag, @2, STC_E_BAD_SIZE, "'steps' must be at least 1");
              else
                  st->steps = $2;
          }
      }
    | "param" IDENT ';' {
          add_decl(ps, (AstDecl){.kind = DECL_PARAM, .loc = @2, .name = $2});
      }
    | "param" IDENT '=' expr ';' {
          add_decl(ps, (AstDecl){.kind = DECL_PARAM, .loc = @2, .name = $2, .value = $4.e});
      }
    | "const" IDENT '=' expr ';' {
          add_decl(ps, (AstDecl){.kind = DECL_CONST, .loc = @2, .name = $2, .value = $4.e});
      }
    | role IDENT field_opts ';' {
          if ($3.levels && $1 != ROLE_STATE)
              diag_error(ps->diag, $3.levels_loc, STC_E_BAD_OPTION, "'levels' applies only to state fields");
          AstDecl d = {.kind = DECL_FIELD, .loc = @2, .name = $2, .role = $1, .levels = $3.levels,
                       .has_bc = $3.has_bc, .bc_axes = $3.bc.n, .bc_loc = $3.bc_loc};
          memcpy(d.bc, $3.bc.bc, sizeof d.bc);
          memcpy(d.bc_split, $3.bc.split, sizeof d.bc_split);
          add_decl(ps, d);
      }
    ;

role
    : "state" { $$ = ROLE_STATE; }
    | "coef"  { $$ = ROLE_COEF; }
    | "temp"  { $$ = ROLE_TEMP; }
    ;

sizes
    : INT {
          $$.n = 1;
          $$.v[0] = $1;
          $$.v[1] = $$.v[2] = 0;
          if ($1 < 1)
              diag_error(ps->diag, @1, STC_E_BAD_SIZE, "a size must be at least 1");
      }
    | sizes ',' INT {
          $$ = $1;
          if ($$.n < 3)
              $$.v[$$.n] = $3;
          $$.n++;
          if ($3 < 1)
              diag_error(ps->diag, @3, STC_E_BAD_SIZE, "a size must be at least 1");
      }
    ;

field_opts
    : %empty { memset(&$$, 0, sizeof $$); }
    | field_opts "levels" INT {
          $$ = $1;
          if ($1.levels || $1.levels_loc.line) {
              diag_error(ps->diag, @2, STC_E_DUP_DECL, "'levels' given twice");
              diag_note(ps->diag, $1.levels_loc, "first given here");
          } else if ($3 != 2 && $3 != 3) {
              diag_error(ps->diag, @3, STC_E_BAD_LEVELS, "a state field has 2 or 3 time levels, not %ld", $3);
              $$.levels_loc = @2;
          } else {
              $$.levels = (int)$3;
              $$.levels_loc = @2;
          }
      }
    | field_opts "boundary" bc_axes {
          $$ = $1;
          if ($1.has_bc) {
              diag_error(ps->diag, @2, STC_E_DUP_DECL, "'boundary' given twice");
              diag_note(ps->diag, $1.bc_loc, "first given here");
          } else if ($3.known) {
              $$.has_bc = 1;
              $$.bc = $3;
              $$.bc_loc = @3;
          }
      }
    ;

/* One condition for every face, or one per axis (x, y, z), each `low | high` or one for both. */
bc_axes
    : bc_axis {
          memset(&$$, 0, sizeof $$);
          $$.n = 1;
          $$.known = $1.known;
          memcpy($$.bc[0], $1.face, sizeof $1.face);
          $$.split[0] = $1.split;
      }
    | bc_axes ',' bc_axis {
          $$ = $1;
          if ($$.n < 3) {
              memcpy($$.bc[$$.n], $3.face, sizeof $3.face);
              $$.split[$$.n] = $3.split;
          }
          $$.n++;
          $$.known &= $3.known;
      }
    ;

bc_axis
    : bc         { $$ = (BcAxis){{$1.bc, $1.bc}, 0, $1.known}; }
    | bc '|' bc  { $$ = (BcAxis){{$1.bc, $3.bc}, 1, $1.known && $3.known}; }
    ;

bc
    : "fixed"               { $$ = (BcVal){{BC_FIXED, NULL, @$}, 1}; }
    | "constant" '(' expr ')' { $$ = (BcVal){{BC_CONSTANT, $3.e, @$}, 1}; }
    | "periodic"            { $$ = (BcVal){{BC_PERIODIC, NULL, @$}, 1}; }
    | "clamp"               { $$ = (BcVal){{BC_CLAMP, NULL, @$}, 1}; }
    | "mirror"              { $$ = (BcVal){{BC_MIRROR, NULL, @$}, 1}; }
    | IDENT                 { unknown_bc(ps, @1, $1); $$ = (BcVal){{BC_FIXED, NULL, @$}, 0}; }
    | IDENT '(' expr ')'    { unknown_bc(ps, @1, $1); $$ = (BcVal){{BC_FIXED, NULL, @$}, 0}; }
    ;

stmt
    : "let" IDENT '=' expr ';' { add_stmt(ps, STMT_LET, $2, @2, $4.e); }
    | IDENT '=' expr ';'       { add_stmt(ps, STMT_ASSIGN, $1, @1, $3.e); }
    | "reduce" IDENT '=' expr ';' { add_stmt(ps, STMT_REDUCE, $2, @2, $4.e); }
    ;

expr
    : primary
    | expr '?' expr ':' expr { $$ = expr_cond(ps, @$, $1, $3, $5); }
    | expr OR expr           { $$ = expr_binary(ps, @$, OP_OR, $1, $3); }
    | expr AND expr          { $$ = expr_binary(ps, @$, OP_AND, $1, $3); }
    | expr EQ expr           { $$ = expr_binary(ps, @$, OP_EQ, $1, $3); }
    | expr NE expr           { $$ = expr_binary(ps, @$, OP_NE, $1, $3); }
    | expr '<' expr          { $$ = expr_binary(ps, @$, OP_LT, $1, $3); }
    | expr LE expr           { $$ = expr_binary(ps, @$, OP_LE, $1, $3); }
    | expr '>' expr          { $$ = expr_binary(ps, @$, OP_GT, $1, $3); }
    | expr GE expr           { $$ = expr_binary(ps, @$, OP_GE, $1, $3); }
    | expr '+' expr          { $$ = expr_binary(ps, @$, OP_ADD, $1, $3); }
    | expr '-' expr          { $$ = expr_binary(ps, @$, OP_SUB, $1, $3); }
    | expr '*' expr          { $$ = expr_binary(ps, @$, OP_MUL, $1, $3); }
    | expr '/' expr          { $$ = expr_binary(ps, @$, OP_DIV, $1, $3); }
    | '-' expr %prec UNARY   { $$ = expr_unary(ps, @$, OP_NEG, $2); }
    | '+' expr %prec UNARY   { $$ = expr_unary(ps, @$, OP_PLUS, $2); }
    | '!' expr %prec UNARY   { $$ = expr_unary(ps, @$, OP_NOT, $2); }
    ;

primary
    : INT                          { $$ = expr_num(ps, @$, (double)$1, 1); }
    | REAL                         { $$ = expr_num(ps, @$, $1, 0); }
    | '(' expr ')'                 { $$ = $2; $$.nest++; check_limits(ps, @$, $$.nest, $2.nest, 0); }
    | IDENT                        { $$ = expr_name(ps, @$, AST_NAME, $1, 0, NULL); }
    | IDENT '@' '-' INT            { $$ = expr_name(ps, @$, AST_NAME, $1, -(int)$4, NULL); }
    | IDENT '[' offsets ']'        { $$ = expr_name(ps, @$, AST_READ, $1, 0, &$3); }
    | IDENT '@' '-' INT '[' offsets ']' { $$ = expr_name(ps, @$, AST_READ, $1, -(int)$4, &$6); }
    | IDENT '(' ')'                { ExprList none = {0}; $$ = expr_name(ps, @$, AST_CALL, $1, 0, &none); }
    | IDENT '(' args ')'           { $$ = expr_name(ps, @$, AST_CALL, $1, 0, &$3); }
    | "clamp" '(' args ')'         { $$ = expr_name(ps, @$, AST_CALL, "clamp", 0, &$3); } /* also a boundary */
    ;

offsets
    : expr              { $$ = list_add(ps, (ExprList){0}, $1); }
    | offsets ',' expr  { $$ = list_add(ps, $1, $3); }
    ;

args
    : expr              { $$ = list_add(ps, (ExprList){0}, $1); }
    | args ',' expr     { $$ = list_add(ps, $1, $3); }
    ;

%%

static int parse_lex(PARSE_STYPE *val, Loc *loc, ParseState *ps)
{
    /* '|' is a token between a boundary's faces only; elsewhere the lexer says "did you mean ||" */
    int t = lex_next(&ps->lx, val, loc);
    if (t == TOK_BOUNDARY)
        ps->lx.bar_ok = 1;
    else if (t == ';' || t == '{' || t == '}' || t == TOK_LEVELS)
        ps->lx.bar_ok = 0;
    if (ps->prev_token == 0 || ps->prev_token == ';' || ps->prev_token == '{' || ps->prev_token == '}')
        ps->item_token = t;
    ps->before_token = ps->prev_token;
    ps->prev_token = t;
    return t;
}

static void parse_error(Loc *loc, ParseState *ps, const char *msg)
{
    if (ps->lx.stopped)
        return;
    if (strstr(msg, "exhausted")) {
        diag_error(ps->diag, *loc, STC_E_TOO_DEEP, "expression nested too deeply (the limit is %d levels)", LEX_MAX_NEST);
        ps->lx.stopped = 1;
    } else
        diag_error(ps->diag, *loc, STC_E_SYNTAX, "%s", msg);
}

/* The part of the item that a missing ';' follows, for "expected ';' after ...". */
static const char *item_phrase(int token)
{
    switch (token) {
    case TOK_GRID: return "the grid declaration";
    case TOK_TYPE: return "the type declaration";
    case TOK_SIZE: return "the size declaration";
    case TOK_STEPS: return "the steps declaration";
    case TOK_PARAM: return "the parameter declaration";
    case TOK_CONST: return "the constant declaration";
    case TOK_STATE: case TOK_COEF: case TOK_TEMP: return "the field declaration";
    case TOK_LET: return "the let statement";
    case TOK_REDUCE: return "the reduction";
    case TOK_IDENT: return "the assignment";
    default: return "the statement";
    }
}

static int has(const yysymbol_kind_t *set, int n, yysymbol_kind_t k)
{
    for (int i = 0; i < n; i++)
        if (set[i] == k)
            return 1;
    return 0;
}

/* Removes k from set; returns whether it was there. */
static int take(yysymbol_kind_t *set, int *n, yysymbol_kind_t k)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == k) {
            memmove(set + i, set + i + 1, (size_t)(*n - i - 1) * sizeof *set);
            (*n)--;
            return 1;
        }
    return 0;
}

/* Describes the token the parser did not expect (the last one read). */
static const char *describe_found(ParseState *ps, yysymbol_kind_t k)
{
    int len = ps->lx.last_len > 40 ? 40 : ps->lx.last_len;
    const char *text = ps->lx.last_text;
    switch ((int)k) {
    case YYSYMBOL_YYEOF: return "end of file";
    case YYSYMBOL_IDENT: return arena_printf(ps->arena, "name '%.*s'", len, text);
    case YYSYMBOL_INT: case YYSYMBOL_REAL: return arena_printf(ps->arena, "number '%.*s'", len, text);
    case YYSYMBOL_STRING: return arena_printf(ps->arena, "string %.*s", len, text);
    default: return arena_printf(ps->arena, "'%.*s'", len, text);
    }
}

/* `stat u;`: a statement that starts with two names is a declaration whose keyword is misspelt. */
static int misspelt_declaration(ParseState *ps, Loc at)
{
    static const char *const words[] = {"state", "coef", "temp", "param", "const", "let", "grid", "type", "size", "steps", "reduce"};
    char word[33];
    int len = ps->lx.before_len;
    if (!ps->lx.before_text || len <= 0 || len >= (int)sizeof word)
        return 0;
    memcpy(word, ps->lx.before_text, (size_t)len);
    word[len] = 0;
    const char *near = text_nearest(word, words, (int)(sizeof words / sizeof words[0]), 2);
    if (!near)
        return 0;
    diag_error(ps->diag, ps->lx.before, STC_E_SYNTAX, "unknown declaration '%s'; did you mean '%s'?", word, near);
    (void)at;
    return 1;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps)
{
    /* The lexer has already said what is wrong here; a second message would only confuse. */
    if (ps->lx.stopped || ps->lx.last_had_error)
        return 0;
    yysymbol_kind_t set[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, set, YYNTOKENS);
    yysymbol_kind_t found = yypcontext_token(ctx);
    Loc at = *yypcontext_location(ctx);
    const char *what = describe_found(ps, found);
    if (n < 0)
        n = 0;
    take(set, &n, YYSYMBOL_YYEOF);
    if (found == YYSYMBOL_YYEOF) /* at the end of the last token, not on an empty last line */
        at = after(ps->lx.before);

    if (found != YYTRANSLATE('=') && found != YYTRANSLATE('[') && found != YYTRANSLATE('@') &&
        ps->before_token == TOK_IDENT && ps->item_token == TOK_IDENT && misspelt_declaration(ps, at))
        return 0;
    if (ps->before_token == '@' && found != YYTRANSLATE('-')) {
        diag_error(ps->diag, at, STC_E_SYNTAX, "expected '-' after '@': an older time level is written as name@-1");
        return 0;
    }

    int field = ps->item_token == TOK_STATE || ps->item_token == TOK_COEF || ps->item_token == TOK_TEMP;
    int bc = ps->before_token == TOK_FIXED || ps->before_token == TOK_PERIODIC || ps->before_token == TOK_CLAMP ||
             ps->before_token == TOK_MIRROR || ps->before_token == ')';
    if (field && bc && found == YYTRANSLATE('|')) { /* `boundary clamp | mirror | fixed` */
        diag_error(ps->diag, at, STC_E_SYNTAX, "an axis has two faces, written 'low | high'; a third "
                   "condition has no face to go to");
        return 0;
    }
    if (has(set, n, YYTRANSLATE(';')) && found != YYTRANSLATE(';')) {
        diag_error(ps->diag, after(ps->lx.before), STC_E_SYNTAX, "expected ';' after %s, before %s",
                   item_phrase(ps->item_token), what);
        return 0;
    }

    /* Say what was expected in words, leaving out continuations nobody forgot. */
    const char *phrases[YYNTOKENS];
    int np = 0;
    int closer = has(set, n, YYTRANSLATE(')')) || has(set, n, YYTRANSLATE(']')) || has(set, n, YYTRANSLATE(','))
                 || has(set, n, YYTRANSLATE(':'));
    if (has(set, n, YYSYMBOL_REAL) || has(set, n, YYTRANSLATE('!'))) {
        phrases[np++] = "an expression";
        static const char starters[] = "-+!(";
        for (const char *c = starters; *c; c++)
            take(set, &n, YYTRANSLATE((int)(unsigned char)*c));
        take(set, &n, YYSYMBOL_INT);
        take(set, &n, YYSYMBOL_REAL);
        take(set, &n, YYSYMBOL_IDENT);
        take(set, &n, YYSYMBOL_CLAMP); /* the function clamp(x, lo, hi) */
    }
    if (closer) {
        static const char ops[] = "+-*/<>?@[(";
        for (const char *c = ops; *c; c++)
            take(set, &n, YYTRANSLATE((int)(unsigned char)*c));
        yysymbol_kind_t named_ops[] = {YYSYMBOL_EQ, YYSYMBOL_NE, YYSYMBOL_LE, YYSYMBOL_GE, YYSYMBOL_AND, YYSYMBOL_OR};
        for (size_t i = 0; i < sizeof named_ops / sizeof *named_ops; i++)
            take(set, &n, named_ops[i]);
    }
    if (take(set, &n, YYSYMBOL_FIXED)) {
        phrases[np++] = "a boundary condition (fixed, constant(v), periodic, clamp or mirror)";
        take(set, &n, YYSYMBOL_CONSTANT);
        take(set, &n, YYSYMBOL_PERIODIC);
        take(set, &n, YYSYMBOL_CLAMP);
        take(set, &n, YYSYMBOL_MIRROR);
        take(set, &n, YYSYMBOL_IDENT);
    }
    if (take(set, &n, YYSYMBOL_FLOAT)) {
        phrases[np++] = "float or double";
        take(set, &n, YYSYMBOL_DOUBLE);
        take(set, &n, YYSYMBOL_IDENT);
    }
    if (take(set, &n, YYSYMBOL_DIMS)) {
        phrases[np++] = "1d, 2d or 3d";
        take(set, &n, YYSYMBOL_INT);
    }
    if (take(set, &n, YYSYMBOL_GRID)) {
        phrases[np++] = "a declaration or statement";
        yysymbol_kind_t starts[] = {YYSYMBOL_TYPE, YYSYMBOL_SIZE, YYSYMBOL_STEPS, YYSYMBOL_PARAM, YYSYMBOL_CONST,
                                    YYSYMBOL_STATE, YYSYMBOL_COEF, YYSYMBOL_TEMP, YYSYMBOL_LET, YYSYMBOL_REDUCE,
                                    YYSYMBOL_IDENT};
        for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
            take(set, &n, starts[i]);
    }
    if (take(set, &n, YYSYMBOL_STRING)) {
        phrases[np++] = "a stencil name (a name or a string)";
        take(set, &n, YYSYMBOL_IDENT);
    }
    if (take(set, &n, YYSYMBOL_IDENT))
        phrases[np++] = "a name";
    if (take(set, &n, YYSYMBOL_INT))
        phrases[np++] = "an integer";
    for (int i = 0; i < n; i++) {
        const char *name = yysymbol_name(set[i]);
        phrases[np++] = name[0] == '\'' ? name : arena_printf(ps->arena, "'%s'", name);
    }

    if (np == 0) {
        diag_error(ps->diag, at, STC_E_SYNTAX, "unexpected %s", what);
        return 0;
    }
    char list[1024];
    size_t len = 0;
    list[0] = 0;
    for (int i = 0; i < np && len < sizeof list - 1; i++) {
        const char *sep = i == 0 ? "" : i == np - 1 ? " or " : ", ";
        int w = snprintf(list + len, sizeof list - len, "%s%s", sep, phrases[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    diag_error(ps->diag, at, STC_E_SYNTAX, "unexpected %s; expected %s", what, list);
    return 0;
}

int parse_source(const Source *src, Arena *arena, Diag *diag, AstFile *out)
{
    memset(out, 0, sizeof *out);
    ParseState *ps = arena_alloc(arena, sizeof *ps);
    lex_init(&ps->lx, src, arena, diag);
    ps->arena = arena;
    ps->diag = diag;
    ps->file = out;
    int errors_before = diag->errors;
    parse_parse(ps);
    return diag->errors - errors_before;
}
