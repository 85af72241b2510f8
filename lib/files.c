// SPDX-License-Identifier: GPL-2.0
/*
 * The one writer and the one reader of every file the suite touches.
 *
 * Writer rules: "-" is stdout; an existing destination must be a regular
 * file (devices, FIFOs, directories and sockets are refused, because
 * rename() would replace them, and as root /dev/null with them); a
 * symlink is followed, so its target is what gets replaced and the link
 * stays. The destination is checked before any work (bl_out_check()) so
 * a long run cannot end in "cannot write"; errors carry the real errno.
 *
 * Reader rules: only regular files, at most a given size, opened without
 * blocking, so that /dev/zero or a FIFO given as input fails at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindlab_core.h"

static int kind_error(const struct stat *st, const char *path,
		      struct bl_why *why)
{
	const char *kind = S_ISDIR(st->st_mode) ? "a directory" :
			   S_ISFIFO(st->st_mode) ? "a FIFO" :
			   S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ?
			   "a device" : "not a regular file";

	return bl_why_set(why, EINVAL, "%s is %s: only regular files are written",
			  path, kind);
}

/* /dev, /proc and /sys hold the system's files, never results. */
static int system_dir(const char *path, const char *real, struct bl_why *why)
{
	static const char * const sys[] = { "/dev", "/proc", "/sys" };
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(sys); i++) {
		n = strlen(sys[i]);
		if (!strncmp(real, sys[i], n) && (!real[n] || real[n] == '/'))
			return bl_why_set(why, EPERM,
					  "%s is under %s: results are not written there",
					  path, sys[i]);
	}
	return 0;
}

/* The file a write to path would replace: symlinks resolved. */
static int out_target(const char *path, char *real, size_t len,
		      struct bl_why *why)
{
	char buf[PATH_MAX], *dir;
	struct stat st;

	if (!*path)
		return bl_why_set(why, EINVAL, "empty output file name");
	if (strlen(path) >= len)
		return bl_why_set(why, ENAMETOOLONG, "%s: file name too long", path);
	if (!stat(path, &st)) {
		if (!S_ISREG(st.st_mode))
			return kind_error(&st, path, why);
		if (!realpath(path, real))
			return bl_why_set(why, errno, "%s: %s", path, strerror(errno));
		return system_dir(path, real, why);
	}
	if (errno != ENOENT)
		return bl_why_set(why, errno, "%s: %s", path, strerror(errno));
	if (!lstat(path, &st))	/* a dangling symlink: where would it go? */
		return bl_why_set(why, ENOENT, "%s is a dangling symlink", path);
	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (stat(dir, &st))
		return bl_why_set(why, errno, "%s: directory %s: %s", path, dir,
				  strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bl_why_set(why, ENOTDIR, "%s: %s is not a directory",
				  path, dir);
	if (!realpath(dir, real))
		return bl_why_set(why, errno, "%s: %s", dir, strerror(errno));
	if (system_dir(path, real, why))
		return -EPERM;
	if (access(dir, W_OK | X_OK))
		return bl_why_set(why, errno, "%s: directory %s: %s", path, dir,
				  strerror(errno));
	snprintf(real, len, "%s", path);
	return 0;
}

int bl_out_check(const char *path, struct bl_why *why)
{
	char real[PATH_MAX];

	if (!strcmp(path, "-"))
		return 0;
	return out_target(path, real, sizeof(real), why);
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Where "-" goes once bl_stdout_machine() moved the text to stderr. */
static int machine_fd = -1;

void bl_stdout_machine(void)
{
	fflush(stdout);
	machine_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (machine_fd >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
}

static int write_stdout(const char *data, size_t len, struct bl_why *why)
{
	int err = 0;

	if (machine_fd >= 0)
		err = write_all(machine_fd, data, len);
	else if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
		err = errno ? -errno : -EIO;
	if (err)
		return bl_why_set(why, err, "standard output: %s", strerror(-err));
	return 0;
}

/* A reader never sees half a file, even if we are killed midway. */
int bl_file_write(const char *path, const char *data, size_t len,
		  struct bl_why *why)
{
	char real[PATH_MAX], tmp[PATH_MAX + 32];
	int fd, err;

	if (!strcmp(path, "-"))
		return write_stdout(data, len, why);
	err = out_target(path, real, sizeof(real), why);
	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", real);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return bl_why_set(why, errno, "%s: %s", tmp, strerror(errno));
	err = write_all(fd, data, len);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, real))
		err = -errno;
	if (err) {
		unlink(tmp);
		return bl_why_set(why, err, "%s: %s", path, strerror(-err));
	}
	return 0;
}

FILE *bl_open_regular(const char *path, long max_bytes, struct bl_why *why)
{
	struct stat st;
	FILE *f;
	int fd;

	/* O_NONBLOCK: a FIFO must not hang us before fstat() refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		bl_why_set(why, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > max_bytes) {
		if (fstat(fd, &st))
			bl_why_set(why, errno, "%s: %s", path, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			bl_why_set(why, EINVAL, "%s is not a regular file", path);
		else
			bl_why_set(why, EFBIG, "%s is larger than %ld bytes",
				   path, max_bytes);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, 0);
	f = fdopen(fd, "r");
	if (!f) {
		bl_why_set(why, errno, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

/*
 * A write error on stdout or stderr (a full disk, /dev/full, a closed
 * pipe reader) must fail the program: results that were not delivered
 * are not results. Registered with atexit(); turns the exit status into
 * BL_EXIT_FAIL.
 */
static void check_stdio(void)
{
	bool bad = fflush(stdout) || ferror(stdout);

	if (bad)
		fprintf(stderr, "error: writing standard output failed\n");
	bad |= fflush(stderr) || ferror(stderr);
	if (bad)
		_exit(BL_EXIT_FAIL);
}

void bl_stdio_guard(void)
{
	static bool armed;

	if (!armed)
		atexit(check_stdio);
	armed = true;
}
