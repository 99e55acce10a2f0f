/* "Did you mean": the nearest of a list of words to a misspelt one. */
#ifndef STC_NEAREST_H
#define STC_NEAREST_H

/* Edit distance (insertions, deletions, substitutions) between a and b; 99 beyond 32 chars. */
int text_distance(const char *a, const char *b);
/* The choice nearest to word within max_distance edits (the first of equals), or NULL. */
const char *text_nearest(const char *word, const char *const *choices, int n, int max_distance);

#endif
