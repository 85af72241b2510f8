#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's network state (namespaces, links, addresses, routes,
# listening sockets, every sysctl under /proc/sys/net), its mount table
# and its device nodes (/dev: entries, modes, owners, device numbers)
# must be the same after two full runs at once and
# after runs killed with SIGKILL at random moments; nothing of ours may
# be left running or mounted. The lab's chroot (the LAVA root's, built
# beside the other components of the test command) must not show in
# those snapshots while it runs, nor reach the host's /dev, whatever its
# scripts do there. BINDLAB_KILL_TRIALS (default 1: each run draws its
# own moment) sets the number of random kills; tests/fail_closed_test.sh
# kills each phase with each signal. HOST_SAFETY_DEV (default /dev) is
# the device tree the snapshot reads, so that the check can be seen to
# fail on a scratch tree.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=scripts/cases.sh
. "$here/scripts/cases.sh"
bl_cases_load || exit 2
tmp=$(mktemp -d)
trials=${BINDLAB_KILL_TRIALS:-1}

cleanup() {
	# A trial interrupted by a failure must not leave its group behind.
	[ -n "${pgid:-}" ] && kill -KILL -- "-$pgid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

snapshot() {
	host_net_state
	grep -v -e ' /proc/' -e '^nsfs ' /proc/mounts | sort
	# Ptys, shared memory and message queues come and go with sessions.
	find "${HOST_SAFETY_DEV:-/dev}" \( -path '*/pts/*' -o -path '*/shm/*' -o -path '*/mqueue/*' \) \
		-prune -o -exec stat -c '%A %U:%G %t:%T %N' {} + | sort
}

# Every run this test starts carries this mark in its environment, and
# so does everything the run starts: leftovers are exactly ours, not
# another session's programs of the same checkout (a kernel lab VM).
mark=BINDLAB_HOST_SAFETY=$$.$RANDOM

# leftovers: the processes with our mark.
leftovers() {
	local p
	grep -lsa -- "$mark" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|/proc/\([0-9]*\)/environ|\1|' | while read -r p; do
		printf '%s %s\n' "$p" "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
	done
}

check_state() {
	local name=$1
	snapshot >"$tmp/after"
	if diff -u "$tmp/before" "$tmp/after" >"$tmp/diff"; then
		tap_ok "$name: host network state unchanged"
	else
		tap_not_ok "$name: host network state unchanged" "$(head -n 20 "$tmp/diff")"
	fi
	if [ -z "$(leftovers)" ]; then
		tap_ok "$name: nothing left running"
	else
		tap_not_ok "$name: nothing left running" "$(leftovers)"
	fi
}

make -s -C "$here" >/dev/null || { tap_not_ok "build"; tap_done; exit; }
snapshot >"$tmp/before"

# The lab's chroot on a busybox root: its script changes /dev as the LAVA
# root's package scripts did on the host (chmod, chown, mknod, a new
# /dev/mapper), reads how /proc/sys and /sys are mounted, then waits
# while the host is snapshot; /bindlab-run (the caller's $BL_RUN_DIR) is
# how they meet.
lab_chroot() {
	local r=$tmp/broot run=$tmp/brun a i=0 rc=0 cmd

	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/run" "$run"
	cp /bin/busybox "$r/bin/busybox"
	for a in sh chmod chown grep mknod mkdir sleep touch; do
		ln -s busybox "$r/bin/$a"
	done
	# shellcheck disable=SC2016 # the chroot's shell expands it
	cmd='chmod 600 /dev/null && chown 1:1 /dev/tty && mknod -m 666 /dev/fuse c 10 229 &&
		mkdir /dev/mapper && echo "changed its /dev"
		grep -q "^[^ ]* /proc/sys proc ro," /proc/mounts || echo "/proc/sys writable"
		grep -q "^[^ ]* /sys sysfs ro," /proc/mounts || echo "/sys writable"
		touch /bindlab-run/ready
		i=0
		while [ ! -e /bindlab-run/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done'
	# shellcheck disable=SC2016 # expanded by that bash
	BINDLAB_NICE=0 BL_PROG=host_safety BL_RUN_DIR=$run bash -c \
		'. "$1/kernel/lib.sh" && . "$1/kernel/lava-root.sh" && shift && bl_lava_in_root "$@"' \
		sh "$here" "$r" /bin/sh -c "$cmd" >"$tmp/chroot.out" 2>&1 &
	a=$!
	while [ ! -e "$run/ready" ] && [ $i -lt 300 ] && kill -0 $a 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	snapshot >"$tmp/during"
	touch "$run/go"
	wait $a || rc=$?
	if [ $rc -ne 0 ] || [ ! -e "$run/ready" ] || ! grep -qx 'changed its /dev' "$tmp/chroot.out"; then
		tap_not_ok "lab chroot: runs its script" "exit $rc" "$(head -n 5 "$tmp/chroot.out")"
	elif grep -q writable "$tmp/chroot.out"; then
		tap_not_ok "lab chroot: host kernel settings read-only" "$(grep writable "$tmp/chroot.out")"
	elif ! diff -u "$tmp/before" "$tmp/during" >"$tmp/diff"; then
		tap_not_ok "lab chroot: neither its mounts nor its /dev reach the host" "$(head -n 20 "$tmp/diff")"
	else
		tap_ok "lab chroot: neither its mounts nor its /dev reach the host, /proc/sys and /sys read-only"
	fi
}
if [ "$(id -u)" -ne 0 ] || ! unshare -m -p -f true 2>/dev/null || [ ! -x /bin/busybox ] ||
	! ldd /bin/busybox 2>&1 | grep -q 'not a dynamic'; then
	tap_skip "lab chroot" "needs root, mount and PID namespaces and a static /bin/busybox (busybox-static)"
else
	lab_chroot
	check_state "lab chroot"
fi

# Two full runs at once into one --results, started in the same second:
# each completes in its own namespaces and run directory with the same
# verdicts and complete results (a run merges only its own files).
env "$mark" "$here/run.sh" --results "$tmp/c" >"$tmp/c1.log" 2>&1 &
p1=$!
env "$mark" "$here/run.sh" --results "$tmp/c" >"$tmp/c2.log" 2>&1 &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
# The tests that did not pass, and each case of the table with its verdict.
verdicts() {
	local name
	sed -n 's/^  \(known regression\|skipped\|FAIL\|XPASS\) *\([^:]*\).*/\1 \2/p' "$1"
	for name in "${BL_CASE_NAMES[@]}"; do
		awk -v c="$name" '$1 == c && / rounds\)$/ {
			sub(/ \([0-9]+ rounds\)$/, ""); n = split($0, w, ", ")
			print c, w[n] }' "$1"
	done
}
# A run that printed no verdict at all must not pass as "the same".
if [ "$(verdicts "$tmp/c1.log" | wc -l)" -ge ${#BL_CASE_NAMES[@]} ] &&
	grep -q '^results: ' "$tmp/c1.log" && grep -q '^results: ' "$tmp/c2.log" &&
	[ $r1 -eq $r2 ] && [ $r1 -le 1 ] && diff <(verdicts "$tmp/c1.log") <(verdicts "$tmp/c2.log") >"$tmp/vd"; then
	tap_ok "two concurrent runs: both complete with the same verdicts (exit $r1)"
else
	tap_not_ok "two concurrent runs agree" "exits $r1 $r2" "$(head -n 10 "$tmp/vd")"
fi
complete=0
ksft=$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)
for f in "$tmp"/c/*/results.json; do
	# Every case of the table, KTAP of every kselftest (the Makefile's list).
	python3 - "$f" "$ksft" "${BL_CASE_NAMES[@]}" <<'PY' && complete=$((complete + 1))
import json, sys
run = json.load(open(sys.argv[1]))
cases = sorted(c["case"] for c in run["cases"])
programs = {t["program"] for t in run["tests"]}
sys.exit(cases != sorted(sys.argv[3:]) or
         not set(sys.argv[2].split()) <= programs)
PY
done
if [ "$complete" -eq 2 ] && [ "$(find "$tmp/c" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 2 ]; then
	tap_ok "two concurrent runs into one --results: two run directories, each complete"
else
	tap_not_ok "two concurrent runs into one --results: each complete" "$complete complete" "$(find "$tmp/c" | head)"
fi
check_state "concurrent runs"

# SIGKILL at random moments of a run, the whole process group at once as
# a CI timeout or a closed terminal would.
for i in $(seq 1 "$trials"); do
	setsid env "$mark" "$here/run.sh" --results "$tmp/k$i" >"$tmp/k.log" 2>&1 &
	pgid=$!
	# Anywhere in a run: a default run takes 17-19 s here unloaded and
	# more under load, so a kill always lands before its end.
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.2 + rand() * 17 }')
	sleep "$delay"
	kill -KILL -- "-$pgid" 2>/dev/null
	wait "$pgid" 2>/dev/null
	pgid=
	# Namespaces die with their last process; sockets close at once.
	sleep 1
	snapshot >"$tmp/after"
	if ! diff -q "$tmp/before" "$tmp/after" >/dev/null || [ -n "$(leftovers)" ]; then
		check_state "kill trial $i at ${delay}s"
		break
	fi
	tap_ok "kill trial $i at ${delay}s: state unchanged, nothing left"
done

tap_done
