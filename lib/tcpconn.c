// SPDX-License-Identifier: GPL-2.0
/*
 * TCP connections with a known ending: a listener, and an orderly close
 * that leaves the client's 4-tuple in TIME_WAIT, not in FIN_WAIT2.
 *
 * The order matters to tcp_tw_reuse tests: a client that closes first
 * and is orphaned before the peer's FIN arrives becomes a timewait socket
 * of substate FIN_WAIT2, which tcp_twsk_unique() never reuses. Waiting
 * for each FIN to be read makes the end state certain on loopback and
 * across namespaces alike.
 *
 * And the one builder of a bare segment that a raw socket writes in a
 * peer's name.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <unistd.h>

#include "bindlab_core.h"

int bl_tcp_listen(const char *host, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = bl_sockaddr_parse(host, port, &ss);
	int one = 1, fd, err;

	if (!len)
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int bl_tcp_connect(int fd, const struct sockaddr_storage *ss, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			sizeof(struct sockaddr_in);

	if (ms > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	if (connect(fd, (const struct sockaddr *)ss, len))
		return -errno;
	return 0;
}

/* Wait for EOF on fd: the peer's FIN has been received. */
static int read_eof(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;
	int n;

	n = poll(&pfd, 1, ms);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	n = read(fd, &c, 1);
	if (n < 0)
		return -errno;
	return n ? -EPROTO : 0;
}

int bl_tcp_time_wait(int cfd, int lfd, int ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int afd, err, n;

	n = poll(&pfd, 1, ms);
	if (n <= 0) {
		err = n ? -errno : -ETIMEDOUT;
		goto out;
	}
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (afd < 0) {
		err = -errno;
		goto out;
	}
	/* Client FIN first: the client is the side that will hold TIME_WAIT. */
	err = shutdown(cfd, SHUT_WR) ? -errno : read_eof(afd, ms);
	close(afd);
	/* Our EOF is the server's FIN: the client is now in TIME_WAIT. */
	if (!err)
		err = read_eof(cfd, ms);
out:
	close(cfd);
	return err;
}

/*
 * tcp_store_ts_recent() stamps a socket with ktime_get_seconds(), and
 * tcp_twsk_unique() reads a TIME_WAIT socket whose tw_ts_recent_stamp is 0
 * as one that never saw a timestamp: it is never reused, by tcp_tw_reuse
 * or by an explicit bind(). Connections made during the first second
 * after boot get exactly that stamp, so a test run first in a VM would see
 * reusable sockets refused. CLOCK_MONOTONIC is the clock behind
 * ktime_get_seconds(); outside that first second this returns at once.
 */
void bl_tcp_ts_clock_wait(void)
{
	struct timespec now;

	/* CLOCK_MONOTONIC cannot fail; if it did, there is nothing to wait for. */
	if (clock_gettime(CLOCK_MONOTONIC, &now) || now.tv_sec >= 1)
		return;
	/* Into second 1 with a margin: the stamp is taken in softirq. */
	now.tv_sec = 1;
	now.tv_nsec = 10 * 1000 * 1000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &now, NULL) == EINTR)
		;
}

/* RFC 1071: the one's complement of the one's complement sum of p, n even. */
static uint16_t inet_csum(const unsigned char *p, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static const void *ss_addr(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return &((const struct sockaddr_in6 *)ss)->sin6_addr;
	return &((const struct sockaddr_in *)ss)->sin_addr;
}

unsigned char *bl_tcp_seg_build(unsigned char *buf, const struct sockaddr_storage *src,
				const struct sockaddr_storage *dst, const struct bl_tcp_seg *s)
{
	bool v6 = src->ss_family == AF_INET6;
	size_t alen = v6 ? 16 : 4, plen = v6 ? 40 : 12, len = BL_TCP_HLEN + s->dlen;
	unsigned char *seg = buf + plen;
	uint16_t sum;

	memset(buf, 0, plen + BL_TCP_HLEN);
	memcpy(buf, ss_addr(src), alen);
	memcpy(buf + alen, ss_addr(dst), alen);
	/* IPv4: zero, protocol, 16-bit length; IPv6: 32-bit length, next header. */
	buf[v6 ? 39 : 9] = IPPROTO_TCP;
	buf[v6 ? 34 : 10] = len >> 8;
	buf[v6 ? 35 : 11] = len & 0xff;
	seg[0] = s->sport >> 8;
	seg[1] = s->sport & 0xff;
	seg[2] = s->dport >> 8;
	seg[3] = s->dport & 0xff;
	seg[4] = s->seq >> 24;
	seg[5] = s->seq >> 16;
	seg[6] = s->seq >> 8;
	seg[7] = s->seq;
	seg[8] = s->ack >> 24;
	seg[9] = s->ack >> 16;
	seg[10] = s->ack >> 8;
	seg[11] = s->ack;
	seg[12] = BL_TCP_HLEN / 4 << 4;
	seg[13] = s->flags;
	seg[14] = seg[15] = 0xff;	/* the window */
	if (s->dlen)	/* a bare FIN has no data, and data may be NULL */
		memcpy(seg + BL_TCP_HLEN, s->data, s->dlen);
	sum = inet_csum(buf, plen + len);
	seg[16] = sum >> 8;
	seg[17] = sum & 0xff;
	return seg;
}
