// SPDX-License-Identifier: GPL-2.0
/*
 * tw_reuse_loopback: tcp_tw_reuse as seed 004 ("net-tcp: extend
 * tcp_tw_reuse sysctl to enable loopback only optimization") made it:
 * 0 off, 1 everywhere, 2 only for connections proven to be loopback.
 *
 *   tw_reuse_loopback [harness options]   the semantic tests (kselftest)
 *   tw_reuse_loopback churn [options]     the seed's churn benchmark
 *
 * How a test proves reuse: ip_local_port_range is cut to RANGE_PORTS
 * ports, as many connections to one server port leave their client side
 * in TIME_WAIT (/proc/net/tcp must show exactly that many), and with
 * tcp_tw_reuse=0 one more connect() must fail with EADDRNOTAVAIL: the
 * range is full. Then the row's tcp_tw_reuse decides whether connect()
 * takes a TIME_WAIT socket over. A refusal is checked to be the policy's,
 * not the sockets': with tcp_tw_reuse=1 the same connect() then succeeds.
 *
 * What "loopback" means to tcp_twsk_unique() (net/ipv4/tcp_ipv4.c): the
 * TIME_WAIT socket's own addresses, tw_daddr or tw_rcv_saddr in 127/8,
 * ::1 or ::ffff:127.0.0.0/104, or tw_bound_dev_if == LOOPBACK_IFINDEX.
 * Not the route: traffic between two local addresses always goes through
 * lo, yet tcp_tw_reuse=2 must refuse it. Hence three non-loopback
 * topologies, each refused:
 *  - ADDRS_ON_LO: 10.9.0.x and fd09::x assigned to lo itself;
 *  - VETH_ONE_NETNS: 10.0.0.x and fd00::x on a veth of the test's
 *    namespace, which routes them over lo all the same;
 *  - VETH_TWO_NETNS: a veth pair to a second namespace holding the
 *    server, the only one whose packets leave lo: what a host talking to
 *    another host does.
 * ADDRS_ON_LO also gives the "bound to lo" proof non-loopback addresses:
 * SO_BINDTODEVICE lo reaches only addresses that sit on lo.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
	struct timeval tv = { .tv_sec = CONNECT_S };
	struct sockaddr_storage d, s;
	socklen_t dlen, slen;
	int one = 1, fd, err;

	dlen = bl_sockaddr_parse(dst, port, &d);
	if (!dlen)
		return -EINVAL;
	fd = socket(d.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		goto fail;
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
	if (connect(fd, (struct sockaddr *)&d, dlen))
		goto fail;
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

static const char *errname(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EADDRNOTAVAIL:
		return "EADDRNOTAVAIL";
	case -EADDRINUSE:
		return "EADDRINUSE";
	case -EINVAL:
		return "EINVAL";
	default:
		return strerror(-err);
	}
}

/* ---- tcp_tw_reuse 0/1/2 and who counts as loopback ---- */

FIXTURE(tw_reuse)
{
	int lfd;
	int peer_ns;
	bool delay_sysctl;
};

FIXTURE_VARIANT(tw_reuse)
{
	int reuse;		/* tcp_tw_reuse under test */
	enum topo topo;
	const char *src;	/* client bind() address, or NULL */
	const char *dst;	/* server address */
	const char *dev;	/* client SO_BINDTODEVICE, or NULL */
	bool no_ts;		/* tcp_timestamps=0: nothing to protect reuse */
	bool reused;		/* connect() takes a TIME_WAIT socket over */
};

#define REUSED	true
#define REFUSED	false
#define TS	false
#define NO_TS	true

#define TW_ROW(_reuse, _topo, _src, _dst, _dev, _no_ts, _reused)	\
	.reuse = _reuse, .topo = _topo, .src = _src, .dst = _dst,	\
	.dev = _dev, .no_ts = _no_ts, .reused = _reused

