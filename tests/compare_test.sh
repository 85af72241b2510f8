#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ./run.sh compare on crafted result files with known answers: a clear
# regression, a clear improvement, overlapping samples, a change inside
# the run-to-run drift floor, runs that drift apart while their rounds
# agree (several runs a side), incomparable cases, the exit-status
# contract, and malformed input (exit 2, one line, nothing written).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# craft FILE HARNESS SCHEMA_VERSION CASE:METRIC:BETTER:N:SAMPLES...
# (CRAFT_ENV: the cases' environment as JSON, default {})
craft() {
	python3 - "$@" <<'PY'
import json, os, sys
env = json.loads(os.environ.get("CRAFT_ENV", "{}"))
path, harness, sv = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = []
for spec in sys.argv[4:]:
    case, metric, better, n, samples = spec.split(":")
    cases.append({"schema": "bindlab.result", "schema_version": sv,
                  "harness_version": harness, "tool": "bind_bench",
                  "case": case, "params": {"n": int(n), "rounds": 5},
                  "env": env, "metric": {"name": metric, "unit": "ms",
                  "better": better,
                  "samples": [float(x) for x in samples.split(",")]}})
json.dump({"schema": "bindlab.run", "schema_version": sv,
           "harness_version": harness, "env": {}, "cases": cases},
          open(path, "w"))
PY
}

base=10,10.2,9.9,10.1,9.8,10.3
before_cases=("slower:total_ms:lower:100:$base" "faster:total_ms:lower:100:$base"
	"overlap:total_ms:lower:100:$base" "rate:conn_per_s:higher:100:$base"
	"params:total_ms:lower:100:$base" "drift:total_ms:lower:100:$base"
	"inside:total_ms:lower:100:$base" "gone:total_ms:lower:100:$base")
craft "$tmp/before.json" 0.1.0 2 "${before_cases[@]}"
craft "$tmp/after.json" 0.1.2 2 \
	slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2 \
	faster:total_ms:lower:100:2.5,2.55,2.475,2.525,2.45,2.575 \
	overlap:total_ms:lower:100:10.1,9.85,10.25,9.95,10.05,9.9 \
	rate:conn_per_s:higher:100:2.5,2.55,2.475,2.525,2.45,2.575 \
	params:total_ms:lower:200:$base \
	drift:total_ms:lower:100:10.5,10.71,10.4,10.6,10.3,10.8 \
	inside:total_ms:lower:100:15,15.3,14.85,15.15,14.7,15.45 \
	new:total_ms:lower:100:$base
# The same figures from another run (another time): not a copy.
CRAFT_ENV='{"time": "2026-01-01T00:00:00Z"}' craft "$tmp/before_again.json" 0.1.0 2 "${before_cases[@]}"
cp "$tmp/before.json" "$tmp/before_copy.json"

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
check "clear regression: 4x slower" 0 '^slower .* 4\.00x slower' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "clear improvement: 4x faster" 0 '^faster .* 4\.0[0-9]x faster' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "overlapping samples: no stable difference" 0 '^overlap .*no stable difference$' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "higher-is-better metric that dropped is slower" 0 '^rate .* 4\.0[0-9]x slower' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "a 5% drift is not claimed by default" 0 '^drift .*no stable difference$' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "1.5x with tight rounds, one run a side: inside the drift floor" 0 '^inside .*rounds 6\+6 +no stable difference \(1 run a side: < 3x\)' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "--drift 20 claims the 1.5x" 0 '^inside .* 1\.50x slower' "${cmp[@]}" --drift 20 "$tmp/before.json" "$tmp/after.json"
CRAFT_ENV='{"nproc": 2, "loadavg": "5.00 4.10 3.20 6/120 4242"}' \
	craft "$tmp/loaded.json" 0.1.0 2 slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2
