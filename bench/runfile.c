// SPDX-License-Identifier: GPL-2.0
/*
 * Reading result files back: a run file (schema "bindlab.run", what run.sh
 * writes) or a single program result ("bindlab.result"). Whatever comes
 * in is checked whole, field by field (types, ranges, units, no case id
 * twice, only results and verdicts we know), before anything is computed
 * from it, so that compare can say in one line why a file is not ours
 * instead of misreading it, and a result it does not know never passes.
 *
 * What a file says about the machine (env: load, CPUs, sysctls) is a
 * claim, not a measurement: it is range-checked here, and compare never
 * lets it outweigh the samples (compare.c, load_per_cpu).
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

static __printf(3, 4)
int bad(struct bl_why *why, const char *what, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bl_why_set(why, EINVAL, "%s: %s", bl_printable(what), msg);
}

/* A short word of [A-Za-z0-9] and the characters of extra. */
static bool word_ok(const char *s, size_t max, const char *extra)
{
	size_t len = strlen(s);

	if (!len || len > max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

bool bl_unit_valid(const char *unit)
{
	return word_ok(unit, 15, "/%_");
}

/* A kselftest's file name: lower case, digits and '_', a letter first. */
bool bl_program_valid(const char *name)
{
	const char *c;

	if (!word_ok(name, 64, "_") || !(*name >= 'a' && *name <= 'z'))
		return false;
	for (c = name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			return false;
	return true;
}

int bl_env_load_per_cpu(json_t *env, double *load)
{
	json_t *jn = json_object_get(env, "nproc");
	const char *la = json_string_value(json_object_get(env, "loadavg"));
	char first[32];
	double v;
	size_t len;

	*load = 0;
	if (!la)
		return 0;
	/* /proc/loadavg: "1.23 0.98 0.75 2/345 6789"; the 1-minute figure. */
	len = strcspn(la, " ");
	if (!len || len >= sizeof(first))
		return -EINVAL;
	memcpy(first, la, len);
	first[len] = '\0';
	if (bl_parse_double(first, 0, 1e9, &v))
		return -EINVAL;
	if (!jn)
		return 0;	/* no CPU count: no load per CPU to speak of */
	if (!json_is_integer(jn) || json_integer_value(jn) < 1 ||
	    json_integer_value(jn) > BL_MAX_CPUS)
		return -ERANGE;
	v /= json_integer_value(jn);
	if (v > BL_MAX_LOAD_PER_CPU)
		return -ERANGE;
	*load = v;
	return 0;
}

/* env: strings (or null: not readable there), a CPU count, a load. */
static int check_env(json_t *env, const char *what, struct bl_why *why)
{
	static const char * const strs[] = {
		"kernel_release", "kernel_version", "machine", "cpu_model",
		"clocksource", "time", "harness_version", "loadavg", "source",
	};
	const char *k;
	json_t *v, *s;
	double load;
	size_t i;

	if (!env)
		return 0;
	if (!json_is_object(env))
		return bad(why, what, "env is not an object");
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		v = json_object_get(env, strs[i]);
		if (v && !json_is_string(v) && !json_is_null(v))
			return bad(why, what, "env.%s is not a string", strs[i]);
	}
	v = json_object_get(env, "caller_sysctls");
	if (v && !json_is_object(v))
		return bad(why, what, "env.caller_sysctls is not an object");
	json_object_foreach(v, k, s)
		if (!json_is_string(s))
			return bad(why, what, "env.caller_sysctls values are not all strings");
	/* A CPU count is one with a load or without. */
	v = json_object_get(env, "nproc");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
		  json_integer_value(v) > BL_MAX_CPUS))
		return bad(why, what, "env.nproc not in 1..%d: no CPU count",
			   BL_MAX_CPUS);
	/* Our env always has both: a load alone would leave the floor unwidened. */
	if (!v && json_is_string(json_object_get(env, "loadavg")))
		return bad(why, what, "env.loadavg without env.nproc: no load per CPU");
	if (bl_env_load_per_cpu(env, &load))
		return bad(why, what, "env.loadavg/nproc: the load per CPU is not a number in [0, %d] or nproc not in 1..%d",
			   BL_MAX_LOAD_PER_CPU, BL_MAX_CPUS);
	return 0;
}

