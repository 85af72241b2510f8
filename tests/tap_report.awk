# SPDX-License-Identifier: GPL-2.0
#
# Read one component's TAP/KTAP log (tests/run_all.sh) and report it:
# every case result, a failing case's own diagnostics under it, a program
# that crashed or timed out with the test it was running, and a plan that
# was not met. Counts go to the file named by -v counts=FILE as
# "pass fail skip xfail kernel".
#
# Cases are the innermost results. kselftest's runner nests each program's
# KTAP under "# " and adds one "selftests: DIR: PROG" result per program:
# those are programs, not cases, and are never counted as cases.
#
# The harness prints a test's diagnostics before its result, between its
# "RUN" line and "not ok"; tests/tap.sh prints them after. Which one a log
# uses shows by whether it has RUN lines.
#
# With -v detectors=FILE (the host kernel's kselftests only), a failing
# case whose name matches a TEST-GLOB of FILE is counted as "kernel": a
# verdict on the running kernel, reported with its figures; run_all.sh
# decides whether the kernel lab proved that detector in this run, from
# the "FACT<TAB>TEST" lines written to -v verdicts=FILE.
#
# -v logfile=PATH is named in every crash, timeout and plan message.

function glob_to_re(g) {
	gsub(/[.+?()|^$\[\]{}]/, "\\\\&", g)
	gsub(/\*/, ".*", g)
	return "^" g "$"
}

function load_detectors(file,    line, f, n) {
	n = 0
	while ((getline line < file) > 0) {
		sub(/#.*/, "", line)
		if (split(line, f, /[ \t]+/) < 2 || f[1] == "")
			continue
		det_re[++n] = glob_to_re(f[2])
		det_fact[n] = f[1]
	}
	close(file)
	return n
}

# Strip the "# " nesting prefixes; sets depth.
function unnest(l) {
	depth = 0
	while (substr(l, 1, 2) == "# ") {
		l = substr(l, 3)
		depth++
	}
	return l
}

function detector_of(name,    i) {
	for (i = 1; i <= ndet; i++)
		if (name ~ det_re[i])
			return det_fact[i]
	return ""
}

# The last 40 lines before the result: the harness's own reason is last.
function flush_pending(    i) {
	for (i = nbuf > 40 ? nbuf - 39 : 1; i <= nbuf; i++)
		print "  " buf[i]
	nbuf = 0
}

# A program ended (its runner result at depth d, or the end of the log,
# d = -1): a test with a RUN line and no result crashed or hung, and each
# plan given first below d must be met.
function end_program(how, d,    k) {
	if (running != "") {
		print "  not ok " running " # " how " while running (log: " logfile ")"
		fail++
		running = ""
	}
	for (k in expect) {
		if (k + 0 <= d)
			continue
		if (expect[k] != count[k]) {
			print "  not ok plan: " expect[k] " results planned, " \
				count[k] + 0 " reported (log: " logfile ")"
			fail++
		}
		delete expect[k]
		delete count[k]
	}
	nbuf = 0
}

function result(l, d,    name, bad, fact) {
	name = l
	sub(/^(not )?ok [0-9]+ /, "", name)
	bad = l ~ /^not ok/
	count[d]++
	if (name ~ /^selftests: /) {
		# exit=1 is the harness's "some test failed": counted already.
		if (bad && l !~ /# exit=1$/) {
			print "  " l " (log: " logfile ")"
			fail++
			end_program(l ~ /TIMEOUT/ ? "timed out" : "crashed", d)
		} else
			end_program("ended", d)
		return
	}
	sub(/ .*/, "", name)
	# Its diagnostics, if the harness printed them before the result.
	if (!bad || !has_run)
		nbuf = 0
	running = ""
	after = bad && !has_run
	if (!bad) {
		if (l ~ /# SKIP/)
			skip++
		else if (l ~ /# XFAIL/)
			xfail++
		else
			pass++
		print "  " l
		return
	}
	fact = ndet ? detector_of(name) : ""
	if (fact != "") {
		kernel++
		print "  not ok " name " # kernel verdict: " fact
		print fact "\t" name > verdicts
	} else {
		fail++
		print "  " l
	}
	flush_pending()
}

BEGIN {
	ndet = detectors != "" ? load_detectors(detectors) : 0
}

{
	raw = $0
	l = unnest(raw)
	if (l ~ /^(not )?ok [0-9]+ /) {
		result(l, depth)
		next
	}
	if (l ~ /^1\.\.[0-9]+/) {
		n = substr(l, 4) + 0
		# Plan first (the harness) is checked when the program ends;
		# plan last (tap.sh) now.
		if (count[depth] > 0) {
			if (count[depth] != n) {
				print "  not ok plan: " n " planned, " count[depth] \
					" reported (log: " logfile ")"
				fail++
			}
		} else {
			expect[depth] = n
		}
		next
	}
	if (l ~ /^ *RUN /) {
		has_run = 1
		running = l
		sub(/^ *RUN +/, "", running)
		sub(/ .*/, "", running)
		nbuf = 0
	}
	if (after && raw ~ /^#/) {
		print "  " raw
		next
	}
	after = 0
	if (has_run && raw ~ /^#/)
		buf[++nbuf] = raw
}

END {
	end_program("no result (log ended)", -1)
	printf "%d %d %d %d %d\n", pass, fail, skip, xfail, kernel > counts
}
