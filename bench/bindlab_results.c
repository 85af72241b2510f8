// SPDX-License-Identifier: GPL-2.0
/*
 * bindlab_results: the result files' one reader and writer for run.sh.
 *   merge OUT [--ktap NAME=FILE]... [--missing NAME=RESULT:WHY]... [RESULT.json]...
 *   summary RUN.json                                   one-screen summary
 *   compare [OPTIONS] BEFORE AFTER | BEFORE... -- AFTER...
 *   curve RUN.json DIR                                 plot data per case
 *   samples RESULT.json [ROUND-FIELD]                  one case's samples
 *   median [--case ID] [--field F] [--at-most|--at-least L] RESULT.json...
 *   ktap [--xfail-from-env [--release R]] FILE...      KTAP, normalized
 *   dest [--dir] NAME...                               outputs checked
 * Exit: 0 ok, 1 regression beyond --threshold, 2 bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindlab.h"
#include "results_tool.h"

static const char *prog = "bindlab_results";

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s merge OUT [--case ROW]... [--result NAME=FILE]... [--lava FILE]...\n"
		"                [--ktap NAME=FILE]... [--missing NAME=skip|fail:WHY]... [--program PROG]...\n"
		"                [RESULT.json]...\n"
		"       %s summary RUN.json\n"
		"       %s compare [--threshold PCT] [--min-change PCT] [--drift PCT] [--json OUT]\n"
		"                BEFORE.json AFTER.json | BEFORE.json... -- AFTER.json...\n"
		"       %s curve RUN.json DIR\n"
		"       %s samples RESULT.json [ROUND-FIELD]      one case's samples, one a line\n"
		"       %s median [--case ID] [--field F] [--at-most|--at-least LIMIT] RESULT.json...\n"
		"       %s ktap [--xfail-from-env [--release RELEASE]] FILE...\n"
		"       %s dest [--dir] NAME...                   each checked as an output (a directory), nothing written\n"
		"merge: --case \"NAME UNIT lower|higher program|none\": a row of the case table;\n"
		"       --result NAME=FILE: FILE's one result is that case; --lava FILE: LAVA results\n"
		"       (docs/fleets.md); --missing NAME=skip:REASON|fail:REASON: a planned case with no result;\n"
		"       --program PROG: a kselftest the inputs must hold a result of (else PROG ktap.plan fails)\n"
		"ktap: each FILE's cases as \"RESULT [PROGRAM/]NAME\" (pass fail skip xfail xpass), then\n"
		"      \"plan ok\" or \"plan broken\" (why on stderr); --xfail-from-env applies BINDLAB_XFAIL\n"
		"      and BINDLAB_XFAIL_FILE (the file's kernel column against RELEASE, default uname -r)\n"
		"exit: 0 ok, 1 regression or failure, 2 bad input or nothing compared,\n"
		"      4 nothing measured, everything skipped\n",
		prog, prog, prog, prog, prog, prog, prog, prog);
}

static __noreturn __printf(1, 2)
/*
 * One line, whatever a file or a name carried into the message (a
 * parser quotes the bytes it stopped at): control characters escaped,
 * and every byte past ASCII as bl_printable() does, since UTF-8's C1
 * controls (U+009B, CSI) drive a terminal as ESC does.
 */
void die_usage(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: ", prog);
	for (i = 0; msg[i]; i++) {
		unsigned char c = msg[i];

		if (c < 0x20 || c > 0x7e)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputc('\n', stderr);
	exit(BL_EXIT_USAGE);
}

/* Unreached: with no options, getopt_long() refuses each one first. */
static int no_option(void *ctx, int c, const char *arg, struct bl_why *why)
{
	return bl_why_set(why, EINVAL, "unknown option -%c", c);
}

/*
 * The operands of a subcommand without options, in the grammar of every
 * other one: "--" ends the options (so "--" is no file name, and a file
 * named "-x" is read after it), an option is refused by its name. Returns
 * argv moved on so that its [1] is the first operand; *argc follows.
 */
static char **operands_only(int *argc, char **argv)
{
	static const struct option none[] = { {} };
	struct bl_why why = { "" };

	if (bl_getopt_each(*argc, argv, ":", none, 0, NULL, no_option, NULL, &why))
		die_usage("%s", why.msg);
	*argc -= optind - 1;
	return argv + optind - 1;
}

static json_t *load_or_die(const char *path)
{
	struct bl_why why = { "" };
	json_t *root = bl_run_load(path, &why);

	if (!root)
		die_usage("%s", why.msg);
	return root;
}

static json_t *test_entry(const char *program, const char *test,
			  const char *result, const char *reason)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "program", program,
			 "test", test, "result", result, "reason", reason);
}

/*
 * A kselftest's KTAP (bench/ktap.c), the user's declarations applied:
 * every case one entry, names and reasons as the program printed them
 * (every reader escapes them when it prints them), and a broken plan (a crash, a timeout, a usage
 * error, a malformed or truncated file) the failing entry ktap.plan, so
 * that no verdict rests on tests never run.
 */
static json_t *parse_ktap(const char *program, const char *path)
{
	struct bl_why why = { "" };
	json_t *tests = json_array(), *t;
	const struct bl_ktap_case *c;
	char prog[256], reason[512];
	struct bl_ktap k;
	size_t i;

	if (bl_ktap_read(path, &k, &why))
		die_usage("--ktap %s", why.msg);
	bl_ktap_apply_xfail(&k);
	for (i = 0; i < k.n; i++) {
		c = &k.cases[i];
		snprintf(prog, sizeof(prog), "%s%s", program, c->program ? "/" : "");
		if (c->program)
			snprintf(prog + strlen(prog), sizeof(prog) - strlen(prog),
				 "%s", c->program);
		t = test_entry(prog, c->name, bl_ktap_result_name(c->result), c->reason);
		/* What a declaration made is judged again by a later merge. */
		if (c->declared)
			json_object_set_new(t, "declared", json_true());
		json_array_append_new(tests, t);
	}
	if (!k.plan_ok) {
		snprintf(reason, sizeof(reason), "%s: %s", path, k.broken);
		json_array_append_new(tests, test_entry(program, "ktap.plan", "fail",
							reason));
	}
	bl_ktap_free(&k);
	return tests;
}

/* Is case name listed as a benchmark without a result (skip, fail)? */
static bool planned_missing(json_t *tests, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t)
		if (!strcmp(bl_json_str(t, "program"), "benchmark") &&
		    !strcmp(bl_json_str(t, "test"), name))
			return true;
	return false;
}

/* Has any entry of tests program's name? */
static bool program_seen(json_t *tests, const char *program)
{
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t)
		if (!strcmp(bl_json_str(t, "program"), program))
			return true;
	return false;
}

/* --missing NAME=skip:REASON or NAME=fail:REASON: a planned case with no result. */
static json_t *missing_entry(char *arg)
{
	char *eq = strchr(arg, '='), *colon;

	colon = eq ? strchr(eq, ':') : NULL;
	if (!eq || !colon || eq == arg)
		die_usage("--missing needs NAME=skip:REASON or NAME=fail:REASON");
	*eq = '\0';
	*colon = '\0';
	if (strcmp(eq + 1, "skip") && strcmp(eq + 1, "fail"))
		die_usage("--missing %s: '%s' is neither skip nor fail", arg,
			  eq + 1);
	/* A skip or failure says why: an empty one is an unset variable. */
	if (!colon[1])
		die_usage("--missing %s: an empty REASON", arg);
	return test_entry("benchmark", arg, eq + 1, colon + 1);
}


/*
 * What a copy keeps of its original whatever was added to it since (a
 * merge re-judges verdicts and writes its own run environment, anyone
 * may add a note): each case's id, environment, metric and rounds, and a
 * run file's test results; with no case, its environment too (then the
 * test results alone could be another run's).
 */
