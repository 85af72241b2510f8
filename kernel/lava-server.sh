#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab's own LAVA server: Debian bookworm's lava-server, lava-worker
# and PostgreSQL from the LAVA root (kernel/lava-root.sh), started in
# network, mount and PID namespaces of their own, and kernel/lava.sh
# --server run against it.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 2
# shellcheck source-path=SCRIPTDIR source=lava-root.sh
. "$(dirname "$0")/lava-root.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [-d DEVICES] [-o DIR] [-W SECONDS] [-- LAVA-ARGS...]
  Start a LAVA server in the LAVA root (\$BINDLAB_CACHE/lava/root, built on
  first use, never on the host): PostgreSQL, lava-server (gunicorn on
  127.0.0.1:8000 and lava-scheduler), a user "bindlab" with an API token,
  and a lava-worker "lab-worker" with DEVICES qemu devices of the
  project's device dictionary (lava/devices/qemu-bindlab.yaml, named
  bindlab-qemu-01...), in network (loopback only), mount and PID
  namespaces of their own, on an overlay of the root: nothing outlives
  the run, the cached root is not written. Then, when LAVA-ARGS are
  given, kernel/lava.sh --server http://127.0.0.1:8000/ --user bindlab
  --token TOKEN -o DIR/jobs LAVA-ARGS (e.g. -k stock -k fixed: both jobs
  submitted at once; checked before the server starts: --server, --user,
  --token and -o are this script's own), entering the server's
  namespaces for lavacli and the REST API; then the server stops.
options:
  -d, --devices N   qemu devices on the worker (default 2)
  -o, --out DIR     run directory (default: new dir under \$BINDLAB_CACHE/runs):
                    logs/ (the services' logs), serve.log, jobs/ (lava.sh's),
                    devices/, overlay/ (removed at the end), serve.sh,
                    setup-lab.py, server.json, devices.json; a DIR that
                    holds any of these names is refused, never emptied
                    (other files in it, e.g. the caller's log, are left
                    alone)
  -W, --wait S      seconds the server may take to answer (default 600)
      --prepare     only build the LAVA root (if it is not cached) and
                    stop: the test command builds it beside its host
                    components, before the server is needed
  -h, --help        this text
exit: kernel/lava.sh's (0 every case of every job passed, 1 a case
  failed, 125 a job gave no result, 126 harness error); without LAVA-ARGS
  0 once the server answered; 2 usage, 4 skip (not root, no debootstrap,
  unshare or network for the first root build), 126 the server did not
  start
environment: BINDLAB_CACHE, BINDLAB_NICE, BINDLAB_LAVA_MIRROR (see kernel/lava.sh)
EOF
}

devices=2
out=
prepare=0
wait_s=600
while [ $# -gt 0 ]; do
	case $1 in
	-d|--devices) bl_need_arg "$1" $# "${2-}"; bl_once --devices; devices=$2; shift ;;
	-o|--out) bl_need_arg "$1" $# "${2-}"; bl_once --out; out=$2; shift ;;
	-W|--wait) bl_need_arg "$1" $# "${2-}"; bl_once --wait; wait_s=$2; shift ;;
	--prepare) prepare=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bl_usage_error "unknown argument '$1' (kernel/lava.sh's go after --)" ;;
	esac
	shift
