#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The LAVA side of the bindlab collection, run by lava/bindlab.yaml on the
# device (POSIX sh and awk: busybox is enough). Its modes, each testable
# without LAVA (tests/lava_test.sh):
#
#   bindlab-lava.sh kselftest [OPTS] DIR  run the installed collection DIR
#                          (run_kselftest.sh -c net/bindlab; the programs
#                          one by one under SKIPFILE or TST_CASENAME) and
#                          print its cases as result lines
#   bindlab-lava.sh bench [OPTS] DIR N R  the case table's judged rows (N
#                          sockets, R rounds, R odd) as result lines
#   bindlab-lava.sh report          result lines on stdin -> lava-test-set
#                                   and lava-test-case calls
#   bindlab-lava.sh parse FILE      KTAP (kselftest's runner or one
#                                   program) -> the normalized format
#   bindlab-lava.sh results PROG... the runner's KTAP on stdin -> result
#                                   lines (PROGs: those expected)
#   bindlab-lava.sh names PROG...   "PROG FIXTURE.VARIANT.TEST" lines of
#                                   each harness program, from its -l
# OPTS, the test definition's parameters: -e ENV (VAR=VALUE words, exported
# to the programs), -s SKIPFILE (test globs, one a line, # comments: those
# tests and cases are skipped), -t TST_CASENAME (run this one test or case).
#
# Normalized format (shared with the host-side KTAP reader, corpus
# tests/ktap/): one line per test case in order, "RESULT NAME", RESULT one
# of pass fail skip xfail xpass, NAME "PROGRAM/CASE" under kselftest's
# runner; then "plan ok" or "plan broken" (a plan missing or unmet, a
# number twice or out of order, a program cut short, a line over 4096
# bytes: refused, never split).
#
# Result lines: "set NAME" (a LAVA test set: the program, bindlab-bench,
# or bindlab for the runner itself), "case NAME RESULT [MEASUREMENT
# UNITS]". Case names are the local run's (KTAP fixture.variant.test;
# benchmarks the table's FIXTURE.VARIANT.MEASURE and .sampleK), so that
# bindlab_results merge --lava maps them one to one.
#
# Fail closed: a program cut short, without a plan, exiting non-zero with
# no failing case or never started gives the failing case "ktap.plan" of
# its set; a benchmark that crashed or left no verdict the failing case
# "FIXTURE.VARIANT.run"; a bad parameter "ktap.plan" of set bindlab (or
# "bench.params" of bindlab-bench). Never just fewer cases.

set -u

die()
{
	echo "bindlab-lava.sh: $*" >&2
	exit 2
}

