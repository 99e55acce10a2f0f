/* Edit distance and the nearest word (nearest.h). */
#include "nearest.h"

#include <string.h>

int text_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[33];
    if (la > 32 || lb > 32)
        return 99;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *text_nearest(const char *word, const char *const *choices, int n, int max_distance)
{
    const char *best = NULL;
    int best_d = max_distance + 1;
    for (int i = 0; i < n; i++) {
        int d = text_distance(word, choices[i]);
        if (d < best_d)
            best = choices[i], best_d = d;
    }
    return best;
}
