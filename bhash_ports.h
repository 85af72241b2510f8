/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port_choice (bind_bhash_test.c): how the kernel chooses a port when
 * none is given, bind() to port 0 (inet_csk_find_open_port()) and
 * connect() of an unbound socket (__inet_hash_connect()). A row sets the
 * sysctls that steer the choice in its namespace, makes its sockets one
 * after another and checks properties of the ports they got that hold
 * on every correct kernel (in the range, never reserved, the parity or
 * half scanned first, how many ports until exhaustion), never a port
 * number: the kernel starts its scan at a random offset. The checks
 * bind() makes before it takes a port are rows too: the address must be
 * local unless an option or sysctl relaxes that (the port got, or the
 * errno), a port below ip_unprivileged_port_start needs
 * CAP_NET_BIND_SERVICE (the ports bound from the row's port down, then
 * EACCES). The rows are in bhash_port_rows.h. Included by
 * bind_bhash_test.c only.
 */
#ifndef BHASH_PORTS_H
#define BHASH_PORTS_H

#include <linux/capability.h>
#include <sys/syscall.h>
#include <time.h>

#include "bhash_sockets.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT	24
#endif
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE	51
#endif

#define PC_MAX_OPS		24
#define PC_BACKLOG		64
#define PC_CONNECT_MS		2000
/* tcp_twsk_unique(): 6.12 wants the next second, 6.13+ tcp_tw_reuse_delay (1 s). */
#define PC_TW_REUSE_WAIT_MS	1100
/* TCP_LINGER2 1 s: a FIN_WAIT2 orphan's life, at least 3.5 RTOs (0.7 s). */
#define PC_FW2_GONE_MS		5000
#define SYSCTL_RESERVED		"net/ipv4/ip_local_reserved_ports"
#define SYSCTL_AUTOBIND_REUSE	"net/ipv4/ip_autobind_reuse"
#define SYSCTL_PROT_SOCK	"net/ipv4/ip_unprivileged_port_start"
#define SYSCTL_NONLOCAL4	"net/ipv4/ip_nonlocal_bind"
#define SYSCTL_NONLOCAL6	"net/ipv6/ip_nonlocal_bind"
/* Addresses no interface of the row's namespace has (RFC 5737, 3849). */
#define V4_NONLOCAL		"192.0.2.1"
#define V6_NONLOCAL		"2001:db8:ffff::1"
#define V4M_NONLOCAL		"::ffff:192.0.2.1"

/* What each socket of the row does to get its port. */
enum pc_op {
	PC_BIND0,	/* bind() to port 0 */
	PC_CONNECT,	/* connect() without bind() */
	PC_NO_PORT,	/* bind() to port 0 with IP_BIND_ADDRESS_NO_PORT, connect() */
	PC_BIND_DOWN,	/* bind() to the row's port, the next one to port - 1... */
	PC_DISCONNECT,	/* bind() to the row's port, connect(), connect(AF_UNSPEC) */
	PC_REBIND,	/* bind() to port 0, then once more: the second's result */
	PC_BIND_CONNECT, /* bind() to port 0, connect(): from row.after, that port */
};

/* The socket option that lets bind() take an address no interface has. */
enum pc_nonlocal_opt {
	PC_OPT_NONE,
	PC_OPT_FREEBIND,	/* IP_FREEBIND, IPV6_FREEBIND */
	PC_OPT_TRANSPARENT,	/* IP_TRANSPARENT, IPV6_TRANSPARENT (CAP_NET_ADMIN) */
};

/* The ports scanned first: of the first pref_n ports got, each is... */
enum pc_pref {
	PC_ANY,
	PC_ODD,		/* an odd offset from the range's low end */
	PC_EVEN,	/* an even one */
	PC_LOW_HALF,	/* below low + (size / 4) * 2 */
	PC_MIXED,	/* odd and even ones: no parity scanned first */
};

