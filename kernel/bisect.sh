#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One step of `git bisect run`: build the checked-out kernel, boot it, run a
# case of the case table (../cases) against a threshold, or a test command,
# and answer with the exit code git bisect understands.

set -eEuo pipefail
# git bisect run reads 0 as good, 1 as bad and 125 as skip: only answer()
# says them. Any other way out (an unset variable, no descriptor, a
# missing file) is 128, which stops the bisect: no commit is to blame.
trap 'rc=$?; [ "$rc" -ge 128 ] || [ "$rc" = "${answered:-}" ] || exit 128' EXIT
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 128
# shellcheck source-path=SCRIPTDIR source=../scripts/cases.sh
. "$BL_REPO_DIR/scripts/cases.sh"
# Under set -e an unplanned failure would exit 1, "bad": it is ours.
trap 'bl_log "error: unexpected failure at line $LINENO: abort"; exit 128' ERR

# answer CODE: this step's answer to git bisect run (0, 1 or 125).
answer()
{
	answered=$1
	exit "$1"
}

usage()
{
	cat <<EOF
usage: $BL_PROG [options] --case NAME --threshold V
       $BL_PROG [options] --test PROGRAM [ARG...]
  For git bisect run, from inside a kernel git tree: build the checked-out
  commit (kernel/build.sh, one incremental build dir for all steps), boot it
  (kernel/vm.sh) and judge it.
  --case: a case of the case table (./run.sh cases), its command with
    -r ROUNDS in the guest; the commit is good (old) when the median of the
    rounds in its --json result is on the good side of V, in the case's
    unit and direction: <= V when lower is better (bind_bench, ms), >= V
    when higher is better (churn, conn/s).
  --test: run PROGRAM in the guest (the rest of the line): a kselftest of
    the Makefile with harness filters (-r FIXTURE.VARIANT.TEST, -f, -v, -t
    and their exclusions), good when it exits 0 having met a KTAP plan of
    at least one test; or a benchmark program, good when it exits 0.
options:
  -t, --tree DIR        kernel tree (default: the current directory)
  -b, --build-dir DIR   build directory, O= (default
                        \$BINDLAB_CACHE/build/TREE-bisect)
  -n, --size N          the case's {N} (default the table's FULL_N)
  -r, --rounds R        rounds (default 3)
  -T, --timeout SEC     VM timeout (default 1800)
  -a, --accel MODE      auto, kvm or tcg (see vm.sh)
  -o, --out DIR         keep each step's results in DIR/COMMIT/vm, or
                        DIR/COMMIT.N/vm when COMMIT was tested before
                        (default \$BINDLAB_CACHE/runs/bisect-TREE)
  -C, --collection DIR  installed collection for the guest (default
                        kernel/collection.sh's)
  -h, --help            this text
Everything that is not the commit's fault is checked before the build:
  the options, BINDLAB_NICE and BINDLAB_PROGRESS, the tree (a kernel tree;
  it and the build directory without a blank or ':', which kbuild refuses),
  -o and BINDLAB_CACHE (ours and writable), qemu, the case or the test (a
  program of the Makefile whose filters select a test of PROGRAM -l).
exit (git bisect run's convention):
  0    good / old term (e.g. "fast"): on the good side of V, or the test passed
  1    bad / new term (e.g. "slow"): on the bad side, or the test failed
       (a kselftest that ran fewer tests than its plan failed too)
  125  skip, this commit cannot be tested: it does not build, its kernel
       panics or hangs once the command runs, or the case or test skipped
       (exit 4) or failed to run (a case's exit other than 0, 2, 4)
  128  abort the bisect, the harness's or the user's problem, the same on
       every commit: bad arguments or environment, no kernel tree, -o or
       the cache not writable or another user's, qemu missing, both boots
       dying before the command started (vm.sh exit 123), a VM error, a
       case that left no result, a kselftest run with no plan or a plan of
       0, a result file of another case than --case -n, an internal error;
       also when this script is killed (128+N)
example, with custom terms:
  git bisect start --term-old fast --term-new slow
  git bisect fast v6.12; git bisect slow HEAD
  git bisect run /path/to/bindlab/kernel/bisect.sh \\
	--case bind_fastreuse.v4_reuseaddr_same.total_ms --threshold 500
EOF
}

tree=.
bcase=
case_id=
threshold=
size=
rounds=3
vm_timeout=1800
accel=${BINDLAB_ACCEL:-auto}
out=
build_dir=
collection=
test_cmd=()

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-t --tree -b --build-dir --case --threshold -n --size -r --rounds -T --timeout -a --accel -o --out -C --collection" "--test" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-b|--build-dir) bl_need_arg "$1" $# "${2-}"; bl_once --build-dir; build_dir=$2; shift ;;
	--case) bl_need_arg "$1" $# "${2-}"; bl_once --case; bcase=$2; shift ;;
	--threshold) bl_need_arg "$1" $# "${2-}"; bl_once --threshold; threshold=$2; shift ;;
	-n|--size) bl_need_arg "$1" $# "${2-}"; bl_once --size; size=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; bl_once --rounds; rounds=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; vm_timeout=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; bl_once --accel; accel=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-C|--collection) bl_need_arg "$1" $# "${2-}"; bl_once --collection; [ -n "$2" ] || bl_usage_error "$1 needs a DIR"; collection=$2; shift ;;
	--test) shift; test_cmd=("$@"); set --; break ;;
	-h|--help) usage; answer 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"

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
	# The program's own parser: what bisect accepts is what the guest runs,
	# and the case id its result must carry.
	case_id=$(bl_case_check_args "$bcase" "$size" "$rounds") ||
		bl_usage_error "--case $bcase: $case_id"
	[ -n "$threshold" ] ||
		bl_usage_error "--case needs --threshold (in $(bl_case_field "$bcase" unit))"
	# At most 15 digits before the point: bindlab_results median takes
	# limits up to 1e15, and refusing later, after a build and a boot,
	# would read as "no result to judge".
	[[ $threshold =~ ^[0-9]{1,15}(\.[0-9]+)?$ ]] ||
		bl_usage_error "--threshold wants a number from 0 to 999999999999999, not '$threshold'"
}

