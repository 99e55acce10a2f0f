#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

typedef struct Block {
    struct Block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} Block;

struct Arena {
    Block *head;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        diag_out_of_memory();
    return p;
}

Arena *arena_new(void)
{
    Arena *a = xmalloc(sizeof *a);
    a->head = NULL;
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    for (Block *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    Block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t cap = size > 65536 ? size : 65536;
        b = xmalloc(sizeof *b + cap);
        b->size = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_grow(Arena *a, void **items, int *cap, int n, size_t elem)
{
    if (n < *cap)
        return;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = arena_alloc(a, (size_t)ncap * elem);
    if (*items)
        memcpy(p, *items, (size_t)*cap * elem);
    *items = p;
    *cap = ncap;
}
