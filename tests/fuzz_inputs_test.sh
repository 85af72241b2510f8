#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer generated from tests/inputs.tsv (tests/fuzz/inputs_fuzz.py):
# boundary values for every row with a probe, each checked against the
# row's promise, and the families tried on every row they fit (locale,
# an earlier output, two runs at once, a full disk). Seeded
# (BINDLAB_FUZZ_SEED, else random; printed first), bounded
# (BINDLAB_FUZZ_BUDGET seconds, default 80, two at a time);
# BINDLAB_FUZZ_ROWS=REGEX fuzzes only the rows whose name matches. It
# runs in a mount namespace of its own whose /tmp is a fresh tmpfs, so
# that this test also sees whatever a program writes to /tmp; afterwards
# nothing may be there but the run's own directory, and /, /dev, the
# repository and the host's network state are as they were.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
seed=${BINDLAB_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
budget=${BINDLAB_FUZZ_BUDGET:-80}
ksft=${BINDLAB_CACHE:-$HOME/.cache/bindlab}/ksft/tools/testing/selftests
echo "# fuzz_inputs: seed $seed (BINDLAB_FUZZ_SEED=$seed replays it), budget $budget s"

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	tap_skip "fuzz_inputs" "needs root: namespaces, dropped capabilities"
	tap_done
	exit 4
fi
if ! [[ $seed =~ ^[0-9]{1,10}$ && $budget =~ ^[0-9]{1,4}$ ]]; then
	echo "fuzz_inputs: BINDLAB_FUZZ_SEED and BINDLAB_FUZZ_BUDGET are whole numbers" >&2
	exit 2
fi
make -s -C "$here" >/dev/null 2>&1 || { tap_not_ok "build"; tap_done; exit 1; }

# /dev as names and types (pts and shm come and go with sessions).
dev_state() {
	find /dev -maxdepth 1 ! -name pts ! -name shm -printf '%y %M %p\n' | sort
}

# The repository's files, but for the test command's own logs
# (BINDLAB_CHECK_LOGS), which grow meanwhile.
repo_state() {
	local logs=${BINDLAB_CHECK_LOGS:-}

	logs=${logs#"$here"/}
	git -C "$here" status --porcelain --ignored --untracked-files=all |
		if [ -n "$logs" ]; then grep -vF -- " $logs/" || true; else cat; fi
}

state() {
	dev_state
	find / -maxdepth 1 -printf '%y %p\n' | sort
	repo_state
	host_net_state
}

# In the namespace: a fresh /tmp, the fuzzer, then what is left in /tmp.
inner() {
	local tmp rc

	mount -t tmpfs -o size=1g,mode=1777 bindlab-fuzz /tmp || exit 1
	tmp=$(mktemp -d /tmp/fuzz.XXXXXX)
	BINDLAB_FUZZ_KSFT=$ksft python3 "$here/tests/fuzz/inputs_fuzz.py" \
		"$here" "$tmp" "$seed" "$budget"
	rc=$?
	chmod -R u+rwX "$tmp" 2>/dev/null
	rm -rf "$tmp"
	echo "left	$(find /tmp -mindepth 1 -maxdepth 2 -printf '%p ' 2>/dev/null)"
	return $rc
}

before=$(state)
ended=
while IFS= read -r line; do
	case $line in
	"ok	"*) tap_ok "${line#*	}" ;;
	"not ok	"*) tap_not_ok "${line#*	}" ;;
	"left	") tap_ok "nothing written to /tmp but the run's own directory" ;;
	"left	"*) tap_not_ok "nothing written to /tmp but the run's own directory" "${line#*	}" ;;
	"end	"*) ended=${line#*	} ;;
	*) echo "$line" ;;
	esac
done < <(export -f inner; export here ksft seed budget BINDLAB_FUZZ_ROWS
	[ -n "${BINDLAB_FUZZ_ROWS:-}" ] || export -n BINDLAB_FUZZ_ROWS
	unshare -m --propagation private bash -c inner 2>&1)
# Fail closed: a fuzzer that stopped early (a crash of its own) fails.
if [ -n "$ended" ]; then
	tap_ok "the fuzzer judged all $ended"
else
	tap_not_ok "the fuzzer ended without judging every row (see its output above)"
fi
after=$(state)
if [ "$before" = "$after" ]; then
	tap_ok "/, /dev, the repository and the host's network state are as they were"
else
	tap_not_ok "/, /dev, the repository and the host's network state are as they were" \
		"$(diff <(echo "$before") <(echo "$after") | head -n 8)"
fi
tap_done
