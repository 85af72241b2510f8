// SPDX-License-Identifier: GPL-2.0
/* File descriptor headroom: one socket per bind is the suite's cost unit. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "bindlab_core.h"

long bl_fd_hard_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	return rl.rlim_max == RLIM_INFINITY ? __LONG_MAX__ : (long)rl.rlim_max;
}

/*
 * Descriptors open now: inherited ones take room under the limit too,
 * and a run that counted without them would run out midway and blame
 * the kernel. Without /proc, stdin, stdout and stderr.
 */
static long fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return 3;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	/* Less the directory's own descriptor. */
	return n - 1;
}

int bl_fd_reserve(long nfds, struct bl_why *why)
{
	long need = nfds + BL_FD_SLACK, open = fds_open();
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return bl_why_set(why, errno, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur >= need + open)
		return 0;
	/* Try above the hard limit first: that works with CAP_SYS_RESOURCE. */
	if (rl.rlim_max != RLIM_INFINITY && (long)rl.rlim_max < need + open) {
		struct rlimit want = { need + open, need + open };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			return 0;
		return bl_why_set(why, EMFILE,
				  "needs %ld file descriptors (%ld sockets + %d), RLIMIT_NOFILE allows %ld and %ld are open",
				  need, nfds, BL_FD_SLACK, (long)rl.rlim_max,
				  open);
	}
	rl.rlim_cur = need + open;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return bl_why_set(why, errno, "setrlimit(RLIMIT_NOFILE, %ld): %s",
				  need, strerror(errno));
	return 0;
}
