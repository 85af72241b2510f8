#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the fleets' builders rely on: the kselftest part (the Makefile's
# TEST_GEN_PROGS, their headers beside them, lib/) uses the harness's
# public API only and builds and installs without jansson (NIPA's and
# KernelCI's builders have no libjansson-dev); the kselftests link no
# JSON library and lib/ never reaches into the companion (bench/). Reads
# the programs of the last build (make test-programs).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 1
# The one program list: the Makefile's.
ksft=$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)
[ -n "$ksft" ] || tap_not_ok "make print-programs lists the kselftests" "empty"

# Build output (objects, programs, Python's bytecode) is never in the
# tree: a clean clone builds it, and a stale copy would be read instead.
mapfile -t tracked < <(git ls-files -ci --exclude-standard)
if [ ${#tracked[@]} -gt 0 ]; then
	tap_not_ok "the tree tracks no file .gitignore ignores" "${tracked[@]}"
else
	tap_ok "the tree tracks no file .gitignore ignores"
fi

# ---- the kselftest part: what upstream would take ----
# Its C files: the kselftests, every header at the top (each private to
# one of them), and lib/.
ksft_sources() {
	local p
	for p in $ksft; do echo "$p.c"; done
	git ls-files --cached --others --exclude-standard '*.h' ':!:*/*'
	git ls-files --cached --others --exclude-standard 'lib/*.c' 'lib/*.h'
}
mapfile -t part < <(ksft_sources)
# Harness internals that upstream tests never touch.
internals='__fixture_list|__fixture_variant_metadata|->fixture->|results->reason|exit_code *=|test_enabled|test_harness_run|(define|undef) +TEST_HARNESS_MAIN|__run_test'
if hits=$(grep -nE "$internals" "${part[@]}" 2>/dev/null | grep -vE ':[0-9]+:( \*|/\*)'); then
	tap_not_ok "the kselftest part uses no harness internals" "$hits"
else
	tap_ok "the kselftest part uses no harness internals (${#part[@]} files)"
fi
for p in $ksft; do
	if grep -q '^TEST_HARNESS_MAIN$' "$p.c"; then
		tap_ok "$p ends with the harness's own TEST_HARNESS_MAIN"
	else
		tap_not_ok "$p ends with the harness's own TEST_HARNESS_MAIN" "no TEST_HARNESS_MAIN line in $p.c"
	fi
done

# build_without_jansson: the tree, copied, built and installed as a
# fleet's kselftest builder would, with jansson's header and pkg-config
# file hidden in a private mount namespace (the host's are untouched).
build_without_jansson() {
	local src=$tmp/src hide=""
	mkdir -p "$src" "$tmp/inst"
	git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src"
	# An include of the hidden header stops the build, as it would there.
	echo '#error "jansson is hidden (a fleet builder has no libjansson-dev)"' >"$tmp/hidden.h"
	for f in /usr/include/jansson.h /usr/include/jansson_config.h; do
		[ -e "$f" ] && hide="$hide mount --bind $tmp/hidden.h $f &&"
	done
	f=$(pkg-config --variable=pcfiledir jansson 2>/dev/null)/jansson.pc
	[ -e "$f" ] && hide="$hide mount --bind /dev/null $f &&"
	unshare -m sh -c "$hide pkg-config --exists jansson && exit 9;
		make -s -C $src BINDLAB_WERROR=1 install INSTALL_PATH=$tmp/inst"
}
if ! unshare -m true 2>/dev/null; then
	tap_skip "build with jansson hidden" "no mount namespace here (unshare -m)"
else
	build_without_jansson >"$tmp/nojansson" 2>&1
	rc=$?
	missing_ksft=$(for p in $ksft; do [ -x "$tmp/inst/$p" ] || echo "$p"; done)
	if [ $rc -eq 0 ] && [ -z "$missing_ksft" ] && grep -q '^bindlab: no jansson' "$tmp/nojansson" &&
	   [ ! -e "$tmp/inst/bind_bench" ] && [ -f "$tmp/inst/settings" ]; then
		tap_ok "build with jansson hidden: exit 0, one line says so, the kselftests and settings installed, no tools"
	else
		tap_not_ok "build with jansson hidden: exit 0, kselftests installed" \
			"exit $rc; not installed: ${missing_ksft:-none}" "$(tail -n 5 "$tmp/nojansson")"
	fi
fi

# ---- what the programs link ----
for p in $ksft; do
	if [ ! -x "$p" ]; then
		tap_not_ok "ldd $p: no JSON library" "$p not built (make test-programs)"
	elif ! ldd "./$p" >"$tmp/ldd" 2>&1; then
		tap_not_ok "ldd $p: no JSON library" "$(head -n 3 "$tmp/ldd")"
	elif grep -q jansson "$tmp/ldd"; then
		tap_not_ok "ldd $p: no JSON library" "$(grep jansson "$tmp/ldd")"
	else
		tap_ok "ldd $p: no JSON library"
	fi
done
# The check above must be able to see jansson at all.
if ldd ./bind_churn 2>/dev/null | grep -q libjansson; then
	tap_ok "ldd bind_churn: the benchmarks do link jansson (the check sees it)"
else
	tap_not_ok "ldd bind_churn: the benchmarks do link jansson" "$(ldd ./bind_churn 2>&1 | head -n 3)"
fi

# ---- dependencies one way ----
mapfile -t up < <(grep -lE '#include ("bindlab\.h"|<jansson\.h>|<gsl/)' lib/*.c lib/*.h 2>/dev/null)
if [ ${#up[@]} -eq 0 ]; then
	tap_ok "lib/ includes neither bench/bindlab.h, jansson nor GSL"
else
	tap_not_ok "lib/ includes neither bench/bindlab.h, jansson nor GSL" "${up[@]}"
fi

tap_done
