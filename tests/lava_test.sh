#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The LAVA pieces, offline (TAP): every job template, filled with sample
# URLs, against LAVA's own job schema (lava-common, strict), the device
# dictionaries and the test definition against theirs, a planted error
# refused; the device side (lava/bindlab-lava.sh): its KTAP reader on the
# corpus tests/lava/ktap (and the shared tests/ktap, once there), failing
# closed, its parameters (ENV, SKIPFILE, TST_CASENAME) and the benchmarks'
# verdicts, with busybox's applets too; LAVA's log and a server's exports
# -> import JSON (lava/lava-results.py, kselftest.sh names mapped back);
# the import (bindlab_results merge --lava); kernel/lava.sh's command
# line. No VM, no network: seconds.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/fdlimit.sh
. "$here/tests/fdlimit.sh"
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

# no_kvm FILE: true when the job leaves KVM or TCG to the device (no
# no_kvm in its context, no kvm in any value).
job_leaves_kvm() {
	"$py" - "$1" <<'PY'
import sys
import yaml

job = yaml.safe_load(open(sys.argv[1]))
ctx = job.get("context") or {}
if "no_kvm" in ctx:
    sys.exit("%s: context sets no_kvm: the device dictionary's choice" % sys.argv[1])
if "kvm" in yaml.safe_dump(job).lower():
    sys.exit("%s: mentions kvm: the device dictionary's choice" % sys.argv[1])
PY
}

# device_chooses FILE: the dictionary's qemu options pick TCG or KVM.
device_chooses() {
	"$py" - "$1" <<'PY'
import sys
import yaml

dev = yaml.safe_load(open(sys.argv[1]))
opts = dev["actions"]["boot"]["methods"]["qemu"]["parameters"]["options"]
picks = [o for o in opts if o in ("-accel tcg", "-accel kvm", "-enable-kvm")]
sys.exit(0 if len(picks) == 1 else "%s: options %r pick no one accelerator" % (sys.argv[1], opts))
PY
}

# The definition as LAVA's dispatcher runs it (lava_dispatcher
# handle_parameters(): NAME='VALUE' lines, the definition's params then
# the job's; set -e; the steps), on the fake collection: the parameters
# reach the script, ENV reaches the programs.
testdef_run_tests() {
	local d=$tmp/testdef want

	mkdir -p "$d" "$tmp/tdbin"
	cp -r "$lava" "$d/lava"
	fake_collection
	printf 'fake.one.*\n' >"$d/skip"
	"$py" - "$lava/bindlab.yaml" "$tmp/fake" >"$d/run.sh" <<'PY'
import sys
import yaml

td = yaml.safe_load(open(sys.argv[1]))
job = {"COLLECTION": sys.argv[2], "BENCH_N": "0", "ENV": "X=1 BL_FAKE=a=b", "SKIPFILE": "skip"}
for name, value in list(td["params"].items()) + list(job.items()):
    print("%s='%s'" % (name, value or ""))
print("set -e")
print("\n".join(td["run"]["steps"]))
PY
	# shellcheck disable=SC2016 # expanded by the fake helper
	printf '#!/bin/sh\necho "$(basename "$0") $*" >>%s/tdcalls\n' "$tmp" >"$tmp/tdbin/lava-test-case"
	cp "$tmp/tdbin/lava-test-case" "$tmp/tdbin/lava-test-set"
	chmod +x "$tmp/tdbin/"*
	(cd "$d" && PATH=$tmp/tdbin:$PATH sh run.sh) >/dev/null 2>&1
	want="lava-test-set start fake_test
lava-test-case fake.two.env --result pass
lava-test-case fake.two.other --result pass
lava-test-case fake.one.env --result skip
lava-test-case fake.one.other --result skip
lava-test-set stop fake_test"
	same lava.testdef.parameters_as_lava_sets_them "$(cat "$tmp/tdcalls" 2>/dev/null)" "$want"
}

