// SPDX-License-Identifier: GPL-2.0
/*
 * bind_churn: the loopback connection churn of "net-tcp: extend
 * tcp_tw_reuse sysctl to enable loopback only optimization" (Maciej
 * Zenczykowski), once per tcp_tw_reuse value: connections per second,
 * connect() latency, the failure point, and what set the rate.
 *
 *   bind_churn [options]
 *   bind_churn [options]   the same program, same output
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab.h"

/*
 * Every run (one tcp_tw_reuse value, one round) happens in a child of its
 * own, in a namespace of its own: its sockets, TIME_WAIT and sysctls die
 * with it. Rounds interleave the values so that drift on a shared machine
 * spreads over all of them.
 */
#define CHURN_N		50000
#define CHURN_MAX_N	2000000
#define CHURN_T		60
#define CHURN_MAX_T	600
#define CHURN_MAX_ROUNDS	100
#define CHURN_MAX_WALL	7200	/* s, all runs together */
#define CHURN_GRACE	30	/* s past the time limit: the run is killed */

struct churn_opts {
	struct bl_churn_spec spec;
	long time_s, rounds;
	long delay_ms;		/* 0: the kernel's */
	long lo, hi;		/* 0: the kernel's range */
	int reuse[3], nreuse;
	const char *json;
	bool quiet;
};

/* What a run's child hands back through shared memory. */
struct churn_out {
	char why[256];
	long delay_ms;		/* in effect: 1000 without the sysctl */
	bool delay_sysctl;
	long timestamps;
	struct bl_churn_run run;	/* pointers fixed up by the parent */
	uint64_t data[];	/* connect_ns, then per_second */
};

static const char *prog = "bind_churn";
/* " churn" when run as "bind_churn", which execs us. */
static const char *sub = "";

static void churn_usage(FILE *f)
{
	fprintf(f,
		"usage: %s%s [options]\n"
		"  Open and close TCP connections to [::1] or 127.0.0.1 in a tight loop, the\n"
		"  client closing first (it keeps the TIME_WAIT), for N connections or T\n"
		"  seconds, once per tcp_tw_reuse value, each run in a fresh namespace.\n"
		"  Reports connections/s, connect() p50/p99, the failure point (connections\n"
		"  before the first EADDRNOTAVAIL) and whether ports or the CPU set the rate.\n"
		"options:\n"
		"  -f, --family 4|6         127.0.0.1 or [::1] (default 6, as the commit did)\n"
		"  -n, --connections N      connections per run (default %d, max %d)\n"
		"  -t, --time T             seconds per run at most (default %d, max %d)\n"
		"  -R, --tw-reuse V         0, 1, 2, a list (0,2) or all (default all)\n"
		"  -p, --port-range LO-HI   ip_local_port_range of the runs (1025..65535)\n"
		"  -d, --reuse-delay MS     tcp_tw_reuse_delay (1..60000; kernels 6.14+)\n"
		"      --rst                close with SO_LINGER 0: no TIME_WAIT (control)\n"
		"  -k, --keep-going         after EADDRNOTAVAIL wait 1 ms and retry\n"
		"  -r, --rounds R           rounds of every value (default 1, max %d)\n"
		"  -j, --json FILE          results as JSON (- for stdout)\n"
		"  -q, --quiet              one line per tcp_tw_reuse value\n"
		"  -h, --help               this text\n"
		"the experiment of \"net-tcp: extend tcp_tw_reuse sysctl to enable loopback\n"
		"only optimization\": %s%s -p 32768-65535 -n 50000 -R 0,2 -t 300\n"
		"exit: 0 ok, 1 a round failed, 2 usage or output not written,\n"
		"      4 skip (no privilege, netns, IPv6)\n",
		prog, sub, CHURN_N, CHURN_MAX_N, CHURN_T, CHURN_MAX_T,
		CHURN_MAX_ROUNDS, prog, sub);
}

static int parse_reuse(struct churn_opts *o, const char *arg,
		       struct bl_why *why)
{
	char *copy, *tok, *save = NULL;
	bool seen[3] = { false };
	long v;
	int err = 0;

