// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_tw_reuse as commit 79e9fed46038 ("net-tcp: extend tcp_tw_reuse sysctl
 * to enable loopback only optimization") made it: 0 never, 1 always, 2 only
 * for a TIME_WAIT socket proven loopback by an address of its own (127/8,
 * ::1, ::ffff:127.0.0.0/104) or bound to lo. Each row fills the four ports
 * of ip_local_port_range with TIME_WAIT sockets and asks whether connect()
 * takes one over; a refusal must be the policy's (tcp_tw_reuse=1 takes it).
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ipv6.h>

#include "kselftest_harness.h"

#define PORTS		4
#define SERVER_PORT	5000

FIXTURE(tw_reuse)
{
	int lfd;
	bool delay_sysctl;	/* tcp_tw_reuse_delay, 6.14+ */
};

FIXTURE_VARIANT(tw_reuse)
{
	int reuse;		/* tcp_tw_reuse under test */
	const char *src;	/* client bind() address, or NULL */
	const char *dst;	/* server address */
	bool reused;		/* connect() takes a TIME_WAIT socket over */
	bool bind_lo;		/* client SO_BINDTODEVICE lo */
	bool no_ts;		/* tcp_timestamps=0: nothing protects reuse */
};

/* 0 never; 1 always, provided timestamps protect the reuse. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v4_loopback) { 0, NULL, "127.0.0.1", false };
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v6_loopback) { 0, NULL, "::1", false };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_loopback) { 1, NULL, "127.0.0.1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_loopback) { 1, NULL, "::1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_addrs_on_lo) { 1, "10.9.0.1", "10.9.0.2", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_no_timestamps) { 1, NULL, "127.0.0.1", .no_ts = true };
/* 2: one loopback address of the two, or lo bound, is proof enough... */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_loopback) { 2, NULL, "127.0.0.1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_dst_127) { 2, "10.9.0.1", "127.0.0.1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_src_127_8) { 2, "127.0.0.2", "10.9.0.2", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_loopback) { 2, NULL, "::1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_dst_1) { 2, "fd09::1", "::1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_src_1) { 2, "::1", "fd09::2", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_loopback) { 2, NULL, "::ffff:127.0.0.1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_dst_127)
{ 2, "::ffff:10.9.0.1", "::ffff:127.0.0.1", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_src_127_8)
{ 2, "::ffff:127.0.0.2", "::ffff:10.9.0.2", true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_bound_to_lo) { 2, "10.9.0.1", "10.9.0.2", true, true };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_bound_to_lo) { 2, "fd09::1", "fd09::2", true, true };
/* ...and without one, it is refused. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_addrs_on_lo) { 2, "10.9.0.1", "10.9.0.2", false };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_addrs_on_lo) { 2, "fd09::1", "fd09::2", false };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_addrs_on_lo)
{ 2, "::ffff:10.9.0.1", "::ffff:10.9.0.2", false };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_no_timestamps) { 2, NULL, "127.0.0.1", .no_ts = true };

static socklen_t sockaddr_of(const char *host, int port, struct sockaddr_in6 *a)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;

	memset(a, 0, sizeof(*a));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(port);
	if (inet_pton(AF_INET6, host, &a->sin6_addr) == 1)
		return sizeof(*a);
	a4->sin_family = AF_INET;
	return inet_pton(AF_INET, host, &a4->sin_addr) == 1 ? sizeof(*a4) : 0;
}

static int sysctl_set(const char *name, const char *val)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(val, f);
	return fclose(f);
}

/* The row's client, connected: its fd, or -errno. */
static int row_connect(const struct _fixture_variant_tw_reuse *v)
{
	struct sockaddr_in6 d, s;
	socklen_t len = sockaddr_of(v->dst, SERVER_PORT, &d);
	int one = 1, fd = socket(d.sin6_family, SOCK_STREAM, 0), err;

	/* No port from bind(): connect() with a bound port ignores tcp_tw_reuse. */
	if ((v->bind_lo && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3)) ||
	    (v->src && (setsockopt(fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)) ||
			bind(fd, (struct sockaddr *)&s, sockaddr_of(v->src, 0, &s)))) ||
	    connect(fd, (struct sockaddr *)&d, len)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

