# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The Debian root LAVA runs in (kernel/lava.sh, kernel/lava-server.sh):
# debootstrap bookworm plus Debian's LAVA packages, built once into
# $BINDLAB_CACHE/lava/root and cached, never installed on the host.
# Sourced after kernel/lib.sh, never run.

BL_LAVA_DIR=$BINDLAB_CACHE/lava
BL_LAVA_ROOT=$BL_LAVA_DIR/root
# What the root holds; a change of this list rebuilds it. The dispatcher
# (lava-run, and lava-worker, which lava-dispatcher ships) and qemu for
# ./run.sh lava; the server, its database and lavacli for the lab's
# LAVA server and ./run.sh lava --server.
BL_LAVA_PKGS="lava-dispatcher qemu-system-x86 busybox-static cpio gzip lava-server postgresql lavacli"
# The database cluster the root's postgresql package made.
BL_LAVA_PG=15

bl_lava_skip()
{
	bl_log "SKIP: $*"
	exit 4
}

# bl_lava_need_tools: what building and entering the root takes.
bl_lava_need_tools()
{
	local tool

	[ "$(id -u)" -eq 0 ] || bl_lava_skip "needs root (debootstrap, chroot, namespaces)"
	for tool in debootstrap unshare chroot setpriv ip flock; do
		command -v "$tool" > /dev/null ||
			bl_lava_skip "$tool not found (apt-get install debootstrap util-linux iproute2)"
	done
}

# The Debian mirror of the root: the host's own first Debian source.
bl_lava_mirror()
{
	local m

	m=${BINDLAB_LAVA_MIRROR:-}
	[ -n "$m" ] || m=$(grep -hsoE '(https?://[^ ]*/debian)/?( |$)' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list | head -n 1 | tr -d ' ')
	echo "${m:-http://deb.debian.org/debian}"
}

# (bl_lava_in_root [--net] [--overlay DIR] ROOT CMD...): CMD chrooted in
# ROOT, in private mount and PID namespaces: the mounts vanish with it,
# never in the host's mount table, and when it ends or is killed
# (PDEATHSIG on unshare, --kill-child) every process inside goes too.
# The root cannot reach the host's devices or kernel settings: its /dev
# is a tmpfs of its own with only the nodes apt and the server use (no
# kvm: the lab's qemu is TCG), so a package script's chmod or mknod
# lands there; /sys and /proc/sys are read-only. --net: in a network
# namespace of its own with only loopback up, never the host's network.
# --overlay DIR: ROOT is the lower layer of an overlay whose writes go
# to DIR, so the cached root stays as built. $BL_RUN_DIR, when set, is
# /bindlab-run inside. It execs: call it in a subshell, so that the
# caller is the parent PDEATHSIG names.
bl_lava_in_root()
{
	local net="" upper=""

	while :; do
		case $1 in
		--net) net=--net; shift ;;
		--overlay) upper=$2; shift 2 ;;
		*) break ;;
		esac
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	exec nice -n "$BINDLAB_NICE" setpriv --pdeathsig KILL -- \
		unshare --mount --pid $net --fork --kill-child --propagation private -- \
		/bin/sh -c '
		r=$1 upper=$2 net=$3; shift 3
		if [ -n "$net" ]; then
			ip link set lo up || exit 126
		fi
		if [ -n "$upper" ]; then
			mkdir -p "$upper/upper" "$upper/work" "$upper/merged" &&
			mount -t overlay overlay -o "lowerdir=$r,upperdir=$upper/upper,workdir=$upper/work" \
				"$upper/merged" || exit 126
			r=$upper/merged
		fi
		d=$r/dev
		mount -t proc proc "$r/proc" &&
		mount --bind -o ro "$r/proc/sys" "$r/proc/sys" &&
		mount -t sysfs -o ro sysfs "$r/sys" &&
		mount -t tmpfs -o mode=755,nosuid bindlab-dev "$d" &&
		mknod -m 666 "$d/null" c 1 3 && mknod -m 666 "$d/zero" c 1 5 &&
		mknod -m 666 "$d/full" c 1 7 && mknod -m 666 "$d/random" c 1 8 &&
		mknod -m 666 "$d/urandom" c 1 9 && mknod -m 666 "$d/tty" c 5 0 &&
		mkdir "$d/pts" "$d/shm" &&
		mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$d/pts" &&
		ln -s pts/ptmx "$d/ptmx" &&
		mount -t tmpfs -o mode=1777,nosuid,nodev bindlab-shm "$d/shm" &&
		ln -s /proc/self/fd "$d/fd" && ln -s /proc/self/fd/0 "$d/stdin" &&
		ln -s /proc/self/fd/1 "$d/stdout" && ln -s /proc/self/fd/2 "$d/stderr" &&
		mount -t tmpfs tmpfs "$r/tmp" &&
		mount -t tmpfs tmpfs "$r/run" || exit 126
		if [ -n "${BL_RUN_DIR:-}" ]; then
			mkdir -p "$r/bindlab-run" &&
			mount --bind "$BL_RUN_DIR" "$r/bindlab-run" || exit 126
		fi
		exec chroot "$r" "$@"' sh "$1" "$upper" "$net" "${@:2}"
}

