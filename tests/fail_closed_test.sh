#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fail closed (issue 12), one section per class: no verdict without a
# measurement; one writer; no injection; process ownership under each
# signal at each phase; isolated runs; --no-netns leaves the namespace it
# was given as it was; bounded inputs; result files that mean one thing.
# Isolated concurrent runs are in tests/host_safety_test.sh.
# The malformed command lines are in tests/bad_inputs.txt; this covers
# what needs files, FIFOs, namespaces, signals or concurrency.
# BINDLAB_KILL_SIGNALS (default "TERM INT HUP KILL" for run.sh, TERM and
# KILL for the other phases; set, every phase gets all) sets the matrix;
# arguments name the sections to run (default: all).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=scripts/strict.sh
. "$here/scripts/strict.sh"
# shellcheck source=tests/fdlimit.sh
. "$here/tests/fdlimit.sh"
tmp=$(mktemp -d)
[ -d "$tmp" ] || exit 1
trial=
cleanup() {
	[ -n "$trial" ] && kill_marked "$trial"
	rm -rf "$tmp"
}
trap cleanup EXIT
res=$here/bindlab_results
bb=$here/bind_bench

if [ "$(id -u)" -ne 0 ]; then
	tap_skip "fail-closed checks" "need root (namespaces, signals to our runs)"
	tap_done
	exit 4
fi

# expect NAME RC PATTERN CMD...: exit status RC and PATTERN (ERE; "" for
# no output at all) in the output, within EXPECT_SECS (20) s: a hang is
# a failure, not a stuck test.
expect() {
	local name=$1 want=$2 pat=$3 got
	shift 3
	timeout -k 2 "${EXPECT_SECS:-20}" "$@" >"$tmp/out" 2>&1 </dev/null
	got=$?
	if [ "$got" -eq "$want" ] && { [ -z "$pat" ] && [ ! -s "$tmp/out" ] ||
		{ [ -n "$pat" ] && grep -Eq -- "$pat" "$tmp/out"; }; }; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $got (want $want), pattern: $pat" "$(head -n 6 "$tmp/out")"
	fi
}

# craft FILE CASE UNIT SAMPLES [PARAM_N] [HARNESS] [TIME]: a one-case run file.
craft() {
	python3 - "$@" <<'PY'
import json, sys
a = sys.argv[1:] + [None] * 4
path, case, unit, samples, n, harness, when = a[:7]
c = {"schema": "bindlab.result", "schema_version": 2,
     "harness_version": harness or "0.1.0", "tool": "bind_bench",
     "case": case, "params": {"n": int(n or 100)},
     "env": {"time": when or "t0"},
     "metric": {"name": "total_ms", "unit": unit, "better": "lower",
                "samples": [float(x) for x in samples.split(",")]},
     "verdict": {"status": "pass"},
     "summary": {"curve": {"bound_before": [0, 50],
                           "median_ns": [100.0, 110.0]}}}
json.dump({"schema": "bindlab.run", "schema_version": 2,
           "harness_version": c["harness_version"], "env": {},
           "cases": [c], "tests": []}, open(path, "w"))
PY
}

# marked ID: pids whose environment carries BINDLAB_TRIAL=ID: every
# process a trial started, whatever it was renamed to or reparented to.
marked() {
	grep -lsa "BINDLAB_TRIAL=$1" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|/proc/\([0-9]*\)/environ|\1|' | grep -vx "$$"
}

kill_marked() {
	local p
	for p in $(marked "$1"); do kill -KILL "$p" 2>/dev/null; done
}

