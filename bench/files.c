// SPDX-License-Identifier: GPL-2.0
/*
 * The one writer of every file the companion writes (the reader,
 * bl_open_regular(), is in lib/files.c: the kselftests read files too).
 *
 * Rules: "-" is stdout; an existing destination must be a regular
 * file this user owns (devices, FIFOs, directories and sockets are
 * refused, because rename() would replace them, and as root /dev/null
 * with them); a symlink is followed, so its target is what gets replaced
 * and the link stays; nothing goes under the system's trees (/dev, /etc,
 * /usr...); and an output is never one of the run's inputs, however
 * spelled. The destination is checked before any work (bl_out_check(),
 * bl_out_check_inputs(), bl_out_dir_check(), bl_out_place_check()) so a long run cannot end in
 * "cannot write" and bad input leaves nothing behind; errors carry the
 * real errno. A write that the file size limit (SIGXFSZ ignored, so
 * EFBIG), a full disk or an I/O error stops is one error, and its
 * temporary file is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindlab.h"

static int kind_error(const struct stat *st, const char *path,
		      struct bl_why *why)
{
	const char *kind = S_ISDIR(st->st_mode) ? "a directory" :
			   S_ISFIFO(st->st_mode) ? "a FIFO" :
			   S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ?
			   "a device" : "not a regular file";

	return bl_why_set(why, EINVAL, "%s is %s: only regular files are written",
			  bl_printable(path), kind);
}

/*
 * The system's trees hold the system's files, never results: as root a
 * typo would replace /etc/passwd or a library as readily as a result.
 */
static int system_dir(const char *path, const char *real, struct bl_why *why)
{
	static const char * const sys[] = {
		"/dev", "/proc", "/sys", "/boot", "/etc", "/usr", "/bin",
		"/sbin", "/lib", "/lib32", "/lib64",
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(sys); i++) {
		n = strlen(sys[i]);
		if (!strncmp(real, sys[i], n) && (!real[n] || real[n] == '/'))
			return bl_why_set(why, EPERM,
					  "%s is under %s: results are not written there",
					  bl_printable(path), sys[i]);
	}
	return 0;
}

/*
 * An existing file or directory another user owns is not this run's
 * to replace, even when root may: it is someone's data, not a result.
 */
static int owned(const char *path, const struct stat *st, struct bl_why *why)
{
	if (st->st_uid == geteuid())
		return 0;
	return bl_why_set(why, EPERM,
			  "%s belongs to uid %u, not to this run (uid %u): not replaced",
			  bl_printable(path), (unsigned int)st->st_uid,
			  (unsigned int)geteuid());
}

/* A new name: in a writable directory outside the system's trees. */
static int new_name(const char *path, char *real, size_t len,
		    struct bl_why *why)
{
	char buf[PATH_MAX], *dir;
	struct stat st;

	if (!lstat(path, &st))	/* a dangling symlink: where would it go? */
		return bl_why_set(why, ENOENT, "%s is a dangling symlink",
				  bl_printable(path));
	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (stat(dir, &st))
		return bl_why_set(why, errno, "%s: its directory: %s",
				  bl_printable(path), strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bl_why_set(why, ENOTDIR, "%s: its directory is not a directory",
				  bl_printable(path));
	if (!realpath(dir, real))
		return bl_why_set(why, errno, "%s: its directory: %s",
				  bl_printable(path), strerror(errno));
	if (system_dir(path, real, why))
		return -EPERM;
	if (access(dir, W_OK | X_OK))
		return bl_why_set(why, errno, "%s: its directory: %s",
				  bl_printable(path), strerror(errno));
	snprintf(real, len, "%s", path);
	return 0;
}

/* The file a write to path would replace: symlinks resolved. */
static int out_target(const char *path, char *real, size_t len,
		      struct bl_why *why)
{
	bool again = false;
	char dir[PATH_MAX];
	struct stat st;

