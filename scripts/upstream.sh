#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every patch this project offers or carries, written git format-patch
# style in a throwaway git repository holding the few files of Debian's
# linux-source-6.12 that the patches touch (the lab's stock tree):
#
#   upstream/net-next/  bind_fastreuse.c as a net selftest, with its
#                       Makefile and .gitignore lines (the changelog is
#                       below); one patch, so no cover letter
#   kernel/patches/     Zhewei Yuan's fastreuse fix as the lab's 6.12
#                       carries it: his From and trailers kept, a
#                       backport note, then the user's Signed-off-by
#   kernel/bugs/*/      the project's fix (0001, on the fixed tree) and
#                       selftest (0002) of each live bug, re-signed
#
# The kernel patches are their own source (message and diff); only their
# envelope is written here. Author and Signed-off-by come from the git
# identity (git config user.name and user.email), never invented. No
# commit id and no date: the same files give the same bytes, so a test
# can tell committed patches from stale ones.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../kernel/lib.sh
. "$(dirname "$0")/../kernel/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options]
  Write upstream/net-next/*.patch, kernel/patches/*.patch and
  kernel/bugs/*/000N-*.patch (each folder's old NNNN-*.patch go first).
options:
  -o, --out DIR     write under DIR (made if missing) instead of this
                    project: DIR/upstream/net-next/..., DIR/kernel/...
  -s, --source TAR  the kernel source tarball (default $tarball)
  -h, --help        this text
exit: 0 written, 1 failure, 2 usage or no git identity
EOF
}

tarball=/usr/src/linux-source-6.12.tar.xz
out=$BL_REPO_DIR
NET=tools/testing/selftests/net
TEST=bind_fastreuse

bl_args "-o --out -s --source" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; tarball=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"
[ -f "$tarball" ] || bl_usage_error "no such tarball: $tarball"
mkdir -p "$out" 2> /dev/null || bl_usage_error "cannot create $out"
out=$(cd "$out" && pwd)

name=$(git -C "$BL_REPO_DIR" config user.name || true)
email=$(git -C "$BL_REPO_DIR" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "$BL_PROG: no git identity (git config user.name and user.email): a patch needs its author's real Signed-off-by" >&2
	exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/upstream.XXXXXX")
trap 'rm -rf "$work"' EXIT
# From here on no configuration of the user's shapes the output (diff
# and format options); the identity goes in by the environment.
: > "$work/empty.gitconfig"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/empty.gitconfig GIT_CONFIG_COUNT=0
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
export GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z
me="$name <$email>"

carried=("$BL_REPO_DIR"/kernel/patches/0001-*.patch)
bugs=()
for d in "$BL_REPO_DIR"/kernel/bugs/*/; do
	[ -f "$(echo "$d"0001-*.patch)" ] && bugs+=("$(basename "$d")")
done
[ -f "${carried[0]}" ] || bl_die 1 "no kernel/patches/0001-*.patch"
[ -f "$BL_REPO_DIR/$TEST.c" ] || bl_die 1 "no $TEST.c"

changelog()
{
	cat <<'EOF'
selftests: net: Add bind_fastreuse

Since commit 8002d44fe84d ("tcp: Check hlist_empty(&tb->bhash2) instead
of hlist_empty(&tb->owners)."), the first bind() to a port leaves the
bind bucket's fastreuse caches unset: every later SO_REUSEADDR bind()
to the port, and SO_REUSEPORT ones to alternating addresses, scan all
its owners, so binding N sockets costs O(N^2). "tcp: Fix fastreuse
cache initialization on first bind" fixes it. No selftest catches the
regression: every bind() still succeeds, only slowly.

Add one that binds 4000 sockets with one reuse option to one port and
compares the median bind() time of the last 10% with the first 10%,
for SO_REUSEADDR and SO_REUSEPORT, one address or two in turn, IPv4
and IPv6, a fixed port or port 0. A growth above 3 fails; the verdict
is a ratio within one run, and with KSFT_MACHINE_SLOW=yes the test
binds 1000 sockets and a growth above the limit is XFAIL.
EOF
}

git_w()
{
	git -C "$work/linux" -c core.hooksPath="$work/no-hooks" "$@"
}

# The files every patch touches, from the tarball in one pass: the
# selftests' Makefile and .gitignore and each kernel patch's old files.
make_base()
{
	local top f files=()

	# Debian's tarball holds one directory named after it.
	top=$(basename "$tarball")
	top=${top%.tar.*}
	while read -r f; do
		files+=("$f")
	done < <({ echo "$NET/Makefile"; echo "$NET/.gitignore"
		   sed -n 's|^--- a/||p' "${carried[@]}" "$BL_REPO_DIR"/kernel/bugs/*/000[0-9]-*.patch; } | sort -u)
	mkdir -p "$work/linux"
	bl_nice tar -xJf "$tarball" -C "$work/linux" --strip-components=1 \
		"${files[@]/#/$top/}" || bl_die 1 "$tarball lacks a file the patches touch"
	git_w init -q -b stock
	git_w add -A -f
	git_w commit -q -m "$top: the files the patches touch"
}

