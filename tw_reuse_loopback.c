// SPDX-License-Identifier: GPL-2.0
/*
 * tw_reuse_loopback: TIME_WAIT around tcp_tw_reuse, beyond what
 * tcp_tw_reuse.c checks (0, 1 and 2 against each proof of loopback):
 * connect() of an explicitly bound socket over a TIME_WAIT 4-tuple
 * (tw_bind), the cap on TIME_WAIT sockets (tw_buckets), the cookie one
 * keeps (tw_cookie), a namespace that ends with one (tw_exit) or beside
 * one (tw_exit_other), how long one that waited in FIN_WAIT2 lasts
 * (tw_fin_wait2), where a connection's sequence numbers start
 * (connect_isn), the sysctls' ranges
 * (tw_sysctl), and a new namespace's default, 2, as commit
 * 79e9fed46038 ("net-tcp: extend tcp_tw_reuse sysctl to enable loopback
 * only optimization") made it. Two rules of TCP_REPAIR's instant
 * connections live here too, beside its helpers: no reset answers a
 * reset (reset_reply), a source-routed connection's peer (connect_srr);
 * and four of a raw socket's: a SYN with a wrong checksum gets no answer
 * (bad_csum), bytes past a hole wait unread and close() drops them
 * (ooo_close), a Fast Open client shown a FIN past a hole turns Fast
 * Open off (tfo_blackhole), accepted connections number their packets
 * apart (child_ipid). And what a connection leaves for a while besides:
 * the flow label it sent with (flowlabel_linger), the RTT it measured
 * (tw_metrics); and what it keeps while it lasts: the route its segments
 * come in by (route_flush).
 *
 * The churn benchmark of that commit is a program of its own
 * (bench/bind_churn.c), outside the kselftests.
 */
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/in6.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/times.h>
#include <sys/wait.h>

#include "ksft_bindlab.h"

#define SERVER_PORT	5000
#define CLIENT_PORT	6000	/* explicit binds */
#define FIN_MS		2000	/* bound on each FIN's trip */
#define CONNECT_S	5	/* bound on a handshake */
#define ADDR_MS		2000	/* bound on an address becoming usable */

/* Not loopback, though on lo: tcp_tw_reuse=2 must not take them. */
static const char * const lo_addrs[] = {
	"10.9.0.1/32", "10.9.0.2/32", "fd09::1/128", "fd09::2/128", NULL,
};

/* Add lo_addrs (IPv6 ones only if v6) to lo, up, each one usable. */
static int lo_addrs_up(bool v6, struct bl_why *why)
{
	const char * const *c;
	int err;

	err = bl_link_up("lo");
	if (err)
		return bl_why_set(why, err, "cannot bring lo up: %s", strerror(-err));
	for (c = lo_addrs; *c; c++) {
		if (!v6 && strchr(*c, ':'))
			continue;
		err = bl_addr_add("lo", *c) ?: bl_addr_wait(*c, ADDR_MS);
		if (err)
			return bl_why_set(why, err, "%s on lo: %s", *c, strerror(-err));
	}
	return 0;
}

/*
 * The test's own namespace with lo up; false when skipped: addr is IPv6
 * and IPv6 is not there.
 */
static bool lo_ready(struct __test_metadata *_metadata, const char *addr)
{
	struct bl_why why = { "" };

	BL_ENTER_NETNS(return false);
	if (strchr(addr, ':') && !bl_ipv6_usable(&why))
		SKIP(return false, "%s", why.msg);
	ASSERT_EQ(0, bl_link_up("lo"));
	return true;
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
 *
 * The new connection must not take segments of the old one for its own:
 * its first sequence number lies beyond the old one's last plus a whole
 * unscaled window (tcp_twsk_unique() starts it at tw_snd_nxt + 65537).
 * A socket under TCP_REPAIR (a checkpointed connection being restored)
 * keeps the sequence number it was given instead, and its timestamp
 * clock (TCP_TIMESTAMP). TCP_REPAIR's TCP_QUEUE_SEQ reads both numbers.
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
	bool repair;			/* the second under TCP_REPAIR */
};

#define TS	false
#define NO_TS	true

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
FIXTURE_VARIANT_ADD(tw_bind, reuse0_v4_repaired)
{ BIND_ROW(0, "127.0.0.1", "127.0.0.1", TS, false, false, 0, 0), .repair = true };
FIXTURE_VARIANT_ADD(tw_bind, reuse0_v6_repaired)
{ BIND_ROW(0, "::1", "::1", TS, false, false, 0, 0), .repair = true };

FIXTURE_SETUP(tw_bind)
{
	struct bl_why why = { "" };
	bool v6;

	self->lfd = -1;
	BL_ENTER_NETNS(return);
	v6 = bl_ipv6_usable(&why);
	if (!v6 && strchr(variant->dst, ':'))
		SKIP(return, "%s", why.msg);
	ASSERT_EQ(0, lo_addrs_up(v6, &why)) TH_LOG("%s", why.msg);
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

/* A socket bound to src:port; bind()'s -errno in *err. */
static int bound_socket(const char *src, uint16_t port, bool reuseaddr, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = bl_sockaddr_parse(src, port, &ss);
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

static int connect_server(int fd, const char *dst)
{
	struct sockaddr_storage ss;

	if (!bl_sockaddr_parse(dst, SERVER_PORT, &ss))
		return -EINVAL;
	return bl_tcp_connect(fd, &ss, CONNECT_S * 1000);
}

#define WINDOW		65535U	/* the largest unscaled window */
#define REPAIR_SEQ	0x5eed0000U
#define REPAIR_TS	0x5eed0000U	/* even: a clock in ms, not us */

static int repair(int fd, int mode)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &mode, sizeof(mode)) ?
	       -errno : 0;
}

/* TCP_REPAIR on, its sequence numbers those of the send queue. */
static int repair_on(int fd)
{
	int q = TCP_SEND_QUEUE, err = repair(fd, TCP_REPAIR_ON);

	if (!err && setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)))
		err = -errno;
	return err;
}

/* The next sequence number fd sends; fd is under repair_on(). */
static int queue_seq(int fd, uint32_t *seq)
{
	socklen_t len = sizeof(*seq);

	return getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &len) ? -errno : 0;
}

/*
 * The next sequence number of a connected socket, read under TCP_REPAIR
 * and left without a window probe. Both TCP_REPAIR switches reset
 * sk_reuse: SO_REUSEADDR is set again when the socket had it.
 */
static int sent_seq(int fd, bool reuseaddr, uint32_t *seq)
{
	int one = 1, err = repair_on(fd);

	if (!err)
		err = queue_seq(fd, seq);
	if (repair(fd, TCP_REPAIR_OFF_NO_WP) ||
	    (reuseaddr && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				     sizeof(one))))
		err = err ?: -errno;
	return err;
}

/* Under TCP_REPAIR, the sequence number fd's connection will start from. */
static int repair_seq(int fd, uint32_t seq)
{
	int err = repair_on(fd);

	if (!err && setsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq, sizeof(seq)))
		err = -errno;
	return err;
}

/* One string that grep finds whole. */
#define TAKEOVER_FAIL "connect() onto the TIME_WAIT 4-tuple, tcp_tw_reuse=%d timestamps=%s: %s, expected %s"