# bl_lava_build_root: debootstrap (minbase) and the packages into a fresh
# directory, renamed into place only when complete; services never start
# (policy-rc.d), the host gets nothing. The server's database is made
# here, offline (its own network namespace), so that a run only starts it.
bl_lava_build_root()
{
	local tmp=$BL_LAVA_ROOT.tmp t0=$SECONDS log=$BL_LAVA_DIR/apt.log

	bl_log "building the LAVA root $BL_LAVA_ROOT (debootstrap bookworm, then $BL_LAVA_PKGS)"
	rm -rf "$tmp"
	# debootstrap mounts proc and sys in the root it makes: in mount and
	# PID namespaces of its own, so that the host's mount table never
	# shows them and a kill takes every process of it.
	# Each step waited for, not in the foreground: a signal gets in at
	# once, not after minutes of apt.
	if ! bl_run nice -n "$BINDLAB_NICE" unshare --mount --propagation private \
		--pid --fork --kill-child -- \
		debootstrap --variant=minbase bookworm "$tmp" "$(bl_lava_mirror)" \
		> "$BL_LAVA_DIR/debootstrap.log" 2>&1; then
		tail -n 5 "$BL_LAVA_DIR/debootstrap.log" >&2
		bl_lava_skip "debootstrap failed (no network or mirror?), see $BL_LAVA_DIR/debootstrap.log"
	fi
	bl_log "debootstrap done in $((SECONDS - t0)) s"
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	# No fsync per file: a root cut short is never renamed into place.
	echo force-unsafe-io > "$tmp/etc/dpkg/dpkg.cfg.d/bindlab-unsafe-io"
	# shellcheck disable=SC2086 # a list of package names
	(DEBIAN_FRONTEND=noninteractive bl_lava_in_root "$tmp" apt-get install -y -q \
		--no-install-recommends $BL_LAVA_PKGS) > "$log" 2>&1 &
	if ! wait $!; then
		tail -n 5 "$log" >&2
		bl_die 126 "apt-get install in the root failed, see $log"
	fi
	(bl_lava_in_root "$tmp" apt-get clean) > /dev/null 2>&1 || true
	(bl_lava_in_root --net "$tmp" /bin/sh -s "$BL_LAVA_PG" \
		< "$BL_REPO_DIR/lava/server/make-db.sh") > "$BL_LAVA_DIR/make-db.log" 2>&1 &
	if ! wait $!; then
		tail -n 5 "$BL_LAVA_DIR/make-db.log" >&2
		bl_die 126 "cannot make the server's database, see $BL_LAVA_DIR/make-db.log"
	fi
	bl_lava_stamp > "$tmp/.bindlab-root"
	rm -rf "$BL_LAVA_ROOT"
	mv "$tmp" "$BL_LAVA_ROOT"
	bl_log "LAVA root built in $((SECONDS - t0)) s"
}

# What a root was built from: its packages and its database's making.
bl_lava_stamp()
{
	echo "$BL_LAVA_PKGS"
	sha256sum < "$BL_REPO_DIR/lava/server/make-db.sh" | cut -c 1-16
}

# bl_lava_ensure_root: the root, built once; one builder at a time.
bl_lava_ensure_root()
{
	mkdir -p "$BL_LAVA_DIR"
	exec 8> "$BL_LAVA_DIR/root.lock"
	# Waited for (another run may be building the root for minutes): a
	# signal gets in at once. The lock is the open file's, so it stays
	# held here after flock exits.
	bl_run flock 8 || bl_die 126 "no lock on $BL_LAVA_DIR/root.lock"
	if [ "$(cat "$BL_LAVA_ROOT/.bindlab-root" 2> /dev/null)" != "$(bl_lava_stamp)" ]; then
		bl_lava_build_root
	fi
	flock -u 8
}
