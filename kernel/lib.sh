# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers of the kernel lab scripts (build.sh, vm.sh, ab.sh,
# bisect.sh and tests/kernel_lab_test.sh). Sourced, never run.

BINDLAB_CACHE=${BINDLAB_CACHE:-$HOME/.cache/bindlab}
# Builds and VMs share two cores with timing-sensitive benchmarks.
BINDLAB_NICE=${BINDLAB_NICE:-19}
BL_KERNEL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # for the scripts that source this file
BL_REPO_DIR=$(cd "$BL_KERNEL_DIR/.." && pwd)
BL_PROG=${BL_PROG:-$(basename "$0")}

# The programs, as the Makefile lists them (make print-programs): sets
# BL_KSELFTESTS and BL_TOOLS, or logs why not and returns 1 (a harness
# error: each caller exits with its own code for that).
bl_programs()
{
	local lines

	lines=$(make -s --no-print-directory -C "$BL_REPO_DIR" print-programs 2> /dev/null)
	BL_KSELFTESTS=$(sed -n 1p <<< "$lines")
	# shellcheck disable=SC2034 # for the scripts that source this file
	BL_TOOLS=$(sed -n 2p <<< "$lines")
	[ -n "$BL_KSELFTESTS" ] && return 0
	bl_log "error: cannot list the programs (make -C $BL_REPO_DIR print-programs)"
	return 1
}

bl_log()
{
	echo "$BL_PROG: $*" >&2
}

# Bad command line: one line, exit 2 (bisect.sh overrides BL_USAGE_EXIT).
bl_usage_error()
{
	echo "$BL_PROG: $* (see --help)" >&2
	exit "${BL_USAGE_EXIT:-2}"
}

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
	[[ $1 =~ ^[0-9]+$ ]]
}

# Option value present and not another option: bl_need_arg OPT "$#" VALUE
bl_need_arg()
{
	if [ "$2" -lt 2 ] || [[ $3 == -* && $3 != - ]]; then
		bl_usage_error "$1 needs a value"
	fi
}

bl_short_hash()
{
	cksum | awk '{ printf "%08x\n", $1 }'
}

# Median, min and max of the numbers on stdin, one per line:
# prints "median min max n", or nothing for no input.
bl_median()
{
	sort -g | awk '{ v[NR] = $1 }
		END {
			if (!NR)
				exit
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f %.3f %.3f %d\n", m, v[1], v[NR], NR
		}'
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
bl_want_uint()
{
	if ! bl_is_uint "$2" || [ "$2" -lt "$3" ]; then
		bl_usage_error "$1 wants a whole number >= $3"
	fi
}

# Seconds between progress lines of a long build or VM (stderr): CI logs
# have no terminal, and ten quiet minutes look like a hang.
BINDLAB_PROGRESS=${BINDLAB_PROGRESS:-30}

# bl_wait_progress PID WHAT FUNC: wait for the background job PID, logging
# "WHAT: <FUNC's output>, N s" every BINDLAB_PROGRESS seconds; returns the
# job's exit status. A poll, not a ticker process: nothing of ours outlives
# the caller if it is killed.
bl_wait_progress()
{
	local pid=$1 what=$2 fn=$3 start=$SECONDS next

	next=$((SECONDS + BINDLAB_PROGRESS))
	while kill -0 "$pid" 2> /dev/null; do
		sleep 0.5
		if [ "$SECONDS" -ge "$next" ]; then
			bl_log "$what: $("$fn"), $((SECONDS - start)) s"
			next=$((SECONDS + BINDLAB_PROGRESS))
		fi
	done
	wait "$pid"
}