/* What holds the range's low end before the row's sockets come. */
enum pc_pre {
	PC_PRE_NONE,
	PC_PRE_BOUND,		/* bind() to it, SO_REUSEADDR */
	PC_PRE_DEV_OTHER,	/* bind() to it, bound to OTHER_LINK */
	PC_PRE_TW,		/* a connection to the first listener, in TIME_WAIT */
	PC_PRE_CHAIN,		/* 0.0.0.0 bound to each port ^ PC_CHAIN_BIT */
	PC_PRE_FIN_WAIT2,	/* a connection to the first listener, closed by us only */
	PC_PRE_TW_YOUNG,	/* as PC_PRE_TW, taken over at once: within the delay */
	PC_PRE_REFUSED,		/* bound, a bind() to its wildcard refused, closed */
	PC_PRE_BHASH_CHAIN,	/* 0.0.0.0 bound to low + 2^k: its bhash chain */
	PC_PRE_JOINED,		/* connect()ed, a bind() joined, the first reset */
	PC_PRE_SHARED,		/* two connect()s share it, SO_REUSEADDR the second */
	PC_PRE_FW2_GONE,	/* bind(), connect(), a FIN_WAIT2 orphan that ended */
	PC_PRE_ANY_RESET,	/* bind() to the wildcard, connect(), reset */
};

/*
 * Ports P and P ^ 2^15 share a bhash2 chain (ipv4_portaddr_hash() is the
 * address's hash ^ port, masked to the table's size) whenever the table
 * has 2^15 buckets or fewer: 8192 in the lab's 1 GB VM. Only the port
 * compare of inet_bind2_bucket_match_addr_any() tells them apart there.
 * A machine with a 2^16 table has no such pair: the row passes as well.
 */
#define PC_CHAIN_BIT		0x8000
/*
 * Ports P and P + 2^k share a bhash chain (inet_bhashfn(): the port plus
 * the netns's mix, masked) when the table has 2^k buckets: from 2^10 up,
 * 8192 in the lab's VM. Only inet_bind_bucket_match() tells them apart.
 */
#define PC_BHASH_MIN		1024

struct pc_row {
	enum bl_port_rule rule;	/* the kernel's rule the row checks */
	struct sk_spec sk;	/* the row's sockets: address, options, device */
	int lo, hi;		/* net.ipv4.ip_local_port_range */
	int res_lo, res_hi;	/* ip_local_reserved_ports, 0: none */
	int sk_lo, sk_hi;	/* IP_LOCAL_PORT_RANGE, 0: not set */
	int autobind_reuse;	/* net.ipv4.ip_autobind_reuse */
	int tw_reuse;		/* net.ipv4.tcp_tw_reuse, of the PC_PRE_TW... rows */
	int port;		/* PC_BIND_DOWN: the first socket's port */
	int prot_sock;		/* net.ipv4.ip_unprivileged_port_start, 0: as is */
	bool bind_service;	/* other_uid's bind() keeps CAP_NET_BIND_SERVICE */
	const char *nonlocal;	/* this ip_nonlocal_bind sysctl set to 1 */
	bool unspec;		/* the address given as AF_UNSPEC */
	const char *after;	/* PC_DISCONNECT, PC_BIND_CONNECT: the address after it */
	const char *peer;	/* the listeners' address (NULL: the sockets') */
	int connect_ms;		/* PC_BIND_CONNECT's bound, 0: PC_CONNECT_MS */
	bool keep;		/* PC_DISCONNECT: the port kept, not given back */
	enum pc_nonlocal_opt opt;
	enum pc_op op;
	enum pc_pre pre;
	int ndest;		/* connect(): listeners taken in turn (0: 1) */
	int ok;			/* sockets that get a port */
	int err;		/* errno of one more, 0: none is tried */
	enum pc_pref pref;
	int pref_n;
};

/* The range the kernel scans: inet_sk_get_local_port_range(). */
static void pc_range(const struct pc_row *r, int *lo, int *hi)
{
	*lo = r->lo;
	*hi = r->hi;
	if (r->port) {
		*lo = r->port - PC_MAX_OPS + 1;
		*hi = r->port;
		return;
	}
	if (!r->sk_lo)
		return;
	/* Each end of the socket's range counts only inside the netns one. */
	if (r->lo <= r->sk_lo && r->sk_lo <= r->hi)
		*lo = r->sk_lo;
	if (r->lo <= r->sk_hi && r->sk_hi <= r->hi)
		*hi = r->sk_hi;
}