	o->nreuse = 0;
	if (!strcmp(arg, "all")) {
		for (v = 0; v < 3; v++)
			o->reuse[o->nreuse++] = v;
		return 0;
	}
	/* strtok_r() would skip them: ",0" and "0,,1" are not lists. */
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' ||
	    strstr(arg, ",,"))
		return bl_why_set(why, EINVAL, "--tw-reuse '%s': an empty value",
				  bl_printable(arg));
	copy = strdup(arg);
	if (!copy)
		return bl_why_set(why, ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		err = bl_arg_long("tcp_tw_reuse value", tok, 0, 2, &v, why);
		if (!err && seen[v])
			err = bl_why_set(why, EINVAL, "tcp_tw_reuse %ld given twice", v);
		if (!err) {
			seen[v] = true;
			o->reuse[o->nreuse++] = v;
		}
	}
	free(copy);
	if (!err && !o->nreuse)
		err = bl_why_set(why, EINVAL, "empty --tw-reuse list");
	return err;
}

static int parse_range(struct churn_opts *o, const char *arg,
		       struct bl_why *why)
{
	char lo[16], hi[16];
	const char *dash = strchr(arg, '-');
	int err;

	if (!dash || dash == arg || (size_t)(dash - arg) >= sizeof(lo) ||
	    strlen(dash + 1) >= sizeof(hi))
		return bl_why_set(why, EINVAL, "port range '%s' is not LO-HI",
				  bl_printable(arg));
	memcpy(lo, arg, dash - arg);
	lo[dash - arg] = '\0';
	snprintf(hi, sizeof(hi), "%s", dash + 1);
	/* The server takes LO - 1, outside the range: LO > 1024. */
	err = bl_arg_long("port range start", lo, 1025, 65534, &o->lo, why);
	if (!err)
		err = bl_arg_long("port range end", hi, o->lo + 1, 65535,
				  &o->hi, why);
	return err;
}

static int churn_option(void *ctx, int c, const char *arg,
			struct bl_why *why)
{
	struct churn_opts *o = ctx;

	switch (c) {
	case 'f':
		if (bl_family_parse(arg, &o->spec.family) ||
		    o->spec.family == BL_FAM_MAPPED)
			return bl_why_set(why, EINVAL, "family '%s' is neither 4 nor 6",
					  bl_printable(arg));
		return 0;
	case 'n':
		return bl_arg_long("connections", arg, 1, CHURN_MAX_N,
				   &o->spec.n, why);
	case 't':
		return bl_arg_long("time", arg, 1, CHURN_MAX_T, &o->time_s, why);
	case 'R':
		return parse_reuse(o, arg, why);
	case 'p':
		return parse_range(o, arg, why);
	case 'd':
		return bl_arg_long("reuse delay", arg, 1, 60000, &o->delay_ms,
				   why);
	case 'S':
		o->spec.rst = true;
		return 0;
	case 'k':
		o->spec.keep_going = true;
		return 0;
	case 'r':
		return bl_arg_long("rounds", arg, 1, CHURN_MAX_ROUNDS,
				   &o->rounds, why);
	case 'j':
		if (!*arg)
			return bl_why_set(why, EINVAL, "empty --json file name");
		o->json = arg;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	}
	return bl_why_set(why, EINVAL, "unknown option");
}

/* 0, 1 for --help, or -EINVAL with why explaining the usage error. */
static int churn_parse(struct churn_opts *o, int argc, char **argv,
		       struct bl_why *why)
{
	static const struct option longopts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "connections", required_argument, NULL, 'n' },
		{ "time", required_argument, NULL, 't' },
		{ "tw-reuse", required_argument, NULL, 'R' },
		{ "port-range", required_argument, NULL, 'p' },
		{ "reuse-delay", required_argument, NULL, 'd' },
		{ "rst", no_argument, NULL, 'S' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int err;

	*o = (struct churn_opts){
		.spec = { .family = BL_FAM_INET6, .n = CHURN_N },
		.time_s = CHURN_T, .rounds = 1,
		.reuse = { 0, 1, 2 }, .nreuse = 3,
	};
	err = bl_getopt_each(argc, argv, ":f:n:t:R:p:d:kr:j:qh", longopts, 0,
			     "tw-reuse",
			     churn_option, o, why);
	if (err)
		return err;
	if (optind < argc)
		return bl_why_set(why, EINVAL, "unexpected argument '%s'",
				  bl_printable(argv[optind]));
	if (o->rounds * o->nreuse * o->time_s > CHURN_MAX_WALL)
		return bl_why_set(why, EINVAL,
				  "%ld rounds x %d values x %ld s exceed %d s",
				  o->rounds, o->nreuse, o->time_s,
				  CHURN_MAX_WALL);
	o->spec.max_ns = o->time_s * 1000000000ULL;
	return 0;
}

