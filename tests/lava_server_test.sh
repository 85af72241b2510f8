#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real LAVA server in the lab (TAP): kernel/lava-server.sh starts
# Debian's lava-server, lava-worker and PostgreSQL from the cached LAVA
# root in namespaces of their own, with two qemu devices; the stock and
# the fixed job are submitted at once with lavacli and read back through
# the REST API (kernel/lava.sh --server). Checks: the server started and
# the API lists the devices; the two jobs ran on the two devices at the
# same time (the server's start and end times); the stock kernel fails
# exactly the fastreuse growth tests of tests/kernel_detectors and the
# fixed one fails none; the benchmarks' LAVA verdicts: a regressed case
# on stock, every case passing on fixed. Only what the verdicts need runs
# (SKIPFILE: every fixture but bind_fastreuse; one benchmark round), to
# keep the cold cost low. Uses the kernel lab's stock and fixed images
# (run after tests/kernel_lab_test.sh). SKIP (exit 4) with the reason
# when the root cannot be built (no root, debootstrap, unshare, network).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
cache=${BINDLAB_CACHE:-$HOME/.cache/bindlab}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lava_server.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A planted fault (BL_LAVA_SERVER_FAULT): seen to fail each check once.
# one_device starts the server with one device (the jobs queue for it);
# the others change what a check reads.
fault=${BL_LAVA_SERVER_FAULT:-}
# BL_LAVA_SERVER_RUN=DIR keeps the run in DIR, and when DIR has one
# already, the checks read it again without a server (to plant faults).
out=${BL_LAVA_SERVER_RUN:-$tmp/run}
devices=2
[ "$fault" != one_device ] || devices=1

