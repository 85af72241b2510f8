// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses written the way people write them ("127.0.0.1",
 * "::ffff:127.0.0.1"), so that test tables stay readable, and back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bindlab_core.h"

socklen_t bl_sockaddr_parse(const char *host, uint16_t port,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof(*sin6);
	}
	return 0;
}

int bl_sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return -EAFNOSUPPORT;
}

int bl_sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -errno;
	return bl_sockaddr_port(&ss);
}

const char *bl_sockaddr_str(const struct sockaddr_storage *ss, char *buf,
			    size_t len)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
	snprintf(buf, len, ss->ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d",
		 host, bl_sockaddr_port(ss));
	return buf;
}