schema_tests() {
	local t name

	for t in "$lava"/jobs/*.yaml; do
		name=$(basename "$t" .yaml)
		check "lava.job.$name.template_valid" validate job "$t"
		check "lava.job.$name.kvm_is_the_device_s_choice" job_leaves_kvm "$t"
		# A query's '&' is kept as typed, never sed's text replaced.
		if "$lava/fill-job.sh" "$t" 'https://lab.example/bzImage?v=1&w=2' \
			https://lab.example/ramdisk.cpio.gz \
			https://lab.example/bindlab-testdefs.tar.gz >"$tmp/$name.yaml" 2>"$tmp/err"; then
			check "lava.job.$name.filled_valid" validate job "$tmp/$name.yaml"
			check "lava.job.$name.query_kept" grep -qF '"https://lab.example/bzImage?v=1&w=2"' "$tmp/$name.yaml"
		else
			tap_not_ok "lava.job.$name.filled_valid" "$(cat "$tmp/err")"
		fi
	done
	for t in "$lava"/devices/*.yaml; do
		check "lava.device.$(basename "$t" .yaml).valid" validate device "$t"
		check "lava.device.$(basename "$t" .yaml).chooses_tcg_or_kvm" device_chooses "$t"
	done
	check lava.testdef.valid validate testdef "$lava/bindlab.yaml"
	testdef_run_tests
	# The steps run the parser shipped next to the definition.
	check lava.testdef.parser_shipped grep -q '\./lava/bindlab-lava\.sh' "$lava/bindlab.yaml"
	# The schema check can fail: an unknown deploy target and a job
	# without timeouts are refused.
	sed 's/to: tmpfs/to: tmpfs-typo/' "$lava/jobs/qemu.yaml" >"$tmp/planted1.yaml"
	refuse lava.job.planted_bad_deploy_refused validate job "$tmp/planted1.yaml"
	sed '/^timeouts:/,/^context:/{/^context:/!d}' "$lava/jobs/qemu.yaml" >"$tmp/planted2.yaml"
	refuse lava.job.planted_no_timeouts_refused validate job "$tmp/planted2.yaml"
	sed 's/^  arch: amd64/&\n  no_kvm: true/' "$lava/jobs/qemu.yaml" >"$tmp/planted3.yaml"
	refuse lava.job.planted_no_kvm_refused job_leaves_kvm "$tmp/planted3.yaml"
	refuse lava.fill.bad_url_refused "$lava/fill-job.sh" "$lava/jobs/qemu.yaml" \
		'http://x/"y' http://x/r http://x/t
	printf 'url: "{{ OTHER }}"\n' >"$tmp/other.yaml"
	refuse lava.fill.unknown_placeholder_refused "$lava/fill-job.sh" "$tmp/other.yaml" \
		http://x/k http://x/r http://x/t
}

# parse_case NAME WANT: run_kselftest.sh's output in $tmp/ktap -> result
# lines (mode results), compared with WANT.
parse_case() {
	local got

	got=$("$lava/bindlab-lava.sh" results bind_bhash_test tw_reuse_loopback <"$tmp/ktap" 2>/dev/null)
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
	printf 'TAP version 13\n1..2\n# selftests: net/bindlab: bind_bhash_test\nnot ok 1 selftests: net/bindlab: bind_bhash_test # exit=139\n' >"$tmp/ktap"
	parse_case no_plan_and_missing_fail_closed "set bind_bhash_test
case ktap.plan fail
set bindlab
case ktap.plan fail
set tw_reuse_loopback
case ktap.plan fail"
	# A timeout after every planned case, and an exit without a failure.
	printf 'TAP version 13\n1..2\n# selftests: net/bindlab: bind_bhash_test\n# TAP version 13\n# 1..1\n# ok 1 a.b.c\nnot ok 1 selftests: net/bindlab: bind_bhash_test # TIMEOUT 300 seconds\n# selftests: net/bindlab: tw_reuse_loopback\n# TAP version 13\n# 1..0 # SKIP no netns\nok 2 selftests: net/bindlab: tw_reuse_loopback # SKIP\n' >"$tmp/ktap"
	parse_case timeout_and_skip "set bind_bhash_test
case a.b.c pass
case ktap.plan fail
set tw_reuse_loopback
case ktap.plan skip"
}

# same NAME GOT WANT: ok when the two texts are equal, else both shown.
same() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		local -a g w
		mapfile -t g <<<"$2"
		mapfile -t w <<<"$3"
		tap_not_ok "$1" "got:" "${g[@]}" "want:" "${w[@]}"
	fi
}

# busybox's applets alone on PATH (the device's tools), when busybox is here.
busybox_path() {
	local a bb

	bb=$(command -v busybox) || return 1
	mkdir -p "$tmp/bb"
	for a in sh awk sed sort grep tr cut cat cp mktemp rm tee env timeout wc; do
		ln -sf "$bb" "$tmp/bb/$a"
	done
	echo "$tmp/bb"
}

# corpus_tests DIR TAG: every DIR/*.ktap read by parse FILE, with the
# system's sh and awk and with busybox's, against its .expect.
corpus_tests() {
	local dir=$1 f n=0 bb got

	bb=$(busybox_path) || bb=
	for f in "$dir"/*.ktap; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		got=$(sh "$lava/bindlab-lava.sh" parse "$f" 2>&1)
		same "lava.parse.$2.$(basename "$f" .ktap)" "$got" "$(cat "${f%.ktap}.expect")"
		[ -n "$bb" ] || continue
		got=$(PATH=$bb "$bb/sh" "$lava/bindlab-lava.sh" parse "$f" 2>&1)
		same "lava.parse.$2.$(basename "$f" .ktap).busybox" "$got" "$(cat "${f%.ktap}.expect")"
	done
	[ -n "$bb" ] || tap_skip "lava.parse.$2.busybox" "no busybox here"
	[ "$n" -gt 0 ] || tap_not_ok "lava.parse.$2" "no .ktap in $dir"
}

# A line of 4096 bytes with its newline is read (its name printed cut at
# 200 bytes, as bl_printable() cuts); one byte more is refused, not split.
long_line_tests() {
	local name

	name=$(printf 'a.%04094d' 0 | tr 0 b)
	# "ok 1 ", the name and the newline: 4096 bytes, then 4097.
	printf 'TAP version 13\n1..1\nok 1 %s\n' "${name:0:4090}" >"$tmp/long.ktap"
	same lava.parse.line_of_4096_bytes_read "$(sh "$lava/bindlab-lava.sh" parse "$tmp/long.ktap")" \
		"pass ${name:0:200}...
plan ok"
	printf 'TAP version 13\n1..1\nok 1 %s\n' "${name:0:4091}" >"$tmp/long.ktap"
	same lava.parse.line_over_4096_bytes_refused "$(sh "$lava/bindlab-lava.sh" parse "$tmp/long.ktap")" \
		"plan broken"
	refuse lava.parse.no_file_refused sh "$lava/bindlab-lava.sh" parse "$tmp/none.ktap"
}

parse_tests() {
	corpus_tests "${BINDLAB_LAVA_CORPUS:-$here/tests/lava/ktap}" own
	# The shared corpus of the host-side reader: the same format.
	if [ -d "$here/tests/ktap" ]; then
		corpus_tests "$here/tests/ktap" shared
	else
		tap_skip lava.parse.shared "no tests/ktap corpus in this tree yet"
	fi
	long_line_tests
}

# The names of the real programs, by the device side's -l reader and by
# tests/test_names.py's: the same.
names_tests() {
	local p progs a b

	progs=$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)
	for p in $progs; do
		p=${p##*/}
		[ -x "$here/$p" ] || { tap_not_ok "lava.names.$p" "$p is not built"; continue; }
		a=$(sh "$lava/bindlab-lava.sh" names "$here/$p" | sort)
		b=$("$here/$p" -l 2>&1 | "$py" -c '
import sys
sys.path.insert(0, sys.argv[1])
import test_names
for f, v, t in test_names.parse(sys.stdin):
    print(sys.argv[2], ".".join(x for x in (f, v, t) if x))
' "$here/tests" "$p" | sort)
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			tap_ok "lava.names.$p ($(echo "$a" | wc -l) names)"
		else
			tap_not_ok "lava.names.$p" "$(diff <(echo "$a") <(echo "$b") | head -n 5)"
		fi
	done
}

# A collection of fake harness programs: -l lists four tests, -r runs
# some; fake.*.env pass only when ENV reached them.
fake_collection() {
	local d=$tmp/fake/net/bindlab

	mkdir -p "$d"
	cp "$here/cases" "$d/cases"
	echo timeout=45 >"$d/settings"
	echo net/bindlab:fake_test >"$tmp/fake/kselftest-list.txt"
	cat >"$d/fake_test" <<'EOF'
#!/bin/sh
if [ "$1" = -l ]; then
	printf '%-20s %-25s %s\n' "# FIXTURE" VARIANT TEST "fake" one env "" two other >&2
	exit 4
fi
names=
while [ $# -gt 0 ]; do
	[ "$1" = -r ] && names="$names $2" && shift
	shift
done
[ -n "$names" ] || names="fake.one.env fake.one.other fake.two.env fake.two.other"
set -- $names
echo "TAP version 13"
echo "1..$#"
n=0
for x; do
	n=$((n + 1))
	case $x in
	*.env) [ "${BL_FAKE:-}" = "a=b" ] && echo "ok $n $x" || echo "not ok $n $x" ;;
	*) echo "ok $n $x" ;;
	esac
done
EOF
	cat >"$tmp/fake/run_kselftest.sh" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo 1..1
echo "# selftests: net/bindlab: fake_test"
(cd net/bindlab && ./fake_test) | sed 's/^/# /'
echo "ok 1 selftests: net/bindlab: fake_test"
EOF
	chmod +x "$d/fake_test" "$tmp/fake/run_kselftest.sh"
}

# ks NAME WANT ARGS...: kselftest mode's result lines.
ks() {
	local name=$1 want=$2

	shift 2
	same "lava.kselftest.$name" "$("$lava/bindlab-lava.sh" kselftest "$@" "$tmp/fake" 2>/dev/null)" "$want"
}

