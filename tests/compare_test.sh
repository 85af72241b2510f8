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

# shellcheck source=tests/craft.sh
. "$here/tests/craft.sh"

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
# A guest's results (ab.sh): the guest saw no load, its host did.
CRAFT_ENV='{"nproc": 1, "loadavg": "0.10 0.10 0.10 1/26 44"}' \
CRAFT_FILE_ENV='{"nproc": 2, "loadavg": "5.00 4.10 3.20 6/120 4242"}' \
	craft "$tmp/guest.json" 0.1.0 2 slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2
check "4x in an idle guest on a host with load 2.5 per CPU: inside the grown floor" 0 '^slower .*no stable difference \(1 run a side, load 2\.5/CPU: < 7\.5x\)' "${cmp[@]}" "$tmp/before.json" "$tmp/guest.json"
check "the load is noted under the table" 0 'up to 2\.5 runnable tasks per CPU' "${cmp[@]}" "$tmp/before.json" "$tmp/loaded.json"
check "--min-change 0 --drift 0 claims the 5% drift" 0 '^drift .* 1\.05x slower' "${cmp[@]}" --min-change 0 --drift 0 "$tmp/before.json" "$tmp/after.json"
check "different parameters are not compared" 0 "^params .*not compared: parameter 'n' differs" "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in BEFORE is listed" 0 '^gone .*only in BEFORE' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "case only in AFTER is listed" 0 '^new .*only in AFTER' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json"
check "--threshold 10: regression exits 1" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" --threshold 10 "$tmp/before.json" "$tmp/after.json"
check "--threshold 350: nothing beyond it, exit 0" 0 'regressions beyond 350.0%: 0' "${cmp[@]}" --threshold 350 "$tmp/before.json" "$tmp/after.json"
check "a run compared with an equal run: no stable difference anywhere" 0 'no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/before_again.json"
check "a copy of a run is no second run (content, not name)" 2 'holds the same results as an earlier file' "${cmp[@]}" "$tmp/before.json" "$tmp/before_copy.json"
# A copy stays a copy once merged again (a merge re-judges verdicts and
# writes its own time) or given a note.
"$here/bindlab_results" merge "$tmp/before_remerged.json" "$tmp/before.json" >/dev/null 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["note"] = "x"; json.dump(d, open(sys.argv[2], "w"))' \
	"$tmp/before.json" "$tmp/before_noted.json"
check "a copy merged again is no second run" 2 'before_remerged.json holds the same results' "${cmp[@]}" "$tmp/before.json" "$tmp/before_remerged.json" -- "$tmp/after.json" "$tmp/before_again.json"
check "a copy with a note is no second run" 2 'before_noted.json holds the same results' "${cmp[@]}" "$tmp/before.json" "$tmp/before_noted.json" -- "$tmp/after.json" "$tmp/before_again.json"
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

# The same metric name with the other direction is another metric: not
# compared, and the reason says which direction each side has.
craft "$tmp/higher.json" 0.1.0 2 slower:total_ms:higher:100:$base
"${cmp[@]}" "$tmp/higher.json" "$tmp/before.json" >"$tmp/out" 2>&1
if grep -q 'different metrics (total_ms, higher is better vs total_ms, lower is better)' "$tmp/out"; then
	tap_ok "a metric's other direction is not compared, and says so"
else
	tap_not_ok "a metric's other direction is not compared, and says so" "$(grep -m 1 slower "$tmp/out")"
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
printf '{"schema": \033[31m}' >"$tmp/esc.json"
bad "a parser's quote of a control character is escaped" "invalid token near '\\\\x1b'" "${cmp[@]}" --json "$tmp/never.json" "$tmp/esc.json" "$tmp/after.json"
printf '{"schema": \xc2\x9b31m}' >"$tmp/c1.json"
bad "a parser's quote of a UTF-8 C1 control (CSI) is escaped" "invalid token near '\\\\xc2\\\\x9b'" "${cmp[@]}" --json "$tmp/never.json" "$tmp/c1.json" "$tmp/after.json"
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
# Two kernels' rounds pooled, or listed as one run, would read as one
# kernel's figures: refused (compare is for two kernels).
CRAFT_ENV='{"kernel_release": "6.12.0"}' craft "$tmp/k1.json" 0.1.0 2 slower:total_ms:lower:100:$base
CRAFT_ENV='{"kernel_release": "6.18.0"}' craft "$tmp/k2.json" 0.1.0 2 slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2
bad "merge: two kernels' runs are refused" "k1.json holds results of kernel 6.12.0, .*k2.json of kernel 6.18.0: one kernel a run file" \
	"$here/bindlab_results" merge "$tmp/never.json" "$tmp/k1.json" "$tmp/k2.json"
