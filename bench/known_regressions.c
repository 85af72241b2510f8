// SPDX-License-Identifier: GPL-2.0
/*
 * Known regressions of the kernel under test, declared by the user, never
 * guessed. The kselftests know nothing of them: the companion applies
 * them when it reads their KTAP (bindlab_results merge --ktap, ktap
 * --xfail-from-env) and to benchmark cases, by one name: a fact is its
 * fixture.variant, so "bind_fastreuse.v4_reuseaddr_same.*" declares the
 * kselftest verdict (.growth) and the benchmark case (.total_ms) at once.
 *
 *   BINDLAB_XFAIL="glob[,glob...]"   test-name globs (fnmatch), separated
 *                                     by commas or blanks
 *   BINDLAB_XFAIL_FILE=path           lines "TEST-GLOB [KERNEL-RELEASE-GLOB]";
 *                                     '#' starts a comment
 *
 * Read strictly, because a declaration turns a failure into a pass: a
 * line over BL_XFAIL_LINE_MAX bytes, a bad glob, a third word, a file
 * that is unreadable, not a regular file or over BL_XFAIL_FILE_MAX is one
 * error with its line number (exit 2), never "nothing declared" and
 * never a line split into two declarations.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bindlab.h"

struct xfail_decl {
	char *test;
	char *release;		/* NULL: any kernel */
};

static struct {
	struct xfail_decl *d;
	size_t n, cap;
	bool loaded;
	char release[65];
} xf;

bool bl_glob_valid(const char *g, struct bl_why *why)
{
	const char *s;

	if (!*g || strlen(g) > BL_XFAIL_GLOB_MAX) {
		bl_why_set(why, EINVAL, "a glob of %zu bytes (1 to %d)",
			   strlen(g), BL_XFAIL_GLOB_MAX);
		return false;
	}
	for (s = g; *s; s++) {
		if (*s < 0x21 || *s > 0x7e) {
			bl_why_set(why, EINVAL, "'%s': byte 0x%02x in a glob",
				   bl_printable(g), (unsigned char)*s);
			return false;
		}
		if (*s == '\\' && !*++s) {
			bl_why_set(why, EINVAL, "'%s' ends in a lone \\", g);
			return false;
		}
		if (*s != '[')
			continue;
		/* fnmatch: "[]" and "[!]" take the ']' right after as a member. */
		s += 1 + (s[1] == '!');
		s += *s == ']';
		s = strchr(s, ']');
		if (!s) {
			bl_why_set(why, EINVAL, "'%s': a [ without its ]", g);
			return false;
		}
	}
	return true;
}

static int add_decl(const char *test, const char *release,
		    struct bl_why *why)
{
	struct xfail_decl *more;

	if (!bl_glob_valid(test, why) || (release && !bl_glob_valid(release, why)))
		return -EINVAL;
	if (xf.n == xf.cap) {
		more = realloc(xf.d, (xf.cap * 2 + 8) * sizeof(*more));
		if (!more)
			return bl_why_set(why, ENOMEM, "out of memory");
		xf.d = more;
		xf.cap = xf.cap * 2 + 8;
	}
	xf.d[xf.n].test = strdup(test);
	xf.d[xf.n].release = release ? strdup(release) : NULL;
	if (!xf.d[xf.n].test || (release && !xf.d[xf.n].release))
		return bl_why_set(why, ENOMEM, "out of memory");
	xf.n++;
	return 0;
}

/*
 * Globs separated by commas or blanks. An empty item between commas, or
 * a list of separators only, is a typo or an unset shell variable: it
 * declares nothing the caller meant, so it is refused.
 */
