// SPDX-License-Identifier: GPL-2.0
/*
 * The companion's command lines: one getopt_long() loop for every
 * program, the one wording of a bad number or option, case ids, and
 * BINDLAB_CHECK_ARGS's check-only mode. Numbers themselves are parsed by
 * lib/parse.c, the grammar the kselftests share.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* program_invocation_short_name */
#endif
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"

/* "--quiet=1": name the long option as given, without its value. */
static int unknown_long(const char *arg, struct bl_why *why)
{
	size_t len = strcspn(arg, "=");

	char name[64];

	snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), arg);
	if (arg[len])
		return bl_why_set(why, EINVAL, "option %s takes no value or is unknown",
				  bl_printable(name));
	return bl_why_set(why, EINVAL, "unknown option %s", bl_printable(arg));
}

int bl_getopt_error(int c, char **argv, struct bl_why *why)
{
	const char *arg = argv[optind - 1];

	char opt[2] = { (char)optopt, '\0' };

	/* Values reach the terminal: never a raw control character. */
	if (c == ':')
		return bl_why_set(why, EINVAL, "option %s needs a value",
				  bl_printable(arg));
	if (c == '?' && !strncmp(arg, "--", 2))
		return unknown_long(arg, why);
	if (c == '?' && optopt)
		return bl_why_set(why, EINVAL, "unknown option -%s",
				  bl_printable(opt));
	if (c == '?')
		return bl_why_set(why, EINVAL, "unknown option %s",
				  bl_printable(arg));
	return 0;
}

/*
 * One walk of argv in getopt_long()'s RETURN_IN_ORDER mode ("-" first,
 * whatever POSIXLY_CORRECT says): options go to opt() as they come and
 * their words to w->opts, operands to w->operands. Returns at the end or
 * at a "--" (*stop: its index in sub), or with the first error.
 */
struct getopt_walk {
	char **opts, **operands;
	int nopts, noperands;
	const char *repeats;	/* long names of the options that repeat */
	bool seen[256];		/* options with a value given so far */
};

/*
 * One value an option: a second would silently win, and the run would
 * not be the one asked for (scripts/args.sh's bl_once for the shell).
 */
static int once(struct getopt_walk *w, int c, const struct option *longopts,
		struct bl_why *why)
{
	const char *name = NULL, *r;
	const struct option *o;
	size_t len;

	for (o = longopts; o && o->name; o++)
		if (o->val == c)
			name = o->name;
	for (r = w->repeats; name && r && *r; r += len + !!r[len]) {
		len = strcspn(r, " ");
		if (len == strlen(name) && !strncmp(r, name, len))
			return 0;
	}
	if (!optarg || c < 0 || c > 255)
		return 0;
	if (!w->seen[c]) {
		w->seen[c] = true;
		return 0;
	}
	if (name)
		return bl_why_set(why, EINVAL, "--%s given twice", name);
	return bl_why_set(why, EINVAL, "-%c given twice", c);
}

static int getopt_walk(int argc, char **sub, const char *order,
		       const struct option *longopts,
		       int (*opt)(void *ctx, int c, const char *arg,
				  struct bl_why *why),
		       void *ctx, struct getopt_walk *w, int *stop,
		       struct bl_why *why)
{
	int c, err, last = 1;

	optind = 0;	/* a full reset: a program may parse again */
	opterr = 0;
	while ((c = getopt_long(argc, sub, order, longopts, NULL)) != -1) {
		if (c == 1) {
			w->operands[w->noperands++] = optarg;
			last = optind;
			continue;
		}
		/* A group of short options moves optind at its last one. */
		while (last < optind && last < argc)
			w->opts[w->nopts++] = sub[last++];
		if (c == 'h')
			return 1;
		err = bl_getopt_error(c, sub, why);
		/* "--json -q": a value left out, not a file named -q. */
		if (!err && optarg && optarg[0] == '-' && optarg[1] &&
		    !isdigit((unsigned char)optarg[1]))
			err = bl_why_set(why, EINVAL, "'%s' is an option, not a value (one is missing before it)",
					 optarg);
		if (!err)
			err = once(w, c, longopts, why);
		if (!err)
			err = opt(ctx, c, optarg, why);
		if (err)
			return err;
	}
	*stop = last < argc && !strcmp(sub[last], "--") ? last : -1;
	return 0;
}

