// SPDX-License-Identifier: GPL-2.0
/*
 * LAVA results into a run file (bindlab_results merge --lava FILE). FILE
 * is a JSON array of LAVA result dicts: definition, case, result
 * (pass|fail|skip|unknown), measurement and units when measured. A case
 * named like a table case is its headline (result: the program's verdict,
 * measurement: the median), CASE.sampleK its K-th sample; any other
 * fixture[.variant].test name is a kselftest result of the definition.
 * What maps to nothing is refused: nothing is dropped in silence; a
 * table case no import holds is a failure, "not in the LAVA job" (merge).
 * The format is in docs/fleets.md ("A fleet's results back home").
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"
#include "results_tool.h"

#define LAVA_MEDIAN_TOLERANCE	1e-4

/* What the import gathered for one table case. */
struct lava_case {
	json_t *head;		/* the headline dict, borrowed */
	json_t *samples;	/* "K" -> measurement */
};

/* The file being imported, for the messages (one import at a time). */
static const char *lava_path = "";

static __printf(2, 3)
int refuse(struct bl_why *why, const char *fmt, ...)
{
	char msg[200], path[101];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Names and values come from the file: escaped, as the path is. */
	snprintf(path, sizeof(path), "%s", bl_printable(lava_path));
	return bl_why_set(why, EINVAL, "--lava %s: %s", path, bl_printable(msg));
}

static json_t *lava_test(const char *program, const char *test,
			 const char *result, const char *reason)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "program", program,
			 "test", test, "result", result, "reason", reason);
}

/* fixture.test or fixture.variant.test, [A-Za-z0-9_] words. */
static bool ktap_name(const char *name)
{
	size_t words = 1, len = 0;
	const char *p;

	for (p = name; *p; p++) {
		if (*p == '.') {
			if (!len)
				return false;
			words++;
			len = 0;
		} else if (isalnum((unsigned char)*p) || *p == '_') {
			len++;
		} else {
			return false;
		}
	}
	return len && (words == 2 || words == 3);
}

static int check_entry(json_t *e, size_t i, struct bl_why *why)
{
	const char *def, *name, *result;
	json_t *m = json_object_get(e, "measurement");

	if (json_unpack(e, "{s:s, s:s, s:s}", "definition", &def, "case", &name,
			"result", &result))
		return refuse(why, "result %zu needs definition, case and result strings", i);
	if (strcmp(result, "pass") && strcmp(result, "fail") &&
	    strcmp(result, "skip") && strcmp(result, "unknown"))
		return refuse(why, "%s: result '%.20s' is not pass, fail, skip or unknown",
			      name, result);
	if (m && !json_is_number(m))
		return refuse(why, "%s: measurement is not a number", name);
	if (json_object_get(e, "units") && !json_is_string(json_object_get(e, "units")))
		return refuse(why, "%s: units is not a string", name);
	return 0;
}

/* A measurement in the table's unit, > 0 as every sample must be. */
static int measured(json_t *e, const struct bl_case_decl *d, double *v,
		    struct bl_why *why)
{
	const char *name = bl_json_str(e, "case");

	*v = json_number_value(json_object_get(e, "measurement"));
	if (!json_is_number(json_object_get(e, "measurement")) ||
	    !isfinite(*v) || *v <= 0 || *v > BL_MAX_SAMPLE)
		return refuse(why, "%s: no measurement in (0, %g]", name,
			      BL_MAX_SAMPLE);
	if (strcmp(bl_json_str(e, "units"), d->unit))
		return refuse(why, "%s: units '%.15s', the table's case is in %s",
			      name, bl_json_str(e, "units"), d->unit);
	return 0;
}

/* NAME.sampleK of a table case: its index, or 0 when name is not one. */
static size_t sample_of(const char *name, const struct bl_case_decl *decls,
			size_t ndecls, size_t *k)
{
	size_t i, len;
	char *end;

	for (i = 0; i < ndecls; i++) {
		len = strlen(decls[i].name);
		if (strncmp(name, decls[i].name, len) ||
		    strncmp(name + len, ".sample", 7))
			continue;
		*k = strtoul(name + len + 7, &end, 10);
		if (*end || !*k || *k > BL_MAX_SAMPLES ||
		    name[len + 7] < '1' || name[len + 7] > '9')
			return 0;
		return i + 1;
	}
	return 0;
}

static int add_sample(struct lava_case *lc, json_t *e,
		      const struct bl_case_decl *d, size_t k,
		      struct bl_why *why)
{
	char key[24];
	double v;