static json_t *copy_key(json_t *in, json_t *cases)
{
	json_t *key = json_array(), *c, *tests, *empty = json_array(), *k;
	size_t i;

	json_array_foreach(cases, i, c)
		json_array_append_new(key, json_pack("{s:O?, s:O?, s:O?, s:O?}",
			"case", json_object_get(c, "case"),
			"env", json_object_get(c, "env"),
			"metric", json_object_get(c, "metric"),
			"rounds", json_object_get(c, "rounds")));
	tests = json_object_get(in, "tests");
	k = json_pack("{s:o, s:O?, s:O}", "cases", key,
			 "env", json_array_size(key) ? NULL :
				json_object_get(in, "env"),
			 "tests", json_array_size(tests) ? tests : empty);
	json_decref(empty);
	return k;
}

/*
 * A copy of a run is no second run: the same measurements are refused,
 * whatever the file names; seen keeps key.
 */
static void no_copy(json_t *seen, json_t *key, const char *path)
{
	json_t *k;
	size_t i;

	json_array_foreach(seen, i, k)
		if (json_equal(k, key))
			die_usage("%s holds the same results as an earlier file: a run counts once",
				  path);
	json_array_append_new(seen, key);
}

/*
 * The kernel a file measured: each case's own (bind_bench writes it where
 * it ran, a VM's guest say), or, for a case without one or a file with no
 * case, the file's. Rounds of two kernels pooled, or listed as one run,
 * would be one kernel's figures: refused (merge: one kernel a run file;
 * compare: one kernel a side). A file that names none (LAVA's) is no
 * evidence either way.
 */
struct kernel_seen {
	const char *rule;	/* the refusal's last words */
	char kernel[1024], from[PATH_MAX];
};

static void same_kernel(struct kernel_seen *ks, json_t *env, const char *path)
{
	const char *r = bl_json_str(env, "kernel_release");

	if (!*r)
		return;
	r = bl_printable(r);
	if (!*ks->kernel) {
		snprintf(ks->kernel, sizeof(ks->kernel), "%s", r);
		snprintf(ks->from, sizeof(ks->from), "%s", path);
	} else if (strcmp(r, ks->kernel)) {
		die_usage("%s holds results of kernel %s, %s of kernel %s: %s",
			  ks->from, ks->kernel, path, r, ks->rule);
	}
}

static void one_kernel(struct kernel_seen *ks, json_t *in, json_t *cases,
		       const char *path)
{
	json_t *c, *env;
	size_t i;

	json_array_foreach(cases, i, c) {
		env = json_object_get(c, "env");
		if (!*bl_json_str(env, "kernel_release"))
			env = json_object_get(in, "env");
		same_kernel(ks, env, path);
	}
	if (!json_array_size(cases))
		same_kernel(ks, json_object_get(in, "env"), path);
}

static struct kernel_seen merged_kernel = {
	.rule = "one kernel a run file (compare them instead)",
};

/* A stored verdict's weight: the pooled case keeps the worst. */
static int verdict_rank(json_t *c)
{
	static const char * const order[] = {
		"", "measured", "pass", "xfail", "regressed",
	};
	const char *s = bl_json_str(json_object_get(c, "verdict"), "status");
	size_t k;

	for (k = 0; k < ARRAY_SIZE(order); k++)
		if (!strcmp(s, order[k]))
			return k;
	return ARRAY_SIZE(order);	/* fail, or what no reader knows */
}

/*
 * Results of the same case from several files (boots of a VM, say) pool
 * their rounds: each round stays one sample of the metric. The first
 * file's summary and environment stay, with the worst verdict of the
 * files (a regression in one boot is not outvoted); "pooled_files"
 * counts the rest.
 */
static void add_cases(json_t *cases, json_t *more)
{
	json_t *c, *have;
	size_t i;

	char why[160];

	json_array_foreach(more, i, c) {
		have = bl_case_find(cases, bl_json_str(c, "case"));
		if (!have) {
			json_array_append_new(cases, json_deep_copy(c));
			continue;
		}
		/* Pooled rounds must measure the same thing: compare's rules. */
		if (bl_cmp_incomparable(have, c, why, sizeof(why)))
			die_usage("cannot pool %s: %s", bl_json_str(c, "case"), why);
		json_array_extend(json_object_get(json_object_get(have, "metric"),
						  "samples"),
				  json_object_get(json_object_get(c, "metric"),
						  "samples"));
		if (json_is_array(json_object_get(have, "rounds")))
			json_array_extend(json_object_get(have, "rounds"),
					  json_object_get(c, "rounds"));
		if (verdict_rank(c) > verdict_rank(have))
			json_object_set(have, "verdict",
					json_object_get(c, "verdict"));
		json_object_set_new(have, "pooled_files",
			json_integer(json_integer_value(json_object_get(have, "pooled_files")) + 1));
	}
}

static double stat_median(json_t *sum, const char *key)
{
	return json_number_value(json_object_get(json_object_get(sum, key),
						 "median"));
}

/* Regime first: a port cap must never be read as a kernel speed. */
static void churn_details(json_t *sum, char *buf, size_t len)
{
	json_t *fp = json_object_get(sum, "failure_point");
	char failure[32] = "none";

	if (json_is_number(fp))
		snprintf(failure, sizeof(failure), "%.0f",
			 json_number_value(fp));
	snprintf(buf, len,
		 "%s (port cap %.0f/s), connect p50 %.1f us p99 %.1f us, EADDRNOTAVAIL after %s",
		 bl_json_str(sum, "regime"),
		 json_number_value(json_object_get(sum, "port_cap_conn_per_s")),
		 stat_median(sum, "connect_p50_ns") / 1000,
		 stat_median(sum, "connect_p99_ns") / 1000, failure);
}

/* The table's rows, as run.sh passes them (merge --case). */
static struct bl_case_decl decls[BL_MAX_CASE_DECLS];
static size_t ndecls;

static const struct bl_case_decl *decl_of(const char *name)
{
	size_t i;

	for (i = 0; i < ndecls; i++)
		if (!strcmp(decls[i].name, name))
			return &decls[i];
	return NULL;
}

static void add_decl(const char *arg)
{
	struct bl_case_decl *d = &decls[ndecls];
	char extra;

	if (ndecls == BL_MAX_CASE_DECLS)
		die_usage("more than %d --case rows", BL_MAX_CASE_DECLS);
	if (sscanf(arg, "%128s %15s %7s %7s %c", d->name, d->unit, d->better,
		   d->verdict, &extra) != 4 || !bl_case_id_valid(d->name) ||
	    !bl_unit_valid(d->unit) ||
	    (strcmp(d->better, "lower") && strcmp(d->better, "higher")) ||
	    (strcmp(d->verdict, "program") && strcmp(d->verdict, "none")))
		die_usage("--case wants \"NAME UNIT lower|higher program|none\", not '%s'",
			  bl_printable(arg));
	if (decl_of(d->name))
		die_usage("--case %s twice", d->name);
	ndecls++;
}

/* Details of the summary line, by the tool that measured the case. */
static void case_details(json_t *c, char *buf, size_t len)
{
	json_t *sum = json_object_get(c, "summary");
	const char *tool = bl_json_str(c, "tool");

	buf[0] = '\0';
	if (!strcmp(tool, "lava"))
		snprintf(buf, len, "from LAVA (%s)",
			 bl_json_str(json_object_get(c, "params"), "definition"));
	/* A result without its program's summary has no figures to show. */
	else if (!json_is_object(sum))
		return;
	else if (!strcmp(tool, "bind_bench"))
		snprintf(buf, len, "per bind %.1f us, growth %.2f",
			 stat_median(sum, "per_bind_ns") / 1000,
			 stat_median(sum, "growth"));
	else if (!strcmp(tool, "tw_churn"))
		churn_details(sum, buf, len);
}

/*
 * A case's verdict, decided here once and stored in the run file, which
 * summary and compare read and never re-derive. The program's judgement
 * comes first (bind_bench: growth against BL_GROWTH_LIMIT); a regression
 * the user declared for this kernel (BINDLAB_XFAIL) is "xfail"; a case
 * the table says the program judges but that came without a verdict,
 * or with one it does not know, fails closed.
 */
