# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Stand-ins for what the kernel lab drives, so that its scripts' exits and
# process handling can be tested in seconds: a kernel tree whose build is
# a sleep (and a failure when the commit says so), a qemu that plays a
# scripted guest over vm.sh's two serial ports, and an installed
# collection of empty programs. Sourced by tests/bisect_exit_test.sh,
# tests/lab_kill_test.sh and tests/locale_test.sh; everything lives
# under the caller's $FAKE dir.

# lab_fake_start NAME PROGRAM: the start of a test on these fakes: $FAKE
# (removed on exit), the harness headers where bootstrap put them whatever
# BINDLAB_CACHE a case uses, no ccache, no knob of the caller's; the TAP
# header, and $progs, the Makefile's kselftests. Without them or PROGRAM
# built, the whole test is one SKIP.
lab_fake_start()
{
	: "${here:?set by the caller}"
	FAKE=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap 'rm -rf "$FAKE"' EXIT
	export KSFT_DIR=${KSFT_DIR:-$HOME/.cache/bindlab/ksft/tools/testing/selftests}
	export BINDLAB_CCACHE=0 BINDLAB_PROGRESS=30
	unset BINDLAB_NICE BINDLAB_ACCEL FAKE_QEMU FAKE_QEMU_COUNT

	echo "TAP version 13"
	progs=$(make -s --no-print-directory -C "$here" print-programs 2> /dev/null | xargs -r -n 1 basename | xargs)
	if [ -z "$progs" ] || [ ! -x "$here/$2" ]; then
		tap_skip "${1//-/_}" "the programs are not built (make -C $here)"
		tap_done
		exit
	fi
}

# fake_tree DIR: a git repository that build.sh takes for a kernel tree.
# Its build runs a sub-make whose recipe sleeps $(cat fake-build-seconds)
# in two processes (make's grandchildren, as cc1 is), then fails when the
# commit has fake-build-fail, else writes arch/x86/boot/bzImage under O=;
# it prints a CC line unless the commit has fake-build-quiet (ccache had
# everything, or the commit changed no source).
fake_tree()
{
	local dir=$1

	mkdir -p "$dir/arch/x86" "$dir/scripts/kconfig"
	touch "$dir/arch/x86/.keep"
	echo 0 > "$dir/fake-build-seconds"
	cat > "$dir/Makefile" <<'EOF'
# A fake kernel Makefile for bindlab's lab tests: build.sh's targets only.
O ?= $(CURDIR)
SECS := $(shell cat $(CURDIR)/fake-build-seconds)
tinyconfig:
	mkdir -p $(O) && : > $(O)/.config
olddefconfig:
	true
bzImage:
	$(MAKE) -f $(CURDIR)/Makefile O=$(O) inner
inner:
	@test -e $(CURDIR)/fake-build-quiet || echo "  CC      net/ipv4/inet_connection_sock.o"
	sh -c 'sleep $(SECS) & sleep $(SECS); wait'
	test ! -e $(CURDIR)/fake-build-fail
	mkdir -p $(O)/arch/x86/boot && echo fake-bzImage > $(O)/arch/x86/boot/bzImage
EOF
	# merge_config.sh -m -O DIR BASE FRAGMENT...: the fragments, appended.
	cat > "$dir/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
out=$3
shift 4
cat "$@" >> "$out/.config"
EOF
	chmod +x "$dir/scripts/kconfig/merge_config.sh"
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" -c user.name=t -c user.email=t@t commit -q -m "fake tree"
}

# fake_commit DIR MESSAGE [FILE=CONTENT...]: one more commit of the tree.
fake_commit()
{
	local dir=$1 msg=$2 kv

	shift 2
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" > "$dir/${kv%%=*}"
	done
	git -C "$dir" add -A
	git -C "$dir" -c user.name=t -c user.email=t@t commit -q -m "$msg"
}

# fake_collection DIR PROGRAM...: an installed collection in which every
# program of the Makefile exists (vm.sh refuses a collection without one).
fake_collection()
{
	local dir=$1 p

	shift
	mkdir -p "$dir/net/bindlab"
	printf '#!/bin/sh\necho fake runner\n' > "$dir/run_kselftest.sh"
	chmod +x "$dir/run_kselftest.sh"
	: > "$dir/kselftest-list.txt"
	for p in "$@"; do
		printf '#!/bin/sh\nexit 0\n' > "$dir/net/bindlab/$p"
		chmod +x "$dir/net/bindlab/$p"
		echo "net/bindlab:$p" >> "$dir/kselftest-list.txt"
	done
}