# The one KTAP reader. Prints the normalized lines, and for every program
# of the runner one "prog NAME ok|skip|broken WHY" line after its cases
# (what the LAVA side needs to fail one program closed). Bytes, not
# characters: run with LC_ALL=C.
# shellcheck disable=SC2016 # awk's own $0 and $1, not the shell's
KTAP_AWK='
function broken(why) {
	if (sec != "") {
		if (swhy == "")
			swhy = why
	} else if (twhy == "") {
		twhy = why
	}
	bad = 1
}
# "[not ]ok N [- ]DESC [# DIRECTIVE]" -> rnum, rdesc, rres; 0 if malformed.
function result(line,   ok, n, d, w) {
	ok = (line ~ /^ok/)
	sub(/^(not )?ok/, "", line)
	if (line !~ /^ [0-9]+( |$)/)
		return 0
	line = substr(line, 2)
	n = line
	sub(/ .*/, "", n)
	rnum = n + 0
	line = substr(line, length(n) + 2)
	sub(/^- /, "", line)
	d = ""
	if (line ~ /^# /) {
		d = substr(line, 3)
		line = ""
	} else if (index(line, " # ")) {
		d = substr(line, index(line, " # ") + 3)
		line = substr(line, 1, index(line, " # ") - 1)
	}
	rdesc = line
	w = toupper(d)
	sub(/[^A-Z].*/, "", w)
	rres = ok ? "pass" : "fail"
	if (w == "SKIP")
		rres = "skip"
	else if (w == "XFAIL")
		rres = "xfail"
	else if (w == "XPASS")
		rres = "xpass"
	else if (w == "TODO")
		rres = ok ? "xpass" : "xfail"
	rdir = d
	return 1
}
# A result at one level: numbers 1, 2, ... in order, none after a late plan.
function counted(level) {
	if (rnum != cnt[level] + 1)
		broken("test " rnum " after test " cnt[level])
	if (late[level])
		broken("test " rnum " after the plan")
	cnt[level]++
}
function plan_line(level, line) {
	if (plan[level] >= 0)
		broken("a second plan")
	plan[level] = substr(line, 4) + 0
	late[level] = cnt[level] > 0
}
function plan_met(level, what) {
	if (plan[level] < 0)
		broken(what ": no plan")
	else if (cnt[level] != plan[level])
		broken(what ": " cnt[level] " of " plan[level] " planned tests")
}
function open_sec(p) {
	if (sec != "")
		close_sec("no result line from the runner")
	sec = p; swhy = ""; sfail = 0; sskip = 0
	plan[1] = -1; cnt[1] = 0; late[1] = 0
}
function close_sec(runner,   st) {
	plan_met(1, sec)
	if (runner != "")
		broken(runner)
	st = swhy != "" ? "broken" : (sskip ? "skip" : "ok")
	print "prog " sec " " st " " swhy
	sec = ""
}
# The runner line of program p: closes its section.
function runner_line(p,   why) {
	if (sec != p)
		open_sec(p)
	why = ""
	if (rres == "skip")
		sskip = 1
	else if (rres == "fail" && !sfail)
		why = "runner: not ok (" rdir ") with no failing test"
	close_sec(why)
}
function nested(line) {
	if (line ~ /^1\.\.[0-9]+( |$)/) {
		plan_line(1, line)
		if (plan[1] == 0 && toupper(line) ~ /# *SKIP/)
			sskip = 1
	} else if (line ~ /^(not )?ok( |$)/) {
		if (!result(line))
			broken("malformed result line")
		else {
			counted(1)
			sfail = sfail || rres == "fail" || rres == "xpass"
			print rres " " sec "/" rdesc
		}
	}
}
BEGIN {
	plan[0] = -1
	bad = 0
}
{
	sub(/\r$/, "")
	if (length($0) > 4096) {
		broken("line " NR ": longer than 4096 bytes")
		next
	}
}
/^# selftests: [^:]*: / {
	p = $0
	sub(/^# selftests: [^:]*: /, "", p)
	open_sec(p)
	next
}
sec != "" && /^# / {
	nested(substr($0, 3))
	next
}
/^1\.\.[0-9]+( |$)/ {
	plan_line(0, $0)
	next
}
/^(not )?ok( |$)/ {
	if (!result($0)) {
		broken("line " NR ": malformed result line")
		next
	}
	counted(0)
	if (rdesc ~ /^selftests: [^:]*: /) {
		sub(/^selftests: [^:]*: /, "", rdesc)
		runner_line(rdesc)
	} else {
		print rres " " rdesc
	}
}
END {
	if (sec != "")
		close_sec("no result line from the runner (crash or hang)")
	plan_met(0, "top level")
	if (twhy != "")
		print "prog - broken " twhy
	print "plan " (bad ? "broken" : "ok")
}'

ktap_read()
{
	LC_ALL=C awk "$KTAP_AWK" "$@"
}

parse()
{
	if ! [ -f "$1" ] || ! [ -r "$1" ]; then
		die "parse: cannot read '$1'"
	fi
	ktap_read "$1" | grep -v '^prog '
}

