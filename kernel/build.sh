#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal bootable x86_64 test kernel: tinyconfig plus
# kernel/config.fragment, optionally patched, out of tree and incremental.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

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
  -j, --jobs N          parallel jobs (default: nproc)
  -h, --help            this text
environment: BINDLAB_CACHE (default ~/.cache/bindlab), BINDLAB_NICE (nice
  level of make, default 19).
output: the bzImage path, last line of stdout; make's log in OUT/build.log.
exit: 0 built, 1 build or config failure, 2 usage
EOF
}

tree=
source=/usr/src/linux-source-6.12.tar.xz
patches=()
name=
out=
jobs=$(nproc)

while [ $# -gt 0 ]; do
	case $1 in
	-t|--tree) bl_need_arg "$1" $# "${2-}"; tree=$2; shift ;;
	-s|--source) bl_need_arg "$1" $# "${2-}"; source=$2; shift ;;
	-p|--patch) bl_need_arg "$1" $# "${2-}"; patches+=("$2"); shift ;;
	-n|--name) bl_need_arg "$1" $# "${2-}"; name=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-j|--jobs) bl_need_arg "$1" $# "${2-}"; jobs=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done

bl_want_uint --jobs "$jobs" 1
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
	bl_nice tar -xJf "$source" -C "$dest.tmp" --strip-components=1
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

# Every "=y" and "is not set" line of the fragment must survive olddefconfig.
check_config()
{
	local config=$1 bad=0 sym

	while read -r sym; do
		grep -qx "$sym=y" "$config" || { bl_log "config: $sym=y did not stick"; bad=1; }
	done < <(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=y$/\1/p' "$BL_KERNEL_DIR/config.fragment")
	while read -r sym; do
		grep -qx "$sym=y" "$config" && { bl_log "config: $sym should not be set"; bad=1; }
	done < <(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$BL_KERNEL_DIR/config.fragment")
	return "$bad"
}

kmake()
{
	bl_nice make -C "$src" O="$out" ARCH=x86_64 "$@" >> "$out/build.log" 2>&1
}

build_failed()
{
	bl_log "$1 failed; last lines of $out/build.log:"
	tail -n 25 "$out/build.log" >&2
	exit 1
}

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
treekey=$(basename "$tree")-$(printf %s "$tree" | bl_short_hash)

src=$tree
if [ ${#patches[@]} -gt 0 ]; then
	src=$BINDLAB_CACHE/src/$treekey-$name
	mkdir -p "$BINDLAB_CACHE/src"
	make_patched_tree "$src" "$variant"
fi
[ -n "$out" ] || out=$BINDLAB_CACHE/build/$treekey-$name
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Two makes in one build directory corrupt it: wait for the other one.
exec 9> "$out/.bindlab-lock"
flock 9
: > "$out/build.log"

# Regenerate .config only when the fragment changes: a fresh .config would
# not rebuild anything by itself, but this keeps make's view stable.
cfghash=$(cat "$BL_KERNEL_DIR/config.fragment" "$src/Makefile" | bl_short_hash)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.bindlab-config" 2>/dev/null)" != "$cfghash" ]; then
	bl_log "configuring $out"
	rm -f "$out/.bindlab-config"
	kmake tinyconfig || build_failed "make tinyconfig"
	(cd "$src" && bl_nice scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "$BL_KERNEL_DIR/config.fragment") >> "$out/build.log" 2>&1 ||
		build_failed "merge_config.sh"
	kmake olddefconfig || build_failed "make olddefconfig"
	check_config "$out/.config" || bl_die 1 "config fragment not honoured (see above)"
	echo "$cfghash" > "$out/.bindlab-config"
fi

bl_log "building $name from $src in $out (-j$jobs, nice $BINDLAB_NICE)"
start=$SECONDS
kmake -j"$jobs" bzImage || build_failed "make bzImage"
bl_log "built in $((SECONDS - start)) s"
echo "$out/arch/x86/boot/bzImage"
