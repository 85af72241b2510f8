#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fill-job.sh TEMPLATE KERNEL_URL RAMDISK_URL TESTDEF_URL: print the LAVA
# job of TEMPLATE (lava/jobs/*.yaml) with its {{ NAME }} placeholders
# filled. The one filler of the project (kernel/lava.sh, tests/lava_test.sh);
# a lab's own templating can fill the same names instead. Exit 2 on a bad
# call, a URL with a quote, blank, control character, byte above 0x7e,
# '|' or '\', or a placeholder left unfilled.
set -eu
# Numbers and character classes as in C, whatever the caller's locale
# (scripts/strict.sh's, for a script that runs without the repository).
export LC_ALL=C
unset LANGUAGE

die()
{
	echo "fill-job.sh: $*" >&2
	exit 2
}

[ $# -eq 4 ] || die "usage: fill-job.sh TEMPLATE KERNEL_URL RAMDISK_URL TESTDEF_URL"
[ -f "$1" ] || die "no such template: $1"
for url in "$2" "$3" "$4"; do
	case $url in
	# A URL is printable ASCII (RFC 3986 escapes the rest as %XX): a
	# byte above 0x7e is no YAML reader's UTF-8 either.
	''|*[!!-~]*|*[\"\'\|\\]*)
		# Shown as ^J, ^I...: the error stays one line.
		die "not a URL for a YAML string: '$(printf '%s' "$url" | cat -vt | sed -z 's/\n/^J/g')'" ;;
	esac
done
# sed's replacement reads '&' as the text replaced: a query's '&' escaped.
esc()
{
	printf '%s\n' "$1" | sed 's/&/\\&/g'
}
job=$(sed -e "s|{{ KERNEL_URL }}|$(esc "$2")|g" -e "s|{{ RAMDISK_URL }}|$(esc "$3")|g" \
	-e "s|{{ TESTDEF_URL }}|$(esc "$4")|g" "$1")
# Comments may name the placeholders; values may not keep one.
if printf '%s\n' "$job" | grep -v '^ *#' | grep -q '{{'; then
	die "$1: a placeholder other than KERNEL_URL, RAMDISK_URL, TESTDEF_URL"
fi
# A job not delivered (stdout closed, full, or a pipe nobody reads) is an
# error of the call, in one line: EPIPE, not SIGPIPE's silent 141.
trap '' PIPE
printf '%s\n' "$job" 2>/dev/null || die "stdout: the job could not be written"
