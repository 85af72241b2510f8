// SPDX-License-Identifier: GPL-2.0
/*
 * Welch's t-test, for comparing runs rather than rounds: a handful of
 * run medians per side, whose spread is the run-to-run drift that the
 * rounds inside one run cannot show. Two or three values a side are
 * too few for a rank test (Mann-Whitney cannot go below p = 0.1 with
 * three a side), so the test assumes normality, on log values, where
 * timing noise is closer to symmetric.
 *
 * The t distribution comes from the regularized incomplete beta
 * function, evaluated by its continued fraction (modified Lentz).
 */
#include <errno.h>
#include <math.h>

#include "bindlab.h"

#define BETA_EPS	1e-14
#define BETA_TINY	1e-300
#define BETA_MAX_ITER	500

static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, aa, del;
	int m, m2;

	if (fabs(d) < BETA_TINY)
		d = BETA_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= BETA_MAX_ITER; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < BETA_TINY ? 1 / BETA_TINY : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < BETA_TINY)
			c = BETA_TINY;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < BETA_TINY ? 1 / BETA_TINY : 1 / d;
		c = 1 + aa / c;
		if (fabs(c) < BETA_TINY)
			c = BETA_TINY;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < BETA_EPS)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
double bl_incbeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) +
		    a * log(x) + b * log1p(-x));
	/* The fraction converges fast only below the mean; else use symmetry. */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double bl_t_two_sided_p(double t, double df)
{
	if (!isfinite(t))
		return 0;
	return bl_incbeta(df / 2, 0.5, df / (df + t * t));
}

/* The t with two-sided p = alpha, by bisection: p falls as t grows. */
double bl_t_critical(double alpha, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	while (bl_t_two_sided_p(hi, df) > alpha && hi < 1e9)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (bl_t_two_sided_p(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = ss / (n - 1);
}

int bl_welch(const double *a, size_t na, const double *b, size_t nb,
	     double alpha, struct bl_welch *w)
{
	double ma, va, mb, vb, sa, sb, q;

	if (na < 2 || nb < 2)
		return -EINVAL;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	w->diff = mb - ma;
	w->se = sqrt(sa + sb);
	if (w->se == 0) {
		/* Identical values within each side: no spread to test against. */
		w->df = na + nb - 2;
		w->t = w->diff ? copysign(INFINITY, w->diff) : 0;
		w->p = w->diff ? 0 : 1;
		w->lo = w->hi = w->diff;
		return 0;
	}
	w->df = (sa + sb) * (sa + sb) /
		(sa * sa / (na - 1) + sb * sb / (nb - 1));
	w->t = w->diff / w->se;
	w->p = bl_t_two_sided_p(w->t, w->df);
	q = bl_t_critical(alpha, w->df);
	w->lo = w->diff - q * w->se;
	w->hi = w->diff + q * w->se;
	return 0;
}