static int check_metric(json_t *m, const char *what, struct bl_why *why)
{
	const char *name, *unit, *better;
	json_t *samples, *v;
	size_t i;

	if (json_unpack(m, "{s:s, s:s, s:s, s:o}", "name", &name, "unit",
			&unit, "better", &better, "samples", &samples))
		return bad(why, what, "metric needs name, unit, better, samples");
	if (strcmp(better, "lower") && strcmp(better, "higher"))
		return bad(why, what, "metric.better is neither lower nor higher");
	if (!word_ok(name, 31, "_"))
		return bad(why, what, "metric name is not 1-31 characters of [A-Za-z0-9_]");
	/* Units are printed and compared: ms, conn/s, us, %... */
	if (!bl_unit_valid(unit))
		return bad(why, what, "metric unit is not 1-15 characters of [A-Za-z0-9/%%_]");
	if (!json_is_array(samples) || !json_array_size(samples))
		return bad(why, what, "metric.samples is not a non-empty array");
	/* Bounded: every statistic over them stays cheap. */
	if (json_array_size(samples) > BL_MAX_SAMPLES)
		return bad(why, what, "metric has %zu samples, more than %d",
			   json_array_size(samples), BL_MAX_SAMPLES);
	/* A zero or absurd figure is no measurement: no ratio, no median. */
	json_array_foreach(samples, i, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    json_number_value(v) <= 0 ||
		    json_number_value(v) > BL_MAX_SAMPLE)
			return bad(why, what, "metric.samples[%zu] is not a number in (0, %g]",
				   i, BL_MAX_SAMPLE);
	}
	return 0;
}

/* A stored verdict: a word we know, and strings. */
static int check_verdict(json_t *v, bool run, const char *what,
			 struct bl_why *why)
{
	/* A program judges pass/regressed/fail; merge adds the rest. */
	static const char * const words[] = {
		"pass", "regressed", "fail", "measured", "xfail",
	};
	const char *status;
	size_t i;

	if (!v)
		return 0;
	if (json_unpack(v, "{s:s}", "status", &status) ||
	    (json_object_get(v, "reason") &&
	     !json_is_string(json_object_get(v, "reason"))) ||
	    (json_object_get(v, "details") &&
	     !json_is_string(json_object_get(v, "details"))))
		return bad(why, what, "verdict needs a status string (reason, details: strings)");
	for (i = 0; i < (run ? ARRAY_SIZE(words) : 3); i++)
		if (!strcmp(status, words[i]))
			return 0;
	/* A program's unknown word fails at merge (store_verdict); stored, it is no run of ours. */
	if (!run)
		return 0;
	return bad(why, what, "verdict '%s' is none of pass, regressed, fail, measured, xfail",
		   bl_printable(status));
}

/* The cost curve the plot reads: two arrays of finite numbers, paired. */
static int check_summary(json_t *sum, const char *what, struct bl_why *why)
{
	json_t *curve, *x, *y, *v;
	size_t i;

	if (!sum)
		return 0;
	if (!json_is_object(sum))
		return bad(why, what, "summary is not an object");
	curve = json_object_get(sum, "curve");
	if (!curve)
		return 0;
	x = json_object_get(curve, "bound_before");
	y = json_object_get(curve, "median_ns");
	if (!json_is_array(x) || !json_is_array(y) ||
	    json_array_size(x) != json_array_size(y) ||
	    json_array_size(x) > 1000)
		return bad(why, what, "summary.curve needs bound_before and median_ns of the same length, at most 1000");
	/* The first bucket starts with no socket bound; no bind takes no time. */
	json_array_foreach(x, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad(why, what, "summary.curve.bound_before[%zu] is not an integer >= 0",
				   i);
		v = json_array_get(y, i);
		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    json_number_value(v) <= 0 ||
		    json_number_value(v) > BL_MAX_SAMPLE)
			return bad(why, what, "summary.curve.median_ns[%zu] is not a number in (0, %g]",
				   i, BL_MAX_SAMPLE);
	}
	return 0;
}

