#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Any locale gives the C locale's numbers and verdicts. The same inputs
# go through bisect's verdict on a case (median 4.7 ms against a 4.5 ms
# threshold: bad), ab's comparison, mutate's table summary, run.sh cases
# and compare, once under LC_ALL=C and then under a decimal comma
# (de_DE: "4.7" read as 4 turns that bisect step good) and a Turkish
# alphabet (tr_TR: [a-z] without i refuses the case table), whole or
# LC_NUMERIC alone; each output and exit must be C's. The locales are
# made with localedef into this test's own directory (LOCPATH), so the
# host's locale archive is untouched; SKIP when they cannot be made.
# bisect and ab run on the fakes of tests/lab_fakes.sh; ab also on a
# result of another case, which it must refuse (exit 2). TAP.

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/lab_fakes.sh
. "$here/tests/lab_fakes.sh"
# shellcheck source=tests/craft.sh
. "$here/tests/craft.sh"

lab_fake_start locale bindlab_results
export LOCPATH=$FAKE/loc
mkdir -p "$LOCPATH"
for l in de_DE tr_TR; do
	localedef -i "$l" -f UTF-8 "$LOCPATH/$l.UTF-8" > /dev/null 2>&1
done
# Only locales that really read a comma and drop the i can fail the test.
if [ "$(LC_ALL=de_DE.UTF-8 locale decimal_point 2> /dev/null)" != , ] ||
	LC_ALL=tr_TR.UTF-8 bash -c '[[ i =~ ^[a-z]$ ]]' 2> /dev/null; then
	tap_skip locale "cannot make the de_DE and tr_TR locales (localedef, package locales)"
	tap_done
	exit
fi

# The inputs. A case result of median 4.7 ms; the two sides of ab and of
# compare, 4.6..4.8 ms against 9.1..9.5 ms. Each carries the case id its
# program gives the command bisect and ab run (-n 50; or ID): they refuse
# a result of another case.
result() {
	local id=${3:-$(BINDLAB_CHECK_ARGS=id "$here/bind_bench" reuseaddr same 50)}

	python3 - "$here/tests/lava/bind_bench-result.json" "$1" "$2" "$id" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = [float(x) for x in sys.argv[3].split(",")]
r["case"] = sys.argv[4]
r["metric"]["samples"] = s
for rd, v in zip(r["rounds"], s):
    rd["total_ns"] = int(v * 1e6)
json.dump(r, open(sys.argv[2], "w"))
PY
}
c=bind_fastreuse.v4_reuseaddr_same.total_ms
mkdir -p "$FAKE/a" "$FAKE/b" "$FAKE/foreign"
result "$FAKE/a/$c.json" 4.6,4.7,4.8
result "$FAKE/b/$c.json" 9.1,9.5,9.3
result "$FAKE/foreign/$c.json" 4.6,4.7,4.8 "$(BINDLAB_CHECK_ARGS=id "$here/bind_bench" reuseport same 50)"
craft "$FAKE/before.json" 0.1.0 2 "$c:total_ms:lower:4000:4.61,4.72,4.68,4.70,4.66"
craft "$FAKE/after.json" 0.1.0 2 "$c:total_ms:lower:4000:9.13,9.52,9.31,9.40,9.27"
fake_tree "$FAKE/tree"
# shellcheck disable=SC2086 # the program names, one word each
fake_collection "$FAKE/coll" $progs
fake_qemu "$FAKE/bin"
echo fake-bzImage > "$FAKE/bzImage"

# in_locale VAR=VALUE... CMD...: CMD with the caller's locale as only
# those variables.
in_locale() {
	env -u LC_ALL -u LANG -u LANGUAGE -u LC_CTYPE -u LC_NUMERIC -u LC_COLLATE \
		-u LC_MESSAGES "$@"
}

