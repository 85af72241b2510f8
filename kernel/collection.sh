#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The installed kselftest collection, as fleets build it: this project
# copied into a kernel tree as tools/testing/selftests/net/bindlab, then
# kselftest's own "make install". Cached under the project's source state.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2

usage()
{
	cat <<EOF
usage: $BL_PROG [options]
  Copy this project (its git ls-files, untracked but not ignored files
  included) into a scratch copy of a kernel tree's tools/testing/selftests
  as net/bindlab and run
    make -C tools/testing/selftests TARGETS=net/bindlab install INSTALL_PATH=DIR
  DIR gets run_kselftest.sh, kselftest-list.txt, kselftest/runner.sh and
  net/bindlab/ (programs, settings, config). DIR is kept under
  \$BINDLAB_CACHE/collection/KEY, KEY from the project's files, the
  selftests tree, the compiler and this script: the same state again
  builds nothing.
options:
  -t, --tree DIR        kernel tree: a git repository (its REV is used,
                        never checked out) or a plain source tree
                        (default \$BINDLAB_CACHE/lab/linux-6.12.git)
  -r, --rev REV         revision of a git --tree (default stock)
  -j, --jobs N          parallel jobs (default 2)
  -h, --help            this text
output: DIR, last line of stdout; make's log in DIR/../KEY.log on failure.
exit: 0 installed, 1 build or install failure, 2 usage
EOF
}

tree=$BINDLAB_CACHE/lab/linux-6.12.git
rev=stock
jobs=2

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-t --tree -r --rev -j --jobs" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-r|--rev) bl_need_arg "$1" $# "${2-}"; bl_once --rev; rev=$2; shift ;;
	-j|--jobs) bl_need_arg "$1" $# "${2-}"; bl_once --jobs; jobs=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"
bl_want_uint --jobs "$jobs" 1
# A git tree is read at REV through git archive; a plain tree as it is.
is_git=0
if git -C "$tree" rev-parse -q --verify "$rev:tools/testing/selftests/run_kselftest.sh" > /dev/null 2>&1; then
	is_git=1
elif [ ! -f "$tree/tools/testing/selftests/run_kselftest.sh" ]; then
	bl_usage_error "no tools/testing/selftests/run_kselftest.sh in $tree (at $rev if git)"
fi
bl_programs || exit 1

# The project's source files, NUL-separated, relative to the repository:
# what git knows or would add, so a new file counts before it is added.
project_files()
{
	if git -C "$BL_REPO_DIR" rev-parse -q --git-dir > /dev/null 2>&1; then
		git -C "$BL_REPO_DIR" ls-files -z -co --exclude-standard |
			(cd "$BL_REPO_DIR" && while IFS= read -r -d '' f; do
				[ -f "$f" ] && printf '%s\0' "$f"
			done)
		return
	fi
	# An unpacked release: every file but what make builds.
	local p not=()

	for p in $BL_KSELFTESTS $BL_TOOLS '*.o' '*.a'; do
		not+=(! -name "$p")
	done
	(cd "$BL_REPO_DIR" && find . -type f "${not[@]}" -printf '%P\0')
}

# The selftests tree's identity: its git tree id, or its files' hashes.
ksft_id()
{
	if [ "$is_git" = 1 ]; then
		git -C "$tree" rev-parse "$rev:tools/testing/selftests"
		return
	fi
	(cd "$tree/tools/testing/selftests" && find . -type f -print0 | sort -z |
		xargs -0 sha256sum) | sha256sum
}

collection_key()
{
	{
		project_files | sort -z | (cd "$BL_REPO_DIR" && xargs -0 sha256sum)
		ksft_id
		gcc --version | head -n 1
		cat "$0"
	} | sha256sum | cut -c 1-20
}

# A scratch selftests tree (with what its Makefiles include from outside
# tools/testing/selftests), never the tree itself: a git tree's worktree
# is the lab's, checked out by others.
scratch_tree()
{
	local dest=$1 p paths=(tools/testing/selftests tools/include scripts/subarch.include)

	mkdir -p "$dest"
	if [ "$is_git" = 1 ]; then
		git -C "$tree" archive "$rev" -- "${paths[@]}" | tar -xf - -C "$dest"
		return
	fi
	for p in "${paths[@]}"; do
		mkdir -p "$dest/$(dirname "$p")"
		cp -a "$tree/$p" "$dest/$p"
	done
}

# Every program the Makefile lists, the settings and the runner: an
# install missing one would run a smaller suite and pass.
check_install()
{
	local dir=$1 p

	for p in run_kselftest.sh kselftest/runner.sh net/bindlab/settings; do
		[ -f "$dir/$p" ] || { bl_log "install lacks $p"; return 1; }
	done
	for p in $BL_KSELFTESTS; do
		grep -qx "net/bindlab:$p" "$dir/kselftest-list.txt" ||
			{ bl_log "kselftest-list.txt lacks net/bindlab:$p"; return 1; }
	done
	for p in $BL_KSELFTESTS $BL_TOOLS; do
		[ -x "$dir/net/bindlab/$p" ] || { bl_log "install lacks net/bindlab/$p"; return 1; }
	done
}

install_collection()
{
	local dest=$1 log=$2 scratch

	scratch=$(mktemp -d "$BINDLAB_CACHE/collection/build.XXXXXX")
	# shellcheck disable=SC2064 # the path is fixed now
	trap "rm -rf '$scratch' '$dest.tmp'" EXIT
	scratch_tree "$scratch"
	mkdir -p "$scratch/tools/testing/selftests/net/bindlab"
	project_files | (cd "$BL_REPO_DIR" && tar --null -T - -cf -) |
		tar -xf - -C "$scratch/tools/testing/selftests/net/bindlab"
	rm -rf "$dest.tmp"
	bl_log "installing the collection from $tree ($rev) into $dest"
	if ! bl_nice make -C "$scratch/tools/testing/selftests" -j"$jobs" \
		TARGETS=net/bindlab install INSTALL_PATH="$dest.tmp" > "$log" 2>&1; then
		tail -n 20 "$log" >&2
		bl_die 1 "make install failed (log: $log)"
	fi
	check_install "$dest.tmp" || bl_die 1 "incomplete install (log: $log)"
	mv "$dest.tmp" "$dest"
	rm -rf "$scratch"
	trap - EXIT
}

mkdir -p "$BINDLAB_CACHE/collection"
key=$(collection_key)
dir=$BINDLAB_CACHE/collection/$key
# Two installs of one state take turns; the second finds the first's.
exec 9> "$BINDLAB_CACHE/collection/.lock"
flock 9
if [ ! -d "$dir" ]; then
	start=$SECONDS
	install_collection "$dir" "$BINDLAB_CACHE/collection/$key.log"
	bl_log "collection $key installed in $((SECONDS - start)) s"
fi
echo "$dir"
