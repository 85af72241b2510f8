// SPDX-License-Identifier: GPL-2.0
/*
 * bind_bench: time bind() of N TCP sockets with one reuse option on one
 * port, the measurement of "tcp: Fix fastreuse cache initialization on
 * first bind" (which fixes 8002d44fe84d), grown up: private namespace per
 * round, rounds and warm-up, a cost curve and its growth, JSON results.
 *
 * The first positional form and the last output line match that patch's
 * reproducer, so its figures can be reproduced as-is:
 *   bind_bench reuseaddr same 16000
 *   ...
 *   reuseaddr same 16000: 1724.143 ms
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab.h"

#define DEFAULT_PORT	40000
#define DEFAULT_BUCKETS	20
#define MAX_ROUNDS	1000

struct opts {
	struct bl_bind_spec spec;
	const char *mode;	/* reuseaddr, reuseport, both, none */
	/*
	 * --owner MODE: one socket with MODE's options bound to the first
	 * address before the N, untimed: the port's first owner is then not
	 * one of the N (kernel/bugs/fastreuseport_stale: a SO_REUSEADDR-only
	 * owner takes the SO_REUSEPORT fast path away from the N).
	 */
	const char *owner;
	struct bl_bind_spec owner_spec;
	const char *addrs;	/* same, alternate, or K */
	long rounds, warmup, buckets;
	const char *json;
	bool quiet, netns;
};

/* What a round's child hands back through shared memory. */
struct round_out {
	int status;		/* BL_EXIT_* */
	uint16_t port;
	uint64_t total_ns;
	char why[256];
	uint64_t bind_ns[];
};

static const char *prog = "bind_bench";

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options] reuseaddr|reuseport|both|none same|alternate|K N\n"
		"  Time bind() of N TCP sockets sharing one port; only bind() is timed,\n"
		"  every socket stays open until the end. K addresses round-robin\n"
		"  (same = 1: 127.0.0.1 or ::1, alternate = 2).\n"
		"options:\n"
		"  -f, --family 4|6|mapped  address family (mapped: ::ffff:127.0.0.x on IPv6 sockets)\n"
		"  -p, --port P             port, 0 = the first bind picks it (default %d)\n"
		"  -r, --rounds R           rounds, each in a fresh namespace (default 1)\n"
		"  -w, --warmup W           discarded warm-up rounds (default 0)\n"
		"  -b, --buckets B          points of the cost curve (default %d)\n"
		"  -j, --json FILE          write results as JSON (- for stdout)\n"
		"  -q, --quiet              print only the last line\n"
		"      --no-netns           run in the current namespace (inside a VM)\n"
		"  -o, --owner MODE         first bind one untimed socket with MODE's options\n"
		"                           (reuseaddr|reuseport|both|none) to the first address;\n"
		"                           with -p 0 it picks the port\n"
		"  -h, --help               this text\n"
		"exit: 0 ok, 1 a round failed, 2 usage or output not written,\n"
		"      4 skip (no privilege, netns, IPv6)\n",
		prog, DEFAULT_PORT, DEFAULT_BUCKETS);
}

/* MODE's options into spec; false for a word that is no mode. */
static bool parse_mode(struct bl_bind_spec *spec, const char *mode)
{
	spec->reuseaddr = !strcmp(mode, "reuseaddr") || !strcmp(mode, "both");
	spec->reuseport = !strcmp(mode, "reuseport") || !strcmp(mode, "both");
	return spec->reuseaddr || spec->reuseport || !strcmp(mode, "none");
}

static int parse_addrs(struct opts *o, const char *addrs, struct bl_why *why)
{
	long k = 0;
	int err;

	o->addrs = addrs;
	if (!strcmp(addrs, "same")) {
		k = 1;
	} else if (!strcmp(addrs, "alternate")) {
		k = 2;
	} else {
		err = bl_arg_long("address count K", addrs, 1, BL_MAX_ADDRS,
				  &k, why);
		if (err)
			return err;
	}
	o->spec.naddrs = k;
	return 0;
}

static int parse_option(void *ctx, int c, const char *arg,
			struct bl_why *why)
{
	struct opts *o = ctx;
	long v;
	int err = 0;

