// SPDX-License-Identifier: GPL-2.0
/*
 * bind_model_test: the whole bind table of a port, judged after every
 * step against a model of the rules (lib/bind_model.c).
 *
 * A sequence is up to a few steps on one port: bind a new socket with
 * options to one of the canonical addresses, listen, close, leave a
 * socket in TIME_WAIT. Each step's result is compared with the model's,
 * and after each step a probe sweep binds a fresh socket to every
 * address with every reuse option (and closes it), as bind_wildcard.c
 * does after its pair: that judges the state the steps left behind.
 *
 *  bind_model.ADDR.exhaustive  every sequence of up to BINDLAB_MODEL_DEPTH
 *                              (3; 1 under KSFT_MACHINE_SLOW) steps over
 *                              the eight addresses and
 *                              four reuse options, with listen, close
 *                              and TIME_WAIT of each socket; the first
 *                              step also to port 0 (then 2 steps)
 *  bind_model.ADDR.random      longer random sequences (fixed, printed
 *                              seed) with uids and bound devices too
 *                              (BINDLAB_MODEL_RANDOM: 200; 40 under
 *                              KSFT_MACHINE_SLOW)
 *  model_rows.RULE.kernel      the rows that show RULE, in the kernel,
 *                              probed after the last step, then after each
 *  model_rules.RULE.needed     the model without RULE fails a row
 *  known_bug.BUG.kernel        the shortest sequence of a kernel bug the
 *                              model found (XFAIL while the kernel has it)
 *  known_bug.BUG.explained     its disagreements are all that bug's
 *  model_upstream.bind_wildcard.agrees
 *                              the model against every expectation of
 *                              the 6.12 tree's bind_wildcard.c
 *
 * ADDR is the address of the socket a check binds (a bind step, or a
 * probe; a listen step checks the listening socket's): one kernel bug
 * fails the test of the address it breaks. Each run of a test prints one
 * line per distinct disagreement, with its count and its shortest
 * sequence, in the grammar that BINDLAB_MODEL_SEQ reads back; one that
 * does not come back when that sequence is replayed is transient and
 * does not fail (judge_replay()).
 *
 * Every sequence has a port of its own, in the test's own namespace.
 */
#include "model_sequences.h"

/* ---- bind_model: the kernel against the model ---- */

FIXTURE(bind_model)
{
	struct judge *j;
};

FIXTURE_VARIANT(bind_model)
{
	enum bm_addr addr;
};

FIXTURE_VARIANT_ADD(bind_model, v4_any) { .addr = BM_V4_ANY };
FIXTURE_VARIANT_ADD(bind_model, v4_local) { .addr = BM_V4_LO };
FIXTURE_VARIANT_ADD(bind_model, v4_local2) { .addr = BM_V4_LO2 };
FIXTURE_VARIANT_ADD(bind_model, v6_any) { .addr = BM_V6_ANY };
FIXTURE_VARIANT_ADD(bind_model, v6_any_only) { .addr = BM_V6_ANY_ONLY };
FIXTURE_VARIANT_ADD(bind_model, v6_local) { .addr = BM_V6_LO };
FIXTURE_VARIANT_ADD(bind_model, v6_v4mapped_any) { .addr = BM_V4M_ANY };
FIXTURE_VARIANT_ADD(bind_model, v6_v4mapped_local) { .addr = BM_V4M_LO };

/* A judge for the test md, of the probes of address only (all: BM_NR_ADDRS). */
static struct judge *judge_new(struct __test_metadata *md, int only)
{
	struct judge *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->md = md;
	j->only = only;
	j->drop = env_drop();
	return j;
}

FIXTURE_SETUP(bind_model)
{
	struct bl_why why = { "" };
	const char *reason;

	self->j = judge_new(_metadata, variant->addr);
	ASSERT_NE(NULL, self->j);
	self->j->list = env_long("BINDLAB_MODEL_LIST", 0, 0, 1);
	reason = judge_setup(self->j, &why);
	if (reason)
		SKIP(return, "%s", reason);
}

FIXTURE_TEARDOWN(bind_model)
{
	free(self->j);
}