bad "compare: two kernels on one side are refused" "k1.json holds results of kernel 6.12.0, .*k2.json of kernel 6.18.0: one kernel a side (BEFORE)" \
	"${cmp[@]}" --json "$tmp/never.json" "$tmp/k1.json" "$tmp/k2.json" -- "$tmp/run4.json" "$tmp/run1.json"
# Runs whose medians agree exactly within each side leave Welch's t no
# spread: no p-value, so no claim (it was p = 0, "1.20x slower").
craft "$tmp/e1.json" 0.1.0 2 eq:total_ms:lower:100:5,5,5,4,6
craft "$tmp/e2.json" 0.1.0 2 eq:total_ms:lower:100:5,5,5,4.5,6
craft "$tmp/e3.json" 0.1.0 2 eq:total_ms:lower:100:6,6,6,4,7
craft "$tmp/e4.json" 0.1.0 2 eq:total_ms:lower:100:6,6,6,4.5,7
bad "compare: equal run medians on each side claim nothing" "nothing compared" \
	"${cmp[@]}" --json "$tmp/never.json" "$tmp/e1.json" "$tmp/e2.json" -- "$tmp/e3.json" "$tmp/e4.json"
# Samples the run file takes, (0, 1e15], whose ratio a double does not:
# not compared, never "0.0000 ... infx faster".
craft "$tmp/tiny.json" 0.1.0 2 far:total_ms:lower:100:1e-300,2e-300,3e-300,4e-300,5e-300
craft "$tmp/huge.json" 0.1.0 2 far:total_ms:lower:100:1e15,9e14,8e14,7e14,6e14
bad "compare: a ratio beyond a double claims nothing" "nothing compared" \
	"${cmp[@]}" --json "$tmp/never.json" "$tmp/huge.json" "$tmp/tiny.json"
# A case with no environment of its own measured its file's kernel.
CRAFT_FILE_ENV='{"kernel_release": "6.12.0"}' craft "$tmp/f1.json" 0.1.0 2 slower:total_ms:lower:100:$base
CRAFT_FILE_ENV='{"kernel_release": "6.18.0"}' craft "$tmp/f2.json" 0.1.0 2 slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2
bad "merge: cases without an env of two files' kernels are refused" "f1.json holds results of kernel 6.12.0, .*f2.json of kernel 6.18.0: one kernel a run file" \
	"$here/bindlab_results" merge "$tmp/never.json" "$tmp/f1.json" "$tmp/f2.json"
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
# bindlab_results median: the lab's numbers and verdicts, in C's terms.
check "median: MEDIAN MIN MAX N of the pooled files" 0 '^2\.000 1\.500 3\.000 3$' "$here/bindlab_results" median "$tmp/one.json"
check "median --at-most: a median beyond the limit exits 1" 1 '^2\.000 ' "$here/bindlab_results" median --at-most 1.99 "$tmp/one.json"
craft "$tmp/one_rate.json" 0.1.0 2 one:conn_per_s:higher:100:3,1.5,2
check "median --at-least: within the limit exits 0" 0 '^2\.000 ' "$here/bindlab_results" median --at-least 2 "$tmp/one_rate.json"
bad "median: a limit with a decimal comma is no number" "'1,5' is not a number" "$here/bindlab_results" median --at-most 1,5 "$tmp/one.json"
bad "median: a limit of nan is no number" "'nan' is not a number" "$here/bindlab_results" median --at-most nan "$tmp/one.json"
bad "median: a file without the rounds asked for" "one.json: no rounds" "$here/bindlab_results" median --field growth "$tmp/one.json"
craft "$tmp/two.json" 0.1.0 2 two:total_ms:lower:100:3,1.5,2
bad "median: two cases do not pool" "two.json: case two, total_ms in ms; .*one.json holds one, total_ms in ms: they do not pool" \
	"$here/bindlab_results" median "$tmp/one.json" "$tmp/two.json"
bad "median: two metrics of one case do not pool" "they do not pool" "$here/bindlab_results" median "$tmp/one.json" "$tmp/one_rate.json"
bad "median --at-most on a higher-is-better metric" "higher is better for conn_per_s: --at-most is the wrong side" \
	"$here/bindlab_results" median --at-most 2 "$tmp/one_rate.json"

# LAVA results (docs/fleets.md): a hand-written file as LAVA logs them,
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
# A run with no curve (a LAVA import, a run of kselftests only): nothing
# drawn is an error (2), never a silent success.
if command -v gnuplot >/dev/null; then
	bad "plot of a run with no curve: nothing drawn" "no curves in .*: nothing drawn" \
		"$here/run.sh" plot -o "$tmp/never" "$tmp/lava.json"
