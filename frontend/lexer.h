/* The lexer's state. Tokens, their values and locations come from parser.h (Bison). */
#ifndef STC_LEXER_H
#define STC_LEXER_H
#include "parser.h"

#define LEX_MAX_NEST 256 /* deepest nesting of ( and [ the parser accepts */
#define LEX_INT_MAX 2147483647L

typedef struct {
    const char *cur, *lim, *tok, *marker, *line_start;
    int line;
    Arena *arena;
    Diag *diag;
    int nest;         /* open ( and [ not yet closed */
    int stopped;      /* a fatal error ended the input early (too deep, too many errors) */
    Loc last, before; /* the last token returned and the one before it */
    int last_token;   /* its token kind */
    const char *last_text, *before_text; /* the last token's text, and the one before it's */
    int last_len, before_len;
    int last_had_error; /* the lexer reported an error while reading the last token */
    int bar_ok;         /* '|' is a token (between a boundary's faces), not an unknown character */
} Lexer;

void lex_init(Lexer *lx, const Source *src, Arena *arena, Diag *diag);
/* Returns the next token (PARSE_EOF at the end), its value in *val and location in *loc. */
int lex_next(Lexer *lx, PARSE_STYPE *val, Loc *loc);

#endif
