/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sockets of bind_bhash_test's rows: what a row says about a socket
 * (address, options, device, uid, port 0, the errno it expects), how it
 * is opened and bound, and the states socket A can be put in. Included by
 * bind_bhash_test.c only: these helpers report through the harness.
 */
#ifndef BHASH_SOCKETS_H
#define BHASH_SOCKETS_H

#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksft_bindlab.h"

/* Below the default ephemeral range: connect() never autobinds to them. */
#define PORT		30000
#define PORT_PEER	30001
#define OTHER_UID	65534
#define OTHER_LINK	"bl_other"
#define TW_WAIT_MS	2000

/* The rows' addresses, as lib/bindlab_vocab.h writes them. */
#define V4_ANY		BL_HOST_V4_ANY
#define V4_LO		BL_HOST_V4_LOCAL
#define V4_LO2		BL_HOST_V4_LOCAL2
#define V6_ANY		BL_HOST_V6_ANY
#define V6_LO		BL_HOST_V6_LOCAL
#define V4M_ANY		BL_HOST_V4MAPPED_ANY
#define V4M_LO		BL_HOST_V4MAPPED_LOCAL

/* Socket options of a row's socket. */
#define RA		0x1	/* SO_REUSEADDR */
#define RP		0x2	/* SO_REUSEPORT */
#define V6ONLY		0x4	/* IPV6_V6ONLY */

enum bl_dev { DEV_NONE, DEV_LO, DEV_OTHER };

struct sk_spec {
	const char *addr;	/* NULL: the row has no such socket */
	unsigned int opts;
	enum bl_dev dev;	/* SO_BINDTODEVICE */
	bool other_uid;		/* created as OTHER_UID instead of root */
	bool port0;		/* bind() to port 0, the range narrowed to one port */
	int err;		/* expected errno of bind(), 0 for success */
	int listen_err;		/* expected errno of listen() after a bind() */
};

/* ---- sockets of a row ---- */

static const char *describe(const char *who, const struct sk_spec *s,
			    int port, char *buf, size_t len)
{
	static const char * const devs[] = {
		[DEV_NONE] = "", [DEV_LO] = " dev lo", [DEV_OTHER] = (" dev " OTHER_LINK),
	};
	char where[48];

	if (s->port0)
		snprintf(where, sizeof(where), "port 0 (range %d-%d)", port, port);
	else
		snprintf(where, sizeof(where), "port %d", port);
	snprintf(buf, len, "%s %s%s %s%s%s%s%s%s", who, s->addr,
		 s->opts & V6ONLY ? " (V6ONLY)" : "", where,
		 s->opts & RA ? " SO_REUSEADDR" : "",
		 s->opts & RP ? " SO_REUSEPORT" : "",
		 s->opts & (RA | RP) ? "" : " no reuse option",
		 devs[s->dev], s->other_uid ? " uid 65534" : "");
	return buf;
}

static bool is_ipv6(const char *addr)
{
	return addr && strchr(addr, ':');
}

static int setopt(int fd, int level, int name)
{
	int one = 1;

	return setsockopt(fd, level, name, &one, sizeof(one));
}

static int sk_open(struct __test_metadata *_metadata, const struct sk_spec *s)
{
	const char *dev = s->dev == DEV_LO ? "lo" : OTHER_LINK;
	int fd;

	/* The socket's uid is the creator's fsuid at socket() time. */
	if (s->other_uid)
		ASSERT_EQ(0, setresuid(-1, OTHER_UID, -1));
	fd = socket(is_ipv6(s->addr) ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (s->other_uid)
		ASSERT_EQ(0, setresuid(-1, 0, -1));
	ASSERT_LE(0, fd) TH_LOG("socket: %s", strerror(errno));

	if (s->opts & RA)
		ASSERT_EQ(0, setopt(fd, SOL_SOCKET, SO_REUSEADDR));
	if (s->opts & RP)
		ASSERT_EQ(0, setopt(fd, SOL_SOCKET, SO_REUSEPORT));
	if (s->opts & V6ONLY)
		ASSERT_EQ(0, setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY));
	if (s->dev != DEV_NONE)
		ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
					strlen(dev) + 1))
			TH_LOG("SO_BINDTODEVICE %s: %s", dev, strerror(errno));
	return fd;
}