static void pc_sysctls(struct __test_metadata *_metadata, const struct pc_row *r)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d %d", r->lo, r->hi);
	ASSERT_EQ(0, bl_sysctl_write(BL_SYSCTL_PORT_RANGE, buf));
	if (r->res_lo) {
		snprintf(buf, sizeof(buf), "%d-%d", r->res_lo, r->res_hi);
		ASSERT_EQ(0, bl_sysctl_write(SYSCTL_RESERVED, buf));
	}
	ASSERT_EQ(0, bl_sysctl_write_long(SYSCTL_AUTOBIND_REUSE, r->autobind_reuse));
	if (r->pre == PC_PRE_TW || r->pre == PC_PRE_FIN_WAIT2 ||
	    r->pre == PC_PRE_TW_YOUNG)
		ASSERT_EQ(0, bl_sysctl_write_long(BL_SYSCTL_TW_REUSE, r->tw_reuse));
	if (r->prot_sock)
		ASSERT_EQ(0, bl_sysctl_write_long(SYSCTL_PROT_SOCK, r->prot_sock));
	if (r->nonlocal)
		ASSERT_EQ(0, bl_sysctl_write_long(r->nonlocal, 1));
}

/* A socket of the row, with its IP_LOCAL_PORT_RANGE. */
static int pc_open(struct __test_metadata *_metadata, const struct pc_row *r)
{
	uint32_t range = (uint32_t)r->sk_hi << 16 | r->sk_lo;
	int fd = sk_open(_metadata, &r->sk);

	if (r->sk_lo)
		ASSERT_EQ(0, setsockopt(fd, SOL_IP, IP_LOCAL_PORT_RANGE, &range,
					sizeof(range)))
			TH_LOG("IP_LOCAL_PORT_RANGE: %s", strerror(errno));
	if (r->opt == PC_OPT_FREEBIND)
		ASSERT_EQ(0, is_ipv6(r->sk.addr) ?
			  setopt(fd, SOL_IPV6, IPV6_FREEBIND) :
			  setopt(fd, SOL_IP, IP_FREEBIND));
	if (r->opt == PC_OPT_TRANSPARENT)
		ASSERT_EQ(0, is_ipv6(r->sk.addr) ?
			  setopt(fd, SOL_IPV6, IPV6_TRANSPARENT) :
			  setopt(fd, SOL_IP, IP_TRANSPARENT))
			TH_LOG("IP_TRANSPARENT: %s", strerror(errno));
	return fd;
}

/*
 * bind() as the kernel judges it for an other_uid row: with the
 * effective uid OTHER_UID, which empties the effective capabilities
 * (the permitted ones stay: ruid and suid are still 0), but for
 * CAP_NET_BIND_SERVICE when the row keeps it. Returns 0 or -errno.
 */
static int pc_bind(struct __test_metadata *_metadata, const struct pc_row *r,
		   int fd, const struct sockaddr_storage *ss, socklen_t len)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cap[2];
	int err;

	if (!r->sk.other_uid)
		return bind(fd, (const struct sockaddr *)ss, len) ? -errno : 0;
	ASSERT_EQ(0, setresuid(-1, OTHER_UID, -1));
	if (r->bind_service) {
		ASSERT_EQ(0, syscall(SYS_capget, &hdr, cap));
		cap[0].effective = 1U << CAP_NET_BIND_SERVICE;
		cap[1].effective = 0;
		ASSERT_EQ(0, syscall(SYS_capset, &hdr, cap))
			TH_LOG("capset: %s", strerror(errno));
	}
	err = bind(fd, (const struct sockaddr *)ss, len) ? -errno : 0;
	/* Back to euid 0: the permitted set becomes the effective one again. */
	ASSERT_EQ(0, setresuid(-1, 0, -1));
	return err;
}

/*
 * getsockname() shows host:port after step; a NULL host is the wildcard
 * of the socket's family.
 */
static void pc_expect_name(struct __test_metadata *_metadata, int fd,
			   const char *host, int port, const char *step)
{
	struct sockaddr_storage want, got;
	socklen_t len = sizeof(got);
	char w[64], g[64];

	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&got, &len));
	if (!host)
		host = got.ss_family == AF_INET6 ? "::" : "0.0.0.0";
	ASSERT_NE(0U, bl_sockaddr_parse(host, port, &want));
	bl_sockaddr_str(&want, w, sizeof(w));
	bl_sockaddr_str(&got, g, sizeof(g));
	EXPECT_STREQ(w, g)
		TH_LOG("%s after %s, expected %s", g, step, w);
}

/*
 * connect(AF_UNSPEC) of a bound, connected socket (tcp_disconnect()):
 * what bind() asked for stays, a port or address the kernel chose goes
 * (SOCK_BINDPORT_LOCK, SOCK_BINDADDR_LOCK of __inet_bind() and
 * __inet6_bind()). getsockname() still shows a port given back, so a
 * second socket's bind() to it tells. Returns the port bind() gave.
 */
