/* Memory pool: everything a compilation allocates comes from one arena, freed at once. */
#ifndef STC_ARENA_H
#define STC_ARENA_H
#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size);          /* zeroed, aligned to 16 */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A growable array in the arena: *items grows to hold at least n+1 elements. */
void arena_grow(Arena *a, void **items, int *cap, int n, size_t elem);
#define ARENA_PUSH(a, arr, count, cap) \
    (arena_grow((a), (void **)&(arr), &(cap), (count), sizeof *(arr)), &(arr)[(count)++])

#endif