TEST_F(tw_bind, takeover)
{
	bool v6 = strchr(variant->dst, ':');
	uint32_t old_seq, seq, ts = REPAIR_TS;
	socklen_t len = sizeof(ts);
	int fd, err, seq_err = 0, ts_err = 0, ms;
	long tw, tw_all = 0;

	fd = bound_socket(variant->src, CLIENT_PORT, !variant->old_plain, &err);
	ASSERT_EQ(0, err) TH_LOG("first bind: %s", bl_errname(err));
	ASSERT_EQ(0, connect_server(fd, variant->dst));
	err = sent_seq(fd, !variant->old_plain, &old_seq);
	if (err == -EPERM)
		SKIP(close(fd); return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	ASSERT_EQ(0, bl_tcp_time_wait(fd, self->lfd, FIN_MS));
	ASSERT_EQ(1, bl_tcp_count(TCP_TIME_WAIT, CLIENT_PORT));
	/*
	 * The hash dance hands the socket's place to the TIME_WAIT one; the
	 * peer leaves LAST_ACK with our last ACK, a softirq later at most.
	 */
	for (ms = 0; ms < FIN_MS && bl_sockstat(v6 ? "TCP6" : "TCP", "inuse") != 1; ms++)
		usleep(1000);
	EXPECT_EQ(1, bl_sockstat(v6 ? "TCP6" : "TCP", "inuse"))
		TH_LOG("sockstat: TCP sockets in use besides the listener after TIME_WAIT");

	/* No wait: the reuse delay does not apply to explicit binds. */
	fd = bound_socket(variant->src, CLIENT_PORT, !variant->new_plain, &err);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-variant->bind_err, err)
		TH_LOG("bind() onto the TIME_WAIT port: %s, expected %s",
		       bl_errname(err), bl_errname(-variant->bind_err));
	if (err) {
		close(fd);
		return;
	}
	if (variant->repair) {
		ASSERT_EQ(0, repair_seq(fd, REPAIR_SEQ));
		ASSERT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_TIMESTAMP, &ts, sizeof(ts)));
	}
	err = connect_server(fd, variant->dst);
	tw = bl_tcp_count(TCP_TIME_WAIT, CLIENT_PORT);
	if (!err) {
		/* The one taken over is gone at once, not on its timer. */
		tw_all = bl_sockstat("TCP", "tw");
		seq_err = variant->repair ? queue_seq(fd, &seq) :
			  sent_seq(fd, false, &seq);
		if (variant->repair && getsockopt(fd, IPPROTO_TCP, TCP_TIMESTAMP, &ts, &len))
			ts_err = -errno;
	}
	close(fd);
	ASSERT_EQ(-variant->connect_err, err)
		TH_LOG(TAKEOVER_FAIL, variant->reuse, variant->no_ts ? "off" : "on",
		       bl_errname(err), bl_errname(-variant->connect_err));
	ASSERT_EQ(err ? 1 : 0, tw)
		TH_LOG("%ld TIME_WAIT sockets left on port %d", tw, CLIENT_PORT);
	if (err)
		return;
	EXPECT_EQ(0, tw_all) TH_LOG("sockstat: %ld TIME_WAIT sockets after the takeover", tw_all);
	ASSERT_EQ(0, seq_err) TH_LOG("TCP_REPAIR: %s", bl_errname(seq_err));
	if (variant->repair) {
		EXPECT_EQ(REPAIR_SEQ, seq)
			TH_LOG("the repaired socket's sequence number was replaced");
		ASSERT_EQ(0, ts_err) TH_LOG("TCP_TIMESTAMP: %s", bl_errname(ts_err));
		/* The ms its connect() took at most. */
		EXPECT_GT(1000U, ts - REPAIR_TS)
			TH_LOG("the repaired socket's timestamp clock reads %u, %u was set",
			       ts, REPAIR_TS);
		return;
	}
	/* The SYN and the old FIN each took one sequence number. */
	seq -= old_seq + 2;
	EXPECT_TRUE(seq > WINDOW && seq <= 2 * WINDOW)
		TH_LOG("the new connection starts %u after the old one's last sequence number, expected %u to %u",
		       seq, WINDOW + 1, 2 * WINDOW);
}

/*
 * ---- tw_buckets: tcp_max_tw_buckets caps the TIME_WAIT sockets ----
 *
 * A namespace holds at most tcp_max_tw_buckets TIME_WAIT sockets
 * (inet_twsk_alloc()); a connection that closes beyond the cap closes at
 * once and keeps nothing. With the cap at 1, of two connections closed
 * in turn the first one's port stays taken, EADDRINUSE to a bind()
 * without SO_REUSEADDR, and the second one's is free.
 */
#define SYSCTL_TW_BUCKETS	"net/ipv4/tcp_max_tw_buckets"
FIXTURE(tw_buckets) {};

FIXTURE_VARIANT(tw_buckets)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(tw_buckets, v4) { "127.0.0.1" };
FIXTURE_VARIANT_ADD(tw_buckets, v6) { "::1" };

FIXTURE_SETUP(tw_buckets)
{
	if (lo_ready(_metadata, variant->addr))
		ASSERT_EQ(0, bl_sysctl_write_long(SYSCTL_TW_BUCKETS, 1));
}

FIXTURE_TEARDOWN(tw_buckets)
{
}

TEST_F(tw_buckets, capped)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l, fd, i, err, port[2];

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l);
	for (i = 0; i < 2; i++) {
		fd = socket(strchr(variant->addr, ':') ? AF_INET6 : AF_INET,
			    SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, connect_server(fd, variant->addr));
		len = sizeof(ss);
		ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&ss, &len));
		port[i] = bl_sockaddr_port(&ss);
		err = bl_tcp_time_wait(fd, l, FIN_MS);
		ASSERT_EQ(0, err) TH_LOG("closing connection %d: %s", i, bl_errname(err));
	}
	for (i = 0; i < 2; i++) {
		len = bl_sockaddr_parse(variant->addr, port[i], &ss);
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
		err = bind(fd, (struct sockaddr *)&ss, len) ? errno : 0;
		EXPECT_EQ(i ? 0 : EADDRINUSE, err)
			TH_LOG("bind() to the port of closed connection %d of 2, tcp_max_tw_buckets=1: %s",
			       i + 1, bl_errname(err));
		close(fd);
	}
	close(l);
}

/*
 * ---- connect_isn: where a connection's sequence numbers start ----
 *
 * connect() starts a connection from a keyed hash of its 4-tuple plus a
 * clock (RFC 6528: secure_tcp_seq(), secure_tcpv6_seq()), unless
 * TCP_REPAIR gave it one: two connections from two ports to one listener
 * start at two numbers (alike once in 2^32). TCP_REPAIR's TCP_QUEUE_SEQ
 * reads them, the first plus the SYN's one.
 *
 * retry: on one 4-tuple, connection after connection, they start only the
 * clock apart (64 ns a step: 2^26 is 4 s), the first of them too when its
 * socket's connect() had failed before for want of a port (EADDRNOTAVAIL,
 * the range one port wide): that failure left it no number to start from.
 *
 * refused: a socket whose connect() was refused connects again from where
 * the failure left it, past the old SYN (tcp_disconnect(): the old number
 * plus one, plus the peer's largest window, 0, plus two), to whichever
 * address (another on lo for IPv4): its new SYN takes the number
 * TCP_QUEUE_SEQ read before it.
 *
 * repaired: under TCP_REPAIR, connect() sends nothing and the connection
 * is made at once, from the number TCP_QUEUE_SEQ gave it: a non-blocking
 * connect() returns 0, not EINPROGRESS.
 */
FIXTURE(connect_isn) {};

FIXTURE_VARIANT(connect_isn)
{
	const char *dst, *other, *any;
};

FIXTURE_VARIANT_ADD(connect_isn, v4) { "127.0.0.1", "127.0.0.2", "0.0.0.0" };
FIXTURE_VARIANT_ADD(connect_isn, v6) { "::1", "::1", "::" };

FIXTURE_SETUP(connect_isn)
{
	lo_ready(_metadata, variant->dst);
}

FIXTURE_TEARDOWN(connect_isn)
{
}

TEST_F(connect_isn, apart)
{
	int l, fd, i, err, family = strchr(variant->dst, ':') ? AF_INET6 : AF_INET;
	uint32_t seq[2];

	l = bl_tcp_listen(variant->dst, SERVER_PORT);
	ASSERT_LE(0, l);
	for (i = 0; i < 2; i++) {
		fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, connect_server(fd, variant->dst));
		err = sent_seq(fd, false, &seq[i]);
		if (err == -EPERM)
			SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
		ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	}
	EXPECT_NE(seq[0], seq[1])
		TH_LOG("two connections to %s start at one sequence number, %u",
		       variant->dst, seq[0] - 1);
	close(l);
}

/* Close fd with a reset: no TIME_WAIT keeps its 4-tuple. */
static void reset_close(int fd)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
	close(fd);
}

