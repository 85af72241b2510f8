// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for benchmark samples. Quantiles interpolate linearly
 * between order statistics (R's type 7, numpy's default) so that the
 * unit tests can check them against values computed elsewhere.
 * The bootstrap uses its own fixed-seed generator: the same samples
 * always give the same interval.
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
 * Selection instead of a sort: bind_bench resamples all per-bind samples
 * (48000 for 3 rounds of 16000) 2000 times, which took 10 s with qsort
 * natively and minutes in a TCG guest.
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

int bl_bootstrap_median_ci(const double *v, size_t n, unsigned int iters,
			   uint64_t seed, double *lo, double *hi)
{
	double *scratch, *meds;
	uint64_t state = seed ? seed : 0x9E3779B97F4A7C15ULL;
	unsigned int i;

	if (!n || !iters)
		return -EINVAL;
	scratch = malloc(n * sizeof(*scratch));
	meds = malloc(iters * sizeof(*meds));
	if (!scratch || !meds) {
		free(scratch);
		free(meds);
		return -ENOMEM;
	}
	for (i = 0; i < iters; i++)
		meds[i] = resampled_median(v, n, scratch, &state);
	qsort(meds, iters, sizeof(*meds), bl_cmp_double);
	*lo = bl_quantile_sorted(meds, iters, 0.025);
	*hi = bl_quantile_sorted(meds, iters, 0.975);
	free(scratch);
	free(meds);
	return 0;
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
	int err;

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
	free(s);
	err = bl_bootstrap_median_ci(v, n, BL_BOOTSTRAP_ITERS, 0, &st->ci_lo,
				     &st->ci_hi);
	return err;
}
