#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One step of `git bisect run`: build the checked-out kernel, boot it, run a
# bind_bench case against a threshold or a test command, and answer with the
# exit code git bisect understands.

set -euo pipefail
# A mistyped `git bisect run` must abort the bisect, not mark commits bad.
# shellcheck disable=SC2034 # read by lib.sh
BL_USAGE_EXIT=128
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] --bench "MODE ADDRESSES N" (--max-ms MS | --max-growth G)
       $BL_PROG [options] --test COMMAND [ARG...]
  For git bisect run, from inside a kernel git tree: build the checked-out
  commit (kernel/build.sh, one incremental build dir for all steps), boot it
  (kernel/vm.sh) and judge it.
  --bench: bind_bench -r ROUNDS MODE ADDRESSES N in the guest; the commit is
    good (old) when the median total bind() time over the rounds is <= MS,
    or the median growth (last 10% / first 10% of binds) is <= G.
  --test: run COMMAND in the guest (the rest of the line, e.g.
    bind_bhash_test -r FIXTURE.VARIANT.TEST); good when it exits 0.
options:
  -t, --tree DIR        kernel tree (default: the current directory)
  -b, --build-dir DIR   build directory, O= (default
                        \$BINDLAB_CACHE/build/TREE-bisect)
  -r, --rounds R        bench rounds (default 3)
  -T, --timeout SEC     VM timeout (default 1800)
  -a, --accel MODE      auto, kvm or tcg (see vm.sh)
  -o, --out DIR         keep each step's results in DIR/COMMIT (default
                        \$BINDLAB_CACHE/runs/bisect-TREE)
  -h, --help            this text
exit (git bisect run's convention):
  0    good / old term (e.g. "fast"): under the threshold, or the test passed
  1    bad / new term (e.g. "slow"): over the threshold, or the test failed
  125  skip: the commit does not build or boot (panic, hang, timeout),
       or the test skipped (exit 4) or printed no result
  128  abort the bisect: bad arguments or a harness error (qemu missing)
example, with custom terms:
  git bisect start --term-old fast --term-new slow
  git bisect fast v6.12; git bisect slow HEAD
  git bisect run /path/to/bindlab/kernel/bisect.sh \\
	--bench "reuseaddr same 16000" --max-ms 500
EOF
}

tree=.
bench=
max_ms=
max_growth=
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
	--bench) bl_need_arg "$1" $# "${2-}"; bench=$2; shift ;;
	--max-ms) bl_need_arg "$1" $# "${2-}"; max_ms=$2; shift ;;
	--max-growth) bl_need_arg "$1" $# "${2-}"; max_growth=$2; shift ;;
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

bl_want_uint --rounds "$rounds" 1
bl_want_uint --timeout "$vm_timeout" 1
if [ -n "$bench" ]; then
	[ ${#test_cmd[@]} -eq 0 ] || bl_usage_error "give --bench or --test, not both"
	[[ $bench =~ ^[^\ ]+\ [^\ ]+\ [^\ ]+$ ]] ||
		bl_usage_error "--bench wants \"MODE ADDRESSES N\", e.g. \"reuseaddr same 16000\""
	# bind_bench's own parser: what bisect accepts is what the guest runs.
	# shellcheck disable=SC2086 # MODE ADDRESSES N are three words
	bl_check_args "--bench" bind_bench -r "$rounds" $bench
	[ -n "$max_ms$max_growth" ] || bl_usage_error "--bench needs --max-ms or --max-growth"
	[ -z "$max_ms" ] || [ -z "$max_growth" ] || bl_usage_error "--max-ms or --max-growth, not both"
	[[ $max_ms$max_growth =~ ^[0-9]+(\.[0-9]+)?$ ]] || bl_usage_error "threshold wants a number"
else
	[ ${#test_cmd[@]} -gt 0 ] || bl_usage_error "give --bench or --test"
	# A filter that selects no test, a stray word: refused before a build.
	bl_programs || exit 128
	if [[ " $BL_KSELFTESTS $BL_TOOLS " == *" ${test_cmd[0]} "* ]]; then
		bl_check_args "--test" "${test_cmd[@]}"
	fi
	[ -z "$max_ms$max_growth" ] || bl_usage_error "--max-ms/--max-growth go with --bench"
fi
[ -d "$tree" ] || bl_usage_error "no such tree: $tree"
tree=$(cd "$tree" && pwd)

commit=$(git -C "$tree" rev-parse --short HEAD 2> /dev/null) || commit=worktree
treekey=$(basename "$tree")-$(printf %s "$tree" | bl_short_hash)
[ -n "$out" ] || out=$BINDLAB_CACHE/runs/bisect-$treekey
run=$out/$commit
mkdir -p "$run"

# Every step reuses one build directory: a step rebuilds only what the
# checkout changed.
image=$("$BL_KERNEL_DIR/build.sh" --tree "$tree" --name bisect \
	${build_dir:+--out "$build_dir"} | tail -n 1) || {
	bl_log "$commit: build failed: skip"
	exit 125
}

rc=0
if [ -n "$bench" ]; then
	# shellcheck disable=SC2086 # MODE ADDRESSES N are three words
	"$BL_KERNEL_DIR/vm.sh" -k "$image" -o "$run" -T "$vm_timeout" -a "$accel" -- \
		bind_bench -r "$rounds" $bench > /dev/null || rc=$?
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

if [ -z "$bench" ]; then
	case $rc in
	0) bl_log "$commit: test passed: good"; exit 0 ;;
	4) bl_log "$commit: test skipped: skip"; exit 125 ;;
	*) bl_log "$commit: test failed (exit $rc): bad"; exit 1 ;;
	esac
fi

[ "$rc" = 0 ] || { bl_log "$commit: bind_bench exit $rc: skip"; exit 125; }
case_id=${bench% *}
if [ -n "$max_ms" ]; then
	what=total_ms
	limit=$max_ms
	stats=$(bl_bench_totals "$case_id" "$run/output.log" | bl_median)
else
	what=growth
	limit=$max_growth
	stats=$(bl_bench_growth "$case_id" "$run/output.log" | bl_median)
fi
[ -n "$stats" ] || { bl_log "$commit: no bind_bench rounds in output: skip"; exit 125; }
read -r median min max n <<< "$stats"
if awk -v m="$median" -v l="$limit" 'BEGIN { exit !(m <= l) }'; then
	verdict=good
else
	verdict=bad
fi
bl_log "$commit: $bench: $what median $median (min $min, max $max, n $n), limit $limit: $verdict"
[ "$verdict" = good ]
