// SPDX-License-Identifier: GPL-2.0
/*
 * sysctls of the current network namespace. /proc/sys/net shows the
 * namespace of the task that opens it, so callers enter their private
 * namespace first and never see or change the host's values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bindlab_core.h"

static int sysctl_path(const char *key, char *path, size_t len)
{
	int n = snprintf(path, len, "/proc/sys/%s", key);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool bl_sysctl_exists(const char *key)
{
	char path[256];

	return !sysctl_path(key, path, sizeof(path)) && !access(path, F_OK);
}

/* The key's file, opened with flags; fd or -errno. */
static int sysctl_open(const char *key, int flags)
{
	char path[256];
	int fd, err;

	err = sysctl_path(key, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int bl_sysctl_read(const char *key, char *buf, size_t len)
{
	int fd = sysctl_open(key, O_RDONLY), err;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

int bl_sysctl_write(const char *key, const char *val)
{
	int fd = sysctl_open(key, O_WRONLY), err;
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return err;
}

int bl_sysctl_read_long(const char *key, long *val)
{
	char buf[64];
	int err = bl_sysctl_read(key, buf, sizeof(buf));

	if (err)
		return err;
	return bl_parse_long(buf, -__LONG_MAX__ - 1, __LONG_MAX__, val);
}

int bl_sysctl_write_long(const char *key, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return bl_sysctl_write(key, buf);
}