/*
 * A debug kernel under TCG (KSFT_MACHINE_SLOW) runs the program some 100x
 * slower than the host: depth 2 and 200 random sequences alone took
 * longer than settings' 300 s there. Depth 1 (every single step, probed)
 * and 40 random sequences cost about an eighth of that, and the random
 * sequences still find the known kernel bugs of every ADDR (XFAIL).
 */
#define MODEL_DEPTH		3
#define MODEL_DEPTH_SLOW	1
#define MODEL_RANDOM		200
#define MODEL_RANDOM_SLOW	40

TEST_F_TIMEOUT(bind_model, exhaustive, 280)
{
	int depth = env_long("BINDLAB_MODEL_DEPTH", bl_machine_slow() ?
			     MODEL_DEPTH_SLOW : MODEL_DEPTH, 1, 4);
	struct bm_port p;
	struct seq s = { .n = 0 };

	if (env_set("BINDLAB_MODEL_SEQ")) {
		/* One sequence, e.g. a shortest one from a report. */
		s.n = bm_seq_parse(getenv("BINDLAB_MODEL_SEQ"), s.op, MAX_STEPS);
		ASSERT_LT(0, s.n) TH_LOG("BINDLAB_MODEL_SEQ: cannot parse");
		run_seq(self->j, &s, true);
		judge_verdict(_metadata, variant, self->j);
		return;
	}
	BL_NOTE("every sequence of up to %d steps, probes of %s", depth,
		bm_addr_name(variant->addr));
	bm_port_init(&p, self->j->drop);
	run_seq(self->j, &s, false);	/* the empty port */
	exhaust(self->j, &s, &p, depth);
	judge_verdict(_metadata, variant, self->j);
}

TEST_F_TIMEOUT(bind_model, random, 280)
{
	long n = env_long("BINDLAB_MODEL_RANDOM", bl_machine_slow() ?
			  MODEL_RANDOM_SLOW : MODEL_RANDOM, 0, 1000000), i;
	uint32_t seed = env_long("BINDLAB_MODEL_SEED", RANDOM_SEED, 1,
				 UINT32_MAX), rnd = seed;
	struct seq s;

	BL_NOTE("%ld random sequences of 4 to %d steps, seed %u (BINDLAB_MODEL_SEED)",
		n, MAX_STEPS, seed);
	self->j->probe_all_opts = true;
	for (i = 0; i < n; i++) {
		random_seq(&s, &rnd, 4 + next_rand(&rnd) % (MAX_STEPS - 3),
			   self->j->drop);
		run_seq(self->j, &s, true);
	}
	judge_verdict(_metadata, variant, self->j);
}

/* ---- the rules, one row each (at least) ---- */

struct rule_row {
	enum bm_rule rule;
	const char *seq;	/* bm_seq_parse() grammar */
	int err;		/* the last step's result, by the rule */
};

/*
 * What each rule says, in the fewest steps; with the rule dropped, the
 * model gives another answer for at least one of its rows.
 */
