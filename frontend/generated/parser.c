/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 2

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1

/* Substitute the type names.  */
#define YYSTYPE         PARSE_STYPE
#define YYLTYPE         PARSE_LTYPE
/* Substitute the variable and function names.  */
#define yyparse         parse_parse
#define yylex           parse_lex
#define yyerror         parse_error
#define yydebug         parse_debug
#define yynerrs         parse_nerrs


# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

#include "parser.h"
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_STENCIL = 3,                    /* "stencil"  */
  YYSYMBOL_GRID = 4,                       /* "grid"  */
  YYSYMBOL_TYPE = 5,                       /* "type"  */
  YYSYMBOL_SIZE = 6,                       /* "size"  */
  YYSYMBOL_STEPS = 7,                      /* "steps"  */
  YYSYMBOL_PARAM = 8,                      /* "param"  */
  YYSYMBOL_CONST = 9,                      /* "const"  */
  YYSYMBOL_STATE = 10,                     /* "state"  */
  YYSYMBOL_COEF = 11,                      /* "coef"  */
  YYSYMBOL_TEMP = 12,                      /* "temp"  */
  YYSYMBOL_LEVELS = 13,                    /* "levels"  */
  YYSYMBOL_BOUNDARY = 14,                  /* "boundary"  */
  YYSYMBOL_FIXED = 15,                     /* "fixed"  */
  YYSYMBOL_CONSTANT = 16,                  /* "constant"  */
  YYSYMBOL_PERIODIC = 17,                  /* "periodic"  */
  YYSYMBOL_CLAMP = 18,                     /* "clamp"  */
  YYSYMBOL_MIRROR = 19,                    /* "mirror"  */
  YYSYMBOL_LET = 20,                       /* "let"  */
  YYSYMBOL_REDUCE = 21,                    /* "reduce"  */
  YYSYMBOL_FLOAT = 22,                     /* "float"  */
  YYSYMBOL_DOUBLE = 23,                    /* "double"  */
  YYSYMBOL_EQ = 24,                        /* "=="  */
  YYSYMBOL_NE = 25,                        /* "!="  */
  YYSYMBOL_LE = 26,                        /* "<="  */
  YYSYMBOL_GE = 27,                        /* ">="  */
  YYSYMBOL_AND = 28,                       /* "&&"  */
  YYSYMBOL_OR = 29,                        /* "||"  */
  YYSYMBOL_IDENT = 30,                     /* "identifier"  */
  YYSYMBOL_STRING = 31,                    /* "string"  */
  YYSYMBOL_INT = 32,                       /* "integer"  */
  YYSYMBOL_DIMS = 33,                      /* "dimension"  */
  YYSYMBOL_REAL = 34,                      /* "number"  */
  YYSYMBOL_35_ = 35,                       /* '?'  */
  YYSYMBOL_36_ = 36,                       /* ':'  */
  YYSYMBOL_37_ = 37,                       /* '<'  */
  YYSYMBOL_38_ = 38,                       /* '>'  */
  YYSYMBOL_39_ = 39,                       /* '+'  */
  YYSYMBOL_40_ = 40,                       /* '-'  */
  YYSYMBOL_41_ = 41,                       /* '*'  */
  YYSYMBOL_42_ = 42,                       /* '/'  */
  YYSYMBOL_UNARY = 43,                     /* UNARY  */
  YYSYMBOL_44_ = 44,                       /* '}'  */
  YYSYMBOL_45_ = 45,                       /* '{'  */
  YYSYMBOL_46_ = 46,                       /* ';'  */
  YYSYMBOL_47_ = 47,                       /* '='  */
  YYSYMBOL_48_ = 48,                       /* ','  */
  YYSYMBOL_49_ = 49,                       /* '|'  */
  YYSYMBOL_50_ = 50,                       /* '('  */
  YYSYMBOL_51_ = 51,                       /* ')'  */
  YYSYMBOL_52_ = 52,                       /* '!'  */
  YYSYMBOL_53_ = 53,                       /* '@'  */
  YYSYMBOL_54_ = 54,                       /* '['  */
  YYSYMBOL_55_ = 55,                       /* ']'  */
  YYSYMBOL_YYACCEPT = 56,                  /* $accept  */
  YYSYMBOL_file = 57,                      /* file  */
  YYSYMBOL_stencil = 58,                   /* stencil  */
  YYSYMBOL_stencil_head = 59,              /* stencil_head  */
  YYSYMBOL_stencil_name = 60,              /* stencil_name  */
  YYSYMBOL_items = 61,                     /* items  */
  YYSYMBOL_item = 62,                      /* item  */
  YYSYMBOL_decl = 63,                      /* decl  */
  YYSYMBOL_role = 64,                      /* role  */
  YYSYMBOL_sizes = 65,                     /* sizes  */
  YYSYMBOL_field_opts = 66,                /* field_opts  */
  YYSYMBOL_bc_axes = 67,                   /* bc_axes  */
  YYSYMBOL_bc_axis = 68,                   /* bc_axis  */
  YYSYMBOL_bc = 69,                        /* bc  */
  YYSYMBOL_stmt = 70,                      /* stmt  */
  YYSYMBOL_expr = 71,                      /* expr  */
  YYSYMBOL_primary = 72,                   /* primary  */
  YYSYMBOL_offsets = 73,                   /* offsets  */
  YYSYMBOL_args = 74                       /* args  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */

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


#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_uint8 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
# define YYCOPY_NEEDED 1
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined PARSE_LTYPE_IS_TRIVIAL && PARSE_LTYPE_IS_TRIVIAL \
             && defined PARSE_STYPE_IS_TRIVIAL && PARSE_STYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  2
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   329

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  56
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  19
/* YYNRULES -- Number of rules.  */
#define YYNRULES  79
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  158

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   290


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    52,     2,     2,     2,     2,     2,     2,
      50,    51,    41,    39,    48,    40,     2,    42,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    36,    46,
      37,    47,    38,    35,    53,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    54,     2,    55,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    45,    49,    44,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      43
};