params_tests() {
	fake_collection
	printf '# a comment\nfake.*.other\n\n' >"$tmp/skipfile"
	ks env_exported "set fake_test
case fake.one.env pass
case fake.one.other pass
case fake.two.env pass
case fake.two.other pass" -e "X=1 BL_FAKE=a=b"
	ks env_unexported_fails "set fake_test
case fake.one.env fail
case fake.one.other pass
case fake.two.env fail
case fake.two.other pass" -e ""
	ks skipfile "set fake_test
case fake.one.env pass
case fake.two.env pass
set fake_test
case fake.one.other skip
case fake.two.other skip" -e BL_FAKE=a=b -s "$tmp/skipfile"
	ks tst_casename_one_test "set fake_test
case fake.two.env pass" -e BL_FAKE=a=b -t fake.two.env
	ks tst_casename_a_benchmark_runs_no_test "" -t bind_fastreuse.v4_reuseaddr_same.total_ms
	ks tst_casename_unknown_fails "set bindlab
case ktap.plan fail" -t fake.three.env
	ks bad_env_fails "set bindlab
case ktap.plan fail" -e "1X=2"
	ks env_without_value_fails "set bindlab
case ktap.plan fail" -e "BL_FAKE"
	ks missing_skipfile_fails "set bindlab
case ktap.plan fail" -s "$tmp/no-such-skipfile"
	local bb
	if bb=$(busybox_path); then
		same lava.kselftest.skipfile_busybox "$(PATH=$bb:$tmp/fake "$bb/sh" "$lava/bindlab-lava.sh" \
			kselftest -e BL_FAKE=a=b -s "$tmp/skipfile" -t "" "$tmp/fake" 2>/dev/null)" "set fake_test
case fake.one.env pass
case fake.two.env pass
set fake_test
case fake.one.other skip
case fake.two.other skip"
	fi
}

# bench with the real result reader and a fake bind_bench that writes a
# real result of bind_bench (tests/lava/bind_bench-result.json): the
# verdict is the program's, read back by the installed bindlab_results.
bench_tests() {
	local d=$tmp/coll/net/bindlab got want

	mkdir -p "$d"
	cp "$here/cases" "$d/cases"
	cp "$here/bindlab_results" "$d/bindlab_results"
	cp "$here/tests/lava/bind_bench-result.json" "$tmp/result.json"
	cat >"$d/bind_bench" <<EOF
#!/bin/sh
# bind_bench -q -r R -w W --json FILE MODE ADDRESSES N (the table's rows)
case \$8.\$9 in
reuseaddr.same) sed 's/"status": "pass"/"status": "regressed"/' "$tmp/result.json" >"\$7" ;;
reuseaddr.alternate) cp "$tmp/result.json" "\$7" ;;
reuseport.same) exit 4 ;;
*) exit 1 ;;
esac
EOF
	chmod +x "$d/bind_bench"
	got=$(BINDLAB_XFAIL='bind_fastreuse.*' "$lava/bindlab-lava.sh" bench "$tmp/coll" 20 3 2>/dev/null)
	want="set bindlab-bench
case bind_fastreuse.v4_reuseaddr_same.total_ms fail 0.028111 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample1 pass 0.028111 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample2 pass 0.028524 ms
case bind_fastreuse.v4_reuseaddr_same.total_ms.sample3 pass 0.027767 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms pass 0.028111 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms.sample1 pass 0.028111 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms.sample2 pass 0.028524 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms.sample3 pass 0.027767 ms
case bind_fastreuse.v4_reuseport_same.total_ms skip
case bind_fastreuse.v4_reuseport_alternate.run fail"
	same lava.bench.program_verdict_median_samples_skip_crash "$got" "$want"
	local bb
	if bb=$(busybox_path); then
		got=$(PATH=$bb "$bb/sh" "$lava/bindlab-lava.sh" bench "$tmp/coll" 20 3 2>/dev/null)
		same lava.bench.busybox "$got" "$want"
	fi
	printf 'bind_fastreuse.v4_reuseport_*\n' >"$tmp/bskip"
	got=$("$lava/bindlab-lava.sh" bench -s "$tmp/bskip" "$tmp/coll" 20 3 2>/dev/null | grep -v sample)
	same lava.bench.skipfile "$got" "set bindlab-bench
case bind_fastreuse.v4_reuseaddr_same.total_ms fail 0.028111 ms
case bind_fastreuse.v4_reuseaddr_alternate.total_ms pass 0.028111 ms
case bind_fastreuse.v4_reuseport_same.total_ms skip
case bind_fastreuse.v4_reuseport_alternate.total_ms skip"
	got=$("$lava/bindlab-lava.sh" bench -t bind_fastreuse.v4_reuseaddr_alternate.total_ms \
		"$tmp/coll" 20 3 2>/dev/null | grep -v sample)
	same lava.bench.tst_casename "$got" "set bindlab-bench
case bind_fastreuse.v4_reuseaddr_alternate.total_ms pass 0.028111 ms"
	same lava.bench.bad_env_fails "$("$lava/bindlab-lava.sh" bench -e '=x' "$tmp/coll" 20 3 2>/dev/null)" \
		"set bindlab-bench
case bench.params fail"
	refuse lava.bench.even_rounds_refused "$lava/bindlab-lava.sh" bench "$tmp/coll" 100 2
}

report_tests() {
	local want

	mkdir -p "$tmp/bin"
	# shellcheck disable=SC2016 # expanded by the fake helper
	printf '#!/bin/sh\necho "$(basename "$0") $*" >>%s/calls\n' "$tmp" >"$tmp/bin/lava-test-case"
	cp "$tmp/bin/lava-test-case" "$tmp/bin/lava-test-set"
	chmod +x "$tmp/bin/"*
	printf 'set p\ncase a.b.c pass\nset p\ncase x.total_ms fail 2.0 ms\n' |
		PATH=$tmp/bin:$PATH "$lava/bindlab-lava.sh" report
	want="lava-test-set start p
lava-test-case a.b.c --result pass
lava-test-case x.total_ms --result fail --measurement 2.0 --units ms
lava-test-set stop p"
	same lava.report.lava_calls "$(cat "$tmp/calls" 2>/dev/null)" "$want"
}

# conv NAME RC [--names FILE] IN... : lava-results.py's exit status is RC.
conv() {
	local name=$1 want=$2 rc=0

	shift 2
	"$py" "$lava/lava-results.py" "$@" >"$tmp/conv.out" 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ]; then
		tap_ok "lava.results.$name"
	else
		tap_not_ok "lava.results.$name" "exit $rc, want $want" "$(cat "$tmp/conv.out")"
	fi
}

# refused_naming NAME TEXT IN...: exit 2, TEXT in the message, no output;
# the message one line "lava-results.py: ...", never a traceback.
refused_naming() {
	local name=$1 text=$2

	shift 2
	rm -f "$tmp/never.json"
	conv "$name" 2 "$@" "$tmp/never.json"
	if grep -qF -- "$text" "$tmp/conv.out" && [ ! -e "$tmp/never.json" ] &&
		[ "$(wc -l <"$tmp/conv.out")" -eq 1 ] && grep -q '^lava-results\.py: ' "$tmp/conv.out"; then
		tap_ok "lava.results.$name.named"
	else
		tap_not_ok "lava.results.$name.named" "want one line with '$text' and no output" \
			"$(head -c 2000 "$tmp/conv.out")"
	fi
}