static const struct rule_row rows[] = {
	{ BM_R_REUSEADDR, "bind v4_local reuseaddr; bind v4_local reuseaddr", 0 },
	{ BM_R_REUSEADDR_LISTEN, "bind v4_local reuseaddr; listen #0; bind v4_local reuseaddr",
	  EADDRINUSE },
	{ BM_R_REUSEPORT, "bind v6_local reuseport; bind v6_local reuseport", 0 },
	{ BM_R_REUSEPORT_UID, "bind v4_local reuseport; bind v4_local reuseport uid1", EADDRINUSE },
	{ BM_R_TW_ANY_UID, "bind v4_local reuseport; time_wait #0; bind v4_local reuseport uid1",
	  0 },
	{ BM_R_REUSEPORT_GROUP, "bind v4_local reuseport; bind v4_local reuseport group",
	  EADDRINUSE },
	{ BM_R_DEV, "bind v4_local plain dev_lo; bind v4_local plain dev_other", 0 },
	{ BM_R_V4_SPECIFIC, "bind v4_local plain; bind v4_local2 plain", 0 },
	{ BM_R_V4_WILDCARD, "bind v4_any plain; bind v4_local2 plain", EADDRINUSE },
	{ BM_R_MAPPED_IS_V4, "bind v4_local plain; bind v6_v4mapped_local plain",
	  EADDRINUSE },
	{ BM_R_V6_WILDCARD, "bind v6_any_only plain; bind v6_local plain",
	  EADDRINUSE },
	{ BM_R_DUAL_STACK, "bind v6_any plain; bind v4_local plain", EADDRINUSE },
	{ BM_R_V6ONLY, "bind v6_any_only plain; bind v4_any plain", 0 },
	{ BM_R_FAMILY, "bind v4_any plain; bind v6_local plain", 0 },
	{ BM_R_LISTEN_CHECK,
	  "bind v4_local reuseaddr; bind v4_local reuseaddr; listen #0; listen #1",
	  EADDRINUSE },
	{ BM_R_CLOSE, "bind v4_local plain; close #0; bind v4_local plain", 0 },
	{ BM_R_TW_HOLDS, "bind v4_local plain; time_wait #0; bind v4_local plain",
	  EADDRINUSE },
	{ BM_R_TW_SADDR, "bind v4_any plain; time_wait #0; bind v4_local2 plain",
	  0 },
	{ BM_R_V6_DEV_ADDR, "bind v6_local plain dev_other", EADDRNOTAVAIL },
	{ BM_R_PORT0, "bind v4_local reuseaddr; bind v4_local reuseaddr port0", EADDRINUSE },
};

/* The model's answer to the last step of text; -EINVAL: bad row. */
static int model_last(const char *text, unsigned int drop)
{
	struct bm_op ops[MAX_STEPS];
	struct bm_port p;
	struct bm_why why;
	int n, i, err = -EINVAL;

	n = bm_seq_parse(text, ops, MAX_STEPS);
	bm_port_init(&p, drop);
	for (i = 0; i < n; i++) {
		if (!bm_op_valid(&p, &ops[i]))
			return -EINVAL;
		err = -bm_step(&p, &ops[i], &why);
	}
	return err;
}

FIXTURE(model_rules) {};
FIXTURE_VARIANT(model_rules) { enum bm_rule rule; };
FIXTURE_SETUP(model_rules) {}
FIXTURE_TEARDOWN(model_rules) {}

FIXTURE_VARIANT_ADD(model_rules, reuseaddr) { .rule = BM_R_REUSEADDR };
FIXTURE_VARIANT_ADD(model_rules, reuseaddr_not_listener) { .rule = BM_R_REUSEADDR_LISTEN };
FIXTURE_VARIANT_ADD(model_rules, reuseport) { .rule = BM_R_REUSEPORT };
FIXTURE_VARIANT_ADD(model_rules, reuseport_same_uid) { .rule = BM_R_REUSEPORT_UID };
FIXTURE_VARIANT_ADD(model_rules, reuseport_tw_any_uid) { .rule = BM_R_TW_ANY_UID };
FIXTURE_VARIANT_ADD(model_rules, reuseport_own_group) { .rule = BM_R_REUSEPORT_GROUP };
FIXTURE_VARIANT_ADD(model_rules, bound_dev) { .rule = BM_R_DEV };
FIXTURE_VARIANT_ADD(model_rules, v4_specific) { .rule = BM_R_V4_SPECIFIC };
FIXTURE_VARIANT_ADD(model_rules, v4_wildcard) { .rule = BM_R_V4_WILDCARD };
FIXTURE_VARIANT_ADD(model_rules, v6_v4mapped_is_v4) { .rule = BM_R_MAPPED_IS_V4 };
FIXTURE_VARIANT_ADD(model_rules, v6_wildcard) { .rule = BM_R_V6_WILDCARD };
FIXTURE_VARIANT_ADD(model_rules, v6_wildcard_dual_stack) { .rule = BM_R_DUAL_STACK };
FIXTURE_VARIANT_ADD(model_rules, v6only) { .rule = BM_R_V6ONLY };
FIXTURE_VARIANT_ADD(model_rules, v4_wildcard_not_v6) { .rule = BM_R_FAMILY };
FIXTURE_VARIANT_ADD(model_rules, listen_checks) { .rule = BM_R_LISTEN_CHECK };
FIXTURE_VARIANT_ADD(model_rules, close_frees) { .rule = BM_R_CLOSE };
FIXTURE_VARIANT_ADD(model_rules, tw_holds) { .rule = BM_R_TW_HOLDS };
FIXTURE_VARIANT_ADD(model_rules, tw_saddr) { .rule = BM_R_TW_SADDR };
FIXTURE_VARIANT_ADD(model_rules, v6_addr_on_dev) { .rule = BM_R_V6_DEV_ADDR };
FIXTURE_VARIANT_ADD(model_rules, port0_strict) { .rule = BM_R_PORT0 };