TEST_F(connect_isn, retry)
{
	int l, fd[2], first, i, err, family = strchr(variant->dst, ':') ? AF_INET6 : AF_INET;
	uint32_t seq[2];

	ASSERT_EQ(0, bl_sysctl_write(BL_SYSCTL_PORT_RANGE, "40000 40000"));
	l = bl_tcp_listen(variant->dst, SERVER_PORT);
	ASSERT_LE(0, l);
	first = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, first);
	ASSERT_EQ(0, connect_server(first, variant->dst));
	for (i = 0; i < 2; i++) {
		fd[i] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd[i]);
	}
	err = connect_server(fd[0], variant->dst);
	ASSERT_EQ(-EADDRNOTAVAIL, err) TH_LOG("connect() with no port free: %s", bl_errname(err));
	reset_close(first);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, connect_server(fd[i], variant->dst));
		err = sent_seq(fd[i], false, &seq[i]);
		if (err == -EPERM)
			SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
		ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
		reset_close(fd[i]);
	}
	EXPECT_GT(1U << 26, seq[1] - seq[0])
		TH_LOG("on one 4-tuple, the connection after the retried one starts %u after it, expected under %u",
		       seq[1] - seq[0], 1U << 26);
	close(l);
}

TEST_F(connect_isn, refused)
{
	int l, fd, err, family = strchr(variant->dst, ':') ? AF_INET6 : AF_INET;
	uint32_t seq[2];

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	err = connect_server(fd, variant->dst);
	ASSERT_EQ(-ECONNREFUSED, err) TH_LOG("connect() to no listener: %s", bl_errname(err));
	err = sent_seq(fd, false, &seq[0]);
	if (err == -EPERM)
		SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	l = bl_tcp_listen(variant->any, SERVER_PORT);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, connect_server(fd, variant->other));
	ASSERT_EQ(0, sent_seq(fd, false, &seq[1]));
	EXPECT_EQ(seq[0] + 1, seq[1])
		TH_LOG("connected again after ECONNREFUSED: sends from %u, %u expected",
		       seq[1], seq[0] + 1);
	close(fd);
	close(l);
}

TEST_F(connect_isn, repaired)
{
	int fd, err, family = strchr(variant->dst, ':') ? AF_INET6 : AF_INET;
	struct sockaddr_storage ss;
	socklen_t len;
	uint32_t seq;

	len = bl_sockaddr_parse(variant->dst, SERVER_PORT, &ss);
	ASSERT_NE(0U, len);
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	err = repair_seq(fd, REPAIR_SEQ);
	if (err == -EPERM)
		SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	err = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	EXPECT_EQ(0, err)
		TH_LOG("a repaired socket's non-blocking connect(): %s, expected 0", bl_errname(err));
	ASSERT_EQ(0, queue_seq(fd, &seq));
	EXPECT_EQ(REPAIR_SEQ, seq) TH_LOG("the repaired connection sends from %u", seq);
	ASSERT_EQ(0, repair(fd, TCP_REPAIR_OFF_NO_WP));
	close(fd);
}

/*
 * ---- tw_cookie: a connection keeps its cookie into TIME_WAIT ----
 *
 * A socket's cookie (SO_COOKIE) names it to sock_diag for its life, and
 * the TIME_WAIT socket that takes its place carries it on
 * (inet_twsk_alloc()): tools follow one connection by it from open to
 * gone. sock_diag's dump of the namespace's TIME_WAIT sockets gives the
 * closed connection's 4-tuple with the cookie it had open.
 */
FIXTURE(tw_cookie) {};

FIXTURE_VARIANT(tw_cookie)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(tw_cookie, v4) { "127.0.0.1" };
FIXTURE_VARIANT_ADD(tw_cookie, v6) { "::1" };

FIXTURE_SETUP(tw_cookie)
{
	lo_ready(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(tw_cookie)
{
}

TEST_F(tw_cookie, diag)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	int l, fd, port, family;
	bool found;
	int64_t tw;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	family = strchr(variant->addr, ':') ? AF_INET6 : AF_INET;
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, connect_server(fd, variant->addr));
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len));
	port = bl_sock_port(fd);
	ASSERT_LT(0, port);
	ASSERT_EQ(0, bl_tcp_time_wait(fd, l, FIN_MS));
	tw = bl_tcp_diag_cookie(family, 1 << TCP_TIME_WAIT, port, SERVER_PORT, &found);
	if (tw == -EPROTONOSUPPORT || tw == -ENOENT)
		SKIP(goto out, "sock_diag for TCP: %s", strerror(-tw));
	ASSERT_LE(0, tw) TH_LOG("sock_diag: %s", strerror(-tw));
	ASSERT_TRUE(found) TH_LOG("no TIME_WAIT socket from port %d to %d", port, SERVER_PORT);
	EXPECT_EQ(cookie, (uint64_t)tw)
		TH_LOG("the TIME_WAIT socket's cookie %llu, the connection's %llu",
		       (unsigned long long)tw, (unsigned long long)cookie);
out:
	close(l);
}

/*
 * ---- tw_exit: a namespace ends with a TIME_WAIT socket in it ----
 *
 * A namespace's TIME_WAIT sockets go with it, looked for in every bucket
 * of its connection hash (inet_twsk_purge()). With tcp_child_ehash_entries
 * at 1, a namespace made from this one has a hash of its own, of one
 * bucket (6.1+). In such a namespace a connection ends in TIME_WAIT, then
 * the namespace ends. A kernel that leaves the socket behind warns as the
 * namespace goes (tcp_sk_exit_batch()) and frees the hash under it: the
 * row holds when the kernel stays quiet, which the lab's panic_on_warn
 * and a fleet's check of the kernel log see.
 */
#define SYSCTL_CHILD_EHASH	"net/ipv4/tcp_child_ehash_entries"
#define EXIT_WAIT_MS		10000

FIXTURE(tw_exit) {};

FIXTURE_VARIANT(tw_exit)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(tw_exit, v4) { "127.0.0.1" };

FIXTURE_SETUP(tw_exit)
{
	BL_ENTER_NETNS(return);
	if (!bl_sysctl_exists(SYSCTL_CHILD_EHASH))
		SKIP(return, "no %s in this kernel (6.1+)", SYSCTL_CHILD_EHASH);
	ASSERT_EQ(0, bl_sysctl_write_long(SYSCTL_CHILD_EHASH, 1));
}

FIXTURE_TEARDOWN(tw_exit)
{
}

/* In a new namespace: a TIME_WAIT socket, then exit. 0, or the step that failed. */
static int tw_in_new_netns(void *arg)
{
	const char *addr = arg;
	int l, fd, port;

	/* Its cap on TIME_WAIT sockets starts at half its buckets: 0. */
	if (unshare(CLONE_NEWNET) || bl_link_up("lo") ||
	    bl_sysctl_write_long(SYSCTL_TW_BUCKETS, 1))
		return 2;
	l = bl_tcp_listen(addr, SERVER_PORT);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || fd < 0 || connect_server(fd, addr))
		return 3;
	port = bl_sock_port(fd);
	if (port <= 0 || bl_tcp_time_wait(fd, l, FIN_MS))
		return 4;
	return bl_tcp_wait(TCP_TIME_WAIT, port, 1, FIN_MS) ? 5 : 0;
}

TEST_F(tw_exit, purge)
{
	int status, err;
	pid_t pid;

	pid = bl_child_run(tw_in_new_netns, (void *)variant->addr);
	ASSERT_LT(0, pid) TH_LOG("fork: %s", bl_errname(pid));
	err = bl_child_wait(pid, EXIT_WAIT_MS, &status);
	ASSERT_EQ(0, err) TH_LOG("the namespace's process: %s", bl_errname(err));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the namespace's process: status %#x (2 netns, 3 connect, 4 close, 5 no TIME_WAIT)",
		       status);
}

/*
 * ---- tw_exit_other: another namespace's end leaves this one's TIME_WAIT ----
 *
 * A namespace without a connection hash of its own (made where
 * tcp_child_ehash_entries is 0) shares the host's, and when it ends its
 * TIME_WAIT sockets are purged from all of that hash (inet_twsk_purge()):
 * those of namespaces still alive stay, for their own timers to end. This
 * namespace holds CLIENT_PORT in TIME_WAIT while one made from it ends;
 * the port is still taken after. The end runs in a kworker soon after the
 * last process leaves: the row gives it EXIT_SETTLE_MS, which can let a
 * purge that comes later pass, never fail one that is right. A purge that
 * spins on a live namespace's socket holds the lab's one CPU until that
 * socket's timer ends it (60 s), and the port is free by then.
 */