# LAVA's log (records as lava-run writes them) -> the import JSON.
log_tests() {
	cat >"$tmp/lava.log" <<'EOF'
{"dt": "t", "lvl": "target", "msg": "ok 1 selftests"}
{"dt": "t", "lvl": "results", "msg": {"case": "a.b.c", "definition": "0_bindlab", "result": "pass", "set": "bind_bhash_test", "starttc": ! "7"}}
{"dt": "t", "lvl": "results", "msg": {"case": "x.total_ms", "definition": "0_bindlab", "measurement": ! "24.648", "result": "pass", "set": "bindlab-bench", "units": "ms"}}
{"dt": "t", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}
EOF
	conv log_converted 0 "$tmp/lava.log" "$tmp/lava.json"
	# One descriptor free, run by its #! line as run.sh and lava.sh run
	# it: the same conversion, never the interpreter's death, whose
	# exit 1 reads as "a case failed" (in a UTF-8 locale its start needs
	# a descriptor more than in C's).
	if why=$(bl_lowfd_works 4); then
		bl_lowfd_prefix 4
		rc=0
		LC_ALL=C.UTF-8 "${lowfd[@]}" "$lava/lava-results.py" "$tmp/lava.log" "$tmp/lowfd.json" >"$tmp/conv.out" 2>&1 || rc=$?
		same lava.results.one_free_descriptor_converted "$rc $(cat "$tmp/lowfd.json" 2>&1)
$(grep -v '^lava: ' "$tmp/conv.out" | head -n 3)" "0 $(cat "$tmp/lava.json")
"
	else
		tap_not_ok lava.results.one_free_descriptor_converted "$why"
	fi
	# Whatever else lava-run wrote first, the log is still read as one.
	{ echo "/usr/lib/python3/dist-packages/x.py:1: DeprecationWarning: y"; cat "$tmp/lava.log"; } >"$tmp/warn.log"
	conv log_after_other_output 0 "$tmp/warn.log" "$tmp/warn.json"
	same lava.results.log_after_other_output_same "$(cat "$tmp/warn.json")" "$(cat "$tmp/lava.json")"
	check lava.results.log_entries "$py" -c '
import json, sys
got = json.load(open(sys.argv[1]))
want = [{"definition": "bind_bhash_test", "case": "a.b.c", "result": "pass"},
        {"definition": "bindlab-bench", "case": "x.total_ms", "result": "pass",
         "measurement": 24.648, "units": "ms"},
        {"definition": "lava", "case": "job", "result": "pass"}]
sys.exit(0 if got == want else "%r" % got)
' "$tmp/lava.json"
	sed 's/"result": "pass", "set": "bind_bhash_test"/"result": "fail", "set": "bind_bhash_test"/' \
		"$tmp/lava.log" >"$tmp/fail.log"
	conv fail_is_exit_1 1 "$tmp/fail.log" "$tmp/lava.json"
	grep '"lava"' "$tmp/lava.log" >"$tmp/boot-failed.log"
	conv no_test_result_is_exit_3 3 "$tmp/boot-failed.log" "$tmp/lava.json"
	# A record cut short, a NaN, a word for a number: each an error that
	# names its line, never a drop (the old reader skipped them) or NaN.
	sed '3s/, "result".*//' "$tmp/lava.log" >"$tmp/cut.log"
	refused_naming cut_record_refused "cut.log:3: a results record that does not parse" "$tmp/cut.log"
	sed '3s/! "24.648"/! "nan"/' "$tmp/lava.log" >"$tmp/nan.log"
	refused_naming nan_refused "nan.log:3: measurement 'nan' is no number" "$tmp/nan.log"
	sed '3s/! "24.648"/! "fast"/' "$tmp/lava.log" >"$tmp/word.log"
	refused_naming word_measurement_refused "word.log:3: measurement 'fast' is no number" "$tmp/word.log"
	# C's numbers only: Python's float() reads "1_0" as 10, another
	# script's digits as ours and blanks as nothing.
	sed '3s/! "24.648"/! "2_4.648"/' "$tmp/lava.log" >"$tmp/us.log"
	refused_naming underscore_measurement_refused "us.log:3: measurement '2_4.648' is no number" "$tmp/us.log"
	sed '3s/! "24.648"/! "\\u0662\\u0664"/' "$tmp/lava.log" >"$tmp/digits.log"
	refused_naming other_digits_refused "digits.log:3: measurement" "$tmp/digits.log"
	# Nothing in it: an error naming the file, never a traceback or an
	# import of nothing.
	: >"$tmp/empty.log"
	refused_naming empty_file_refused "empty.log: no LAVA record in it" "$tmp/empty.log"
	echo '[]' >"$tmp/emptylist.json"
	refused_naming empty_list_refused "emptylist.json: no LAVA record in it" "$tmp/emptylist.json"
	sed '3s/! "24.648"/! " 24.648"/' "$tmp/lava.log" >"$tmp/blank.log"
	refused_naming blank_measurement_refused "blank.log:3: measurement ' 24.648' is no number" "$tmp/blank.log"
	sed '2s/"result": "pass"/"result": "passed"/' "$tmp/lava.log" >"$tmp/res.log"
	refused_naming unknown_result_refused "res.log:2: result 'passed'" "$tmp/res.log"
	sed '2s/"case": "a.b.c", //' "$tmp/lava.log" >"$tmp/nocase.log"
	refused_naming no_case_refused "nocase.log:2: no case string" "$tmp/nocase.log"
	# OUT is checked before any work: an input (however spelled) or a
	# device is refused and left as it was.
	cp "$tmp/lava.log" "$tmp/in.log"
	ln -sf "$tmp/in.log" "$tmp/in-link.json"
	conv out_is_an_input_refused 2 "$tmp/in.log" "$tmp/in-link.json"
	same lava.results.out_is_an_input_kept "$(cmp "$tmp/lava.log" "$tmp/in.log" && grep -c 'also an input' "$tmp/conv.out")" 1
	# OUT "-" is no stdout here (the summary is): refused, no file "-".
	same lava.results.out_dash_refused "$(cd "$tmp" && "$py" "$lava/lava-results.py" "$tmp/lava.log" - 2>&1 >/dev/null
		echo "exit $?, files named -: $(find "$tmp" -maxdepth 1 -name - | wc -l)")" \
		"lava-results.py: -: OUT is a file (stdout carries the summary): refused before any work
exit 2, files named -: 0"
	# Under /dev of a private mount namespace (a tmpfs): a writer that
	# let it through could never reach the host's /dev.
	if unshare -m true 2>/dev/null; then
		# shellcheck disable=SC2016 # expands in the inner shell
		same lava.results.out_under_dev_refused "$(unshare -m sh -c '
			mount -t tmpfs -o size=64k bl /dev || exit 9
			: >/dev/null
			"$@" /dev/null >/dev/null 2>&1
			echo "$? $(ls /dev)"' sh "$py" "$lava/lava-results.py" "$tmp/lava.log")" "2 null"
		# The one writer's rules (bindlab_results dest), not a copy of
		# some: /usr, /etc... and a file another user owns are refused too.
		# shellcheck disable=SC2016 # expands in the inner shell
		same lava.results.out_under_usr_refused "$(unshare -m sh -c '
			mount -t tmpfs -o size=64k bl /usr/local/share || exit 9
			"$@" /usr/local/share/out.json 2>&1 >/dev/null
			echo "$? $(ls /usr/local/share)"' sh "$py" "$lava/lava-results.py" "$tmp/lava.log")" \
			"bindlab_results: /usr/local/share/out.json is under /usr: results are not written there
