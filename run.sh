#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The front door: run everything against the running kernel, keep the
# numbers, compare two runs, draw them, and drive the kernel lab.
set -u

here=$(cd "$(dirname "$0")" && pwd)
results_tool=$here/bindlab_results

usage() {
	cat <<EOT
usage: ./run.sh [--full] [--results DIR]   run suites and benchmarks (main job)
       ./run.sh compare [OPTIONS] BEFORE.json AFTER.json
       ./run.sh compare [OPTIONS] BEFORE.json... -- AFTER.json...
       ./run.sh plot [-o PREFIX] RUN.json [AFTER.json]
       ./run.sh test                        the project's own tests (CI)
       ./run.sh kernel-build|vm|ab|bisect ARGS...   kernel lab (see each --help)
       ./run.sh --help

main job: builds, then runs bind_bhash_test and tw_reuse_loopback (kselftests,
each test in its own network namespace) and the benchmarks (bind_bench seed-000
cases, loopback churn), prints one summary, writes results.json (all raw
samples and the environment) and plot.svg/plot.png under
results/<kernel release>-<time>/.
  --full          the seed tables' sizes (16000 sockets, 50000 connections)
  --results DIR   where to put the run directory (default: results)
compare: case by case, after/before with a 95% CI and a test; a change is
claimed only when p < 0.05, the CI excludes 1 and the change is at least
--min-change percent (default 10); otherwise "no stable difference".
With 2+ runs (result files) a side, each run's median is one sample (Welch's
t on logs), so drift between runs counts as noise. With one run a side the
rounds are the samples (Mann-Whitney, bootstrap CI); they cannot show drift
between runs, so changes below --drift percent (default 200: 3x; times the
load per CPU a run recorded, when above 1) are not claimed either. For finer
claims, give 2+ runs a side.
  --threshold PCT exit 1 when a case got slower by more than PCT percent
  --min-change PCT  smallest change ever claimed (default 10)
  --drift PCT     drift floor with one run on a side (default 200)
  --json OUT      the comparison as JSON
Known regressions of the kernel under test: BINDLAB_XFAIL (test-name globs) or
BINDLAB_XFAIL_FILE (lines "TEST-GLOB [KERNEL-RELEASE-GLOB]"); see README.
exit: 0 ok, 1 regression, 2 usage or bad input, 4 skipped (no privilege/netns)
EOT
}

die_usage() {
	echo "run.sh: $*" >&2
	exit 2
}

if [ -t 1 ]; then
	bold=$'\e[1m' red=$'\e[31m' green=$'\e[32m' plain=$'\e[0m'
else
	bold='' red='' green='' plain=''
fi

step() {
	[ -t 1 ] && printf '%s[%s] %s%s\n' "$bold" "$(date +%T)" "$*" "$plain"
	return 0
}

build() {
	"$here/scripts/bootstrap.sh" "$1" || exit 2
	make -s -C "$here" >/dev/null || die_usage "build failed (make -C $here)"
}

# kselftest timeout of one program, from the settings file like the runner.
ksft_timeout() {
	sed -n 's/^timeout=//p' "$here/settings"
}

# run_ktap NAME: run one kselftest program, keep its KTAP output.
run_ktap() {
	local name=$1 out=$2/$1.ktap rc
	step "$name (kselftest)"
	timeout --foreground -k 5 "$(ksft_timeout)" "$here/$name" >"$out" 2>&1
	rc=$?
	[ $rc -eq 124 ] && echo "not ok 999 $name # timeout after $(ksft_timeout) s" >>"$out"
	return 0
}

