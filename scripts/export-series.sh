#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest part as netdev takes it: a git format-patch series that
# adds tools/testing/selftests/net/bindlab/ to a kernel tree, one patch
# per kselftest, then wires the directory into the selftests' TARGETS.
# Written in a throwaway clone: the kernel tree's refs never move.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../kernel/lib.sh
. "$(dirname "$0")/../kernel/lib.sh"

usage()
{
	cat <<EOF
usage: $BL_PROG [options] LINUX_TREE
  Write the kselftest part of this project as the work tree has it (the
  Makefile without its standalone blocks, settings, config, the
  kselftests, their headers and lib/) as a patch series against
  LINUX_TREE (a git kernel tree), cover letter first:
    0000-cover-letter.patch
    0001  the library, the Makefile, settings, config, bind_bhash_test
    0002  tw_reuse_loopback (and the library source only it needs)
    0003  bind_model_test (and the model only it needs)
    0004  bind_fastreuse (the harness and libc only)
    0005  net/bindlab in tools/testing/selftests/Makefile's TARGETS
  Every patch builds on its own. Texts: kernel/series-cover.txt. Author
  and Signed-off-by: this repository's git config user.name/user.email,
  else "bindlab <bindlab@localhost>".
options:
  -o, --out DIR     where the patches go (default results/series of this
                    project, which git ignores); made anew,
                    refused if it holds anything but NNNN-*.patch files
  -b, --base REF    the commit to apply to (default: tag stock if
                    LINUX_TREE has it, as the kernel lab's tree does,
                    else HEAD)
  -h, --help        this text
output: DIR, last line of stdout
exit: 0 written, 1 failure, 2 usage
EOF
}

out=$BL_REPO_DIR/results/series
base=
# GNU order: options before or after the operands (scripts/args.sh).
bl_args "-o --out -b --base" "" "$@"
set -- "${BL_ARGS[@]}"
while [ $# -gt 0 ]; do
	case $1 in
	-o|--out) bl_need_arg "$1" $# "${2-}"; out=$2; shift ;;
	-b|--base) bl_need_arg "$1" $# "${2-}"; base=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) bl_usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || bl_usage_error "want one LINUX_TREE"
tree=$1
git -C "$tree" rev-parse -q --git-dir > /dev/null 2>&1 || bl_usage_error "not a git tree: $tree"
if [ -z "$base" ]; then
	base=HEAD
	git -C "$tree" rev-parse -q --verify 'stock^{commit}' > /dev/null && base=stock
fi
base_id=$(git -C "$tree" rev-parse -q --verify "$base^{commit}") ||
	bl_usage_error "no such commit in $tree: $base"

DEST=tools/testing/selftests/net/bindlab
TEXTS=$BL_REPO_DIR/kernel/series-cover.txt

# One patch per kselftest, in this order: "PROGRAM:LIB FILES" where LIB
# FILES are the lib/ files that program is the first to need (checked:
# resolve_stages). The first patch takes the rest of lib/ (every
# kselftest links the base).
STAGES=(
	"bind_bhash_test:"
	"tw_reuse_loopback:addrwait.c"
	"bind_model_test:bind_model.c bind_model.h"
	"bind_fastreuse:"
)

# The texts file: "== NAME" starts section NAME (cover, 1, 2, ...);
# lines before the first section are its own comments.
section()
{
	awk -v want="$1" '/^== / { on = ($2 == want); next } on' "$TEXTS"
}

# A program's private headers, as its NAME_HDRS lines list them.
program_headers()
{
	sed -n "s/^$1_HDRS [:+]= //p" "$BL_REPO_DIR/Makefile"
}