/*
 * Every row holds in the whole model; without the variant's rule at
 * least one row of that rule fails, and the rows that fail are named.
 */
TEST_F(model_rules, needed)
{
	unsigned int drop = 1U << variant->rule;
	int i, got, failed = 0;

	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		ASSERT_EQ(rows[i].err, model_last(rows[i].seq, 0))
			TH_LOG("row %d (%s) does not hold: %s", i,
			       bm_rule_name(rows[i].rule), rows[i].seq);
		got = model_last(rows[i].seq, drop);
		if (got == rows[i].err)
			continue;
		failed += rows[i].rule == variant->rule;
		BL_NOTE("without %s, row %d fails: %s => %s, model says %s",
			bm_rule_name(variant->rule), i, rows[i].seq,
			step_errname(rows[i].err), step_errname(got));
	}
	EXPECT_LT(0, failed)
		TH_LOG("no row of %s fails without it",
		       bm_rule_name(variant->rule));
}

/* ---- model_rows: the same rows, in the kernel ---- */

FIXTURE(model_rows)
{
	struct judge *j;
};

FIXTURE_VARIANT(model_rows) { enum bm_rule rule; };

FIXTURE_VARIANT_ADD(model_rows, reuseaddr) { .rule = BM_R_REUSEADDR };
FIXTURE_VARIANT_ADD(model_rows, reuseaddr_not_listener) { .rule = BM_R_REUSEADDR_LISTEN };
FIXTURE_VARIANT_ADD(model_rows, reuseport) { .rule = BM_R_REUSEPORT };
FIXTURE_VARIANT_ADD(model_rows, reuseport_same_uid) { .rule = BM_R_REUSEPORT_UID };
FIXTURE_VARIANT_ADD(model_rows, reuseport_tw_any_uid) { .rule = BM_R_TW_ANY_UID };
FIXTURE_VARIANT_ADD(model_rows, reuseport_own_group) { .rule = BM_R_REUSEPORT_GROUP };
FIXTURE_VARIANT_ADD(model_rows, bound_dev) { .rule = BM_R_DEV };
FIXTURE_VARIANT_ADD(model_rows, v4_specific) { .rule = BM_R_V4_SPECIFIC };
FIXTURE_VARIANT_ADD(model_rows, v4_wildcard) { .rule = BM_R_V4_WILDCARD };
FIXTURE_VARIANT_ADD(model_rows, v6_v4mapped_is_v4) { .rule = BM_R_MAPPED_IS_V4 };
FIXTURE_VARIANT_ADD(model_rows, v6_wildcard) { .rule = BM_R_V6_WILDCARD };
FIXTURE_VARIANT_ADD(model_rows, v6_wildcard_dual_stack) { .rule = BM_R_DUAL_STACK };
FIXTURE_VARIANT_ADD(model_rows, v6only) { .rule = BM_R_V6ONLY };
FIXTURE_VARIANT_ADD(model_rows, v4_wildcard_not_v6) { .rule = BM_R_FAMILY };
FIXTURE_VARIANT_ADD(model_rows, listen_checks) { .rule = BM_R_LISTEN_CHECK };
FIXTURE_VARIANT_ADD(model_rows, close_frees) { .rule = BM_R_CLOSE };
FIXTURE_VARIANT_ADD(model_rows, tw_holds) { .rule = BM_R_TW_HOLDS };
FIXTURE_VARIANT_ADD(model_rows, tw_saddr) { .rule = BM_R_TW_SADDR };
FIXTURE_VARIANT_ADD(model_rows, v6_addr_on_dev) { .rule = BM_R_V6_DEV_ADDR };
FIXTURE_VARIANT_ADD(model_rows, port0_strict) { .rule = BM_R_PORT0 };

