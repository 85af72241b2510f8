/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bindlab core: what the kselftest programs of the suite need, and
 * nothing more. Private network namespaces and rtnetlink (libmnl),
 * per-namespace sysctls, file descriptor headroom, timing, the statistics
 * a verdict needs, the bind() cost loop shared with the benchmark, the
 * TCP helpers of the tcp_tw_reuse tests, and children that die with
 * their parent.
 *
 * No JSON here: the benchmarks' layer (bench/bindlab.h) includes this
 * header, never the reverse.
 *
 * Functions return 0 or a negative errno unless documented otherwise.
 * Those that may have to explain a SKIP take a struct bl_why.
 */
#ifndef BINDLAB_CORE_H
#define BINDLAB_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "bindlab_vocab.h"

/*
 * bind() cost growth (last 10% over first 10% of binds) above which the
 * cost is taken to grow with the number of owners: O(1) gives ~1.
 */
#define BL_GROWTH_LIMIT		3.0

/* The kernel's spelling of attributes, as in compiler_attributes.h. */
#define BL_ATTRIBUTE(x)	__attribute__((x))
#ifndef __printf
#define __printf(a, b)	BL_ATTRIBUTE(format(printf, a, b))
#endif
#ifndef __noreturn
#define __noreturn	BL_ATTRIBUTE(noreturn)
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes shared by every program (kselftest's, plus usage). */
#define BL_EXIT_PASS	0
#define BL_EXIT_FAIL	1
#define BL_EXIT_USAGE	2
#define BL_EXIT_SKIP	4

/* Why something could not run: the text a SKIP line carries. */
struct bl_why {
	char msg[256];
};

/* ---- why.c: errors explained ---- */

/* Fill why->msg; returns -err (err may be given with either sign). */
__printf(3, 4)
int bl_why_set(struct bl_why *why, int err, const char *fmt, ...);
/*
 * "EADDRINUSE" for EADDRINUSE or -EADDRINUSE, "success" for 0: the one
 * spelling of an errno in every test's messages.
 */
const char *bl_errname(int err);

/* ---- netns.c: namespaces and rtnetlink ---- */

/* Enter a fresh network namespace of our own and bring lo up there. */
int bl_netns_enter(struct bl_why *why);
/*
 * ---- pidns.c ----
 * For a test forked by the harness: die with the harness, and have every
 * process forked from here on die with the test. 0 or -errno (why).
 */
int bl_pidns_enter(struct bl_why *why);
/* Bring lo up in the current namespace (for --no-netns runs in a VM). */
int bl_netns_lo_up(struct bl_why *why);
/* Create a namespace, return an fd to it, stay in the current one. */
int bl_netns_create(struct bl_why *why);
int bl_netns_switch(int nsfd);
int bl_netns_current(void);

/*
 * 1 in the namespace of PID 1 (the host's, when PID 1 is the host's init),
 * 0 elsewhere, -errno when that cannot be told. --no-netns refuses 1.
 */
int bl_netns_is_initial(struct bl_why *why);

int bl_link_up(const char *ifname);
int bl_link_set_up(const char *ifname, bool up);
bool bl_link_is_up(const char *ifname);
/*
 * Wait until a link that is up transmits: a veth end brought up before
 * its peer does only once the link watch has run (lib/addrwait.c), and
 * says so in its operstate, up. 0, -ETIMEDOUT after ms (a link without
 * its carrier, and lo, whose operstate stays unknown), or -errno.
 */
int bl_link_wait(const char *ifname, int ms);
/* "addr/plen" on ifname; IPv6 addresses get IFA_F_NODAD. */
int bl_addr_add(const char *ifname, const char *cidr);
int bl_addr_del(const char *ifname, const char *cidr);
/*
 * A route to "addr/plen" in the main table: via a gateway, or with via
 * NULL a prohibit route, whose sends fail.
 */
int bl_route_add(const char *cidr, const char *via);
/* A local route on lo to "addr/plen" whose TCP sockets' RTO is >= ms. */
int bl_route_local_rto_min(const char *cidr, unsigned int ms);
int bl_dummy_add(const char *name);
/* veth pair; peer goes into peer_nsfd unless it is negative. */
int bl_veth_add(const char *name, const char *peer, int peer_nsfd);
/* The link and, for a veth, its peer; 0 or -errno. */
int bl_link_del(const char *ifname);
/* A link other than lo for SO_BINDTODEVICE: dummy, else veth; 0 or -errno. */
int bl_other_link_add(const char *name, struct bl_why *why);

/* IPv6 usable here: an AF_INET6 socket can bind to ::1. */
bool bl_ipv6_usable(struct bl_why *why);

/* ---- sysctl.c: /proc/sys of the current namespace ---- */

/* The sysctls the suite reads and sets, always in its own namespace. */
#define BL_SYSCTL_PORT_RANGE	"net/ipv4/ip_local_port_range"
#define BL_SYSCTL_TW_REUSE	"net/ipv4/tcp_tw_reuse"
#define BL_SYSCTL_TW_DELAY	"net/ipv4/tcp_tw_reuse_delay"
#define BL_SYSCTL_TIMESTAMPS	"net/ipv4/tcp_timestamps"

/* key is relative to /proc/sys, e.g. BL_SYSCTL_TW_REUSE. */
int bl_sysctl_read(const char *key, char *buf, size_t len);
int bl_sysctl_write(const char *key, const char *val);
int bl_sysctl_read_long(const char *key, long *val);
int bl_sysctl_write_long(const char *key, long val);
bool bl_sysctl_exists(const char *key);

/* ---- child.c: children that die with their parent ---- */

/*
 * A pidfd of the caller (-1 before 5.3), for a child to tell whether its
 * parent has died; the child's side: set PR_SET_PDEATHSIG, then true when
 * the parent is gone already (the child must exit at once).
 */
int bl_pidfd_self(void);
bool bl_pidfd_exited(int pidfd);
bool bl_child_orphaned(int parent_pidfd, pid_t parent);
/*
 * fork(); the child runs fn(arg) and exits with its return value. It gets
 * SIGKILL when the caller dies (PR_SET_PDEATHSIG) and exits 1 at once when
 * the caller died before that was set. Returns the child's pid or -errno.
 */
pid_t bl_child_run(int (*fn)(void *arg), void *arg);
/*
 * waitpid() for a child of bl_child_run(), status as waitpid() gives it.
 * limit_ms > 0: past it the child is killed and -ETIMEDOUT returned (the
 * status then says SIGKILL). 0, or -errno.
 */
int bl_child_wait(pid_t pid, long limit_ms, int *status);
/*
 * Whether nproc processes can live at once beside the caller (what:
 * which, for the reason): a chain of them forked, each waiting on the
 * next. RLIMIT_NPROC short of that is the machine's limit, never the
 * kernel's failure: 0, or -errno with why naming the limit.
 */
int bl_fork_reserve(int nproc, const char *what, struct bl_why *why);

/* ---- fdlimit.c ---- */

/* Raise RLIMIT_NOFILE so that nfds more descriptors fit. */
int bl_fd_reserve(long nfds, struct bl_why *why);
/* How many descriptors this process could hold at most. */
long bl_fd_hard_limit(void);
/* Descriptors kept free for stdio, netlink, JSON output. */
#define BL_FD_SLACK	32

/* ---- timing ---- */

static inline uint64_t bl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Progress on stderr, only on a terminal and only for long runs. */
struct bl_progress {
	const char *what;
	uint64_t start_ns, last_ns;
	long total;
	bool tty, shown;
};

void bl_progress_init(struct bl_progress *p, const char *what, long total);
void bl_progress_update(struct bl_progress *p, long done);
void bl_progress_done(struct bl_progress *p);

/* ---- stats.c ---- */

struct bl_stats {
	size_t n;
	double min, p50, p90, p99, max, mean, stddev;
	double ci_lo, ci_hi;	/* 95% interval of p50 (bl_median_ci_sorted) */
};

#define BL_BOOTSTRAP_ITERS	2000

/* qsort() order of doubles. */
int bl_cmp_double(const void *a, const void *b);
/* Quantile q in [0, 1] of sorted data, linear interpolation (R type 7). */
double bl_quantile_sorted(const double *sorted, size_t n, double q);
double bl_median(const double *v, size_t n);
int bl_stats_compute(const double *v, size_t n, struct bl_stats *st);
/* 95% interval of the median from order statistics (NAN when n is 0). */
void bl_median_ci_sorted(const double *sorted, size_t n, double *lo,
			 double *hi);
/* Bootstrap 95% CI of median(b) / median(a). */
int bl_bootstrap_ratio_ci(const double *a, size_t na, const double *b,
			  size_t nb, unsigned int iters, uint64_t seed,
			  double *lo, double *hi);

/* ---- bindloop.c: N binds to one port, each timed ---- */

struct bl_bind_spec {
	enum bl_family family;
	bool reuseaddr;
	bool reuseport;
	int naddrs;		/* addresses taken round-robin, >= 1 */
	uint16_t port;		/* 0: first bind picks the port */
	long n;			/* sockets */
};

struct bl_bind_run {
	uint64_t *bind_ns;	/* n samples, bind() only */
	int *fds;		/* every socket, open until bl_bind_close() */
	long n;
	uint16_t port;		/* the port all sockets share */
	uint64_t total_ns;
};

const char *bl_family_name(enum bl_family f);
int bl_family_parse(const char *s, enum bl_family *f);
/* i-th of the addresses a spec round-robins over, with the port set. */
socklen_t bl_bind_addr(const struct bl_bind_spec *spec, int i,
		       uint16_t port, struct sockaddr_storage *ss);
/*
 * At most this many addresses: each IPv6 one is a netlink request, and K
 * beyond N would never be bound to anyway.
 */
#define BL_MAX_ADDRS	1024

/* The addresses bl_bind_prepare_undo() added, to take them away again. */
struct bl_addr_undo {
	int n;
	uint16_t k[BL_MAX_ADDRS];
};

/* Make the spec's addresses local (IPv6 needs them added to lo). */
int bl_bind_prepare(const struct bl_bind_spec *spec, struct bl_why *why);
/* The same, recording what it added in undo (for --no-netns). */
int bl_bind_prepare_undo(const struct bl_bind_spec *spec,
			 struct bl_addr_undo *undo, struct bl_why *why);
void bl_bind_undo(const struct bl_bind_spec *spec, struct bl_addr_undo *undo);
/*
 * Bind spec->n sockets; only bind() is inside the timed region. On error
 * the sockets bound so far stay in run (n counts them) and err names the
 * failing step.
 */
int bl_bind_loop(const struct bl_bind_spec *spec, struct bl_bind_run *run,
		 struct bl_progress *progress, struct bl_why *err);
void bl_bind_close(struct bl_bind_run *run);

/* Median cost of the last 10% of binds over that of the first 10%. */
double bl_growth(const uint64_t *ns, size_t n);
/* Median cost per bucket of n/buckets consecutive binds. */
int bl_curve(const uint64_t *ns, size_t n, int buckets, double *median_ns);

/* ---- sockaddr.c ---- */

/* "127.0.0.1", "::", "::ffff:127.0.0.1"...; 0 when host is no address. */
socklen_t bl_sockaddr_parse(const char *host, uint16_t port,
			    struct sockaddr_storage *ss);
int bl_sockaddr_port(const struct sockaddr_storage *ss);
/* Local port a socket is bound to, or -errno. */
int bl_sock_port(int fd);
/* "127.0.0.1:80" or "[::1]:80" in buf. */
const char *bl_sockaddr_str(const struct sockaddr_storage *ss, char *buf,
			    size_t len);

/* ---- crowd.c: a port crowded beyond one process's RLIMIT_NOFILE ---- */

#define BL_CROWD_MAX_CHILDREN	64

struct bl_crowd {
	pid_t pids[BL_CROWD_MAX_CHILDREN];
	int nchild;
	int ctl;		/* children exit when it closes */
	bool active;
	long n;			/* sockets bound and held */
	uint64_t fill_ns;	/* wall time of the fill */
	uint64_t bind_ns;	/* bind() time summed over the children */
};

/*
 * Bind spec->n sockets to spec->port (not 0) from child processes of the
 * current namespace; they hold them until bl_crowd_release() or until the
 * caller dies. A zeroed struct is safe to release.
 */
int bl_crowd_fill(struct bl_crowd *c, const struct bl_bind_spec *spec,
		  struct bl_why *why);
void bl_crowd_release(struct bl_crowd *c);

/* ---- procnet.c: TCP states from /proc/net/tcp{,6} of this namespace ---- */

/* Sockets in state (TCP_* of netinet/tcp.h) on local port lport (0: any). */
long bl_tcp_count(int state, uint16_t lport);
/* Wait until at least want such sockets exist; -ETIMEDOUT after ms. */
int bl_tcp_wait(int state, uint16_t lport, long want, int ms);
/*
 * A count of a /proc/net/sockstat line ("TCP" "inuse", "TCP" "tw",
 * "sockets" "used"; sockstat6's for "TCP6"), or -errno.
 */
long bl_sockstat(const char *head, const char *field);
/* A counter of /proc/net/netstat by name ("ListenDrops"), or -errno. */
long bl_netstat(const char *field);
/*
 * sock_diag: the cookie of this namespace's TCP socket of family, in one
 * of states (1 << TCP_*), from local port sport to dport; 0 and *found
 * false when there is none, -errno on a netlink error.
 */
int64_t bl_tcp_diag_cookie(int family, uint32_t states, uint16_t sport, uint16_t dport,
			   bool *found);

/* ---- addrwait.c ---- */

/*
 * The one poll of the waits: ready(arg) every millisecond until it says
 * 1 (then 0) or -errno (then that); -ETIMEDOUT after ms.
 */
int bl_poll(int (*ready)(const void *arg), const void *arg, int ms);

/*
 * Wait until a local address ("addr" or "addr/plen") can be reached: IPv6
 * ones get their local route after RTM_NEWADDR is acknowledged, and only
 * on a link that is up. 0, or -ETIMEDOUT after ms.
 */
int bl_addr_wait(const char *addr, int ms);


/* ---- tcpconn.c: connections with a known ending ---- */

/* Listening socket (SO_REUSEADDR) on host:port; fd or -errno. */
int bl_tcp_listen(const char *host, uint16_t port);
/* connect() fd to ss, the handshake bounded to ms when ms > 0; 0 or -errno. */
int bl_tcp_connect(int fd, const struct sockaddr_storage *ss, int ms);
/*
 * Accept cfd's peer from lfd and close both, client FIN first, each FIN
 * read by the other side within ms: cfd's 4-tuple is left in TIME_WAIT
 * (not FIN_WAIT2). cfd is closed in every case.
 */
int bl_tcp_time_wait(int cfd, int lfd, int ms);
/*
 * Before making TIME_WAIT sockets that are to be reused: wait until
 * ktime_get_seconds() is past 0 (only ever waits right after boot).
 */
void bl_tcp_ts_clock_wait(void);

#define BL_TCP_HLEN	20	/* a header without options */
/* A bare segment for a raw socket to write. */
struct bl_tcp_seg {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;		/* TH_* */
	const char *data;
	size_t dlen;		/* even: the checksum sums whole words */
};
/*
 * Segment s from src's address to dst's (one family), checksummed, into
 * buf after its pseudo-header, at most IPv6's (RFC 8200, 8.1): buf holds
 * 40 bytes more than the segment. Returns where the segment starts.
 */
unsigned char *bl_tcp_seg_build(unsigned char *buf, const struct sockaddr_storage *src,
				const struct sockaddr_storage *dst, const struct bl_tcp_seg *s);

/* ---- parse.c ---- */

/*
 * The one number grammar of every command line, option and file field:
 * optional '-', decimal digits, and for reals an optional '.' and digits.
 * No blanks, '+', hex, exponents, inf or nan; overflow is out of range.
 */
int bl_parse_long(const char *s, long min, long max, long *out);
int bl_parse_double(const char *s, double min, double max, double *out);

/*
 * s as it may reach a terminal: bytes outside printable ASCII as \xNN,
 * a backslash as \\, cut (with "...") past 200 bytes of input. The one
 * escaper of every string that came from a file, an argument or the
 * environment. One static buffer: use the result before the next call.
 */
const char *bl_printable(const char *s);

/* ---- files.c: the one reader of files ---- */

/* A regular file of at most max_bytes, never blocking on open; or NULL. */
FILE *bl_open_regular(const char *path, long max_bytes, struct bl_why *why);

#endif /* BINDLAB_CORE_H */
