# SPDX-License-Identifier: GPL-2.0
#
# The known kernel bugs a KTAP log shows: one line per result of a
# known_bug.BUG.kernel test of bind_model_test, at any depth of "# "
# (a program's own KTAP, run_kselftest.sh's, a test component's log):
#
#   BUG STATE REPORT
#
# STATE: has (XFAIL: the kernel has the bug), fixed (XPASS: it passed,
# so the kernel fixed it), fail, skip or pass (a plain ok: a harness
# without XFAIL_ADD). REPORT: kernel/bugs/BUG/report.md when the test's
# own diagnostics name that bug ("known bug BUG") and the report exists
# under -v root=DIR (the repository); else "none", so a test that names
# no bug, or a bug without a report, never passes for a reported one.
#
# Usage: awk -v root=DIR -f tests/known_bugs.awk LOG...

function strip(s)
{
	while (s ~ /^# /)
		s = substr(s, 3)
	return s
}

# Does FILE exist and can it be read?
function readable(file,    line, rc)
{
	rc = (getline line < file)
	close(file)
	return rc >= 0
}

{
	line = strip($0)
	if (line ~ /known bug [A-Za-z0-9_]+$/) {
		named = line
		sub(/.*known bug /, "", named)
		said[named] = 1
		next
	}
	if (line !~ /^(not )?ok [0-9]+ /)
		next
	# Each result line ends the diagnostics of the test it reports.
	if (match(line, /^(not )?ok [0-9]+ known_bug\.[A-Za-z0-9_]+\.kernel( |$)/)) {
		name = line
		sub(/^(not )?ok [0-9]+ known_bug\./, "", name)
		sub(/\.kernel.*/, "", name)
		if (line ~ /^not ok/)
			state = "fail"
		else if (line ~ /# XFAIL/)
			state = "has"
		else if (line ~ /# XPASS/)
			state = "fixed"
		else if (line ~ /# SKIP/)
			state = "skip"
		else
			state = "pass"
		want = "kernel/bugs/" name "/report.md"
		report = "none"
		if ((name in said) && readable(root "/" want))
			report = want
		print name, state, report
	}
	delete said
}
