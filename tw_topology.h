/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_reuse_loopback's topologies: loopback, addresses on lo, a veth in
 * the test's namespace, a veth pair to a second namespace; the client of
 * a row and the wait for tcp_tw_reuse_delay. Included by
 * tw_reuse_loopback.c only: the rows and tests are there.
 */
#ifndef TW_TOPOLOGY_H
#define TW_TOPOLOGY_H

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "ksft_bindlab.h"

#define SERVER_PORT	5000
#define CLIENT_PORT	6000	/* explicit binds */
#define RANGE		"40000 40003"
#define RANGE_PORTS	4
#define FIN_MS		2000	/* bound on each FIN's trip */
/*
 * Bound on a handshake (SO_SNDTIMEO): room for the SYN retransmissions
 * at 1 s and 3 s, which a first IPv6 connection over veth waiting for
 * neighbour discovery needed once in a loaded TCG guest (2 s failed).
 */
#define CONNECT_S	5
#define ADDR_MS		2000	/* bound on an address becoming usable */
#define VETH		"blv0"
#define VETH_PEER	"blv1"

/* ---- topologies ---- */

enum topo { ON_LO, ADDRS_ON_LO, VETH_ONE_NETNS, VETH_TWO_NETNS };

static const char * const lo_addrs[] = {
	"10.9.0.1/32", "10.9.0.2/32", "fd09::1/128", "fd09::2/128", NULL,
};

static const char * const veth_addrs[] = {
	"10.0.0.1/24", "10.0.0.2/24", "fd00::1/64", "fd00::2/64", NULL,
};

static const char * const no_addrs[] = { NULL };
static const char * const pair_client[] = { "10.1.0.1/24", "fd01::1/64", NULL };
static const char * const pair_server[] = { "10.1.0.2/24", "fd01::2/64", NULL };

/* Add cidrs to ifname (IPv6 ones only if v6), up, each one reachable. */
static int addrs_up(const char *ifname, const char * const *cidrs, bool v6,
		    struct bl_why *why)
{
	const char * const *c;
	char host[64];
	int err;

	for (c = cidrs; *c; c++) {
		if (!v6 && strchr(*c, ':'))
			continue;
		err = bl_addr_add(ifname, *c);
		if (err)
			return bl_why_set(why, err, "cannot add %s to %s: %s",
					  *c, ifname, strerror(-err));
	}
	err = bl_link_up(ifname);
	if (err)
		return bl_why_set(why, err, "cannot bring %s up: %s", ifname,
				  strerror(-err));
	for (c = cidrs; *c; c++) {
		if (!v6 && strchr(*c, ':'))
			continue;
		snprintf(host, sizeof(host), "%.*s",
			 (int)strcspn(*c, "/"), *c);
		err = bl_addr_wait(host, ADDR_MS);
		if (err)
			return bl_why_set(why, err, "%s on %s not usable after %d ms: %s",
					  host, ifname, ADDR_MS, strerror(-err));
	}
	return 0;
}

static int veth_new(int peer_ns, struct bl_why *why)
{
	int err = bl_veth_add(VETH, VETH_PEER, peer_ns);

	if (err)
		return bl_why_set(why, err, "cannot create veth %s/%s: %s",
				  VETH, VETH_PEER, strerror(-err));
	return 0;
}

/* The peer of VETH_TWO_NETNS, configured from inside its namespace. */
static int pair_server_setup(int peer_ns, bool v6, struct bl_why *why)
{
	int home = bl_netns_current(), err;

	if (home < 0)
		return bl_why_set(why, home, "cannot open our namespace");
	err = bl_netns_switch(peer_ns);
	if (!err) {
		err = addrs_up(VETH_PEER, pair_server, v6, why);
		if (bl_netns_switch(home) && !err)
			err = bl_why_set(why, EIO, "cannot come back from the peer namespace");
	} else {
		bl_why_set(why, err, "setns: %s", strerror(-err));
	}
	close(home);
	return err;
}

/* *peer_ns: the server's namespace, or -1 when the server is local. */
static int topo_setup(enum topo t, bool v6, int *peer_ns, struct bl_why *why)
{
	int err = 0;

	*peer_ns = -1;
	switch (t) {
	case ON_LO:
		break;
	case ADDRS_ON_LO:
		err = addrs_up("lo", lo_addrs, v6, why);
		break;
	case VETH_ONE_NETNS:
		err = veth_new(-1, why);
		/* The peer end up too: veth has carrier only then. */
		if (!err)
			err = addrs_up(VETH_PEER, no_addrs, v6, why);
		if (!err)
			err = addrs_up(VETH, veth_addrs, v6, why);
		break;
	case VETH_TWO_NETNS:
		*peer_ns = bl_netns_create(why);
		if (*peer_ns < 0)
			return *peer_ns;
		err = veth_new(*peer_ns, why);
		if (!err)
			err = addrs_up(VETH, pair_client, v6, why);
		if (!err)
			err = pair_server_setup(*peer_ns, v6, why);
		break;
	}
	return err;
}

/* A listener on host:port, in the peer namespace when there is one. */
static int listen_in(int peer_ns, const char *host, uint16_t port)
{
	int home, fd, err;

	if (peer_ns < 0)
		return bl_tcp_listen(host, port);
	home = bl_netns_current();
	if (home < 0)
		return home;
	err = bl_netns_switch(peer_ns);
	fd = err ? err : bl_tcp_listen(host, port);
	if (bl_netns_switch(home) && fd >= 0) {
		close(fd);
		fd = -EIO;
	}
	close(home);
	return fd;
}

/*
 * A client as a row describes it: SO_BINDTODEVICE dev, bind() to src with
 * the port left to connect() (IP_BIND_ADDRESS_NO_PORT: a port bound by
 * bind() would take connect() down the explicit-bind path, where
 * tcp_tw_reuse does not apply), connect() to dst. fd or -errno.
 */
static int row_connect(const char *src, const char *dev, const char *dst,
		       uint16_t port)
{
	struct sockaddr_storage d, s;
	socklen_t dlen, slen;
	int one = 1, fd, err;

	dlen = bl_sockaddr_parse(dst, port, &d);
	if (!dlen)
		return -EINVAL;
	fd = socket(d.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
			      strlen(dev) + 1))
		goto fail;
	if (src) {
		slen = bl_sockaddr_parse(src, 0, &s);
		if (!slen) {
			errno = EINVAL;
			goto fail;
		}
		if (setsockopt(fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT, &one,
			       sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&s, slen))
			goto fail;
	}
	err = bl_tcp_connect(fd, &d, CONNECT_S * 1000);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/*
 * Until a TIME_WAIT socket may be reused by connect(): tcp_tw_reuse_delay
 * ms after it began (6.14+, set to 1 ms by the tests), before that once
 * ktime_get_seconds() has passed the second of its last timestamp.
 */
static void wait_reuse_delay(bool delay_sysctl)
{
	struct timespec now;

	if (delay_sysctl) {
		usleep(10 * 1000);
		return;
	}
	/*
	 * One more whole second: the last segment that stamped the TIME_WAIT
	 * may be processed after our clock read (seen under qemu TCG).
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	usleep((1000000000L - now.tv_nsec) / 1000 + 1010 * 1000);
}

#endif /* TW_TOPOLOGY_H */