static size_t churn_out_size(const struct churn_opts *o)
{
	long seconds = o->time_s + 2;	/* as bl_churn_loop() counts them */

	return sizeof(struct churn_out) + o->spec.n * sizeof(uint64_t) +
	       seconds * sizeof(uint32_t);
}

static int churn_sysctls(const struct churn_opts *o, int reuse,
			 struct churn_out *out, struct bl_why *why)
{
	char range[32];
	int err;

	err = bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, reuse);
	if (err)
		return bl_why_set(why, err, "tcp_tw_reuse=%d: %s", reuse,
				  strerror(-err));
	if (o->lo) {
		snprintf(range, sizeof(range), "%ld %ld", o->lo, o->hi);
		err = bl_sysctl_write(BL_SYSCTL_PORT_RANGE, range);
		if (err)
			return bl_why_set(why, err, "ip_local_port_range %s: %s",
					  range, strerror(-err));
	}
	out->delay_sysctl = bl_sysctl_exists(BL_SYSCTL_TW_DELAY);
	out->delay_ms = 1000;
	if (o->delay_ms) {
		err = bl_sysctl_write_long(BL_SYSCTL_TW_DELAY, o->delay_ms);
		if (err)
			return bl_why_set(why, err, "tcp_tw_reuse_delay=%ld: %s",
					  o->delay_ms, strerror(-err));
	}
	if (out->delay_sysctl)
		bl_sysctl_read_long(BL_SYSCTL_TW_DELAY, &out->delay_ms);
	bl_sysctl_read_long(BL_SYSCTL_TIMESTAMPS, &out->timestamps);
	return 0;
}

/* The run's child: namespace, sysctls, the loop, results to out. */
static int churn_child(const struct churn_opts *o, int reuse,
		       struct churn_out *out)
{
	struct bl_churn_spec spec = o->spec;
	struct bl_why why = { "" };
	struct bl_progress progress;
	struct bl_churn_run run;
	uint16_t lo, hi;
	int err;

	err = bl_netns_enter(&why);
	if (!err && spec.family == BL_FAM_INET6 && !bl_ipv6_usable(&why))
		err = -EAFNOSUPPORT;
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
		return BL_EXIT_SKIP;
	}
	err = churn_sysctls(o, reuse, out, &why);
	if (!err)
		err = bl_port_range(&lo, &hi);
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s",
			 why.msg[0] ? why.msg : "cannot read the port range");
		return BL_EXIT_FAIL;
	}
	spec.port = lo - 1;
	/* The wall-clock guard: SIGALRM's default action ends the run. */
	alarm(o->time_s + CHURN_GRACE / 2);
	bl_progress_init(&progress, "churn", spec.n);
	err = bl_churn_loop(&spec, &run, &progress, &why);
	alarm(0);
	out->run = run;
	if (run.connect_ns)
		memcpy(out->data, run.connect_ns, run.done * sizeof(uint64_t));
	if (run.per_second)
		memcpy(out->data + spec.n, run.per_second,
		       run.seconds * sizeof(uint32_t));
	bl_churn_free(&run);
	if (err)
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
	return err ? BL_EXIT_FAIL : BL_EXIT_PASS;
}

struct churn_job {
	const struct churn_opts *o;
	int reuse;
	struct churn_out *out;
};

static int churn_job(void *arg)
{
	struct churn_job *j = arg;

	return churn_child(j->o, j->reuse, j->out);
}

/* One run in a child of its own, killed past the time limit. */
static int churn_run(const struct churn_opts *o, int reuse,
		     struct churn_out *out)
{
	struct churn_job job = { o, reuse, out };
	long limit_s = o->time_s + CHURN_GRACE;
	int status = 0, err;
	pid_t pid;

