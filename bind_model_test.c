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
 *                              (3) steps over the eight addresses and
 *                              four reuse options, with listen, close
 *                              and TIME_WAIT of each socket; the first
 *                              step also to port 0 (then 2 steps)
 *  bind_model.ADDR.random      longer random sequences (fixed, printed
 *                              seed) with uids and bound devices too
 *  model_rows.RULE.kernel      the rows that show RULE, in the kernel,
 *                              probed after the last step, then after each
 *  model_rules.RULE.needed     the model without RULE fails a row
 *  model_upstream.bind_wildcard.agrees
 *                              the model against every expectation of
 *                              the 6.12 tree's bind_wildcard.c
 *
 * ADDR is the address of the socket a check binds (a bind step, or a
 * probe; a listen step checks the listening socket's): one kernel bug
 * fails the test of the address it breaks. Each run of a test prints one
 * line per distinct disagreement, with its count and its shortest
 * sequence, in the grammar that BINDLAB_MODEL_SEQ reads back.
 *
 * Every sequence has a port of its own, in the test's own namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "ksft_bindlab.h"
#include "bind_model.h"

#define PORT_FIRST	10000	/* sequences take ports from here up */
#define PORT_LAST	59999
#define PORT_PEER	60100	/* TIME_WAIT peers, BM_MAX_TW of them */
#define PORT_RANGE	"60200 60999"	/* ephemeral: none of the above */
#define BM_MAX_TW	8
#define OTHER_UID	65534
#define OTHER_LINK	"bl_other"
#define TW_WAIT_MS	2000
#define MAX_STEPS	8
#define MAX_GROUPS	64
#define RANDOM_SEED	20241201u

/* One sequence, and where its sockets are in the kernel. */
struct seq {
	struct bm_op op[MAX_STEPS];
	int n;
};

/* Disagreements of one signature: how many and the shortest. */
struct group {
	const char *bug;	/* a documented kernel bug, or NULL */
	char sig[200];
	long count;
	int steps;
	char shortest[700];
};

/* What one test run compares and what it found. */
struct judge {
	struct __test_metadata *md;
	int only;		/* BM_NR_ADDRS: check every address */
	unsigned int drop;	/* rules the model runs without */
	bool probe_all_opts;	/* uids and devices in the probes too */
	uint16_t port;
	int peer[2][BM_MAX_TW];	/* listeners: [v6][k-th TIME_WAIT] */
	long seqs, checks, harness_errors;
	struct group grp[MAX_GROUPS];
	int ngrp;
	long lost;		/* disagreements beyond MAX_GROUPS */
	unsigned int stale_fast; /* see known_bug(): 1 << uid of a stale entry */
	bool tw_v6_any;		/* see known_bug(): a TIME_WAIT from :: */
	bool list;		/* BINDLAB_MODEL_LIST: every failing sequence */
	bool seq_failed;	/* this sequence has been listed */
};

/* model_last() gives a negative value for a step of the row that cannot run. */
static const char *step_errname(int err)
{
	return err < 0 ? "a step that cannot run" : bl_errname(err);
}

/* ---- the kernel side ---- */

static int setopt(int fd, int level, int name)
{
	int one = 1;

	return setsockopt(fd, level, name, &one, sizeof(one));
}

/* A new socket for addr with o, as the model means it; fd or -errno. */
static int k_socket(enum bm_addr addr, const struct bm_opts *o)
{
	static const char * const devs[] = { "", "lo", OTHER_LINK };
	bool v6only;
	int fd, err = 0;

	bm_addr_host(addr, &v6only);
	/* The socket's uid is the creator's fsuid at socket() time. */
	if (o->other_uid && setresuid(-1, OTHER_UID, -1))
		return -errno;
	fd = socket(bm_addr_is_v6(addr) ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (o->other_uid && setresuid(-1, 0, -1))
		err = -errno;
	if (fd < 0)
		return -errno;
	if ((o->reuse & BM_RA) && setopt(fd, SOL_SOCKET, SO_REUSEADDR))
		err = -errno;
	if ((o->reuse & BM_RP) && setopt(fd, SOL_SOCKET, SO_REUSEPORT))
		err = -errno;
	if (v6only && setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY))
		err = -errno;
	if (o->dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, devs[o->dev],
				 strlen(devs[o->dev]) + 1))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* bind() a new socket; *fd gets it (or -1). 0, an errno, or -errno. */
static int k_bind(enum bm_addr addr, const struct bm_opts *o, uint16_t port,
		  int *fd)
{
	struct sockaddr_storage ss;
	bool v6only;
	socklen_t len;

	char range[32];
	int err;

	*fd = k_socket(addr, o);
	if (*fd < 0)
		return *fd;
	len = bl_sockaddr_parse(bm_addr_host(addr, &v6only),
				o->port0 ? 0 : port, &ss);
	/* Port 0 with the ephemeral range narrowed to the sequence's port. */
	snprintf(range, sizeof(range), "%u %u", port, port);
	if (o->port0 && bl_sysctl_write(BL_SYSCTL_PORT_RANGE, range))
		return -EIO;
	err = bind(*fd, (struct sockaddr *)&ss, len) ? errno : 0;
	if (o->port0 && bl_sysctl_write(BL_SYSCTL_PORT_RANGE, PORT_RANGE))
		return -EIO;
	if (!err && o->port0 && bl_sock_port(*fd) != port)
		return -ERANGE;
	if (!err)
		return 0;
	close(*fd);
	*fd = -1;
	return err;
}

/* The k-th TIME_WAIT of a sequence: connect to a peer, close first. */
static int k_time_wait(struct judge *j, int fd, enum bm_addr addr, int k)
{
	static const char * const peer_of[BM_NR_ADDRS] = {
		[BM_V4_ANY] = "127.0.0.1", [BM_V4_LO] = "127.0.0.1",
		[BM_V4_LO2] = "127.0.0.1", [BM_V6_ANY] = "::1",
		[BM_V6_ANY_ONLY] = "::1", [BM_V6_LO] = "::1",
		[BM_V4M_ANY] = "::ffff:127.0.0.1",
		[BM_V4M_LO] = "::ffff:127.0.0.1",
	};
	int v6 = addr == BM_V6_ANY || addr == BM_V6_ANY_ONLY || addr == BM_V6_LO;
	struct sockaddr_storage ss;
	socklen_t len;

	if (k >= BM_MAX_TW)
		return -E2BIG;
	len = bl_sockaddr_parse(peer_of[addr], PORT_PEER + k, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len))
		return -errno;
	return bl_tcp_time_wait(fd, j->peer[v6][k], TW_WAIT_MS);
}