# harness_names PROG: every test of a kselftest as "FIXTURE VARIANT TEST"
# (VARIANT "-" for none), from the table `PROG -l` prints (stderr, exit
# 4): per fixture its variants and its tests side by side in columns of
# 20 and 25, and every variant runs every test.
harness_names()
{
	{ "$BL_REPO_DIR/$1" -l 2>&1 || [ $? = 4 ]; } | awk '
	function flush(  i, j) {
		for (j = 1; j <= nt; j++)
			if (!nv)
				print f, "-", t[j]
			else
				for (i = 1; i <= nv; i++)
					print f, v[i], t[j]
		nv = nt = 0
	}
	/^# FIXTURE/ || /^-----/ { next }
	{
		rest = substr($0, 22)
		if ($0 !~ /^ /) {
			flush()
			f = $1
			if (length(f) > 20)
				rest = substr($0, length(f) + 2)
		}
		if (rest ~ /^ /) {
			sub(/^ +/, "", rest)
			if (rest != "")
				t[++nt] = rest
			next
		}
		split(rest, w, " ")
		v[++nv] = w[1]
		if (w[2] != "")
			t[++nt] = w[2]
	}
	END { flush() }'
}

# harness_rules PROG FILTERS...: the filters as lines "OPTION NAME" in
# $rules, parsed as the harness's getopt does; a stray word, -h or -l
# (which run nothing) are refused.
harness_rules()
{
	local prog=$1 opt OPTIND=2 OPTARG

	rules=
	while getopts ':F:f:V:v:t:T:r:' opt "$@"; do
		case $opt in
		[FfVvTtr]) rules+="$opt $OPTARG"$'\n' ;;
		:) bl_usage_error "--test $prog: -$OPTARG needs a name" ;;
		*) bl_usage_error "--test $prog: -$OPTARG is not a harness filter (-r, -f, -v, -t, -F, -V, -T)" ;;
		esac
	done
	[ "$OPTIND" -gt $# ] || bl_usage_error "--test $prog: '${!OPTIND}' is not a harness filter"
}

# harness_selected PROG: how many tests $rules select, by the harness's own
# rule (test_enabled(): the first matching option decides, an include for
# -f/-v/-t/-r, an exclude for -F/-V/-T; with no match, a test runs when no
# include was given).
harness_selected()
{
	harness_names "$1" | awk -v rules="$rules" '
	BEGIN { n = split(rules, r, "\n") - 1 }
	function enabled(f, v, t,   i, o, a, name, pos) {
		name = v == "-" ? f "." t : f "." v "." t
		for (i = 1; i <= n; i++) {
			o = substr(r[i], 1, 1)
			a = substr(r[i], 3)
			if (o ~ /[a-z]/)
				pos = 1
			if ((o == "f" || o == "F") && a == f) return o == "f"
			if ((o == "v" || o == "V") && v != "-" && a == v) return o == "v"
			if ((o == "t" || o == "T") && a == t) return o == "t"
			if (o == "r" && a == name) return 1
		}
		return !pos
	}
	enabled($1, $2, $3) { k++ }
	END { print k + 0 }'
}

