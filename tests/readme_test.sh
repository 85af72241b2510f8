#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command the documents show works as printed: each command of the
# indented code blocks of README.md, docs/*.md and
# kernel/bugs/*/report.md is run (options where the document puts them,
# its placeholders filled from tests/readme_commands.txt) and must give
# its exit status and print what it should, or is named as skipped with
# the reason (it boots a kernel, needs a kernel tree, takes minutes).
# A command with no row in the table fails: nothing is dropped unseen.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/craft.sh
. "$here/tests/craft.sh"
table=$here/tests/readme_commands.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 1
# The documents' commands run with the caller's declarations unset.
unset BINDLAB_XFAIL BINDLAB_XFAIL_FILE
export HERE=$here
docs=(README.md docs/*.md kernel/bugs/*/report.md)

# commands DOC...: one "DOC:LINE<TAB>BLOCK<TAB>KIND<TAB>TEXT" per line of
# a command block (KIND cmd or comment); continuations joined. A block
# is an indented code block; it is a command block when its first line
# is a command.
commands() {
	awk '
	function is_cmd(s) {
		sub(/^\$ /, "", s)
		while (s ~ /^[A-Z_][A-Z0-9_]*=/)
			if (!sub(/^[A-Z_][A-Z0-9_]*=('"'"'[^'"'"']*'"'"'|"[^"]*"|[^ ]*) +/, "", s))
				break
		return s ~ /^(\.\/[A-Za-z_][A-Za-z0-9_.-]*|make|bind_bench|bind_churn|bindlab_results|bind_model_test|bind_bhash_test|tw_reuse_loopback|sh|for|cd|git|apt-get|mkdir|tar|vng|gcc)( |$)/ ||
			s ~ /^(kernel|lava|scripts|tests|DIR|\/path)\//
	}
	function flush() {
		if (cmd != "")
			printf "%s:%d\t%d\t%s\t%s\n", FILENAME, at, blk, "cmd", cmd
		cmd = ""
	}
	FNR == 1 { flush(); inblk = 0; blank = 1 }
	/^    / && (inblk || blank) {
		t = substr($0, 5)
		if (!inblk) {
			blk++
			cmdblk = is_cmd(t)
		}
		inblk = 1
		if (!cmdblk)
			next
		if (cmd != "" && (cmd ~ /\\$/ || t ~ /^ /)) {
			sub(/ *\\$/, "", cmd)
			sub(/^ +/, "", t)
			cmd = cmd " " t
			next
		}
		flush()
		if (t ~ /^#/)
			printf "%s:%d\t%d\tcomment\t%s\n", FILENAME, FNR, blk, t
		else if (is_cmd(t)) {
			cmd = t
			at = FNR
		}
		next
	}
	{ flush(); inblk = 0; blank = ($0 ~ /^ *$/) }
	END { flush() }' "$@"
}

# row TEXT: the table's first row whose MATCH starts TEXT, its fields
# after MATCH joined by " | ".
row() {
	local text=$1 line match rest

	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		match=${line%% | *}
		rest=${line#* | }
		if [ "${text#"$match"}" != "$text" ]; then
			printf '%s\n' "$rest"
			return 0
		fi
	done <"$table"
	return 1
}

# fill TEXT SUBSTITUTIONS: TEXT with its [optional parts] in, a trailing
# comment and a "$ " prompt off, each FROM=>TO replaced where FROM stands
# as whole words, this tree's scripts for ./run.sh, kernel/, lava/ ...
fill() {
	local s=" $1 " subs=$2 sub from to

	s=${s//[/}
	s=${s//]/}
	s=$(sed -E 's/[[:space:]]+#[^'"'"'"]*$/ /; s/^ \$ / /' <<<"$s")
	while [ -n "$subs" ]; do
		sub=${subs%% ;; *}
		[ "$sub" = "$subs" ] && subs= || subs=${subs#* ;; }
		from=${sub%%=>*}
		to=${sub#*=>}
		[ -n "$from" ] || continue
		s=${s// "$from" / $to }
	done
	# shellcheck disable=SC2016 # $HERE expands when the command runs
	s=$(sed -E 's#([ ;|&(])\./run\.sh#\1$HERE/run.sh#g;
		s#([ ;|&(])(kernel|lava|scripts|tests)/#\1$HERE/\2/#g' <<<"$s")
	s=${s# }
	printf '%s\n' "${s% }"
}

# fixtures DIR DOC: the files the commands name, made in DIR, and the
# files beside DOC (a bug's repro.c) when DOC is not at the top.
fixtures() {
	local d=$1 doc=$2 s i x

	mkdir -p "$d"
	export CRAFT_CURVE=0,100,200:1000,1100,1200
	craft "$d/BEFORE.json" 0.1.0 2 slower:total_ms:lower:100:10,10.2,9.9,10.1,9.8,10.3
	CRAFT_CURVE=0,100,200:4000,4400,4800 \
		craft "$d/AFTER.json" 0.1.0 2 slower:total_ms:lower:100:40,40.8,39.6,40.4,39.2,41.2
	unset CRAFT_CURVE
	# Three runs a side that drift 5% within a side, 1.2x (small) and
	# 3x (big) apart.
	i=0
	for s in A1:10:10 A2:10.3:10.5 A3:9.8:9.7 B1:12:30 B2:12.2:31 B3:11.9:29.5; do
		IFS=: read -r x small big <<<"$s"
		i=$((i + 1))
		CRAFT_ENV="{\"time\": \"2026-01-0${i}T00:00:00Z\"}" craft "$d/$x.json" 0.1.0 2 \
			"small:total_ms:lower:100:$small,$small,$small,$small,$small" \
			"big:total_ms:lower:100:$big,$big,$big,$big,$big"
		mkdir -p "$d/results/6.12.0-$(tr AB ab <<<"${x:0:1}")-$i"
		cp "$d/$x.json" "$d/results/6.12.0-$(tr AB ab <<<"${x:0:1}")-$i/results.json"
	done
	cp tests/ktap/clean.ktap "$d/clean.ktap"
	cp tests/ktap/real_run_tests.ktap "$d/run.ktap"
	# The failures of run.ktap, a 6.18 host's: README's declaration of
	# the fastreuse bug, and that run's crowded port.
	printf '%s\n' 'bind_fastreuse.*_reuseaddr_*.*' 'bind_fastreuse.*_reuseport_alternate*.*' \
		'bind_bhash2.*.crowded_port' >"$d/my-kernel.known"
	cp tests/lava/rest-tests-page1.json tests/lava/rest-tests-page2.json "$d/"
	[ "$(dirname "$doc")" = . ] || find "$(dirname "$doc")" -maxdepth 1 -type f -exec cp {} "$d/" \;
}

# checks OUT DIR CHECKS: each ERE (or FILE~ERE) of CHECKS holds; the
# first that does not on stdout.
checks() {
	local out=$1 dir=$2 list=$3 c file

	while [ -n "$list" ]; do
		c=${list%% && *}
		[ "$c" = "$list" ] && list= || list=${list#* && }
		if [[ $c =~ ^[A-Za-z0-9_.-]+~ ]]; then
			file=${c%%~*}
			grep -Eq -- "${c#*~}" "$dir/$file" 2>/dev/null || { echo "$c"; return 1; }
		else
			grep -Eq -- "$c" "$out" || { echo "$c"; return 1; }
		fi
	done
}

# opts TEXT HELP: every option TEXT names is in HELP's output.
opts() {
	local text=$1 help=$2 w missing=()

	text=$(fill "$text" "")
	eval "$(fill "$help" "")" >"$tmp/help" 2>&1
	for w in $text; do
		w=${w%%=*}
		[[ $w =~ ^--?[A-Za-z][-A-Za-z0-9]*$ ]] || continue
		grep -Eq -- "(^|[^-A-Za-z0-9])$w([^-A-Za-z0-9]|$)" "$tmp/help" || missing+=("$w")
	done
	[ ${#missing[@]} -eq 0 ] || { echo "${missing[*]}"; return 1; }
}

# run_one WHERE DIR TEXT WANT CHECKS SUBS: one command, run and judged.
run_one() {
	local where=$1 dir=$2 text=$3 want=$4 list=$5 subs=$6 cmd rc bad

	cmd=$(fill "$text" "$subs")
	(cd "$dir" && PATH=$here:$PATH timeout -k 5 120 bash -c "$cmd") >"$tmp/out" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 4 ] && [[ "|$want|" != *"|4|"* ]] && grep -q 'SKIP' "$tmp/out"; then
		tap_skip "$where: $text" "$(grep -m 1 SKIP "$tmp/out")"
		return
	fi
	if [[ "|$want|" != *"|$rc|"* ]]; then
		tap_not_ok "$where: $text" "exit $rc, want $want: $cmd" "$(tail -n 8 "$tmp/out")"
	elif ! bad=$(checks "$tmp/out" "$dir" "$list"); then
		tap_not_ok "$where: $text" "did not print or write: $bad" "ran: $cmd" "$(tail -n 8 "$tmp/out")"
	else
		tap_ok "$where: $text"
	fi
}

commands "${docs[@]}" >"$tmp/commands"
n=$(grep -c . "$tmp/commands")
if [ "$n" -lt 30 ]; then
	tap_not_ok "the documents' code blocks hold commands" "found $n: is the block grammar still the test's?"
fi
last_blk=
while IFS=$'\t' read -r where blk kind text; do
	if [ "$kind" = comment ]; then
		tap_skip "$where: $text" "a comment"
		continue
	fi
	# Each block in a directory of its own: its commands in order.
	if [ "$blk" != "$last_blk" ]; then
		dir=$tmp/block$blk
		fixtures "$dir" "${where%%:*}"
		last_blk=$blk
	fi
	if ! r=$(row "$text"); then
		tap_not_ok "$where: $text" "no row in tests/readme_commands.txt: say how to run it or why not"
		continue
	fi
	# The fields, " | " between them (a field may hold "|" itself).
	r=${r% |}
	what=${r%% | *} r=${r#"$what"} r=${r# | }
	a=${r%% | *} r=${r#"$a"} r=${r# | }
	b=$r
	case $what in
	skip) tap_skip "$where: $text" "$a" ;;
	opts)
		if bad=$(opts "$text" "$a"); then
			tap_skip "$where: $text" "$b (its options are in '$a')"
		else
			tap_not_ok "$where: $text" "options not in '$a': $bad"
		fi
		;;
	*) run_one "$where" "$dir" "$text" "$what" "$a" "$b" ;;
	esac
done <"$tmp/commands"

# What README shows ./run.sh cases printing is what it prints.
"$here/run.sh" cases >"$tmp/cases" 2>&1
awk '/`\.\/run\.sh cases` lists them:/ { want = 1; next }
	want && /^    / { print substr($0, 5); next }
	want && !/^ *$/ { exit }' README.md >"$tmp/cases.readme"
if [ ! -s "$tmp/cases.readme" ]; then
	tap_not_ok "README.md: the lines ./run.sh cases prints" "no block after \"\`./run.sh cases\` lists them:\""
elif bad=$(grep -vFxf "$tmp/cases" "$tmp/cases.readme"); then
	tap_not_ok "README.md: the lines ./run.sh cases prints" "not printed: $bad"
else
	tap_ok "README.md: the lines ./run.sh cases prints"
fi
echo "# $n commands in ${docs[*]}"
tap_done
