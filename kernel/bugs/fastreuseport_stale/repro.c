// SPDX-License-Identifier: GPL-2.0
/*
 * fastreuseport_stale: A binds 0.0.0.0:P with SO_REUSEADDR; B binds it
 * with SO_REUSEADDR + SO_REUSEPORT (shared with A by SO_REUSEADDR); C
 * binds it with SO_REUSEPORT only. C conflicts with A (A has no
 * SO_REUSEPORT, C no SO_REUSEADDR) and must get EADDRINUSE, as it does
 * without B (checked first, on another port). Exit 0: bug absent, 1: bug
 * present, 4: cannot run.
 * Build: gcc -Wall -o repro ./repro.c; run as root (it makes its own netns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define PORT	10000	/* A, B, C */
#define PORT_CTL	10001	/* A and C only */

static int sock(int reuseaddr, int reuseport)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuseaddr, sizeof(int));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &reuseport, sizeof(int));
	return fd;
}

/* bind() to 0.0.0.0:port: 0 or errno. */
static int bind_any(int fd, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };

	return bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
}

static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ifr.ifr_flags = IFF_UP;
	return fd < 0 || ioctl(fd, SIOCSIFFLAGS, &ifr);
}

int main(void)
{
	int err;

	if (unshare(CLONE_NEWNET) || lo_up()) {
		perror("unshare(CLONE_NEWNET) or lo up");
		return 4;
	}
	/* Without B: the rule says C conflicts with A. */
	if (bind_any(sock(1, 0), PORT_CTL) ||
	    bind_any(sock(0, 1), PORT_CTL) != EADDRINUSE) {
		fprintf(stderr, "control: A and C do not conflict here\n");
		return 4;
	}
	if (bind_any(sock(1, 0), PORT) || bind_any(sock(1, 1), PORT)) {
		fprintf(stderr, "A or B did not bind\n");
		return 4;
	}
	err = bind_any(sock(0, 1), PORT);
	printf("port %d: A reuseaddr, C reuseport: C gets EADDRINUSE\n", PORT_CTL);
	printf("port %d: A reuseaddr, B reuseaddr+reuseport, C reuseport: C gets %s\n",
	       PORT, err ? strerror(err) : "bound");
	if (err == EADDRINUSE) {
		printf("bug absent: C conflicts with A\n");
		return 0;
	}
	printf("bug present: C shares 0.0.0.0:%d with A, which has no SO_REUSEPORT\n",
	       PORT);
	return 1;
}
