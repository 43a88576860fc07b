/* stats.c - see stats.h.  Written from the definitions (series and the
 * continued fraction of the incomplete beta function, Abramowitz & Stegun
 * 6.3.18, 6.4.12, 26.5.8) and Smyth (2004), "Linear models and empirical
 * Bayes methods for assessing differential expression", section 6. */
#include <math.h>
#include "stats.h"

double tf_digamma(double x)
{
	double r = 0;
	while (x < 10) { /* psi(x) = psi(x + 1) - 1/x */
		r -= 1 / x;
		x += 1;
	}
	double f = 1 / (x * x);
	/* asymptotic series: log x - 1/2x - sum B2k / (2k x^2k) */
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

double tf_trigamma(double x)
{
	double r = 0;
	while (x < 10) { /* psi'(x) = psi'(x + 1) + 1/x^2 */
		r += 1 / (x * x);
		x += 1;
	}
	double f = 1 / (x * x);
	/* 1/x + 1/2x^2 + sum B2k / x^(2k+1) */
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * (5.0 / 66)))));
}

double tf_trigamma_inv(double y)
{
	if (y > 1e7)
		return 1 / sqrt(y);
	if (y < 1e-6)
		return 1 / y;
	double x = 0.5 + 1 / y;
	for (int i = 0; i < 50; i++) {
		/* Newton's step on 1/trigamma(x) = 1/y (nearly linear in x):
		 * trigamma(x) (1 - trigamma(x)/y) / psi''(x), psi'' by a central
		 * difference of trigamma */
		double tri = tf_trigamma(x);
		double h = 1e-5 * x;
		double d2 = (tf_trigamma(x + h) - tf_trigamma(x - h)) / (2 * h);
		double dif = tri * (1 - tri / y) / d2;
		x += dif;
		if (x <= 0)
			x = 1e-8;
		if (-dif / x < 1e-8)
			break;
	}
	return x;
}

/* The continued fraction of I_x(a, b) (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

double tf_betainc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double tf_t_cdf(double t, double df)
{
	if (isinf(df) || df > 1e7)
		return 0.5 * erfc(-t / sqrt(2.0));
	double x = df / (df + t * t);
	double tail = 0.5 * tf_betainc(df / 2, 0.5, x); /* P(T > |t|) */
	return t >= 0 ? 1 - tail : tail;
}

double tf_t_quantile(double q, double df)
{
	if (q == 0.5)
		return 0;
	if (q < 0.5)
		return -tf_t_quantile(1 - q, df);
	/* P(T > x) = 1 - q, found by bisection on the tail, which keeps its
	 * precision where 1 - q is tiny */
	double want = 1 - q, lo = 0, hi = 1;
	while (1 - tf_t_cdf(hi, df) > want && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		double tail = isinf(df) || df > 1e7 ? 0.5 * erfc(mid / sqrt(2.0)) : 0.5 * tf_betainc(df / 2, 0.5, df / (df + mid * mid));
		if (tail > want)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

void tf_fit_fdist(const double *s2, const double *d, size_t n, double *s0sq, double *d0)
{
	*s0sq = 0;
	*d0 = 0;
	if (n < 3)
		return;
	/* e_i = log s2_i - digamma(d_i/2) + log(d_i/2): mean log(s0^2) -
	 * digamma(d0/2) + log(d0/2), variance trigamma(d0/2) + mean trigamma(d_i/2) */
	double mean = 0, tri = 0;
	for (size_t i = 0; i < n; i++) {
		mean += log(s2[i]) - tf_digamma(d[i] / 2) + log(d[i] / 2);
		tri += tf_trigamma(d[i] / 2);
	}
	mean /= (double)n;
	tri /= (double)n;
	double var = 0;
	for (size_t i = 0; i < n; i++) {
		double e = log(s2[i]) - tf_digamma(d[i] / 2) + log(d[i] / 2) - mean;
		var += e * e;
	}
	var = var / (double)(n - 1) - tri;
	if (var > 0) {
		*d0 = 2 * tf_trigamma_inv(var);
		*s0sq = exp(mean + tf_digamma(*d0 / 2) - log(*d0 / 2));
	} else {
		*d0 = INFINITY;
		*s0sq = exp(mean);
	}
}