static void store_verdict(json_t *c, const struct bl_case_decl *d)
{
	json_t *pv = json_object_get(c, "verdict");
	const char *ps = bl_json_str(pv, "status");
	const char *status = ps, *reason = bl_json_str(pv, "reason");
	char details[160], why[96];

	/* A run file's stored words, judged again under this merge's xfail. */
	if (!strcmp(ps, "xfail"))
		ps = "regressed";
	else if (!strcmp(ps, "measured"))
		ps = "";
	status = ps;
	if (!*ps && d && !strcmp(d->verdict, "program")) {
		status = "fail";
		reason = "the program gave no verdict";
	} else if (!*ps) {
		status = "measured";
	} else if (!strcmp(ps, "regressed") &&
		   bl_known_regression(bl_json_str(c, "case"))) {
		status = "xfail";
	} else if (strcmp(ps, "pass") && strcmp(ps, "regressed") &&
		   strcmp(ps, "fail")) {
		snprintf(why, sizeof(why), "unknown verdict '%.40s'", ps);
		status = "fail";
		reason = why;
	}
	case_details(c, details, sizeof(details));
	json_object_set_new(c, "verdict",
			    json_pack("{s:s, s:s, s:s}", "status", status,
				      "reason", reason, "details", details));
}

/* --result NAME=FILE: one program result, the table's case NAME. */
static json_t *declared_result(char *arg, json_t *inputs)
{
	char *eq = strchr(arg, '=');
	const struct bl_case_decl *d;
	json_t *in, *cases, *c, *m;

	if (!eq)
		die_usage("--result needs NAME=FILE");
	*eq = '\0';
	d = decl_of(arg);
	if (!d)
		die_usage("--result %s: no such --case", arg);
	in = load_or_die(eq + 1);
	/* Its tests would not come along, and a failure would go unseen. */
	if (json_object_get(in, "tests"))
		die_usage("%s is a run file: give it as an operand, not to --result %s",
			  eq + 1, arg);
	cases = bl_run_cases(in);
	if (json_array_size(cases) != 1)
		die_usage("%s: want one result for case %s, found %zu",
			  eq + 1, arg, json_array_size(cases));
	c = json_deep_copy(json_array_get(cases, 0));
	m = json_object_get(c, "metric");
	if (strcmp(bl_json_str(m, "name"), bl_case_measure(d->name)) ||
	    strcmp(bl_json_str(m, "unit"), d->unit) ||
	    strcmp(bl_json_str(m, "better"), d->better))
		die_usage("%s: metric %s in %s, %s is better; the table's %s wants %s in %s, %s is better",
			  eq + 1, bl_json_str(m, "name"), bl_json_str(m, "unit"),
			  bl_json_str(m, "better"), d->name,
			  bl_case_measure(d->name), d->unit, d->better);
	no_copy(inputs, copy_key(in, cases), eq + 1);
	one_kernel(&merged_kernel, in, cases, eq + 1);
	json_decref(cases);
	json_object_set(c, "program_case", json_object_get(c, "case"));
	json_object_set_new(c, "case", json_string(d->name));
	json_decref(in);
	return c;
}

/*
 * A run file merged again: a result that a declaration made (xfail from
 * a failure, xpass from a pass; "declared") stands only when this merge
 * declares the test too, else it is what the program said; an undeclared
 * failure or pass that this merge declares becomes xfail or xpass, as a
 * KTAP read now would (bl_ktap_apply_xfail()). A program's own XFAIL is
 * the program's, kept.
 */
static void rejudge_tests(json_t *tests)
{
	bool was = false, now;
	const char *r;
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t) {
		r = bl_json_str(t, "result");
		was = json_is_true(json_object_get(t, "declared"));
		now = bl_known_regression(bl_json_str(t, "test"));
		if (was && !now)
			r = !strcmp(r, "xfail") ? "fail" : !strcmp(r, "xpass") ? "pass" : r;
		else if (!was && now)
			r = !strcmp(r, "fail") ? "xfail" : !strcmp(r, "pass") ? "xpass" : r;
		else
			continue;
		json_object_set_new(t, "result", json_string(r));
		json_object_set_new(t, "declared", json_boolean(!was));
	}
}

/*
 * A positional RESULT.json: its cases pool with the same ids. A run
 * file's test results come along, judged again (rejudge_tests()): a
 * merge keeps every result that bears on the verdict.
 */
static void plain_result(const char *path, json_t *cases, json_t *tests,
			 json_t *inputs)
{
	json_t *in = load_or_die(path), *c = bl_run_cases(in), *more;

	no_copy(inputs, copy_key(in, c), path);
	one_kernel(&merged_kernel, in, c, path);
	add_cases(cases, c);
	/* A copy: the key no_copy() keeps holds the file's tests as read. */
	more = json_deep_copy(json_object_get(in, "tests"));
	rejudge_tests(more);
	json_array_extend(tests, more);
	json_decref(more);
	json_decref(c);
	json_decref(in);
}

struct merge_in {
	json_t *cases, *tests, *inputs;
	json_t *lava;		/* the --lava paths, each imported */
	json_t *programs;	/* --program: each must have a result */
	struct merge_opt {
		int c;
		char *arg;	/* a copy: the readers cut it at its '=' */
	} *opts;
	int nopts;
	int first;		/* argv's first RESULT.json */
};

enum {
	MERGE_MISSING = 256, MERGE_KTAP, MERGE_CASE, MERGE_RESULT, MERGE_LAVA,
	MERGE_PROGRAM
};

/* An option, kept for when OUT has been checked and the declarations read. */
static int merge_option(void *ctx, int c, const char *arg, struct bl_why *why)
{
	struct merge_in *in = ctx;
	struct merge_opt *o = &in->opts[in->nopts];

	o->arg = strdup(arg);
	if (!o->arg)
		return bl_why_set(why, ENOMEM, "out of memory");
	o->c = c;
	in->nopts++;
	return 0;
}

/*
 * The same NAME in two --ktap, or two --missing, would count one
 * program's or case's results twice (or say two things of one case).
 * Earlier options have been cut at their '=' already.
 */
static void merge_once(const struct merge_in *in, const struct merge_opt *o)
{
	const struct merge_opt *p;
	size_t len = strcspn(o->arg, "=");

	for (p = in->opts; p < o; p++)
		if (p->c == o->c && strlen(p->arg) == len &&
		    !strncmp(p->arg, o->arg, len))
			die_usage("--%s %s given twice",
				  o->c == MERGE_KTAP ? "ktap" : "missing", p->arg);
}

static void merge_arg(struct merge_in *in, const struct merge_opt *o)
{
	char *eq;
	json_t *c;

	if (o->c == MERGE_KTAP || o->c == MERGE_MISSING)
		merge_once(in, o);
	switch (o->c) {
	case MERGE_MISSING:
		json_array_append_new(in->tests, missing_entry(o->arg));
		break;
	case MERGE_KTAP:
		eq = strchr(o->arg, '=');
		if (!eq)
			die_usage("--ktap needs NAME=FILE");
		*eq = '\0';
		/* NAME prefixes every test name: a program's, one word. */
		if (!bl_case_id_valid(o->arg))
			die_usage("--ktap: '%s' is no program name",
				  bl_printable(o->arg));
		c = parse_ktap(o->arg, eq + 1);
		json_array_extend(in->tests, c);
		json_decref(c);
		break;
	case MERGE_CASE:
		add_decl(o->arg);
		break;
	case MERGE_RESULT:
		json_array_append_new(in->cases,
				      declared_result(o->arg, in->inputs));
		break;
	case MERGE_LAVA:
		if (json_array_append_new(in->lava, json_string(o->arg)))
			die_usage("--lava: the path is not UTF-8");
		break;
	case MERGE_PROGRAM:
		if (!bl_program_valid(o->arg))
			die_usage("--program: '%s' is no program name",
				  bl_printable(o->arg));
		json_array_append_new(in->programs, json_string(o->arg));
		break;
	}
}