FIXTURE_SETUP(model_rows)
{
	struct bl_why why = { "" };
	const char *reason;

	self->j = judge_new(_metadata, BM_NR_ADDRS);
	ASSERT_NE(NULL, self->j);
	self->j->probe_all_opts = true;
	reason = judge_setup(self->j, &why);
	if (reason)
		SKIP(return, "%s", reason);
}

FIXTURE_TEARDOWN(model_rows)
{
	free(self->j);
}

/*
 * The rule's rows step by step: once probed after the last step only, so
 * that no probe can leave a stale fast path (fastreuseport_stale) for a
 * step to be excused by, then on a new port probed after every step.
 */
TEST_F(model_rows, kernel)
{
	struct seq s;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		if (rows[i].rule != variant->rule)
			continue;
		s.n = bm_seq_parse(rows[i].seq, s.op, MAX_STEPS);
		ASSERT_LT(0, s.n);
		run_seq(self->j, &s, false);
		run_seq(self->j, &s, true);
	}
	judge_verdict(_metadata, variant, self->j);
}

/* ---- known_bug: the kernel bugs this model found, two tests each ---- */

/*
 * The shortest sequence of each bug documented at known_bug() in
 * model_judge.h. Every other test reports these disagreements by the
 * bug's name and does not fail on them.
 *
 *  known_bug.BUG.kernel     the sequence, probed after its last step: the
 *                           kernel must agree with the model, so it fails
 *                           while the kernel has the bug (XFAIL, declared
 *                           below) and passes (XPASS) once it is fixed
 *  known_bug.BUG.explained  the same run: each disagreement it shows must
 *                           be this bug's, by its exact signature. Not
 *                           declared XFAIL: a regression of another shape
 *                           in the bug's own sequence fails here, where
 *                           XFAIL_ADD turns any failure of .kernel into an
 *                           XFAIL.
 *
 * Not probed after every step: a probe that binds can replace the stale
 * fast path entry (fastreuseport_stale), and the bug would not show.
 */
FIXTURE(known_bug)
{
	struct judge *j;
	char cannot_run[256];	/* why the sequence cannot run here */
};

FIXTURE_VARIANT(known_bug)
{
	const char *bug;	/* as known_bug() names it */
	const char *seq;
};

FIXTURE_VARIANT_ADD(known_bug, fastreuseport_stale)
{
	.bug = "fastreuseport_stale",
	.seq = "bind v4_any reuseaddr; bind v4_any reuseaddr+reuseport; bind v4_any reuseport",
};

FIXTURE_VARIANT_ADD(known_bug, tw_v6_blocks_v4_any)
{
	.bug = "tw_v6_blocks_v4_any",
	.seq = "bind v6_any plain; time_wait #0",
};

FIXTURE_SETUP(known_bug)
{
	struct bl_why why = { "" };
	const char *reason;

	self->j = judge_new(_metadata, BM_NR_ADDRS);
	ASSERT_NE(NULL, self->j);
	/*
	 * No SKIP here: the harness reports a skipped XFAIL_ADD test as
	 * XPASS, which would read "the kernel fixed this bug". Each test
	 * says instead (.kernel fails, hence XFAIL; .explained SKIPs).
	 */
	reason = judge_setup(self->j, &why);
	snprintf(self->cannot_run, sizeof(self->cannot_run), "%s",
		 reason ?: "");
}

FIXTURE_TEARDOWN(known_bug)
{
	free(self->j);
}

