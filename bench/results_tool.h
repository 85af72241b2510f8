/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bindlab_results' own parts beyond bindlab.h: the case declarations that
 * run.sh passes from the case table (scripts/cases.sh reads the table, this
 * side only takes its rows), the one JSON string getter, and the LAVA
 * import (lib/lava_import.c).
 */
#ifndef BINDLAB_RESULTS_TOOL_H
#define BINDLAB_RESULTS_TOOL_H

#include <signal.h>
#include <string.h>
#include <jansson.h>

#include "bindlab.h"

#define BL_MAX_CASE_DECLS	64

/* One row of the case table: merge --case "NAME UNIT BETTER VERDICT". */
struct bl_case_decl {
	char name[BL_CASE_ID_MAX + 1];
	char unit[16];
	char better[8];		/* lower, higher */
	char verdict[8];	/* program: the program judges; none */
};

/* o[key] as a string, "" when absent or not a string. */
static inline const char *bl_json_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The case named id in a run's cases[], or NULL. */
static inline json_t *bl_case_find(json_t *cases, const char *id)
{
	json_t *c;
	size_t i;

	json_array_foreach(cases, i, c)
		if (!strcmp(bl_json_str(c, "case"), id))
			return c;
	return NULL;
}

/* The metric name a case name ends with (FIXTURE.VARIANT.MEASURE). */
static inline const char *bl_case_measure(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/*
 * The 1-minute load per CPU that a result's env claims, 0 when it names
 * none; -EINVAL or -ERANGE when loadavg or nproc is malformed or out of
 * range (runfile.c). A file's claim: range-checked, and never trusted
 * over the samples (compare.c).
 */
#define BL_MAX_LOAD_PER_CPU	1000
#define BL_MAX_CPUS		65536
int bl_env_load_per_cpu(json_t *env, double *load);

/*
 * bench/files.c's output checks with the run's inputs (their home is
 * bindlab_core.h beside bl_out_check(); declared here until it moves):
 * path is refused when it is one of inputs[] (same inode, however
 * spelled; NAME=FILE arguments are looked at after the '='), besides
 * bl_out_check()'s rules. bl_out_dir_check(): an output directory, new
 * or empty, ours, no symlink, and holding none of the inputs. Call
 * before any work; -errno with why set.
 */
int bl_out_check_inputs(const char *path, char *const *inputs, int ninputs,
			struct bl_why *why);
int bl_out_dir_check(const char *path, char *const *inputs, int ninputs,
		     struct bl_why *why);
/*
 * A directory results go in, made with its parents if new: ours, and
 * neither it nor where its first new parent goes under the system's
 * trees. It may hold files (the caller asks for emptiness if it must).
 */
int bl_out_place_check(const char *path, struct bl_why *why);

/*
 * The signals that could end us held (the old mask into *old) while an
 * output is half written; sigprocmask(SIG_SETMASK, old, NULL) takes them
 * as they would have been once it is whole or removed (files.c).
 */
void bl_hold_stop_signals(sigset_t *old);

/*
 * The strings of a loaded file escaped in place with bl_printable(), for
 * a reader that only prints it (summary): no byte of a file reaches the
 * terminal raw (jsonfile.c).
 */
void bl_json_printable(json_t *j);

/*
 * LAVA results (a JSON array of LAVA result dicts) into benchmark cases
 * and test entries; 0, or -EINVAL with why set (the caller exits 2).
 * Cases come with the verdict in the program's terms, for the caller's
 * one verdict function.
 */
int bl_lava_import(const char *path, const struct bl_case_decl *decls,
		   size_t ndecls, json_t *cases, json_t *tests,
		   struct bl_why *why);

#endif
