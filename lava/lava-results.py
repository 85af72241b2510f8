#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA's results of a bindlab job -> the JSON that bindlab_results imports.

usage: lava-results.py LOG OUT.json

LOG is lava-run's log (one "{dt, lvl, msg}" record a line); its
"results" records become a JSON array of {definition, case, result
[, measurement, units]}. The test set (lava-test-set, named after the
program by lava/bindlab-lava.sh) is the definition, so that a case keeps
the program and name of a local run; LAVA's own records keep "lava".
Prints one summary line. Exit: 0 every case passed or skipped, 1 a case
failed (the job's own "lava job" result included), 3 no test result of
the job's test definitions (boot or harness failure), 2 usage or a bad log.
"""
import json
import sys

import yaml


def records(path):
    """The results records of the log, in order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"results"' not in line:
                continue
            line = line[2:] if line.startswith("- {") else line
            if not line.startswith("{"):
                continue
            try:
                rec = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if isinstance(rec, dict) and rec.get("lvl") == "results":
                msg = rec.get("msg")
                if isinstance(msg, dict):
                    yield msg


def convert(msg):
    """One LAVA result dict -> one entry of the import format."""
    definition = str(msg.get("definition", ""))
    if definition != "lava" and msg.get("set"):
        definition = str(msg["set"])
    out = {"definition": definition, "case": str(msg.get("case", "")),
           "result": str(msg.get("result", "unknown"))}
    if msg.get("measurement") not in (None, ""):
        out["measurement"] = float(msg["measurement"])
        out["units"] = str(msg.get("units", ""))
    return out


def main(argv):
    if len(argv) != 3:
        print("usage: lava-results.py LOG OUT.json", file=sys.stderr)
        return 2
    try:
        results = [convert(m) for m in records(argv[1])]
    except (OSError, ValueError) as exc:
        print("lava-results.py: %s" % exc, file=sys.stderr)
        return 2
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    ours = [r for r in results if r["definition"] != "lava"]
    failed = [r for r in results if r["result"] not in ("pass", "skip")]
    print("lava: %d results of the test definitions, %d failed, %d skipped; "
          "LAVA's own: %d, %d failed" % (
              len(ours), len([r for r in ours if r in failed]),
              len([r for r in ours if r["result"] == "skip"]),
              len(results) - len(ours),
              len([r for r in failed if r["definition"] == "lava"])))
    for r in failed:
        print("  fail: %s %s" % (r["definition"], r["case"]))
    if not ours:
        return 3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
