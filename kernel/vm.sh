#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel image in qemu with the bindlab programs in an initramfs, run
# the suite or a chosen command, bring its output, status and files back.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] -k BZIMAGE [--] [COMMAND [ARG...]]
  Boot BZIMAGE under qemu (one vCPU) with an initramfs holding busybox, the
  bindlab programs and their shared libraries; run COMMAND as root in /results
  (PATH has the programs; no COMMAND: every bindlab selftest present, KTAP).
  The guest's /results comes back to OUT over a second serial port.
options:
  -k, --kernel IMAGE    kernel image to boot (required)
  -c, --script TEXT     run the shell text TEXT instead of COMMAND
  -o, --out DIR         results directory (default: new dir under
                        \$BINDLAB_CACHE/runs); its path is printed last
  -b, --bindir DIR      where the programs are built (default: the repo)
  -T, --timeout SEC     whole-VM timeout (default 900)
  -m, --mem MB          guest memory (default 1024)
  -a, --accel MODE      auto (probe KVM once, cache the verdict), kvm or tcg
                        (default auto, or \$BINDLAB_ACCEL)
  -A, --append TEXT     extra kernel command line
  -I, --icount          a virtual clock, TCG only (auto picks TCG): one
                        instruction a nanosecond, the guest's idle time
                        skipped (-icount shift=0,sleep=off); the command
                        starts at the same early uptime whatever the host's
                        load and waits cost no wall time; not for benchmarks
  -v, --verbose         copy the guest console to stderr as it runs
  -h, --help            this text
OUT gets: console.log (serial console, kernel log and output), output.log
  (COMMAND's stdout+stderr: KTAP or bench text), status (its exit code),
  vm_status (ok, timeout, panic, no-result), every file COMMAND left in its
  working directory (e.g. bind_bench --json files).
exit: COMMAND's status when the guest reported one; 124 timeout (qemu killed);
  125 kernel panic or no result (boot failure, guest hang); 126 harness error
  (qemu or a tool missing, bad image); 2 usage
environment: BINDLAB_CACHE, BINDLAB_NICE (default 19), BINDLAB_ACCEL,
  BINDLAB_PROGRESS (seconds between progress lines on stderr, default 30)
EOF
}

kernel=
script=
out=
bindir=$BL_REPO_DIR
vm_timeout=900
mem=1024
accel=${BINDLAB_ACCEL:-auto}
append=
icount=0
verbose=0

while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) bl_need_arg "$1" $# "${2-}"; kernel=$2; shift ;;
	-c|--script) bl_need_arg "$1" $# "${2-}"; script=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-b|--bindir) bl_need_arg "$1" $# "${2-}"; bindir=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; vm_timeout=$2; shift ;;
	-m|--mem) bl_need_arg "$1" $# "${2-}"; mem=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; accel=$2; shift ;;
	-A|--append) bl_need_arg "$1" $# "${2-}"; append=$2; shift ;;
	-I|--icount) icount=1 ;;
	-v|--verbose) verbose=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done