2 "
	else
		tap_skip lava.results.out_under_dev_refused "no private mount namespace (unshare -m)"
	fi
	# Without the checker beside it (not built), no check and no write.
	mkdir -p "$tmp/alone/lava"
	cp "$lava/lava-results.py" "$tmp/alone/lava/"
	"$py" "$tmp/alone/lava/lava-results.py" "$tmp/lava.log" "$tmp/alone/out.json" >/dev/null 2>"$tmp/alone.err"
	same lava.results.no_checker_is_error "$? $(ls "$tmp/alone") $(grep -c 'bindlab_results' "$tmp/alone.err")" "2 lava 1"
	echo '[]' >"$tmp/theirs.json"
	chown 65534 "$tmp/theirs.json"
	conv out_of_another_user_refused 2 "$tmp/lava.log" "$tmp/theirs.json"
	same lava.results.out_of_another_user_kept "$(cat "$tmp/theirs.json"; grep -c 'belongs to uid 65534' "$tmp/conv.out")" "[]
1"
	# A full disk (a 64k tmpfs, filled, in a private mount namespace):
	# an error (2), the earlier OUT whole, no temporary left.
	if unshare -m true 2>/dev/null; then
		mkdir -p "$tmp/full"
		# shellcheck disable=SC2016 # expands in the inner shell
		same lava.results.full_disk_is_error_old_output_kept "$(unshare -m sh -c '
			mount -t tmpfs -o size=64k bl "$0" || exit 9
			echo "[]" >"$0/out.json"
			dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null
			"$@" >/dev/null 2>&1
			echo "$? $(cat "$0/out.json") $(ls "$0" | grep -c tmp)"' \
			"$tmp/full" "$py" "$lava/lava-results.py" "$tmp/lava.log" "$tmp/full/out.json")" "2 [] 0"
	else
		tap_skip lava.results.full_disk_is_error_old_output_kept "no private mount namespace (unshare -m)"
	fi
	# SIGTERM while OUT is written: held until it is whole.
	mkdir -p "$tmp/term"
	same lava.results.term_mid_write_leaves_no_temporary \
		"$(term_mid_write "$lava/lava-results.py" write_atomic replace "$tmp/term")" "143 out"
	# QUIT (^\) and ALRM end it as TERM does: held too.
	for sig in QUIT ALRM; do
		rm -rf "$tmp/term" && mkdir "$tmp/term"
		same "lava.results.$sig.mid_write_leaves_no_temporary" \
			"$(term_mid_write "$lava/lava-results.py" write_atomic replace "$tmp/term" "$sig" | cut -d' ' -f2-)" "out"
	done
}

# LAVA's job record of a job that ended on an error (lava-run's
# error_type, in the record or in a server's metadata of it), whatever
# the type: no kernel verdict, refused (exit 2), never a FAIL; and not the
# import format, so that run.sh import-lava hands it to the conversion.
job_error_tests() {
	local f=$here/tests/lava

	sed '4s/"result": "pass"/"result": "fail", "error_msg": "tftp: timed out", "error_type": "Infrastructure"/' \
		"$tmp/lava.log" >"$tmp/infra.log"
	refused_naming log_job_ended_on_error_refused \
		"infra.log:4: the LAVA job ended on an infrastructure error (error_type Infrastructure, error_msg 'tftp: timed out'): no kernel verdict" \
		"$tmp/infra.log"
	sed 's/{case: job, definition: lava, level: .1.2., namespace: common, result: pass}/{case: job, definition: lava, error_type: Test, result: fail}/' \
		"$f/lavacli-results.yaml" >"$tmp/test-error.yaml"
	refused_naming lavacli_job_ended_on_error_refused \
		"test-error.yaml: record 17: the LAVA job ended on an infrastructure error (error_type Test): no kernel verdict" \
		"$tmp/test-error.yaml"
	printf '[{"definition": "lava", "case": "job", "result": "fail", "metadata": {"error_type": "Infrastructure"}},
{"definition": "lava", "case": "tftp-deploy", "result": "fail"}]\n' >"$tmp/infra.json"
	conv import_format_job_ended_on_error_is_not_import 1 --is-import "$tmp/infra.json"
	refused_naming import_format_job_ended_on_error_refused \
		"infra.json: record 1: the LAVA job ended on an infrastructure error (error_type Infrastructure): no kernel verdict" \
		"$tmp/infra.json"
	# A job record "fail" without an error_type: a failed case, as before.
	sed '4s/"result": "pass"/"result": "fail"/' "$tmp/lava.log" >"$tmp/job-fail.log"
	conv job_fail_without_error_type_is_exit_1 1 "$tmp/job-fail.log" "$tmp/job-fail.json"
}

# stdout_to SINK OUT: lava-results.py on $tmp/lava.log with stdout a pipe
# nobody reads (pipe) or /dev/full (full): "STATUS STDERR".
stdout_to() {
	"$py" - "$1" "$py" "$lava/lava-results.py" "$tmp/lava.log" "$2" <<'PY'
import os
import subprocess
import sys

if sys.argv[1] == "pipe":
    r, out = os.pipe()
    os.close(r)
else:
    out = os.open("/dev/full", os.O_WRONLY)
p = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE, check=False)
print(p.returncode, p.stderr.decode(errors="replace"), end="")
PY
}

# Hostile inputs, one a row: NAME|TEXT|BODY, BODY the file's text (or,
# when empty, the file made first: too deep or too large to write here).
# Each is refused by one line with TEXT (exit 2), never a traceback, never
# read as a result.
hostile_tests() {
	local d=$tmp/hostile name text body sink

	mkdir -p "$d"
	"$py" - "$d" <<'PY'
import sys

rec = '[{"name": "a.b.c", "result": "fail", "metadata": {"definition": "x"}, "measurement": %s}]'
# A list of a million items that YAML's aliases write in a few lines.
laughs = "- {name: a.b.c, result: pass, metadata: {definition: x}}\n"
laughs += "- name: a.b.d\n  result: pass\n  metadata: {definition: x}\n"
laughs += "  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
laughs += "".join("  l%d: &l%d [%s]\n" % (i, i, ", ".join(["*l%d" % (i - 1)] * 10)) for i in range(1, 6))
laughs += "  measurement: *l5\n"
for name, text in (("deep_json", "[" * 200000 + "]" * 200000),
                   ("deep_yaml", "a: " + "[" * 100000 + "]" * 100000),
                   ("measurement_400_digits", rec % ("9" * 400)),
                   ("measurement_5000_digits", rec % ("9" * 5000)),
                   ("measurement_aliased_million", laughs),
                   ("not_utf8", "[\udcff]")):
    with open("%s/%s" % (sys.argv[1], name), "w", errors="surrogateescape") as f:
        f.write(text + "\n")
PY
	while IFS='|' read -r name text body; do
		case $name in '#'*) continue ;; esac
		[ -z "$body" ] || printf '%s\n' "$body" >"$d/$name"
		refused_naming "${name}_refused" "$text" "$d/$name"
	done <<'ROWS'