/* tcp_tw_reuse=0: never, loopback or not. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v4_loopback)
{ TW_ROW(0, ON_LO, NULL, "127.0.0.1", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v6_loopback)
{ TW_ROW(0, ON_LO, NULL, "::1", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v4_veth_two_netns)
{ TW_ROW(0, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REFUSED) };

/* tcp_tw_reuse=1: everywhere, provided timestamps protect the reuse. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_loopback)
{ TW_ROW(1, ON_LO, NULL, "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_loopback)
{ TW_ROW(1, ON_LO, NULL, "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_mapped_loopback)
{ TW_ROW(1, ON_LO, NULL, "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_addrs_on_lo)
{ TW_ROW(1, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_veth_one_netns)
{ TW_ROW(1, VETH_ONE_NETNS, "10.0.0.1", "10.0.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_veth_one_netns)
{ TW_ROW(1, VETH_ONE_NETNS, "fd00::1", "fd00::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_veth_two_netns)
{ TW_ROW(1, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_veth_two_netns)
{ TW_ROW(1, VETH_TWO_NETNS, "fd01::1", "fd01::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_no_timestamps)
{ TW_ROW(1, ON_LO, NULL, "127.0.0.1", NULL, NO_TS, REFUSED) };

/* tcp_tw_reuse=2: each loopback proof alone suffices... */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_loopback)
{ TW_ROW(2, ON_LO, NULL, "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_dst_127)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_src_127_8)
{ TW_ROW(2, ADDRS_ON_LO, "127.0.0.2", "10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_loopback)
{ TW_ROW(2, ON_LO, NULL, "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_dst_1)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_src_1)
{ TW_ROW(2, ADDRS_ON_LO, "::1", "fd09::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_mapped_loopback)
{ TW_ROW(2, ON_LO, NULL, "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_mapped_dst_127)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:10.9.0.1", "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_mapped_src_127_8)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:127.0.0.2", "::ffff:10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_bound_to_lo)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", "lo", TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_bound_to_lo)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "fd09::2", "lo", TS, REUSED) };

/* ...and without any, the route through lo does not make it loopback. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "fd09::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_mapped_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:10.9.0.1", "::ffff:10.9.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_veth_one_netns)
{ TW_ROW(2, VETH_ONE_NETNS, "10.0.0.1", "10.0.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_veth_one_netns)
{ TW_ROW(2, VETH_ONE_NETNS, "fd00::1", "fd00::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_veth_two_netns)
{ TW_ROW(2, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_veth_two_netns)
{ TW_ROW(2, VETH_TWO_NETNS, "fd01::1", "fd01::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_no_timestamps)
{ TW_ROW(2, ON_LO, NULL, "127.0.0.1", NULL, NO_TS, REFUSED) };

FIXTURE_SETUP(tw_reuse)
{
	struct bl_why why = { "" };
	bool v6;
	int err;

	self->lfd = -1;
	self->peer_ns = -1;
	BL_ENTER_NETNS(return);
	v6 = bl_ipv6_usable(&why);
	if (!v6 && strchr(variant->dst, ':'))
		SKIP(return, "%s", why.msg);
	err = topo_setup(variant->topo, v6, &self->peer_ns, &why);
	if (err == -EOPNOTSUPP || err == -EPERM)
		SKIP(return, "%s", why.msg);
	ASSERT_EQ(0, err) TH_LOG("%s", why.msg);

	bl_tcp_ts_clock_wait();
	ASSERT_EQ(0, bl_sysctl_write(BL_SYSCTL_PORT_RANGE, RANGE));
	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, 0));
	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TIMESTAMPS, !variant->no_ts));
	/* 6.14+: the delay is a sysctl, so the tests need not wait 1 s. */
	self->delay_sysctl = bl_sysctl_exists(BL_SYSCTL_TW_DELAY);
	if (self->delay_sysctl)
		ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_DELAY, 1));

	self->lfd = listen_in(self->peer_ns, variant->dst, SERVER_PORT);
	ASSERT_LE(0, self->lfd) TH_LOG("listen on %s: %s", variant->dst,
				       strerror(-self->lfd));
}

FIXTURE_TEARDOWN(tw_reuse)
{
	if (self->lfd >= 0)
		close(self->lfd);
	if (self->peer_ns >= 0)
		close(self->peer_ns);
}

TEST_F(tw_reuse, full_range)
{
	const char *src = variant->src, *dev = variant->dev;
	const char *dst = variant->dst;
	long tw;
	int fd, i;

	for (i = 0; i < RANGE_PORTS; i++) {
		fd = row_connect(src, dev, dst, SERVER_PORT);
		ASSERT_LE(0, fd) TH_LOG("filling the range: connection %d: %s",
					i + 1, errname(fd));
		ASSERT_EQ(0, bl_tcp_time_wait(fd, self->lfd, FIN_MS));
	}
	tw = bl_tcp_count(TCP_TIME_WAIT, 0);
	ASSERT_EQ(RANGE_PORTS, tw) TH_LOG("%d connections closed, %ld sockets in TIME_WAIT",
					  RANGE_PORTS, tw);
	wait_reuse_delay(self->delay_sysctl);

	fd = row_connect(src, dev, dst, SERVER_PORT);
	ASSERT_EQ(-EADDRNOTAVAIL, fd) TH_LOG("tcp_tw_reuse=0 with every port in TIME_WAIT: connect() gave %s",
					     errname(fd < 0 ? fd : 0));

	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, variant->reuse));
	fd = row_connect(src, dev, dst, SERVER_PORT);
	if (variant->reused) {
		ASSERT_LE(0, fd) TH_LOG("tcp_tw_reuse=%d: connect() did not take a TIME_WAIT socket over: %s",
					variant->reuse, errname(fd));
		tw = bl_tcp_count(TCP_TIME_WAIT, 0);
		close(fd);
		ASSERT_EQ(RANGE_PORTS - 1, tw) TH_LOG("connected without taking a TIME_WAIT socket over?");
		return;
	}
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(-EADDRNOTAVAIL, fd) TH_LOG("tcp_tw_reuse=%d must not reuse here; connect() gave %s",
					     variant->reuse, errname(fd < 0 ? fd : 0));
	if (variant->no_ts)
		return;
	/* The refusal was the policy's: the sockets themselves are reusable. */
	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, 1));
	fd = row_connect(src, dev, dst, SERVER_PORT);
	ASSERT_LE(0, fd) TH_LOG("even tcp_tw_reuse=1 cannot reuse these TIME_WAIT sockets: %s",
				errname(fd));
	close(fd);
}

/*
 * ---- explicit bind() then connect(): no tcp_tw_reuse involved ----
 *
 * A socket that bind() gave a port reaches __inet_hash_connect() with
 * that port, which calls __inet_check_established() with twp == NULL.
 * For that case tcp_twsk_unique() takes the TIME_WAIT 4-tuple over as
 * soon as the TIME_WAIT socket saw timestamps, whatever tcp_tw_reuse and
 * with no reuse delay; without timestamps connect() gets EADDRNOTAVAIL.
 * Reaching connect() takes SO_REUSEADDR on both sockets: the TIME_WAIT
 * socket still owns the port in the bind table. Found on 6.18 by probing,
 * and what the code says since before tcp_tw_reuse became 0/1/2.
 */
FIXTURE(tw_bind)
{
	int lfd;
};

FIXTURE_VARIANT(tw_bind)
{
	int reuse;
	const char *src, *dst;
	bool no_ts;
	bool old_plain, new_plain;	/* without SO_REUSEADDR */
	int bind_err, connect_err;	/* of the second socket */
};

#define BIND_ROW(_reuse, _src, _dst, _no_ts, _old_plain, _new_plain,	\
		 _bind_err, _connect_err)				\
	.reuse = _reuse, .src = _src, .dst = _dst, .no_ts = _no_ts,	\
	.old_plain = _old_plain, .new_plain = _new_plain,		\
	.bind_err = _bind_err, .connect_err = _connect_err

