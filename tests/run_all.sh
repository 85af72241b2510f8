#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (./run.sh test, make check): unit tests of
# the library, the inventory of inputs, the command-line contract, bad inputs and fail-closed
# verdicts, the kselftests on the running kernel, the result-file tools, the documents' commands,
# style gates, sanitizers, fuzzing, host safety under SIGKILL and, unless
# BINDLAB_KERNEL_LAB=0, the kernel lab and a LAVA server running its
# kernels. Every component speaks TAP/KTAP; tests/tap_report.awk counts its
# cases and shows each failing case's own diagnostics. Ends with one
# line: "check: N passed, N failed, N skipped". Exit 0 when nothing failed,
# else 1.
#
# Three lanes, each its components in turn: the host components that
# time or signal what they test (unprefixed), the gates that time nothing
# (documents' commands, KTAP, compare, locales, style, sanitizers,
# fuzzers; lines prefixed "gate| ") and the kernel lab (kernel builds and
# VMs; "lab| ", its image readers "lab| lab2| " beside mutate). Which
# lane holds a gate only evens out their lengths. All run at the
# caller's priority: a lane at nice 19 starves beside any other
# load on a shared machine (the lab beside two busy loops: over 22 min).
# No lane touches what another's checks read: the lab's VMs and chroot
# and every test's sockets and mounts live in namespaces of their own.
#
# The running kernel is not what is judged here: a failing host kselftest
# that tests/kernel_detectors lists, and that the kernel lab proved in
# this run, is reported as a regression of the running kernel, with its
# figures, and does not fail the run.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/strict.sh
. "$here/scripts/strict.sh"
logs=${BINDLAB_CHECK_LOGS:-$here/results/check-$(date +%Y%m%d-%H%M%S)-$$}
detectors=$here/tests/kernel_detectors
# A component that prints nothing new for this long gets a line anyway.
beat=${BINDLAB_CHECK_BEAT:-30}

mkdir -p "$logs" || { echo "run_all: cannot create $logs" >&2; exit 1; }
# Components that watch the repository for writes skip this folder: the
# lab's lane writes its logs there while they run.
export BINDLAB_CHECK_LOGS=$logs
pass=0 fail=0 skip=0 xfail=0
failed_parts=""
child=

# A signal to the test command ends the component it is running, children
# included, before it goes.
kill_tree() {
	local c

	for c in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null
}
prep=
lanes=()
trap '[ -n "$child" ] && kill_tree "$child"; [ -n "$prep" ] && kill_tree "$prep"; for l in "${lanes[@]}"; do kill_tree "${l#*:}"; done; exit 1' INT TERM HUP

# heartbeat NAME LOG: while the component runs, a line every $beat seconds
# with its latest output line, so that CI logs show what it is doing.
heartbeat() {
	local name=$1 log=$2 t0=$SECONDS next=$((SECONDS + beat)) last

	while kill -0 "$child" 2>/dev/null; do
		sleep 1
		[ "$SECONDS" -ge "$next" ] || continue
		next=$((next + beat))
		last=$(tail -n 1 "$log" 2>/dev/null | cut -c 1-120)
		echo "   .. $name: $((SECONDS - t0)) s: ${last:-(no output yet)}"
	done
}

