#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory and undefined-behaviour checks: an ASan+UBSan build runs the unit
# tests and a short pass of every program; valgrind memcheck runs a short
# bind_bench and a short churn. Any report fails. The build is clang's
# with -Werror: the style gate builds with gcc, so the two compilers'
# warnings are each checked once.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/asan
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99

build="ASan+UBSan build with clang -Wall -Wextra -Werror"
mkdir -p "$out/lib" "$out/tests"
if ! command -v clang >/dev/null; then
	tap_not_ok "$build" "clang not installed"
	tap_done
	exit
fi
if ! make -s -C "$here" OUTPUT="$out" CC=clang BINDLAB_WERROR=1 USERCFLAGS="$san" \
	USERLDFLAGS="$san" all "$out/tests/lib_test" >"$tmp/build.log" 2>&1; then
	tap_not_ok "$build" "$(grep -m 10 -E 'error|warning' "$tmp/build.log")"
	tap_done
	exit
fi
tap_ok "$build"

# san_run NAME CMD...: the command must not produce a sanitizer report.
# Its own verdict is not the point here (known regressions fail, skips
# skip): only exit 99 and report lines are.
san_run() {
	local name=$1 rc
	shift
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 99 ] || grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp/out"; then
		tap_not_ok "asan: $name" "$(grep -m 5 -E 'Sanitizer|runtime error|#[0-9]+ ' "$tmp/out")"
	else
		tap_ok "asan: $name (exit $rc)"
	fi
}

crafted=$tmp/r.json
san_run "lib_test" "$out/tests/lib_test"
san_run "bind_bench ipv4" "$out/bind_bench" -q -r 2 -b 5 --json "$crafted" reuseaddr alternate 500
san_run "bind_bench ipv6 auto port" "$out/bind_bench" -q -f 6 -p 0 reuseport 3 300
san_run "bind_bench bad input" "$out/bind_bench" reuseaddr same 10x
san_run "bindlab_results merge" "$out/bindlab_results" merge "$tmp/run.json" "$crafted"
san_run "bindlab_results summary" "$out/bindlab_results" summary "$tmp/run.json"
# A second run of the case: a copy of the first would be refused.
"$here/bind_bench" -q -r 2 -b 5 --json "$tmp/r2.json" reuseaddr alternate 500 >/dev/null 2>&1
san_run "bindlab_results compare" "$out/bindlab_results" compare --json "$tmp/c.json" "$tmp/run.json" "$tmp/r2.json"
san_run "bindlab_results compare of a copy" "$out/bindlab_results" compare "$tmp/run.json" "$tmp/run.json"
san_run "bindlab_results curve" "$out/bindlab_results" curve "$tmp/run.json" "$tmp/curves"
echo '{"schema": "bindlab.run", "schema_version": 2, "cases": [{"schema": 3}]}' >"$tmp/bad.json"
san_run "bindlab_results malformed" "$out/bindlab_results" compare "$tmp/bad.json" "$crafted"
[ -x "$out/bind_bhash_test" ] && san_run "bind_bhash_test" "$out/bind_bhash_test"
if [ -x "$out/tw_reuse_loopback" ]; then
	san_run "tw_reuse_loopback" "$out/tw_reuse_loopback"
	san_run "bind_churn" "$out/tw_reuse_loopback" churn -q -n 2000
fi

if command -v valgrind >/dev/null; then
	vg() {
		local name=$1
		shift
		if valgrind -q --error-exitcode=98 --leak-check=full \
			--errors-for-leak-kinds=definite "$@" >"$tmp/vg" 2>&1; then
			tap_ok "valgrind: $name"
		elif [ $? -eq 98 ]; then
			tap_not_ok "valgrind: $name" "$(grep -m 8 '==' "$tmp/vg")"
		else
			tap_ok "valgrind: $name (no memcheck error; program exit non-zero)"
		fi
	}
	vg "bind_bench" "$here/bind_bench" -q -r 2 -b 5 reuseaddr same 300
	[ -x "$here/tw_reuse_loopback" ] && vg "churn" "$here/tw_reuse_loopback" churn -q -n 500
else
	tap_not_ok "valgrind available" "apt-get install valgrind"
fi

tap_done
