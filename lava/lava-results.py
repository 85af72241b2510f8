#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA's results of a bindlab job -> the JSON that bindlab_results imports.

usage: lava-results.py [--names FILE] IN... OUT.json
       lava-results.py --is-import FILE   exit 0 when FILE is the import format

IN is what a fleet gives (the format is recognised, and one job may come
as several files, e.g. REST pages):
- lava-run's log (one "{dt, lvl, msg}" record a line; "results" records);
- a LAVA server's results export: `lavacli results JOB --yaml` (or
  --json), the REST API's /api/v0.2/jobs/JOB/yaml/ (the same records) and
  /api/v0.2/jobs/JOB/tests/ (JSON pages; every page of the job, `count`
  records in all).
OUT is a JSON array of {definition, case, result [, measurement, units]}.
The test set (lava-test-set: the program, in lava/bindlab-lava.sh) is the
definition, so a case keeps the program and name of a local run; LAVA's
own records keep "lava".

Linaro's kselftest.sh names (net_bindlab_PROG_CASE, every non-word
character flattened to "_") map back through FILE, the "PROG
FIXTURE.VARIANT.TEST" lines of the installed programs
(`lava/bindlab-lava.sh names PROG...`): "_" is ambiguous, so only an exact
match maps; net_bindlab_PROG is PROG's ktap.plan and shardfile-net.bindlab
the runner's kselftest.shardfile. A record that does not parse, carries a
measurement that is no number, or a name that maps to nothing or to two
tests is an error naming it (exit 2, nothing written); so are records of
two jobs (their job ids, LAVA's job record twice) and REST pages that
are not every page of the job.

Prints the counts (records in, mapped) and a summary line. Exit: 0 every
case passed or skipped, 1 a case failed (the job's own "lava job" result
included), 3 no test result of the job's test definitions (boot or
harness failure), 2 usage or bad input.
"""
import json
import os
import stat
import math
import re
import sys
import tempfile

import yaml

RESULTS = ("pass", "fail", "skip", "unknown")
COLLECTION = "net/bindlab"


class Bad(Exception):
    """One input record that cannot be converted; the message names it."""


def slug(text):
    """kselftest.sh's flattening of a name: non-word runs to "_"."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")


MAX_INPUT = 256 << 20


def regular(path):
    """path, once known to be a regular file of at most MAX_INPUT bytes:
    a FIFO or a device would block or never end."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise Bad("%s: not a regular file" % path)
    if st.st_size > MAX_INPUT:
        raise Bad("%s: larger than %d bytes" % (path, MAX_INPUT))
    return path


def is_import(path):
    """Is path already the import format (a JSON array of result dicts
    with definition, case and result)? run.sh passes such a file on."""
    try:
        with open(regular(path), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeError, Bad, ValueError):
        return False
    return isinstance(data, list) and bool(data) and all(
        isinstance(r, dict) and all(isinstance(r.get(k), str)
                                    for k in ("definition", "case", "result"))
        for r in data)


def load_names(path):
    """kselftest.sh name -> (program, test), from "PROG NAME" lines."""
    names, seen = {}, {}
    with open(regular(path), encoding="utf-8") as f:
        for num, line in enumerate(f, 1):
            words = line.split()
            if len(words) != 2:
                raise Bad("%s:%d: not 'PROG FIXTURE.VARIANT.TEST'" % (path, num))
            prog, test = words
            prefix = slug("%s: %s" % (COLLECTION, prog))
            names.setdefault(prefix, set()).add((prog, "ktap.plan"))
            names.setdefault(prefix + "_" + slug(test), set()).add((prog, test))
            seen[prog] = True
    if not seen:
        raise Bad("%s: no names" % path)
    return names


def log_records(path, lines):
    """lava-run's log: every "results" record, as (where, dict)."""
    for num, line in enumerate(lines, 1):
        if not re.search(r"\blvl\W+results\b", line):
            continue
        where = "%s:%d" % (path, num)
        text = line[2:] if line.startswith("- {") else line
        try:
            rec = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise Bad("%s: a results record that does not parse (%s)"
                      % (where, str(exc).splitlines()[0]))
        if not isinstance(rec, dict) or rec.get("lvl") != "results":
            raise Bad("%s: a results line that is no {dt, lvl, msg} record" % where)
        msg = rec.get("msg")
        if not isinstance(msg, dict):
            raise Bad("%s: a results record whose msg is no dict" % where)
        yield where, msg


