#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel in the lab and run, side by side, bind_model_test (the
# whole bind table against the model) and upstream's bind_wildcard
# (compiled from the 6.12 tree, never kept in the repository); print
# every bind_wildcard test that fails next to what bind_model_test says
# of the same pair of binds.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2

usage()
{
	cat <<EOF
usage: $BL_PROG [options]
  Boot a kernel (under qemu, one vCPU) with bind_model_test and upstream's
  bind_wildcard, run both, and list each bind_wildcard test that fails next
  to bind_model_test's failing sequences of that pair.
options:
  -k, --kernel IMAGE    kernel image to boot; else build one:
  -t, --tree DIR        kernel tree for build.sh --tree
  -n, --name NAME       build.sh --name
  -p, --patch FILE      build.sh --patch (repeatable)
  -d, --depth N         BINDLAB_MODEL_DEPTH in the guest (default 3)
  -x, --xfail GLOBS     BINDLAB_XFAIL for bind_model_test's KTAP: documented disagreements
  -s, --source TARBALL  6.12 source for bind_wildcard.c
                        (default /usr/src/linux-source-6.12.tar.xz)
  -T, --timeout SEC     vm.sh --timeout (default 1800)
  -o, --out DIR         results directory (vm.sh --out)
  -h, --help            this text
output: the side-by-side list; OUT keeps model.ktap and wildcard.ktap.
exit: 0 when every bind_wildcard failure is flagged by bind_model_test too,
  1 when one is not, 2 usage, 4 no 6.12 source, else vm.sh's or build.sh's status
example (Debian's 6.1, unpacked into a cache directory):
  $BL_PROG -t ~/.cache/bindlab/linux-6.1 -n stock-6.1
EOF
}

kernel='' tree='' name='' depth=3 xfail='' timeout=1800 out=''
source=/usr/src/linux-source-6.12.tar.xz
patches=()

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-k --kernel -t --tree -n --name -p --patch -d --depth -x --xfail -s --source -T --timeout -o --out" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) bl_need_arg "$1" $# "${2-}"; bl_once --kernel; kernel=$2; shift ;;
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-n|--name) bl_need_arg "$1" $# "${2-}"; bl_once --name; name=$2; shift ;;
	-p|--patch) bl_need_arg "$1" $# "${2-}"; patches+=(--patch "$2"); shift ;;
	-d|--depth) bl_need_arg "$1" $# "${2-}"; bl_once --depth; depth=$2; shift ;;
	-x|--xfail) bl_need_arg "$1" $# "${2-}"; bl_once --xfail; xfail=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; bl_once --source; source=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; timeout=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"
bl_want_uint --timeout "$timeout" 1
# bind_model_test's own range for BINDLAB_MODEL_DEPTH.
bl_num "$depth" 1 4 || bl_usage_error "--depth wants 1, 2, 3 or 4, not '$depth'"
# The globs go into the guest's command in single quotes.
case $xfail in *\'*) bl_usage_error "--xfail: a quote in '$xfail'" ;; esac
[ -n "$kernel" ] || [ -n "$tree" ] || bl_usage_error "--kernel or --tree is required"
[ -z "$kernel" ] || [ -z "$tree" ] || bl_usage_error "--kernel or --tree, not both"
[ -z "$kernel" ] || [ -f "$kernel" ] || bl_usage_error "--kernel: no file $kernel"
# No bind_wildcard.c to compare with: the machine lacks a package (4).
if [ ! -f "$BINDLAB_CACHE/upstream/net/bind_wildcard.c" ] && [ ! -f "$source" ]; then
	bl_log "SKIP: no $source (apt-get install linux-source-6.12)"
	exit 4
fi

upstream=$BINDLAB_CACHE/upstream

# bind_wildcard.c next to the harness it includes as "../kselftest_harness.h".
fetch_upstream()
{
	local top

	[ -f "$upstream/net/bind_wildcard.c" ] && return
	[ -f "$source" ] || bl_die 1 "no $source (apt-get install linux-source-6.12)"
	top=$(basename "$source")
	top=${top%.tar.*}
	rm -rf "$upstream.tmp"
	mkdir -p "$upstream.tmp"
	bl_log "extracting bind_wildcard.c from $source"
	tar -xJf "$source" -C "$upstream.tmp" --strip-components=4 \
		"$top/tools/testing/selftests/net/bind_wildcard.c" \
		"$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/testing/selftests/kselftest.h"
	rm -rf "$upstream"
	mv "$upstream.tmp" "$upstream"
}

# vm.sh puts only the installed collection into the guest: these two
# programs travel inside the guest's command, gzip'ed and base64'ed.
payload()
{
	local name=$1 file=$2

	printf "base64 -d <<'EOF' | gunzip > /bindlab/%s\n" "$name"
	gzip -9c "$file" | base64 -w 76
	printf 'EOF\nchmod +x /bindlab/%s\n' "$name"
}

guest_script()
{
	local bin=$1

	echo "mkdir -p /bindlab"
	payload bind_model_test "$bin/bind_model_test"
	payload bind_wildcard "$bin/bind_wildcard"
	payload bind_wildcard.c "$upstream/net/bind_wildcard.c"
	cat <<EOF
export KSFT_MACHINE_SLOW=yes BINDLAB_MODEL_DEPTH=$depth BINDLAB_MODEL_RANDOM=200 BINDLAB_MODEL_LIST=1
export BINDLAB_BIND_WILDCARD=/bindlab/bind_wildcard.c BINDLAB_XFAIL='$xfail'
uname -r > release
start=\$(cut -d' ' -f1 /proc/uptime)
/bindlab/bind_model_test > model.ktap 2>&1; echo \$? > model.rc
end=\$(cut -d' ' -f1 /proc/uptime)
echo "\$start \$end" > model.time
/bindlab/bind_wildcard > wildcard.ktap 2>&1; echo \$? > wildcard.rc
grep -E '^(not )?ok|^# (disagreement|known kernel bug)|Totals' model.ktap
grep -E '^(not )?ok|Totals' wildcard.ktap
EOF
}

