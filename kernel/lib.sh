# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers of the kernel lab scripts (build.sh, vm.sh, ab.sh,
# bisect.sh and tests/kernel_lab_test.sh). Sourced, never run.

# First: its descriptor check comes before anything here needs one.
# shellcheck source-path=SCRIPTDIR source=../scripts/strict.sh
. "${BASH_SOURCE[0]%/*}/../scripts/strict.sh" || exit 2
# Empty with HOME unset: bl_check_dir refuses it, in the script's exit code.
BINDLAB_CACHE=${BINDLAB_CACHE:-${HOME:+$HOME/.cache/bindlab}}
# A usage error's exit code is the script's, never from the environment:
# under `git bisect run` a mistyped step must abort the bisect (128), not
# mark commits bad.
BL_USAGE_EXIT=2
[ "${0##*/}" != bisect.sh ] || BL_USAGE_EXIT=128
# Builds and VMs share two cores with timing-sensitive benchmarks.
BINDLAB_NICE=${BINDLAB_NICE:-19}
BL_KERNEL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # for the scripts that source this file
BL_REPO_DIR=$(cd "$BL_KERNEL_DIR/.." && pwd)
BL_PROG=${BL_PROG:-$(basename "$0")}
# shellcheck source-path=SCRIPTDIR source=../scripts/args.sh
. "$BL_REPO_DIR/scripts/args.sh"

# The programs, as the Makefile lists them (make print-programs): sets
# BL_KSELFTESTS and BL_TOOLS, or logs why not and returns 1 (a harness
# error: each caller exits with its own code for that).
bl_programs()
{
	local lines

	lines=$(make -s --no-print-directory -C "$BL_REPO_DIR" print-programs 2> /dev/null)
	# lib.mk prefixes TEST_GEN_PROGS with $(OUTPUT)/: the names are what
	# the collection installs under net/bindlab, so keep the base names.
	BL_KSELFTESTS=$(sed -n 1p <<< "$lines" | xargs -r -n 1 basename | xargs)
	# shellcheck disable=SC2034 # for the scripts that source this file
	BL_TOOLS=$(sed -n 2p <<< "$lines" | xargs -r -n 1 basename | xargs)
	[ -n "$BL_KSELFTESTS" ] && return 0
	bl_log "error: cannot list the programs (make -C $BL_REPO_DIR print-programs)"
	return 1
}

bl_log()
{
	echo "$BL_PROG: $*" >&2
}

# Bad command line: one line, exit 2 (bisect.sh: 128).
bl_usage_error()
{
	# Every word may come from an argument or the environment: escaped.
	echo "$BL_PROG: $(bl_esc "$*") (see --help)" >&2
	exit "$BL_USAGE_EXIT"
}

[ -n "$BINDLAB_CACHE" ] || bl_usage_error "HOME is unset: set BINDLAB_CACHE"

bl_die()
{
	local rc=$1

	shift
	bl_log "error: $*"
	exit "$rc"
}

bl_nice()
{
	nice -n "$BINDLAB_NICE" "$@"
}

bl_is_uint()
{
	[[ $1 =~ ^(0|[1-9][0-9]*)$ ]]
}

# Option value present, not empty (`-o ""` would fall back to a default
# silently) and not another option: bl_need_arg OPT "$#" VALUE
bl_need_arg()
{
	if [ "$2" -lt 2 ] || [ -z "$3" ] || [[ $3 == -* && $3 != - ]]; then
		bl_usage_error "$1 needs a value"
	fi
}

bl_short_hash()
{
	cksum | awk '{ printf "%08x\n", $1 }'
}