FIXTURE_SETUP(tw_reuse)
{
	struct in6_ifreq ifr6 = { .ifr6_prefixlen = 128, .ifr6_ifindex = 1 };
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	static const char * const v4[] = { "10.9.0.1", "10.9.0.2" };
	static const char * const v6[] = { "fd09::1", "fd09::2" };
	bool ipv6 = strchr(variant->dst, ':');
	struct sockaddr_in6 a;
	struct timespec now;
	int fd, i, j, err;

	if (unshare(CLONE_NEWNET))
		SKIP(return, "cannot create a network namespace: %s", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	err = ioctl(fd, SIOCSIFFLAGS, &ifr) ? errno : 0;
	if (err == EPERM)
		SKIP(return, "cannot bring lo up: %s", strerror(err));
	ASSERT_EQ(0, err) TH_LOG("lo up: %s", strerror(err));
	for (i = 0; i < 2; i++) {
		snprintf(ifr.ifr_name, IFNAMSIZ, "lo:%d", i + 1);
		sockaddr_of(v4[i], 0, &a);
		memcpy(&ifr.ifr_addr, &a, sizeof(struct sockaddr_in));
		ASSERT_EQ(0, ioctl(fd, SIOCSIFADDR, &ifr)) TH_LOG("%s: %s", v4[i], strerror(errno));
	}
	close(fd);
	for (i = 0; i < 2 && ipv6; i++) {
		fd = socket(AF_INET6, SOCK_DGRAM, 0);
		inet_pton(AF_INET6, v6[i], &ifr6.ifr6_addr);
		err = fd < 0 || ioctl(fd, SIOCSIFADDR, &ifr6) ? errno : 0;
		if (err == EAFNOSUPPORT || err == EACCES)
			SKIP(return, "IPv6 not available: %s", strerror(err));
		ASSERT_EQ(0, err) TH_LOG("%s: %s", v6[i], strerror(err));
		/* A new address is tentative, so not bindable, for a moment. */
		for (j = 0; j < 100 && bind(fd, (void *)&a, sockaddr_of(v6[i], 0, &a)); j++)
			usleep(10000);
		close(fd);
	}

	ASSERT_EQ(0, sysctl_set("ip_local_port_range", "40000 40003"));
	ASSERT_EQ(0, sysctl_set("tcp_tw_reuse", "0"));
	ASSERT_EQ(0, sysctl_set("tcp_timestamps", variant->no_ts ? "0" : "1"));
	self->delay_sysctl = !sysctl_set("tcp_tw_reuse_delay", "1");
	self->lfd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(self->lfd, (void *)&a, sockaddr_of(variant->dst, SERVER_PORT, &a)));
	ASSERT_EQ(0, listen(self->lfd, PORTS + 2));
	/* TIME_WAIT sockets of the first second after boot have no timestamp. */
	while (!clock_gettime(CLOCK_MONOTONIC, &now) && now.tv_sec < 2)
		usleep(100000);
}

FIXTURE_TEARDOWN(tw_reuse)
{
}

TEST_F(tw_reuse, full_range)
{
	char c, reuse[2] = { '0' + variant->reuse };
	int fd, sfd, i;

	for (i = 0; i < PORTS; i++) {
		fd = row_connect(variant);
		ASSERT_LE(0, fd) TH_LOG("connection %d: %s", i + 1, strerror(-fd));
		/* The client closes first: the TIME_WAIT socket is its own. */
		sfd = accept(self->lfd, NULL, NULL);
		ASSERT_EQ(0, shutdown(fd, SHUT_WR));
		ASSERT_EQ(0, read(sfd, &c, 1));
		close(sfd);
		ASSERT_EQ(0, read(fd, &c, 1));
		close(fd);
	}
	/* Before 6.14, until the second after that of the last timestamp. */
	usleep(self->delay_sysctl ? 10000 : 2100000);
	fd = row_connect(variant);
	ASSERT_EQ(-EADDRNOTAVAIL, fd) TH_LOG("tcp_tw_reuse=0, all ports in TIME_WAIT: %d", fd);

	ASSERT_EQ(0, sysctl_set("tcp_tw_reuse", reuse));
	fd = row_connect(variant);
	ASSERT_EQ(variant->reused ? 0 : -EADDRNOTAVAIL, fd < 0 ? fd : 0)
		TH_LOG("tcp_tw_reuse=%d, take a TIME_WAIT socket over: %s", variant->reuse,
		       strerror(fd < 0 ? -fd : 0));
	if (variant->reused || variant->no_ts)
		return;
	ASSERT_EQ(0, sysctl_set("tcp_tw_reuse", "1"));
	fd = row_connect(variant);
	ASSERT_LE(0, fd) TH_LOG("refused even with tcp_tw_reuse=1: %s", strerror(-fd));
	close(fd);
}

TEST_HARNESS_MAIN
