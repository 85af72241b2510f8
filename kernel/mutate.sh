#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation testing of the kernel's bind path: each mutant of
# kernel/mutants.py is one line changed in a kernel tree, built
# incrementally, booted, and run against the programs its function can
# reach first, then, when those pass, the rest of the collection. The
# verdicts go to one table, resumable.

set -eEuo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 3
trap 'bl_log "error: unexpected failure at line $LINENO"; exit 3' ERR

usage()
{
	cat <<EOF
usage: $BL_PROG -t TREE [options]
  Generate the mutants of the bind path's functions in TREE (a detached git
  worktree of the lab's fixed 6.12 tree, which this script resets file by
  file: never a tree you edit), then for each mutant not yet in the table:
  apply it, build (kernel/build.sh, one O= directory, ccache), boot it
  (kernel/vm.sh) and run the programs its function reaches first; the rest
  of the collection only when those pass. Verdict: killed (by which
  tests; a panic or a kernel WARN: the VMs boot with panic_on_warn=1),
  survived, build-failed or timed-out.
options:
  -t, --tree DIR        the kernel tree to mutate (required)
  -o, --out DIR         build directory (default \$BINDLAB_CACHE/build/mutate)
  -r, --results FILE    the table, JSON (default results/mutate/table.json;
                        its text table beside it, .txt)
  -m, --mutant ID       only this mutant (repeatable; a done one runs again)
  -n, --max N           at most N mutants this run (default: all)
  -b, --budget SEC      start no mutant after SEC seconds (default: none)
  -T, --timeout SEC     the timeout of a VM of the whole collection (default
                        900); a first stage's VM gets at most 240 s
  -C, --collection DIR  installed collection (default kernel/collection.sh's)
  -l, --leak            leak kernels (kernel/build.sh --leak): the whole
                        collection's boot runs with kmemleak=on, and a
                        survivor that leaves an unreferenced object is
                        killed, vm:leak; the unmutated tree is run so first
                        and must leave none (stage 2's VM about 1.5x as long)
  -h, --help            this text
output: one line per mutant (its verdict and times); the table, rewritten
  after each mutant (JSON and text), with the kernel version and the
  project's commit; a run killed midway loses at most the mutant it ran.
  Each run's mutants, logs and VMs: a new \$BINDLAB_CACHE/mutate/runs/DATE.
exit: 0 done, 2 usage (also: TREE has uncommitted changes or files gen
  cannot read, the table's folder is not writable, the project is no git
  checkout, the table is not this tree's or is corrupt, a -m names no
  mutant, -C no collection), 3 harness error (a VM or build error of
  ours)
EOF
}

tree=
out=$BINDLAB_CACHE/build/mutate
table=$BL_REPO_DIR/results/mutate/table.json
only=()
max=
budget=
timeout=900
# TCG on a virtual clock (vm.sh --icount): a sleep costs no wall time
# (6.12's tcp_tw_reuse rows wait out its 1 s reuse delay: 45 s of each
# whole-collection boot on a real clock) and bind_fastreuse's growth is
# counted in guest instructions, the same figures on any host under any
# load (fixed 1.00, stock 17.03 at 4000 binds), not TCG's noisy wall time.
# panic_on_warn: a mutant that only trips a WARN_ON (a socket's memory
# left unreclaimed when it is destroyed) is a broken kernel a socket
# cannot see; the fixed kernel warns nowhere in the collection, and
# netdev's CI fails a test that leaves a splat too.
vmopts=(-a tcg --icount) append=panic_on_warn=1 coll='' leak=0

# GNU order and --opt=VALUE (scripts/args.sh); mutate takes no operand.
bl_args "-t --tree -o --out -r --results -m --mutant -n --max -b --budget -T --timeout -C --collection" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-r|--results) bl_need_arg "$1" $# "${2-}"; bl_once --results; table=$2; shift ;;
	-m|--mutant) bl_need_arg "$1" $# "${2-}"; only+=("$2"); shift ;;
	-n|--max) bl_need_arg "$1" $# "${2-}"; bl_once --max; max=$2; shift ;;
	-b|--budget) bl_need_arg "$1" $# "${2-}"; bl_once --budget; budget=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; timeout=$2; shift ;;
	-C|--collection) bl_need_arg "$1" $# "${2-}"; bl_once --collection; coll=$2; vmopts+=("$1" "$2"); shift ;;
	-l|--leak) bl_once --leak; leak=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; [ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done

[ -n "$tree" ] || bl_usage_error "-t TREE is required"
[ -z "$max" ] || bl_want_uint --max "$max" 1
[ -z "$budget" ] || bl_want_uint --budget "$budget" 1
bl_want_uint --timeout "$timeout" 1
# vm.sh would find a bad collection only after the first mutant's build.
if [ -n "$coll" ] && [ ! -d "$coll/net/bindlab" ]; then
	bl_usage_error "--collection: no net/bindlab in $coll (kernel/collection.sh installs one)"
fi
bl_check_env
if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/arch/x86" ]; then
	bl_usage_error "not a kernel tree: $tree"
fi
tree=$(cd "$tree" && pwd)
bl_kbuild_path --tree "$tree"
bl_kbuild_path --out "$out"
git -C "$tree" rev-parse -q --verify HEAD > /dev/null ||
	bl_usage_error "not a git checkout: $tree"
# One run per tree: another's mutants would land between this run's, and
# each run's resets undo the other's. The lock is in the tree's git
# folder (nothing in the work tree); the kernel drops it with its holder.
tree_lock=$(git -C "$tree" rev-parse --absolute-git-dir)/bindlab-mutate.lock
exec 7>> "$tree_lock" || bl_usage_error "cannot open $tree_lock"
flock -n 7 || bl_usage_error "$tree: another mutate run holds $tree_lock"
# A branch checked out here would be another user's work tree, and
# uncommitted edits someone's work: each mutant resets the files it
# changes, so neither is taken.
if git -C "$tree" symbolic-ref -q HEAD > /dev/null; then
	bl_usage_error "$tree has a branch checked out: mutate a detached worktree (git worktree add --detach)"
fi
dirty=$(git -C "$tree" status --porcelain --untracked-files=no 2> /dev/null | head -n 1) ||
	bl_usage_error "git status fails in $tree"
[ -z "$dirty" ] ||
	bl_usage_error "$tree has uncommitted changes ($dirty): commit or drop them (a killed run's mutant: git -C TREE checkout -- .)"
# The table records the project's commit: it needs one.
git -C "$BL_REPO_DIR" rev-parse -q --verify HEAD > /dev/null 2>&1 ||
	bl_usage_error "$BL_REPO_DIR is not a git checkout: the table records the project's commit"
# The table is rewritten after each mutant: refused now, not after a build.
bl_check_dir --results "$(dirname -- "$table")"
# One writer per table's folder: each run rewrites its table whole, and
# two runs would each drop the other's rows.
exec 6< "$(dirname -- "$table")"
flock -n 6 || bl_usage_error "--results: another mutate run writes a table in $(dirname -- "$table")"
[ ! -e "$table" ] || { [ -f "$table" ] && [ -w "$table" ]; } ||
	bl_usage_error "--results: $table is not a writable file"
tool=$BL_REPO_DIR/bindlab_results
[ -x "$tool" ] || bl_die 3 "no $tool (make, or ./run.sh mutate)"
mutants() { python3 "$BL_KERNEL_DIR/mutants.py" "$@"; }

# This run's own folder: mutants, logs and VM results of a concurrent or
# earlier run are never read or removed.
bl_own_dir "mutate run" "$BINDLAB_CACHE/mutate/runs/$(date +%Y%m%d-%H%M%S)" next
mine=$BL_OWN_DIR
gen=$mine/gen
# A tree gen cannot read (mutants.py said why, exit 2): the user's to
# mend, and the folder, only gen's output yet, goes.
mutants gen "$tree" "$gen" >&2 || { rc=$?; rm -rf -- "$mine"; exit "$rc"; }
manifest=$gen/mutants.json

# The files a mutant may have changed, and the stamp that keeps the tree
# unlike its cached image (build.sh returns a clean tree's image unbuilt).
files=$(mutants files) || bl_die 3 "mutants.py files: no list"
[ -n "$files" ] || bl_die 3 "mutants.py files: an empty list"
mapfile -t target_files <<<"$files"
target_files+=(README)
reset_tree() { git -C "$tree" checkout -q -- "${target_files[@]}"; }

about()
{
	local rev t

	rev=$(git -C "$BL_REPO_DIR" rev-parse --short HEAD)
	# The table itself is what a run changes: it does not make the project
	# dirty (git refuses an exclude outside the checkout: none needed there).
	t=$(realpath -m "$table")
	case $t in
	"$BL_REPO_DIR"/*) t=":(exclude)$t" ;;
	*) t=. ;;
	esac
	git -C "$BL_REPO_DIR" diff --quiet HEAD -- . "$t" || rev+=-dirty
	mutants about "$table" "kernel=$(make -s -C "$tree" kernelversion)" \
		"tree=$(git -C "$tree" rev-parse --short HEAD)" "project=$rev" \
		"generated=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$manifest")" ||
		exit 2	# a table of another tree, or corrupt: mutants.py said which
}

# The guest's script: each "PROGRAM ARGS" line of stdin in turn, until
# one fails, its KTAP in sN-K.ktap, the guest's uptime after each in times.
# A slow machine's sizes, but for bind_fastreuse: there an over-limit
# growth is XFAIL, and growth is the very thing it is there to see (a
# mutant that costs the fast path answers every bind() right). At its
# full size the fixed kernel passes it under TCG (boot_first.fixed).
guest_script()
{
	local stage=$1 k=0 line slow

	# shellcheck disable=SC2016 # the guest's shell expands it
	echo 'up() { cut -d" " -f1 /proc/uptime; }; echo "start $(up)" > times'
	while read -r line; do
		k=$((k + 1))
		slow=yes
		[ "${line%% *}" != bind_fastreuse ] || slow=no
		echo "KSFT_MACHINE_SLOW=$slow $line > s$stage-$k.ktap 2> s$stage-$k.err; rc=\$?;" \
			"echo \"s$stage-$k \$rc \$(up) $line\" >> times; [ \$rc = 0 ] || exit 1"
	done
	# kmemleak reports objects unreferenced at a scan and 5 s old; a
	# second scan 10 s on (free on the virtual clock) drops what the
	# first caught in flight. No file "leaks": no scan, never a survivor.
	# shellcheck disable=SC2016 # the guest's shell expands $k
	[ "$stage" != 2 ] || [ "$leak" = 0 ] || echo 'k=/sys/kernel/debug/kmemleak;' \
		'mount -t debugfs none /sys/kernel/debug && echo scan > $k && sleep 10 &&' \
		'echo scan > $k && cat $k > leaks.tmp && mv leaks.tmp leaks'
	echo 'exit 0'
}

# Failing tests of a run's KTAP files, comma separated (empty: none).
failures()
{
	local dir=$1 f prog names=()

	for f in "$dir"/s*.ktap; do
		[ -f "$f" ] || continue
		prog=$(awk -v s="$(basename "$f" .ktap)" '$1 == s { print $4 }' "$dir/times")
		"$tool" ktap "$f" > "$f.res" 2> /dev/null || true
		while read -r res name; do
			case $res in
			fail|xpass) names+=("$prog:$name") ;;
			plan) [ "$name" = ok ] || names+=("$prog:ktap.plan") ;;
			esac
		done < "$f.res"
	done
	(IFS=,; echo "${names[*]}")
}

# Run one stage in a VM: sets vm_rc, stage_s (the programs' seconds on
# the guest's virtual clock), boot_s (the VM's wall time, boot and
# programs: the guest cannot tell the two apart in wall time) and killed_by.
run_stage()
{
	local id=$1 stage=$2 image=$3 dir script t0 limit=$timeout cmdline=$append

	dir=$mine/$id/s$stage
	# vm.sh's -o is its own (a new or empty folder); its log beside it.
	rm -rf "$dir" "$dir.vm.out" "$dir.vm.err"
	mkdir -p "$dir"
	if [ "$stage" = 1 ]; then
		# Boot and the first programs take under a minute (README).
		[ "$limit" -le 240 ] || limit=240
		script=$(mutants reach "$id" "$manifest" | guest_script 1)
	else
		script=$(mutants rest | guest_script 2)
		[ "$leak" = 0 ] || cmdline+=" kmemleak=on"
	fi
	t0=$(date +%s.%N)
	vm_rc=0
	# bl_run, not a foreground command: a signal is heard at once, not
	# when the VM ends.
	bl_run "$BL_KERNEL_DIR/vm.sh" "${vmopts[@]}" -A "$cmdline" -k "$image" -T "$limit" -o "$dir" \
		-c "$script" > "$dir.vm.out" 2> "$dir.vm.err" || vm_rc=$?
	# No times: the guest died before its first program; all of it was boot.
	[ -f "$dir/times" ] || : > "$dir/times"
	read -r stage_s boot_s < <(awk -v t0="$t0" -v t1="$(date +%s.%N)" '
		$1 == "start" { s = $2; next } { e = $3 }
		END { p = (e > s ? e - s : 0); printf "%.1f %.1f\n", p, t1 - t0 }' \
		"$dir/times")
	killed_by=$(failures "$dir")
	# Each program's guest seconds: where the verdict's time goes.
	programs+=$(awk '$1 == "start" { t = $2; next }
		{ printf "%s%s %.1f", sep, substr($0, index($0, $4)), $3 - t; t = $3; sep = "; " }' \
		"$dir/times" 2> /dev/null || true)
}

# One mutant: prints its verdict line and records it in the table.
run_mutant()
{
	local id=$1 t0 image build_s=0 verdict killed='' rc
	local s1=0 s2=0 b1=0 b2=0 stage=1

	programs=''

	reset_tree
	git -C "$tree" apply "$gen/patches/$id.patch"
	echo "bindlab mutant: $id" >> "$tree/README"
	t0=$SECONDS
	rc=0
	bl_run "$BL_KERNEL_DIR/build.sh" --tree "$tree" --out "$out" "${build_opts[@]}" \
		> "$mine/build.out" 2> "$mine/build.err" || rc=$?
	build_s=$((SECONDS - t0))
	case $rc in
	0) image=$(tail -n 1 "$mine/build.out") ;;
	1) record "$id" build-failed "$build_s" 0 0 1 ""; return 0 ;;
	*) bl_die 3 "build.sh exit $rc for $id (see $mine/build.err)" ;;
	esac
	run_stage "$id" 1 "$image"
	s1=$stage_s b1=$boot_s killed=$killed_by
	if [ -z "$killed" ] && [ "$vm_rc" -le 1 ]; then
		stage=2
		programs+='; '
		run_stage "$id" 2 "$image"
		s2=$stage_s b2=$boot_s killed=$killed_by
	fi
	case $vm_rc in
	0|1) verdict=survived; [ -z "$killed" ] || verdict=killed ;;
	124) verdict=timed-out ;;
	125) verdict=killed
	     if grep -qs 'panic_on_warn set' "$mine/$id"/s*/console.log; then
		     killed+=${killed:+,}vm:warn
	     else
		     killed+=${killed:+,}vm:crash
	     fi ;;
	123) bl_log "$id: both boots died before the command started: not recorded"; return 0 ;;
	*) bl_die 3 "vm.sh exit $vm_rc for $id (see $mine/$id)" ;;
	esac
	if [ "$leak" = 1 ] && [ "$verdict" = survived ] && [ "$vm_rc" = 0 ]; then
		leaked "$mine/$id/s2"
		[ "$nleak" = 0 ] || killed=vm:leak verdict=killed
	fi
	# A run whose programs passed yet vm.sh says 1: fail closed.
	if [ "$verdict" = survived ] && [ "$vm_rc" = 1 ]; then
		verdict=killed killed=vm:status-1
	fi
	record "$id" "$verdict" "$build_s" "$(echo "$b1 + $b2" | bc)" \
		"$(echo "$s1 + $s2" | bc)" "$stage" "$killed"
}

