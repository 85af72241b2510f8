/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bindlab bench: the layer of the benchmarks and the result tools on top
 * of the core (lib/bindlab_core.h): statistics beyond a verdict, the
 * loopback churn, JSON results through jansson, reading result files
 * back and comparing them.
 *
 * Functions return 0 or a negative errno unless documented otherwise.
 */
#ifndef BINDLAB_H
#define BINDLAB_H

#include "bindlab_core.h"

#define BINDLAB_VERSION		"0.1.0"
#define BINDLAB_SCHEMA		"bindlab.result"
#define BINDLAB_RUN_SCHEMA	"bindlab.run"
#define BINDLAB_SCHEMA_VERSION	2

/* ---- args.c: command lines ---- */

int bl_arg_double(const char *what, const char *s, double min, double max,
		  double *out, struct bl_why *why);

/*
 * Case ids: [a-z0-9_] words joined by '.', '-' or '+' inside words, at
 * most BL_CASE_ID_MAX bytes, e.g. bind_bench.reuseaddr.same.ipv4.port.n4000.
 * Nothing else is ever accepted from a result file, so an id is safe as a
 * file name and as data for any tool.
 */
#define BL_CASE_ID_MAX	128
bool bl_case_id_valid(const char *id);
/* A unit: 1-15 characters of [A-Za-z0-9/%_] (runfile.c), in C's classes. */
bool bl_unit_valid(const char *unit);
bool bl_program_valid(const char *name);

/*
 * BINDLAB_CHECK_ARGS=1: a program only validates its command line (exit 0
 * or 2) and runs nothing: bisect checks its case with the program's own
 * parser before it builds a kernel. "id" also prints the case id of its
 * result: bisect and ab refuse a result of another case by it.
 */
enum { BL_CHECK_RUN, BL_CHECK_ONLY, BL_CHECK_ID };
int bl_check_args_only(void);
/*
 * getopt_long() returned c (optstring starting with ":"): for ':' and
 * '?' the one-line usage error in why and -EINVAL, else 0.
 */
int bl_getopt_error(int c, char **argv, struct bl_why *why);
/* bl_getopt_each(): "--" is an operand (compare's BEFORE -- AFTER). */
#define BL_GETOPT_SIDES 1u
/*
 * The one getopt_long() loop of a program's options, in GNU's order:
 * options before, between or after the operands; "--" ends them (with
 * BL_GETOPT_SIDES it is an operand and options go on after it).
 * optstring starts with ":", each option goes to opt(ctx, c, optarg,
 * why). 1 for -h (--help), 0 with argv permuted as GNU getopt does
 * (options first, then the operands in their order from optind on), or
 * the first error (why set: bl_getopt_error()'s wording or opt's).
 * An option with a value is given once ("--NAME given twice"), but for
 * those whose long names repeats lists (blank separated, NULL: none).
 */
struct option;
int bl_getopt_each(int argc, char **argv, const char *optstring,
		   const struct option *longopts, unsigned int flags,
		   const char *repeats,
		   int (*opt)(void *ctx, int c, const char *arg,
			      struct bl_why *why),
		   void *ctx, struct bl_why *why);
/* The same for a command-line argument named what; why gets the message. */
int bl_arg_long(const char *what, const char *s, long min, long max,
		long *out, struct bl_why *why);

/* ---- files.c: the one writer of files ---- */

/*
 * Can path be written? "-" (stdout) and regular files (through symlinks)
 * can; devices, FIFOs, directories and dangling symlinks are refused.
 * Call it before the work whose result goes there.
 */
int bl_out_check(const char *path, struct bl_why *why);
/* Replace path atomically (temp file + rename of the symlink's target). */
int bl_file_write(const char *path, const char *data, size_t len,
		  struct bl_why *why);
/* Largest input file read: result files, KTAP, XFAIL lists. */
#define BL_MAX_INPUT_BYTES	(256L << 20)
/*
 * "-" as an output: the human text of the program moves to stderr and
 * stdout carries the machine output alone.
 */
void bl_stdout_machine(void);
/* Make a write error on stdout or stderr fail the program at exit. */
void bl_stdio_guard(void);

/* ---- ranktest.c ---- */

/* Two-sided Mann-Whitney U test, normal approximation with ties. */
double bl_mann_whitney_p(const double *a, size_t na,
			 const double *b, size_t nb);

/* ---- ttest.c: Welch's t-test, for run-level comparisons ---- */

struct bl_welch {
	double diff;		/* mean(b) - mean(a) */
	double lo, hi;		/* its (1 - alpha) confidence interval */
	double se, t, df, p;	/* p: two-sided */
};