	switch (c) {
	case 'f':
		if (bl_family_parse(arg, &o->spec.family))
			return bl_why_set(why, EINVAL, "unknown family '%s'",
					  bl_printable(arg));
		break;
	case 'p':
		err = bl_arg_long("port", arg, 0, 65535, &v, why);
		o->spec.port = v;
		break;
	case 'r':
		err = bl_arg_long("rounds", arg, 1, MAX_ROUNDS, &o->rounds, why);
		break;
	case 'w':
		err = bl_arg_long("warmup", arg, 0, MAX_ROUNDS, &o->warmup, why);
		break;
	case 'b':
		err = bl_arg_long("buckets", arg, 1, 1000, &o->buckets, why);
		break;
	case 'j':
		if (!*arg)
			return bl_why_set(why, EINVAL, "empty --json file name");
		o->json = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'N':
		o->netns = false;
		break;
	case 'o':
		if (!parse_mode(&o->owner_spec, arg))
			return bl_why_set(why, EINVAL, "unknown owner mode '%s'",
					  bl_printable(arg));
		o->owner = arg;
		break;
	}
	return err;
}

/* MODE ADDRESSES N, the operands (options may come between them). */
static int parse_positional(struct opts *o, int argc, char **argv,
			    struct bl_why *why)
{
	int err;

	if (argc != 3)
		return bl_why_set(why, EINVAL,
				  "expected 3 arguments (mode, addresses, N), got %d",
				  argc);
	o->mode = argv[0];
	if (!parse_mode(&o->spec, argv[0]))
		return bl_why_set(why, EINVAL, "unknown mode '%s'",
				  bl_printable(argv[0]));
	err = parse_addrs(o, argv[1], why);
	if (!err)
		err = bl_arg_long("N", argv[2], 1, 10000000, &o->spec.n, why);
	if (err)
		return err;
	if (o->buckets > o->spec.n)
		return bl_why_set(why, EINVAL, "buckets %ld exceed N %ld",
				  o->buckets, o->spec.n);
	if (o->spec.naddrs > o->spec.n)
		return bl_why_set(why, EINVAL, "address count K %d exceeds N %ld",
				  o->spec.naddrs, o->spec.n);
	return 0;
}

/* 0, 1 for --help, or -EINVAL with why explaining the usage error. */
static int parse_args(struct opts *o, int argc, char **argv,
		      struct bl_why *why)
{
	static const struct option longopts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "buckets", required_argument, NULL, 'b' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-netns", no_argument, NULL, 'N' },
		{ "owner", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int err;

	*o = (struct opts){
		.spec = { .family = BL_FAM_INET, .port = DEFAULT_PORT },
		.rounds = 1, .buckets = DEFAULT_BUCKETS, .netns = true,
	};
	err = bl_getopt_each(argc, argv, ":f:p:r:w:b:j:o:qh", longopts, 0, NULL,
			     parse_option, o, why);
	if (err)
		return err;
	return parse_positional(o, argc - optind, argv + optind, why);
}

/*
 * Can this run happen here? Not a usage error but a SKIP (exit 4) with
 * the reason: too few file descriptors for N, or --no-netns in the
 * initial namespace, whose lo and addresses are the host's. The --json
 * destination is checked now, not after the run.
 */
static int check_env(const struct opts *o, struct bl_why *why)
{
	long fdmax = bl_fd_hard_limit();
	int err;

	/* Root with CAP_SYS_RESOURCE may still raise the hard limit. */
	if (fdmax > 0 && o->spec.n + BL_FD_SLACK > fdmax &&
	    bl_fd_reserve(o->spec.n, why))
		return BL_EXIT_SKIP;
	if (!o->netns) {
		err = bl_netns_is_initial(why);
		if (err < 0)
			return BL_EXIT_SKIP;
		if (err)
			return bl_why_set(why, EPERM,
					  "--no-netns refuses the initial network namespace: its lo is the host's (run it inside a VM or a namespace you made)"),
			       BL_EXIT_SKIP;
	}
	return 0;
}

/* Runs in the round's child: namespace, addresses, fds, then the loop. */
static int one_round(const struct opts *o, struct round_out *out,
		     struct bl_progress *progress)
{
	struct bl_bind_run run, owner = {};
	struct bl_bind_spec spec = o->spec;
	struct bl_why why = { "" };
	int err = 0;

