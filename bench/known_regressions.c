// SPDX-License-Identifier: GPL-2.0
/*
 * Known regressions of the kernel under test, declared by the user, never
 * guessed: a test that measures a regression reports XFAIL only when its
 * full name (fixture.variant.test) matches a declaration, and a benchmark
 * case (fixture.variant.measure, ./cases) is a known regression in the
 * run file on the same terms. A fact has one name, its fixture.variant:
 * "bind_fastreuse.v4_reuseaddr_same.*" declares the kselftest verdict and
 * the benchmark case of that regression at once.
 *
 *   BINDLAB_XFAIL="glob[,glob...]"   test-name globs (fnmatch), or
 *   BINDLAB_XFAIL_FILE=path           lines "TEST-GLOB [KERNEL-RELEASE-GLOB]",
 *                                     '#' starts a comment.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bindlab_core.h"

static bool match_list(const char *list, const char *name)
{
	char *copy = strdup(list), *tok, *save = NULL;
	bool hit = false;

	if (!copy)
		return false;
	for (tok = strtok_r(copy, ", \t\n", &save); tok && !hit;
	     tok = strtok_r(NULL, ", \t\n", &save))
		hit = !fnmatch(tok, name, 0);
	free(copy);
	return hit;
}

static bool match_file(const char *path, const char *name)
{
	char line[512], *test, *release, *hash, *save = NULL;
	struct bl_why why = { "" };
	struct utsname u;
	bool hit = false;
	FILE *f;

	/* Unreadable: nothing is declared, so regressions fail (closed). */
	f = bl_open_regular(path, 1L << 20, &why);
	if (!f) {
		fprintf(stderr, "# BINDLAB_XFAIL_FILE: %s\n", why.msg);
		return false;
	}
	if (uname(&u))
		u.release[0] = '\0';
	while (!hit && fgets(line, sizeof(line), f)) {
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		test = strtok_r(line, " \t\n", &save);
		if (!test)
			continue;
		release = strtok_r(NULL, " \t\n", &save);
		hit = !fnmatch(test, name, 0) &&
		      (!release || !fnmatch(release, u.release, 0));
	}
	fclose(f);
	return hit;
}

bool bl_known_regression(const char *test_name)
{
	const char *list = getenv("BINDLAB_XFAIL");
	const char *file = getenv("BINDLAB_XFAIL_FILE");

	return (list && match_list(list, test_name)) ||
	       (file && *file && match_file(file, test_name));
}