	pid = bl_child_run(churn_job, &job);
	if (pid < 0) {
		/* RLIMIT_NPROC, say: the machine's limit, not a failed run. */
		snprintf(out->why, sizeof(out->why), "fork: %s", strerror(-pid));
		return BL_EXIT_SKIP;
	}
	err = bl_child_wait(pid, limit_s * 1000, &status);
	/* Samples live in the shared mapping, after the header. */
	out->run.connect_ns = out->data;
	out->run.per_second = (uint32_t *)(out->data + o->spec.n);
	if (err == -ETIMEDOUT) {
		snprintf(out->why, sizeof(out->why),
			 "run still going after %ld s: killed", limit_s);
		return BL_EXIT_FAIL;
	}
	if (err) {
		snprintf(out->why, sizeof(out->why), "waitpid: %s", strerror(-err));
		return BL_EXIT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		snprintf(out->why, sizeof(out->why), "run died: %s%s",
			 strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? " (wall-clock guard)" : "");
		return BL_EXIT_FAIL;
	}
	return WEXITSTATUS(status);
}

/* All rounds of one tcp_tw_reuse value. */
struct churn_sum {
	int reuse;
	double *rate, *p50, *p99, *fail;
	long nfail;		/* rounds that hit EADDRNOTAVAIL */
	long capped;		/* rounds found port-capped */
	struct bl_stats rate_st, p50_st, p99_st, fail_st;
	struct bl_churn_verdict verdict;
};

/* port-capped > near-port-cap > cpu-bound: a round at the wall taints all. */
static int severity(const char *regime)
{
	if (!strcmp(regime, "port-capped"))
		return 2;
	return !strcmp(regime, "near-port-cap");
}

static int churn_summarize(const struct churn_opts *o, int reuse,
			   struct churn_out **outs, struct churn_sum *s)
{
	struct bl_churn_verdict v;
	long r;

	s->reuse = reuse;
	s->rate = calloc(o->rounds, sizeof(double));
	s->p50 = calloc(o->rounds, sizeof(double));
	s->p99 = calloc(o->rounds, sizeof(double));
	s->fail = calloc(o->rounds, sizeof(double));
	if (!s->rate || !s->p50 || !s->p99 || !s->fail)
		return -ENOMEM;
	for (r = 0; r < o->rounds; r++) {
		const struct bl_churn_run *run = &outs[r]->run;

		s->rate[r] = bl_churn_rate(run);
		bl_churn_latency(run, &s->p50[r], &s->p99[r]);
		if (run->failure_point >= 0)
			s->fail[s->nfail++] = run->failure_point;
		bl_churn_regime(run, reuse, outs[r]->delay_ms, o->spec.rst, &v);
		if (!r || severity(v.regime) > severity(s->verdict.regime))
			s->verdict = v;
		if (!strcmp(v.regime, "port-capped"))
			s->capped++;
	}
	if (bl_stats_compute(s->rate, o->rounds, &s->rate_st) ||
	    bl_stats_compute(s->p50, o->rounds, &s->p50_st) ||
	    bl_stats_compute(s->p99, o->rounds, &s->p99_st))
		return -ENOMEM;
	if (s->nfail && bl_stats_compute(s->fail, s->nfail, &s->fail_st))
		return -ENOMEM;
	return 0;
}

static void churn_sum_free(struct churn_sum *s)
{
	free(s->rate);
	free(s->p50);
	free(s->p99);
	free(s->fail);
}

static void print_run(const struct churn_opts *o, int reuse, long round,
		      const struct churn_out *out)
{
	const struct bl_churn_run *run = &out->run;
	struct bl_churn_verdict v;
	double p50, p99;
	char fail[64] = "none";

	bl_churn_latency(run, &p50, &p99);
	bl_churn_regime(run, reuse, out->delay_ms, o->spec.rst, &v);
	if (run->failure_point >= 0)
		snprintf(fail, sizeof(fail), "%ld@%.2fs", run->failure_point,
			 run->failure_ns / 1e9);
	printf("run tw_reuse=%d round=%ld conns=%ld seconds=%.3f conn_per_s=%.0f connect_p50_us=%.1f connect_p99_us=%.1f failure_point=%s eaddrnotavail=%ld second_parity_pct=%.1f stop=%s regime=%s port_range=%u-%u reuse_delay_ms=%ld%s\n",
	       reuse, round, run->done, run->total_ns / 1e9,
	       bl_churn_rate(run), p50 / 1e3, p99 / 1e3, fail, run->exhausted,
	       run->done ? 100.0 * run->second_parity / run->done : 0.0,
	       bl_churn_stop_name(run->stop), v.regime, run->range_lo,
	       run->range_hi,
	       out->delay_ms, out->delay_sysctl ? "" : "(no sysctl)");
}

