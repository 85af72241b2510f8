// SPDX-License-Identifier: GPL-2.0
/*
 * A PID namespace for one test, so that no process it forks outlives it.
 *
 * The harness forks each test into a process group of its own and, on
 * its timeout, kills that group; but a test killed from outside (the
 * runner's timeout kills the harness, SIGKILL of the harness) would run
 * on, its own children (crowd fillers, TIME_WAIT peers) with it. Here the
 * test dies with its parent (PR_SET_PDEATHSIG), a watcher kills the
 * test's group when the harness dies (since 6.9 the harness runs a test
 * in a grandchild, below a process of the group that only waits for it),
 * and the test's children live in a PID namespace whose init dies with
 * the test: the kernel then kills every process in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab_core.h"

/* init of the namespace: nothing to do but reap, until the test dies. */
static noreturn void reaper(int pidfd, pid_t test)
{
	if (bl_child_orphaned(pidfd, test))
		_exit(0);
	for (;;)
		if (wait(NULL) < 0 && errno == ECHILD)
			pause();
}

/*
 * Since 6.9 the harness runs each test in a grandchild, below a process
 * that waits for it, the two in a process group of their own: neither
 * dies with the harness. The harness's pid when it is our parent's
 * parent and our parent leads our group, else 0 (our group may then be
 * the runner's: not ours to kill).
 */
static pid_t harness_above_parent(void)
{
	pid_t parent = getppid(), ppid = 0;
	char path[32], buf[128], *p;
	ssize_t n;
	int fd;

	if (getpgrp() != parent)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)parent);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/*
	 * "PID (COMM) STATE PPID ...": one read, not a line, since COMM (16
	 * bytes at most) may hold ')' or a newline and nothing after it
	 * does; PPID lies within the first 128 bytes whatever follows.
	 */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid > 1 ? ppid : 0;
}

/* Until the harness exits; then the test's whole group goes with it. */
static noreturn void watcher(int pidfd, pid_t test, int harness_pidfd)
{
	struct pollfd p = { .fd = harness_pidfd, .events = POLLIN };

	if (bl_child_orphaned(pidfd, test))
		_exit(0);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	kill(0, SIGKILL);
	_exit(0);
}

int bl_pidns_enter(struct bl_why *why)
{
	pid_t parent = getppid(), self = getpid(), harness, pid;
	int pidfd, hfd = -1, ret = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return bl_why_set(why, ESRCH, "the harness is gone");
	pidfd = bl_pidfd_self();
	harness = harness_above_parent();
	if (harness)
		hfd = syscall(SYS_pidfd_open, harness, 0);
	/* A pidfd of the harness, not of a process given its pid since. */
	if (hfd >= 0 && harness_above_parent() != harness) {
		ret = bl_why_set(why, ESRCH, "the harness is gone");
		goto out;
	}
	/* Before unshare(): the watcher must see and kill the test's group. */
	if (hfd >= 0) {
		pid = fork();
		if (!pid)
			watcher(pidfd, self, hfd);
		if (pid < 0) {
			ret = bl_why_set(why, errno, "fork of the test's watcher: %s",
					 strerror(errno));
			goto out;
		}
	}
	/*
	 * A kernel without CONFIG_PID_NS (EINVAL) still runs the tests: the
	 * children's own PR_SET_PDEATHSIG (bl_child_run()) is all there is.
	 */
	if (unshare(CLONE_NEWPID)) {
		if (errno != EINVAL)
			ret = bl_why_set(why, errno,
					 "cannot create a PID namespace (unshare CLONE_NEWPID): %s",
					 strerror(errno));
		goto out;
	}
	pid = fork();
	if (!pid)
		reaper(pidfd, self);
	if (pid < 0)
		ret = bl_why_set(why, errno, "fork of the PID namespace's init: %s",
				 strerror(errno));
out:
	if (hfd >= 0)
		close(hfd);
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}