section_verdicts() {
	local s5=10,10.2,9.9,10.1,9.8
	craft "$tmp/a.json" x.case ms "$s5"
	craft "$tmp/b.json" y.case ms "$s5" 100 0.1.0 t1
	expect "compare that compared nothing fails (exit 2)" 2 'nothing compared' \
		"$res" compare --threshold 10 "$tmp/a.json" "$tmp/b.json"
	# A kselftest that planned 5 and reported 2 (a crash, a timeout).
	printf 'TAP version 13\n1..5\nok 1 a\nok 2 b\n' >"$tmp/short.ktap"
	"$res" merge "$tmp/short.json" --ktap "p=$tmp/short.ktap" "$tmp/a.json" 2>/dev/null
	expect "an unmet KTAP plan fails the summary" 1 'FAIL +p\.ktap\.plan: .*2 of 5 planned' \
		"$res" summary "$tmp/short.json"
	printf 'TAP version 13\n' >"$tmp/none.ktap"
	"$res" merge "$tmp/none.json" --ktap "p=$tmp/none.ktap" 2>/dev/null
	expect "a program that reported nothing fails" 1 'FAIL +p\.ktap\.plan: .*no plan' "$res" summary "$tmp/none.json"
	"$res" merge "$tmp/skip.json" --missing "b.n4=skip:needs 4032 file descriptors" 2>/dev/null
	expect "everything skipped is a SKIP (exit 4) with the reason" 4 'skipped +benchmark\.b\.n4: needs 4032' \
		"$res" summary "$tmp/skip.json"
	"$res" merge "$tmp/miss.json" --missing "b.n4=fail:exit 2: usage" "$tmp/a.json" 2>/dev/null
	expect "a planned case with no result fails the run" 1 'FAIL +benchmark\.b\.n4: exit 2' \
		"$res" summary "$tmp/miss.json"
	"$res" merge "$tmp/empty.json" 2>/dev/null
	expect "a run with nothing in it fails" 1 'nothing was measured' "$res" summary "$tmp/empty.json"
	# The main job with too few descriptors: benchmarks SKIP with the
	# reason and are listed; the verdict never rests on nothing. The
	# limit holds for root with CAP_SYS_RESOURCE too (tests/fdlimit.sh).
	local why
	if why=$(bl_lowfd_works 1000); then
		bl_lowfd_prefix 1000
		EXPECT_SECS=300 expect "low fd limit: main job lists each benchmark as skipped with the reason" 0 \
			'skipped +benchmark\.bind_fastreuse\.v4_reuseaddr_same\.total_ms: needs 4032 file descriptors' \
			"${lowfd[@]}" "$here/run.sh" --results "$tmp/lowfd"
		expect "bind_bench: fd shortage is a SKIP (exit 4) with the reason" 4 'SKIP: needs 4032 file descriptors' \
			"${lowfd[@]}" "$bb" -q reuseaddr same 4000
	else
		tap_not_ok "RLIMIT_NOFILE 1000 that root cannot raise" "$why"
	fi
	# A table row its program refuses (bind_churn takes at most 2000000
	# connections, the table's check 9999999): exit 2 before anything
	# runs, and an error of the table, never a kernel FAIL (1).
	printf 'tw_reuse.reuse1_v6_loopback.conn_per_s\tconn/s\thigher\tnone\t3000000\t3000000\tbind_churn -q -f 6 -R 1 -r {ROUNDS} -n {N} --json {JSON}\n' \
		>"$tmp/bad.cases"
	expect "a table row its program refuses: no verdict (2), not a kernel FAIL" 2 \
		'^error: tw_reuse\.reuse1_v6_loopback\.conn_per_s: connections 3000000 out of range.*no verdict' \
		env BL_CASES_FILE="$tmp/bad.cases" "$here/run.sh" --results "$tmp/badrow"
	if [ -e "$tmp/badrow" ]; then
		tap_not_ok "a table row its program refuses: nothing runs" "$(ls "$tmp/badrow")"
	else
		tap_ok "a table row its program refuses: nothing runs"
	fi
	expect "bisect's check of a case uses bind_bench's parser" 2 'N 0 out of range' \
		env BINDLAB_CHECK_ARGS=1 "$bb" reuseaddr same 0
	expect "BINDLAB_CHECK_ARGS=1 runs nothing" 0 '' env BINDLAB_CHECK_ARGS=1 "$bb" -b 1 reuseaddr same 10
}