FIXTURE_VARIANT_ADD(tw_bind, reuse0_v4_loopback)
{ BIND_ROW(0, "127.0.0.1", "127.0.0.1", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse1_v4_loopback)
{ BIND_ROW(1, "127.0.0.1", "127.0.0.1", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse0_v4_not_loopback)
{ BIND_ROW(0, "10.9.0.1", "10.9.0.2", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v4_not_loopback)
{ BIND_ROW(2, "10.9.0.1", "10.9.0.2", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse0_v6_loopback)
{ BIND_ROW(0, "::1", "::1", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v6_not_loopback)
{ BIND_ROW(2, "fd09::1", "fd09::2", TS, false, false, 0, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse0_v4_no_timestamps)
{ BIND_ROW(0, "127.0.0.1", "127.0.0.1", NO_TS, false, false, 0, EADDRNOTAVAIL) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v4_no_timestamps)
{ BIND_ROW(2, "127.0.0.1", "127.0.0.1", NO_TS, false, false, 0, EADDRNOTAVAIL) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v6_no_timestamps)
{ BIND_ROW(2, "::1", "::1", NO_TS, false, false, 0, EADDRNOTAVAIL) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v4_old_without_reuseaddr)
{ BIND_ROW(2, "127.0.0.1", "127.0.0.1", TS, true, false, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(tw_bind, reuse2_v4_new_without_reuseaddr)
{ BIND_ROW(2, "127.0.0.1", "127.0.0.1", TS, false, true, EADDRINUSE, 0) };

FIXTURE_SETUP(tw_bind)
{
	struct bl_why why = { "" };
	int peer_ns;
	bool v6;

	self->lfd = -1;
	BL_ENTER_NETNS(return);
	v6 = bl_ipv6_usable(&why);
	if (!v6 && strchr(variant->dst, ':'))
		SKIP(return, "%s", why.msg);
	ASSERT_EQ(0, topo_setup(ADDRS_ON_LO, v6, &peer_ns, &why))
		TH_LOG("%s", why.msg);
	bl_tcp_ts_clock_wait();
	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, variant->reuse));
	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TIMESTAMPS, !variant->no_ts));
	self->lfd = bl_tcp_listen(variant->dst, SERVER_PORT);
	ASSERT_LE(0, self->lfd);
}

FIXTURE_TEARDOWN(tw_bind)
{
	if (self->lfd >= 0)
		close(self->lfd);
}

/* A socket bound to src:CLIENT_PORT; bind()'s -errno in *err. */
static int bound_socket(const char *src, bool reuseaddr, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = bl_sockaddr_parse(src, CLIENT_PORT, &ss);
	int one = 1, fd;

	*err = 0;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = -errno;
		return fd;
	}
	if ((reuseaddr && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				     sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&ss, len))
		*err = -errno;
	return fd;
}

static int connect_to(int fd, const char *dst)
{
	struct timeval tv = { .tv_sec = CONNECT_S };
	struct sockaddr_storage ss;
	socklen_t len = bl_sockaddr_parse(dst, SERVER_PORT, &ss);

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&ss, len))
		return -errno;
	return 0;
}

TEST_F(tw_bind, takeover)
{
	int fd, err;
	long tw;

	fd = bound_socket(variant->src, !variant->old_plain, &err);
	ASSERT_EQ(0, err) TH_LOG("first bind: %s", errname(err));
	ASSERT_EQ(0, connect_to(fd, variant->dst));
	ASSERT_EQ(0, bl_tcp_time_wait(fd, self->lfd, FIN_MS));
	ASSERT_EQ(1, bl_tcp_count(TCP_TIME_WAIT, CLIENT_PORT));

	/* No wait: the reuse delay does not apply to explicit binds. */
	fd = bound_socket(variant->src, !variant->new_plain, &err);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-variant->bind_err, err) TH_LOG("bind() onto the TIME_WAIT port: %s, expected %s",
						 errname(err), errname(-variant->bind_err));
	if (err) {
		close(fd);
		return;
	}
	err = connect_to(fd, variant->dst);
	tw = bl_tcp_count(TCP_TIME_WAIT, CLIENT_PORT);
	close(fd);
	ASSERT_EQ(-variant->connect_err, err) TH_LOG("connect() onto the TIME_WAIT 4-tuple, tcp_tw_reuse=%d timestamps=%s: %s, expected %s",
						     variant->reuse, variant->no_ts ? "off" : "on",
						     errname(err), errname(-variant->connect_err));
	ASSERT_EQ(err ? 1 : 0, tw) TH_LOG("%ld TIME_WAIT sockets left on port %d",
					  tw, CLIENT_PORT);
}

/* ---- the sysctls' ranges: a refused write leaves the value alone ---- */

FIXTURE(tw_sysctl) {};

FIXTURE_VARIANT(tw_sysctl)
{
	const char *key;
	const char *before, *write;
	int err;
};

FIXTURE_VARIANT_ADD(tw_sysctl, reuse_0)
{ .key = BL_SYSCTL_TW_REUSE, .before = "1", .write = "0" };
FIXTURE_VARIANT_ADD(tw_sysctl, reuse_1)
{ .key = BL_SYSCTL_TW_REUSE, .before = "2", .write = "1" };
FIXTURE_VARIANT_ADD(tw_sysctl, reuse_2)
{ .key = BL_SYSCTL_TW_REUSE, .before = "0", .write = "2" };
FIXTURE_VARIANT_ADD(tw_sysctl, reuse_3)
{ .key = BL_SYSCTL_TW_REUSE, .before = "1", .write = "3", .err = EINVAL };
FIXTURE_VARIANT_ADD(tw_sysctl, reuse_minus_1)
{ .key = BL_SYSCTL_TW_REUSE, .before = "1", .write = "-1", .err = EINVAL };
/* Stored in a u8 since 6.x: 256 must not wrap to 0. */
FIXTURE_VARIANT_ADD(tw_sysctl, reuse_256)
{ .key = BL_SYSCTL_TW_REUSE, .before = "1", .write = "256", .err = EINVAL };
FIXTURE_VARIANT_ADD(tw_sysctl, delay_0)
{ .key = BL_SYSCTL_TW_DELAY, .before = "1000", .write = "0", .err = EINVAL };
FIXTURE_VARIANT_ADD(tw_sysctl, delay_1)
{ .key = BL_SYSCTL_TW_DELAY, .before = "1000", .write = "1" };
FIXTURE_VARIANT_ADD(tw_sysctl, delay_60000)
{ .key = BL_SYSCTL_TW_DELAY, .before = "1000", .write = "60000" };
FIXTURE_VARIANT_ADD(tw_sysctl, delay_60001)
{ .key = BL_SYSCTL_TW_DELAY, .before = "1000", .write = "60001", .err = EINVAL };

