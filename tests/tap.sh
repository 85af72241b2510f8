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

# term_mid_write SCRIPT FUNC RENAME DIR [SIG]: SCRIPT's FUNC(DIR/out,
# text), with SIGSIG (TERM) sent to itself just before its os.RENAME:
# prints the exit status and what DIR holds then ("143 out" when the
# write held the signal until the file was whole and no temporary is left).
term_mid_write() {
	python3 - "$@" <<'PY'
import importlib.util, os, signal, subprocess, sys
script, func, rename, d = sys.argv[1:5]
sig = sys.argv[5] if len(sys.argv) > 5 else "TERM"
code = '''
import importlib.util, os, signal, sys
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
real = getattr(os, sys.argv[3])
def late(a, b):
    os.kill(os.getpid(), getattr(signal, "SIG" + sys.argv[5]))
    real(a, b)
setattr(os, sys.argv[3], late)
getattr(m, sys.argv[2])(os.path.join(sys.argv[4], "out"), "x\\n")
'''
rc = subprocess.run([sys.executable, "-c", code, script, func, rename, d, sig]).returncode
print(128 - rc if rc < 0 else rc, " ".join(sorted(os.listdir(d))))
PY
}
