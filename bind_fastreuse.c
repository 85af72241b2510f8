// SPDX-License-Identifier: GPL-2.0
/*
 * Binds of one kind to one port must cost O(1) each: the fastreuse caches
 * set up by the first bind let later binds skip the conflict scan. Each row
 * binds N sockets with one reuse option, to one address or two in turn, and
 * compares the median bind() time of the last 10% with the first 10%.
 * SO_REUSEPORT binds to one address stay O(1) even without the caches:
 * those rows are controls.
 */
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/ipv6.h>

#include "kselftest_harness.h"

#define N_BINDS		4000
#define N_BINDS_SLOW	1000	/* KSFT_MACHINE_SLOW=yes */
#define ROUNDS		3
#define GROWTH_LIMIT	3.0
/* The verdict's figures and the likely cause, last before the result. */
#define GROWTH_MSG \
	"bind() cost grows with the number of owners: growth %.2f > %.1f (Fixes: 8002d44fe84d)"

/* The second address of IPv6 rows; IPv4 has 127.0.0.2 on lo. */
static const struct in6_addr v6_second = {
	.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }
};

union addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

FIXTURE(bind_fastreuse)
{
	long n;
	bool slow;
	int fds[N_BINDS];
	double ns[N_BINDS];
};

FIXTURE_VARIANT(bind_fastreuse)
{
	int family;
	int opt;		/* SO_REUSEADDR or SO_REUSEPORT */
	int naddrs;		/* 1: one address, 2: two in turn */
	unsigned short port;	/* 0: the first bind picks it */
};

FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseaddr_same) { AF_INET, SO_REUSEADDR, 1, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseaddr_alternate) { AF_INET, SO_REUSEADDR, 2, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseport_same) { AF_INET, SO_REUSEPORT, 1, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseport_alternate) { AF_INET, SO_REUSEPORT, 2, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseaddr_same_port0) { AF_INET, SO_REUSEADDR, 1, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseaddr_alternate_port0) { AF_INET, SO_REUSEADDR, 2, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseport_same_port0) { AF_INET, SO_REUSEPORT, 1, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v4_reuseport_alternate_port0) { AF_INET, SO_REUSEPORT, 2, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseaddr_same) { AF_INET6, SO_REUSEADDR, 1, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseaddr_alternate) { AF_INET6, SO_REUSEADDR, 2, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseport_same) { AF_INET6, SO_REUSEPORT, 1, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseport_alternate) { AF_INET6, SO_REUSEPORT, 2, 40000 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseaddr_same_port0) { AF_INET6, SO_REUSEADDR, 1, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseaddr_alternate_port0) { AF_INET6, SO_REUSEADDR, 2, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseport_same_port0) { AF_INET6, SO_REUSEPORT, 1, 0 };
FIXTURE_VARIANT_ADD(bind_fastreuse, v6_reuseport_alternate_port0) { AF_INET6, SO_REUSEPORT, 2, 0 };

static socklen_t row_addr(int family, int k, int port, union addr *a)
{
	memset(a, 0, sizeof(*a));
	a->sa.sa_family = family;
	a->v4.sin_port = htons(port);	/* where sin6_port is too */
	if (family == AF_INET6) {
		a->v6.sin6_addr = k ? v6_second : in6addr_loopback;
		return sizeof(a->v6);
	}
	a->v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK + k);
	return sizeof(a->v4);
}