# check_test: a --test command that cannot run a test on any commit is
# refused now, not found out after a build.
check_test()
{
	local prog=${test_cmd[0]-} n bench=

	[ -n "$prog" ] || bl_usage_error "give --case or --test PROGRAM"
	[ -z "$threshold$size" ] || bl_usage_error "--threshold and --size go with --case"
	bl_programs || exit 128
	if [[ " $BL_KSELFTESTS " == *" $prog "* ]]; then
		[ -x "$BL_REPO_DIR/$prog" ] ||
			bl_usage_error "--test: $BL_REPO_DIR/$prog is not built (make -C $BL_REPO_DIR)"
		harness_rules "${test_cmd[@]}"
		n=$(harness_selected "$prog")
		[ "$n" -gt 0 ] ||
			bl_usage_error "--test ${test_cmd[*]}: the filters select no test of '$prog -l'"
		is_kselftest=1
	elif [[ " $BL_TOOLS " == *" $prog "* ]]; then
		# A benchmark of the case table: what measures the kernel (the
		# results tool does not, and knows no check-only mode).
		bl_cases_load || exit 128
		for n in "${BL_CASE_NAMES[@]}"; do
			[ "${BL_CASE_ROW[$n.command]%% *}" != "$prog" ] || bench=$n
		done
		[ -n "$bench" ] || bl_usage_error "--test: '$prog' is no benchmark of the case table (cases)"
		bl_check_args "--test" "${test_cmd[@]}"
	else
		bl_usage_error "--test: '$prog' is no program of the Makefile (kselftests: $BL_KSELFTESTS; benchmarks: $BL_TOOLS)"
	fi
}

# check_setup: the rest of what no commit can change.
check_setup()
{
	local tool

	bl_want_uint --rounds "$rounds" 1
	bl_want_uint --timeout "$vm_timeout" 1
	case $accel in auto|kvm|tcg) ;; *) bl_usage_error "--accel: auto, kvm or tcg, not '$accel'" ;; esac
	bl_check_env
	for tool in qemu-system-x86_64 setpriv timeout flock; do
		command -v "$tool" > /dev/null || bl_usage_error "$tool not found (apt-get install qemu-system-x86)"
	done
	[ -d "$tree" ] || bl_usage_error "no such tree: $tree"
	tree=$(cd "$tree" && pwd)
	if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/arch/x86" ]; then
		bl_usage_error "not a kernel tree (no Makefile and arch/x86): $tree"
	fi
	bl_kbuild_path --tree "$tree"
	# kbuild refuses an O= build of a tree that was built in place, on
	# every commit alike: no build failure (125), an error before it.
	if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ]; then
		bl_usage_error "the tree was built in place ($tree/.config or include/config): make mrproper first"
	fi
	if [ -n "$build_dir" ]; then
		bl_kbuild_path --build-dir "$build_dir"
	else
		bl_kbuild_path BINDLAB_CACHE "$BINDLAB_CACHE"
	fi
	[ -z "$collection" ] || [ -x "$collection/run_kselftest.sh" ] ||
		bl_usage_error "--collection: no installed collection in $collection"
	bl_check_dir BINDLAB_CACHE "$BINDLAB_CACHE"
}

# judge_test RC: the test's exit status and, for a kselftest, its plan,
# as the companion's one KTAP reader (bindlab_results ktap) reads it: no
# result at all is a test that did not run (abort), a broken plan after
# some results one that stopped early (bad).
judge_test()
{
	local lines n rc=0

	if [ "${is_kselftest:-0}" = 1 ]; then
		lines=$("$BL_REPO_DIR/bindlab_results" ktap "$run/output.log" 2> "$run/ktap.err") || rc=$?
		case $rc in
		0 | 1) ;;
		*)
			bl_log "$commit: ${test_cmd[0]}: its KTAP cannot be read ($(head -n 1 "$run/ktap.err")): abort"
			exit 128
			;;
		esac
		# A plan of 0 (the filters selected nothing) runs no test either.
		n=$(grep -vc -e '^plan ' -e '^skip ktap\.plan$' <<< "$lines" || true)
		if [ "$n" = 0 ]; then
			bl_log "$commit: ${test_cmd[0]} ran no test ($(head -n 1 "$run/ktap.err"), exit $1): abort"
			exit 128
		fi
		if [ "$(tail -n 1 <<< "$lines")" != "plan ok" ]; then
			bl_log "$commit: ${test_cmd[0]} stopped early after $n results ($(head -n 1 "$run/ktap.err"), exit $1): bad"
			answer 1
		fi
		# The harness exits 0 when every test skipped (a commit without
		# the feature, a kernel without IPv6): nothing was tested.
		if [ "$1" = 0 ] && ! grep -qv -e '^plan ' -e '^skip ' <<< "$lines"; then
			bl_log "$commit: every test of ${test_cmd[0]} skipped: skip"
			answer 125
		fi
	fi
	case $1 in
	0) bl_log "$commit: test passed: good"; answer 0 ;;
	4) bl_log "$commit: test skipped: skip"; answer 125 ;;
	*) bl_log "$commit: test failed (exit $1): bad"; answer 1 ;;
	esac
}

