/* stats.h - the distributions and estimators of diff --gate (docs/gate.md):
 * Student's t, the digamma and trigamma functions, and the empirical Bayes
 * prior of a family of sample variances (Smyth 2004, limma's fitFDist).
 * Pure functions of their arguments; no allocation. */
#ifndef TRACEFOLD_STATS_H
#define TRACEFOLD_STATS_H

#include <stddef.h>

double tf_digamma(double x);                  /* x > 0 */
double tf_trigamma(double x);                 /* x > 0 */
/* y > 0 -> the x > 0 with trigamma(x) = y (Newton, as limma's trigammaInverse). */
double tf_trigamma_inv(double y);
/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
double tf_betainc(double a, double b, double x);
/* P(T <= t) for Student's t with df degrees of freedom (df > 0; an
 * infinite df is the standard normal). */
double tf_t_cdf(double t, double df);
/* The quantile q of Student's t (0 < q < 1): P(T <= x) = q. */
double tf_t_quantile(double q, double df);

/* The prior of n sample variances s2[i] with d[i] degrees of freedom each
 * (d[i] > 0, s2[i] > 0): the scaled inverse chi-square prior whose
 * moments on the log scale match theirs.  *d0 = INFINITY when they vary
 * no more than their own degrees of freedom explain (every variance is
 * then s0^2); *d0 = 0 and *s0sq = 0 with fewer than 3 of them. */
void tf_fit_fdist(const double *s2, const double *d, size_t n, double *s0sq, double *d0);
#endif