fi
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
# Not the import format: import-lava hands it to lava/lava-results.py,
# whose refusal is the one line; merge --lava itself wants the array.
bad "LAVA: not an array" "neither lava-run's log nor a LAVA results export" "$here/run.sh" import-lava "$tmp/never.json" "$tmp/before.json"
bad "LAVA: not an array (merge --lava)" "not a non-empty JSON array" "$here/bindlab_results" merge "$tmp/never.json" \
	--case "x.y.total_ms ms lower program" --lava "$tmp/before.json"
bad "LAVA: merge without the table" "needs the case table" "$here/bindlab_results" merge "$tmp/never.json" --lava "$lava"


# ---- Trusting what a file says (issue 20) ----
res=$here/bindlab_results
# mutate SRC DST PYTHON: a copy of SRC with PYTHON applied to it (as d).
mutate() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
# A merged run of three cases and one test result: summary's input.
"$res" merge "$tmp/run.json" "$tmp/run1.json" >/dev/null 2>&1
mutate "$tmp/run.json" "$tmp/run.json" 'd["tests"] = [{"program": "p", "test": "f.t", "result": "pass", "reason": ""}]'
mutate "$tmp/run.json" "$tmp/t_error.json" 'd["tests"][0].update(result="error", reason="harness lost")'
mutate "$tmp/run.json" "$tmp/t_crash.json" 'd["tests"][0]["result"] = "crash"'
mutate "$tmp/run.json" "$tmp/t_odd.json" 'd["tests"][0]["result"] = "bogus"'
mutate "$tmp/run.json" "$tmp/v_odd.json" 'd["cases"][0]["verdict"]["status"] = "great"'
check "a test result 'error' is a failure, named" 1 '^  FAIL +p\.f\.t: error: harness lost' "$res" summary "$tmp/t_error.json"
check "a test result 'crash' is a failure" 1 '^tests: 0 pass, 1 fail' "$res" summary "$tmp/t_crash.json"
bad "an unknown test result is invalid input" "result 'bogus' is none of" "$res" summary "$tmp/t_odd.json"
mutate "$tmp/run.json" "$tmp/t_noname.json" 'd["tests"][0]["program"] = ""'
bad "a test of no program is invalid input" "none empty" "$res" summary "$tmp/t_noname.json"
# The last line names what failed, in the words of the program that
# judged: 12 growth failures of a real run, with their cause and fix.
"$res" merge "$tmp/real.json" --ktap "bind_bhash_test=$here/tests/ktap/real_run_tests.ktap" >/dev/null 2>&1
check "summary's last line names the failure, its count, cause and fix" 1 \
	'^verdict: FAIL: bind\(\) cost grows with the number of owners in 12 tests \(likely cause: fastreuse caches not initialized on first bind, Fixes: 8002d44fe84d\); and 2 other failures \(above\)$' \
	"$res" summary "$tmp/real.json"
mutate "$tmp/run.json" "$tmp/lava_only.json" 'd["cases"] = []; d["tests"] = [{"program": "lava", "test": "job", "result": "pass", "reason": ""}]'
check "LAVA's job record alone is no measurement: FAIL" 1 '^verdict: FAIL: nothing was measured' "$res" summary "$tmp/lava_only.json"
# A merge keeps what bears on the verdict: a run's failing test, and
# the worst verdict of a case pooled from two runs.
mutate "$tmp/run.json" "$tmp/t_fail.json" 'd["tests"][0].update(result="fail", reason="lost")'
"$res" merge "$tmp/t_remerged.json" "$tmp/t_fail.json" >/dev/null 2>&1
check "merge of a failing run: its summary still exits 1" 1 '^  FAIL +p\.f\.t: lost' "$res" summary "$tmp/t_remerged.json"
bad "merge --result of a run file: refused, its tests would be lost" "t_fail.json is a run file: give it as an operand" \
	"$res" merge "$tmp/never.json" --case "c.total_ms ms lower none" --result "c.total_ms=$tmp/t_fail.json"
# One program's KTAP, or one case's absence, given twice would count twice.
check "merge --ktap NAME twice: refused" 2 '^bindlab_results: --ktap p given twice$' \
	"$res" merge "$tmp/never.json" --ktap "p=$here/tests/ktap/fail_figures.ktap" --ktap "p=$here/tests/ktap/clean.ktap"
check "merge --missing NAME twice: refused" 2 '^bindlab_results: --missing c given twice$' \
	"$res" merge "$tmp/never.json" --missing c=skip:why --missing c=fail:why