def server_record(where, rec):
    """An export record (lavacli, REST) -> the lava-run form of it."""
    meta = rec.get("metadata")
    if isinstance(meta, str):
        try:
            meta = yaml.safe_load(meta) if meta.strip() else {}
        except yaml.YAMLError:
            raise Bad("%s: metadata that does not parse" % where)
    if not isinstance(meta, dict) or "definition" not in meta:
        raise Bad("%s: no metadata.definition (the suite's name)" % where)
    suite = rec.get("suite")
    if isinstance(suite, str) and suite != meta["definition"]:
        raise Bad("%s: suite %r, metadata.definition %r" % (where, suite, meta["definition"]))
    if meta.get("case", rec.get("name")) != rec.get("name"):
        raise Bad("%s: name %r, metadata.case %r" % (where, rec.get("name"), meta["case"]))
    msg = {"definition": meta["definition"], "case": rec.get("name"),
           "result": rec.get("result")}
    if meta.get("set"):
        msg["set"] = meta["set"]
    if rec.get("measurement") not in (None, "None", ""):
        msg["measurement"] = rec["measurement"]
        msg["units"] = rec.get("unit", "")
    return msg


JOB_URL = re.compile(r"/api/v[0-9.]+/jobs/([0-9]+)/")


def job_of(rec, jobs, where):
    """Note the job a record names (lavacli's "job", the REST API's
    resource_uri) in jobs, job id -> where: an import holds one job,
    never pages of two. jobs also keeps ("record", id) -> where."""
    job = rec.get("job")
    if job is None and isinstance(rec.get("resource_uri"), str):
        m = JOB_URL.search(rec["resource_uri"])
        job = m and m.group(1)
    if job is not None:
        jobs.setdefault(str(job), where)


def export_records(path, data, jobs):
    """A server export: a list of records, or REST pages of them."""
    if isinstance(data, dict) and "results" in data and "count" in data:
        if not isinstance(data["results"], list):
            raise Bad("%s: a REST page whose results is no list" % path)
        page = data["results"]
        for key in ("next", "previous"):
            if isinstance(data.get(key), str):
                job_of({"resource_uri": data[key]}, jobs, "%s: %s" % (path, key))
    elif isinstance(data, list):
        page = data
    else:
        raise Bad("%s: neither lava-run's log nor a LAVA results export" % path)
    for i, rec in enumerate(page):
        where = "%s: record %d" % (path, i + 1)
        if not isinstance(rec, dict) or "name" not in rec or "result" not in rec:
            raise Bad("%s: no name and result" % where)
        where += " (%s)" % rec["name"]
        job_of(rec, jobs, where)
        # A page twice is a record twice, whatever the sizes sum to.
        if rec.get("id") is not None:
            key = ("record", str(rec["id"]))
            if key in jobs:
                raise Bad("%s: record id %s again (first at %s): a page or a record twice"
                          % (where, rec["id"], jobs[key]))
            jobs[key] = where
        yield where, server_record(where, rec)


def read_input(path, pages, jobs):
    """(where, LAVA result dict) of one input file, in order."""
    with open(regular(path), encoding="utf-8", errors="strict") as f:
        text = f.read()
    # lava-run's log: its records one a line, maybe after other output
    # (lava.sh keeps lava-run's stderr, where Python's warnings go too).
    if re.search(r'^(- )?\{"?dt"?:', text, re.M):
        return list(log_records(path, text.splitlines()))
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise Bad("%s: neither JSON nor YAML (%s)" % (path, str(exc).splitlines()[0]))
    if isinstance(data, dict) and "count" in data:
        pages.append((path, data.get("count"), len(data.get("results") or [])))
    return list(export_records(path, data, jobs))


def check_one_job(jobs, results):
    """One whole job: the records name one job, and LAVA's own record
    of the job (lava job) comes once at most."""
    ids = {j: w for j, w in jobs.items() if isinstance(j, str)}
    if len(ids) > 1:
        raise Bad("records of %d jobs (%s): one job at a time" % (
            len(ids), ", ".join("%s at %s" % (j, w) for j, w in sorted(ids.items()))))
    if sum(r["definition"] == "lava" and r["case"] == "job" for r in results) > 1:
        raise Bad("LAVA's job record more than once: the records of two jobs")


def check_pages(pages):
    """REST pages: together, every record of the job (`count`)."""
    if not pages:
        return
    counts = sorted({str(c) for _, c, _ in pages})
    got = sum(n for _, _, n in pages)
    if counts != [str(got)]:
        raise Bad("REST pages %s: %d records of the job's %s: a page missing or twice"
                  % (", ".join(p for p, _, _ in pages), got, " or ".join(counts)))


