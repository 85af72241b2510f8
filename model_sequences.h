/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind_model_test's sequences: one run in the kernel and in the model
 * step by step, every sequence of an alphabet up to a depth or random
 * ones, and the judge's setup and verdict. Included by bind_model_test.c
 * only, after model_judge.h.
 */
#ifndef MODEL_SEQUENCES_H
#define MODEL_SEQUENCES_H

#include <sys/utsname.h>

#include "model_judge.h"

/* ---- one sequence in the kernel and in the model ---- */

/* Probe every address the test judges with every option; close each. */
static void probe_sweep(struct judge *j, const struct seq *s, int n,
			const struct bm_port *p)
{
	int nopt = j->probe_all_opts ? BM_NR_REUSE * 4 : BM_NR_REUSE;
	struct bm_why why;
	char check[96], o[48];
	int a, i, fd, got, want;

	for (a = 0; a < BM_NR_ADDRS; a++) {
		if (j->only != BM_NR_ADDRS && a != j->only)
			continue;
		for (i = 0; i < nopt; i++) {
			struct bm_opts opts = {
				.reuse = i % BM_NR_REUSE,
				.other_uid = i / BM_NR_REUSE == 1,
				.dev = i / BM_NR_REUSE < 2 ? BM_DEV_NONE :
				       i / BM_NR_REUSE - 1,
			};

			want = -bm_probe(p, a, &opts, &why);
			got = k_bind(a, &opts, j->port, &fd);
			if (fd >= 0)
				close(fd);
			if (got < 0) {
				j->harness_errors++;
				continue;
			}
			snprintf(check, sizeof(check), "probe %s %s",
				 bm_addr_name(a), bm_opts_str(&opts, o, sizeof(o)));
			judge_one(j, s, n, check, a, p, &why, got, want);
			note_bound(j, p, check, got);
		}
	}
}

/*
 * One step in the kernel; a bind's socket goes to fds[p->n]. 0, an
 * errno, or -errno when the harness itself failed.
 */
static int k_step(struct judge *j, const struct bm_op *op,
		  const struct bm_port *p, int *fds, int *tw)
{
	int err;

	switch (op->kind) {
	case BM_OP_BIND:
		return k_bind(op->addr, &op->opts, j->port, &fds[p->n]);
	case BM_OP_LISTEN:
		return listen(fds[op->sk], 8) ? errno : 0;
	case BM_OP_CLOSE:
		close(fds[op->sk]);
		fds[op->sk] = -1;
		return 0;
	case BM_OP_TW:
		err = k_time_wait(j, fds[op->sk], p->sk[op->sk].addr, (*tw)++);
		fds[op->sk] = -1;
		return err;
	}
	return -EINVAL;
}

/* The address a step's check binds: the new or the listening socket. */
static enum bm_addr step_addr(const struct bm_op *op, const struct bm_port *p)
{
	return op->kind == BM_OP_BIND ? op->addr : p->sk[op->sk].addr;
}

/*
 * Run s on a port of its own: each step, then a probe sweep (after
 * every step, or only after the last when the caller runs every prefix
 * as a sequence of its own). A step the kernel answers otherwise than
 * the model leaves the two tables apart: the rest is not judged.
 */