# Every stage's program, and the Makefile's: a kselftest the table lacks
# would silently fall out of the series.
check_stages()
{
	local s listed=() want

	for s in "${STAGES[@]}"; do
		listed+=("${s%%:*}")
	done
	want=$(sed -n 's/^TEST_GEN_PROGS := //p' "$BL_REPO_DIR/Makefile")
	[ "${listed[*]}" = "$want" ] ||
		bl_die 1 "the stages (${listed[*]}) are not the Makefile's TEST_GEN_PROGS ($want)"
	for s in $(seq 1 $((${#STAGES[@]} + 1))) cover; do
		[ -n "$(section "$s")" ] || bl_die 1 "$TEXTS has no section '== $s'"
	done
}

# The names a group of lib/ files gives its users: the functions its .c
# files define (kernel style, at column 0) and its headers' file names.
group_names()
{
	local f

	for f in $1; do
		case $f in
		*.h) echo "$f" ;;
		*.c) sed -nE '/^static/d; s/^[A-Za-z_][A-Za-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(.*/\1/p' \
			"$BL_REPO_DIR/lib/$f" ;;
		esac
	done
}

# stage_uses N NAMES: stage N's files use one of NAMES. Library headers
# count only by what they include: they declare every function.
stage_uses()
{
	local f code=() hdrs=()

	for f in $(stage_files "$1"); do
		case $f in
		lib/*.h) hdrs+=("$BL_REPO_DIR/$f") ;;
		*) code+=("$BL_REPO_DIR/$f") ;;
		esac
	done
	grep -qwF -f <(echo "$2") "${code[@]}" ||
		{ [ ${#hdrs[@]} -gt 0 ] && grep -qwF -f <(grep '\.h$' <<< "$2") "${hdrs[@]}"; }
}

# The table as the code has it: a lib/ group moves to the first stage
# that uses it (a change made an earlier test need it), said on stderr.
resolve_stages()
{
	local i j names

	for ((i = 1; i < ${#STAGES[@]}; i++)); do
		names=$(group_names "${STAGES[$i]#*:}")
		[ -n "$names" ] || continue
		for ((j = 0; j < i; j++)); do
			stage_uses "$((j + 1))" "$names" || continue
			bl_log "lib/ ${STAGES[$i]#*:}: needed by ${STAGES[$j]%%:*} already, so in its patch"
			[ "$j" = 0 ] || STAGES[j]+=" ${STAGES[$i]#*:}"
			STAGES[i]=${STAGES[$i]%%:*}:
			break
		done
	done
}

# lib/ files held back for a later stage than $1 (1-based).
later_lib_files()
{
	local i

	for ((i = $1; i < ${#STAGES[@]}; i++)); do
		echo "${STAGES[$i]#*:}"
	done
}

# The Makefile as stage $1 has it: no standalone blocks (a kernel tree
# has lib.mk at ../../, no companion), the programs so far, only their
# headers and library sources, no trailing blank line.
stage_makefile()
{
	local n=$1 progs=() i f

	for ((i = 0; i < n; i++)); do
		progs+=("${STAGES[$i]%%:*}")
	done
	sed '/^# bindlab-standalone-begin$/,/^# bindlab-standalone-end$/d' "$BL_REPO_DIR/Makefile" |
		sed "s/^TEST_GEN_PROGS := .*/TEST_GEN_PROGS := ${progs[*]}/" > "$work/Makefile"
	for ((i = n; i < ${#STAGES[@]}; i++)); do
		sed -i "/^${STAGES[$i]%%:*}_HDRS [:+]= /d" "$work/Makefile"
	done
	for f in $(later_lib_files "$n"); do
		sed -i "/^LIBSRC /s/ ${f//./\\.}\b//" "$work/Makefile"
	done
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$work/Makefile"
}

# The files stage $1 adds, relative to the project (Makefile aside).
stage_files()
{
	local n=$1 s=${STAGES[$(($1 - 1))]} f held

	echo "${s%%:*}.c"
	for f in $(program_headers "${s%%:*}"); do
		echo "$f"
	done
	if [ "$n" -gt 1 ]; then
		for f in ${s#*:}; do
			echo "lib/$f"
		done
		return
	fi
	echo settings
	echo config
	held=" $(later_lib_files 1 | tr '\n' ' ') "
	for f in "$BL_REPO_DIR"/lib/*.[ch]; do
		f=$(basename "$f")
		[[ $held == *" $f "* ]] || echo "lib/$f"
	done
}

git_work()
{
	git -C "$work/linux" -c core.hooksPath=/dev/null "$@"
}

commit_stage()
{
	local n=$1 f

	for f in $(stage_files "$n"); do
		[ -f "$BL_REPO_DIR/$f" ] || bl_die 1 "stage $n: no such file: $f"
		mkdir -p "$work/linux/$DEST/$(dirname "$f")"
		cp "$BL_REPO_DIR/$f" "$work/linux/$DEST/$f"
	done
	stage_makefile "$n" > "$work/linux/$DEST/Makefile"
	git_work add -f -- "$DEST"
	section "$n" > "$work/msg"
	git_work commit -q -s -F "$work/msg"
}

# net/bindlab into the selftests' TARGETS, in the net/ lines' order.
commit_targets()
{
	local mk=$work/linux/tools/testing/selftests/Makefile

	awk -v t="net/bindlab" '
		!done && $1 == "TARGETS" && $3 ~ /^net\// && $3 > t { print "TARGETS += " t; done = 1 }
		{ print }
		END { exit !done }' "$mk" > "$work/Makefile.targets" ||
		bl_die 1 "no TARGETS += net/... line after net/bindlab in $mk"
	cat "$work/Makefile.targets" > "$mk"
	section "$((${#STAGES[@]} + 1))" > "$work/msg"
	git_work commit -q -s -a -F "$work/msg"
}

identity()
{
	local name email

	name=$(git -C "$BL_REPO_DIR" config user.name || true)
	email=$(git -C "$BL_REPO_DIR" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		name=bindlab email=bindlab@localhost
	fi
	git_work config user.name "$name"
	git_work config user.email "$email"
}

# A clone sharing the tree's objects, checked out sparsely: only
# tools/testing/selftests and the top-level files are written.
make_clone()
{
	git clone -q --shared --no-checkout "$tree" "$work/linux"
	git_work sparse-checkout set tools/testing/selftests
	git_work checkout -q -b bindlab-series "$base_id"
	[ -f "$work/linux/tools/testing/selftests/Makefile" ] ||
		bl_die 1 "$tree at $base has no tools/testing/selftests/Makefile"
	[ ! -e "$work/linux/$DEST" ] || bl_die 1 "$tree at $base already has $DEST"
	identity
}

# OUT made anew, but never at the cost of a file that is not a patch.
prepare_out()
{
	local f

	mkdir -p "$out"
	for f in "$out"/* "$out"/.[!.]*; do
		[ -e "$f" ] || continue
		[[ $(basename "$f") =~ ^[0-9]{4}-.*\.patch$ ]] ||
			bl_die 1 "$out holds $(basename "$f"), not a patch: refusing to empty it"
	done
	rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
}

export_series()
{
	local n

	make_clone
	for ((n = 1; n <= ${#STAGES[@]}; n++)); do
		commit_stage "$n"
	done
	commit_targets
	section cover | git_work config branch.bindlab-series.description "$(cat)"
	prepare_out
	git_work format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="PATCH net-next" --base="$base_id" \
		-o "$(cd "$out" && pwd)" "$base_id..HEAD"
}

check_stages
resolve_stages
work=$(mktemp -d "${TMPDIR:-/tmp}/export-series.XXXXXX")
# shellcheck disable=SC2064 # the path is fixed now
trap "rm -rf '$work'" EXIT
export_series
bl_log "$(find "$out" -name '[0-9]*.patch' | wc -l) files against $base ($(cut -c 1-12 <<< "$base_id")) of $tree"
cd "$out" && pwd
