/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftests of this directory share on top of
 * kselftest_harness.h: a private network and PID namespace per test, and
 * the one reading of KSFT_MACHINE_SLOW. Public harness API only.
 */
#ifndef KSFT_BINDLAB_H
#define KSFT_BINDLAB_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * KSFT_MACHINE_SLOW=yes (netdev's debug runners, emulators): smaller
 * work, same verdicts. Unset, empty or "no": not slow. Any other value
 * is a mistake nobody should have to guess at: the program stops with
 * one line (exit 2) before the harness starts.
 */
static inline bool bl_machine_slow(void)
{
	const char *s = getenv("KSFT_MACHINE_SLOW");

	return s && !strcmp(s, "yes");
}

static void __attribute__((constructor)) bl_machine_slow_check(void)
{
	const char *s = getenv("KSFT_MACHINE_SLOW");

	if (s && *s && strcmp(s, "yes") && strcmp(s, "no")) {
		fprintf(stderr, "KSFT_MACHINE_SLOW: '%s' is neither yes nor no\n",
			bl_printable(s));
		exit(BL_EXIT_USAGE);
	}
}

/*
 * Descriptors for the tests that open sockets without a bl_fd_reserve()
 * of their own (port_choice's PC_MAX_OPS and its listeners the most).
 * Those a caller left open count against RLIMIT_NOFILE too: short of
 * room, sockets would fail midway as kernel tests. The program is then
 * one SKIP with the reason (exit 4), before the harness starts.
 */
#define BL_KSFT_FDS	32

/*
 * The harness forks each test (since 6.9 a process that waits for it,
 * then the test), the test its watcher and its PID namespace's init:
 * short of them under RLIMIT_NPROC, every test would be "not ok" (ERROR
 * SPAWNING TEST CHILD) for the machine's limit. One SKIP instead.
 */
#define BL_KSFT_PROCS	4

/*
 * A caller that closed stdin or stderr left its number free: the next
 * socket would get it, and the harness would print into a socket under
 * test (EPIPE killed the test: a kernel FAIL). /dev/null holds the number
 * instead; open() returns the lowest free one.
 */
static inline void bl_std_fds_hold(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/*
 * The harness's exit status says nothing of its own output: with stdout
 * on a full disk every result line is lost and it still exits 0. A KTAP
 * lost is no verdict, pass least of all: an error (2), the reason on
 * stderr. The tests' children leave by _exit(): only the harness gets here.
 */
static void bl_stdout_check(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "stdout: %s: the results are lost, no verdict\n",
			strerror(errno ? errno : EIO));
		_exit(BL_EXIT_USAGE);
	}
}

static void __attribute__((constructor)) bl_fd_headroom_check(void)
{
	struct bl_why why = { "" };

	/*
	 * A closed stdout loses every result as a full disk does: no verdict
	 * (2) before any test, not /dev/null's silent pass.
	 */
	if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
		fprintf(stderr, "stdout: closed: the results would be lost, no verdict\n");
		exit(BL_EXIT_USAGE);
	}
	atexit(bl_stdout_check);
	bl_std_fds_hold();
	if (bl_fd_reserve(BL_KSFT_FDS, &why) ||
	    bl_fork_reserve(BL_KSFT_PROCS, "a test, its watcher and its PID namespace's init",
			    &why))
		ksft_exit_skip("%s\n", why.msg);
}

/*
 * Enter a fresh network namespace, and a PID namespace that dies with the
 * test; SKIP with the reason when either is impossible. statement
 * (usually "return") runs after the SKIP, as with SKIP().
 */
#define BL_ENTER_NETNS(statement) do {					\
	struct bl_why __why = { "" };					\
	if (bl_netns_enter(&__why) || bl_pidns_enter(&__why))		\
		SKIP(statement, "%s", __why.msg);			\
} while (0)

#endif /* KSFT_BINDLAB_H */
