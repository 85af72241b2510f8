#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/bisect.sh keeps git bisect run's contract: each exit code, driven
# by its cause. 0 good, 1 bad, 125 only for "this commit cannot be tested"
# (it does not build, it panics under the test, the test skipped), 128 for
# everything that is the harness's or the user's problem, and for those
# that no commit can change also: before any build (the case's cache has
# no build directory afterwards).
#
# A fake kernel tree (its build is a make that sleeps, or fails when the
# commit says so) and a fake qemu that plays a scripted guest
# (tests/lab_fakes.sh) stand in for the real ones: the whole matrix takes
# about a minute, and vm.sh, build.sh and the initramfs are the real ones.
# TAP; exit 0 when every check passed, 1 otherwise.

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
# shellcheck source=tests/lab_fakes.sh
. "$here/tests/lab_fakes.sh"

lab_fake_start bisect-exit bind_bhash_test
fake_tree "$FAKE/tree"
git clone -q "$FAKE/tree" "$FAKE/broken"
fake_commit "$FAKE/broken" "break the build" fake-build-fail=1
git clone -q "$FAKE/tree" "$FAKE/quiet"
git clone -q "$FAKE/tree" "$FAKE/inplace" && touch "$FAKE/inplace/.config"
git clone -q "$FAKE/tree" "$FAKE/tr ee"
fake_commit "$FAKE/quiet" "a build that compiles nothing" fake-build-quiet=1
# shellcheck disable=SC2086 # the program names, one word each
fake_collection "$FAKE/coll" $progs
fake_qemu "$FAKE/bin"
mkdir -p "$FAKE/foreign" "$FAKE/foreign-cache" "$FAKE/empty"
chown nobody "$FAKE/foreign" "$FAKE/foreign-cache"
: > "$FAKE/a-file"
# A PATH with everything but qemu.
mkdir -p "$FAKE/noqemu"
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for f in "$d"/*; do
		[ "${f##*/}" = qemu-system-x86_64 ] || [ -e "$FAKE/noqemu/${f##*/}" ] ||
			ln -s "$f" "$FAKE/noqemu/${f##*/}"
	done
done

n=0
wrap=()
# expect NAME RC WHEN [VAR=VALUE...] -- BISECT-ARGS...: run bisect.sh in
# the fake tree with its own cache, the fake qemu first in PATH, under the
# command prefix wrap when set; WHEN
# "prebuild" also wants no build directory in that cache afterwards.
expect()
{
	local name=$1 want=$2 when=$3 rc=0 envs=() cache err

	shift 3
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	n=$((n + 1))
	cache=$FAKE/cache-$n
	err=$FAKE/err-$n
	(cd "${tree_dir:-$FAKE/tree}" && env PATH="$FAKE/bin:$PATH" BINDLAB_CACHE="$cache" \
		FAKE_QEMU_COUNT="$FAKE/count-$n" ${envs[@]+"${envs[@]}"} \
		${wrap[@]+"${wrap[@]}"} timeout 120 "$here/kernel/bisect.sh" -a tcg -C "$FAKE/coll" "$@") \
		> /dev/null 2> "$err" || rc=$?
	if [ "$rc" != "$want" ]; then
		tap_not_ok "bisect_exit.$name # exit $rc, want $want" "$(tail -n 3 "$err")"
	elif [ "$when" = prebuild ] && [ -e "$cache/build" ]; then
		tap_not_ok "bisect_exit.$name # exit $rc, but after a build" "$(tail -n 3 "$err")"
	else
		tap_ok "bisect_exit.$name # exit $rc: $(tail -n 1 "$err" | cut -c 1-110)"
	fi
	last_err=$err
}

t=(--test bind_fastreuse)
# --- 128, before any build ---------------------------------------------------
expect out_unwritable 128 prebuild -- -o "$FAKE/a-file/runs" "${t[@]}"
expect out_foreign 128 prebuild -- -o "$FAKE/foreign" "${t[@]}"
expect cache_unwritable 128 prebuild BINDLAB_CACHE="$FAKE/a-file/cache" -- "${t[@]}"
expect cache_foreign 128 prebuild BINDLAB_CACHE="$FAKE/foreign-cache" -- "${t[@]}"
expect no_kernel_tree 128 prebuild -- -t "$FAKE/empty" "${t[@]}"
# kbuild refuses such a tree on every commit: no build failure, no 125.
tree_dir="$FAKE/tr ee" expect tree_path_blank 128 prebuild -- "${t[@]}"
tree_dir="$FAKE/inplace" expect tree_built_in_place 128 prebuild -- "${t[@]}"
expect accel_bogus 128 prebuild -- -a bogus "${t[@]}"
expect nice_garbage 128 prebuild BINDLAB_NICE=19x -- "${t[@]}"
expect nice_out_of_range 128 prebuild BINDLAB_NICE=20 -- "${t[@]}"
expect progress_garbage 128 prebuild BINDLAB_PROGRESS=1e3 -- "${t[@]}"
expect qemu_missing 128 prebuild PATH="$FAKE/noqemu" -- "${t[@]}"
expect test_program_mistyped 128 prebuild -- --test bind_fastrues
expect test_filter_selects_nothing 128 prebuild -- --test bind_fastreuse -r bind_fastreuse.v4_reuseaddr_same.grwoth
# Every fixture of tw_reuse_loopback left out, as its -l lists them.
mapfile -t fx < <("$here/tw_reuse_loopback" -l 2>&1 | python3 "$here/tests/test_names.py" |
	cut -d. -f1 | sort -u)
[ "${#fx[@]}" -gt 1 ] || tap_not_ok "tw_reuse_loopback -l lists its fixtures" "${fx[*]}"
excl="tw_reuse_loopback$(printf ' -F %s' "${fx[@]}")"
# shellcheck disable=SC2086 # program and filters, one word each
expect test_filter_excludes_all 128 prebuild -- --test $excl
# The harness agrees: those filters run no test (a plan of 0; nothing runs).
for f in "bind_fastreuse -r bind_fastreuse.v4_reuseaddr_same.grwoth" "$excl"; do
	# shellcheck disable=SC2086 # program and filters, one word each
	plan=$(cd "$FAKE" && timeout 20 "$here"/$f 2> /dev/null | grep -m 1 '^1\.\.')
	if [ "$plan" = 1..0 ]; then
		tap_ok "bisect_exit.harness_agrees # $f: plan $plan"
	else
		tap_not_ok "bisect_exit.harness_agrees # $f: plan ${plan:-none}, bisect.sh counted none"
	fi
done
expect test_stray_word 128 prebuild -- --test bind_fastreuse growth
expect test_not_a_filter 128 prebuild -- --test bind_bhash_test -l
expect case_unknown 128 prebuild -- --case bind_fastreuse.v4_reuseaddr_same.totl_ms --threshold 1
expect case_bad_threshold 128 prebuild -- --case bind_fastreuse.v4_reuseaddr_same.total_ms --threshold 1e3
# --- 128, found out only by running ------------------------------------------
expect boot_died_twice 128 run FAKE_QEMU=boot-panic -- "${t[@]}"
dir=$(find "$FAKE/cache-$n/runs" -mindepth 3 -maxdepth 3 -type d -name vm | head -n 1)
if [ "$(cat "$dir/boots" 2> /dev/null)" = 2 ] && [ "$(cat "$dir/vm_status" 2> /dev/null)" = boot-failed ] &&
   grep -q 'IO-APIC + timer' "$dir/console.boot1.log" 2> /dev/null; then
	tap_ok "bisect_exit.boot_died_twice_reported # boots 2, vm_status boot-failed, console.boot1.log kept"
else
	tap_not_ok "bisect_exit.boot_died_twice_reported" "boots $(cat "$dir/boots" 2> /dev/null), vm_status $(cat "$dir/vm_status" 2> /dev/null)"
fi
expect boot_hung_twice 128 run FAKE_QEMU=boot-hang BINDLAB_BOOT_TIMEOUT=2 -- "${t[@]}"
expect vm_error 128 run FAKE_QEMU=qemu-fail -- "${t[@]}"
# A status that is no exit status is the harness's fault, not the kernel's.
expect vm_bad_status 128 run FAKE_QEMU=bad-status -- "${t[@]}"
expect ktap_plan_0 128 run FAKE_QEMU=plan0 -- "${t[@]}"
# The results' disk full as the guest answers: the machine's fault, on
# every commit alike. -o on a tmpfs of 16 MiB (the initramfs takes ~8) in
# a mount namespace of our own; the fake guest fills the rest.
mkdir -p "$FAKE/full"
# shellcheck disable=SC2016 # expands in the inner shell
if unshare -m sh -c 'mount -t tmpfs -o size=16m tmpfs "$1"' - "$FAKE/full" 2> /dev/null; then
	# shellcheck disable=SC2016 # expands in the inner shell
	wrap=(unshare -m sh -c 'mount -t tmpfs -o size=16m tmpfs "$1" && shift && exec "$@"' - "$FAKE/full")
	expect disk_full 128 run FAKE_QEMU=disk-full -- -o "$FAKE/full/runs" "${t[@]}"
	wrap=()
else
	tap_skip bisect_exit.disk_full "no mount namespace here (unshare -m)"
fi
expect case_no_result 128 run FAKE_QEMU=noresult -- --case bind_fastreuse.v4_reuseaddr_same.total_ms -n 50 --threshold 1
# --- 0 and 1 ----------------------------------------------------------------
expect test_good 0 run FAKE_QEMU=pass -- "${t[@]}"
expect boot_died_once_then_good 0 run FAKE_QEMU=boot-panic,pass -- "${t[@]}"
if grep -q 'boot 1 died before the command started' "$last_err"; then
	tap_ok "bisect_exit.boot_retry_reported # $(grep -m 1 'boot 1 died' "$last_err" | cut -c 1-100)"
else
	tap_not_ok "bisect_exit.boot_retry_reported" "no 'boot 1 died' line on stderr"
fi
tree_dir=$FAKE/quiet expect test_good_nothing_compiled 0 run FAKE_QEMU=pass -- "${t[@]}"
expect test_bad 1 run FAKE_QEMU=fail -- "${t[@]}"
# Every test skipped, though the harness exits 0: nothing tested, skip.
expect test_all_skipped 125 run FAKE_QEMU=all-skip -- "${t[@]}"
expect ktap_plan_unmet 1 run FAKE_QEMU=unmet -- "${t[@]}"
# A real result file, from the host's own bind_bench (median ~ms).
json=$FAKE/result.json
if "$here/bind_bench" -q -r 1 -w 0 --json "$json" reuseaddr same 50 > /dev/null 2>&1; then
	c=(--case bind_fastreuse.v4_reuseaddr_same.total_ms -n 50)
	expect case_good 0 run FAKE_QEMU="case:$json" -- "${c[@]}" --threshold 100000
	expect case_bad 1 run FAKE_QEMU="case:$json" -- "${c[@]}" --threshold 0
	# A result of another case (stale, foreign) is never judged as this
	# one, whatever its median: the harness's error, on every commit.
	expect case_other_mode 128 run FAKE_QEMU="case:$json" -- \
		--case bind_fastreuse.v4_reuseport_same.total_ms -n 50 --threshold 100000
	expect case_other_n 128 run FAKE_QEMU="case:$json" -- \
		--case bind_fastreuse.v4_reuseaddr_same.total_ms -n 60 --threshold 100000
else
	for r in case_good case_bad case_other_mode case_other_n; do
		tap_skip "bisect_exit.$r" "bind_bench cannot run here (root, netns)"
	done
fi
# --- one output folder, many steps ------------------------------------------
# Two steps of one commit at once, then a retest, into one -o: each step
# gets a folder of its own (COMMIT, COMMIT.2, ...), so none reads or
# removes another's files, and each answers for itself.
shared=$FAKE/shared
pids=()
for i in 1 2 3; do
	[ "$i" != 3 ] || wait "${pids[@]}"
	(cd "$FAKE/tree" && env PATH="$FAKE/bin:$PATH" BINDLAB_CACHE="$FAKE/cache-shared-$i" \
		FAKE_QEMU=pass-slow timeout 120 "$here/kernel/bisect.sh" -a tcg -C "$FAKE/coll" \
		-o "$shared" "${t[@]}") > /dev/null 2> "$FAKE/shared-$i.err" &
	pids[i]=$!
done
rcs=
for i in 1 2 3; do
	rc=0
	wait "${pids[i]}" || rc=$?
	rcs+="$rc "
done
steps=$(find "$shared" -mindepth 2 -maxdepth 3 -path '*/vm/status' | wc -l)
if [ "$rcs" = "0 0 0 " ] && [ "$steps" = 3 ]; then
	tap_ok "bisect_exit.shared_out_steps_apart # exits $rcs, $steps step folders"
else
	tap_not_ok "bisect_exit.shared_out_steps_apart # exits $rcs, $steps step folders with a status" \
		"$(tail -q -n 1 "$FAKE"/shared-*.err)"
fi
# --- 125: this commit cannot be tested ---------------------------------------
tree_dir=$FAKE/broken expect build_fails 125 run FAKE_QEMU=pass -- "${t[@]}"
expect test_skipped 125 run FAKE_QEMU=skip -- "${t[@]}"
expect panic_under_test 125 run FAKE_QEMU=run-panic -- "${t[@]}"
tap_done