	/* --no-netns: the parent made the namespace ready (given_ns_setup). */
	if (o->netns)
		err = bl_netns_enter(&why);
	if (!err && o->netns)
		err = bl_bind_prepare(&o->spec, &why);
	if (!err)
		err = bl_fd_reserve(o->spec.n + !!o->owner, &why);
	run = (struct bl_bind_run){};
	if (!err && o->owner) {
		struct bl_bind_spec os = o->owner_spec;

		os.family = spec.family;
		os.naddrs = 1;
		os.port = spec.port;
		os.n = 1;
		/* A fresh namespace's port refusing its first owner is a fault. */
		if (bl_bind_loop(&os, &owner, NULL, &why)) {
			snprintf(out->why, sizeof(out->why), "owner: %s", why.msg);
			bl_bind_close(&owner);
			return BL_EXIT_FAIL;
		}
		spec.port = owner.port;
	}
	if (!err)
		err = bl_bind_loop(&spec, &run, progress, &why);
	if (err && !run.bind_ns) {
		/* Not even started: the environment cannot run it. */
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
		bl_bind_close(&owner);
		return BL_EXIT_SKIP;
	}
	if (!err) {
		memcpy(out->bind_ns, run.bind_ns, run.n * sizeof(uint64_t));
		out->total_ns = run.total_ns;
		out->port = run.port;
	} else {
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
	}
	bl_bind_close(&run);
	bl_bind_close(&owner);
	return err ? BL_EXIT_FAIL : BL_EXIT_PASS;
}

/*
 * --no-netns changes the namespace it was given (lo up, addresses) and
 * must leave it as it found it on every exit: a later run would take what
 * it left for the user's. So these signals are caught while it holds
 * changes; the round runs in a child, killed when one comes, and the
 * changes are undone before this process dies of that signal.
 */
static const int caught_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
/* A lock-free atomic: what C11 lets a signal handler write. */
static atomic_int caught;

static void catch_signal(int sig)
{
	caught = sig;
}

/* On: catch them (an ignored one stays ignored); off: as they were. */
static void catch_signals(bool on)
{
	/* No SA_RESTART: a wait or netlink call returns at once with EINTR. */
	struct sigaction sa = { .sa_handler = catch_signal };
	static struct sigaction was[ARRAY_SIZE(caught_signals)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(caught_signals); i++) {
		if (!on) {
			sigaction(caught_signals[i], &was[i], NULL);
			continue;
		}
		sigaction(caught_signals[i], NULL, &was[i]);
		if (was[i].sa_handler != SIG_IGN)
			sigaction(caught_signals[i], &sa, NULL);
	}
}

struct given_ns {
	struct bl_addr_undo undo;
	bool lo_was_up;
};

static int given_ns_setup(const struct opts *o, struct given_ns *g,
			  struct bl_why *why)
{
	int err;

	g->undo.n = 0;
	g->lo_was_up = bl_link_is_up("lo");
	err = bl_netns_lo_up(why);
	if (!err)
		err = bl_bind_prepare_undo(&o->spec, &g->undo, why);
	if (!err && caught)
		err = bl_why_set(why, EINTR, "stopped by signal %d", caught);
	return err;
}

static void given_ns_restore(const struct opts *o, struct given_ns *g)
{
	bl_bind_undo(&o->spec, &g->undo);
	if (!g->lo_was_up)
		bl_link_set_up("lo", false);
}

struct round_job {
	const struct opts *o;
	struct round_out *out;
	struct bl_progress *progress;
};

static int round_job(void *arg)
{
	struct round_job *j = arg;

	/* The child dies of a signal; the parent undoes what it set up. */
	if (!j->o->netns)
		catch_signals(false);
	return one_round(j->o, j->out, j->progress);
}

/* Wait for the round's child; a signal to us ends it at once. */
static int wait_round(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (caught)
			kill(pid, SIGKILL);
	}
	return 0;
}

/*
 * Each round runs in a child so that its namespace, sockets and bind
 * buckets die with it: the next round starts from an empty table.
 */
static int run_round(const struct opts *o, struct round_out *out,
		     struct bl_progress *progress)
{
	static struct given_ns given;
	struct round_job job = { o, out, progress };
	struct bl_why why = { "" };
	int status = 0, err;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!o->netns) {
		catch_signals(true);
		err = given_ns_setup(o, &given, &why);
		if (err) {
			snprintf(out->why, sizeof(out->why), "%s", why.msg);
			status = BL_EXIT_SKIP << 8;
			goto restore;
		}
	}
	pid = bl_child_run(round_job, &job);
	if (pid < 0) {
		/* RLIMIT_NPROC, say: the machine's limit, not a failed round. */
		snprintf(out->why, sizeof(out->why), "fork: %s", strerror(-pid));
		status = BL_EXIT_SKIP << 8;
		goto restore;
	}
	/* Killed with us: a round must not outlive bind_bench. */
	if (wait_round(pid, &status))
		status = BL_EXIT_FAIL << 8;
	else if (!WIFEXITED(status))
		snprintf(out->why, sizeof(out->why), "round child died%s%s",
			 WIFSIGNALED(status) ? ": " : "",
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
restore:
	if (!o->netns) {
		given_ns_restore(o, &given);
		catch_signals(false);
		if (caught)
			raise(caught);
	}
	out->status = WIFEXITED(status) ? WEXITSTATUS(status) : BL_EXIT_FAIL;
	return out->status;
}

