#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the suite cannot work it must say so: unprivileged, every program
# is a SKIP (exit 4) with the reason; with RLIMIT_NOFILE too low for N,
# the tests that need the descriptors SKIP with how many they need and the
# rest still run.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/fdlimit.sh
. "$here/tests/fdlimit.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 1

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	tap_skip "degraded environments" "needs root to drop privileges"
	tap_done
	exit
fi
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)

# skip4 NAME PATTERN CMD...: exit 4 and the reason in the output.
skip4() {
	local name=$1 pat=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q -- "$pat" "$tmp/out"; then
		tap_ok "$name: SKIP (exit 4) with the reason"
	else
		tap_not_ok "$name: SKIP (exit 4) with the reason" "exit $rc" "$(head -n 3 "$tmp/out")"
	fi
}

# ksft_skips NAME CMD...: a kselftest as kselftest_harness.h ends it:
# exit 0, every test that needs a namespace "ok ... # SKIP" with the
# reason, and only the pure tests (a row judged by the model, the model's
# own rules) passing; none failing. known_bug.BUG.kernel XFAILs instead
# (bind_model_test.c: a skipped XFAIL_ADD test would read XPASS).
ksft_skips() {
	local name=$1 rc bad
	shift
	"$@" >"$tmp/out" 2>&1
	rc=$?
	bad=$(grep -E '^(not )?ok [0-9]+ ' "$tmp/out" | grep -v "# SKIP $why" |
		grep -vE '^ok [0-9]+ [a-z0-9_]+\.[a-z0-9_]+\.model$|^ok [0-9]+ model_(rules\.[a-z0-9_]+\.needed|upstream\.bind_wildcard)|^ok [0-9]+ known_bug\.[a-z0-9_]+\.kernel # XFAIL' | head -n 3)
	if [ $rc -eq 0 ] && [ -z "$bad" ] && grep -q "# SKIP $why" "$tmp/out"; then
		tap_ok "$name: each test that needs a namespace SKIPs with the reason (exit 0, the harness's)"
	else
		tap_not_ok "$name: each test that needs a namespace SKIPs with the reason" "exit $rc" "$bad"
	fi
}

why="cannot create a network namespace"
ksft_skips "unprivileged bind_bhash_test" "${nobody[@]}" ./bind_bhash_test
ksft_skips "unprivileged bind_fastreuse" "${nobody[@]}" ./bind_fastreuse
ksft_skips "unprivileged tcp_tw_reuse" "${nobody[@]}" ./tcp_tw_reuse
ksft_skips "unprivileged tw_reuse_loopback" "${nobody[@]}" ./tw_reuse_loopback
ksft_skips "unprivileged bind_model_test" "${nobody[@]}" ./bind_model_test
skip4 "unprivileged churn" "SKIP: .*$why" "${nobody[@]}" ./bind_churn -n 10
skip4 "unprivileged bind_bench" "SKIP: $why" "${nobody[@]}" ./bind_bench -b 1 reuseaddr same 10
skip4 "unprivileged run.sh" "SKIP: needs root" "${nobody[@]}" ./run.sh

# Root without CAP_NET_ADMIN: the namespace is made, lo cannot come up.
why="cannot bring lo up: Operation not permitted"
noadmin=(setpriv --bounding-set -net_admin --inh-caps -net_admin --)
for prog in bind_bhash_test bind_fastreuse tcp_tw_reuse tw_reuse_loopback bind_model_test; do
	ksft_skips "no CAP_NET_ADMIN $prog" "${noadmin[@]}" "./$prog"
done

# Too few descriptors: the fastreuse cases skip, the rest of the suite
# runs. The limit holds for root with CAP_SYS_RESOURCE too (fdlimit.sh).
echo "# CAP_SYS_RESOURCE: $(bl_sys_resource)"
if ! why=$(bl_lowfd_works 1000); then
	tap_not_ok "RLIMIT_NOFILE 1000 that root cannot raise" "$why"
	tap_done
	exit
fi
bl_lowfd_prefix 1000
fdwhy="4000 sockets need more file descriptors: Too many open files"
"${lowfd[@]}" ./bind_fastreuse >"$tmp/out" 2>&1
rc=$?
skips=$(grep -c "^ok .*bind_fastreuse.*# SKIP $fdwhy" "$tmp/out")
"${lowfd[@]}" ./bind_bhash_test >"$tmp/out2" 2>&1
passes=$(grep -c '^ok [0-9]* bind_conflict\.' "$tmp/out2")
if [ "$skips" -eq 16 ] && [ "$passes" -gt 100 ] && ! grep -q '^not ok' "$tmp/out" "$tmp/out2"; then
	tap_ok "RLIMIT_NOFILE 1000: 16 fastreuse SKIPs say what they need (exit $rc), $passes conflict rows still run"
else
	tap_not_ok "RLIMIT_NOFILE 1000" "exit $rc, $skips skips, $passes conflict passes" "$(grep -m 3 '^not ok' "$tmp/out" "$tmp/out2")"
fi

# Room for 4000 sockets, but 200 descriptors inherited: still a SKIP.
bl_lowfd_prefix 4100
# shellcheck disable=SC2016 # expands in the inner shell
"${lowfd[@]}" bash -c 'for i in $(seq 200); do exec {fd}</dev/null; done
	exec ./bind_fastreuse -v v4_reuseaddr_same' >"$tmp/out" 2>&1
if grep -q "^ok 1 .*# SKIP $fdwhy" "$tmp/out"; then
	tap_ok "200 inherited descriptors: bind_fastreuse SKIPs with the reason"
else
	tap_not_ok "200 inherited descriptors: bind_fastreuse SKIPs" "$(grep -m 3 -E '^(not )?ok|^# .*[Ee]xpected' "$tmp/out")"
fi

# stderr closed by the caller: no test's socket may take its number (the
# harness would log into it, and the test die of SIGPIPE).
"$here/bind_model_test" 2>&- >"$tmp/out"
rc=$?
if [ $rc -eq 0 ] && ! grep -q 'signal' "$tmp/out"; then
	tap_ok "stderr closed: bind_model_test exit 0, no test killed"
else
	tap_not_ok "stderr closed: bind_model_test" "exit $rc" "$(grep -m 3 signal "$tmp/out")"
fi
# stdout closed: every result lost, as on a full disk: no verdict (2)
# before any test, never /dev/null's silent 0.
"$here/bind_model_test" >&- 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "stdout: closed: the results would be lost, no verdict" ]; then
	tap_ok "stdout closed: bind_model_test exit 2 with the reason"
else
	tap_not_ok "stdout closed: bind_model_test" "exit $rc" "$(tail -n 2 "$tmp/err")"
fi
# stdout on a full disk: the KTAP is lost, so no verdict (exit 2), never
# the harness's 0.
"$here/bind_model_test" -f model_rules >/dev/full 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^stdout: .*the results are lost' "$tmp/err"; then
	tap_ok "stdout on /dev/full: bind_model_test exit 2 with the reason"
else
	tap_not_ok "stdout on /dev/full: bind_model_test" "exit $rc" "$(tail -n 2 "$tmp/err")"
fi
tap_done
