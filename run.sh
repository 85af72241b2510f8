#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The front door: run everything against the running kernel, keep the
# numbers, compare two runs, draw them, and drive the kernel lab.
set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
results_tool=$here/bindlab_results

usage() {
	cat <<EOT 2>/dev/null || stdout_failed
usage: ./run.sh [--full] [--results DIR]   run suites and benchmarks (main job)
       ./run.sh compare [OPTIONS] BEFORE.json AFTER.json
       ./run.sh compare [OPTIONS] BEFORE.json... -- AFTER.json...
       ./run.sh plot [-o PREFIX] RUN.json [AFTER.json]
       ./run.sh test                        the project's own tests (CI)
       ./run.sh cases                       the benchmark cases (./cases)
       ./run.sh import-lava [--names FILE] OUT.json LAVA...   LAVA results into a run file
       ./run.sh ktap [--xfail-from-env] FILE...   judge any kselftest KTAP output
       ./run.sh kernel-build|vm|ab|bisect|lava|lava-server|mutate ARGS...   kernel lab (see each --help)
       ./run.sh --help
Options go before or after the files (GNU order); compare's "--" separates
the sides.

main job: builds, then runs every kselftest of the Makefile's list (side by
side, each test in its own network namespace; bind_model_test at
BINDLAB_MODEL_DEPTH=2), then every benchmark case of the case table ./cases
(bind_bench, loopback churn) one at a time, prints one summary, writes
results.json (all raw samples and the environment) and plot.svg/plot.png
under results/<kernel release>-<time>/.
  --full          the table's FULL_N sizes (16000 sockets, 50000 connections)
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
BINDLAB_XFAIL_FILE (lines "TEST-GLOB [KERNEL-RELEASE-GLOB]"), docs/results.md.
The main job applies them when it merges the kselftests' KTAP; "ktap" applies
them to any KTAP (a program's, or run_kselftest.sh's, e.g. from make
run_tests) with --xfail-from-env: one line per case "RESULT [PROGRAM/]NAME",
then "plan ok" or "plan broken"; exit 0 when every plan holds and nothing
failed, else 1.
exit: 0 ok, 1 regression, 2 usage or bad input, 4 skipped (no privilege/netns)
EOT
}

# Every word of a message may come from an argument or a file: escaped.
die_usage() {
	echo "run.sh: $(bl_esc "$*")" >&2
	exit 2
}

# scripts/args.sh's bl_once refuses by this name, as in kernel/lib.sh.
bl_usage_error() {
	die_usage "$@"
}

# A stdout that takes nothing (a full disk, a closed descriptor): what
# was not delivered is no result and no verdict, the machine's error (2),
# as the C programs' check_stdio() has it; never 1, a regression.
stdout_failed() {
	die_usage "writing standard output failed"
}

# say LINE...: one line each on stdout, or stdout_failed.
say() {
	printf '%s\n' "$@" 2>/dev/null || stdout_failed
}

# A user who cannot search the checkout's absolute path (a clone under
# root's home) could not run anything here anyway: the same SKIP as below.
if [ ! -r "$here/scripts/strict.sh" ] && [ "$(id -u)" -ne 0 ]; then
	echo "run.sh: SKIP: needs root (uid $(id -u) cannot read $here)" >&2
	exit 4
fi
# shellcheck source=scripts/strict.sh
. "$here/scripts/strict.sh"
# shellcheck source=scripts/args.sh
. "$here/scripts/args.sh"
# shellcheck source=scripts/cases.sh
. "$here/scripts/cases.sh"
bl_cases_load || exit 2

if [ -t 1 ]; then
	bold=$'\e[1m' red=$'\e[31m' green=$'\e[32m' plain=$'\e[0m'
else
	bold='' red='' green='' plain=''
fi

step() {
	[ -t 1 ] && printf '%s[%s] %s%s\n' "$bold" "$(date +%T)" "$*" "$plain"
	return 0
}

