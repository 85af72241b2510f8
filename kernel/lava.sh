#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the bindlab collection on a kernel with LAVA's own dispatcher
# (lava-run), in a Debian root the project builds and caches, and bring
# LAVA's results back into a bindlab results file.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2
# shellcheck source-path=SCRIPTDIR source=../scripts/cases.sh
. "$BL_REPO_DIR/scripts/cases.sh"
# shellcheck source-path=SCRIPTDIR source=lava-root.sh
. "$(dirname "$0")/lava-root.sh"
# shellcheck source-path=SCRIPTDIR source=lava-client.sh
. "$(dirname "$0")/lava-client.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] -k IMAGE|REF
       $BL_PROG --server URL [-I NAME | -u USER --token TOKEN] [-a URL]
               [options] -k IMAGE|REF [-k IMAGE|REF...]
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
  -o, --out DIR         run directory, new or empty: one that holds
                        anything is refused (default: new dir under
                        \$BINDLAB_CACHE/runs); its path is printed last
  -n, --sockets N       benchmark sockets per case (default 2000; 0: none)
  -r, --rounds R        benchmark rounds, odd (default 5: compare wants 4+)
  -T, --timeout MIN     whole-job timeout in minutes (default 30)
  -e, --env 'VAR=V ...' the definition's ENV: exported to the programs
  -s, --skipfile FILE   the definition's SKIPFILE (test globs, one a line),
                        shipped with the test definition
  -t, --test NAME       the definition's TST_CASENAME: one test or case
  -v, --verbose         copy LAVA's log to stderr as it runs
  -S, --server URL      submit to this LAVA server (its base URL) with
                        lavacli instead, every -k a job, all at once; wait,
                        read the results through its REST API, import them
                        (OUT/NAME per job, NAME stock, fixed or the image's)
  -I, --identity NAME   lavacli's identity NAME (its lavacli.yaml)
  -u, --user USER, --token TOKEN
                        or the user and its API token
  -a, --artifacts URL   where the server's workers read each job's staged
                        files: URL/NAME/bzImage, ramdisk.cpio.gz,
                        bindlab-testdefs.tar.gz (default only for the lab's
                        server, kernel/lava-server.sh: file:// paths)
  --upload CMD          run as sh -c CMD upload OUT/NAME URL/NAME for each
                        job before the submission (e.g. an rsync to URL)
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
kernels=()
server=
identity=
user=
token=
artifacts=
upload=

# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-k --kernel -S --server -I --identity -u --user --token -a --artifacts --upload -o --out -n --sockets -r --rounds -T --timeout -e --env -s --skipfile -t --test" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) bl_need_arg "$1" $# "${2-}"; kernel=$2; kernels+=("$2"); shift ;;
	-S|--server) bl_need_arg "$1" $# "${2-}"; bl_once --server; server=$2; shift ;;
	-I|--identity) bl_need_arg "$1" $# "${2-}"; bl_once --identity; identity=$2; shift ;;
	-u|--user) bl_need_arg "$1" $# "${2-}"; bl_once --user; user=$2; shift ;;
	--token) bl_need_arg "$1" $# "${2-}"; bl_once --token; token=$2; shift ;;
	-a|--artifacts) bl_need_arg "$1" $# "${2-}"; bl_once --artifacts; artifacts=$2; shift ;;
	--upload) bl_need_arg "$1" $# "${2-}"; bl_once --upload; upload=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-n|--sockets) bl_need_arg "$1" $# "${2-}"; bl_once --sockets; sockets=$2; shift ;;
	-r|--rounds) bl_need_arg "$1" $# "${2-}"; bl_once --rounds; rounds=$2; shift ;;
	-T|--timeout) bl_need_arg "$1" $# "${2-}"; bl_once --timeout; job_minutes=$2; shift ;;
	-e|--env) bl_need_arg "$1" $# "${2-}"; bl_once --env; test_env=$2; shift ;;
	-s|--skipfile) bl_need_arg "$1" $# "${2-}"; bl_once --skipfile; [ -n "$2" ] || bl_usage_error "$1 needs a FILE"; skipfile=$2; shift ;;
	-t|--test) bl_need_arg "$1" $# "${2-}"; bl_once --test; test_name=$2; shift ;;
	-v|--verbose) verbose=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1'" ;;
	esac
	shift
