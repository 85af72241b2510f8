#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The LAVA side of the bindlab collection, run by lava/bindlab.yaml on the
# device (POSIX sh and awk: busybox is enough). Three modes, so that the
# parsing can be tested without LAVA (tests/lava_test.sh):
#
#   bindlab-lava.sh kselftest DIR    run DIR/run_kselftest.sh -c net/bindlab
#                                    (DIR: the installed collection), print
#                                    its output as result lines
#   bindlab-lava.sh bench DIR N R    run the fastreuse benchmarks (N sockets,
#                                    R rounds, R odd) as result lines
#   bindlab-lava.sh report           result lines on stdin -> lava-test-set
#                                    and lava-test-case calls
#   bindlab-lava.sh parse PROGRAM... KTAP of run_kselftest.sh on stdin ->
#                                    result lines (PROGRAMs: the expected ones)
#
# Result lines: "set NAME" (a LAVA test set: the program, or bindlab-bench),
# "case NAME RESULT [MEASUREMENT UNITS]". Case names are the local run's
# (KTAP fixture.variant.test; benchmarks FIXTURE.VARIANT.total_ms and
# .sampleK, see scripts/cases.sh), so that bindlab_results merge --lava maps
# them one to one.
#
# Fail closed: an expected program without a result line, a plan not met
# (crash, timeout) or a non-zero exit with no failing case gives the
# failing case "ktap.plan" of that program; a benchmark without samples
# gives the failing case "FIXTURE.VARIANT.run" (a skip, exit 4, the
# skipped headline). Never just fewer cases.

set -u

die()
{
	echo "bindlab-lava.sh: $*" >&2
	exit 2
}

