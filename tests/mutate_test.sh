#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutation machinery's fixed sample (kernel/mutate.sh): one mutant the
# suite must kill, by the named test, and one equivalent mutant that must
# survive the whole collection (docs/lab.md, "Mutation"). A machinery that
# kills everything, or nothing, or blames the wrong test fails here.
#
# Runs after tests/kernel_lab_test.sh and reuses its work: the lab's git
# tree and its warm O= directory, so each mutant is a one-file incremental
# rebuild, never a second cold kernel build. It holds the lab's lock,
# checks out `fixed` detached (mutate.sh resets its files after each
# mutant), and puts the lab tree back on the ref it found. The lab's
# cached stock and fixed images must still be cache hits, unchanged, after.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
cache=${BINDLAB_CACHE:-$HOME/.cache/bindlab}
lab=$cache/lab
repo=$lab/linux-6.12.git
build=$cache/build/lab
tmp=$(mktemp -d)
orig=

# Each sample mutant: id, expected verdict, the test that must kill it.
samples=(
	"inet_csk_find_open_port.L360.cond_false killed bind_bhash_test:port_choice.v4_port0_not_reserved.choose"
	"inet_csk_find_open_port.L335.cond_false survived -"
)

cleanup() {
	[ -z "$orig" ] || git -C "$repo" checkout -q "$orig" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v qemu-system-x86_64 >/dev/null; then
	tap_skip mutate "qemu-system-x86_64 not installed"
	tap_done
	exit
fi
if ! git -C "$repo" rev-parse -q --verify fixed >/dev/null 2>&1 || [ ! -d "$build" ]; then
	tap_not_ok mutate.lab "no lab tree $repo or build $build (run tests/kernel_lab_test.sh first)"
	tap_done
	exit
fi
[ -x "$here/bindlab_results" ] || make -s -C "$here" bindlab_results >/dev/null

# The kernel lab's lock: no lab run checks this tree out under us.
exec 8>"$lab/.lock"
flock 8 || { tap_not_ok mutate.lab "no lock on $lab/.lock"; tap_done; exit; }
if [ -n "$(git -C "$repo" status --porcelain | head -n 1)" ]; then
	tap_not_ok mutate.lab "$repo has local changes: not touched"
	tap_done
	exit
fi
orig=$(git -C "$repo" symbolic-ref -q --short HEAD || git -C "$repo" rev-parse HEAD)

# image REV: the lab's cached image of REV (its path, then its sha256),
# or nothing when build.sh had to build it (not a cache hit).
image() {
	local img

	git -C "$repo" checkout -q --detach "$1" || return 0
	img=$("$here/kernel/build.sh" --tree "$repo" --out "$build" --name "$1" \
		2>"$tmp/build-$1.err" | tail -n 1)
	grep -q 'cached image of' "$tmp/build-$1.err" || return 0
	echo "$img $(sha256sum <"$img" | cut -d' ' -f1)"
}

declare -A before
for rev in stock fixed; do
	before[$rev]=$(image "$rev")
done

git -C "$repo" checkout -q --detach fixed
ids=()
for s in "${samples[@]}"; do
	ids+=(-m "${s%% *}")
done
t0=$SECONDS
rc=0
"$here/kernel/mutate.sh" -t "$repo" -o "$build" -r "$tmp/table.json" "${ids[@]}" \
	>"$tmp/mutate.out" 2>"$tmp/mutate.err" || rc=$?
wall=$((SECONDS - t0))
if [ "$rc" = 0 ]; then
	tap_ok "mutate.run # ${#samples[@]} mutants in $wall s"
else
	tap_not_ok mutate.run "kernel/mutate.sh exit $rc" "$(tail -n 5 "$tmp/mutate.err")"
fi

for s in "${samples[@]}"; do
	read -r id want by <<<"$s"
	got=$(python3 - "$tmp/table.json" "$id" <<'EOF' 2>/dev/null
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["mutants"]}
r = rows[sys.argv[2]]
print(r["verdict"], ",".join(r["killed_by"]) or "-")
EOF
)
	read -r verdict killers <<<"${got:-none -}"
	if [ "$verdict" != "$want" ]; then
		tap_not_ok "mutate.$id.$want" "verdict $verdict (by $killers), want $want"
	elif [ "$want" = killed ] && [[ ",$killers," != *",$by,"* ]]; then
		tap_not_ok "mutate.$id.$want" "killed by $killers, not by $by"
	else
		note=
		[ "$by" = - ] || note=" # by $by"
		tap_ok "mutate.$id.$want$note"
	fi
done

# The lab's images: still cache hits, byte for byte the same.
for rev in stock fixed; do
	after=$(image "$rev")
	if [ -n "${before[$rev]}" ] && [ "$after" = "${before[$rev]}" ]; then
		tap_ok "mutate.lab_image.$rev # ${after%% *}"
	else
		tap_not_ok "mutate.lab_image.$rev" "before: ${before[$rev]:-not a cache hit}" \
			"after: ${after:-not a cache hit}"
	fi
done

git -C "$repo" checkout -q "$orig"
now=$(git -C "$repo" symbolic-ref -q --short HEAD || git -C "$repo" rev-parse HEAD)
if [ "$now" = "$orig" ] && [ -z "$(git -C "$repo" status --porcelain | head -n 1)" ]; then
	tap_ok "mutate.lab_restored # $orig, clean"
	orig=
else
	tap_not_ok mutate.lab_restored "lab tree on $now, want $orig, clean" \
		"$(git -C "$repo" status --porcelain | head -n 3)"
fi
tap_done
