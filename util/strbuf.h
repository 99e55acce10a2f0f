/* A growable string, for emitting source text. Heap-backed; sb_free releases it. */
#ifndef STC_STRBUF_H
#define STC_STRBUF_H
#include <stddef.h>

typedef struct {
    char *data;
    size_t len, cap;
} StrBuf;

void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_free(StrBuf *sb);
/* Writes the text to path through a temporary file and rename: never a half-written file
 * (util/outfile.h's out_replace). */
int sb_write_file_atomic(const StrBuf *sb, const char *path);
/* The bytes of the file at path, malloc'd and NUL-terminated (their count in *len where len is
 * not NULL), or NULL where it cannot be opened or read. */
char *sb_file_text(const char *path, size_t *len);

#endif