#if PARSE_DEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   293,   293,   294,   295,   299,   300,   301,   309,   313,
     314,   318,   319,   323,   324,   325,   329,   340,   343,   351,
     359,   362,   372,   382,   385,   388,   391,   403,   404,   405,
     409,   416,   427,   428,   441,   456,   463,   475,   476,   480,
     481,   482,   483,   484,   485,   486,   490,   491,   492,   496,
     497,   498,   499,   500,   501,   502,   503,   504,   505,   506,
     507,   508,   509,   510,   511,   512,   516,   517,   518,   519,
     520,   521,   522,   523,   524,   525,   529,   530,   534,   535
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "stencil", "grid", "type",
  "size", "steps", "param", "const", "state", "coef", "temp", "levels",
  "boundary", "fixed", "constant", "periodic", "clamp", "mirror", "let",
  "reduce", "float", "double", "==", "!=", "<=", ">=", "&&", "||",
  "identifier", "string", "integer", "dimension", "number", "'?'", "':'",
  "'<'", "'>'", "'+'", "'-'", "'*'", "'/'", "UNARY", "'}'", "'{'", "';'",
  "'='", "','", "'|'", "'('", "')'", "'!'", "'@'", "'['", "']'", "$accept",
  "file", "stencil", "stencil_head", "stencil_name", "items", "item",
  "decl", "role", "sizes", "field_opts", "bc_axes", "bc_axis", "bc",
  "stmt", "expr", "primary", "offsets", "args", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-48)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-8)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
     -48,   107,   -48,   -48,   -21,   -48,   -48,   -48,   -48,    20,
      52,   -48,    25,     4,    55,    73,    77,    83,    91,   -48,
     -48,   -48,   110,   112,    92,   -48,   -48,   -48,   113,   -48,
     -48,   -48,    74,    99,   115,   116,   118,   -48,    33,   131,
      47,   111,   133,   134,    72,   -48,   -48,   -48,   -48,   -48,
     -48,   -48,   127,   -48,   -48,    72,    72,    72,    72,   140,
      30,   -48,   -48,    72,    72,    72,    72,   147,   -48,   -11,
     -48,   170,   193,   216,   239,    72,    36,   138,    72,   -48,
     -48,    90,   -48,    72,    72,    72,    72,    72,    72,    72,
      72,    72,    72,    72,    72,    72,   -48,   151,     8,   -48,
     -48,   -48,   -48,   -48,   281,    41,   -48,    75,   159,   281,
     -47,   -48,   -35,   -35,   -35,   -35,    -9,   287,   262,   -35,
     -35,    59,    59,   -48,   -48,   -48,   -48,   142,   -48,   -48,
     -48,   150,   153,   -48,   154,    72,   -48,   -48,   148,    72,
     -48,    72,    72,    72,     8,     8,   281,    72,   281,   281,
     109,   128,   -48,   -48,    19,   -48,   -48,   -48
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_int8 yydefact[] =
{
       2,     0,     1,     4,     0,     3,    11,     9,    10,     0,
       0,     8,     0,     0,     0,     0,     0,     0,     0,    27,
      28,    29,     0,     0,     0,     5,    12,    13,     0,    14,
       6,    15,     0,     0,     0,     0,     0,    30,     0,     0,
       0,     0,     0,     0,     0,    32,    17,    16,    18,    19,
      20,    21,     0,    22,    23,     0,     0,     0,     0,     0,
      69,    66,    67,     0,     0,     0,     0,     0,    49,     0,
      31,     0,     0,     0,     0,     0,     0,     0,     0,    64,
      63,     0,    65,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,    47,     0,     0,    26,
      24,    25,    46,    48,    78,     0,    73,     0,     0,    76,
       0,    68,    53,    54,    56,    58,    52,    51,     0,    55,
      57,    59,    60,    61,    62,    33,    39,     0,    41,    42,
      43,    44,    34,    35,    37,     0,    75,    74,    70,     0,
      71,     0,     0,     0,     0,     0,    79,     0,    77,    50,
       0,     0,    36,    38,     0,    40,    45,    72
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
     -48,   -48,   -48,   -48,   -48,   -48,   -48,   -48,   -48,   -48,
     -48,   -48,    60,    61,   -48,   -44,   -48,    66,   139
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,     1,     5,     6,     9,    10,    26,    27,    28,    38,
      69,   132,   133,   134,    29,   104,    68,   110,   105
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      67,   139,    97,    98,    92,    93,    94,    95,   140,     7,
       8,    71,    72,    73,    74,    83,    84,    85,    86,    79,
      80,    81,    82,   126,   127,   128,   129,   130,    90,    91,
      92,    93,    94,    95,   109,    99,    32,    33,   131,   112,
     113,   114,   115,   116,   117,   118,   119,   120,   121,   122,
     123,   124,    -7,    12,    59,    -7,    13,    14,    15,    16,
      17,    18,    19,    20,    21,    11,    60,   139,    61,    30,
      62,    31,    22,    23,   157,    63,    64,    34,    35,    51,
      76,    52,    24,    77,    78,    36,    65,   106,    66,   135,
      59,   146,   136,    54,    55,   148,    25,   149,   150,   151,
      94,    95,    60,   109,    61,    37,    62,     2,     3,    39,
       4,    63,    64,    40,    83,    84,    85,    86,    87,    88,
      46,    41,    65,   135,    66,    89,   137,    90,    91,    92,
      93,    94,    95,    83,    84,    85,    86,    87,    88,    44,
      42,   111,    43,    45,    89,    47,    90,    91,    92,    93,
      94,    95,    83,    84,    85,    86,    87,    88,    56,    70,
     155,    48,    49,    89,    50,    90,    91,    92,    93,    94,
      95,    83,    84,    85,    86,    87,    88,    53,   108,   156,
      57,    58,    89,   125,    90,    91,    92,    93,    94,    95,
      75,   138,   142,    96,    83,    84,    85,    86,    87,    88,
     143,   144,   147,   145,   152,    89,   153,    90,    91,    92,
      93,    94,    95,   154,     0,   107,   100,    83,    84,    85,
      86,    87,    88,     0,     0,     0,     0,     0,    89,     0,
      90,    91,    92,    93,    94,    95,     0,     0,     0,   101,
      83,    84,    85,    86,    87,    88,     0,     0,     0,     0,
       0,    89,     0,    90,    91,    92,    93,    94,    95,     0,
       0,     0,   102,    83,    84,    85,    86,    87,    88,     0,
       0,     0,     0,     0,    89,     0,    90,    91,    92,    93,
      94,    95,     0,     0,     0,   103,    83,    84,    85,    86,
      87,    88,     0,     0,     0,     0,     0,    89,   141,    90,
      91,    92,    93,    94,    95,    83,    84,    85,    86,    87,
      88,    83,    84,    85,    86,    87,    89,     0,    90,    91,
      92,    93,    94,    95,    90,    91,    92,    93,    94,    95
};