int bl_getopt_each(int argc, char **argv, const char *optstring,
		   const struct option *longopts, unsigned int flags,
		   const char *repeats,
		   int (*opt)(void *ctx, int c, const char *arg,
			      struct bl_why *why),
		   void *ctx, struct bl_why *why)
{
	struct getopt_walk w = { .opts = calloc(argc + 1, sizeof(char *)),
				 .operands = calloc(argc + 1, sizeof(char *)),
				 .nopts = 1, .repeats = repeats };
	int base = 0, stop, err, i;
	char order[64];

	if (!w.opts || !w.operands) {
		err = bl_why_set(why, ENOMEM, "out of memory");
		goto out;
	}
	snprintf(order, sizeof(order), "-%s", optstring);
	w.opts[0] = argv[0];
	for (;;) {
		err = getopt_walk(argc - base, argv + base, order, longopts,
				  opt, ctx, &w, &stop, why);
		if (err || stop < 0)
			break;
		if (!(flags & BL_GETOPT_SIDES)) {
			/* "--" ends the options: the rest are operands. */
			w.opts[w.nopts++] = argv[base + stop];
			for (i = base + stop + 1; i < argc; i++)
				w.operands[w.noperands++] = argv[i];
			break;
		}
		/* An operand between the sides; options go on after it. */
		w.operands[w.noperands++] = argv[base + stop];
		base += stop;
	}
	if (!err) {
		/* GNU's order: the options, then the operands from optind. */
		memcpy(argv, w.opts, w.nopts * sizeof(char *));
		memcpy(argv + w.nopts, w.operands, w.noperands * sizeof(char *));
		optind = w.nopts;
	}
out:
	free(w.opts);
	free(w.operands);
	return err;
}

/* The one wording of a bad number, whatever its type. */
static int arg_why(int err, const char *what, const char *s,
		   const char *range, struct bl_why *why)
{
	if (err == -ERANGE)
		return bl_why_set(why, EINVAL, "%s %s out of range %s", what, s,
				  range);
	if (err)
		return bl_why_set(why, EINVAL, "%s '%.64s' is not a number",
				  what, bl_printable(s));
	return 0;
}

int bl_arg_long(const char *what, const char *s, long min, long max,
		long *out, struct bl_why *why)
{
	char range[48];

	snprintf(range, sizeof(range), "%ld..%ld", min, max);
	return arg_why(bl_parse_long(s, min, max, out), what, s, range, why);
}

int bl_arg_double(const char *what, const char *s, double min, double max,
		  double *out, struct bl_why *why)
{
	char range[48];

	snprintf(range, sizeof(range), "%g..%g", min, max);
	return arg_why(bl_parse_double(s, min, max, out), what, s, range, why);
}

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       (c >= 'A' && c <= 'Z');
}

bool bl_case_id_valid(const char *id)
{
	size_t i, len = id ? strlen(id) : 0;

	if (!len || len > BL_CASE_ID_MAX || !id_char(id[0]) ||
	    !id_char(id[len - 1]))
		return false;
	for (i = 1; i < len; i++) {
		if (id_char(id[i]))
			continue;
		/* Separators never come twice: no "..", so no path tricks. */
		if (!strchr(".-+", id[i]) || !id_char(id[i - 1]))
			return false;
	}
	return true;
}

/*
 * BINDLAB_CHECK_ARGS=1: check the command line, run nothing; "id": the
 * same, and the program prints the case id its result will carry. Unset,
 * empty or 0: run. Anything else is a mistake that must not turn into a
 * real run (bisect relies on the check): one line, exit 2.
 */
int bl_check_args_only(void)
{
	const char *s = getenv("BINDLAB_CHECK_ARGS");

	if (!s || !*s || !strcmp(s, "0"))
		return BL_CHECK_RUN;
	if (!strcmp(s, "1"))
		return BL_CHECK_ONLY;
	if (!strcmp(s, "id"))
		return BL_CHECK_ID;
	fprintf(stderr, "%s: BINDLAB_CHECK_ARGS '%s' is none of 0, 1 and id\n",
		program_invocation_short_name, bl_printable(s));
	exit(BL_EXIT_USAGE);
}
