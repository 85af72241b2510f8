#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The LAVA pieces, offline (TAP): every job template, filled with sample
# URLs, against LAVA's own job schema (lava-common, strict), the device
# dictionaries and the test definition against theirs, a planted error
# refused; the device-side parser (lava/bindlab-lava.sh) on sample KTAP,
# failing closed; LAVA's log -> import JSON (lava/lava-results.py); and
# kernel/lava.sh's command line. No VM, no network: seconds.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
lava=$here/lava
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME CMD...: ok when CMD succeeds, else its output as diagnostics.
check() {
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		tap_ok "$name"
	else
		mapfile -t lines <<<"$out"
		tap_not_ok "$name" "${lines[@]}"
	fi
}

# refuse NAME CMD...: ok when CMD fails (exit 1 or 2, not a crash).
refuse() {
	local name=$1 rc=0

	shift
	"$@" >"$tmp/refuse.out" 2>&1 || rc=$?
	if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "expected a refusal (exit 1 or 2), got exit $rc"
	fi
}

# validate KIND FILE: LAVA's schema of KIND (job, device, testdef).
validate() {
	"$py" - "$1" "$2" <<'PY'
import sys
import voluptuous
import yaml
from lava_common.schemas import validate as job
from lava_common.schemas.device import validate as device
from lava_common.schemas.test.testdef import validate as testdef

kind, path = sys.argv[1:]
data = yaml.safe_load(open(path))
try:
    if kind == "job":
        job(data, strict=True)
    else:
        {"device": device, "testdef": testdef}[kind](data)
except voluptuous.Invalid as exc:
    print("%s: invalid at %s: %s" % (path, exc.path, exc.msg))
    sys.exit(1)
PY
}