	if (measured(e, d, &v, why))
		return -EINVAL;
	snprintf(key, sizeof(key), "%zu", k);
	if (json_object_get(lc->samples, key))
		return refuse(why, "%s twice", bl_json_str(e, "case"));
	return json_object_set_new(lc->samples, key, json_real(v));
}

/* The test entry of PROGRAM and TEST already in tests, or NULL. */
static json_t *test_of(json_t *tests, const char *program, const char *test)
{
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t)
		if (!strcmp(bl_json_str(t, "program"), program) &&
		    !strcmp(bl_json_str(t, "test"), test))
			return t;
	return NULL;
}

/*
 * A kselftest result, or one of LAVA's own records (definition lava).
 * A measurement belongs to a table case only: on any other name it is
 * refused, not dropped, except LAVA's own action durations, which the
 * entry keeps in its reason. A test twice (two jobs, or one job that
 * reported it twice) is refused too: which one would count?
 */
static int add_test(json_t *e, json_t *tests, struct bl_why *why)
{
	const char *def = bl_json_str(e, "definition");
	const char *name = bl_json_str(e, "case");
	const char *result = bl_json_str(e, "result");
	json_t *m = json_object_get(e, "measurement");
	bool lava = !strcmp(def, "lava");
	char reason[96] = "";

	if (m && !lava)
		return refuse(why, "%s %s: a measurement (%g %.15s) on a name that is no case of the table",
			      def, name, json_number_value(m),
			      bl_json_str(e, "units"));
	/* LAVA's record of the job twice: two jobs in one import. */
	if ((!lava || !strcmp(name, "job")) && test_of(tests, def, name))
		return refuse(why, "%s %s twice%s", def, name,
			      lava ? ": the records of two jobs" : "");
	if (m)
		snprintf(reason, sizeof(reason), "LAVA: %g %.15s",
			 json_number_value(m), bl_json_str(e, "units"));
	if (!strcmp(result, "unknown"))
		return json_array_append_new(tests, lava_test(def, name, "fail",
							      "LAVA result unknown"));
	return json_array_append_new(tests, lava_test(def, name, result, reason));
}

static int sort_entry(json_t *e, const struct bl_case_decl *decls,
		      size_t ndecls, struct lava_case *acc, json_t *tests,
		      struct bl_why *why)
{
	const char *def = bl_json_str(e, "definition");
	const char *name = bl_json_str(e, "case");
	size_t i, k;

	for (i = 0; i < ndecls; i++)
		if (!strcmp(name, decls[i].name)) {
			if (acc[i].head)
				return refuse(why, "%s twice", name);
			acc[i].head = e;
			return 0;
		}
	i = sample_of(name, decls, ndecls, &k);
	if (i)
		return add_sample(&acc[i - 1], e, &decls[i - 1], k, why);
	if (strcmp(def, "lava") && !ktap_name(name))
		return refuse(why, "case '%.60s' is no table case, sample or kselftest name",
			      name);
	return add_test(e, tests, why);
}

/* Samples 1..R in order, none missing; NULL with why set. */
static json_t *sample_array(const struct lava_case *lc, const char *name,
			    struct bl_why *why)
{
	size_t k, n = json_object_size(lc->samples);
	json_t *arr = json_array(), *v;
	char key[24];

	for (k = 1; k <= n; k++) {
		snprintf(key, sizeof(key), "%zu", k);
		v = json_object_get(lc->samples, key);
		if (!v) {
			json_decref(arr);
			refuse(why, "%s: %zu samples but no sample%zu", name, n, k);
			return NULL;
		}
		json_array_append(arr, v);
	}
	return arr;
}

static int check_median(json_t *head, json_t *samples,
			const struct bl_case_decl *d, struct bl_why *why)
{
	size_t i, n = json_array_size(samples);
	double *v = calloc(n, sizeof(*v)), want, got;
	json_t *x;

	if (!v)
		return -ENOMEM;
	json_array_foreach(samples, i, x)
		v[i] = json_number_value(x);
	want = bl_median(v, n);
	free(v);
	if (measured(head, d, &got, why))
		return -EINVAL;
	if (fabs(got - want) > LAVA_MEDIAN_TOLERANCE * want)
		return refuse(why, "%s: measurement %g is not the median %g of its samples",
			      d->name, got, want);
	return 0;
}