section_writer() {
	local out=$tmp/w
	mkdir "$out"
	craft "$out/a.json" x.case ms 10,11,12
	ln -s "$out/target.json" "$out/dangling.json"
	echo old >"$out/target2.json"
	ln -s "$out/target2.json" "$out/link.json"
	"$res" merge "$out/link.json" "$out/a.json"
	if [ -L "$out/link.json" ] && "$res" summary "$out/target2.json" >/dev/null; then
		tap_ok "a symlink destination is followed: the link stays, its target is written"
	else
		tap_not_ok "a symlink destination is followed" "$(ls -l "$out")"
	fi
	expect "a dangling symlink destination is refused" 2 'dangling symlink' "$res" merge "$out/dangling.json"
	mkfifo "$out/fifo"
	expect "a FIFO destination is refused before the work" 2 'is a FIFO' \
		"$bb" -q --json "$out/fifo" -b 1 reuseaddr same 10
	# shellcheck disable=SC2016 # expands in the inner shell
	# An output that was not delivered is no verdict: 2, not 1.
	expect "stdout on /dev/full: bind_bench fails" 2 '^bind_bench: writing standard output failed' \
		sh -c '"$0" -b 1 reuseaddr same 10 >/dev/full' "$bb"
	# shellcheck disable=SC2016
	expect "stdout on /dev/full: summary fails" 2 '^bindlab_results: writing standard output failed' \
		sh -c '"$0" summary "$1" >/dev/full' "$res" "$out/a.json"
	# A full results disk (a filled tmpfs in a private mount namespace)
	# is an error of the machine (2), never a kernel verdict: nothing runs.
	if unshare -m true 2>/dev/null; then
		mkdir -p "$tmp/full"
		# shellcheck disable=SC2016 # expands in the inner shell
		expect "a full results disk: run.sh exits 2, runs nothing" 2 '^run.sh: no room for results in .*nothing run' \
			unshare -m sh -c 'mount -t tmpfs -o size=256k bl "$0" || exit 9
				mkdir "$0/r" && dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null
				"$1" --results "$0/r"; rc=$?
				[ -z "$(ls "$0/r")" ] || { echo "left: $(ls "$0/r")"; exit 3; }
				exit $rc' "$tmp/full" "$here/run.sh"
	else
		tap_skip "a full results disk: run.sh exits 2, runs nothing" "no private mount namespace (unshare -m)"
	fi
	# A kselftest's stdout is the harness's: one lost to /dev/full is a
	# KTAP with no plan, which the summary fails ("reported nothing").
	if "$bb" -q -b 1 -j - reuseaddr same 10 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)' &&
		"$here/bind_churn" -q -n 50 -R 1 -j - 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)'; then
		tap_ok "-j - is pure JSON on stdout (bind_bench, churn)"
	else
		tap_not_ok "-j - is pure JSON on stdout"
	fi
	expect "TMPDIR unusable: plot refuses, writes nothing into /" 2 'cannot make a temporary directory' \
		env TMPDIR=/nonexistent "$here/run.sh" plot -o "$out/p" "$out/a.json"
	if [ -e /before ] || [ -e /body.gp ]; then
		tap_not_ok "nothing written into /"
	else
		tap_ok "nothing written into /"
	fi
}

section_injection() {
	local out=$tmp/inj
	mkdir "$out"
	# Payloads that are valid gnuplot once pasted between quotes, relative
	# so that what gnuplot would run lands in $out (the plots run there).
	craft "$out/evil.json" "x'; system('touch pwned1'); print '" ms 10,11,12
	expect "a case id outside the grammar is refused when read" 2 "case id .* is not" "$res" summary "$out/evil.json"
	(cd "$out" && "$here/run.sh" plot evil.json) >/dev/null 2>&1
	craft "$out/good.json" x.case ms 10,11,12
	(cd "$out" && "$here/run.sh" plot -o "q'; system('touch pwned2'); print '" good.json) >/dev/null 2>&1
	(cd "$out" && "$here/run.sh" plot -o "\$(touch pwned3)" good.json) >/dev/null 2>&1
	if ls "$out"/pwned* >/dev/null 2>&1; then
		tap_not_ok "no id, prefix or file name becomes gnuplot or shell code" "$(ls "$out")"
	else
		tap_ok "no id, prefix or file name becomes gnuplot or shell code"
	fi
	if command -v gnuplot >/dev/null; then
		if [ -s "$out/q'; system('touch pwned2'); print '.svg" ]; then
			tap_ok "a prefix with quotes is a file name like any other"
		else
			tap_not_ok "a prefix with quotes is a file name like any other" "$(ls "$out")"
		fi
	fi
}

