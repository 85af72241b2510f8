#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# known_bug() (model_judge.h) names a kernel bug only by its exact
# signature, so a regression that merely looks like one still fails.
# Shown with planted near misses: a model/kernel difference next to the
# bug's sequence shape, which the broad predicates known_bug() had
# before passed as the bug, must fail bind_model_test as an unknown
# disagreement. And the shortest sequence of each real bug must still be
# named by it (or agree, on a kernel that fixed it).
#
# The difference is planted without touching the kernel or the program:
# BINDLAB_MODEL_DROP runs the model without one of its rules, on one
# sequence replayed with BINDLAB_MODEL_SEQ, both documented in
# bind_model_test.c. Each run is in bind_model_test's own namespace.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# BINDLAB_MODEL_TEST: another build of the program (a planted fault).
prog=${BINDLAB_MODEL_TEST:-$here/bind_model_test}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0

# replay DROP SEQ: the sequence in bind_model.v4_any.exhaustive, the
# model without rule DROP (or none); output in $tmp/out, exit in $rc.
replay() {
	env BINDLAB_MODEL_DROP="$1" BINDLAB_MODEL_SEQ="$2" \
		"$prog" -r bind_model.v4_any.exhaustive >"$tmp/out" 2>&1 </dev/null
	rc=$?
	# No namespace, no IPv6, no root: the whole check is a SKIP (the
	# harness exits 0 when its only test skipped).
	if [ "$rc" -eq 4 ] || grep -q '^ok 1 .* # SKIP' "$tmp/out"; then
		tap_skip "known bug signatures" "$(sed -n 's/^ok 1 .* # SKIP //p' "$tmp/out")"
		tap_done
		exit
	fi
}

# The disagreement lines of the last run, for a failing check's report.
lines() {
	grep -E '^# (disagreement|known kernel bug)' "$tmp/out" | head -n 6
}

# genuine NAME SEQ: the bug's own sequence passes, every disagreement
# named NAME.
genuine() {
	local name=$1

	replay "" "$2"
	if [ "$rc" -eq 0 ] && ! grep -q '^# disagreement ' "$tmp/out"; then
		tap_ok "$name: its shortest sequence passes ($(grep -c "^# known kernel bug $name:" "$tmp/out") known lines)"
	else
		tap_not_ok "$name: its shortest sequence passes" "exit $rc" "$(lines)"
	fi
}

# near_miss NAME DROP SEQ CHECK ANSWERS: with rule DROP planted out of the
# model, CHECK after SEQ is an unknown disagreement with ANSWERS
# ("kernel X, model Y") and the test fails.
near_miss() {
	local name=$1 want="^# disagreement ${4%% *} v4_any.*: $5 .*shortest: $3 => $4\$"

	replay "$2" "$3"
	if [ "$rc" -eq 1 ] && grep -qE "$want" "$tmp/out"; then
		tap_ok "$name near miss (model without $2) fails: $4 after $3"
	else
		tap_not_ok "$name near miss (model without $2) fails: $4 after $3" \
			"exit $rc, want 1 and a line matching: $want" "$(lines)"
	fi
}

if [ ! -x "$prog" ]; then
	tap_not_ok "bind_model_test built" "no $prog (make)"
	tap_done
	exit
fi
genuine fastreuseport_stale \
	"bind v4_any reuseaddr; bind v4_any reuseaddr+reuseport; bind v4_any reuseport"
genuine tw_v6_blocks_v4_any "bind v6_any plain; time_wait #0"

# #1 shared the port with #0 by the family rule (a stale fast path
# entry), but the planted refusal is for #1 itself, which shares with the
# probe by SO_REUSEPORT: not a conflict the entry skipped.
near_miss fastreuseport_stale reuseport "bind v6_local reuseaddr; bind v4_any reuseport" \
	"probe v4_any reuseport" "kernel success, model EADDRINUSE"
# A TIME_WAIT socket from :: is an owner, but it shares with the probe by
# SO_REUSEPORT; the planted answer is about #2, an IPv4 owner.
near_miss tw_v6_blocks_v4_any v4_wildcard "bind v6_any reuseport; time_wait #0; bind v4_local plain" \
	"probe v4_any reuseport" "kernel EADDRINUSE, model success"
tap_done