/* OUT, the options and the RESULT.json operands, in any order. */
static const char *merge_args(struct merge_in *in, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "missing", required_argument, NULL, MERGE_MISSING },
		{ "ktap", required_argument, NULL, MERGE_KTAP },
		{ "case", required_argument, NULL, MERGE_CASE },
		{ "result", required_argument, NULL, MERGE_RESULT },
		{ "lava", required_argument, NULL, MERGE_LAVA },
		{ "program", required_argument, NULL, MERGE_PROGRAM },
		{}
	};
	struct bl_why why = { "" };
	const char *out;

	in->opts = calloc(argc, sizeof(*in->opts));
	if (!in->opts ||
	    bl_getopt_each(argc, argv, ":", longopts, 0,
			   "missing ktap case result lava program", merge_option, in,
			   &why))
		die_usage("%s", *why.msg ? why.msg : "out of memory");
	if (optind >= argc)
		die_usage("merge needs OUT");
	out = argv[optind];
	/* Every other word may name an input, the options' values too. */
	if (bl_out_check_inputs(out, argv + 1, optind - 1, &why) ||
	    bl_out_check_inputs(out, argv + optind + 1, argc - optind - 1, &why))
		die_usage("%s", why.msg);
	in->first = optind + 1;
	return out;
}

static int cmd_merge(int argc, char **argv)
{
	struct merge_in in = { .cases = json_array(), .tests = json_array(),
			       .inputs = json_array(), .lava = json_array(),
			       .programs = json_array() };
	struct bl_why why = { "" };
	json_t *run, *c, *env;
	const char *out;
	size_t i;
	int a, err;

	out = merge_args(&in, argc, argv);
	/* Before anything is read: a bad declaration is exit 2, not "none". */
	if (bl_xfail_load(NULL, &why))
		die_usage("%s", why.msg);
	for (a = 0; a < in.nopts; a++)
		merge_arg(&in, &in.opts[a]);
	for (a = 0; a < in.nopts; a++)
		free(in.opts[a].arg);
	free(in.opts);
	for (a = in.first; a < argc; a++)
		plain_result(argv[a], in.cases, in.tests, in.inputs);
	json_decref(in.inputs);
	json_array_foreach(in.lava, i, c)
		if (bl_lava_import(json_string_value(c), decls, ndecls, in.cases,
				   in.tests, &why))
			die_usage("%s", why.msg);
	/* A case of the table that no import holds is listed, and fails. */
	for (i = 0; json_array_size(in.lava) && i < ndecls; i++)
		if (!bl_case_find(in.cases, decls[i].name) &&
		    !planned_missing(in.tests, decls[i].name))
			json_array_append_new(in.tests,
				test_entry("benchmark", decls[i].name, "fail",
					   "not in the LAVA job"));
	/* So is a kselftest that no input holds a result of. */
	json_array_foreach(in.programs, i, c)
		if (!program_seen(in.tests, json_string_value(c)))
			json_array_append_new(in.tests,
				test_entry(json_string_value(c), "ktap.plan", "fail",
					   "no result of this kselftest in the input"));
	json_decref(in.programs);
	json_array_foreach(in.cases, i, c)
		store_verdict(c, decl_of(bl_json_str(c, "case")));
	/* An import describes the LAVA device, not this machine. */
	env = json_array_size(in.lava) ? json_pack("{s:s}", "source", "lava") :
					 bl_env_json();
	json_decref(in.lava);
	run = json_pack("{s:s, s:i, s:s, s:o, s:o, s:o}",
			"schema", BINDLAB_RUN_SCHEMA,
			"schema_version", BINDLAB_SCHEMA_VERSION,
			"harness_version", BINDLAB_VERSION,
			"env", env, "cases", in.cases, "tests", in.tests);
	err = bl_json_save(run, out, &why);
	json_decref(run);
	if (err)
		die_usage("cannot write %s", why.msg);
	return 0;
}

static double metric_median(json_t *metric, double *lo, double *hi)
{
	json_t *arr = json_object_get(metric, "samples"), *v;
	size_t i, n = json_array_size(arr);
	double *s = calloc(n ? n : 1, sizeof(*s)), m;

	if (!s)
		die_usage("out of memory");
	json_array_foreach(arr, i, v)
		s[i] = json_number_value(v);
	qsort(s, n, sizeof(*s), bl_cmp_double);
	m = bl_quantile_sorted(s, n, 0.5);
	bl_median_ci_sorted(s, n, lo, hi);
	free(s);
	return m;
}

/*
 * The verdict line names what failed in a maintainer's words: the claim
 * of a failure's reason (the words before its figures, as the program
 * that judged wrote them), counted over the tests and cases that make
 * it, with the likely cause and the Fixes: tag a reason names.
 */
#define CLAIMS_MAX	16

struct claim {
	char what[96], cause[96], fixes[24];
	int tests, cases;
};

struct claims {
	struct claim c[CLAIMS_MAX];
	int n, other;
};

/* The length of r up to the first of stops[] (or its end). */
static size_t span_to(const char *r, const char * const *stops)
{
	size_t len = strlen(r);
	const char *p;

	for (; *stops; stops++) {
		p = strstr(r, *stops);
		if (p && (size_t)(p - r) < len)
			len = p - r;
	}
	return len;
}

/* The text after key in r, up to the first of stops[], into buf. */
static void after(const char *r, const char *key, const char * const *stops,
		  char *buf, size_t len)
{
	const char *p = strstr(r, key);

	buf[0] = '\0';
	if (p)
		snprintf(buf, len, "%.*s", (int)span_to(p + strlen(key), stops),
			 p + strlen(key));
}

