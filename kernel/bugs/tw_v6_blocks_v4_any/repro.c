// SPDX-License-Identifier: GPL-2.0
/*
 * tw_v6_blocks_v4_any: a socket bound to [::]:P (dual stack) connects to
 * [::1]:Q and closes first, leaving a TIME_WAIT socket on [::1]:P. A
 * bind() of 0.0.0.0:P must then succeed, as it does when the socket was
 * bound to [::1]:P itself: neither can ever receive IPv4. Exit 0: bug
 * absent, 1: bug present, 4: cannot run.
 * Build: gcc -Wall -o repro ./repro.c; run as root (it makes its own netns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define PEER	10000	/* the listener */

/* bind() a new socket of family to host:port: fd, or -errno. */
static int bound(int family, const char *host, int port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(family, SOCK_STREAM, 0), err;

	if (family == AF_INET6) {
		inet_pton(AF_INET6, host, &s6.sin6_addr);
		err = bind(fd, (struct sockaddr *)&s6, sizeof(s6));
	} else {
		inet_pton(AF_INET, host, &s4.sin_addr);
		err = bind(fd, (struct sockaddr *)&s4, sizeof(s4));
	}
	if (!err)
		return fd;
	err = -errno;
	close(fd);
	return err;
}

/* A socket bound to [host]:port connects to [::1]:PEER, closes first. */
static int time_wait(int lfd, const char *host, int port)
{
	struct sockaddr_in6 peer = { .sin6_family = AF_INET6,
				     .sin6_port = htons(PEER),
				     .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int cfd = bound(AF_INET6, host, port), afd;
	char c;

	if (cfd < 0 || connect(cfd, (struct sockaddr *)&peer, sizeof(peer)))
		return -1;
	afd = accept(lfd, NULL, NULL);
	/* Our FIN first, then the peer's: we are the side in TIME_WAIT. */
	if (afd < 0 || shutdown(cfd, SHUT_WR) || read(afd, &c, 1) ||
	    close(afd) || read(cfd, &c, 1))
		return -1;
	return close(cfd);
}

static const char *v4_any_bind(int port)
{
	int fd = bound(AF_INET, "0.0.0.0", port);

	return fd < 0 ? strerror(-fd) : "bound";
}

int main(void)
{
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	const char *ctl, *bug;
	int lfd;

	if (unshare(CLONE_NEWNET) ||
	    ioctl(socket(AF_INET, SOCK_DGRAM, 0), SIOCSIFFLAGS, &ifr)) {
		perror("unshare(CLONE_NEWNET) or lo up");
		return 4;
	}
	lfd = bound(AF_INET6, "::1", PEER);
	if (lfd < 0 || listen(lfd, 8) || time_wait(lfd, "::1", 20000) ||
	    time_wait(lfd, "::", 20001)) {
		perror("setting up the TIME_WAIT sockets");
		return 4;
	}
	ctl = v4_any_bind(20000);
	bug = v4_any_bind(20001);
	printf("TIME_WAIT from a bind to [::1]:20000; bind 0.0.0.0:20000: %s\n",
	       ctl);
	printf("TIME_WAIT from a bind to [::]:20001;  bind 0.0.0.0:20001: %s\n",
	       bug);
	if (strcmp(ctl, "bound"))
		return 4;
	printf("bug %s\n", strcmp(bug, "bound") ? "present" : "absent");
	return !!strcmp(bug, "bound");
}
