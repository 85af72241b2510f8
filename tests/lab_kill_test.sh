#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kill matrix of the kernel lab: each of build.sh, vm.sh, bisect.sh and
# ab.sh, in each long phase (make running, a guest running), gets SIGTERM,
# SIGINT, SIGHUP or SIGKILL, to its own PID only (what a CI runner or a
# user's kill does). After it: no process it started is left (every
# descendant carries a tag in its environment, so a reparented one is
# found too), the build lock is free, and nothing half made is left; after
# a SIGKILL, which no script can catch, the next run takes the lock over
# and clears what the killed one staged.
#
# A fake kernel tree whose build sleeps and a fake qemu whose guest sleeps
# stand in for the real ones (tests/lab_fakes.sh). TAP; exit 0 when every
# check passed, 1 otherwise. About 3 minutes; LAB_KILL_ONLY=GLOB runs the
# cells whose name (SCRIPT.PHASE.SIGNAL, e.g. 'bisect.*.TERM') matches.

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
K=$here/kernel
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/lab_fakes.sh
. "$here/tests/lab_fakes.sh"

FAKE=$(mktemp -d "${TMPDIR:-/tmp}/lab-kill.XXXXXX")
trap 'rm -rf "$FAKE"' EXIT
export KSFT_DIR=${KSFT_DIR:-$HOME/.cache/bindlab/ksft/tools/testing/selftests}
export BINDLAB_CCACHE=0 BINDLAB_PROGRESS=30 PATH=$FAKE/bin:$PATH
unset BINDLAB_NICE BINDLAB_ACCEL FAKE_QEMU_COUNT

echo "TAP version 13"
progs=$(make -s --no-print-directory -C "$here" print-programs 2> /dev/null | xargs -r -n 1 basename | xargs)
if [ -z "$progs" ]; then
	tap_skip lab_kill "the programs are not built (make -C $here)"
	tap_done
	exit
fi
# Dirty trees (an untracked file) have no cached image: every run builds.
fake_tree "$FAKE/slow"
echo 97 > "$FAKE/slow/fake-build-seconds"
fake_tree "$FAKE/fast"
touch "$FAKE/fast/dirty"
# shellcheck disable=SC2086 # the program names, one word each
fake_collection "$FAKE/coll" $progs
fake_qemu "$FAKE/bin"
echo fake-bzImage > "$FAKE/bzImage"
case_args=(-n 50 -r 1 -B 1 -c bind_fastreuse.v4_reuseaddr_same.total_ms)

# command SCRIPT PHASE DIR: the command line of one cell, in CMD; the build
# phases build $FAKE/slow, the VM phases boot a guest that sleeps.
command_of()
{
	local dir=$3

	case $1.$2 in
	build.make) cmd=("$K/build.sh" -t "$FAKE/slow" -o "$dir/build") ;;
	vm.guest) cmd=("$K/vm.sh" -k "$FAKE/bzImage" -o "$dir/out" -C "$FAKE/coll" -a tcg -- true) ;;
	bisect.make) cmd=("$K/bisect.sh" -t "$FAKE/slow" -b "$dir/build" -o "$dir/out" -C "$FAKE/coll" -a tcg --test bind_fastreuse) ;;
	bisect.guest) cmd=("$K/bisect.sh" -t "$FAKE/fast" -b "$dir/build" -o "$dir/out" -C "$FAKE/coll" -a tcg --test bind_fastreuse) ;;
	ab.make) cmd=("$K/ab.sh" "${case_args[@]}" -C "$FAKE/coll" -a tcg -o "$dir/out" "$FAKE/slow" "$FAKE/bzImage") ;;
	ab.guest) cmd=("$K/ab.sh" "${case_args[@]}" -C "$FAKE/coll" -a tcg -o "$dir/out" "$FAKE/bzImage" "$FAKE/bzImage") ;;
	esac
}

