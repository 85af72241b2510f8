# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # kernel/lava.sh's option variables
#
# kernel/lava.sh --server: the jobs submitted to a LAVA server with
# lavacli, all at once, waited for, their results read through the
# server's REST API (lava/lava-fetch.py) and imported. lavacli and the
# fetch run in the LAVA root (kernel/lava-root.sh), never on the host:
# with the host's network for a server elsewhere, or inside the lab
# server's namespaces (kernel/lava-server.sh sets BL_LAVA_ENTER, the pid
# of a process in them, and BL_LAVA_ENTER_DIR, the host directory that
# is /bindlab-run there). Sourced by kernel/lava.sh, never run; reads its
# option variables.

# check_server_args: the --server options, checked before any work.
check_server_args()
{
	local k n names=" "

	if [ -z "$server" ]; then
		[ -z "$identity$user$token$artifacts$upload" ] ||
			bl_usage_error "--identity, --user, --token, --artifacts and --upload need --server"
		[ ${#kernels[@]} -eq 1 ] || bl_usage_error "one --kernel without --server (lava-run runs one job)"
		return 0
	fi
	# A host, maybe a port and a path of URL characters: it goes into
	# lavacli's config and the jobs' URLs, never a shell word.
	[[ $server =~ ^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[-A-Za-z0-9._~/%]*)?$ ]] ||
		bl_usage_error "--server wants the server's http:// or https:// URL (host[:port][/path]), not '$server'"
	server=${server%/}
	server=${server%/RPC2}/
	[ -z "$identity" ] || [ -z "$user$token" ] || bl_usage_error "--identity, or --user with --token: not both"
	{ [ -z "$user" ] && [ -z "$token" ]; } || { [ -n "$user" ] && [ -n "$token" ]; } ||
		bl_usage_error "--user and --token go together"
	case $user$token$identity in
	*[!A-Za-z0-9._+-]*) bl_usage_error "--user, --token and --identity take letters, digits and ._+- only" ;;
	esac
	if [ -n "$artifacts" ]; then
		case $artifacts in
		http://[A-Za-z0-9]*|https://[A-Za-z0-9]*|file:///*) ;;
		*) bl_usage_error "--artifacts wants an http://HOST, https://HOST or file:/// URL" ;;
		esac
		case $artifacts in *[!!-~]* | *[\'\"\\\|]*) bl_usage_error "--artifacts: a blank, control character, byte above 0x7e, quote, backslash or | in '$artifacts'" ;; esac
	elif [ -z "${BL_LAVA_ENTER:-}" ]; then
		bl_usage_error "--server needs --artifacts URL: where its workers read the staged kernel, ramdisk and test definition"
	fi
	for k in "${kernels[@]}"; do
		n=$(job_name "$k")
		case $names in *" $n "*) bl_usage_error "two jobs named '$n' (-k $k twice?)" ;; esac
		names="$names$n "
	done
}

# job_name KERNEL: the job's name and directory: stock, fixed, or the
# image file's name.
job_name()
{
	case $1 in
	stock|fixed) echo "$1" ;;
	*) basename "$1" | tr -c 'A-Za-z0-9._\n-' _ ;;
	esac
}