# nleak: the objects a stage's kmemleak scan reported. No scan (kmemleak
# off, or out of its own memory) is ours to mend, never a survivor.
leaked()
{
	[ -f "$1/leaks" ] || bl_die 3 "no kmemleak scan in $1 (see its output.log)"
	nleak=$(grep -c '^unreferenced object' "$1/leaks" || true)
}

# Before any leak verdict, the unmutated tree's whole collection with
# kmemleak on: it must pass and leave nothing, or a leak is no mutant's.
leak_baseline()
{
	local image rc=0

	reset_tree
	bl_run "$BL_KERNEL_DIR/build.sh" --tree "$tree" --out "$out" "${build_opts[@]}" \
		> "$mine/build.out" 2> "$mine/build.err" || rc=$?
	[ "$rc" = 0 ] || bl_die 3 "build.sh exit $rc for the unmutated tree (see $mine/build.err)"
	image=$(tail -n 1 "$mine/build.out")
	programs=''
	run_stage unmutated 2 "$image"
	if [ "$vm_rc" != 0 ] || [ -n "$killed_by" ]; then
		bl_die 3 "the unmutated tree fails with kmemleak on (vm.sh exit $vm_rc${killed_by:+, $killed_by}; see $mine/unmutated)"
	fi
	leaked "$mine/unmutated/s2"
	[ "$nleak" = 0 ] ||
		bl_die 3 "the unmutated tree leaks $nleak objects (see $mine/unmutated/s2/leaks): a leak would be no mutant's"
	bl_log "the unmutated tree leaks nothing in its whole collection ($boot_s s)"
}