FIXTURE_SETUP(bind_fastreuse)
{
	struct in6_ifreq ifr6 = { .ifr6_addr = v6_second, .ifr6_prefixlen = 128 };
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	const char *slow = getenv("KSFT_MACHINE_SLOW");
	struct rlimit rl;
	union addr a;
	int fd, i, err;

	if (unshare(CLONE_NEWNET))
		SKIP(return, "cannot create a network namespace: %s", strerror(errno));
	fd = socket(variant->family, SOCK_STREAM, 0);
	if (fd < 0 && errno == EAFNOSUPPORT)
		SKIP(return, "IPv6 not available: %s", strerror(errno));
	err = ioctl(fd, SIOCSIFFLAGS, &ifr) ? errno : 0;
	if (err == EPERM)
		SKIP(return, "cannot bring lo up: %s", strerror(err));
	ASSERT_EQ(0, err) TH_LOG("lo up: %s", strerror(err));
	if (variant->family == AF_INET6) {
		ifr6.ifr6_ifindex = if_nametoindex("lo");
		err = ioctl(fd, SIOCSIFADDR, &ifr6) ? errno : 0;
		if (err == EACCES)
			SKIP(return, "IPv6 not available: disabled on lo");
		ASSERT_EQ(0, err) TH_LOG("IPv6 address on lo: %s", strerror(err));
		/* A new address is tentative, so not bindable, for a moment. */
		for (i = 0; i < 100 && bind(fd, &a.sa, row_addr(AF_INET6, 1, 0, &a)); i++)
			usleep(10000);
	}
	close(fd);

	self->slow = slow && !strcmp(slow, "yes");
	self->n = self->slow ? N_BINDS_SLOW : N_BINDS;
	/* Beyond the hard limit with CAP_SYS_RESOURCE; else EMFILE skips. */
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_max < (rlim_t)self->n + 32)
		rl.rlim_max = self->n + 32;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

FIXTURE_TEARDOWN(bind_fastreuse)
{
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

TEST_F(bind_fastreuse, growth)
{
	double growth[ROUNDS], t0, first, last, g;
	long i, tenth = self->n / 10;
	int r, port, ret, one = 1, above = 0;
	socklen_t len;
	union addr a;

	/* A majority of up to ROUNDS rounds: stop once it is known. */
	for (r = 0; r < ROUNDS && above <= ROUNDS / 2 &&
	     r - above <= ROUNDS / 2; r++) {
		for (i = 0, port = variant->port; i < self->n; i++) {
			self->fds[i] = socket(variant->family, SOCK_STREAM, 0);
			if (self->fds[i] < 0 && (errno == EMFILE || errno == ENFILE))
				SKIP(return, "%ld sockets need more file descriptors: %s",
				     self->n, strerror(errno));
			ASSERT_LE(0, self->fds[i]) TH_LOG("socket: %s", strerror(errno));
			ASSERT_EQ(0, setsockopt(self->fds[i], SOL_SOCKET,
						variant->opt, &one, sizeof(one)));
			len = row_addr(variant->family, i % variant->naddrs,
				       port, &a);
			t0 = now_ns();
			ret = bind(self->fds[i], &a.sa, len);
			self->ns[i] = now_ns() - t0;
			ASSERT_EQ(0, ret) TH_LOG("bind %ld, port %d: %s",
						 i, port, strerror(errno));
			len = sizeof(a);
			ASSERT_EQ(0, getsockname(self->fds[i], &a.sa, &len));
			port = ntohs(a.v4.sin_port);
		}
		while (i--)
			close(self->fds[i]);
		first = median(self->ns, tenth);
		last = median(self->ns + self->n - tenth, tenth);
		growth[r] = last / first;
		TH_LOG("growth %.2f: first/last 10%% of %ld binds median %.0f/%.0f ns",
		       growth[r], self->n, first, last);
		above += growth[r] > GROWTH_LIMIT;
	}
	g = median(growth, r);
	/* netdev's xfail_on_slow: there, noise can reach the limit. */
	if (g > GROWTH_LIMIT && self->slow) {
		TH_LOG(GROWTH_MSG, g, GROWTH_LIMIT);
		_exit(KSFT_XFAIL);
	}
	ASSERT_GE(GROWTH_LIMIT, g)
		TH_LOG(GROWTH_MSG, g, GROWTH_LIMIT);
}

TEST_HARNESS_MAIN