# phase_wait ID PATTERN: until a process of the trial matches PATTERN (60 s).
phase_wait() {
	local p
	for _ in $(seq 1 600); do
		for p in $(marked "$1"); do
			tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -Eq -- "$2" && return 0
		done
		sleep 0.1
	done
	return 1
}

# hang_tests ID: stop every process a kselftest program of the trial
# forked (its tests), as a hung test would be: only SIGKILL from
# whoever owns them can end them now.
hang_tests() {
	local p pp argv i stopped=()
	for p in $(marked "$1"); do
		pp=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$pp" ] || continue
		# The parent's program and first argument, not its whole line.
		argv=$(tr '\0' '\n' 2>/dev/null <"/proc/$pp/cmdline" | head -n 2 | tr '\n' ' ')
		case $argv in
		*/bind_bhash_test\ * | */tw_reuse_loopback\ * | */bind_fastreuse\ *)
			[[ $argv == *" churn "* ]] || { kill -STOP "$p" 2>/dev/null && stopped+=("$p"); }
			;;
		esac
	done
	# Stopped, not just sent SIGSTOP: the kernel wakes an orphaned group
	# (SIGHUP, SIGCONT) only if a member is stopped when its parent dies;
	# on a loaded machine the stop can land after that, and then nothing
	# ever continues it.
	for p in ${stopped[@]+"${stopped[@]}"}; do
		for i in $(seq 50); do
			[ "$(awk '/^State:/ { print $2 }' "/proc/$p/status" 2>/dev/null)" != R ] &&
				[ "$(awk '/^State:/ { print $2 }' "/proc/$p/status" 2>/dev/null)" != S ] && break
			sleep 0.1
		done
	done
}