FIXTURE_SETUP(tw_sysctl)
{
	BL_ENTER_NETNS(return);
	if (!bl_sysctl_exists(variant->key))
		SKIP(return, "no %s in this kernel (tcp_tw_reuse_delay: 6.14+)",
		     variant->key);
}

FIXTURE_TEARDOWN(tw_sysctl)
{
}

TEST_F(tw_sysctl, write)
{
	char buf[32];
	int err;

	ASSERT_EQ(0, bl_sysctl_write(variant->key, variant->before));
	err = bl_sysctl_write(variant->key, variant->write);
	EXPECT_EQ(-variant->err, err) TH_LOG("writing %s to %s: %s, expected %s",
					     variant->write, variant->key,
					     errname(err), errname(-variant->err));
	ASSERT_EQ(0, bl_sysctl_read(variant->key, buf, sizeof(buf)));
	ASSERT_STREQ(variant->err ? variant->before : variant->write, buf);
}

/* Seed 004's last hunk: a new namespace starts loopback-only. */
TEST(tw_reuse_default_is_2)
{
	long v;

	BL_ENTER_NETNS(return);
	ASSERT_EQ(0, bl_sysctl_read_long(BL_SYSCTL_TW_REUSE, &v));
	ASSERT_EQ(2, v);
}

/*
 * ---- churn: the seed's benchmark ----
 *
 * Every run (one tcp_tw_reuse value, one round) happens in a child of its
 * own, in a namespace of its own: its sockets, TIME_WAIT and sysctls die
 * with it. Rounds interleave the values so that drift on a shared machine
 * spreads over all of them.
 */
#define CHURN_N		50000
#define CHURN_MAX_N	2000000
#define CHURN_T		60
#define CHURN_MAX_T	600
#define CHURN_MAX_ROUNDS	100
#define CHURN_MAX_WALL	7200	/* s, all runs together */
#define CHURN_GRACE	30	/* s past the time limit: the run is killed */

struct churn_opts {
	struct bl_churn_spec spec;
	long time_s, rounds;
	long delay_ms;		/* 0: the kernel's */
	long lo, hi;		/* 0: the kernel's range */
	int reuse[3], nreuse;
	const char *json;
	bool quiet;
};

/* What a run's child hands back through shared memory. */
struct churn_out {
	char why[256];
	long delay_ms;		/* in effect: 1000 without the sysctl */
	bool delay_sysctl;
	long timestamps;
	struct bl_churn_run run;	/* pointers fixed up by the parent */
	uint64_t data[];	/* connect_ns, then per_second */
};

static const char *prog = "tw_reuse_loopback";

static void churn_usage(FILE *f)
{
	fprintf(f,
		"usage: %s churn [options]\n"
		"  Open and close TCP connections to [::1] or 127.0.0.1 in a tight loop, the\n"
		"  client closing first (it keeps the TIME_WAIT), for N connections or T\n"
		"  seconds, once per tcp_tw_reuse value, each run in a fresh namespace.\n"
		"  Reports connections/s, connect() p50/p99, the failure point (connections\n"
		"  before the first EADDRNOTAVAIL) and whether ports or the CPU set the rate.\n"
		"options:\n"
		"  -f, --family 4|6         127.0.0.1 or [::1] (default 6, as the seed)\n"
		"  -n, --connections N      connections per run (default %d, max %d)\n"
		"  -t, --time T             seconds per run at most (default %d, max %d)\n"
		"  -R, --tw-reuse V         0, 1, 2, a list (0,2) or all (default all)\n"
		"  -p, --port-range LO-HI   ip_local_port_range of the runs (1025..65535)\n"
		"  -d, --reuse-delay MS     tcp_tw_reuse_delay (1..60000; kernels 6.14+)\n"
		"      --rst                close with SO_LINGER 0: no TIME_WAIT (control)\n"
		"  -k, --keep-going         after EADDRNOTAVAIL wait 1 ms and retry\n"
		"  -r, --rounds R           rounds of every value (default 1, max %d)\n"
		"  -j, --json FILE          results as JSON (- for stdout)\n"
		"  -q, --quiet              one line per tcp_tw_reuse value\n"
		"  -h, --help               this text\n"
		"seed 004's experiment: %s churn -p 32768-65535 -n 50000 -R 0,2 -t 300\n"
		"exit: 0 ok, 1 error, 2 usage, 4 skip (no privilege, netns, IPv6)\n",
		prog, CHURN_N, CHURN_MAX_N, CHURN_T, CHURN_MAX_T,
		CHURN_MAX_ROUNDS, prog);
}

static int parse_reuse(struct churn_opts *o, const char *arg,
		       struct bl_why *why)
{
	char *copy, *tok, *save = NULL;
	bool seen[3] = { false };
	long v;
	int err = 0;

	o->nreuse = 0;
	if (!strcmp(arg, "all")) {
		for (v = 0; v < 3; v++)
			o->reuse[o->nreuse++] = v;
		return 0;
	}
	copy = strdup(arg);
	if (!copy)
		return bl_why_set(why, ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		err = bl_arg_long("tcp_tw_reuse value", tok, 0, 2, &v, why);
		if (!err && seen[v])
			err = bl_why_set(why, EINVAL, "tcp_tw_reuse %ld given twice", v);
		if (!err) {
			seen[v] = true;
			o->reuse[o->nreuse++] = v;
		}
	}
	free(copy);
	if (!err && !o->nreuse)
		err = bl_why_set(why, EINVAL, "empty --tw-reuse list");
	return err;
}

