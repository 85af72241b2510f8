#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every patch this project offers or carries, written git format-patch
# style in a throwaway git repository holding the few files of Debian's
# linux-source-6.12 that the patches touch (the lab's stock tree):
#
#   upstream/net-next/  bind_fastreuse.c and tcp_tw_reuse.c as net
#                       selftests, with their Makefile and .gitignore
#                       lines (the changelogs are below); two patches
#                       independent of each other, each made on the
#                       stock tree, so no series and no cover letter
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
# Each test and the Makefile line its own goes after: apart from each
# other's context, so either applies with or without the other.
TESTS=(bind_fastreuse tcp_tw_reuse)
declare -A AFTER=([bind_fastreuse]='^TEST_GEN_PROGS \+= bind_timewait$'
		  [tcp_tw_reuse]='^TEST_GEN_PROGS \+= sk_so_peek_off$')

bl_args "-o --out -s --source" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; bl_once --source; tarball=$2; shift ;;
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
for t in "${TESTS[@]}"; do
	[ -f "$BL_REPO_DIR/$t.c" ] || bl_die 1 "no $t.c"
done

changelog_bind_fastreuse()
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

changelog_tcp_tw_reuse()
{
	cat <<'EOF'
selftests: net: Add tcp_tw_reuse

Commit 79e9fed46038 ("net-tcp: extend tcp_tw_reuse sysctl to enable
loopback only optimization") made tcp_tw_reuse 0, 1 or 2, where 2
lets connect() take a TIME_WAIT socket over only when that socket is
provably loopback: bound to lo, or with an address of its own in
127/8, ::ffff:127.0.0.0/104 or ::1. No selftest checks any of it.

Add one that leaves the four ports of a narrowed ip_local_port_range
in TIME_WAIT and checks whether one more connect() succeeds, for each
value and each proof, IPv4, IPv6 and v4-mapped, against addresses put
on lo (no proof, though the traffic goes through lo) and without
timestamps (never). A refusal is shown to be the policy's: with
tcp_tw_reuse=1 the same connect() then succeeds. Where the kernel has
tcp_tw_reuse_delay it is set to 1 ms, else the test waits 2.1 s a row.
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

# format DIR PREFIX BASE [keep]: the commits after BASE as patches in
# $out/DIR, whose old NNNN-*.patch go first unless "keep" (a caller that
# writes several into DIR clears it once); no commit id, date or version.
format()
{
	local dir=$out/$1

	mkdir -p "$dir"
	[ "${4-}" = keep ] || rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
	git_w format-patch -q --zero-commit --no-signature --subject-prefix="$2" \
		-o "$dir" "$3..HEAD"
	sed -i '/^Date: /d' "$dir"/[0-9][0-9][0-9][0-9]-*.patch
}

# net_next TEST: TEST's own patch, made on stock, into upstream/net-next.
net_next()
{
	local t=$1

	git_w checkout -q -b "net-next-$t" stock
	cp "$BL_REPO_DIR/$t.c" "$work/linux/$NET/$t.c"
	insert_after "$work/linux/$NET/Makefile" "${AFTER[$t]}" "TEST_GEN_PROGS += $t"
	insert_sorted "$work/linux/$NET/.gitignore" "$t"
	git_w add -f "$NET"
	"changelog_$t" | git_w commit -q -s -F -
	format upstream/net-next "PATCH net-next" stock keep
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
mkdir -p "$out/upstream/net-next"
rm -f "$out/upstream/net-next"/[0-9][0-9][0-9][0-9]-*.patch
for t in "${TESTS[@]}"; do
	net_next "$t"
done
carried_fix
for b in "${bugs[@]}"; do
	bug_series "$b"
done
bl_log "wrote $(find "$out/upstream" "$out/kernel" -name '[0-9][0-9][0-9][0-9]-*.patch' | wc -l) patches under $out as $me"
