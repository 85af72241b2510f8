/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind_model_test's judge: the kernel side of a step (sockets made as the
 * model's operations say) and the record of every disagreement between
 * the kernel and the model, grouped by what disagreed. Included by
 * bind_model_test.c only: it reports through the harness.
 */
#ifndef MODEL_JUDGE_H
#define MODEL_JUDGE_H

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	struct seq seq;		/* the shortest's sequence, to replay */
	bool transient;		/* its replays all agreed (judge_replay()) */
};

/*
 * What known_bug() needs of the kernel's state, mirrored step by step
 * from the kernel's answers: note_bound(), and run_seq() for TIME_WAIT.
 */
struct kb_state {
	/* The SO_REUSEPORT fast path of the bind bucket (tb->fast*) */
	bool fast_armed;
	bool fast_uid1;		/* tb->fastuid */
	enum bm_addr fast_addr;	/* fast_rcv_saddr and the rest */
	unsigned int fast_skipped; /* 1 << owner it did not share with by SO_REUSEPORT */
	unsigned int tw_v6_any;	/* 1 << socket in TIME_WAIT after a bind to :: */
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
	struct kb_state kb;	/* see known_bug(): reset per sequence */
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

/* Any program will do: attaching one before bind() makes a group. */
static int attach_group(int fd)
{
	struct sock_filter ret0 = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &ret0 };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog));
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
	if (o->group && attach_group(fd))
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
 * Kernel bugs this suite found, documented: a disagreement that one of
 * them explains, by its exact signature below, is reported under the
 * bug's name and makes the test XFAIL, not FAIL. Any other disagreement,
 * however close, fails. kernel/bugs/NAME/ has each one's report, a
 * reproducer and a proposed fix.
 *
 * fastreuseport_stale: inet_csk_update_fastreuse() records a SO_REUSEPORT
 * socket in the bind bucket's fast path (tb->fastreuseport =
 * FASTREUSEPORT_STRICT, fastuid, fast_rcv_saddr) whenever it bound and
 * did not match the entry already there, also when it shared the port
 * with an owner only because both had SO_REUSEADDR, their
 * sk_bound_dev_if differ, or by its V6ONLY or family (and again at
 * listen()). The entry keeps none of that. sk_reuseport_match() then
 * lets a later SO_REUSEPORT socket of that uid and a matching address
 * skip inet_csk_bind_conflict() in inet_csk_get_port(): it binds next to
 * an owner it conflicts with (shortest: "bind v4_any reuseaddr; bind
 * v4_any reuseaddr+reuseport => bind v4_any reuseport" succeeds). Its
 * signature: the kernel binds and the model refuses a check with
 * SO_REUSEPORT, not to port 0, whose uid and address match the entry as
 * sk_reuseport_match() compares them, and the owner the model refuses it
 * for is one the entry's socket shared the port with by another rule
 * than SO_REUSEPORT (note_bound() mirrors the entry). Seen on 6.1, 6.12
 * (with the fastreuse fix) and 6.18.
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
 * the wildcard of ipv4_rcv_saddr_equal(). Its signature: the kernel
 * refuses and the model allows a bind of 0.0.0.0 by the family rule,
 * while an owner is such a TIME_WAIT socket whose options and device
 * inet_bind_conflict() finds in conflict with the check. Seen on 6.1,
 * 6.12 and 6.18.
 */

/* An address as inet_csk_get_port() sees it after bind(). */
struct kb_kaddr {
	bool v6;		/* AF_INET6 */
	unsigned char v4;	/* sk_rcv_saddr: 0 any, 6 LOOPBACK4_IPV6 */
	unsigned char v6type;	/* ipv6_addr_type(); an AF_INET one: mapped */
	unsigned char v6id;	/* tells IPv6 addresses apart */
	bool v6only;		/* __inet6_bind() sets it for ::1 */
};

enum { KB_ANY, KB_MAPPED, KB_OTHER };

static const struct kb_kaddr kb_kaddrs[BM_NR_ADDRS] = {
	[BM_V4_ANY] = { .v6type = KB_MAPPED },
	[BM_V4_LO] = { .v4 = 1, .v6type = KB_MAPPED },
	[BM_V4_LO2] = { .v4 = 2, .v6type = KB_MAPPED },
	[BM_V6_ANY] = { .v6 = true, .v6type = KB_ANY },
	[BM_V6_ANY_ONLY] = { .v6 = true, .v6type = KB_ANY, .v6only = true },
	[BM_V6_LO] = { .v6 = true, .v4 = 6, .v6type = KB_OTHER, .v6id = 1,
		       .v6only = true },
	[BM_V4M_ANY] = { .v6 = true, .v6type = KB_MAPPED, .v6id = 2 },
	[BM_V4M_LO] = { .v6 = true, .v4 = 1, .v6type = KB_MAPPED, .v6id = 3 },
};

/*
 * The address part of sk_reuseport_match() for a FASTREUSEPORT_STRICT
 * entry made at fast: ipv4_rcv_saddr_equal() or ipv6_rcv_saddr_equal()
 * with the entry's wildcard matching and the socket's not.
 */
static bool kb_fast_match(enum bm_addr fast, enum bm_addr addr)
{
	const struct kb_kaddr *f = &kb_kaddrs[fast], *s = &kb_kaddrs[addr];

	if (!f->v6 || (f->v6type == KB_MAPPED && s->v6type == KB_MAPPED))
		return !s->v6only && (f->v4 == s->v4 || !f->v4);
	if (f->v6type == KB_ANY)
		return s->v6type == KB_ANY ||
		       !(f->v6only && s->v6type == KB_MAPPED);
	return s->v6 && f->v6id == s->v6id;
}

/* Do sk and owner sk2 share the port by SO_REUSEPORT (inet_bind_conflict())? */
static bool kb_reuseport_shares(const struct bm_sock *sk,
				const struct bm_sock *sk2)
{
	return (sk->opts.reuse & sk2->opts.reuse & BM_RP) &&
	       (sk2->state == BM_ST_TW ||
		sk->opts.other_uid == sk2->opts.other_uid);
}

/*
 * The socket a check binds (or listens with), read back from the check's
 * text, which names it in bm_seq_parse()'s grammar; self: its index in p,
 * or -1 for a new socket.
 */
static int kb_check_sock(const struct bm_port *p, const char *check,
			 struct bm_sock *sk, int *self)
{
	struct bm_op op;
	char buf[128];

	/* "probe ADDR OPTS" binds as "bind ADDR OPTS" does. */
	if (!strncmp(check, "probe ", 6))
		snprintf(buf, sizeof(buf), "bind %s", check + 6);
	else
		snprintf(buf, sizeof(buf), "%s", check);
	if (bm_seq_parse(buf, &op, 1) != 1)
		return -EINVAL;
	*self = -1;
	if (op.kind == BM_OP_LISTEN && op.sk >= 0 && op.sk < p->n) {
		*sk = p->sk[op.sk];
		*self = op.sk;
		return 0;
	}
	if (op.kind != BM_OP_BIND)
		return -EINVAL;
	sk->addr = op.addr;
	sk->opts = op.opts;
	sk->state = BM_ST_BOUND;
	return 0;
}

/* fastreuseport_stale's signature (see above); p: the port checked. */
static bool kb_fast_stale(const struct kb_state *kb, const struct bm_sock *sk,
			  const struct bm_why *why, int got, int want)
{
	/* Port 0 is inet_csk_find_open_port()'s, which checks in full. */
	return !got && want == EADDRINUSE && why->owner >= 0 &&
	       kb->fast_armed && (kb->fast_skipped & 1U << why->owner) &&
	       (sk->opts.reuse & BM_RP) && !sk->opts.port0 &&
	       sk->opts.other_uid == kb->fast_uid1 &&
	       kb_fast_match(kb->fast_addr, sk->addr);
}

/* tw_v6_blocks_v4_any's signature (see above). */
static bool kb_tw_v6_any(const struct kb_state *kb, const struct bm_port *p,
			 const struct bm_sock *sk, const struct bm_why *why,
			 int got, int want)
{
	const struct bm_opts *o = &sk->opts, *o2;
	int i;

	if (got != EADDRINUSE || want || sk->addr != BM_V4_ANY ||
	    !(why->rules & 1U << BM_R_FAMILY))
		return false;
	for (i = 0; i < p->n; i++) {
		o2 = &p->sk[i].opts;
		if (!(kb->tw_v6_any & 1U << i) || p->sk[i].state != BM_ST_TW)
			continue;
		if (o->dev && o2->dev && o->dev != o2->dev)
			continue;
		/*
		 * Both SO_REUSEADDR, or both SO_REUSEPORT (any uid against
		 * TIME_WAIT), relax the pair; nothing relaxes it for port 0.
		 */
		if (o->port0 || !(o->reuse & o2->reuse))
			return true;
	}
	return false;
}

/* The documented kernel bug that explains a disagreement, or NULL. */
static const char *known_bug(const struct judge *j, const char *check,
			     const struct bm_port *p, const struct bm_why *why,
			     int got, int want)
{
	struct bm_sock sk;
	int self;

	if (kb_check_sock(p, check, &sk, &self))
		return NULL;
	if (kb_fast_stale(&j->kb, &sk, why, got, want))
		return "fastreuseport_stale";
	if (kb_tw_v6_any(&j->kb, p, &sk, why, got, want))
		return "tw_v6_blocks_v4_any";
	return NULL;
}

/*
 * A check the kernel answered; p: the port before it. When the kernel
 * bound (or listened), do to the mirrored entry what
 * inet_csk_update_fastreuse() does to tb->fast*: a socket without
 * SO_REUSEPORT clears it; one with SO_REUSEPORT that sk_reuseport_match()
 * does not match replaces it, with the owners it did not share the port
 * with by SO_REUSEPORT. The first socket on a port finds no owner; on a
 * kernel with the fastreuse fix its entry is FASTREUSEPORT_ANY, which
 * matches more, but such an entry has no owner to skip.
 */
static void note_bound(struct judge *j, const struct bm_port *p,
		       const char *check, int got)
{
	struct kb_state *kb = &j->kb;
	unsigned int skipped = 0;
	int self, i, owners = 0;
	struct bm_sock sk;

	if (got || kb_check_sock(p, check, &sk, &self))
		return;
	for (i = 0; i < p->n; i++) {
		if (i == self || p->sk[i].state == BM_ST_NONE)
			continue;
		owners++;
		if (!kb_reuseport_shares(&sk, &p->sk[i]))
			skipped |= 1U << i;
	}
	/* No owner: the bucket is new, or the last owner freed the old one. */
	if (!owners || !(sk.opts.reuse & BM_RP))
		kb->fast_armed = false;
	if (!(sk.opts.reuse & BM_RP))
		return;
	if (kb->fast_armed && kb->fast_uid1 == sk.opts.other_uid &&
	    kb_fast_match(kb->fast_addr, sk.addr))
		return;
	kb->fast_armed = true;
	kb->fast_uid1 = sk.opts.other_uid;
	kb->fast_addr = sk.addr;
	kb->fast_skipped = skipped;
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
	const char *bug = known_bug(j, check, p, why, got, want);
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
		g->seq = *s;
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

#endif /* MODEL_JUDGE_H */
