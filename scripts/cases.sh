# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The one reader of the case table (the file `cases` at the top of the
# repo): run.sh, kernel/ab.sh, kernel/bisect.sh, the kernel lab and the
# tests source this file, none reads the table itself. Sourced, never run.
#
#   bl_cases_load                 read and check the table ($BL_CASES_FILE,
#                                 default ./cases); 1 on a bad row
#   BL_CASE_NAMES                 the case names, in table order
#   bl_case_known NAME            true when NAME is a case of the table
#   bl_case_field NAME FIELD      unit, better, verdict, n, full_n, command
#   bl_case_argv NAME N ROUNDS JSON   the command as the array BL_CASE_ARGV
#   bl_case_command NAME N ROUNDS JSON  the same, one shell-quoted line
#                                 (for a VM's script)
#   bl_case_decl NAME             "NAME UNIT BETTER VERDICT", what
#                                 bindlab_results merge --case takes
#   bl_case_decls NAME...         those as BL_CASE_DECLS, --case each
# N "" means the table's N, ROUNDS "" the main job's 5.

BL_CASES_DEFAULT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/cases
BL_CASES_FILE=${BL_CASES_FILE:-$BL_CASES_DEFAULT}
BL_CASE_NAMES=()
BL_CASE_ARGV=()
BL_CASE_DECLS=()
declare -gA BL_CASE_ROW=()

# Case names, README "Case names": FIXTURE.VARIANT.MEASURE, lower-case
# words of [a-z0-9_], each starting with a letter or digit.
BL_CASE_NAME_RE='^[a-z][a-z0-9_]*\.[a-z0-9][a-z0-9_]*\.[a-z][a-z0-9_]*$'

# The table is read by programs of the suite; a bad row is their usage
# error, so it names the program (README: one line, "PROG: ..."). Words
# of the row reach the terminal: control characters are shown as ^X, so
# the error stays one line and cannot drive the terminal.
bl_case_bad()
{
	local msg="$BL_CASES_FILE:$1: $2"

	# The whole file: say where its name came from, when not ours.
	[ "$1" != 0 ] || [ "$BL_CASES_FILE" = "$BL_CASES_DEFAULT" ] ||
		msg="BL_CASES_FILE=$BL_CASES_FILE: $2"

	printf '%s: %s\n' "${BL_PROG:-${0##*/}}" "$(printf '%s' "$msg" | cat -v | tr -d '\n')" >&2
	return 1
}

# The table is a few rows: a file over this is not one (and a huge one
# would keep every reader in its read loop).
BL_CASES_MAX_BYTES=65536

