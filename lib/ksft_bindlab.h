/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftest programs of the suite share on top of
 * kselftest_harness.h: a private namespace per test and the verdict of a
 * measured regression (FAIL, or XFAIL when the user declared it known).
 */
#ifndef KSFT_BINDLAB_H
#define KSFT_BINDLAB_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "bindlab_core.h"

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
 * Harness options only, no stray word ("tw_reuse_loopback chrun" must not
 * run the suite), and a filter that selects at least one test: a bisect
 * step that ran nothing must not call a commit good. 0, or the one-line
 * error in why.
 */
static inline int bl_harness_check_args(int argc, char **argv,
					struct bl_why *why)
{
	struct __fixture_variant_metadata no_variant = { .name = "" }, *v;
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	int c, n = 0;

	/* The harness has no long options; getopt() would split them up. */
	for (c = 1; c < argc && strcmp(argv[c], "--"); c++)
		if (!strncmp(argv[c], "--", 2))
			return bl_why_set(why, EINVAL, "unknown option %s",
					  argv[c]);
	opterr = 0;
	optind = 1;
	while ((c = getopt(argc, argv, "+:F:f:V:v:t:T:r:")) != -1)
		if (bl_getopt_error(c, argv, why))
			return -EINVAL;
	if (optind < argc)
		return bl_why_set(why, EINVAL, "unknown subcommand or argument '%s'",
				  argv[optind]);
	for (f = __fixture_list; f; f = f->next)
		for (v = f->variant ?: &no_variant; v; v = v->next)
			for (t = f->tests; t; t = t->next)
				n += test_enabled(argc, argv, f, v, t);
	optind = 1;
	if (!n)
		return bl_why_set(why, EINVAL, "the filter selects no test (see -l)");
	return 0;
}

/* The harness below the watcher of bl_own_children(). */
static pid_t bl_harness_child;

static inline void bl_kill_child(int sig)
{
	/* PID 1 of a namespace ignores what it has no handler for. */
	if (bl_harness_child > 0)
		kill(bl_harness_child, SIGKILL);
}

/*
 * The harness and every test it forks live in a PID namespace of their
 * own, below a watcher that dies with its parent: whatever ends the
 * program (a signal, the kselftest runner's timeout, SIGKILL of any of
 * them), the namespace's init dies and the kernel kills every test with
 * it. Returns in the harness (pid 1 there); the watcher never returns.
 * Without PID namespaces (an old or tiny kernel) the harness runs as is.
 */
static inline void bl_own_children(void)
{
	pid_t parent = getppid();
	int status, sig;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(KSFT_FAIL);
	if (unshare(CLONE_NEWPID))
		return;
	fflush(NULL);
	bl_harness_child = fork();
	if (bl_harness_child < 0)
		return;
	if (!bl_harness_child) {
		/* Our parent is outside the namespace: getppid() says 0. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(KSFT_FAIL);
		return;
	}
	for (sig = 1; sig < 32; sig++)
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
		    sig == SIGQUIT || sig == SIGPIPE)
			signal(sig, bl_kill_child);
	while (waitpid(bl_harness_child, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	_exit(KSFT_FAIL);
}

/*
 * Every test needs a namespace of its own: when none can be had, one SKIP
 * line with the reason (exit 4) says more than hundreds. The main process
 * stays in the namespace it made; the tests make theirs from there.
 */
static inline int bl_harness_main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 :
			   argv[0];
	struct bl_why why = { "" };
	int i, c;

	bl_stdio_guard();
	/* A long option is an error below: getopt() would read --help as -h. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--", 2))
			break;
	/*
	 * As getopt() sees them: in "-T -l" the -l is a test's name, and
	 * after an unknown option the one-line error below, not the usage.
	 */
	opterr = 0;
	while ((i == argc || !strcmp(argv[i], "--")) &&
	       (c = getopt(argc, argv, "+:hlF:f:V:v:t:T:r:")) != -1 &&
	       c != '?' && c != ':')
		if (c == 'h' || c == 'l') {
			optind = 1;
			return test_harness_run(argc, argv);
		}
	optind = 1;
	if (bl_harness_check_args(argc, argv, &why)) {
		fprintf(stderr, "%s: %s\n", prog, why.msg);
		return BL_EXIT_USAGE;
	}
	if (bl_check_args_only())
		return BL_EXIT_PASS;
	if (bl_netns_enter(&why)) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why.msg);
	}
	bl_own_children();
	return test_harness_run(argc, argv);
}

#endif /* KSFT_BINDLAB_H */
