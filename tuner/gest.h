/* GeST's parts, exposed for tests: the correlation of parameter pairs (coefficient of
 * variation of the best values), the grouping of parameters (the paper's Algorithm 1) and the
 * quota-based reward update of the sampling ratios (Algorithm 2). */
#ifndef STC_GEST_H
#define STC_GEST_H
#include "tune.h"

#define GEST_MAX_GROUPS 16

typedef struct {
    int params[P_COUNT];
    int n;
} GestGroup;

/* log2(v) + 1: the value GeST computes statistics on (never 0, so a mean never is). */
double gest_level(int v);
/* For each value of a present in the ok samples, the b of the fastest sample with that a; the
 * coefficient of variation (population std / mean, on gest_level) of those b. NAN when fewer
 * than two values of a are present. */
double gest_cv_directed(const TuneSample *data, int n, int a, int b);
/* The pair's CV: the mean of the defined directions, NAN when neither is. */
double gest_cv_pair(const TuneSample *data, int n, int a, int b);
/* Groups the free parameters of s into at most ngroups groups: preset groups of the thread-
 * block dims and of the merging factors, then the paper's Algorithm 1 over the pairs ordered
 * by CV (front_variant: grow from the low-CV end instead). balanced: no group but a preset one
 * takes in more than ceil(free parameters / ngroups) members. Returns the number of groups. */
int gest_group(const Space *s, const TuneSample *data, int n, int ngroups, int front_variant,
               int balanced, GestGroup *out);
/* The reward update after a round: groups not in up lose ar (not below lr); the groups in up
 * share what is left evenly; with none in up, the ratios are renormalized to sum to 1. */
void gest_update_ratios(double *sr, const int *up, int n, double ar, double lr);
/* Splits quota over the groups by ratio, carrying fractions over rounds in credit. */
void gest_split_quota(const double *sr, double *credit, int n, int quota, int *count);

#endif