# insert_after FILE PATTERN LINE: LINE after the line PATTERN matches.
insert_after()
{
	awk -v re="$2" -v add="$3" '{ print } !done && $0 ~ re { print add; done = 1 }
		END { exit !done }' "$1" > "$1.new" || bl_die 1 "no line /$2/ in $1"
	mv "$1.new" "$1"
}

# insert_sorted FILE LINE: LINE before the first later entry (C order).
insert_sorted()
{
	LC_ALL=C awk -v add="$2" 'NR > 1 && !done && $0 > add { print add; done = 1 }
		{ print } END { if (!done) print add }' "$1" > "$1.new"
	mv "$1.new" "$1"
}

# format DIR PREFIX BASE: the commits after BASE as patches in $out/DIR,
# whose old NNNN-*.patch go first; no commit id, no date, no version.
format()
{
	local dir=$out/$1

	mkdir -p "$dir"
	rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
	git_w format-patch -q --zero-commit --no-signature --subject-prefix="$2" \
		-o "$dir" "$3..HEAD"
	sed -i '/^Date: /d' "$dir"/[0-9][0-9][0-9][0-9]-*.patch
}

net_next()
{
	git_w checkout -q -b net-next stock
	cp "$BL_REPO_DIR/$TEST.c" "$work/linux/$NET/$TEST.c"
	insert_after "$work/linux/$NET/Makefile" '^TEST_GEN_PROGS \\+= bind_timewait$' \
		"TEST_GEN_PROGS += $TEST"
	insert_sorted "$work/linux/$NET/.gitignore" "$TEST"
	git_w add -f "$NET"
	changelog | git_w commit -q -s -F -
	format upstream/net-next "PATCH net-next" stock
}

# apply PATCH AUTHOR: PATCH's message and diff as a commit by AUTHOR
# ("" keeps PATCH's own), signed off by the user. An own patch loses
# the Signed-off-by lines it had (the user signs it alone); a carried
# one keeps its trailers, the user's sign-off added last.
apply()
{
	local p=$1 author=$2 from

	git_w mailinfo "$work/msg" "$work/diff" < "$p" > "$work/info" ||
		bl_die 1 "$p: not a patch"
	from=$(sed -n 's/^Author: //p' "$work/info")" <$(sed -n 's/^Email: //p' "$work/info")>"
	{
		sed -n 's/^Subject: //p' "$work/info"
		echo
		if [ -n "$author" ]; then
			grep -v '^Signed-off-by: ' "$work/msg"
		else
			cat "$work/msg"
		fi
	} > "$work/message"
	git_w apply --index "$work/diff" || bl_die 1 "$p does not apply"
	git_w commit -q -s --author="${author:-$from}" -F "$work/message"
}

carried_fix()
{
	git_w checkout -q -b fixed stock
	cp "${carried[0]}" "$work/carried.patch"
	apply "$work/carried.patch" ""
	format kernel/patches "PATCH 6.12" stock
}

bug_series()
{
	local b=$1 p

	git_w checkout -q -b "bug-$b" fixed
	for p in "$BL_REPO_DIR/kernel/bugs/$b"/000[0-9]-*.patch; do
		cp "$p" "$work/bug.patch"
		apply "$work/bug.patch" "$me"
	done
	format "kernel/bugs/$b" "PATCH net" fixed
}

make_base
net_next
carried_fix
for b in "${bugs[@]}"; do
	bug_series "$b"
done
bl_log "wrote $(find "$out/upstream" "$out/kernel" -name '[0-9][0-9][0-9][0-9]-*.patch' | wc -l) patches under $out as $me"