#define EXIT_SETTLE_MS	200

FIXTURE(tw_exit_other) {};

FIXTURE_VARIANT(tw_exit_other)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(tw_exit_other, v4) { "127.0.0.1" };

FIXTURE_SETUP(tw_exit_other)
{
	lo_ready(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(tw_exit_other)
{
}

static int netns_new_then_exit(void *arg)
{
	return unshare(CLONE_NEWNET) ? 2 : 0;
}

TEST_F(tw_exit_other, kept)
{
	int l, fd, err, status;
	pid_t pid;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	fd = bound_socket(variant->addr, CLIENT_PORT, false, &err);
	ASSERT_EQ(0, err) TH_LOG("bind to port %d: %s", CLIENT_PORT, bl_errname(err));
	ASSERT_EQ(0, connect_server(fd, variant->addr));
	ASSERT_EQ(0, bl_tcp_time_wait(fd, l, FIN_MS));
	close(l);
	ASSERT_EQ(0, bl_tcp_wait(TCP_TIME_WAIT, CLIENT_PORT, 1, FIN_MS));

	pid = bl_child_run(netns_new_then_exit, NULL);
	ASSERT_LT(0, pid) TH_LOG("fork: %s", bl_errname(pid));
	err = bl_child_wait(pid, EXIT_WAIT_MS, &status);
	ASSERT_EQ(0, err) TH_LOG("the namespace's process: %s", bl_errname(err));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("no new namespace: status %#x", status);
	usleep(EXIT_SETTLE_MS * 1000);
	fd = bound_socket(variant->addr, CLIENT_PORT, false, &err);
	close(fd);
	EXPECT_EQ(-EADDRINUSE, err)
		TH_LOG("bind() beside this namespace's TIME_WAIT, after another's end: %s",
		       bl_errname(err));
}

/*
 * ---- reset_reply: no segment answers a reset ----
 *
 * A segment for no socket gets a reset in reply (tcp_v4_send_reset(),
 * tcp_v6_send_reset()), a reset itself never does (RFC 9293, 3.10.7.1):
 * else two ports without sockets would reset each other for ever. A
 * connection made under TCP_REPAIR to a port where nothing listens, then
 * closed with a reset, sends one reset there; a raw socket, which sees
 * every TCP segment the namespace receives, counts the resets between
 * the two ports: one.
 */
#define RST_WAIT_MS	200	/* this long quiet: no more segments come */
#define RST_MAX		8	/* a storm: stop counting */
#define RAW_MAX		1000	/* segments read at most */

FIXTURE(reset_reply)
{
	int raw;
};

FIXTURE_VARIANT(reset_reply)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(reset_reply, v4) { "127.0.0.1" };
FIXTURE_VARIANT_ADD(reset_reply, v6) { "::1" };

/*
 * A raw TCP socket in a namespace of its own with lo up, which sees every
 * TCP segment the namespace receives; -1 when the test is skipped.
 */
static int raw_tcp_open(struct __test_metadata *_metadata, const char *addr)
{
	struct bl_why why = { "" };
	bool v6 = strchr(addr, ':');
	int fd;

	BL_ENTER_NETNS(return -1);
	if (v6 && !bl_ipv6_usable(&why))
		SKIP(return -1, "%s", why.msg);
	EXPECT_EQ(0, bl_link_up("lo"));
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0 && errno == EPERM)
		SKIP(return -1, "a raw socket needs CAP_NET_RAW");
	EXPECT_LE(0, fd);
	return fd;
}

FIXTURE_SETUP(reset_reply)
{
	self->raw = raw_tcp_open(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(reset_reply)
{
	if (self->raw >= 0)
		close(self->raw);
}

/*
 * Segments between ports a and b with all of flags set (any for 0) that
 * raw receives, up to RST_MAX.
 */
static int count_segments(int raw, bool v6, uint16_t a, uint16_t b, uint8_t flags)
{
	struct pollfd pfd = { .fd = raw, .events = POLLIN };
	unsigned char seg[128];
	int n = 0, i, off;
	uint16_t src, dst;
	ssize_t len;

	for (i = 0; i < RAW_MAX && n < RST_MAX; i++) {
		if (poll(&pfd, 1, RST_WAIT_MS) <= 0)
			break;
		len = recv(raw, seg, sizeof(seg), 0);
		/* An IPv4 raw socket reads the IP header too, IPv6's does not. */
		off = v6 ? 0 : (seg[0] & 0xf) * 4;
		if (len < off + 14)
			continue;
		src = seg[off] << 8 | seg[off + 1];
		dst = seg[off + 2] << 8 | seg[off + 3];
		if ((seg[off + 13] & flags) == flags &&
		    ((src == a && dst == b) || (src == b && dst == a)))
			n++;
	}
	return n;
}

TEST_F(reset_reply, none)
{
	bool v6 = strchr(variant->addr, ':');
	struct sockaddr_storage ss;
	int fd, err, port, n;
	socklen_t len;

	len = bl_sockaddr_parse(variant->addr, SERVER_PORT, &ss);
	ASSERT_NE(0U, len);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	err = repair(fd, TCP_REPAIR_ON);
	if (err == -EPERM)
		SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	/* Under repair, connected at once: no SYN, nothing at the other end. */
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, repair(fd, TCP_REPAIR_OFF_NO_WP));
	port = bl_sock_port(fd);
	ASSERT_LT(0, port);
	reset_close(fd);
	n = count_segments(self->raw, v6, port, SERVER_PORT, TH_RST);
	EXPECT_EQ(1, n) TH_LOG("%d resets between ports %d and %d, expected 1%s", n, port,
			       SERVER_PORT, n >= RST_MAX ? " and more" : "");
}

/*
 * ---- bad_csum: a segment whose checksum is wrong gets no answer ----
 *
 * Loopback passes the segments of TCP sockets as checked, but a raw
 * socket's it leaves to be summed. A listener drops a SYN whose TCP
 * checksum is wrong unanswered; one it took would bring a SYN-ACK, and
 * from a port without a socket, a reset. The raw socket sees its own SYN
 * arrive, and nothing more between the two ports. The SYN carries data:
 * a segment of up to 76 bytes (CHECKSUM_BREAK) is summed on arrival
 * (tcp_v4_rcv()), a longer one only by the state that takes it, here in
 * tcp_v4_do_rcv() and tcp_v6_do_rcv().
 */
#define RAW_PORT	7000	/* no socket's */
#define SYN_LEN		(BL_TCP_HLEN + 64)

FIXTURE(bad_csum)
{
	int raw;
};

FIXTURE_VARIANT(bad_csum)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(bad_csum, v4) { "127.0.0.1" };
FIXTURE_VARIANT_ADD(bad_csum, v6) { "::1" };

FIXTURE_SETUP(bad_csum)
{
	self->raw = raw_tcp_open(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(bad_csum)
{
	if (self->raw >= 0)
		close(self->raw);
}

TEST_F(bad_csum, syn)
{
	static const char data[SYN_LEN - BL_TCP_HLEN];
	struct bl_tcp_seg s = { .sport = RAW_PORT, .dport = SERVER_PORT, .seq = 1,
			.flags = TH_SYN, .data = data, .dlen = sizeof(data) };
	bool v6 = strchr(variant->addr, ':');
	unsigned char buf[40 + SYN_LEN], *syn;
	struct sockaddr_storage ss;
	socklen_t len;
	int l, n;

	len = bl_sockaddr_parse(variant->addr, 0, &ss);
	ASSERT_NE(0U, len);
	syn = bl_tcp_seg_build(buf, &ss, &ss, &s);
	/* Off by 0x00ff: never the sum's other form of zero. */
	syn[17] ^= 0xff;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	ASSERT_EQ(SYN_LEN, sendto(self->raw, syn, SYN_LEN, 0, (struct sockaddr *)&ss, len))
		TH_LOG("sendto() on the raw socket: %s", strerror(errno));
	n = count_segments(self->raw, v6, RAW_PORT, SERVER_PORT, 0);
	EXPECT_EQ(1, n) TH_LOG("%d segments between ports %d and %d, expected the SYN alone%s",
			       n, RAW_PORT, SERVER_PORT, n >= RST_MAX ? " and more" : "");
	close(l);
}

/*
 * ---- ooo_close: bytes past a hole wait, and close() drops them ----
 *
 * A segment that starts past the next byte expected waits out of order
 * (tcp_data_queue_ofo()): the reader sees only the bytes before the hole,
 * and all of them in order once the hole is filled (filled). close() with
 * bytes unread resets the peer (__tcp_close()) and frees what waits
 * with the socket (held; tcp_v4_destroy_sock(): a socket freed with its
 * buffers still charged trips inet_sock_destruct()'s warnings). A raw
 * socket writes that segment in the peer's name, its sequence numbers
 * read under TCP_REPAIR; no timestamps, which it would have to carry.
 */
#define HOLE		100	/* bytes */
#define OOO_LEN		64

/*
 * On raw, a segment in the name of socket from, for socket to, both on
 * addr: flags and dlen bytes of data, starting HOLE bytes past the next
 * byte from sends. Both sequence numbers are read under TCP_REPAIR. 0 or
 * -errno.
 */
static int raw_past_hole(int raw, const char *addr, int from, int to, uint8_t flags,
			 const char *data, size_t dlen)
{
	struct bl_tcp_seg s = { .sport = bl_sock_port(from), .dport = bl_sock_port(to),
			.flags = flags, .data = data, .dlen = dlen };
	unsigned char buf[40 + BL_TCP_HLEN + OOO_LEN], *seg;
	struct sockaddr_storage ss;
	socklen_t len = bl_sockaddr_parse(addr, 0, &ss);
	int err;

	if (!len || dlen > OOO_LEN)
		return -EINVAL;
	err = sent_seq(from, false, &s.seq);
	if (!err)
		err = sent_seq(to, false, &s.ack);
	if (err)
		return err;
	s.seq += HOLE;
	seg = bl_tcp_seg_build(buf, &ss, &ss, &s);
	if (sendto(raw, seg, BL_TCP_HLEN + dlen, 0, (struct sockaddr *)&ss, len) < 0)
		return -errno;
	return 0;
}

FIXTURE(ooo_close)
{
	int raw;
};

FIXTURE_VARIANT(ooo_close)
{
	const char *addr;
	bool filled;	/* the hole, before close() */
};

FIXTURE_VARIANT_ADD(ooo_close, v4_held) { "127.0.0.1", false };
FIXTURE_VARIANT_ADD(ooo_close, v6_held) { "::1", false };
FIXTURE_VARIANT_ADD(ooo_close, v4_filled) { "127.0.0.1", true };
FIXTURE_VARIANT_ADD(ooo_close, v6_filled) { "::1", true };

FIXTURE_SETUP(ooo_close)
{
	self->raw = raw_tcp_open(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(ooo_close)
{
	if (self->raw >= 0)
		close(self->raw);
}

TEST_F(ooo_close, close)
{
	static const char ooo[OOO_LEN] = "past the hole";
	char hole[HOLE] = { 0 }, got[1 + HOLE + OOO_LEN];
	struct pollfd pfd = { .events = POLLIN };
	struct sockaddr_storage ss;
	int l, a, b, n, err;
	size_t have = 0;
	socklen_t len;
	ssize_t r;

	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TIMESTAMPS, 0));
	len = bl_sockaddr_parse(variant->addr, 0, &ss);
	ASSERT_NE(0U, len);
	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	a = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, connect_server(a, variant->addr));
	b = accept(l, NULL, NULL);
	ASSERT_LE(0, b);
	/* One byte in order, unread. */
	ASSERT_EQ(1, send(a, "x", 1, 0));
	pfd.fd = b;
	ASSERT_EQ(1, poll(&pfd, 1, FIN_MS));
	err = raw_past_hole(self->raw, variant->addr, a, b, TH_ACK | TH_PUSH, ooo, OOO_LEN);
	if (err == -EPERM)
		SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("the segment past the hole: %s", bl_errname(err));
	ASSERT_EQ(0, ioctl(b, FIONREAD, &n));
	EXPECT_EQ(1, n) TH_LOG("%d bytes readable with a hole after the first, expected 1", n);
	if (variant->filled) {
		ASSERT_EQ(HOLE, send(a, hole, HOLE, 0));
		while (have < sizeof(got) && poll(&pfd, 1, FIN_MS) == 1) {
			r = recv(b, got + have, sizeof(got) - have, 0);
			if (r <= 0)
				break;
			have += r;
		}
		EXPECT_EQ(sizeof(got), have)
			TH_LOG("%zu of %zu bytes read once the hole was filled", have,
			       sizeof(got));
		EXPECT_EQ(0, memcmp(got + 1 + HOLE, ooo, OOO_LEN))
			TH_LOG("the bytes past the hole are not those the segment carried");
		reset_close(b);
	} else {
		close(b);
		pfd.fd = a;
		ASSERT_EQ(1, poll(&pfd, 1, FIN_MS));
		r = recv(a, got, sizeof(got), 0);
		EXPECT_EQ(ECONNRESET, r < 0 ? errno : 0)
			TH_LOG("A's recv() after B closed with a byte unread: %zd", r);
	}
	reset_close(a);
	close(l);
}

/*
 * ---- tfo_blackhole: a Fast Open client that got only a FIN past a hole ----
 *
 * A Fast Open client whose connection brought it no data, only a FIN past
 * a hole, blames a middlebox that drops Fast Open when it is freed
 * (tcp_v4_destroy_sock(), tcp_fastopen_active_disable_ofo_check()): with
 * net.ipv4.tcp_fastopen_blackhole_timeout_sec set, the namespace's next
 * client sends its SYN without data, though it has a cookie
 * (fin_past_hole). Without that FIN, the SYN carries the data (none). The
 * raw socket writes the FIN in the server's name; the first client closes
 * without a reset, which would check at once (tcp_disconnect()).
 */
FIXTURE(tfo_blackhole)
{
	int raw;
};

FIXTURE_VARIANT(tfo_blackhole)
{
	const char *addr;
	bool fin;
};

FIXTURE_VARIANT_ADD(tfo_blackhole, v4_none) { "127.0.0.1", false };
FIXTURE_VARIANT_ADD(tfo_blackhole, v4_fin_past_hole) { "127.0.0.1", true };

FIXTURE_SETUP(tfo_blackhole)
{
	self->raw = raw_tcp_open(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(tfo_blackhole)
{
	if (self->raw >= 0)
		close(self->raw);
}

/* A Fast Open client's first segment to ss, and the server's child. */
static int tfo_client(struct __test_metadata *_metadata, int l,
		      const struct sockaddr_storage *ss, socklen_t len, int *child)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(1, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)ss, len))
		TH_LOG("sendto(MSG_FASTOPEN): %s", strerror(errno));
	*child = accept(l, NULL, NULL);
	ASSERT_LE(0, *child);
	return fd;
}

TEST_F(tfo_blackhole, syn_data)
{
	socklen_t len, tlen = sizeof(struct tcp_info);
	int l, c, k, qlen = 8, err, port;
	struct sockaddr_storage ss;
	struct tcp_info ti = { 0 };

	ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TIMESTAMPS, 0));
	ASSERT_EQ(0, bl_sysctl_write("net/ipv4/tcp_fastopen", "3"));
	ASSERT_EQ(0, bl_sysctl_write("net/ipv4/tcp_fastopen_blackhole_timeout_sec", "3600"));
	len = bl_sockaddr_parse(variant->addr, SERVER_PORT, &ss);
	ASSERT_NE(0U, len);
	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	ASSERT_EQ(0, setsockopt(l, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)));
	/* The first client asks for a cookie, and gets no data back. */
	c = tfo_client(_metadata, l, &ss, len, &k);
	port = bl_sock_port(c);
	if (variant->fin) {
		err = raw_past_hole(self->raw, variant->addr, k, c, TH_FIN | TH_ACK, NULL, 0);
		if (err == -EPERM)
			SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
		ASSERT_EQ(0, err) TH_LOG("the FIN past the hole: %s", bl_errname(err));
	}
	close(c);
	/* Freed once its FIN is acked, late: the server acks in pingpong mode. */
	ASSERT_EQ(0, bl_tcp_wait(TCP_FIN_WAIT2, port, 1, FIN_MS));
	reset_close(k);
	c = tfo_client(_metadata, l, &ss, len, &k);
	ASSERT_EQ(0, getsockopt(c, IPPROTO_TCP, TCP_INFO, &ti, &tlen));
	EXPECT_EQ(!variant->fin, !!(ti.tcpi_options & TCPI_OPT_SYN_DATA))
		TH_LOG("the second client's SYN %s its data, %s", ti.tcpi_options &
		       TCPI_OPT_SYN_DATA ? "carried" : "did not carry",
		       variant->fin ? "after a FIN past a hole" : "the first one clean");
	reset_close(k);
	reset_close(c);
	close(l);
}