done
[ $# -eq 0 ] || bl_usage_error "unknown argument '$1'"

[ -n "$kernel" ] || bl_usage_error "--kernel is required"
check_server_args
bl_want_uint --sockets "$sockets" 0
bl_want_uint --rounds "$rounds" 1
[ $((rounds % 2)) -eq 1 ] || bl_usage_error "--rounds must be odd (the median is a sample)"
# A week at most: the job's limit in seconds stays a sane number.
bl_num "$job_minutes" 5 10080 || bl_usage_error "--timeout wants minutes from 5 to 10080"
# Each case's program asks its own N and rounds now, not the device
# after a build and a boot (as ab.sh and bisect.sh do).
if [ "$sockets" -gt 0 ]; then
	bl_cases_load || exit 2
	for c in "${BL_CASE_NAMES[@]}"; do
		# Not built (no jansson or gsl here): the device says so.
		[ -x "$BL_REPO_DIR/${BL_CASE_ROW[$c.command]%% *}" ] || continue
		why=$(bl_case_check_args "$c" "$sockets" "$rounds") ||
			bl_usage_error "--sockets $sockets --rounds $rounds: $c: $why"
	done
fi
# The device splits ENV into words and exports each: VAR=VALUE words,
# no character the device's shell would expand or split on.
read -ra env_words <<< "$test_env"
for w in "${env_words[@]}"; do
	[[ $w =~ ^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.,:/+@%=-]*$ ]] ||
		bl_usage_error "--env: '$w' is not VAR=VALUE (letters, digits and _.,:/+@%=- in VALUE)"
done
for k in "${kernels[@]}"; do
	case $k in
	stock|fixed) ;;
	*) [ -f "$k" ] || bl_usage_error "no such kernel image: $k" ;;
	esac
done
[ -z "$skipfile" ] || [ -f "$skipfile" ] || bl_usage_error "no such skip file: $skipfile"
# Values of single-quoted shell assignments on the device (LAVA's form).
for v in "$test_env" "$test_name"; do
	case $v in *\'*) bl_usage_error "a quote in '$v'" ;; esac
done
[ -z "$out" ] || bl_dest_dir --out "$out" empty
# kernel/lava-server.sh checks its LAVA-ARGS so, before it starts a server.
[ "${BINDLAB_CHECK_ARGS:-}" != 1 ] || exit 0

bl_lava_need_tools
lava_dir=$BL_LAVA_DIR

# resolve_kernel REF: image is REF's bzImage, a file or the lab's tag built
# (waited for, not a $(...): a signal gets in at once and the build dies
# with this script).
resolve_kernel()
{
	local ref=$1 tree

	case $ref in
	stock|fixed) ;;
	*) image=$ref; return ;;
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
	bl_run "$BL_KERNEL_DIR/build.sh" --tree "$tree" --name "lava-$ref" > "$work/build-$ref.out" ||
		return
	image=$(tail -n 1 "$work/build-$ref.out")
}

# make_ramdisk OUT: the installed collection (kernel/collection.sh) in an
# initramfs with a root shell on the console (kernel/initramfs/init-shell,
# prompt "/ # "), gzipped: LAVA unpacks it to append its overlay.
make_ramdisk()
{
	local coll

	bl_run "$BL_KERNEL_DIR/collection.sh" > "$work/collection.out" || return 1
	coll=$(tail -n 1 "$work/collection.out")
	[ -d "$coll" ] || return 1
	"$BL_KERNEL_DIR/initramfs.sh" -c "$coll" -o "$work/ramdisk.cpio" \
		-i "$BL_KERNEL_DIR/initramfs/init-shell" -w "$work/ramdisk.root" || return 1
	gzip -1 -c "$work/ramdisk.cpio" > "$1"
}