# judge_case RC: good (0) or bad (1) from the case's JSON result.
judge_case()
{
	local stats median min max n unit side limit verdict=good rc=0

	case $1 in
	0) ;;
	2) bl_log "$commit: $bcase refused its command line in the guest: abort"; exit 128 ;;
	4) bl_log "$commit: $bcase skipped: skip"; answer 125 ;;
	*) bl_log "$commit: $bcase exit $1: skip"; answer 125 ;;
	esac
	side=">=" limit=--at-least
	[ "$(bl_case_field "$bcase" better)" = higher ] || side="<=" limit=--at-most
	# The numbers and the verdict come from bindlab_results, which reads
	# and validates the result file, in the C locale; a result of another
	# case (a stale or foreign file) is refused, never judged as this one.
	stats=$("$BL_REPO_DIR/bindlab_results" median --case "$case_id" "$limit" "$threshold" \
		"$run/result.json") || rc=$?
	# The program said it ran: a missing or foreign result is the harness's fault.
	case $rc in
	0) ;;
	1) verdict=bad ;;
	*) bl_log "$commit: no result of $bcase ($case_id) to judge: abort"; exit 128 ;;
	esac
	read -r median min max n <<< "$stats"
	unit=$(bl_case_field "$bcase" unit)
	bl_log "$commit: $bcase: median $median $unit (min $min, max $max, n $n), good when $side $threshold: $verdict"
	[ "$verdict" = good ] || answer 1
	answer 0
}

# build: the commit's image in $image; 125 when the tree does not build.
build()
{
	local rc=0

	bl_run "$BL_KERNEL_DIR/build.sh" --tree "$tree" --name bisect \
		${build_dir:+--out "$build_dir"} > "$step/build.out" || rc=$?
	case $rc in
	0) image=$(tail -n 1 "$step/build.out") ;;
	1) bl_log "$commit: build failed: skip"; answer 125 ;;
	*) bl_log "$commit: build.sh exit $rc (not the tree's failure): abort"; exit 128 ;;
	esac
}

# boot: the command in a VM of the image; its status in $rc, and any
# outcome that is no result of the command is decided here.
boot()
{
	local vm_status

	rc=0
	bl_run "$BL_KERNEL_DIR/vm.sh" -k "$image" -o "$run" -T "$vm_timeout" -a "$accel" \
		${collection:+-C "$collection"} -- "$@" > /dev/null || rc=$?
	vm_status=$(cat "$run/vm_status" 2> /dev/null || echo none)
	[ "$vm_status" != ok ] || return 0
	case $vm_status in
	boot-failed) bl_log "$commit: both boots died before the command started: infrastructure, abort"; exit 128 ;;
	panic|timeout|no-result) bl_log "$commit: no result from the VM ($vm_status): skip"; answer 125 ;;
	*) bl_log "$commit: VM error ($vm_status, vm.sh exit $rc): abort"; exit 128 ;;
	esac
}

bl_trap_signals
is_kselftest=0
if [ -n "$bcase" ]; then
	check_case
else
	check_test
fi
check_setup

commit=$(git -C "$tree" rev-parse --short HEAD 2> /dev/null) || commit=worktree
treekey=$(basename "$tree")-$(printf %s "$tree" | bl_short_hash)
[ -n "$out" ] || out=$BINDLAB_CACHE/runs/bisect-$treekey
bl_check_dir --out "$out"
# Each step its own folder: a step that shared one would read, or remove,
# another step's files (a retest of the commit, a second bisect at once).
bl_own_dir --out "$out/$commit" next
step=$BL_OWN_DIR
run=$step/vm

# Every step reuses one build directory: a step rebuilds only what the
# checkout changed.
build
if [ -n "$bcase" ]; then
	bl_case_argv "$bcase" "$size" "$rounds" result.json
	boot "${BL_CASE_ARGV[@]}"
	judge_case "$rc"
fi
boot "${test_cmd[@]}"
judge_test "$rc"
