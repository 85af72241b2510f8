# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The shell side of the suite's one number grammar (lib/parse.c): an
# optional '-' and decimal digits, nothing else (no blanks, '+', hex,
# exponents), within [MIN, MAX]. Sourced, never run.

# Numbers and character classes as in C, whatever the caller's locale:
# awk, sort -g and printf read and write LC_NUMERIC's decimal point (a
# de_DE comma reads 4.7 ms as 4), and tr_TR's [a-z] has no i. Everything
# the scripts start inherits it.
export LC_ALL=C
unset LANGUAGE

# A pipe, a here-document or a child's files each need a descriptor:
# below this many a command fails half-way, and its exit 1 would read as
# the kernel's verdict. Each script's own code for a harness error (a
# bisect step's 128 stops the bisect: no commit is to blame); the main
# job and the tests SKIP with the reason.
bl_fds=$(ulimit -n 2>/dev/null) || bl_fds=0
if [ "$bl_fds" != unlimited ] && ! [ "${bl_fds:-0}" -ge 64 ] 2>/dev/null; then
	bl_fds_word=error
	case ${0##*/} in
	bisect.sh) bl_fds_exit=128 ;;
	ab.sh | vm.sh) bl_fds_exit=126 ;;
	build.sh | mutate.sh) bl_fds_exit=3 ;;
	collection.sh) bl_fds_exit=2 ;;
	*) bl_fds_exit=4 bl_fds_word=SKIP ;;
	esac
	echo "${0##*/}: $bl_fds_word: ulimit -n ${bl_fds:-?}: needs 64 file descriptors" >&2
	exit "$bl_fds_exit"
fi
unset bl_fds

# bl_num VALUE MIN MAX: true when VALUE is such a number.
bl_num() {
	local v=$1
	# No leading zero: callers use the value in $((...)), which reads
	# 010 as octal 8 and 08 as an error. The length bound keeps 64-bit
	# arithmetic from wrapping.
	[[ $v =~ ^-?(0|[1-9][0-9]*)$ ]] || return 1
	v=${v#-}
	[ ${#v} -le 18 ] || return 1
	[[ $1 == -* ]] && v=$((-v))
	[ "$v" -ge "$2" ] && [ "$v" -le "$3" ]
}

# bl_esc TEXT: TEXT as it may reach a terminal, the shell's twin of
# lib/parse.c's bl_printable(): control bytes and bytes above 0x7e as
# \xNN, a backslash as \\, cut past 200 bytes.
bl_esc() {
	# ENVIRON, not -v: awk -v would read "\n" in the text as a newline.
	BL_ESC_S=${1:0:200} awk -v cut=$((${#1} > 200)) 'BEGIN {
		s = ENVIRON["BL_ESC_S"]
		for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\\") printf "\\\\"
			else if (ord[c] < 32 || ord[c] > 126) printf "\\x%02x", ord[c]
			else printf "%s", c
		}
		if (cut) printf "..."
	}'
}