/* A TH_LOG line's "FILE.c:LINE:TEST:" prefix, skipped. */
static const char *th_log_text(const char *r)
{
	const char *p = strstr(r, ".c:"), *q;

	if (!p || strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789_-") != (size_t)(p - r))
		return r;
	q = p + 3 + strspn(p + 3, "0123456789");
	if (q == p + 3 || *q != ':' || !strchr(q + 1, ':'))
		return r;
	return strchr(q + 1, ':') + 1;
}

static void claim_add(struct claims *cl, const char *reason, bool is_case)
{
	static const char * const claim_end[] = {
		": ", "; ", " (", ". ", "? ", NULL,
	};
	static const char * const fixes_end[] = { ")", ",", " ", ";", NULL };
	const char *r = th_log_text(reason);
	struct claim *c;
	char what[96];
	int k;

	snprintf(what, sizeof(what), "%.*s", (int)span_to(r, claim_end), r);
	if (!*what) {
		cl->other++;
		return;
	}
	for (k = 0; k < cl->n && strcmp(cl->c[k].what, what); k++)
		;
	if (k == CLAIMS_MAX) {
		cl->other++;
		return;
	}
	c = &cl->c[k];
	if (k == cl->n) {
		memset(c, 0, sizeof(*c));
		snprintf(c->what, sizeof(c->what), "%s", what);
		cl->n++;
	}
	if (!*c->cause)
		after(r, "Likely cause: ", claim_end, c->cause, sizeof(c->cause));
	if (!*c->fixes)
		after(r, "Fixes: ", fixes_end, c->fixes, sizeof(c->fixes));
	if (is_case)
		c->cases++;
	else
		c->tests++;
}

/* Read from the file raw (escaping would cut a long reason): escaped here. */
static void print_claim(const struct claim *c)
{
	printf("%s in ", bl_printable(c->what));
	if (c->tests == 1)
		printf("1 test");
	else if (c->tests)
		printf("%d tests", c->tests);
	if (c->tests && c->cases)
		printf(" and ");
	if (c->cases == 1)
		printf("1 benchmark case");
	else if (c->cases)
		printf("%d benchmark cases", c->cases);
	if (*c->cause)
		printf(" (likely cause: %s%s", bl_printable(c->cause),
		       *c->fixes ? ", " : ")");
	if (*c->fixes)
		printf("%sFixes: %s)", *c->cause ? "" : " (",
		       bl_printable(c->fixes));
}

/* Every failure of the run, tests and cases, by the claim it makes. */
static void verdict_line(json_t *run)
{
	json_t *t, *cases = bl_run_cases(run);
	struct claims cl = { .n = 0 };
	const char *r;
	size_t i;
	int k, best = 0, rest = 0;

	json_array_foreach(json_object_get(run, "tests"), i, t) {
		r = bl_json_str(t, "result");
		if (!strcmp(r, "fail") || !strcmp(r, "xpass"))
			claim_add(&cl, bl_json_str(t, "reason"), false);
	}
	json_array_foreach(cases, i, t) {
		r = bl_json_str(json_object_get(t, "verdict"), "status");
		if (!strcmp(r, "fail") || !strcmp(r, "regressed"))
			claim_add(&cl, bl_json_str(json_object_get(t, "verdict"),
						   "reason"), true);
	}
	for (k = 1; k < cl.n; k++)
		if (cl.c[k].tests + cl.c[k].cases >
		    cl.c[best].tests + cl.c[best].cases)
			best = k;
	for (k = 0; k < cl.n; k++)
		if (k != best)
			rest += cl.c[k].tests + cl.c[k].cases;
	rest += cl.other;
	printf("verdict: FAIL: ");
	if (!cl.n) {
		json_decref(cases);
		printf("%d failure%s (FAIL, regressed above)\n", rest,
		       rest == 1 ? "" : "s");
		return;
	}
	json_decref(cases);
	print_claim(&cl.c[best]);
	if (rest)
		printf("; and %d other failure%s (above)", rest,
		       rest == 1 ? "" : "s");
	printf("\n");
}

/*
 * Fail closed: a run that measured nothing passes nothing. Everything
 * skipped is a SKIP (exit 4, the reasons are listed above); no result
 * at all is a failure. LAVA's own records (program "lava": the job,
 * its deploy and boot) measure nothing of the kernel. The last line
 * is the verdict.
 */
static int summary_verdict(json_t *run, json_t *raw, json_t *cases, int fails,
			   int skips)
{
	size_t i, measured = json_array_size(cases);
	int rc = BL_EXIT_PASS;
	json_t *t;

	json_array_foreach(json_object_get(run, "tests"), i, t)
		if (strcmp(bl_json_str(t, "result"), "skip") &&
		    strcmp(bl_json_str(t, "program"), "lava"))
			measured++;
	printf("\n");
	if (fails) {
		verdict_line(raw);
		rc = BL_EXIT_FAIL;
	} else if (!measured && skips) {
		printf("verdict: SKIP: nothing was measured, everything skipped (reasons above)\n");
		rc = BL_EXIT_SKIP;
	} else if (!measured) {
		printf("verdict: FAIL: nothing was measured: no test result and no benchmark case\n");
		rc = BL_EXIT_FAIL;
	} else {
		printf("verdict: no unexpected regression\n");
	}
	json_decref(cases);
	json_decref(run);
	json_decref(raw);
	return rc;
}

/* The tests' counts and every result that is not a pass; counts[] by kind. */
static void summary_tests(json_t *tests, int counts[5])
{
	static const char * const kinds[] = {
		"pass", "fail", "xfail", "xpass", "skip",
	};
	size_t i, k;
	json_t *t;

	json_array_foreach(tests, i, t)
		for (k = 0; k < 5; k++)
			if (!strcmp(bl_json_str(t, "result"), kinds[k]))
				counts[k]++;
	printf("\ntests: %d pass, %d fail, %d known regression (xfail), %d xpass, %d skipped\n",
	       counts[0], counts[1], counts[2], counts[3], counts[4]);
	json_array_foreach(tests, i, t) {
		const char *r = bl_json_str(t, "result");

		if (!strcmp(r, "pass"))
			continue;
		/* Escaped already: summary escapes the whole run it read. */
		printf("  %-17s %s.", !strcmp(r, "xfail") ? "known regression" :
		       !strcmp(r, "skip") ? "skipped" :
		       !strcmp(r, "fail") ? "FAIL" : "XPASS",
		       bl_json_str(t, "program"));
		printf("%s%s", bl_json_str(t, "test"),
		       *bl_json_str(t, "reason") ? ": " : "");
		printf("%s\n", bl_json_str(t, "reason"));
	}
}

/* The stored verdict's word on the summary line; *fails counts failures. */
static const char *verdict_word(json_t *c, int *fails)
{
	static const char * const words[][2] = {
		{ "pass", "pass" }, { "measured", "measured" },
		{ "xfail", "known regression" }, { "regressed", "regressed" },
		{ "fail", "FAIL" },
	};
	const char *status = bl_json_str(json_object_get(c, "verdict"),
					 "status");
	size_t k;

	for (k = 0; k < ARRAY_SIZE(words); k++)
		if (!strcmp(status, words[k][0]))
			break;
	if (k >= 3)
		(*fails)++;
	return k < ARRAY_SIZE(words) ? words[k][1] : "FAIL: no stored verdict";
}

static void summary_env(json_t *run)
{
	json_t *env = json_object_get(run, "env");

	if (!strcmp(bl_json_str(env, "source"), "lava")) {
		printf("results imported from LAVA, harness %s\n",
		       bl_json_str(run, "harness_version"));
		return;
	}
	/* Escaped already: summary escapes the whole run it read. */
	printf("kernel %s, ", bl_json_str(env, "kernel_release"));
	printf("%s, %lld CPUs, ", bl_json_str(env, "cpu_model"),
	       json_integer_value(json_object_get(env, "nproc")));
	printf("clocksource %s, ", bl_json_str(env, "clocksource"));
	printf("harness %s\n", bl_json_str(run, "harness_version"));
}

static int cmd_summary(int argc, char **argv)
{
	int counts[5] = {}, fails;
	json_t *run, *raw, *cases, *c, *m, *v;
	const char *word, *details;
	double med, lo, hi;
	size_t i;

	argv = operands_only(&argc, argv);
	if (argc != 2)
		die_usage("summary needs RUN.json");
	run = load_or_die(argv[1]);
	/* Verdicts are stored by merge: a bare program result has none. */
	if (strcmp(bl_json_str(run, "schema"), BINDLAB_RUN_SCHEMA))
		die_usage("%s: summary reads a run file (bindlab_results merge), not a program's result",
			  argv[1]);
	/* Nor a run file before merge: bind_churn's has cases, no verdicts. */
	json_array_foreach(json_object_get(run, "cases"), i, c)
		if (!json_object_get(c, "verdict"))
			die_usage("%s: case %s has no stored verdict: summary reads a merged run file (bindlab_results merge)",
				  argv[1], bl_json_str(c, "case"));
	/* Printed only: no byte of the file reaches the terminal raw. */
	raw = json_deep_copy(run);
	bl_json_printable(run);
	summary_env(run);
	summary_tests(json_object_get(run, "tests"), counts);
	fails = counts[1] + counts[3];

	cases = bl_run_cases(run);
	printf("\n%-48s %14s  %-21s %s\n", "benchmark case", "median",
	       "95% CI of median", "details, verdict");
	json_array_foreach(cases, i, c) {
		m = json_object_get(c, "metric");
		v = json_object_get(c, "verdict");
		med = metric_median(m, &lo, &hi);
		word = verdict_word(c, &fails);
		details = bl_json_str(v, "details");
		printf("%-48s %10.3f ", bl_json_str(c, "case"), med);
		printf("%-3s  [%.3f, %.3f]  ", bl_json_str(m, "unit"),
		       lo, hi);
		printf("%s%s%s (%zu rounds)\n", details,
		       *details ? ", " : "", word,
		       json_array_size(json_object_get(m, "samples")));
	}
	return summary_verdict(run, raw, cases, fails, counts[4]);
}

static double percent_arg(const char *what, const char *arg)
{
	struct bl_why why = { "" };
	double v;

	if (bl_arg_double(what, arg, 0, 1e6, &v, &why))
		die_usage("%s", why.msg);
	return v;
}

static void print_row(const struct bl_cmp_row *r)
{
	char n[32];

	snprintf(n, sizeof(n), "%s %d+%d", bl_cmp_method_name(r->method),
		 r->method == BL_CMP_RUNS ? r->runs_before : r->rounds_before,
		 r->method == BL_CMP_RUNS ? r->runs_after : r->rounds_after);
	printf("%-48s %12.3f %12.3f %-3s  %7.4f [%.4f, %.4f]  p=%-8.3g %-11s %s\n",
	       r->case_id, r->before, r->after, bl_printable(r->unit), r->ratio,
	       r->ratio_lo, r->ratio_hi, r->p, n, r->verdict);
}

/* The files of one side, loaded, with their cases. */
struct side {
	char **paths;
	json_t **files, **cases;
	size_t n;
};

/* rule: what a second kernel on this side breaks (struct kernel_seen). */
static void side_load(struct side *s, const char *rule, char **paths,
		      size_t n)
{
	struct kernel_seen ks = { .rule = rule };
	size_t i;

	s->paths = paths;
	s->n = n;
	s->files = calloc(n, sizeof(*s->files));
	s->cases = calloc(n, sizeof(*s->cases));
	if (!s->files || !s->cases)
		die_usage("out of memory");
	for (i = 0; i < n; i++) {
		s->files[i] = load_or_die(paths[i]);
		s->cases[i] = bl_run_cases(s->files[i]);
		one_kernel(&ks, s->files[i], s->cases[i], paths[i]);
	}
}

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		json_decref(s->cases[i]);
		json_decref(s->files[i]);
	}
	free(s->cases);
	free(s->files);
}