/*
 * bind() to the row's address; port 0 with the ephemeral range narrowed
 * to port, so that whether the kernel may hand out that very port is the
 * question. Returns 0 or the errno.
 */
static int sk_bind(struct __test_metadata *_metadata, int fd,
		   const struct sk_spec *s, uint16_t port)
{
	struct sockaddr_storage ss;
	char range[64], narrow[32];
	socklen_t len;
	int err;

	len = bl_sockaddr_parse(s->addr, s->port0 ? 0 : port, &ss);
	ASSERT_NE(0U, len) TH_LOG("not an address: %s", s->addr);
	if (s->port0) {
		ASSERT_EQ(0, bl_sysctl_read(BL_SYSCTL_PORT_RANGE, range, sizeof(range)));
		snprintf(narrow, sizeof(narrow), "%u %u", port, port);
		ASSERT_EQ(0, bl_sysctl_write(BL_SYSCTL_PORT_RANGE, narrow));
	}
	err = bind(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	if (s->port0) {
		ASSERT_EQ(0, bl_sysctl_write(BL_SYSCTL_PORT_RANGE, range));
		if (!err)
			ASSERT_EQ(port, bl_sock_port(fd));
	}
	return err;
}

static void expect_err(struct __test_metadata *_metadata, const char *what,
		       const char *who, const struct sk_spec *s, int port,
		       int got, int want)
{
	char desc[200];

	EXPECT_EQ(want, got)
		TH_LOG("%s of %s: %s, expected %s", what,
		       describe(who, s, port, desc, sizeof(desc)),
		       bl_errname(got), bl_errname(want));
}

/* A socket bound as the row says; the test fails if bind() does not. */
static int sk_bound(struct __test_metadata *_metadata, const char *who,
		    const struct sk_spec *s, uint16_t port)
{
	int fd = sk_open(_metadata, s);
	int err = sk_bind(_metadata, fd, s, port);
	char desc[200];

	ASSERT_EQ(0, err)
		TH_LOG("setup: bind of %s: %s",
		       describe(who, s, port, desc, sizeof(desc)), bl_errname(err));
	return fd;
}

/* ---- states of the existing socket A ---- */

/* Connect fd, or a new plain socket when fd < 0, to listener l. */
static int connect_to(struct __test_metadata *_metadata, int fd, int l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ASSERT_EQ(0, getsockname(l, (struct sockaddr *)&ss, &len));
	if (fd < 0)
		fd = socket(ss.ss_family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bl_tcp_connect(fd, &ss, 0))
		TH_LOG("connect: %s", strerror(errno));
	return fd;
}

static int listener(struct __test_metadata *_metadata, const char *addr,
		    uint16_t port)
{
	int fd = bl_tcp_listen(addr, port);

	ASSERT_LE(0, fd)
		TH_LOG("listen on %s port %d: %s", addr, port, strerror(-fd));
	return fd;
}

static int a_child(struct __test_metadata *_metadata, const struct sk_spec *a)
{
	int l = sk_bound(_metadata, "A", a, PORT), fd;

	ASSERT_EQ(0, listen(l, 8));
	connect_to(_metadata, -1, l);	/* the client stays open */
	fd = accept(l, NULL, NULL);
	ASSERT_LE(0, fd);
	close(l);
	return fd;
}

/* connect() picks A's port; *port returns it. */
static int a_autobind(struct __test_metadata *_metadata,
		      const struct sk_spec *a, uint16_t *port)
{
	struct sockaddr_storage want, got;
	socklen_t len = sizeof(got);
	int l, fd, ret;
	char buf[64];

	l = listener(_metadata, a->addr, PORT_PEER);
	fd = connect_to(_metadata, sk_open(_metadata, a), l);
	ASSERT_LE(0, accept(l, NULL, NULL));
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&got, &len));
	ret = bl_sockaddr_port(&got);
	ASSERT_LT(0, ret);
	*port = ret;
	/* The row's facts hold only if the source address is the row's. */
	ASSERT_EQ(len, bl_sockaddr_parse(a->addr, *port, &want));
	ASSERT_EQ(0, memcmp(&want, &got, len))
		TH_LOG("connect() bound A to %s, not %s",
		       bl_sockaddr_str(&got, buf, sizeof(buf)), a->addr);
	return fd;
}

