#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before/after: boot two kernels in turn (A, B, A, B, ...) so that drift of
# the host falls on both, run cases of the case table (../cases) in each
# boot, keep the JSON result files per kernel and print the comparison.

set -euo pipefail
# 0 and 1 are verdicts: only said() gives them. Any other way out (an
# unset variable, no descriptor) is the harness's 126.
trap 'rc=$?; [ "$rc" -ge 2 ] || [ "$rc" = "${said:-}" ] || exit 126' EXIT
# said CODE: this run's verdict, 0 or 1.
said()
{
	said=$1
	exit "$1"
}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 126
# shellcheck source-path=SCRIPTDIR source=../scripts/cases.sh
. "$BL_REPO_DIR/scripts/cases.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] A B
  A and B are kernels: a bzImage, or a kernel tree built with build.sh
  (with --patch-a/--patch-b). Each is booted BOOTS times, interleaved
  A B A B ..., and every boot runs each case for ROUNDS rounds, as the
  case table (./run.sh cases) gives its command (a fresh netns per round).
options:
  -n, --size N          {N} of every case (default each case's FULL_N)
  -r, --rounds R        rounds per case per boot (default 3)
  -B, --boots K         boots per kernel (default 3)
  -c, --case NAME       a case of the table, e.g.
                        tw_reuse.reuse2_v6_loopback.conn_per_s;
                        repeatable; default every case
      --patch-a FILE    patch for tree A (repeatable); likewise --patch-b
      --names A,B       labels of the two sides (default before,after)
  -o, --out DIR         output directory, new or empty (default a new
                        dir under \$BINDLAB_CACHE/runs)
  -T, --timeout SEC     per-boot timeout (default 3600)
  -a, --accel MODE      auto, kvm or tcg (see vm.sh)
  -C, --collection DIR  installed collection for the guests (default
                        kernel/collection.sh's)
  -h, --help            this text
OUT/LABEL/bootK/CASE.json  the programs' result files, one per case per boot
OUT/LABEL/bootK.json       each boot's run file (bindlab_results merge, the
                           table's names): what ./run.sh compare reads
OUT/runs/LABEL-bootK/      each VM's console.log, output.log, status
OUT/runs/build-LABEL.out   build.sh's output for a side given as a tree
exit: 0 every boot ran every case, 1 a boot or case failed, 2 usage, or
  a result file that is not its case's (another case, N or program), or
  nothing the two sides' results let compare,
  126 harness error, 128+N killed by signal N (builds and VMs gone too)
EOF
}

sockets=
rounds=3
boots=3
cases=()
patch_a=()
patch_b=()
names=before,after
out=
vm_timeout=3600
accel=${BINDLAB_ACCEL:-auto}
collection=

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-n --size --sockets -r --rounds -B --boots -c --case --patch-a --patch-b --names -o --out -T --timeout -a --accel -C --collection" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-n|--size|--sockets) bl_need_arg "$1" $# "${2-}"; bl_once --size; sockets=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; bl_once --rounds; rounds=$2; shift ;;
	-B|--boots) bl_need_arg "$1" $# "${2-}"; bl_once --boots; boots=$2; shift ;;
	-c|--case) bl_need_arg "$1" $# "${2-}"; cases+=("$2"); shift ;;
	--patch-a) bl_need_arg "$1" $# "${2-}"; patch_a+=(--patch "$2"); shift ;;
	--patch-b) bl_need_arg "$1" $# "${2-}"; patch_b+=(--patch "$2"); shift ;;
	--names) bl_need_arg "$1" $# "${2-}"; bl_once --names; names=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; vm_timeout=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; bl_once --accel; accel=$2; shift ;;
	-C|--collection) bl_need_arg "$1" $# "${2-}"; bl_once --collection; [ -n "$2" ] || bl_usage_error "$1 needs a DIR"; collection=$2; shift ;;
	-h|--help) usage; said 0 ;;
	--) shift; break ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done