# stage_run DIR IMAGE BASE NAME: what the job NAME reads, all in DIR,
# which its worker reads at the URL BASE (file:///bindlab-run for
# lava-run here): the kernel, the ramdisk, the test definitions, the
# device dictionary and the job.
stage_run()
{
	local dir=$1 image=$2 in=$3 name=$4 lava=$BL_REPO_DIR/lava

	cp "$image" "$dir/bzImage"
	# One ramdisk for every job of the run.
	if [ ! -f "$work/ramdisk.cpio.gz" ]; then
		make_ramdisk "$work/ramdisk.cpio.gz" || bl_die 126 "cannot make the ramdisk"
	fi
	cp "$work/ramdisk.cpio.gz" "$dir/ramdisk.cpio.gz"
	# The definition's directory, with the skip file in it when given.
	rm -rf "$work/lava"
	cp -r "$lava" "$work/lava"
	[ -z "$skipfile" ] || cp "$skipfile" "$work/lava/skipfile"
	tar -czf "$dir/bindlab-testdefs.tar.gz" -C "$work" lava
	cp "$lava/devices/qemu-bindlab.yaml" "$dir/device.yaml"
	"$lava/fill-job.sh" "$lava/jobs/qemu.yaml" "$in/bzImage" \
		"$in/ramdisk.cpio.gz" "$in/bindlab-testdefs.tar.gz" > "$dir/job.yaml.tmp"
	# The run's own sizes and timeout, as the definition's parameters.
	/usr/bin/python3 - "$dir/job.yaml.tmp" "$dir/job.yaml" "$sockets" "$rounds" \
		"$job_minutes" "$test_env" "${skipfile:+lava/skipfile}" "$test_name" "$name" <<'PY'
import sys, yaml
src, dst, n, r, minutes, env, skip, test, name = sys.argv[1:]
job = yaml.safe_load(open(src))
job["job_name"] = f"bindlab {name}: " + job["job_name"]
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
	(BL_RUN_DIR=$dir bl_lava_in_root "$BL_LAVA_ROOT" timeout -k 10 "$limit" \
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
# Set once this run made it: never a "work" from the environment.
work=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	# KILL: unshare ignores TERM while it waits for its child; its death
	# takes the whole PID namespace down (--kill-child).
	local p

	for p in "$lava_pid" "$client_pid"; do
		[ -n "$p" ] || continue
		kill -KILL "$p" 2> /dev/null || true
		wait "$p" 2> /dev/null || true
	done
	[ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
bl_trap_signals

# import_results DIR IN...: LAVA's results (lava-run's log, or the REST
# API's pages) -> DIR/lava.json, and into the results file
# DIR/results.json when this checkout can import them.
# Returns lava-results.py's verdict (0 pass, 1 fail, 3 no test result).
import_results()
{
	local dir=$1 rc=0

	shift
	"$BL_REPO_DIR/lava/lava-results.py" "$@" \
		"$dir/lava.json" >&2 || rc=$?
	[ "$rc" -ne 2 ] || bl_die 126 "cannot read LAVA's results $*"
	# No test result: nothing of the kernel to import (import-lava
	# refuses LAVA's own records alone).
	[ "$rc" -ne 3 ] || return 3
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

# verdict RC: import_results' status as this script's exit status.
verdict()
{
	case $1 in
	0|1) return "$1" ;;
	3) return 125 ;;
	*) return 126 ;;
	esac
}

# local_main: the job here, under lava-run.
local_main()
{
	local start lrc=0 rc=0

	resolve_kernel "$kernel" || bl_die 126 "no kernel image for $kernel"
	[ -f "$image" ] || bl_die 126 "no kernel image for $kernel"
	stage_run "$out" "$image" file:///bindlab-run "$kernel"
	bl_log "lava-run: $image on qemu (TCG), job timeout ${job_minutes} min -> $out"
	start=$SECONDS
	run_lava "$out" || lrc=$?
	bl_log "lava-run exit $lrc after $((SECONDS - start)) s"
	import_results "$out" "$out/lava.log" || rc=$?
	verdict "$rc" || rc=$?
	if [ "$rc" = 125 ]; then
		bl_log "no test result: the job failed before its tests (last errors of $out/lava.log):"
		grep '"lvl": "error"' "$out/lava.log" | tail -n 3 | cut -c 1-300 >&2
	fi
	return "$rc"
}

/usr/bin/python3 -c 'import yaml' 2> /dev/null ||
	bl_die 126 "/usr/bin/python3 with yaml not found (apt-get install python3-yaml)"
# The cache and the run directory before the root (minutes on its first
# build): a bad one is a usage error, one line, exit 2. OUT is this run's
# own, new or empty: one holding anything (an earlier run's results,
# someone's lava/ or work/) is refused, never emptied.
bl_check_dir BINDLAB_CACHE "$lava_dir"
if [ -z "$out" ]; then
	bl_check_dir BINDLAB_CACHE "$BINDLAB_CACHE/runs"
	out=$(mktemp -d "$BINDLAB_CACHE/runs/lava-$(date +%Y%m%d-%H%M%S)-XXXX")
fi
bl_own_dir --out "$out"
out=$BL_OWN_DIR
bl_lava_ensure_root
# Scratch space inside the run directory: even a SIGKILL, which skips
# the trap, leaves nothing outside what the run owns.
mkdir "$out/work"
work=$out/work
rc=0
if [ -n "$server" ]; then
	server_main || rc=$?
else
	local_main || rc=$?
fi
echo "$out"
exit "$rc"
