#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# House style gates: checkpatch.pl (from the linux-source package, never
# copied here) on every C file, shellcheck on every shell file, and a
# -Werror build with gcc (clang's is tests/sanitize_test.sh's ASan build).
# Any finding fails.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
cd "$here" || exit 1
ksft=${KSFT_CACHE:-${BINDLAB_CACHE:-$HOME/.cache/bindlab}/ksft}
checkpatch=$ksft/scripts/checkpatch.pl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

c_files=$(git ls-files '*.c' '*.h' 2>/dev/null)
sh_files=$(git ls-files '*.sh' .ci/run 2>/dev/null)
# Untracked files count too: a gate must see what is about to be committed.
c_files="$c_files $(git ls-files --others --exclude-standard '*.c' '*.h' 2>/dev/null)"
sh_files="$sh_files $(git ls-files --others --exclude-standard '*.sh' 2>/dev/null)"

if [ -f "$checkpatch" ]; then
	# One checkpatch over all files (one perl start, not one a file).
	# CHECK-level notes are advice; ERROR and WARNING are findings.
	# shellcheck disable=SC2086 # the lists are git's, split on purpose
	perl "$checkpatch" --no-tree --terse --show-types -f $c_files >"$tmp/cp" 2>&1
	rc=$?
	n=$(grep -cE ': (ERROR|WARNING):' "$tmp/cp")
	# Its exit says whether it found anything: 0 with no finding or 1
	# with one, else it did not run as it should (and nothing passes).
	if { [ $rc -eq 0 ] && [ "$n" -eq 0 ]; } || { [ $rc -eq 1 ] && [ "$n" -gt 0 ]; }; then
		tap_ok "checkpatch ran on every C file (exit $rc, $n findings)"
	else
		tap_not_ok "checkpatch ran on every C file" "exit $rc, $n findings" "$(tail -n 5 "$tmp/cp")"
	fi
	for f in $c_files; do
		if grep -E "^$f:[0-9]+: (ERROR|WARNING):" "$tmp/cp" >"$tmp/cp.f"; then
			tap_not_ok "checkpatch $f" "$(head -n 10 "$tmp/cp.f")"
		else
			tap_ok "checkpatch $f"
		fi
	done
else
	tap_not_ok "checkpatch.pl available" "missing $checkpatch (make unpacks it)"
fi

if command -v shellcheck >/dev/null; then
	for f in $sh_files; do
		if shellcheck -x "$f" >"$tmp/sc" 2>&1; then
			tap_ok "shellcheck $f"
		else
			tap_not_ok "shellcheck $f" "$(head -n 10 "$tmp/sc")"
		fi
	done
else
	tap_not_ok "shellcheck available" "apt-get install shellcheck"
fi

# The -Werror build in a scratch output directory.
mkdir -p "$tmp/gcc/lib" "$tmp/gcc/tests"
if make -s -C "$here" OUTPUT="$tmp/gcc" CC=gcc BINDLAB_WERROR=1 all "$tmp/gcc/tests/lib_test" \
	>"$tmp/build.log" 2>&1; then
	tap_ok "build with gcc -Wall -Wextra -Werror"
else
	tap_not_ok "build with gcc -Wall -Wextra -Werror" "$(grep -m 10 -E 'error|warning' "$tmp/build.log")"
fi

tap_done
