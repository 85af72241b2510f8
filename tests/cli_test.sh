#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bind_bench as a user meets it: missing privilege or IPv6 gives exit 4
# with the reason, the output has the seed's last line, the JSON holds
# real samples from which growth and the curve recompute, and the host's
# network state is untouched, even by a run killed midway.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
bb=$here/bind_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Bad input is in tests/bad_inputs.txt (tests/bad_input_test.sh).
if "$bb" --help | grep -q '^usage: bind_bench'; then
	tap_ok "--help prints the usage on stdout"
else
	tap_not_ok "--help prints the usage on stdout"
fi

if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$bb" -b 1 reuseaddr same 10 >/dev/null 2>"$tmp/err"; then
		tap_not_ok "unprivileged run is a SKIP" "it ran"
	else
		rc=$?
		if [ $rc -eq 4 ] && grep -q "SKIP: cannot create a network namespace" "$tmp/err"; then
			tap_ok "unprivileged run is a SKIP (exit 4)"
		else
			tap_not_ok "unprivileged run is a SKIP" "exit $rc: $(head -n1 "$tmp/err")"
		fi
	fi
	# IPv6 disabled inside a namespace of our own (the host keeps its own).
	# shellcheck disable=SC2016 # $0 expands in the inner shell
	unshare -n sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 &&
		echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 &&
		exec "$0" --no-netns -f 6 -b 1 reuseaddr same 10' "$bb" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 4 ] && grep -q "SKIP: IPv6 not" "$tmp/err"; then
		tap_ok "IPv6 disabled is a SKIP (exit 4)"
	else
		tap_not_ok "IPv6 disabled is a SKIP" "exit $rc: $(head -n1 "$tmp/err")"
	fi
	# --no-netns changes the namespace it is given (lo up, three
	# 2001:db8:: addresses for K 4): killed midway, it must put it back.
	for sig in TERM INT; do
		# shellcheck disable=SC2016 # expands in the inner shell
		# env resets the dispositions: a background job ignores SIGINT.
		unshare -n bash -c 'env --default-signal "$0" --no-netns -q -f 6 -r 50 reuseaddr 4 12000 >/dev/null 2>&1 &
			pid=$!
			sleep 1.5
			kill -"$1" "$pid"
			wait "$pid"
			echo "exit $?"
			ip -o link show lo | grep -o "<[^>]*>"
			ip -o -6 addr show dev lo | awk "{ print \$4 }"' "$bb" "$sig" >"$tmp/ns" 2>&1
		want=$((128 + $(kill -l "$sig")))
		if [ "$(tr '\n' ' ' <"$tmp/ns")" = "exit $want <LOOPBACK> " ]; then
			tap_ok "--no-netns killed by SIG$sig: the namespace it was given as it found it"
		else
			tap_not_ok "--no-netns killed by SIG$sig: the namespace it was given as it found it" \
				"want: exit $want, lo down, no address" "got: $(tr '\n' ' ' <"$tmp/ns")"
		fi
	done
else
	tap_skip "unprivileged, no-IPv6 and --no-netns runs" "needs root and setpriv"
fi

# A real run: the seed's last line, and JSON whose figures recompute
# from the raw samples it holds.
host_net_state >"$tmp/state.before"
if "$bb" -r 3 -b 10 --json "$tmp/r.json" reuseaddr alternate 2000 >"$tmp/out" 2>"$tmp/err"; then
	tap_ok "bind_bench -r 3 reuseaddr alternate 2000 runs"
else
	tap_not_ok "bind_bench -r 3 reuseaddr alternate 2000 runs" "$(cat "$tmp/err")"
fi
if tail -n 1 "$tmp/out" | grep -Eq '^reuseaddr alternate 2000: [0-9]+\.[0-9]{3} ms$'; then
	tap_ok "last line has the seed's form"
else
	tap_not_ok "last line has the seed's form" "$(tail -n 1 "$tmp/out")"
fi
if python3 "$here/tests/check_result.py" "$tmp/r.json" "$(tail -n 1 "$tmp/out")" >"$tmp/py" 2>&1; then
	tap_ok "JSON: schema, raw samples, growth and curve recomputed"
else
	tap_not_ok "JSON: schema, raw samples, growth and curve recomputed" "$(cat "$tmp/py")"
fi
for fam in 6 mapped; do
	if "$bb" -q -f $fam -p 0 -b 4 both 3 300 >"$tmp/out" 2>"$tmp/err"; then
		tap_ok "family $fam, automatic port, 3 addresses"
	else
		tap_not_ok "family $fam, automatic port, 3 addresses" "$(cat "$tmp/err")"
	fi
done

# Killed midway: the private namespace dies with the process.
"$bb" -q -r 50 reuseaddr same 12000 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.5
host_net_state >"$tmp/state.after"
if diff -u "$tmp/state.before" "$tmp/state.after" >"$tmp/diff"; then
	tap_ok "host network state unchanged by runs and a SIGKILL midway"
else
	tap_not_ok "host network state unchanged" "$(head -n 20 "$tmp/diff")"
fi
if pgrep -f "$bb" >/dev/null; then
	tap_not_ok "no bind_bench left running" "$(pgrep -af "$bb")"
else
	tap_ok "no bind_bench left running"
fi

tap_done