/*
 * ---- child_ipid: children number their IPv4 packets apart ----
 *
 * Each connection numbers its IPv4 packets (the ID field) from a random
 * start of its own, a connection a listener accepted too
 * (tcp_v4_syn_recv_sock()), so that no one counts another's packets by
 * their IDs (RFC 7739). The first data segment of each of CHILDREN
 * accepted ones, as the raw socket sees it: not all of one ID. All are
 * alike by chance once in 2^32 runs.
 */
#define CHILDREN	3

FIXTURE(child_ipid)
{
	int raw;
};

FIXTURE_VARIANT(child_ipid)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(child_ipid, v4) { "127.0.0.1" };

FIXTURE_SETUP(child_ipid)
{
	self->raw = raw_tcp_open(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(child_ipid)
{
	if (self->raw >= 0)
		close(self->raw);
}

/* The IP ID of the first IPv4 segment with data from port a to b; -1: none. */
static int data_ip_id(int raw, uint16_t a, uint16_t b)
{
	struct pollfd pfd = { .fd = raw, .events = POLLIN };
	unsigned char seg[128];
	int i, off;
	ssize_t len;

	for (i = 0; i < RAW_MAX; i++) {
		if (poll(&pfd, 1, RST_WAIT_MS) <= 0)
			break;
		len = recv(raw, seg, sizeof(seg), 0);
		off = (seg[0] & 0xf) * 4;
		if (len < off + BL_TCP_HLEN || (seg[off] << 8 | seg[off + 1]) != a ||
		    (seg[off + 2] << 8 | seg[off + 3]) != b)
			continue;
		if ((seg[2] << 8 | seg[3]) > off + (seg[off + 12] >> 4) * 4)
			return seg[4] << 8 | seg[5];
	}
	return -1;
}

TEST_F(child_ipid, first)
{
	int l, c[CHILDREN], k[CHILDREN], id[CHILDREN], i, alike = 1;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	for (i = 0; i < CHILDREN; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, connect_server(c[i], variant->addr));
		k[i] = accept(l, NULL, NULL);
		ASSERT_LE(0, k[i]);
		ASSERT_EQ(1, send(k[i], "x", 1, 0));
		id[i] = data_ip_id(self->raw, SERVER_PORT, bl_sock_port(c[i]));
		ASSERT_LE(0, id[i]) TH_LOG("the raw socket saw no data from child %d", i);
		alike += i && id[i] == id[0];
	}
	EXPECT_GT(CHILDREN, alike)
		TH_LOG("%d children of one listener start their IP IDs at %d alike",
		       CHILDREN, id[0]);
	for (i = 0; i < CHILDREN; i++) {
		reset_close(k[i]);
		reset_close(c[i]);
	}
	close(l);
}

/*
 * ---- connect_srr: a source route leads to the address connect() got ----
 *
 * With a loose source route (IP_OPTIONS, RFC 791's LSRR) segments go to
 * the route's first hop first, and the address connect() was given stays
 * the connection's peer (tcp_v4_connect()): under TCP_REPAIR, which
 * connects at once without a segment, getpeername() names it, not the hop.
 * A source route to 0.0.0.0 is EINVAL: the hop would take a connection
 * whose peer is no address.
 */
FIXTURE(connect_srr) {};

FIXTURE_VARIANT(connect_srr)
{
	const char *dst, *hop;
	int err;
};

FIXTURE_VARIANT_ADD(connect_srr, v4) { .dst = "127.0.0.1", .hop = "127.0.0.2" };
FIXTURE_VARIANT_ADD(connect_srr, v4_any)
{ .dst = "0.0.0.0", .hop = "127.0.0.2", .err = EINVAL };

FIXTURE_SETUP(connect_srr)
{
	BL_ENTER_NETNS(return);
	ASSERT_EQ(0, bl_link_up("lo"));
}

FIXTURE_TEARDOWN(connect_srr)
{
}

TEST_F(connect_srr, peer)
{
	/* LSRR, 7 bytes, pointer 4, one hop; then a no-operation pad. */
	unsigned char lsrr[8] = { 131, 7, 4, 0, 0, 0, 0, 1 };
	struct sockaddr_storage ss, via, peer;
	socklen_t len, plen = sizeof(peer);
	char buf[64];
	int fd, err;

	ASSERT_NE(0U, bl_sockaddr_parse(variant->hop, 0, &via));
	memcpy(&lsrr[3], &((struct sockaddr_in *)&via)->sin_addr, 4);
	len = bl_sockaddr_parse(variant->dst, SERVER_PORT, &ss);
	ASSERT_NE(0U, len);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_IP, IP_OPTIONS, lsrr, sizeof(lsrr)));
	err = repair(fd, TCP_REPAIR_ON);
	if (err == -EPERM)
		SKIP(return, "TCP_REPAIR needs CAP_NET_ADMIN");
	ASSERT_EQ(0, err) TH_LOG("TCP_REPAIR: %s", bl_errname(err));
	err = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	ASSERT_EQ(variant->err, err)
		TH_LOG("connect() to %s through %s: %s, expected %s", variant->dst,
		       variant->hop, bl_errname(err), bl_errname(variant->err));
	if (err) {
		close(fd);
		return;
	}
	ASSERT_EQ(0, getpeername(fd, (struct sockaddr *)&peer, &plen));
	EXPECT_EQ(0, memcmp(&ss, &peer, len))
		TH_LOG("connect() to %s through %s: the peer is %s", variant->dst,
		       variant->hop, bl_sockaddr_str(&peer, buf, sizeof(buf)));
	ASSERT_EQ(0, repair(fd, TCP_REPAIR_OFF_NO_WP));
	reset_close(fd);
}

