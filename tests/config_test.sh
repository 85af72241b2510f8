#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftests' `config` fragment is enough on its own: merged the way
# fleets merge it (scripts/kconfig/merge_config.sh, then olddefconfig) over
# the smallest base, tinyconfig, and over x86_64's defconfig, every option
# it sets is in the final .config. A fragment that leaves out a
# dependency (VETH without NETDEVICES) loses the option silently there,
# and the tests that need it SKIP on that fleet. Uses the kernel lab's
# 6.12 git tree (tests/kernel_lab_test.sh makes it; run after it), read
# only: the configurations go to their own O= directories.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
cache=${BINDLAB_CACHE:-$HOME/.cache/bindlab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=$cache/lab/linux-6.12.git
if [ ! -x "$src/scripts/kconfig/merge_config.sh" ]; then
	tap_not_ok "the kernel lab's 6.12 tree" "no $src (run tests/kernel_lab_test.sh first)"
	tap_done
	exit
fi

# merged BASE: our fragment over BASE in $tmp/BASE; the options lost.
merged() {
	local out=$tmp/$1 sym
	mkdir -p "$out"
	if ! make -s -C "$src" O="$out" ARCH=x86_64 "$1" >"$out/log" 2>&1 ||
	   ! (cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "$here/config") >>"$out/log" 2>&1 ||
	   ! make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >>"$out/log" 2>&1; then
		echo "make $1: $(tail -n 1 "$out/log")"
		return
	fi
	while read -r sym; do
		grep -qx "$sym" "$out/.config" || echo "$sym"
	done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$here/config")
}

for base in tinyconfig x86_64_defconfig; do
	lost=$(merged "$base")
	if [ -z "$lost" ]; then
		tap_ok "config over $base: all $(grep -c '^CONFIG_' "$here/config") options in the final .config"
	else
		tap_not_ok "config over $base: every option in the final .config" "lost: $(echo "$lost" | tr '\n' ' ')"
	fi
done
tap_done
