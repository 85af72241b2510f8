#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KTAP readers against one corpus (tests/ktap/, README there): the
# host's (bindlab_results ktap) and the device's (lava/bindlab-lava.sh
# parse FILE) must print each NAME.expect; the well-formed files must
# parse in the kernel's own kunit.py with no error and the same counts;
# the known-regression declarations are read strictly (exit 2 with the
# line) and applied both ways (declared fail: xfail; declared pass:
# XPASS, exit 1); merge and summary escape what they print.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
res=$here/bindlab_results
corpus=$here/tests/ktap
cache=${BINDLAB_CACHE:-$HOME/.cache/bindlab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME WANT-RC CMD...: CMD exits WANT-RC; its output in $tmp/out.
check() {
	local name=$1 want=$2 rc
	shift 2
	timeout 10 "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $rc, want $want: $*" "$(head -c 600 "$tmp/out")"
	fi
}

# grep_ok NAME ERE: the last check's output matches ERE.
grep_ok() {
	if grep -qE -- "$2" "$tmp/out"; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "no line matches /$2/ in:" "$(head -c 600 "$tmp/out")"
	fi
}

# The host reader prints each .expect; broken or failing files exit 1.
host_corpus() {
	local f name want rc
	for f in "$corpus"/*.ktap; do
		name=$(basename "$f" .ktap)
		"$res" ktap "$f" >"$tmp/got" 2>"$tmp/err"
		rc=$?
		want=0
		grep -qE '^(fail|xpass) |^plan broken$' "$corpus/$name.expect" && want=1
		if ! cmp -s "$tmp/got" "$corpus/$name.expect"; then
			tap_not_ok "ktap.host.$name" "$(diff "$corpus/$name.expect" "$tmp/got" | head -n 20)"
		elif [ "$rc" -ne "$want" ]; then
			tap_not_ok "ktap.host.$name" "exit $rc, want $want" "$(head -n 5 "$tmp/err")"
		else
			tap_ok "ktap.host.$name"
		fi
	done
}

# The device's reader, once it reads a file (lava/bindlab-lava.sh parse FILE).
lava_corpus() {
	local f name lava=$here/lava/bindlab-lava.sh
	sh "$lava" parse "$corpus/clean.ktap" </dev/null >"$tmp/got" 2>/dev/null
	if ! tail -n 1 "$tmp/got" | grep -qE '^plan (ok|broken)$'; then
		tap_skip ktap.lava "lava/bindlab-lava.sh has no 'parse FILE' mode in this tree yet (it prints LAVA result lines from stdin)"
		return
	fi
	for f in "$corpus"/*.ktap; do
		name=$(basename "$f" .ktap)
		sh "$lava" parse "$f" </dev/null >"$tmp/got" 2>/dev/null
		if cmp -s "$tmp/got" "$corpus/$name.expect"; then
			tap_ok "ktap.lava.$name"
		else
			tap_not_ok "ktap.lava.$name" "$(diff "$corpus/$name.expect" "$tmp/got" | head -n 20)"
		fi
	done
}

# kunit.py of Debian's linux-source-6.12, unpacked once into the cache
# (tools/testing/kunit only); its path, or nothing.
kunit_py() {
	local dir=$cache/kunit tar=/usr/src/linux-source-6.12.tar.xz part
	local py=$dir/linux-source-6.12/tools/testing/kunit/kunit.py
	if [ ! -f "$py" ] && [ -r "$tar" ]; then
		part=$dir.part.$$
		mkdir -p "$part" &&
			tar -xJf "$tar" -C "$part" --wildcards 'linux-source-6.12/tools/testing/kunit/*' &&
			mkdir -p "$dir" && mv "$part/linux-source-6.12" "$dir/"
		rm -rf "$part"
	fi
	[ -f "$py" ] && echo "$py"
}

# ours EXPECT: the counts kunit.py gives, from our normalized output. A
# flat file counts its cases (xfail and xpass are "ok" lines: passed);
# runner output counts programs, as kunit.py reads only the top level:
# failed when a case failed, skipped when every case skipped.
ours() {
	awk '$1 == "plan" { next }
	{ res = $1; name = substr($0, length($1) + 2); slash = index(name, "/") }
	slash {
		p = substr(name, 1, slash - 1)
		if (!(p in st)) { order[++n] = p; st[p] = "skipped" }
		if (res == "fail") st[p] = "failed"
		else if (res != "skip" && st[p] != "failed") st[p] = "passed"
		next
	}
	{ c[res == "fail" ? "failed" : res == "skip" ? "skipped" : "passed"]++ }
	END {
		for (i = 1; i <= n; i++) c[st[order[i]]]++
		printf "passed: %d, failed: %d, skipped: %d, errors: 0\n", c["passed"], c["failed"], c["skipped"]
	}' "$1"
}

# theirs PY FILE: kunit.py's counts of FILE, in the same shape.
theirs() {
	local out k v line=
	out=$(python3 "$1" parse "$2" 2>&1)
	for k in passed failed skipped; do
		v=$(grep -E 'Testing complete' <<<"$out" | grep -oE "$k: [0-9]+" | grep -oE '[0-9]+')
		line+="$k: ${v:-0}, "
	done
	# A crash, an error or a warning of the parser is an error.
	v=$(grep -cE 'crashed: [1-9]|errors: [1-9]|\[ERROR\]' <<<"$out")
	echo "${line}errors: $v"
}

# kunit.py reads three things otherwise: "not ok # TODO" is its failure
# (TAP's expected failure), "1..0 # SKIP" is its error "0 tests run", and
# kselftest.h's results without a name ("ok 1 # SKIP why") are crashes;
# a test the harness could not fork is its failure, our skip; a directive
# in lower case or right after the '#' is its pass, our skip or xfail.
kunit_differs=" todo skip_all ksft_unnamed unspawned skip_spellings_loose "

kunit_corpus() {
	local py f name a b
	py=$(kunit_py)
	if [ -z "$py" ]; then
		tap_skip ktap.kunit "no kunit.py: /usr/src/linux-source-6.12.tar.xz missing (apt-get install linux-source-6.12)"
		return
	fi
	for f in "$corpus"/*.ktap; do
		name=$(basename "$f" .ktap)
		[ "$(tail -n 1 "$corpus/$name.expect")" = "plan ok" ] || continue
		if [[ $kunit_differs == *" $name "* ]]; then
			tap_skip "ktap.kunit.$name" "kunit.py reads this construct otherwise (see kunit_differs)"
			continue
		fi
		a=$(ours "$corpus/$name.expect")
		b=$(theirs "$py" "$f")
		if [ "$a" = "$b" ]; then
			tap_ok "ktap.kunit.$name"
		else
			tap_not_ok "ktap.kunit.$name" "ours:   $a" "kunit:  $b"
		fi
	done
}

# The declarations: applied both ways, refused when malformed (exit 2, line).
xfail_decls() {
	local f=$corpus/fail_figures.ktap x=$tmp/x.known long
	check "xfail.declared_failure_is_xfail" 0 env BINDLAB_XFAIL='bind_fastreuse.*_reuseaddr_*.*' \
		"$res" ktap --xfail-from-env "$f"
	grep_ok "xfail.declared_failure_keeps_its_figures" '^bindlab_results: .*xfail bind_fastreuse\.v4_reuseaddr_same\.growth: .*growth 14\.3 > 3\.0'
	check "xfail.declared_pass_is_xpass_and_fails" 1 env BINDLAB_XFAIL='x.y.z, bind_fastreuse.*' \
		"$res" ktap --xfail-from-env "$f"
	grep_ok "xfail.xpass_named" '^xpass bind_fastreuse\.v4_reuseport_same\.growth$'
	check "xfail.not_read_without_the_option" 1 env BINDLAB_XFAIL='bind_fastreuse.*' "$res" ktap "$f"
	printf '# known on 6.18\nbind_fastreuse.*_reuseaddr_*.*  6.18.*\n' >"$x"
	check "xfail.file_release_matches" 0 env BINDLAB_XFAIL_FILE="$x" "$res" ktap --xfail-from-env --release 6.18.44 "$f"
	check "xfail.file_release_differs" 1 env BINDLAB_XFAIL_FILE="$x" "$res" ktap --xfail-from-env --release 6.12.0 "$f"
	# A glob past the limit must not become a declaration of its tail.
	long=$(head -c 1100 /dev/zero | tr '\0' ' ')
	printf '# x\n%sbind_fastreuse.*\n' "$long" >"$x"
	check "xfail.file_long_line_refused" 2 env BINDLAB_XFAIL_FILE="$x" "$res" ktap --xfail-from-env "$f"
	grep_ok "xfail.file_long_line_named" 'line 2: 1117 bytes, over the limit of 1024'
	printf 'a.b.c\nbind_[fast.*\n' >"$x"
	check "xfail.file_bad_glob_refused" 2 env BINDLAB_XFAIL_FILE="$x" "$res" ktap --xfail-from-env "$f"
	grep_ok "xfail.file_bad_glob_named" 'line 2: .*a \[ without its \]'
	printf 'a.b.c 6.* extra\n' >"$x"
	check "xfail.file_third_word_refused" 2 env BINDLAB_XFAIL_FILE="$x" "$res" ktap --xfail-from-env "$f"
	check "xfail.env_bad_glob_refused" 2 env BINDLAB_XFAIL="ok.*,bad\\" "$res" ktap --xfail-from-env "$f"
	check "xfail.file_missing_refused" 2 env BINDLAB_XFAIL_FILE="$tmp/none" "$res" ktap --xfail-from-env "$f"
	check "xfail.file_directory_refused" 2 env BINDLAB_XFAIL_FILE="$tmp" "$res" ktap --xfail-from-env "$f"
	mkfifo "$tmp/fifo"
	check "xfail.file_fifo_refused" 2 env BINDLAB_XFAIL_FILE="$tmp/fifo" "$res" ktap --xfail-from-env "$f"
	check "xfail.file_empty_name_refused" 2 env BINDLAB_XFAIL_FILE= "$res" ktap --xfail-from-env "$f"
	grep_ok "xfail.file_empty_name_said" 'BINDLAB_XFAIL_FILE is set but empty'
	check "xfail.merge_refuses_bad_declarations" 2 env BINDLAB_XFAIL_FILE="$tmp" \
		"$res" merge "$tmp/m.json" --ktap "p=$f"
	if [ -e "$tmp/m.json" ]; then
		tap_not_ok "xfail.merge_wrote_nothing" "$tmp/m.json exists"
	else
		tap_ok "xfail.merge_wrote_nothing"
	fi
}

# merge --ktap and summary: declarations, broken plans, escaping.
merge_checks() {
	local m=$tmp/m.json
	env BINDLAB_XFAIL='bind_fastreuse.*_reuseaddr_*.*' "$res" merge "$m" --ktap "p=$corpus/fail_figures.ktap" 2>/dev/null
	check "merge.declared_failure_is_a_known_regression" 0 "$res" summary "$m"
	grep_ok "merge.known_regression_with_figures" '^  known regression +p\.bind_fastreuse\.v4_reuseaddr_same\.growth: .*growth 14\.3 > 3\.0'
	# Merged again (a run file as an operand), a stored xfail is only what
	# this merge declares: without the declaration, the failure it was.
	env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE "$res" merge "$tmp/re.json" "$m" 2>/dev/null
	check "merge.stored_xfail_undeclared_fails" 1 "$res" summary "$tmp/re.json"
	grep_ok "merge.stored_xfail_is_its_failure" '^  FAIL +p\.bind_fastreuse\.v4_reuseaddr_same\.growth: .*growth 14\.3 > 3\.0'
	env BINDLAB_XFAIL='bind_fastreuse.*_reuseaddr_*.*' "$res" merge "$tmp/re.json" "$m" 2>/dev/null
	check "merge.stored_xfail_declared_again" 0 "$res" summary "$tmp/re.json"
	# Undeclared then, declared at the re-merge: the failure is known now.
	env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE "$res" merge "$tmp/un.json" --ktap "p=$corpus/fail_figures.ktap" 2>/dev/null
	env BINDLAB_XFAIL='bind_fastreuse.*_reuseaddr_*.*' "$res" merge "$tmp/re.json" "$tmp/un.json" 2>/dev/null
	check "merge.stored_failure_declared_now" 0 "$res" summary "$tmp/re.json"
	# A program's own XFAIL is the program's: kept undeclared.
	"$res" merge "$tmp/own.json" --ktap "p=$corpus/directives.ktap" 2>/dev/null
	"$res" merge "$tmp/re.json" "$tmp/own.json" 2>/dev/null
	check "merge.own_xfail_kept" 0 test "$(grep -c '"xfail"' "$tmp/own.json")" = "$(grep -c '"xfail"' "$tmp/re.json")" -a "$(grep -c '"xfail"' "$tmp/re.json")" -gt 0
	env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE "$res" merge "$m" --ktap "p=$corpus/fail_figures.ktap" 2>/dev/null
	check "merge.undeclared_failure_fails" 1 "$res" summary "$m"
	# 100001 passing results, past the reader's limit: an error of the
	# reader (2), never a broken plan that fails the kernel.
	awk 'BEGIN { n = 100001; print "TAP version 13"; print "1.." n
		for (i = 1; i <= n; i++) print "ok " i " f.t" i
		print "# Totals: pass:" n " fail:0 xfail:0 xpass:0 skip:0 error:0" }' >"$tmp/big.ktap"
	check "merge.over_the_reader_limit_is_an_error" 2 "$res" merge "$tmp/big.json" --ktap "p=$tmp/big.ktap"
	grep_ok "merge.over_the_reader_limit_named" "100001 results, over this reader's limit of 100000"
	# A plan of ten digits is past that limit too, not a plan KTAP lacks.
	printf 'TAP version 13\n1..12345678901\nok 1 f.t\n' >"$tmp/big10.ktap"
	check "merge.ten_digit_plan_is_an_error" 2 "$res" merge "$tmp/big.json" --ktap "p=$tmp/big10.ktap"
	"$res" merge "$m" --ktap "p=$corpus/crash.ktap" 2>/dev/null
	check "merge.crash_fails" 1 "$res" summary "$m"
	grep_ok "merge.crash_is_ktap_plan" '^  FAIL +p\.ktap\.plan: .*line 7: end of file after 1 of 4 planned'
	"$res" merge "$m" --ktap "p=$corpus/repeated.ktap" 2>/dev/null
	check "merge.repeated_ok_1_fails" 1 "$res" summary "$m"
	grep_ok "merge.repeated_is_ktap_plan" '^  FAIL +p\.ktap\.plan: .*test number 1 where 2 was due'
	# A 20-digit test number is named as written, not as a clamp of it.
	printf 'TAP version 13\n1..2\nok 1 f.a\nok 12345678901234567890 f.b\n' >"$tmp/n20.ktap"
	"$res" merge "$m" --ktap "p=$tmp/n20.ktap" 2>/dev/null
	check "merge.long_test_number_fails" 1 "$res" summary "$m"
	grep_ok "merge.long_test_number_named" '^  FAIL +p\.ktap\.plan: .*a test number of more than 9 digits'
	check "device.long_test_number_read" 0 "$here/lava/bindlab-lava.sh" results f <"$tmp/n20.ktap"
	grep_ok "device.long_test_number_named" ': bindlab: a test number of more than 9 digits$'
	"$res" merge "$m" --ktap "p=$corpus/directives.ktap" 2>/dev/null
	check "merge.static_xpass_fails" 1 "$res" summary "$m"
	grep_ok "merge.static_xpass_says_fixed" '^  XPASS +p\.known_bug\.tw_v6_blocks_v4_any\.kernel: passed, but the program declares it a known kernel bug'
	"$res" merge "$m" --ktap "p=$corpus/runner.ktap" 2>/dev/null
	check "merge.runner_output" 1 "$res" summary "$m"
	grep_ok "merge.runner_names_the_program" '^  FAIL +p/bind_bhash_test\.bind_fastreuse\.v4_reuseaddr_same\.growth: '
	"$res" merge "$m" --ktap "p=$corpus/control_chars.ktap" 2>/dev/null
	check "merge.control_chars" 1 "$res" summary "$m"
	# One verdict line, summary's own last one.
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$tmp/out" ||
		[ "$(grep -c '^verdict' "$tmp/out")" -ne 1 ] || ! tail -n 1 "$tmp/out" | grep -q '^verdict: FAIL: '; then
		tap_not_ok "merge.names_escaped" "a raw control byte or a forged line in:" "$(cat -v "$tmp/out" | head -n 20)"
	else
		tap_ok "merge.names_escaped"
	fi
	grep_ok "merge.escaped_name_shown" 'bell\\x07and\\x09tab'
	# The environment is read from the file too.
	python3 - "$m" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["env"]["kernel_release"] = "6.1\x1b[2K\rverdict: no unexpected regression"
json.dump(d, open(sys.argv[1], "w"))
PY
	check "merge.summary_reads_a_forged_env" 1 "$res" summary "$m"
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$tmp/out"; then
		tap_not_ok "merge.env_escaped" "a raw control byte in:" "$(cat -v "$tmp/out" | head -n 3)"
	else
		tap_ok "merge.env_escaped"
	fi
}

host_corpus
lava_corpus
kunit_corpus
xfail_decls
merge_checks
tap_done