# The reader's lines -> result lines: one set per program; XFAIL is a
# pass, XPASS a failure (as the harness counts them); a broken program
# gets the failing ktap.plan, the runner's own breakage set bindlab's.
# Expected programs ($1, words) that never showed fail too.
to_results()
{
	awk -v expect="$1" '
	function clean(s) {
		gsub(/[^A-Za-z0-9_.-]/, "_", s)
		return s
	}
	function set(p) {
		if (p != cur)
			print "set " p
		cur = p
		seen[p] = 1
	}
	$1 == "prog" {
		p = $2 == "-" ? "bindlab" : clean($2)
		set(p)
		if ($3 == "skip" && !ncase[p])
			print "case ktap.plan skip"
		if ($3 != "broken")
			next
		print "case ktap.plan fail"
		why = $0
		sub(/^prog [^ ]* broken /, "", why)
		print "bindlab-lava.sh: " p ": " why > "/dev/stderr"
		next
	}
	$1 != "plan" {
		r = $1 == "xfail" ? "pass" : ($1 == "xpass" ? "fail" : $1)
		name = substr($0, length($1) + 2)
		p = index(name, "/") ? clean(substr(name, 1, index(name, "/") - 1)) : "bindlab"
		set(p)
		ncase[p]++
		print "case " clean(substr(name, index(name, "/") + 1)) " " r
	}
	END {
		k = split(expect, want, " ")
		for (i = 1; i <= k; i++) {
			if (want[i] in seen)
				continue
			print "set " want[i]
			print "case ktap.plan fail"
			print "bindlab-lava.sh: " want[i] ": never started" > "/dev/stderr"
		}
	}'
}

# names PROG...: the harness's -l table ("%-20s %-25s %s": fixture,
# variant, test; a fixture's rows go on with the first column blank) ->
# one "PROG FIXTURE.VARIANT.TEST" line per test, FIXTURE.TEST without
# variants. -l prints on stderr and exits 4.
names()
{
	for p in "$@"; do
		[ -x "$p" ] || die "names: '$p' is not a program"
		"$p" -l 2>&1 >/dev/null | LC_ALL=C awk -v prog="${p##*/}" '
		function flush(   i, j) {
			for (j = 1; j <= nt; j++)
				if (nv)
					for (i = 1; i <= nv; i++)
						print prog " " fx "." v[i] "." t[j]
				else
					print prog " " fx "." t[j]
		}
		/^# FIXTURE/ || /^-----/ { next }
		/^[^ ]/ {
			flush()
			fx = $1; nv = 0; nt = 0
			vcol = (length(fx) > 20 ? length(fx) : 20) + 1
		}
		/^ / { vcol = 21 }
		{
			var = ""
			if (substr($0, vcol + 1, 1) ~ /[^ ]/) {
				var = substr($0, vcol + 1)
				sub(/ .*/, "", var)
				v[++nv] = var
			}
			test = substr($0, vcol + (length(var) > 25 ? length(var) : 25) + 2)
			gsub(/ /, "", test)
			if (test != "")
				t[++nt] = test
		}
		END { flush() }'
	done
}

# The test definition's parameters: opt_env, opt_skip (a readable file),
# opt_test; ENV's words exported. 1 with the reason on stderr.
params()
{
	opt_env='' opt_skip='' opt_test=''
	OPTIND=1
	while getopts e:s:t: o; do
		case $o in
		e) opt_env=$OPTARG ;;
		s) opt_skip=$OPTARG ;;
		t) opt_test=$OPTARG ;;
		*) return 1 ;;
		esac
	done
	for w in $opt_env; do
		case ${w%%=*} in
		"$w" | '' | [0-9]* | *[!A-Za-z0-9_]*)
			echo "bindlab-lava.sh: ENV: '$w' is not VAR=VALUE" >&2
			return 1 ;;
		esac
		# shellcheck disable=SC2163 # the word is NAME=VALUE
		export "$w"
	done
	if [ -n "$opt_skip" ] && ! { [ -f "$opt_skip" ] && [ -r "$opt_skip" ]; }; then
		echo "bindlab-lava.sh: SKIPFILE: cannot read '$opt_skip'" >&2
		return 1
	fi
	return 0
}

# skipped NAME: true when a glob of SKIPFILE matches NAME.
skipped()
{
	[ -n "$opt_skip" ] || return 1
	while read -r glob _; do
		case $glob in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254 # the glob is the point
		case $1 in $glob) return 0 ;; esac
	done <"$opt_skip"
	return 1
}

# The collection's programs, from the installed list (net/bindlab:prog).
programs()
{
	sed -n 's|^net/bindlab:||p' "$1/kselftest-list.txt" 2>/dev/null | tr '\n' ' '
}

