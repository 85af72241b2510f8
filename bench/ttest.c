// SPDX-License-Identifier: GPL-2.0
/*
 * Welch's t-test, for comparing runs rather than rounds: a handful of
 * run medians per side, whose spread is the run-to-run drift that the
 * rounds inside one run cannot show. Two or three values a side are
 * too few for a rank test (Mann-Whitney cannot go below p = 0.1 with
 * three a side), so the test assumes normality, on log values, where
 * timing noise is closer to symmetric.
 *
 * The t distribution is GSL's.
 */
#include <errno.h>
#include <math.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "bindlab.h"

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
	/* A domain error is a NaN to report, never GSL's abort(). */
	gsl_set_error_handler_off();
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	w->diff = mb - ma;
	w->se = sqrt(sa + sb);
	/*
	 * Identical values within each side: no spread to test a change
	 * against, so no p-value (t would be infinite, p 0: a claim no
	 * statistic backs).
	 */
	if (w->se == 0)
		return -EDOM;
	w->df = (sa + sb) * (sa + sb) /
		(sa * sa / (na - 1) + sb * sb / (nb - 1));
	w->t = w->diff / w->se;
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	q = gsl_cdf_tdist_Qinv(alpha / 2, w->df);
	w->lo = w->diff - q * w->se;
	w->hi = w->diff + q * w->se;
	return 0;
}