# What a record is and what a number is: checked before use.
deep_json|deep_json: nested deeper than Python reads|
deep_yaml|deep_yaml: nested deeper than Python reads|
measurement_400_digits|record 1 (a.b.c): measurement 999999999999999999999999999999999999999999999999999999999... is not finite|
measurement_5000_digits|record 1 (a.b.c): measurement inf is not finite|
measurement_aliased_million|record 2 (a.b.d): measurement a list is no number|
not_utf8|not_utf8: not UTF-8|
results_no_list|results_no_list: a REST page whose results is no list|{"count": 1, "results": 5}
results_of_numbers|record 1: no name and result strings|{"count": 1, "results": [5]}
count_no_number|a REST page whose count 'x' is no number of records|{"count": "x", "results": []}
name_no_string|record 1: no name and result strings|[{"name": ["a"], "result": "pass", "metadata": {"definition": "x"}}]
job_id_a_list|record 1 (a.b.c): job a list is no id|[{"name": "a.b.c", "result": "pass", "job": [1], "metadata": {"definition": "x"}}]
record_id_a_dict|record 1 (a.b.c): record id a dict is no id|[{"name": "a.b.c", "result": "pass", "id": {}, "metadata": {"definition": "x"}}]
set_no_string|record 1 (a.b.c): set a dict is no string|[{"name": "a.b.c", "result": "pass", "metadata": {"definition": "x", "set": {"a": 1}}}]
unit_no_string|record 1 (a.b.c): units 5 is no string|[{"name": "a.b.c", "result": "pass", "measurement": 1, "unit": 5, "metadata": {"definition": "x"}}]
# The host's sample range, (0, 1e15]: "1e-400" reads as 0.0.
measurement_negative|record 1 (a.b.c): measurement '-5' is not in (0, 1e+15]|[{"name": "a.b.c", "result": "pass", "measurement": "-5", "metadata": {"definition": "x"}}]
measurement_underflow|record 1 (a.b.c): measurement '1e-400' is not in (0, 1e+15]|[{"name": "a.b.c", "result": "pass", "measurement": "1e-400", "metadata": {"definition": "x"}}]
measurement_past_host_max|record 1 (a.b.c): measurement 2000000000000000.0 is not in (0, 1e+15]|[{"name": "a.b.c", "result": "pass", "measurement": 2e15, "metadata": {"definition": "x"}}]
measurement_a_bool|record 1 (a.b.c): measurement True is no number|[{"name": "a.b.c", "result": "pass", "measurement": true, "metadata": {"definition": "x"}}]
control_characters_escaped|record 1 (a\x0ab\x1b[1m): measurement 'z' is no number|[{"name": "a\nb\u001b[1m", "result": "pass", "measurement": "z", "metadata": {"definition": "x"}}]
# A case twice, a pass and a fail: which counts? The host refuses it too.
case_twice|case_twice: record 2 (a.b.c): x a.b.c twice (first at|[{job: "10", name: a.b.c, result: pass, metadata: {definition: x, case: a.b.c, result: pass}}, {job: "10", name: a.b.c, result: fail, metadata: {definition: x, case: a.b.c, result: fail}}]
# A key twice: the readers keep the last, and a fail would read as a pass.
json_duplicate_key|json_duplicate_key: key 'result' twice in one object|[{"name": "bind_fastreuse.v4_reuseaddr_same.growth", "result": "fail", "result": "pass", "metadata": {"definition": "bind_fastreuse"}}]
yaml_duplicate_key|yaml_duplicate_key:1: key 'result' twice in one mapping|- {name: X, result: fail, result: pass, job: "1", metadata: {definition: d}}
ROWS
	sed '2s/"result": "pass"/"result": "fail", "result": "pass"/' "$tmp/lava.log" >"$tmp/dup.log"
	refused_naming log_duplicate_key_refused "dup.log:2: key 'result' twice in one mapping" "$tmp/dup.log"
	printf '[{"definition": "p", "case": "f.a", "result": "fail", "result": "pass"}]\n' >"$tmp/dup-import.json"
	conv import_format_duplicate_key_is_not_import 1 --is-import "$tmp/dup-import.json"
	# A stdout that takes nothing (a pipe nobody reads, a full disk): an
	# error in one line, and no OUT.
	for sink in "pipe:Broken pipe" "full:No space left on device"; do
		rm -f "$tmp/sink.json"
		same "lava.results.stdout_${sink%%:*}_is_error_nothing_written" \
			"$(stdout_to "${sink%%:*}" "$tmp/sink.json")$([ ! -e "$tmp/sink.json" ] || echo ' (OUT written)')" \
			"2 lava-results.py: stdout: ${sink#*:}"
	done
	# Whatever else fails (here a planted TypeError): an error in one line.
	same lava.results.any_other_exception_is_error_one_line "$("$py" - "$lava/lava-results.py" \
		"$tmp/lava.log" "$tmp/never.json" 2>&1 <<'PY'
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("lava_results", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)


def planted(*_):
    raise TypeError("planted\nsecond line")


mod.convert = planted
print(mod.main(sys.argv[1:]))
PY
)" "lava-results.py: TypeError: planted\x0asecond line
2"
	conv help_is_exit_0 0 --help
	check lava.results.help_prints_usage grep -q '^usage: lava-results.py \[--names FILE\] IN\.\.\. OUT\.json' \
		"$tmp/conv.out"
}

# count NAME JSON WANT: the number of entries of an import JSON.
count() {
	same "lava.results.$1" "$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$2")" "$3"
}