# run_one PROG DIR NAME...: PROG with the harness's -r NAME filter, shown
# as kselftest's runner shows a program (plan, header, output one "# "
# deep, its ok/not ok line), under the timeout of the collection's
# settings, so that the one reader reads it.
run_one()
{
	prog=$1 bin=$2/net/bindlab
	shift 2
	t=$(sed -n 's/^timeout=//p' "$bin/settings" 2>/dev/null)
	args=
	for n in "$@"; do args="$args -r $n"; done
	printf '1..1\n# selftests: net/bindlab: %s\n' "$prog"
	rcf=$(mktemp) || die "no temporary file"
	# shellcheck disable=SC2086 # -r NAME pairs; names are [A-Za-z0-9_.]
	{ (cd "$bin" && exec timeout "${t:-45}" "./$prog" $args) 2>&1
		echo $? >"$rcf"; } | sed 's/^/# /'
	rc=$(cat "$rcf")
	rm -f "$rcf"
	case $rc in
	0) echo "ok 1 selftests: net/bindlab: $prog" ;;
	4) echo "ok 1 selftests: net/bindlab: $prog # SKIP" ;;
	*) echo "not ok 1 selftests: net/bindlab: $prog # exit=$rc" ;;
	esac
}

# one_prog DIR PROG: the tests of PROG that TST_CASENAME or SKIPFILE
# select, run; the skip-listed ones reported skipped. 1 when TST_CASENAME
# is none of PROG's. A program without a test list fails closed.
one_prog()
{
	dir=$1 p=$2 run='' skip=''
	list=$(names "$dir/net/bindlab/$p" 2>/dev/null)
	if [ -z "$list" ]; then
		[ -n "$opt_test" ] && return 1
		printf 'set %s\ncase ktap.plan fail\n' "$p"
		echo "bindlab-lava.sh: $p: no test list from $p -l" >&2
		return 0
	fi
	for n in $(echo "$list" | cut -d' ' -f2); do
		if [ -n "$opt_test" ]; then
			[ "$n" != "$opt_test" ] || run=$n
		elif skipped "$n"; then
			skip="$skip $n"
		else
			run="$run $n"
		fi
	done
	[ -n "$run$skip" ] || return 1
	if [ -n "$run" ]; then
		# shellcheck disable=SC2086 # names are words
		run_one "$p" "$dir" $run | tee /dev/stderr | ktap_read | to_results "$p"
	fi
	# Under PROG's own set again: the reader may have closed with the
	# runner's set.
	[ -z "$skip" ] || echo "set $p"
	for n in $skip; do echo "case $n skip"; done
	return 0
}

# case_row DIR NAME: true when NAME is a row of the installed case table.
case_row()
{
	awk -v n="$2" '$1 == n { f = 1 } END { exit !f }' "$1/net/bindlab/cases" 2>/dev/null
}

