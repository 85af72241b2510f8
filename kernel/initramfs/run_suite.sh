#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the VM: run each bindlab selftest present (default command of vm.sh)
# and summarize like kselftest's runner. Exit 1 if any test failed.

# vm.sh writes the Makefile's kselftests there.
tests=$(cat /bindlab/kselftests)
total=0
for t in $tests; do
	[ -x "/bindlab/$t" ] && total=$((total + 1))
done

echo "TAP version 13"
echo "1..$total"
if [ "$total" = 0 ]; then
	echo "# no bindlab selftest in /bindlab: nothing was tested"
	exit 1
fi
n=0
rc=0
for t in $tests; do
	[ -x "/bindlab/$t" ] || continue
	n=$((n + 1))
	echo "# selftests: bindlab: $t"
	# The status crosses the pipe through a file: no pipefail in POSIX sh.
	{ "/bindlab/$t" 2>&1; echo $? > /tmp/suite.status; } | sed 's/^/# /'
	st=$(cat /tmp/suite.status)
	case $st in
	0) echo "ok $n selftests: bindlab: $t" ;;
	4) echo "ok $n selftests: bindlab: $t # SKIP" ;;
	*) echo "not ok $n selftests: bindlab: $t # exit=$st"; rc=1 ;;
	esac
done
exit $rc
