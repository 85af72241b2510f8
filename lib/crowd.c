// SPDX-License-Identifier: GPL-2.0
/*
 * A crowd: many sockets bound to one port, more than one process may hold.
 * RLIMIT_NOFILE caps the sockets of a process (20000 on some CI hosts,
 * hard), so the crowd is spread over child processes that share the
 * caller's network namespace. Each child binds its share through
 * bl_bind_loop(), reports on a pipe, then holds its sockets until the
 * control pipe reaches EOF: bl_crowd_release() closes it, and so does the
 * death of the caller, which also sends the children SIGKILL
 * (PR_SET_PDEATHSIG). Children stay in the caller's process group, so a
 * kselftest timeout kills them too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab.h"

/* A child binding its share reports within this time, or is killed. */
#define CROWD_REPORT_MS		60000
/* Children that were told to exit and are still there get SIGKILL. */
#define CROWD_EXIT_MS		5000

struct crowd_report {
	int err;
	long bound;
	uint64_t bind_ns;
	char msg[200];
};

static __noreturn
void crowd_child(const struct bl_bind_spec *spec, pid_t parent, int ctl, int rep)
{
	struct crowd_report r = { 0 };
	struct bl_bind_run run;
	struct bl_why why = { "" };
	unsigned int lo = ctl < rep ? ctl : rep, hi = ctl < rep ? rep : ctl;
	char c;

	/* The parent may have died between fork() and prctl(). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	/*
	 * Sockets the caller held at fork time must close when the caller
	 * closes them, not when the crowd goes: keep only stdio and pipes.
	 */
	close_range(3, lo - 1, 0);
	close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0U, 0);

	r.err = bl_fd_reserve(spec->n, &why);
	if (!r.err)
		r.err = bl_bind_loop(spec, &run, NULL, &why);
	else
		memset(&run, 0, sizeof(run));
	r.bound = run.n;
	r.bind_ns = run.total_ns;
	snprintf(r.msg, sizeof(r.msg), "%s", why.msg);
	/* Smaller than PIPE_BUF: one atomic write. */
	if (write(rep, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	close(rep);

	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int crowd_read_report(int fd, struct crowd_report *r, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t deadline = bl_now_ns() + (uint64_t)ms * 1000000;
	size_t got = 0;
	ssize_t n;
	int left;

	while (got < sizeof(*r)) {
		if (bl_now_ns() >= deadline)
			return -ETIMEDOUT;
		left = (int)((deadline - bl_now_ns()) / 1000000) + 1;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -errno;
		n = read(fd, (char *)r + got, sizeof(*r) - got);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n == 0)
			return -EPIPE;	/* every child gone without a word */
		if (n > 0)
			got += n;
	}
	return 0;
}

int bl_crowd_fill(struct bl_crowd *c, const struct bl_bind_spec *spec,
		  struct bl_why *why)
{
	int ctl[2], rep[2], i, err = 0;
	struct bl_bind_spec share;
	struct crowd_report r;
	long per_child, left;
	pid_t self = getpid();
	uint64_t t0;

	memset(c, 0, sizeof(*c));
	if (!spec->port || spec->n < 1)
		return bl_why_set(why, EINVAL, "a crowd needs a port and sockets");

	per_child = bl_fd_hard_limit() - BL_FD_SLACK;
	if (per_child < 1)
		return bl_why_set(why, EMFILE, "RLIMIT_NOFILE leaves no room for sockets");
	c->nchild = (spec->n + per_child - 1) / per_child;
	if (c->nchild > BL_CROWD_MAX_CHILDREN)
		return bl_why_set(why, EMFILE,
				  "%ld sockets need %d processes at RLIMIT_NOFILE %ld, more than %d",
				  spec->n, c->nchild, bl_fd_hard_limit(),
				  BL_CROWD_MAX_CHILDREN);
	/* Even shares: every child binds about as long as the others. */
	per_child = (spec->n + c->nchild - 1) / c->nchild;

	if (pipe2(ctl, O_CLOEXEC))
		return bl_why_set(why, errno, "pipe: %s", strerror(errno));
	if (pipe2(rep, O_CLOEXEC)) {
		err = bl_why_set(why, errno, "pipe: %s", strerror(errno));
		close(ctl[0]);
		close(ctl[1]);
		return err;
	}
	c->ctl = ctl[1];
	c->active = true;

	t0 = bl_now_ns();
	left = spec->n;
	for (i = 0; i < c->nchild; i++) {
		share = *spec;
		share.n = left < per_child ? left : per_child;
		left -= share.n;
		fflush(NULL);
		c->pids[i] = fork();
		if (c->pids[i] < 0) {
			err = bl_why_set(why, errno, "fork: %s", strerror(errno));
			c->nchild = i;
			break;
		}
		if (!c->pids[i]) {
			close(ctl[1]);
			close(rep[0]);
			crowd_child(&share, self, ctl[0], rep[1]);
		}
	}
	close(ctl[0]);
	close(rep[1]);

	for (i = 0; !err && i < c->nchild; i++) {
		err = crowd_read_report(rep[0], &r, CROWD_REPORT_MS);
		if (err) {
			bl_why_set(why, err, "crowd child did not report: %s",
				   strerror(-err));
			break;
		}
		c->n += r.bound;
		c->bind_ns += r.bind_ns;
		if (r.err) {
			err = bl_why_set(why, r.err, "crowd child: %s", r.msg);
			break;
		}
	}
	close(rep[0]);
	c->fill_ns = bl_now_ns() - t0;
	if (err)
		bl_crowd_release(c);
	return err;
}

void bl_crowd_release(struct bl_crowd *c)
{
	uint64_t deadline = bl_now_ns() + CROWD_EXIT_MS * 1000000ULL;
	int i, left;
	pid_t w;

	if (!c->active)
		return;
	/* EOF on the control pipe: the children exit and close their sockets. */
	close(c->ctl);
	do {
		left = 0;
		for (i = 0; i < c->nchild; i++) {
			if (c->pids[i] <= 0)
				continue;
			w = waitpid(c->pids[i], NULL, WNOHANG);
			if (w == c->pids[i] || (w < 0 && errno == ECHILD))
				c->pids[i] = 0;
			else
				left++;
		}
		if (left)
			usleep(1000);
	} while (left && bl_now_ns() < deadline);

	for (i = 0; i < c->nchild; i++) {
		if (c->pids[i] <= 0)
			continue;
		kill(c->pids[i], SIGKILL);
		waitpid(c->pids[i], NULL, 0);
		c->pids[i] = 0;
	}
	memset(c, 0, sizeof(*c));
}
