// SPDX-License-Identifier: GPL-2.0
/*
 * Errors explained: the message a SKIP or a usage error carries, and the
 * name of an errno as the tests print it. Every other file of the library
 * uses these; they use nothing of it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bindlab_core.h"

int bl_why_set(struct bl_why *why, int err, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
		va_end(ap);
	}
	return err > 0 ? -err : err;
}

const char *bl_errname(int err)
{
	const char *name;

	if (!err)
		return "success";
	name = strerrorname_np(err < 0 ? -err : err);
	return name ? name : strerror(err < 0 ? -err : err);
}
