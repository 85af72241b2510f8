// SPDX-License-Identifier: GPL-2.0
/*
 * The rank test compare uses with one run a side: Mann-Whitney U,
 * normal approximation with the tie correction, continuity corrected.
 */
#include <math.h>
#include <stdlib.h>

#include "bindlab.h"

struct ranked {
	double v;
	int group;
};

static int cmp_ranked(const void *a, const void *b)
{
	return bl_cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

double bl_mann_whitney_p(const double *a, size_t na, const double *b,
			 size_t nb)
{
	double ra = 0, ties = 0, u, mu, sigma, z, rank, t;
	size_t n = na + nb, i, j, k;
	struct ranked *r;

	if (!na || !nb)
		return NAN;
	r = malloc(n * sizeof(*r));
	if (!r)
		return NAN;
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		/* Tied values share the mean of the ranks they span. */
		rank = (i + 1 + j) / 2.0;
		t = j - i;
		ties += t * t * t - t;
		for (k = i; k < j; k++)
			if (!r[k].group)
				ra += rank;
	}
	free(r);
	u = ra - na * (na + 1) / 2.0;
	mu = na * nb / 2.0;
	sigma = sqrt(na * nb / 12.0 * ((n + 1) - ties / ((double)n * (n - 1))));
	if (sigma == 0)
		return 1.0;
	/* Continuity correction towards the mean. */
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2.0));
}