static int load_list(const char *list, struct bl_why *why)
{
	char *copy = strdup(list), *rest = copy, *item, *tok, *save;
	struct bl_why bad = { "" };
	size_t before;
	int err = 0;

	if (!copy)
		return bl_why_set(why, ENOMEM, "out of memory");
	while (!err && (item = strsep(&rest, ","))) {
		before = xf.n;
		save = NULL;
		for (tok = strtok_r(item, " \t\n", &save); tok && !err;
		     tok = strtok_r(NULL, " \t\n", &save))
			if (add_decl(tok, NULL, &bad))
				err = bl_why_set(why, EINVAL, "BINDLAB_XFAIL: %s",
						 bad.msg);
		if (!err && xf.n == before)
			err = bl_why_set(why, EINVAL,
					 "BINDLAB_XFAIL '%s': an empty glob (set it to globs, or unset it)",
					 bl_printable(list));
	}
	free(copy);
	return err;
}

/* One line of the file, its comment and newline gone. */
static int file_line(char *line, const char *path, long n, struct bl_why *why)
{
	char *test, *release, *save = NULL, *hash = strchr(line, '#');
	struct bl_why bad = { "" };

	if (hash)
		*hash = '\0';
	test = strtok_r(line, " \t\r", &save);
	if (!test)
		return 0;
	release = strtok_r(NULL, " \t\r", &save);
	if (strtok_r(NULL, " \t\r", &save))
		return bl_why_set(why, EINVAL,
				  "BINDLAB_XFAIL_FILE %s: line %ld: more than TEST-GLOB [KERNEL-RELEASE-GLOB]",
				  path, n);
	if (add_decl(test, release, &bad))
		return bl_why_set(why, EINVAL, "BINDLAB_XFAIL_FILE %s: line %ld: %s",
				  path, n, bad.msg);
	return 0;
}

static int load_file(const char *path, struct bl_why *why)
{
	struct bl_why open_why = { "" };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long n = 0;
	int err = 0;
	FILE *f;

	f = bl_open_regular(path, BL_XFAIL_FILE_MAX, &open_why);
	if (!f)
		return bl_why_set(why, EINVAL, "BINDLAB_XFAIL_FILE: %s", open_why.msg);
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		n++;
		if (len > BL_XFAIL_LINE_MAX)
			err = bl_why_set(why, EINVAL,
					 "BINDLAB_XFAIL_FILE %s: line %ld: %zd bytes, over the limit of %d",
					 path, n, len, BL_XFAIL_LINE_MAX);
		else if (strlen(line) != (size_t)len)
			err = bl_why_set(why, EINVAL, "BINDLAB_XFAIL_FILE %s: line %ld: a NUL byte",
					 path, n);
		else {
			line[strcspn(line, "\n")] = '\0';
			err = file_line(line, path, n, why);
		}
	}
	if (!err && ferror(f))
		err = bl_why_set(why, EIO, "BINDLAB_XFAIL_FILE %s: read error", path);
	free(line);
	fclose(f);
	return err;
}

int bl_xfail_load(const char *release, struct bl_why *why)
{
	const char *list = getenv("BINDLAB_XFAIL");
	const char *file = getenv("BINDLAB_XFAIL_FILE");
	struct utsname u;
	int err = 0;

	bl_xfail_reset();
	if (!release)
		release = uname(&u) ? "" : u.release;
	snprintf(xf.release, sizeof(xf.release), "%s", release);
	if (list)
		err = load_list(list, why);
	/* Set but empty is a script's unset variable, not "no file". */
	if (!err && file && !*file)
		err = bl_why_set(why, EINVAL, "BINDLAB_XFAIL_FILE is set but empty");
	else if (!err && file)
		err = load_file(file, why);
	if (err) {
		bl_xfail_reset();
		return -EINVAL;
	}
	xf.loaded = true;
	return 0;
}

bool bl_known_regression(const char *test_name)
{
	size_t i;

	for (i = 0; xf.loaded && i < xf.n; i++)
		if (!fnmatch(xf.d[i].test, test_name, 0) &&
		    (!xf.d[i].release || !fnmatch(xf.d[i].release, xf.release, 0)))
			return true;
	return false;
}

void bl_xfail_reset(void)
{
	size_t i;

	for (i = 0; i < xf.n; i++) {
		free(xf.d[i].test);
		free(xf.d[i].release);
	}
	free(xf.d);
	memset(&xf, 0, sizeof(xf));
}