# inside PATH: where a path of the run is for lavacli and the fetch.
inside()
{
	local base=${BL_LAVA_ENTER_DIR:-$out}

	case $1 in
	"$base"/*) echo "/bindlab-run/${1#"$base"/}" ;;
	*) bl_die 126 "$1 is not under $base (the directory the LAVA root sees)" ;;
	esac
}

# lava_exec CMD...: CMD in the LAVA root, where lavacli is: in the lab
# server's namespaces, or chrooted with the host's network.
lava_exec()
{
	local xdg

	xdg=$(inside "$work/xdg")
	if [ -n "${BL_LAVA_ENTER:-}" ]; then
		nsenter -t "$BL_LAVA_ENTER" -m -n -p -r -w \
			env XDG_CONFIG_HOME="$xdg" BL_LAVA_TOKEN="$token" "$@"
	else
		(BL_RUN_DIR=$out bl_lava_in_root "$BL_LAVA_ROOT" \
			env XDG_CONFIG_HOME="$xdg" BL_LAVA_TOKEN="$token" "$@")
	fi
}

# lavacli ARGS...: lavacli with the identity, or the user and token.
lavacli()
{
	local auth=(--uri "${server}RPC2")

	if [ -n "$identity" ]; then
		auth=(--identity "$identity")
	elif [ -n "$user" ]; then
		auth=(--uri "${server%%://*}://$user:$token@${server#*://}RPC2")
	fi
	lava_exec lavacli "${auth[@]}" "$@"
}

# server_stage: each kernel's job staged in OUT/NAME, and uploaded.
server_stage()
{
	local k name dir base

	mkdir -p "$work/xdg"
	if [ -n "$identity" ]; then
		cp "${XDG_CONFIG_HOME:-$HOME/.config}/lavacli.yaml" "$work/xdg/lavacli.yaml" ||
			bl_die 126 "--identity $identity: no lavacli configuration to read it from"
	fi
	for k in "${kernels[@]}"; do
		name=$(job_name "$k")
		dir=$out/$name
		rm -rf "$dir/api" "$dir/job.id" "$dir/lava.json" "$dir/results.json"
		mkdir -p "$dir"
		resolve_kernel "$k" || bl_die 126 "no kernel image for $k"
		[ -f "$image" ] || bl_die 126 "no kernel image for $k"
		base=${artifacts%/}/$name
		[ -n "$artifacts" ] || base=file://$(inside "$dir")
		stage_run "$dir" "$image" "$base" "$name"
		if [ -n "$upload" ] && ! sh -c "$upload" upload "$dir" "$base" >&2; then
			bl_die 126 "--upload failed for $dir"
		fi
	done
}

# server_submit: every job in one lavacli call, so that the server has
# them all before it schedules any; their ids in OUT/NAME/job.id.
server_submit()
{
	local k files=() ids i=0 id

	for k in "${kernels[@]}"; do
		files+=("$(inside "$out/$(job_name "$k")/job.yaml")")
	done
	ids=$(lavacli jobs submit "${files[@]}" 2> "$work/submit.err") ||
		bl_die 126 "lavacli jobs submit: $(head -n 1 "$work/submit.err")"
	for k in "${kernels[@]}"; do
		i=$((i + 1))
		id=$(sed -n "${i}p" <<< "$ids")
		# lavacli prints a refusal on stdout and exits 0.
		bl_is_uint "$id" || bl_die 126 "the server refused the job of $k: $(head -c 300 <<< "$ids")"
		echo "$id" > "$out/$(job_name "$k")/job.id"
		bl_log "submitted $(job_name "$k"): job $id"
	done
}

# server_wait: until every job finished, bounded by the job timeout
# plus a margin for the queue.
server_wait()
{
	local k id rc=0 limit=$((job_minutes * 60 + 300)) t0=$SECONDS left

	for k in "${kernels[@]}"; do
		id=$(cat "$out/$(job_name "$k")/job.id")
		left=$((limit - (SECONDS - t0)))
		[ "$left" -gt 0 ] || left=1
		lavacli jobs wait --polling 10 --timeout "$left" "$id" > "$work/wait.out" 2>&1 &
		client_pid=$!
		bl_wait_progress "$client_pid" "job $id ($(job_name "$k"))" server_state || rc=$?
		client_pid=
		if [ "$rc" != 0 ]; then
			server_cancel
			bl_die 125 "job $id did not finish in $limit s: $(tail -c 200 "$work/wait.out")"
		fi
	done
}

# server_cancel: the jobs given up on are cancelled, not left queued on
# the server (one that finished meanwhile refuses it: no matter).
server_cancel()
{
	local k id

	for k in "${kernels[@]}"; do
		id=$(cat "$out/$(job_name "$k")/job.id")
		bl_log "cancelling job $id"
		lavacli jobs cancel "$id" > /dev/null 2>&1 || true
	done
}

# shellcheck disable=SC2317 # called through bl_wait_progress
server_state()
{
	# lavacli prints each state once, then a dot a poll.
	echo "state $(tr -s '.\n' '  ' < "$work/wait.out" | awk '{ print $NF }')"
}

# server_results: each job's REST API pages, imported; a line per job
# with its device and times, as the server gives them.
server_results()
{
	local k name dir id rc=0 r

	for k in "${kernels[@]}"; do
		name=$(job_name "$k")
		dir=$out/$name
		id=$(cat "$dir/job.id")
		rm -rf "$dir/api"
		lava_exec python3 "$(inside "$work/lava-fetch.py")" ${identity:+--identity "$identity"} \
			"$server" "$id" "$(inside "$dir/api")" ||
			bl_die 126 "cannot read job $id through the REST API of $server"
		/usr/bin/python3 - "$dir/api/job.json" "$name" <<'PY' >&2
import json, sys
j = json.load(open(sys.argv[1]))
print(f"job {j['id']} ({sys.argv[2]}) on {j.get('actual_device')}: "
      f"{j.get('start_time')} -> {j.get('end_time')}, {j.get('state')}, health {j.get('health')}")
PY
		r=0
		import_results "$dir" "$dir"/api/tests-*.json || r=$?
		verdict "$r" || r=$?
		if [ "$r" = 125 ]; then
			bl_log "job $id: no test result; its last errors ($dir/api/log.yaml):"
			grep -E '"lvl": "(error|exception)"' "$dir/api/log.yaml" | tail -n 3 | cut -c 1-300 >&2
		fi
		[ "$r" -le "$rc" ] || rc=$r
	done
	return "$rc"
}

client_pid=
# server_main: stage, submit all, wait, fetch, import. Exit status: the
# worst of the jobs'.
server_main()
{
	cp "$BL_REPO_DIR/lava/lava-fetch.py" "$work/lava-fetch.py"
	server_stage
	server_submit
	server_wait
	server_results
}