/* ---- disagreements ---- */

static void seq_str(const struct seq *s, int n, char *buf, size_t len)
{
	size_t off = 0;
	char op[96];
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "; " : "",
				bm_op_str(&s->op[i], op, sizeof(op)));
}

static struct group *group_of(struct judge *j, const char *sig)
{
	int i;

	for (i = 0; i < j->ngrp; i++)
		if (!strcmp(j->grp[i].sig, sig))
			return &j->grp[i];
	if (j->ngrp == MAX_GROUPS)
		return NULL;
	snprintf(j->grp[j->ngrp].sig, sizeof(j->grp[0].sig), "%s", sig);
	return &j->grp[j->ngrp++];
}

/*
 * Kernel bugs this suite found, documented: a disagreement they explain
 * is reported under the bug's name and makes the test XFAIL, not FAIL.
 *
 * fastreuseport_stale: inet_csk_update_fastreuse() records a SO_REUSEPORT
 * socket in the bind bucket's fast path (tb->fastreuseport =
 * FASTREUSEPORT_STRICT, fastuid, fast_rcv_saddr) whenever it bound,
 * also when it shared the port with an owner only because both had
 * SO_REUSEADDR, their sk_bound_dev_if differ, or by its V6ONLY or
 * family (and again at listen()). The cache keeps none of that.
 * sk_reuseport_match() then lets a later SO_REUSEPORT socket of that uid
 * and a matching address skip inet_csk_bind_conflict() in
 * inet_csk_get_port(): it binds next to an owner it conflicts with
 * (shortest: "bind v4_any reuseaddr; bind v4_any reuseaddr+reuseport =>
 * bind v4_any reuseport" succeeds). Seen on 6.1, 6.12 (with the fastreuse
 * fix) and 6.18; no fix is known, so it is declared for every kernel.
 *
 * tw_v6_blocks_v4_any: a socket bound to :: (dual stack) that
 * connect()s over lo leaves a TIME_WAIT socket on [::1]:port that blocks
 * a bind() of 0.0.0.0:port, although a socket bound to [::1]:port does
 * not (shortest: "bind v6_any plain; time_wait #0 => probe v4_any plain"
 * fails). __inet6_bind() sets sk_ipv6only on a socket bound to a specific
 * IPv6 address, so that ipv4_rcv_saddr_equal() skips it; tcp_v6_connect()
 * moves a :: socket to ::1 (inet_bhash2_update_saddr()) and sets
 * inet_rcv_saddr = LOOPBACK4_IPV6, but leaves sk_ipv6only 0, and
 * tcp_time_wait() copies both into the TIME_WAIT socket. The full scan a
 * 0.0.0.0 bind() makes in inet_csk_bind_conflict() then matches it with
 * the wildcard of ipv4_rcv_saddr_equal(). Seen on 6.1, 6.12 and 6.18.
 */