/* A run counted twice would pass for replication: refuse it. */
static void no_file_twice(const struct side *b, const struct side *a)
{
	const struct side *sides[] = { b, a };
	json_t *seen = json_array();
	size_t k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; i < sides[k]->n; i++)
			no_copy(seen, copy_key(sides[k]->files[i],
					       sides[k]->cases[i]),
				sides[k]->paths[i]);
	json_decref(seen);
}

/* The runs of one side that hold case id, and their files' envs. */
static struct bl_cmp_side runs_of(const struct side *s, const char *id,
				  json_t **runs, json_t **envs)
{
	struct bl_cmp_side cs = { runs, 0, envs };
	size_t i;
	json_t *c;

	for (i = 0; i < s->n; i++) {
		c = bl_case_find(s->cases[i], id);
		if (!c)
			continue;
		envs[cs.n] = json_object_get(s->files[i], "env");
		runs[cs.n++] = c;
	}
	return cs;
}

static bool listed(json_t *ids, const char *id)
{
	json_t *v;
	size_t i;

	json_array_foreach(ids, i, v)
		if (!strcmp(json_string_value(v), id))
			return true;
	return false;
}

/* Case ids in order of first appearance, BEFORE's files first. */
static json_t *case_ids(const struct side *b, const struct side *a)
{
	const struct side *sides[] = { b, a };
	json_t *ids = json_array(), *c;
	size_t k, f, i;

	for (k = 0; k < 2; k++)
		for (f = 0; f < sides[k]->n; f++)
			json_array_foreach(sides[k]->cases[f], i, c)
				if (!listed(ids, bl_json_str(c, "case")))
					json_array_append_new(ids,
						json_string(bl_json_str(c, "case")));
	return ids;
}

static json_t *paths_json(const struct side *s)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < s->n; i++)
		json_array_append_new(arr, json_string(s->paths[i]));
	return arr;
}

/* One compare: its options, both sides and what came of them. */
struct cmp_run {
	struct bl_cmp_opts opts;
	const char *json_out;
	struct side before, after;
	json_t *rows, *skipped;
	int regressions;
	double max_load;
};

static int compare_option(void *ctx, int c, const char *arg,
			  struct bl_why *why)
{
	struct cmp_run *r = ctx;

	switch (c) {
	case 't':
		r->opts.threshold_pct = percent_arg("--threshold", arg);
		return 0;
	case 'm':
		r->opts.min_change_pct = percent_arg("--min-change", arg);
		return 0;
	case 'd':
		r->opts.drift_pct = percent_arg("--drift", arg);
		return 0;
	case 'j':
		if (!*arg)
			return bl_why_set(why, EINVAL, "empty --json file name");
		r->json_out = arg;
		return 0;
	}
	return bl_why_set(why, EINVAL, "unknown option");
}

/*
 * BEFORE... [--] AFTER..., options anywhere (GNU's order; "--" only
 * separates the sides): checked and loaded, or exit 2.
 */
static void compare_args(struct cmp_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "drift", required_argument, NULL, 'd' },
		{ "json", required_argument, NULL, 'j' },
		{}
	};
	struct bl_why why = { "" };
	int c, sep = -1, first_after;

	if (bl_getopt_each(argc, argv, ":t:m:d:j:", longopts, BL_GETOPT_SIDES, NULL,
			   compare_option, r, &why))
		die_usage("%s", why.msg);
	for (c = optind; c < argc; c++)
		if (!strcmp(argv[c], "--")) {
			if (sep >= 0)
				die_usage("compare takes one -- between BEFORE and AFTER files");
			sep = c;
		}
	first_after = sep + 1;
	if (sep < 0 && argc - optind == 2)
		first_after = sep = optind + 1;	/* BEFORE AFTER, no -- */
	if (sep <= optind || first_after >= argc)
		die_usage("compare needs BEFORE.json AFTER.json, or BEFORE.json... -- AFTER.json...");
	/* Check and load everything before writing: bad input leaves no file. */
	if (r->json_out && bl_out_check_inputs(r->json_out, argv + optind,
						argc - optind, &why))
		die_usage("%s", why.msg);
	if (r->json_out && !strcmp(r->json_out, "-"))
		bl_stdout_machine();
	side_load(&r->before, "one kernel a side (BEFORE)", argv + optind,
		  sep - optind);
	side_load(&r->after, "one kernel a side (AFTER)", argv + first_after,
		  argc - first_after);
	no_file_twice(&r->before, &r->after);
}

/* Every case id of either side: a row, or the reason it is none. */
static void compare_rows(struct cmp_run *r)
{
	json_t **rb = calloc(r->before.n * 2, sizeof(*rb));
	json_t **ra = calloc(r->after.n * 2, sizeof(*ra));
	json_t *ids = case_ids(&r->before, &r->after), *id;
	struct bl_cmp_side cb, ca;
	struct bl_cmp_row row;
	size_t i;

	if (!rb || !ra)
		die_usage("out of memory");
	json_array_foreach(ids, i, id) {
		cb = runs_of(&r->before, json_string_value(id), rb, rb + r->before.n);
		ca = runs_of(&r->after, json_string_value(id), ra, ra + r->after.n);
		if (!cb.n || !ca.n) {
			json_array_append_new(r->skipped, json_pack("{s:O, s:s}",
				"case", id, "skipped",
				cb.n ? "only in BEFORE" : "only in AFTER"));
			continue;
		}
		if (bl_compare_case(&cb, &ca, &r->opts, &row))
			die_usage("out of memory");
		if (row.skipped[0]) {
			json_array_append_new(r->skipped, bl_cmp_row_json(&row));
			continue;
		}
		print_row(&row);
		r->max_load = fmax(r->max_load, row.load);
		r->regressions += row.regression;
		json_array_append_new(r->rows, bl_cmp_row_json(&row));
	}
	json_decref(ids);
	free(rb);
	free(ra);
}

static void compare_notes(const struct cmp_run *r)
{
	json_t *id;
	size_t i;

	json_array_foreach(r->skipped, i, id)
		printf("%-48s not compared: %s\n", bl_json_str(id, "case"),
		       bl_printable(bl_json_str(id, "skipped")));
	printf("A change is claimed when p < 0.05, the 95%% CI of the ratio excludes 1 and the change is at least %.1f%%.\n"
	       "runs N+M: each file holding the case is a run; one sample per run (its median), Welch's t on logs:\n"
	       "          drift between runs counts as noise.\n"
	       "rounds N+M: one run on a side: Mann-Whitney and bootstrap CI over its rounds, which miss drift\n"
	       "          between runs, so changes under %.3gx are not claimed (--drift); for finer claims give\n"
	       "          2+ runs a side: BEFORE.json... -- AFTER.json...\n",
	       r->opts.min_change_pct, 1 + r->opts.drift_pct / 100);
	if (r->max_load > 1)
		printf("note: runs recorded up to %.1f runnable tasks per CPU (1-minute load): their times include\n"
		       "      waiting for a CPU; one run a side, the drift floor grows by that factor\n",
		       r->max_load);
	if (r->opts.threshold_pct >= 0)
		printf("regressions beyond %.1f%%: %d\n", r->opts.threshold_pct,
		       r->regressions);
}

