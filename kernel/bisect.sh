#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One step of `git bisect run`: build the checked-out kernel, boot it, run a
# case of the case table (../cases) against a threshold, or a test command,
# and answer with the exit code git bisect understands.

set -euo pipefail
# A mistyped `git bisect run` must abort the bisect, not mark commits bad.
# shellcheck disable=SC2034 # read by lib.sh
BL_USAGE_EXIT=128
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../scripts/cases.sh
. "$BL_REPO_DIR/scripts/cases.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] --case NAME --threshold V
       $BL_PROG [options] --test COMMAND [ARG...]
  For git bisect run, from inside a kernel git tree: build the checked-out
  commit (kernel/build.sh, one incremental build dir for all steps), boot it
  (kernel/vm.sh) and judge it.
  --case: a case of the case table (./run.sh cases), its command with
    -r ROUNDS in the guest; the commit is good (old) when the median of the
    rounds in its --json result is on the good side of V, in the case's
    unit and direction: <= V when lower is better (bind_bench, ms), >= V
    when higher is better (churn, conn/s).
  --test: run COMMAND in the guest (the rest of the line, e.g.
    bind_bhash_test -r FIXTURE.VARIANT.TEST); good when it exits 0.
options:
  -t, --tree DIR        kernel tree (default: the current directory)
  -b, --build-dir DIR   build directory, O= (default
                        \$BINDLAB_CACHE/build/TREE-bisect)
  -n, --size N          the case's {N} (default the table's FULL_N)
  -r, --rounds R        rounds (default 3)
  -T, --timeout SEC     VM timeout (default 1800)
  -a, --accel MODE      auto, kvm or tcg (see vm.sh)
  -o, --out DIR         keep each step's results in DIR/COMMIT (default
                        \$BINDLAB_CACHE/runs/bisect-TREE)
  -h, --help            this text
exit (git bisect run's convention):
  0    good / old term (e.g. "fast"): on the good side of V, or the test passed
  1    bad / new term (e.g. "slow"): on the bad side, or the test failed
  125  skip: the commit does not build or boot (panic, hang, timeout), the
       case or test skipped (exit 4), or the case left no result file
  128  abort the bisect: bad arguments or a harness error (qemu missing)
example, with custom terms:
  git bisect start --term-old fast --term-new slow
  git bisect fast v6.12; git bisect slow HEAD
  git bisect run /path/to/bindlab/kernel/bisect.sh \\
	--case bind_fastreuse.v4_reuseaddr_same.total_ms --threshold 500
EOF
}

tree=.
bcase=
threshold=
size=
rounds=3
vm_timeout=1800
accel=${BINDLAB_ACCEL:-auto}
out=
build_dir=
test_cmd=()

while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; tree=$2; shift ;;
	-b|--build-dir) bl_need_arg "$1" $# "${2-}"; build_dir=$2; shift ;;
	--case) bl_need_arg "$1" $# "${2-}"; bcase=$2; shift ;;
	--threshold) bl_need_arg "$1" $# "${2-}"; threshold=$2; shift ;;
	-n|--size) bl_need_arg "$1" $# "${2-}"; size=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; rounds=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; vm_timeout=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; accel=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	--test) shift; test_cmd=("$@"); break ;;
	-h|--help) usage; exit 0 ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done

# bl_check_args WHAT PROGRAM ARGS...: the program validates its own command
# line (BINDLAB_CHECK_ARGS=1 runs nothing); its one-line error aborts.
bl_check_args()
{
	local what=$1 prog=$BL_REPO_DIR/$2 why

	shift 2
	[ -x "$prog" ] || bl_usage_error "$what: $prog is not built (make -C $BL_REPO_DIR)"
	why=$(BINDLAB_CHECK_ARGS=1 "$prog" "$@" 2>&1 > /dev/null) ||
		bl_usage_error "$what: $(printf '%s\n' "$why" | head -n 1)"
}