static int parse_range(struct churn_opts *o, const char *arg,
		       struct bl_why *why)
{
	char lo[16], hi[16];
	const char *dash = strchr(arg, '-');
	int err;

	if (!dash || dash == arg || (size_t)(dash - arg) >= sizeof(lo) ||
	    strlen(dash + 1) >= sizeof(hi))
		return bl_why_set(why, EINVAL, "port range '%s' is not LO-HI", arg);
	memcpy(lo, arg, dash - arg);
	lo[dash - arg] = '\0';
	snprintf(hi, sizeof(hi), "%s", dash + 1);
	/* The server takes LO - 1, outside the range: LO > 1024. */
	err = bl_arg_long("port range start", lo, 1025, 65534, &o->lo, why);
	if (!err)
		err = bl_arg_long("port range end", hi, o->lo + 1, 65535,
				  &o->hi, why);
	return err;
}

static int churn_option(struct churn_opts *o, int c, const char *arg,
			struct bl_why *why)
{
	switch (c) {
	case 'f':
		if (!strcmp(arg, "4"))
			o->spec.family = AF_INET;
		else if (!strcmp(arg, "6"))
			o->spec.family = AF_INET6;
		else
			return bl_why_set(why, EINVAL, "family '%s' is neither 4 nor 6", arg);
		return 0;
	case 'n':
		return bl_arg_long("connections", arg, 1, CHURN_MAX_N,
				   &o->spec.n, why);
	case 't':
		return bl_arg_long("time", arg, 1, CHURN_MAX_T, &o->time_s, why);
	case 'R':
		return parse_reuse(o, arg, why);
	case 'p':
		return parse_range(o, arg, why);
	case 'd':
		return bl_arg_long("reuse delay", arg, 1, 60000, &o->delay_ms,
				   why);
	case 'S':
		o->spec.rst = true;
		return 0;
	case 'k':
		o->spec.keep_going = true;
		return 0;
	case 'r':
		return bl_arg_long("rounds", arg, 1, CHURN_MAX_ROUNDS,
				   &o->rounds, why);
	case 'j':
		if (!*arg)
			return bl_why_set(why, EINVAL, "empty --json file name");
		o->json = arg;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	}
	return bl_why_set(why, EINVAL, "unknown option");
}

/* 0, 1 for --help, or -EINVAL with why explaining the usage error. */
static int churn_parse(struct churn_opts *o, int argc, char **argv,
		       struct bl_why *why)
{
	static const struct option longopts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "connections", required_argument, NULL, 'n' },
		{ "time", required_argument, NULL, 't' },
		{ "tw-reuse", required_argument, NULL, 'R' },
		{ "port-range", required_argument, NULL, 'p' },
		{ "reuse-delay", required_argument, NULL, 'd' },
		{ "rst", no_argument, NULL, 'S' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, err;

	*o = (struct churn_opts){
		.spec = { .family = AF_INET6, .n = CHURN_N },
		.time_s = CHURN_T, .rounds = 1,
		.reuse = { 0, 1, 2 }, .nreuse = 3,
	};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:n:t:R:p:d:kr:j:qh", longopts,
				NULL)) != -1) {
		if (c == 'h')
			return 1;
		err = bl_getopt_error(c, argv, why);
		if (err)
			return err;
		err = churn_option(o, c, optarg, why);
		if (err)
			return err;
	}
	if (optind < argc)
		return bl_why_set(why, EINVAL, "unexpected argument '%s'",
				  argv[optind]);
	if (o->rounds * o->nreuse * o->time_s > CHURN_MAX_WALL)
		return bl_why_set(why, EINVAL,
				  "%ld rounds x %d values x %ld s exceed %d s",
				  o->rounds, o->nreuse, o->time_s,
				  CHURN_MAX_WALL);
	o->spec.max_ns = o->time_s * 1000000000ULL;
	return 0;
}

static size_t churn_out_size(const struct churn_opts *o)
{
	long seconds = o->time_s + 2;	/* as bl_churn_loop() counts them */

	return sizeof(struct churn_out) + o->spec.n * sizeof(uint64_t) +
	       seconds * sizeof(uint32_t);
}

static int churn_sysctls(const struct churn_opts *o, int reuse,
			 struct churn_out *out, struct bl_why *why)
{
	char range[32];
	int err;

	err = bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, reuse);
	if (err)
		return bl_why_set(why, err, "tcp_tw_reuse=%d: %s", reuse,
				  strerror(-err));
	if (o->lo) {
		snprintf(range, sizeof(range), "%ld %ld", o->lo, o->hi);
		err = bl_sysctl_write(BL_SYSCTL_PORT_RANGE, range);
		if (err)
			return bl_why_set(why, err, "ip_local_port_range %s: %s",
					  range, strerror(-err));
	}
	out->delay_sysctl = bl_sysctl_exists(BL_SYSCTL_TW_DELAY);
	out->delay_ms = 1000;
	if (o->delay_ms) {
		err = bl_sysctl_write_long(BL_SYSCTL_TW_DELAY, o->delay_ms);
		if (err)
			return bl_why_set(why, err, "tcp_tw_reuse_delay=%ld: %s",
					  o->delay_ms, strerror(-err));
	}
	if (out->delay_sysctl)
		bl_sysctl_read_long(BL_SYSCTL_TW_DELAY, &out->delay_ms);
	bl_sysctl_read_long(BL_SYSCTL_TIMESTAMPS, &out->timestamps);
	return 0;
}

/* The run's child: namespace, sysctls, the loop, results to out. */
static int churn_child(const struct churn_opts *o, int reuse,
		       struct churn_out *out)
{
	struct bl_churn_spec spec = o->spec;
	struct bl_why why = { "" };
	struct bl_progress progress;
	struct bl_churn_run run;
	uint16_t lo, hi;
	int err;

