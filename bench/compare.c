// SPDX-License-Identifier: GPL-2.0
/*
 * Before/after comparison of one case, given one or more runs (result
 * files) a side. The unit of evidence is whatever varies between the
 * two sides:
 * - two or more runs a side: each run's median is one sample; Welch's
 *   t-test on their logs gives the p-value and the 95% confidence
 *   interval of the ratio, so drift between runs counts as noise;
 * - one run a side: the rounds, with a bootstrap 95% CI of the ratio
 *   of medians and a Mann-Whitney test; rounds cannot show drift
 *   between runs, so changes below the drift floor are not claimed.
 * A change is claimed only when the test and the interval agree and
 * the change is at least min_change_pct; otherwise the row says "no
 * stable difference", as the letter of "tcp: Fix fastreuse cache
 * initialization on first bind" did for its overlapping SO_REUSEPORT rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"
#include "results_tool.h"

#define CMP_ALPHA	0.05
#define CMP_SEED	0x5EEDULL

/*
 * What a case measures is its "params"; how long a run took to measure
 * it (rounds, warm-up) is in "settings", which compare never reads: it
 * knows no program's parameter names.
 */
static bool params_differ(json_t *a, json_t *b, char *key, size_t len)
{
	const char *k;
	json_t *v;

	json_object_foreach(a, k, v) {
		if (json_equal(v, json_object_get(b, k)))
			continue;
		snprintf(key, len, "%s", k);
		return true;
	}
	json_object_foreach(b, k, v) {
		if (json_object_get(a, k))
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

/* Append the rounds of one run's metric to v[*n...]; v has room. */
static void add_samples(json_t *metric, double *v, size_t *n)
{
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(metric, "samples"), i, x)
		v[(*n)++] = json_number_value(x);
}

static size_t rounds_of(const struct bl_cmp_side *side)
{
	size_t i, n = 0;

	for (i = 0; i < side->n; i++)
		n += json_array_size(json_object_get(
			json_object_get(side->runs[i], "metric"), "samples"));
	return n;
}

/* Why run x cannot be compared with the reference run, or NULL. */
const char *bl_cmp_incomparable(json_t *ref, json_t *x, char *buf,
				size_t len)
{
	json_t *mr = json_object_get(ref, "metric");
	json_t *mx = json_object_get(x, "metric");
	char key[64];

	if (strcmp(bl_json_str(ref, "tool"), bl_json_str(x, "tool")))
		snprintf(buf, len, "different tools");
	else if (!same_series(bl_json_str(ref, "harness_version"),
			      bl_json_str(x, "harness_version")))
		snprintf(buf, len, "harness %s vs %s",
			 bl_json_str(ref, "harness_version"), bl_json_str(x, "harness_version"));
	else if (strcmp(bl_json_str(mr, "name"), bl_json_str(mx, "name")) ||
		 strcmp(bl_json_str(mr, "better"), bl_json_str(mx, "better")))
		snprintf(buf, len, "different metrics (%s, %s is better vs %s, %s is better)",
			 bl_json_str(mr, "name"), bl_json_str(mr, "better"),
			 bl_json_str(mx, "name"), bl_json_str(mx, "better"));
	else if (strcmp(bl_json_str(mr, "unit"), bl_json_str(mx, "unit")))
		snprintf(buf, len, "different units (%s vs %s)",
			 bl_json_str(mr, "unit"), bl_json_str(mx, "unit"));
	else if (params_differ(json_object_get(ref, "params"),
			       json_object_get(x, "params"), key, sizeof(key)))
		snprintf(buf, len, "parameter '%s' differs", key);
	else
		return NULL;
	return buf;
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

/*
 * The highest 1-minute load average per CPU that the runs or the files
 * holding them recorded, 0 if none did. Above 1 the benchmark shared its
 * CPU: its wall-clock time can stretch by about that factor between one
 * run and the next. A guest sees only its own load, not its host's
 * (ab.sh merges each boot's results on the host: the file's env). It is
 * what the file claims (validated when read: finite, 0..1000 per CPU),
 * so it may hold a claim back but never passes a gate (load_held()).
 */
static double load_per_cpu(const struct bl_cmp_side *side)
{
	double worst = 0, load;
	size_t i;

	for (i = 0; i < side->n; i++) {
		if (!bl_env_load_per_cpu(json_object_get(side->runs[i], "env"),
					 &load))
			worst = fmax(worst, load);
		if (side->file_envs &&
		    !bl_env_load_per_cpu(side->file_envs[i], &load))
			worst = fmax(worst, load);
	}
	return worst;
}

/*
 * One run a side: the rounds are the samples. Rounds follow each other
 * within seconds and share the machine's state, so their spread misses
 * the drift between runs: up to 1.9x here on a quiet machine for the
 * cache-bound scans, 4.3x under load, with rounds agreeing within a few
 * percent. Changes below the drift floor are not claimed however tight
 * the rounds; on an overcommitted host the floor grows with the load
 * per CPU.
 */
static int by_rounds(const struct bl_cmp_side *before,
		     const struct bl_cmp_side *after,
		     struct bl_cmp_row *row)
{
	size_t nb = row->rounds_before, na = row->rounds_after, i;
	double *sb = calloc(nb + 1, sizeof(*sb));
	double *sa = calloc(na + 1, sizeof(*sa));

	if (!sb || !sa) {
		free(sb);
		free(sa);
		return -ENOMEM;
	}
	nb = na = 0;
	for (i = 0; i < before->n; i++)
		add_samples(json_object_get(before->runs[i], "metric"), sb, &nb);
	for (i = 0; i < after->n; i++)
		add_samples(json_object_get(after->runs[i], "metric"), sa, &na);
	row->method = BL_CMP_ROUNDS;
	row->before = bl_median(sb, nb);
	row->after = bl_median(sa, na);
	row->ratio = row->before > 0 ? row->after / row->before : NAN;
	bl_bootstrap_ratio_ci(sb, nb, sa, na, BL_BOOTSTRAP_ITERS, CMP_SEED,
			      &row->ratio_lo, &row->ratio_hi);
	row->p = bl_mann_whitney_p(sb, nb, sa, na);
	free(sb);
	free(sa);
	if (min_p(nb, na) >= CMP_ALPHA) {
		snprintf(row->verdict, sizeof(row->verdict),
			 "too few rounds (%zu+%zu; 4+ each)", nb, na);
		return 1;
	}
	return 0;
}

/* Run medians, log-transformed, of one side; NULL if one is not > 0. */
static double *log_run_medians(const struct bl_cmp_side *side, int *err)
{
	double *m = calloc(side->n, sizeof(*m)), *s;
	json_t *metric;
	size_t i, k;

	*err = -ENOMEM;
	if (!m)
		return NULL;
	for (i = 0; i < side->n; i++) {
		metric = json_object_get(side->runs[i], "metric");
		s = calloc(json_array_size(json_object_get(metric, "samples")) + 1,
			   sizeof(*s));
		if (!s) {
			free(m);
			return NULL;
		}
		k = 0;
		add_samples(metric, s, &k);
		m[i] = bl_median(s, k);
		free(s);
		if (!(m[i] > 0)) {
			*err = -EDOM;
			free(m);
			return NULL;
		}
		m[i] = log(m[i]);
	}
	*err = 0;
	return m;
}

/*
 * Two or more runs a side: each run's median is one sample, so the
 * spread between runs, drift included, is what a change must beat.
 */
static int by_runs(const struct bl_cmp_side *before,
		   const struct bl_cmp_side *after, struct bl_cmp_row *row)
{
	double *lb, *la = NULL, mb = 0;
	struct bl_welch w;
	size_t i;
	int err;

	lb = log_run_medians(before, &err);
	if (lb)
		la = log_run_medians(after, &err);
	if (err == -EDOM)
		snprintf(row->skipped, sizeof(row->skipped),
			 "a run's median is not above 0: no ratio");
	if (!err) {
		err = bl_welch(lb, before->n, la, after->n, CMP_ALPHA, &w);
		if (err == -EDOM)
			snprintf(row->skipped, sizeof(row->skipped),
				 "each side's runs have equal medians: no spread to test a change against");
	}
	if (!err) {
		for (i = 0; i < before->n; i++)
			mb += lb[i] / before->n;
		row->method = BL_CMP_RUNS;
		row->before = exp(mb);
		row->after = exp(mb + w.diff);
		row->ratio = exp(w.diff);
		row->ratio_lo = exp(w.lo);
		row->ratio_hi = exp(w.hi);
		row->p = w.p;
	}
	free(lb);
	free(la);
	return err == -EDOM ? 1 : err;
}

/* The row's identity and sizes; false when a run cannot be compared. */
static bool row_init(const struct bl_cmp_side *before,
		     const struct bl_cmp_side *after, struct bl_cmp_row *row)
{
	json_t *ref = before->runs[0], *mb = json_object_get(ref, "metric");
	size_t i;

	memset(row, 0, sizeof(*row));
	snprintf(row->case_id, sizeof(row->case_id), "%s", bl_json_str(ref, "case"));
	snprintf(row->metric, sizeof(row->metric), "%s", bl_json_str(mb, "name"));
	snprintf(row->unit, sizeof(row->unit), "%s", bl_json_str(mb, "unit"));
	row->lower_better = !strcmp(bl_json_str(mb, "better"), "lower");
	row->runs_before = before->n;
	row->runs_after = after->n;
	row->rounds_before = rounds_of(before);
	row->rounds_after = rounds_of(after);
	for (i = 1; i < before->n; i++)
		if (bl_cmp_incomparable(ref, before->runs[i], row->skipped,
					sizeof(row->skipped)))
			return false;
	for (i = 0; i < after->n; i++)
		if (bl_cmp_incomparable(ref, after->runs[i], row->skipped,
					sizeof(row->skipped)))
			return false;
	return true;
}

/* The words of a claim, in the case's direction; below 1 is better. */
static void claim(const struct bl_cmp_opts *opts, struct bl_cmp_row *row)
{
	double worse = row->lower_better ? row->ratio : 1 / row->ratio;

	if (worse > 1) {
		snprintf(row->verdict, sizeof(row->verdict), "%.2fx slower",
			 worse);
		row->regression = opts->threshold_pct >= 0 &&
				  worse > 1 + opts->threshold_pct / 100;
	} else {
		snprintf(row->verdict, sizeof(row->verdict), "%.2fx faster",
			 1 / worse);
	}
}

/*
 * A change the samples show beyond the drift floor of the method, that
 * only the load a file claims keeps from being claimed. Under
 * --threshold it still counts: nothing a file says about the machine
 * outweighs what the run measured, so a claim of load (even 1e300 once
 * was) cannot silence a slowdown at a gate.
 */
static bool load_held(const struct bl_cmp_opts *opts, struct bl_cmp_row *row)
{
	double base = fmax(opts->min_change_pct, opts->drift_pct);
	double worse = row->lower_better ? row->ratio : 1 / row->ratio;

	if (opts->threshold_pct < 0 || fabs(log(row->ratio)) < log(1 + base / 100) ||
	    worse <= 1 + opts->threshold_pct / 100)
		return false;
	snprintf(row->verdict, sizeof(row->verdict),
		 "%.2fx slower: counted, a load claim passes no gate", worse);
	row->regression = true;
	return true;
}

/* Only the drift floor stands between the data and a claim: say so. */
static void below_floor(const struct bl_cmp_opts *opts, double floor,
			struct bl_cmp_row *row)
{
	row->significant = false;
	if (row->load > 1 && load_held(opts, row))
		return;
	if (row->load > 1)
		snprintf(row->verdict, sizeof(row->verdict),
			 "no stable difference (1 run a side, load %.1f/CPU: < %.2gx)",
			 row->load, 1 + floor / 100);
	else
		snprintf(row->verdict, sizeof(row->verdict),
			 "no stable difference (1 run a side: < %.3gx)",
			 1 + floor / 100);
}

/* A ratio a double holds, and its inverse ("Nx faster") too. */
static bool ratio_fits(double r)
{
	return r > 0 && isfinite(r) && isfinite(1 / r);
}

int bl_compare_case(const struct bl_cmp_side *before,
		    const struct bl_cmp_side *after,
		    const struct bl_cmp_opts *opts, struct bl_cmp_row *row)
{
	double floor = opts->min_change_pct;
	int err;

	if (!row_init(before, after, row))
		return 0;
	row->load = fmax(load_per_cpu(before), load_per_cpu(after));
	if (before->n >= 2 && after->n >= 2)
		err = by_runs(before, after, row);
	else
		err = by_rounds(before, after, row);
	if (err)
		return err < 0 ? err : 0;
	/* Samples 1e-300 apart from 1e15 overflow a ratio or its inverse. */
	if (!ratio_fits(row->ratio) || !ratio_fits(row->ratio_lo) ||
	    !ratio_fits(row->ratio_hi)) {
		snprintf(row->skipped, sizeof(row->skipped),
			 "the ratio of its medians is beyond a double (%g / %g)",
			 row->after, row->before);
		return 0;
	}
	if (row->method == BL_CMP_ROUNDS)
		floor = fmax(floor, ((1 + opts->drift_pct / 100) *
				     fmax(1, row->load) - 1) * 100);

	row->significant = row->p < CMP_ALPHA && isfinite(row->ratio_lo) &&
			   (row->ratio_lo > 1 || row->ratio_hi < 1) &&
			   fabs(log(row->ratio)) >=
			   log(1 + opts->min_change_pct / 100);
	if (row->significant &&
	    fabs(log(row->ratio)) < log(1 + floor / 100)) {
		below_floor(opts, floor, row);
		return 0;
	}
	if (!row->significant)
		snprintf(row->verdict, sizeof(row->verdict),
			 "no stable difference");
	else
		claim(opts, row);
	return 0;
}

static const char *test_name(enum bl_cmp_method m)
{
	if (m == BL_CMP_RUNS)
		return "welch_t_log_run_medians";
	return "mann_whitney_rounds";
}

const char *bl_cmp_method_name(enum bl_cmp_method m)
{
	return m == BL_CMP_RUNS ? "runs" : "rounds";
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
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:[f, f], s:s, s:f, s:f, s:i, s:i, s:i, s:i, s:b, s:b, s:s}",
			 "case", row->case_id, "metric", row->metric,
			 "unit", row->unit,
			 "better", better_word(row->lower_better),
			 "method", bl_cmp_method_name(row->method),
			 "before", row->before,
			 "after", row->after, "ratio", row->ratio,
			 "ratio_ci95", row->ratio_lo, row->ratio_hi,
			 "test", test_name(row->method),
			 "p", row->p, "load_per_cpu", row->load,
			 "runs_before", row->runs_before,
			 "runs_after", row->runs_after,
			 "rounds_before", row->rounds_before,
			 "rounds_after", row->rounds_after,
			 "significant", row->significant,
			 "regression", row->regression,
			 "verdict", row->verdict);
}
