#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# serve.sh PGVERSION DEVICE...: the lab's LAVA server, run by
# kernel/lava-server.sh inside the LAVA root (kernel/lava-root.sh), in
# network, mount and PID namespaces of its own, with its state in
# /bindlab-run (the run directory): PostgreSQL, lava-server (gunicorn
# on 127.0.0.1:8000, the scheduler), the device dictionaries of DEVICE...
# (/bindlab-run/devices/DEVICE.yaml), a user with a token, and a
# lava-worker holding the devices. Writes /bindlab-run/server.json (the
# user, the token) when all of it answers, then waits: the first service
# that dies ends it with its status, and so does a kill of the namespace.
set -euo pipefail
v=$1
shift
run=/bindlab-run
url=http://127.0.0.1:8000
logs=$run/logs
mkdir -p "$logs"
chgrp lavaserver "$logs"
chmod 775 "$logs"

say()
{
	echo "serve.sh: $*" >&2
}

# (wait_for WHAT SECONDS CMD...): CMD until it succeeds, bounded.
wait_for()
{
	local what=$1 limit=$2 t=0

	shift 2
	until "$@" > /dev/null 2>&1; do
		t=$((t + 1))
		if [ "$t" -ge "$limit" ]; then
			say "$what did not come up in $limit s"
			exit 1
		fi
		sleep 1
	done
	say "$what up after $t s"
}

mkdir -p /run/postgresql
chown postgres:postgres /run/postgresql
pg_ctlcluster "$v" main start
wait_for postgresql 120 pg_isready -q
pids=()
# The web side: the XML-RPC API (lavacli), the REST API, the
# workers' internal API; no apache in front, none is needed on loopback.
gunicorn3 lava_server.wsgi --bind 127.0.0.1:8000 -u lavaserver -g lavaserver \
	--worker-class eventlet --workers 2 --timeout 300 \
	--log-level INFO --log-file "$logs/gunicorn.log" &
pids+=($!)
lava-server manage lava-scheduler --level DEBUG --log-file "$logs/lava-scheduler.log" &
pids+=($!)

# The user, the token, the worker, the device type and the devices:
# one Django shell (each manage command costs a Django start-up).
for d in "$@"; do
	{
		echo "{# $d: lava/devices/qemu-bindlab.yaml, rendered form #}"
		echo "{% raw %}"
		cat "$run/devices/$d.yaml"
		echo "{% endraw %}"
	} > "/etc/lava-server/dispatcher-config/devices/$d.jinja2"
done
# The worker's dispatcher: loopback is its only address (no default
# route to guess one from, and none is needed: the jobs read file:// URLs).
mkdir -p /etc/lava-server/dispatcher.d/lab-worker
echo 'dispatcher_ip: 127.0.0.1' > /etc/lava-server/dispatcher.d/lab-worker/dispatcher.yaml
BL_DEVICES="$*" BL_OUT=$run/server.json.tmp \
	lava-server manage shell --command "$(cat "$run/setup-lab.py")"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["worker_token"])' \
	"$run/server.json.tmp")
wait_for lava-server 300 python3 -c 'import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=5)' \
	"$url/api/v0.2/"
lava-worker --url "$url/" --name lab-worker --token "$token" --ping-interval 5 \
	--level DEBUG --log-file "$logs/lava-worker.log" &
pids+=($!)
# Ready once the worker is online, as the server says through its API;
# what it says of the devices goes to devices.json.
online='
import json, sys, urllib.request as u
base, out = sys.argv[1:]
get = lambda p: json.load(u.urlopen(base + p, timeout=5))
if get("/api/v0.2/workers/lab-worker/")["state"] != "Online":
    sys.exit(1)
json.dump(get("/api/v0.2/devices/?format=json"), open(out, "w"), indent=1)
'
wait_for lava-worker 120 python3 -c "$online" "$url" "$run/devices.json"
mv "$run/server.json.tmp" "$run/server.json"
say "ready: $url, devices $*"
rc=0
wait -n "${pids[@]}" || rc=$?
say "a service ended (status $rc): see $logs"
exit 1
