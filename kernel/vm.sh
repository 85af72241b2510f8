#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel image in qemu with the installed kselftest collection in an
# initramfs, run it with kselftest's run_kselftest.sh or a chosen command,
# bring its output, status and files back.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 126

usage()
{
	cat <<EOF
usage: $BL_PROG [options] -k BZIMAGE [--] [COMMAND [ARG...]]
  Boot BZIMAGE under qemu (one vCPU) with an initramfs (kernel/initramfs.sh)
  holding the installed kselftest collection at /kselftest, as fleets run
  it; run COMMAND as root in /results (PATH has run_kselftest.sh and the
  programs). No COMMAND: run_kselftest.sh -c net/bindlab, whose per-test
  timeout comes from net/bindlab/settings; its status is 1 unless every
  program of the plan passed or skipped (run_kselftest.sh itself exits 0).
  The guest's /results comes back to OUT over a second serial port.
options:
  -k, --kernel IMAGE    kernel image to boot (required)
  -c, --script TEXT     run the shell text TEXT instead of COMMAND
  -o, --out DIR         results directory, new or empty (default: a new
                        dir under \$BINDLAB_CACHE/runs); its path is printed last
  -C, --collection DIR  installed collection (default: kernel/collection.sh's,
                        built from this project's files)
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
  vm_status (ok, bad-status, timeout, panic, no-result, boot-failed, qemu-failed,
  write-failed: OUT took no more data, a full disk), boots (how many
  boots it took), every file COMMAND left in its working directory (e.g.
  bind_bench --json files).
A boot that dies before the command starts (the guest never printed
  "bindlab-vm: kernel", within BINDLAB_BOOT_TIMEOUT seconds) says nothing
  about the kernel's bind path: that boot's console is kept as
  console.boot1.log and the VM boots once more. The guest kernel gets
  no_timer_check: on a loaded host a TCG guest's timer check fails
  ("IO-APIC + timer doesn't work!") and panics a sound kernel.
exit: COMMAND's status when the guest reported one; 124 timeout (qemu killed);
  125 kernel panic or no result after the command started (guest hang,
  crash); 123 both boots died before the command started (an
  infrastructure failure, never a verdict on the kernel); 126 harness error
  (qemu or a tool missing, bad image, OUT full); 2 usage; 128+N killed by signal N
  (qemu and every helper gone)
environment: BINDLAB_CACHE, BINDLAB_NICE (default 19), BINDLAB_ACCEL,
  BINDLAB_PROGRESS (seconds between progress lines on stderr, default 30),
  BINDLAB_BOOT_TIMEOUT (seconds from qemu's start to the command's, default
  600, at most --timeout)
EOF
}

kernel=
script=
out=
collection=
vm_timeout=900
mem=1024
accel=${BINDLAB_ACCEL:-auto}
append=
icount=0
verbose=0

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-k --kernel -c --script -o --out -C --collection -T --timeout -m --mem -a --accel -A --append" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) bl_need_arg "$1" $# "${2-}"; bl_once --kernel; kernel=$2; shift ;;
	-c|--script) bl_need_arg "$1" $# "${2-}"; bl_once --script; script=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-C|--collection) bl_need_arg "$1" $# "${2-}"; bl_once --collection; collection=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; vm_timeout=$2; shift ;;
	-m|--mem) bl_need_arg "$1" $# "${2-}"; bl_once --mem; mem=$2; shift ;;
	-a|--accel) bl_need_arg "$1" $# "${2-}"; bl_once --accel; accel=$2; shift ;;
	-A|--append) bl_need_arg "$1" $# "${2-}"; bl_once --append; append=$2; shift ;;
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
[ -z "$collection" ] || [ -d "$collection" ] || bl_usage_error "no such directory: $collection"
bl_want_uint --timeout "$vm_timeout" 1
bl_want_uint --mem "$mem" 128
case $accel in auto|kvm|tcg) ;; *) bl_usage_error "--accel: auto, kvm or tcg" ;; esac
[ "$accel" != kvm ] || [ "$icount" = 0 ] || bl_usage_error "--icount needs --accel tcg or auto"
[ -z "$script" ] || [ $# -eq 0 ] || bl_usage_error "give --script or a COMMAND, not both"
bl_check_env
# A boot beside two CPU hogs at nice -5, qemu at nice 19, took 240-270 s
# to reach the command: the deadline is for hangs, not for slow boots.
boot_timeout=${BINDLAB_BOOT_TIMEOUT:-600}
bl_num "$boot_timeout" 1 86400 || bl_usage_error "BINDLAB_BOOT_TIMEOUT wants seconds in [1, 86400]"
[ "$boot_timeout" -le "$vm_timeout" ] || boot_timeout=$vm_timeout

for tool in qemu-system-x86_64 setpriv timeout; do
	command -v "$tool" > /dev/null || bl_die 126 "$tool not found (apt-get install qemu-system-x86)"
done
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

# The guest's command when none is given: the collection as fleets run
# it, judged by the companion's one KTAP reader (bindlab_results ktap,
# on the guest's PATH with the collection): every program's cases and
# plan, and the runner's line for each program. Its stderr names what
# failed and why a plan broke.
default_cmd()
{
	cat <<'EOF'
run_kselftest.sh -c net/bindlab | tee /tmp/ktap
bindlab_results ktap /tmp/ktap > /dev/null
EOF
}

# make_initramfs DIR IMAGE [COMMAND...]: the collection, every program the
# Makefile lists (a missing one would make an empty suite pass), the batch
# init and the command it runs.
make_initramfs()
{
	local dir=$1 image=$2 p

	for p in $BL_KSELFTESTS $BL_TOOLS; do
		[ -x "$collection/net/bindlab/$p" ] || bl_die 126 "no net/bindlab/$p in $collection (kernel/collection.sh)"
	done
	mkdir -p "$dir"
	{
		echo "# generated by vm.sh"
		if [ -n "$script" ]; then
			printf '%s\n' "$script"
		elif [ $# -gt 2 ]; then
			shift 2
			sh_quote "$@"
		else
			default_cmd
		fi
	} > "$dir/cmd.sh"
	# Dies with this script, as qemu does: a SIGKILL leaves no builder.
	bl_run "$BL_KERNEL_DIR/initramfs.sh" -c "$collection" \
		-o "$image" -w "$dir/root" -f "$dir/cmd.sh=/etc/bindlab-cmd.sh" ||
		bl_die 126 "initramfs.sh failed"
}

qemu_pid=
# Set once this run made it: never a "work" from the environment.
work=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	if [ -n "$qemu_pid" ]; then
		kill "$qemu_pid" 2> /dev/null || true
		wait "$qemu_pid" 2> /dev/null || true
	fi
	[ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
bl_trap_signals

# Run qemu bounded: timeout kills it at the deadline, and PR_SET_PDEATHSIG
# on timeout and on qemu makes a SIGKILL of this script take both down.
# A parent that died before the child's prctl() sends nothing: each link
# checks, after setpriv, that its parent is still the one it was started
# by (the script for timeout, timeout for qemu), else it stops there.
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
	# shellcheck disable=SC2016 # expanded by the links' own sh
	nice -n "$BINDLAB_NICE" setpriv --pdeathsig KILL -- \
		sh -c '[ "$PPID" = "$0" ] && BL_VM_LINK=$$ && export BL_VM_LINK && exec "$@"' "$$" \
		timeout -k 5 "$seconds" \
		setpriv --pdeathsig KILL -- \
		sh -c '[ "$PPID" = "$BL_VM_LINK" ] && exec "$@"' sh \
		qemu-system-x86_64 "${acc[@]}" -smp 1 -m "$mem" \
		-nodefaults -display none -no-reboot -monitor none \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 no_timer_check $append" \
		-serial "file:$dir/console.log" -serial "file:$dir/data.log" \
		> "$dir/qemu.log" 2>&1 &
	qemu_pid=$!
	if [ "$verbose" = 1 ]; then
		tail -n +1 -f --pid="$qemu_pid" "$dir/console.log" >&2 &
	fi
	local rc=0
	vm_dir=$dir
	wait_qemu "$dir/console.log" || rc=$?
	qemu_pid=
	return "$rc"
}

# boot_tick SECONDS: the boot deadline, checked while qemu runs: a guest
# that has not started the command boot_timeout seconds after qemu did is
# hung in boot; qemu is stopped (timeout passes TERM on), status 124.
# shellcheck disable=SC2317 # called through bl_wait_progress
boot_tick()
{
	if [ "$booted" = 0 ] && payload_started "$console"; then
		booted=1
	fi
	if [ "$booted" = 0 ] && [ "$1" -ge "$boot_timeout" ]; then
		bl_log "no command start after ${boot_timeout}s: the boot hangs, qemu stopped"
		boot_hung=1
		booted=-1
		kill -TERM "$qemu_pid" 2> /dev/null
	fi
}

# wait_qemu CONSOLE: wait for qemu with progress lines and boot_tick.
wait_qemu()
{
	booted=0
	boot_hung=0
	console=$1
	bl_wait_progress "$qemu_pid" "vm $(basename "$vm_dir")" vm_state boot_tick
}

# payload_started CONSOLE: the init's start line (kernel/initramfs/init),
# printed just before the command runs.
payload_started()
{
	grep -aq '^bindlab-vm: kernel' "$1" 2> /dev/null
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
		script=true make_initramfs "$dir" "$dir/initrd.cpio"
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

# This run's own OUT: files an earlier run left there (a guest's case
# files, a status) would be read as this run's.
if [ -n "$out" ]; then
	bl_own_dir --out "$out"
else
	bl_own_dir --out "$BINDLAB_CACHE/runs/vm-$(date +%Y%m%d-%H%M%S)" next
fi
out=$BL_OWN_DIR
# The initramfs is staged in the run's own directory: a SIGKILL of this
# script (no EXIT trap) leaves it there, where the caller's cleanup of OUT
# takes it, never in a shared /tmp.
work=$out/.vm-work
mkdir "$work"
if [ -z "$collection" ]; then
	# Waited for, not a $(...): a signal gets in, and the build dies with us.
	bl_run "$BL_KERNEL_DIR/collection.sh" > "$work/collection.out" ||
		bl_die 126 "no installed collection (kernel/collection.sh failed)"
	collection=$(tail -n 1 "$work/collection.out")
fi

make_initramfs "$work" "$work/initrd.cpio" "$@"

if [ "$accel" = auto ]; then
	accel=tcg
	# A virtual clock is TCG's: no KVM probe for it.
	if [ "$icount" = 0 ] && kvm_works; then
		accel=kvm
	fi
fi

# boot_once: one boot into OUT; sets vm_status (ok, panic, timeout,
# no-result, qemu-failed) and started (the command began).
boot_once()
{
	local qrc=0

	run_qemu "$accel" "$vm_timeout" "$out" "$work/initrd.cpio" || qrc=$?
	started=0
	payload_started "$out/console.log" && started=1
	vm_status=no-result
	if grep -q '^BINDLAB-RESULTS-END' "$out/data.log"; then
		if sed -n '/^BINDLAB-RESULTS-BEGIN/,/^BINDLAB-RESULTS-END/p' "$out/data.log" |
		   sed '1d;$d' | tr -d '\r' | base64 -d | tar -xzf - -C "$out" 2> /dev/null &&
		   [ -f "$out/status" ]; then
			vm_status=ok
			bl_num "$(cat "$out/status")" 0 255 || vm_status=bad-status
		fi
	elif grep -q 'Kernel panic' "$out/console.log"; then
		vm_status=panic
	elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ] || [ "$boot_hung" = 1 ]; then
		vm_status=timeout
	elif [ ! -s "$out/console.log" ] && [ "$qrc" != 0 ]; then
		vm_status=qemu-failed
	fi
	qemu_rc=$qrc
	rm -f "$out/data.log"
	# A result lost because OUT took no more data (qemu's serial files,
	# the unpacking) is the machine's fault, never the kernel's.
	[ "$vm_status" = ok ] || out_has_room || vm_status=write-failed
}

# out_has_room: OUT still takes a MiB.
out_has_room()
{
	local rc=0

	head -c 1048576 /dev/zero 2> /dev/null > "$out/.vm-room" || rc=1
	rm -f "$out/.vm-room"
	return "$rc"
}

# A boot that died before the command started: its console is kept, and
# the caller boots again.
boot_died()
{
	[ "$vm_status" != ok ] && [ "$vm_status" != qemu-failed ] &&
		[ "$vm_status" != write-failed ] && [ "$started" = 0 ]
}

bl_log "booting $kernel ($accel$([ "$icount" = 0 ] || echo " icount"), ${mem}M, timeout ${vm_timeout}s) -> $out"
start=$SECONDS
boots=1
boot_once
if boot_died; then
	mv "$out/console.log" "$out/console.boot1.log"
	mv "$out/qemu.log" "$out/qemu.boot1.log"
	bl_log "boot 1 died before the command started ($vm_status): $(tr -d '\r' < "$out/console.boot1.log" | grep -av '^[[:space:]]*$' | tail -n 1 | cut -c 1-120); booting again"
	boots=2
	boot_once
	if boot_died; then
		bl_log "boot 2 died before the command started too ($vm_status): an infrastructure failure, not a verdict on the kernel"
		vm_status=boot-failed
	else
		bl_log "boot 2 started the command"
	fi
fi
elapsed=$((SECONDS - start))
{ echo "$boots" > "$out/boots" && echo "$vm_status" > "$out/vm_status"; } 2> /dev/null ||
	vm_status=write-failed

case $vm_status in
ok)
	rc=$(cat "$out/status")
	bl_log "guest exit status $rc after ${elapsed}s"
	;;
bad-status)
	bl_log "the guest's status '$(bl_esc "$(cat "$out/status")")' is no exit status: a harness error"
	rc=126
	;;
boot-failed)
	tail -n 5 "$out/console.log" >&2
	rc=123
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
write-failed)
	bl_log "$out takes no more data (a full disk?): the result is lost, a harness error"
	rc=126
	;;
qemu-failed)
	bl_log "qemu failed (exit $qemu_rc):"
	tail -n 5 "$out/qemu.log" >&2
	rc=126
	;;
*)
	bl_log "no result from the guest after ${elapsed}s (qemu exit $qemu_rc); last console lines:"
	tail -n 5 "$out/console.log" >&2
	rc=125
	;;
esac
echo "$out"
exit "$rc"
