// SPDX-License-Identifier: GPL-2.0
/*
 * Before/after comparison of one case. The unit of evidence is a round:
 * the ratio of medians gets a bootstrap 95% confidence interval and a
 * Mann-Whitney test over the rounds' samples. A change is claimed only
 * when both agree and the change is at least min_change_pct; otherwise
 * the row says "no stable difference", as seed 000's letter did for its
 * overlapping SO_REUSEPORT rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"

#define CMP_ALPHA	0.05
#define CMP_SEED	0x5EEDULL

/* Parameters that change how long a run takes, not what it measures. */
static const char * const incidental_params[] = {
	"rounds", "warmup", "buckets", "netns", "quiet", "json",
};

static bool incidental(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(incidental_params); i++)
		if (!strcmp(key, incidental_params[i]))
			return true;
	return false;
}

static bool params_differ(json_t *a, json_t *b, char *key, size_t len)
{
	const char *k;
	json_t *v;

	json_object_foreach(a, k, v) {
		if (incidental(k) || json_equal(v, json_object_get(b, k)))
			continue;
		snprintf(key, len, "%s", k);
		return true;
	}
	json_object_foreach(b, k, v) {
		if (incidental(k) || json_object_get(a, k))
			continue;
		snprintf(key, len, "%s", k);
		return true;
	}
	return false;
}

/* Versions compare on major.minor: patch releases keep the methodology. */
static bool same_series(const char *a, const char *b)
{
	const char *da = strchr(a, '.'), *db = strchr(b, '.');

	da = da ? strchr(da + 1, '.') : NULL;
	db = db ? strchr(db + 1, '.') : NULL;
	if (!da || !db)
		return !strcmp(a, b);
	return da - a == db - b && !strncmp(a, b, da - a);
}

static double *samples_of(json_t *metric, size_t *n)
{
	json_t *arr = json_object_get(metric, "samples"), *v;
	double *out;
	size_t i;

	*n = json_array_size(arr);
	out = calloc(*n ? *n : 1, sizeof(*out));
	if (!out)
		return NULL;
	json_array_foreach(arr, i, v)
		out[i] = json_number_value(v);
	return out;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/*
 * The smallest p-value na and nb rounds can give: complete separation.
 * With 3 rounds a side it is 0.08, so no difference can ever be claimed;
 * say so rather than "no stable difference".
 */
static double min_p(size_t na, size_t nb)
{
	double *v = malloc((na + nb) * sizeof(*v)), p;
	size_t i;

	if (!v)
		return 1;
	for (i = 0; i < na + nb; i++)
		v[i] = i;
	p = bl_mann_whitney_p(v, na, v + na, nb);
	free(v);
	return p;
}

int bl_compare_case(json_t *before, json_t *after,
		    const struct bl_cmp_opts *opts, struct bl_cmp_row *row)
{
	json_t *mb = json_object_get(before, "metric");
	json_t *ma = json_object_get(after, "metric");
	double *sb = NULL, *sa = NULL, worse;
	size_t nb, na;
	char key[64];

	memset(row, 0, sizeof(*row));
	snprintf(row->case_id, sizeof(row->case_id), "%s", str(before, "case"));
	snprintf(row->metric, sizeof(row->metric), "%s", str(mb, "name"));
	snprintf(row->unit, sizeof(row->unit), "%s", str(mb, "unit"));
	row->lower_better = !strcmp(str(mb, "better"), "lower");

	if (strcmp(str(before, "tool"), str(after, "tool")))
		snprintf(row->skipped, sizeof(row->skipped), "different tools");
	else if (!same_series(str(before, "harness_version"),
			      str(after, "harness_version")))
		snprintf(row->skipped, sizeof(row->skipped),
			 "harness %s vs %s", str(before, "harness_version"),
			 str(after, "harness_version"));
	else if (strcmp(str(mb, "name"), str(ma, "name")) ||
		 strcmp(str(mb, "better"), str(ma, "better")))
		snprintf(row->skipped, sizeof(row->skipped),
			 "different metrics (%s vs %s)", str(mb, "name"),
			 str(ma, "name"));
	else if (params_differ(json_object_get(before, "params"),
			       json_object_get(after, "params"), key,
			       sizeof(key)))
		snprintf(row->skipped, sizeof(row->skipped),
			 "parameter '%s' differs", key);
	if (row->skipped[0])
		return 0;

	sb = samples_of(mb, &nb);
	sa = samples_of(ma, &na);
	if (!sb || !sa) {
		free(sb);
		free(sa);
		return -ENOMEM;
	}
	row->rounds_before = nb;
	row->rounds_after = na;
	row->before = bl_median(sb, nb);
	row->after = bl_median(sa, na);
	row->ratio = row->before > 0 ? row->after / row->before : NAN;
	bl_bootstrap_ratio_ci(sb, nb, sa, na, BL_BOOTSTRAP_ITERS, CMP_SEED,
			      &row->ratio_lo, &row->ratio_hi);
	row->p = bl_mann_whitney_p(sb, nb, sa, na);
	free(sb);
	free(sa);

	/*
	 * Rounds minutes apart on a shared machine drift by a few percent:
	 * below min_change a difference may be real but is not claimed.
	 */
	if (min_p(nb, na) >= CMP_ALPHA) {
		snprintf(row->verdict, sizeof(row->verdict),
			 "too few rounds (%zu+%zu; 4+ each)", nb, na);
		return 0;
	}
	row->significant = row->p < CMP_ALPHA && isfinite(row->ratio_lo) &&
			   (row->ratio_lo > 1 || row->ratio_hi < 1) &&
			   fabs(log(row->ratio)) >=
			   log(1 + opts->min_change_pct / 100);
	if (!row->significant) {
		snprintf(row->verdict, sizeof(row->verdict),
			 "no stable difference");
		return 0;
	}
	/* How many times worse "after" is; below 1 means better. */
	worse = row->lower_better ? row->ratio : 1 / row->ratio;
	if (worse > 1) {
		snprintf(row->verdict, sizeof(row->verdict), "%.2fx slower",
			 worse);
		row->regression = opts->threshold_pct >= 0 &&
				  worse > 1 + opts->threshold_pct / 100;
	} else {
		snprintf(row->verdict, sizeof(row->verdict), "%.2fx faster",
			 1 / worse);
	}
	return 0;
}

static const char *better_word(bool lower_better)
{
	if (lower_better)
		return "lower";
	return "higher";
}

json_t *bl_cmp_row_json(const struct bl_cmp_row *row)
{
	if (row->skipped[0])
		return json_pack("{s:s, s:s}", "case", row->case_id,
				 "skipped", row->skipped);
	return json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:[f, f], s:f, s:i, s:i, s:b, s:b, s:s}",
			 "case", row->case_id, "metric", row->metric,
			 "unit", row->unit,
			 "better", better_word(row->lower_better),
			 "before_median", row->before,
			 "after_median", row->after, "ratio", row->ratio,
			 "ratio_ci95", row->ratio_lo, row->ratio_hi,
			 "mann_whitney_p", row->p,
			 "rounds_before", row->rounds_before,
			 "rounds_after", row->rounds_after,
			 "significant", row->significant,
			 "regression", row->regression,
			 "verdict", row->verdict);
}
