#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer (clang) on the command-line parsing of bind_bench and on the
# result-file reader used by compare: each target first replays its kept
# regression inputs, then fuzzes for BINDLAB_FUZZ_SECONDS (default 10)
# from the corpus in tests/fuzz/corpus. A crash fails and leaves its input
# under results/fuzz-crashes/ to be fixed and kept as a regression input.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
secs=${BINDLAB_FUZZ_SECONDS:-10}
ksft=${BINDLAB_CACHE:-$HOME/.cache/bindlab}/ksft/tools/testing/selftests

if ! command -v clang >/dev/null; then
	tap_not_ok "clang for libFuzzer" "apt-get install clang"
	tap_done
	exit
fi
# shellcheck disable=SC2207 # word splitting of compiler flags is wanted
flags=(-g -O1 "-fsanitize=fuzzer,address,undefined" -D_GNU_SOURCE
	-I"$here/lib" -I"$here/bench" -I"$ksft" $(pkg-config --cflags libmnl jansson gsl))
# shellcheck disable=SC2207
libs=($(pkg-config --libs libmnl jansson gsl) -lm)
# Both layers, instrumented; not the programs of bench/ (bind_churn,
# bindlab_results): their main() is not a library's.
srcs=("$here"/lib/*.c)
for f in "$here"/bench/*.c; do
	grep -q '^int main(' "$f" || srcs+=("$f")
done

for target in results bind_bench_cli; do
	corpus=${target#bind_bench_}
	bin=$tmp/fuzz_$target
	if ! clang "${flags[@]}" "$here/tests/fuzz/fuzz_$target.c" \
		"${srcs[@]}" "${libs[@]}" -o "$bin" >"$tmp/build" 2>&1; then
		tap_not_ok "fuzz_$target builds" "$(head -n 5 "$tmp/build")"
		continue
	fi
	regress=("$here/tests/fuzz/regressions/$corpus"/*)
	if [ -e "${regress[0]}" ]; then
		if "$bin" "${regress[@]}" >"$tmp/log" 2>&1; then
			tap_ok "fuzz_$target: ${#regress[@]} regression inputs"
		else
			tap_not_ok "fuzz_$target: regression inputs" "$(grep -m 5 -E 'ERROR|SUMMARY' "$tmp/log")"
		fi
	fi
	mkdir -p "$tmp/corpus_$corpus" "$tmp/crash_$corpus"
	"$bin" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$tmp/crash_$corpus/" \
		"$tmp/corpus_$corpus" "$here/tests/fuzz/corpus/$corpus" >"$tmp/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
	if [ $rc -eq 0 ]; then
		tap_ok "fuzz_$target: ${secs}s, ${runs:-?} executions, no crash"
	else
		mkdir -p "$here/results/fuzz-crashes"
		cp "$tmp/crash_$corpus"/* "$here/results/fuzz-crashes/" 2>/dev/null
		tap_not_ok "fuzz_$target: crash after ${runs:-?} executions" \
			"$(grep -m 8 -E 'ERROR|SUMMARY|#[0-9] ' "$tmp/log")" \
			"inputs kept in results/fuzz-crashes/"
	fi
done

tap_done