# cpu_s FILE: cpu, the CPU seconds (user + system, whole) that FILE, the
# output of bash's times after a component, gives its children: what it
# cost the machine, which its wall time on a loaded one does not tell.
cpu_s() {
	local u s

	cpu=0
	{ { read -r _ && read -r u s; } <"$1"; } 2>/dev/null || return 0
	for u in "$u" "$s"; do
		u=${u%s}
		s=${u#*m}
		cpu=$((cpu + 10#${u%%m*} * 60 + 10#${s%.*}))
	done
}

# run_part NAME [--kernel] CMD...: run one component, report its cases.
# --kernel: its failing cases may be verdicts on the running kernel.
run_part() {
	local name=$1 log=$logs/$1.log det="" rc p f s x k t0=$SECONDS

	shift
	if [ "$1" = --kernel ]; then
		det=$detectors
		shift
	fi
	echo "== $name: $* (log: $log)"
	# Its own times, not the lane's: a lane reaps other lanes too.
	bash -c '"$@"; rc=$?; times >"$0"; exit $rc' "$logs/$name.times" "$@" >"$log" 2>&1 </dev/null &
	child=$!
	heartbeat "$name" "$log"
	wait "$child"
	rc=$?
	child=
	: >"$logs/$name.verdicts"
	awk -v counts="$logs/$name.counts" -v logfile="$log" \
		-v detectors="$det" -v verdicts="$logs/$name.verdicts" \
		-f "$here/tests/tap_report.awk" "$log" | tee "$logs/$name.report"
	read -r p f s x k <"$logs/$name.counts"
	# A kselftest's exit 1 means a case failed; its cases say which.
	# Any other non-zero exit but 4 (a whole-component SKIP) is a
	# failure of its own: a crash, a timeout, a broken script.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && ! { [ "$rc" -eq 1 ] && [ $((f + k)) -gt 0 ]; }; then
		f=$((f + 1))
		echo "  not ok $name # exit $rc with no failing case to explain it; last lines of $log:" |
			tee -a "$logs/$name.report"
		tail -n 20 "$log" | sed 's/^/  | /'
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) xfail=$((xfail + x))
	[ "$f" -gt 0 ] && failed_parts="$failed_parts $name"
	[ "$k" -gt 0 ] && k=", $k kernel verdicts" || k=
	cpu_s "$logs/$name.times"
	echo "== $name: exit $rc, $((SECONDS - t0)) s (CPU $cpu s); $p passed, $f failed, $s skipped, $x xfail$k"
}

# lab_proved CHECK...: each CHECK is an "ok" (not SKIP) line of the lab.
lab_proved() {
	local c

	for c in "$@"; do
		grep -qE "^ok [0-9]+ ${c//./\\.}( |$)" "$logs/kernel_lab.log" 2>/dev/null || return 1
		grep -qE "^ok [0-9]+ ${c//./\\.} # SKIP" "$logs/kernel_lab.log" && return 1
	done
	return 0
}

# The host's kernel verdicts: each fact with its tests, and whether the lab
# proved its detector; an unproven one fails the run.
kernel_report() {
	local fact n tests checks=()

	if [ ! -s "$logs/kselftest.verdicts" ]; then
		echo "kernel $(uname -r): no regression detected by the kselftests"
		return
	fi
	while read -r fact; do
		n=$(grep -c "^$fact	" "$logs/kselftest.verdicts")
		tests=$(awk -v f="$fact" '$1 == f { printf " %s", $2 }' "$logs/kselftest.verdicts")
		IFS=, read -ra checks < <(awk -v f="$fact" '!/^#/ && $1 == f { print $3; exit }' "$detectors")
		if [ ${#checks[@]} -gt 0 ] && lab_proved "${checks[@]}"; then
			pass=$((pass + n))
			echo "kernel $(uname -r): REGRESSION $fact in $n tests (figures under each above; the lab proved this detector: ${checks[*]}):$tests"
		else
			fail=$((fail + n))
			failed_parts="$failed_parts kselftest"
			echo "not ok kernel verdict $fact: $n tests failed, and the kernel lab did not prove this detector in this run (${checks[*]}):$tests"
		fi
	done < <(cut -f 1 "$logs/kselftest.verdicts" | sort -u)
}

# The known kernel bugs bind_model_test showed on the host (its
# known_bug.BUG.kernel tests, read by tests/known_bugs.awk): each with
# its report, kernel/bugs/BUG/report.md. The harness counts an XFAIL and
# an XPASS (a kernel that fixed the bug) as passed, so this is where
# either is said; a test that names no bug, or a bug with no report,
# fails the run.
known_bug_report() {
	local bug state report

	while read -r bug state report; do
		[ "$state" = has ] || [ "$state" = fixed ] || continue
		if [ "$report" = none ]; then
			fail=$((fail + 1))
			failed_parts="$failed_parts kselftest"
			echo "not ok kernel known bug $bug: its test names no bug, or there is no kernel/bugs/$bug/report.md"
		elif [ "$state" = has ]; then
			echo "kernel $(uname -r): KNOWN BUG $bug (known_bug.$bug.kernel XFAIL): $report"
		else
			echo "kernel $(uname -r): FIXED known bug $bug (known_bug.$bug.kernel XPASS, counted as passed): $report"
		fi
	done < <(awk -v root="$here" -f "$here/tests/known_bugs.awk" "$logs/kselftest.log" 2>/dev/null)
}

# lab_lane: the kernel lab's components, in the order each needs the one
# before it.
lab_lane() {
	# The lab scripts' own default is nice 19, for a developer's desktop.
	export BINDLAB_NICE=${BINDLAB_NICE:-0}
	# The LAVA root (debootstrap and Debian's LAVA packages: minutes cold,
	# mostly waiting on the mirror) is built while the lab builds kernels;
	# lava_server_test.sh waits on its lock and builds it itself if this
	# failed.
	"$here/kernel/lava-server.sh" --prepare >"$logs/lava_root.log" 2>&1 </dev/null &
	prep=$!
	run_part kernel_lab "$here/tests/kernel_lab_test.sh"
	# What reads the lab's images and history, beside the one component
	# that changes its tree.
	start_lane lab2 lab_images_lane
	# The mutation machinery's fixed sample, in the lab's warm O= tree.
	run_part mutate "$here/tests/mutate_test.sh"
	# The lab's 6.12 tree configures the fleets' way: here, after the
	# mutants, not in lab2, the longer of the two.
	run_part config "$here/tests/config_test.sh"
	wait "$prep"
	prep=
	join_lanes
}

# lab_images_lane: the lab's kernels under LAVA and as NIPA boots them,
# read only.
lab_images_lane() {
	# A LAVA server in the lab runs the lab's stock and fixed jobs at once
	# (the root: lava-server.sh --prepare, waited for on its lock).
	run_part lava_server "$here/tests/lava_server_test.sh"
	# The patches, and the net-next selftest in the lab's stock and fixed
	# kernels.
	run_part upstream "$here/tests/upstream_test.sh"
}

# gate_lane: checks that time nothing, so that a busy core beside them
# changes no verdict.
gate_lane() {
	# Every command the documents show, as printed (those that boot no kernel).
	run_part readme "$here/tests/readme_test.sh"
	run_part ktap "$here/tests/ktap_test.sh"
	run_part compare "$here/tests/compare_test.sh"
	run_part names "$here/tests/names_test.sh"
	run_part lava "$here/tests/lava_test.sh"
	run_part locale "$here/tests/locale_test.sh"
	run_part style "$here/tests/style_test.sh"
	run_part sanitize "$here/tests/sanitize_test.sh"
	run_part fuzz "$here/tests/fuzz_test.sh"
	run_part fuzz_entry "$here/tests/fuzz_entry_test.sh"
	# bisect.sh's exit codes on fakes (its own cache): here, the lane
	# that ends first, not behind the lab's VMs.
	run_part bisect_exit "$here/tests/bisect_exit_test.sh"
}

# start_lane NAME FUNC: FUNC's components in the background, each line
# prefixed "NAME| "; its counts go to $logs/NAME.lane for join_lanes.
# shellcheck disable=SC2031 # each lane resets its own copy, on purpose
start_lane() {
	{
		(
			trap '[ -n "$child" ] && kill_tree "$child"; [ -n "$prep" ] && kill_tree "$prep"; exit 1' INT TERM HUP
			# Its own counts and lanes only: a lane started by a
			# lane would otherwise report its parent's so far a
			# second time, and wait for its parent's siblings.
			# shellcheck disable=SC2030 # the lane's own, on purpose
			pass=0 fail=0 skip=0 xfail=0 failed_parts='' lanes=()
			"$2"
			echo "$pass $fail $skip $xfail$failed_parts" >"$logs/$1.lane"
		) 2>&1 </dev/null | sed -u "s/^/$1| /"
	} &
	lanes+=("$1:$!")
}

# join_lanes: wait for each lane and add its counts; a lane that died
# before its last line is a failure of its own.
# shellcheck disable=SC2031 # the lanes' counts come back in files
join_lanes() {
	local l p f s x parts

	for l in "${lanes[@]}"; do
		echo "== waiting for the ${l%%:*} lane"
		wait "${l#*:}"
		if read -r p f s x parts <"$logs/${l%%:*}.lane" 2>/dev/null; then
			pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) xfail=$((xfail + x))
			failed_parts="$failed_parts $parts"
		else
			fail=$((fail + 1))
			failed_parts="$failed_parts ${l%%:*}"
			echo "not ok ${l%%:*} lane: ended without its counts ($logs/${l%%:*}.lane)"
		fi
	done
	lanes=()
}

echo "check: logs in $logs"
if [ "${BINDLAB_KERNEL_LAB:-1}" != 0 ]; then
	start_lane lab lab_lane
fi
start_lane gate gate_lane
run_part unit "$here/tests/lib_test"
run_part layout "$here/tests/layout_test.sh"
run_part cli "$here/tests/cli_test.sh"
run_part inventory "$here/tests/inventory_test.sh"
run_part bad_input "$here/tests/bad_input_test.sh"
run_part degraded "$here/tests/degraded_test.sh"
run_part fail_closed "$here/tests/fail_closed_test.sh"
# The kernel's raw verdicts: no declared known regressions here.
run_part kselftest --kernel env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE -u KSFT_MACHINE_SLOW \
	make -s -C "$here" run_tests
run_part known_bug "$here/tests/known_bug_test.sh"
run_part host_safety "$here/tests/host_safety_test.sh"
# Gates that time nothing, here to even out the lanes' lengths.
run_part fuzz_inputs "$here/tests/fuzz_inputs_test.sh"
run_part mutants_table "$here/tests/mutants_table_test.sh"
# The lab scripts' kill matrix, on fakes (its own cache, its processes
# tagged): here, not behind the lab's VMs and mutants, the longest lane.
run_part lab_kill "$here/tests/lab_kill_test.sh"
if [ "${BINDLAB_KERNEL_LAB:-1}" = 0 ]; then
	run_part upstream "$here/tests/upstream_test.sh"
fi
join_lanes
echo
kernel_report
known_bug_report
[ "$xfail" -gt 0 ] && echo "xfail: $xfail declared known regressions (counted as passed)"
# The failing cases again, last, each with its first two lines of why
# (not the harness's RUN/FAIL markers): a CI page that keeps only the
# tail of this output still names them, and says what went wrong.
cat "$logs"/*.report 2>/dev/null | LC_ALL=C awk '
	/^  not ok/ && !/# kernel verdict/ { if (++cases > 20) exit; n = 2; print; next }
	!/^  # / { n = 0; next }
	n && !/^  # #  *(RUN|OK|FAIL|SKIP) / && !/Test terminated by assertion/ { print; n-- }' |
	sed 's/^  /failed: /'
[ -n "${failed_parts// }" ] && echo "failed components:$(tr ' ' '\n' <<<"$failed_parts" | sort -u | tr '\n' ' ')"
echo "check: $((pass + xfail)) passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