# Two kselftest runs without benchmark cases are two runs, not copies.
mutate "$tmp/t_fail.json" "$tmp/t_fail2.json" 'd["cases"] = []; d["env"]["time"] = "later"'
mutate "$tmp/t_fail.json" "$tmp/t_fail1.json" 'd["cases"] = []'
"$res" merge "$tmp/t_two.json" "$tmp/t_fail1.json" "$tmp/t_fail2.json" >/dev/null 2>&1
check "merge of two runs with tests and no cases: both kept" 1 '^tests: 0 pass, 2 fail' "$res" summary "$tmp/t_two.json"
mutate "$tmp/run.json" "$tmp/v_reg.json" 'd["cases"][0]["verdict"].update(status="regressed", reason="slow")
d["env"]["time"] = "later"; d["cases"][0]["env"]["time"] = "later"'
"$res" merge "$tmp/v_pooled.json" "$tmp/run.json" "$tmp/v_reg.json" >/dev/null 2>&1
check "merge pools a regressed case with a passing one: regressed" 1 ' regressed \(' "$res" summary "$tmp/v_pooled.json"
bad "an unknown stored verdict is invalid input" "verdict 'great' is none of" "$res" summary "$tmp/v_odd.json"
# A run before merge (bind_churn's) has no verdicts: merge's input, not summary's.
mutate "$tmp/run.json" "$tmp/v_none.json" 'd["cases"][0].pop("verdict")'
bad "summary: a case with no stored verdict is refused, not a failure" "case drifting has no stored verdict" "$res" summary "$tmp/v_none.json"
"$res" merge "$tmp/v_none_merged.json" "$tmp/v_none.json" >/dev/null 2>&1
check "merge stores the verdict such a run lacks" 0 '^drifting .* measured \(' "$res" summary "$tmp/v_none_merged.json"

# The 8.4x slowdown of issue 20, one run a side, under --threshold 10.
craft "$tmp/slow_before.json" 0.1.0 2 slow:total_ms:lower:100:10,10.1,9.9,10.2,9.8
load_after() {
	CRAFT_ENV="{\"nproc\": 2, \"loadavg\": \"$2 1.0 1.0 3/200 77\"}" \
		craft "$1" 0.1.0 2 slow:total_ms:lower:100:84,84.8,83.2,85.7,82.3
}
load_after "$tmp/slow_1e300.json" 1e300
load_after "$tmp/slow_2001.json" 2001
load_after "$tmp/slow_2000.json" 2000
load_after "$tmp/slow_nan.json" nan
bad "a load of 1e300 is refused, not trusted" "the load per CPU is not a number" "${cmp[@]}" --threshold 10 "$tmp/slow_before.json" "$tmp/slow_1e300.json"
bad "a load above 1000 per CPU is refused" "the load per CPU is not a number" "${cmp[@]}" --threshold 10 "$tmp/slow_before.json" "$tmp/slow_2001.json"
bad "a load of nan is refused" "the load per CPU is not a number" "${cmp[@]}" --threshold 10 "$tmp/slow_before.json" "$tmp/slow_nan.json"
check "a claimed load of 1000/CPU does not silence 8.4x under --threshold 10" 1 \
	'^slow .*8\.4[0-9]x slower: counted, a load claim passes no gate' "${cmp[@]}" --threshold 10 "$tmp/slow_before.json" "$tmp/slow_2000.json"
check "without --threshold the load floor still words the row" 0 '^slow .*no stable difference \(1 run a side, load 1000\.0/CPU' \
	"${cmp[@]}" "$tmp/slow_before.json" "$tmp/slow_2000.json"
mutate "$tmp/slow_before.json" "$tmp/nproc0.json" 'd["cases"][0]["env"] = {"nproc": 0, "loadavg": "1.0 1 1 1/1 1"}'
bad "nproc 0 is refused" "nproc not in 1" "${cmp[@]}" "$tmp/nproc0.json" "$tmp/slow_2000.json"
mutate "$tmp/slow_before.json" "$tmp/nproc0_noload.json" 'd["cases"][0]["env"] = {"nproc": 0}'
bad "nproc 0 is refused without a load too" "nproc not in 1" "${cmp[@]}" "$tmp/nproc0_noload.json" "$tmp/slow_2000.json"
mutate "$tmp/slow_before.json" "$tmp/unit.json" 'd["cases"][0]["metric"]["unit"] = "ms\u001b[2J"'
bad "a unit that is no unit is refused" "metric unit is not" "${cmp[@]}" "$tmp/unit.json" "$tmp/slow_2000.json"
mutate "$tmp/run.json" "$tmp/curve.json" 'd["cases"][0]["summary"] = {"curve": {"bound_before": [0, 1], "median_ns": [5]}}'
bad "a curve of unpaired points is refused" "summary.curve needs" "$res" summary "$tmp/curve.json"
# A field of the wrong type or range, each: NAME|PATTERN|EDIT of run.json.
while IFS='|' read -r name pat edit <&3; do
	mutate "$tmp/run.json" "$tmp/field.json" "$edit"
	bad "$name is refused" "$pat" "$res" summary "$tmp/field.json"