# need_value VALUE MESSAGE: an option's value is there (the word after
# it, not the "--" that scripts/args.sh puts before the operands, nor
# another option: "-o -x" is a mistyped line, not a file named -x).
need_value() {
	case $1 in
	"" | -?*) die_usage "$2" ;;
	esac
}

# Process ownership: every child runs through own(), in the background
# so that a signal to run.sh is handled at once, and with
# PR_SET_PDEATHSIG (setpriv --pdeathsig) so that even SIGKILL of run.sh
# takes it down. Temporary directories are removed on every exit.
child=
children=()
tmpdirs=()
pdeath=()
setpriv --pdeathsig KILL -- true 2>/dev/null && pdeath=(setpriv --pdeathsig KILL --)

stop_child() {
	local i c
	[ -n "$child" ] || [ ${#children[@]} -gt 0 ] || return 0
	for c in $child "${children[@]}"; do
		kill -TERM "$c" 2>/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
			kill -0 "$c" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$c" 2>/dev/null
	done
	child=
	children=()
}

cleanup() {
	stop_child
	[ ${#tmpdirs[@]} -eq 0 ] || rm -rf -- "${tmpdirs[@]}"
	tmpdirs=()
}

on_signal() {
	trap - EXIT
	cleanup
	echo "run.sh: stopped by SIG$1" >&2
	exit $((128 + $2))
}
trap cleanup EXIT
# A reader that went away: bash's own writes fail (say: exit 2) instead
# of SIGPIPE ending run.sh as a crash would. A handler, unlike an
# ignored signal, is not passed on to the programs run.sh starts.
trap : PIPE
trap 'on_signal TERM 15' TERM
trap 'on_signal INT 2' INT
trap 'on_signal HUP 1' HUP

# own CMD...: run CMD as a child we own; its exit status.
own() {
	"${pdeath[@]}" "$@" &
	child=$!
	wait "$child"
	local rc=$?
	child=
	return $rc
}

# make_tmp VAR: a fresh private directory in VAR, removed when run.sh
# exits. Checked: with TMPDIR unusable nothing may land in / instead.
make_tmp() {
	local d
	if ! d=$(mktemp -d 2>/dev/null) || [ ! -d "$d" ] || [ ! -O "$d" ]; then
		die_usage "cannot make a temporary directory (TMPDIR=${TMPDIR:-/tmp})"
	fi
	tmpdirs+=("$d")
	printf -v "$1" '%s' "$d"
}

# check_dest FILE: the one writer's rules (bench/files.c, docs/results.md
# "Files written"), asked of it rather than kept here too; and NAME_MAX
# (255 bytes) with write_file's temporary suffix, before any work: not
# found out when the file is renamed into place.
check_dest() {
	local why
	why=$("$results_tool" dest -- "$1" 2>&1) || die_usage "cannot write $1: ${why#*: }"
	[ "$(printf '%s' "$(basename -- "$1").tmp.$$" | wc -c)" -le 255 ] ||
		die_usage "cannot write $1: the name is too long"
}

# write_file SRC DEST: replace DEST (its target, if a symlink) atomically.
write_file() {
	local real
	check_dest "$2"
	real=$(readlink -f -- "$2") || die_usage "cannot resolve $2"
	# A signal between cp and mv: cleanup removes it (gone once renamed).
	tmpdirs+=("$real.tmp.$$")
	if ! cp -- "$1" "$real.tmp.$$" || ! mv -f -- "$real.tmp.$$" "$real"; then
		rm -f -- "$real.tmp.$$"
		echo "run.sh: cannot write $2" >&2
		return 2
	fi
}

build() {
	"$here/scripts/bootstrap.sh" "$1" || exit 2
	make -s -C "$here" >/dev/null || die_usage "build failed (make -C $here)"
}

# kselftest timeout of one program, from the settings file like the runner.
ksft_timeout() {
	local t
	t=$(sed -n 's/^timeout=//p' "$here/settings")
	bl_num "$t" 1 86400 || die_usage "settings: timeout '$t' is not a number of seconds"
	printf '%s\n' "$t"
}

# The kselftests, as the Makefile lists them (its first line of
# print-programs): the one program list.
ksft_programs() {
	local line
	line=$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)
	[ -n "$line" ] || die_usage "cannot list the kselftests (make print-programs)"
	printf '%s\n' "$line"
}

# run_ktaps DIR PROG...: the kselftests side by side (they judge ratios
# measured within one process, not absolute times), each one's KTAP kept
# in DIR/PROG.ktap. The timeout kills a program's whole process group
# (no --foreground), and merge turns a plan that was not met into a
# failure. The main job's depth-2 model pass takes 4 s instead of the
# full depth's 25 s (BINDLAB_MODEL_DEPTH, README); make run_tests and
# the fleets run the full depth.
run_ktaps() {
	local dir=$1 t name pids=() rc wildcard
	shift
	t=$(ksft_timeout) || exit 2
	wildcard=${BINDLAB_BIND_WILDCARD-$(make -s --no-print-directory -C "$here" print-bind-wildcard)}
	step "kselftests: $*"
	for name in "$@"; do
		# Both die with their parent: timeout with run.sh, the
		# harness with timeout (a harness's tests die with it).
		"${pdeath[@]}" env BINDLAB_MODEL_DEPTH="${BINDLAB_MODEL_DEPTH:-2}" \
			BINDLAB_BIND_WILDCARD="$wildcard" \
			timeout -k 5 "$t" "${pdeath[@]}" "$here/$name" \
			>"$dir/$name.ktap" 2>&1 &
		pids+=($!)
	done
	children=("${pids[@]}")
	for name in "$@"; do
		wait "${pids[0]}"
		rc=$?
		pids=("${pids[@]:1}")
		[ $rc -eq 124 ] && echo "# $name: timeout after $t s" >>"$dir/$name.ktap"
	done
	children=()
}

# bench NAME JSON CMD...: one case of the table, CMD writing JSON. Its
# result joins the run as case NAME; without one, NAME is listed as
# skipped (exit 4, with the program's reason) or failed: no planned case
# disappears.
bench() {
	local name=$1 json=$2 err rc why
	shift 2
	err=$json.err
	own "$here/$1" "${@:2}" >"$json.out" 2>"$err"
	rc=$?
	# The program's one-line error, not the usage that may follow it.
	why=$(grep -m 1 -E '^[a-z_]+: ' "$err" | sed 's/^[a-z_]*: //; s/^SKIP: //')
	if [ $rc -eq 0 ] && [ -f "$json" ]; then
		inputs+=(--result "$name=$json")
	elif [ $rc -eq 4 ]; then
		missing+=(--missing "$name=skip:${why:-skipped}")
	else
		missing+=(--missing "$name=fail:exit $rc: ${why:-no result}")
		echo "run.sh: $name failed (exit $rc): $why" >&2
		# 2: the program refused its arguments (the table's) or could
		# not write: no measurement, and nothing the kernel did.
		[ $rc -ne 2 ] || errors+=("$name: ${why:-exit 2}")
	fi
	rm -f -- "$err" "$json.out"
}

# case_size NAME FULL: the table's N of the case, or its FULL_N with --full.
case_size() {
	bl_case_field "$1" "$([ "$2" -eq 1 ] && echo full_n || echo n)"
}

# run_benchmarks DIR FULL ROUNDS: every case of the table (./cases), into
# inputs/missing.
run_benchmarks() {
	local dir=$1 name n json rounds=$3
	for name in "${BL_CASE_NAMES[@]}"; do
		n=$(case_size "$name" "$2")
		json=$dir/$name.json
		bl_case_argv "$name" "$n" "$rounds" "$json" || exit 2
		step "$name: ${BL_CASE_ARGV[*]}"
		bench "$name" "$json" "${BL_CASE_ARGV[@]}"
	done
}

# room DIR: DIR takes 1 MiB more (then gives it back). A full results disk
# cuts the programs' outputs short, which would read as failing tests: it
# is an error of this machine, checked before and after they run.
room() {
	local rc=0
	head -c 1048576 /dev/zero >"$1/.room" 2>/dev/null || rc=1
	rm -f -- "$1/.room"
	return $rc
}

cmd_main() {
	local full=0 root=$here/results dir release rc json name why out n rounds=5
	local inputs=() missing=() progs=() ktaps=() errors=()
	# Options only, no operands: nothing to reorder ("--" is refused).
	while [ $# -gt 0 ]; do
		case "$1" in
		--full) full=1 ;;
		--results)
			need_value "${2:-}" "--results needs a directory"
			bl_once --results
			root=$2
			shift
			;;
		--results=*)
			root=${1#--results=}
			[ -n "$root" ] || die_usage "--results needs a directory"
			bl_once --results
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
	# Each row of the table checked by its own program before anything
	# runs: a row it refuses is an error of the table, found at once, not
	# after the kselftests.
	for name in "${BL_CASE_NAMES[@]}"; do
		n=$(case_size "$name" $full)
		why=$(BL_CASE_BINDIR=$here bl_case_check_args "$name" "$n" "$rounds") && continue
		echo "${red}error: $name: ${why#*: }: an error of the table, not of the kernel: no verdict${plain}"
		return 2
	done
	# The one rule for where results go: never under /etc, /dev, /usr...
	why=$("$results_tool" dest --dir -- "$root" 2>&1) || die_usage "--results: ${why#*: }"
	# A run directory of its own, even for runs started in one second.
	release=$(uname -r | tr -c 'A-Za-z0-9._+\n-' '_')
	# mkdir's reason, not its own line: the refusal is one line.
	why=$(mkdir -p -- "$root" 2>&1) || die_usage "cannot create $root: ${why##*: }"
	dir=$(mktemp -d "$root/$release-$(date +%Y%m%d-%H%M%S)-XXXXXX" 2>/dev/null) ||
		die_usage "cannot create a run directory in $root"
	chmod 755 "$dir"
	room "$dir" || { rmdir -- "$dir"; die_usage "no room for results in $root (a full disk?): nothing run"; }

	read -ra progs <<<"$(ksft_programs)"
	run_ktaps "$dir" "${progs[@]}"
	for name in "${progs[@]}"; do
		ktaps+=(--ktap "$name=$dir/$name.ktap")
	done
	run_benchmarks "$dir" $full "$rounds"
	bl_case_decls "${BL_CASE_NAMES[@]}"
	if ! room "$dir"; then
		echo "${red}error: $root filled up during the run, its outputs may be cut short: no verdict${plain}"
		return 2
	fi

	# Only this run's own files, named one by one: never a glob.
	# A merge that fails (a full disk, say) is an error, never a verdict.
	if ! own "$results_tool" merge "$dir/results.json" "${ktaps[@]}" \
		"${BL_CASE_DECLS[@]}" "${missing[@]}" "${inputs[@]}"; then
		echo "${red}error: the results of $dir could not be merged: no verdict${plain}"
		return 2
	fi
	for json in "${inputs[@]}"; do
		[ "$json" = --result ] || rm -f -- "${json#*=}"
	done
	if [ ${#errors[@]} -gt 0 ]; then
		echo "${red}error: ${errors[0]} (of ${#errors[@]}): an error of the table or the machine, not of the kernel: no verdict ($dir/results.json)${plain}"
		return 2
	fi

	# summary's last line is the verdict, in its words: it stays last.
	echo
	out=$(own "$results_tool" summary "$dir/results.json")
	rc=$?
	[ $rc -le 1 ] || [ $rc -eq 4 ] || { echo "${red}error: no summary of $dir/results.json: no verdict${plain}"; return 2; }
	say "${out%$'\n'*}"
	plot "$dir/plot" "$dir/results.json" >/dev/null
	say "results: $dir/results.json"
	[ ! -f "$dir/plot.svg" ] || say "plot:    $dir/plot.svg $dir/plot.png"
	if [ $rc -eq 0 ]; then say "$green${out##*$'\n'}$plain"; else say "$red${out##*$'\n'}$plain"; fi
	return $rc
}

# plot_script N AFTER...: the gnuplot program. Made of constants and
# numbers only: file names are our own (before/K.dat, after/K.dat,
# relative to the work directory), titles come from the data files'
# first line (columnhead), and the output goes to stdout. Nothing read
# from an input or the command line becomes gnuplot code.
plot_script() {
	local n=$1 cols rows i
	shift
	cols=$((n > 1 ? 2 : 1))
	rows=$(((n + cols - 1) / cols))
	echo "set multiplot layout $rows,$cols title 'bind() cost against sockets already bound (median per 1/20 of N)'"
	echo "set xlabel 'sockets already bound'; set ylabel 'ns per bind'; set key bottom right; set grid"
	# From zero: O(1) must look flat, not like magnified noise.
	echo "set yrange [0:*]"
	for ((i = 1; i <= n; i++)); do
		if bl_num "${1:-0}" 1 1000000; then
			echo "plot 'before/$i.dat' using 1:2 with linespoints title columnhead(2) noenhanced, 'after/$1.dat' using 1:2 with linespoints title 'after'"
		else
			echo "plot 'before/$i.dat' using 1:2 with linespoints title columnhead(2) noenhanced"
		fi
		shift
	done
	echo "unset multiplot"
}

# curves RUN.json NAME DIR: the run's curve files DIR/NAME/K.dat; prints
# "ID K" per case. K comes from our own file name, never from the input.
curves() {
	local id path
	mkdir "$3/$2" || return 2
	own "$results_tool" curve "$1" "$3/$2" >"$3/$2.list" || return 2
	while IFS=$'\t' read -r id path; do
		[[ $path =~ /([0-9]+)\.dat$ ]] && printf '%s %s\n' "$id" "${BASH_REMATCH[1]}"
	done <"$3/$2.list"
}

# gnuplot_to TERMINAL OUT DIR: run DIR/body.gp there, picture into OUT.
gnuplot_to() {
	{ echo "set terminal $1"; cat "$3/body.gp"; } >"$3/term.gp"
	own env -C "$3" gnuplot term.gp >"$2" 2>>"$3/err" && [ -s "$2" ]
}

# plot PREFIX RUN.json [AFTER.json]: per case, cost per bind against
# sockets already bound; before and after on the same axes.
plot() {
	local prefix=$1 before=$2 after=${3:-} tmp id k n=0 size rc
	local -A after_of=()
	local pairs=()
	command -v gnuplot >/dev/null || { echo "run.sh: gnuplot not installed, no plot" >&2; return 0; }
	check_dest "$prefix.svg"
	check_dest "$prefix.png"
	make_tmp tmp
	curves "$before" before "$tmp" >"$tmp/b" || return 2
	if [ -n "$after" ]; then
		curves "$after" after "$tmp" >"$tmp/a" || return 2
		while read -r id k; do after_of[$id]=$k; done <"$tmp/a"
	fi
	while read -r id k; do
		n=$((n + 1))
		pairs+=("${after_of[$id]:-0}")
	done <"$tmp/b"
	# Nothing to draw is no picture (2), as compare's nothing compared.
	[ $n -gt 0 ] || { echo "run.sh: no curves in $before: nothing drawn" >&2; return 2; }
	plot_script $n "${pairs[@]}" >"$tmp/body.gp"
	size=1200,$((350 * ((n + 1) / 2)))
	gnuplot_to "svg size $size dynamic" "$tmp/plot.svg" "$tmp" &&
		{ gnuplot_to "pngcairo size $size" "$tmp/plot.png" "$tmp" ||
			gnuplot_to "png size $size" "$tmp/plot.png" "$tmp"; }
	rc=$?
	[ -s "$tmp/err" ] && sed 's/^/gnuplot: /' "$tmp/err" >&2
	# gnuplot reads validated curves: its failure is the machine's (2).
	[ $rc -eq 0 ] || { echo "run.sh: gnuplot failed, no plot" >&2; return 2; }
	write_file "$tmp/plot.svg" "$prefix.svg" && write_file "$tmp/plot.png" "$prefix.png" || return 2
	say "$prefix.svg $prefix.png"
}

# GNU order: options before or after the files (./run.sh plot RUN.json
# -o out); "--" ends the options (scripts/args.sh).
cmd_plot() {
	local prefix="" f
	bl_args "-o" "" "$@"
	set -- "${BL_ARGS[@]}"
	while [ $# -gt 0 ]; do
		case "$1" in
		-o)
			need_value "${2:-}" "-o needs a prefix"
			bl_once -o
			prefix=$2
			shift
			;;
		--) shift; break ;;
		*) die_usage "unknown option '$1' (see ./run.sh --help)" ;;
		esac
		shift
	done
	[ $# -eq 1 ] || [ $# -eq 2 ] || die_usage "plot needs RUN.json [AFTER.json]"
	[ -n "$prefix" ] || prefix=${1%.json}
	# PREFIX names files: "DIR/" would write the hidden DIR/.svg.
	case /$prefix in
	*/ | */. | */..) die_usage "-o $prefix: PREFIX names files (PREFIX.svg), not a directory" ;;
	# A newline in a name breaks every line that lists it.
	*[[:cntrl:]]*) die_usage "-o: PREFIX holds a control character" ;;
	esac
	# The pictures never replace what they are drawn from.
	for f in "$prefix.svg" "$prefix.png"; do
		[ "$f" -ef "$1" ] || [ "$f" -ef "${2:-}" ] &&
			die_usage "output $f is an input of this plot: refused before any work"
	done
	build build
	plot "$prefix" "$@"
}

# Options before or after the files: bindlab_results compare takes them
# in GNU's order, with "--" only between the sides.
cmd_compare() {
	build build
	own "$results_tool" compare "$@"
}

cmd_test() {
	[ $# -eq 0 ] || die_usage "test takes no arguments"
	echo "test: installing what the tests need (scripts/bootstrap.sh ci)"
	"$here/scripts/bootstrap.sh" ci || { echo "run.sh: test: bootstrap failed" >&2; exit 1; }
	echo "test: building"
	make -s -C "$here" test-programs >/dev/null || { echo "run.sh: test: build failed" >&2; exit 1; }
	exec "$here/tests/run_all.sh"
}

cmd_cases() {
	local name
	[ $# -eq 0 ] || die_usage "cases takes no arguments"
	for name in "${BL_CASE_NAMES[@]}"; do
		bl_case_argv "$name" "" "" RESULT.json
		printf '%s\t%s, %s is better\t%s\n' "$name" \
			"$(bl_case_field "$name" unit)" "$(bl_case_field "$name" better)" \
			"${BL_CASE_ARGV[*]}" 2>/dev/null || stdout_failed
	done
}

# import-lava OUT LAVA.json: the format is README "LAVA".
cmd_import_lava() {
	local names="" out tmp f n=0 conv=() lavas=() progs=() p why
	bl_args "--names" "" "$@"
	set -- "${BL_ARGS[@]}"
	while [ $# -gt 0 ]; do
		case $1 in
		--names)
			need_value "${2:-}" "--names needs FILE"
			bl_once --names
			names=$2
			shift
			;;
		--) shift; break ;;
		*) die_usage "import-lava: unknown option '$1'" ;;
		esac
		shift
	done
	[ $# -ge 2 ] || die_usage "import-lava needs OUT.json LAVA... (see docs/fleets.md)"
	out=$1
	shift
	# merge sees a converted copy, not these: the check is ours here.
	for f in "$@" ${names:+"$names"}; do
		[ "$out" -ef "$f" ] && die_usage "import-lava: output $out is a file this run reads ($f): refused before any work"
	done
	build build
	make_tmp tmp
	# Our own import format goes straight to merge; anything else (a
	# lava-run log, a server's export) through lava/lava-results.py,
	# as one job: REST pages must add up together.
	for f in "$@"; do
		if "$here/lava/lava-results.py" --is-import "$f" 2>/dev/null; then
			lavas+=(--lava "$f")
		else
			conv+=("$f")
		fi
	done
	if [ ${#conv[@]} -gt 0 ]; then
		if [ -z "$names" ]; then
			read -ra progs <<<"$(ksft_programs)"
			for p in "${progs[@]}"; do
				progs[n]=$here/$p
				n=$((n + 1))
			done
			names=$tmp/names
			sh "$here/lava/bindlab-lava.sh" names "${progs[@]}" >"$names" ||
				die_usage "cannot list the kselftests' names (lava/bindlab-lava.sh names)"
		fi
		# 0 all passed, 1 a case failed: both a result to import.
		# Its reason, if it refuses, is the one line of the refusal.
		own "$here/lava/lava-results.py" --names "$names" "${conv[@]}" "$tmp/lava.json" 2>"$tmp/lava.err"
		if [ $? -gt 1 ] || [ ! -s "$tmp/lava.json" ]; then
			why=$(head -n 1 "$tmp/lava.err")
			die_usage "import-lava: ${why:-lava/lava-results.py refused ${conv[*]}}"
		fi
		cat "$tmp/lava.err" >&2
		lavas+=(--lava "$tmp/lava.json")
	fi
	bl_case_decls "${BL_CASE_NAMES[@]}"
	# A job that ran none of a kselftest's cases lists it, failing.
	read -ra progs <<<"$(ksft_programs)"
	for p in "${progs[@]}"; do
		lavas+=(--program "$p")
	done
	own "$results_tool" merge "$out" "${BL_CASE_DECLS[@]}" "${lavas[@]}"
}

# ktap [--xfail-from-env [--release R]] FILE...: the companion's KTAP
# reader, for output the main job did not make (make run_tests, a fleet's
# log).
cmd_ktap() {
	[ $# -gt 0 ] || die_usage "ktap needs FILE... (see ./run.sh --help)"
	build build
	own "$results_tool" ktap "$@"
}

cmd_kernel() {
	local script=$here/kernel/$1.sh
	[ -x "$script" ] || die_usage "kernel lab script $script missing"
	# The VM takes the programs from the repo: build them first. Not for
	# bisect, whose exit codes git reads (a missing build aborts in vm.sh).
	case $1 in
	vm | ab | mutate) build build ;;
	esac
	shift
	exec "$script" "$@"
}

case "${1:-}" in
-h | --help) usage ;;
compare) shift; cmd_compare "$@" ;;
plot) shift; cmd_plot "$@" ;;
test) shift; cmd_test "$@" ;;
cases) shift; cmd_cases "$@" ;;
import-lava) shift; cmd_import_lava "$@" ;;
ktap) shift; cmd_ktap "$@" ;;
kernel-build) shift; cmd_kernel build "$@" ;;
vm) shift; cmd_kernel vm "$@" ;;
ab) shift; cmd_kernel ab "$@" ;;
bisect) shift; cmd_kernel bisect "$@" ;;
lava) shift; cmd_kernel lava "$@" ;;
lava-server) shift; cmd_kernel lava-server "$@" ;;
mutate) shift; cmd_kernel mutate "$@" ;;
"" | --*) cmd_main "$@" ;;
*) die_usage "unknown subcommand '$1' (see ./run.sh --help)" ;;
esac