/*
 * ---- tw_fin_wait2: the peer's FIN makes a FIN_WAIT2 a whole TIME_WAIT ----
 *
 * A socket closed in FIN_WAIT2 waits for the peer's FIN as a TIME_WAIT
 * socket, for tcp_fin_timeout but at least 3.5 RTOs (tcp_fin_time()):
 * with 0 here, 700 ms on loopback (an RTO of 200 ms), holding its port.
 * Without the FIN it is gone when that time ends, and the port is free
 * (peer_silent). The FIN makes it a TIME_WAIT proper, for 60 s from then
 * (tcp_timewait_state_process() reschedules its timer): the port stays
 * taken past the first timeout (peer_fin). The timers are those of
 * either family: IPv4 alone checks the silent peer.
 * TCP_LINGER2 past a minute (linger2_rto_min): the orphan stays a
 * FIN_WAIT2 socket for what is over 60 s, then waits as a TIME_WAIT one
 * for the rest, but never under 3.5 RTOs (tcp_time_wait()): 1 s raised
 * to 7 s by its route's rto_min of 2 s, so the port is still taken 2.5 s on.
 */
#define FIN2_TIMEOUT	"0"	/* s, net.ipv4.tcp_fin_timeout: 3.5 RTOs */
#define FIN2_PAST_MS	1000	/* past 700 ms, whatever the timer's slack (1/8) */
#define FIN2_SILENT_MS	2000	/* the latest a silent peer's port is free */
#define FIN2_LINGER2	61	/* s: TCP_LINGER2, 1 s over TCP_TIMEWAIT_LEN */
#define FIN2_RTO_MIN_MS	2000
#define FIN2_LINGER2_MS	2500	/* past 2 s after close(), without 3.5 RTOs */

FIXTURE(tw_fin_wait2) {};

FIXTURE_VARIANT(tw_fin_wait2)
{
	const char *addr;
	bool peer_fin;
	int linger2;	/* s, TCP_LINGER2 (0: tcp_fin_timeout's) */
	int past_ms;	/* how long after the last close() bind() is tried */
	int err;	/* bind() to the port then */
};

