#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the bindlab collection on a kernel with LAVA's own dispatcher
# (lava-run), in a Debian root the project builds and caches, and bring
# LAVA's results back into a bindlab results file.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] -k IMAGE|REF
  Boot a kernel under LAVA's dispatcher (lava-run, Debian bookworm's
  lava-dispatcher) on the project's qemu device (lava/devices, TCG, no
  network) with a ramdisk holding the installed collection, run the test
  definition lava/bindlab.yaml (every KTAP case a LAVA test case, the
  fastreuse benchmarks as measurements), and import LAVA's results.
  lava-run runs in a debootstrap root cached in \$BINDLAB_CACHE/lava/root
  (built on first use: 94 s here with a near mirror, 5-10 min on a slow one),
  chrooted in private mount and PID namespaces, so that nothing of it
  outlives the run and nothing is installed on the host.
options:
  -k, --kernel IMAGE|REF  a bzImage, or stock / fixed (the kernel lab's 6.12
                        images, kernel/build.sh: seconds when cached)
  -o, --out DIR         run directory (default: new dir under
                        \$BINDLAB_CACHE/runs); its path is printed last
  -n, --sockets N       benchmark sockets per case (default 2000; 0: none)
  -r, --rounds R        benchmark rounds, odd (default 5: compare wants 4+)
  -T, --timeout MIN     whole-job timeout in minutes (default 30)
  -e, --env 'VAR=V ...' the definition's ENV: exported to the programs
  -s, --skipfile FILE   the definition's SKIPFILE (test globs, one a line),
                        shipped with the test definition
  -t, --test NAME       the definition's TST_CASENAME: one test or case
  -v, --verbose         copy LAVA's log to stderr as it runs
  -h, --help            this text
OUT gets: job.yaml and device.yaml (what ran), lava.log (lava-run's log),
  lava/ (its output directory), lava.json (LAVA's results in the import
  format), results.json (bindlab results file, same case names as a
  local run: ./run.sh compare and plot read it).
exit: 0 every case passed, 1 a case failed, 2 usage, 4 skip (not root, no
  debootstrap, unshare or network for the first build), 125 no test result
  (boot failure, job error), 126 harness error (root build, ramdisk)
environment: BINDLAB_CACHE, BINDLAB_NICE (default 19), BINDLAB_LAVA_MIRROR
  (Debian mirror of the root, default the host's first deb.debian.org-like
  source)
EOF
}

kernel=
out=
sockets=2000
rounds=5
job_minutes=30
verbose=0
test_env=
skipfile=
test_name=

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-k --kernel -o --out -n --sockets -r --rounds -T --timeout -e --env -s --skipfile -t --test" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) bl_need_arg "$1" $# "${2-}"; kernel=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-n|--sockets) bl_need_arg "$1" $# "${2-}"; sockets=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; rounds=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; job_minutes=$2; shift ;;
	-e|--env) bl_need_arg "$1" $# "${2-}"; test_env=$2; shift ;;
	-s|--skipfile) bl_need_arg "$1" $# "${2-}"; [ -n "$2" ] || bl_usage_error "$1 needs a FILE"; skipfile=$2; shift ;;
	-t|--test) bl_need_arg "$1" $# "${2-}"; test_name=$2; shift ;;
	-v|--verbose) verbose=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"

[ -n "$kernel" ] || bl_usage_error "--kernel is required"
bl_want_uint --sockets "$sockets" 0
bl_want_uint --rounds "$rounds" 1
[ $((rounds % 2)) -eq 1 ] || bl_usage_error "--rounds must be odd (the median is a sample)"
bl_want_uint --timeout "$job_minutes" 5
case $kernel in
stock|fixed) ;;
*) [ -f "$kernel" ] || bl_usage_error "no such kernel image: $kernel" ;;
esac
[ -z "$skipfile" ] || [ -f "$skipfile" ] || bl_usage_error "no such skip file: $skipfile"
# Values of single-quoted shell assignments on the device (LAVA's form).
for v in "$test_env" "$test_name"; do
	case $v in *\'*) bl_usage_error "a quote in '$v'" ;; esac
