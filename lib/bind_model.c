// SPDX-License-Identifier: GPL-2.0
/*
 * bind_model: the TCP bind-conflict rules of Linux 6.12, as a model.
 *
 * A bind() (or listen()) of socket sk fails with EADDRINUSE when some
 * owner sk2 of the port conflicts with it. Two sockets conflict when
 * their addresses overlap, their devices overlap and no reuse option
 * relaxes the pair. Each rule below names the kernel code it follows
 * (net/ipv4/inet_connection_sock.c unless said otherwise); each one can
 * be dropped so that a test shows the rule is needed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bind_model.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define DROPPED(p, r)	((p)->drop & (1U << (r)))
#define RULE(r)		(1U << (r))

/* How the bind table sees an address. */
enum bm_kind { K_V4_ANY, K_V4, K_V6_ANY, K_V6 };

struct bm_view {
	enum bm_kind kind;
	int id;			/* tells specific addresses apart */
	bool v6only;
};

/* How the bind table sees each address. */
static const struct {
	struct bm_view view;	/* with ::ffff:a.b.c.d as IPv4 */
	struct bm_view as_v6;	/* the same without BM_R_MAPPED_IS_V4 */
} addrs[BM_NR_ADDRS] = {
	[BM_V4_ANY] = { .view = { .kind = K_V4_ANY } },
	[BM_V4_LO] = { .view = { .kind = K_V4, .id = 1 } },
	[BM_V4_LO2] = { .view = { .kind = K_V4, .id = 2 } },
	[BM_V6_ANY] = { .view = { .kind = K_V6_ANY } },
	[BM_V6_ANY_ONLY] = { .view = { .kind = K_V6_ANY, .v6only = true } },
	[BM_V6_LO] = { .view = { .kind = K_V6, .id = 3 } },
	[BM_V4M_ANY] = { .view = { .kind = K_V4_ANY },
			 .as_v6 = { .kind = K_V6, .id = 4 } },
	[BM_V4M_LO] = { .view = { .kind = K_V4, .id = 1 },
			.as_v6 = { .kind = K_V6, .id = 5 } },
};

/*
 * ::ffff:a.b.c.d is an IPv4 address to the bind table: the bhash2
 * bucket of a v4-mapped socket is its IPv4 address
 * (inet_use_hash2_on_bind(), ipv6_rcv_saddr_equal(): "if both are
 * mapped, treat as IPv4").
 */
static struct bm_view view(const struct bm_port *p, enum bm_addr a)
{
	if (addrs[a].as_v6.id && DROPPED(p, BM_R_MAPPED_IS_V4))
		return addrs[a].as_v6;
	return addrs[a].view;
}

static bool is_v4(const struct bm_view *v)
{
	return v->kind == K_V4_ANY || v->kind == K_V4;
}

/* Both IPv4: ipv4_rcv_saddr_equal() with match_wildcard. */
static bool overlap_v4(const struct bm_port *p, const struct bm_view *a,
		       const struct bm_view *b, unsigned int *rule)
{
	if (a->kind == K_V4_ANY || b->kind == K_V4_ANY) {
		*rule = RULE(BM_R_V4_WILDCARD);
		return a->kind == b->kind || !DROPPED(p, BM_R_V4_WILDCARD);
	}
	if (a->id == b->id)
		return true;
	*rule = RULE(BM_R_V4_SPECIFIC);
	return DROPPED(p, BM_R_V4_SPECIFIC);
}

/* Both IPv6 (not v4-mapped): ipv6_rcv_saddr_equal(), ipv6 part. */
static bool overlap_v6(const struct bm_port *p, const struct bm_view *a,
		       const struct bm_view *b, unsigned int *rule)
{
	if (a->kind == K_V6_ANY || b->kind == K_V6_ANY) {
		*rule = RULE(BM_R_V6_WILDCARD);
		return a->kind == b->kind || !DROPPED(p, BM_R_V6_WILDCARD);
	}
	return a->id == b->id;
}