# The tests the verdicts need: every other fixture of the programs' lists
# is skipped on the device, so that one added later is skipped too (seen:
# a written list went stale, and a 7.5-s row that no check here reads ran
# in both jobs). The case table's benchmark rows are bind_fastreuse's;
# another would fail lava_server.bench.regressed's count of four.
read -ra progs <<<"$(make -s --no-print-directory -C "$here" print-programs | sed -n 1p)"
if [ ${#progs[@]} -eq 0 ] ||
	! (cd "$here" && ./lava/bindlab-lava.sh names "${progs[@]/#/./}") > "$tmp/names"; then
	tap_not_ok "lava_server.start" "cannot list the kselftests' tests (make, then bindlab-lava.sh names)"
	tap_done
	exit
fi
LC_ALL=C awk '{ split($2, n, ".") } n[1] != "bind_fastreuse" && !seen[n[1]]++ { print n[1] ".*" }' \
	"$tmp/names" > "$tmp/skipfile"

if [ ! -d "$cache/lab/linux-6.12.git" ]; then
	tap_not_ok "lava_server.start" "no kernel lab repository (run tests/kernel_lab_test.sh first)"
	tap_done
	exit
fi

t0=$SECONDS
rc=0
if [ -s "$out/lava-server.log" ]; then
	echo "# checks of the kept run $out"
else
	mkdir -p "$out"
	"$here/kernel/lava-server.sh" -d "$devices" -o "$out" -- -k stock -k fixed -n 2000 -r 1 -T 40 \
		-s "$tmp/skipfile" > "$out/lava-server.log" 2>&1 || rc=$?
fi
wall=$((SECONDS - t0))
grep -v '^20..-..-.. ..:..:..,... *DEBUG' "$out/lava-server.log" | sed 's/^/# /'
if [ "$rc" -eq 4 ]; then
	tap_skip lava_server.start "$(grep -m 1 'SKIP:' "$out/lava-server.log" | sed 's/.*SKIP: //')"
	tap_done
	exit 4
fi

up=$(sed -n 's/.*LAVA server up in \([0-9]*\) s.*/\1/p' "$out/lava-server.log")
root=$(sed -n 's/.*LAVA root ready after \([0-9]*\) s.*/\1/p' "$out/lava-server.log")
if [ -n "$up" ] && [ -s "$out/server.json" ]; then
	tap_ok "lava_server.start # root ready in ${root:-?} s, server answering $up s later; whole run $wall s"
else
	tap_not_ok "lava_server.start" "the server did not answer (exit $rc)" "$(tail -n 5 "$out/serve.log" 2>/dev/null)"
fi

# check NAME PYTHON [ARG...]: ok when the Python check (argv: the run
# directory, the fault, ARG...) exits 0; its stdout is the ok line's
# note, its stderr the diagnostics of a failure.
check() {
	local name=$1 code=$2 note

	shift 2
	if note=$(/usr/bin/python3 - "$out" "$fault" "$@" 2> "$tmp/err" <<< "$code"); then
		tap_ok "$name${note:+ # $note}"
	else
		mapfile -t lines < "$tmp/err"
		tap_not_ok "$name" "${lines[@]}"
	fi
}

check lava_server.devices '
import json, sys
out, fault = sys.argv[1:]
devs = json.load(open(out + "/devices.json"))["results"]
names = sorted(d["hostname"] for d in devs if d["worker_host"] == "lab-worker"
               and d["device_type"] == "qemu" and d["health"] == "Good")
if len(names) != 2 or len(names) != len(devs):
    sys.exit(f"devices on lab-worker, Good, of type qemu: {names} of {len(devs)}")
print("qemu devices " + " ".join(names) + " on lab-worker, health Good")
'

check lava_server.concurrent '
import json, sys
from datetime import datetime
out, fault = sys.argv[1:]
jobs = {}
for name in ("stock", "fixed"):
    try:
        jobs[name] = json.load(open(f"{out}/jobs/{name}/api/job.json"))
    except OSError as e:
        sys.exit(f"{name}: no job from the API: {e}")


def desc(name, j):
    return "job %s %s on %s: %s -> %s" % (j.get("id"), name, j.get("actual_device"),
                                         j.get("start_time"), j.get("end_time"))


def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


for name, j in jobs.items():
    if j.get("health") != "Complete" or not j.get("start_time") or not j.get("end_time"):
        sys.exit(desc(name, j) + ", %s, health %s" % (j.get("state"), j.get("health")))
devs = {j["actual_device"] for j in jobs.values()}
start = max(t(j["start_time"]) for j in jobs.values())
end = min(t(j["end_time"]) for j in jobs.values())
if fault == "serial":
    end = start
said = "; ".join(desc(n, j) for n, j in jobs.items())
if len(devs) != 2 or start >= end:
    sys.exit("not at the same time on two devices: " + said)
print(said + "; both running for %.0f s" % (end - start).total_seconds())
'

# verdicts: the kselftest verdicts of a job (argv: KERNEL DETECTORS):
# the growth tests, the failed ones, the ones tests/kernel_detectors
# names, any other failure.
verdicts='
import fnmatch, json, sys
out, fault, kernel, detectors = sys.argv[1:5]
if fault == "swap":
    kernel = {"stock": "fixed", "fixed": "stock"}[kernel]
recs = json.load(open(f"{out}/jobs/{kernel}/lava.json"))
ktap = [r for r in recs if r["definition"] == "bind_fastreuse"]
failed = sorted(r["case"] for r in ktap if r["result"] == "fail")
globs = [l.split("\t")[1] for l in open(detectors)
         if l.startswith("fastreuse_first_bind\t")]
growth = sorted(r["case"] for r in ktap if r["case"].startswith("bind_fastreuse.")
                and r["case"].endswith(".growth"))
want = sorted(c for c in growth if any(fnmatch.fnmatch(c, g) for g in globs))
other = sorted(r["definition"] + "/" + r["case"] for r in recs
               if r["result"] == "fail" and r["definition"] not in ("bind_fastreuse", "bindlab-bench"))
'
check lava_server.stock.fastreuse_fail "$verdicts"'
if fault == "mapping":
    failed = failed[1:]
if len(growth) != 16 or len(want) != 12 or failed != want or other:
    sys.exit(f"stock: failed {failed} (others {other}), want the 12 of {globs} among {len(growth)} growth tests")
print(f"stock: the {len(failed)} fastreuse growth tests of tests/kernel_detectors fail, nothing else")
' stock "$here/tests/kernel_detectors"
check lava_server.fixed.pass "$verdicts"'
if len(growth) != 16 or failed or other:
    sys.exit(f"fixed: failed {failed} (others {other}) of {len(growth)} growth tests")
print(f"fixed: {len(growth)} fastreuse growth tests, none fails")
' fixed "$here/tests/kernel_detectors"

check lava_server.bench.regressed '
import json, sys
out, fault = sys.argv[1:]
said = {}
for kernel in ("stock", "fixed"):
    recs = json.load(open(f"{out}/jobs/{kernel}/lava.json"))
    said[kernel] = {r["case"]: (r["result"], r.get("measurement"))
                    for r in recs if r["definition"] == "bindlab-bench"
                    and r["case"].endswith(".total_ms")}
    run = json.load(open(f"{out}/jobs/{kernel}/results.json"))
    said[kernel + ".imported"] = {c["case"]: c["verdict"]["status"]
                                  for c in run.get("cases", []) if "verdict" in c}
st, fx = said["stock"], said["fixed"]
reg = sorted(c for c, (res, m) in st.items() if res == "fail" and m is not None)
if fault == "bench_pass":
    reg = []
if len(st) != 4 or len(fx) != 4 or not reg or any(res != "pass" for res, _ in fx.values()):
    sys.exit(f"LAVA said: stock {st}, fixed {fx}")
imp = said["stock.imported"]
if any(imp.get(c) != "regressed" for c in reg):
    sys.exit(f"imported verdicts of {reg}: {imp}")
print("stock: " + ", ".join(f"{c} {st[c][0]} {st[c][1]} ms ({imp[c]})" for c in sorted(st))
      + "; fixed: all 4 pass")
'

tap_done
