# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The shell scripts' one command-line order, GNU's: options before,
# between or after the operands (./run.sh import-lava OUT LAVA --names F,
# kernel/ab.sh A B -c CASE). Each script keeps its own loop over the
# options; this reorders the words for it, and bl_once refuses an option
# of one value given twice. Sourced, never run.

# bl_args VALUED REST ARG...: sets BL_ARGS to the options (with their
# values), then "--", then the operands in their order. VALUED: the
# options that take a value, space separated ("-k --kernel -o --out");
# the word after one is its value, whatever it looks like (the loop's
# bl_need_arg refuses "-k -o"), and --opt=VALUE and -oVALUE become
# "--opt VALUE" and "-o VALUE". REST: options that take every word after
# them (bisect's --test PROGRAM FILTERS...), or "": such an option and
# its words come last, after the operands, with no "--". A "--" ends the
# options: the words after it are operands (vm.sh's COMMAND...). Every
# other word starting with '-' goes with the options, for the loop to
# take or refuse ("--full=1" is refused there under its own name); "-"
# alone is an operand.
bl_args() {
	local valued=" $1 " rest=" $2 " a
	local opts=() operands=() tail=()

	shift 2
	while [ $# -gt 0 ]; do
		a=$1
		shift
		case $a in
		--)
			operands+=("$@")
			break
			;;
		--*=*)
			if [[ $valued == *" ${a%%=*} "* ]]; then
				opts+=("${a%%=*}" "${a#*=}")
			else
				opts+=("$a")
			fi
			;;
		-?*)
			if [[ $rest == *" $a "* ]]; then
				tail=("$a" "$@")
				break
			elif [[ $valued == *" $a "* ]]; then
				opts+=("$a")
				[ $# -eq 0 ] || { opts+=("$1"); shift; }
			elif [[ $a != --* && ${#a} -gt 2 && $valued == *" ${a:0:2} "* ]]; then
				opts+=("${a:0:2}" "${a:2}")
			else
				opts+=("$a")
			fi
			;;
		*) operands+=("$a") ;;
		esac
	done
	# shellcheck disable=SC2034 # for the scripts that source this file
	if [ ${#tail[@]} -gt 0 ]; then
		BL_ARGS=("${opts[@]}" "${operands[@]}" "${tail[@]}")
	else
		BL_ARGS=("${opts[@]}" -- "${operands[@]}")
	fi
}

# bl_once NAME: the loop takes the single-value option NAME (its long
# spelling, whichever one was typed) for the first time, else a usage
# error: with the last one winning, "--case A --case B" would quietly
# run B. Options that accumulate (ab's -c, mutate's -m) never call it.
# bl_usage_error is the caller's (kernel/lib.sh, run.sh).
declare -gA BL_ONCE=()
bl_once() {
	[ -z "${BL_ONCE[$1]+x}" ] || bl_usage_error "$1 given twice"
	BL_ONCE[$1]=1
}