static void print_sum(const struct churn_opts *o, const struct churn_sum *s)
{
	char fail[96] = "none";

	if (s->nfail)
		snprintf(fail, sizeof(fail), "%.0f(%ld/%ld rounds)",
			 s->fail_st.p50, s->nfail, o->rounds);
	printf("tw_reuse=%d conn_per_s=%.0f min=%.0f max=%.0f ci95=%.0f..%.0f connect_p50_us=%.1f connect_p99_us=%.1f failure_point=%s regime=%s port_cap=%.0f rounds=%ld\n",
	       s->reuse, s->rate_st.p50, s->rate_st.min, s->rate_st.max,
	       s->rate_st.ci_lo, s->rate_st.ci_hi, s->p50_st.p50 / 1e3,
	       s->p99_st.p50 / 1e3, fail, s->verdict.regime, s->verdict.cap,
	       o->rounds);
	if (o->quiet)
		return;
	printf("# %s: %s\n", s->verdict.regime, s->verdict.why);
	if (s->verdict.cap_why[0])
		printf("# port cap %.0f conn/s: %s\n", s->verdict.cap,
		       s->verdict.cap_why);
}

static json_t *churn_params(const struct churn_opts *o, int reuse)
{
	char range[32];

	snprintf(range, sizeof(range), "%ld-%ld", o->lo, o->hi);
	return json_pack("{s:s, s:I, s:I, s:s, s:o, s:o, s:i, s:b, s:I}",
			 "family", bl_family_name(o->spec.family),
			 "n", (json_int_t)o->spec.n,
			 "time_limit_s", (json_int_t)o->time_s,
			 "close", o->spec.rst ? "rst" : "fin",
			 "port_range", o->lo ? json_string(range) : json_null(),
			 "reuse_delay_ms", o->delay_ms ?
				json_integer(o->delay_ms) : json_null(),
			 "tw_reuse", reuse, "keep_going", o->spec.keep_going,
			 "rounds", (json_int_t)o->rounds);
}

static json_t *round_json(const struct churn_opts *o, long round,
			  const struct churn_out *out, const struct churn_sum *s)
{
	const struct bl_churn_run *run = &out->run;
	struct bl_churn_verdict v;
	long seconds = run->total_ns / 1000000000ULL + 1;
	json_t *ps = json_array(), *sysctls;
	char range[32];
	long i;

	for (i = 0; i < seconds && i < run->seconds; i++)
		json_array_append_new(ps, json_integer(run->per_second[i]));
	/* Read inside the run's namespace: what was measured, not the host. */
	snprintf(range, sizeof(range), "%u %u", run->range_lo, run->range_hi);
	sysctls = json_pack("{s:s, s:I, s:b, s:I}",
			    "ip_local_port_range", range,
			    "tcp_tw_reuse_delay_ms", (json_int_t)out->delay_ms,
			    "tcp_tw_reuse_delay_sysctl", out->delay_sysctl,
			    "tcp_timestamps", (json_int_t)out->timestamps);
	bl_churn_regime(run, s->reuse, out->delay_ms, o->spec.rst, &v);
	return json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:o, s:I, s:I, s:I, s:s, s:s, s:o, s:o, s:o}",
			 "round", (json_int_t)round + 1,
			 "conns", (json_int_t)run->done,
			 "total_ns", (json_int_t)run->total_ns,
			 "conn_per_s", s->rate[round],
			 "connect_p50_ns", s->p50[round],
			 "connect_p99_ns", s->p99[round],
			 "failure_point", run->failure_point < 0 ? json_null() :
				json_integer(run->failure_point),
			 "failure_ns", (json_int_t)run->failure_ns,
			 "eaddrnotavail", (json_int_t)run->exhausted,
			 "second_parity", (json_int_t)run->second_parity,
			 "stop", bl_churn_stop_name(run->stop),
			 "regime", v.regime,
			 "sysctls", sysctls,
			 "per_second", ps,
			 "connect_ns", bl_u64_array_json(run->connect_ns,
							 run->done));
}

