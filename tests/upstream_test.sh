#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The patches of scripts/upstream.sh as netdev's maintainers take them:
# the committed ones are what the script writes now (not stale), each
# passes checkpatch.pl --strict of the 6.12 tree with no message, the
# selftests are at most 200 lines each, and the script refuses to sign
# without a git identity. With the kernel lab's tree
# (tests/kernel_lab_test.sh makes it; BINDLAB_KERNEL_LAB=0 leaves this
# part out), each net-next patch goes onto the lab's stock 6.12 with git
# am alone and both together, builds in-tree after make headers, is
# installed by kselftest's make install, and runs as NIPA runs it,
# run_kselftest.sh -t net:TEST, in the lab's VMs: bind_fastreuse fails on
# the stock kernel, passes on the fixed one, and on stock with
# KSFT_MACHINE_SLOW=yes (standing in for netdev's slow debug kernels)
# its over-limit cases are XFAIL, not FAIL; tcp_tw_reuse passes on fixed.
#
# BINDLAB_UPSTREAM_PATCHES=DIR checks the patches in DIR (a copy of the
# project's layout: DIR/upstream/..., DIR/kernel/...) instead of the
# project's: a planted fault.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=kernel/lib.sh
. "$here/kernel/lib.sh"
BL_PROG=upstream_test
tmp=$(mktemp -d "${TMPDIR:-/tmp}/upstream_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=${BINDLAB_UPSTREAM_PATCHES:-$here}
tarball=/usr/src/linux-source-6.12.tar.xz
labtree=$BINDLAB_CACHE/lab/linux-6.12.git
mini=$BINDLAB_CACHE/upstream/linux-6.12-min.git
SEL=tools/testing/selftests
TESTS=(bind_fastreuse tcp_tw_reuse)
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

# The patches under a root, relative to it, one a line.
patches_of()
{
	(cd "$1" && find upstream kernel/patches kernel/bugs -name '[0-9][0-9][0-9][0-9]-*.patch' \
		2> /dev/null | LC_ALL=C sort)
}

# The identity that signed the net-next patch (its From:, unfolded).
signer()
{
	sed -n '/^From: /{N;s/\n / /;p;q}' "$src"/upstream/net-next/0001-*.patch |
		sed -n 's/^From: \(.*\) <\(.*\)>.*/\1\n\2/p'
}

# Regenerated with the identity the committed patches carry: stale is a
# difference in anything else.
check_fresh()
{
	local id=() diffs='' f

	mapfile -t id < <(signer)
	if [ ${#id[@]} != 2 ]; then
		not_ok "upstream.fresh" "no From: in $src/upstream/net-next/0001-*.patch"
		return
	fi
	if ! GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="${id[0]}" \
	     GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="${id[1]}" \
	     "$here/scripts/upstream.sh" -o "$tmp/gen" > "$tmp/gen.log" 2>&1; then
		not_ok "upstream.fresh" "scripts/upstream.sh failed:" "$(tail -n 3 "$tmp/gen.log")"
		return
	fi
	diffs=$(diff <(patches_of "$src") <(patches_of "$tmp/gen"))
	# A patch's "index" line names the blobs of the tree it was made on:
	# Debian's next linux-source-6.12 moves them while the project's
	# patch stays the same, and git am does not need them.
	for f in $(patches_of "$tmp/gen"); do
		[ -f "$src/$f" ] && ! diff -q -I '^index [0-9a-f]*\.\.[0-9a-f]*\( [0-7]*\)\?$' \
			"$src/$f" "$tmp/gen/$f" > /dev/null && diffs+="$f differs"$'\n'
	done
	if [ -z "$diffs" ]; then
		tap_ok "upstream.fresh # $(patches_of "$src" | wc -l) patches as scripts/upstream.sh writes them"
	else
		not_ok "upstream.fresh # stale: run scripts/upstream.sh" "$(head -n 5 <<< "$diffs")"
	fi
}

# checkpatch's tree: the parts of linux-source-6.12 it reads, and git
# (its SPDX check reads LICENSES/ through git). Made once.
CHECKPATCH_PATHS=(scripts LICENSES MAINTAINERS Makefile COPYING CREDITS Kbuild
	README Documentation/dev-tools init/Kconfig ipc/Makefile kernel/Makefile
	fs/Kconfig drivers/Kconfig lib/Kconfig arch/Kconfig include/uapi/linux/types.h)

checkpatch_tree()
{
	local top=linux-source-6.12

	[ -d "$mini/.git" ] && return
	rm -rf "$mini.tmp"
	mkdir -p "$mini.tmp"
	step "making $mini from $tarball"
	bl_nice tar -xJf "$tarball" -C "$mini.tmp" --strip-components=1 \
		"${CHECKPATCH_PATHS[@]/#/$top/}" &&
		git -C "$mini.tmp" init -q &&
		git -C "$mini.tmp" add -A -f &&
		git -C "$mini.tmp" -c user.name=upstream_test -c user.email=upstream_test@invalid \
			commit -q -m "$top: what checkpatch reads" &&
		mv "$mini.tmp" "$mini"
}

# --strict, every message counts but two that this tree cannot judge:
# FILE_PATH_CHANGES (MAINTAINERS' NETWORKING [GENERAL] has the files'
# directories) and UNKNOWN_COMMIT_ID (the tree has no upstream history;
# GIT_COMMIT_ID still checks the form of a commit reference).
check_checkpatch()
{
	local f n=0 rc e w c

	if ! checkpatch_tree > "$tmp/tree.log" 2>&1; then
		not_ok "upstream.checkpatch" "no checkpatch tree from $tarball:" "$(tail -n 3 "$tmp/tree.log")"
		return
	fi
	for f in $(patches_of "$src"); do
		n=$((n + 1))
		rc=0
		(cd "$mini" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
			--show-types --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$src/$f") \
			> "$tmp/cp.$n" 2>&1 || rc=$?
		e=$(grep -c ': ERROR:' "$tmp/cp.$n")
		w=$(grep -c ': WARNING:' "$tmp/cp.$n")
		c=$(grep -c ': CHECK:' "$tmp/cp.$n")
		if [ "$rc" = 0 ] && [ $((e + w + c)) = 0 ]; then
			tap_ok "upstream.checkpatch.$n # $f: 0 errors, 0 warnings, 0 checks"
		else
			not_ok "upstream.checkpatch.$n # $f: $e errors, $w warnings, $c checks (exit $rc)" \
				"$(head -n 5 "$tmp/cp.$n")"
		fi
	done
}

check_lines()
{
	local t f n said='' bad=''

	for t in "${TESTS[@]}"; do
		f=$src/upstream/net-next/0001-selftests-net-Add-$t.patch
		# The new file's hunk: "@@ -0,0 +1,N @@".
		n=$(sed -n "\|^+++ b/$SEL/net/$t.c\$|,/^diff /s/^@@ -0,0 +1,\([0-9]*\) @@.*/\1/p" "$f" 2> /dev/null)
		n=${n:-0}
		said+="${said:+, }$t.c: $n"
		[ "$n" -ge 1 ] && [ "$n" -le 200 ] || bad=1
	done
	if [ -z "$bad" ]; then
		tap_ok "upstream.test_lines # $said lines (at most 200 each)"
	else
		not_ok "upstream.test_lines # $said lines in the patches, want 1 to 200 each"
	fi
}

# No identity in any git configuration: exit 2, one line, no patch.
check_no_identity()
{
	local rc=0 err

	if git -C "$here" config --local user.email > /dev/null; then
		tap_skip "upstream.no_identity" "this repository's own config has an identity"
		return
	fi
	mkdir -p "$tmp/home"
	: > "$tmp/home/empty.gitconfig"
	HOME=$tmp/home GIT_CONFIG_GLOBAL=$tmp/home/empty.gitconfig GIT_CONFIG_NOSYSTEM=1 \
		GIT_CONFIG_COUNT=0 "$here/scripts/upstream.sh" -o "$tmp/noid" > /dev/null 2> "$tmp/noid.err" || rc=$?
	err=$(cat "$tmp/noid.err")
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/noid.err")" = 1 ] && [ -z "$(patches_of "$tmp/noid")" ]; then
		tap_ok "upstream.no_identity # exit 2: $err"
	else
		not_ok "upstream.no_identity # want exit 2, one line, no patch" "exit $rc: $err" \
			"$(patches_of "$tmp/noid" | head -n 3)"
	fi
}

# --- the lab -----------------------------------------------------------------
# A clone sharing the lab tree's objects, only what make headers and the
# selftests read checked out: the lab's tree is never written.
make_clone()
{
	git clone -q --shared --no-checkout "$labtree" "$tmp/linux" &&
		git -C "$tmp/linux" sparse-checkout set --no-cone /Makefile /Kbuild /Kconfig \
			/scripts/ /include/ /arch/x86/ /arch/Kconfig /tools/ /usr/ &&
		git -C "$tmp/linux" checkout -q --detach stock
}

# lab_image REV: the lab's image of REV (build.sh's cache hit for the
# clone at REV, whose tree id is the lab's), in img; 1 if none. Its O=
# is under a file: on a miss build.sh stops at its mkdir, building nothing.
lab_image()
{
	: > "$tmp/no-build"
	git -C "$tmp/linux" checkout -q --detach "$1" &&
		img=$("$BL_KERNEL_DIR/build.sh" --tree "$tmp/linux" --out "$tmp/no-build/o" \
			--name "$1" 2> "$tmp/image-$1.err" | tail -n 1) &&
		grep -q 'cached image of' "$tmp/image-$1.err" && [ -f "$img" ]
}

# am_stock PATCH...: the patches, in turn, on a fresh branch from stock.
am_stock()
{
	git -C "$tmp/linux" checkout -q -B upstream stock &&
		git -C "$tmp/linux" -c user.name=upstream_test -c user.email=upstream_test@invalid \
			am -q "$@" > "$tmp/am.log" 2>&1
}

# Each patch alone on stock, then all of them: no patch needs another.
check_am()
{
	local p

	for p in "$src"/upstream/net-next/*.patch; do
		if ! am_stock "$p"; then
			not_ok "upstream.git_am # ${p##*/} alone" "$(head -n 5 "$tmp/am.log")"
			return 1
		fi
	done
	if am_stock "$src"/upstream/net-next/*.patch; then
		tap_ok "upstream.git_am # upstream/net-next on the lab's stock 6.12, each alone and all"
		return 0
	fi
	not_ok "upstream.git_am" "$(head -n 5 "$tmp/am.log")"
	return 1
}

# make headers: what it installs in usr/include comes from the uapi
# trees and the scripts alone, none of which the patches touch, so it is
# made once for their tree ids and copied in after (a fresh clone each
# run spent half a minute of CPU here).
headers()
{
	local key dir=$BINDLAB_CACHE/upstream/headers new

	key=$(git -C "$tmp/linux" rev-parse HEAD:include/uapi HEAD:arch/x86/include/uapi \
		HEAD:scripts) || return
	key=$(sha1sum <<< "$key")
	dir+=-${key:0:20}
	if [ ! -d "$dir/include" ]; then
		bl_nice make -C "$tmp/linux" headers || return
		mkdir -p "$BINDLAB_CACHE/upstream" &&
			new=$(mktemp -d "$BINDLAB_CACHE/upstream/.headers.XXXXXX") &&
			cp -a "$tmp/linux/usr/include" "$new/" &&
			{ mv -T "$new" "$dir" 2> /dev/null || rm -rf "$new"; }
		return 0
	fi
	echo "make headers: $dir, made for these uapi trees"
	cp -a "$dir/include/." "$tmp/linux/usr/include/"
}

# make headers, then the programs in-tree; the patches' Makefile lines
# list them, their .gitignore lines ignore them; kselftest's make install
# of net narrowed to them (net's other programs need libraries and clang).
check_build()
{
	local s=$tmp/linux/$SEL bad='' t

	rm -rf "$tmp/inst"
	if ! (headers &&
	      bl_nice make -C "$s/net" "${TESTS[@]}" &&
	      bl_nice make -C "$s" TARGETS=net INSTALL_DEP_TARGETS= TEST_GEN_PROGS="${TESTS[*]}" \
		TEST_GEN_FILES= TEST_PROGS= TEST_PROGS_EXTENDED= TEST_INCLUDES= YNL_GEN_FILES= \
		INSTALL_PATH="$tmp/inst" install) > "$tmp/build.log" 2>&1; then
		not_ok "upstream.build" "$(grep -m 5 -iE 'error|stop' "$tmp/build.log")"
		return 1
	fi
	grep -q 'warning:' "$tmp/build.log" && bad+=" compiler warnings: $(grep -m 3 'warning:' "$tmp/build.log")"
	for t in "${TESTS[@]}"; do
		# shellcheck disable=SC2016 # $(TEST_GEN_PROGS) is make's
		make -s -C "$s/net" --no-print-directory --eval 'upstream-progs: ; @echo $(TEST_GEN_PROGS)' \
			upstream-progs 2> /dev/null | tr ' ' '\n' | grep -q "/$t\$" ||
			bad+=" $t not in net's TEST_GEN_PROGS;"
		git -C "$tmp/linux" check-ignore -q "$SEL/net/$t" || bad+=" $t not ignored by git;"
		[ -x "$tmp/inst/net/$t" ] && grep -qx "net:$t" "$tmp/inst/kselftest-list.txt" ||
			bad+=" $t not installed in kselftest-list.txt;"
	done
	if [ -z "$bad" ]; then
		tap_ok "upstream.build # make headers, make -C $SEL/net ${TESTS[*]}, make install: no warning"
		return 0
	fi
	not_ok "upstream.build" "$bad"
	return 1
}

# The VM's collection: the install above, and the project's collection
# beside it at net/bindlab (vm.sh wants its programs there; the runner's
# list has only the net-next tests).
vm_collection()
{
	local coll

	coll=$("$BL_KERNEL_DIR/collection.sh" 2> "$tmp/coll.err" | tail -n 1) && [ -d "$coll/net/bindlab" ] &&
		cp -a "$coll/net/bindlab" "$tmp/inst/net/"
}

# The test of a mode: tw is tcp_tw_reuse's, plain and slow bind_fastreuse's.
mode_test()
{
	if [ "$1" = tw ]; then echo tcp_tw_reuse; else echo bind_fastreuse; fi
}

# The guest runs each mode's test in turn, a marker line before each.
guest_cmd()
{
	local m

	for m in "$@"; do
		echo "echo 'upstream-mode: $m'"
		if [ "$m" = slow ]; then
			echo "KSFT_MACHINE_SLOW=yes run_kselftest.sh -t net:$(mode_test "$m")"
		else
			echo "run_kselftest.sh -t net:$(mode_test "$m")"
		fi
	done
}

# counts DIR MODE: "RUNNER NOT_OK XFAIL OK MAXGROWTH" of that mode's run.
counts()
{
	awk -v m="$2" -v t="$(mode_test "$2")" '
		/^upstream-mode: / { on = ($2 == m); next }
		!on { next }
		$0 ~ "^ok 1 selftests: net: " t "$" { r = "ok" }
		$0 ~ "^not ok 1 selftests: net: " t { r = "not_ok" }
		/^# *not ok [0-9]+ / { n++ }
		/^# *ok [0-9]+ .*# XFAIL/ { x++; next }
		/^# *ok [0-9]+ / { o++ }
		/growth [0-9.]+/ { match($0, /growth [0-9.]+/); g = substr($0, RSTART + 7, RLENGTH - 7) + 0
				   if (g > max) max = g }
		END { printf "%s %d %d %d %.1f\n", r ? r : "none", n, x, o, max }' "$1/output.log" 2> /dev/null
}

# check_vm KERNEL WANT_RUNNER MODE...: one boot of the lab's KERNEL image.
check_vm()
{
	local k=$1 dir=$tmp/vm-$1-$2 rc=0 m r n x o g want good clock=()

	shift
	# tcp_tw_reuse waits out 6.12's reuse delay (2.1 s a row): on a
	# virtual clock (vm.sh --icount) the waits cost no wall time. Growth
	# is timed on the real one.
	[ "$*" != tw ] || clock=(-a tcg --icount)
	"$BL_KERNEL_DIR/vm.sh" -k "${images[$k]}" -C "$tmp/inst" -o "$dir" -T 1800 "${clock[@]}" \
		-c "$(guest_cmd "$@")" > /dev/null 2> "$dir.err" || rc=$?
	for m in "$@"; do
		read -r r n x o g < <(counts "$dir" "$m")
		good=0
		case $k.$m in
		stock.plain) want='runner not ok, a case not ok'
			[ "$r" = not_ok ] && [ "$n" -gt 0 ] && good=1 ;;
		stock.slow) want='runner ok, a case XFAIL, none not ok'
			[ "$r" = ok ] && [ "$x" -gt 0 ] && [ "$n" = 0 ] && good=1 ;;
		*) want='runner ok, every case ok'
			[ "$r" = ok ] && [ "$n" = 0 ] && [ "$x" = 0 ] && [ "$o" -gt 0 ] && good=1 ;;
		esac
		if [ "$good" = 1 ]; then
			tap_ok "upstream.vm.$k.$m # runner $r; cases: $o ok, $n not ok, $x XFAIL; max growth $g"
		else
			not_ok "upstream.vm.$k.$m # want $want" "got runner $r; cases: $o ok, $n not ok, $x XFAIL; max growth $g; vm.sh exit $rc" \
				"$(tail -n 3 "$dir.err")"
		fi
	done
}

check_lab()
{
	local k

	if [ "${BINDLAB_KERNEL_LAB:-1}" = 0 ]; then
		tap_skip "upstream.lab" "BINDLAB_KERNEL_LAB=0"
		return
	fi
	if ! git -C "$labtree" rev-parse -q --verify 'fixed^{commit}' > /dev/null 2>&1; then
		tap_skip "upstream.lab" "no kernel lab tree $labtree (tests/kernel_lab_test.sh makes it)"
		return
	fi
	if ! make_clone > "$tmp/clone.log" 2>&1; then
		not_ok "upstream.lab # a sparse clone of $labtree" "$(tail -n 3 "$tmp/clone.log")"
		return
	fi
	declare -gA images
	for k in stock fixed; do
		if ! lab_image "$k"; then
			tap_skip "upstream.lab" "no lab image of $k yet (tests/kernel_lab_test.sh builds it)"
			return
		fi
		images[$k]=$img
	done
	check_am || return
	step "make headers and ${TESTS[*]}"
	check_build || return
	if ! vm_collection; then
		not_ok "upstream.lab # the project's collection for vm.sh" "$(tail -n 3 "$tmp/coll.err")"
		return
	fi
	step "VMs: stock (plain, slow), fixed"
	# tcp_tw_reuse's paths are the same on both kernels: fixed alone.
	check_vm stock plain slow
	check_vm fixed plain
	check_vm fixed tw
}

echo "TAP version 13"
[ -f "$tarball" ] || { tap_skip upstream "no $tarball"; tap_done; exit 4; }
step "regenerating the patches"
check_fresh
step "checkpatch"
check_checkpatch
check_lines
check_no_identity
check_lab
step "done"
tap_done