	err = bl_netns_enter(&why);
	if (!err && spec.family == AF_INET6 && !bl_ipv6_usable(&why))
		err = -EAFNOSUPPORT;
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
		return BL_EXIT_SKIP;
	}
	err = churn_sysctls(o, reuse, out, &why);
	if (!err)
		err = bl_port_range(&lo, &hi);
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s",
			 why.msg[0] ? why.msg : "cannot read the port range");
		return BL_EXIT_FAIL;
	}
	spec.port = lo - 1;
	/* The wall-clock guard: SIGALRM's default action ends the run. */
	alarm(o->time_s + CHURN_GRACE / 2);
	bl_progress_init(&progress, "churn", spec.n);
	err = bl_churn_loop(&spec, &run, &progress, &why);
	alarm(0);
	out->run = run;
	if (run.connect_ns)
		memcpy(out->data, run.connect_ns, run.done * sizeof(uint64_t));
	if (run.per_second)
		memcpy(out->data + spec.n, run.per_second,
		       run.seconds * sizeof(uint32_t));
	bl_churn_free(&run);
	if (err)
		snprintf(out->why, sizeof(out->why), "%s", why.msg);
	return err ? BL_EXIT_FAIL : BL_EXIT_PASS;
}

/* Wait for a run's child; past the limit it is killed. */
static int churn_wait(pid_t pid, long limit_s, struct churn_out *out)
{
	uint64_t deadline = bl_now_ns() + limit_s * 1000000000ULL;
	int status = 0;
	pid_t w;

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(out->why, sizeof(out->why), "waitpid: %s",
				 strerror(errno));
			return BL_EXIT_FAIL;
		}
		if (bl_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(out->why, sizeof(out->why),
				 "run still going after %ld s: killed", limit_s);
			return BL_EXIT_FAIL;
		}
		usleep(10000);
	}
	if (WIFSIGNALED(status)) {
		snprintf(out->why, sizeof(out->why), "run died: %s%s",
			 strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? " (wall-clock guard)" : "");
		return BL_EXIT_FAIL;
	}
	return WEXITSTATUS(status);
}

static int churn_run(const struct churn_opts *o, int reuse,
		     struct churn_out *out)
{
	pid_t parent = getpid(), pid;
	int ret;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(out->why, sizeof(out->why), "fork: %s", strerror(errno));
		return BL_EXIT_FAIL;
	}
	if (!pid) {
		/* Killed with the parent: no run outlives the program. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(BL_EXIT_FAIL);
		_exit(churn_child(o, reuse, out));
	}
	ret = churn_wait(pid, o->time_s + CHURN_GRACE, out);
	/* Samples live in the shared mapping, after the header. */
	out->run.connect_ns = out->data;
	out->run.per_second = (uint32_t *)(out->data + o->spec.n);
	return ret;
}

/* All rounds of one tcp_tw_reuse value. */
struct churn_sum {
	int reuse;
	double *rate, *p50, *p99, *fail;
	long nfail;		/* rounds that hit EADDRNOTAVAIL */
	long capped;		/* rounds found port-capped */
	struct bl_stats rate_st, p50_st, p99_st, fail_st;
	struct bl_churn_verdict verdict;
};

static const char *family_name(int family)
{
	return family == AF_INET6 ? "ipv6" : "ipv4";
}

/* port-capped > near-port-cap > cpu-bound: a round at the wall taints all. */
static int severity(const char *regime)
{
	if (!strcmp(regime, "port-capped"))
		return 2;
	return !strcmp(regime, "near-port-cap");
}

static int churn_summarize(const struct churn_opts *o, int reuse,
			   struct churn_out **outs, struct churn_sum *s)
{
	struct bl_churn_verdict v;
	long r;

	s->reuse = reuse;
	s->rate = calloc(o->rounds, sizeof(double));
	s->p50 = calloc(o->rounds, sizeof(double));
	s->p99 = calloc(o->rounds, sizeof(double));
	s->fail = calloc(o->rounds, sizeof(double));
	if (!s->rate || !s->p50 || !s->p99 || !s->fail)
		return -ENOMEM;
	for (r = 0; r < o->rounds; r++) {
		const struct bl_churn_run *run = &outs[r]->run;

		s->rate[r] = bl_churn_rate(run);
		bl_churn_latency(run, &s->p50[r], &s->p99[r]);
		if (run->failure_point >= 0)
			s->fail[s->nfail++] = run->failure_point;
		bl_churn_regime(run, reuse, outs[r]->delay_ms, o->spec.rst, &v);
		if (!r || severity(v.regime) > severity(s->verdict.regime))
			s->verdict = v;
		if (!strcmp(v.regime, "port-capped"))
			s->capped++;
	}
	if (bl_stats_compute(s->rate, o->rounds, &s->rate_st) ||
	    bl_stats_compute(s->p50, o->rounds, &s->p50_st) ||
	    bl_stats_compute(s->p99, o->rounds, &s->p99_st))
		return -ENOMEM;
	if (s->nfail && bl_stats_compute(s->fail, s->nfail, &s->fail_st))
		return -ENOMEM;
	return 0;
}

static void churn_sum_free(struct churn_sum *s)
{
	free(s->rate);
	free(s->p50);
	free(s->p99);
	free(s->fail);
}

static void print_run(const struct churn_opts *o, int reuse, long round,
		      const struct churn_out *out)
{
	const struct bl_churn_run *run = &out->run;
	struct bl_churn_verdict v;
	double p50, p99;
	char fail[64] = "none";

	bl_churn_latency(run, &p50, &p99);
	bl_churn_regime(run, reuse, out->delay_ms, o->spec.rst, &v);
	if (run->failure_point >= 0)
		snprintf(fail, sizeof(fail), "%ld@%.2fs", run->failure_point,
			 run->failure_ns / 1e9);
	printf("run tw_reuse=%d round=%ld conns=%ld seconds=%.3f conn_per_s=%.0f connect_p50_us=%.1f connect_p99_us=%.1f failure_point=%s eaddrnotavail=%ld second_parity_pct=%.1f stop=%s regime=%s port_range=%u-%u reuse_delay_ms=%ld%s\n",
	       reuse, round, run->done, run->total_ns / 1e9,
	       bl_churn_rate(run), p50 / 1e3, p99 / 1e3, fail, run->exhausted,
	       run->done ? 100.0 * run->second_parity / run->done : 0.0,
	       bl_churn_stop_name(run->stop), v.regime, run->range_lo,
	       run->range_hi,
	       out->delay_ms, out->delay_sysctl ? "" : "(no sysctl)");
}