/* The case id of one tcp_tw_reuse value's result. */
static void churn_id(const struct churn_opts *o, int reuse, char *id,
		     size_t len)
{
	char range[32] = "", delay[32] = "";

	if (o->lo)
		snprintf(range, sizeof(range), ".range%ld-%ld", o->lo, o->hi);
	if (o->delay_ms)
		snprintf(delay, sizeof(delay), ".delay%ld", o->delay_ms);
	snprintf(id, len, "tw_churn.%s.%s.tw_reuse%d.n%ld%s%s%s",
		 bl_family_name(o->spec.family), o->spec.rst ? "rst" : "fin",
		 reuse, o->spec.n, range, delay,
		 o->spec.keep_going ? ".keep_going" : "");
}

static json_t *churn_case(const struct churn_opts *o, int reuse,
			  struct churn_out **outs, const struct churn_sum *s)
{
	json_t *root, *rounds = json_array(), *fail;
	char id[160];
	long r;

	churn_id(o, reuse, id, sizeof(id));
	root = bl_result_new("tw_churn", id);
	json_object_set_new(root, "params", churn_params(o, reuse));
	for (r = 0; r < o->rounds; r++)
		json_array_append_new(rounds, round_json(o, r, outs[r], s));
	json_object_set_new(root, "rounds", rounds);
	json_object_set_new(root, "metric",
			    bl_metric_json("conn_per_s", "conn/s", false,
					   s->rate, o->rounds));
	fail = s->nfail ? bl_stats_json(&s->fail_st) : json_null();
	json_object_set_new(root, "summary",
			    json_pack("{s:o, s:o, s:o, s:o, s:I, s:s, s:s, s:I, s:f, s:s}",
				      "conn_per_s", bl_stats_json(&s->rate_st),
				      "connect_p50_ns", bl_stats_json(&s->p50_st),
				      "connect_p99_ns", bl_stats_json(&s->p99_st),
				      "failure_point", fail,
				      "failed_rounds", (json_int_t)s->nfail,
				      "regime", s->verdict.regime,
				      "regime_why", s->verdict.why,
				      "port_capped_rounds", (json_int_t)s->capped,
				      "port_cap_conn_per_s", s->verdict.cap,
				      "port_cap_why", s->verdict.cap_why));
	return root;
}

/* One value: a result as bind_bench writes it; several: a run file. */
static int churn_json(const struct churn_opts *o, struct churn_out ***outs,
		      const struct churn_sum *sums)
{
	json_t *root, *cases = json_array();
	struct bl_why why = { "" };
	int v, err;

	for (v = 0; v < o->nreuse; v++)
		json_array_append_new(cases, churn_case(o, o->reuse[v],
							outs[v], &sums[v]));
	if (o->nreuse == 1) {
		root = json_incref(json_array_get(cases, 0));
		json_decref(cases);
	} else {
		root = json_pack("{s:s, s:i, s:s, s:o, s:o}",
				 "schema", BINDLAB_RUN_SCHEMA,
				 "schema_version", BINDLAB_SCHEMA_VERSION,
				 "harness_version", BINDLAB_VERSION,
				 "env", bl_env_json(), "cases", cases);
	}
	err = bl_json_save(root, o->json, &why);
	json_decref(root);
	if (err)
		fprintf(stderr, "%s: cannot write %s\n", prog, why.msg);
	return err;
}

