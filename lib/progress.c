// SPDX-License-Identifier: GPL-2.0
/*
 * A progress line on stderr: only on a terminal, only once a run has
 * lasted 2 s, at most every 250 ms. Callers update it between timed
 * regions, never inside one.
 */
#include <stdio.h>
#include <unistd.h>

#include "bindlab_core.h"

#define PROGRESS_AFTER_NS	2000000000ULL
#define PROGRESS_EVERY_NS	250000000ULL

void bl_progress_init(struct bl_progress *p, const char *what, long total)
{
	p->what = what;
	p->total = total;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
	p->start_ns = bl_now_ns();
	p->last_ns = p->start_ns;
}

void bl_progress_update(struct bl_progress *p, long done)
{
	uint64_t now;

	if (!p || !p->tty)
		return;
	now = bl_now_ns();
	if (now - p->start_ns < PROGRESS_AFTER_NS ||
	    now - p->last_ns < PROGRESS_EVERY_NS)
		return;
	p->last_ns = now;
	p->shown = true;
	fprintf(stderr, "\r%s: %ld/%ld (%.0f%%) %.1f s", p->what, done,
		p->total, p->total ? 100.0 * done / p->total : 0.0,
		(now - p->start_ns) / 1e9);
}

void bl_progress_done(struct bl_progress *p)
{
	if (p && p->shown)
		fputs("\r\033[K", stderr);
}