/*
 * IPv4 v4 against IPv6 v6: only a :: wildcard reaches IPv4, and not
 * with V6ONLY (ipv4_rcv_saddr_equal()'s sk2_ipv6only,
 * __inet_bhash2_conflict(), inet_bind2_bucket_match_addr_any()). A
 * 0.0.0.0 never covers an IPv6 address.
 */
static bool overlap_mixed(const struct bm_port *p, const struct bm_view *v4,
			  const struct bm_view *v6, unsigned int *rule)
{
	if (v6->kind == K_V6_ANY && !v6->v6only) {
		*rule = RULE(BM_R_DUAL_STACK);
		return !DROPPED(p, BM_R_DUAL_STACK);
	}
	if (v6->kind == K_V6_ANY) {
		*rule = RULE(BM_R_V6ONLY);
		return DROPPED(p, BM_R_V6ONLY);
	}
	if (v4->kind == K_V4_ANY) {
		*rule = RULE(BM_R_FAMILY);
		return DROPPED(p, BM_R_FAMILY);
	}
	return false;
}

static bool addr_overlap(const struct bm_port *p, enum bm_addr a,
			 enum bm_addr b, unsigned int *rule)
{
	struct bm_view va = view(p, a), vb = view(p, b);

	*rule = 0;
	if (is_v4(&va) && is_v4(&vb))
		return overlap_v4(p, &va, &vb, rule);
	if (!is_v4(&va) && !is_v4(&vb))
		return overlap_v6(p, &va, &vb, rule);
	if (is_v4(&va))
		return overlap_mixed(p, &va, &vb, rule);
	return overlap_mixed(p, &vb, &va, rule);
}

/*
 * The reuse options of the pair (inet_bind_conflict(), bind() and
 * listen() both call it with relax and reuseport_ok true): both
 * SO_REUSEADDR relax unless the owner listens; otherwise both
 * SO_REUSEPORT relax when the uids match or the owner is a TIME_WAIT
 * socket (which has no uid of its own), unless the new socket leads a
 * reuseport group of its own (a program attached before bind():
 * reuseport_cb_ok). A TIME_WAIT socket has the options of the socket it
 * was (inet_twsk_alloc(): tw_reuse, tw_reuseport).
 */
static bool reuse_relaxes(const struct bm_port *p, const struct bm_opts *o,
			  const struct bm_sock *sk2, unsigned int *rule)
{
	if ((o->reuse & BM_RA) && (sk2->opts.reuse & BM_RA) &&
	    !DROPPED(p, BM_R_REUSEADDR)) {
		*rule = RULE(BM_R_REUSEADDR);
		if (sk2->state != BM_ST_LISTEN)
			return true;
		*rule |= RULE(BM_R_REUSEADDR_LISTEN);
		if (DROPPED(p, BM_R_REUSEADDR_LISTEN))
			return true;
	}
	if (!(o->reuse & BM_RP) || !(sk2->opts.reuse & BM_RP) ||
	    DROPPED(p, BM_R_REUSEPORT))
		return false;
	*rule = RULE(BM_R_REUSEPORT);
	if (o->group && !DROPPED(p, BM_R_REUSEPORT_GROUP)) {
		*rule |= RULE(BM_R_REUSEPORT_GROUP);
		return false;
	}
	if (sk2->state == BM_ST_TW && !DROPPED(p, BM_R_TW_ANY_UID)) {
		*rule |= RULE(BM_R_TW_ANY_UID);
		return true;
	}
	*rule |= RULE(BM_R_REUSEPORT_UID);
	return o->other_uid == sk2->opts.other_uid ||
	       DROPPED(p, BM_R_REUSEPORT_UID);
}

/*
 * sk_bound_dev_if: 0 overlaps every device, two devices only themselves
 * (inet_bind_conflict(), and the l3mdev of inet_bind_bucket_match()).
 */
