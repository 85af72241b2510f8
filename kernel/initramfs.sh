#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an initramfs that holds an installed kselftest collection (see
# kernel/collection.sh) and what running it needs: busybox, GNU timeout and
# stdbuf for kselftest's runner, every shared library, and a chosen init.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2

usage()
{
	cat <<EOF
usage: $BL_PROG [options] -c COLLECTION -o IMAGE
  Write IMAGE, an uncompressed newc cpio: /init (INIT), /etc/bindlab-sysinit
  (mounts, loopback, fd limit; the inits source it), /bin/busybox,
  /usr/bin/timeout and /usr/bin/stdbuf from coreutils (runner.sh enforces
  the settings timeout only through /usr/bin/timeout), COLLECTION at
  /kselftest, and the shared libraries of every executable in it.
options:
  -c, --collection DIR  installed collection (kernel/collection.sh's output)
  -o, --out IMAGE       the cpio to write
  -i, --init FILE       PID 1 (default kernel/initramfs/init, the batch
                        init of vm.sh; kernel/initramfs/init-shell gives a
                        root shell on the console)
  -f, --file SRC=DEST   also copy SRC to DEST in the image; repeatable
  -w, --work DIR        staging directory, new or empty (one that holds
                        anything is refused, never emptied): made if
                        missing and removed at the end, an empty one
                        emptied again (default IMAGE.root)
  -h, --help            this text
exit: 0 written, 1 a tool or file missing, 2 usage
EOF
}

collection=
image=
init=$BL_KERNEL_DIR/initramfs/init
files=()
work=

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-c --collection -o --out -i --init -f --file -w --work" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-c|--collection) bl_need_arg "$1" $# "${2-}"; bl_once --collection; collection=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; image=$2; shift ;;
	-i|--init) bl_need_arg "$1" $# "${2-}"; bl_once --init; init=$2; shift ;;
	-f|--file) bl_need_arg "$1" $# "${2-}"; files+=("$2"); shift ;;
	-w|--work) bl_need_arg "$1" $# "${2-}"; bl_once --work; work=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"
[ -n "$collection" ] || bl_usage_error "--collection is required"
[ -n "$image" ] || bl_usage_error "--out is required"
[ -f "$init" ] || bl_usage_error "no such init: $init"
for f in ${files[@]+"${files[@]}"}; do
	if [[ $f != *=/* ]] || [ ! -f "${f%%=*}" ]; then
		bl_usage_error "--file wants SRC=/DEST, SRC a file: $f"
	fi
done
[ -n "$work" ] || work=$image.root

for tool in cpio ldd /bin/busybox /usr/bin/timeout /usr/bin/stdbuf; do
	command -v "$tool" > /dev/null ||
		bl_die 1 "$tool not found (apt-get install busybox-static cpio coreutils)"
done
if [ ! -x "$collection/run_kselftest.sh" ] || [ ! -f "$collection/kselftest-list.txt" ]; then
	bl_die 1 "not an installed kselftest collection: $collection (kernel/collection.sh)"
fi

# Copy a file, and for an ELF its shared libraries and loader (ldd), each
# at its own path.
add_file()
{
	local src=$1 dest=$2 lib

	mkdir -p "$work$(dirname "$dest")"
	cp -L "$src" "$work$dest"
	while read -r lib; do
		[ -e "$work$lib" ] && continue
		mkdir -p "$work$(dirname "$lib")"
		cp -L "$lib" "$work$lib"
	done < <(ldd "$src" 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
					      $1 ~ /^\// { print $1 }')
}

# The staging directory is this run's own: new, or empty. It goes at the
# end, whatever ends the run, but only what this run put there: one that
# holds anything (someone's, or an earlier run's) is refused.
made_work=
[ -e "$work" ] || [ -L "$work" ] || made_work=1
bl_own_dir --work "$work"
work=$BL_OWN_DIR
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	if [ -n "$made_work" ]; then
		rm -rf "$work"
	else
		find -H "$work" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	fi
}
trap cleanup EXIT
bl_trap_signals
mkdir -p "$work"/{bin,dev,proc,sys,tmp,results,root,etc}
cp /bin/busybox "$work/bin/busybox"
add_file "$init" /init
chmod +x "$work/init"
add_file "$BL_KERNEL_DIR/initramfs/sysinit" /etc/bindlab-sysinit
add_file /usr/bin/timeout /usr/bin/timeout
add_file /usr/bin/stdbuf /usr/bin/stdbuf
# stdbuf preloads its library from a directory built into it.
lib=
while read -r d; do
	[ -f "$d/libstdbuf.so" ] && lib=$d/libstdbuf.so && break
done < <(grep -ao '/usr/lib[a-z0-9/_-]*/coreutils' /usr/bin/stdbuf)
[ -n "$lib" ] || bl_die 1 "cannot find stdbuf's libstdbuf.so"
add_file "$lib" "$lib"
cp -a "$collection/." "$work/kselftest/"
while read -r -d '' f; do
	add_file "$f" "/kselftest/${f#"$collection"/}"
done < <(find "$collection" -type f -perm -u+x -print0)
for f in ${files[@]+"${files[@]}"}; do
	add_file "${f%%=*}" "${f#*=}"
done
# Not compressed: inflating it is the largest part of a boot under TCG
# (0.6 s of 1.3 s to init), and the guest's first second counts.
(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet) > "$image.tmp"
mv "$image.tmp" "$image"