/* What the case measures; compare refuses runs where these differ. */
static json_t *params_json(const struct opts *o)
{
	return json_pack("{s:s, s:s, s:s?, s:i, s:s, s:b, s:b, s:i, s:b, s:I}",
			 "mode", o->mode, "addresses", o->addrs,
			 "owner", o->owner,
			 "naddrs", o->spec.naddrs,
			 "family", bl_family_name(o->spec.family),
			 "reuseaddr", o->spec.reuseaddr,
			 "reuseport", o->spec.reuseport,
			 "port", o->spec.port, "auto_port", !o->spec.port,
			 "n", (json_int_t)o->spec.n);
}

/* How it was measured: rounds and curve size are no part of the case. */
static json_t *settings_json(const struct opts *o)
{
	return json_pack("{s:I, s:I, s:I, s:b}",
			 "rounds", (json_int_t)o->rounds,
			 "warmup", (json_int_t)o->warmup,
			 "buckets", (json_int_t)o->buckets,
			 "netns", o->netns);
}

/* Case ids tell an explicit port from one the first bind picked. */
static const char *port_kind(uint16_t port)
{
	if (port)
		return "port";
	return "auto";
}

/* The case id of the --json result; its owner part in owner. */
static void format_case_id(const struct opts *o, char *id, size_t len,
			   char owner[32])
{
	*owner = '\0';
	if (o->owner)
		snprintf(owner, 32, ".owner_%s", o->owner);
	snprintf(id, len, "bind_bench.%s.%s.%s.%s.n%ld%s",
		 o->mode, o->addrs, bl_family_name(o->spec.family),
		 port_kind(o->spec.port), o->spec.n, owner);
}

struct summary {
	double *totals_ms, *growths, *curve;	/* curve: rounds x buckets */
	struct bl_stats total, growth, per_bind;
	double *curve_median;
};

static int summarize(const struct opts *o, struct round_out **outs,
		     struct summary *s)
{
	long r, b, nb = o->buckets, n = o->spec.n;
	double *all, *col;
	int err = -ENOMEM;

	s->totals_ms = calloc(o->rounds, sizeof(double));
	s->growths = calloc(o->rounds, sizeof(double));
	s->curve = calloc(o->rounds * nb, sizeof(double));
	s->curve_median = calloc(nb, sizeof(double));
	all = calloc(o->rounds * n, sizeof(double));
	col = calloc(o->rounds, sizeof(double));
	if (!s->totals_ms || !s->growths || !s->curve || !s->curve_median ||
	    !all || !col)
		goto out;
	for (r = 0; r < o->rounds; r++) {
		const uint64_t *ns = outs[r]->bind_ns;
		long i;

		s->totals_ms[r] = outs[r]->total_ns / 1e6;
		s->growths[r] = bl_growth(ns, n);
		bl_curve(ns, n, nb, s->curve + r * nb);
		for (i = 0; i < n; i++)
			all[r * n + i] = ns[i];
	}
	for (b = 0; b < nb; b++) {
		for (r = 0; r < o->rounds; r++)
			col[r] = s->curve[r * nb + b];
		s->curve_median[b] = bl_median(col, o->rounds);
	}
	err = bl_stats_compute(s->totals_ms, o->rounds, &s->total) ||
	      bl_stats_compute(s->growths, o->rounds, &s->growth) ||
	      bl_stats_compute(all, o->rounds * n, &s->per_bind) ? -ENOMEM : 0;
out:
	free(all);
	free(col);
	return err;
}

static void summary_free(struct summary *s)
{
	free(s->totals_ms);
	free(s->growths);
	free(s->curve);
	free(s->curve_median);
}

/*
 * O(1) bind() keeps the growth near 1. Growth beyond the limit means each
 * bind scans the owners of the port: on a fresh port with reuse options
 * set, the fastreuse caches should have spared that scan.
 */
