#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the suite needs, the one place that knows the package names,
# then unpack the kselftest harness into the cache the Makefile reads
# (scripts/ksft-headers.sh) unless a kernel tree provides it. Used by
# run.sh (build, run, and ci for ./run.sh test) and .ci/run; the Makefile
# itself installs nothing and names this script when the harness is missing.
#   bootstrap.sh build|run|ci
# On Debian/Ubuntu as root, missing packages are installed with apt-get.
# Elsewhere the exact package names are printed and the exit status is 2.
set -u
# shellcheck source=scripts/strict.sh
. "$(dirname "$0")/strict.sh"

usage() {
	echo "usage: $0 build|run|ci" >&2
	exit 2
}

[ $# -eq 1 ] || usage

build_pkgs="gcc make pkg-config libmnl-dev libjansson-dev libgsl-dev iproute2 procps"
run_pkgs="gnuplot-nox"
# checkpatch.pl --strict needs python3-git and python3-ply for its SPDX
# check, or it passes that check silently (tests/upstream_test.sh). locales:
# the de_DE and tr_TR sources tests/locale_test.sh makes its locales from.
ci_pkgs="ccache clang shellcheck valgrind git python3 linux-source-6.12 xz-utils patch qemu-system-x86 cpio flex bison bc libelf-dev busybox-static debootstrap lava-common python3-voluptuous python3-yaml python3-git python3-ply locales"

case "$1" in
build) want="$build_pkgs" ;;
run) want="$build_pkgs $run_pkgs" ;;
ci) want="$build_pkgs $run_pkgs $ci_pkgs" ;;
*) usage ;;
esac

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# The kselftest harness headers come from a kernel tree when one is given
# (KDIR or KSFT_DIR) or found around us; otherwise from linux-source-*.
need_linux_source() {
	[ -n "${KSFT_DIR:-}" ] && [ -f "${KSFT_DIR}/kselftest_harness.h" ] && return 1
	[ -n "${KDIR:-}" ] && [ -f "${KDIR}/tools/testing/selftests/kselftest_harness.h" ] && return 1
	compgen -G '/usr/src/linux-source-*.tar.*' >/dev/null && return 1
	return 0
}

# The harness for a standalone build: a kernel tree around us (in-tree
# build) or given (KDIR, KSFT_DIR) has its own.
ksft_cache() {
	local here cache
	here=$(cd "$(dirname "$0")/.." && pwd)
	cache=${BINDLAB_CACHE:-${HOME:+$HOME/.cache/bindlab}}
	[ -n "$cache" ] || { echo "bootstrap: HOME is unset: set BINDLAB_CACHE" >&2; exit 2; }
	cache=$cache/ksft
	[ -f "$here/../../lib.mk" ] || [ -n "${KDIR:-}${KSFT_DIR:-}" ] && return 0
	[ -f "$cache/tools/testing/selftests/lib.mk" ] && return 0
	echo "bootstrap: unpacking the kselftest harness into $cache" >&2
	"$here/scripts/ksft-headers.sh" "$cache" || exit 2
}

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
	for p in $want; do
		installed "$p" || missing="$missing $p"
	done
	need_linux_source && missing="$missing linux-source-6.12"
else
	# Not Debian: check by command and header instead of package.
	for c in gcc make pkg-config ip; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	pkg-config --exists libmnl jansson gsl 2>/dev/null || missing="$missing libmnl jansson gsl"
fi

if [ -z "$missing" ]; then
	ksft_cache
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "bootstrap: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -q $missing >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1
		# shellcheck disable=SC2086
		apt-get install -y -q $missing >/dev/null || {
			echo "bootstrap: apt-get install$missing failed" >&2
			# Debian 12 ships linux-source-6.12 through its security
			# suite only, which debootstrap does not add.
			case " $missing " in
			*" linux-source-6.12 "*)
				apt-cache show linux-source-6.12 >/dev/null 2>&1 ||
					echo "bootstrap: no linux-source-6.12 in the apt sources: Debian 12 has it in bookworm-security" >&2
				;;
			esac
			exit 2
		}
	fi
	ksft_cache
	exit 0
fi

echo "bootstrap: missing:$missing" >&2
if command -v dpkg-query >/dev/null 2>&1; then
	echo "bootstrap: as root run: apt-get install$missing" >&2
else
	echo "bootstrap: install the equivalents of: gcc make pkg-config libmnl-dev libjansson-dev libgsl-dev iproute2 linux-source (kselftest headers), or set KDIR to a kernel tree" >&2
fi
exit 2
