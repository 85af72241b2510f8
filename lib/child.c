// SPDX-License-Identifier: GPL-2.0
/*
 * The one way the suite runs work in a child process: the child dies
 * with its parent (PR_SET_PDEATHSIG), and one whose parent died before
 * the prctl() took effect exits at once instead of running orphaned. The
 * check compares getppid() with the parent's pid as it was at fork time,
 * which also holds for a parent that is PID 1 of its own PID namespace.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab_core.h"

pid_t bl_child_run(int (*fn)(void *arg), void *arg)
{
	pid_t parent = getpid(), pid;

	/* Buffered output must not be written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(BL_EXIT_FAIL);
	_exit(fn(arg));
}

int bl_child_wait(pid_t pid, long limit_ms, int *status)
{
	uint64_t deadline = bl_now_ns() + (uint64_t)limit_ms * 1000000;
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, limit_ms ? WNOHANG : 0);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (limit_ms && bl_now_ns() > deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		if (w == 0)
			usleep(10000);
	}
}
