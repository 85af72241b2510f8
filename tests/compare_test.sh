#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ./run.sh compare on crafted result files with known answers: a clear
# regression, a clear improvement, overlapping samples, incomparable
# cases, the exit-status contract, and malformed input (exit 2, one
# line, nothing written).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# craft FILE HARNESS SCHEMA_VERSION CASE:METRIC:BETTER:N:SAMPLES...
craft() {
	python3 - "$@" <<'PY'
import json, sys
path, harness, sv = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = []
for spec in sys.argv[4:]:
    case, metric, better, n, samples = spec.split(":")
    cases.append({"schema": "bindlab.result", "schema_version": sv,
                  "harness_version": harness, "tool": "bind_bench",
                  "case": case, "params": {"n": int(n), "rounds": 5},
                  "env": {}, "metric": {"name": metric, "unit": "ms",
                  "better": better,
                  "samples": [float(x) for x in samples.split(",")]}})
json.dump({"schema": "bindlab.run", "schema_version": sv,
           "harness_version": harness, "env": {}, "cases": cases},
          open(path, "w"))
PY
}

base=10,10.2,9.9,10.1,9.8,10.3
craft "$tmp/before.json" 0.1.0 1 \
	slower:total_ms:lower:100:$base \
	faster:total_ms:lower:100:$base \
	overlap:total_ms:lower:100:$base \
	rate:conn_per_s:higher:100:$base \
	params:total_ms:lower:100:$base \
	drift:total_ms:lower:100:$base \
	gone:total_ms:lower:100:$base
craft "$tmp/after.json" 0.1.2 1 \
	slower:total_ms:lower:100:20,20.4,19.8,20.2,19.6,20.6 \
	faster:total_ms:lower:100:5,5.1,4.95,5.05,4.9,5.15 \
	overlap:total_ms:lower:100:10.1,9.85,10.25,9.95,10.05,9.9 \
	rate:conn_per_s:higher:100:8,8.1,7.9,8.2,7.8,8.05 \
	params:total_ms:lower:200:$base \
	drift:total_ms:lower:100:10.5,10.71,10.4,10.6,10.3,10.8 \
	new:total_ms:lower:100:$base

# check NAME WANT-STATUS PATTERN CMD...
check() {
	local name=$1 want=$2 pat=$3 got
	shift 3
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ] && grep -Eq -- "$pat" "$tmp/out"; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $got (want $want), pattern: $pat" "$(head -n 12 "$tmp/out")"
	fi
}

cmp=("$here/run.sh" compare)
check "clear regression: 2x slower" 0 '^slower .* 2\.00x slower' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "clear improvement: 2x faster" 0 '^faster .* 2\.0[0-9]x faster' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "overlapping samples: no stable difference" 0 '^overlap .*no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "higher-is-better metric that dropped is slower" 0 '^rate .* 1\.25x slower' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "a 5% drift is not claimed by default" 0 '^drift .*no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "--min-change 0 claims the 5% drift" 0 '^drift .* 1\.05x slower' "${cmp[@]}" --min-change 0 "$tmp/before.json" "$tmp/after.json"
check "different parameters are not compared" 0 "^params .*not compared: parameter 'n' differs" "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in BEFORE is listed" 0 '^gone .*only in BEFORE' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in AFTER is listed" 0 '^new .*only in AFTER' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "--threshold 10: regression exits 1" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" --threshold 10 "$tmp/before.json" "$tmp/after.json"
check "--threshold 150: nothing beyond it, exit 0" 0 'regressions beyond 150.0%: 0' "${cmp[@]}" --threshold 150 "$tmp/before.json" "$tmp/after.json"
check "a run compared with itself: no stable difference anywhere" 0 'no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/before.json"
if "${cmp[@]}" "$tmp/before.json" "$tmp/before.json" | grep -E '[0-9]x (slower|faster)' >/dev/null; then
	tap_not_ok "self-comparison claims no change"
else
	tap_ok "self-comparison claims no change"
fi

