# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The shell side of the suite's one number grammar (lib/parse.c): an
# optional '-' and decimal digits, nothing else (no blanks, '+', hex,
# exponents), within [MIN, MAX]. Sourced, never run.

# bl_num VALUE MIN MAX: true when VALUE is such a number.
bl_num() {
	local v=$1
	[[ $v =~ ^-?[0-9]+$ ]] || return 1
	# Strip leading zeros so bash does not read them as octal; bound the
	# length so 64-bit arithmetic cannot wrap.
	v=${v#-}
	v=${v#"${v%%[!0]*}"}
	[ -n "$v" ] || v=0
	[ ${#v} -le 18 ] || return 1
	[[ $1 == -* ]] && v=$((-v))
	[ "$v" -ge "$2" ] && [ "$v" -le "$3" ]
}
