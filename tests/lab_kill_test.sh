#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kill matrix of the kernel lab: each of build.sh, vm.sh, bisect.sh,
# ab.sh, model-compare.sh and lava.sh, in each long phase (make running, a
# guest running), and lava-server.sh waiting for the LAVA root's lock, gets SIGTERM
# and SIGKILL (bisect's guest also SIGINT and SIGHUP), to its own PID only (what a CI runner or a
# user's kill does). After it: no process it started is left (every
# descendant carries a tag in its environment, so a reparented one is
# found too), the build lock is free, and nothing half made is left; after
# a SIGKILL, which no script can catch, the next run takes the lock over
# and clears what the killed one staged.
#
# A fake kernel tree whose build sleeps and a fake qemu whose guest sleeps
# stand in for the real ones (tests/lab_fakes.sh). First, lab_out: what
# an earlier run left in an output folder is refused, never read or
# removed, as are a mutate tree with edits and its unwritable places.
# TAP; exit 0 when every check passed, 1 otherwise. About 2 minutes;
# LAB_KILL_ONLY=GLOB runs the cells whose name (SCRIPT.PHASE.SIGNAL, e.g.
# 'bisect.*.TERM', or lab_out) matches.

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
: > "$FAKE/a-file"
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
	model.make)
		# bind_wildcard.c and its harness where model-compare.sh keeps
		# them, so that it goes straight to the kernel's build.
		mkdir -p "$dir/cache/upstream/net"
		cp "$KSFT_DIR/net/bind_wildcard.c" "$dir/cache/upstream/net/"
		cp "$KSFT_DIR/kselftest_harness.h" "$KSFT_DIR/kselftest.h" "$dir/cache/upstream/"
		cmd=("$K/model-compare.sh" -t "$FAKE/slow" -o "$dir/out")
		;;
	lava.make)
		# The lab's tag in a fake lab repository, and a LAVA root that is
		# only its stamp: lava.sh builds the kernel before it enters it.
		fake_tree "$dir/cache/lab/linux-6.12.git"
		fake_commit "$dir/cache/lab/linux-6.12.git" slow fake-build-seconds=97
		git -C "$dir/cache/lab/linux-6.12.git" tag stock
		mkdir -p "$dir/cache/lava/root"
		# shellcheck disable=SC2016 # expanded by that bash
		BINDLAB_CACHE=$dir/cache bash -c '. "$1/lib.sh" && . "$1/lava-root.sh" && bl_lava_stamp' \
			sh "$K" > "$dir/cache/lava/root/.bindlab-root"
		cmd=("$K/lava.sh" -k stock -o "$dir/out")
		;;
	lava.lock)
		# Another run holds the LAVA root's lock (building it: minutes).
		mkdir -p "$dir/cache/lava"
		(exec 7> "$dir/cache/lava/root.lock" && flock 7 && exec sleep 3600) &
		holder=$!
		cmd=("$K/lava-server.sh" --prepare)
		;;
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
		# The killed run's OUT, staging and all, is its caller's to
		# remove: a rerun into it is refused, and a new one runs.
		FAKE_QEMU=pass BINDLAB_CACHE=$3/cache timeout 60 "$K/vm.sh" -k "$FAKE/bzImage" -o "$3/out" \
			-C "$FAKE/coll" -a tcg -- true > /dev/null 2> "$err"
		rc=$?
		[ "$rc" = 2 ] || echo "rerun into the killed run's OUT: exit $rc, not refused"
		FAKE_QEMU=pass BINDLAB_CACHE=$3/cache timeout 60 "$K/vm.sh" -k "$FAKE/bzImage" -o "$3/out2" \
			-C "$FAKE/coll" -a tcg -- true > /dev/null 2> "$err" || echo "rerun failed: $(tail -n 1 "$err")"
		[ ! -e "$3/out2/.vm-work" ] || echo "staging left after the next run"
		;;
	esac
}