static int check_result(json_t *r, bool run, const char *what,
			struct bl_why *why)
{
	static const char * const counts[] = { "n", "rounds" };
	const char *schema, *tool, *id, *version;
	json_t *params, *metric, *v;
	json_int_t sv;
	size_t i;
	int err;

	if (!json_is_object(r))
		return bad(why, what, "a result is not an object");
	if (json_unpack(r, "{s:s, s:I, s:s, s:s, s:s, s:o, s:o}",
			"schema", &schema, "schema_version", &sv,
			"harness_version", &version, "tool", &tool,
			"case", &id, "params", &params, "metric", &metric))
		return bad(why, what, "not a bindlab result (needs schema, schema_version, harness_version, tool, case, params, metric)");
	if (strcmp(schema, BINDLAB_SCHEMA))
		return bad(why, what, "schema '%s' is not " BINDLAB_SCHEMA,
			   bl_printable(schema));
	if (sv != BINDLAB_SCHEMA_VERSION)
		return bad(why, what, "schema version %lld, this harness reads %d",
			   (long long)sv, BINDLAB_SCHEMA_VERSION);
	if (!bl_case_id_valid(id))
		return bad(why, what, "case id '%.60s' is not [a-zA-Z0-9_] words joined by . - +",
			   bl_printable(id));
	if (!word_ok(version, 32, ".+~-_") || !word_ok(tool, 31, "_"))
		return bad(why, what, "case %s: harness_version or tool is not a short word", id);
	if (!json_is_object(params))
		return bad(why, what, "params not an object");
	/*
	 * A count below 1 measured nothing. Rounds need not match the
	 * samples: merge pools files, adding samples, not rounds.
	 */
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		v = json_object_get(params, counts[i]);
		if (v && (!json_is_integer(v) || json_integer_value(v) < 1))
			return bad(why, what, "case %s: params.%s is not an integer >= 1",
				   id, counts[i]);
	}
	err = check_metric(metric, what, why);
	if (!err)
		err = check_env(json_object_get(r, "env"), what, why);
	if (!err)
		err = check_verdict(json_object_get(r, "verdict"), run, what, why);
	if (!err)
		err = check_summary(json_object_get(r, "summary"), what, why);
	return err;
}

/*
 * The test results a run file holds. "error" and "crash" are failures
 * under other names (bl_run_load() stores them as such); any other word
 * is no result we know, and a file that has one is refused: an unknown
 * result never passes for XPASS or anything else.
 */
static int check_tests(json_t *tests, const char *what, struct bl_why *why)
{
	static const char * const results[] = {
		"pass", "fail", "xfail", "xpass", "skip", "error", "crash",
	};
	const char *program, *test, *result;
	json_t *t, *reason, *declared;
	size_t i, k;

	if (!tests)
		return 0;
	if (!json_is_array(tests))
		return bad(why, what, "tests is not an array");
	json_array_foreach(tests, i, t) {
		if (json_unpack(t, "{s:s, s:s, s:s}", "program", &program,
				"test", &test, "result", &result) || !*program || !*test)
			return bad(why, what, "tests[%zu] needs program, test and result strings, none empty", i);
		reason = json_object_get(t, "reason");
		if (reason && !json_is_string(reason))
			return bad(why, what, "tests[%zu].reason is not a string", i);
		/* Read by rejudge_tests(): a non-boolean would read as false. */
		declared = json_object_get(t, "declared");
		if (declared && !json_is_boolean(declared))
			return bad(why, what, "tests[%zu].declared is not a boolean", i);
		for (k = 0; k < ARRAY_SIZE(results); k++)
			if (!strcmp(result, results[k]))
				break;
		if (k == ARRAY_SIZE(results))
			return bad(why, what, "tests[%zu]: result '%.40s' is none of pass, fail, xfail, xpass, skip, error, crash",
				   i, bl_printable(result));
	}
	return 0;
}