done

skip()
{
	bl_log "SKIP: $*"
	exit 4
}

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, namespaces)"
for tool in debootstrap unshare chroot setpriv; do
	command -v "$tool" > /dev/null || skip "$tool not found (apt-get install debootstrap util-linux)"
done

lava_dir=$BINDLAB_CACHE/lava
root=$lava_dir/root
# What the root must hold; a change of this list rebuilds it.
root_pkgs="lava-dispatcher qemu-system-x86 busybox-static cpio gzip"

resolve_kernel()
{
	local ref=$1 tree

	case $ref in
	stock|fixed) ;;
	*) echo "$ref"; return ;;
	esac
	# The lab repository's tag, in a shared clone of our own: the lab's
	# repository is only read, and the image cache (keyed by the tree
	# id) hits when the lab has built that source.
	repo=$BINDLAB_CACHE/lab/linux-6.12.git
	[ -d "$repo" ] || bl_die 126 "no kernel lab repository $repo (run tests/kernel_lab_test.sh once)"
	tree=$lava_dir/trees/$ref
	if [ ! -d "$tree/.git" ]; then
		rm -rf "$tree"
		mkdir -p "$lava_dir/trees"
		{ git clone -q --shared --no-checkout "$repo" "$tree" &&
		  git -C "$tree" checkout -q --detach "$ref"; } >&2 ||
			bl_die 126 "cannot check out $ref of $repo"
	fi
	"$BL_KERNEL_DIR/build.sh" --tree "$tree" --name "lava-$ref" | tail -n 1
}

# The Debian mirror of the root: the host's own first Debian source.
mirror()
{
	local m

	m=${BINDLAB_LAVA_MIRROR:-}
	[ -n "$m" ] || m=$(grep -hsoE '(https?://[^ ]*/debian)/?( |$)' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list | head -n 1 | tr -d ' ')
	echo "${m:-http://deb.debian.org/debian}"
}

# (in_root ROOT CMD...): CMD chrooted in ROOT, in private mount and PID
# namespaces: the mounts vanish with it, and when it ends or is killed
# (PDEATHSIG on unshare, --kill-child) every process inside goes too.
# It execs: call it in a subshell of this script, so that the script is
# the parent PDEATHSIG names.
in_root()
{
	local r=$1

	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	exec nice -n "$BINDLAB_NICE" setpriv --pdeathsig KILL -- \
		unshare --mount --pid --fork --kill-child --propagation private -- \
		/bin/sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount --rbind /dev "$r/dev" &&
		mount -t tmpfs tmpfs "$r/tmp" &&
		mount -t tmpfs tmpfs "$r/run" || exit 126
		if [ -n "${BL_RUN_DIR:-}" ]; then
			mkdir -p "$r/bindlab-run" &&
			mount --bind "$BL_RUN_DIR" "$r/bindlab-run" || exit 126
		fi
		exec chroot "$r" "$@"' sh "$r" "$@"
}

# build_root: debootstrap (minbase) and lava-dispatcher into a fresh
# directory, renamed into place only when complete; services never start
# (policy-rc.d), the host gets nothing.
build_root()
{
	local tmp=$root.tmp t0=$SECONDS

	bl_log "building the LAVA root $root (debootstrap bookworm, then $root_pkgs)"
	rm -rf "$tmp"
	if ! bl_nice debootstrap --variant=minbase bookworm "$tmp" "$(mirror)" \
		> "$lava_dir/debootstrap.log" 2>&1; then
		tail -n 5 "$lava_dir/debootstrap.log" >&2
		skip "debootstrap failed (no network or mirror?), see $lava_dir/debootstrap.log"
	fi
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	# shellcheck disable=SC2086 # a list of package names
	if ! (DEBIAN_FRONTEND=noninteractive in_root "$tmp" apt-get install -y -q \
		--no-install-recommends $root_pkgs) > "$lava_dir/apt.log" 2>&1; then
		tail -n 5 "$lava_dir/apt.log" >&2
		bl_die 126 "apt-get install in the root failed, see $lava_dir/apt.log"
	fi
	(in_root "$tmp" apt-get clean) > /dev/null 2>&1 || true
	echo "$root_pkgs" > "$tmp/.bindlab-root"
	rm -rf "$root"
	mv "$tmp" "$root"
	bl_log "LAVA root built in $((SECONDS - t0)) s"
}