done 3<<'EOF'
params.n -1|params.n is not an integer >= 1|d["cases"][0]["params"]["n"] = -1
params.n 0|params.n is not an integer >= 1|d["cases"][0]["params"]["n"] = 0
params.n 1.5|params.n is not an integer >= 1|d["cases"][0]["params"]["n"] = 1.5
params.rounds 0|params.rounds is not an integer >= 1|d["cases"][0]["params"]["rounds"] = 0
params.rounds -5|params.rounds is not an integer >= 1|d["cases"][0]["params"]["rounds"] = -5
a curve's negative bound_before|summary.curve.bound_before\[0\] is not|d["cases"][0]["summary"] = {"curve": {"bound_before": [-1, 2], "median_ns": [1.0, 2.0]}}
a curve's negative median_ns|summary.curve.median_ns\[0\] is not|d["cases"][0]["summary"] = {"curve": {"bound_before": [0, 2], "median_ns": [-1.0, 2.0]}}
a curve's zero median_ns|summary.curve.median_ns\[1\] is not|d["cases"][0]["summary"] = {"curve": {"bound_before": [0, 2], "median_ns": [1.0, 0]}}
env.loadavg without env.nproc|env.loadavg without env.nproc|d["env"].update(loadavg="1.0 1.0 1.0 1/1 1"); d["env"].pop("nproc")
tests[].declared "yes"|tests\[0\].declared is not a boolean|d["tests"][0]["declared"] = "yes"
EOF

# One case id twice: which would count? Neither: refused, read or written.
mutate "$tmp/before.json" "$tmp/dup.json" 'd["cases"].append(dict(d["cases"][0], metric=dict(d["cases"][0]["metric"], samples=[40, 41, 39, 40.5, 39.5])))'
bad "compare: a case id twice in a file is invalid input" "case slower twice" "${cmp[@]}" --json "$tmp/never.json" "$tmp/dup.json" "$tmp/after.json"
bad "summary: a case id twice is invalid input" "case slower twice" "$res" summary "$tmp/dup.json"
bad "merge: one case from two --result is refused, nothing written" "case c.total_ms twice" \
	"$res" merge "$tmp/never.json" --case "c.total_ms ms lower none" --result "c.total_ms=$tmp/three.json" --result "c.total_ms=$tmp/three_after.json"

# env is context: the caller's sysctls are named as such.
if python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["env"]; assert "sysctls" not in e and "caller_sysctls" in e' "$tmp/run.json"; then
	tap_ok "env's sysctls are the caller's (caller_sysctls), not offered as the measured namespace's"
else
	tap_not_ok "env's sysctls are the caller's (caller_sysctls)"
fi