# bl_link_tree SRC DEST: DEST (made anew) holds SRC's files as hard links,
# .git left out; callers unshare (copy) a file before they change it.
bl_link_tree()
{
	local f

	rm -rf "$2"
	mkdir -p "$2"
	for f in "$1"/* "$1"/.[!.]*; do
		[ -e "$f" ] || continue
		[ "$(basename "$f")" = .git ] && continue
		cp -al "$f" "$2/"
	done
}

# bl_want_uint OPTION VALUE MIN: a whole number >= MIN, else a usage error.
# No upper bound is promised, but one too big for the shell's arithmetic
# (over 18 digits, leading zeros aside) is refused, never half-checked.
bl_want_uint()
{
	if ! bl_is_uint "$2" || ! bl_num "$2" "$3" 999999999999999999; then
		bl_usage_error "$1 wants a whole number from $3 to 999999999999999999"
	fi
}

# Seconds between progress lines of a long build or VM (stderr): CI logs
# have no terminal, and ten quiet minutes look like a hang.
BINDLAB_PROGRESS=${BINDLAB_PROGRESS:-30}

# bl_wait_progress PID WHAT FUNC [TICK]: wait for the background job PID,
# logging "WHAT: <FUNC's output>, N s" every BINDLAB_PROGRESS seconds, and
# calling TICK (seconds since the start as its argument) every half second
# when given; returns the job's exit status. A poll, not a ticker process:
# nothing of ours outlives the caller if it is killed.
bl_wait_progress()
{
	local pid=$1 what=$2 fn=$3 tick=${4:-} start=$SECONDS next

	next=$((SECONDS + BINDLAB_PROGRESS))
	while kill -0 "$pid" 2> /dev/null; do
		sleep 0.5
		[ -z "$tick" ] || "$tick" $((SECONDS - start))
		if [ "$SECONDS" -ge "$next" ]; then
			bl_log "$what: $("$fn"), $((SECONDS - start)) s"
			next=$((SECONDS + BINDLAB_PROGRESS))
		fi
	done
	wait "$pid"
}

# bl_check_env: the knobs every lab script reads, checked before any work
# (a garbage BINDLAB_NICE would otherwise fail the first nice, mid-build,
# and look like a failure of the kernel under test).
bl_check_env()
{
	bl_num "$BINDLAB_NICE" -20 19 ||
		bl_usage_error "BINDLAB_NICE wants a whole number in [-20, 19], not '$BINDLAB_NICE'"
	bl_num "$BINDLAB_PROGRESS" 1 86400 ||
		bl_usage_error "BINDLAB_PROGRESS wants seconds in [1, 86400], not '$BINDLAB_PROGRESS'"
}

# bl_check_dir WHAT DIR: DIR exists or can be made, is ours and writable.
# Root writes anywhere: a directory of another user would end up with
# root's files in it, so ownership is checked, not only access.
bl_check_dir()
{
	local what=$1 dir=$2 probe

	bl_dest_dir "$what" "$dir"
	mkdir -p "$dir" 2> /dev/null || bl_usage_error "$what: cannot create $dir"
	[ -O "$dir" ] || bl_usage_error "$what: $dir belongs to another user ($(stat -c %U "$dir"))"
	probe=$(mktemp "$dir/.bindlab-probe.XXXXXX" 2> /dev/null) ||
		bl_usage_error "$what: $dir is not writable"
	rm -f "$probe"
}

# bl_dest_dir WHAT DIR [empty]: results may go in DIR, by the companion's
# one rule (bench/files.c), asked before anything is made: never under
# /etc, /dev, /usr..., never another user's; with "empty", an existing
# DIR holds nothing (bl_own_dir's rule, asked early: BINDLAB_CHECK_ARGS).
# Writes nothing.
bl_dest_dir()
{
	local why

	[ -x "$BL_REPO_DIR/bindlab_results" ] ||
		bl_usage_error "$1: $BL_REPO_DIR/bindlab_results is not built (make -C $BL_REPO_DIR)"
	why=$("$BL_REPO_DIR/bindlab_results" dest --dir -- "$2" 2>&1) ||
		bl_usage_error "$1: ${why#*: }"
	[ "${3:-}" != empty ] || [ ! -d "$2" ] || [ -z "$(ls -A -- "$2" 2> /dev/null)" ] ||
		bl_usage_error "$1: $2 already holds files (an earlier run's?): give a new or empty directory"
}

# bl_own_dir WHAT DIR [next]: this run's own output directory, in
# BL_OWN_DIR (absolute). DIR is made now (its parents as needed), or is
# an empty directory of ours; with "next", the first of DIR, DIR.2,
# DIR.3, ... that mkdir makes, so that steps sharing DIR get one each.
# One that holds anything is refused: files an earlier run left there
# would be read as this run's. A flock on it, held by the caller until
# it ends, keeps a concurrent run from taking the same empty directory.
bl_own_dir()
{
	local what=$1 dir=$2 next=${3:-} try n=1 fd held

	[ "$dir" = / ] || dir=${dir%/}
	bl_dest_dir "$what" "$dir"
	mkdir -p -- "$(dirname -- "$dir")" 2> /dev/null ||
		bl_usage_error "$what: cannot create $(dirname -- "$dir")"
	try=$dir
	while ! mkdir -- "$try" 2> /dev/null && [ -n "$next" ] && [ -e "$try" ]; do
		n=$((n + 1))
		[ "$n" -le 1000 ] || bl_usage_error "$what: $dir.2 to $dir.1000 all exist"
		try=$dir.$n
	done
	[ -d "$try" ] || bl_usage_error "$what: cannot create $try"
	[ -O "$try" ] || bl_usage_error "$what: $try belongs to another user ($(stat -c %U -- "$try"))"
	{ exec {fd}< "$try"; } 2> /dev/null || bl_usage_error "$what: cannot open $try"
	flock -n "$fd" || bl_usage_error "$what: $try is another run's, still running"
	held=$(ls -A -- "$try" 2> /dev/null) || bl_usage_error "$what: cannot list $try"
	[ -z "$held" ] ||
		bl_usage_error "$what: $try already holds files (an earlier run's?): give a new or empty directory"
	BL_OWN_DIR=$(cd -- "$try" && pwd)
	bl_check_dir "$what" "$BL_OWN_DIR"
}

# bl_kbuild_path WHAT PATH: kbuild stops on a source tree with a blank or
# a ':' ("source directory cannot contain spaces or colons"), and an O=
# one breaks on them too. The same on every commit: refused before any
# build, never a build failure read as the tree's (bisect's 125, a
# mutant's build-failed).
bl_kbuild_path()
{
	local path

	path=$(realpath -m -- "$2")
	[[ $path != *[[:space:]:]* ]] ||
		bl_usage_error "$1: kbuild takes no blank or ':' in a path: $path"
}

# --- processes ---------------------------------------------------------------
# Nothing a lab script starts may outlive it, whatever signal ends it. A
# signal it can catch (INT, TERM, HUP) runs bl_kill_children; against
# SIGKILL, long-lived children run in a PID namespace of their own whose
# init has PR_SET_PDEATHSIG (unshare --kill-child), as has unshare itself
# (setpriv): the script's death kills unshare, that kills the init, and
# the kernel kills everything else in the namespace, grandchildren of make
# included. Where namespaces are not allowed, only the direct child dies.
bl_isolate_init()
{
	[ -z "${BL_ISOLATE+set}" ] || return 0
	BL_ISOLATE=(setpriv --pdeathsig KILL --)
	if unshare --pid --fork --kill-child=KILL -- true 2> /dev/null; then
		# The namespace's init is a shell that only waits: an init gets
		# no signal it has no handler for, so the command itself must not
		# be PID 1, or a TERM to it would go unheard.
		BL_ISOLATE+=(unshare --pid --fork --kill-child=KILL -- /bin/sh -c '"$@" & wait $!' bl-init)
	else
		bl_log "no PID namespace here: a SIGKILL may leave grandchildren running"
	fi
}

# bl_spawn CMD...: CMD in the background, isolated as above; its pid in
# BL_CHILD. A function run in the foreground: the job's parent is this
# script, which PR_SET_PDEATHSIG needs. Redirect the call to redirect it.
bl_spawn()
{
	bl_isolate_init
	"${BL_ISOLATE[@]}" "$@" &
	BL_CHILD=$!
}

# bl_run CMD...: bl_spawn and wait; CMD's status. Unlike a foreground
# command, the wait lets a trapped signal in at once.
bl_run()
{
	local rc=0

	bl_spawn "$@"
	wait "$BL_CHILD" || rc=$?
	BL_CHILD=
	return "$rc"
}

# bl_stop_tree PID: stop PID's descendants, each before its children are
# listed so that none forks a new one unseen; they go to BL_TREE.
bl_stop_tree()
{
	local c

	# No child is no error: scripts that trap ERR must not hear of it.
	for c in $(pgrep -P "$1" 2> /dev/null || true); do
		kill -STOP "$c" 2> /dev/null || continue
		BL_TREE+=("$c")
		bl_stop_tree "$c"
	done
}

# bl_kill_children: TERM to every descendant (make removes its
# half-written targets, timeout passes it to qemu), 3 s to go, then KILL.
bl_kill_children()
{
	local n

	BL_TREE=()
	bl_stop_tree "$$"
	[ ${#BL_TREE[@]} -gt 0 ] || return 0
	kill -TERM "${BL_TREE[@]}" 2> /dev/null || true
	kill -CONT "${BL_TREE[@]}" 2> /dev/null || true
	for ((n = 0; n < 30; n++)); do
		kill -0 "${BL_TREE[@]}" 2> /dev/null || return 0
		sleep 0.1
	done
	kill -KILL "${BL_TREE[@]}" 2> /dev/null || true
	return 0
}

# bl_trap_signals: INT, TERM and HUP end the script with 128+N, its
# process tree gone first; the EXIT trap (the script's own) still runs.
bl_trap_signals()
{
	local s

	for s in INT TERM HUP; do
		# shellcheck disable=SC2064 # $s now, on purpose
		trap "bl_on_signal $s" "$s"
	done
}

# shellcheck disable=SC2317 # called from the traps of bl_trap_signals
bl_on_signal()
{
	trap '' INT TERM HUP
	bl_log "got SIG$1: stopping every process of this run"
	bl_kill_children
	exit $((128 + $(kill -l "$1")))
}

# bl_start_time PID: the process's start time (clock ticks since boot),
# which tells a live owner from a new process that got a dead one's PID.
bl_start_time()
{
	# A process that is gone has none: empty, and no error for ERR traps.
	sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d ' ' -f 20 || true
}

# bl_lock FD FILE WHAT: flock FILE on FD, writing "PID START-TIME" into
# it once held. The kernel drops a flock when the last holder of the open
# file dies, so a dead owner's lock is taken over by itself; the record
# says whose it was. Waits in 1 s steps so that a signal gets in.
bl_lock()
{
	local fd=$1 file=$2 what=$3 owner=() said=0 rc

	while :; do
		rc=0
		flock -E 200 -w 1 "$fd" || rc=$?
		[ "$rc" = 200 ] || break
		[ "$said" = 0 ] || continue
		said=1
		read -r -a owner < "$file" 2> /dev/null || owner=()
		if [ ${#owner[@]} = 2 ] && [ "$(bl_start_time "${owner[0]}")" = "${owner[1]}" ]; then
			bl_log "$what: waiting for PID ${owner[0]}, which holds $file"
		else
			bl_log "$what: waiting for $file (its recorded owner ${owner[0]:-?} is gone: a process it left holds it)"
		fi
	done
	[ "$rc" = 0 ] || bl_die 3 "$what: flock $file failed"
	read -r -a owner < "$file" 2> /dev/null || owner=()
	if [ ${#owner[@]} = 2 ] && [ "$(bl_start_time "${owner[0]}")" != "${owner[1]}" ]; then
		bl_log "$what: took over $file from PID ${owner[0]}, which died holding it"
	fi
	echo "$$ $(bl_start_time $$)" > "$file"
}

# bl_unlock FD FILE: an owner that ends as planned clears its record
# before it lets go; a record left behind names one that died holding it.
bl_unlock()
{
	local owner=()

	read -r -a owner < "$2" 2> /dev/null || owner=()
	[ "${owner[0]:-}" != "$$" ] || : > "$2"
	eval "exec $1>&-"
}