# The root, built once; one builder at a time.
ensure_root()
{
	mkdir -p "$lava_dir"
	exec 8> "$lava_dir/root.lock"
	flock 8
	if [ "$(cat "$root/.bindlab-root" 2> /dev/null)" != "$root_pkgs" ]; then
		build_root
	fi
	flock -u 8
}

# make_ramdisk OUT: the installed collection (kernel/collection.sh) in an
# initramfs with a root shell on the console (kernel/initramfs/init-shell,
# prompt "/ # "), gzipped: LAVA unpacks it to append its overlay.
make_ramdisk()
{
	local coll

	coll=$("$BL_KERNEL_DIR/collection.sh" | tail -n 1) || return 1
	[ -d "$coll" ] || return 1
	"$BL_KERNEL_DIR/initramfs.sh" -c "$coll" -o "$work/ramdisk.cpio" \
		-i "$BL_KERNEL_DIR/initramfs/init-shell" -w "$work/ramdisk.root" || return 1
	gzip -1 -c "$work/ramdisk.cpio" > "$1"
}

# stage_run DIR IMAGE: what the job reads, all in DIR (seen in the root
# as /bindlab-run): the kernel, the ramdisk, the test definitions, the
# device dictionary and the job.
stage_run()
{
	local dir=$1 image=$2 lava=$BL_REPO_DIR/lava in=file:///bindlab-run

	cp "$image" "$dir/bzImage"
	make_ramdisk "$dir/ramdisk.cpio.gz" || bl_die 126 "cannot make the ramdisk"
	# The definition's directory, with the skip file in it when given.
	cp -r "$lava" "$work/lava"
	[ -z "$skipfile" ] || cp "$skipfile" "$work/lava/skipfile"
	tar -czf "$dir/bindlab-testdefs.tar.gz" -C "$work" lava
	cp "$lava/devices/qemu-bindlab.yaml" "$dir/device.yaml"
	"$lava/fill-job.sh" "$lava/jobs/qemu.yaml" "$in/bzImage" \
		"$in/ramdisk.cpio.gz" "$in/bindlab-testdefs.tar.gz" > "$dir/job.yaml.tmp"
	# The run's own sizes and timeout, as the definition's parameters.
	/usr/bin/python3 - "$dir/job.yaml.tmp" "$dir/job.yaml" "$sockets" "$rounds" \
		"$job_minutes" "$test_env" "${skipfile:+lava/skipfile}" "$test_name" <<'PY'
import sys, yaml
src, dst, n, r, minutes, env, skip, test = sys.argv[1:]
job = yaml.safe_load(open(src))
job["timeouts"]["job"] = {"minutes": int(minutes)}
for action in job["actions"]:
    for d in action.get("test", {}).get("definitions", []):
        d["parameters"] = {"BENCH_N": n, "BENCH_ROUNDS": r, "ENV": env,
                           "SKIPFILE": skip, "TST_CASENAME": test}
open(dst, "w").write(yaml.safe_dump(job, sort_keys=False))
PY
	rm -f "$dir/job.yaml.tmp"
}