# A LAVA server's exports: lavacli's YAML of a job of our definition,
# the REST API's pages of an LKFT-style job (kselftest.sh's names).
export_tests() {
	local f=$here/tests/lava

	conv lavacli_yaml 1 "$f/lavacli-results.yaml" "$tmp/cli.json"
	count lavacli_yaml_all_records_out "$tmp/cli.json" 17
	check lava.results.lavacli_yaml_counted grep -q '^lava: 17 records in, 17 out, 0 of them' "$tmp/conv.out"
	"$py" -c 'import json, sys, yaml
print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$f/lavacli-results.yaml" >"$tmp/cli-export.json"
	conv lavacli_json 1 "$tmp/cli-export.json" "$tmp/cli2.json"
	same lava.results.lavacli_json_same_as_yaml "$(cat "$tmp/cli2.json")" "$(cat "$tmp/cli.json")"
	sed '0,/suite: 0_bindlab/s//suite: 1_other/' "$f/lavacli-results.yaml" >"$tmp/suite.yaml"
	refused_naming suite_mismatch_refused "suite '1_other', metadata.definition '0_bindlab'" "$tmp/suite.yaml"

	# shellcheck disable=SC2046 # the programs, as words
	sh "$lava/bindlab-lava.sh" names $(for p in $(make -s --no-print-directory -C "$here" print-programs |
		sed -n 1p); do echo "$here/${p##*/}"; done) >"$tmp/names"
	conv rest_pages 1 --names "$tmp/names" "$f/rest-tests-page1.json" "$f/rest-tests-page2.json" "$tmp/rest.json"
	check lava.results.rest_counted_and_mapped \
		grep -q '^lava: 11 records in, 11 out, 10 of them kselftest.sh names mapped' "$tmp/conv.out"
	check lava.results.rest_names_mapped "$py" -c '
import json, sys
got = {(e["definition"], e["case"]) for e in json.load(open(sys.argv[1]))}
want = {("bind_bhash_test", "bind_conflict.bound_addr_addr.bind_listen"),
        ("bind_bhash_test", "bind_addr.v4_any__v6_any_only.reuseaddr_listen"),
        ("bind_fastreuse", "bind_fastreuse.v4_reuseaddr_same.growth"),
        ("bind_bhash_test", "ktap.plan"), ("tw_reuse_loopback", "ktap.plan"),
        ("tw_reuse_loopback", "global.tw_reuse_default_is_2"),
        ("tw_reuse_loopback", "tw_sysctl.reuse_minus_1.write"),
        ("bind_model_test", "model_upstream.bind_wildcard"),
        ("bind_model_test", "ktap.plan"), ("kselftest", "kselftest.shardfile"),
        ("lava", "job")}
sys.exit(0 if got == want else "%r" % (got ^ want))
' "$tmp/rest.json"
	refused_naming rest_page_missing_refused "6 records of the job's 11" \
		--names "$tmp/names" "$f/rest-tests-page1.json"
	refused_naming rest_page_twice_refused "record id 5502 again" \
		--names "$tmp/names" "$f/rest-tests-page1.json" "$f/rest-tests-page1.json" "$f/rest-tests-page2.json"
	refused_naming rest_without_names_refused "needs --names" "$f/rest-tests-page1.json" "$f/rest-tests-page2.json"
	# One whole job: pages or records of two jobs are refused, by job id.
	sed 's|/jobs/9931/|/jobs/9940/|g' "$f/rest-tests-page2.json" >"$tmp/p2-other-job.json"
	refused_naming rest_pages_of_two_jobs_refused "records of 2 jobs (9931 at" \
		--names "$tmp/names" "$f/rest-tests-page1.json" "$tmp/p2-other-job.json"
	sed "0,/job: '4211'/s//job: '4212'/" "$f/lavacli-results.yaml" >"$tmp/two-jobs.yaml"
	refused_naming lavacli_records_of_two_jobs_refused "records of 2 jobs (4211 at" "$tmp/two-jobs.yaml"
	refused_naming logs_of_two_jobs_refused "job record more than once" "$tmp/lava.log" "$tmp/lava.log"
	# A job of 12 records in pages of 6: page 1 twice sums to 12 too.
	sed 's/"count": 11/"count": 12/' "$f/rest-tests-page1.json" >"$tmp/p1-of-12.json"
	refused_naming rest_page_twice_same_size_refused "record id 5502 again" \
		--names "$tmp/names" "$tmp/p1-of-12.json" "$tmp/p1-of-12.json"
	# Records of other ids, one case: page 2's pass of a test page 1 failed.
	sed 's/net_bindlab_tw_reuse_loopback\b/net_bindlab_bind_bhash_test/g' "$f/rest-tests-page2.json" >"$tmp/p2-case-twice.json"
	refused_naming rest_case_twice_refused \
		"p2-case-twice.json: record 1 (net_bindlab_bind_bhash_test): bind_bhash_test ktap.plan twice (first at" \
		--names "$tmp/names" "$f/rest-tests-page1.json" "$tmp/p2-case-twice.json"
	sed 's/tw_sysctl_reuse_minus_1_write/tw_sysctl_reuse_minus_7_write/g' "$f/rest-tests-page1.json" >"$tmp/p1.json"
	refused_naming unmappable_name_refused \
		"record 6 (net_bindlab_tw_reuse_loopback_tw_sysctl_reuse_minus_7_write): kselftest.sh name net_bindlab_tw_reuse_loopback_tw_sysctl_reuse_minus_7_write maps to no test" \
		--names "$tmp/names" "$tmp/p1.json" "$f/rest-tests-page2.json"
	# A record's result and its metadata's must agree: the field's "pass"
	# never hides the metadata's "fail".
	sed '0,/"result": "fail"/s//"result": "pass"/' "$f/rest-tests-page1.json" >"$tmp/p1-disagree.json"
	refused_naming rest_result_disagrees_refused "result 'pass', metadata.result 'fail'" \
		--names "$tmp/names" "$tmp/p1-disagree.json" "$f/rest-tests-page2.json"
	# The REST API's metadata is YAML text: a key twice there too. LAVA's
	# job record of a job that ended on an error, on the last page, is
	# refused before any record of the first is read.
	sed 's/definition: lava\\nduration/definition: lava\\ndefinition: lava\\nduration/' \
		"$f/rest-tests-page2.json" >"$tmp/p2-dup.json"
	refused_naming rest_metadata_duplicate_key_refused \
		"record 5 (job): metadata: key 'definition' twice in one mapping" \
		--names "$tmp/names" "$f/rest-tests-page1.json" "$tmp/p2-dup.json"
	sed 's/definition: lava\\nduration: .212.44.\\nresult: pass/definition: lava\\nerror_type: LAVATimeout\\nresult: fail/' \
		"$f/rest-tests-page2.json" >"$tmp/p2-timeout.json"
	refused_naming rest_job_ended_on_error_refused \
		"p2-timeout.json: record 5: the LAVA job ended on an infrastructure error (error_type LAVATimeout): no kernel verdict" \
		"$tmp/p1.json" "$tmp/p2-timeout.json"
	# "_" is ambiguous: two tests that flatten alike map to neither.
	printf 'tw_reuse_loopback tw_sysctl.reuse_minus_1.write\ntw_reuse_loopback tw_sysctl.reuse.minus_1_write\n' >>"$tmp/names"
	refused_naming ambiguous_name_refused \
		"maps to tw_reuse_loopback tw_sysctl.reuse.minus_1_write and tw_reuse_loopback tw_sysctl.reuse_minus_1.write" \
		--names "$tmp/names" "$f/rest-tests-page1.json" "$f/rest-tests-page2.json"
}

# merge --lava: every file imported and validated; a case twice, or a
# measurement on a name that is no case of the table, refused by name.
import_tests() {
	local -a decls
	local out=$tmp/run.json rc

	# shellcheck source=scripts/cases.sh
	. "$here/scripts/cases.sh"
	bl_cases_load || { tap_not_ok lava.import "the case table"; return; }
	bl_case_decls "${BL_CASE_NAMES[@]}"
	decls=("${BL_CASE_DECLS[@]}")
	printf '[{"definition": "bindlab-bench", "case": "bind_fastreuse.v4_reuseport_alternate.total_ms", "result": "pass", "measurement": 2, "units": "ms"},
{"definition": "bindlab-bench", "case": "bind_fastreuse.v4_reuseport_alternate.total_ms.sample1", "result": "pass", "measurement": 2, "units": "ms"}]\n' >"$tmp/b.json"
	"$here/bindlab_results" merge "$out" "${decls[@]}" --lava "$tmp/cli.json" --lava "$tmp/b.json" 2>"$tmp/err"
	check lava.import.every_lava_file "$py" -c '