# bl_case_check LINE NAME UNIT BETTER VERDICT N FULL_N COMMAND...: one row.
bl_case_check()
{
	local line=$1 name=$2 unit=$3 better=$4 verdict=$5 n=$6 full=$7 w json=0

	shift 7
	[[ $name =~ $BL_CASE_NAME_RE ]] ||
		bl_case_bad "$line" "case name '$name' is not FIXTURE.VARIANT.MEASURE" || return
	[ -z "${BL_CASE_ROW[$name.unit]+x}" ] ||
		bl_case_bad "$line" "case $name twice" || return
	[[ $unit =~ ^[A-Za-z%/]{1,15}$ ]] ||
		bl_case_bad "$line" "unit '$unit' is not 1-15 letters, % or /" || return
	[[ $better =~ ^(lower|higher)$ ]] ||
		bl_case_bad "$line" "better '$better' is neither lower nor higher" || return
	[[ $verdict =~ ^(program|none)$ ]] ||
		bl_case_bad "$line" "verdict '$verdict' is neither program nor none" || return
	[[ $n =~ ^[1-9][0-9]{0,6}$ && $full =~ ^[1-9][0-9]{0,6}$ ]] ||
		bl_case_bad "$line" "N and FULL_N must be whole numbers 1..9999999" || return
	[ $# -gt 0 ] && [[ $1 =~ ^[a-z][a-z0-9_]*$ ]] ||
		bl_case_bad "$line" "no program name in the command" || return
	for w in "$@"; do
		[ "$w" != "{JSON}" ] || json=$((json + 1))
		[[ $w != *[{}]* || $w =~ ^\{(N|ROUNDS|JSON)\}$ ]] ||
			bl_case_bad "$line" "'$w': the placeholders are {N}, {ROUNDS} and {JSON}" || return
	done
	[ $json -eq 1 ] || bl_case_bad "$line" "the command needs {JSON} once" || return
}

bl_cases_load()
{
	local file=$BL_CASES_FILE line=0 name unit better verdict n full rest
	local -a words

	BL_CASE_NAMES=()
	BL_CASE_ROW=()
	[ -f "$file" ] && [ -r "$file" ] || bl_case_bad 0 "cannot read the case table" || return
	[ "$(stat -c %s -- "$file")" -le "$BL_CASES_MAX_BYTES" ] ||
		bl_case_bad 0 "more than $BL_CASES_MAX_BYTES bytes: not a case table" || return
	# read drops NUL bytes silently: a table with one is not the table.
	[ "$(tr -d '\000' < "$file" | wc -c)" -eq "$(stat -c %s -- "$file")" ] ||
		bl_case_bad 0 "a NUL byte: not a case table" || return
	while IFS= read -r rest || [ -n "$rest" ]; do
		line=$((line + 1))
		[[ $rest =~ ^[[:space:]]*(#|$) ]] && continue
		# A CR (a table saved with CRLF) would end the command's last
		# word and show raw in ./run.sh cases: no tab-free control byte.
		[[ ${rest//$'\t'/} != *[[:cntrl:]]* ]] ||
			bl_case_bad "$line" "a control character (a CRLF line end?): not a case table" || return
		read -ra words <<< "$rest"
		[ ${#words[@]} -ge 8 ] ||
			bl_case_bad "$line" "want NAME UNIT BETTER VERDICT N FULL_N COMMAND..." || return
		bl_case_check "$line" "${words[@]}" || return
		name=${words[0]} unit=${words[1]} better=${words[2]} verdict=${words[3]}
		n=${words[4]} full=${words[5]}
		BL_CASE_NAMES+=("$name")
		BL_CASE_ROW[$name.unit]=$unit
		BL_CASE_ROW[$name.better]=$better
		BL_CASE_ROW[$name.verdict]=$verdict
		BL_CASE_ROW[$name.n]=$n
		BL_CASE_ROW[$name.full_n]=$full
		BL_CASE_ROW[$name.command]=${words[*]:6}
	done < "$file"
	[ ${#BL_CASE_NAMES[@]} -gt 0 ] || bl_case_bad "$line" "no case in the table" || return
}

bl_case_known()
{
	[ -n "${1:-}" ] && [ -n "${BL_CASE_ROW[$1.unit]+x}" ]
}

# bl_case_need NAME: bl_case_known, or say so on stderr.
bl_case_need()
{
	bl_case_known "$1" && return
	echo "${BL_PROG:-${0##*/}}: no case '$(printf '%s' "$1" | cat -v | tr -d '\n')' in $BL_CASES_FILE" >&2
	return 1
}

bl_case_field()
{
	bl_case_need "$1" || return
	printf '%s\n' "${BL_CASE_ROW[$1.$2]}"
}

bl_case_argv()
{
	local name=$1 n=${2:-} rounds=${3:-} json=$4 w
	local -a words

	bl_case_need "$name" || return
	[ -n "$n" ] || n=${BL_CASE_ROW[$name.n]}
	[ -n "$rounds" ] || rounds=5
	BL_CASE_ARGV=()
	read -ra words <<< "${BL_CASE_ROW[$name.command]}"
	for w in "${words[@]}"; do
		case $w in
		"{N}") w=$n ;;
		"{ROUNDS}") w=$rounds ;;
		"{JSON}") w=$json ;;
		esac
		BL_CASE_ARGV+=("$w")
	done
}

bl_case_command()
{
	bl_case_argv "$@" || return
	printf '%q ' "${BL_CASE_ARGV[@]}" | sed 's/ $//'
	echo
}

bl_case_decl()
{
	bl_case_need "$1" || return
	printf '%s %s %s %s\n' "$1" "${BL_CASE_ROW[$1.unit]}" \
		"${BL_CASE_ROW[$1.better]}" "${BL_CASE_ROW[$1.verdict]}"
}

bl_case_decls()
{
	local name decl

	BL_CASE_DECLS=()
	for name in "$@"; do
		decl=$(bl_case_decl "$name") || return
		BL_CASE_DECLS+=(--case "$decl")
	done
}

# bl_case_check_args NAME N ROUNDS: the case's program checks its own
# command line (BINDLAB_CHECK_ARGS=id runs nothing), so that what a
# caller accepts is what it will run; on success, the case id its result
# will carry on stdout (a result of another case is no result of this
# one: bindlab_results median --case); on a refusal, the program's
# one-line error on stdout and 1.
bl_case_check_args()
{
	local out dir

	dir=${BL_CASE_BINDIR:-$(dirname "$BL_CASES_FILE")}
	bl_case_argv "$1" "$2" "$3" check.json 2>&1 || return
	[ -x "$dir/${BL_CASE_ARGV[0]}" ] ||
		{ echo "$dir/${BL_CASE_ARGV[0]} is not built (make -C $dir)"; return 1; }
	# The id comes only once the line is accepted: the error, or the id.
	out=$(BINDLAB_CHECK_ARGS=id "$dir/${BL_CASE_ARGV[0]}" "${BL_CASE_ARGV[@]:1}" 2>&1) &&
		[ -n "$out" ] && { printf '%s\n' "$out"; return 0; }
	printf '%s\n' "${out:-${BL_CASE_ARGV[0]} named no case id}" | head -n 1
	return 1
}
