#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Functions fit on a screen: print FILE:FUNC:LINES for every C function
# (TEST, TEST_F, FIXTURE_SETUP and FIXTURE_TEARDOWN bodies included) whose
# body, from its opening to its closing brace, is longer than the limit.
#   func-length.sh [-l LIMIT] [-a ALLOW] [FILE...]
# Without FILEs: every C file git knows in the tree, untracked ones too.
# ALLOW lists FILE:FUNC lines that may still be longer (a debt, named).
# Exit 1 when a function not in ALLOW is too long, else 0.
set -u
# shellcheck source=scripts/strict.sh
. "$(dirname "$0")/strict.sh"
limit=60
allow=/dev/null
usage() {
	echo "usage: $0 [-l LIMIT] [-a ALLOW] [FILE...]" >&2
	exit 2
}
while getopts l:a: opt; do
	case $opt in
	l) limit=$OPTARG ;;
	a) allow=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $limit =~ ^[0-9]+$ ]] || usage
[ -r "$allow" ] || { echo "func-length: cannot read $allow" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
if [ $# -eq 0 ]; then
	mapfile -t files < <({ git ls-files '*.c' '*.h'; git ls-files --others --exclude-standard '*.c' '*.h'; } | sort -u)
	set -- "${files[@]}"
fi

# Kernel style: a body opens with "{" alone in column 0 and closes with
# "}" in column 0. The name is the identifier before the signature's
# first "(". FIXTURE, FIXTURE_VARIANT and FIXTURE_VARIANT_ADD open data,
# not code; a TEST_F is named FIXTURE.TEST.
# shellcheck disable=SC2016 # awk's $0, not the shell's
awk -v limit="$limit" -v allow="$allow" '
BEGIN {
	while ((getline line < allow) > 0)
		if (line !~ /^#/ && line != "")
			allowed[line] = 1
	bad = 0
}
FNR == 1 { sig = ""; name = ""; start = 0 }
start == 0 && /^[A-Za-z_]/ { sig = $0 }
start == 0 && /^[ \t]+[^ \t]/ && sig != "" { sig = sig " " $0 }
start == 0 && /^$/ { sig = "" }
start == 0 && /^\{$/ {
	s = sig
	if (s ~ /^(FIXTURE|FIXTURE_VARIANT|FIXTURE_VARIANT_ADD)\(/ || s !~ /\(/) {
		start = -1
		next
	}
	if (s ~ /^(TEST_F|TEST|FIXTURE_SETUP|FIXTURE_TEARDOWN)\(/) {
		kind = substr(s, 1, index(s, "(") - 1)
		args = substr(s, index(s, "(") + 1)
		sub(/\).*/, "", args)
		gsub(/[ \t]/, "", args)
		gsub(/,/, ".", args)
		name = (kind == "TEST_F" || kind == "TEST") ? args : kind "(" args ")"
	} else {
		name = substr(s, 1, index(s, "(") - 1)
		sub(/.*[ \t*]/, "", name)
	}
	start = FNR
	next
}
start == -1 && /^\}/ { start = 0; sig = ""; next }
start > 0 && /^\}/ {
	n = FNR - start + 1
	if (n > limit) {
		key = FILENAME ":" name
		if (key in allowed)
			printf "%s:%d (allowed: tests/func_length_allow)\n", key, n
		else {
			printf "%s:%d\n", key, n
			bad++
		}
	}
	start = 0
	sig = ""
}
END { exit bad ? 1 : 0 }
' "$@"