static const char *known_bug(const struct judge *j, const char *check,
			     enum bm_addr addr, int got, int want)
{
	/* The cache only serves sockets of its fastuid. */
	if ((j->stale_fast & 1U << !!strstr(check, "uid1")) && !got &&
	    want == EADDRINUSE && strstr(check, "reuseport"))
		return "fastreuseport_stale";
	if (j->tw_v6_any && addr == BM_V4_ANY && got == EADDRINUSE && !want)
		return "tw_v6_blocks_v4_any";
	return NULL;
}

/*
 * A kernel bind with SO_REUSEPORT that shared the port by another rule
 * than SO_REUSEPORT: the bucket's fast path now has a stale entry.
 */
static void note_bound(struct judge *j, const struct bm_opts *o,
		       const struct bm_why *why, int got)
{
	unsigned int other = 1U << BM_R_DEV | 1U << BM_R_REUSEADDR |
			     1U << BM_R_V6ONLY | 1U << BM_R_FAMILY;

	if (!got && (o->reuse & BM_RP) && (why->rules & other))
		j->stale_fast |= 1U << o->other_uid;
}

/*
 * One disagreement: what was checked after n steps of s. Its signature
 * is what a kernel bug has in common across sequences: the kind of
 * check, the checked address, the model's conflicting owner (or the
 * rules that let every owner share), and the two answers.
 */
static void disagree(struct judge *j, const struct seq *s, int n,
		     const char *check, enum bm_addr addr,
		     const struct bm_port *p, const struct bm_why *why,
		     int got, int want)
{
	const char *bug = known_bug(j, check, addr, got, want);
	char sig[200], rules[160], seqbuf[600], owner[64] = "";
	struct group *g;

	if (why->owner >= 0)
		snprintf(owner, sizeof(owner), " owner %s %s",
			 bm_addr_name(p->sk[why->owner].addr),
			 bm_state_name(p->sk[why->owner].state));
	snprintf(sig, sizeof(sig), "%s%s%.*s %s%s: kernel %s, model %s (%s)",
		 bug ? bug : "", bug ? ": " : "",
		 (int)strcspn(check, " "), check, bm_addr_name(addr), owner,
		 step_errname(got),
		 step_errname(want), bm_rules_str(why->rules, rules, sizeof(rules)));
	if (j->list && !j->seq_failed) {
		/* For kernel/model-compare.sh: sequence by sequence. */
		j->seq_failed = true;
		seq_str(s, n, seqbuf, sizeof(seqbuf));
		BL_NOTE("seqfail %s => %s: kernel %s, model %s%s%s", seqbuf, check,
			step_errname(got), step_errname(want), bug ? ", known " : "",
			bug ? bug : "");
	}
	g = group_of(j, sig);
	if (!g) {
		j->lost++;
		return;
	}
	g->bug = bug;
	if (!g->count++ || n < g->steps) {
		g->steps = n;
		seq_str(s, n, seqbuf, sizeof(seqbuf));
		snprintf(g->shortest, sizeof(g->shortest), "%s => %s",
			 *seqbuf ? seqbuf : "(empty port)", check);
	}
}

