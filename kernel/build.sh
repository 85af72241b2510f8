#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal bootable x86_64 test kernel: tinyconfig plus
# kernel/config.fragment (and config.debug for a debug kernel, config.leak
# for a leak kernel), optionally patched, out of tree and incremental.

set -eEuo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 3
# A command of ours that fails unplanned is the harness's fault, not the
# tree's: exit 3, which bisect.sh reads as "abort", never as "skip".
trap 'bl_log "error: unexpected failure at line $LINENO"; exit 3' ERR

usage()
{
	cat <<EOF
usage: $BL_PROG [options]
  Build a minimal x86_64 bzImage (tinyconfig + kernel/config.fragment) with
  make O=DIR, so rebuilds are incremental. Patched variants build from a
  hard-linked copy of the tree (patched files unshared), so a stock and a
  patched variant never clobber each other or the tree.
options:
  -t, --tree DIR        kernel tree: a git checkout or an unpacked source
                        (default \$BINDLAB_CACHE/linux-6.12, unpacked from
                        --source on first use)
  -s, --source TARBALL  source for the default tree
                        (default /usr/src/linux-source-6.12.tar.xz)
  -p, --patch FILE      apply FILE with patch -p1; repeatable, in order
  -n, --name NAME       variant name (default: stock, or patched-HASH)
  -o, --out DIR         build directory, O= (default \$BINDLAB_CACHE/build/TREE-NAME)
  -d, --debug           a debug kernel: also kernel/config.debug (KASAN,
                        lockdep and PROVE_RCU, atomic-sleep and list
                        debugging); NAME gets "-debug" and O= is OUT-debug
                        (or the default for NAME): a debug build never
                        reconfigures a plain build's directory
  -l, --leak            a leak kernel: also kernel/config.leak (kmemleak,
                        on when booted with kmemleak=on); "-leak" as -d
  -j, --jobs N          parallel jobs (default: nproc)
  -h, --help            this text
A clean git checkout's image is kept in \$BINDLAB_CACHE/images under its
  tree id, the patches and the configuration: that source state again (a
  warm run, a bisect step seen before) builds nothing. Compiles go through
  ccache when it is installed (\$BINDLAB_CACHE/ccache), so a tree switched
  between commits recompiles only what is new.
environment: BINDLAB_CACHE (default ~/.cache/bindlab), BINDLAB_NICE (nice
  level of make, default 19), BINDLAB_CCACHE (0: no ccache), BINDLAB_PROGRESS
  (seconds between progress lines on stderr, default 30).
output: the bzImage path, last line of stdout; make's log in OUT/build.log.
exit: 0 built, 1 build or config failure (the tree's), 2 usage, 3 harness
  error (ours: a cache write failed), 128+N killed by signal N; make and its
  children never outlive this script (see kernel/lib.sh), and a build lock
  whose holder died is taken over
EOF
}

tree=
source=/usr/src/linux-source-6.12.tar.xz
patches=()
name=
out=
jobs=$(nproc)
fragments=("$BL_KERNEL_DIR/config.fragment")
# The extra fragments' mark on NAME and O=.
suffix=

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-t --tree -s --source -p --patch -n --name -o --out -j --jobs" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; bl_once --tree; tree=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; bl_once --source; source=$2; shift ;;
	-p|--patch) bl_need_arg "$1" $# "${2-}"; patches+=("$2"); shift ;;
	-n|--name) bl_need_arg "$1" $# "${2-}"; bl_once --name; name=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-j|--jobs) bl_need_arg "$1" $# "${2-}"; bl_once --jobs; jobs=$2; shift ;;
	-d|--debug) bl_once --debug; fragments+=("$BL_KERNEL_DIR/config.debug"); suffix+=-debug ;;
	-l|--leak) bl_once --leak; fragments+=("$BL_KERNEL_DIR/config.leak"); suffix+=-leak ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"

bl_want_uint --jobs "$jobs" 1
bl_check_env
bl_check_dir BINDLAB_CACHE "$BINDLAB_CACHE"
[[ -z $name || $name =~ ^[A-Za-z0-9._-]+$ ]] || bl_usage_error "--name: letters, digits, . _ - only"
for p in "${patches[@]}"; do
	[ -f "$p" ] || bl_usage_error "no such patch: $p"
done

# Unpack into a temporary name first: an interrupted unpack never looks
# like a tree.
unpack_default_tree()
{
	local dest=$1

	[ -f "$source" ] || bl_die 1 "no kernel source $source (apt-get install linux-source-6.12)"
	bl_log "unpacking $source into $dest"
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	tmp_paths+=("$dest.tmp")
	bl_run nice -n "$BINDLAB_NICE" tar -xJf "$source" -C "$dest.tmp" --strip-components=1 ||
		bl_die 1 "cannot unpack $source"
	mv "$dest.tmp" "$dest"
}

