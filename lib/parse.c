// SPDX-License-Identifier: GPL-2.0
/*
 * Strict number parsing, one grammar for all: "12abc", "", " 3", "+5",
 * "0x10", "1e3", "inf" and overflow are all errors, so that a value means
 * the same to every program and to run.sh's shell counterpart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab_core.h"

/*
 * -?(0|[1-9][0-9]*) (integer) or that and (\.[0-9]+)? (real). No leading
 * zero: the shell side (scripts/strict.sh's bl_num) refuses 010, which
 * bash would read as octal, and both sides take the same numbers.
 */
static bool number_syntax(const char *s, bool real)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (real && *p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

int bl_parse_long(const char *s, long min, long max, long *out)
{
	long v;

	if (!s || !number_syntax(s, false))
		return -EINVAL;
	errno = 0;
	v = strtol(s, NULL, 10);
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int bl_parse_double(const char *s, double min, double max, double *out)
{
	double v;

	if (!s || !number_syntax(s, true) || strlen(s) > 64)
		return -EINVAL;
	errno = 0;
	v = strtod(s, NULL);
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *bl_printable(const char *s)
{
	static char buf[200 * 4 + 4];
	size_t i, off = 0;

	for (i = 0; s && s[i] && off + 5 < sizeof(buf); i++) {
		unsigned char c = s[i];

		if (i == 200) {
			memcpy(buf + off, "...", 3);
			off += 3;
			break;
		}
		if (c == '\\')
			off += snprintf(buf + off, sizeof(buf) - off, "\\\\");
		else if (c < 0x20 || c > 0x7e)
			off += snprintf(buf + off, sizeof(buf) - off, "\\x%02x", c);
		else
			buf[off++] = c;
	}
	buf[off] = '\0';
	return buf;
}
