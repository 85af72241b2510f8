#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/inputs.tsv lists every input of the project. This fails when the
# code reads one the table does not list: an environment variable (C
# getenv("...") and "BINDLAB_*"/"KSFT_*" literals, shell ${BINDLAB_*},
# $BINDLAB_*, ${KSFT_*} and ${NAME:-default} reads, make's $(BINDLAB_*)
# and ?= but not the variables a makefile sets itself, python's
# os.environ), a long option of a program (C longopts and "--name"
# literals, shell "--name)" case patterns) or a subcommand
# (bindlab_results, run.sh); and when a row is malformed. Sources are the
# files git tracks, so a file being written by hand is seen once added.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
table=$here/tests/inputs.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 1

# Rows: 9 tab-separated columns, each word of its vocabulary.
check_rows() {
	awk -F '\t' '
	/^#/ || /^$/ { next }
	NF != 9 { printf "line %d: %d columns, not 9\n", NR, NF; next }
	$1 !~ /^(arg|opt|flag|subcmd|harness|env|file|signal)$/ { printf "line %d: kind %s\n", NR, $1 }
	$4 !~ /^(int|uint|real|enum|list|range|out-?|outdir|prefix|self|in|indir|name|text|word|never|sig)( |$)/ { printf "line %d: grammar %s\n", NR, $4 }
	$5 !~ /^(0|any(:[0-9]+(,[0-9]+)*)?|0p|-)$/ { printf "line %d: valid %s\n", NR, $5 }
	$6 !~ /^(2|128|1u|4|fail|gone|-)$/ { printf "line %d: invalid %s\n", NR, $6 }
	$7 !~ /^(-|(check|real|lab|content) .+)$/ { printf "line %d: probe %s\n", NR, $7 }
	$8 !~ /^(-|(bug|unsafe) [^ :;]+(:[a-z0-9-]+(,[a-z0-9-]+)*)?(; (bug|unsafe) [^ :;]+(:[a-z0-9-]+(,[a-z0-9-]+)*)?)*)$/ { printf "line %d: known %s\n", NR, $8 }
	' "$table"
}

# The sources: tracked files, by language.
sources() {
	local kind=$1

	git ls-files -- . ':!tests/fuzz/corpus' ':!tests/lava' | while read -r f; do
		[ -f "$f" ] || continue
		case $kind:$f in
		c:*.c | c:*.h) echo "$f" ;;
		make:Makefile | make:*.mk) echo "$f" ;;
		py:*.py) echo "$f" ;;
		sh:*.sh) echo "$f" ;;
		sh:*) [ "$kind" = sh ] && head -n 1 "$f" | grep -qE '^#!.*(ba)?sh' && echo "$f" ;;
		esac
	done
}

# Every variable the code reads, one "NAME FILE" a line.
env_reads() {
	local f

	for f in $(sources c); do
		grep -oE 'getenv\("[A-Za-z0-9_]+"\)|"(BINDLAB|KSFT)_[A-Z0-9_]+"' "$f" |
			grep -oE '[A-Z][A-Za-z0-9_]+' | grep -vx getenv | sed "s|\$| $f|"
	done
	for f in $(sources sh); do
		# The table of a test may quote names; comments never count.
		grep -v '^[[:space:]]*#' "$f" |
			grep -oE '\$\{?(BINDLAB|KSFT)_[A-Z0-9_]+|\$\{[A-Z][A-Z0-9_]*:?[-=]' |
			grep -oE '[A-Z][A-Z0-9_]+' | sed "s|\$| $f|"
	done
	for f in $(sources make); do
		# A variable the makefile only ever sets (NAME := or NAME =;
		# never ?=, which reads the environment, or +=) is make's own,
		# no input.
		grep -oE '^[A-Z][A-Z0-9_]* *\?=' "$f" | grep -oE '^[A-Z][A-Z0-9_]*' >"$tmp/make.env"
		grep -oE '^[A-Z][A-Z0-9_]* *:{0,2}=' "$f" | grep -oE '^[A-Z][A-Z0-9_]*' |
			grep -vxF -f "$tmp/make.env" >"$tmp/make.own"
		grep -v '^[[:space:]]*#' "$f" |
			grep -oE '\$\((BINDLAB|KSFT)_[A-Z0-9_]+\)|^[A-Z][A-Z0-9_]* *\?=' |
			grep -oE '[A-Z][A-Z0-9_]+' | grep -vxF -f "$tmp/make.own" | sed "s|\$| $f|"
	done
	for f in $(sources py); do
		grep -oE 'environ(\.get)?[[(]"[A-Z0-9_]+"|getenv\("[A-Z0-9_]+"' "$f" |
			grep -oE '"[A-Z0-9_]+"' | tr -d '"' | sed "s|\$| $f|"
	done
}

listed_env() {
	awk -F '\t' '!/^#/ && $1 == "env" { n = split($3, w, " "); for (i = 1; i <= n; i++) print w[i] }' "$table" | sort -u
}

