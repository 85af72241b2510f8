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
# Normalized format (shared with the host-side KTAP reader bench/ktap.c,
# corpus and README tests/ktap/): one line per test case in order, "RESULT
# NAME", RESULT one of pass fail skip xfail xpass, NAME "PROGRAM/CASE"
# under kselftest's runner, escaped as the host escapes it; then "plan ok"
# or "plan broken" (no version line, a plan missing or unmet, a number
# twice, out of order or beyond the plan, a program cut short, a line over
# 4096 bytes, a NUL byte, a last line without its newline, text that is
# not KTAP, totals that disagree: refused, never split). Reading stops at
# the first error; the cases before it are listed.
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
# Numbers and character classes as in C, whatever the caller's locale
# (scripts/strict.sh's, for a script that runs without the repository).
export LC_ALL=C
unset LANGUAGE

# The message may quote an argument: one line, its unprintable bytes as ?.
die()
{
	printf 'bindlab-lava.sh: %s\n' "$(printf '%s' "$*" | tr '\n' '?' | LC_ALL=C sed 's/[^ -~]/?/g')" >&2
	exit 2
}

# The one KTAP reader, a port of the host's (bench/ktap.c; the format in
# tests/ktap/README.md): the same grammar, limits and verdicts, reading
# stopped at the first error (the runner's result for a program closes
# that program, and the next one is read on). Bytes, not characters: run
# with LC_ALL=C. The file's NUL bytes and newlines are found before awk
# reads it (awk cannot see a NUL, nor a last line without its newline):
# nul, the line of the first NUL (0: none), nls, the number of newlines.
#
# mode=parse: the normalized lines (names escaped as bl_printable()).
# mode=lava: in the order of the file, "case RESULT SET NAME" (SET the
# program, or bindlab; SET and NAME as LAVA names) and "bad SET WHY" for
# each error, SET the program it broke or bindlab.
# shellcheck disable=SC2016 # awk's own $0 and $1, not the shell's
KTAP_AWK='
function is_version(l) {
	return l == "TAP version 13" || l == "TAP version 14" || l == "KTAP version 1"
}
# An error of the file: its plan is broken; stopit: nothing more is read.
# ctx names the program it breaks ("": the file itself).
function broken(why, stopit) {
	if (stopit)
		stop = 1
	bad = 1
	ev[++nev] = "b"
	evset[nev] = ctx
	evwhy[nev] = why
}
function level_reset(lv) {
	plan[lv] = -1
	nxt[lv] = 1
	cnt[lv, "pass"] = cnt[lv, "fail"] = cnt[lv, "skip"] = 0
	cnt[lv, "xfail"] = cnt[lv, "xpass"] = cnt[lv, "error"] = 0
}
# The digits at the start of s (at most 9): their value, -1 if none or
# more; numlen, how many were read (10: ten or more).
function ktap_num(s) {
	match(s, /^[0-9]*/)
	numlen = RLENGTH > 10 ? 10 : RLENGTH
	return numlen && numlen < 10 ? substr(s, 1, numlen) + 0 : -1
}
function add_case(name, r) {
	n++
	cname[n] = name
	cres[n] = r
	cprog[n] = in_sub && hashdr ? header : ""
	cnt[in_sub, r]++
	unspawned = 0
	ev[++nev] = "c"
	evcase[nev] = n
}
# The program of a runner result "selftests: DIR: PROG", or "".
function runner_program(s,   p) {
	if (substr(s, 1, 11) != "selftests: " || !match(s, /:[^:]*$/))
		return ""
	p = substr(s, RSTART + 2)
	return substr(s, RSTART + 1, 1) == " " ? p : ""
}
function check_totals(t,   lv, v, k) {
	lv = in_sub
	if (t !~ totals_re) {
		broken("a totals line KTAP does not know", 1)
		return
	}
	gsub(/[^-+0-9]+/, " ", t)
	k = split(t, v, " ")
	if (k != 6 || v[1] + 0 != cnt[lv, "pass"] ||
	    v[2] + 0 != cnt[lv, "fail"] - cnt[lv, "error"] + cnt[lv, "unspawned"] ||
	    v[3] + 0 != cnt[lv, "xfail"] || v[4] + 0 != cnt[lv, "xpass"] ||
	    v[5] + 0 != cnt[lv, "skip"] - cnt[lv, "unspawned"] || v[6] + 0 != cnt[lv, "error"])
		broken("totals that disagree with the results above", 1)
}
function diag_line(d) {
	if (substr(d, 1, 20) == "ERROR SPAWNING TEST ")
		unspawned = 1
	if (substr(d, 1, 8) == "Totals: ")
		check_totals(d)
}
function plan_line(lv, l,   s, v) {
	s = substr(l, 4)
	v = ktap_num(s)
	s = substr(s, numlen + 1)
	if (plan[lv] >= 0) {
		broken("a second plan", 1)
		return
	}
	if (nxt[lv] > 1) {
		broken("the plan after results (KTAP wants it first)", 1)
		return
	}
	if (v < 0 || v > 100000 || (s != "" && substr(s, 1, 2) != " #")) {
		broken("a plan KTAP does not know (1..N, N <= 100000)", 1)
		return
	}
	plan[lv] = v
	if (v)
		return
	if (substr(s, 1, 7) != " # SKIP") {
		broken("a plan of 0 tests without # SKIP and its reason", 1)
		return
	}
	add_case("ktap.plan", "skip")
	# Not a result the program printed: no totals count it.
	cnt[lv, "skip"]--
}
# The result a directive gives ("" or " DIRECTIVE reason").
function directive(ok, d,   w) {
	sub(/^ */, "", d)
	w = toupper(d)
	# As bench/ktap.c: the first four as prefixes ("SKIPPED:" skips).
	if (w ~ /^SKIP/)
		return "skip"
	if (w ~ /^XFAIL/)
		return ok ? "xfail" : "fail"
	if (w ~ /^XPASS/)
		return ok ? "xpass" : "fail"
	if (w ~ /^TODO/)
		return ok ? "xpass" : "xfail"
	# kselftest.h error: a failure its totals count apart.
	if (w ~ /^ERROR( |$)/)
		cnt[in_sub, "error"]++
	return ok && w !~ /^ERROR( |$)/ ? "pass" : "fail"
}
function case_result(ok, name, hasdir, dir,   r) {
	if (name == "") {
		broken("a result without a name", 1)
		return
	}
	r = hasdir ? directive(ok, dir) : ok ? "pass" : "fail"
	# A test the harness could not fork: a skip, as bench/ktap.c.
	if (r == "fail" && unspawned && !(hasdir && toupper(dir) ~ /^ *ERROR( |$)/)) {
		r = "skip"
		cnt[in_sub, "unspawned"]++
	}
	add_case(name, r)
}
# The runner result of a program: it closes the program.
function runner_result(ok, name, hasdir, dir,   prog, why, failed, i) {
	prog = runner_program(name)
	why = hasdir ? dir : ""
	if (prog == "") {
		broken("a case at the runner'"'"'s level (runner results are '"'"'selftests: DIR: PROG'"'"')", 1)
		return
	}
	if (!in_sub) {
		ctx = prog
		broken("no KTAP from " prog " before the runner'"'"'s result", 0)
		return
	}
	if (hashdr && header != prog) {
		broken("the runner'"'"'s result names " prog ", its header " header, 1)
		return
	}
	for (i = sub_first + 1; i <= n; i++) {
		if (cprog[i] == "")
			cprog[i] = prog
		if (cres[i] == "fail")
			failed = 1
	}
	in_sub = 0
	hashdr = 0
	header = ""
	ctx = prog
	sub(/^ */, "", why)
	if (plan[1] >= 0 && nxt[1] - 1 < plan[1])
		broken(prog ": " nxt[1] - 1 " of " plan[1] " planned tests reported (" (why != "" ? why : "crash or timeout") ")", 0)
	else if (plan[1] < 0)
		broken(prog " printed no plan", 0)
	else if (!ok && !failed && !index(why, "SKIP"))
		broken("the runner says " prog " failed (" why ") with no failing case", 0)
}
function result_line(lv, l,   ok, s, v, name, dir, hasdir, h) {
	ok = substr(l, 1, 3) == "ok "
	s = substr(l, ok ? 4 : 8)
	v = ktap_num(s)
	s = substr(s, numlen + 1)
	if (numlen == 10) {
		broken("a test number of more than 9 digits", 1)
		return
	}
	if (v < 0 || (s != "" && substr(s, 1, 1) != " ")) {
		broken("a result without a test number", 1)
		return
	}
	if (plan[lv] < 0) {
		broken("result " v " before the plan", 1)
		return
	}
	if (v != nxt[lv]) {
		broken("test number " v " where " nxt[lv] " was due (repeated or out of order)", 1)
		return
	}
	if (v > plan[lv]) {
		broken("test " v " beyond the plan of " plan[lv], 1)
		return
	}
	if (substr(s, 1, 1) == " ")
		s = substr(s, 2)
	# TAP'"'"'s optional "- " before the name is no part of it.
	if (substr(s, 1, 2) == "- ")
		s = substr(s, 3)
	name = s
	# kselftest.h prints "ok N # SKIP why": no name, the directive first.
	# The first blank before a "#": a tab is TAP'"'"'s whitespace too.
	h = substr(s, 1, 1) == "#" ? 0 : match(s, /[ \t]#/)
	if (!h && s ~ /^#( |$)/) {
		name = v
		dir = substr(s, 2)
		hasdir = 1
	} else if (h && (substr(s, h + 2, 1) == " " || substr(s, h + 2) == "" ||
		   toupper(substr(s, h + 2)) ~ /^(SKIP|XFAIL|XPASS|TODO|ERROR( |$))/)) {
		name = substr(s, 1, h - 1)
		dir = substr(s, h + 2)
		hasdir = 1
	}
	nxt[lv]++
	if (lv == 1)
		case_result(ok, name, hasdir, dir)
	else if (in_sub || runner || runner_program(name) != "")
		runner_result(ok, name, hasdir, dir)
	else
		case_result(ok, name, hasdir, dir)
}
function top_diag(d,   prog) {
	prog = runner_program(d)
	if (prog == "") {
		diag_line(d)
		return
	}
	runner = 1
	header = prog
	hashdr = 1
}
# One line of a level, its "# " nesting removed; lv 1: a program'"'"'s KTAP.
function level_line(lv, l) {
	if (l == "")
		return
	if (is_version(l))
		broken("a second version line", 1)
	else if (substr(l, 1, 3) == "1..")
		plan_line(lv, l)
	else if (substr(l, 1, 3) == "ok " || substr(l, 1, 7) == "not ok " || l == "ok" || l == "not ok")
		result_line(lv, l)
	else if (substr(l, 1, 1) == "#" && is_version(substr(l, 2 + (substr(l, 2, 1) == " "))))
		# Its results would pass for diagnostics: fail closed.
		broken("a KTAP level nested in a program'"'"'s (this reader reads two levels)", 1)
	else if (substr(l, 1, 1) == "#" && lv == 0 && !in_sub)
		top_diag(substr(l, 2 + (substr(l, 2, 1) == " ")))
	else if (substr(l, 1, 1) == "#")
		diag_line(substr(l, 2 + (substr(l, 2, 1) == " ")))
	else
		broken("not KTAP (text after a crash?): '"'"'" substr(l, 1, 60) "'"'"'", 1)
}
function ktap_line(l) {
	ctx = in_sub && hashdr ? header : ""
	if (lineno == 1) {
		if (!is_version(l))
			broken("no version line: KTAP starts with '"'"'TAP version 13'"'"', '"'"'TAP version 14'"'"' or '"'"'KTAP version 1'"'"'", 1)
		return
	}
	if (substr(l, 1, 2) == "# " && is_version(substr(l, 3))) {
		if (in_sub)
			broken("a second version line inside a program'"'"'s KTAP", 1)
		else if (plan[0] < 0)
			broken("a program'"'"'s KTAP before the runner'"'"'s plan", 1)
		in_sub = 1
		runner = 1
		level_reset(1)
		sub_first = n
		return
	}
	if (!in_sub || substr(l, 1, 1) != "#")
		level_line(0, l)
	else if (substr(l, 2, 1) == " " || l == "#")
		level_line(1, substr(l, 2 + (substr(l, 2, 1) == " ")))
	else
		broken("not KTAP inside a program'"'"'s KTAP: '"'"'" substr(l, 1, 60) "'"'"'", 1)
}
function ktap_end() {
	stop = 1
	ctx = in_sub && hashdr ? header : ""
	if (!lineno)
		broken("an empty file", 1)
	else if (in_sub)
		broken("end of file inside the KTAP of " (hashdr ? header : "a program") ": no result from the runner (killed?)", 1)
	else if (plan[0] < 0)
		broken("end of file and no plan", 1)
	else if (nxt[0] - 1 < plan[0])
		broken("end of file after " nxt[0] - 1 " of " plan[0] " planned results (crash or timeout)", 1)
}
# bl_printable(): a byte outside printable ASCII as \xNN, a backslash as
# \\, at most 200 bytes, then "..." (none when all 200 took 4 bytes: the
# host'"'"'s buffer is full then).
function printable(s,   out, i, k, c, w) {
	k = length(s)
	if (k <= 200 && s !~ /[^ -~]/ && !index(s, "\\"))
		return s
	out = ""
	for (i = 1; i <= k && i <= 200; i++) {
		c = substr(s, i, 1)
		if (c == "\\") {
			out = out "\\\\"
			w += 2
		} else if (ord[c] >= 32 && ord[c] <= 126) {
			out = out c
			w++
		} else {
			out = out sprintf("\\x%02x", ord[c])
			w += 4
		}
	}
	return k > 200 && w < 799 ? out "..." : out
}
# A LAVA name: letters, digits, "_", "." and "-".
function clean(s) {
	gsub(/[^A-Za-z0-9_.-]/, "_", s)
	return s
}
BEGIN {
	for (i = 1; i < 256; i++)
		ord[sprintf("%c", i)] = i
	ws = "[ " sprintf("%c%c%c%c%c", 9, 10, 11, 12, 13) "]*"
	num = ws "[-+]?[0-9]+" ws
	totals_re = "^Totals:" ws "pass:" num "fail:" num "xfail:" num "xpass:" num "skip:" num "error:" ws "[-+]?[0-9]+$"
	in_sub = runner = hashdr = n = nev = bad = stop = 0
	level_reset(0)
	level_reset(1)
	nul += 0
	nls += 0
}
{
	lineno = NR
	ctx = in_sub && hashdr ? header : ""
	if (length($0) + (NR <= nls) > 4096)
		broken("a line of " length($0) + (NR <= nls) " bytes, over the limit of 4096", 1)
	else if (NR == nul)
		broken("a NUL byte", 1)
	else if (NR > nls)
		broken("no newline at its end: the file is truncated", 1)
	else {
		line = $0
		sub(/\r$/, "", line)
		ktap_line(line)
	}
	if (stop)
		exit
}
END {
	if (!stop)
		ktap_end()
	if (mode == "lava") {
		for (i = 1; i <= nev; i++) {
			if (ev[i] == "c") {
				k = evcase[i]
				print "case " cres[k] " " (cprog[k] != "" ? clean(cprog[k]) : "bindlab") " " clean(cname[k])
			} else {
				print "bad " (evset[i] != "" ? clean(evset[i]) : "bindlab") " " evwhy[i]
			}
		}
		exit
	}
	for (i = 1; i <= n; i++)
		print cres[i] " " (cprog[i] != "" ? printable(cprog[i]) "/" : "") printable(cname[i])
	print "plan " (bad ? "broken" : "ok")
}'

# ktap_read MODE FILE: the reader (MODE parse or lava) on FILE.
ktap_read()
{
	nl=$(tr -cd '\n' <"$2" | wc -c)
	nul=$(tr -cd '\000\n' <"$2" | tr '\000' N | LC_ALL=C awk '/N/ { print NR; exit }')
	tr '\000' N <"$2" | LC_ALL=C awk -v mode="$1" -v nls="$nl" -v nul="${nul:-0}" \
		"$KTAP_AWK"
}

# ktap_stdin MODE: the reader on stdin, kept in a temporary file.
ktap_stdin()
{
	kin=$(mktemp) || die "no temporary file"
	cat >"$kin"
	ktap_read "$1" "$kin"
	rm -f "$kin"
}

parse()
{
	if ! [ -f "$1" ] || ! [ -r "$1" ]; then
		die "parse: cannot read '$1'"
	fi
	# The host's limit of an input file (BL_MAX_INPUT_BYTES).
	if [ "$(wc -c <"$1")" -gt 268435456 ]; then
		die "parse: '$1' is larger than 268435456 bytes"
	fi
	ktap_read parse "$1"
}

# The reader's lines (mode lava) -> result lines: one set per program; XFAIL
# is a pass, XPASS a failure (as the harness counts them); an error gets
# the failing ktap.plan of the set it broke (the program's, or bindlab's
# for the file itself), once a set, in place of a skipped ktap.plan.
# Expected programs ($1, words) that never showed fail too.
to_results()
{
	awk -v expect="$1" '
	function set(p) {
		if (p != cur) {
			out[++no] = "set " p
			plan = 0
		}
		cur = p
		seen[p] = 1
	}
	$1 == "case" {
		set($3)
		r = $2 == "xfail" ? "pass" : ($2 == "xpass" ? "fail" : $2)
		out[++no] = "case " $4 " " r
		if ($4 == "ktap.plan")
			plan = no
		next
	}
	$1 == "bad" {
		set($2)
		why = $0
		sub(/^bad [^ ]* /, "", why)
		print "bindlab-lava.sh: " $2 ": " why > "/dev/stderr"
		if (plan)
			out[plan] = "case ktap.plan fail"
		else
			out[plan = ++no] = "case ktap.plan fail"
	}
	END {
		for (i = 1; i <= no; i++)
			print out[i]
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
	printf 'TAP version 13\n1..1\n# selftests: net/bindlab: %s\n' "$prog"
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
		run_one "$p" "$dir" $run | tee /dev/stderr | ktap_stdin lava | to_results "$p"
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
			tee /dev/stderr | ktap_stdin lava | to_results "$progs"
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
results) ktap_stdin lava | to_results "$*" ;;
*) die "unknown mode '$mode'" ;;
esac