/* Needs two values a side; -EINVAL otherwise. */
int bl_welch(const double *a, size_t na, const double *b, size_t nb,
	     double alpha, struct bl_welch *w);

/* ---- churn.c: the loopback churn of the tcp_tw_reuse=2 commit ---- */

enum bl_churn_stop {
	BL_CHURN_COUNT,		/* made all n connections */
	BL_CHURN_TIME,		/* time limit */
	BL_CHURN_EXHAUSTED,	/* EADDRNOTAVAIL and not keep_going */
};

struct bl_churn_spec {
	enum bl_family family;	/* BL_FAM_INET: 127.0.0.1, BL_FAM_INET6: ::1 */
	uint16_t port;		/* the server's, outside the ephemeral range */
	bool rst;		/* close with SO_LINGER 0: no TIME_WAIT */
	bool keep_going;	/* after EADDRNOTAVAIL pause 1 ms and retry */
	long n;			/* connections */
	uint64_t max_ns;	/* and at most this long */
};

struct bl_churn_run {
	uint64_t *connect_ns;	/* connect() of each connection made */
	uint32_t *per_second;	/* connections made in each second */
	long seconds;		/* entries of per_second */
	long done;		/* connections made */
	long failure_point;	/* made before the first EADDRNOTAVAIL, or -1 */
	uint64_t failure_ns;	/* when that was, from the start */
	long exhausted;		/* connect() calls that got EADDRNOTAVAIL */
	long second_parity;	/* made on a port of the parity tried last */
	uint16_t range_lo, range_hi;	/* ip_local_port_range of the run */
	uint64_t total_ns;
	enum bl_churn_stop stop;
};

/* What limited a run's rate, and the port cap predicted for it. */
struct bl_churn_verdict {
	const char *regime;	/* cpu-bound, near-port-cap, port-capped */
	double cap;		/* predicted port cap, conn/s; 0: none */
	char cap_why[192];
	char why[256];
};

int bl_port_range(uint16_t *lo, uint16_t *hi);
/* Ports of the parity connect() tries first in [lo, hi]. */
long bl_port_first_parity(uint16_t lo, uint16_t hi);
/* Churn in the current namespace; the run is allocated even on error. */
int bl_churn_loop(const struct bl_churn_spec *spec, struct bl_churn_run *run,
		  struct bl_progress *progress, struct bl_why *why);
void bl_churn_free(struct bl_churn_run *run);
const char *bl_churn_stop_name(enum bl_churn_stop s);
double bl_churn_rate(const struct bl_churn_run *run);
int bl_churn_latency(const struct bl_churn_run *run, double *p50,
		     double *p99);
/* delay_ms: tcp_tw_reuse_delay, 1000 where the kernel has none. */
void bl_churn_regime(const struct bl_churn_run *run, int tw_reuse,
		     long delay_ms, bool rst, struct bl_churn_verdict *v);

/* ---- results.c: JSON through jansson ---- */

#include <jansson.h>

/* A result object with schema, version, tool, case id and environment. */
json_t *bl_result_new(const char *tool, const char *case_id);
json_t *bl_env_json(void);
json_t *bl_stats_json(const struct bl_stats *st);
json_t *bl_u64_array_json(const uint64_t *v, size_t n);
json_t *bl_double_array_json(const double *v, size_t n);
/*
 * The figure compare reads: one sample per round (rounds are the
 * independent repetitions), its unit and which direction is better.
 */
json_t *bl_metric_json(const char *name, const char *unit,
		       bool lower_is_better, const double *samples, size_t n);
/* Through bl_file_write() (files.c); "-" is stdout. */
int bl_json_save(json_t *root, const char *path, struct bl_why *why);
/* A bounded regular file, no key twice; NULL with why set. */
json_t *bl_json_load(const char *path, struct bl_why *why);

/* ---- runfile.c: reading result files back ---- */

/* Rounds a metric may hold, and the largest sample: beyond is not ours. */
#define BL_MAX_SAMPLES	100000
#define BL_MAX_SAMPLE	1e15

/* Load and validate a run file or a single result; NULL with why set. */
json_t *bl_run_load(const char *path, struct bl_why *why);
int bl_run_validate(json_t *root, const char *what, struct bl_why *why);
/* The results of a validated file as an array (new reference). */
json_t *bl_run_cases(json_t *root);

/* ---- compare.c: before/after of one case ---- */

/*
 * One side of a comparison: the case as found in each run given for
 * that side (a run is one result file: one invocation of the tool), and
 * the env of the file that holds each (NULL: none), the machine that
 * wrote it: for a guest's results, the host that ran the guest.
 */
