// SPDX-License-Identifier: GPL-2.0
/*
 * The bind() cost loop of "tcp: Fix fastreuse cache initialization on first bind",
 * shared by bind_bench and the
 * regression test so that both measure exactly the same thing: N TCP
 * sockets with one set of reuse options bound to one port, addresses
 * taken round-robin, each bind() timed alone, every socket kept open.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bindlab_core.h"

const char *bl_family_name(enum bl_family f)
{
	return bl_family_words[f];
}

/* The vocabulary's words, and the command line's older spellings. */
int bl_family_parse(const char *s, enum bl_family *f)
{
	unsigned int i;

	for (i = 0; i < BL_NR_FAMILIES; i++)
		if (!strcmp(s, bl_family_words[i])) {
			*f = i;
			return 0;
		}
	if (!strcmp(s, "4") || !strcmp(s, "ipv4"))
		*f = BL_FAM_INET;
	else if (!strcmp(s, "6") || !strcmp(s, "ipv6"))
		*f = BL_FAM_INET6;
	else if (!strcmp(s, "mapped") || !strcmp(s, "v4mapped"))
		*f = BL_FAM_MAPPED;
	else
		return -EINVAL;
	return 0;
}

/*
 * IPv4 (plain or v4-mapped) uses 127.0.0.1, .2, ...: all of 127/8 is
 * local on lo. IPv6 has only ::1 there, so the second and later
 * addresses come from the documentation prefix, added to lo.
 */

socklen_t bl_bind_addr(const struct bl_bind_spec *spec, int i, uint16_t port,
		       struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	uint32_t k = i % spec->naddrs;

	memset(ss, 0, sizeof(*ss));
	switch (spec->family) {
	case BL_FAM_INET:
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK + k);
		return sizeof(*sin);
	case BL_FAM_MAPPED:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr.s6_addr[10] = 0xff;
		sin6->sin6_addr.s6_addr[11] = 0xff;
		k = htonl(INADDR_LOOPBACK + k);
		memcpy(&sin6->sin6_addr.s6_addr[12], &k, 4);
		return sizeof(*sin6);
	case BL_FAM_INET6:
	default:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (!k) {
			sin6->sin6_addr = in6addr_loopback;
		} else {
			sin6->sin6_addr.s6_addr[0] = 0x20;
			sin6->sin6_addr.s6_addr[1] = 0x01;
			sin6->sin6_addr.s6_addr[2] = 0x0d;
			sin6->sin6_addr.s6_addr[3] = 0xb8;
			sin6->sin6_addr.s6_addr[14] = k >> 8;
			sin6->sin6_addr.s6_addr[15] = k & 0xff;
		}
		return sizeof(*sin6);
	}
}

