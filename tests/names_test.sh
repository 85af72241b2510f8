#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Names are API. Every case of the table (./cases) follows the grammar
# FIXTURE.VARIANT.MEASURE with the fixture and variant of a kselftest
# that exists; every test or case name README.md and docs/*.md show
# exists (the kselftests' -l lists, the table); a bad table row stops
# the reader. BINDLAB_README: one document to read instead.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=scripts/cases.sh
. "$here/scripts/cases.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BINDLAB_README:-}" ]; then
	readme=("$BINDLAB_README")
else
	readme=("$here/README.md" "$here"/docs/*.md)
fi

# full_names PROG: its test names, by the host's one reader of -l.
full_names() {
	"$here/$1" -l 2>&1 | python3 "$here/tests/test_names.py"
}

make -s -C "$here" >/dev/null || { tap_not_ok "build"; tap_done; exit; }
progs=$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)
for p in $progs; do
	full_names "$p" | sed "s/^/$p /" >>"$tmp/tests"
done
if [ -s "$tmp/tests" ] && grep -q ' bind_fastreuse\.v4_reuseaddr_same\.growth$' "$tmp/tests" &&
	grep -q ' global\.tw_reuse_default_is_2$' "$tmp/tests"; then
	tap_ok "kselftest names: $(wc -l <"$tmp/tests") from -l of $progs"
else
	tap_not_ok "kselftest names from -l" "$(head -n 5 "$tmp/tests")"
fi
cut -d ' ' -f 2 "$tmp/tests" >"$tmp/known"

# The table: each name's grammar and its kselftest fixture.variant.
if bl_cases_load; then
	tap_ok "the case table loads: ${#BL_CASE_NAMES[@]} cases"
else
	tap_not_ok "the case table loads"
fi
for name in "${BL_CASE_NAMES[@]}"; do
	fv=${name%.*}
	if [[ $name =~ $BL_CASE_NAME_RE ]] && grep -qF "$fv." "$tmp/known"; then
		tap_ok "case $name: FIXTURE.VARIANT.MEASURE of the kselftest $(grep -F " $fv." "$tmp/tests" | head -n 1 | cut -d ' ' -f 1)"
	else
		tap_not_ok "case $name: FIXTURE.VARIANT.MEASURE of an existing kselftest fixture.variant"
	fi
	printf '%s\n' "$name" >>"$tmp/known"
done

# The documents: every name that starts with a kselftest fixture, a
# program and a dot, or that is a case of the table, must exist (one a
# program names, in that program); globs must match one, and an
# upper-case word (bind_model.ADDR.random) stands for any. File names
# (bind_bench.c) are not test names. A program may share its fixture's
# name (bind_fastreuse): PROG. is a program only before a fixture.
fixtures=$(cut -d ' ' -f 2 "$tmp/tests" | cut -d . -f 1 | sort -u | paste -sd '|')
prog_re=$(echo "$progs" | tr ' ' '|')
# The companion's entry for a program's KTAP plan is PROG.ktap.plan.
cat "$tmp/tests" >>"$tmp/known"
for p in $progs; do
	echo "$p.ktap.plan" >>"$tmp/known"
done
grep -ohE "\b($prog_re|bind_bench)(\.[A-Za-z0-9_*]+)+|\b($fixtures)(\.[A-Za-z0-9_*]+)+" "${readme[@]}" |
	grep -vE '\.(c|h|sh|json|py|md|txt|ktap|patch)$' |
	sed -E 's/\.[A-Z][A-Z0-9_]*/.*/g' |
	sed -E "s/^($prog_re)\.(($fixtures)\.)/\1 \2/" | sort -u >"$tmp/shown"
stale=()
while read -r n; do
	case $n in
	*'*'*)
		# A glob names no test unless it matches one.
		while read -r k; do
			# shellcheck disable=SC2053 # n is a glob on purpose
			[[ $k == $n ]] && continue 2
		done <"$tmp/known"
		stale+=("$n") ;;
	*) grep -qxF "$n" "$tmp/known" || stale+=("$n") ;;
	esac
done <"$tmp/shown"
if [ "$(wc -l <"$tmp/shown")" -ge 5 ] && [ ${#stale[@]} -eq 0 ]; then
	tap_ok "README.md, docs/: the $(wc -l <"$tmp/shown") test and case names they show exist"
else
	tap_not_ok "README.md, docs/: every test and case name they show exists" \
		"$(wc -l <"$tmp/shown") shown; no such test or case: ${stale[*]}"
fi

# A bad row stops every reader: one line naming the row, status 1.
bad_row() {
	local what=$1 row=$2
	{ grep -v '^[a-z]' "$BL_CASES_FILE"; printf '%s\n' "$row"; } >"$tmp/cases.bad"
	if (BL_CASES_FILE=$tmp/cases.bad; bl_cases_load) 2>"$tmp/err"; then
		tap_not_ok "a bad row is refused: $what" "loaded: $row"
	elif grep -q "cases.bad:[0-9]*: " "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
		tap_ok "a bad row is refused: $what"
	else
		tap_not_ok "a bad row is refused with one line: $what" "$(cat "$tmp/err")"
	fi
}
good='bind_fastreuse.v4_reuseaddr_same.total_ms	ms	lower	program	4000	16000	bind_bench -q -r {ROUNDS} --json {JSON} reuseaddr same {N}'
bad_row "a name of two words" "${good/v4_reuseaddr_same./}"
bad_row "an upper-case name" "${good/v4_reuseaddr/V4_reuseaddr}"
bad_row "the same case twice" "$good"$'\n'"$good"
bad_row "an unknown direction" "${good/lower/smaller}"
bad_row "an unknown verdict kind" "${good/program/judge}"
bad_row "a size that is no number" "${good/16000/16k}"
bad_row "no {JSON} in the command" "${good/--json \{JSON\} /}"
bad_row "an unknown placeholder" "${good/\{ROUNDS\}/\{R\}}"
bad_row "a missing column" "${good/ms	lower/lower}"
bad_row "a unit with a blank in it" "${good/	ms	/	m s	}"
# A CRLF line end: "20\r" would be the command's last word.
bad_row "a CRLF line end" "$good -b 20"$'\r'
bad_row "an escape in the command" "${good/ -q / -q $'\e'[2J }"
printf '# only comments\n' >"$tmp/cases.empty"
if (BL_CASES_FILE=$tmp/cases.empty; bl_cases_load) 2>/dev/null; then
	tap_not_ok "an empty table is refused"
else
	tap_ok "an empty table is refused"
fi

tap_done