static bool dev_overlap(const struct bm_port *p, enum bm_dev a, enum bm_dev b)
{
	return a == BM_DEV_NONE || b == BM_DEV_NONE || a == b ||
	       DROPPED(p, BM_R_DEV);
}

/* Do a socket of (addr, o) and owner sk2 conflict? rules: why not/so. */
static bool conflict(const struct bm_port *p, enum bm_addr addr,
		     const struct bm_opts *o, const struct bm_sock *sk2,
		     unsigned int *rules)
{
	unsigned int where = 0, reuse = 0;

	if (!addr_overlap(p, addr, sk2->addr, &where)) {
		*rules |= where;
		return false;
	}
	if (!dev_overlap(p, o->dev, sk2->opts.dev)) {
		*rules |= RULE(BM_R_DEV);
		return false;
	}
	/*
	 * bind() to port 0 picks a port in inet_csk_find_open_port(), which
	 * asks inet_csk_bind_conflict() with relax and reuseport_ok false
	 * (net.ipv4.ip_autobind_reuse is 0): no reuse option shares.
	 */
	if (o->port0 && !DROPPED(p, BM_R_PORT0)) {
		reuse = RULE(BM_R_PORT0);
	} else if (reuse_relaxes(p, o, sk2, &reuse)) {
		*rules |= where | reuse;
		return false;
	}
	*rules = where | reuse;
	return true;
}

/* The port's owners against a new socket; self (or -1) is skipped. */
static int check(const struct bm_port *p, enum bm_addr addr,
		 const struct bm_opts *o, int self, struct bm_why *why)
{
	unsigned int rules = 0;
	int i;

	for (i = 0; i < p->n; i++) {
		if (i == self || p->sk[i].state == BM_ST_NONE)
			continue;
		if (conflict(p, addr, o, &p->sk[i], &rules)) {
			why->rules = rules;
			why->owner = i;
			return -EADDRINUSE;
		}
	}
	why->rules = rules;
	why->owner = -1;
	return 0;
}

void bm_port_init(struct bm_port *p, unsigned int drop)
{
	memset(p, 0, sizeof(*p));
	p->drop = drop;
}

bool bm_op_valid(const struct bm_port *p, const struct bm_op *op)
{
	const struct bm_sock *sk;

	if (op->kind == BM_OP_BIND)
		return p->n < BM_MAX_SOCKS;
	if (op->sk < 0 || op->sk >= p->n)
		return false;
	sk = &p->sk[op->sk];
	switch (op->kind) {
	case BM_OP_LISTEN:
		return sk->state == BM_ST_BOUND;
	case BM_OP_CLOSE:
		return sk->state == BM_ST_BOUND || sk->state == BM_ST_LISTEN;
	case BM_OP_TW:
		/* It connects over lo, which a socket bound elsewhere cannot. */
		return sk->state == BM_ST_BOUND && sk->opts.dev != BM_DEV_OTHER;
	default:
		return false;
	}
}

/*
 * A specific IPv6 address must be on the bound device: __inet6_bind()
 * asks ipv6_chk_addr() with the device of sk_bound_dev_if, and ::1 has
 * host scope, on lo only. IPv4 (inet_bind()) asks no device.
 */
static bool addr_unusable(const struct bm_port *p, enum bm_addr addr,
			  const struct bm_opts *o, struct bm_why *why)
{
	why->rules = RULE(BM_R_V6_DEV_ADDR);
	why->owner = -1;
	return addr == BM_V6_LO && o->dev == BM_DEV_OTHER &&
	       !DROPPED(p, BM_R_V6_DEV_ADDR);
}

int bm_probe(const struct bm_port *p, enum bm_addr addr,
	     const struct bm_opts *opts, struct bm_why *why)
{
	if (addr_unusable(p, addr, opts, why))
		return -EADDRNOTAVAIL;
	return check(p, addr, opts, -1, why);
}