craft "$tmp/other_major.json" 0.2.0 1 slower:total_ms:lower:100:$base
craft "$tmp/three.json" 0.1.0 1 slower:total_ms:lower:100:10,10.2,9.9
craft "$tmp/three_after.json" 0.1.0 1 slower:total_ms:lower:100:20,20.4,19.8
check "3 rounds a side: too few to claim anything" 0 '^slower .*too few rounds \(3\+3; 4\+ each\)' "${cmp[@]}" "$tmp/three.json" "$tmp/three_after.json"
check "another harness series is not compared" 0 'not compared: harness 0.1.0 vs 0.2.0' "${cmp[@]}" "$tmp/before.json" "$tmp/other_major.json"

"${cmp[@]}" --json "$tmp/cmp.json" "$tmp/before.json" "$tmp/after.json" >/dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["case"]: r for r in d["rows"]}
assert d["schema"] == "bindlab.compare"
assert rows["slower"]["regression"] is False and rows["slower"]["significant"]
assert abs(rows["slower"]["ratio"] - 2.0) < 0.02
lo, hi = rows["slower"]["ratio_ci95"]
assert lo <= 2.0 <= hi or abs(lo - 2.0) < 0.05
assert not rows["overlap"]["significant"]
assert {s["case"] for s in d["skipped"]} == {"params", "gone", "new"}
' "$tmp/cmp.json"; then
	tap_ok "--json holds rows, CIs and skipped cases"
else
	tap_not_ok "--json holds rows, CIs and skipped cases"
fi

# Malformed input: one line on stderr, exit 2, nothing written.
echo '{"schema": "bindlab.run", "cases": [' >"$tmp/truncated.json"
echo '{"schema": "something.else"}' >"$tmp/foreign.json"
echo '[1, 2, 3]' >"$tmp/array.json"
craft "$tmp/v2.json" 0.1.0 2 slower:total_ms:lower:100:$base
python3 -c 'import json; json.dump({"schema": "bindlab.result", "schema_version": 1, "harness_version": "0.1.0", "tool": "x", "case": "c", "params": {}, "metric": {"name": "t", "unit": "ms", "better": "lower", "samples": ["fast"]}}, open("'"$tmp"'/badsample.json", "w"))'
python3 -c 'import json; json.dump({"schema": "bindlab.result", "schema_version": 1, "harness_version": "0.1.0", "tool": "x", "case": "c", "params": {}, "metric": {"name": "t", "unit": "ms", "better": "sideways", "samples": [1]}}, open("'"$tmp"'/badbetter.json", "w"))'
bad() {
	local name=$1 pat=$2 lines
	shift 2
	rm -f "$tmp/never.json"
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$tmp/err" && [ ! -e "$tmp/never.json" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $rc, $lines stderr lines: $(head -n 3 "$tmp/err")"
	fi
}
bad "missing file" "No such file" "${cmp[@]}" --json "$tmp/never.json" "$tmp/nope.json" "$tmp/after.json"
bad "truncated JSON" "malformed JSON" "${cmp[@]}" --json "$tmp/never.json" "$tmp/truncated.json" "$tmp/after.json"
bad "not our schema" "is not ours" "${cmp[@]}" --json "$tmp/never.json" "$tmp/before.json" "$tmp/foreign.json"
bad "not an object" "not a JSON object" "${cmp[@]}" --json "$tmp/never.json" "$tmp/array.json" "$tmp/after.json"
bad "incompatible schema version" "schema version 2" "${cmp[@]}" --json "$tmp/never.json" "$tmp/before.json" "$tmp/v2.json"
bad "non-numeric sample" "samples\[0\]" "${cmp[@]}" --json "$tmp/never.json" "$tmp/badsample.json" "$tmp/after.json"
bad "unknown direction" "neither lower nor higher" "${cmp[@]}" --json "$tmp/never.json" "$tmp/badbetter.json" "$tmp/after.json"
bad "one file only" "compare needs BEFORE.json AFTER.json" "${cmp[@]}" "$tmp/before.json"
bad "bad threshold" "is not a percentage" "${cmp[@]}" --threshold ten "$tmp/before.json" "$tmp/after.json"
bad "unknown compare flag" "unknown option --bogus" "${cmp[@]}" --bogus "$tmp/before.json" "$tmp/after.json"
bad "unknown subcommand" "unknown subcommand 'frobnicate'" "$here/run.sh" frobnicate
bad "unknown main-job flag" "unknown option '--fast'" "$here/run.sh" --fast
bad "plot without a file" "plot needs RUN.json" "$here/run.sh" plot

tap_done