[ $# -eq 2 ] || bl_usage_error "want two kernels, A and B"
[ -z "$sockets" ] || bl_want_uint --size "$sockets" 1
bl_want_uint --rounds "$rounds" 1
bl_want_uint --boots "$boots" 1
bl_want_uint --timeout "$vm_timeout" 1
case $accel in auto|kvm|tcg) ;; *) bl_usage_error "--accel: auto, kvm or tcg" ;; esac
[ -z "$collection" ] || [ -d "$collection" ] || bl_usage_error "no such directory: $collection"
bl_check_env
bl_check_dir BINDLAB_CACHE "$BINDLAB_CACHE"
bl_trap_signals
# Each label is a directory of OUT: no '/', and not "." or "..".
[[ $names =~ ^[A-Za-z0-9._-]+,[A-Za-z0-9._-]+$ ]] || bl_usage_error "--names wants LABEL,LABEL"
label=("${names%,*}" "${names#*,}")
[ "${label[0]}" != "${label[1]}" ] || bl_usage_error "--names: two different labels"
for l in "${label[@]}"; do
	[[ $l != . && $l != .. && $l != runs ]] ||
		bl_usage_error "--names: '$l' is no label (a directory of OUT of its own; runs/ holds the VMs)"
done
bl_cases_load || exit 2
[ ${#cases[@]} -gt 0 ] || cases=("${BL_CASE_NAMES[@]}")
declare -A seen=() case_id=()
for c in "${cases[@]}"; do
	bl_case_known "$c" || bl_usage_error "no case '$c' in the table (./run.sh cases)"
	# Twice, it would run twice a boot and its merge refuse every boot.
	[ -z "${seen[$c]+x}" ] || bl_usage_error "--case $c given twice"
	seen[$c]=1
	# The program's own parser: what ab accepts is what the guest runs,
	# and the case id its result must carry.
	case_id[$c]=$(bl_case_check_args "$c" "${sockets:-$(bl_case_field "$c" full_n)}" "$rounds") ||
		bl_usage_error "case $c: ${case_id[$c]}"
done

[ -f "$1" ] || [ -d "$1" ] || bl_usage_error "not a kernel image or tree: $1"
[ -f "$2" ] || [ -d "$2" ] || bl_usage_error "not a kernel image or tree: $2"
[ -d "$1" ] || [ ${#patch_a[@]} -eq 0 ] || bl_usage_error "--patch-a needs a tree, not an image"
for k in "$1" "$2"; do
	[ -f "$k" ] && continue
	bl_kbuild_path "tree" "$k"
	bl_kbuild_path BINDLAB_CACHE "$BINDLAB_CACHE"
done
[ -d "$2" ] || [ ${#patch_b[@]} -eq 0 ] || bl_usage_error "--patch-b needs a tree, not an image"
[ -z "$out" ] || bl_dest_dir --out "$out" empty
# The command line checked, nothing made or booted yet (as lava.sh).
[ "${BINDLAB_CHECK_ARGS:-}" != 1 ] || said 0

# This run's own OUT: an earlier run's boots there would be compared too.
if [ -n "$out" ]; then
	bl_own_dir --out "$out"
else
	bl_own_dir --out "$BINDLAB_CACHE/runs/ab-$(date +%Y%m%d-%H%M%S)" next
fi
out=$BL_OWN_DIR
mkdir "$out/${label[0]}" "$out/${label[1]}" "$out/runs"

# resolve_kernel K SIDE [BUILD.SH-ARGS]: image[K] is SIDE as is, or the
# image build.sh makes of the tree SIDE (waited for, not a $(...): a
# signal gets in at once and the build dies with this script).
resolve_kernel()
{
	local k=$1 side=$2 rc

	shift 2
	if [ -f "$side" ]; then
		# An image named like an option is still a path to vm.sh.
		case $side in -*) side=./$side ;; esac
		image[k]=$side
		return 0
	fi
	# A tree that does not build is a failed side (1); build.sh's own
	# errors (2 usage, a missing patch; 3) are the harness's (2), and so
	# is a log we cannot write, which the shell would also call 1. In
	# runs/, where no label's directory is.
	: > "$out/runs/build-${label[k]}.out" || bl_die 2 "cannot write $out/runs/build-${label[k]}.out"
	bl_run "$BL_KERNEL_DIR/build.sh" --tree "$side" "$@" > "$out/runs/build-${label[k]}.out" || {
		rc=$?
		[ "$rc" != 1 ] || { bl_log "error: building ${label[k]} failed"; said 1; }
		bl_die 2 "building ${label[k]}: build.sh exit $rc (its error above)"
	}
	image[k]=$(tail -n 1 "$out/runs/build-${label[k]}.out")
}

image=()
resolve_kernel 0 "$1" ${patch_a[@]+"${patch_a[@]}"}
resolve_kernel 1 "$2" ${patch_b[@]+"${patch_b[@]}"}

# One boot runs every case; the JSON files come back in its run directory.
guest_script()
{
	local c n

	for c in "${cases[@]}"; do
		n=${sockets:-$(bl_case_field "$c" full_n)}
		echo "$(bl_case_command "$c" "$n" "$rounds" "$c.json") || exit 1"
	done
}

# merge_boot RUN DEST: the boot's results as one run file with the
# table's names, its program files kept next to it; a case without a
# result is listed as failed and fails ab. A result file that is not the
# case asked for (a stale or foreign file) is the harness's error: it is
# never compared as this case.
merge_boot()
{
	local run=$1 dest=$2 c rc=0 args=()

	mkdir "$dest"
	bl_case_decls "${cases[@]}"
	args=("${BL_CASE_DECLS[@]}")
	for c in "${cases[@]}"; do
		if [ -f "$run/$c.json" ]; then
			"$BL_REPO_DIR/bindlab_results" median --case "${case_id[$c]}" "$run/$c.json" > /dev/null ||
				bl_die 2 "$run/$c.json: no result of case $c (${case_id[$c]}): its line above"
			cp "$run/$c.json" "$dest/$c.json"
			args+=(--result "$c=$dest/$c.json")
		else
			args+=(--missing "$c=fail:no result from $run")
			rc=1
		fi
	done
	"$BL_REPO_DIR/bindlab_results" merge "$dest.json" "${args[@]}" || rc=1
	return $rc
}

failed=0
start=$SECONDS
for ((k = 1; k <= boots; k++)); do
	for s in 0 1; do
		run=$out/runs/${label[$s]}-boot$k
		bl_log "boot $k/$boots of ${label[$s]}: ${image[$s]}"
		rc=0
		bl_run "$BL_KERNEL_DIR/vm.sh" -k "${image[$s]}" -o "$run" -T "$vm_timeout" \
			-a "$accel" ${collection:+-C "$collection"} -c "$(guest_script)" > /dev/null || rc=$?
		[ "$rc" != 126 ] || bl_die 126 "vm.sh: a harness error (no qemu, a full disk: its line above)"
		[ "$rc" = 0 ] || { bl_log "boot $k of ${label[$s]} failed (vm.sh exit $rc)"; failed=1; }
		merge_boot "$run" "$out/${label[$s]}/boot$k" || failed=1
	done
done
bl_log "$((boots * 2)) boots in $((SECONDS - start)) s; results in $out"

# Each boot is one run of each case: with two or more boots a side,
# compare takes one sample per boot, so drift between boots counts.
# Its 2 (nothing compared, a file refused) is no kernel's verdict.
rc=0
"$BL_REPO_DIR/run.sh" compare "$out/${label[0]}"/boot*.json -- "$out/${label[1]}"/boot*.json || rc=$?
case $rc in
0) ;;
1) failed=1 ;;
*) bl_die 2 "compare exit $rc: no verdict (its error above)" ;;
esac
said "$failed"