# cell SCRIPT PHASE SIG: one run, killed in PHASE by SIG.
cell()
{
	local script=$1 phase=$2 sig=$3 name=lab_kill.$1.$2.$3 dir tag pid rc want bad='' left pat quiet last_left=
	local holder=

	dir=$FAKE/$script-$phase-$sig
	tag=$RANDOM$RANDOM-$sig
	mkdir -p "$dir"
	command_of "$script" "$phase" "$dir"
	case $phase in
	make) pat="sleep 97" ;;
	lock) pat="flock 8" ;;
	*) pat="sleep 3600" ;;
	esac
	# env resets the dispositions: a background job of a script ignores
	# SIGINT, and a trap cannot undo an ignore inherited at exec.
	env --default-signal BL_FAKE_TAG="$tag" BINDLAB_CACHE="$dir/cache" FAKE_QEMU=slow \
		"${cmd[@]}" > "$dir/stdout" 2> "$dir/stderr" &
	pid=$!
	if ! await "$tag" "$pat" 60; then
		tap_not_ok "$name # never reached the $phase phase" "$(tail -n 3 "$dir/stderr")"
		kill -KILL "$pid" ${holder:+"$holder"} 2> /dev/null
		return
	fi
	kill -"$sig" "$pid"
	if ! gone "$pid" 20; then
		bad+="still running 20 s after SIG$sig; "
		kill -KILL "$pid" 2> /dev/null
	fi
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
	if [ -n "$holder" ]; then
		kill "$holder" 2> /dev/null
		wait "$holder" 2> /dev/null
	fi
	if [ -n "$bad" ]; then
		tap_not_ok "$name # $bad" "$(tail -n 3 "$dir/stderr")"
	else
		tap_ok "$name # exit $rc, nothing left"
	fi
	[ -z "$left" ] && [ -z "$bad" ] && rm -rf "$dir"
}

# refused NAME WANT FILE CMD...: CMD exits WANT with one line on stderr,
# and FILE (what an earlier run left in the output) is still there.
refused()
{
	local name=lab_out.$1 want=$2 keep=$3 rc=0

	shift 3
	BINDLAB_CACHE=$FAKE/out-cache timeout 60 "$@" > /dev/null 2> "$FAKE/refused.err" || rc=$?
	if [ "$rc" != "$want" ] || [ "$(wc -l < "$FAKE/refused.err")" != 1 ]; then
		tap_not_ok "$name # exit $rc, want $want and one line" "$(head -n 3 "$FAKE/refused.err")"
	elif [ -n "$keep" ] && [ ! -e "$keep" ]; then
		tap_not_ok "$name # $keep removed"
	else
		tap_ok "$name # $(cut -c 1-110 "$FAKE/refused.err")"
	fi
}

# held FILE: a process in $holder holds a flock on FILE (as another run
# would), up to 60 s; returns once it does.
held()
{
	local i

	# The holder is the process that has the lock, so a kill frees it.
	(
		if [ -d "$1" ]; then exec 9< "$1"; else exec 9>> "$1"; fi
		flock 9 && exec sleep 60
	) &
	holder=$!
	for i in $(seq 50); do
		flock -n "$1" true 2> /dev/null || return 0
		sleep 0.1
	done
}

# lava_root_stamp CACHE: a LAVA root in CACHE that is only its stamp
# (lava.sh and lava-server.sh take it for built).
lava_root_stamp()
{
	mkdir -p "$1/lava/root"
	# shellcheck disable=SC2016 # expanded by that bash
	BINDLAB_CACHE=$1 bash -c '. "$1/lib.sh" && . "$1/lava-root.sh" && bl_lava_stamp' \
		sh "$K" > "$1/lava/root/.bindlab-root"
}