static void compare_json(struct cmp_run *r)
{
	struct bl_why why = { "" };
	json_t *out;

	out = json_pack("{s:s, s:i, s:o, s:o, s:f, s:f, s:f, s:O, s:O, s:i}",
			"schema", "bindlab.compare",
			"schema_version", BINDLAB_SCHEMA_VERSION,
			"before", paths_json(&r->before),
			"after", paths_json(&r->after),
			"threshold_pct", r->opts.threshold_pct,
			"min_change_pct", r->opts.min_change_pct,
			"drift_pct", r->opts.drift_pct, "rows", r->rows,
			"skipped", r->skipped, "regressions", r->regressions);
	if (bl_json_save(out, r->json_out, &why))
		die_usage("cannot write %s", why.msg);
	json_decref(out);
}

static int cmd_compare(int argc, char **argv)
{
	struct cmp_run r = {
		.opts = { -1, BL_CMP_MIN_CHANGE_PCT, BL_CMP_DRIFT_PCT },
		.rows = json_array(), .skipped = json_array(),
	};

	compare_args(&r, argc, argv);
	printf("%-48s %12s %12s      %-24s %-10s %-11s %s\n", "case", "before",
	       "after", "after/before [95% CI]", "", "n", "verdict");
	compare_rows(&r);
	compare_notes(&r);
	/* A comparison of nothing is no evidence of "no regression". */
	if (!json_array_size(r.rows))
		die_usage("nothing compared: no case is in both sides and comparable");
	if (r.json_out)
		compare_json(&r);
	json_decref(r.rows);
	json_decref(r.skipped);
	side_free(&r.before);
	side_free(&r.after);
	return r.regressions ? BL_EXIT_FAIL : BL_EXIT_PASS;
}

/* A curve the plot can draw: two arrays of numbers, paired, at most 1000. */
static json_t *curve_of(json_t *c)
{
	json_t *curve = json_object_get(json_object_get(c, "summary"), "curve");
	size_t n = json_array_size(json_object_get(curve, "bound_before"));

	if (!n || n > 1000 ||
	    n != json_array_size(json_object_get(curve, "median_ns")))
		return NULL;
	return curve;
}

/*
 * One data file per case, named by its position (1.dat, 2.dat...), not by
 * anything read from the input. The case id is the first line, as the
 * column header that gnuplot reads as data (title columnhead), never as
 * code.
 */
static int write_curve(json_t *c, const char *dir, size_t i,
		       struct bl_why *why)
{
	json_t *curve = curve_of(c);
	json_t *x = json_object_get(curve, "bound_before");
	json_t *y = json_object_get(curve, "median_ns");
	size_t k, n = json_array_size(x), used, cap = 64 * (n + 4);
	char *buf = malloc(cap), path[PATH_MAX];
	int err;

	if (!buf)
		return bl_why_set(why, ENOMEM, "out of memory");
	used = snprintf(buf, cap, "bound %s\n", bl_json_str(c, "case"));
	for (k = 0; k < n && used < cap; k++)
		used += snprintf(buf + used, cap - used, "%.0f %.1f\n",
				 json_number_value(json_array_get(x, k)),
				 json_number_value(json_array_get(y, k)));
	snprintf(path, sizeof(path), "%s/%zu.dat", dir, i);
	err = bl_file_write(path, buf, used, why);
	free(buf);
	return err;
}

/*
 * The directory holds every curve or, after a failure (a full disk), is
 * as it was: the files written so far are removed, and the directory if
 * this run made it. A stop signal waits until one or the other is done.
 */
static int write_curves(json_t *cases, const char *dir, bool made,
			struct bl_why *why)
{
	char path[PATH_MAX];
	size_t i, n = 0;
	sigset_t old;
	json_t *c;
	int err = 0;

	bl_hold_stop_signals(&old);
	json_array_foreach(cases, i, c) {
		if (curve_of(c))
			err = write_curve(c, dir, ++n, why);
		if (err)
			break;
	}
	for (; err && n; n--) {
		snprintf(path, sizeof(path), "%s/%zu.dat", dir, n);
		unlink(path);
	}
	if (err && made)
		rmdir(dir);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

static int cmd_curve(int argc, char **argv)
{
	struct bl_why why = { "" };
	json_t *run, *cases, *c;
	size_t i, n = 0;
	struct stat st;
	bool made;

	argv = operands_only(&argc, argv);
	if (argc != 3)
		die_usage("curve needs RUN.json DIR");
	if (bl_out_dir_check(argv[2], argv + 1, 1, &why))
		die_usage("%s", why.msg);
	run = load_or_die(argv[1]);
	made = !mkdir(argv[2], 0755);
	if (!made && errno != EEXIST)
		die_usage("cannot create %s: %s", argv[2], strerror(errno));
	/* A directory, not a symlink to one: the files go where we think. */
	if (lstat(argv[2], &st) || !S_ISDIR(st.st_mode))
		die_usage("%s is not a directory", argv[2]);
	cases = bl_run_cases(run);
	if (write_curves(cases, argv[2], made, &why))
		die_usage("cannot write %s", why.msg);
	json_array_foreach(cases, i, c)
		if (curve_of(c))
			printf("%s\t%s/%zu.dat\n", bl_json_str(c, "case"),
			       argv[2], ++n);
	json_decref(cases);
	json_decref(run);
	return 0;
}

/*
 * The samples of path's one case: the metric's, or FIELD of each round
 * (growth, say); every one a finite number, at least one, or exit 2.
 * what (unless NULL) gets the case and its metric: what pools with it.
 */
static double *case_samples(const char *path, const char *field, size_t *n,
			    json_t **what)
{
	json_t *run, *cases, *c, *m, *list, *v, *x;
	double *s;
	size_t i;

	run = load_or_die(path);
	cases = bl_run_cases(run);
	if (json_array_size(cases) != 1)
		die_usage("%s: want one case, found %zu", path,
			  json_array_size(cases));
	c = json_array_get(cases, 0);
	m = json_object_get(c, "metric");
	if (what)
		*what = json_pack("{s:s, s:s, s:s, s:s}",
				  "case", bl_json_str(c, "case"),
				  "name", bl_json_str(m, "name"),
				  "unit", bl_json_str(m, "unit"),
				  "better", bl_json_str(m, "better"));
	list = !field ? json_object_get(m, "samples") :
			json_object_get(c, "rounds");
	*n = json_array_size(list);
	if (!*n)
		die_usage("%s: no %s", path, field ? "rounds" : "samples");
	s = calloc(*n, sizeof(*s));
	if (!s)
		die_usage("out of memory");
	json_array_foreach(list, i, v) {
		x = field ? json_object_get(v, field) : v;
		s[i] = json_number_value(x);
		if (!json_is_number(x) || !isfinite(s[i]))
			die_usage("%s: round %zu has no number %s", path, i + 1,
				  field ? bl_printable(field) : "sample");
	}
	json_decref(cases);
	json_decref(run);
	return s;
}

/*
 * samples RESULT.json [ROUND-FIELD]: the values, one a line, for shell
 * readers that only pass them on. Nothing is printed unless every value
 * is a number.
 */
static int cmd_samples(int argc, char **argv)
{
	size_t i, n;
	double *s;

	argv = operands_only(&argc, argv);
	if (argc != 2 && argc != 3)
		die_usage("samples needs RESULT.json [ROUND-FIELD]");
	s = case_samples(argv[1], argv[2], &n, NULL);	/* argv[argc] is NULL */
	for (i = 0; i < n; i++)
		printf("%.12g\n", s[i]);
	free(s);
	return 0;
}

/*
 * median [--case ID] [--field F] [--at-most|--at-least LIMIT] RESULT.json...:
 * "MEDIAN MIN MAX N" of the files' pooled samples (or each round's F), and
 * with a limit the verdict: exit 0 when the median is within it, 1 when
 * not. The lab's one place for these numbers (bisect's good or bad), in
 * the C locale whatever the caller's. --case: the id the program said its
 * result carries (BINDLAB_CHECK_ARGS=id); a file of another case is never
 * judged as this one.
 */
struct median_opts {
	const char *want_case;
	const char *field;
	double limit;
	int side;	/* -1 at most, 1 at least, 0 none */
};

static int median_option(void *ctx, int c, const char *arg,
			 struct bl_why *why)
{
	struct median_opts *o = ctx;

