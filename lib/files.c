// SPDX-License-Identifier: GPL-2.0
/*
 * The one reader of every file the suite reads: only regular files, at
 * most a given size, opened without blocking, so that /dev/zero or a
 * FIFO given as input fails at once. (The companion's writer is
 * bench/files.c.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindlab_core.h"

FILE *bl_open_regular(const char *path, long max_bytes, struct bl_why *why)
{
	struct stat st;
	FILE *f;
	int fd;

	/* O_NONBLOCK: a FIFO must not hang us before fstat() refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		bl_why_set(why, errno, "%s: %s", bl_printable(path), strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > max_bytes) {
		if (fstat(fd, &st))
			bl_why_set(why, errno, "%s: %s", bl_printable(path), strerror(errno));
		else if (!S_ISREG(st.st_mode))
			bl_why_set(why, EINVAL, "%s is not a regular file",
				   bl_printable(path));
		else
			bl_why_set(why, EFBIG, "%s is larger than %ld bytes",
				   bl_printable(path), max_bytes);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, 0);
	f = fdopen(fd, "r");
	if (!f) {
		bl_why_set(why, errno, "%s: %s", bl_printable(path), strerror(errno));
		close(fd);
	}
	return f;
}