cmd_main() {
	local full=0 root=$here/results dir release n churn rounds=5 rc
	while [ $# -gt 0 ]; do
		case "$1" in
		--full) full=1 ;;
		--results)
			[ -n "${2:-}" ] || die_usage "--results needs a directory"
			root=$2
			shift
			;;
		*) die_usage "unknown option '$1' (see ./run.sh --help)" ;;
		esac
		shift
	done
	if [ "$(id -u)" -ne 0 ]; then
		echo "run.sh: SKIP: needs root for network namespaces and sysctls" >&2
		exit 4
	fi
	build run
	# Default: about a minute on 2 cores. --full: the seeds' tables. The
	# default churn stays below the first-parity ports of the range, so
	# tw_reuse=0 does not crawl; --full is seed 004's experiment.
	n=4000
	churn=(-R "0,1,2" -n 10000 -r 5)
	if [ $full -eq 1 ]; then
		n=16000
		churn=(-R "0,2" -n 50000 -p 32768-65535 -t 300)
	fi
	release=$(uname -r)
	dir=$root/$release-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$dir" || die_usage "cannot create $dir"

	run_ktap bind_bhash_test "$dir"
	run_ktap tw_reuse_loopback "$dir"

	# The four cases of seed 000's table, control (reuseport same) included.
	local mode addrs
	for mode in reuseaddr reuseport; do
		for addrs in same alternate; do
			step "bind_bench $mode $addrs $n ($rounds rounds)"
			"$here/bind_bench" -q -r $rounds -w 1 \
				--json "$dir/bind_bench.$mode.$addrs.json" \
				$mode $addrs $n >/dev/null ||
				echo "bind_bench $mode $addrs $n failed" >&2
		done
	done
	step "tw_reuse_loopback churn ${churn[*]}"
	"$here/tw_reuse_loopback" churn -q "${churn[@]}" --json "$dir/churn.json" \
		>"$dir/churn.txt" 2>&1 || echo "churn benchmark failed: $(tail -n 1 "$dir/churn.txt")" >&2

	local inputs=() f
	for f in "$dir"/*.json; do
		[ -f "$f" ] && inputs+=("$f")
	done
	"$results_tool" merge "$dir/results.json" \
		--ktap "bind_bhash_test=$dir/bind_bhash_test.ktap" \
		--ktap "tw_reuse_loopback=$dir/tw_reuse_loopback.ktap" \
		"${inputs[@]}" || exit 2
	rm -f "${inputs[@]}"

	echo
	"$results_tool" summary "$dir/results.json"
	rc=$?
	plot "$dir/plot" "$dir/results.json" >/dev/null
	echo
	echo "results: $dir/results.json"
	[ -f "$dir/plot.svg" ] && echo "plot:    $dir/plot.svg $dir/plot.png"
	if [ $rc -eq 0 ]; then
		echo "${green}verdict: no unexpected regression${plain}"
	else
		echo "${red}verdict: regression (see FAIL / regressed above)${plain}"
	fi
	return $rc
}

# plot PREFIX RUN.json [AFTER.json]: per case, cost per bind against
# sockets already bound; before and after on the same axes.
plot() {
	local prefix=$1 before=$2 after=${3:-} tmp ids=() id cols rows i
	command -v gnuplot >/dev/null || { echo "run.sh: gnuplot not installed, no plot" >&2; return 0; }
	tmp=$(mktemp -d)
	"$results_tool" curve "$before" "$tmp/before" >"$tmp/before.list" || { rm -rf "$tmp"; return 2; }
	if [ -n "$after" ]; then
		"$results_tool" curve "$after" "$tmp/after" >"$tmp/after.list" || { rm -rf "$tmp"; return 2; }
	fi
	while IFS=$'\t' read -r id _; do ids+=("$id"); done <"$tmp/before.list"
	[ ${#ids[@]} -gt 0 ] || { rm -rf "$tmp"; echo "run.sh: no curves in $before" >&2; return 0; }
	cols=$(( ${#ids[@]} > 1 ? 2 : 1 ))
	rows=$(( (${#ids[@]} + cols - 1) / cols ))
	{
		echo "set multiplot layout $rows,$cols title 'bind() cost against sockets already bound (median per 1/20 of N)'"
		echo "set xlabel 'sockets already bound'; set ylabel 'ns per bind'; set key bottom right; set grid"
		# From zero: O(1) must look flat, not like magnified noise.
		echo "set yrange [0:*]"
		for i in "${!ids[@]}"; do
			id=${ids[$i]}
			echo "set title '$id' noenhanced"
			if [ -n "$after" ] && [ -f "$tmp/after/$id.dat" ]; then
				echo "plot '$tmp/before/$id.dat' using 1:2 with linespoints title 'before', '$tmp/after/$id.dat' using 1:2 with linespoints title 'after'"
			else
				echo "plot '$tmp/before/$id.dat' using 1:2 with linespoints title '$(basename "$before")' noenhanced"
			fi
		done
		echo "unset multiplot"
	} >"$tmp/body.gp"
	{ echo "set terminal svg size 1200,$((rows * 350)) dynamic; set output '$prefix.svg'"; cat "$tmp/body.gp"; } | gnuplot 2>"$tmp/err"
	{ echo "set terminal pngcairo size 1200,$((rows * 350)); set output '$prefix.png'"; cat "$tmp/body.gp"; } | gnuplot 2>>"$tmp/err" ||
		{ echo "set terminal png size 1200,$((rows * 350)); set output '$prefix.png'"; cat "$tmp/body.gp"; } | gnuplot 2>>"$tmp/err"
	[ -s "$tmp/err" ] && sed 's/^/gnuplot: /' "$tmp/err" >&2
	rm -rf "$tmp"
	echo "$prefix.svg $prefix.png"
}

cmd_plot() {
	local prefix=""
	while [ $# -gt 0 ]; do
		case "$1" in
		-o)
			[ -n "${2:-}" ] || die_usage "-o needs a prefix"
			prefix=$2
			shift
			;;
		-*) die_usage "unknown option '$1' (see ./run.sh --help)" ;;
		*) break ;;
		esac
		shift
	done
	[ $# -eq 1 ] || [ $# -eq 2 ] || die_usage "plot needs RUN.json [AFTER.json]"
	[ -n "$prefix" ] || prefix=${1%.json}
	build build
	plot "$prefix" "$@"
}

cmd_compare() {
	build build
	exec "$results_tool" compare "$@"
}

# The project's own tests, the same on a laptop and in CI: exit 0 when
# every check passed, 1 when one failed or the tests could not be set up.
cmd_test() {
	[ $# -eq 0 ] || die_usage "test takes no arguments"
	echo "test: installing what the tests need (scripts/bootstrap.sh ci)"
	"$here/scripts/bootstrap.sh" ci || { echo "run.sh: test: bootstrap failed" >&2; exit 1; }
	echo "test: building"
	make -s -C "$here" test-programs >/dev/null || { echo "run.sh: test: build failed" >&2; exit 1; }
	exec "$here/tests/run_all.sh"
}

cmd_kernel() {
	local script=$here/kernel/$1.sh
	[ -x "$script" ] || die_usage "kernel lab script $script missing"
	# The VM takes the programs from the repo: build them first. Not for
	# bisect, whose exit codes git reads (a missing build aborts in vm.sh).
	case $1 in
	vm | ab) build build ;;
	esac
	shift
	exec "$script" "$@"
}

case "${1:-}" in
-h | --help) usage ;;
compare) shift; cmd_compare "$@" ;;
plot) shift; cmd_plot "$@" ;;
test) shift; cmd_test "$@" ;;
kernel-build) shift; cmd_kernel build "$@" ;;
vm) shift; cmd_kernel vm "$@" ;;
ab) shift; cmd_kernel ab "$@" ;;
bisect) shift; cmd_kernel bisect "$@" ;;
"" | --*) cmd_main "$@" ;;
*) die_usage "unknown subcommand '$1' (see ./run.sh --help)" ;;
esac