	if (!*path)
		return bl_why_set(why, EINVAL, "empty output file name");
	if (strlen(path) >= len)
		return bl_why_set(why, ENAMETOOLONG, "%s: file name too long",
				  bl_printable(path));
look:
	if (!stat(path, &st)) {
		if (!S_ISREG(st.st_mode))
			return kind_error(&st, path, why);
		/*
		 * Where it is named counts too: /dev/stdout and
		 * /proc/self/fd/1 resolve to whatever file stdout is.
		 */
		snprintf(real, len, "%s", path);
		if (realpath(dirname(real), dir) && system_dir(path, dir, why))
			return -EPERM;
		if (!realpath(path, real))
			return bl_why_set(why, errno, "%s: %s", bl_printable(path),
					  strerror(errno));
		if (system_dir(path, real, why))
			return -EPERM;
		return owned(path, &st, why);
	}
	if (errno != ENOENT)
		return bl_why_set(why, errno, "%s: %s", bl_printable(path),
				  strerror(errno));
	/*
	 * There now, not a symlink: another writer's rename came between
	 * the two looks (two runs into one file). Once more, as a file.
	 */
	if (!again && !lstat(path, &st) && !S_ISLNK(st.st_mode)) {
		again = true;
		goto look;
	}
	return new_name(path, real, len, why);
}

/*
 * A directory results go in (the lab's -o, run.sh --results): an
 * existing one is ours and outside the system's trees; a new one is made
 * with its parents (mkdir -p), so where the first of them would be made
 * counts: in a writable directory outside those trees. Emptiness is the
 * caller's to ask: run.sh --results keeps earlier runs.
 */
static int place(const char *path, struct bl_why *why)
{
	char first[PATH_MAX], up[PATH_MAX], real[PATH_MAX];
	struct stat st;
	const char *d;

	if (!*path)
		return bl_why_set(why, EINVAL, "empty output directory name");
	if (strlen(path) >= sizeof(first))
		return bl_why_set(why, ENAMETOOLONG, "%s: file name too long",
				  bl_printable(path));
	if (!stat(path, &st)) {
		if (!S_ISDIR(st.st_mode))
			return bl_why_set(why, ENOTDIR, "%s is not a directory",
					  bl_printable(path));
		if (!realpath(path, real))
			return bl_why_set(why, errno, "%s: %s",
					  bl_printable(path), strerror(errno));
		if (!strcmp(real, "/"))
			return bl_why_set(why, EPERM, "%s is the root directory: results are not written there",
					  bl_printable(path));
		if (system_dir(path, real, why) || owned(path, &st, why))
			return -EPERM;
		return 0;
	}
	if (errno != ENOENT)
		return bl_why_set(why, errno, "%s: %s", bl_printable(path),
				  strerror(errno));
	snprintf(first, sizeof(first), "%s", path);
	for (;;) {
		/* Once made, "x/.." is where x is: /tmp/new/../../etc is /etc. */
		snprintf(up, sizeof(up), "%s", first);
		d = basename(up);
		if (!strcmp(d, "..") || !strcmp(d, "."))
			return bl_why_set(why, EINVAL,
					  "%s: a new directory is named without . or ..",
					  bl_printable(path));
		snprintf(up, sizeof(up), "%s", first);
		d = dirname(up);
		if (!lstat(d, &st) || errno != ENOENT)
			break;
		snprintf(first, sizeof(first), "%s", d);
	}
	return new_name(first, real, sizeof(real), why);
}

/*
 * An output directory (BL_OUT_DIR) is filled with files of fixed names:
 * it must be new, or empty and ours and no symlink, so that no file in
 * it (a symlink to an input, say) is replaced through it.
 */
static int out_dir(const char *path, struct bl_why *why)
{
	struct dirent *e;
	struct stat st;
	int err;
	DIR *d;

	if (!lstat(path, &st) && !S_ISDIR(st.st_mode))
		return bl_why_set(why, ENOTDIR, "%s is not a directory (symlinks are not followed)",
				  bl_printable(path));
	err = place(path, why);
	if (err || lstat(path, &st))
		return err;
	d = opendir(path);
	if (!d)
		return bl_why_set(why, errno, "%s: %s", bl_printable(path),
				  strerror(errno));
	while ((e = readdir(d)) && (!strcmp(e->d_name, ".") ||
				    !strcmp(e->d_name, "..")))
		;
	closedir(d);
	if (e)
		return bl_why_set(why, ENOTEMPTY,
				  "%s is not empty: output directories are new or empty",
				  bl_printable(path));
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Whatever the spelling (a symlink, "..", a hard link), the same inode
 * is the same file: an output that is an input would replace what is
 * being read. An argument is looked at whole and, as NAME=FILE, after
 * its first '='; arguments that name no file are not inputs. (An output
 * directory is new or empty, so it holds no input.)
 */
static int not_an_input(const char *path, char *const *inputs, int ninputs,
			struct bl_why *why)
{
	const char *eq;
	struct stat out, in;
	int i;

	if (stat(path, &out))
		return 0;	/* a new name: no input can be it */
	for (i = 0; i < ninputs; i++) {
		eq = strchr(inputs[i], '=');
		if ((!stat(inputs[i], &in) && same_file(&in, &out)) ||
		    (eq && !stat(eq + 1, &in) && same_file(&in, &out)))
			return bl_why_set(why, EINVAL,
					  "output %s is a file this run reads: refused before any work",
					  bl_printable(path));
	}
	return 0;
}

/* One check for every writer; dir: the output is a directory. */
static int out_check(const char *path, bool dir, char *const *inputs,
		     int ninputs, struct bl_why *why)
{
	char real[PATH_MAX];
	int err;

	if (!dir && !strcmp(path, "-"))
		return 0;
	err = dir ? out_dir(path, why) : out_target(path, real, sizeof(real), why);
	if (err)
		return err;
	return not_an_input(path, inputs, ninputs, why);
}

int bl_out_check_inputs(const char *path, char *const *inputs, int ninputs,
			struct bl_why *why)
{
	return out_check(path, false, inputs, ninputs, why);
}

int bl_out_dir_check(const char *path, char *const *inputs, int ninputs,
		     struct bl_why *why)
{
	return out_check(path, true, inputs, ninputs, why);
}

int bl_out_place_check(const char *path, struct bl_why *why)
{
	return place(path, why);
}

int bl_out_check(const char *path, struct bl_why *why)
{
	return out_check(path, false, NULL, 0, why);
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

/*
 * Every signal that can end us from outside, not TERM, INT and HUP alone:
 * QUIT (^\), ALRM (timeout -s ALRM) and USR1 end a process as surely. A
 * fault's own signal is never held: it would not wait.
 */
void bl_hold_stop_signals(sigset_t *old)
{
	sigset_t stop;

	sigfillset(&stop);
	sigdelset(&stop, SIGSEGV);
	sigdelset(&stop, SIGBUS);
	sigdelset(&stop, SIGFPE);
	sigdelset(&stop, SIGILL);
	sigprocmask(SIG_BLOCK, &stop, old);
}

/* A reader never sees half a file, even if we are killed midway. */
int bl_file_write(const char *path, const char *data, size_t len,
		  struct bl_why *why)
{
	char real[PATH_MAX], tmp[PATH_MAX + 32];
	sigset_t old;
	int fd, err;

	/* Past RLIMIT_FSIZE: EFBIG and an error, not a silent death. */
	signal(SIGXFSZ, SIG_IGN);
	if (!strcmp(path, "-"))
		return write_stdout(data, len, why);
	err = out_target(path, real, sizeof(real), why);
	if (err)
		return err;
	/*
	 * A stop signal while the temporary exists (the fsync of a large
	 * run takes a while) would leave it behind: held until it is
	 * renamed or removed, then taken as it would have been.
	 */
	bl_hold_stop_signals(&old);
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", real);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return bl_why_set(why, err, "%s: %s", bl_printable(path),
				  strerror(err));
	}
	err = write_all(fd, data, len);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, real))
		err = -errno;
	if (err)
		unlink(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err)
		return bl_why_set(why, err, "%s: %s", bl_printable(path),
				  strerror(-err));
	return 0;
}

/*
 * A write error on stdout or stderr (a full disk, /dev/full, a closed
 * pipe reader, the file size limit) must fail the program: results that
 * were not delivered are not results, and the machine's fault is no
 * verdict (2, never 1). Registered with atexit().
 */
static void check_stdio(void)
{
	bool bad = fflush(stdout) || ferror(stdout);

	if (bad)
		fprintf(stderr, "%s: writing standard output failed\n",
			program_invocation_short_name);
	bad |= fflush(stderr) || ferror(stderr);
	if (bad)
		_exit(BL_EXIT_USAGE);
}

void bl_stdio_guard(void)
{
	static bool armed;

	/* A redirected stdout past RLIMIT_FSIZE: an error, not SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	/*
	 * A pipe nobody reads (| head -c1 gone): EPIPE, which check_stdio()
	 * turns into exit 2, not a SIGPIPE death a caller cannot tell from
	 * a crash. Nothing here execs: no child inherits the SIG_IGN.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (!armed)
		atexit(check_stdio);
	armed = true;
}
