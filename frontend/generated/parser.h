/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

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

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_PARSE_PARSER_H_INCLUDED
# define YY_PARSE_PARSER_H_INCLUDED
/* Debug traces.  */
#ifndef PARSE_DEBUG
# if defined YYDEBUG
#if YYDEBUG
#   define PARSE_DEBUG 1
#  else
#   define PARSE_DEBUG 0
#  endif
# else /* ! defined YYDEBUG */
#  define PARSE_DEBUG 0
# endif /* ! defined YYDEBUG */
#endif  /* ! defined PARSE_DEBUG */
#if PARSE_DEBUG
extern int parse_debug;
#endif
/* "%code requires" blocks.  */

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


/* Token kinds.  */
#ifndef PARSE_TOKENTYPE
# define PARSE_TOKENTYPE
  enum parse_tokentype
  {
    TOK_PARSE_EMPTY = -2,
    TOK_YYEOF = 0,                 /* "end of file"  */
    TOK_PARSE_error = 256,         /* error  */
    TOK_PARSE_UNDEF = 257,         /* "invalid token"  */
    TOK_STENCIL = 258,             /* "stencil"  */
    TOK_GRID = 259,                /* "grid"  */
    TOK_TYPE = 260,                /* "type"  */
    TOK_SIZE = 261,                /* "size"  */
    TOK_STEPS = 262,               /* "steps"  */
    TOK_PARAM = 263,               /* "param"  */
    TOK_CONST = 264,               /* "const"  */
    TOK_STATE = 265,               /* "state"  */
    TOK_COEF = 266,                /* "coef"  */
    TOK_TEMP = 267,                /* "temp"  */
    TOK_LEVELS = 268,              /* "levels"  */
    TOK_BOUNDARY = 269,            /* "boundary"  */
    TOK_FIXED = 270,               /* "fixed"  */
    TOK_CONSTANT = 271,            /* "constant"  */
    TOK_PERIODIC = 272,            /* "periodic"  */
    TOK_CLAMP = 273,               /* "clamp"  */
    TOK_MIRROR = 274,              /* "mirror"  */
    TOK_LET = 275,                 /* "let"  */
    TOK_REDUCE = 276,              /* "reduce"  */
    TOK_FLOAT = 277,               /* "float"  */
    TOK_DOUBLE = 278,              /* "double"  */
    TOK_EQ = 279,                  /* "=="  */
    TOK_NE = 280,                  /* "!="  */
    TOK_LE = 281,                  /* "<="  */
    TOK_GE = 282,                  /* ">="  */
    TOK_AND = 283,                 /* "&&"  */
    TOK_OR = 284,                  /* "||"  */
    TOK_IDENT = 285,               /* "identifier"  */
    TOK_STRING = 286,              /* "string"  */
    TOK_INT = 287,                 /* "integer"  */
    TOK_DIMS = 288,                /* "dimension"  */
    TOK_REAL = 289,                /* "number"  */
    TOK_UNARY = 290                /* UNARY  */
  };
  typedef enum parse_tokentype parse_token_kind_t;
#endif

/* Value type.  */
#if ! defined PARSE_STYPE && ! defined PARSE_STYPE_IS_DECLARED
union PARSE_STYPE
{

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


};
typedef union PARSE_STYPE PARSE_STYPE;
# define PARSE_STYPE_IS_TRIVIAL 1
# define PARSE_STYPE_IS_DECLARED 1
#endif

/* Location type.  */
typedef Loc PARSE_LTYPE;




int parse_parse (ParseState *ps);


#endif /* !YY_PARSE_PARSER_H_INCLUDED  */