# check_case: the case, its size and threshold, before any build.
check_case()
{
	local why

	[ ${#test_cmd[@]} -eq 0 ] || bl_usage_error "give --case or --test, not both"
	bl_cases_load || exit 128
	bl_case_known "$bcase" || bl_usage_error "no case '$bcase' in the table (./run.sh cases)"
	[ -n "$size" ] || size=$(bl_case_field "$bcase" full_n)
	bl_want_uint --size "$size" 1
	# The program's own parser: what bisect accepts is what the guest runs.
	why=$(bl_case_check_args "$bcase" "$size" "$rounds") ||
		bl_usage_error "--case $bcase: $why"
	[ -n "$threshold" ] ||
		bl_usage_error "--case needs --threshold (in $(bl_case_field "$bcase" unit))"
	[[ $threshold =~ ^[0-9]+(\.[0-9]+)?$ ]] || bl_usage_error "--threshold wants a number"
}

check_test()
{
	[ ${#test_cmd[@]} -gt 0 ] || bl_usage_error "give --case or --test"
	# A filter that selects no test, a stray word: refused before a build.
	bl_programs || exit 128
	if [[ " $BL_KSELFTESTS $BL_TOOLS " == *" ${test_cmd[0]} "* ]]; then
		bl_check_args "--test" "${test_cmd[@]}"
	fi
	[ -z "$threshold$size" ] || bl_usage_error "--threshold and --size go with --case"
}

# judge_case RC: good (0) or bad (1) from the case's JSON result; 125
# when there is none to judge.
judge_case()
{
	local stats median min max n unit side verdict

	case $1 in
	0) ;;
	4) bl_log "$commit: $bcase skipped: skip"; exit 125 ;;
	*) bl_log "$commit: $bcase exit $1: skip"; exit 125 ;;
	esac
	# The result file, read and validated by bindlab_results: no text.
	stats=$("$BL_REPO_DIR/bindlab_results" samples "$run/result.json" | bl_median) || stats=
	[ -n "$stats" ] || { bl_log "$commit: no result file from $bcase: skip"; exit 125; }
	read -r median min max n <<< "$stats"
	unit=$(bl_case_field "$bcase" unit)
	side=">="
	[ "$(bl_case_field "$bcase" better)" = higher ] || side="<="
	if awk -v m="$median" -v l="$threshold" -v s="$side" \
		'BEGIN { exit !(s == "<=" ? m <= l : m >= l) }'; then
		verdict=good
	else
		verdict=bad
	fi
	bl_log "$commit: $bcase: median $median $unit (min $min, max $max, n $n), good when $side $threshold: $verdict"
	[ "$verdict" = good ]
}

bl_want_uint --rounds "$rounds" 1
bl_want_uint --timeout "$vm_timeout" 1
if [ -n "$bcase" ]; then
	check_case
else
	check_test
fi
[ -d "$tree" ] || bl_usage_error "no such tree: $tree"
tree=$(cd "$tree" && pwd)

commit=$(git -C "$tree" rev-parse --short HEAD 2> /dev/null) || commit=worktree
treekey=$(basename "$tree")-$(printf %s "$tree" | bl_short_hash)
[ -n "$out" ] || out=$BINDLAB_CACHE/runs/bisect-$treekey
run=$out/$commit
mkdir -p "$run"
rm -f "$run/result.json"

# Every step reuses one build directory: a step rebuilds only what the
# checkout changed.
image=$("$BL_KERNEL_DIR/build.sh" --tree "$tree" --name bisect \
	${build_dir:+--out "$build_dir"} | tail -n 1) || {
	bl_log "$commit: build failed: skip"
	exit 125
}

rc=0
if [ -n "$bcase" ]; then
	bl_case_argv "$bcase" "$size" "$rounds" result.json
	"$BL_KERNEL_DIR/vm.sh" -k "$image" -o "$run" -T "$vm_timeout" -a "$accel" -- \
		"${BL_CASE_ARGV[@]}" > /dev/null || rc=$?
else
	"$BL_KERNEL_DIR/vm.sh" -k "$image" -o "$run" -T "$vm_timeout" -a "$accel" -- \
		"${test_cmd[@]}" > /dev/null || rc=$?
fi
vm_status=$(cat "$run/vm_status" 2> /dev/null || echo none)
if [ "$vm_status" != ok ]; then
	if [ "$rc" = 126 ]; then
		bl_log "$commit: harness error: abort"
		exit 128
	fi
	bl_log "$commit: no result from the VM ($vm_status): skip"
	exit 125
fi

if [ -z "$bcase" ]; then
	case $rc in
	0) bl_log "$commit: test passed: good"; exit 0 ;;
	4) bl_log "$commit: test skipped: skip"; exit 125 ;;
	*) bl_log "$commit: test failed (exit $rc): bad"; exit 1 ;;
	esac
fi
judge_case "$rc"