/*
 * A connects to a listener and closes first, then the peer: A ends in
 * TIME_WAIT on its port, with no descriptor left to it.
 */
static int a_time_wait(struct __test_metadata *_metadata,
		       const struct sk_spec *a)
{
	int fd = sk_bound(_metadata, "A", a, PORT), l, err;

	l = listener(_metadata, a->addr, PORT_PEER);
	connect_to(_metadata, fd, l);
	err = bl_tcp_time_wait(fd, l, TW_WAIT_MS);
	ASSERT_EQ(0, err) TH_LOG("closing A: %s", strerror(-err));
	close(l);
	err = bl_tcp_wait(TCP_TIME_WAIT, PORT, 1, TW_WAIT_MS);
	ASSERT_EQ(0, err)
		TH_LOG("A is not in TIME_WAIT after %d ms: %s", TW_WAIT_MS,
		       strerror(-err));
	return -1;
}

static int a_setup(struct __test_metadata *_metadata, enum a_state state,
		   const struct sk_spec *a, uint16_t *port)
{
	int fd;

	*port = PORT;
	switch (state) {
	case A_LISTEN:
		fd = sk_bound(_metadata, "A", a, PORT);
		ASSERT_EQ(0, listen(fd, 8));
		/*
		 * With a connection waiting: its child joins A's port
		 * (__inet_inherit_port()) and must not change what the
		 * port allows. The client stays open.
		 */
		connect_to(_metadata, -1, fd);
		return fd;
	case A_CHILD:
		return a_child(_metadata, a);
	case A_AUTOBIND:
		return a_autobind(_metadata, a, port);
	case A_TIME_WAIT:
		return a_time_wait(_metadata, a);
	case A_BOUND:
	case A_LISTEN_LATER:
	default:
		return sk_bound(_metadata, "A", a, PORT);
	}
}

/* SKIP reasons of a row's sockets, or NULL when the row can run here. */
static const char *cannot_run(const struct sk_spec *sk, size_t n,
			      struct bl_why *why)
{
	bool ipv6 = false, uid = false, link = false;
	size_t i;

	for (i = 0; i < n; i++) {
		ipv6 |= is_ipv6(sk[i].addr);
		uid |= sk[i].other_uid;
		link |= sk[i].dev == DEV_OTHER;
	}
	if (ipv6 && !bl_ipv6_usable(why))
		return why->msg;
	if (uid && (setresuid(-1, OTHER_UID, -1) || setresuid(-1, 0, -1))) {
		bl_why_set(why, errno, "cannot create sockets as uid %d: %s",
			   OTHER_UID, strerror(errno));
		return why->msg;
	}
	if (link && bl_other_link_add(OTHER_LINK, why))
		return why->msg;
	return NULL;
}

/*
 * The setup of a test of a row of sockets: a namespace of its own, or
 * SKIP with the reason when the row needs what this host cannot give
 * (false: the test must return). Called by the tests that make sockets,
 * not by FIXTURE_SETUP: the row's model test (bhash_model.h) makes none.
 */
static bool rows_ready(struct __test_metadata *_metadata,
		       const struct sk_spec *sk, size_t n)
{
	struct bl_why why = { "" };
	const char *reason;

	BL_ENTER_NETNS(return false);
	reason = cannot_run(sk, n, &why);
	if (reason)
		SKIP(return false, "%s", reason);
	return true;
}

#endif /* BHASH_SOCKETS_H */