	if (c == 'f') {
		o->field = arg;
		return 0;
	}
	if (c == 'c') {
		o->want_case = arg;
		return 0;
	}
	if (o->side)
		return bl_why_set(why, EINVAL, "median takes one limit");
	o->side = c == 'l' ? 1 : -1;
	return bl_arg_double(c == 'l' ? "--at-least" : "--at-most", arg, 0,
			     BL_MAX_SAMPLE, &o->limit, why);
}

/*
 * Only one case's samples pool (same id, metric and unit), and a limit
 * on the metric bounds it on the side it gets worse on.
 */
static void median_pools(const struct median_opts *o, json_t *first,
			 json_t *what, const char *path, const char *first_path)
{
	if (o->want_case && strcmp(bl_json_str(what, "case"), o->want_case))
		die_usage("%s: case %s, not the %s asked for: another case's result",
			  path, bl_json_str(what, "case"),
			  bl_printable(o->want_case));
	if (first && !json_equal(first, what))
		die_usage("%s: case %s, %s in %s; %s holds %s, %s in %s: they do not pool",
			  path, bl_json_str(what, "case"),
			  bl_json_str(what, "name"), bl_json_str(what, "unit"),
			  first_path, bl_json_str(first, "case"),
			  bl_json_str(first, "name"), bl_json_str(first, "unit"));
	if (!o->field && o->side &&
	    strcmp(bl_json_str(what, "better"), o->side < 0 ? "lower" : "higher"))
		die_usage("%s: %s is better for %s: --%s is the wrong side",
			  path, bl_json_str(what, "better"),
			  bl_json_str(what, "name"),
			  o->side < 0 ? "at-most" : "at-least");
}

static int cmd_median(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "case", required_argument, NULL, 'c' },
		{ "field", required_argument, NULL, 'f' },
		{ "at-most", required_argument, NULL, 'm' },
		{ "at-least", required_argument, NULL, 'l' },
		{}
	};
	struct median_opts o = {};
	struct bl_why why = { "" };
	double *all = NULL, *s, *more, med;
	json_t *first = NULL, *what;
	size_t i, n, total = 0;
	int a;

	if (bl_getopt_each(argc, argv, ":", longopts, 0, NULL, median_option, &o, &why))
		die_usage("%s", why.msg);
	if (optind >= argc)
		die_usage("median needs RESULT.json...");
	for (a = optind; a < argc; a++) {
		s = case_samples(argv[a], o.field, &n, &what);
		median_pools(&o, first, what, argv[a], argv[optind]);
		if (first)
			json_decref(what);
		else
			first = what;
		more = realloc(all, (total + n) * sizeof(*all));
		if (!more)
			die_usage("out of memory");
		all = more;
		memcpy(all + total, s, n * sizeof(*s));
		total += n;
		free(s);
	}
	med = bl_median(all, total);
	s = all;
	for (i = 1; i < total; i++)
		if (all[i] < *s)
			s = &all[i];
	printf("%.3f %.3f ", med, *s);
	for (i = 1, s = all; i < total; i++)
		if (all[i] > *s)
			s = &all[i];
	printf("%.3f %zu\n", *s, total);
	free(all);
	json_decref(first);
	if ((o.side < 0 && med > o.limit) || (o.side > 0 && med < o.limit))
		return BL_EXIT_FAIL;
	return BL_EXIT_PASS;
}

/* One file's verdict for a person, on stderr; true when it fails. */
static bool ktap_report(const char *path, const struct bl_ktap *k)
{
	const struct bl_ktap_case *c;
	bool bad = !k->plan_ok;
	size_t i;

	for (i = 0; i < k->n; i++) {
		c = &k->cases[i];
		if (c->result == BL_KTAP_PASS || c->result == BL_KTAP_SKIP)
			continue;
		bad |= c->result != BL_KTAP_XFAIL;
		fprintf(stderr, "%s: %s: ", prog, bl_printable(path));
		fprintf(stderr, "%s %s", bl_ktap_result_name(c->result),
			c->program ? bl_printable(c->program) : "");
		fprintf(stderr, "%s%s%s", c->program ? "/" : "",
			bl_printable(c->name), *c->reason ? ": " : "");
		fprintf(stderr, "%s\n", bl_printable(c->reason));
	}
	if (!k->plan_ok) {
		fprintf(stderr, "%s: %s: ktap.plan fails: ", prog, bl_printable(path));
		fprintf(stderr, "%s\n", bl_printable(k->broken));
	}
	return bad;
}

/*
 * ktap [--xfail-from-env [--release R]] FILE...: the one KTAP reader for
 * shell scripts. Every file is read and validated before anything is
 * printed; exit 0 when every plan holds and nothing failed (xfail is no
 * failure), 1 otherwise, 2 when a file or a declaration is unreadable.
 */
struct ktap_opts {
	const char *release;
	bool xfail;
};

static int ktap_option(void *ctx, int c, const char *arg, struct bl_why *why)
{
	struct ktap_opts *o = ctx;

	if (c == 'x') {
		o->xfail = true;
		return 0;
	}
	if (!*arg)
		return bl_why_set(why, EINVAL, "ktap: --release needs a RELEASE");
	o->release = arg;
	return 0;
}

static int cmd_ktap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "xfail-from-env", no_argument, NULL, 'x' },
		{ "release", required_argument, NULL, 'r' },
		{}
	};
	struct ktap_opts o = {};
	struct bl_why why = { "" };
	const char *release;
	struct bl_ktap *k;
	bool xfail, bad = false;
	int a, i;

	if (bl_getopt_each(argc, argv, ":", longopts, 0, NULL, ktap_option, &o, &why))
		die_usage("%s", why.msg);
	a = optind;
	release = o.release;
	xfail = o.xfail;
	if (a >= argc)
		die_usage("ktap needs FILE...");
	if (release && !xfail)
		die_usage("ktap: --release goes with --xfail-from-env");
	if (xfail && bl_xfail_load(release, &why))
		die_usage("%s", why.msg);
	k = calloc(argc - a, sizeof(*k));
	if (!k)
		die_usage("out of memory");
	for (i = a; i < argc; i++)
		if (bl_ktap_read(argv[i], &k[i - a], &why))
			die_usage("%s", why.msg);
	for (i = a; i < argc; i++) {
		if (xfail)
			bl_ktap_apply_xfail(&k[i - a]);
		bl_ktap_print(stdout, &k[i - a]);
		bad |= ktap_report(argv[i], &k[i - a]);
		bl_ktap_free(&k[i - a]);
	}
	free(k);
	return bad ? BL_EXIT_FAIL : BL_EXIT_PASS;
}

/*
 * dest [--dir] NAME...: each NAME checked as every output here is
 * (bench/files.c, docs/results.md "Files written"), nothing written; with
 * --dir, as a directory results go in. run.sh's writer and the lab's
 * output directories ask here rather than keep rules of their own.
 */
static int dest_option(void *ctx, int c, const char *arg, struct bl_why *why)
{
	*(bool *)ctx = true;
	return 0;
}

static int cmd_dest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", no_argument, NULL, 'd' },
		{}
	};
	struct bl_why why = { "" };
	bool dir = false;
	int i;

	if (bl_getopt_each(argc, argv, ":", longopts, 0, NULL, dest_option, &dir, &why))
		die_usage("%s", why.msg);
	if (optind >= argc)
		die_usage("dest needs NAME...");
	for (i = optind; i < argc; i++)
		if (dir ? bl_out_place_check(argv[i], &why) :
			  bl_out_check(argv[i], &why))
			die_usage("%s", why.msg);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "merge", cmd_merge }, { "summary", cmd_summary },
	{ "compare", cmd_compare }, { "curve", cmd_curve },
	{ "samples", cmd_samples }, { "median", cmd_median },
	{ "ktap", cmd_ktap }, { "dest", cmd_dest },
};

int main(int argc, char **argv)
{
	size_t i;

	prog = basename(argv[0]);
	bl_stdio_guard();
	if (argc < 2)
		die_usage("missing subcommand (merge, summary, compare, curve, samples, median, ktap, dest)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	die_usage("unknown subcommand '%s'", bl_printable(argv[1]));
}