# fake_qemu BINDIR: qemu-system-x86_64 in BINDIR. Each boot takes the next
# word of $FAKE_QEMU (comma-separated; the last one repeats), counting
# boots in $FAKE_QEMU_COUNT:
#   pass fail skip unmet plan0  the command ran: KTAP and status as named
#   pass-slow     pass, 3 s after the command started
#   disk-full     the command ran, then the results' disk filled up (a
#                 file of 1 GiB at most in the console's directory: give
#                 it a small tmpfs) before the results came back
#   case:FILE     the command ran, status 0, FILE as result.json; a
#                 directory FILE: its files (ab's CASE.json) instead
#   noresult      the command ran, status 0, no result.json
#   all-skip      status 0 (as the harness exits), every test SKIP
#   bad-status    a clean KTAP, but a status that is no exit status
#   boot-panic    the 8254/IO-APIC timer panic, before the command starts
#   boot-hang     no output at all, until killed
#   run-panic     a panic after the command started
#   slow          the command started, then a sleep until killed
#   qemu-fail     qemu's own error: nothing on the console, exit 1
fake_qemu()
{
	mkdir -p "$1"
	cat > "$1/qemu-system-x86_64" <<'EOF'
#!/bin/bash
set -u
con= data= n=0
while [ $# -gt 0 ]; do
	case $1 in
	-serial) if [ -z "$con" ]; then con=${2#file:}; else data=${2#file:}; fi; shift ;;
	esac
	shift
done
[ -n "${FAKE_QEMU_COUNT:-}" ] && n=$(cat "$FAKE_QEMU_COUNT" 2> /dev/null || echo 0)
n=$((n + 1))
[ -z "${FAKE_QEMU_COUNT:-}" ] || echo "$n" > "$FAKE_QEMU_COUNT"
IFS=, read -r -a modes <<< "${FAKE_QEMU:-pass}"
mode=${modes[n - 1]:-${modes[${#modes[@]} - 1]}}
started() { echo "bindlab-vm: kernel 6.12.0-fake, uptime 0.50s, running /etc/bindlab-cmd.sh" >> "$con"; }
results() {
	local d
	d=$(mktemp -d)
	printf '%s\n' "$1" > "$d/status"
	printf '%b' "$2" > "$d/output.log"
	if [ -d "${3:-}" ]; then
		cp "$3"/* "$d/"
	elif [ -n "${3:-}" ]; then
		cp "$3" "$d/result.json"
	fi
	{ echo BINDLAB-RESULTS-BEGIN; tar -czf - -C "$d" . | base64; echo BINDLAB-RESULTS-END; } > "$data"
	rm -rf "$d"
}
case $mode in
qemu-fail) echo "qemu-system-x86_64: fake: cannot open the kernel" >&2; exit 1 ;;
boot-hang) exec sleep 3600 ;;
boot-panic)
	printf '%s\n' "..MP-BIOS bug: 8254 timer not connected to IO-APIC" \
		"Kernel panic - not syncing: IO-APIC + timer doesn't work!  Boot with apic=debug" >> "$con"
	exit 0 ;;
esac
started
case $mode in
pass|pass-slow)
	[ "$mode" = pass ] || sleep 3
	results 0 'TAP version 13\n1..2\nok 1 f.v.a\nok 2 f.v.b\n# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0\n' ;;
fail) results 1 'TAP version 13\n1..2\nok 1 f.v.a\nnot ok 2 f.v.b\n' ;;
skip) results 4 'TAP version 13\n1..1\nok 1 f.v.a # SKIP no ipv6\n' ;;
all-skip) results 0 'TAP version 13\n1..2\nok 1 f.v.a # SKIP no ipv6\nok 2 f.v.b # SKIP no ipv6\n' ;;
bad-status) results '' 'TAP version 13\n1..2\nok 1 f.v.a\nok 2 f.v.b\n' ;;
unmet) results 0 'TAP version 13\n1..3\nok 1 f.v.a\n' ;;
plan0) results 0 'TAP version 13\n1..0\n# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n' ;;
case:*) results 0 'reuseaddr same 100: 1.000 ms\n' "${mode#case:}" ;;
noresult) results 0 'nothing\n' ;;
disk-full)
	head -c 1073741824 /dev/zero > "$(dirname "$con")/fill" 2> /dev/null
	results 0 'TAP version 13\n1..2\nok 1 f.v.a\nok 2 f.v.b\n' 2> /dev/null ;;
run-panic) echo "Kernel panic - not syncing: Fatal exception in interrupt" >> "$con" ;;
slow) exec sleep 3600 ;;
esac
exit 0
EOF
	chmod +x "$1/qemu-system-x86_64"
}

# tagged_procs TAG: processes whose environment carries BL_FAKE_TAG=TAG,
# as "PID COMMAND"; reparented or not, every descendant of a tagged
# start has it.
# One grep reads every environment (NUL-separated entries, whole ones
# matched): a process per entry would cost hundreds of forks a poll on a
# busy machine.
tagged_procs()
{
	local e p self=$BASHPID

	grep -lsaxzF -- "BL_FAKE_TAG=$1" /proc/[0-9]*/environ 2> /dev/null | while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		if [ "$p" = "$$" ] || [ "$p" = "$self" ]; then
			continue
		fi
		echo "$p $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c 1-80)"
	done
}
