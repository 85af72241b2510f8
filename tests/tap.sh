#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the project's shell tests; sourced, not run. The tests
# read numbers and names as the scripts do, in the C locale.

# shellcheck source=scripts/strict.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/strict.sh"

tap_n=0
tap_failed=0

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $1"
	shift
	local line
	for line in "$@"; do
		echo "# $line"
	done
}

tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# Everything of the host's network state that a run could change.
host_net_state() {
	ip netns list 2>&1
	ip -d link show 2>&1
	ip -d addr show 2>&1
	ip route show table all 2>&1
	ip -6 route show table all 2>&1
	# Listening sockets only: established ones come and go with the session.
	ss -Htlnup 2>/dev/null | awk '{print $1, $2, $5}' | sort
	find /proc/sys/net -type f -readable 2>/dev/null | sort | while read -r f; do
		case "$f" in
		# Counters and hashes the kernel changes by itself.
		*/nf_conntrack_count | */flowlabel_state_ranges | */base_reachable_time*) continue ;;
		esac
		printf '%s=%s\n' "$f" "$(tr '\t\n' '  ' <"$f" 2>/dev/null)"
	done
}