# Files a patch creates or changes, from its "+++ b/path" lines.
patched_files()
{
	awk '/^\+\+\+ / { sub(/^b\//, "", $2); if ($2 != "/dev/null") print $2 }' "$@" | sort -u
}

# A hard-linked copy costs seconds; each file a patch touches is first
# copied so the patch never writes through a link into the original tree.
make_patched_tree()
{
	local dest=$1 stamp=$2 f p

	if [ -f "$dest/.bindlab-patches" ] && [ "$(cat "$dest/.bindlab-patches")" = "$stamp" ]; then
		return 0
	fi
	bl_log "preparing patched tree $dest"
	rm -rf "$dest"
	tmp_paths+=("$dest.tmp")
	bl_link_tree "$tree" "$dest.tmp"
	while read -r f; do
		[ -f "$dest.tmp/$f" ] || continue
		cp -p "$dest.tmp/$f" "$dest.tmp/$f.bindlab-unlink"
		mv "$dest.tmp/$f.bindlab-unlink" "$dest.tmp/$f"
	done < <(patched_files "${patches[@]}")
	for p in "${patches[@]}"; do
		patch -d "$dest.tmp" -p1 --batch --forward --no-backup-if-mismatch -s < "$p" ||
			bl_die 1 "patch $p does not apply to $tree"
	done
	echo "$stamp" > "$dest.tmp/.bindlab-patches"
	mv "$dest.tmp" "$dest"
}

# Every "=y" and "is not set" line of the fragments must survive olddefconfig.
check_config()
{
	local config=$1 bad=0 sym

	while read -r sym; do
		grep -qx "$sym=y" "$config" || { bl_log "config: $sym=y did not stick"; bad=1; }
	done < <(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=y$/\1/p' "${fragments[@]}")
	while read -r sym; do
		grep -qx "$sym=y" "$config" && { bl_log "config: $sym should not be set"; bad=1; }
	done < <(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "${fragments[@]}")
	return "$bad"
}

# make never inherits the build lock's fd 9: a make left by a killed
# build must not hold the lock (and none is left, see bl_spawn).
kmake()
{
	bl_run nice -n "$BINDLAB_NICE" make -C "$src" O="$out" ARCH=x86_64 "$@" \
		>> "$out/build.log" 2>&1 9>&-
}

# ccache through its compiler links, not CC="ccache gcc": the command lines
# Kbuild records stay the same, so a build directory made without ccache
# stays valid. Fixed build stamps keep init/version.c's object the same too;
# nothing else in a kernel build depends on the time.
use_ccache()
{
	export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2025-01-01 00:00:00 UTC}
	export KBUILD_BUILD_USER=${KBUILD_BUILD_USER:-bindlab}
	export KBUILD_BUILD_HOST=${KBUILD_BUILD_HOST:-bindlab}
	export KBUILD_BUILD_VERSION=${KBUILD_BUILD_VERSION:-1}
	[ "${BINDLAB_CCACHE:-1}" != 0 ] && [ -x /usr/lib/ccache/gcc ] || return 0
	export PATH=/usr/lib/ccache:$PATH
	export CCACHE_DIR=$BINDLAB_CACHE/ccache
	ccache_on=1
}

# Hits and misses of the cache so far ("HITS MISSES"); builds sharing the
# cache at the same moment blur the difference of two readings.
ccache_counts()
{
	ccache --print-stats 2> /dev/null |
		awk -F '\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
			$1 == "cache_miss" { m = $2 } END { printf "%d %d\n", h, m }'
}

# What make has done so far, for the progress lines.
build_state()
{
	local n last

	# A build that compiles nothing (a commit that only moves a file) is
	# no error: grep finding no line must not trip the ERR trap.
	n=$(grep -c '^  CC ' "$out/build.log" || true)
	last=$(grep '^  [A-Z]' "$out/build.log" | tail -n 1 | awk '{ print $1, $2 }' || true)
	echo "$n objects compiled, last: ${last:-none}"
}

# make in the background, so that progress can be printed; a signal to
# this script takes make's whole tree down (bl_trap_signals).
kmake_watched()
{
	local what=$1 rc=0

	shift
	bl_spawn nice -n "$BINDLAB_NICE" make -C "$src" O="$out" ARCH=x86_64 "$@" \
		>> "$out/build.log" 2>&1 9>&-
	bl_wait_progress "$BL_CHILD" "$what" build_state || rc=$?
	return "$rc"
}

# The source state an image is cached under, or nothing: a tree that is not
# the top of a clean git checkout has no name for its state.
image_key()
{
	local top id

	top=$(git -C "$tree" rev-parse --show-toplevel 2> /dev/null) || return 0
	[ "$top" = "$tree" ] || return 0
	id=$(git -C "$tree" rev-parse -q --verify 'HEAD^{tree}') || return 0
	[ -z "$(git -C "$tree" status --porcelain 2> /dev/null | head -n 1)" ] || return 0
	{
		echo "$id"
		cat ${patches[@]+"${patches[@]}"} "${fragments[@]}" "$0"
		gcc --version | head -n 1
	} | sha256sum | cut -c 1-20
}