# parse PROGRAM...: run_kselftest.sh's KTAP (stdin) -> result lines. The
# programs' own results are nested one level ("# ok 1 name"); the
# runner's are top level ("ok 1 selftests: net/bindlab: prog").
parse()
{
	awk -v expect="$*" '
	function clean(s) {
		gsub(/[^A-Za-z0-9_.-]/, "_", s)
		return s
	}
	# One program done: its cases, then the fail-closed verdict.
	function flush(   i, why) {
		if (prog == "")
			return
		print "set " prog
		for (i = 1; i <= n; i++)
			print "case " cases[i]
		why = ""
		if (!top)
			why = "no result line from the runner (crash or hang)"
		else if (plan < 0)
			why = "no KTAP plan (crash or usage error)"
		else if (plan == 0 && skipall)
			print "case ktap.plan skip"
		else if (seen < plan)
			why = seen " of " plan " planned tests reported"
		else if (topfail && !failed)
			why = "runner: " topwhy " with no failing test"
		if (why != "") {
			print "case ktap.plan fail"
			print "bindlab-lava.sh: " prog ": " why > "/dev/stderr"
		}
		done[prog] = 1
		prog = ""
	}
	function start(p) {
		flush()
		prog = clean(p)
		n = 0; seen = 0; plan = -1; failed = 0; top = 0; skipall = 0
	}
	{ sub(/\r$/, "") }
	/^# selftests: / {
		p = $0
		sub(/^# selftests: [^:]*: /, "", p)
		start(p)
		next
	}
	prog != "" && /^# 1\.\.[0-9]+/ && plan < 0 {
		plan = substr($2, 4) + 0
		skipall = ($0 ~ /# SKIP/)
		next
	}
	prog != "" && /^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		ok = (line ~ /^ok /)
		sub(/^(not )?ok [0-9]+ /, "", line)
		dir = ""
		if (index(line, " # ")) {
			dir = substr(line, index(line, " # ") + 3)
			line = substr(line, 1, index(line, " # ") - 1)
		}
		res = ok ? "pass" : "fail"
		if (dir ~ /^SKIP/)
			res = "skip"
		else if (dir ~ /^XFAIL/)
			res = "pass"
		else if (dir ~ /^XPASS/)
			res = "fail"
		if (res == "fail")
			failed = 1
		cases[++n] = clean(line) " " res
		seen++
		next
	}
	prog != "" && /^(not )?ok [0-9]+ selftests: / {
		top = 1
		topfail = ($0 ~ /^not ok/) && ($0 !~ /# SKIP/)
		topwhy = $0
		sub(/^.* # /, "", topwhy)
		flush()
		next
	}
	END {
		flush()
		k = split(expect, want, " ")
		for (i = 1; i <= k; i++) {
			if (want[i] in done)
				continue
			print "set " want[i]
			print "case ktap.plan fail"
			print "bindlab-lava.sh: " want[i] ": never started" > "/dev/stderr"
		}
	}'
}

# The collection's programs, from the installed list (net/bindlab:prog).
programs()
{
	sed -n 's|^net/bindlab:||p' "$1/kselftest-list.txt" 2> /dev/null | tr '\n' ' '
}

kselftest()
{
	dir=$1
	progs=$(programs "$dir")
	if [ -z "$progs" ]; then
		echo "bindlab-lava.sh: no net/bindlab programs in $dir/kselftest-list.txt" >&2
		printf 'set bindlab\ncase ktap.plan fail\n'
		return 0
	fi
	# The KTAP goes to the console (LAVA's log) and to the parser.
	(cd "$dir" && ./run_kselftest.sh -c net/bindlab 2>&1) |
		tee /dev/stderr | parse "$progs"
}

# median of the numbers on stdin (R odd: the middle one, exactly as printed).
median()
{
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# bench_one NAME UNIT BINDIR N R COMMAND...: one row of the case table, its
# samples read back by the collection's own result reader.
bench_one()
{
	name=$1 unit=$2 bin=$3 n=$4 r=$5
	shift 5
	json=$(mktemp) || die "bench: no temporary file"
	cmd=$(echo "$*" | sed -e "s/{N}/$n/g" -e "s/{ROUNDS}/$r/g" -e "s#{JSON}#$json#g")

	rc=0
	# shellcheck disable=SC2086 # the table's command, split as the table says
	(cd "$bin" && PATH=$bin:$PATH $cmd) >&2 || rc=$?
	# A skip (no privilege, no netns) is the program's verdict.
	if [ "$rc" -eq 4 ]; then
		echo "case $name skip"
		rm -f "$json"
		return 0
	fi
	samples=$("$bin/bindlab_results" samples "$json" 2>/dev/null)
	rm -f "$json"
	if [ "$rc" -ne 0 ] || [ "$(echo "$samples" | grep -c .)" -ne "$r" ]; then
		echo "case ${name%.*}.run fail"
		return 0
	fi
	echo "case $name pass $(echo "$samples" | median) $unit"
	echo "$samples" | awk -v c="$name" -v u="$unit" '{ print "case " c ".sample" NR " pass " $1 " " u }'
}

# The rows of the installed case table (net/bindlab/cases, the project's
# one list of benchmark cases) that judge the kernel: VERDICT "program".
bench()
{
	dir=$1 n=$2 r=$3 bin=$1/net/bindlab

	case $n$r in *[!0-9]*) die "bench: N and R are numbers" ;; esac
	[ $((r % 2)) -eq 1 ] || die "bench: R must be odd (the median is a sample)"
	[ -r "$bin/cases" ] || die "bench: no case table $bin/cases"
	echo "set bindlab-bench"
	awk '!/^#/ && NF >= 7 && $4 == "program"' "$bin/cases" |
	while read -r name unit _ _ _ _ cmd; do
		# shellcheck disable=SC2086
		bench_one "$name" "$unit" "$bin" "$n" "$r" $cmd
	done
}

report()
{
	set_open=
	while read -r kind name res meas units; do
		case $kind in
		set)
			[ -z "$set_open" ] || lava-test-set stop "$set_open"
			lava-test-set start "$name"
			set_open=$name
			;;
		case)
			if [ -n "$meas" ]; then
				lava-test-case "$name" --result "$res" --measurement "$meas" --units "$units"
			else
				lava-test-case "$name" --result "$res"
			fi
			;;
		esac
	done
	[ -z "$set_open" ] || lava-test-set stop "$set_open"
}

[ $# -ge 1 ] || die "usage: bindlab-lava.sh kselftest DIR | bench DIR N R | report | parse PROGRAM..."
mode=$1
shift
case $mode in
kselftest) [ $# -eq 1 ] || die "usage: kselftest DIR"; kselftest "$1" ;;
bench) [ $# -eq 3 ] || die "usage: bench DIR N R"; bench "$@" ;;
report) [ $# -eq 0 ] || die "usage: report"; report ;;
parse) parse "$@" ;;
*) die "unknown mode '$mode'" ;;
esac
