// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for benchmark samples. Quantiles interpolate linearly
 * between order statistics (R's type 7, numpy's default) so that the
 * unit tests can check them against values computed elsewhere.
 * The median's interval comes from order statistics, exact and free of
 * any assumption on the distribution; the ratio of two medians, which
 * has no such form, from a bootstrap with its own fixed-seed generator:
 * the same samples always give the same interval.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab_core.h"

int bl_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bl_quantile_sorted(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	pos = q * (n - 1);
	lo = (size_t)pos;
	frac = pos - lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bl_cmp_double);
	return s;
}

double bl_median(const double *v, size_t n)
{
	double *s = sorted_copy(v, n), m;

	if (!s)
		return NAN;
	m = bl_quantile_sorted(s, n, 0.5);
	free(s);
	return m;
}

/*
 * 95% interval of the median of n sorted samples, from their order
 * statistics: the median lies between the (r+1)-th smallest and the
 * (r+1)-th largest with probability 1 - 2 P(X <= r), X ~ Binomial(n, 1/2)
 * (a sample falls below the median with probability 1/2). r is the
 * largest with P(X <= r) <= 2.5%. Below 6 samples no r qualifies and the
 * interval is min..max, of coverage 1 - 2^(1-n). Exact for any
 * distribution, and one pass over half the binomial where a bootstrap
 * resampled all samples 2000 times: bind_bench's 40000 per-bind samples
 * took most of a round's time under TCG. The kselftests link no
 * statistics library, hence the sum here (in logs: 2^-n underflows).
 */
void bl_median_ci_sorted(const double *sorted, size_t n, double *lo,
			 double *hi)
{
	double logp = -(double)n * log(2.0), cdf = exp(logp), p;
	size_t r = 0;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	while (r + 1 < (n + 1) / 2) {
		/* P(X = r + 1) from P(X = r) */
		logp += log((double)(n - r) / (double)(r + 1));
		p = exp(logp);
		if (cdf + p > 0.025)
			break;
		cdf += p;
		r++;
	}
	*lo = sorted[r];
	*hi = sorted[n - 1 - r];
}

/* xorshift64*: tiny, fast and good enough to resample benchmark data. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static size_t rng_below(uint64_t *state, size_t n)
{
	return (size_t)((rng_next(state) >> 11) % n);
}

/*
 * The k-th smallest of a[0..n-1], in place (Wirth's selection): a[k]
 * ends in its sorted place, nothing larger before it, nothing smaller
 * after it. Expected O(n) on resampled data, which is in random order.
 */
static double select_kth(double *a, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, i, j, kk = (long)k;
	double x, t;

	while (l < m) {
		x = a[kk];
		i = l;
		j = m;
		do {
			while (a[i] < x)
				i++;
			while (x < a[j])
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return a[kk];
}

/*
 * Median of one resample, as bl_quantile_sorted(.., 0.5) would give it.
 * Selection instead of a sort: each of the bootstrap's 2000 resamples
 * needs only its middle.
 */
static double resampled_median(const double *v, size_t n, double *scratch,
			       uint64_t *state)
{
	size_t i, k = (n - 1) / 2;
	double m, next;

	for (i = 0; i < n; i++)
		scratch[i] = v[rng_below(state, n)];
	m = select_kth(scratch, n, k);
	if (n % 2)
		return m;
	next = scratch[k + 1];
	for (i = k + 2; i < n; i++)
		next = fmin(next, scratch[i]);
	return (m + next) / 2;
}

int bl_bootstrap_ratio_ci(const double *a, size_t na, const double *b,
			  size_t nb, unsigned int iters, uint64_t seed,
			  double *lo, double *hi)
{
	uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
	double *sa, *sb, *ratios, ma;
	unsigned int i;
	int err = 0;

	if (!na || !nb || !iters)
		return -EINVAL;
	sa = malloc(na * sizeof(*sa));
	sb = malloc(nb * sizeof(*sb));
	ratios = malloc(iters * sizeof(*ratios));
	if (!sa || !sb || !ratios) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < iters; i++) {
		ma = resampled_median(a, na, sa, &state);
		ratios[i] = resampled_median(b, nb, sb, &state) /
			    (ma > 0 ? ma : NAN);
	}
	qsort(ratios, iters, sizeof(*ratios), bl_cmp_double);
	*lo = bl_quantile_sorted(ratios, iters, 0.025);
	*hi = bl_quantile_sorted(ratios, iters, 0.975);
out:
	free(sa);
	free(sb);
	free(ratios);
	return err;
}

int bl_stats_compute(const double *v, size_t n, struct bl_stats *st)
{
	double *s, sum = 0, sq = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!n)
		return -EINVAL;
	s = sorted_copy(v, n);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sum += s[i];
	st->n = n;
	st->mean = sum / n;
	/* Two passes: the one-pass formula cancels badly on ns-sized data. */
	for (i = 0; i < n; i++)
		sq += (s[i] - st->mean) * (s[i] - st->mean);
	st->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	st->min = s[0];
	st->max = s[n - 1];
	st->p50 = bl_quantile_sorted(s, n, 0.50);
	st->p90 = bl_quantile_sorted(s, n, 0.90);
	st->p99 = bl_quantile_sorted(s, n, 0.99);
	bl_median_ci_sorted(s, n, &st->ci_lo, &st->ci_hi);
	free(s);
	return 0;
}