# run_lava DIR: lava-run in the root, its log in DIR/lava.log; bounded by
# the job timeout plus a margin, killed (namespaces and all) past it.
run_lava()
{
	local dir=$1 rc=0 limit=$((job_minutes * 60 + 120))

	: > "$dir/lava.log"
	(BL_RUN_DIR=$dir in_root "$root" timeout -k 10 "$limit" \
		lava-run --job-id 1 --output-dir /bindlab-run/lava \
		--device /bindlab-run/device.yaml /bindlab-run/job.yaml) \
		> "$dir/lava.out" 2> "$dir/lava.log" &
	lava_pid=$!
	if [ "$verbose" = 1 ]; then
		tail -n +1 -f --pid="$lava_pid" "$dir/lava.log" >&2 &
	fi
	run_dir=$dir
	bl_wait_progress "$lava_pid" "lava $(basename "$dir")" lava_state || rc=$?
	lava_pid=
	return "$rc"
}

# What the job is doing, from its log: the action, the last test case.
# shellcheck disable=SC2317 # called through bl_wait_progress
lava_state()
{
	local log=$run_dir/lava.log n

	n=$(grep -c '"lvl": "results"' "$log" || true)
	echo "$n results so far, last: $(grep -o '"msg": "[^"]*"' "$log" | tail -n 1 | cut -c 9-100)"
}

lava_pid=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	# KILL: unshare ignores TERM while it waits for its child; its death
	# takes the whole PID namespace down (--kill-child).
	if [ -n "$lava_pid" ]; then
		kill -KILL "$lava_pid" 2> /dev/null || true
		wait "$lava_pid" 2> /dev/null || true
	fi
	[ -z "${work:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# import_results DIR: LAVA's results -> DIR/lava.json, and into the
# results file DIR/results.json when this checkout can import them.
# Returns lava-results.py's verdict (0 pass, 1 fail, 3 no test result).
import_results()
{
	local dir=$1 rc=0

	/usr/bin/python3 "$BL_REPO_DIR/lava/lava-results.py" "$dir/lava.log" \
		"$dir/lava.json" >&2 || rc=$?
	[ "$rc" -ne 2 ] || bl_die 126 "cannot read LAVA's log $dir/lava.log"
	if grep -q 'import-lava' "$BL_REPO_DIR/run.sh"; then
		if ! "$BL_REPO_DIR/run.sh" import-lava "$dir/results.json" "$dir/lava.json" >&2; then
			bl_log "error: ./run.sh import-lava refused $dir/lava.json"
			return 126
		fi
	else
		bl_log "this checkout has no ./run.sh import-lava: results left in $dir/lava.json"
	fi
	return "$rc"
}

/usr/bin/python3 -c 'import yaml' 2> /dev/null ||
	bl_die 126 "/usr/bin/python3 with yaml not found (apt-get install python3-yaml)"
image=$(resolve_kernel "$kernel") || bl_die 126 "no kernel image for $kernel"
[ -f "$image" ] || bl_die 126 "no kernel image for $kernel"
ensure_root
if [ -z "$out" ]; then
	mkdir -p "$BINDLAB_CACHE/runs"
	out=$(mktemp -d "$BINDLAB_CACHE/runs/lava-$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/lava" "$out/lava.json" "$out/results.json"
# Scratch space inside the run directory: even a SIGKILL, which skips
# the trap, leaves nothing outside what the run owns.
work=$out/work
rm -rf "$work"
mkdir "$work"
stage_run "$out" "$image"

bl_log "lava-run: $image on qemu (TCG), job timeout ${job_minutes} min -> $out"
start=$SECONDS
lrc=0
run_lava "$out" || lrc=$?
bl_log "lava-run exit $lrc after $((SECONDS - start)) s"
rc=0
import_results "$out" || rc=$?
case $rc in
0|1) ;;
3)
	bl_log "no test result: the job failed before its tests (last errors of $out/lava.log):"
	grep '"lvl": "error"' "$out/lava.log" | tail -n 3 | cut -c 1-300 >&2
	rc=125
	;;
*) rc=126 ;;
esac
echo "$out"
exit "$rc"
