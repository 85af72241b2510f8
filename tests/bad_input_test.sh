#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every line of tests/bad_inputs.txt: a malformed invocation, the exit
# status it must give and the start of its one-line error.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/fdlimit.sh
. "$here/tests/fdlimit.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 1
echo "# CAP_SYS_RESOURCE: $(bl_sys_resource)"

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

while IFS='|' read -r want msg cmd; do
	case "$want" in '#'* | '') continue ;; esac
	want=$(trim "$want")
	msg=$(trim "$msg")
	cmd=$(trim "$cmd")
	# The table is ours: its command lines are shell words.
	eval "set -- $cmd"
	# "lowfd N CMD": RLIMIT_NOFILE N for root too (tests/fdlimit.sh).
	if [ "$1" = lowfd ]; then
		if ! why=$(bl_lowfd_works "$2"); then
			tap_not_ok "$cmd -> $want" "$why"
			continue
		fi
		bl_lowfd_prefix "$2"
		shift 2
		set -- "${lowfd[@]}" "$@"
	fi
	touch "$tmp/stamp"
	# Bounded: an input that hangs a program is a failure, not a stuck test.
	timeout -k 2 30 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	got=$?
	first=$(head -n 1 "$tmp/err")
	written=$(find "$here" /tmp /dev /boot -maxdepth 1 -newer "$tmp/stamp" -name 'bindlab-never*' 2>/dev/null)
	# As root a rename over /dev/null would make it a regular file.
	[ -c /dev/null ] || written="$written /dev/null is no longer a device"
	if [ "$got" -eq "$want" ] && [[ "$first" == "$msg"* ]] && [ -z "$written" ]; then
		tap_ok "$cmd -> $want"
	else
		tap_not_ok "$cmd -> $want" "got exit $got: $first" "wanted: $msg"
	fi
done <"$here/tests/bad_inputs.txt"

tap_done
