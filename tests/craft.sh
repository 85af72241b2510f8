#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Result files with known figures, for the tests of compare and of the
# README's commands; sourced, not run.

# craft FILE HARNESS SCHEMA_VERSION CASE:METRIC:BETTER:N:SAMPLES...
# (CRAFT_ENV: the cases' environment as JSON, default {}; CRAFT_FILE_ENV:
# the run file's, default {}; CRAFT_CURVE
# "X,X...:Y,Y...": each case's cost curve, sockets bound and ns per bind)
craft() {
	python3 - "$@" <<'PY'
import json, os, sys
env = json.loads(os.environ.get("CRAFT_ENV", "{}"))
path, harness, sv = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = []
for spec in sys.argv[4:]:
    case, metric, better, n, samples = spec.split(":")
    cases.append({"schema": "bindlab.result", "schema_version": sv,
                  "harness_version": harness, "tool": "bind_bench",
                  "case": case, "params": {"n": int(n), "rounds": 5},
                  "env": env, "metric": {"name": metric, "unit": "ms",
                  "better": better,
                  "samples": [float(x) for x in samples.split(",")]}})
    if os.environ.get("CRAFT_CURVE"):
        x, y = os.environ["CRAFT_CURVE"].split(":")
        cases[-1]["summary"] = {"curve": {
            "bound_before": [int(v) for v in x.split(",")],
            "median_ns": [float(v) for v in y.split(",")]}}
json.dump({"schema": "bindlab.run", "schema_version": sv,
           "harness_version": harness,
           "env": json.loads(os.environ.get("CRAFT_FILE_ENV", "{}")),
           "cases": cases},
          open(path, "w"))
PY
}
