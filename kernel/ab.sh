#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before/after: boot two kernels in turn (A, B, A, B, ...) so that drift of
# the host falls on both, run bind_bench's cases in each boot, keep the JSON
# result files per kernel and print the comparison.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] A B
  A and B are kernels: a bzImage, or a kernel tree built with build.sh
  (with --patch-a/--patch-b). Each is booted BOOTS times, interleaved
  A B A B ..., and every boot runs each case for ROUNDS rounds:
  bind_bench -r ROUNDS --json FILE MODE ADDRESSES N (a fresh netns per round).
options:
  -n, --sockets N       sockets per case (default 16000, the seed's size)
  -r, --rounds R        rounds per case per boot (default 3)
  -B, --boots K         boots per kernel (default 3)
  -c, --case "M A"      a case (MODE ADDRESSES, e.g. "reuseport same");
                        repeatable; default the four seed-000 cases
      --patch-a FILE    patch for tree A (repeatable); likewise --patch-b
      --names A,B       labels of the two sides (default before,after)
  -o, --out DIR         output directory (default a new dir under
                        \$BINDLAB_CACHE/runs)
  -T, --timeout SEC     per-boot timeout (default 3600)
  -a, --accel MODE      auto, kvm or tcg (see vm.sh)
  -h, --help            this text
OUT/LABEL/CASE.bootK.json  bind_bench result files (schema bindlab.result),
                           one per case per boot: what ./run.sh compare reads
OUT/runs/LABEL-bootK/      each VM's console.log, output.log, status
exit: 0 every boot ran every case, 1 a boot or case failed, 2 usage,
  126 harness error
EOF
}

sockets=16000
rounds=3
boots=3
cases=()
patch_a=()
patch_b=()
names=before,after
out=
vm_timeout=3600
accel=${BINDLAB_ACCEL:-auto}

while [ $# -gt 0 ]; do
	case $1 in
	-n|--sockets) bl_need_arg "$1" $# "${2-}"; sockets=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; rounds=$2; shift ;;
	-B|--boots) bl_need_arg "$1" $# "${2-}"; boots=$2; shift ;;
	-c|--case) bl_need_arg "$1" $# "${2-}"; cases+=("$2"); shift ;;
	--patch-a) bl_need_arg "$1" $# "${2-}"; patch_a+=(--patch "$2"); shift ;;
	--patch-b) bl_need_arg "$1" $# "${2-}"; patch_b+=(--patch "$2"); shift ;;
	--names) bl_need_arg "$1" $# "${2-}"; names=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; vm_timeout=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; accel=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done

[ $# -eq 2 ] || bl_usage_error "want two kernels, A and B"
bl_want_uint --sockets "$sockets" 1
bl_want_uint --rounds "$rounds" 1
bl_want_uint --boots "$boots" 1
bl_want_uint --timeout "$vm_timeout" 1
[[ $names =~ ^[A-Za-z0-9._-]+,[A-Za-z0-9._-]+$ ]] || bl_usage_error "--names wants LABEL,LABEL"
label=("${names%,*}" "${names#*,}")
[ "${label[0]}" != "${label[1]}" ] || bl_usage_error "--names: two different labels"
[ ${#cases[@]} -gt 0 ] || cases=("${BL_SEED_CASES[@]}")
for c in "${cases[@]}"; do
	[[ $c =~ ^(reuseaddr|reuseport|both|none)\ (same|alternate|[0-9]+)$ ]] ||
		bl_usage_error "bad case '$c' (want e.g. \"reuseaddr same\")"
done

[ -f "$1" ] || [ -d "$1" ] || bl_usage_error "not a kernel image or tree: $1"
[ -f "$2" ] || [ -d "$2" ] || bl_usage_error "not a kernel image or tree: $2"
[ -d "$1" ] || [ ${#patch_a[@]} -eq 0 ] || bl_usage_error "--patch-a needs a tree, not an image"
[ -d "$2" ] || [ ${#patch_b[@]} -eq 0 ] || bl_usage_error "--patch-b needs a tree, not an image"

# A side is an image as is, or a tree that build.sh turns into one.
resolve_kernel()
{
	local side=$1

	shift
	if [ -f "$side" ]; then
		echo "$side"
	else
		"$BL_KERNEL_DIR/build.sh" --tree "$side" "$@" | tail -n 1
	fi
}

image_a=$(resolve_kernel "$1" ${patch_a[@]+"${patch_a[@]}"}) ||
	bl_die 1 "building ${label[0]} failed"
image_b=$(resolve_kernel "$2" ${patch_b[@]+"${patch_b[@]}"}) ||
	bl_die 1 "building ${label[1]} failed"
image=("$image_a" "$image_b")

if [ -z "$out" ]; then
	mkdir -p "$BINDLAB_CACHE/runs"
	out=$(mktemp -d "$BINDLAB_CACHE/runs/ab-$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out/${label[0]}" "$out/${label[1]}" "$out/runs"
out=$(cd "$out" && pwd)

case_file()
{
	echo "${1% *}-${1#* }"
}

# One boot runs every case; the JSON files come back in its run directory.
guest_script()
{
	local c

	for c in "${cases[@]}"; do
		echo "bind_bench -r $rounds --json $(case_file "$c").json $c $sockets || exit 1"
	done
}

failed=0
start=$SECONDS
for ((k = 1; k <= boots; k++)); do
	for s in 0 1; do
		run=$out/runs/${label[$s]}-boot$k
		bl_log "boot $k/$boots of ${label[$s]}: ${image[$s]}"
		rc=0
		"$BL_KERNEL_DIR/vm.sh" -k "${image[$s]}" -o "$run" -T "$vm_timeout" \
			-a "$accel" -c "$(guest_script)" > /dev/null || rc=$?
		[ "$rc" != 126 ] || bl_die 126 "vm.sh could not run qemu"
		[ "$rc" = 0 ] || { bl_log "boot $k of ${label[$s]} failed (vm.sh exit $rc)"; failed=1; }
		for c in "${cases[@]}"; do
			f=$(case_file "$c")
			if [ -f "$run/$f.json" ]; then
				cp "$run/$f.json" "$out/${label[$s]}/$f.boot$k.json"
			else
				failed=1
			fi
		done
	done
done
bl_log "$((boots * 2)) boots in $((SECONDS - start)) s; results in $out"

# Each boot is one run of each case: with two or more boots a side,
# compare takes one sample per boot, so drift between boots counts.
"$BL_REPO_DIR/run.sh" compare "$out/${label[0]}"/*.json -- "$out/${label[1]}"/*.json ||
	failed=1
exit "$failed"