done
bl_want_uint --devices "$devices" 1
bl_num "$devices" 1 20 || bl_usage_error "--devices wants 1 to 20"
bl_want_uint --wait "$wait_s" 10
# LAVA-ARGS as lava.sh will get them, checked by its own parser before
# minutes of starting a server (a second --server, a bad --rounds).
if [ $# -gt 0 ]; then
	why=$(BINDLAB_CHECK_ARGS=1 BL_LAVA_ENTER=check "$BL_KERNEL_DIR/lava.sh" \
		--server http://127.0.0.1:8000/ --user bindlab --token check -o "${out:-.}/jobs" "$@" 2>&1 > /dev/null) ||
		bl_usage_error "LAVA-ARGS: $(printf '%s\n' "$why" | head -n 1 | sed 's/^lava\.sh: //; s/ (see --help)$//')"
fi
bl_check_env
bl_lava_need_tools
command -v nsenter > /dev/null || bl_lava_skip "nsenter not found (apt-get install util-linux)"

server_pid=
client_pid=
# Set once this run made it: never a DIR/overlay of someone else's.
overlay=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup()
{
	if [ -n "$client_pid" ]; then
		kill -TERM "$client_pid" 2> /dev/null || true
		wait "$client_pid" 2> /dev/null || true
	fi
	# KILL: unshare ignores TERM while it waits for its child; its death
	# takes the namespaces down with every service in them (--kill-child).
	if [ -n "$server_pid" ]; then
		kill -KILL "$server_pid" 2> /dev/null || true
		wait "$server_pid" 2> /dev/null || true
	fi
	[ -z "$overlay" ] || rm -rf "$overlay"
}
trap cleanup EXIT
bl_trap_signals

# What a run writes in DIR, serve.sh's included: none may be there before.
run_names="devices logs overlay jobs serve.sh setup-lab.py serve.log server.json
	server.json.tmp devices.json"

# own_out DIR: DIR (made if missing) is this run's, in out (absolute): it
# is ours and writable, no other run holds it, and it has none of the
# names a run writes (an earlier run's files would be read as this
# one's). Nothing in it is removed; anything else there is left alone.
own_out()
{
	local n fd

	[ "$1" = / ] || set -- "${1%/}"
	bl_check_dir --out "$1"
	out=$(cd -- "$1" && pwd)
	{ exec {fd}< "$out"; } 2> /dev/null || bl_usage_error "--out: cannot open $out"
	flock -n "$fd" || bl_usage_error "--out: $out is another run's, still running"
	for n in $run_names; do
		if [ -e "$out/$n" ] || [ -L "$out/$n" ]; then
			bl_usage_error "--out: $out already holds $n (an earlier run's?): give a new directory or one without it"
		fi
	done
}

# stage: what serve.sh reads in /bindlab-run; the device names.
stage()
{
	local i name

	mkdir "$out/devices" "$out/overlay"
	overlay=$out/overlay
	cp "$BL_REPO_DIR/lava/server/serve.sh" "$BL_REPO_DIR/lava/server/setup-lab.py" "$out/"
	names=()
	for i in $(seq 1 "$devices"); do
		name=$(printf 'bindlab-qemu-%02d' "$i")
		cp "$BL_REPO_DIR/lava/devices/qemu-bindlab.yaml" "$out/devices/$name.yaml"
		names+=("$name")
	done
}

# start: serve.sh in the namespaces; returns once it wrote server.json,
# with the pid of its namespaces' first process in inner_pid.
start()
{
	local t0=$SECONDS

	(BL_RUN_DIR=$out bl_lava_in_root --net --overlay "$out/overlay" "$BL_LAVA_ROOT" \
		/bin/bash /bindlab-run/serve.sh "$BL_LAVA_PG" "${names[@]}") > "$out/serve.log" 2>&1 &
	server_pid=$!
	until [ -s "$out/server.json" ]; do
		if ! kill -0 "$server_pid" 2> /dev/null; then
			tail -n 5 "$out/serve.log" >&2
			bl_die 126 "the LAVA server ended before it answered (see $out/serve.log, $out/logs)"
		fi
		[ $((SECONDS - t0)) -lt "$wait_s" ] ||
			bl_die 126 "the LAVA server did not answer in $wait_s s (see $out/serve.log)"
		sleep 1
	done
	inner_pid=$(pgrep -P "$server_pid" | head -n 1)
	[ -n "$inner_pid" ] || bl_die 126 "no process in the server's namespaces"
	bl_log "LAVA server up in $((SECONDS - t0)) s: http://127.0.0.1:8000/ (its own network namespace), worker lab-worker, devices ${names[*]}"
}

# The cache and the run directory before the root (minutes on its first
# build): a bad one is a usage error, one line, exit 2.
bl_check_dir BINDLAB_CACHE "$BL_LAVA_DIR"
if [ "$prepare" = 0 ]; then
	if [ -z "$out" ]; then
		bl_check_dir BINDLAB_CACHE "$BINDLAB_CACHE/runs"
		out=$(mktemp -d "$BINDLAB_CACHE/runs/lava-server-$(date +%Y%m%d-%H%M%S)-XXXX")
	fi
	own_out "$out"
fi
t0=$SECONDS
bl_lava_ensure_root
bl_log "LAVA root ready after $((SECONDS - t0)) s"
[ "$prepare" = 0 ] || exit 0
stage
start
bl_log "LAVA server started $((SECONDS - t0)) s after the call"
rc=0
if [ $# -gt 0 ]; then
	token=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["token"])' \
		"$out/server.json")
	# In the background: a signal to this script is handled at once
	# (bash runs traps only between foreground commands).
	BL_LAVA_ENTER=$inner_pid BL_LAVA_ENTER_DIR=$out "$BL_KERNEL_DIR/lava.sh" \
		--server http://127.0.0.1:8000/ --user bindlab --token "$token" \
		-o "$out/jobs" "$@" &
	client_pid=$!
	wait "$client_pid" || rc=$?
	client_pid=
fi
echo "$out"
exit "$rc"