static int pc_disconnect(struct __test_metadata *_metadata, const struct pc_row *r,
			 int fd, const struct sockaddr_storage *dest)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sk_spec second = { .addr = r->sk.addr };
	int port = bl_sock_port(fd), err;

	err = bl_tcp_connect(fd, dest, r->connect_ms ?: PC_CONNECT_MS);
	ASSERT_EQ(0, err) TH_LOG("connect(): %s", bl_errname(-err));
	ASSERT_EQ(0, connect(fd, &unspec, sizeof(unspec)))
		TH_LOG("connect(AF_UNSPEC): %s", bl_errname(errno));
	pc_expect_name(_metadata, fd, r->after, port, "connect(AF_UNSPEC)");
	err = sk_bind(_metadata, sk_open(_metadata, &second), &second, port);
	EXPECT_EQ(r->keep ? EADDRINUSE : 0, err)
		TH_LOG("%s bound to port %d: after connect(AF_UNSPEC) a second bind() to %d: %s, expected %s",
		       r->sk.addr, r->port, port, bl_errname(err),
		       r->keep ? "EADDRINUSE (the port kept)" : "success (the port given back)");
	return port;
}

/*
 * After connect() a socket is bound where its packets come from: a
 * multicast or broadcast address bind() took is replaced by the route's
 * source (the kernel clears inet_saddr for them in bind()), the port
 * kept. The port, or connect()'s -errno.
 */
static int pc_bind_connect(struct __test_metadata *_metadata,
			   const struct pc_row *r, int fd,
			   const struct sockaddr_storage *dest)
{
	int port = bl_sock_port(fd), err;

	err = bl_tcp_connect(fd, dest, r->connect_ms ?: PC_CONNECT_MS);
	if (err)
		return err;
	pc_expect_name(_metadata, fd, r->after, port, "connect()");
	return port;
}

/*
 * The nth socket gets its port as the row says: the port, or -errno. The
 * socket stays open (the harness's fork closes it), holding the port;
 * *fdp returns it when fdp is not NULL.
 */
static int pc_get(struct __test_metadata *_metadata, const struct pc_row *r,
		  int nth, const struct sockaddr_storage *dest, int *fdp)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = pc_open(_metadata, r), err;

	if (fdp)
		*fdp = fd;
	if (r->op != PC_CONNECT) {
		if (r->op == PC_NO_PORT)
			ASSERT_EQ(0, setopt(fd, SOL_IP, IP_BIND_ADDRESS_NO_PORT));
		len = bl_sockaddr_parse(r->sk.addr, r->port ? r->port - nth : 0, &ss);
		ASSERT_NE(0U, len);
		if (r->unspec)
			ss.ss_family = AF_UNSPEC;
		err = pc_bind(_metadata, r, fd, &ss, len);
		if (err) {
			/* A refused bind() leaves the socket unbound. */
			pc_expect_name(_metadata, fd, NULL, 0, "a refused bind()");
			return err;
		}
		if (r->op == PC_BIND0 || r->op == PC_BIND_DOWN)
			return bl_sock_port(fd);
		if (r->op == PC_DISCONNECT)
			return pc_disconnect(_metadata, r, fd, dest);
		if (r->op == PC_REBIND) {
			err = pc_bind(_metadata, r, fd, &ss, len);
			return err ? err : bl_sock_port(fd);
		}
		if (r->op == PC_BIND_CONNECT)
			return pc_bind_connect(_metadata, r, fd, dest);
		/* The port is not taken at bind() but at connect(). */
		ASSERT_EQ(0, bl_sock_port(fd))
			TH_LOG("IP_BIND_ADDRESS_NO_PORT: bind() took a port");
	}
	err = bl_tcp_connect(fd, dest, PC_CONNECT_MS);
	/* A refused connect() takes back the source it chose. */
	if (err && r->op == PC_CONNECT)
		pc_expect_name(_metadata, fd, NULL, 0, "a refused connect()");
	return err ? err : bl_sock_port(fd);
}

/* The listeners connect() goes to, outside the range (PORT_PEER...). */
static int pc_listeners(struct __test_metadata *_metadata, const struct pc_row *r,
			struct sockaddr_storage *dest, int *lfd)
{
	int n = r->ndest ? r->ndest : 1, i;
	socklen_t len;