schema_tests() {
	local t name

	for t in "$lava"/jobs/*.yaml; do
		name=$(basename "$t" .yaml)
		check "lava.job.$name.template_valid" validate job "$t"
		if "$lava/fill-job.sh" "$t" https://lab.example/bzImage \
			https://lab.example/ramdisk.cpio.gz \
			https://lab.example/bindlab-testdefs.tar.gz >"$tmp/$name.yaml" 2>"$tmp/err"; then
			check "lava.job.$name.filled_valid" validate job "$tmp/$name.yaml"
		else
			tap_not_ok "lava.job.$name.filled_valid" "$(cat "$tmp/err")"
		fi
	done
	for t in "$lava"/devices/*.yaml; do
		check "lava.device.$(basename "$t" .yaml).valid" validate device "$t"
	done
	check lava.testdef.valid validate testdef "$lava/bindlab.yaml"
	# The steps run the parser shipped next to the definition.
	check lava.testdef.parser_shipped grep -q '\./lava/bindlab-lava\.sh' "$lava/bindlab.yaml"
	# The schema check can fail: an unknown deploy target and a job
	# without timeouts are refused.
	sed 's/to: tmpfs/to: tmpfs-typo/' "$lava/jobs/qemu.yaml" >"$tmp/planted1.yaml"
	refuse lava.job.planted_bad_deploy_refused validate job "$tmp/planted1.yaml"
	sed '/^timeouts:/,/^context:/{/^context:/!d}' "$lava/jobs/qemu.yaml" >"$tmp/planted2.yaml"
	refuse lava.job.planted_no_timeouts_refused validate job "$tmp/planted2.yaml"
	refuse lava.fill.bad_url_refused "$lava/fill-job.sh" "$lava/jobs/qemu.yaml" \
		'http://x/"y' http://x/r http://x/t
	printf 'url: "{{ OTHER }}"\n' >"$tmp/other.yaml"
	refuse lava.fill.unknown_placeholder_refused "$lava/fill-job.sh" "$tmp/other.yaml" \
		http://x/k http://x/r http://x/t
}

# parse_case NAME WANT: run_kselftest.sh's output in $tmp/ktap -> result
# lines, compared with WANT.
parse_case() {
	local got

	got=$("$lava/bindlab-lava.sh" parse bind_bhash_test tw_reuse_loopback <"$tmp/ktap" 2>/dev/null)
	if [ "$got" = "$2" ]; then
		tap_ok "lava.parse.$1"
	else
		mapfile -t lines <<<"got: $got"
		tap_not_ok "lava.parse.$1" "${lines[@]}" "want: $2"
	fi
}

parser_tests() {
	cat >"$tmp/ktap" <<'EOF'
TAP version 13
1..2
# timeout set to 300
# selftests: net/bindlab: bind_bhash_test
# TAP version 13
# 1..3
# #  RUN           bind_conflict.a.b ...
# ok 1 bind_conflict.a.b
# not ok 2 bind_fastreuse.v4_reuseaddr_same.growth
# ok 3 bind_v6.only.x # SKIP no IPv6
not ok 1 selftests: net/bindlab: bind_bhash_test # exit=1
# selftests: net/bindlab: tw_reuse_loopback
# TAP version 13
# 1..1
# ok 1 tw_reuse.reuse2_v4_loopback.reuses # XFAIL known
ok 2 selftests: net/bindlab: tw_reuse_loopback
EOF
	parse_case all_cases "set bind_bhash_test
case bind_conflict.a.b pass
case bind_fastreuse.v4_reuseaddr_same.growth fail
case bind_v6.only.x skip
set tw_reuse_loopback
case tw_reuse.reuse2_v4_loopback.reuses pass"
	# A crash after one case: the plan is not met.
	sed -i '/^# not ok 2/,/^# ok 3/d' "$tmp/ktap"
	parse_case crash_fails_closed "set bind_bhash_test
case bind_conflict.a.b pass
case ktap.plan fail
set tw_reuse_loopback
case tw_reuse.reuse2_v4_loopback.reuses pass"
	# A program that printed nothing, one never started.
	printf '1..2\n# selftests: net/bindlab: bind_bhash_test\nnot ok 1 selftests: net/bindlab: bind_bhash_test # exit=139\n' >"$tmp/ktap"
	parse_case no_plan_and_missing_fail_closed "set bind_bhash_test
case ktap.plan fail
set tw_reuse_loopback
case ktap.plan fail"
	# A timeout after every planned case, and an exit without a failure.
	printf '# selftests: net/bindlab: bind_bhash_test\n# 1..1\n# ok 1 a.b.c\nnot ok 1 selftests: net/bindlab: bind_bhash_test # TIMEOUT 300 seconds\n# selftests: net/bindlab: tw_reuse_loopback\n# 1..0 # SKIP no netns\nok 2 selftests: net/bindlab: tw_reuse_loopback # SKIP\n' >"$tmp/ktap"
	parse_case timeout_and_skip "set bind_bhash_test
case a.b.c pass
case ktap.plan fail
set tw_reuse_loopback
case ktap.plan skip"
}

# bench and report, with a fake bind_bench and fake LAVA helpers.
bench_tests() {
	local got want

	mkdir -p "$tmp/coll/net/bindlab" "$tmp/bin"
	# The real case table; a fake bind_bench that writes its samples one
	# per line where the table says {JSON}, and a fake reader of them.
	cp "$here/cases" "$tmp/coll/net/bindlab/cases"
	cat >"$tmp/coll/net/bindlab/bind_bench" <<'EOF'
#!/bin/sh
# bind_bench -q -r R -w W --json FILE MODE ADDRESSES N (the table's rows)
[ "$9" = alternate ] && [ "$8" = reuseport ] && { echo 1 > "$7"; exit 1; }
[ "$9" = same ] && [ "$8" = reuseport ] && exit 4
printf '3.5\n1.25\n2.0\n' > "$7"
EOF
	# shellcheck disable=SC2016 # expanded by the fake reader
	printf '#!/bin/sh\n[ "$1" = samples ] && cat "$2"\n' >"$tmp/coll/net/bindlab/bindlab_results"
	chmod +x "$tmp/coll/net/bindlab/bind_bench" "$tmp/coll/net/bindlab/bindlab_results"
	got=$("$lava/bindlab-lava.sh" bench "$tmp/coll" 100 3 2>/dev/null | grep -v 'alternate.total_ms.sample')
	want="set bindlab-bench
case bind_fastreuse.v4_reuseaddr_same.total_ms pass 2.0 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample1 pass 3.5 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample2 pass 1.25 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample3 pass 2.0 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms pass 2.0 ms
case bind_fastreuse.v4_reuseport_same.total_ms skip
case bind_fastreuse.v4_reuseport_alternate.run fail"
	if [ "$got" = "$want" ]; then
		tap_ok lava.bench.median_samples_and_crash
	else
		mapfile -t lines <<<"got: $got"
		tap_not_ok lava.bench.median_samples_and_crash "${lines[@]}"
	fi
	refuse lava.bench.even_rounds_refused "$lava/bindlab-lava.sh" bench "$tmp/coll" 100 2
	# shellcheck disable=SC2016 # expanded by the fake helper
	printf '#!/bin/sh\necho "$(basename "$0") $*" >>%s/calls\n' "$tmp" >"$tmp/bin/lava-test-case"
	cp "$tmp/bin/lava-test-case" "$tmp/bin/lava-test-set"
	chmod +x "$tmp/bin/"*
	printf 'set p\ncase a.b.c pass\ncase x.total_ms pass 2.0 ms\n' |
		PATH=$tmp/bin:$PATH "$lava/bindlab-lava.sh" report
	want="lava-test-set start p
lava-test-case a.b.c --result pass
lava-test-case x.total_ms --result pass --measurement 2.0 --units ms
lava-test-set stop p"
	if [ "$(cat "$tmp/calls" 2>/dev/null)" = "$want" ]; then
		tap_ok lava.report.lava_calls
	else
		tap_not_ok lava.report.lava_calls "got: $(tr '\n' '|' <"$tmp/calls")"
	fi
}

# LAVA's log (records as lava-run writes them) -> the import JSON.
results_tests() {
	local rc=0

	cat >"$tmp/lava.log" <<'EOF'
{"dt": "t", "lvl": "target", "msg": "ok 1 selftests"}
{"dt": "t", "lvl": "results", "msg": {"case": "a.b.c", "definition": "0_bindlab", "result": "pass", "set": "bind_bhash_test", "starttc": ! "7"}}
{"dt": "t", "lvl": "results", "msg": {"case": "x.total_ms", "definition": "0_bindlab", "measurement": ! "24.648", "result": "pass", "set": "bindlab-bench", "units": "ms"}}
{"dt": "t", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}
EOF
	"$py" "$lava/lava-results.py" "$tmp/lava.log" "$tmp/lava.json" >/dev/null || rc=$?
	check lava.results.converted "$py" -c '
import json, sys
got = json.load(open(sys.argv[1]))
want = [{"definition": "bind_bhash_test", "case": "a.b.c", "result": "pass"},
        {"definition": "bindlab-bench", "case": "x.total_ms", "result": "pass",
         "measurement": 24.648, "units": "ms"},
        {"definition": "lava", "case": "job", "result": "pass"}]
sys.exit(0 if got == want and sys.argv[2] == "0" else "%r rc %s" % (got, sys.argv[2]))
' "$tmp/lava.json" "$rc"
	sed -i 's/"result": "pass", "set": "bind_bhash_test"/"result": "fail", "set": "bind_bhash_test"/' "$tmp/lava.log"
	rc=0
	"$py" "$lava/lava-results.py" "$tmp/lava.log" "$tmp/lava.json" >/dev/null || rc=$?
	check lava.results.fail_is_exit_1 test "$rc" -eq 1
	grep '"lava"' "$tmp/lava.log" >"$tmp/boot-failed.log"
	rc=0
	"$py" "$lava/lava-results.py" "$tmp/boot-failed.log" "$tmp/lava.json" >/dev/null || rc=$?
	check lava.results.no_test_result_is_exit_3 test "$rc" -eq 3
}

cli_tests() {
	local rc

	for args in "" "-k" "-k /nonexistent" "-k stock -r 2" "-k stock -n x" "--bogus"; do
		rc=0
		# shellcheck disable=SC2086 # the words are the arguments
		"$here/kernel/lava.sh" $args >/dev/null 2>&1 || rc=$?
		check "lava.cli.usage_error_exit_2 ($args)" test "$rc" -eq 2
	done
	check lava.cli.help "$here/kernel/lava.sh" --help
}

if "$py" -c 'import lava_common.schemas, voluptuous, yaml' 2>/dev/null; then
	schema_tests
elif [ "${CI:-}" = true ]; then
	tap_not_ok lava.schema "lava-common is missing in CI (scripts/bootstrap.sh ci installs it)"
else
	tap_skip lava.schema "no lava-common for $py (apt-get install lava-common python3-voluptuous)"
fi
parser_tests
bench_tests
if "$py" -c 'import yaml' 2>/dev/null; then
	results_tests
else
	tap_skip lava.results "no python3-yaml for $py"
fi
cli_tests
tap_done
