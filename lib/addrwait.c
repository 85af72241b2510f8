// SPDX-License-Identifier: GPL-2.0
/*
 * Links and addresses that carry traffic later than rtnetlink acknowledges
 * them, from work that needs the RTNL: on a busy machine (other
 * namespaces being torn down) seconds later, and what is sent meanwhile
 * is dropped or misrouted, a SYN sent again a second later.
 *
 * An IPv6 address's local route is inserted by the DAD work, from a
 * workqueue even with IFA_F_NODAD, and only once the link is up. Until
 * then a connect() to it fails with ENETUNREACH, or worse, leaves through
 * a prefix route. IPv4 local routes are in place by the time the request
 * is acknowledged.
 *
 * A veth end brought up before its peer gets its carrier when the peer
 * comes up, but its transmit queues only from the link watch
 * (dev_activate()), which sets its operstate up just before:
 * bl_link_wait() in netns.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bindlab_core.h"

#define RTF_LOCAL_FLAG	0x80000000U	/* RTF_LOCAL of linux/ipv6_route.h */

static int hex_addr(const char *hex, struct in6_addr *a)
{
	unsigned int byte;
	int i;

	if (strlen(hex) != 32)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -EINVAL;
		a->s6_addr[i] = byte;
	}
	return 0;
}

/* 1 when /proc/net/ipv6_route of this namespace has a's local route. */
static int ipv6_local_route(const struct in6_addr *a)
{
	char line[512], dst[33];
	unsigned int plen, flags;
	struct in6_addr got;
	int found = 0;
	FILE *f;

	f = fopen("/proc/net/ipv6_route", "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32s %x %*s %*x %*s %*x %*x %*x %x", dst,
			   &plen, &flags) != 3 || hex_addr(dst, &got))
			continue;
		found = plen == 128 && (flags & RTF_LOCAL_FLAG) &&
			!memcmp(&got, a, sizeof(got));
	}
	fclose(f);
	return found;
}

int bl_poll(int (*ready)(const void *arg), const void *arg, int ms)
{
	uint64_t deadline = bl_now_ns() + (uint64_t)ms * 1000000;
	int ret;

	for (;;) {
		ret = ready(arg);
		if (ret)
			return ret < 0 ? ret : 0;
		if (bl_now_ns() >= deadline)
			return -ETIMEDOUT;
		usleep(1000);
	}
}

static int local_route_ready(const void *a)
{
	return ipv6_local_route(a);
}

int bl_addr_wait(const char *addr, int ms)
{
	char host[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;

	snprintf(host, sizeof(host), "%.*s", (int)strcspn(addr, "/"), addr);
	if (inet_pton(AF_INET6, host, &a) != 1)
		return inet_pton(AF_INET, host, &a) == 1 ? 0 : -EINVAL;
	return bl_poll(local_route_ready, &a, ms);
}
