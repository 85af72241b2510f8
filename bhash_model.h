/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One oracle: every hand-written row of bind_conflict and bind_addr is
 * also judged by the model of the bind rules (lib/bind_model.c, which
 * bind_model_test holds against the kernel), as the test ROW.model. A
 * row and the model can then never disagree unnoticed: either the row
 * states a fact the model has wrong, or the row itself is wrong. Pure:
 * no socket is made. Included by bind_bhash_test.c only.
 */
#ifndef BHASH_MODEL_H
#define BHASH_MODEL_H

#include "bhash_sockets.h"
#include "bind_model.h"

/* The row's address (and V6ONLY) as one of the model's addresses. */
static int model_addr(const struct sk_spec *s)
{
	bool v6only;
	int a;

	for (a = 0; a < BM_NR_ADDRS; a++)
		if (!strcmp(bm_addr_host(a, &v6only), s->addr) &&
		    v6only == !!(s->opts & V6ONLY))
			return a;
	return -1;
}

/*
 * Bind the row's socket in the model: its result (0 or an errno), or -1
 * when the model has no such address. A socket bound by connect() and
 * an accepted child weigh as a bound one in the bind table (see
 * bhash_conflict_rows.h), so they are binds here too.
 */
static int model_bind(struct bm_port *p, const struct sk_spec *s,
		      unsigned int more_opts, bool port0, struct bm_why *why)
{
	static const enum bm_dev devs[] = {
		[DEV_NONE] = BM_DEV_NONE, [DEV_LO] = BM_DEV_LO,
		[DEV_OTHER] = BM_DEV_OTHER,
	};
	unsigned int opts = s->opts | more_opts;
	struct bm_op op = { .kind = BM_OP_BIND };
	int a = model_addr(s);

	if (a < 0 || !bm_op_valid(p, &op))
		return -1;
	op.addr = a;
	op.opts.reuse = (opts & RA ? BM_RA : 0) | (opts & RP ? BM_RP : 0);
	op.opts.other_uid = s->other_uid;
	op.opts.dev = devs[s->dev];
	op.opts.port0 = s->port0 || port0;
	return -bm_step(p, &op, why);
}

/* A later operation on the k-th bound socket: listen() or TIME_WAIT. */
static int model_op(struct bm_port *p, enum bm_op_kind kind, int k,
		    struct bm_why *why)
{
	struct bm_op op = { .kind = kind, .sk = k };

	if (!bm_op_valid(p, &op))
		return -1;
	return -bm_step(p, &op, why);
}

/* The row says want, the model says got: they must agree. */
static void model_agrees(struct __test_metadata *_metadata, const char *what,
			 int want, int got, const struct bm_why *why)
{
	char rules[160];

	EXPECT_EQ(want, got)
		TH_LOG("%s: the row expects %s, the model says %s (rules: %s)",
		       what, bl_errname(want),
		       got < 0 ? "nothing (it cannot express this step)" :
		       bl_errname(got),
		       bm_rules_str(why->rules, rules, sizeof(rules)));
}

/* The harness's way: _metadata is the test's. */
#define MODEL_AGREES(what, want, got, why)				\
	model_agrees(_metadata, what, want, got, why)

/*
 * A's state, in the model: bound, then listening or in TIME_WAIT. A child
 * holds the address its connection came to: a wildcard listener's, the
 * loopback address that a_child() connects to.
 */
static int model_a(struct bm_port *p, enum a_state state,
		   const struct sk_spec *a, struct bm_why *why)
{
	static const char * const any_lo[][2] = {
		{ V4_ANY, V4_LO }, { V6_ANY, V6_LO }, { V4M_ANY, V4M_LO },
	};
	struct sk_spec at = *a;
	size_t i;
	int err;

	for (i = 0; state == A_CHILD && i < ARRAY_SIZE(any_lo); i++)
		if (!strcmp(a->addr, any_lo[i][0]))
			at.addr = any_lo[i][1];
	err = model_bind(p, &at, 0, false, why);

	if (err)
		return err;
	if (state == A_LISTEN)
		return model_op(p, BM_OP_LISTEN, 0, why);
	if (state == A_TIME_WAIT)
		return model_op(p, BM_OP_TW, 0, why);
	return 0;
}

#endif /* BHASH_MODEL_H */
