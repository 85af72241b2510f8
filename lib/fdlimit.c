// SPDX-License-Identifier: GPL-2.0
/* File descriptor headroom: one socket per bind is the suite's cost unit. */
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

int bl_fd_reserve(long nfds, struct bl_why *why)
{
	long need = nfds + BL_FD_SLACK;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return bl_why_set(why, errno, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur >= need)
		return 0;
	/* Try above the hard limit first: that works with CAP_SYS_RESOURCE. */
	if (rl.rlim_max != RLIM_INFINITY && (long)rl.rlim_max < need) {
		struct rlimit want = { .rlim_cur = need, .rlim_max = need };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			return 0;
		return bl_why_set(why, EMFILE,
				  "needs %ld file descriptors (%ld sockets + %d), RLIMIT_NOFILE allows %ld",
				  need, nfds, BL_FD_SLACK, (long)rl.rlim_max);
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return bl_why_set(why, errno, "setrlimit(RLIMIT_NOFILE, %ld): %s",
				  need, strerror(errno));
	return 0;
}