check "4x on a host with load 2.5 per CPU: inside the grown floor" 0 '^slower .*no stable difference \(1 run a side, load 2\.5/CPU: < 7\.5x\)' "${cmp[@]}" "$tmp/before.json" "$tmp/loaded.json"
check "the load is noted under the table" 0 'up to 2\.5 runnable tasks per CPU' "${cmp[@]}" "$tmp/before.json" "$tmp/loaded.json"
check "--min-change 0 --drift 0 claims the 5% drift" 0 '^drift .* 1\.05x slower' "${cmp[@]}" --min-change 0 --drift 0 "$tmp/before.json" "$tmp/after.json"
check "different parameters are not compared" 0 "^params .*not compared: parameter 'n' differs" "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in BEFORE is listed" 0 '^gone .*only in BEFORE' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in AFTER is listed" 0 '^new .*only in AFTER' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "--threshold 10: regression exits 1" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" --threshold 10 "$tmp/before.json" "$tmp/after.json"
check "--threshold 350: nothing beyond it, exit 0" 0 'regressions beyond 350.0%: 0' "${cmp[@]}" --threshold 350 "$tmp/before.json" "$tmp/after.json"
check "a run compared with an equal run: no stable difference anywhere" 0 'no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/before_again.json"
check "a copy of a run is no second run (content, not name)" 2 'holds the same results as an earlier file' "${cmp[@]}" "$tmp/before.json" "$tmp/before_copy.json"
if "${cmp[@]}" "$tmp/before.json" "$tmp/before_again.json" | grep -E '[0-9]x (slower|faster)' >/dev/null; then
	tap_not_ok "self-comparison claims no change"
else
	tap_ok "self-comparison claims no change"
fi

# Several runs a side (BEFORE... -- AFTER...): one sample per run. The
# runs' rounds agree within 2% but the runs drift by 20-40%, as
# cache-bound scans do between runs here: the runs carry the evidence.
# rounds M: five rounds within 2% of M
rounds() {
	awk -v m="$1" 'BEGIN { printf "%.4f,%.4f,%.4f,%.4f,%.4f", m, m * 1.01, m * 0.99, m * 1.02, m * 0.98 }'
}
drifting=(10 12 8.5 11.5 9 12.5)
small=(10 10.3 9.8 12 12.2 11.9)
big=(10 10.5 9.7 30 31 29.5)
for i in 0 1 2 3 4 5; do
	craft "$tmp/run$((i + 1)).json" 0.1.0 2 \
		"drifting:total_ms:lower:100:$(rounds "${drifting[$i]}")" \
		"small:total_ms:lower:100:$(rounds "${small[$i]}")" \
		"big:total_ms:lower:100:$(rounds "${big[$i]}")"
done
craft "$tmp/run7.json" 0.1.0 2 drifting:total_ms:lower:200:10,10,10,10,10
runs=("$tmp/run1.json" "$tmp/run2.json" "$tmp/run3.json" -- "$tmp/run4.json" "$tmp/run5.json" "$tmp/run6.json")
check "drifting runs, 3 a side: no stable difference" 0 '^drifting .*runs 3\+3 +no stable difference$' "${cmp[@]}" "${runs[@]}"
check "drifting runs one by one: the drift floor holds the claim" 0 '^drifting .*rounds 5\+5 +no stable difference \(1 run a side' "${cmp[@]}" "$tmp/run3.json" "$tmp/run6.json"
check "3x over runs 5% apart is claimed" 0 '^big .*runs 3\+3 +3\.0[0-9]x slower' "${cmp[@]}" "${runs[@]}"
check "1.2x over steady runs is claimed: replication buys resolution" 0 '^small .*runs 3\+3 +1\.2[0-9]x slower' "${cmp[@]}" "${runs[@]}"
check "runs: --threshold 50 exits 1 on the 3x" 1 'regressions beyond 50.0%: 1' "${cmp[@]}" --threshold 50 "${runs[@]}"
check "one run before, three after: rounds and the drift floor" 0 '^big .*rounds 5\+15 ' "${cmp[@]}" "$tmp/run1.json" -- "$tmp/run4.json" "$tmp/run5.json" "$tmp/run6.json"
check "a run with other parameters makes the case incomparable" 0 "^drifting .*not compared: parameter 'n' differs" "${cmp[@]}" "${runs[@]}" "$tmp/run7.json"
"${cmp[@]}" --json "$tmp/runs.json" "${runs[@]}" >/dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["case"]: r for r in d["rows"]}
assert len(d["before"]) == 3 and len(d["after"]) == 3
r = rows["big"]
assert r["method"] == "runs" and r["test"] == "welch_t_log_run_medians"
assert r["runs_before"] == 3 and r["rounds_after"] == 15 and r["significant"]
assert abs(r["ratio"] - 3.0) < 0.01 and r["ratio_ci95"][0] > 1
assert not rows["drifting"]["significant"]
' "$tmp/runs.json"; then
	tap_ok "--json of runs: method, test, run and round counts"
