// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing: "12abc", "", " 3" and overflow are all errors. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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

int bl_getopt_error(int c, char **argv, struct bl_why *why)
{
	if (c == ':')
		return bl_why_set(why, EINVAL, "option %s needs a value",
				  argv[optind - 1]);
	if (c == '?' && optopt)
		return bl_why_set(why, EINVAL, "unknown option -%c", optopt);
	if (c == '?')
		return bl_why_set(why, EINVAL, "unknown option %s",
				  argv[optind - 1]);
	return 0;
}

int bl_arg_long(const char *what, const char *s, long min, long max,
		long *out, struct bl_why *why)
{
	int err = bl_parse_long(s, min, max, out);

	if (err == -ERANGE)
		return bl_why_set(why, EINVAL, "%s %s out of range %ld..%ld",
				  what, s, min, max);
	if (err)
		return bl_why_set(why, EINVAL, "%s '%s' is not a number",
				  what, s);
	return 0;
}