static void run_seq(struct judge *j, const struct seq *s, bool every_step)
{
	int fds[BM_MAX_SOCKS], i, tw = 0, got, want;
	struct bm_port p;
	struct bm_why why;
	char check[96];

	bm_port_init(&p, j->drop);
	memset(&j->kb, 0, sizeof(j->kb));
	j->seq_failed = false;
	j->port = PORT_FIRST + j->seqs++ % (PORT_LAST - PORT_FIRST + 1);
	for (i = 0; i < BM_MAX_SOCKS; i++)
		fds[i] = -1;
	for (i = 0; i < s->n; i++) {
		struct bm_port before = p;
		enum bm_addr addr = step_addr(&s->op[i], &p);

		if (s->op[i].kind == BM_OP_TW && p.sk[s->op[i].sk].addr == BM_V6_ANY)
			j->kb.tw_v6_any |= 1U << s->op[i].sk;
		got = k_step(j, &s->op[i], &p, fds, &tw);
		want = -bm_step(&p, &s->op[i], &why);
		if (got < 0) {
			j->harness_errors++;
			BL_NOTE("harness: step %d of port %d: %s", i, j->port,
				strerror(-got));
			break;
		}
		if (s->op[i].kind == BM_OP_BIND || s->op[i].kind == BM_OP_LISTEN) {
			bm_op_str(&s->op[i], check, sizeof(check));
			judge_one(j, s, i, check, addr, &before, &why, got, want);
		}
		if (s->op[i].kind == BM_OP_BIND || s->op[i].kind == BM_OP_LISTEN)
			note_bound(j, &before, check, got);
		if (got != want)
			break;
		if (every_step || i == s->n - 1)
			probe_sweep(j, s, i + 1, &p);
	}
	for (i = 0; i < BM_MAX_SOCKS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ---- sequences ---- */

/* The steps that may follow on p: every bind, and each socket's states. */
static int alphabet(const struct bm_port *p, bool wide, bool port0,
		    struct bm_op *ops, int max)
{
	int a, r, x, i, n = 0, nx = wide ? 12 : port0 ? 2 : 1;
	struct bm_op op;

	for (a = 0; a < BM_NR_ADDRS; a++)
		for (r = 0; r < BM_NR_REUSE; r++)
			for (x = 0; x < nx && n < max; x++) {
				memset(&op, 0, sizeof(op));
				op.kind = BM_OP_BIND;
				op.addr = a;
				op.opts.reuse = r;
				op.opts.port0 = nx == 2 ? x : x / 6;
				op.opts.other_uid = nx == 2 ? 0 : x & 1;
				op.opts.dev = nx == 2 ? 0 : x % 6 / 2;
				ops[n++] = op;
			}
	for (i = 0; i < p->n; i++)
		for (op.kind = BM_OP_LISTEN; op.kind <= BM_OP_TW; op.kind++) {
			op.sk = i;
			if (n < max && bm_op_valid(p, &op))
				ops[n++] = op;
		}
	return n;
}

#define NR_WIDE_BINDS	(BM_NR_ADDRS * BM_NR_REUSE * 12)
#define MAX_ALPHABET	(NR_WIDE_BINDS + 3 * BM_MAX_SOCKS)
#define PORT0_DEPTH	2	/* sequences that begin with a port 0 bind */

/*
 * Every sequence of up to depth steps that extends s, depth first. The
 * first step may also bind to port 0, as bind_wildcard's first socket
 * does; those sequences go to PORT0_DEPTH steps.
 */
static void exhaust(struct judge *j, struct seq *s, const struct bm_port *p,
		    int depth)
{
	struct bm_op ops[MAX_ALPHABET];
	struct bm_why why;
	int i, n;

	if (s->n >= depth)
		return;
	n = alphabet(p, false, !s->n, ops, MAX_ALPHABET);
	for (i = 0; i < n; i++) {
		struct bm_port next = *p;

		s->op[s->n++] = ops[i];
		bm_step(&next, &ops[i], &why);
		run_seq(j, s, false);
		exhaust(j, s, &next, s->op[0].opts.port0 &&
			depth > PORT0_DEPTH ? PORT0_DEPTH : depth);
		s->n--;
	}
}

/* xorshift32: the same sequences from the same seed, everywhere. */
static uint32_t next_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void random_seq(struct seq *s, uint32_t *rnd, int len, unsigned int drop)
{
	struct bm_op ops[MAX_ALPHABET];
	struct bm_port p;
	struct bm_why why;
	int n;

	bm_port_init(&p, drop);
	for (s->n = 0; s->n < len; s->n++) {
		n = alphabet(&p, true, false, ops, MAX_ALPHABET);
		/* Half the steps act on sockets when there are any. */
		if (n > NR_WIDE_BINDS && next_rand(rnd) & 1)
			s->op[s->n] = ops[NR_WIDE_BINDS + next_rand(rnd) %
					  (n - NR_WIDE_BINDS)];
		else
			s->op[s->n] = ops[next_rand(rnd) % NR_WIDE_BINDS];
		bm_step(&p, &s->op[s->n], &why);
	}
}

/* ---- setup and the verdict ---- */

/*
 * The environment bind_model_test reads, all of it checked before the
 * harness starts (model_env_check()): a value the tests could only guess
 * at stops the program with one line, exit 2, rather than run another
 * set of sequences than the one asked for. Empty is the same as unset.
 */
static const struct {
	const char *name;
	long min, max;
} model_env_nums[] = {
	{ "BINDLAB_MODEL_DEPTH", 1, 4 },
	{ "BINDLAB_MODEL_RANDOM", 0, 1000000 },
	{ "BINDLAB_MODEL_SEED", 1, UINT32_MAX },
};

static const char *env_set(const char *name)
{
	const char *s = getenv(name);

	return s && *s ? s : NULL;
}

static long env_long(const char *name, long def, long min, long max)
{
	const char *s = env_set(name);
	long v;

	return s && !bl_parse_long(s, min, max, &v) ? v : def;
}

/*
 * BINDLAB_MODEL_DROP: rules (comma or space separated) the model runs
 * without; -1 when a word is no rule (bad, its word).
 */
static long env_drop_parse(const char *s, char *bad, size_t len)
{
	char *copy = strdup(s), *save, *w;
	long drop = 0;
	int r, words = 0;

	if (!copy)
		return -1;
	for (w = strtok_r(copy, ", ", &save); w && drop >= 0;
	     w = strtok_r(NULL, ", ", &save), words++) {
		r = bm_rule_parse(w);
		if (r < 0)
			snprintf(bad, len, "%s", w);
		drop = r < 0 ? -1 : drop | 1L << r;
	}
	free(copy);
	/* Blanks or commas alone name no rule either. */
	return words ? drop : -1;
}

static unsigned int env_drop(void)
{
	char bad[64];
	long drop;

	drop = env_set("BINDLAB_MODEL_DROP") ?
	       env_drop_parse(getenv("BINDLAB_MODEL_DROP"), bad, sizeof(bad)) : 0;
	return drop > 0 ? drop : 0;
}

static void model_env_die(const char *name, const char *what)
{
	fprintf(stderr, "bind_model_test: %s: '%s' %s\n", name,
		bl_printable(getenv(name)), what);
	exit(BL_EXIT_USAGE);
}

static void __attribute__((constructor)) model_env_check(void)
{
	struct bm_op ops[MAX_STEPS];
	char bad[64] = "";
	const char *s;
	size_t i;
	long v;

	for (i = 0; i < ARRAY_SIZE(model_env_nums); i++) {
		s = env_set(model_env_nums[i].name);
		if (s && bl_parse_long(s, model_env_nums[i].min,
				       model_env_nums[i].max, &v))
			model_env_die(model_env_nums[i].name,
				      "is not a number in range");
	}
	s = env_set("BINDLAB_MODEL_DROP");
	if (s && env_drop_parse(s, bad, sizeof(bad)) < 0)
		model_env_die("BINDLAB_MODEL_DROP", "names no rule of the model");
	s = env_set("BINDLAB_MODEL_SEQ");
	if (s && bm_seq_parse(s, ops, MAX_STEPS) <= 0)
		model_env_die("BINDLAB_MODEL_SEQ", "is no sequence in the grammar of the failure lines");
	s = env_set("BINDLAB_MODEL_LIST");
	if (s && strcmp(s, "0") && strcmp(s, "1"))
		model_env_die("BINDLAB_MODEL_LIST", "is neither 0 nor 1");
}

/* A fresh namespace, the extra link, the TIME_WAIT peers; or why not. */
static const char *judge_setup(struct judge *j, struct bl_why *why)
{
	static const char * const peer[2] = { "127.0.0.1", "::1" };
	int v6, k, fd;

	for (v6 = 0; v6 < 2; v6++)
		for (k = 0; k < BM_MAX_TW; k++)
			j->peer[v6][k] = -1;
	if (bl_netns_enter(why) || !bl_ipv6_usable(why) ||
	    bl_other_link_add(OTHER_LINK, why))
		return why->msg;
	if (bl_fd_reserve(BM_MAX_SOCKS + 2 * BM_MAX_TW + 16, why))
		return why->msg;
	if (bl_sysctl_write(BL_SYSCTL_PORT_RANGE, PORT_RANGE)) {
		bl_why_set(why, EIO, "cannot set %s", BL_SYSCTL_PORT_RANGE);
		return why->msg;
	}
	if (setresuid(-1, OTHER_UID, -1) || setresuid(-1, 0, -1)) {
		bl_why_set(why, errno, "cannot create sockets as uid %d: %s",
			   OTHER_UID, strerror(errno));
		return why->msg;
	}
	for (v6 = 0; v6 < 2; v6++)
		for (k = 0; k < BM_MAX_TW; k++) {
			fd = bl_tcp_listen(peer[v6], PORT_PEER + k);
			if (fd < 0) {
				bl_why_set(why, -fd, "listen on %s: %s", peer[v6],
					   strerror(-fd));
				return why->msg;
			}
			j->peer[v6][k] = fd;
		}
	return NULL;
}

/*
 * Run the shortest sequence of each unexplained disagreement again, on
 * fresh ports. bind() answers from the port's state alone, so a real
 * difference from the model comes back every time; one that never does
 * came from outside the sequence (seen once in CI: a probe refused with
 * EADDRINUSE, which inet_csk_get_port() also returns when an atomic
 * bucket allocation fails under memory pressure). Such a disagreement
 * is reported, not judged.
 */
#define REPLAYS	3

static void judge_replay(struct judge *j)
{
	long seqs = j->seqs, checks = j->checks;
	bool list = j->list;
	int i, k, n = j->ngrp;

	j->list = false;	/* seqfail lines are for the first run only */
	for (i = 0; i < n; i++) {
		struct group *g = &j->grp[i];
		long before = g->count;
		struct seq s = g->seq;

		if (g->bug)
			continue;
		for (k = 0; k < REPLAYS && g->count == before; k++)
			run_seq(j, &s, true);
		g->transient = k > 0 && g->count == before;
	}
	/* The report counts the run's own sequences, not the replays. */
	j->seqs = seqs;
	j->checks = checks;
	j->list = list;
}

/* The disagreements, one line each; how many no known bug explains. */
static int judge_report(struct judge *j)
{
	int i, unknown = j->lost ? 1 : 0;
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	BL_NOTE("%s: %ld sequences, %ld checks, %d distinct disagreements%s",
		u.release, j->seqs, j->checks, j->ngrp,
		j->drop ? " (model with rules dropped: BINDLAB_MODEL_DROP)" : "");
	for (i = 0; i < j->ngrp; i++) {
		const struct group *g = &j->grp[i];

		if (g->transient)
			BL_NOTE("transient %s: %ld checks; shortest: %s (agreed with the model in %d replays: not judged)",
				g->sig, g->count, g->shortest, REPLAYS);
		else
			BL_NOTE("%s %s: %ld checks; shortest: %s",
				g->bug ? "known kernel bug" : "disagreement",
				g->sig, g->count, g->shortest);
		unknown += !g->bug && !g->transient;
	}
	if (j->lost)
		BL_NOTE("%ld more disagreements of other kinds", j->lost);
	return unknown;
}

/*
 * FAIL on a disagreement that no documented kernel bug explains. The
 * documented ones are reported above by name and do not fail this test:
 * each has a test of its own, known_bug.BUG.kernel, which XFAILs while
 * the kernel has it (XFAIL_ADD in bind_model_test.c).
 */
static void judge_verdict(struct __test_metadata *_metadata,
			  const void *variant, struct judge *j)
{
	int unknown;

	judge_replay(j);
	unknown = judge_report(j);
	ASSERT_EQ(0, j->harness_errors);
	ASSERT_EQ(0, unknown)
		TH_LOG("%d distinct disagreements with the model", unknown);
}

#endif /* MODEL_SEQUENCES_H */