# lab_out_owned: lava.sh, lava-server.sh, lab-history.sh and initramfs.sh
# write only into a place of their own: one holding someone's files is
# refused (2, one line) and left as it was, and each removes only what it
# made; what they document as reusable still is.
lab_out_owned()
{
	local v=$FAKE/victim rc lh=$FAKE/lh a b c f

	lava_root_stamp "$FAKE/out-cache"
	mkdir -p "$v/lava-out/work" "$v/lava-out/lava" "$v/precious" "$FAKE/cache-lava-file"
	: > "$v/lava-out/work/thesis.tex"
	: > "$v/lava-out/lava/bindlab.yaml"
	: > "$v/precious/keep"
	: > "$FAKE/cache-lava-file/lava"
	refused lava_used_out 2 "$v/lava-out/work/thesis.tex" \
		"$K/lava.sh" -k stock -o "$v/lava-out"
	[ -e "$v/lava-out/lava/bindlab.yaml" ] ||
		tap_not_ok "lab_out.lava_used_out_lava_kept # $v/lava-out/lava emptied"
	# A "work" in the environment is no folder of lava.sh's to remove.
	refused lava_env_work_kept 2 "$v/precious/keep" env work="$v/precious" \
		"$K/lava.sh" -k stock -o "$FAKE/a-file/out"
	refused lava_cache_not_dir 2 "" env BINDLAB_CACHE="$FAKE/cache-lava-file" \
		"$K/lava.sh" -k stock -o "$FAKE/lava-new"
	mkdir -p "$v/server-out/overlay" "$v/server-out/logs"
	: > "$v/server-out/overlay/keep"
	: > "$v/server-out/logs/keep"
	refused lava_server_used_out 2 "$v/server-out/logs/keep" \
		"$K/lava-server.sh" -o "$v/server-out"
	[ -e "$v/server-out/overlay/keep" ] ||
		tap_not_ok "lab_out.lava_server_used_out_overlay_kept # $v/server-out/overlay removed"
	# Its EXIT trap, on an early failure: the overlay is not its own.
	refused lava_server_cache_not_dir 2 "$v/server-out/overlay/keep" \
		env BINDLAB_CACHE="$FAKE/cache-lava-file" "$K/lava-server.sh" -o "$v/server-out"
	# Other files in DIR are the caller's (tests/lava_server_test.sh keeps
	# its log there): left, and the run goes on; its own overlay goes at
	# the end (a root that is only a stamp: the server cannot start).
	mkdir -p "$v/server-log"
	echo "the caller's log" > "$v/server-log/lava-server.log"
	rc=0
	BINDLAB_CACHE=$FAKE/out-cache timeout 60 "$K/lava-server.sh" -W 10 -o "$v/server-log" \
		> /dev/null 2> "$FAKE/server-log.err" || rc=$?
	if [ "$rc" = 126 ] && [ -s "$v/server-log/lava-server.log" ] && [ ! -e "$v/server-log/overlay" ]; then
		tap_ok "lab_out.lava_server_caller_log_kept # exit 126 (no server in a stamp), the log kept, its overlay gone"
	else
		tap_not_ok "lab_out.lava_server_caller_log_kept # exit $rc, want 126" "$(tail -n 2 "$FAKE/server-log.err")"
	fi
	# A git repository of someone's as DEST: no bisect reset, no removal.
	fake_tree "$v/repo"
	git -C "$v/repo" checkout -q --detach
	refused lab_history_foreign_dest 2 "$v/repo/Makefile" \
		"$K/lab-history.sh" -t "$FAKE/fast" "$v/repo"
	mkdir -p "$v/home"
	: > "$v/home/keep"
	refused initramfs_used_work 2 "$v/home/keep" \
		"$K/initramfs.sh" -c "$FAKE/coll" -o "$FAKE/ird.cpio" -w "$v/home"
	# Documented reuse. lab-history.sh: a history it completed is reused
	# as is, also when an interrupted run's DEST.tmp (its mark in .git)
	# is beside it; one with changes is refused, the changes kept.
	mkdir -p "$lh/tree/Documentation/networking" "$lh/tree/net/ipv4" "$lh/empty"
	echo "all:" > "$lh/tree/Makefile"
	for f in Documentation/networking/ip-sysctl.rst Documentation/networking/index.rst \
		net/ipv4/tcp.c net/ipv4/af_inet.c net/ipv4/inet_connection_sock.c; do
		echo "/* $f */" > "$lh/tree/$f"
	done
	# A git-style patch (a/, b/): what lab-history.sh reads its files from.
	cp -r "$lh/tree" "$lh/b"
	echo "/* the fix */" >> "$lh/b/net/ipv4/inet_connection_sock.c"
	(cd "$lh" && ln -s tree a && diff -ru a b > fix.patch)
	rc=0
	a=$(timeout 60 "$K/lab-history.sh" -t "$lh/tree" -p "$lh/fix.patch" "$lh/empty" 2> "$lh/err") || rc=$?
	if [ "$rc" != 0 ] || [ ! -d "$lh/empty/.git" ] || [ -e "$lh/empty.tmp" ]; then
		tap_not_ok "lab_out.lab_history_empty_dest # exit $rc" "$(tail -n 2 "$lh/err")"
	fi
	rc=0
	b=$(timeout 60 "$K/lab-history.sh" -t "$lh/tree" -p "$lh/fix.patch" "$lh/empty" 2> "$lh/err") || rc=$?
	if [ "$rc" = 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] && ! grep -q creating "$lh/err"; then
		tap_ok "lab_out.lab_history_reused # exit 0, culprit ${b:0:12} again"
	else
		tap_not_ok "lab_out.lab_history_reused # exit $rc, culprit '$a' then '$b'" "$(tail -n 2 "$lh/err")"
	fi
	# DEST.tmp: an interrupted run's (marked) is made anew; someone's is
	# refused and kept.
	mkdir -p "$lh/new.tmp/.git" "$lh/other.tmp"
	echo "kernel/lab-history.sh staging" > "$lh/new.tmp/.git/bindlab-lab-history"
	: > "$lh/new.tmp/half-made"
	: > "$lh/other.tmp/keep"
	rc=0
	c=$(timeout 60 "$K/lab-history.sh" -t "$lh/tree" -p "$lh/fix.patch" "$lh/new" 2> "$lh/err") || rc=$?
	if [ "$rc" = 0 ] && [ "$c" = "$a" ] && [ ! -e "$lh/new.tmp" ] && [ ! -e "$lh/new/half-made" ]; then
		tap_ok "lab_out.lab_history_interrupted_tmp # exit 0, same culprit, the killed run's DEST.tmp made anew"
	else
		tap_not_ok "lab_out.lab_history_interrupted_tmp # exit $rc, culprit '$c', not '$a'" "$(tail -n 2 "$lh/err")"
	fi
	refused lab_history_foreign_tmp 2 "$lh/other.tmp/keep" \
		"$K/lab-history.sh" -t "$lh/tree" -p "$lh/fix.patch" "$lh/other"
	echo "/* an edit */" >> "$lh/new/net/ipv4/tcp.c"
	refused lab_history_changed_dest 2 "" "$K/lab-history.sh" -t "$lh/tree" -p "$lh/fix.patch" "$lh/new"
	grep -q 'an edit' "$lh/new/net/ipv4/tcp.c" ||
		tap_not_ok "lab_out.lab_history_changed_dest_kept # the edit was reset"
	# initramfs.sh: the default IMAGE.root goes at the end; an empty -w
	# given is emptied again, not removed.
	mkdir -p "$FAKE/ird-work"
	rc=0
	timeout 60 "$K/initramfs.sh" -c "$FAKE/coll" -o "$FAKE/ird.cpio" > /dev/null 2> "$FAKE/ird.err" || rc=$?
	timeout 60 "$K/initramfs.sh" -c "$FAKE/coll" -o "$FAKE/ird2.cpio" -w "$FAKE/ird-work" \
		> /dev/null 2>> "$FAKE/ird.err" || rc=$((rc + $?))
	if [ "$rc" = 0 ] && [ -s "$FAKE/ird.cpio" ] && [ -s "$FAKE/ird2.cpio" ] && [ ! -e "$FAKE/ird.cpio.root" ] &&
	   [ -d "$FAKE/ird-work" ] && [ -z "$(ls -A "$FAKE/ird-work")" ]; then
		tap_ok "lab_out.initramfs_work_own # IMAGE.root removed, an empty -w kept empty"
	else
		tap_not_ok "lab_out.initramfs_work_own # exit $rc" "$(tail -n 2 "$FAKE/ird.err")"
	fi
}