# kselftest [-e ENV] [-s SKIPFILE] [-t TEST] DIR
kselftest()
{
	if ! params "$@"; then
		printf 'set bindlab\ncase ktap.plan fail\n'
		return 0
	fi
	shift $((OPTIND - 1))
	[ $# -eq 1 ] || die "usage: kselftest [-e ENV] [-s SKIPFILE] [-t TEST] DIR"
	dir=$1
	progs=$(programs "$dir")
	if [ -z "$progs" ]; then
		echo "bindlab-lava.sh: no net/bindlab programs in $dir/kselftest-list.txt" >&2
		printf 'set bindlab\ncase ktap.plan fail\n'
		return 0
	fi
	if [ -z "$opt_skip$opt_test" ]; then
		# The KTAP goes to the console (LAVA's log) and to the reader.
		(cd "$dir" && ./run_kselftest.sh -c net/bindlab 2>&1) |
			tee /dev/stderr | ktap_read | to_results "$progs"
		return 0
	fi
	found=0
	for p in $progs; do
		one_prog "$dir" "$p" && found=1
	done
	[ "$found" = 1 ] || [ -z "$opt_test" ] || case_row "$dir" "$opt_test" && return 0
	printf 'set bindlab\ncase ktap.plan fail\n'
	echo "bindlab-lava.sh: TST_CASENAME '$opt_test' is no test or case of $dir" >&2
}

# median of the numbers on stdin (R odd: the middle one, exactly as printed).
median()
{
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# verdict BINDIR ROW RESULT.json: the program's own verdict on its result,
# as the installed bindlab_results decides it (merge stores it, summary's
# exit status says it): pass, or fail (regressed, no or a bad verdict).
# A known regression is declared where the results are read (import-lava
# on the host), so BINDLAB_XFAIL is not applied here.
verdict()
{
	run=$(mktemp) || die "no temporary file"
	if env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE "$1/bindlab_results" merge \
		"$run" --case "$2" --result "${2%% *}=$3" >&2 &&
		env -u BINDLAB_XFAIL -u BINDLAB_XFAIL_FILE "$1/bindlab_results" \
			summary "$run" >&2; then
		echo pass
	else
		echo fail
	fi
	rm -f "$run"
}

# bench_one ROW BINDIR N R COMMAND...: one row of the case table (ROW:
# "NAME UNIT BETTER VERDICT"), its samples and verdict read back by the
# collection's own result reader.
bench_one()
{
	row=$1 bin=$2 n=$3 r=$4
	name=${row%% *} unit=$(echo "$row" | cut -d' ' -f2)
	shift 4
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
	if [ "$rc" -ne 0 ] || [ "$(echo "$samples" | grep -c .)" -ne "$r" ]; then
		echo "case ${name%.*}.run fail"
		rm -f "$json"
		return 0
	fi
	res=$(verdict "$bin" "$row" "$json")
	rm -f "$json"
	echo "case $name $res $(echo "$samples" | median) $unit"
	echo "$samples" | awk -v c="$name" -v u="$unit" '{ print "case " c ".sample" NR " pass " $1 " " u }'
}

# bench [-e ENV] [-s SKIPFILE] [-t TEST] DIR N R: the rows of the
# installed case table (net/bindlab/cases, the project's one list of
# benchmark cases) that judge the kernel: VERDICT "program".
bench()
{
	if ! params "$@"; then
		printf 'set bindlab-bench\ncase bench.params fail\n'
		return 0
	fi
	shift $((OPTIND - 1))
	[ $# -eq 3 ] || die "usage: bench [-e ENV] [-s SKIPFILE] [-t TEST] DIR N R"
	dir=$1 n=$2 r=$3 bin=$1/net/bindlab
	case $n$r in *[!0-9]*) die "bench: N and R are numbers" ;; esac
	[ $((r % 2)) -eq 1 ] || die "bench: R must be odd (the median is a sample)"
	[ -r "$bin/cases" ] || die "bench: no case table $bin/cases"
	rows=$(mktemp) || die "bench: no temporary file"
	awk '!/^#/ && NF >= 7 && $4 == "program"' "$bin/cases" >"$rows"
	echo "set bindlab-bench"
	while read -r name unit better v _ _ cmd; do
		[ -z "$opt_test" ] || [ "$name" = "$opt_test" ] || continue
		if skipped "$name"; then
			echo "case $name skip"
			continue
		fi
		# shellcheck disable=SC2086 # the table's command, as words
		bench_one "$name $unit $better $v" "$bin" "$n" "$r" $cmd </dev/null
	done <"$rows"
	rm -f "$rows"
}

report()
{
	set_open=
	while read -r kind name res meas units; do
		case $kind in
		set)
			# The same set again goes on, it is not a second one.
			[ "$name" != "$set_open" ] || continue
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

[ $# -ge 1 ] || die "usage: bindlab-lava.sh kselftest|bench|report|parse|results|names ..."
mode=$1
shift
case $mode in
kselftest) kselftest "$@" ;;
bench) bench "$@" ;;
report) [ $# -eq 0 ] || die "usage: report"; report ;;
parse) [ $# -eq 1 ] || die "usage: parse FILE"; parse "$1" ;;
names) [ $# -ge 1 ] || die "usage: names PROG..."; names "$@" ;;
results) ktap_read | to_results "$*" ;;
*) die "unknown mode '$mode'" ;;
esac