# ---- Outputs over inputs ----
# unchanged NAME FILE CMD...: refused (exit 2, one line) and FILE intact.
unchanged() {
	local name=$1 file=$2 sum rc lines
	shift 2
	sum=$(sha256sum <"$file")
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ "$(sha256sum <"$file")" = "$sum" ] &&
		grep -q 'refused before any work' "$tmp/err"; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $rc, $lines stderr lines: $(head -n 2 "$tmp/err")"
	fi
}
mkdir -p "$tmp/io/sub"
cp "$tmp/before.json" "$tmp/io/x.json"
ln -sf "$tmp/io/x.json" "$tmp/io/link.json"
ln -f "$tmp/io/x.json" "$tmp/io/hard.json"
unchanged "compare --json X X B: X is not replaced" "$tmp/io/x.json" "$res" compare --json "$tmp/io/x.json" "$tmp/io/x.json" "$tmp/after.json"
unchanged "compare --json through a symlink to an input" "$tmp/io/x.json" "$res" compare --json "$tmp/io/link.json" "$tmp/io/x.json" "$tmp/after.json"
unchanged "compare --json through .. to an input" "$tmp/io/x.json" "$res" compare --json "$tmp/io/sub/../x.json" "$tmp/after.json" "$tmp/io/x.json"
unchanged "compare --json on a hard link of an input" "$tmp/io/x.json" "${cmp[@]}" "$tmp/io/x.json" "$tmp/after.json" --json "$tmp/io/hard.json"
cp "$tmp/run.json" "$tmp/io/m.json"
unchanged "merge X X: X is not replaced" "$tmp/io/m.json" "$res" merge "$tmp/io/m.json" "$tmp/io/m.json"
unchanged "merge OUT --result NAME=OUT: refused" "$tmp/io/m.json" "$res" merge "$tmp/io/m.json" --case "c.a ms lower none" --result "c.a=$tmp/io/m.json"
cp "$lava" "$tmp/io/l.json"
unchanged "import-lava L L: L is not replaced" "$tmp/io/l.json" "$here/run.sh" import-lava "$tmp/io/l.json" "$tmp/io/l.json"
# Exports that are converted first: merge sees the copy, run.sh the file.
cp "$here/tests/lava/lavacli-results.yaml" "$tmp/io/l.yaml"
unchanged "import-lava Y Y (a LAVA export): Y is not replaced" "$tmp/io/l.yaml" "$here/run.sh" import-lava "$tmp/io/l.yaml" "$tmp/io/l.yaml"
printf 'bind_bhash_test f.v.t\n' >"$tmp/io/names"
unchanged "import-lava --names N N Y: N is not replaced" "$tmp/io/names" "$here/run.sh" import-lava --names "$tmp/io/names" "$tmp/io/names" "$tmp/io/l.yaml"
touch "$tmp/io/theirs.json"
chown 65534 "$tmp/io/theirs.json"
bad "an output another user owns is not replaced" "belongs to uid 65534" "$res" merge "$tmp/io/theirs.json" "$tmp/run1.json"
mkfifo "$tmp/io/fifo"
bad "curve into a FIFO" "is not a directory" "$res" curve "$tmp/run.json" "$tmp/io/fifo"
mkdir "$tmp/io/full_dir" && touch "$tmp/io/full_dir/keep"
bad "curve into a directory that is not empty" "is not empty" "$res" curve "$tmp/run.json" "$tmp/io/full_dir"
mkdir "$tmp/io/in" && cp "$tmp/run.json" "$tmp/io/in/1.dat"
bad "curve into the directory of its input: not empty" "is not empty" "$res" curve "$tmp/io/in/1.dat" "$tmp/io/in"
cp "$tmp/run.json" "$tmp/io/p.svg"
bad "plot: a picture over its input is refused" "is an input of this plot" "$here/run.sh" plot -o "$tmp/io/p" "$tmp/io/p.svg"
# plot's writer asks bindlab_results dest: its rules, not a copy of some.
if command -v gnuplot >/dev/null; then
	touch "$tmp/io/theirs_p.svg"
	chown 65534 "$tmp/io/theirs_p.svg"
	bad "plot: a picture another user owns is not replaced" "belongs to uid 65534" \
		"$here/run.sh" plot -o "$tmp/io/theirs_p" "$here/tests/fuzz/corpus/results/run.json"
	# In a private mount namespace, where one can be made (as below).
	if ! unshare -m true 2>/dev/null; then
		tap_skip "plot -o /usr/...: refused, nothing written there" "no private mount namespace (unshare -m)"
	else
		# shellcheck disable=SC2016 # expands in the inner shell
		check "plot -o /usr/...: refused, nothing written there" 2 'is under /usr: results are not written there$' \
			unshare -m sh -c 'mount -t tmpfs bl /usr/local/share || exit 9
				"$@"; rc=$?
				left=$(find /usr/local/share -mindepth 1)
				[ -z "$left" ] || { echo "left: $left"; exit 9; }
				exit $rc' sh "$here/run.sh" plot -o /usr/local/share/bindlab-never "$here/tests/fuzz/corpus/results/run.json"
	fi
else
	tap_skip "plot's destination rules" "no gnuplot (apt-get install gnuplot-nox)"
fi
# The system's trees, in a private mount namespace with tmpfs over /dev
# and /etc: a fault that wrote there would write to throwaway copies.
# shellcheck disable=SC2016 # expands in the inner shell
sysdir() {
	unshare -m sh -c 'mount -t tmpfs bl /dev && mount -t tmpfs bl /etc || exit 9
		"$@"; rc=$?
		left=$(find /dev /etc -mindepth 1)
		[ -z "$left" ] || echo "left: $left"
		exit $rc' sh "$@"
}
if unshare -m true 2>/dev/null; then
	check "curve RUN /dev/x: refused before a directory is made" 2 'is under /dev: results are not written there$' \
		sysdir "$res" curve "$tmp/run.json" /dev/x
	if grep -q '^left' "$tmp/out"; then tap_not_ok "curve RUN /dev/x: nothing left under /dev" "$(cat "$tmp/out")"; else tap_ok "curve RUN /dev/x: nothing left under /dev"; fi
	check "merge /etc/x.json: refused" 2 'is under /etc' sysdir "$res" merge /etc/x.json "$tmp/run1.json"
	if grep -q '^left' "$tmp/out"; then tap_not_ok "merge /etc/x.json: nothing left under /etc" "$(cat "$tmp/out")"; else tap_ok "merge /etc/x.json: nothing left under /etc"; fi
else
	tap_skip "system trees" "no private mount namespace (unshare -m)"
fi

