#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netdev series of scripts/export-series.sh, taken as a maintainer
# takes it: git am on a clean 6.12 tree, checkpatch --strict of every
# patch with the tree's own checkpatch.pl, every patch's state built on
# its own in-tree (bisectable), the last one installed as a fleet does,
# no companion (bench/, jansson) in it, and, when the kernel lab has
# built its kernels, the series run in the lab's VM on the stock kernel
# (the fastreuse bug: 12 growth tests fail) and the fixed one (none) the
# way netdev CI (NIPA) runs it: each program alone, `make -C
# tools/testing/selftests TARGETS=net/bindlab TEST_PROGS=PROG
# TEST_GEN_PROGS="" run_tests` in the tree the last patch built, after
# run_kselftest.sh lists the installed collection.
#
# The tree: BINDLAB_SERIES_TREE (a git kernel tree, its BINDLAB_SERIES_BASE
# or tag stock or HEAD), else the kernel lab's (tag stock), else a small
# git tree of the parts of Debian's linux-source-6.12 the series touches,
# made once under $BINDLAB_CACHE/series. BINDLAB_SERIES_PATCHES=DIR
# checks that series instead of exporting one (a series sent back, or
# one with a planted fault). Nothing here writes to the lab's tree.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=kernel/lib.sh
. "$here/kernel/lib.sh"
BL_PROG=series_test
tmp=$(mktemp -d "${TMPDIR:-/tmp}/series_test.XXXXXX")
# BINDLAB_SERIES_KEEP=1 leaves the clone and the logs for a look.
[ "${BINDLAB_SERIES_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
DEST=tools/testing/selftests/net/bindlab
KSFT="bind_bhash_test tw_reuse_loopback bind_model_test bind_fastreuse"
tarball=/usr/src/linux-source-6.12.tar.xz
mini=$BINDLAB_CACHE/series/linux-6.12-min.git
labtree=$BINDLAB_CACHE/lab/linux-6.12.git
t0=$SECONDS

# not_ok NAME DIAG...: tap_not_ok with every line of a DIAG a "# " line.
not_ok()
{
	local name=$1 a lines=()

	shift
	for a in "$@"; do
		[ -n "$a" ] && mapfile -t -O "${#lines[@]}" lines <<< "$a"
	done
	tap_not_ok "$name" ${lines[@]+"${lines[@]}"}
}

step()
{
	bl_log "[$((SECONDS - t0)) s] $*"
}

# What of linux-source the series needs: the selftests and what their
# Makefiles include, checkpatch and its data, the LICENSES spdxcheck
# reads, MAINTAINERS and get_maintainer.pl, and one file of each
# directory checkpatch's top_of_kernel_tree() looks for.
TREE_PATHS=(tools scripts include/uapi arch/x86/include/uapi LICENSES
	MAINTAINERS Makefile COPYING CREDITS Kbuild README Documentation/dev-tools
	init/Kconfig ipc/Makefile kernel/Makefile fs/Kconfig drivers/Kconfig
	lib/Kconfig)

make_mini_tree()
{
	local top=linux-source-6.12 p members=()

	for p in "${TREE_PATHS[@]}"; do
		members+=("$top/$p")
	done
	rm -rf "$mini.tmp"
	mkdir -p "$mini.tmp"
	bl_nice tar -xJf "$tarball" -C "$mini.tmp" --strip-components=1 "${members[@]}" || return 1
	git -C "$mini.tmp" init -q -b linux-6.12 &&
		git -C "$mini.tmp" config gc.auto 0 &&
		git -C "$mini.tmp" add -A -f &&
		GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
		git -C "$mini.tmp" -c user.name=bindlab -c user.email=bindlab@localhost \
			commit -q -m "$top: the parts the bindlab series needs" || return 1
	mv "$mini.tmp" "$mini"
}

# Sets tree and base; 1 when there is none to be had.
pick_tree()
{
	if [ -n "${BINDLAB_SERIES_TREE:-}" ]; then
		tree=$BINDLAB_SERIES_TREE
	elif git -C "$labtree" rev-parse -q --verify 'stock^{commit}' > /dev/null 2>&1; then
		tree=$labtree
	else
		tree=$mini
		if [ ! -d "$mini/.git" ]; then
			[ -f "$tarball" ] || return 1
			step "making $mini from $tarball"
			make_mini_tree || return 1
		fi
	fi
	base=${BINDLAB_SERIES_BASE:-}
	if [ -z "$base" ]; then
		base=HEAD
		git -C "$tree" rev-parse -q --verify 'stock^{commit}' > /dev/null && base=stock
	fi
	base=$(git -C "$tree" rev-parse -q --verify "$base^{commit}")
}

# The series into $patches: given, or exported now.
get_series()
{
	patches=$tmp/patches
	if [ -n "${BINDLAB_SERIES_PATCHES:-}" ]; then
		cp -r "$BINDLAB_SERIES_PATCHES" "$patches"
		return
	fi
	"$here/scripts/export-series.sh" -o "$patches" --base "$base" "$tree" > "$tmp/export.log" 2>&1
}

# A clone sharing the tree's objects, only the paths above checked out.
make_clone()
{
	local p

	git clone -q --shared --no-checkout "$tree" "$tmp/linux" || return 1
	for p in "${TREE_PATHS[@]}"; do
		[ -d "$tmp/linux/$p" ] && p=$p/
		echo "/$p"
	done > "$tmp/sparse"
	git -C "$tmp/linux" sparse-checkout set --no-cone --stdin < "$tmp/sparse" &&
		git -C "$tmp/linux" checkout -q -b series-test "$base" &&
		git -C "$tmp/linux" config user.name series_test &&
		git -C "$tmp/linux" config user.email series_test@localhost
}

check_export()
{
	if get_series; then
		mapfile -t plist < <(find "$patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
		if [ ${#plist[@]} -ge 1 ] && [ -f "$(echo "$patches"/0000-*.patch)" ]; then
			tap_ok "series.export # ${#plist[@]} patches and a cover letter"
			return 0
		fi
	fi
	not_ok "series.export # patches and a cover letter" "$(tail -n 5 "$tmp/export.log" 2> /dev/null)"
	return 1
}

# The series adds files under $DEST only and touches one other line: no
# companion file, no standalone block, nothing that names jansson.
check_no_companion()
{
	local bad

	bad=$(cat "${plist[@]}" | sed -n 's#^+++ b/##p' | grep -v "^$DEST/" | grep -vx 'tools/testing/selftests/Makefile')
	bad+=$(cat "${plist[@]}" | sed -n 's#^+++ b/##p' | grep -E "^$DEST/(bench/|bind_bench|run\.sh|scripts/|kernel/|lava/|tests/|cases$|README)")
	bad+=$(cat "${plist[@]}" | grep -niE '^\+.*(jansson|bench\.mk|bindlab-standalone)' | head -n 5)
	if [ -z "$bad" ]; then
		tap_ok "series.no_companion # only $DEST and the TARGETS line, no jansson, no standalone block"
	else
		not_ok "series.no_companion" "$bad"
	fi
}

check_am()
{
	if ! make_clone > "$tmp/clone.log" 2>&1; then
		not_ok "series.git_am # a clean branch of $base" "$(tail -n 3 "$tmp/clone.log")"
		return 1
	fi
	if git -C "$tmp/linux" am -q "${plist[@]}" > "$tmp/am.log" 2>&1; then
		tap_ok "series.git_am # ${#plist[@]} patches on $(cut -c 1-12 <<< "$base") of $tree"
		return 0
	fi
	not_ok "series.git_am" "$(head -n 5 "$tmp/am.log")"
	git -C "$tmp/linux" am --abort > /dev/null 2>&1
	return 1
}

# FILE_PATH_CHANGES asks whether MAINTAINERS needs an entry for the new
# files. It does not: NETWORKING [GENERAL] has tools/testing/selftests/net/,
# which check_maintainers proves. Every other message counts, but those
# tests/series_checkpatch_allow keeps, with its reasons. /usr/bin first:
# checkpatch's spdxcheck.py runs "env python3" and needs the system's
# modules (python3-git, python3-ply), not a pyenv's.
run_checkpatch()
{
	(cd "$tmp/linux" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
		--show-types --showfile --ignore FILE_PATH_CHANGES "$1")
}

# allowed MESSAGE: true when tests/series_checkpatch_allow keeps it.
allowed()
{
	local type file word

	while read -r type file word; do
		[[ -z $type || $type == \#* ]] && continue
		[[ $1 == "$DEST/$file:"*": "*":$type: "*"'$word'"* ]] && return 0
	done < "$here/tests/series_checkpatch_allow"
	return 1
}

# One patch: "E errors, W warnings, C checks" of every message, and the
# messages not allowed in $tmp/unexpected. A clean patch prints nothing
# (--terse) and exits 0; a failing checkpatch exits 1 with no message.
checkpatch_one()
{
	local log=$1 rc=$2 m e=0 w=0 c=0

	: > "$tmp/unexpected"
	while IFS= read -r m; do
		case $m in
		*": ERROR:"*) e=$((e + 1)) ;;
		*": WARNING:"*) w=$((w + 1)) ;;
		*": CHECK:"*) c=$((c + 1)) ;;
		*) continue ;;
		esac
		allowed "$m" || echo "$m" >> "$tmp/unexpected"
	done < "$log"
	[ "$rc" = 0 ] || [ $((e + w + c)) -gt 0 ] || echo "checkpatch failed: $(head -n 3 "$log")" >> "$tmp/unexpected"
	echo "$e errors, $w warnings, $c checks"
}

check_checkpatch()
{
	local p n=0 rc totals kept

	for p in "${plist[@]}"; do
		n=$((n + 1))
		rc=0
		run_checkpatch "$p" > "$tmp/checkpatch.$n" 2>&1 || rc=$?
		totals=$(checkpatch_one "$tmp/checkpatch.$n" "$rc")
		kept=$(grep -c ': [A-Z]*:[A-Z_]*: ' "$tmp/checkpatch.$n")
		[ "$kept" = 0 ] && kept='' || kept=", $kept kept (tests/series_checkpatch_allow)"
		if [ -s "$tmp/unexpected" ]; then
			not_ok "series.checkpatch.$n # $(basename "$p"): $totals" \
				"$(head -n 10 "$tmp/unexpected")"
		else
			tap_ok "series.checkpatch.$n # $(basename "$p"): $totals$kept"
		fi
	done
}

check_maintainers()
{
	local out

	out=$(cd "$tmp/linux" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
		--norolestats -f "$DEST/Makefile" 2>&1)
	if grep -q 'netdev@vger.kernel.org' <<< "$out"; then
		tap_ok "series.maintainers # $DEST goes to netdev (MAINTAINERS needs no entry)"
	else
		not_ok "series.maintainers # $DEST goes to netdev" "$(head -n 5 <<< "$out")"
	fi
}

# build_state N PKG_CONFIG_LIBDIR: patch N's tree, built from clean.
build_state()
{
	local n=$1 rev

	rev=$(git -C "$tmp/linux" rev-list --reverse "$base..series-test" | sed -n "${n}p")
	[ -n "$rev" ] || { echo "no patch $n" > "$tmp/build.$n"; return 1; }
	git -C "$tmp/linux" checkout -q "$rev" &&
		git -C "$tmp/linux" clean -fdxq -- tools/testing/selftests || return 1
	(
		# An empty pkg-config directory hides every .pc file, jansson's too.
		[ -z "$2" ] || export PKG_CONFIG_LIBDIR=$2 PKG_CONFIG_PATH=
		bl_nice make -C "$tmp/linux/tools/testing/selftests" -j2 \
			TARGETS=net/bindlab > "$tmp/build.$n" 2>&1
	)
}

# check_build N [PKG_CONFIG_LIBDIR]: the programs patch N's Makefile
# lists, each built, no compiler warning.
check_build()
{
	local n=$1 progs p missing='' t=$SECONDS name=series.build.$1

	[ -z "${2:-}" ] || name=series.build_nojansson.$1

	if ! build_state "$n" "${2:-}"; then
		not_ok "$name # make TARGETS=net/bindlab" \
			"$(grep -m 5 -E 'error|Error|patch' "$tmp/build.$n" 2> /dev/null)"
		return
	fi
	progs=$(sed -n 's/^TEST_GEN_PROGS := //p' "$tmp/linux/$DEST/Makefile")
	for p in $progs; do
		[ -x "$tmp/linux/$DEST/$p" ] || missing+=" $p"
	done
	if [ -z "$progs" ] || [ -n "$missing" ]; then
		not_ok "$name # every program built" "missing:${missing:- (no programs)}"
	elif grep -q 'warning:' "$tmp/build.$n"; then
		not_ok "$name # no compiler warning" "$(grep -m 5 'warning:' "$tmp/build.$n")"
	else
		tap_ok "$name # $progs ($((SECONDS - t)) s${2:+, jansson hidden})"
	fi
}

# The last state: net/bindlab in TARGETS, and make install puts the
# kselftests (and nothing of the companion) where run_kselftest.sh looks.
check_install()
{
	local sel=$tmp/linux/tools/testing/selftests inst=$tmp/install p bad=

	# shellcheck disable=SC2016 # $(TARGETS) is make's, expanded by make
	if ! make -s -C "$sel" --no-print-directory --eval 'bl-targets: ; @echo $(TARGETS)' \
		bl-targets | tr ' ' '\n' | grep -qx net/bindlab; then
		not_ok "series.targets # net/bindlab in the selftests' TARGETS" ""
	else
		tap_ok "series.targets # net/bindlab in the selftests' TARGETS"
	fi
	if ! bl_nice make -C "$sel" -j2 TARGETS=net/bindlab install INSTALL_PATH="$inst" > "$tmp/install.log" 2>&1; then
		not_ok "series.install" "$(tail -n 5 "$tmp/install.log")"
		return
	fi
	for p in $KSFT; do
		[ -x "$inst/net/bindlab/$p" ] || bad+=" no net/bindlab/$p;"
		grep -qx "net/bindlab:$p" "$inst/kselftest-list.txt" || bad+=" $p not in kselftest-list.txt;"
	done
	[ -f "$inst/net/bindlab/settings" ] || bad+=" no settings;"
	# lib.mk installs the config fragment beside the programs.
	p=$(find "$inst/net/bindlab" -mindepth 1 -maxdepth 1 -printf '%f\n' |
		grep -vxE "settings|config|${KSFT// /|}")
	[ -z "$p" ] || bad+=" also installed: $(echo "$p" | tr '\n' ' ')"
	if [ -z "$bad" ]; then
		tap_ok "series.install # $KSFT, settings and config; the programs in kselftest-list.txt"
	else
		not_ok "series.install" "$bad"
	fi
}

# The jansson-hidden build of the last state is the same build: the
# series holds no optional dependency to adapt to.
check_jansson_irrelevant()
{
	local last=$1

	(cd "$tmp/linux/$DEST" && find . -type f | sort) > "$tmp/built.with"
	mkdir -p "$tmp/nopc"
	check_build "$last" "$tmp/nopc"
	(cd "$tmp/linux/$DEST" && find . -type f | sort) > "$tmp/built.without"
	if cmp -s "$tmp/built.with" "$tmp/built.without" && ! grep -qi jansson "$tmp/build.$last"; then
		tap_ok "series.jansson_irrelevant # the same $(wc -l < "$tmp/built.with") files with jansson hidden, make never names it"
	else
		not_ok "series.jansson_irrelevant" "$(diff "$tmp/built.with" "$tmp/built.without" | head -n 5)" \
			"$(grep -i -m 3 jansson "$tmp/build.$last")"
	fi
}

# build.sh's image_key, restated: the lab's image of commit $1 of its
# tree, if the kernel lab has built it. Never builds one.
lab_image()
{
	local id key

	id=$(git -C "$labtree" rev-parse -q --verify "$1^{tree}" 2> /dev/null) || return 1
	key=$({
		echo "$id"
		cat "$here/kernel/config.fragment" "$here/kernel/build.sh"
		gcc --version | head -n 1
	} | sha256sum | cut -c 1-20)
	img=$BINDLAB_CACHE/images/$key/bzImage
	[ -f "$img" ]
}

# What NIPA's run_tests needs of the tree the last patch built in place:
# the selftests' Makefile and lib.mk, the runner, the Makefile's
# subarch.include, and net/bindlab with its programs (not its objects).
NIPA_PATHS=(scripts/subarch.include tools/testing/selftests/Makefile
	tools/testing/selftests/lib.mk tools/testing/selftests/kselftest "$DEST")

# The series' installed collection as vm.sh takes it: vm.sh wants every
# program of the project's list in it, the companion's too (bind_bench,
# ...), which the series has none of. They ride along from this
# project's build, unused: kselftest-list.txt is the series' own. The
# tree for NIPA's form and make ride along too, at /kselftest/nipa in
# the guest (initramfs.sh copies make's libraries, as any program's).
vm_collection()
{
	local p new=$tmp/vmcoll.new

	[ -d "$tmp/vmcoll" ] && return 0
	bl_programs > /dev/null 2>&1 || return 1
	rm -rf "$new"
	cp -a "$tmp/install" "$new" || return 1
	for p in $BL_TOOLS; do
		[ -x "$here/$p" ] || { echo "no $p (make)"; return 1; }
		cp "$here/$p" "$new/net/bindlab/"
	done
	mkdir -p "$new/nipa/bin"
	if ! (cd "$tmp/linux" && tar -cf - --exclude='*.o' --exclude='*.a' "${NIPA_PATHS[@]}") |
	     tar -xf - -C "$new/nipa" || ! cp "$(command -v make)" "$new/nipa/bin/make"; then
		echo "no tree or no make for NIPA's form"
		return 1
	fi
	mv "$new" "$tmp/vmcoll"
}

# The guest's command: the runner's list of the installed collection,
# then each program alone the NIPA way, a marker line before each.
nipa_cmd()
{
	cat <<EOF
run_kselftest.sh -l
cd /kselftest/nipa || exit 1
PATH=/kselftest/nipa/bin:\$PATH
for p in $KSFT; do
	echo "bindlab-nipa: \$p"
	make -C tools/testing/selftests TARGETS=net/bindlab TEST_PROGS=\$p TEST_GEN_PROGS="" run_tests
done
EOF
}

# nipa_results DIR: "PROG ok|not_ok [CASE...]" a program, from its
# runner's line and the harness's failing cases nested under it ("# ").
nipa_results()
{
	awk '/^bindlab-nipa: / { p = $2; next }
	     p != "" && ($0 == "ok 1 selftests: net/bindlab: " p ||
			 index($0, "not ok 1 selftests: net/bindlab: " p) == 1) {
		v[p] = ($1 == "ok") ? "ok" : "not_ok"; next }
	     p != "" && /^# *not ok [0-9]+ [^ ]/ {
		sub(/^# *not ok [0-9]+ /, ""); f[p] = f[p] " " $1 }
	     END { for (q in v) print q, v[q] f[q] }' "$1/output.log" 2> /dev/null
}

# nipa_verdicts DIR WANT: nothing when run_kselftest.sh listed the
# programs and each ran the NIPA way: bind_fastreuse failing WANT cases,
# all bind_fastreuse.*.growth (not ok when WANT > 0), the others ok;
# else what is wrong, one line each.
nipa_verdicts()
{
	local p v cases n want_v line listed

	listed=$(grep -cE "^net/bindlab:(${KSFT// /|})$" "$1/output.log" 2> /dev/null)
	n=$(wc -w <<< "$KSFT")
	[ "$listed" = "$n" ] || echo "run_kselftest.sh -l listed ${listed:-0}/$n programs"
	for p in $KSFT; do
		line=$(nipa_results "$1" | grep "^$p ")
		if [ -z "$line" ]; then
			echo "$p: no runner result"
			continue
		fi
		read -r _ v cases <<< "$line"
		n=$(wc -w <<< "$cases")
		want_v=ok
		if [ "$p" = bind_fastreuse ]; then
			[ "$2" = 0 ] || want_v=not_ok
			[ "$n" = "$2" ] || echo "$p: $n failing cases, want $2"
		else
			[ "$n" = 0 ] || echo "$p: $n failing cases, want 0"
		fi
		[ "$v" = "$want_v" ] || echo "$p: $v, want $want_v"
		cases=$(tr ' ' '\n' <<< "$cases" | grep . | grep -v '^bind_fastreuse\..*\.growth$')
		[ -z "$cases" ] || echo "$p: not growth: $(head -n 5 <<< "$cases" | paste -sd ' ')"
	done
}

# check_vm NAME REV WANT: the series on the lab's kernel REV; WANT is how
# many cases of bind_fastreuse fail, all of them bind_fastreuse.*.growth.
check_vm()
{
	local name=$1 rev=$2 want=$3 dir=$tmp/vm.$1 rc=0 t=$SECONDS why bad sum w=ok p

	if ! lab_image "$rev"; then
		tap_skip "series.vm.$name" "no lab image of $rev yet (tests/kernel_lab_test.sh builds it)"
		return
	fi
	if ! why=$(vm_collection); then
		tap_skip "series.vm.$name" "no collection for vm.sh: ${why:-kernel/lib.sh bl_programs failed}"
		return
	fi
	"$here/kernel/vm.sh" -k "$img" -C "$tmp/vmcoll" -o "$dir" -T 1500 -c "$(nipa_cmd)" \
		> /dev/null 2> "$dir.err" || rc=$?
	bad=$(nipa_verdicts "$dir" "$want")
	sum=$(for p in $KSFT; do nipa_results "$dir" | grep "^$p "; done |
		awk '{ sub(/_/, " ", $2); printf "%s%s %s", s, $1, $2; s = ", "
		       if (NF > 2) printf " (%d failing cases)", NF - 2 }')
	[ "$want" = 0 ] || w="not ok with $want bind_fastreuse.*.growth failures"
	if [ -z "$bad" ]; then
		tap_ok "series.vm.$name # $rev kernel, each program alone the NIPA way: $sum; vm.sh exit $rc, $((SECONDS - t)) s"
	else
		not_ok "series.vm.$name # $rev kernel, NIPA's run_tests: want bind_fastreuse $w, the others ok" \
			"$bad" "got: ${sum:-nothing}; vm.sh exit $rc" "$(tail -n 3 "$dir.err" 2> /dev/null)"
	fi
}

echo "TAP version 13"
if ! pick_tree; then
	tap_skip "series" "no kernel lab tree, no $tarball to make one from"
	tap_done
	exit 4
fi
step "tree $tree at $(cut -c 1-12 <<< "$base")"
check_export || { tap_done; exit 1; }
check_no_companion
check_am || { tap_done; exit 1; }
check_checkpatch
check_maintainers
for ((i = 1; i <= ${#plist[@]}; i++)); do
	step "build of patch $i"
	check_build "$i"
done
check_install
check_jansson_irrelevant "${#plist[@]}"
# The stock kernel has the fastreuse bug (12 growth cases fail), the
# fixed one not. BINDLAB_SERIES_VM=0 leaves the VMs out.
if [ "${BINDLAB_SERIES_VM:-1}" != 0 ]; then
	step "the collection in VMs"
	check_vm stock stock 12
	check_vm fixed fixed 0
fi
step "done"
tap_done