import json, sys
run = json.load(open(sys.argv[1]))
cases = sorted(c["case"] for c in run["cases"])
want = ["bind_fastreuse.v4_reuseaddr_same.total_ms", "bind_fastreuse.v4_reuseport_alternate.total_ms",
        "bind_fastreuse.v4_reuseport_same.total_ms"]
# 9 results, and the 4 table cases neither job ran.
sys.exit(0 if cases == want and len(run["tests"]) == 13 else "%r, %d tests" % (cases, len(run["tests"])))
' "$out"
	rc=0
	"$here/bindlab_results" merge "$tmp/never.json" "${decls[@]}" --lava "$tmp/b.json" \
		--lava "$tmp/b.json" 2>"$tmp/err" || rc=$?
	same lava.import.case_twice_refused "$rc $(cat "$tmp/err")" \
		"2 bindlab_results: --lava $tmp/b.json: bind_fastreuse.v4_reuseport_alternate.total_ms twice (in two imports, or an import and a result)"
	rc=0
	"$here/bindlab_results" merge "$tmp/never.json" "${decls[@]}" --lava "$tmp/rest.json" \
		--lava "$tmp/rest.json" 2>"$tmp/err" || rc=$?
	same lava.import.test_twice_refused "$rc $(cat "$tmp/err")" \
		"2 bindlab_results: --lava $tmp/rest.json: bind_bhash_test bind_conflict.bound_addr_addr.bind_listen twice"
	printf '[{"definition": "bind_bhash_test", "case": "bind_conflict.bound_addr_addr.bind_listen", "result": "pass", "measurement": 3.5, "units": "ms"}]\n' >"$tmp/m.json"
	rc=0
	"$here/bindlab_results" merge "$tmp/never.json" "${decls[@]}" --lava "$tmp/m.json" 2>"$tmp/err" || rc=$?
	same lava.import.measurement_on_no_case_refused "$rc $(cat "$tmp/err")" \
		"2 bindlab_results: --lava $tmp/m.json: bind_bhash_test bind_conflict.bound_addr_addr.bind_listen: a measurement (3.5 ms) on a name that is no case of the table"
	# LAVA's own records alone: the job stopped before its tests, no FAIL.
	printf '[{"definition": "lava", "case": "job", "result": "pass"}]\n' >"$tmp/j.json"
	rc=0
	"$here/bindlab_results" merge "$tmp/never.json" "${decls[@]}" --lava "$tmp/j.json" 2>"$tmp/err" || rc=$?
	same lava.import.only_lava_records_refused "$rc $(cat "$tmp/err")" \
		"2 bindlab_results: --lava $tmp/j.json: no result of the job's test definitions, only LAVA's own records: no kernel verdict"
	check lava.import.refusals_write_nothing test ! -e "$tmp/never.json"
	# No pass without a measurement: three passing tests and no table case.
	printf '[{"definition": "p", "case": "f.a", "result": "pass"}, {"definition": "p", "case": "f.b", "result": "pass"},
{"definition": "p", "case": "f.c", "result": "pass"}, {"definition": "lava", "case": "job", "result": "pass"}]\n' >"$tmp/three.json"
	"$here/bindlab_results" merge "$tmp/three-run.json" "${decls[@]}" --lava "$tmp/three.json" 2>"$tmp/err"
	rc=0
	"$here/bindlab_results" summary "$tmp/three-run.json" >"$tmp/out" 2>&1 || rc=$?
	same lava.import.no_benchmark_is_no_pass "$rc $(grep -c 'FAIL .*not in the LAVA job' "$tmp/out")" "1 7"
	# A kselftest that no record names is listed too (--program), failing.
	"$here/bindlab_results" merge "$tmp/prog-run.json" "${decls[@]}" --program p \
		--program bind_fastreuse --lava "$tmp/three.json" 2>"$tmp/err"
	rc=0
	"$here/bindlab_results" summary "$tmp/prog-run.json" >"$tmp/out" 2>&1 || rc=$?
	same lava.import.kselftest_not_run_fails \
		"$rc $(grep -c 'FAIL .*bind_fastreuse\.ktap\.plan: no result of this kselftest' "$tmp/out")" "1 1"
	"$here/bindlab_results" merge "$out" "${decls[@]}" --lava "$tmp/rest.json" 2>"$tmp/err"
	check lava.import.kselftest_sh_job "$py" -c '
import json, sys
run = json.load(open(sys.argv[1]))
t = {(e["program"], e["test"]): e for e in run["tests"]}
# The table cases the job never ran are listed: failures, by name.
missing = {k: e for k, e in t.items() if k[0] == "benchmark"}
ok = len(t) == 18 and t[("lava", "job")]["reason"] == "LAVA: 212.44 seconds" and \
    t[("bind_fastreuse", "bind_fastreuse.v4_reuseaddr_same.growth")]["result"] == "fail" and \
    len(missing) == 7 and all(e["result"] == "fail" and e["reason"] == "not in the LAVA job"
                              for e in missing.values())
sys.exit(0 if ok else "%r" % sorted(t))
' "$out"
}

cli_tests() {
	local rc

	for args in "" "-k" "-k /nonexistent" "-k stock -r 2" "-k stock -n x" "--bogus" \
		"-k stock -s /nonexistent" "-k stock -t a'b" "-k stock -e" \
		"-k stock -k fixed" "-k stock --token t" "-k stock -a http://a" \
		"-k stock -S ftp://s -a http://a" "-k stock -S http://s" \
		"-k stock -S http://s -a http://a -u u" "-k stock -S http://s -a ftp://a" \
		"-k stock -S http://s -a http://a -I i -u u --token t" \
		"-k stock -S http://s -a http://a -u u --token a:b" \
		"-k stock -k stock -S http://s -a http://a" "-k stock -S http://u@s -a http://a"; do
		rc=0
		# shellcheck disable=SC2086 # the words are the arguments
		"$here/kernel/lava.sh" $args >/dev/null 2>&1 || rc=$?
		check "lava.cli.usage_error_exit_2 ($args)" test "$rc" -eq 2
	done
	check lava.cli.help "$here/kernel/lava.sh" --help
	for args in "-d 0" "-d 21" "-d x" "-W 9" "--bogus" "-o"; do
		rc=0
		# shellcheck disable=SC2086 # the words are the arguments
		"$here/kernel/lava-server.sh" $args >/dev/null 2>&1 || rc=$?
		check "lava.server_cli.usage_error_exit_2 ($args)" test "$rc" -eq 2
	done
	check lava.server_cli.help "$here/kernel/lava-server.sh" --help
}

if "$py" -c 'import lava_common.schemas, voluptuous, yaml' 2>/dev/null; then
	schema_tests
elif [ "${CI:-}" = true ]; then
	tap_not_ok lava.schema "lava-common is missing in CI (scripts/bootstrap.sh ci installs it)"
else
	tap_skip lava.schema "no lava-common for $py (apt-get install lava-common python3-voluptuous)"
fi
parser_tests
parse_tests
names_tests
params_tests
bench_tests
report_tests
if "$py" -c 'import yaml' 2>/dev/null; then
	log_tests
	job_error_tests
	hostile_tests
	export_tests
	import_tests
else
	tap_skip lava.results "no python3-yaml for $py"
fi
cli_tests
tap_done