record()
{
	local id=$1 verdict=$2 build_s=$3 boot_s=$4 verdict_s=$5 stage=$6 killed=$7

	mutants record "$table" "$manifest" "$id" "verdict=$verdict" \
		"killed_by=$killed" "build_s=$build_s" "boot_s=$boot_s" \
		"verdict_s=$verdict_s" "stages=$stage" "programs=${programs:-}" clock=virtual
	echo "$id: $verdict${killed:+ by $killed} (build ${build_s} s, VMs ${boot_s} s, programs ${verdict_s} guest s)"
}

on_exit() { reset_tree 2> /dev/null || true; }
trap on_exit EXIT
bl_trap_signals

build_opts=(-n mutate)
[ "$leak" = 0 ] || build_opts+=(--leak)
about
if [ ${#only[@]} -gt 0 ]; then
	ids=("${only[@]}")
	# Every -m now, not the second one after the first one's build; the
	# folder is this run's and holds only gen's output yet.
	for id in "${ids[@]}"; do
		[ -f "$gen/patches/$id.patch" ] || { rm -rf -- "$mine"; bl_usage_error "no mutant $id"; }
	done
else
	# Those the table has no verdict for: a run resumes. A corrupt
	# table is the user's to mend (mutants.py said why): exit 2.
	todo=$(mutants todo "$manifest" "$table") || exit 2
	mapfile -t ids <<<"$todo"
fi
start=$SECONDS
[ "$leak" = 0 ] || [ -z "${ids[*]}" ] || leak_baseline
n=0
for id in "${ids[@]}"; do
	[ -n "$id" ] || continue
	[ -f "$gen/patches/$id.patch" ] || bl_usage_error "no mutant $id"
	[ -z "$max" ] || [ "$n" -lt "$max" ] || break
	if [ -n "$budget" ] && [ $((SECONDS - start)) -ge "$budget" ]; then
		bl_log "budget of $budget s spent: stopping before $id"
		break
	fi
	run_mutant "$id"
	n=$((n + 1))
done
bl_log "$n mutants run in $((SECONDS - start)) s; table: $table"
