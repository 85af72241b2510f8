// SPDX-License-Identifier: GPL-2.0
/*
 * The one way the suite runs work in a child process: the child dies
 * with its parent (PR_SET_PDEATHSIG), and one whose parent died before
 * the prctl() took effect exits at once instead of running orphaned. The
 * child learns that through a pidfd of the parent: getppid() cannot
 * tell, since a test's children live in a PID namespace below their
 * parent's (lib/pidns.c), where getppid() is 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab_core.h"

int bl_pidfd_self(void)
{
	return syscall(SYS_pidfd_open, getpid(), 0);
}

bool bl_pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&p, 1, 0) > 0;
}

bool bl_child_orphaned(int parent_pidfd, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return true;
	if (parent_pidfd >= 0)
		return bl_pidfd_exited(parent_pidfd);
	/* No pidfd (before 5.3): getppid() is 0 when parent is outside. */
	return getppid() && getppid() != parent;
}

pid_t bl_child_run(int (*fn)(void *arg), void *arg)
{
	pid_t parent = getpid(), pid;
	int pidfd;

	/* Buffered output must not be written twice. */
	fflush(NULL);
	pidfd = bl_pidfd_self();
	pid = fork();
	if (pid) {
		if (pidfd >= 0)
			close(pidfd);
		return pid < 0 ? -errno : pid;
	}
	if (bl_child_orphaned(pidfd, parent))
		_exit(BL_EXIT_FAIL);
	if (pidfd >= 0)
		close(pidfd);
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

/*
 * The rest of a chain of processes, each waiting on the next: the errno
 * of a fork that failed, or 0 (a link killed says nothing of forking).
 */
static int fork_chain(void *arg)
{
	int left = *(int *)arg - 1, status;
	pid_t pid;

	if (left < 0)
		return 0;
	pid = bl_child_run(fork_chain, &left);
	if (pid < 0)
		return -pid;
	if (bl_child_wait(pid, 0, &status) || !WIFEXITED(status))
		return 0;
	return WEXITSTATUS(status);
}

int bl_fork_reserve(int nproc, const char *what, struct bl_why *why)
{
	int err = fork_chain(&nproc);
	struct rlimit rl;

	if (!err)
		return 0;
	if (getrlimit(RLIMIT_NPROC, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return bl_why_set(why, err, "cannot fork %d processes (%s): %s",
				  nproc, what, strerror(err));
	return bl_why_set(why, err, "cannot fork %d processes (%s): %s, RLIMIT_NPROC %ld",
			  nproc, what, strerror(err), (long)rl.rlim_cur);
}