FIXTURE_VARIANT_ADD(tw_fin_wait2, v4_peer_fin) {
	"127.0.0.1", true, 0, FIN2_PAST_MS, EADDRINUSE };
FIXTURE_VARIANT_ADD(tw_fin_wait2, v6_peer_fin) {
	"::1", true, 0, FIN2_PAST_MS, EADDRINUSE };
FIXTURE_VARIANT_ADD(tw_fin_wait2, v4_peer_silent) {
	"127.0.0.1", false, 0, FIN2_SILENT_MS, 0 };
FIXTURE_VARIANT_ADD(tw_fin_wait2, v4_linger2_rto_min) {
	"127.0.0.2", false, FIN2_LINGER2, FIN2_LINGER2_MS, EADDRINUSE };

FIXTURE_SETUP(tw_fin_wait2)
{
	if (!lo_ready(_metadata, variant->addr))
		return;
	ASSERT_EQ(0, bl_sysctl_write("net/ipv4/tcp_fin_timeout", FIN2_TIMEOUT));
	if (variant->linger2)
		ASSERT_EQ(0, bl_route_local_rto_min("127.0.0.2/32", FIN2_RTO_MIN_MS));
}

FIXTURE_TEARDOWN(tw_fin_wait2)
{
}

TEST_F(tw_fin_wait2, bind)
{
	int l, a, b, fd, err, ms;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	a = bound_socket(variant->addr, CLIENT_PORT, false, &err);
	ASSERT_EQ(0, err) TH_LOG("bind to port %d: %s", CLIENT_PORT, bl_errname(err));
	ASSERT_EQ(0, connect_server(a, variant->addr));
	b = accept(l, NULL, NULL);
	ASSERT_LE(0, b);
	if (variant->linger2)
		ASSERT_EQ(0, setsockopt(a, IPPROTO_TCP, TCP_LINGER2, &variant->linger2,
					sizeof(variant->linger2)));
	close(a);
	/*
	 * The peer acks the FIN late (delayed, in pingpong mode): its FIN
	 * must find a FIN_WAIT2, not a FIN_WAIT1 it would ack at once.
	 */
	ASSERT_EQ(0, bl_tcp_wait(TCP_FIN_WAIT2, CLIENT_PORT, 1, FIN_MS));
	/* Taken by the FIN_WAIT2, however it ends. */
	fd = bound_socket(variant->addr, CLIENT_PORT, false, &err);
	close(fd);
	ASSERT_EQ(-EADDRINUSE, err) TH_LOG("bind() beside the FIN_WAIT2: %s", bl_errname(err));
	if (variant->peer_fin) {
		close(b);
		usleep(variant->past_ms * 1000);
	}
	/* Silent: a free port ends the wait, due any time after 700 ms. */
	for (ms = 0; ; ms += 100) {
		fd = bound_socket(variant->addr, CLIENT_PORT, false, &err);
		close(fd);
		if (!err || variant->peer_fin || ms >= variant->past_ms)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(-variant->err, err)
		TH_LOG("bind() to port %d %d ms after close(), the peer's FIN %s: %s, expected %s",
		       CLIENT_PORT, variant->peer_fin ? variant->past_ms : ms,
		       variant->peer_fin ? "taken" : "never sent",
		       bl_errname(err), bl_errname(variant->err));
	if (!variant->peer_fin)
		close(b);
	close(l);
}

/*
 * ---- tw_metrics: a connection's RTT seeds the next one's first RTO ----
 *
 * A connection that ends in TIME_WAIT leaves its smoothed RTT in the
 * namespace's TCP metrics of its two addresses (tcp_time_wait() saves
 * it), and the next connection between them starts with an RTO of that
 * RTT over the 200 ms minimum (tcp_init_metrics()), not its handshake's
 * own microseconds'. The peer here delays each ACK (TCP_QUICKACK off
 * before each byte), so the first connection's RTT is tens of ms; the
 * RTT saved is that, less the samples of the close's ACKs, in jiffies
 * (rounded down): a third of it is left at HZ 100 and over.
 */
#define METRICS_SENDS	8
#define METRICS_RTT_US	10000U	/* at least, with each ACK delayed */
#define RTO_MIN_US	200000	/* TCP_RTO_MIN, tcp_rto_min_us's default */

FIXTURE(tw_metrics) {};

FIXTURE_VARIANT(tw_metrics)
{
	const char *src, *dst;
};

FIXTURE_VARIANT_ADD(tw_metrics, v4) { "127.0.0.2", "127.0.0.1" };

FIXTURE_SETUP(tw_metrics)
{
	lo_ready(_metadata, variant->dst);
}

FIXTURE_TEARDOWN(tw_metrics)
{
}

/* A socket of src's, its port the kernel's, connected to dst's server. */
static int connect_from(const char *src, const char *dst)
{
	int err, fd = bound_socket(src, 0, false, &err);

	if (fd < 0)
		return err;
	if (!err)
		err = connect_server(fd, dst);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* A listener on dst's server port, a connection from src, its accepted end. */
static void connection(struct __test_metadata *_metadata, const char *src,
		       const char *dst, int *l, int *c, int *a)
{
	*l = bl_tcp_listen(dst, SERVER_PORT);
	ASSERT_LE(0, *l) TH_LOG("listen on %s: %s", dst, strerror(-*l));
	*c = connect_from(src, dst);
	ASSERT_LE(0, *c) TH_LOG("connect() from %s: %s", src, bl_errname(*c));
	*a = accept(*l, NULL, NULL);
	ASSERT_LE(0, *a);
}

static struct tcp_info tcp_info_of(struct __test_metadata *_metadata, int fd)
{
	struct tcp_info ti = { 0 };
	socklen_t len = sizeof(ti);

	ASSERT_EQ(0, getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len));
	return ti;
}

TEST_F(tw_metrics, rto)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int l, c, a, i, ms, zero = 0;
	char buf[METRICS_SENDS];
	unsigned int rtt, rto;

	connection(_metadata, variant->src, variant->dst, &l, &c, &a);
	for (i = 0; i < METRICS_SENDS; i++) {
		ASSERT_EQ(0, setsockopt(a, IPPROTO_TCP, TCP_QUICKACK, &zero, sizeof(zero)));
		ASSERT_EQ(1, send(c, "x", 1, 0));
		for (ms = 0; tcp_info_of(_metadata, c).tcpi_unacked && ms < FIN_MS; ms++)
			usleep(1000);
	}
	rtt = tcp_info_of(_metadata, c).tcpi_rtt;
	ASSERT_LE(METRICS_RTT_US, rtt) TH_LOG("the peer acked at once: RTT %u us", rtt);
	ASSERT_EQ(0, getsockname(c, (struct sockaddr *)&ss, &len));
	close(c);
	ASSERT_EQ(0, bl_tcp_wait(TCP_FIN_WAIT2, bl_sockaddr_port(&ss), 1, FIN_MS));
	/* Read: a close() with bytes unread resets, and no TIME_WAIT follows. */
	ASSERT_EQ(METRICS_SENDS, recv(a, buf, sizeof(buf), MSG_WAITALL));
	close(a);
	ASSERT_EQ(0, bl_tcp_wait(TCP_TIME_WAIT, bl_sockaddr_port(&ss), 1, FIN_MS));
	c = connect_from(variant->src, variant->dst);
	ASSERT_LE(0, c) TH_LOG("the second connect() from %s: %s", variant->src,
			       bl_errname(c));
	rto = tcp_info_of(_metadata, c).tcpi_rto;
	EXPECT_LE(RTO_MIN_US + rtt / 3, rto)
		TH_LOG("the first connection's RTT %u us; the second's first RTO %u us",
		       rtt, rto);
	close(c);
	close(l);
}

/*
 * ---- route_flush: a connection's bytes past a change of the routes ----
 *
 * An established socket keeps the route its segments come in by
 * (sk_rx_dst). A change of the namespace's routes (here an address
 * added) makes it stale: the next segment drops it and is routed afresh
 * (tcp_v4_do_rcv(), tcp_v6_do_rcv()), and the bytes sent after the change
 * arrive both ways.
 */
FIXTURE(route_flush) {};