# trial NAME SIGNAL PHASE-PATTERN CMD...: start CMD; once PHASE runs, its
# tests hang (hang_tests) and the top process alone gets SIGNAL (not the
# group, as a CI timeout may do it); everything must be gone within 10 s
# and stay gone. What ignores or defers the signal is still there at 10 s
# (a VM or a hung test: minutes); a fixed short wait instead would fail
# on a loaded machine, where the kernel's own cleanup (an orphaned stopped
# group's SIGHUP) waits for a CPU. With running=1 the tests run on, and
# the limit (limit=TENTHS) is shorter than what is left of them: they
# must not run to their end.
trial() {
	local name=$1 sig=$2 phase=$3 pid left i
	shift 3
	trial=kill$RANDOM$RANDOM
	# As from a terminal: a shell's background job would ignore SIGINT.
	BINDLAB_TRIAL=$trial env --default-signal "$@" >/dev/null 2>&1 &
	pid=$!
	if ! phase_wait "$trial" "$phase"; then
		tap_not_ok "$name: phase '$phase' reached"
		kill_marked "$trial"
		wait "$pid" 2>/dev/null
		return
	fi
	sleep 1
	[ -n "${running:-}" ] || hang_tests "$trial"
	kill -s "$sig" "$pid"
	for i in $(seq 0 "${limit:-100}"); do
		[ -n "$(marked "$trial")" ] || break
		sleep 0.1
	done
	# Nothing may come back: a runner that started its next phase.
	sleep 0.5
	left=$(marked "$trial" | while read -r p; do tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline"; echo; done)
	kill_marked "$trial"
	wait "$pid" 2>/dev/null
	trial=
	if [ -z "$left" ]; then
		tap_ok "$name: SIG$sig leaves nothing running # gone in $((i * 100)) ms"
	else
		tap_not_ok "$name: SIG$sig leaves nothing running" "after $((${limit:-100} / 10)) s: $left"
	fi
}

# Every signal a terminal or a CI sends, to the entry point; the C programs
# catch all of them in one handler (and run.sh's traps share on_signal), so
# one catchable signal and SIGKILL cover each other phase.
section_ownership() {
	local sig sigs=${BINDLAB_KILL_SIGNALS:-TERM INT HUP KILL}
	for sig in $sigs; do
		trial "run.sh in a kselftest" "$sig" 'bind_bhash_test' "$here/run.sh" --results "$tmp/k"
	done
	for sig in $sigs; do
		[ -n "${BINDLAB_KILL_SIGNALS:-}" ] || [ "$sig" = TERM ] || [ "$sig" = KILL ] || continue
		trial "run.sh in bind_bench" "$sig" 'bind_bench -q' \
			"$here/run.sh" --results "$tmp/k"
		trial "kselftest harness in a test" "$sig" 'bind_fastreuse' \
			"$here/bind_fastreuse"
		trial "bind_bench in a round" "$sig" 'bind_bench' "$bb" -q -r 50 reuseaddr same 12000
		trial "churn in a run" "$sig" 'bind_churn' "$here/bind_churn" -q -n 2000000 -t 30 -R 1
	done
	# The kselftest runner's timeout signals the program alone.
	trial "kselftest under timeout --foreground" TERM 'bind_fastreuse' \
		timeout --foreground 300 "$here/bind_fastreuse"
	# A test running, not hung, 6.5 s from its end: the harness runs it
	# in a grandchild, both in a group of their own, and must take them
	# along at once.
	running=1 limit=30 trial "a running test's harness" KILL 'tw_reuse_loopback' \
		"$here/tw_reuse_loopback" -r flowlabel_linger.v6.connect
}

section_no_netns() {
	local got
	expect "--no-netns refuses the initial network namespace (SKIP, exit 4)" 4 \
		'SKIP: --no-netns refuses the initial network namespace' "$bb" --no-netns -b 1 reuseaddr same 10
	# A namespace of our own, as made by hand (lo up, an address of the
	# user's) and fresh (lo down): the addresses and lo's flags after the
	# run are those before it. (Bringing lo up gives it 127.0.0.1 and a
	# qdisc for good: those are the kernel's, not ours to take back.)
	# shellcheck disable=SC2016 # expands in the inner shell
	got=$(unshare -n sh -c 'ip link set lo up && ip addr add 2001:db8::7/128 dev lo nodad &&
		a=$(ip -o addr show; ip -o link show lo)
		"$0" -q --no-netns -f 6 -b 1 reuseaddr 5 20 >/dev/null || echo "exit $?"
		b=$(ip -o addr show; ip -o link show lo)
		[ "$a" = "$b" ] || printf "%s\n--\n%s\n" "$a" "$b"' "$bb" 2>&1)
	# shellcheck disable=SC2016 # expands in the inner shell
	got=$got$(unshare -n sh -c 'state() { ip -o -6 addr show; ip -o link show lo | grep -o "<[^>]*>"; }
		a=$(state)
		"$0" -q --no-netns -f 6 -b 1 reuseaddr 5 20 >/dev/null || echo "exit $?"
		b=$(state)
		[ "$a" = "$b" ] || printf "%s\n--\n%s\n" "$a" "$b"' "$bb" 2>&1)
	if [ -z "$got" ]; then
		tap_ok "--no-netns undoes its addresses and lo up"
	else
		tap_not_ok "--no-netns undoes its addresses and lo up" "$got"
	fi
}

section_bounded() {
	local out=$tmp/bnd
	mkdir "$out"
	mkfifo "$out/fifo.json"
	expect "a FIFO as a result file is refused, not read forever" 2 'not a regular file' \
		"$res" summary "$out/fifo.json"
	craft "$out/r.json" x.case ms 10,11,12
	python3 - "$out/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"][0]["verdict"] = {"status": "regressed"}
json.dump(d, open(sys.argv[1], "w"))
PY
	# Known regressions are decided when results are merged (store_verdict).
	expect "BINDLAB_XFAIL_FILE=/dev/zero does not hang, and is refused" 2 'not a regular file' \
		env BINDLAB_XFAIL_FILE=/dev/zero "$res" merge "$out/m.json" "$out/r.json"
	expect "--ktap FIFO does not hang" 2 'not a regular file' \
		"$res" merge "$out/m.json" --ktap "p=$out/fifo.json"
	craft "$out/big.json" x.case ms 1.5
	python3 - "$out/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"][0]["metric"]["samples"] = [1.5] * 3000000
json.dump(d, open(sys.argv[1], "w"))
PY
	expect "3M samples are refused at once" 2 'more than 100000' "$res" summary "$out/big.json"
	local v c_ok s_ok bad=""
	for v in 0 1 65535 65536 -1 007 0x10 +5 ' 5' '5 ' 1e3 '' - 99999999999999999999; do
		env BINDLAB_CHECK_ARGS=1 "$bb" -b 1 -p "$v" reuseaddr same 10 >/dev/null 2>&1 && c_ok=1 || c_ok=0
		bl_num "$v" 0 65535 && s_ok=1 || s_ok=0
		[ "$c_ok" = "$s_ok" ] || bad="$bad '$v'"
	done
	if [ -z "$bad" ]; then
		tap_ok "C and shell number parsers agree on a table of odd numbers"
	else
		tap_not_ok "C and shell number parsers agree" "differ on:$bad"
	fi
}

section_result_files() {
	local out=$tmp/rf s=10,10.2,9.9,10.1,9.8
	mkdir "$out"
	craft "$out/ms.json" x.case ms "$s"
	craft "$out/s.json" x.case s "$s" 100 0.1.0 t1
	expect "different units are not compared" 2 'different units \(ms vs s\)' "$res" compare "$out/ms.json" "$out/s.json"
	cp "$out/ms.json" "$out/copy.json"
	expect "a copy under another name is the same run" 2 'holds the same results' \
		"$res" compare "$out/ms.json" "$out/copy.json"
	craft "$out/zero.json" x.case ms 0,10,11
	expect "a zero sample is refused when read" 2 'samples\[0\] is not a number in' "$res" summary "$out/zero.json"
	craft "$out/huge.json" x.case ms 1e300,10,11
	expect "an absurd sample is refused when read" 2 'samples\[0\] is not a number in' "$res" summary "$out/huge.json"
	craft "$out/n200.json" x.case ms "$s" 200 0.1.0 t2
	expect "merge refuses to pool cases whose parameters differ" 2 "cannot pool x.case: parameter 'n' differs" \
		"$res" merge "$out/m.json" "$out/ms.json" "$out/n200.json"
	craft "$out/h2.json" x.case ms "$s" 100 0.2.0 t3
	expect "merge refuses to pool other harness series" 2 'cannot pool x.case: harness 0.1.0 vs 0.2.0' \
		"$res" merge "$out/m.json" "$out/ms.json" "$out/h2.json"
	expect "merge refuses a copy" 2 'holds the same results' "$res" merge "$out/m.json" "$out/ms.json" "$out/copy.json"
	if [ -e "$out/m.json" ]; then
		tap_not_ok "refused merges write nothing"
	else
		tap_ok "refused merges write nothing"
	fi
}

# /dev as names and types: a rename over a device or a file left there
# shows. (pts and shm come and go with sessions.)
dev_state() {
	find /dev -maxdepth 1 ! -name pts ! -name shm -printf '%y %M %p\n' | sort
}

make -s -C "$here" >/dev/null || { tap_not_ok "build"; tap_done; exit 1; }
echo "# CAP_SYS_RESOURCE: $(bl_sys_resource)"
dev_state >"$tmp/dev.before"
# Sections named on the command line, or all of them.
[ $# -gt 0 ] || set -- verdicts writer injection no_netns bounded result_files ownership
for section in "$@"; do
	"section_$section"
done
dev_state >"$tmp/dev.after"
if diff -u "$tmp/dev.before" "$tmp/dev.after" >"$tmp/dev.diff"; then
	tap_ok "/dev is as it was"
else
	tap_not_ok "/dev is as it was" "$(head -n 10 "$tmp/dev.diff")"
fi
tap_done