else
	tap_not_ok "--json of runs: method, test, run and round counts"
fi

craft "$tmp/other_major.json" 0.2.0 2 slower:total_ms:lower:100:$base
craft "$tmp/three.json" 0.1.0 2 slower:total_ms:lower:100:10,10.2,9.9
craft "$tmp/three_after.json" 0.1.0 2 slower:total_ms:lower:100:20,20.4,19.8
check "3 rounds a side: too few to claim anything" 0 '^slower .*too few rounds \(3\+3; 4\+ each\)' "${cmp[@]}" "$tmp/three.json" "$tmp/three_after.json"
check "another harness series is not compared" 2 'not compared: harness 0.1.0 vs 0.2.0' "${cmp[@]}" "$tmp/before.json" "$tmp/other_major.json"
check "a compare that compared nothing is an error" 2 'nothing compared' "${cmp[@]}" --threshold 10 "$tmp/before.json" "$tmp/other_major.json"

"${cmp[@]}" --json "$tmp/cmp.json" "$tmp/before.json" "$tmp/after.json" >/dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["case"]: r for r in d["rows"]}
assert d["schema"] == "bindlab.compare"
assert rows["slower"]["regression"] is False and rows["slower"]["significant"]
assert abs(rows["slower"]["ratio"] - 4.0) < 0.02
lo, hi = rows["slower"]["ratio_ci95"]
assert lo <= 4.0 <= hi
assert rows["slower"]["method"] == "rounds" and rows["slower"]["runs_before"] == 1
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
craft "$tmp/v1.json" 0.1.0 1 slower:total_ms:lower:100:$base
python3 -c 'import json; json.dump({"schema": "bindlab.result", "schema_version": 2, "harness_version": "0.1.0", "tool": "x", "case": "c", "params": {}, "metric": {"name": "t", "unit": "ms", "better": "lower", "samples": ["fast"]}}, open("'"$tmp"'/badsample.json", "w"))'
python3 -c 'import json; json.dump({"schema": "bindlab.result", "schema_version": 2, "harness_version": "0.1.0", "tool": "x", "case": "c", "params": {}, "metric": {"name": "t", "unit": "ms", "better": "sideways", "samples": [1]}}, open("'"$tmp"'/badbetter.json", "w"))'
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
bad "incompatible schema version" "schema version 1" "${cmp[@]}" --json "$tmp/never.json" "$tmp/before.json" "$tmp/v1.json"
bad "non-numeric sample" "samples\[0\]" "${cmp[@]}" --json "$tmp/never.json" "$tmp/badsample.json" "$tmp/after.json"
bad "unknown direction" "neither lower nor higher" "${cmp[@]}" --json "$tmp/never.json" "$tmp/badbetter.json" "$tmp/after.json"
bad "one file only" "compare needs BEFORE.json AFTER.json" "${cmp[@]}" "$tmp/before.json"
bad "three files, no --" "compare needs BEFORE.json AFTER.json" "${cmp[@]}" "$tmp/run1.json" "$tmp/run2.json" "$tmp/run4.json"
bad "nothing after --" "compare needs BEFORE.json AFTER.json" "${cmp[@]}" "$tmp/run1.json" --
bad "two --" "one -- between" "${cmp[@]}" "$tmp/run1.json" -- "$tmp/run2.json" -- "$tmp/run4.json"
bad "the same run twice" "holds the same results" "${cmp[@]}" --json "$tmp/never.json" "$tmp/run1.json" "$tmp/run2.json" -- "$tmp/run4.json" "$tmp/run1.json"
bad "bad drift floor" "out of range" "${cmp[@]}" --drift -5 "$tmp/before.json" "$tmp/after.json"
bad "bad threshold" "is not a number" "${cmp[@]}" --threshold ten "$tmp/before.json" "$tmp/after.json"
bad "unknown compare flag" "unknown option --bogus" "${cmp[@]}" --bogus "$tmp/before.json" "$tmp/after.json"
bad "unknown subcommand" "unknown subcommand 'frobnicate'" "$here/run.sh" frobnicate
bad "unknown main-job flag" "unknown option '--fast'" "$here/run.sh" --fast
bad "plot without a file" "plot needs RUN.json" "$here/run.sh" plot