struct bl_cmp_side {
	json_t **runs;
	size_t n;
	json_t **file_envs;
};

enum bl_cmp_method {
	BL_CMP_ROUNDS,	/* one run on a side: rounds, behind the drift floor */
	BL_CMP_RUNS,	/* two or more a side: Welch's t on log run medians */
};

struct bl_cmp_row {
	char case_id[160], metric[32], unit[16];
	bool lower_better;
	enum bl_cmp_method method;
	/* Medians of the rounds, or geometric means of the run medians. */
	double before, after;
	double ratio, ratio_lo, ratio_hi;	/* after/before, 95% CI */
	double p;		/* Mann-Whitney (rounds) or Welch (runs) */
	double load;		/* highest load per CPU the runs recorded */
	int rounds_before, rounds_after, runs_before, runs_after;
	bool significant, regression;
	char verdict[64];
	char skipped[160];		/* why not compared, or empty */
};

struct bl_cmp_opts {
	double threshold_pct;	/* < 0: never flag a regression */
	double min_change_pct;	/* smaller changes are never claimed */
	double drift_pct;	/* with one run a side, nor changes below this */
				/* (times the load per CPU when above 1) */
};

#define BL_CMP_MIN_CHANGE_PCT	10.0
#define BL_CMP_DRIFT_PCT	200.0

int bl_compare_case(const struct bl_cmp_side *before,
		    const struct bl_cmp_side *after,
		    const struct bl_cmp_opts *opts, struct bl_cmp_row *row);
json_t *bl_cmp_row_json(const struct bl_cmp_row *row);
/*
 * Why case result x cannot be compared with (nor pooled into) ref: tool,
 * harness series, metric, unit or a parameter differs; NULL when it can.
 */
const char *bl_cmp_incomparable(json_t *ref, json_t *x, char *buf,
				size_t len);
const char *bl_cmp_method_name(enum bl_cmp_method m);

/* ---- ktap.c: the one KTAP reader (grammar and limits at its top) ---- */

#define BL_KTAP_LINE_MAX	4096
#define BL_KTAP_MAX_TESTS	100000

enum bl_ktap_result {
	BL_KTAP_PASS, BL_KTAP_FAIL, BL_KTAP_SKIP, BL_KTAP_XFAIL, BL_KTAP_XPASS,
};

struct bl_ktap_case {
	char *program;		/* runner output: PROG; else NULL */
	char *name;		/* as the file has it: escape it to show it */
	char *reason;		/* the directive's, else the last diagnostic */
	enum bl_ktap_result result;
	bool declared;		/* a BINDLAB_XFAIL declaration made its result */
	long line;
};

struct bl_ktap {
	struct bl_ktap_case *cases;
	size_t n, cap;
	bool plan_ok;		/* false: broken says why (ktap.plan fails) */
	char broken[320];	/* "line N: what" */
};

/*
 * Read and validate a whole file. 0 when read, even with a broken plan;
 * -EINVAL (why set) when it cannot be read: not a regular file, too big.
 */
int bl_ktap_read(const char *path, struct bl_ktap *k, struct bl_why *why);
void bl_ktap_free(struct bl_ktap *k);
const char *bl_ktap_result_name(enum bl_ktap_result r);
/* "RESULT [PROG/]NAME" per case, then "plan ok" or "plan broken". */
void bl_ktap_print(FILE *out, const struct bl_ktap *k);
/* Declarations applied: fail -> xfail, pass -> xpass (a declared pass). */
void bl_ktap_apply_xfail(struct bl_ktap *k);

/* ---- known_regressions.c ---- */

#define BL_XFAIL_LINE_MAX	1024
#define BL_XFAIL_FILE_MAX	(1L << 20)
#define BL_XFAIL_GLOB_MAX	256

/*
 * Read BINDLAB_XFAIL and BINDLAB_XFAIL_FILE, once, strictly: 0, or
 * -EINVAL with why set to a one-line error naming the line (the caller
 * exits 2). release: the kernel the file's second column is matched
 * against, NULL for the running one.
 */
int bl_xfail_load(const char *release, struct bl_why *why);
/* Declared for this kernel? false until bl_xfail_load() succeeded. */
bool bl_known_regression(const char *test_name);
/* A glob fnmatch() reads as the user meant: brackets closed, no tail '\'. */
bool bl_glob_valid(const char *glob, struct bl_why *why);
/* Forget what was loaded (for the unit tests). */
void bl_xfail_reset(void);

#endif /* BINDLAB_H */