# await TAG PATTERN SECONDS: a tagged process whose command line matches.
await()
{
	local i

	for ((i = 0; i < $3 * 10; i++)); do
		tagged_procs "$1" | grep -q -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

# gone PID SECONDS: PID has exited (it is our child: wait reaps it).
gone()
{
	local i

	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2> /dev/null || return 0
		sleep 0.1
	done
	return 1
}

# leftovers DIR SIG: what a run killed by SIG may not leave in DIR: a
# held build lock, temporary names, a VM's staging directory (a SIGKILL
# leaves those two for the next run, checked in after_kill).
leftovers()
{
	local f

	for f in "$1"/build/.bindlab-lock "$1"/cache/build/*/.bindlab-lock; do
		[ -e "$f" ] || continue
		flock -n "$f" true || echo "lock $f held"
	done
	[ "$2" = KILL ] && return 0
	find "$1" \( -name '*.tmp*' -o -name .vm-work \) -printf '%P\n' | sed 's/^/tmp /'
}

# after_kill SCRIPT PHASE DIR: a SIGKILLed run's successor takes the lock
# over and clears the staging directory.
after_kill()
{
	local err=$3/after.err

	case $1.$2 in
	build.make)
		echo 0 > "$FAKE/slow/fake-build-seconds"
		BINDLAB_CACHE=$3/cache timeout 60 "$K/build.sh" -t "$FAKE/slow" -o "$3/build" > /dev/null 2> "$err" &&
			grep -q 'took over' "$err" || echo "no takeover: $(tail -n 1 "$err")"
		echo 97 > "$FAKE/slow/fake-build-seconds"
		;;
	vm.guest)
		FAKE_QEMU=pass BINDLAB_CACHE=$3/cache timeout 60 "$K/vm.sh" -k "$FAKE/bzImage" -o "$3/out" \
			-C "$FAKE/coll" -a tcg -- true > /dev/null 2> "$err" || echo "rerun failed: $(tail -n 1 "$err")"
		[ ! -e "$3/out/.vm-work" ] || echo "staging left after the next run"
		;;
	esac
}

# cell SCRIPT PHASE SIG: one run, killed in PHASE by SIG.
cell()
{
	local script=$1 phase=$2 sig=$3 name=lab_kill.$1.$2.$3 dir tag pid rc want bad='' left pat quiet last_left=

	dir=$FAKE/$script-$phase-$sig
	tag=$RANDOM$RANDOM-$sig
	mkdir -p "$dir"
	command_of "$script" "$phase" "$dir"
	pat="sleep 97"
	[ "$phase" = make ] || pat="sleep 3600"
	# env resets the dispositions: a background job of a script ignores
	# SIGINT, and a trap cannot undo an ignore inherited at exec.
	env --default-signal BL_FAKE_TAG="$tag" BINDLAB_CACHE="$dir/cache" FAKE_QEMU=slow \
		"${cmd[@]}" > "$dir/stdout" 2> "$dir/stderr" &
	pid=$!
	if ! await "$tag" "$pat" 60; then
		tap_not_ok "$name # never reached the $phase phase" "$(tail -n 3 "$dir/stderr")"
		kill -KILL "$pid" 2> /dev/null
		return
	fi
	kill -"$sig" "$pid"
	gone "$pid" 20 || bad+="still running 20 s after SIG$sig; "
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || bad+="exit $rc, want $want; "
	# A SIGKILL's namespaces die with it, asynchronously: up to 5 s for
	# the tree to go, and then a second with none, read 10 times (one
	# empty read right after the kill once missed a live build.sh).
	quiet=0
	for ((i = 0; i < 60 && quiet < 10; i++)); do
		left=$(tagged_procs "$tag")
		if [ -z "$left" ]; then
			quiet=$((quiet + 1))
		else
			quiet=0
			last_left=$left
		fi
		sleep 0.1
	done
	[ "$quiet" -ge 10 ] || left=$last_left
	[ -z "$left" ] || bad+="left running: $(echo "$left" | tr '\n' ';'); "
	left=$(leftovers "$dir" "$sig")
	[ -z "$left" ] || bad+="left: $(echo "$left" | tr '\n' ' '); "
	if [ "$sig" = KILL ]; then
		left=$(after_kill "$script" "$phase" "$dir")
		[ -z "$left" ] || bad+="$left; "
	fi
	if [ -n "$bad" ]; then
		tap_not_ok "$name # $bad" "$(tail -n 3 "$dir/stderr")"
	else
		tap_ok "$name # exit $rc, nothing left"
	fi
	[ -z "$left" ] && [ -z "$bad" ] && rm -rf "$dir"
}

for sp in build.make vm.guest bisect.make bisect.guest ab.make ab.guest; do
	for sig in TERM INT HUP KILL; do
		# shellcheck disable=SC2053 # a glob, on purpose
		[[ $sp.$sig == ${LAB_KILL_ONLY:-*} ]] || continue
		cell "${sp%.*}" "${sp#*.}" "$sig"
	done
done
tap_done
