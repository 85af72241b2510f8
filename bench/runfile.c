// SPDX-License-Identifier: GPL-2.0
/*
 * Reading result files back: a run file (schema "bindlab.run", what run.sh
 * writes) or a single program result ("bindlab.result"). Whatever comes
 * in is checked field by field before anything uses it, so that compare
 * can say in one line why a file is not ours instead of misreading it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bindlab.h"

static __printf(3, 4)
int bad(struct bl_why *why, const char *what, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bl_why_set(why, EINVAL, "%s: %s", what, msg);
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
	if (!*name || !*unit || strlen(name) > 31 || strlen(unit) > 15)
		return bad(why, what, "metric name or unit empty or too long");
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

static int check_result(json_t *r, const char *what, struct bl_why *why)
{
	const char *schema, *tool, *id, *version;
	json_t *params, *metric;
	json_int_t sv;

	if (!json_is_object(r))
		return bad(why, what, "a result is not an object");
	if (json_unpack(r, "{s:s, s:I, s:s, s:s, s:s, s:o, s:o}",
			"schema", &schema, "schema_version", &sv,
			"harness_version", &version, "tool", &tool,
			"case", &id, "params", &params, "metric", &metric))
		return bad(why, what, "not a bindlab result (needs schema, schema_version, harness_version, tool, case, params, metric)");
	if (strcmp(schema, BINDLAB_SCHEMA))
		return bad(why, what, "schema '%s' is not " BINDLAB_SCHEMA,
			   schema);
	if (sv != BINDLAB_SCHEMA_VERSION)
		return bad(why, what, "schema version %lld, this harness reads %d",
			   (long long)sv, BINDLAB_SCHEMA_VERSION);
	if (!bl_case_id_valid(id))
		return bad(why, what, "case id '%.60s' is not [a-zA-Z0-9_] words joined by . - +",
			   id);
	if (!json_is_object(params))
		return bad(why, what, "params not an object");
	return check_metric(metric, what, why);
}

int bl_run_validate(json_t *root, const char *what, struct bl_why *why)
{
	const char *schema;
	json_t *cases, *c;
	json_int_t sv;
	size_t i;
	int err;

	if (!json_is_object(root))
		return bad(why, what, "not a JSON object");
	if (json_unpack(root, "{s:s}", "schema", &schema))
		return bad(why, what, "not a bindlab file (no schema)");
	if (!strcmp(schema, BINDLAB_SCHEMA))
		return check_result(root, what, why);
	if (strcmp(schema, BINDLAB_RUN_SCHEMA))
		return bad(why, what, "schema '%s' is not ours", schema);
	if (json_unpack(root, "{s:I, s:o}", "schema_version", &sv, "cases",
			&cases) || !json_is_array(cases))
		return bad(why, what, "run file needs schema_version and a cases array");
	if (sv != BINDLAB_SCHEMA_VERSION)
		return bad(why, what, "schema version %lld, this harness reads %d",
			   (long long)sv, BINDLAB_SCHEMA_VERSION);
	json_array_foreach(cases, i, c) {
		err = check_result(c, what, why);
		if (err)
			return err;
	}
	return 0;
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

json_t *bl_run_load(const char *path, struct bl_why *why)
{
	json_t *root = bl_json_load(path, why);

	if (!root)
		return NULL;
	if (bl_run_validate(root, path, why)) {
		json_decref(root);
		return NULL;
	}
	return root;
}
