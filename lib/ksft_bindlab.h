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
		ksft_print_msg("XFAIL %s: " fmt "\n", __name,		\
			       ##__VA_ARGS__);				\
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

#endif /* KSFT_BINDLAB_H */