	for (i = 0; i < n && (r->ndest || (r->op != PC_BIND0 &&
	     r->op != PC_BIND_DOWN && r->op != PC_REBIND)); i++) {
		lfd[i] = listener(_metadata, r->peer ? r->peer : r->sk.addr,
				  PORT_PEER + i);
		ASSERT_EQ(0, listen(lfd[i], PC_BACKLOG));
		len = sizeof(dest[i]);
		ASSERT_EQ(0, getsockname(lfd[i], (struct sockaddr *)&dest[i], &len));
	}
	return n;
}

/*
 * Wait for the start of a second of CLOCK_MONOTONIC (ktime_get_seconds()):
 * a TIME_WAIT made then and taken over at once is younger than the reuse
 * delay on every kernel, the 6.12 one that compares whole seconds of its
 * timestamp (tcp_twsk_unique()) as on 6.14+ (tcp_tw_reuse_delay, 1 s).
 */
static void pc_second_start(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_MONOTONIC, &t))
		return;
	t.tv_sec++;
	t.tv_nsec = 10 * 1000 * 1000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

/*
 * A holder, a bind() to its wildcard refused, the holder closed. The
 * refused bind()'s buckets go with it, the holder's with the holder: a
 * bucket left behind would keep the port from connect() (fastreuse >= 0)
 * with no socket on it.
 */
static void pc_pre_refused(struct __test_metadata *_metadata,
			   const struct pc_row *r)
{
	struct sk_spec s = r->sk;
	int fd, any;

	s.opts = 0;
	fd = sk_bound(_metadata, "holder", &s, r->lo);
	s.addr = V4_ANY;
	any = sk_open(_metadata, &s);
	EXPECT_EQ(EADDRINUSE, sk_bind(_metadata, any, &s, r->lo));
	close(any);
	close(fd);
}

/* The holder: connect() from the range's low end, which it must get. */
static int pc_holder(struct __test_metadata *_metadata, const struct pc_row *r,
		     const struct sockaddr_storage *dest)
{
	int fd, port;

	bl_tcp_ts_clock_wait();
	port = pc_get(_metadata, r, 0, dest, &fd);
	ASSERT_EQ(r->lo, port)
		TH_LOG("the holder's connect(): %s", bl_errname(-port));
	return fd;
}

/*
 * A bind() beside a connect() (SO_REUSEADDR both), then the connect()ed
 * socket reset (SO_LINGER 0, no TIME_WAIT): the port's bucket was made
 * by connect() (fastreuse -1) and the bind() only set fastreuseport, yet
 * a bind() holds it now, which connect() must still never take.
 */
static void pc_pre_joined(struct __test_metadata *_metadata,
			  const struct pc_row *r,
			  const struct sockaddr_storage *dest)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	struct sk_spec s = r->sk;
	int fd = pc_holder(_metadata, r, dest);

	s.opts = RA;
	sk_bound(_metadata, "a bind() beside the holder", &s, r->lo);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)));
	close(fd);
}

/*
 * A holder bound to the wildcard, then connect()ed: its bind2 bucket
 * moves to the source address (inet_bhash2_update_saddr()) and the
 * wildcard's, left empty, goes. Reset (SO_LINGER 0, no TIME_WAIT), it
 * leaves no bucket behind: the bind()'s port is connect()'s again.
 */
static void pc_pre_any_reset(struct __test_metadata *_metadata,
			     const struct pc_row *r,
			     const struct sockaddr_storage *dest)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	struct sk_spec s = r->sk;
	int fd, err;

	s.addr = is_ipv6(s.addr) ? V6_ANY : V4_ANY;
	fd = sk_bound(_metadata, "the holder", &s, r->lo);
	err = bl_tcp_connect(fd, &dest[0], PC_CONNECT_MS);
	ASSERT_EQ(0, err) TH_LOG("the holder's connect(): %s", bl_errname(-err));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)));
	close(fd);
}

/*
 * A bind()'s port (its bucket fastreuse >= 0, which connect() skips) whose
 * last owner, a FIN_WAIT2 orphan of TCP_LINGER2 1 s, ended alone on its
 * timer: inet_twsk_bind_unhash() took the port's buckets with it, so
 * connect() may take the port again.
 */