/* Compare one answer; only the test's address is judged. */
static void judge_one(struct judge *j, const struct seq *s, int n,
		      const char *check, enum bm_addr addr,
		      const struct bm_port *p, const struct bm_why *why,
		      int got, int want)
{
	if (j->only != BM_NR_ADDRS && (int)addr != j->only)
		return;
	j->checks++;
	if (got != want)
		disagree(j, s, n, check, addr, p, why, got, want);
}

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
			note_bound(j, &opts, &why, got);
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
	j->stale_fast = 0;
	j->tw_v6_any = false;
	j->seq_failed = false;
	j->port = PORT_FIRST + j->seqs++ % (PORT_LAST - PORT_FIRST + 1);
	for (i = 0; i < BM_MAX_SOCKS; i++)
		fds[i] = -1;
	for (i = 0; i < s->n; i++) {
		struct bm_port before = p;
		enum bm_addr addr = step_addr(&s->op[i], &p);

		if (s->op[i].kind == BM_OP_TW && p.sk[s->op[i].sk].addr == BM_V6_ANY)
			j->tw_v6_any = true;
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
			note_bound(j, &p.sk[s->op[i].kind == BM_OP_BIND ?
					     p.n - 1 : s->op[i].sk].opts,
				   &why, got);
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

static long env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	long v;

	if (!s || !*s || bl_parse_long(s, min, max, &v))
		return def;
	return v;
}

/* BINDLAB_MODEL_DROP: rules (comma separated) the model runs without. */
static unsigned int env_drop(void)
{
	const char *s = getenv("BINDLAB_MODEL_DROP");
	char buf[512], *save, *w;
	unsigned int drop = 0;
	int r;

	if (!s)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		r = bm_rule_parse(w);
		if (r >= 0)
			drop |= 1U << r;
		else
			BL_NOTE("BINDLAB_MODEL_DROP: no rule '%s'", w);
	}
	return drop;
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
		BL_NOTE("%s %s: %ld checks; shortest: %s",
			j->grp[i].bug ? "known kernel bug" : "disagreement",
			j->grp[i].sig,
			j->grp[i].count, j->grp[i].shortest);
		unknown += !j->grp[i].bug;
	}
	if (j->lost)
		BL_NOTE("%ld more disagreements of other kinds", j->lost);
	return unknown;
}

/*
 * FAIL on a disagreement no documented bug explains, unless declared
 * known (BINDLAB_XFAIL); XFAIL when documented bugs explain them all.
 */
static void judge_verdict(struct __test_metadata *_metadata,
			  const void *variant, struct judge *j)
{
	int unknown = judge_report(j);

	ASSERT_EQ(0, j->harness_errors);
	if (unknown)
		BL_REGRESSION(return, "%d distinct disagreements with the model",
			      unknown);
	if (j->ngrp) {
		snprintf(_metadata->results->reason,
			 sizeof(_metadata->results->reason),
			 "known kernel bugs only");
		_metadata->exit_code = KSFT_XFAIL;
		return;
	}
	BL_NO_REGRESSION();
}

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
	self->j->list = getenv("BINDLAB_MODEL_LIST");
	reason = judge_setup(self->j, &why);
	if (reason)
		SKIP(return, "%s", reason);
}

