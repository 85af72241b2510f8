// SPDX-License-Identifier: GPL-2.0
/*
 * TCP socket states as /proc/net/tcp and /proc/net/tcp6 list them for the
 * namespace of the reader. Enough to see a TIME_WAIT socket appear; a
 * namespace holding many thousands of sockets should use sock_diag, as
 * the lookup of one socket's cookie does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "bindlab_core.h"

static long count_file(const char *path, int state, uint16_t lport)
{
	unsigned int port, st;
	char line[512];
	long n = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;	/* no IPv6: no tcp6 */
	/* "  sl  local_address rem_address   st ..." then one line a socket */
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x",
			   &port, &st) != 2)
			continue;
		if ((int)st == state && (!lport || port == lport))
			n++;
	}
	fclose(f);
	return n;
}

long bl_tcp_count(int state, uint16_t lport)
{
	long v4 = count_file("/proc/net/tcp", state, lport);
	long v6 = count_file("/proc/net/tcp6", state, lport);

	if (v4 < 0)
		return v4;
	if (v6 < 0)
		return v6;
	return v4 + v6;
}

struct tcp_want {
	int state;
	uint16_t lport;
	long want;
};

static int tcp_count_ready(const void *arg)
{
	const struct tcp_want *w = arg;
	long n = bl_tcp_count(w->state, w->lport);

	return n < 0 ? (int)n : n >= w->want;
}

int bl_tcp_wait(int state, uint16_t lport, long want, int ms)
{
	struct tcp_want w = { state, lport, want };

	return bl_poll(tcp_count_ready, &w, ms);
}

/*
 * A count of a line of /proc/net/sockstat (sockstat6 for "TCP6") for this
 * namespace: "TCP" "inuse", hashed sockets (listeners and connections; a
 * TIME_WAIT one is no longer one); "TCP" "tw", the TIME_WAIT sockets of
 * both families; "sockets" "used", every socket made in this namespace
 * and not yet freed. -ENOENT: no such count.
 */
long bl_sockstat(const char *head, const char *field)
{
	size_t hl = strlen(head);
	char line[256], name[32];
	long n = -ENOENT, v;
	int used;
	char *p;
	FILE *f;

	f = fopen(strcmp(head, "TCP6") ? "/proc/net/sockstat" : "/proc/net/sockstat6", "re");
	if (!f)
		return -errno;
	/* The kernel's short lines: the line, read once. */
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, head, hl) || line[hl] != ':')
			continue;
		for (p = line + hl + 1; sscanf(p, "%31s %ld%n", name, &v, &used) == 2;
		     p += used)
			if (!strcmp(name, field)) {
				n = v;
				break;
			}
		break;
	}
	fclose(f);
	return n;
}

/*
 * A counter of /proc/net/netstat for this namespace, by its name
 * ("ListenDrops": segments a listener dropped, tcp_listendrop()), which
 * the line before the values' line gives. -ENOENT: no such counter.
 */
long bl_netstat(const char *field)
{
	char *names = NULL, *values = NULL, *n, *v, *sn, *sv;
	size_t nsize = 0, vsize = 0;
	long count = -ENOENT;
	FILE *f;

	f = fopen("/proc/net/netstat", "re");
	if (!f)
		return -errno;
	/* Pairs of lines, "TcpExt: NAME..." then "TcpExt: VALUE...". */
	while (count == -ENOENT && getline(&names, &nsize, f) > 0 &&
	       getline(&values, &vsize, f) > 0) {
		n = strtok_r(names, "\n ", &sn);
		v = strtok_r(values, "\n ", &sv);
		while (n && v) {
			n = strtok_r(NULL, "\n ", &sn);
			v = strtok_r(NULL, "\n ", &sv);
			if (n && v && !strcmp(n, field)) {
				count = strtol(v, NULL, 10);
				break;
			}
		}
	}
	free(names);
	free(values);
	fclose(f);
	return count;
}

/*
 * sock_diag's dump of this namespace's TCP sockets of family in states (a
 * mask of 1 << TCP_*): the cookie of the one from local port sport to
 * dport. 0 and *found false when there is none, -errno on a netlink error.
 */
int64_t bl_tcp_diag_cookie(int family, uint32_t states, uint16_t sport, uint16_t dport,
			   bool *found)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} rq = {
		.nlh = { .nlmsg_len = sizeof(rq), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = family, .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = states },
	};
	static uint32_t buf[4096];	/* NLMSG_ALIGNTO: 4 */
	struct inet_diag_msg *m;
	struct nlmsghdr *h;
	int64_t ret = 0;
	ssize_t n;
	int fd;

	*found = false;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (send(fd, &rq, sizeof(rq), 0) < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(h))->error ?: -EPROTO;
				goto out;
			}
			m = NLMSG_DATA(h);
			if (ntohs(m->id.idiag_sport) == sport && ntohs(m->id.idiag_dport) == dport) {
				*found = true;
				ret = m->id.idiag_cookie[0] | (int64_t)m->id.idiag_cookie[1] << 32;
			}
		}
	}
out:
	close(fd);
	return ret;
}
