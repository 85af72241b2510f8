#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A small git history of a kernel tree with a known culprit, to prove (and
# demonstrate) kernel/bisect.sh: commit 0 is the tree as is, commit 1 adds
# a fix, commit 4 reverts it, the others are harmless. One repository for
# the stock, fixed and bisect kernels lets them share one build directory.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2

usage()
{
	cat <<EOF
usage: $BL_PROG [options] DEST
  Create (or reuse, if already complete) a git repository DEST holding:
    0  the tree as is                                   (tag "stock")
    1  PATCH applied ("fast")                           (tag "fixed")
    2  harmless: Documentation/networking/ip-sysctl.rst
    3  harmless: a comment in net/ipv4/tcp.c
    4  PATCH reverted: the culprit ("slow")             (tag "culprit")
    5  harmless: Documentation/networking/index.rst
    6  harmless: a comment in net/ipv4/af_inet.c        (branch "lab")
  With --tree, DEST is a hard-linked copy of the tree; files the history
  touches are unshared first, so the tree is never written. With --source,
  DEST is unpacked from the tarball. Commit ids are fixed. DEST is made
  in DEST.tmp, renamed when complete. A DEST that is no complete lab
  history (its branch "lab" ends in commit 6, made by this script), or
  one with changes, is refused unless it is an empty directory: never
  reset or removed. A DEST.tmp another run left is removed only when that
  run made it (its .git says so) and is gone.
options:
  -t, --tree DIR        source tree (default \$BINDLAB_CACHE/linux-6.12)
  -s, --source TARBALL  unpack this kernel source tarball instead of --tree
  -p, --patch FILE      the fix (default kernel/patches/0001-*)
  -h, --help            this text
output: the culprit's full commit id on stdout
exit: 0 ok, 1 failure, 2 usage
EOF
}

tree=$BINDLAB_CACHE/linux-6.12
source=
fix=$(echo "$BL_KERNEL_DIR"/patches/0001-*.patch)

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-t --tree -s --source -p --patch" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; bl_once --source; source=$2; shift ;;
	-p|--patch) bl_need_arg "$1" $# "${2-}"; bl_once --patch; fix=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || bl_usage_error "want one DEST"
repo=$1
if [ -n "$source" ]; then
	[ -f "$source" ] || bl_usage_error "no such tarball: $source"
else
	[ -f "$tree/Makefile" ] || bl_usage_error "not a kernel tree: $tree"
fi
[ -f "$fix" ] || bl_usage_error "no such patch: $fix"

harmless=(Documentation/networking/ip-sysctl.rst net/ipv4/tcp.c
	  Documentation/networking/index.rst net/ipv4/af_inet.c)
last="lab 6: harmless change (${harmless[3]})"

# The lab's own commits, never sent anywhere: a name that is no one's
# (.invalid is reserved for that).
export GIT_AUTHOR_NAME=bindlab-lab GIT_AUTHOR_EMAIL=lab@bindlab.invalid
export GIT_COMMITTER_NAME=bindlab-lab GIT_COMMITTER_EMAIL=lab@bindlab.invalid
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

# DEST is this script's own only when its branch "lab" ends in the lab's
# commit 6, by the lab's own name (no one's): read before anything is
# done in it. Only such a DEST is reused; a stale bisect or checkout of an
# interrupted run is undone first. Anything else is someone's, refused,
# never reset or removed; an empty directory is taken.
[ "$repo" = / ] || repo=${repo%/}
if [ -d "$repo/.git" ] &&
   [ "$(git_lab log -1 --format='%ae %s' lab -- 2> /dev/null)" = "$GIT_AUTHOR_EMAIL $last" ]; then
	git_lab bisect reset -q > /dev/null 2>&1 || true
	if git_lab rev-parse -q --verify stock > /dev/null &&
	   git_lab rev-parse -q --verify fixed > /dev/null &&
	   git_lab rev-parse -q --verify culprit > /dev/null &&
	   git_lab checkout -q lab 2> /dev/null && git_lab diff --quiet HEAD; then
		git_lab rev-parse culprit
		exit 0
	fi
	bl_usage_error "$repo is a lab history with changes or without its tags: remove it, or give a new DEST"