def measurement(where, value):
    """A finite number, from LAVA's string or number."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise Bad("%s: measurement %r is no number" % (where, value))
    if not math.isfinite(v):
        raise Bad("%s: measurement %r is not finite" % (where, value))
    return v


def mapped(where, case, names):
    """A kselftest.sh name -> (program, test); None for other names."""
    if case == "shardfile-" + COLLECTION.replace("/", "."):
        return ("kselftest", "kselftest.shardfile")
    if not case.startswith(slug(COLLECTION) + "_") and not case.startswith("shardfile-"):
        return None
    if names is None:
        raise Bad("%s: kselftest.sh name %s needs --names (bindlab-lava.sh names PROG...)"
                  % (where, case))
    hits = names.get(case, set())
    if len(hits) != 1:
        raise Bad("%s: kselftest.sh name %s maps to %s" % (
            where, case, " and ".join(sorted("%s %s" % h for h in hits)) or "no test"))
    return next(iter(hits))


def convert(where, msg, names):
    """One LAVA result dict -> one entry of the import format."""
    for key in ("definition", "case", "result"):
        if not isinstance(msg.get(key), str) or not msg[key]:
            raise Bad("%s: no %s string" % (where, key))
    if msg["result"] not in RESULTS:
        raise Bad("%s: result %r is not %s" % (where, msg["result"], ", ".join(RESULTS)))
    definition, case = msg["definition"], msg["case"]
    if definition != "lava" and msg.get("set"):
        definition = str(msg["set"])
    hit = mapped(where, case, names) if definition != "lava" else None
    if hit:
        definition, case = hit
    out = {"definition": definition, "case": case, "result": msg["result"]}
    if msg.get("measurement") not in (None, ""):
        out["measurement"] = measurement(where, msg["measurement"])
        out["units"] = str(msg.get("units", ""))
    return out, hit is not None


def summary(nin, results, nmapped):
    """The counts, the summary line and the failures; the exit status."""
    ours = [r for r in results if r["definition"] != "lava"]
    failed = [r for r in results if r["result"] not in ("pass", "skip")]
    print("lava: %d records in, %d out, %d of them kselftest.sh names mapped"
          % (nin, len(results), nmapped))
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


def out_target(path, inputs):
    """The file OUT names (a symlink's target), checked before any work
    as bindlab_results checks its outputs: a new name or a regular file,
    none of the inputs (however spelled), never under /dev, /proc or
    /sys."""
    real = os.path.realpath(path)
    if any(
            real == d or real.startswith(d + "/") for d in ("/dev", "/proc", "/sys")):
        raise Bad("%s: under %s: refused before any work" % (path, real.split("/")[1]))
    if os.path.lexists(real) and not os.path.isfile(real):
        raise Bad("%s: not a regular file: refused before any work" % path)
    if not os.path.isdir(os.path.dirname(real)):
        raise Bad("%s: no such directory: refused before any work" % path)
    for name in inputs:
        if os.path.exists(real) and os.path.exists(name) and os.path.samefile(real, name):
            raise Bad("%s: also an input (%s): refused before any work" % (path, name))
    return real


def write_atomic(path, text):
    """path replaced whole or not at all: a temporary beside it, renamed.
    A failed write (a full disk) leaves the old file and is an error."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.",
                               dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def operands(argv):
    """--names FILE before, between or after IN... OUT (GNU's order);
    "--" ends the options. (names_file, operands), None for a bad word."""
    names_file, args, words = None, [], list(argv)
    while words:
        w = words.pop(0)
        if w == "--":
            args += words
            break
        if w == "--names" and words:
            names_file = words.pop(0)
        elif w.startswith("--names=") and len(w) > 8:
            names_file = w[8:]
        elif w.startswith("-") and w != "-":
            return None, None
        else:
            args.append(w)
    return names_file, args


def main(argv):
    if len(argv) == 3 and argv[1] == "--is-import":
        return 0 if is_import(argv[2]) else 1
    names_file, args = operands(argv[1:])
    if args is None or len(args) < 2:
        print("usage: lava-results.py [--names FILE] IN... OUT.json", file=sys.stderr)
        return 2
    results, nin, nmapped, pages, jobs = [], 0, 0, [], {}
    try:
        out_path = out_target(args[-1], args[:-1] + ([names_file] if names_file else []))
        names = load_names(names_file) if names_file else None
        for path in args[:-1]:
            for where, msg in read_input(path, pages, jobs):
                nin += 1
                out, hit = convert(where, msg, names)
                results.append(out)
                nmapped += hit
        check_one_job(jobs, results)
        check_pages(pages)
        text = json.dumps(results, indent=1, allow_nan=False)
        write_atomic(out_path, text + "\n")
    except (OSError, UnicodeError, Bad, ValueError) as exc:
        print("lava-results.py: %s" % exc, file=sys.stderr)
        return 2
    return summary(nin, results, nmapped)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