FIXTURE_VARIANT(route_flush)
{
	const char *addr, *cidr;
};

FIXTURE_VARIANT_ADD(route_flush, v4) { "127.0.0.1", "10.9.0.1/32" };
FIXTURE_VARIANT_ADD(route_flush, v6) { "::1", "fd09::1/128" };

FIXTURE_SETUP(route_flush)
{
	lo_ready(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(route_flush)
{
}

/* One byte from fd to peer, received within FIN_MS: 0 or -errno. */
static int byte_across(int fd, int peer, char byte)
{
	struct pollfd p = { .fd = peer, .events = POLLIN };
	char got;

	if (send(fd, &byte, 1, 0) != 1)
		return -errno;
	if (poll(&p, 1, FIN_MS) != 1)
		return -ETIMEDOUT;
	if (recv(peer, &got, 1, 0) != 1)
		return -EIO;
	return got == byte ? 0 : -EBADMSG;
}

TEST_F(route_flush, bytes)
{
	int l, c, a;

	connection(_metadata, variant->addr, variant->addr, &l, &c, &a);
	/* Both ends now hold the route their segments came in by. */
	ASSERT_EQ(0, byte_across(c, a, 'a'));
	ASSERT_EQ(0, byte_across(a, c, 'b'));
	ASSERT_EQ(0, bl_addr_add("lo", variant->cidr));
	EXPECT_EQ(0, byte_across(c, a, 'c'));
	EXPECT_EQ(0, byte_across(a, c, 'd'));
	close(a);
	close(c);
	close(l);
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

/*
 * The bind path's port sysctls check each other (ipv4_local_port_range(),
 * ipv4_privileged_ports()): the ephemeral range's low end never below
 * ip_unprivileged_port_start (1024 in a new namespace), its high end
 * never below its low end, the start never above the range's low end
 * (32768). A range's two numbers read back tab separated.
 */
#define SYSCTL_PROT_SOCK	"net/ipv4/ip_unprivileged_port_start"
FIXTURE_VARIANT_ADD(tw_sysctl, port_range_1024_1025)
{ .key = BL_SYSCTL_PORT_RANGE, .before = "32768\t60999", .write = "1024\t1025" };
FIXTURE_VARIANT_ADD(tw_sysctl, port_range_1023_2000)
{ .key = BL_SYSCTL_PORT_RANGE, .before = "32768\t60999", .write = "1023\t2000",
	.err = EINVAL };
/* Refused as a whole: the low end, read first, is not kept either. */
FIXTURE_VARIANT_ADD(tw_sysctl, port_range_2000_65536)
{ .key = BL_SYSCTL_PORT_RANGE, .before = "32768\t60999", .write = "2000\t65536",
	.err = EINVAL };
FIXTURE_VARIANT_ADD(tw_sysctl, port_range_2000_2000)
{ .key = BL_SYSCTL_PORT_RANGE, .before = "32768\t60999", .write = "2000\t2000" };
FIXTURE_VARIANT_ADD(tw_sysctl, port_range_2000_1999)
{ .key = BL_SYSCTL_PORT_RANGE, .before = "32768\t60999", .write = "2000\t1999",
	.err = EINVAL };
FIXTURE_VARIANT_ADD(tw_sysctl, unpriv_start_0)
{ .key = SYSCTL_PROT_SOCK, .before = "1024", .write = "0" };
FIXTURE_VARIANT_ADD(tw_sysctl, unpriv_start_32768)
{ .key = SYSCTL_PROT_SOCK, .before = "1024", .write = "32768" };
FIXTURE_VARIANT_ADD(tw_sysctl, unpriv_start_32769)
{ .key = SYSCTL_PROT_SOCK, .before = "1024", .write = "32769", .err = EINVAL };

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
					     bl_errname(err), bl_errname(-variant->err));
	ASSERT_EQ(0, bl_sysctl_read(variant->key, buf, sizeof(buf)));
	ASSERT_STREQ(variant->err ? variant->before : variant->write, buf);
}

/* The commit's last hunk: a new namespace starts loopback-only. */
TEST(tw_reuse_default_is_2)
{
	long v;

	BL_ENTER_NETNS(return);
	ASSERT_EQ(0, bl_sysctl_read_long(BL_SYSCTL_TW_REUSE, &v));
	ASSERT_EQ(2, v);
}

/*
 * ---- flowlabel_linger: a flow label outlives its last socket a while ----
 *
 * An IPv6 flow label leased with IPV6_FLOWLABEL_MGR stays the namespace's
 * while a socket holds it, and for its linger after the last lets go (at
 * least 6 s, FL_MIN_LINGER): until its collector frees it (ip6_fl_gc()),
 * a new lease of it fails with EEXIST. A connect() that sends with the
 * label (IPV6_FLOWINFO_SEND) holds it only for the call
 * (tcp_v6_connect()): once that connection is closed, the label lingers,
 * then goes, as one never used does. The row waits out the linger: 7.5 s.
 */
#define LABEL		0x54321
#define LINGER_S	6	/* FL_MIN_LINGER */
/* Past it, whatever the collector's timer's slack (under 1 s at 6 s). */
#define LINGER_PAST_MS	(LINGER_S * 1000 + 1500)

FIXTURE(flowlabel_linger) {};

FIXTURE_VARIANT(flowlabel_linger)
{
	const char *addr;
};

FIXTURE_VARIANT_ADD(flowlabel_linger, v6) { "::1" };

FIXTURE_SETUP(flowlabel_linger)
{
	lo_ready(_metadata, variant->addr);
}

FIXTURE_TEARDOWN(flowlabel_linger)
{
}

/* An exclusive lease of LABEL, made anew, on fd: 0 or errno. */
static int label_lease(int fd)
{
	struct in6_flowlabel_req req = {
		.flr_dst = IN6ADDR_LOOPBACK_INIT, .flr_label = htonl(LABEL),
		.flr_action = IPV6_FL_A_GET, .flr_flags = IPV6_FL_F_CREATE | IPV6_FL_F_EXCL,
		.flr_share = IPV6_FL_S_EXCL, .flr_linger = LINGER_S,
	};

	return setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &req, sizeof(req)) ? errno : 0;
}

TEST_F(flowlabel_linger, connect)
{
	int l, fd, k, one = 1, err;
	struct sockaddr_storage to;
	socklen_t len;
	uint64_t t0;
	clock_t k0;

	l = bl_tcp_listen(variant->addr, SERVER_PORT);
	ASSERT_LE(0, l) TH_LOG("listen on %s: %s", variant->addr, strerror(-l));
	len = bl_sockaddr_parse(variant->addr, SERVER_PORT, &to);
	ASSERT_NE(0U, len);
	((struct sockaddr_in6 *)&to)->sin6_flowinfo = htonl(LABEL);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	err = label_lease(fd);
	ASSERT_EQ(0, err) TH_LOG("a lease of 0x%x: %s", LABEL, bl_errname(err));
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &one, sizeof(one)));
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&to, len))
		TH_LOG("connect() with flow label 0x%x: %s", LABEL, strerror(errno));
	k = accept(l, NULL, NULL);
	ASSERT_LE(0, k);
	close(k);
	close(fd);
	close(l);

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	err = label_lease(fd);
	EXPECT_EQ(EEXIST, err)
		TH_LOG("a lease of 0x%x as its socket closes: %s, expected EEXIST (its linger)",
		       LABEL, bl_errname(err));
	/*
	 * Each lease tried renews the linger (fl_release()): one try, past it.
	 * The linger runs on jiffies, the sleep on CLOCK_MONOTONIC: a failure
	 * says how far each went (times() returns jiffies in clock ticks).
	 */
	t0 = bl_now_ns();
	k0 = times(NULL);
	usleep(LINGER_PAST_MS * 1000);
	err = label_lease(fd);
	EXPECT_EQ(0, err)
		TH_LOG("a lease of 0x%x %llu ms after its connection closed (jiffies: %lld ms): %s (linger %d s)",
		       LABEL, (unsigned long long)(bl_now_ns() - t0) / 1000000,
		       (long long)(times(NULL) - k0) * 1000 / sysconf(_SC_CLK_TCK),
		       bl_errname(err), LINGER_S);
	close(fd);
}

TEST_HARNESS_MAIN
