/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftest programs of the suite share on top of
 * kselftest_harness.h: a private namespace per test and the verdict of a
 * measured regression (FAIL, or XFAIL when the user declared it known).
 */
#ifndef KSFT_BINDLAB_H
#define KSFT_BINDLAB_H

#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "bindlab.h"

/*
 * TEST_F()'s wrapper in kselftest_harness.h keeps fork()'s result across
 * setjmp(); gcc -Wextra flags it in some tests, depending on inlining.
 */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

/* A message line that survives the harness's _exit() of the test. */
#define BL_NOTE(fmt, ...) do {						\
	ksft_print_msg(fmt "\n", ##__VA_ARGS__);			\
	fflush(stdout);							\
} while (0)

/* KSFT_MACHINE_SLOW=yes: debug kernels and emulators, loosen timing. */
static inline bool bl_machine_slow(void)
{
	const char *s = getenv("KSFT_MACHINE_SLOW");

	return s && *s && strcmp(s, "no") && strcmp(s, "0");
}

static inline const char *
bl_variant_name(const struct __test_metadata *m, const void *variant)
{
	const struct __fixture_variant_metadata *v;

	for (v = m->fixture->variant; v; v = v->next)
		if (v->data == variant)
			return v->name;
	return "";
}

/* fixture.variant.test, as the TAP lines print it. */
#define BL_TEST_NAME(buf)						\
	snprintf(buf, sizeof(buf), "%s%s%s.%s", _metadata->fixture->name,\
		 *bl_variant_name(_metadata, variant) ? "." : "",	\
		 bl_variant_name(_metadata, variant), _metadata->name)

/*
 * Enter a fresh namespace; SKIP with the reason when that is impossible.
 * statement (usually "return") runs after the SKIP, as with SKIP().
 */
#define BL_ENTER_NETNS(statement) do {					\
	struct bl_why __why = { "" };					\
	if (bl_netns_enter(&__why))					\
		SKIP(statement, "%s", __why.msg);			\
} while (0)

/*
 * The test measured a regression. Declared known: XFAIL with the figures.
 * Otherwise a failure carrying the message a maintainer can act on.
 * statement (usually "return") runs after either, as with SKIP().
 */
#define BL_REGRESSION(statement, fmt, ...) do {				\
	char __name[256];						\
	BL_TEST_NAME(__name);						\
	if (bl_known_regression(__name)) {				\
		snprintf(_metadata->results->reason,			\
			 sizeof(_metadata->results->reason),		\
			 "known regression: " fmt, ##__VA_ARGS__);	\
		BL_NOTE("XFAIL %s: " fmt, __name, ##__VA_ARGS__);	\
		_metadata->exit_code = KSFT_XFAIL;			\
	} else {							\
		TH_LOG(fmt, ##__VA_ARGS__);				\
		_metadata->exit_code = KSFT_FAIL;			\
	}								\
	statement;							\
} while (0)

/* No regression measured: a declared one did not happen (XPASS = FAIL). */
#define BL_NO_REGRESSION() do {						\
	char __name[256];						\
	BL_TEST_NAME(__name);						\
	if (bl_known_regression(__name)) {				\
		TH_LOG("%s is declared a known regression but passed: "	\
		       "update BINDLAB_XFAIL / BINDLAB_XFAIL_FILE", __name);\
		_metadata->exit_code = KSFT_FAIL;			\
	}								\
} while (0)

/*
 * Every test needs a namespace of its own: when none can be had, one SKIP
 * line with the reason (exit 4) says more than hundreds. The main process
 * stays in the namespace it made; the tests make theirs from there.
 */
static inline int bl_harness_main(int argc, char **argv)
{
	struct bl_why why = { "" };
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			return test_harness_run(argc, argv);
	if (bl_netns_enter(&why)) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why.msg);
	}
	return test_harness_run(argc, argv);
}

#endif /* KSFT_BINDLAB_H */