static json_t *verdict_json(const struct summary *s)
{
	char reason[256];

	if (s->growth.p50 <= BL_GROWTH_LIMIT)
		return json_pack("{s:s, s:f, s:f}", "status", "pass",
				 "growth", s->growth.p50,
				 "limit", BL_GROWTH_LIMIT);
	snprintf(reason, sizeof(reason),
		 "bind() cost grows with the number of owners: growth %.2f > %.1f; fastreuse caches not initialized on first bind? (Fixes: 8002d44fe84d)",
		 s->growth.p50, BL_GROWTH_LIMIT);
	return json_pack("{s:s, s:s, s:f, s:f}", "status", "regressed",
			 "reason", reason, "growth", s->growth.p50,
			 "limit", BL_GROWTH_LIMIT);
}

static int write_json(const struct opts *o, const char *case_id,
		      struct round_out **outs, const struct summary *s)
{
	json_t *root = bl_result_new("bind_bench", case_id);
	json_t *rounds = json_array(), *starts = json_array(), *curve;
	struct bl_why why = { "" };
	long r, b;
	int err;

	json_object_set_new(root, "params", params_json(o));
	json_object_set_new(root, "settings", settings_json(o));
	for (r = 0; r < o->rounds; r++)
		json_array_append_new(rounds, json_pack("{s:I, s:f, s:i, s:o}",
			"total_ns", (json_int_t)outs[r]->total_ns,
			"growth", s->growths[r], "port", outs[r]->port,
			"bind_ns", bl_u64_array_json(outs[r]->bind_ns,
						     o->spec.n)));
	for (b = 0; b < o->buckets; b++)
		json_array_append_new(starts,
				      json_integer(o->spec.n * b / o->buckets));
	curve = json_pack("{s:o, s:o}", "bound_before", starts, "median_ns",
			  bl_double_array_json(s->curve_median, o->buckets));
	json_object_set_new(root, "rounds", rounds);
	json_object_set_new(root, "verdict", verdict_json(s));
	json_object_set_new(root, "metric",
			    bl_metric_json("total_ms", "ms", true, s->totals_ms,
					   o->rounds));
	json_object_set_new(root, "summary",
			    json_pack("{s:o, s:o, s:o, s:o}",
				      "total_ms", bl_stats_json(&s->total),
				      "growth", bl_stats_json(&s->growth),
				      "per_bind_ns", bl_stats_json(&s->per_bind),
				      "curve", curve));
	err = bl_json_save(root, o->json, &why);
	json_decref(root);
	if (err)
		fprintf(stderr, "%s: cannot write %s\n", prog, why.msg);
	return err;
}

static void print_summary(const struct opts *o, const struct summary *s,
			  FILE *f)
{
	long b;

	fprintf(f, "total_ms_median=%.3f total_ms_min=%.3f total_ms_max=%.3f total_ms_ci95=%.3f..%.3f rounds=%ld\n",
		s->total.p50, s->total.min, s->total.max, s->total.ci_lo,
		s->total.ci_hi, o->rounds);
	fprintf(f, "per_bind_ns_median=%.0f per_bind_ns_p90=%.0f per_bind_ns_p99=%.0f\n",
		s->per_bind.p50, s->per_bind.p90, s->per_bind.p99);
	fprintf(f, "growth_median=%.2f growth_min=%.2f growth_max=%.2f (last 10%% / first 10%% of binds; ~1 is O(1) per bind)\n",
		s->growth.p50, s->growth.min, s->growth.max);
	fprintf(f, "# curve: sockets already bound -> median ns per bind\n");
	for (b = 0; b < o->buckets; b++)
		fprintf(f, "curve %ld %.0f\n", o->spec.n * b / o->buckets,
			s->curve_median[b]);
}