static const yytype_int16 yycheck[] =
{
      44,    48,    13,    14,    39,    40,    41,    42,    55,    30,
      31,    55,    56,    57,    58,    24,    25,    26,    27,    63,
      64,    65,    66,    15,    16,    17,    18,    19,    37,    38,
      39,    40,    41,    42,    78,    46,    32,    33,    30,    83,
      84,    85,    86,    87,    88,    89,    90,    91,    92,    93,
      94,    95,     0,     1,    18,     3,     4,     5,     6,     7,
       8,     9,    10,    11,    12,    45,    30,    48,    32,    44,
      34,    46,    20,    21,    55,    39,    40,    22,    23,    46,
      50,    48,    30,    53,    54,    30,    50,    51,    52,    48,
      18,   135,    51,    46,    47,   139,    44,   141,   142,   143,
      41,    42,    30,   147,    32,    32,    34,     0,     1,    32,
       3,    39,    40,    30,    24,    25,    26,    27,    28,    29,
      46,    30,    50,    48,    52,    35,    51,    37,    38,    39,
      40,    41,    42,    24,    25,    26,    27,    28,    29,    47,
      30,    51,    30,    30,    35,    46,    37,    38,    39,    40,
      41,    42,    24,    25,    26,    27,    28,    29,    47,    32,
      51,    46,    46,    35,    46,    37,    38,    39,    40,    41,
      42,    24,    25,    26,    27,    28,    29,    46,    40,    51,
      47,    47,    35,    32,    37,    38,    39,    40,    41,    42,
      50,    32,    50,    46,    24,    25,    26,    27,    28,    29,
      50,    48,    54,    49,   144,    35,   145,    37,    38,    39,
      40,    41,    42,   147,    -1,    76,    46,    24,    25,    26,
      27,    28,    29,    -1,    -1,    -1,    -1,    -1,    35,    -1,
      37,    38,    39,    40,    41,    42,    -1,    -1,    -1,    46,
      24,    25,    26,    27,    28,    29,    -1,    -1,    -1,    -1,
      -1,    35,    -1,    37,    38,    39,    40,    41,    42,    -1,
      -1,    -1,    46,    24,    25,    26,    27,    28,    29,    -1,
      -1,    -1,    -1,    -1,    35,    -1,    37,    38,    39,    40,
      41,    42,    -1,    -1,    -1,    46,    24,    25,    26,    27,
      28,    29,    -1,    -1,    -1,    -1,    -1,    35,    36,    37,
      38,    39,    40,    41,    42,    24,    25,    26,    27,    28,
      29,    24,    25,    26,    27,    28,    35,    -1,    37,    38,
      39,    40,    41,    42,    37,    38,    39,    40,    41,    42
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,    57,     0,     1,     3,    58,    59,    30,    31,    60,
      61,    45,     1,     4,     5,     6,     7,     8,     9,    10,
      11,    12,    20,    21,    30,    44,    62,    63,    64,    70,
      44,    46,    32,    33,    22,    23,    30,    32,    65,    32,
      30,    30,    30,    30,    47,    30,    46,    46,    46,    46,
      46,    46,    48,    46,    46,    47,    47,    47,    47,    18,
      30,    32,    34,    39,    40,    50,    52,    71,    72,    66,
      32,    71,    71,    71,    71,    50,    50,    53,    54,    71,
      71,    71,    71,    24,    25,    26,    27,    28,    29,    35,
      37,    38,    39,    40,    41,    42,    46,    13,    14,    46,
      46,    46,    46,    46,    71,    74,    51,    74,    40,    71,
      73,    51,    71,    71,    71,    71,    71,    71,    71,    71,
      71,    71,    71,    71,    71,    32,    15,    16,    17,    18,
      19,    30,    67,    68,    69,    48,    51,    51,    32,    48,
      55,    36,    50,    50,    48,    49,    71,    54,    71,    71,
      71,    71,    68,    69,    73,    51,    51,    55
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    56,    57,    57,    57,    58,    58,    58,    59,    60,
      60,    61,    61,    62,    62,    62,    63,    63,    63,    63,
      63,    63,    63,    63,    63,    63,    63,    64,    64,    64,
      65,    65,    66,    66,    66,    67,    67,    68,    68,    69,
      69,    69,    69,    69,    69,    69,    70,    70,    70,    71,
      71,    71,    71,    71,    71,    71,    71,    71,    71,    71,
      71,    71,    71,    71,    71,    71,    72,    72,    72,    72,
      72,    72,    72,    72,    72,    72,    73,    73,    74,    74
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     0,     2,     2,     3,     4,     2,     3,     1,
       1,     0,     2,     1,     1,     2,     3,     3,     3,     3,
       3,     3,     3,     3,     5,     5,     4,     1,     1,     1,
       1,     3,     0,     3,     3,     1,     3,     1,     3,     1,
       4,     1,     1,     1,     1,     4,     5,     4,     5,     1,
       5,     3,     3,     3,     3,     3,     3,     3,     3,     3,
       3,     3,     3,     2,     2,     2,     1,     1,     3,     1,
       4,     4,     7,     3,     4,     4,     1,     3,     1,     3
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = TOK_PARSE_EMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == TOK_PARSE_EMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        YY_LAC_DISCARD ("YYBACKUP");                              \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (&yylloc, ps, YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use TOK_PARSE_error or TOK_PARSE_UNDEF. */
#define YYERRCODE TOK_PARSE_UNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if PARSE_DEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined PARSE_LTYPE_IS_TRIVIAL && PARSE_LTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location, ps); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, ParseState *ps)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  YY_USE (ps);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, ParseState *ps)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp, ps);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule, ParseState *ps)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]), ps);
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule, ps); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !PARSE_DEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !PARSE_DEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Given a state stack such that *YYBOTTOM is its bottom, such that
   *YYTOP is either its top or is YYTOP_EMPTY to indicate an empty
   stack, and such that *YYCAPACITY is the maximum number of elements it
   can hold without a reallocation, make sure there is enough room to
   store YYADD more elements.  If not, allocate a new stack using
   YYSTACK_ALLOC, copy the existing elements, and adjust *YYBOTTOM,
   *YYTOP, and *YYCAPACITY to reflect the new capacity and memory
   location.  If *YYBOTTOM != YYBOTTOM_NO_FREE, then free the old stack
   using YYSTACK_FREE.  Return 0 if successful or if no reallocation is
   required.  Return YYENOMEM if memory is exhausted.  */
static int
yy_lac_stack_realloc (YYPTRDIFF_T *yycapacity, YYPTRDIFF_T yyadd,
#if PARSE_DEBUG
                      char const *yydebug_prefix,
                      char const *yydebug_suffix,
#endif
                      yy_state_t **yybottom,
                      yy_state_t *yybottom_no_free,
                      yy_state_t **yytop, yy_state_t *yytop_empty)
{
  YYPTRDIFF_T yysize_old =
    *yytop == yytop_empty ? 0 : *yytop - *yybottom + 1;
  YYPTRDIFF_T yysize_new = yysize_old + yyadd;
  if (*yycapacity < yysize_new)
    {
      YYPTRDIFF_T yyalloc = 2 * yysize_new;
      yy_state_t *yybottom_new;
      /* Use YYMAXDEPTH for maximum stack size given that the stack
         should never need to grow larger than the main state stack
         needs to grow without LAC.  */
      if (YYMAXDEPTH < yysize_new)
        {
          YYDPRINTF ((stderr, "%smax size exceeded%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (YYMAXDEPTH < yyalloc)
        yyalloc = YYMAXDEPTH;
      yybottom_new =
        YY_CAST (yy_state_t *,
                 YYSTACK_ALLOC (YY_CAST (YYSIZE_T,
                                         yyalloc * YYSIZEOF (*yybottom_new))));
      if (!yybottom_new)
        {
          YYDPRINTF ((stderr, "%srealloc failed%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (*yytop != yytop_empty)
        {
          YYCOPY (yybottom_new, *yybottom, yysize_old);
          *yytop = yybottom_new + (yysize_old - 1);
        }
      if (*yybottom != yybottom_no_free)
        YYSTACK_FREE (*yybottom);
      *yybottom = yybottom_new;
      *yycapacity = yyalloc;
    }
  return 0;
}

/* Establish the initial context for the current lookahead if no initial
   context is currently established.

   We define a context as a snapshot of the parser stacks.  We define
   the initial context for a lookahead as the context in which the
   parser initially examines that lookahead in order to select a
   syntactic action.  Thus, if the lookahead eventually proves
   syntactically unacceptable (possibly in a later context reached via a
   series of reductions), the initial context can be used to determine
   the exact set of tokens that would be syntactically acceptable in the
   lookahead's place.  Moreover, it is the context after which any
   further semantic actions would be erroneous because they would be
   determined by a syntactically unacceptable token.

   YY_LAC_ESTABLISH should be invoked when a reduction is about to be
   performed in an inconsistent state (which, for the purposes of LAC,
   includes consistent states that don't know they're consistent because
   their default reductions have been disabled).  Iff there is a
   lookahead token, it should also be invoked before reporting a syntax
   error.  This latter case is for the sake of the debugging output.

   For parse.lac=full, the implementation of YY_LAC_ESTABLISH is as
   follows.  If no initial context is currently established for the
   current lookahead, then check if that lookahead can eventually be
   shifted if syntactic actions continue from the current context.
   Report a syntax error if it cannot.  */
#define YY_LAC_ESTABLISH                                                \
do {                                                                    \
  if (!yy_lac_established)                                              \
    {                                                                   \
      YYDPRINTF ((stderr,                                               \
                  "LAC: initial context established for %s\n",          \
                  yysymbol_name (yytoken)));                            \
      yy_lac_established = 1;                                           \
      switch (yy_lac (yyesa, &yyes, &yyes_capacity, yyssp, yytoken))    \
        {                                                               \
        case YYENOMEM:                                                  \
          YYNOMEM;                                                      \
        case 1:                                                         \
          goto yyerrlab;                                                \
        }                                                               \
    }                                                                   \
} while (0)

/* Discard any previous initial lookahead context because of Event,
   which may be a lookahead change or an invalidation of the currently
   established initial context for the current lookahead.

   The most common example of a lookahead change is a shift.  An example
   of both cases is syntax error recovery.  That is, a syntax error
   occurs when the lookahead is syntactically erroneous for the
   currently established initial context, so error recovery manipulates
   the parser stacks to try to find a new initial context in which the
   current lookahead is syntactically acceptable.  If it fails to find
   such a context, it discards the lookahead.  */
#if PARSE_DEBUG
# define YY_LAC_DISCARD(Event)                                           \
do {                                                                     \
  if (yy_lac_established)                                                \
    {                                                                    \
      YYDPRINTF ((stderr, "LAC: initial context discarded due to "       \
                  Event "\n"));                                          \
      yy_lac_established = 0;                                            \
    }                                                                    \
} while (0)
#else
# define YY_LAC_DISCARD(Event) yy_lac_established = 0
#endif

/* Given the stack whose top is *YYSSP, return 0 iff YYTOKEN can
   eventually (after perhaps some reductions) be shifted, return 1 if
   not, or return YYENOMEM if memory is exhausted.  As preconditions and
   postconditions: *YYES_CAPACITY is the allocated size of the array to
   which *YYES points, and either *YYES = YYESA or *YYES points to an
   array allocated with YYSTACK_ALLOC.  yy_lac may overwrite the
   contents of either array, alter *YYES and *YYES_CAPACITY, and free
   any old *YYES other than YYESA.  */
static int
yy_lac (yy_state_t *yyesa, yy_state_t **yyes,
        YYPTRDIFF_T *yyes_capacity, yy_state_t *yyssp, yysymbol_kind_t yytoken)
{
  yy_state_t *yyes_prev = yyssp;
  yy_state_t *yyesp = yyes_prev;
  /* Reduce until we encounter a shift and thereby accept the token.  */
  YYDPRINTF ((stderr, "LAC: checking lookahead %s:", yysymbol_name (yytoken)));
  if (yytoken == YYSYMBOL_YYUNDEF)
    {
      YYDPRINTF ((stderr, " Always Err\n"));
      return 1;
    }
  while (1)
    {
      int yyrule = yypact[+*yyesp];
      if (yypact_value_is_default (yyrule)
          || (yyrule += yytoken) < 0 || YYLAST < yyrule
          || yycheck[yyrule] != yytoken)
        {
          /* Use the default action.  */
          yyrule = yydefact[+*yyesp];
          if (yyrule == 0)
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
        }
      else
        {
          /* Use the action from yytable.  */
          yyrule = yytable[yyrule];
          if (yytable_value_is_error (yyrule))
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
          if (0 < yyrule)
            {
              YYDPRINTF ((stderr, " S%d\n", yyrule));
              return 0;
            }
          yyrule = -yyrule;
        }
      /* By now we know we have to simulate a reduce.  */
      YYDPRINTF ((stderr, " R%d", yyrule - 1));
      {
        /* Pop the corresponding number of values from the stack.  */
        YYPTRDIFF_T yylen = yyr2[yyrule];
        /* First pop from the LAC stack as many tokens as possible.  */
        if (yyesp != yyes_prev)
          {
            YYPTRDIFF_T yysize = yyesp - *yyes + 1;
            if (yylen < yysize)
              {
                yyesp -= yylen;
                yylen = 0;
              }
            else
              {
                yyesp = yyes_prev;
                yylen -= yysize;
              }
          }
        /* Only afterwards look at the main stack.  */
        if (yylen)
          yyesp = yyes_prev -= yylen;
      }
      /* Push the resulting state of the reduction.  */
      {
        yy_state_fast_t yystate;
        {
          const int yylhs = yyr1[yyrule] - YYNTOKENS;
          const int yyi = yypgoto[yylhs] + *yyesp;
          yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyesp
                     ? yytable[yyi]
                     : yydefgoto[yylhs]);
        }
        if (yyesp == yyes_prev)
          {
            yyesp = *yyes;
            YY_IGNORE_USELESS_CAST_BEGIN
            *yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        else
          {
            if (yy_lac_stack_realloc (yyes_capacity, 1,
#if PARSE_DEBUG
                                      " (", ")",
#endif
                                      yyes, yyesa, &yyesp, yyes_prev))
              {
                YYDPRINTF ((stderr, "\n"));
                return YYENOMEM;
              }
            YY_IGNORE_USELESS_CAST_BEGIN
            *++yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        YYDPRINTF ((stderr, " G%d", yystate));
      }
    }
}

/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yy_state_t *yyesa;
  yy_state_t **yyes;
  YYPTRDIFF_T *yyes_capacity;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;

  int yyx;
  for (yyx = 0; yyx < YYNTOKENS; ++yyx)
    {
      yysymbol_kind_t yysym = YY_CAST (yysymbol_kind_t, yyx);
      if (yysym != YYSYMBOL_YYerror && yysym != YYSYMBOL_YYUNDEF)
        switch (yy_lac (yyctx->yyesa, yyctx->yyes, yyctx->yyes_capacity, yyctx->yyssp, yysym))
          {
          case YYENOMEM:
            return YYENOMEM;
          case 1:
            continue;
          default:
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = yysym;
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx, ParseState *ps);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp, ParseState *ps)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  YY_USE (ps);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}






/*----------.
| yyparse.  |
`----------*/

int
yyparse (ParseState *ps)
{
/* Lookahead token kind.  */
int yychar;


/* The semantic value of the lookahead symbol.  */
/* Default value used for initialization, for pacifying older GCCs
   or non-GCC compilers.  */
YY_INITIAL_VALUE (static YYSTYPE yyval_default;)
YYSTYPE yylval YY_INITIAL_VALUE (= yyval_default);

/* Location data for the lookahead symbol.  */
static YYLTYPE yyloc_default
# if defined PARSE_LTYPE_IS_TRIVIAL && PARSE_LTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
YYLTYPE yylloc = yyloc_default;

    /* Number of syntax errors so far.  */
    int yynerrs = 0;

    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

    yy_state_t yyesa[20];
    yy_state_t *yyes = yyesa;
    YYPTRDIFF_T yyes_capacity = 20 < YYMAXDEPTH ? 20 : YYMAXDEPTH;

  /* Whether LAC context is established.  A Boolean.  */
  int yy_lac_established = 0;
  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = TOK_PARSE_EMPTY; /* Cause a token to be read.  */

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == TOK_PARSE_EMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex (&yylval, &yylloc, ps);
    }

  if (yychar <= TOK_YYEOF)
    {
      yychar = TOK_YYEOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == TOK_PARSE_error)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = TOK_PARSE_UNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    {
      YY_LAC_ESTABLISH;
      goto yydefault;
    }
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      YY_LAC_ESTABLISH;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = TOK_PARSE_EMPTY;
  YY_LAC_DISCARD ("shift");
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  {
    int yychar_backup = yychar;
    switch (yyn)
      {
  case 6: /* stencil: stencil_head items error '}'  */
                                   { yyerrok; }
    break;

  case 7: /* stencil: stencil_head items  */
                         {
          Loc at = after(ps->lx.before);
          if (!ps->lx.stopped)
              diag_error(ps->diag, at, STC_E_SYNTAX, "expected '}' to close stencil '%s'", cur_stencil(ps)->name);
      }
    break;

  case 8: /* stencil_head: "stencil" stencil_name '{'  */
                                 { begin_stencil(ps, (yyvsp[-1].str), (yylsp[-1])); }
    break;

  case 15: /* item: error ';'  */
                { yyerrok; }
    break;

  case 16: /* decl: "grid" "dimension" ';'  */
                      {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->dims != 0, st->dims_loc, (yylsp[-2]), "grid")) {
              if ((yyvsp[-1].ival) < 1 || (yyvsp[-1].ival) > 3)
                  diag_error(ps->diag, (yylsp[-1]), STC_E_SYNTAX, "a grid is 1d, 2d or 3d, not %ldd", (yyvsp[-1].ival));
              else {
                  st->dims = (int)(yyvsp[-1].ival);
                  st->dims_loc = (yylsp[-1]);
              }
          }
      }
    break;

  case 17: /* decl: "grid" "integer" ';'  */
                     {
          diag_error(ps->diag, (yylsp[-1]), STC_E_SYNTAX, "write the grid dimension as 1d, 2d or 3d");
      }
    break;

  case 18: /* decl: "type" "float" ';'  */
                       {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->has_type, ps->type_loc, (yylsp[-2]), "type")) {
              st->has_type = 1;
              st->type = ELEM_FLOAT;
              ps->type_loc = (yylsp[-2]);
          }
      }
    break;

  case 19: /* decl: "type" "double" ';'  */
                        {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->has_type, ps->type_loc, (yylsp[-2]), "type")) {
              st->has_type = 1;
              st->type = ELEM_DOUBLE;
              ps->type_loc = (yylsp[-2]);
          }
      }
    break;

  case 20: /* decl: "type" "identifier" ';'  */
                       {
          diag_error(ps->diag, (yylsp[-1]), STC_E_SYNTAX, "unknown element type '%s'; expected float or double", (yyvsp[-1].str));
      }
    break;

  case 21: /* decl: "size" sizes ';'  */
                       {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->nsize != 0, st->size_loc, (yylsp[-2]), "size")) {
              st->nsize = (yyvsp[-1].sizes).n > 3 ? 3 : (yyvsp[-1].sizes).n;
              memcpy(st->size, (yyvsp[-1].sizes).v, sizeof st->size);
              st->size_loc = (yylsp[-1]);
              if ((yyvsp[-1].sizes).n > 3)
                  diag_error(ps->diag, (yylsp[-1]), STC_E_BAD_SIZE, "'size' takes at most 3 values (one per dimension), not %d", (yyvsp[-1].sizes).n);
          }
      }
    break;

  case 22: /* decl: "steps" "integer" ';'  */
                      {
          AstStencil *st = cur_stencil(ps);
          if (!check_dup(ps, st->steps != 0 || ps->steps_loc.line, ps->steps_loc, (yylsp[-2]), "steps")) {
              ps->steps_loc = (yylsp[-2]);
              if ((yyvsp[-1].ival) < 1)
                  diag_error(ps->diag, (yylsp[-1]), STC_E_BAD_SIZE, "'steps' must be at least 1");
              else
                  st->steps = (yyvsp[-1].ival);
          }
      }
    break;

  case 23: /* decl: "param" "identifier" ';'  */
                        {
          add_decl(ps, (AstDecl){.kind = DECL_PARAM, .loc = (yylsp[-1]), .name = (yyvsp[-1].str)});
      }
    break;

  case 24: /* decl: "param" "identifier" '=' expr ';'  */
                                 {
          add_decl(ps, (AstDecl){.kind = DECL_PARAM, .loc = (yylsp[-3]), .name = (yyvsp[-3].str), .value = (yyvsp[-1].ex).e});
      }
    break;

  case 25: /* decl: "const" "identifier" '=' expr ';'  */
                                 {
          add_decl(ps, (AstDecl){.kind = DECL_CONST, .loc = (yylsp[-3]), .name = (yyvsp[-3].str), .value = (yyvsp[-1].ex).e});
      }
    break;

  case 26: /* decl: role "identifier" field_opts ';'  */
                                {
          if ((yyvsp[-1].opts).levels && (yyvsp[-3].role) != ROLE_STATE)
              diag_error(ps->diag, (yyvsp[-1].opts).levels_loc, STC_E_BAD_OPTION, "'levels' applies only to state fields");
          AstDecl d = {.kind = DECL_FIELD, .loc = (yylsp[-2]), .name = (yyvsp[-2].str), .role = (yyvsp[-3].role), .levels = (yyvsp[-1].opts).levels,
                       .has_bc = (yyvsp[-1].opts).has_bc, .bc_axes = (yyvsp[-1].opts).bc.n, .bc_loc = (yyvsp[-1].opts).bc_loc};
          memcpy(d.bc, (yyvsp[-1].opts).bc.bc, sizeof d.bc);
          memcpy(d.bc_split, (yyvsp[-1].opts).bc.split, sizeof d.bc_split);
          add_decl(ps, d);
      }
    break;

  case 27: /* role: "state"  */
              { (yyval.role) = ROLE_STATE; }
    break;

  case 28: /* role: "coef"  */
              { (yyval.role) = ROLE_COEF; }
    break;

  case 29: /* role: "temp"  */
              { (yyval.role) = ROLE_TEMP; }
    break;

  case 30: /* sizes: "integer"  */
          {
          (yyval.sizes).n = 1;
          (yyval.sizes).v[0] = (yyvsp[0].ival);
          (yyval.sizes).v[1] = (yyval.sizes).v[2] = 0;
          if ((yyvsp[0].ival) < 1)
              diag_error(ps->diag, (yylsp[0]), STC_E_BAD_SIZE, "a size must be at least 1");
      }
    break;

  case 31: /* sizes: sizes ',' "integer"  */
                    {
          (yyval.sizes) = (yyvsp[-2].sizes);
          if ((yyval.sizes).n < 3)
              (yyval.sizes).v[(yyval.sizes).n] = (yyvsp[0].ival);
          (yyval.sizes).n++;
          if ((yyvsp[0].ival) < 1)
              diag_error(ps->diag, (yylsp[0]), STC_E_BAD_SIZE, "a size must be at least 1");
      }
    break;

  case 32: /* field_opts: %empty  */
             { memset(&(yyval.opts), 0, sizeof (yyval.opts)); }
    break;

  case 33: /* field_opts: field_opts "levels" "integer"  */
                              {
          (yyval.opts) = (yyvsp[-2].opts);
          if ((yyvsp[-2].opts).levels || (yyvsp[-2].opts).levels_loc.line) {
              diag_error(ps->diag, (yylsp[-1]), STC_E_DUP_DECL, "'levels' given twice");
              diag_note(ps->diag, (yyvsp[-2].opts).levels_loc, "first given here");
          } else if ((yyvsp[0].ival) != 2 && (yyvsp[0].ival) != 3) {
              diag_error(ps->diag, (yylsp[0]), STC_E_BAD_LEVELS, "a state field has 2 or 3 time levels, not %ld", (yyvsp[0].ival));
              (yyval.opts).levels_loc = (yylsp[-1]);
          } else {
              (yyval.opts).levels = (int)(yyvsp[0].ival);
              (yyval.opts).levels_loc = (yylsp[-1]);
          }
      }
    break;

  case 34: /* field_opts: field_opts "boundary" bc_axes  */
                                    {
          (yyval.opts) = (yyvsp[-2].opts);
          if ((yyvsp[-2].opts).has_bc) {
              diag_error(ps->diag, (yylsp[-1]), STC_E_DUP_DECL, "'boundary' given twice");
              diag_note(ps->diag, (yyvsp[-2].opts).bc_loc, "first given here");
          } else if ((yyvsp[0].bc_axes).known) {
              (yyval.opts).has_bc = 1;
              (yyval.opts).bc = (yyvsp[0].bc_axes);
              (yyval.opts).bc_loc = (yylsp[0]);
          }
      }
    break;

  case 35: /* bc_axes: bc_axis  */
              {
          memset(&(yyval.bc_axes), 0, sizeof (yyval.bc_axes));
          (yyval.bc_axes).n = 1;
          (yyval.bc_axes).known = (yyvsp[0].bc_axis).known;
          memcpy((yyval.bc_axes).bc[0], (yyvsp[0].bc_axis).face, sizeof (yyvsp[0].bc_axis).face);
          (yyval.bc_axes).split[0] = (yyvsp[0].bc_axis).split;
      }
    break;

  case 36: /* bc_axes: bc_axes ',' bc_axis  */
                          {
          (yyval.bc_axes) = (yyvsp[-2].bc_axes);
          if ((yyval.bc_axes).n < 3) {
              memcpy((yyval.bc_axes).bc[(yyval.bc_axes).n], (yyvsp[0].bc_axis).face, sizeof (yyvsp[0].bc_axis).face);
              (yyval.bc_axes).split[(yyval.bc_axes).n] = (yyvsp[0].bc_axis).split;
          }
          (yyval.bc_axes).n++;
          (yyval.bc_axes).known &= (yyvsp[0].bc_axis).known;
      }
    break;

  case 37: /* bc_axis: bc  */
                 { (yyval.bc_axis) = (BcAxis){{(yyvsp[0].bc).bc, (yyvsp[0].bc).bc}, 0, (yyvsp[0].bc).known}; }
    break;

  case 38: /* bc_axis: bc '|' bc  */
                 { (yyval.bc_axis) = (BcAxis){{(yyvsp[-2].bc).bc, (yyvsp[0].bc).bc}, 1, (yyvsp[-2].bc).known && (yyvsp[0].bc).known}; }
    break;

  case 39: /* bc: "fixed"  */
                            { (yyval.bc) = (BcVal){{BC_FIXED, NULL, (yyloc)}, 1}; }
    break;

  case 40: /* bc: "constant" '(' expr ')'  */
                              { (yyval.bc) = (BcVal){{BC_CONSTANT, (yyvsp[-1].ex).e, (yyloc)}, 1}; }
    break;

  case 41: /* bc: "periodic"  */
                            { (yyval.bc) = (BcVal){{BC_PERIODIC, NULL, (yyloc)}, 1}; }
    break;

  case 42: /* bc: "clamp"  */
                            { (yyval.bc) = (BcVal){{BC_CLAMP, NULL, (yyloc)}, 1}; }
    break;

  case 43: /* bc: "mirror"  */
                            { (yyval.bc) = (BcVal){{BC_MIRROR, NULL, (yyloc)}, 1}; }
    break;

  case 44: /* bc: "identifier"  */
                            { unknown_bc(ps, (yylsp[0]), (yyvsp[0].str)); (yyval.bc) = (BcVal){{BC_FIXED, NULL, (yyloc)}, 0}; }
    break;

  case 45: /* bc: "identifier" '(' expr ')'  */
                            { unknown_bc(ps, (yylsp[-3]), (yyvsp[-3].str)); (yyval.bc) = (BcVal){{BC_FIXED, NULL, (yyloc)}, 0}; }
    break;

  case 46: /* stmt: "let" "identifier" '=' expr ';'  */
                               { add_stmt(ps, STMT_LET, (yyvsp[-3].str), (yylsp[-3]), (yyvsp[-1].ex).e); }
    break;

  case 47: /* stmt: "identifier" '=' expr ';'  */
                               { add_stmt(ps, STMT_ASSIGN, (yyvsp[-3].str), (yylsp[-3]), (yyvsp[-1].ex).e); }
    break;

  case 48: /* stmt: "reduce" "identifier" '=' expr ';'  */
                                  { add_stmt(ps, STMT_REDUCE, (yyvsp[-3].str), (yylsp[-3]), (yyvsp[-1].ex).e); }
    break;

  case 50: /* expr: expr '?' expr ':' expr  */
                             { (yyval.ex) = expr_cond(ps, (yyloc), (yyvsp[-4].ex), (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 51: /* expr: expr "||" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_OR, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 52: /* expr: expr "&&" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_AND, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 53: /* expr: expr "==" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_EQ, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 54: /* expr: expr "!=" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_NE, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 55: /* expr: expr '<' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_LT, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 56: /* expr: expr "<=" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_LE, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 57: /* expr: expr '>' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_GT, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 58: /* expr: expr ">=" expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_GE, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 59: /* expr: expr '+' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_ADD, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 60: /* expr: expr '-' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_SUB, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 61: /* expr: expr '*' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_MUL, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 62: /* expr: expr '/' expr  */
                             { (yyval.ex) = expr_binary(ps, (yyloc), OP_DIV, (yyvsp[-2].ex), (yyvsp[0].ex)); }
    break;

  case 63: /* expr: '-' expr  */
                             { (yyval.ex) = expr_unary(ps, (yyloc), OP_NEG, (yyvsp[0].ex)); }
    break;

  case 64: /* expr: '+' expr  */
                             { (yyval.ex) = expr_unary(ps, (yyloc), OP_PLUS, (yyvsp[0].ex)); }
    break;

  case 65: /* expr: '!' expr  */
                             { (yyval.ex) = expr_unary(ps, (yyloc), OP_NOT, (yyvsp[0].ex)); }
    break;

  case 66: /* primary: "integer"  */
                                   { (yyval.ex) = expr_num(ps, (yyloc), (double)(yyvsp[0].ival), 1); }
    break;

  case 67: /* primary: "number"  */
                                   { (yyval.ex) = expr_num(ps, (yyloc), (yyvsp[0].rval), 0); }
    break;

  case 68: /* primary: '(' expr ')'  */
                                   { (yyval.ex) = (yyvsp[-1].ex); (yyval.ex).nest++; check_limits(ps, (yyloc), (yyval.ex).nest, (yyvsp[-1].ex).nest, 0); }
    break;

  case 69: /* primary: "identifier"  */
                                   { (yyval.ex) = expr_name(ps, (yyloc), AST_NAME, (yyvsp[0].str), 0, NULL); }
    break;

  case 70: /* primary: "identifier" '@' '-' "integer"  */
                                   { (yyval.ex) = expr_name(ps, (yyloc), AST_NAME, (yyvsp[-3].str), -(int)(yyvsp[0].ival), NULL); }
    break;

  case 71: /* primary: "identifier" '[' offsets ']'  */
                                   { (yyval.ex) = expr_name(ps, (yyloc), AST_READ, (yyvsp[-3].str), 0, &(yyvsp[-1].list)); }
    break;

  case 72: /* primary: "identifier" '@' '-' "integer" '[' offsets ']'  */
                                        { (yyval.ex) = expr_name(ps, (yyloc), AST_READ, (yyvsp[-6].str), -(int)(yyvsp[-3].ival), &(yyvsp[-1].list)); }
    break;

  case 73: /* primary: "identifier" '(' ')'  */
                                   { ExprList none = {0}; (yyval.ex) = expr_name(ps, (yyloc), AST_CALL, (yyvsp[-2].str), 0, &none); }
    break;

  case 74: /* primary: "identifier" '(' args ')'  */
                                   { (yyval.ex) = expr_name(ps, (yyloc), AST_CALL, (yyvsp[-3].str), 0, &(yyvsp[-1].list)); }
    break;

  case 75: /* primary: "clamp" '(' args ')'  */
                                   { (yyval.ex) = expr_name(ps, (yyloc), AST_CALL, "clamp", 0, &(yyvsp[-1].list)); }
    break;

  case 76: /* offsets: expr  */
                        { (yyval.list) = list_add(ps, (ExprList){0}, (yyvsp[0].ex)); }
    break;

  case 77: /* offsets: offsets ',' expr  */
                        { (yyval.list) = list_add(ps, (yyvsp[-2].list), (yyvsp[0].ex)); }
    break;

  case 78: /* args: expr  */
                        { (yyval.list) = list_add(ps, (ExprList){0}, (yyvsp[0].ex)); }
    break;

  case 79: /* args: args ',' expr  */
                        { (yyval.list) = list_add(ps, (yyvsp[-2].list), (yyvsp[0].ex)); }
    break;



        default: break;
      }
    if (yychar_backup != yychar)
      YY_LAC_DISCARD ("yychar change");
  }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == TOK_PARSE_EMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yyesa, &yyes, &yyes_capacity, yytoken, &yylloc};
        if (yychar != TOK_PARSE_EMPTY)
          YY_LAC_ESTABLISH;
        if (yyreport_syntax_error (&yyctx, ps) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= TOK_YYEOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == TOK_YYEOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc, ps);
          yychar = TOK_PARSE_EMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp, ps);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  /* If the stack popping above didn't lose the initial context for the
     current lookahead token, the shift below will for sure.  */
  YY_LAC_DISCARD ("error recovery");

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (&yylloc, ps, YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != TOK_PARSE_EMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc, ps);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp, ps);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif
  if (yyes != yyesa)
    YYSTACK_FREE (yyes);

  return yyresult;
}



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
