// SPDX-License-Identifier: GPL-2.0
/*
 * JSON results through jansson. Every result carries what a reader needs
 * to place a figure: kernel, CPU, clocksource, load, and the harness
 * version and schema so that compare can refuse what it cannot compare.
 *
 * The environment is context, not evidence: it is read here, in the
 * caller's namespace, after the rounds, while each round ran in a fresh
 * namespace of its own. Its sysctls are therefore the caller's
 * ("caller_sysctls"), not the measured namespace's; a program that needs
 * the measured values records them per round, read inside that namespace
 * (bind_churn's rounds[].sysctls).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bindlab.h"
#include "results_tool.h"

static const char * const env_sysctls[] = {
	BL_SYSCTL_PORT_RANGE,
	BL_SYSCTL_TW_REUSE,
	BL_SYSCTL_TW_DELAY,
	BL_SYSCTL_TIMESTAMPS,
	"net/ipv4/tcp_max_tw_buckets",
	"net/core/somaxconn",
};

static json_t *first_line_after(const char *path, const char *key)
{
	char line[512], *colon, *nl;
	bool at_start = true, starts;
	json_t *val = NULL;
	FILE *f = fopen(path, "re");

	if (!f)
		return json_null();
	/* A kernel file: a long line (cpuinfo's flags) is skipped, not split. */
	while (!val && fgets(line, sizeof(line), f)) {
		starts = at_start;
		at_start = strchr(line, '\n') != NULL;
		if (!starts || !at_start || strncmp(line, key, strlen(key)))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		nl = strchr(colon, '\n');
		if (nl)
			*nl = '\0';
		val = json_string(colon);
	}
	fclose(f);
	return val ? val : json_null();
}

static json_t *file_string(const char *path)
{
	char buf[256], *nl;
	FILE *f = fopen(path, "re");
	json_t *val = NULL;

	if (!f)
		return json_null();
	/* One line, whole: a longer one is not cut into a wrong value. */
	if (fgets(buf, sizeof(buf), f)) {
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
		if (nl || feof(f))
			val = json_string(buf);
	}
	fclose(f);
	return val ? val : json_null();
}

json_t *bl_env_json(void)
{
	json_t *env = json_object(), *sysctls = json_object();
	char buf[128], stamp[32];
	struct utsname u;
	time_t now = time(NULL);
	size_t i;

	if (!uname(&u)) {
		json_object_set_new(env, "kernel_release", json_string(u.release));
		json_object_set_new(env, "kernel_version", json_string(u.version));
		json_object_set_new(env, "machine", json_string(u.machine));
	}
	json_object_set_new(env, "cpu_model",
			    first_line_after("/proc/cpuinfo", "model name"));
	json_object_set_new(env, "nproc",
			    json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	/* A busy machine drifts: a reader comparing runs should see it. */
	json_object_set_new(env, "loadavg", file_string("/proc/loadavg"));
	json_object_set_new(env, "clocksource",
			    file_string("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
	for (i = 0; i < ARRAY_SIZE(env_sysctls); i++) {
		if (bl_sysctl_read(env_sysctls[i], buf, sizeof(buf)))
			continue;
		json_object_set_new(sysctls, env_sysctls[i], json_string(buf));
	}
	json_object_set_new(env, "caller_sysctls", sysctls);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_set_new(env, "time", json_string(stamp));
	json_object_set_new(env, "harness_version", json_string(BINDLAB_VERSION));
	return env;
}

json_t *bl_result_new(const char *tool, const char *case_id)
{
	json_t *r = json_object();

	json_object_set_new(r, "schema", json_string(BINDLAB_SCHEMA));
	json_object_set_new(r, "schema_version",
			    json_integer(BINDLAB_SCHEMA_VERSION));
	json_object_set_new(r, "harness_version", json_string(BINDLAB_VERSION));
	json_object_set_new(r, "tool", json_string(tool));
	json_object_set_new(r, "case", json_string(case_id));
	json_object_set_new(r, "env", bl_env_json());
	return r;
}

json_t *bl_stats_json(const struct bl_stats *st)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:[f, f]}",
			 "n", (json_int_t)st->n, "min", st->min,
			 "median", st->p50, "p90", st->p90, "p99", st->p99,
			 "max", st->max, "mean", st->mean,
			 "stddev", st->stddev,
			 "median_ci95", st->ci_lo, st->ci_hi);
}

json_t *bl_u64_array_json(const uint64_t *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

json_t *bl_double_array_json(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

json_t *bl_metric_json(const char *name, const char *unit,
		       bool lower_is_better, const double *samples, size_t n)
{
	return json_pack("{s:s, s:s, s:s, s:o}", "name", name, "unit", unit,
			 "better", lower_is_better ? "lower" : "higher",
			 "samples", bl_double_array_json(samples, n));
}