fi
if [ -L "$repo" ] || { [ -e "$repo" ] && [ ! -d "$repo" ]; }; then
	bl_usage_error "$repo is no directory: give a new DEST"
fi
if [ -d "$repo" ] && [ -n "$(ls -A -- "$repo" 2> /dev/null)" ]; then
	bl_usage_error "$repo holds files and is no complete lab history: give a new or empty DEST"
fi

# DEST.tmp until the last commit: an interrupted run never leaves a
# repository that looks complete. Its .git (made first) carries our mark;
# a flock on it, held until this run ends, tells a live run's from a dead
# one's. A DEST.tmp without the mark is someone's: refused.
stage=$repo.tmp
mark=.git/bindlab-lab-history
claim_stage()
{
	local fd

	mkdir -p -- "$(dirname -- "$stage")" 2> /dev/null ||
		bl_usage_error "cannot create $(dirname -- "$stage")"
	if [ -e "$stage" ] || [ -L "$stage" ]; then
		if [ -L "$stage" ] || [ ! -f "$stage/$mark" ]; then
			bl_usage_error "$stage exists and is not a lab history's staging: give another DEST"
		fi
		{ exec {fd}< "$stage"; } 2> /dev/null || bl_usage_error "cannot open $stage"
		flock -n "$fd" || bl_usage_error "$stage is another run's, still running"
		bl_log "removing $stage, which an interrupted run left"
		rm -rf -- "$stage"
		exec {fd}<&-
	fi
	mkdir -- "$stage" || bl_usage_error "cannot create $stage"
	exec {stage_fd}< "$stage"
	flock -n "$stage_fd" || bl_usage_error "$stage is another run's, still running"
	git -C "$stage" -c core.hooksPath=/dev/null init -q -b lab
	echo "kernel/lab-history.sh staging, PID $$" > "$stage/$mark"
}

# link_tree SRC DEST: DEST (ours, with its .git) gets SRC's files as hard
# links, .git left out.
link_tree()
{
	local f

	for f in "$1"/* "$1"/.[!.]*; do
		[ -e "$f" ] || continue
		[ "$(basename "$f")" = .git ] && continue
		cp -al "$f" "$2/"
	done
}

make_tree()
{
	local f

	if [ -n "$source" ]; then
		bl_log "unpacking $source into $repo"
		bl_nice tar -xJf "$source" -C "$stage" --strip-components=1 --exclude='*/.git'
		return
	fi
	link_tree "$tree" "$stage"
	for f in "${harmless[@]}" $(awk '/^\+\+\+ / { sub(/^b\//, "", $2); print $2 }' "$fix"); do
		cp -p "$stage/$f" "$stage/$f.unshare"
		mv "$stage/$f.unshare" "$stage/$f"
	done
}

claim_stage
bl_log "creating the lab history in $repo"
make_tree
name=$(basename "${source:-$tree}")
repo_final=$repo
repo=$stage
# A kernel tree's worth of loose objects would start a repack that takes
# minutes of CPU behind our back; uncompressed objects are quicker to write.
git_lab config gc.auto 0
git_lab config maintenance.auto false
git_lab config core.compression 0
# Debian's top-level .gitignore ignores everything: add by force.
bl_nice git -C "$repo" add -A -f
git_lab commit -qm "lab 0: $name as is"
git_lab tag stock
patch -d "$repo" -p1 -s --no-backup-if-mismatch < "$fix"
git_lab commit -qam "lab 1: $name with $(basename "$fix")"
git_lab tag fixed
commit_harmless 2 "${harmless[0]}"
commit_harmless 3 "${harmless[1]}"
patch -d "$repo" -p1 -R -s --no-backup-if-mismatch < "$fix"
git_lab commit -qam "lab 4: revert $(basename "$fix") (the culprit)"
git_lab tag culprit
commit_harmless 5 "${harmless[2]}"
commit_harmless 6 "${harmless[3]}"
# -T: onto an empty DEST, never into it; one that gained files is kept.
mv -T "$repo" "$repo_final" ||
	bl_die 1 "cannot rename $repo to $repo_final (did something write into it?)"
rm -f "$repo_final/$mark"
git -C "$repo_final" rev-parse culprit