/*
 * connect() of a socket bound to a wildcard binds it to the source
 * address it picks (inet_bhash2_update_saddr()): over lo, the loopback
 * of its family. The TIME_WAIT socket left behind holds that address.
 */
static enum bm_addr tw_addr(const struct bm_port *p, enum bm_addr a)
{
	if (DROPPED(p, BM_R_TW_SADDR))
		return a;
	switch (a) {
	case BM_V4_ANY:
		return BM_V4_LO;
	case BM_V6_ANY:
	case BM_V6_ANY_ONLY:
		return BM_V6_LO;
	case BM_V4M_ANY:
		return BM_V4M_LO;
	default:
		return a;
	}
}

/*
 * listen() asks the bind table again (inet_csk_listen_start() calls
 * get_port() with the socket already in TCP_LISTEN): an owner that the
 * bind() shared with may now conflict.
 */
static int do_listen(struct bm_port *p, struct bm_sock *sk, int self,
		     struct bm_why *why)
{
	struct bm_opts o = sk->opts;
	int err = 0;

	o.port0 = false;	/* it asks for the port it has */
	why->rules = RULE(BM_R_LISTEN_CHECK);
	why->owner = -1;
	if (!DROPPED(p, BM_R_LISTEN_CHECK))
		err = check(p, sk->addr, &o, self, why);
	if (!err)
		sk->state = BM_ST_LISTEN;
	return err;
}

int bm_step(struct bm_port *p, const struct bm_op *op, struct bm_why *why)
{
	struct bm_sock *sk = &p->sk[op->sk];
	int err = 0;

	why->rules = 0;
	why->owner = -1;
	switch (op->kind) {
	case BM_OP_BIND:
		sk = &p->sk[p->n++];
		err = addr_unusable(p, op->addr, &op->opts, why) ?
		      -EADDRNOTAVAIL :
		      check(p, op->addr, &op->opts, p->n - 1, why);
		sk->addr = op->addr;
		sk->opts = op->opts;
		sk->state = err ? BM_ST_NONE : BM_ST_BOUND;
		break;
	case BM_OP_LISTEN:
		err = do_listen(p, sk, op->sk, why);
		break;
	case BM_OP_CLOSE:
		/* inet_put_port() on close; a bound socket leaves no TW. */
		if (!DROPPED(p, BM_R_CLOSE))
			sk->state = BM_ST_NONE;
		break;
	case BM_OP_TW:
		/* tcp_time_wait() hands the bind bucket to the tw sock. */
		sk->addr = tw_addr(p, sk->addr);
		sk->state = DROPPED(p, BM_R_TW_HOLDS) ? BM_ST_NONE : BM_ST_TW;
		break;
	}
	return err;
}

const char *bm_addr_name(enum bm_addr a)
{
	return a < BM_NR_ADDRS ? bl_addr_words[a].word : "?";
}

const char *bm_addr_host(enum bm_addr a, bool *v6only)
{
	*v6only = bl_addr_words[a].v6only;
	return bl_addr_words[a].host;
}

bool bm_addr_is_v6(enum bm_addr a)
{
	return !!strchr(bl_addr_words[a].host, ':');
}

const char *bm_rule_name(enum bm_rule r)
{
	return r < BM_NR_RULES ? bl_rule_words[r] : "?";
}

int bm_rule_parse(const char *s)
{
	int r;

	for (r = 0; r < BM_NR_RULES; r++)
		if (!strcmp(s, bl_rule_words[r]))
			return r;
	return -EINVAL;
}

const char *bm_rules_str(unsigned int rules, char *buf, size_t len)
{
	size_t off = 0;
	int r;

	buf[0] = '\0';
	for (r = 0; r < BM_NR_RULES && off < len; r++)
		if (rules & RULE(r))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "+" : "", bl_rule_words[r]);
	if (!off)
		snprintf(buf, len, "same_address");
	return buf;
}