FIXTURE_TEARDOWN(bind_model)
{
	free(self->j);
}

TEST_F_TIMEOUT(bind_model, exhaustive, 280)
{
	/* Under an emulator depth 3 takes minutes: 2 unless asked. */
	int depth = env_long("BINDLAB_MODEL_DEPTH", bl_machine_slow() ? 2 : 3,
			     1, 4);
	struct bm_port p;
	struct seq s = { .n = 0 };

	if (getenv("BINDLAB_MODEL_SEQ")) {
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
	long n = env_long("BINDLAB_MODEL_RANDOM", 200, 0, 1000000), i;
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
	{ BM_R_REUSEADDR_LISTEN, "bind v4_local reuseaddr; listen #0; bind v4_local reuseaddr", EADDRINUSE },
	{ BM_R_REUSEPORT, "bind v6_local reuseport; bind v6_local reuseport", 0 },
	{ BM_R_REUSEPORT_UID, "bind v4_local reuseport; bind v4_local reuseport uid1", EADDRINUSE },
	{ BM_R_TW_ANY_UID, "bind v4_local reuseport; time_wait #0; bind v4_local reuseport uid1", 0 },
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
	{ BM_R_LISTEN_CHECK, "bind v4_local reuseaddr; bind v4_local reuseaddr; listen #0; listen #1", EADDRINUSE },
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

/* ---- model_upstream: bind_wildcard.c's expectations, read at run time ---- */

#define UPSTREAM	"tools/testing/selftests/net/bind_wildcard.c"
#define NR_WILDCARD	8	/* bind_wildcard.c's NR_SOCKETS */

/* Its probes, in its order, after its pair. */
static const enum bm_addr wildcard_probes[NR_WILDCARD - 2] = {
	BM_V4_ANY, BM_V4_LO, BM_V6_ANY, BM_V6_LO, BM_V4M_ANY, BM_V4M_LO,
};

struct wildcard_variant {
	char name[80];
	enum bm_addr addr[2];
	int err[2][NR_WILDCARD];	/* [reuse option set][socket] */
};

/* Where the 6.12 tree is unpacked: ours, the lab's, or the kernel's. */
static FILE *upstream_open(char *path, size_t len)
{
	const char *home = getenv("HOME") ? getenv("HOME") : "/root";
	const char *env = getenv("BINDLAB_BIND_WILDCARD");
	const char *cache = getenv("BINDLAB_CACHE");
	char base[256];
	FILE *f;
	int i;

	snprintf(base, sizeof(base), "%s", cache ? cache : "");
	if (!cache)
		snprintf(base, sizeof(base), "%s/.cache/bindlab", home);
	/* kernel/model-compare.sh leaves a copy in upstream/. */
	for (i = 0; i < 5; i++) {
		if (i == 0 && !env)
			continue;
		if (i == 0)
			snprintf(path, len, "%s", env);
		else if (i == 3)
			snprintf(path, len, "%s/upstream/bind_wildcard.c", base);
		else if (i == 4)
			snprintf(path, len, "../bind_wildcard.c");
		else
			snprintf(path, len, "%s/%s/%s", base,
				 i == 1 ? "linux-6.12" : "ksft", UPSTREAM);
		f = fopen(path, "r");
		if (f)
			return f;
	}
	return NULL;
}

/* The n words of ".field = {a, b}" in block into w; -EINVAL if absent. */
static int field(const char *block, const char *name, char w[][40], int n)
{
	const char *s = strstr(block, name), *end = NULL;
	int i = 0, k;

	if (s)
		s = strchr(s, '{');
	if (s)
		end = strchr(s, '}');
	if (!end)
		return -EINVAL;
	for (s++; s < end && i < n; i++) {
		while (s < end && strchr(" \t\n,", *s))
			s++;
		for (k = 0; s < end && !strchr(" \t\n,", *s) && k < 39; k++)
			w[i][k] = *s++;
		w[i][k] = '\0';
	}
	return i == n ? 0 : -EINVAL;
}

static int wildcard_addr(const char *fam, const char *addr, bool v6only)
{
	static const struct {
		const char *fam, *addr;
		enum bm_addr a;
	} map[] = {
		{ "AF_INET", "&in4addr_any", BM_V4_ANY },
		{ "AF_INET", "&in4addr_loopback", BM_V4_LO },
		{ "AF_INET6", "&in6addr_any", BM_V6_ANY },
		{ "AF_INET6", "&in6addr_loopback", BM_V6_LO },
		{ "AF_INET6", "&in6addr_v4mapped_any", BM_V4M_ANY },
		{ "AF_INET6", "&in6addr_v4mapped_loopback", BM_V4M_LO },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(fam, map[i].fam) && !strcmp(addr, map[i].addr)) {
			if (v6only && map[i].a != BM_V6_ANY)
				return -EINVAL;	/* no such address of ours */
			return v6only ? BM_V6_ANY_ONLY : (int)map[i].a;
		}
	return -EINVAL;
}

/* One FIXTURE_VARIANT_ADD block, up to its "};". */
static int wildcard_parse(const char *block, struct wildcard_variant *v)
{
	char fam[2][40], addr[2][40], only[2][40] = { "false", "false" };
	char err[NR_WILDCARD][40];
	int i, k, a;

	if (sscanf(block, "FIXTURE_VARIANT_ADD(bind_wildcard, %79[^)])",
		   v->name) != 1 || field(block, ".family", fam, 2) ||
	    field(block, ".addr", addr, 2))
		return -EINVAL;
	if (strstr(block, ".ipv6_only") && field(block, ".ipv6_only", only, 2))
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		a = wildcard_addr(fam[i], addr[i], !strcmp(only[i], "true"));
		if (a < 0)
			return a;
		v->addr[i] = a;
	}
	for (k = 0; k < 2; k++) {
		if (field(block, k ? ".expected_reuse_errno" : ".expected_errno",
			  err, NR_WILDCARD))
			return -EINVAL;
		for (i = 0; i < NR_WILDCARD; i++)
			v->err[k][i] = !strcmp(err[i], "0") ? 0 :
				       !strcmp(err[i], "EADDRINUSE") ?
				       EADDRINUSE : -EINVAL;
	}
	return 0;
}

/*
 * bind_wildcard's test with one reuse option on its pair: the pair, then
 * the probes (no option), each staying bound when it succeeds. The
 * number of expectations the model missed.
 */
static int wildcard_replay(const struct wildcard_variant *v, unsigned int reuse,
			   const char *test)
{
	struct bm_op op = { .kind = BM_OP_BIND };
	const int *want = v->err[!!reuse];
	struct bm_port p;
	struct bm_why why;
	int i, got, missed = 0;

	if (getenv("BINDLAB_MODEL_LIST"))
		BL_NOTE("upstream bind_wildcard.%s.%s = bind %s %s port0; bind %s %s",
			v->name, test, bm_addr_name(v->addr[0]), test,
			bm_addr_name(v->addr[1]), test);
	bm_port_init(&p, env_drop());
	for (i = 0; i < NR_WILDCARD; i++) {
		op.addr = i < 2 ? v->addr[i] : wildcard_probes[i - 2];
		op.opts.reuse = i < 2 ? reuse : 0;
		op.opts.port0 = i == 0;	/* it binds to port 0 first */
		got = -bm_step(&p, &op, &why);
		if (got == want[i])
			continue;
		missed++;
		BL_NOTE("bind_wildcard.%s.%s socket %d (%s): upstream expects %s, the model says %s",
			v->name, test, i,
			bm_addr_name(op.addr), step_errname(want[i]), step_errname(got));
	}
	return missed;
}

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
	if (!f)
		SKIP(return, "no %s of a 6.12 tree (BINDLAB_BIND_WILDCARD)",
		     UPSTREAM);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
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

int main(int argc, char **argv)
{
	return bl_harness_main(argc, argv);
}