static void print_sum(const struct churn_opts *o, const struct churn_sum *s)
{
	char fail[96] = "none";

	if (s->nfail)
		snprintf(fail, sizeof(fail), "%.0f(%ld/%ld rounds)",
			 s->fail_st.p50, s->nfail, o->rounds);
	printf("tw_reuse=%d conn_per_s=%.0f min=%.0f max=%.0f ci95=%.0f..%.0f connect_p50_us=%.1f connect_p99_us=%.1f failure_point=%s regime=%s port_cap=%.0f rounds=%ld\n",
	       s->reuse, s->rate_st.p50, s->rate_st.min, s->rate_st.max,
	       s->rate_st.ci_lo, s->rate_st.ci_hi, s->p50_st.p50 / 1e3,
	       s->p99_st.p50 / 1e3, fail, s->verdict.regime, s->verdict.cap,
	       o->rounds);
	if (o->quiet)
		return;
	printf("# %s: %s\n", s->verdict.regime, s->verdict.why);
	if (s->verdict.cap_why[0])
		printf("# port cap %.0f conn/s: %s\n", s->verdict.cap,
		       s->verdict.cap_why);
}

static json_t *churn_params(const struct churn_opts *o, int reuse)
{
	char range[32];

	snprintf(range, sizeof(range), "%ld-%ld", o->lo, o->hi);
	return json_pack("{s:s, s:I, s:I, s:s, s:o, s:o, s:i, s:b, s:I}",
			 "family", family_name(o->spec.family),
			 "n", (json_int_t)o->spec.n,
			 "time_limit_s", (json_int_t)o->time_s,
			 "close", o->spec.rst ? "rst" : "fin",
			 "port_range", o->lo ? json_string(range) : json_null(),
			 "reuse_delay_ms", o->delay_ms ?
				json_integer(o->delay_ms) : json_null(),
			 "tw_reuse", reuse, "keep_going", o->spec.keep_going,
			 "rounds", (json_int_t)o->rounds);
}

static json_t *round_json(const struct churn_opts *o, long round,
			  const struct churn_out *out, const struct churn_sum *s)
{
	const struct bl_churn_run *run = &out->run;
	struct bl_churn_verdict v;
	long seconds = run->total_ns / 1000000000ULL + 1;
	json_t *ps = json_array(), *sysctls;
	char range[32];
	long i;

	for (i = 0; i < seconds && i < run->seconds; i++)
		json_array_append_new(ps, json_integer(run->per_second[i]));
	/* Read inside the run's namespace: what was measured, not the host. */
	snprintf(range, sizeof(range), "%u %u", run->range_lo, run->range_hi);
	sysctls = json_pack("{s:s, s:I, s:b, s:I}",
			    "ip_local_port_range", range,
			    "tcp_tw_reuse_delay_ms", (json_int_t)out->delay_ms,
			    "tcp_tw_reuse_delay_sysctl", out->delay_sysctl,
			    "tcp_timestamps", (json_int_t)out->timestamps);
	bl_churn_regime(run, s->reuse, out->delay_ms, o->spec.rst, &v);
	return json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:o, s:I, s:I, s:I, s:s, s:s, s:o, s:o, s:o}",
			 "round", (json_int_t)round + 1,
			 "conns", (json_int_t)run->done,
			 "total_ns", (json_int_t)run->total_ns,
			 "conn_per_s", s->rate[round],
			 "connect_p50_ns", s->p50[round],
			 "connect_p99_ns", s->p99[round],
			 "failure_point", run->failure_point < 0 ? json_null() :
				json_integer(run->failure_point),
			 "failure_ns", (json_int_t)run->failure_ns,
			 "eaddrnotavail", (json_int_t)run->exhausted,
			 "second_parity", (json_int_t)run->second_parity,
			 "stop", bl_churn_stop_name(run->stop),
			 "regime", v.regime,
			 "sysctls", sysctls,
			 "per_second", ps,
			 "connect_ns", bl_u64_array_json(run->connect_ns,
							 run->done));
}

static json_t *churn_case(const struct churn_opts *o, int reuse,
			  struct churn_out **outs, const struct churn_sum *s)
{
	char id[160], range[32] = "", delay[32] = "";
	json_t *root, *rounds = json_array(), *fail;
	long r;

	if (o->lo)
		snprintf(range, sizeof(range), ".range%ld-%ld", o->lo, o->hi);
	if (o->delay_ms)
		snprintf(delay, sizeof(delay), ".delay%ld", o->delay_ms);
	snprintf(id, sizeof(id), "tw_churn.%s.%s.tw_reuse%d.n%ld%s%s%s",
		 family_name(o->spec.family), o->spec.rst ? "rst" : "fin",
		 reuse, o->spec.n, range, delay,
		 o->spec.keep_going ? ".keep_going" : "");
	root = bl_result_new("tw_churn", id);
	json_object_set_new(root, "params", churn_params(o, reuse));
	for (r = 0; r < o->rounds; r++)
		json_array_append_new(rounds, round_json(o, r, outs[r], s));
	json_object_set_new(root, "rounds", rounds);
	json_object_set_new(root, "metric",
			    bl_metric_json("conn_per_s", "conn/s", false,
					   s->rate, o->rounds));
	fail = s->nfail ? bl_stats_json(&s->fail_st) : json_null();
	json_object_set_new(root, "summary",
			    json_pack("{s:o, s:o, s:o, s:o, s:I, s:s, s:s, s:I, s:f, s:s}",
				      "conn_per_s", bl_stats_json(&s->rate_st),
				      "connect_p50_ns", bl_stats_json(&s->p50_st),
				      "connect_p99_ns", bl_stats_json(&s->p99_st),
				      "failure_point", fail,
				      "failed_rounds", (json_int_t)s->nfail,
				      "regime", s->verdict.regime,
				      "regime_why", s->verdict.why,
				      "port_capped_rounds", (json_int_t)s->capped,
				      "port_cap_conn_per_s", s->verdict.cap,
				      "port_cap_why", s->verdict.cap_why));
	return root;
}