/* Warm-up and measured rounds; BL_EXIT_* of the first that fails. */
static int run_rounds(const struct opts *o, struct round_out **outs,
		      size_t out_size)
{
	long r, total_rounds = o->warmup + o->rounds;
	struct bl_progress progress;
	int ret;

	for (r = 0; r < total_rounds; r++) {
		/* Shared with the round's child, which writes the samples. */
		outs[r] = mmap(NULL, out_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (outs[r] == MAP_FAILED) {
			fprintf(stderr, "%s: mmap: %s\n", prog, strerror(errno));
			return BL_EXIT_USAGE;
		}
		bl_progress_init(&progress, r < o->warmup ? "warm-up" : "round",
				 o->spec.n);
		ret = run_round(o, outs[r], &progress);
		if (ret) {
			fprintf(stderr, "%s: %s%s\n", prog,
				ret == BL_EXIT_SKIP ? "SKIP: " : "",
				outs[r]->why);
			return ret;
		}
		if (!o->quiet && r >= o->warmup)
			printf("round=%ld port=%u total_ms=%.3f growth=%.2f\n",
			       r - o->warmup + 1, outs[r]->port,
			       outs[r]->total_ns / 1e6,
			       bl_growth(outs[r]->bind_ns, o->spec.n));
	}
	return 0;
}

/* Arguments and environment; *done when main should return the result. */
static int setup(struct opts *o, int argc, char **argv, bool *done)
{
	char case_id[160], owner[32];
	struct bl_why why = { "" };
	int ret, check;

	*done = true;
	ret = parse_args(o, argc, argv, &why);
	if (ret > 0) {
		print_usage(stdout);
		return BL_EXIT_PASS;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		print_usage(stderr);
		return BL_EXIT_USAGE;
	}
	/* The destination is part of the command line: bisect's check too. */
	if (o->json && bl_out_check(o->json, &why)) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		return BL_EXIT_USAGE;
	}
	check = bl_check_args_only();
	if (check == BL_CHECK_ID) {
		format_case_id(o, case_id, sizeof(case_id), owner);
		printf("%s\n", case_id);
	}
	if (check)
		return BL_EXIT_PASS;
	ret = check_env(o, &why);
	if (ret)
		fprintf(stderr, "%s: %s%s\n", prog,
			ret == BL_EXIT_SKIP ? "SKIP: " : "", why.msg);
	*done = ret != 0;
	return ret;
}

static void print_header(const struct opts *o)
{
	printf("# bind_bench %s\nmode=%s addresses=%s naddrs=%d family=%s port=%u n=%ld rounds=%ld warmup=%ld netns=%s owner=%s\n",
	       BINDLAB_VERSION, o->mode, o->addrs, o->spec.naddrs,
	       bl_family_name(o->spec.family), o->spec.port, o->spec.n,
	       o->rounds, o->warmup, o->netns ? "private" : "current",
	       o->owner ? o->owner : "-");
}

/* The measured rounds into a summary, its text and JSON; BL_EXIT_*. */
static int report(const struct opts *o, struct round_out **outs)
{
	struct summary sum = {};
	char case_id[160], owner[32];
	int ret = BL_EXIT_PASS;

	format_case_id(o, case_id, sizeof(case_id), owner);
	if (summarize(o, outs, &sum)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return BL_EXIT_USAGE;
	}
	if (!o->quiet)
		print_summary(o, &sum, stdout);
	/* The machine's error (a full disk, EFBIG), never a kernel verdict. */
	if (o->json && write_json(o, case_id, outs, &sum))
		ret = BL_EXIT_USAGE;
	/* The reproducer's line, last: the median round when there are several. */
	printf("%s %s %ld%s: %.3f ms\n", o->mode, o->addrs, o->spec.n,
	       owner, sum.total.p50);
	summary_free(&sum);
	return ret;
}

int main(int argc, char **argv)
{
	struct round_out **outs;
	long r, total_rounds;
	size_t out_size;
	struct opts o;
	bool done;
	int ret;

	prog = basename(argv[0]);
	bl_stdio_guard();
	/*
	 * A file size limit is a write error like any other (EFBIG, exit 2
	 * with the errno), not a SIGXFSZ that kills the run unexplained.
	 */
	signal(SIGXFSZ, SIG_IGN);
	ret = setup(&o, argc, argv, &done);
	if (done)
		return ret;
	if (o.json && !strcmp(o.json, "-"))
		bl_stdout_machine();
	total_rounds = o.warmup + o.rounds;
	out_size = sizeof(struct round_out) + o.spec.n * sizeof(uint64_t);
	/*
	 * Mapped, not malloc'ed: round children exit with a copy of it, and
	 * a leak checker should not count that as lost.
	 */
	outs = mmap(NULL, total_rounds * sizeof(*outs), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (outs == MAP_FAILED)
		return BL_EXIT_USAGE;
	if (!o.quiet)
		print_header(&o);
	ret = run_rounds(&o, outs, out_size);
	if (!ret)
		ret = report(&o, outs + o.warmup);
	for (r = 0; r < total_rounds; r++)
		if (outs[r] && outs[r] != MAP_FAILED)
			munmap(outs[r], out_size);
	munmap(outs, total_rounds * sizeof(*outs));
	return ret;
}