const char *bm_opts_str(const struct bm_opts *o, char *buf, size_t len)
{
	static const char * const devs[BM_NR_DEVS] = {
		"", " dev_lo", " dev_other",
	};

	snprintf(buf, len, "%s%s%s%s%s", bl_reuse_words[o->reuse & 3].model,
		 o->other_uid ? " uid1" : "", o->group ? " group" : "", devs[o->dev],
		 o->port0 ? " port0" : "");
	return buf;
}

const char *bm_op_str(const struct bm_op *op, char *buf, size_t len)
{
	static const char * const kinds[] = {
		[BM_OP_LISTEN] = "listen", [BM_OP_CLOSE] = "close",
		[BM_OP_TW] = "time_wait",
	};
	char o[48];

	if (op->kind == BM_OP_BIND)
		snprintf(buf, len, "bind %s %s", bm_addr_name(op->addr),
			 bm_opts_str(&op->opts, o, sizeof(o)));
	else
		snprintf(buf, len, "%s #%d", kinds[op->kind], op->sk);
	return buf;
}

const char *bm_state_name(enum bm_state s)
{
	static const char * const names[] = {
		[BM_ST_NONE] = "gone", [BM_ST_BOUND] = "bound",
		[BM_ST_LISTEN] = "listening", [BM_ST_TW] = "time_wait",
	};

	return names[s];
}

static int parse_addr(const char *s)
{
	int a;

	for (a = 0; a < BM_NR_ADDRS; a++)
		if (!strcmp(s, bl_addr_words[a].word))
			return a;
	return -EINVAL;
}

/* Options after "bind ADDR", in bm_opts_str()'s words. */
static int parse_opt(const char *w, struct bm_opts *o)
{
	unsigned int r;

	for (r = 0; r < BM_NR_REUSE; r++)
		if (!strcmp(w, bl_reuse_words[r].model)) {
			o->reuse = r;
			return 0;
		}
	if (!strcmp(w, "uid1"))
		o->other_uid = true;
	else if (!strcmp(w, "group"))
		o->group = true;
	else if (!strcmp(w, "dev_lo"))
		o->dev = BM_DEV_LO;
	else if (!strcmp(w, "dev_other"))
		o->dev = BM_DEV_OTHER;
	else if (!strcmp(w, "port0"))
		o->port0 = true;
	else
		return -EINVAL;
	return 0;
}

/* One step, as bm_op_str() prints it. */
static int parse_op(char *s, struct bm_op *op)
{
	static const char * const kinds[] = {
		[BM_OP_BIND] = "bind", [BM_OP_LISTEN] = "listen",
		[BM_OP_CLOSE] = "close", [BM_OP_TW] = "time_wait",
	};
	char *save, *w = strtok_r(s, " \t", &save);
	int k, a;

	memset(op, 0, sizeof(*op));
	for (k = 0; w && k < (int)ARRAY_SIZE(kinds); k++)
		if (!strcmp(w, kinds[k]))
			break;
	if (!w || k == (int)ARRAY_SIZE(kinds))
		return -EINVAL;
	op->kind = k;
	w = strtok_r(NULL, " \t", &save);
	if (!w)
		return -EINVAL;
	if (k != BM_OP_BIND)
		return sscanf(w, "#%d", &op->sk) == 1 &&
		       !strtok_r(NULL, " \t", &save) ? 0 : -EINVAL;
	a = parse_addr(w);
	if (a < 0)
		return a;
	op->addr = a;
	while ((w = strtok_r(NULL, " \t", &save)))
		if (parse_opt(w, &op->opts))
			return -EINVAL;
	return 0;
}

int bm_seq_parse(const char *text, struct bm_op *ops, int max)
{
	size_t len = strlen(text);
	char buf[1024], *save, *step;
	int n = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, len + 1);
	for (step = strtok_r(buf, ";", &save); step;
	     step = strtok_r(NULL, ";", &save)) {
		if (n == max || parse_op(step, &ops[n]))
			return -EINVAL;
		n++;
	}
	return n;
}