/* One value: a result as bind_bench writes it; several: a run file. */
static int churn_json(const struct churn_opts *o, struct churn_out ***outs,
		      const struct churn_sum *sums)
{
	json_t *root, *cases = json_array();
	struct bl_why why = { "" };
	int v, err;

	for (v = 0; v < o->nreuse; v++)
		json_array_append_new(cases, churn_case(o, o->reuse[v],
							outs[v], &sums[v]));
	if (o->nreuse == 1) {
		root = json_incref(json_array_get(cases, 0));
		json_decref(cases);
	} else {
		root = json_pack("{s:s, s:i, s:s, s:o, s:o}",
				 "schema", BINDLAB_RUN_SCHEMA,
				 "schema_version", BINDLAB_SCHEMA_VERSION,
				 "harness_version", BINDLAB_VERSION,
				 "env", bl_env_json(), "cases", cases);
	}
	err = bl_json_save(root, o->json, &why);
	json_decref(root);
	if (err)
		fprintf(stderr, "%s: cannot write %s\n", prog, why.msg);
	return err;
}

static void churn_header(const struct churn_opts *o)
{
	char range[32] = "default", delay[32] = "default", list[16] = "";
	int v;

	if (o->lo)
		snprintf(range, sizeof(range), "%ld-%ld", o->lo, o->hi);
	if (o->delay_ms)
		snprintf(delay, sizeof(delay), "%ld", o->delay_ms);
	for (v = 0; v < o->nreuse; v++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%d", v ? "," : "", o->reuse[v]);
	printf("# %s churn %s\nfamily=%s n=%ld time_limit_s=%ld close=%s port_range=%s reuse_delay_ms=%s tw_reuse=%s keep_going=%s rounds=%ld\n",
	       prog, BINDLAB_VERSION, family_name(o->spec.family), o->spec.n,
	       o->time_s, o->spec.rst ? "rst" : "fin", range, delay, list,
	       o->spec.keep_going ? "yes" : "no", o->rounds);
}

/*
 * The command line, the destination and what the kernel must have, before
 * any work: -1 to go on, else the exit status.
 */
static int churn_start(struct churn_opts *o, int argc, char **argv)
{
	struct bl_why why = { "" };
	int ret = churn_parse(o, argc, argv, &why);

	if (ret > 0) {
		churn_usage(stdout);
		return BL_EXIT_PASS;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		churn_usage(stderr);
		return BL_EXIT_USAGE;
	}
	if (o->json && bl_out_check(o->json, &why)) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		return BL_EXIT_USAGE;
	}
	if (bl_check_args_only())
		return BL_EXIT_PASS;
	if (o->json && !strcmp(o->json, "-"))
		bl_stdout_machine();
	if (o->delay_ms && !bl_sysctl_exists(BL_SYSCTL_TW_DELAY)) {
		fprintf(stderr, "%s: SKIP: --reuse-delay needs net.ipv4.tcp_tw_reuse_delay (Linux 6.14+), which this kernel lacks\n",
			prog);
		return BL_EXIT_SKIP;
	}
	return -1;
}

static int churn_main(int argc, char **argv)
{
	struct churn_out ***outs;
	struct churn_sum sums[3] = {};
	struct churn_opts o;
	size_t size;
	long r;
	int v, ret;

	ret = churn_start(&o, argc, argv);
	if (ret >= 0)
		return ret;
	size = churn_out_size(&o);
	outs = calloc(o.nreuse, sizeof(*outs));
	for (v = 0; outs && v < o.nreuse; v++)
		outs[v] = calloc(o.rounds, sizeof(**outs));
	if (!outs || !outs[o.nreuse - 1]) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return BL_EXIT_FAIL;
	}
	if (!o.quiet)
		churn_header(&o);

	for (r = 0; r < o.rounds; r++) {
		for (v = 0; v < o.nreuse; v++) {
			/* Shared with the run's child, which writes the samples. */
			outs[v][r] = mmap(NULL, size, PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (outs[v][r] == MAP_FAILED) {
				fprintf(stderr, "%s: mmap: %s\n", prog,
					strerror(errno));
				return BL_EXIT_FAIL;
			}
			ret = churn_run(&o, o.reuse[v], outs[v][r]);
			if (ret) {
				fprintf(stderr, "%s: %stcp_tw_reuse=%d round %ld: %s\n",
					prog, ret == BL_EXIT_SKIP ? "SKIP: " : "",
					o.reuse[v], r + 1, outs[v][r]->why);
				return ret;
			}
			if (!o.quiet)
				print_run(&o, o.reuse[v], r + 1, outs[v][r]);
		}
	}
	for (v = 0; v < o.nreuse; v++) {
		if (churn_summarize(&o, o.reuse[v], outs[v], &sums[v])) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return BL_EXIT_FAIL;
		}
		print_sum(&o, &sums[v]);
	}
	if (o.json && churn_json(&o, outs, sums))
		ret = BL_EXIT_FAIL;
	for (v = 0; v < o.nreuse; v++) {
		churn_sum_free(&sums[v]);
		for (r = 0; r < o.rounds; r++)
			munmap(outs[v][r], size);
		free(outs[v]);
	}
	free(outs);
	return ret;
}

int main(int argc, char **argv)
{
	prog = basename(argv[0]);
	bl_stdio_guard();
	if (argc > 1 && !strcmp(argv[1], "churn"))
		return churn_main(argc - 1, argv + 1);
	return bl_harness_main(argc, argv);
}
