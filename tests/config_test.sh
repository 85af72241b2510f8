#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftests' `config` fragment is enough on its own: merged the way
# fleets merge it (scripts/kconfig/merge_config.sh, then olddefconfig) over
# the smallest base, tinyconfig, over x86_64's defconfig, and over
# virtme-ng's base (x86_64's defconfig and vng's own options, which turn
# IPv6 off: tests/vng_base.config, as netdev CI's `vng -b -f config`
# builds it), every option it sets is in the final .config. A fragment
# that leaves out a dependency (VETH without NETDEVICES) loses the option
# silently there, and the tests that need it SKIP on that fleet. Uses the
# kernel lab's 6.12 git tree (tests/kernel_lab_test.sh makes it; run after
# it), read only: the configurations go to an O= directory of their own.
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

vng=$here/tests/vng_base.config

# merged TARGET FRAGMENT...: make TARGET, the FRAGMENTs merged over
# it (a later one wins), olddefconfig; prints the options of our config
# (or of $want) that are not in the final .config. One O= directory for
# all: kconfig's tools are built once.
want=$here/config
merged() {
	local out=$tmp/o target=$1 sym
	shift
	mkdir -p "$out"
	rm -f "$out/.config"
	if ! make -s -C "$src" O="$out" ARCH=x86_64 "$target" >"$out/log" 2>&1 ||
	   ! (cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "$@") >>"$out/log" 2>&1 ||
	   ! make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >>"$out/log" 2>&1; then
		echo "make $target: $(tail -n 1 "$out/log")"
		return
	fi
	while read -r sym; do
		grep -qx "$sym" "$out/.config" || echo "$sym"
	done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$want")
}

n=$(grep -c '^CONFIG_' "$here/config")
for base in tinyconfig x86_64_defconfig vng; do
	if [ "$base" = vng ]; then
		lost=$(merged x86_64_defconfig "$vng" "$here/config")
	else
		lost=$(merged "$base" "$here/config")
	fi
	if [ -z "$lost" ]; then
		tap_ok "config over $base: all $n options in the final .config"
	else
		tap_not_ok "config over $base: every option in the final .config" "lost: $(echo "$lost" | tr '\n' ' ')"
	fi
done
# The lab's leak kernel (kernel/mutate.sh --leak): a kmemleak option that
# does not stick is a build failure of every mutant there, found only
# after a cold build; here it costs one olddefconfig.
want=$here/kernel/config.leak
lost=$(merged tinyconfig "$here/kernel/config.fragment" "$want")
if [ -z "$lost" ]; then
	tap_ok "config.leak over the lab's fragment: all its options in the final .config"
else
	tap_not_ok "config.leak over the lab's fragment: every option in the final .config" \
		"lost: $(echo "$lost" | tr '\n' ' ')"
fi
want=$here/config

# The check over vng's base is not x86_64's defconfig again: that base
# alone turns IPv6 off (x86_64_defconfig has it on), and our fragment
# brings it back.
lost=$(merged x86_64_defconfig "$vng")
if grep -qx 'CONFIG_IPV6=y' <<< "$lost"; then
	tap_ok "config vng_base: without our fragment it lacks $(paste -sd ' ' <<< "${lost//=y/}")"
else
	tap_not_ok "config vng_base: without our fragment IPv6 is off, as in vng's base" \
		"IPv6 on, lacks only: $(paste -sd ' ' <<< "${lost//=y/}"): tests/vng_base.config is not vng's base"
fi
tap_done