static void pc_pre_fw2_gone(struct __test_metadata *_metadata,
			    const struct pc_row *r,
			    const struct sockaddr_storage *dest)
{
	int fd = sk_bound(_metadata, "the holder", &r->sk, r->lo), one = 1;
	int err, ms;

	ASSERT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_LINGER2, &one, sizeof(one)));
	err = bl_tcp_connect(fd, &dest[0], PC_CONNECT_MS);
	ASSERT_EQ(0, err) TH_LOG("the holder's connect(): %s", bl_errname(-err));
	/* The listener never accepts nor closes: FIN_WAIT2, then its end. */
	close(fd);
	err = bl_tcp_wait(TCP_FIN_WAIT2, r->lo, 1, TW_WAIT_MS);
	ASSERT_EQ(0, err) TH_LOG("no FIN_WAIT2 on port %d", r->lo);
	for (ms = 0; ms < PC_FW2_GONE_MS && bl_tcp_count(TCP_FIN_WAIT2, r->lo); ms += 50)
		usleep(50 * 1000);
	ASSERT_EQ(0, bl_tcp_count(TCP_FIN_WAIT2, r->lo))
		TH_LOG("the FIN_WAIT2 orphan on port %d outlived TCP_LINGER2 by %d ms",
		       r->lo, PC_FW2_GONE_MS);
}

/* 0.0.0.0 bound to low + 2^k: whatever the bhash's size, one shares its chain. */
static void pc_pre_bhash_chain(struct __test_metadata *_metadata,
			       const struct pc_row *r)
{
	struct sk_spec s = { .addr = V4_ANY };
	int port;

	for (port = r->lo + PC_BHASH_MIN; port <= 65535; port += port - r->lo)
		sk_bound(_metadata, "a bhash chain's other port", &s, port);
}

/*
 * Two connect()s share the low end, to two listeners: the first socket
 * without SO_REUSEADDR, the second with it. One bind2 bucket holds both,
 * so a bind() with SO_REUSEADDR there still meets the first.
 */
static void pc_pre_shared(struct __test_metadata *_metadata,
			  const struct pc_row *r,
			  const struct sockaddr_storage *dest)
{
	struct sk_spec s = r->sk;
	int i, fd, err;

	for (i = 0; i < 2; i++) {
		s.opts = i ? RA : 0;
		fd = sk_open(_metadata, &s);
		err = bl_tcp_connect(fd, &dest[i], PC_CONNECT_MS);
		ASSERT_EQ(0, err) TH_LOG("connect() %d: %s", i + 1, bl_errname(-err));
		ASSERT_EQ(r->lo, bl_sock_port(fd));
	}
}

/* What holds the low end of the range first (enum pc_pre). */
static void pc_pre(struct __test_metadata *_metadata, const struct pc_row *r,
		   const struct sockaddr_storage *dest, int lfd)
{
	struct sk_spec s = r->sk;
	int fd, err, port;

	switch (r->pre) {
	case PC_PRE_BHASH_CHAIN:
		pc_pre_bhash_chain(_metadata, r);
		return;
	case PC_PRE_JOINED:
		pc_pre_joined(_metadata, r, dest);
		return;
	case PC_PRE_SHARED:
		pc_pre_shared(_metadata, r, dest);
		return;
	case PC_PRE_FW2_GONE:
		pc_pre_fw2_gone(_metadata, r, dest);
		return;
	case PC_PRE_ANY_RESET:
		pc_pre_any_reset(_metadata, r, dest);
		return;
	case PC_PRE_CHAIN:
		s.addr = V4_ANY;
		for (port = r->lo; port <= r->hi; port++)
			sk_bound(_metadata, "wildcard of a chain's other port", &s,
				 port ^ PC_CHAIN_BIT);
		return;
	case PC_PRE_BOUND:
		s.opts = RA;
		sk_bound(_metadata, "holder", &s, r->lo);
		return;
	case PC_PRE_REFUSED:
		pc_pre_refused(_metadata, r);
		return;
	case PC_PRE_DEV_OTHER:
		s.opts = 0;
		s.dev = DEV_OTHER;
		sk_bound(_metadata, "holder", &s, r->lo);
		return;
	case PC_PRE_TW:
	case PC_PRE_TW_YOUNG:
		if (r->pre == PC_PRE_TW_YOUNG)
			pc_second_start();
		fd = pc_holder(_metadata, r, dest);
		err = bl_tcp_time_wait(fd, lfd, TW_WAIT_MS);
		ASSERT_EQ(0, err) TH_LOG("closing the holder: %s", strerror(-err));
		err = bl_tcp_wait(TCP_TIME_WAIT, r->lo, 1, TW_WAIT_MS);
		ASSERT_EQ(0, err) TH_LOG("no TIME_WAIT on port %d", r->lo);
		/* Old enough to be reused where tcp_tw_reuse allows it. */
		if (r->tw_reuse > 0 && r->pre == PC_PRE_TW)
			usleep(PC_TW_REUSE_WAIT_MS * 1000);
		return;
	case PC_PRE_FIN_WAIT2:
		/*
		 * The listener never accepts nor closes: our close() leaves an
		 * orphan in FIN_WAIT2, a timewait socket of that substate,
		 * which tcp_twsk_unique() never lets tcp_tw_reuse take over
		 * (the peer may still send).
		 */
		close(pc_holder(_metadata, r, dest));
		err = bl_tcp_wait(TCP_FIN_WAIT2, r->lo, 1, TW_WAIT_MS);
		ASSERT_EQ(0, err) TH_LOG("no FIN_WAIT2 on port %d", r->lo);
		usleep(PC_TW_REUSE_WAIT_MS * 1000);
		return;
	case PC_PRE_NONE:
	default:
		return;
	}
}

