// SPDX-License-Identifier: GPL-2.0
/*
 * A crowd: many sockets bound to one port, more than one process may hold.
 * RLIMIT_NOFILE caps the sockets of a process (20000 on some CI hosts,
 * hard), so the crowd is spread over child processes that share the
 * caller's network namespace. Each child binds its share through
 * bl_bind_loop(), reports on a pipe, then holds its sockets until the
 * control pipe reaches EOF: bl_crowd_release() closes it, and so does the
 * death of the caller, which also sends the children SIGKILL
 * (bl_child_run()). Children stay in the caller's process group, so a
 * kselftest timeout kills them too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bindlab_core.h"

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

/* What a child of the crowd is given: its share and the pipes' ends. */
struct crowd_job {
	struct bl_bind_spec share;
	int ctl, rep;		/* the child's ends */
	int ctl_w, rep_r;	/* the parent's, closed in the child */
};

static int crowd_child(void *arg)
{
	const struct crowd_job *j = arg;
	const struct bl_bind_spec *spec = &j->share;
	struct crowd_report r = { 0 };
	struct bl_bind_run run;
	struct bl_why why = { "" };
	int ctl = j->ctl, rep = j->rep;
	unsigned int lo = ctl < rep ? ctl : rep, hi = ctl < rep ? rep : ctl;
	char c;

	close(j->ctl_w);
	close(j->rep_r);
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
		return 1;
	close(rep);

	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
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

/* How many children, each binding about per_child sockets. */
static int crowd_plan(struct bl_crowd *c, const struct bl_bind_spec *spec,
		      long *per_child, struct bl_why *why)
{
	long per = bl_fd_hard_limit() - BL_FD_SLACK;

	if (!spec->port || spec->n < 1)
		return bl_why_set(why, EINVAL, "a crowd needs a port and sockets");
	if (per < 1)
		return bl_why_set(why, EMFILE, "RLIMIT_NOFILE leaves no room for sockets");
	c->nchild = (spec->n + per - 1) / per;
	if (c->nchild > BL_CROWD_MAX_CHILDREN)
		return bl_why_set(why, EMFILE,
				  "%ld sockets need %d processes at RLIMIT_NOFILE %ld, more than %d",
				  spec->n, c->nchild, bl_fd_hard_limit(),
				  BL_CROWD_MAX_CHILDREN);
	/* Even shares: every child binds about as long as the others. */
	*per_child = (spec->n + c->nchild - 1) / c->nchild;
	return 0;
}

/* Fork the children, each with its share; c->nchild: those forked. */
static int crowd_spawn(struct bl_crowd *c, const struct bl_bind_spec *spec,
		       long per_child, struct crowd_job *job,
		       struct bl_why *why)
{
	long left = spec->n;
	int i;

	for (i = 0; i < c->nchild; i++) {
		job->share = *spec;
		job->share.n = left < per_child ? left : per_child;
		left -= job->share.n;
		c->pids[i] = bl_child_run(crowd_child, job);
		if (c->pids[i] < 0) {
			c->nchild = i;
			return bl_why_set(why, c->pids[i], "fork: %s",
					  strerror(-c->pids[i]));
		}
	}
	return 0;
}

/* Every child's report: what it bound, or why it could not. */
static int crowd_collect(struct bl_crowd *c, int rep, struct bl_why *why)
{
	struct crowd_report r;
	int i, err;

	for (i = 0; i < c->nchild; i++) {
		err = crowd_read_report(rep, &r, CROWD_REPORT_MS);
		if (err)
			return bl_why_set(why, err, "crowd child did not report: %s",
					  strerror(-err));
		c->n += r.bound;
		c->bind_ns += r.bind_ns;
		if (r.err)
			return bl_why_set(why, r.err, "crowd child: %s", r.msg);
	}
	return 0;
}

int bl_crowd_fill(struct bl_crowd *c, const struct bl_bind_spec *spec,
		  struct bl_why *why)
{
	struct crowd_job job;
	int ctl[2], rep[2], err;
	long per_child = 0;
	uint64_t t0;

	memset(c, 0, sizeof(*c));
	err = crowd_plan(c, spec, &per_child, why);
	if (err)
		return err;
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
	job = (struct crowd_job){ .ctl = ctl[0], .rep = rep[1],
				  .ctl_w = ctl[1], .rep_r = rep[0] };

	t0 = bl_now_ns();
	err = crowd_spawn(c, spec, per_child, &job, why);
	close(ctl[0]);
	close(rep[1]);
	if (!err)
		err = crowd_collect(c, rep[0], why);
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
