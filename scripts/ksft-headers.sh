#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the kselftest harness (lib.mk, kselftest_harness.h, kselftest.h,
# the runner), upstream's net/bind_wildcard.c (whose expectations
# bind_model_test checks its model against) and checkpatch.pl from Debian's
# linux-source-* tarball into a cache directory. They are dependencies, never part of this repository.
#   ksft-headers.sh DEST
set -eu
# shellcheck source=scripts/strict.sh
. "$(dirname "$0")/strict.sh"

[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
dest=$1
# DEST is replaced whole: only a cache this script made (its SOURCE file
# and harness), never a directory that holds anything else.
if [ -e "$dest" ] || [ -L "$dest" ]; then
	if [ -L "$dest" ] || [ ! -f "$dest/SOURCE" ] ||
		[ ! -f "$dest/tools/testing/selftests/lib.mk" ]; then
		echo "ksft-headers: $(bl_esc "$dest") exists and is no harness cache of ours: not replaced" >&2
		exit 2
	fi
fi

# Prefer 6.12: its harness has XFAIL support and it is the kernel the
# kernel lab builds. Any other linux-source works for the headers.
tarball=""
for t in /usr/src/linux-source-6.12.tar.xz /usr/src/linux-source-*.tar.*; do
	[ -f "$t" ] && { tarball=$t; break; }
done
if [ -z "$tarball" ]; then
	echo "ksft-headers: no /usr/src/linux-source-*.tar.* (apt-get install linux-source-6.12), or set KDIR" >&2
	exit 2
fi

top=$(basename "$tarball")
top=${top%.tar.*}
mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "${dest%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tar -xf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
	"$top/tools/testing/selftests/lib.mk" \
	"$top/tools/testing/selftests/kselftest.h" \
	"$top/tools/testing/selftests/kselftest_harness.h" \
	"$top/tools/testing/selftests/kselftest/*" \
	"$top/scripts/checkpatch.pl" \
	"$top/scripts/spelling.txt" \
	"$top/scripts/const_structs.checkpatch"
# Older trees have no bind_wildcard.c: model_upstream then SKIPs saying so.
tar -xf "$tarball" -C "$tmp" --strip-components=1 \
	"$top/tools/testing/selftests/net/bind_wildcard.c" 2> /dev/null || true
echo "$tarball" > "$tmp/SOURCE"
# Publish atomically: a half-unpacked cache must never look complete.
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
