#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (make check): unit tests of the library, the
# command-line contract and bad inputs, the kselftests under kselftest's
# own runner, the result-file tools, style gates, sanitizers, fuzzing, host
# safety under SIGKILL and, unless BINDLAB_KERNEL_LAB=0, the kernel lab.
# Every component speaks TAP/KTAP; this adds up the individual cases and
# ends with one line: "check: N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

pass=0 fail=0 skip=0 xfail=0
failed_parts=""

# counts FILE: "pass fail skip xfail" of one component's TAP results.
counts() {
	local p f s x
	# Nested KTAP from the kselftest runner is prefixed with "# ".
	p=$(grep -Ec '^(# )?ok [0-9]+ ' "$1")
	s=$(grep -Ec '^(# )?ok [0-9]+ .*# SKIP' "$1")
	x=$(grep -Ec '^(# )?ok [0-9]+ .*# XFAIL' "$1")
	f=$(grep -Ec '^(# )?not ok [0-9]+ ' "$1")
	echo "$((p - s - x)) $f $s $x"
}

run_part() {
	local name=$1 rc p f s x
	shift
	echo "== $name: $*"
	"$@" >"$log/$name" 2>&1
	rc=$?
	# Every result, and the diagnostics under a failing one.
	awk '/^(# )?(not )?ok [0-9]+ /{ show = /not ok/; print "  " $0; next }
	     show && /^#/ { print "  " $0 }' "$log/$name"
	read -r p f s x < <(counts "$log/$name")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) xfail=$((xfail + x))
	echo "== $name: exit $rc; $p passed, $f failed, $s skipped, $x xfail"
	# Exit 4 is a whole-component SKIP; any other non-zero with no failing
	# case (a crash, a timeout) still counts as one failure.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		fail=$((fail + 1))
		tail -n 20 "$log/$name" | sed 's/^/  | /'
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
		failed_parts="$failed_parts $name"
	fi
}

run_part unit "$here/tests/lib_test"
run_part cli "$here/tests/cli_test.sh"
run_part bad_input "$here/tests/bad_input_test.sh"
run_part degraded "$here/tests/degraded_test.sh"
run_part kselftest make -s -C "$here" run_tests
run_part compare "$here/tests/compare_test.sh"
run_part style "$here/tests/style_test.sh"
run_part sanitize "$here/tests/sanitize_test.sh"
run_part fuzz "$here/tests/fuzz_test.sh"
run_part host_safety "$here/tests/host_safety_test.sh"
if [ "${BINDLAB_KERNEL_LAB:-1}" != 0 ] && [ -x "$here/tests/kernel_lab_test.sh" ]; then
	run_part kernel_lab "$here/tests/kernel_lab_test.sh"
fi

[ "$xfail" -gt 0 ] && echo "xfail: $xfail declared known regressions of this kernel (counted as passed)"
[ -n "$failed_parts" ] && echo "failed components:$failed_parts"
echo "check: $((pass + xfail)) passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ -z "$failed_parts" ]
