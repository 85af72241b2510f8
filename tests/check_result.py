#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a bind_bench JSON result against its own raw samples.

An independent implementation (Python's json and statistics) recomputes
totals, growth and the curve from bind_ns and compares with what the C
code reported, the verdict (growth median against its limit), and the
reproducer's last line (as in "tcp: Fix fastreuse cache initialization on
first bind") with the median total.
usage: check_result.py RESULT.json "LAST LINE"
"""
import json
import re
import statistics
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def growth(ns):
    tenth = max(len(ns) // 10, 1)
    return statistics.median(ns[-tenth:]) / statistics.median(ns[:tenth])


def main():
    res = json.load(open(sys.argv[1]))
    for key in ("schema", "schema_version", "harness_version", "tool", "case",
                "env", "params", "settings", "rounds", "summary", "verdict"):
        if key not in res:
            fail("missing key " + key)
    if res["schema"] != "bindlab.result" or res["tool"] != "bind_bench":
        fail("wrong schema or tool")
    env = res["env"]
    for key in ("kernel_release", "cpu_model", "nproc", "clocksource", "caller_sysctls"):
        if key not in env:
            fail("env lacks " + key)
    p, settings = res["params"], res["settings"]
    n, rounds = p["n"], res["rounds"]
    if "rounds" in p or len(rounds) != settings["rounds"]:
        fail("round count")
    totals = []
    for r in rounds:
        ns = r["bind_ns"]
        if len(ns) != n or min(ns) <= 0:
            fail("bind_ns has %d samples, want %d positive" % (len(ns), n))
        if sum(ns) != r["total_ns"]:
            fail("total_ns is not the sum of the samples")
        if abs(growth(ns) - r["growth"]) > 1e-6 * r["growth"]:
            fail("growth %f, recomputed %f" % (r["growth"], growth(ns)))
        totals.append(r["total_ns"] / 1e6)
    s = res["summary"]
    med = statistics.median(totals)
    if abs(s["total_ms"]["median"] - med) > 1e-6:
        fail("total_ms median %f, recomputed %f" % (s["total_ms"]["median"], med))
    b = settings["buckets"]
    curve = s["curve"]["median_ns"]
    if len(curve) != b or len(s["curve"]["bound_before"]) != b:
        fail("curve length")
    for i in range(b):
        lo, hi = n * i // b, n * (i + 1) // b
        want = statistics.median(
            [statistics.median(r["bind_ns"][lo:hi]) for r in rounds])
        if abs(curve[i] - want) > 1e-6 * want:
            fail("curve[%d] %f, recomputed %f" % (i, curve[i], want))
    # The verdict, computed once by bind_bench: growth median against the limit.
    v = res["verdict"]
    g = statistics.median([r["growth"] for r in rounds])
    want = "pass" if g <= v["limit"] else "regressed"
    if v["status"] != want or abs(v["growth"] - g) > 1e-6 * g:
        fail("verdict %s (growth %f), recomputed %s (%f)" % (v["status"], v["growth"], want, g))
    m = re.match(r"^(\S+) (\S+) (\d+): (\d+\.\d{3}) ms$", sys.argv[2])
    if not m or abs(float(m.group(4)) - med) > 0.0011:
        fail("last line %r does not carry the median total %.3f" % (sys.argv[2], med))


main()