# shellcheck disable=SC2053 # a glob, on purpose
if [[ lab_out == ${LAB_KILL_ONLY:-*} ]]; then
	# An output folder that holds anything is no run's own: an earlier
	# run's boots would be compared, its case files merged.
	mkdir -p "$FAKE/used/runs/before-boot1"
	echo '{}' > "$FAKE/used/runs/before-boot1/case.json"
	refused ab_used_out 2 "$FAKE/used/runs/before-boot1/case.json" \
		"$K/ab.sh" "${case_args[@]}" -C "$FAKE/coll" -a tcg -o "$FAKE/used" "$FAKE/bzImage" "$FAKE/bzImage"
	refused vm_used_out 2 "$FAKE/used/runs/before-boot1/case.json" \
		"$K/vm.sh" -k "$FAKE/bzImage" -C "$FAKE/coll" -a tcg -o "$FAKE/used/runs/before-boot1" -- true
	# A "work" in the environment is no folder of vm.sh's to remove.
	mkdir -p "$FAKE/precious"
	: > "$FAKE/precious/keep"
	refused vm_env_work_kept 2 "$FAKE/precious/keep" env work="$FAKE/precious" \
		"$K/vm.sh" -k "$FAKE/bzImage" -C "$FAKE/coll" -a tcg -o "$FAKE/a-file/out" -- true
	# OUT full as the guest answers: the machine's fault (126), never
	# the kernel's "no result" (125). A 16 MiB tmpfs (the initramfs takes
	# ~8) in a mount namespace of our own; the fake guest fills the rest.
	mkdir -p "$FAKE/full"
	# shellcheck disable=SC2016 # expands in the inner shell
	if unshare -m sh -c 'mount -t tmpfs -o size=16m tmpfs "$1"' - "$FAKE/full" 2> /dev/null; then
		# shellcheck disable=SC2016 # expands in the inner shell
		FAKE_QEMU=disk-full BINDLAB_CACHE=$FAKE/out-cache unshare -m sh -c \
			'mount -t tmpfs -o size=16m tmpfs "$1" && shift && exec "$@"' - "$FAKE/full" \
			timeout 60 "$K/vm.sh" -k "$FAKE/bzImage" -C "$FAKE/coll" -a tcg -o "$FAKE/full/out" -- true \
			> /dev/null 2> "$FAKE/full.err"
		rc=$?
		if [ "$rc" = 126 ] && tail -n 1 "$FAKE/full.err" | grep -q 'takes no more data'; then
			tap_ok "lab_out.vm_disk_full # exit 126: $(tail -n 1 "$FAKE/full.err" | cut -c 1-100)"
		else
			tap_not_ok "lab_out.vm_disk_full # exit $rc, want 126" "$(tail -n 2 "$FAKE/full.err")"
		fi
	else
		tap_skip lab_out.vm_disk_full "no mount namespace here (unshare -m)"
	fi
	# A label may be any name: ab's build logs live in runs/, never
	# beside a label's directory, whose name they could otherwise take.
	rc=0
	BINDLAB_CACHE=$FAKE/out-cache timeout 120 "$K/ab.sh" "${case_args[@]}" -C "$FAKE/coll" -a tcg \
		--names before,build-before.out -o "$FAKE/ablabel" "$FAKE/fast" "$FAKE/bzImage" \
		> /dev/null 2> "$FAKE/ablabel.err" || rc=$?
	# One round a side (case_args) leaves compare nothing to judge: its
	# exit 2, which is no verdict either.
	if [ "$rc" = 2 ] && [ -s "$FAKE/ablabel/runs/build-before.out" ] &&
		tail -n 1 "$FAKE/ablabel.err" | grep -q 'compare exit 2: no verdict'; then
		tap_ok "lab_out.ab_label_like_a_log # exit 2 after both sides ran, the build's log in runs/"
	else
		tap_not_ok "lab_out.ab_label_like_a_log # exit $rc, want 2 after both sides ran" \
			"$(tail -n 3 "$FAKE/ablabel.err")"
	fi
	refused ab_names_dotdot 2 "" \
		"$K/ab.sh" "${case_args[@]}" -C "$FAKE/coll" --names ..,after -o "$FAKE/new" "$FAKE/bzImage" "$FAKE/bzImage"
	[ ! -e "$FAKE/new" ] || tap_not_ok "lab_out.ab_names_dotdot_writes_nothing # $FAKE/new made"
	# mutate resets the files it mutates: a tree with edits is someone's
	# work, refused before anything is generated or reset.
	fake_tree "$FAKE/mut"
	git -C "$FAKE/mut" checkout -q --detach
	echo "# an edit" >> "$FAKE/mut/Makefile"
	refused mutate_dirty_tree 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/mut-table.json"
	grep -q '^# an edit' "$FAKE/mut/Makefile" ||
		tap_not_ok "lab_out.mutate_dirty_tree_kept # the edit was reset"
	git -C "$FAKE/mut" checkout -q -- Makefile
	refused mutate_table_unwritable 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/a-file/table.json"
	# A collection vm.sh would refuse only after the first build: now,
	# before a run folder is made.
	refused mutate_no_collection 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/mut-table.json" -C "$FAKE/nocoll"
	# A tree whose files gen cannot read: its error (2), no run folder.
	refused mutate_gen_cannot_read 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/mut-table.json"
	[ ! -d "$FAKE/out-cache/mutate/runs" ] || [ -z "$(ls "$FAKE/out-cache/mutate/runs")" ] ||
		tap_not_ok "lab_out.mutate_refused_no_folder # $(ls "$FAKE/out-cache/mutate/runs")"
	# Another run on the tree, or on a table in the same folder: refused.
	held "$FAKE/mut/.git/bindlab-mutate.lock"
	refused mutate_tree_busy 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/mut-table.json"
	kill "$holder"
	mkdir -p "$FAKE/tables"
	held "$FAKE/tables"
	refused mutate_table_busy 2 "" "$K/mutate.sh" -t "$FAKE/mut" -r "$FAKE/tables/t.json"
	kill "$holder"
	# A project that is no git checkout: the table records its commit.
	mkdir -p "$FAKE/nogit"
	cp -r "$here/kernel" "$here/scripts" "$FAKE/nogit/"
	refused mutate_project_not_git 2 "" "$FAKE/nogit/kernel/mutate.sh" -t "$FAKE/mut"
	lab_out_owned
fi

# Every script traps INT, TERM and HUP with one handler (bl_trap_signals):
# each signal once, on the deepest tree (bisect's guest: bisect.sh, build,
# vm.sh, qemu), and TERM and KILL in every other cell; LAB_KILL_ONLY runs
# any cell, all four signals included.
for sp in build.make vm.guest bisect.make bisect.guest ab.make ab.guest model.make lava.make lava.lock; do
	for sig in TERM INT HUP KILL; do
		# shellcheck disable=SC2053 # a glob, on purpose
		[[ $sp.$sig == ${LAB_KILL_ONLY:-*} ]] || continue
		[ -n "${LAB_KILL_ONLY:-}" ] || [ "$sp" = bisect.guest ] ||
			[ "$sig" = TERM ] || [ "$sig" = KILL ] || continue
		cell "${sp%.*}" "${sp#*.}" "$sig"
	done
done
tap_done