[ -n "$kernel" ] || bl_usage_error "--kernel is required"
[ -f "$kernel" ] || bl_usage_error "no such kernel image: $kernel"
[ -d "$bindir" ] || bl_usage_error "no such directory: $bindir"
bl_want_uint --timeout "$vm_timeout" 1
bl_want_uint --mem "$mem" 128
case $accel in auto|kvm|tcg) ;; *) bl_usage_error "--accel: auto, kvm or tcg" ;; esac
[ "$accel" != kvm ] || [ "$icount" = 0 ] || bl_usage_error "--icount needs --accel tcg or auto"
[ -z "$script" ] || [ $# -eq 0 ] || bl_usage_error "give --script or a COMMAND, not both"

for tool in qemu-system-x86_64 cpio gzip base64 setpriv timeout; do
	command -v "$tool" > /dev/null || bl_die 126 "$tool not found (apt-get install qemu-system-x86 cpio)"
done
[ -x /bin/busybox ] || bl_die 126 "/bin/busybox not found (apt-get install busybox-static)"
bl_programs || exit 126

# Quote for the guest's busybox sh: single quotes, ' as '\''.
sh_quote()
{
	local a out=

	for a in "$@"; do
		out+="'${a//\'/\'\\\'\'}' "
	done
	echo "${out% }"
}

# Copy an executable and, through ldd, its shared libraries and loader,
# keeping their paths.
add_elf()
{
	local root=$1 bin=$2 lib

	cp "$bin" "$root/bindlab/"
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done < <(ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
					       $1 ~ /^\// { print $1 }')
}

make_initramfs()
{
	local root=$1 image=$2 p

	mkdir -p "$root"/{bin,bindlab,dev,proc,sys,tmp,results}
	cp /bin/busybox "$root/bin/busybox"
	cp "$BL_KERNEL_DIR/initramfs/init" "$root/init"
	cp "$BL_KERNEL_DIR/initramfs/run_suite.sh" "$root/bindlab/"
	# Every program the Makefile builds; the kselftests among them are
	# the default suite. A missing one would make an empty suite pass.
	for p in $BL_KSELFTESTS $BL_TOOLS; do
		[ -x "$bindir/$p" ] || bl_die 126 "no $p in $bindir (run make)"
		add_elf "$root" "$bindir/$p"
	done
	echo "$BL_KSELFTESTS" > "$root/bindlab/kselftests"
	{
		echo "# generated by vm.sh"
		if [ -n "$script" ]; then
			printf '%s\n' "$script"
		elif [ $# -gt 2 ]; then
			shift 2
			sh_quote "$@"
		else
			echo "sh /bindlab/run_suite.sh"
		fi
	} > "$root/bindlab/cmd.sh"
	# Not compressed: inflating it is the largest part of a boot under TCG
	# (0.6 s of 1.3 s to init), and the guest's first second counts.
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) > "$image"
}

qemu_pid=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	if [ -n "$qemu_pid" ]; then
		kill "$qemu_pid" 2> /dev/null || true
		wait "$qemu_pid" 2> /dev/null || true
	fi
	[ -z "${work:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Run qemu bounded: timeout kills it at the deadline, and PR_SET_PDEATHSIG
# on timeout and on qemu makes a SIGKILL of this script take both down.
run_qemu()
{
	local mode=$1 seconds=$2 dir=$3 initrd=$4 acc

	case $mode in
	kvm) acc=(-accel kvm -cpu host) ;;
	*) acc=(-accel tcg -cpu max) ;;
	esac
	[ "$icount" = 0 ] || acc+=(-icount "shift=0,sleep=off")
	: > "$dir/console.log"
	: > "$dir/data.log"
	# Not through a shell function: a backgrounded function is a subshell,
	# and PDEATHSIG must name this script as the parent.
	nice -n "$BINDLAB_NICE" setpriv --pdeathsig KILL -- \
		timeout -k 5 "$seconds" \
		setpriv --pdeathsig KILL -- \
		qemu-system-x86_64 "${acc[@]}" -smp 1 -m "$mem" \
		-nodefaults -display none -no-reboot -monitor none \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 $append" \
		-serial "file:$dir/console.log" -serial "file:$dir/data.log" \
		> "$dir/qemu.log" 2>&1 &
	qemu_pid=$!
	if [ "$verbose" = 1 ]; then
		tail -n +1 -f --pid="$qemu_pid" "$dir/console.log" >&2 &
	fi
	local rc=0
	vm_dir=$dir
	bl_wait_progress "$qemu_pid" "vm $(basename "$dir")" vm_state || rc=$?
	qemu_pid=
	return "$rc"
}

# What the guest is doing, from its console: booting, or the last line the
# command printed (a KTAP result, a bind_bench round) and the results so far.
# shellcheck disable=SC2317 # called through bl_wait_progress
vm_state()
{
	local con=$vm_dir/console.log line n

	if ! grep -q '^bindlab-vm: kernel' "$con"; then
		echo "booting"
		return
	fi
	n=$(grep -ac '^\(# \)*\(not \)\?ok [0-9]' "$con")
	line=$(tail -c 2000 "$con" | tr -d '\r' | grep -av '^[[:space:]#]*$' | tail -n 1)
	if [ "$n" -gt 0 ]; then
		echo "running, $n results so far, last: ${line:0:100}"
	else
		echo "running, last: ${line:0:100}"
	fi
}

# Does KVM boot our kernels here? Nested setups may abort or hang: one
# bounded tiny boot decides, and the verdict is cached per host kernel.
kvm_works()
{
	local cache dir verdict=no

	cache=$BINDLAB_CACHE/kvm-probe-$(uname -r)
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	if [ ! -f "$cache" ]; then
		dir=$work/probe
		mkdir -p "$dir"
		script=true make_initramfs "$dir/root" "$dir/initrd.cpio"
		if run_qemu kvm 30 "$dir" "$dir/initrd.cpio" &&
		   grep -q BINDLAB-RESULTS-END "$dir/data.log"; then
			verdict=yes
		fi
		mkdir -p "$BINDLAB_CACHE"
		echo "$verdict" > "$cache"
		bl_log "KVM probe: $verdict (cached in $cache)"
	fi
	[ "$(cat "$cache")" = yes ]
}

if [ -z "$out" ]; then
	mkdir -p "$BINDLAB_CACHE/runs"
	out=$(mktemp -d "$BINDLAB_CACHE/runs/vm-$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/vm_status" "$out/output.log"
work=$(mktemp -d "${TMPDIR:-/tmp}/bindlab-vm.XXXXXX")

make_initramfs "$work/root" "$work/initrd.cpio" "$@"

if [ "$accel" = auto ]; then
	accel=tcg
	# A virtual clock is TCG's: no KVM probe for it.
	if [ "$icount" = 0 ] && kvm_works; then
		accel=kvm
	fi
fi

bl_log "booting $kernel ($accel$([ "$icount" = 0 ] || echo " icount"), ${mem}M, timeout ${vm_timeout}s) -> $out"
start=$SECONDS
qrc=0
run_qemu "$accel" "$vm_timeout" "$out" "$work/initrd.cpio" || qrc=$?
elapsed=$((SECONDS - start))

vm_status=no-result
if grep -q '^BINDLAB-RESULTS-END' "$out/data.log"; then
	if sed -n '/^BINDLAB-RESULTS-BEGIN/,/^BINDLAB-RESULTS-END/p' "$out/data.log" |
	   sed '1d;$d' | tr -d '\r' | base64 -d | tar -xzf - -C "$out" 2> /dev/null &&
	   [ -f "$out/status" ]; then
		vm_status=ok
	fi
elif grep -q 'Kernel panic' "$out/console.log"; then
	vm_status=panic
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	vm_status=timeout
fi
rm -f "$out/data.log"
echo "$vm_status" > "$out/vm_status"

case $vm_status in
ok)
	rc=$(cat "$out/status")
	bl_log "guest exit status $rc after ${elapsed}s"
	;;
timeout)
	bl_log "timeout: no result after ${vm_timeout}s, qemu killed (see $out/console.log)"
	rc=124
	;;
panic)
	bl_log "kernel panic after ${elapsed}s:"
	grep -A 3 'Kernel panic' "$out/console.log" | head -n 4 >&2
	rc=125
	;;
*)
	if [ ! -s "$out/console.log" ] && [ "$qrc" != 0 ]; then
		bl_log "qemu failed (exit $qrc):"
		tail -n 5 "$out/qemu.log" >&2
		rc=126
	else
		bl_log "no result from the guest after ${elapsed}s (qemu exit $qrc); last console lines:"
		tail -n 5 "$out/console.log" >&2
		rc=125
	fi
	;;
esac
echo "$out"
exit "$rc"