# bindlab_results samples: what bisect reads instead of a program's text.
craft "$tmp/one.json" 0.1.0 2 one:total_ms:lower:100:3,1.5,2
samples_csv() {
	"$here/bindlab_results" samples "$1" | paste -sd ,
}
check "samples: the metric's samples of a file's one case, in order" 0 '^3,1\.5,2$' samples_csv "$tmp/one.json"
bad "samples: a file of several cases" "want one case, found 8" "$here/bindlab_results" samples "$tmp/before.json"

# LAVA results (README, "LAVA"): a hand-written file as LAVA logs them,
# then the same with one fault each: refused (exit 2, one line, nothing
# written), never dropped in silence.
lava=$here/tests/lava/results.json
# import OUT LAVA CMD...: import, then CMD (summary or compare).
import() {
	"$here/run.sh" import-lava "$1" "$2" && shift 2 && "$@"
}
check "LAVA import: summary shows the table's cases with their verdicts" 1 \
	'^bind_fastreuse\.v4_reuseaddr_same\.total_ms +116\.100 ms .*regressed \(3 rounds\)$' \
	import "$tmp/lava.json" "$lava" "$here/bindlab_results" summary "$tmp/lava.json"
check "LAVA import: churn is measured, in conn/s" 1 '^tw_reuse\.reuse2_v6_loopback\.conn_per_s +21537\.800 conn/s .*measured \(3 rounds\)$' \
	"$here/bindlab_results" summary "$tmp/lava.json"
check "LAVA import: a skipped case and the kselftest results are listed" 1 \
	'skipped +benchmark\.tw_reuse\.reuse1_v6_loopback\.conn_per_s: skipped in LAVA' \
	"$here/bindlab_results" summary "$tmp/lava.json"
env BINDLAB_XFAIL='bind_fastreuse.v4_reuseaddr_same.*' "$here/run.sh" import-lava "$tmp/lava_x.json" "$lava"
check "LAVA import: the declared fact is a known regression, its kselftest still the program's verdict" 1 \
	'^bind_fastreuse\.v4_reuseaddr_same\.total_ms .*known regression' \
	"$here/bindlab_results" summary "$tmp/lava_x.json"
# lava_fault NAME PYTHON: a copy of the LAVA file with one fault.
lava_fault() {
	python3 - "$lava" "$tmp/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
}
lava_fault slower 'for e in r:
    if e["case"].startswith("bind_fastreuse.v4_reuseaddr_same.total_ms"): e["measurement"] *= 4'
check "LAVA against LAVA: compare reads the import like a local run" 0 \
	'^bind_fastreuse\.v4_reuseaddr_same\.total_ms +116\.100 +464\.400 ms' \
	import "$tmp/lava_slow.json" "$tmp/slower.json" "$here/run.sh" compare "$tmp/lava.json" "$tmp/lava_slow.json"
lava_fault units 'r[6]["units"] = "us"'
lava_fault unknown 'r.append({"definition": "d", "case": "no-such case", "result": "pass"})'
lava_fault orphan 'del r[5]'
lava_fault gap 'del r[7]'
lava_fault median 'r[5]["measurement"] = 200'
lava_fault result 'r[1]["result"] = "xfail"'
lava_fault nomeasure 'del r[6]["measurement"]'
lava_fault dup 'r.append(r[6])'
bad "LAVA: a unit that is not the table's" "units 'us', the table's case is in ms" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/units.json"
bad "LAVA: a case that maps to nothing" "is no table case, sample or kselftest name" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/unknown.json"
bad "LAVA: samples without their headline" "samples without the headline" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/orphan.json"
bad "LAVA: a sample missing" "but no sample2" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/gap.json"
bad "LAVA: a headline that is not the median" "is not the median" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/median.json"
bad "LAVA: a result LAVA does not have" "is not pass, fail, skip or unknown" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/result.json"
bad "LAVA: a sample with no measurement" "no measurement" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/nomeasure.json"
bad "LAVA: a sample twice" "sample1 twice" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/dup.json"
bad "LAVA: not an array" "not a non-empty JSON array" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/before.json"
bad "LAVA: merge without the table" "needs the case table" "$here/bindlab_results" merge "$tmp/never.json" --lava "$lava"

tap_done