# ---- Writers under limits: one line, exit 2, no temporary file ----
# limited NAME DIR PATTERN CMD...: CMD must fail with exit 2 (no verdict),
# one line matching PATTERN, no SIGXFSZ death and no *.tmp.* in DIR.
limited() {
	local name=$1 dir=$2 pat=$3 rc lines
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$tmp/err" &&
		! grep -q '^left' "$tmp/err" && [ -z "$(find "$dir" -name '*.tmp.*')" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $rc, $lines stderr lines: $(head -n 2 "$tmp/err")" \
			"left: $(find "$dir" -name '*.tmp.*')"
	fi
}
fsize() {
	local blocks=$1
	shift
	(ulimit -f "$blocks" && exec "$@")
}
mkdir "$tmp/lim"
limited "merge under ulimit -f 1: EFBIG, one line, no temporary file" "$tmp/lim" 'File too large' \
	fsize 1 "$res" merge "$tmp/lim/m.json" "$tmp/run1.json"
# shellcheck disable=SC2016 # expands in the inner shell
limited "compare --json under ulimit -f 1" "$tmp/lim" 'File too large' \
	fsize 1 sh -c '"$@" >/dev/null' sh "$res" compare --json "$tmp/lim/c.json" "$tmp/before.json" "$tmp/after.json"
# Its summary is over 1 KiB; stderr, a file too, has room for one line.
"$res" merge "$tmp/run8.json" "$tmp/before.json" >/dev/null 2>&1
# shellcheck disable=SC2016 # expands in the inner shell
limited "summary's standard output under ulimit -f 1: no verdict, exit 2" "$tmp/lim" 'writing standard output failed' \
	fsize 1 sh -c '"$@" >"$0"' "$tmp/lim/summary.txt" "$res" summary "$tmp/run8.json"
# A plot that cannot be written is no verdict either: 2, no picture.
if command -v gnuplot >/dev/null; then
	fsize 4 "$here/run.sh" plot -o "$tmp/lim/p" "$here/tests/fuzz/corpus/results/run.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(tail -n 1 "$tmp/err")" = "run.sh: gnuplot failed, no plot" ] &&
		[ -z "$(find "$tmp/lim" -name 'p.*' -o -name '*.tmp.*')" ]; then
		tap_ok "plot under ulimit -f 4: exit 2, no picture"
	else
		tap_not_ok "plot under ulimit -f 4: exit 2, no picture" "exit $rc: $(tail -n 2 "$tmp/err")"
	fi
	# SIGTERM between a picture's copy and its rename (an mv that is
	# signalled): stopped, no picture, no temporary.
	mkdir -p "$tmp/term/bin"
	# shellcheck disable=SC2016 # the fake mv expands it
	printf '#!/bin/sh\nkill -TERM $PPID\nexit 1\n' >"$tmp/term/bin/mv"
	chmod +x "$tmp/term/bin/mv"
	PATH=$tmp/term/bin:$PATH "$here/run.sh" plot -o "$tmp/term/p" \
		"$here/tests/fuzz/corpus/results/run.json" >/dev/null 2>&1
	rc=$?
	left=$(find "$tmp/term" -name 'p.*' | tr '\n' ' ')
	if [ $rc -eq 143 ] && [ -z "$left" ]; then
		tap_ok "plot stopped by SIGTERM mid-write: exit 143, no temporary"
	else
		tap_not_ok "plot stopped by SIGTERM mid-write: exit 143, no temporary" "exit $rc, left: $left"
	fi
else
	tap_skip "plot under ulimit -f 4" "no gnuplot (apt-get install gnuplot-nox)"
fi
# full_fs DIR CMD...: CMD with a full 64k tmpfs on DIR, in a private
# mount namespace (never the host's mount table). A failed write leaves
# nothing but the filler: no temporary file, no directory it made.
# shellcheck disable=SC2016 # expands in the inner shell
full_fs() {
	unshare -m sh -c 'mount -t tmpfs -o size=64k bl "$0" || exit 9
		dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null
		"$@"; rc=$?
		find "$0" -mindepth 1 ! -name fill | sed "s/^/left: /" >&2
		exit $rc' "$@"
}
if unshare -m true 2>/dev/null; then
	mkdir "$tmp/full"
	limited "merge on a full filesystem: ENOSPC, one line, no temporary file" "$tmp/full" 'No space left' \
		full_fs "$tmp/full" "$res" merge "$tmp/full/m.json" "$tmp/run1.json"
	limited "compare --json on a full filesystem" "$tmp/full" 'No space left' \
		full_fs "$tmp/full" "$res" compare --json "$tmp/full/c.json" "$tmp/before.json" "$tmp/after.json"
	limited "curve on a full filesystem: no directory left behind" "$tmp/full" 'No space left' \
		full_fs "$tmp/full" "$res" curve "$here/tests/fuzz/corpus/results/run.json" "$tmp/full/c"
else
	tap_skip "full filesystem" "no private mount namespace (unshare -m)"
fi

# A signal while the temporary exists (seen in DIR): the write ends
# first, then the signal is taken: no *.tmp.* left, the output whole or
# absent. TERM and QUIT (^\), which ends a program as TERM does, and
# ALRM (timeout -s ALRM); a background job's QUIT is ignored unless reset.
mkdir "$tmp/sig"
awk 'BEGIN { print "TAP version 13"; print "1..100000"
	for (i = 1; i <= 100000; i++) printf "ok %d f.v%d.t\n", i, i }' >"$tmp/big.ktap"