static void addr_cidr(const struct bl_bind_spec *spec, int k, char *cidr,
		      size_t len)
{
	char host[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss;

	bl_bind_addr(spec, k, 0, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host,
		  sizeof(host));
	snprintf(cidr, len, "%s/128", host);
}

int bl_bind_prepare_undo(const struct bl_bind_spec *spec,
			 struct bl_addr_undo *undo, struct bl_why *why)
{
	char cidr[INET6_ADDRSTRLEN + 5];
	int k, err;

	if (undo)
		undo->n = 0;
	if (spec->naddrs < 1 || spec->naddrs > BL_MAX_ADDRS)
		return bl_why_set(why, EINVAL, "address count %d not in 1..%d",
				  spec->naddrs, BL_MAX_ADDRS);
	if (spec->family != BL_FAM_INET && !bl_ipv6_usable(why))
		return -EAFNOSUPPORT;
	if (spec->family != BL_FAM_INET6)
		return 0;
	for (k = 1; k < spec->naddrs; k++) {
		addr_cidr(spec, k, cidr, sizeof(cidr));
		err = bl_addr_add("lo", cidr);
		if (err && err != -EEXIST)
			return bl_why_set(why, err, "cannot add %s to lo: %s",
					  cidr, strerror(-err));
		/* Only what we added is ours to remove. */
		if (!err && undo)
			undo->k[undo->n++] = k;
	}
	return 0;
}

int bl_bind_prepare(const struct bl_bind_spec *spec, struct bl_why *why)
{
	return bl_bind_prepare_undo(spec, NULL, why);
}

void bl_bind_undo(const struct bl_bind_spec *spec, struct bl_addr_undo *undo)
{
	char cidr[INET6_ADDRSTRLEN + 5];
	int i;

	for (i = 0; i < undo->n; i++) {
		addr_cidr(spec, undo->k[i], cidr, sizeof(cidr));
		bl_addr_del("lo", cidr);
	}
	undo->n = 0;
}

static int new_socket(const struct bl_bind_spec *spec)
{
	int one = 1, fd;

	fd = socket(spec->family == BL_FAM_INET ? AF_INET : AF_INET6,
		    SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if ((spec->reuseaddr &&
	     setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) ||
	    (spec->reuseport &&
	     setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int bl_bind_loop(const struct bl_bind_spec *spec, struct bl_bind_run *run,
		 struct bl_progress *progress, struct bl_why *err)
{
	struct sockaddr_storage ss;
	uint64_t t0, t1;
	socklen_t len;
	long i;
	int fd, ret;

	memset(run, 0, sizeof(*run));
	run->bind_ns = calloc(spec->n, sizeof(*run->bind_ns));
	run->fds = calloc(spec->n, sizeof(*run->fds));
	if (!run->bind_ns || !run->fds)
		return bl_why_set(err, ENOMEM, "out of memory for %ld samples",
				  spec->n);
	run->port = spec->port;
	for (i = 0; i < spec->n; i++) {
		fd = new_socket(spec);
		if (fd < 0)
			return bl_why_set(err, fd, "socket %ld: %s", i,
					  strerror(-fd));
		len = bl_bind_addr(spec, i, run->port, &ss);

		t0 = bl_now_ns();
		ret = bind(fd, (struct sockaddr *)&ss, len);
		t1 = bl_now_ns();

		if (ret) {
			ret = -errno;
			close(fd);
			return bl_why_set(err, ret, "bind %ld (port %u): %s",
					  i, run->port, strerror(-ret));
		}
		run->fds[i] = fd;
		run->bind_ns[i] = t1 - t0;
		run->total_ns += t1 - t0;
		run->n = i + 1;
		if (!run->port) {
			ret = bl_sock_port(fd);
			if (ret < 0)
				return bl_why_set(err, ret, "getsockname: %s",
						  strerror(-ret));
			run->port = ret;
		}
		if (progress && !(i & 255))
			bl_progress_update(progress, i);
	}
	bl_progress_done(progress);
	return 0;
}

void bl_bind_close(struct bl_bind_run *run)
{
	long i;

	for (i = 0; i < run->n; i++)
		close(run->fds[i]);
	free(run->fds);
	free(run->bind_ns);
	memset(run, 0, sizeof(*run));
}

static double median_u64(const uint64_t *ns, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), m;
	size_t i;

	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = ns[i];
	m = bl_median(v, n);
	free(v);
	return m;
}

double bl_growth(const uint64_t *ns, size_t n)
{
	size_t tenth = n / 10 ? n / 10 : 1;
	double first, last;

	if (!n)
		return 0;
	first = median_u64(ns, tenth);
	last = median_u64(ns + n - tenth, tenth);
	return first > 0 ? last / first : 0;
}

int bl_curve(const uint64_t *ns, size_t n, int buckets, double *median_ns)
{
	size_t b, lo, hi;

	if (buckets < 1 || n < (size_t)buckets)
		return -EINVAL;
	for (b = 0; b < (size_t)buckets; b++) {
		lo = n * b / buckets;
		hi = n * (b + 1) / buckets;
		median_ns[b] = median_u64(ns + lo, hi - lo);
	}
	return 0;
}
