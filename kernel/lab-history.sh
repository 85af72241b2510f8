#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A small git history of a kernel tree with a known culprit, to prove (and
# demonstrate) kernel/bisect.sh: commit 1 is the tree with a fix applied,
# commit 4 reverts the fix, the others are harmless.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] DEST
  Create (or reuse, if already complete) a git repository DEST holding:
    1  the tree with PATCH applied ("fast")
    2  harmless: Documentation/networking/ip-sysctl.rst
    3  harmless: a comment in net/ipv4/tcp.c
    4  PATCH reverted: the culprit ("slow")
    5  harmless: Documentation/networking/index.rst
    6  harmless: a comment in net/ipv4/af_inet.c
  DEST is a hard-linked copy of the tree; files the history touches are
  unshared first, so the tree is never written. Commit ids are fixed.
options:
  -t, --tree DIR    source tree (default \$BINDLAB_CACHE/linux-6.12)
  -p, --patch FILE  the fix (default kernel/patches/0001-*)
  -h, --help        this text
output: the culprit's full commit id on stdout
exit: 0 ok, 1 failure, 2 usage
EOF
}

tree=$BINDLAB_CACHE/linux-6.12
fix=$(echo "$BL_KERNEL_DIR"/patches/0001-*.patch)

while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; tree=$2; shift ;;
	-p|--patch) bl_need_arg "$1" $# "${2-}"; fix=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || bl_usage_error "want one DEST"
repo=$1
[ -f "$tree/Makefile" ] || bl_usage_error "not a kernel tree: $tree"
[ -f "$fix" ] || bl_usage_error "no such patch: $fix"

harmless=(Documentation/networking/ip-sysctl.rst net/ipv4/tcp.c
	  Documentation/networking/index.rst net/ipv4/af_inet.c)
last="lab 6: harmless change (${harmless[3]})"

export GIT_AUTHOR_NAME=bindlab GIT_AUTHOR_EMAIL=bindlab@localhost
export GIT_COMMITTER_NAME=bindlab GIT_COMMITTER_EMAIL=bindlab@localhost
export GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z"

git_lab()
{
	git -C "$repo" -c core.hooksPath=/dev/null "$@"
}

commit_harmless()
{
	local n=$1 f=$2

	if [[ $f == *.rst ]]; then
		printf '\n.. bindlab lab: harmless change %s\n' "$n" >> "$repo/$f"
	else
		printf '\n/* bindlab lab: harmless change %s */\n' "$n" >> "$repo/$f"
	fi
	git_lab commit -qam "lab $n: harmless change ($f)"
}

# A finished history ends in commit 6 with a clean tree; a stale bisect
# from an interrupted run is reset first.
if [ -d "$repo/.git" ]; then
	git_lab bisect reset -q > /dev/null 2>&1 || true
	if [ "$(git_lab log -1 --format=%s lab 2> /dev/null)" = "$last" ] &&
	   git_lab checkout -q lab && git_lab diff --quiet HEAD; then
		git_lab rev-parse lab~2
		exit 0
	fi
fi

bl_log "creating the lab history in $repo"
rm -rf "$repo"
bl_link_tree "$tree" "$repo.tmp"
for f in "${harmless[@]}" $(awk '/^\+\+\+ / { sub(/^b\//, "", $2); print $2 }' "$fix"); do
	cp -p "$repo.tmp/$f" "$repo.tmp/$f.unshare"
	mv "$repo.tmp/$f.unshare" "$repo.tmp/$f"
done
mv "$repo.tmp" "$repo"

patch -d "$repo" -p1 -s --no-backup-if-mismatch < "$fix"
git_lab init -q -b lab
# Debian's top-level .gitignore ignores everything: add by force.
bl_nice git -C "$repo" add -A -f
git_lab commit -qm "lab 1: $(basename "$tree") with $(basename "$fix")"
commit_harmless 2 "${harmless[0]}"
commit_harmless 3 "${harmless[1]}"
patch -d "$repo" -p1 -R -s --no-backup-if-mismatch < "$fix"
git_lab commit -qam "lab 4: revert $(basename "$fix") (the culprit)"
commit_harmless 5 "${harmless[2]}"
commit_harmless 6 "${harmless[3]}"
git_lab rev-parse lab~2