build_failed()
{
	bl_log "$1 failed; last lines of $out/build.log:"
	tail -n 25 "$out/build.log" >&2
	exit 1
}

# What a signal or an error leaves half made goes; a SIGKILL's leftovers
# are tmp names that the next build removes before it writes them again.
tmp_paths=()
lock=
on_exit()
{
	[ ${#tmp_paths[@]} = 0 ] || rm -rf "${tmp_paths[@]}"
	[ -z "$lock" ] || bl_unlock 9 "$lock"
}
trap on_exit EXIT
bl_trap_signals

if [ -z "$tree" ]; then
	tree=$BINDLAB_CACHE/linux-6.12
	[ -d "$tree" ] || unpack_default_tree "$tree"
fi
if [ ! -f "$tree/Makefile" ] || [ ! -d "$tree/arch/x86" ]; then
	bl_usage_error "not a kernel tree: $tree"
fi
tree=$(cd "$tree" && pwd)

variant=stock
if [ ${#patches[@]} -gt 0 ]; then
	variant=patched-$(cat "${patches[@]}" | bl_short_hash)
fi
[ -n "$name" ] || name=$variant
[[ $name == *"$suffix" ]] || name+=$suffix
treekey=$(basename "$tree")-$(printf %s "$tree" | bl_short_hash)

key=$(image_key)
cached=$BINDLAB_CACHE/images/$key/bzImage

# An image of this source state exists: print it and build nothing.
use_cached_image()
{
	[ -n "$key" ] && [ -f "$cached" ] || return 0
	bl_log "$name: cached image of $tree at $(git -C "$tree" rev-parse --short HEAD)"
	echo "$cached"
	exit 0
}
use_cached_image

src=$tree
if [ ${#patches[@]} -gt 0 ]; then
	src=$BINDLAB_CACHE/src/$treekey-$name
	mkdir -p "$BINDLAB_CACHE/src"
	make_patched_tree "$src" "$variant"
fi
if [ -z "$out" ]; then
	out=$BINDLAB_CACHE/build/$treekey-$name
elif [ -n "$suffix" ]; then
	out=${out%/}$suffix
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Two makes in one build directory corrupt it: wait for the other one.
# Appended to, not truncated: the file holds the owner's record.
exec 9>> "$out/.bindlab-lock"
bl_lock 9 "$out/.bindlab-lock" "build lock"
lock=$out/.bindlab-lock
# The build we waited for may have made it.
use_cached_image
: > "$out/build.log"
ccache_on=0
use_ccache

# Regenerate .config only when the fragment changes: a fresh .config would
# not rebuild anything by itself, but this keeps make's view stable.
cfghash=$(cat "${fragments[@]}" "$src/Makefile" | bl_short_hash)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.bindlab-config" 2>/dev/null)" != "$cfghash" ]; then
	bl_log "configuring $out"
	rm -f "$out/.bindlab-config"
	kmake tinyconfig || build_failed "make tinyconfig"
	bl_run env -C "$src" nice -n "$BINDLAB_NICE" scripts/kconfig/merge_config.sh \
		-m -O "$out" "$out/.config" "${fragments[@]}" >> "$out/build.log" 2>&1 9>&- ||
		build_failed "merge_config.sh"
	kmake olddefconfig || build_failed "make olddefconfig"
	check_config "$out/.config" || bl_die 1 "config fragment not honoured (see above)"
	echo "$cfghash" > "$out/.bindlab-config"
fi

bl_log "building $name from $src in $out (-j$jobs, nice $BINDLAB_NICE, ccache $([ "$ccache_on" = 1 ] && echo on || echo off))"
start=$SECONDS
before="0 0"
[ "$ccache_on" = 0 ] || before=$(ccache_counts)
kmake_watched "building $name" -j"$jobs" bzImage || build_failed "make bzImage"
stats=$(build_state)
if [ "$ccache_on" = 1 ]; then
	read -r h0 m0 <<< "$before"
	read -r h1 m1 <<< "$(ccache_counts)"
	stats+=", ccache $((h1 - h0)) hits, $((m1 - m0)) misses"
fi
bl_log "built $name in $((SECONDS - start)) s ($stats)"
image=$out/arch/x86/boot/bzImage
if [ -n "$key" ]; then
	# Copied under a temporary name: a half-copied image is never found.
	mkdir -p "$BINDLAB_CACHE/images/$key"
	tmp_paths+=("$BINDLAB_CACHE/images/$key/bzImage.tmp.$$")
	cp "$image" "$BINDLAB_CACHE/images/$key/bzImage.tmp.$$"
	cp "$out/.config" "$BINDLAB_CACHE/images/$key/config"
	mv "$BINDLAB_CACHE/images/$key/bzImage.tmp.$$" "$cached"
	image=$cached
fi
echo "$image"
