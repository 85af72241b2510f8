# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A low RLIMIT_NOFILE that holds for root too. lib/fdlimit.c raises the
# hard limit when it can (CAP_SYS_RESOURCE), so a test that only lowers
# the limit with prlimit would pass on a host whose root cannot raise it
# and fail on an ordinary root machine. The prefix drops CAP_SYS_RESOURCE
# from the bounding and inheritable sets (so the program exec'd after it
# has none) and then pins soft and hard limit. Sourced, never run.

# bl_lowfd_prefix N: sets the array lowfd to the command prefix.
bl_lowfd_prefix() {
	lowfd=(setpriv --bounding-set -sys_resource --inh-caps -sys_resource
		prlimit "--nofile=$1:$1" --)
}

# bl_lowfd_works N: true when, under the prefix, the hard limit is N and
# cannot be raised; else the reason on stdout. A test that relies on the
# prefix checks this first, so a machine where it does not hold fails
# loudly instead of measuring with the descriptors it was to lack.
bl_lowfd_works() {
	local got

	if ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
		echo "needs setpriv and prlimit (util-linux)"
		return 1
	fi
	bl_lowfd_prefix "$1"
	# No pipe or saved descriptor inside (command substitution, a
	# redirection but exec's): with N = 4 there is one free.
	# shellcheck disable=SC2016 # expands in the inner shell
	got=$("${lowfd[@]}" bash -c 'ulimit -Hn; ulimit -Sn; exec 2>&-
		ulimit -Hn "$1" && echo raised' - $(($1 + 1)) 2>&1)
	got=${got//$'\n'/ }
	[ "$got" = "$1 $1" ] && return 0
	echo "under '${lowfd[*]}' the limits are '$got', not '$1 $1' and fixed"
	return 1
}

# bl_sys_resource: "present" or "absent", this shell's CAP_SYS_RESOURCE
# (bit 24 of CapEff), for the log: which kind of root a run proved.
bl_sys_resource() {
	local eff

	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	if (((0x$eff >> 24) & 1)); then echo present; else echo absent; fi
}