TEST_F(known_bug, kernel)
{
	struct seq s;

	ASSERT_EQ(0, self->cannot_run[0])
		TH_LOG("cannot run the sequence: %s", self->cannot_run);
	s.n = bm_seq_parse(variant->seq, s.op, MAX_STEPS);
	ASSERT_LT(0, s.n);
	run_seq(self->j, &s, false);
	judge_report(self->j);
	ASSERT_EQ(0, self->j->harness_errors);
	/*
	 * Both outcomes name the bug: the XFAIL says which known bug the
	 * kernel has, the XPASS that it fixed one; a reader of the KTAP
	 * finds the bug's report by that name.
	 */
	ASSERT_EQ(0, self->j->ngrp)
		TH_LOG("the kernel has known bug %s", variant->bug);
	TH_LOG("this kernel fixed known bug %s", variant->bug);
}

TEST_F(known_bug, explained)
{
	struct seq s;
	int i;

	if (self->cannot_run[0])
		SKIP(return, "%s", self->cannot_run);
	s.n = bm_seq_parse(variant->seq, s.op, MAX_STEPS);
	ASSERT_LT(0, s.n);
	run_seq(self->j, &s, false);
	judge_report(self->j);
	ASSERT_EQ(0, self->j->harness_errors);
	ASSERT_EQ(0, self->j->lost);
	/* Braces: EXPECT_STREQ() is two statements, its TH_LOG the second. */
	for (i = 0; i < self->j->ngrp; i++) {
		EXPECT_STREQ(variant->bug, self->j->grp[i].bug ?: "none")
			TH_LOG("not %s's signature: %s", variant->bug,
			       self->j->grp[i].sig);
	}
}

/*
 * No fix is merged for either: they fail on every kernel released so far.
 * With the proposed patches of kernel/bugs/ they XPASS, which the
 * harness counts as a pass: tests/known_bugs.awk reports it.
 */
XFAIL_ADD(known_bug, fastreuseport_stale, kernel);
XFAIL_ADD(known_bug, tw_v6_blocks_v4_any, kernel);

/* ---- model_upstream: bind_wildcard.c's expectations, read at run time ---- */

#include "model_upstream.h"

FIXTURE(model_upstream) {};
FIXTURE_SETUP(model_upstream) {}
FIXTURE_TEARDOWN(model_upstream) {}

TEST_F(model_upstream, bind_wildcard)
{
	static const struct { const char *name; unsigned int reuse; } tests[] = {
		{ "plain", 0 }, { "reuseaddr", BM_RA }, { "reuseport", BM_RP },
	};
	static char text[1 << 17];
	struct wildcard_variant v;
	int nvar = 0, missed = 0;
	char path[512];
	const char *s;
	size_t i, len;
	FILE *f;

	f = upstream_open(path, sizeof(path));
	ASSERT_TRUE(f || !env_set("BINDLAB_BIND_WILDCARD"))
		TH_LOG("BINDLAB_BIND_WILDCARD: cannot read %s", path);
	if (!f)
		SKIP(return, "no %s (BINDLAB_BIND_WILDCARD names it)", path);
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	/* Read whole or refused: a cut file would pass on fewer rows. */
	ASSERT_GT(sizeof(text), len)
		TH_LOG("%s: larger than %zu bytes", path, sizeof(text) - 1);
	text[len] = '\0';
	for (s = strstr(text, "FIXTURE_VARIANT_ADD(bind_wildcard,"); s;
	     s = strstr(s + 1, "FIXTURE_VARIANT_ADD(bind_wildcard,")) {
		const char *end = strstr(s, "\n};");
		char block[2048];

		ASSERT_NE(NULL, end);
		snprintf(block, sizeof(block), "%.*s", (int)(end - s), s);
		ASSERT_EQ(0, wildcard_parse(block, &v))
			TH_LOG("%s: cannot read the variant at offset %zd",
			       path, s - text);
		for (i = 0; i < ARRAY_SIZE(tests); i++)
			missed += wildcard_replay(&v, tests[i].reuse,
						  tests[i].name);
		nvar++;
	}
	BL_NOTE("%s: %d variants, %d expectations, %d missed by the model",
		path, nvar, nvar * (int)ARRAY_SIZE(tests) * NR_WILDCARD, missed);
	ASSERT_LT(0, nvar);
	EXPECT_EQ(0, missed);
}

TEST_HARNESS_MAIN