/* The program's verdict in its own terms, from the headline's result. */
static json_t *program_verdict(const char *result, const struct bl_case_decl *d)
{
	bool judged = !strcmp(d->verdict, "program");

	if (!strcmp(result, "pass"))
		return judged ? json_pack("{s:s}", "status", "pass") : NULL;
	if (!strcmp(result, "fail") && judged)
		return json_pack("{s:s, s:s}", "status", "regressed",
				 "reason", "LAVA: fail");
	return json_pack("{s:s, s:s}", "status", "fail", "reason",
			 !strcmp(result, "fail") ? "LAVA: fail" :
			 "LAVA result unknown");
}

static json_t *lava_result(const struct bl_case_decl *d, json_t *head,
			   json_t *samples)
{
	json_t *c, *v;

	c = json_pack("{s:s, s:i, s:s, s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s, s:s, s:o}}",
		      "schema", BINDLAB_SCHEMA,
		      "schema_version", BINDLAB_SCHEMA_VERSION,
		      "harness_version", BINDLAB_VERSION, "tool", "lava",
		      "case", d->name,
		      "params", "definition", bl_json_str(head, "definition"),
		      "env", "source", "lava",
		      "metric", "name", bl_case_measure(d->name), "unit", d->unit,
		      "better", d->better, "samples", samples);
	v = program_verdict(bl_json_str(head, "result"), d);
	if (v)
		json_object_set_new(c, "verdict", v);
	return c;
}

/* One table case: a result, a listed skip or failure, or refused. */
static int finish_case(const struct bl_case_decl *d, struct lava_case *lc,
		       json_t *cases, json_t *tests, struct bl_why *why)
{
	size_t n = json_object_size(lc->samples);
	json_t *samples;

	if (!lc->head && !n)
		return 0;	/* not run in this job: merge lists it */
	if (!lc->head)
		return refuse(why, "%s: samples without the headline case", d->name);
	if (bl_case_find(cases, d->name) || test_of(tests, "benchmark", d->name))
		return refuse(why, "%s twice (in two imports, or an import and a result)",
			      d->name);
	if (!strcmp(bl_json_str(lc->head, "result"), "skip")) {
		if (n)
			return refuse(why, "%s: skipped, yet %zu samples", d->name, n);
		json_array_append_new(tests, lava_test("benchmark", d->name, "skip",
						       "skipped in LAVA"));
		return 0;
	}
	if (!n) {
		json_array_append_new(tests, lava_test("benchmark", d->name, "fail",
						       "LAVA reported no samples"));
		return 0;
	}
	samples = sample_array(lc, d->name, why);
	if (!samples)
		return -EINVAL;
	if (check_median(lc->head, samples, d, why)) {
		json_decref(samples);
		return -EINVAL;
	}
	json_array_append_new(cases, lava_result(d, lc->head, samples));
	return 0;
}

static json_t *load_array(const char *path, struct bl_why *why)
{
	json_t *root = bl_json_load(path, why);

	if (!root)
		return NULL;
	if (!json_is_array(root) || !json_array_size(root)) {
		refuse(why, "%s: not a non-empty JSON array", path);
		json_decref(root);
		return NULL;
	}
	return root;
}

int bl_lava_import(const char *path, const struct bl_case_decl *decls,
		   size_t ndecls, json_t *cases, json_t *tests,
		   struct bl_why *why)
{
	struct lava_case acc[BL_MAX_CASE_DECLS] = {};
	json_t *root, *e;
	size_t i, ours = 0;
	int err = 0;

	lava_path = path;
	if (!ndecls)
		return refuse(why, "needs the case table's rows (--case; ./run.sh import-lava passes them)");
	root = load_array(path, why);
	if (!root)
		return -EINVAL;
	for (i = 0; i < ndecls; i++)
		acc[i].samples = json_object();
	json_array_foreach(root, i, e) {
		err = check_entry(e, i, why);
		if (!err)
			err = sort_entry(e, decls, ndecls, acc, tests, why);
		if (err)
			break;
		ours += !!strcmp(bl_json_str(e, "definition"), "lava");
	}
	/*
	 * LAVA's own records alone: the job stopped before its tests (a
	 * boot or harness failure, lava-results.py's exit 3). Its table
	 * cases would all read "not in the LAVA job", a kernel FAIL.
	 */
	if (!err && !ours)
		err = refuse(why, "no result of the job's test definitions, only LAVA's own records: no kernel verdict");
	for (i = 0; i < ndecls && !err; i++)
		err = finish_case(&decls[i], &acc[i], cases, tests, why);
	for (i = 0; i < ndecls; i++)
		json_decref(acc[i].samples);
	json_decref(root);
	return err;
}