/* The cases of a run: each valid, no case id twice (which one would count?). */
static int check_cases(json_t *cases, const char *what, struct bl_why *why)
{
	json_t *seen = json_object(), *c;
	const char *id;
	size_t i;
	int err = 0;

	json_array_foreach(cases, i, c) {
		err = check_result(c, true, what, why);
		if (err)
			break;
		id = json_string_value(json_object_get(c, "case"));
		if (json_object_get(seen, id)) {
			err = bad(why, what, "case %s twice: a case is one entry", id);
			break;
		}
		json_object_set_new(seen, id, json_true());
	}
	json_decref(seen);
	return err;
}

int bl_run_validate(json_t *root, const char *what, struct bl_why *why)
{
	const char *schema, *version;
	json_t *cases;
	json_int_t sv;
	int err;

	if (!json_is_object(root))
		return bad(why, what, "not a JSON object");
	if (json_unpack(root, "{s:s}", "schema", &schema))
		return bad(why, what, "not a bindlab file (no schema)");
	if (!strcmp(schema, BINDLAB_SCHEMA))
		return check_result(root, false, what, why);
	if (strcmp(schema, BINDLAB_RUN_SCHEMA))
		return bad(why, what, "schema '%s' is not ours",
			   bl_printable(schema));
	if (json_unpack(root, "{s:I, s:o}", "schema_version", &sv, "cases",
			&cases) || !json_is_array(cases))
		return bad(why, what, "run file needs schema_version and a cases array");
	if (sv != BINDLAB_SCHEMA_VERSION)
		return bad(why, what, "schema version %lld, this harness reads %d",
			   (long long)sv, BINDLAB_SCHEMA_VERSION);
	version = json_string_value(json_object_get(root, "harness_version"));
	if (version && !word_ok(version, 32, ".+~-_"))
		return bad(why, what, "harness_version is not a short word");
	err = check_env(json_object_get(root, "env"), what, why);
	if (!err)
		err = check_tests(json_object_get(root, "tests"), what, why);
	if (!err)
		err = check_cases(cases, what, why);
	return err;
}

json_t *bl_run_cases(json_t *root)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));

	if (schema && !strcmp(schema, BINDLAB_SCHEMA)) {
		json_t *one = json_array();

		json_array_append(one, root);
		return one;
	}
	return json_incref(json_object_get(root, "cases"));
}

/* "error" and "crash" are stored as the failures they are, named. */
static void failures_by_name(json_t *tests)
{
	const char *result, *reason;
	size_t i, len;
	json_t *t;
	char *buf;

	json_array_foreach(tests, i, t) {
		result = bl_json_str(t, "result");
		if (strcmp(result, "error") && strcmp(result, "crash"))
			continue;
		reason = bl_json_str(t, "reason");
		len = strlen(reason) + 16;
		buf = malloc(len);
		if (buf) {
			snprintf(buf, len, "%s%s%s", result,
				 *reason ? ": " : "", reason);
			json_object_set_new(t, "reason", json_string(buf));
			free(buf);
		}
		/* Even without the note, a failure it is. */
		json_object_set_new(t, "result", json_string("fail"));
	}
}

json_t *bl_run_load(const char *path, struct bl_why *why)
{
	json_t *root = bl_json_load(path, why);

	if (!root)
		return NULL;
	if (bl_run_validate(root, path, why)) {
		json_decref(root);
		return NULL;
	}
	failures_by_name(json_object_get(root, "tests"));
	return root;
}