for sig in TERM QUIT ALRM; do
	rm -f "$tmp/sig/"*
	env --default-signal=QUIT "$res" merge "$tmp/sig/m.json" --ktap "p=$tmp/big.ktap" &
	pid=$!
	until compgen -G "$tmp/sig/*.tmp.*" >/dev/null || ! kill -0 "$pid" 2>/dev/null; do :; done
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -n "$(find "$tmp/sig" -name '*.tmp.*')" ]; then
		tap_not_ok "merge: SIG$sig during the write leaves no temporary file" "$(ls "$tmp/sig")"
	else
		tap_ok "merge: SIG$sig during the write leaves no temporary file"
	fi
done

# ---- GNU-style options: before or after the files ----
check "compare A B --threshold 10" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json" --threshold 10
check "compare A B --threshold=10" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json" --threshold=10
rm -f "$tmp/gnu.json"
check "compare A B --json OUT" 0 'no stable difference' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json" --json "$tmp/gnu.json"
if [ -s "$tmp/gnu.json" ]; then tap_ok "compare A B --json OUT: OUT is written"; else tap_not_ok "compare A B --json OUT: OUT is written"; fi
check "compare A B -t 10 (the short form)" 1 'regressions beyond 10.0%: 2' "${cmp[@]}" "$tmp/before.json" "$tmp/after.json" -t 10
check "A... -- B... --threshold 50: -- still separates the sides" 1 'regressions beyond 50.0%: 1' "${cmp[@]}" "${runs[@]}" --threshold 50
bad "an unknown option after the files is still refused" "unknown option --bogus" "${cmp[@]}" "$tmp/before.json" "$tmp/after.json" --bogus
check "plot RUN -o PREFIX" 0 '' "$here/run.sh" plot "$here/tests/fuzz/corpus/results/run.json" -o "$tmp/gnuplot"
# shellcheck disable=SC2016 # expands in the inner shell
check "plot: its stdout on /dev/full is exit 2" 2 'writing standard output failed' sh -c '"$0" plot -o "$1" "$2" >/dev/full' "$here/run.sh" "$tmp/full" "$here/tests/fuzz/corpus/results/run.json"
check "summary -- RUN: \"--\" ends the options there too" 0 '^verdict' "$res" summary -- "$tmp/run.json"
check "samples -- RESULT" 0 '^3$' "$res" samples -- "$tmp/one.json"

# ---- Terminal output: file strings escaped ----
mutate "$tmp/run.json" "$tmp/forged.json" 'd["env"].update(kernel_release="6.1\nverdict: no unexpected regression", cpu_model="x\u001b[2K\r", clocksource="tsc\rverdict: ok")
d["tests"][0].update(result="fail", reason="r\nverdict: no unexpected regression")
d["cases"][0]["verdict"]["details"] = "d\nverdict: no unexpected regression"'
"$res" summary "$tmp/forged.json" >"$tmp/forged.out" 2>&1
if [ "$(grep -c '^verdict' "$tmp/forged.out")" -eq 1 ] && tail -n 1 "$tmp/forged.out" | grep -q '^verdict: FAIL: r\\x0averdict in 1 test$' &&
	! grep -q $'[\x01-\x09\x0b-\x1f]' "$tmp/forged.out" &&
	grep -q 'kernel 6\.1\\x0averdict' "$tmp/forged.out" && grep -q 'r\\x0averdict' "$tmp/forged.out" &&
	grep -q 'd\\x0averdict' "$tmp/forged.out"; then
	tap_ok "summary: newlines and control characters of a file are escaped"
else
	tap_not_ok "summary: newlines and control characters of a file are escaped" "$(head -n 8 "$tmp/forged.out")"
fi
mutate "$tmp/before.json" "$tmp/key_a.json" 'd["cases"][0]["params"]["k\nverdict: no unexpected regression"] = 1'
"${cmp[@]}" "$tmp/key_a.json" "$tmp/after.json" >"$tmp/key.out" 2>&1
if ! grep -q '^verdict' "$tmp/key.out" && grep -q "parameter 'k\\\\x0averdict" "$tmp/key.out"; then
	tap_ok "compare: a parameter name of a file is escaped"
else
	tap_not_ok "compare: a parameter name of a file is escaped" "$(grep -n -A1 parameter "$tmp/key.out" | head -n 4)"
fi
mutate "$tmp/before.json" "$tmp/schema_nl.json" 'd["schema"] = "x\nverdict: no unexpected regression"'
bad "an error quoting a file's string stays one line" 'is not ours' "${cmp[@]}" "$tmp/schema_nl.json" "$tmp/after.json"

tap_done
