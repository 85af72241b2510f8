// SPDX-License-Identifier: GPL-2.0
/*
 * A PID namespace for one test, so that no process it forks outlives it.
 *
 * The harness forks each test and, on its timeout, kills the test's
 * process group; but a test killed from outside (the runner's timeout
 * kills the harness, SIGKILL of the harness) would leave the test's own
 * children (crowd fillers, TIME_WAIT peers) running. Here the test dies
 * with the harness (PR_SET_PDEATHSIG) and its children live in a PID
 * namespace whose init dies with the test: the kernel then kills every
 * process in it.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
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

int bl_pidns_enter(struct bl_why *why)
{
	pid_t parent = getppid(), self = getpid(), pid;
	int pidfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return bl_why_set(why, ESRCH, "the harness is gone");
	/*
	 * A kernel without CONFIG_PID_NS (EINVAL) still runs the tests: the
	 * children's own PR_SET_PDEATHSIG (bl_child_run()) is all there is.
	 */
	if (unshare(CLONE_NEWPID))
		return errno == EINVAL ? 0 :
		       bl_why_set(why, errno,
				  "cannot create a PID namespace (unshare CLONE_NEWPID): %s",
				  strerror(errno));
	pidfd = bl_pidfd_self();
	pid = fork();
	if (pid < 0)
		return bl_why_set(why, errno, "fork of the PID namespace's init: %s",
				  strerror(errno));
	if (!pid)
		reaper(pidfd, self);
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}
