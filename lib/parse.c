// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing: "12abc", "", " 3" and overflow are all errors. */
#include <errno.h>
#include <stdlib.h>

#include "bindlab.h"

int bl_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || *s == ' ' || *s == '\t' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || end == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