# Long options, "PROGRAM --name" a line: C longopts and "--name"
# literals of a program's sources, shell case patterns of each script.
long_opts() {
	local f p

	for f in bind_bench.c bench/bind_churn.c bench/bindlab_results.c; do
		p=$(basename "$f" .c)
		{
			grep -oE '\{ *"[a-z][a-z0-9-]*", *(required|no|optional)_argument' "$f" |
				sed -E 's/\{ *"([^"]*)".*/--\1/'
			grep -oE '"--[a-z][a-z0-9-]*"' "$f" | tr -d '"'
		} | sed "s|^|$p |"
	done
	# Case patterns only: a line that starts with "-x|--name)" or the like.
	for f in run.sh kernel/*.sh lava/*.sh; do
		grep -oE '^[[:space:]]*"?-[-A-Za-z0-9]*"?([[:space:]]*\|[[:space:]]*"?-[-A-Za-z0-9?]*"?)*\)' "$f" |
			grep -oE -- '--[a-z][a-z0-9-]*' | sed "s|^|$f |"
	done
}

# "PROGRAM --name": listed when a row of PROGRAM (or PROGRAM SUBCOMMAND)
# names it in INPUT.
listed_opts() {
	local p o f

	awk -F '\t' '!/^#/ && $1 != "env" {
		split($2, p, " ")
		n = split($3, w, /[ |]/)
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^--/)
				print p[1], w[i]
	}' "$table" | while read -r p o; do
		# A row of "kernel/*.sh" is every such script's.
		for f in $p; do
			echo "$f $o"
		done
	done | sort -u
}

# Subcommands: bindlab_results' strcmp(argv[1], ...) and run.sh's
# dispatcher, each in its SUBCOMMAND row's enum.
subcommands() {
	grep -oE 'strcmp\(argv\[1\], "[a-z-]+"\)' bench/bindlab_results.c |
		grep -oE '"[a-z-]+"' | tr -d '"' | grep -vE '^-' | sed 's|^|bindlab_results |'
	sed -n '/^case "\${1:-}" in/,/^esac/p' run.sh | grep -oE '^[a-z][a-z-]*\)' |
		tr -d ')' | sed 's|^|run.sh |'
}

listed_subcommands() {
	awk -F '\t' '!/^#/ && $1 == "subcmd" {
		g = $4
		sub(/^enum /, "", g)
		n = split(g, w, "|")
		for (i = 1; i <= n; i++)
			print $2, w[i]
	}' "$table" | sort -u
}

# missing WHAT GOT LISTED: a TAP line for the entries of GOT not in LISTED.
missing() {
	local what=$1 got=$2 listed=$3 miss

	miss=$(join -v 1 <(sort -u "$got") <(sort -u "$listed"))
	if [ -z "$miss" ]; then
		tap_ok "every $what the code reads is in tests/inputs.tsv ($(sort -u "$got" | wc -l))"
	else
		mapfile -t lines <<<"$miss"
		tap_not_ok "every $what the code reads is in tests/inputs.tsv" \
			"not listed:" "${lines[@]}"
	fi
}

bad=$(check_rows)
if [ -z "$bad" ]; then
	tap_ok "tests/inputs.tsv: every row has 9 columns of the documented words"
else
	mapfile -t lines <<<"$bad"
	tap_not_ok "tests/inputs.tsv rows" "${lines[@]}"
fi

env_reads | awk '{ print $1 }' | sort -u >"$tmp/env.got"
listed_env >"$tmp/env.listed"
missing "environment variable" "$tmp/env.got" "$tmp/env.listed"
env_reads | sort -u >"$tmp/env.where"
# Where an unlisted one is read, for the reader of a failure.
join -v 1 <(sort -u "$tmp/env.where") "$tmp/env.listed" | sed 's/^/# read at: /'

long_opts | sort -u | sed 's/ /\t/' | awk -F '\t' '{ print $1 " " $2 }' >"$tmp/opt.got"
listed_opts >"$tmp/opt.listed"
# join on the whole line: "PROGRAM --name" both sides.
sed 's/ /\x1f/' "$tmp/opt.got" | sort -u >"$tmp/o1"
sed 's/ /\x1f/' "$tmp/opt.listed" | sort -u >"$tmp/o2"
missing "long option" "$tmp/o1" "$tmp/o2"

subcommands | sed 's/ /\x1f/' | sort -u >"$tmp/s1"
listed_subcommands | sed 's/ /\x1f/' | sort -u >"$tmp/s2"
missing "subcommand" "$tmp/s1" "$tmp/s2"

# scripts/args.sh reorders the words by a list of the options that take a
# value; the script's own loop reads them with bl_need_arg. An option the
# loop reads but the list lacks has its value taken for an operand
# ("--server needs a value"): the two must agree in every script.
args_lists() {
	local f

	git grep -l '^[[:space:]]*bl_args "' -- '*.sh' run.sh | while read -r f; do
		awk -v f="$f" '
		/^[ \t]*bl_args "/ {
			l = $0
			sub(/^[ \t]*bl_args "/, "", l)
			sub(/".*/, "", l)
			n = split(l, a, " ")
			for (i = 1; i <= n; i++)
				valued[a[i]] = 1
		}
		/^[ \t]*[-|a-zA-Z0-9]+\)[ \t]*bl_need_arg/ {
			o = $0
			sub(/^[ \t]*/, "", o)
			sub(/\).*/, "", o)
			m = split(o, b, "|")
			for (i = 1; i <= m; i++)
				need[b[i]] = NR
		}
		END {
			for (o in need)
				if (!(o in valued))
					printf "%s:%d: %s takes a value, not in its bl_args list\n", f, need[o], o
		}' "$f"
	done
}
args_bad=$(args_lists | sort)
if [ -z "$args_bad" ]; then
	tap_ok "every option a shell loop reads a value for is in its bl_args list"
else
	mapfile -t lines <<<"$args_bad"
	tap_not_ok "every option a shell loop reads a value for is in its bl_args list" "${lines[@]}"
fi

# Counts by kind, for the log.
echo "# rows by kind: $(awk -F '\t' '!/^#/ && NF { n[$1]++ } END { for (k in n) printf "%s %d, ", k, n[k] }' "$table")"
tap_done