# outputs NAME VAR=VALUE...: each tool's exit and output in that locale,
# the paths of this run made generic.
outputs() {
	local o=$FAKE/$1 rc

	shift
	mkdir -p "$o"
	rc=0
	(cd "$FAKE/tree" && in_locale "$@" PATH="$FAKE/bin:$PATH" BINDLAB_CACHE="$o/cache" \
		FAKE_QEMU="case:$FAKE/a/$c.json" timeout 120 "$here/kernel/bisect.sh" \
		-a tcg -C "$FAKE/coll" --case "$c" -n 50 --threshold 4.5) \
		> /dev/null 2> "$o/bisect.err" || rc=$?
	echo "bisect exit $rc"
	grep -o "$c: median.*" "$o/bisect.err"
	rc=0
	in_locale "$@" PATH="$FAKE/bin:$PATH" BINDLAB_CACHE="$o/cache" \
		FAKE_QEMU="case:$FAKE/a,case:$FAKE/b" FAKE_QEMU_COUNT="$o/boots" timeout 120 \
		"$here/kernel/ab.sh" -a tcg -C "$FAKE/coll" -B 1 -r 3 -n 50 -c "$c" \
		-o "$o/ab" "$FAKE/bzImage" "$FAKE/bzImage" > "$o/ab.out" 2>&1 || rc=$?
	echo "ab exit $rc"
	# The comparison; not the lab's progress lines, with their seconds,
	# nor the host's load of the moment (each boot's run file records
	# it), masked in its C form only: a number in another form differs.
	grep -v '^\(ab\|vm\)\.sh: ' "$o/ab.out" |
		sed -E 's#up to [0-9]+\.[0-9] runnable#up to L runnable#
			s#load [0-9]+\.[0-9]/CPU: < [0-9]+(\.[0-9]+)?(e\+[0-9]+)?x#load L/CPU: < Fx#'
	rc=0
	in_locale "$@" python3 "$here/kernel/mutants.py" summary \
		"$here/kernel/mutation/table-6.12.json" > "$o/mutate.out" 2>&1 || rc=$?
	echo "mutate exit $rc"
	cat "$o/mutate.out"
	rc=0
	in_locale "$@" "$here/run.sh" cases > "$o/cases.out" 2>&1 || rc=$?
	echo "cases exit $rc"
	cat "$o/cases.out"
	rc=0
	in_locale "$@" "$here/run.sh" compare "$FAKE/before.json" "$FAKE/after.json" \
		> "$o/compare.out" 2>&1 || rc=$?
	echo "compare exit $rc"
	cat "$o/compare.out"
}

outputs C LC_ALL=C > "$FAKE/C.out"
if grep -qx 'bisect exit 1' "$FAKE/C.out" && grep -q "median 4.700 ms" "$FAKE/C.out"; then
	tap_ok "locale.C: bisect says bad for a 4.7 ms median over 4.5"
else
	tap_not_ok "locale.C: bisect says bad for a 4.7 ms median over 4.5" \
		"$(head -n 5 "$FAKE/C.out")" "$(tail -n 3 "$FAKE/C/bisect.err")"
fi
for tool in ab mutate cases compare; do
	if grep -qx "$tool exit [01]" "$FAKE/C.out"; then
		tap_ok "locale.C: $tool ran"
	else
		tap_not_ok "locale.C: $tool ran" "$(grep "^$tool exit" "$FAKE/C.out")"
	fi
done
# A boot whose result file is another case's (reuseport for reuseaddr):
# the harness's error (2), never a comparison of that case.
rc=0
LC_ALL=C PATH="$FAKE/bin:$PATH" BINDLAB_CACHE="$FAKE/foreign-cache" FAKE_QEMU="case:$FAKE/foreign" \
	timeout 120 "$here/kernel/ab.sh" -a tcg -C "$FAKE/coll" -B 1 -r 3 -n 50 -c "$c" \
	-o "$FAKE/foreign-ab" "$FAKE/bzImage" "$FAKE/bzImage" > "$FAKE/foreign-ab.out" 2>&1 || rc=$?
if [ "$rc" = 2 ] && grep -q 'reuseport\.same\.v4\.port\.n50, not the bind_bench\.reuseaddr' "$FAKE/foreign-ab.out"; then
	tap_ok "locale.C: ab refuses a result of another case (exit 2)"
else
	tap_not_ok "locale.C: ab refuses a result of another case (exit $rc, want 2)" \
		"$(tail -n 3 "$FAKE/foreign-ab.out")"
fi
for loc in LC_ALL=de_DE.UTF-8 LC_ALL=tr_TR.UTF-8 "LANG=C LC_NUMERIC=de_DE.UTF-8"; do
	name=${loc##* }
	name=${name/=/_}
	# shellcheck disable=SC2086 # one or two assignments
	outputs "$name" $loc > "$FAKE/$name.out"
	if diff -u "$FAKE/C.out" "$FAKE/$name.out" > "$FAKE/$name.diff"; then
		tap_ok "locale.$name: the C locale's verdicts and outputs"
	else
		tap_not_ok "locale.$name: the C locale's verdicts and outputs" \
			"$(head -n 20 "$FAKE/$name.diff")"
	fi
done
tap_done