static void churn_header(const struct churn_opts *o)
{
	char range[32] = "default", delay[32] = "default", list[16] = "";
	int v;

	if (o->lo)
		snprintf(range, sizeof(range), "%ld-%ld", o->lo, o->hi);
	if (o->delay_ms)
		snprintf(delay, sizeof(delay), "%ld", o->delay_ms);
	for (v = 0; v < o->nreuse; v++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%d", v ? "," : "", o->reuse[v]);
	printf("# %s%s %s\nfamily=%s n=%ld time_limit_s=%ld close=%s port_range=%s reuse_delay_ms=%s tw_reuse=%s keep_going=%s rounds=%ld\n",
	       prog, sub, BINDLAB_VERSION, bl_family_name(o->spec.family), o->spec.n,
	       o->time_s, o->spec.rst ? "rst" : "fin", range, delay, list,
	       o->spec.keep_going ? "yes" : "no", o->rounds);
}

/*
 * The command line, the destination and what the kernel must have, before
 * any work: -1 to go on, else the exit status.
 */
static int churn_start(struct churn_opts *o, int argc, char **argv)
{
	struct bl_why why = { "" };
	int ret = churn_parse(o, argc, argv, &why);
	int check, v;
	char id[160];

	if (ret > 0) {
		churn_usage(stdout);
		return BL_EXIT_PASS;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		churn_usage(stderr);
		return BL_EXIT_USAGE;
	}
	if (o->json && bl_out_check(o->json, &why)) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		return BL_EXIT_USAGE;
	}
	check = bl_check_args_only();
	for (v = 0; check == BL_CHECK_ID && v < o->nreuse; v++) {
		churn_id(o, o->reuse[v], id, sizeof(id));
		printf("%s\n", id);
	}
	if (check)
		return BL_EXIT_PASS;
	if (o->json && !strcmp(o->json, "-"))
		bl_stdout_machine();
	if (o->delay_ms && !bl_sysctl_exists(BL_SYSCTL_TW_DELAY)) {
		fprintf(stderr, "%s: SKIP: --reuse-delay needs net.ipv4.tcp_tw_reuse_delay (Linux 6.14+), which this kernel lacks\n",
			prog);
		return BL_EXIT_SKIP;
	}
	return -1;
}

/*
 * Every round of every value, interleaved; each run's results in a
 * mapping of size bytes shared with its child. 0, or the exit status.
 */
static int churn_rounds(const struct churn_opts *o, struct churn_out ***outs,
			size_t size)
{
	long r;
	int v, ret;

	for (r = 0; r < o->rounds; r++) {
		for (v = 0; v < o->nreuse; v++) {
			outs[v][r] = mmap(NULL, size, PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (outs[v][r] == MAP_FAILED) {
				fprintf(stderr, "%s: mmap: %s\n", prog,
					strerror(errno));
				return BL_EXIT_USAGE;
			}
			ret = churn_run(o, o->reuse[v], outs[v][r]);
			if (ret) {
				fprintf(stderr, "%s: %stcp_tw_reuse=%d round %ld: %s\n",
					prog, ret == BL_EXIT_SKIP ? "SKIP: " : "",
					o->reuse[v], r + 1, outs[v][r]->why);
				return ret;
			}
			if (!o->quiet)
				print_run(o, o->reuse[v], r + 1, outs[v][r]);
		}
	}
	return 0;
}

static int churn_main(int argc, char **argv)
{
	struct churn_out ***outs;
	struct churn_sum sums[3] = {};
	struct churn_opts o;
	size_t size;
	long r;
	int v, ret;

	ret = churn_start(&o, argc, argv);
	if (ret >= 0)
		return ret;
	size = churn_out_size(&o);
	outs = calloc(o.nreuse, sizeof(*outs));
	for (v = 0; outs && v < o.nreuse; v++)
		outs[v] = calloc(o.rounds, sizeof(**outs));
	if (!outs || !outs[o.nreuse - 1]) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return BL_EXIT_USAGE;
	}
	if (!o.quiet)
		churn_header(&o);

	ret = churn_rounds(&o, outs, size);
	if (ret)
		return ret;
	for (v = 0; v < o.nreuse; v++) {
		if (churn_summarize(&o, o.reuse[v], outs[v], &sums[v])) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return BL_EXIT_USAGE;
		}
		print_sum(&o, &sums[v]);
	}
	/* The machine's error (a full disk, EFBIG), never a kernel verdict. */
	if (o.json && churn_json(&o, outs, sums))
		ret = BL_EXIT_USAGE;
	for (v = 0; v < o.nreuse; v++) {
		churn_sum_free(&sums[v]);
		for (r = 0; r < o.rounds; r++)
			munmap(outs[v][r], size);
		free(outs[v]);
	}
	free(outs);
	return ret;
}

int main(int argc, char **argv)
{
	prog = basename(argv[0]);
	if (strcmp(prog, "bind_churn") && argc > 1 &&
	    !strcmp(argv[1], "churn")) {
		sub = " churn";
		argc--;
		argv++;
	}
	bl_stdio_guard();
	/* A file size limit is a write error (EFBIG), not a SIGXFSZ death. */
	signal(SIGXFSZ, SIG_IGN);
	return churn_main(argc, argv);
}