static bool pc_preferred(enum pc_pref pref, int port, int lo, int half)
{
	switch (pref) {
	case PC_ODD:
		return (port - lo) & 1;
	case PC_EVEN:
		return !((port - lo) & 1);
	case PC_LOW_HALF:
		return port < half;
	case PC_ANY:
	default:
		return true;
	}
}

static const char * const pc_pref_words[] = {
	[PC_ANY] = "any port", [PC_ODD] = "an odd offset from the low end",
	[PC_EVEN] = "an even offset from the low end",
	[PC_LOW_HALF] = "the lower half", [PC_MIXED] = "any parity",
};

/*
 * The properties of the ports got, in order: in the range, not reserved,
 * the first ones where the kernel scans first, none twice while the
 * range still has a free port (only ip_autobind_reuse and other 4-tuples
 * share one, and only once every port is held), never the port a bind()
 * holds.
 */
static void pc_check(struct __test_metadata *_metadata, const struct pc_row *r,
		     const int *port, int n)
{
	const char *rule = bl_port_rule_words[r->rule];
	int lo, hi, half, i, j, odd = 0;

	pc_range(r, &lo, &hi);
	half = lo + (((hi + 1 - lo) >> 2) << 1);
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(port[i] >= lo && port[i] <= hi)
			TH_LOG("%s: socket %d got port %d, outside %d-%d",
			       rule, i + 1, port[i], lo, hi);
		EXPECT_FALSE(r->res_lo && port[i] >= r->res_lo && port[i] <= r->res_hi)
			TH_LOG("%s: socket %d got port %d, reserved (%d-%d)",
			       rule, i + 1, port[i], r->res_lo, r->res_hi);
		EXPECT_FALSE(r->pre == PC_PRE_BOUND && port[i] == r->lo)
			TH_LOG("%s: socket %d got port %d, which a bind() holds",
			       rule, i + 1, port[i]);
		EXPECT_TRUE(i >= r->pref_n || pc_preferred(r->pref, port[i], lo, half))
			TH_LOG("%s: socket %d got port %d, expected %s of %d-%d first",
			       rule, i + 1, port[i], pc_pref_words[r->pref], lo, hi);
		for (j = 0; j < i && i <= hi - lo; j++)
			EXPECT_NE(port[j], port[i])
				TH_LOG("%s: sockets %d and %d share port %d, %d-%d had a free one",
				       rule, j + 1, i + 1, port[i], lo, hi);
		/* An odd one next to a port taken before: the scan moved on. */
		for (j = 0; j < i && port[j] != port[i] - 1; j++)
			;
		odd += i < r->pref_n && ((port[i] - lo) & 1) && j == i;
	}
	/* Each start's parity a coin: all of 24 alike once in 8 million runs. */
	if (r->pref == PC_MIXED)
		EXPECT_TRUE(odd > 0 && odd < r->pref_n && n >= r->pref_n)
			TH_LOG("%s: %d of the first %d ports started at an odd offset from %d, expected %s",
			       rule, odd, r->pref_n, lo, pc_pref_words[r->pref]);
}

#endif /* BHASH_PORTS_H */