# The two programs, built for the guest in a directory of their own.
build_programs()
{
	local bin=$1

	make -s -C "$BL_REPO_DIR" >&2 || bl_die 1 "make failed"
	strip -o "$bin/bind_model_test" "$BL_REPO_DIR/bind_model_test"
	gcc -O2 -o "$bin/bind_wildcard" "$upstream/net/bind_wildcard.c" ||
		bl_die 1 "cannot compile $upstream/net/bind_wildcard.c"
	strip "$bin/bind_wildcard"
}

# build_kernel DIR: the tree's image, its path in kernel (waited for, not
# a $(...): a signal gets in at once and the build dies with this
# script); build.sh's status.
build_kernel()
{
	local args=(--tree "$tree")

	[ -n "$name" ] && args+=(--name "$name")
	bl_run "$BL_KERNEL_DIR/build.sh" "${args[@]}" "${patches[@]}" > "$1/build.out" || return
	kernel=$(tail -n 1 "$1/build.out")
}

# One line per failing bind_wildcard test: the pair as our sequence, and
# bind_model_test's failing sequences that begin with it.
side_by_side()
{
	local dir=$1

	awk '
	FNR == 1 { file++ }
	file == 1 && /^# upstream bind_wildcard\./ {
		sub(/^# upstream /, ""); split($0, kv, " = "); seq[kv[1]] = kv[2]
	}
	file == 1 && /^# seqfail / {
		line = substr($0, 11); split(line, part, " => ")
		chk = part[2]; sub(/^probe /, "bind ", chk); sub(/:.*/, "", chk)
		fails[++nf] = part[1] "; " chk; text[nf] = line
	}
	file == 2 && $1 == "fail" && $2 ~ /^bind_wildcard\./ { bad[++nb] = $2 }
	file == 2 && $0 == "plan broken" { broken = 1 }
	END {
		if (broken) {
			print "bind_wildcard: its KTAP is broken (bindlab_results ktap wildcard.ktap says why): no side-by-side"
			exit 1
		}
		printf "%-52s | %s\n", "bind_wildcard (upstream) fails", "bind_model_test on the same pair"
		for (i = 1; i <= nb; i++) {
			t = bad[i]; p = seq[t]; n = 0; eg = ""
			for (k = 1; k <= nf; k++)
				if (p != "" && index(fails[k], p) == 1) {
					n++; if (eg == "") eg = text[k]
				}
			v = t; sub(/\.[a-z]+$/, "", v)
			if (n) { flagged[v] = 1; ok++ } else missed++
			uv[v] = 1
			printf "%-52s | %s\n", t, n ? n " failing sequences, e.g. " eg : "NOT FLAGGED (" p ")"
		}
		for (v in uv) { nv++; if (v in flagged) fv++ }
		printf "upstream: %d failing tests in %d variants; bind_model_test flags %d of the tests, %d of the variants\n", nb, nv, ok, fv
		exit missed > 0
	}' "$dir/model.ktap" <("$BL_REPO_DIR/bindlab_results" ktap "$dir/wildcard.ktap" 2> /dev/null)
}

summary()
{
	local dir=$1 t args

	t=$(awk '{ printf "%.0f\n", $2 - $1 }' "$dir/model.time")
	echo "kernel $(cat "$dir/release"): bind_model_test took ${t}s in the guest" \
		"(depth $depth), exit $(cat "$dir/model.rc"); bind_wildcard exit $(cat "$dir/wildcard.rc")"
	# The one KTAP reader, with -x's declarations for the guest's kernel:
	# every case that did not pass, and a broken plan, with the reasons.
	args=()
	if [ -n "$xfail" ]; then
		args=(--xfail-from-env)
		[ -s "$dir/release" ] && args+=(--release "$(cat "$dir/release")")
	fi
	{ BINDLAB_XFAIL=$xfail "$BL_REPO_DIR/bindlab_results" ktap ${args[@]+"${args[@]}"} \
		"$dir/model.ktap" > /dev/null; } 2>&1 || true
	grep -E '^# (disagreement|known kernel bug)' "$dir/model.ktap" | sed 's/; shortest:.*//' | sort | uniq -c | sort -rn || true
}

bl_trap_signals
fetch_upstream
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
build_programs "$bin"
[ -n "$kernel" ] || build_kernel "$bin" || bl_die "$?" "build.sh failed for $tree"
[ -f "$kernel" ] || bl_die 1 "no kernel image: $kernel"

vm_args=(--kernel "$kernel" --timeout "$timeout" --script "$(guest_script "$bin")")
[ -n "$out" ] && vm_args+=(--out "$out")
rc=0
bl_run "$BL_KERNEL_DIR/vm.sh" "${vm_args[@]}" > "$bin/vm.out" || rc=$?
out=$(tail -n 1 "$bin/vm.out")
[ -f "$out/wildcard.ktap" ] || bl_die "${rc/#0/1}" "no results from the guest (vm.sh exit $rc): $out"
summary "$out"
side_by_side "$out"
