/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Upstream's tools/testing/selftests/net/bind_wildcard.c read at run
 * time: its variant blocks parsed and replayed against the model, for
 * bind_model_test's model_upstream. Included by bind_model_test.c only.
 */
#ifndef MODEL_UPSTREAM_H
#define MODEL_UPSTREAM_H

#include "model_judge.h"

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

/*
 * bind_wildcard.c: the file BINDLAB_BIND_WILDCARD names, else the one of
 * the kernel tree this collection sits in (kselftest's runner runs us in
 * our own directory, beside net/).
 */
static FILE *upstream_open(char *path, size_t len)
{
	const char *env = env_set("BINDLAB_BIND_WILDCARD");
	struct bl_why why = { "" };

	snprintf(path, len, "%s", env ? env : "../net/bind_wildcard.c");
	/* Regular and small: a FIFO or a device must not block us. */
	return bl_open_regular(path, 1L << 17, &why);
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

/* One string that grep finds whole. */
#define MISSED_NOTE "bind_wildcard.%s.%s socket %d (%s): upstream expects %s, the model says %s"

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

	if (env_long("BINDLAB_MODEL_LIST", 0, 0, 1))
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
		BL_NOTE(MISSED_NOTE, v->name, test, i, bm_addr_name(op.addr),
			step_errname(want[i]), step_errname(got));
	}
	return missed;
}

#endif /* MODEL_UPSTREAM_H */
