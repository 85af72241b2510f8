#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""LAVA's results of a bindlab job -> the JSON that bindlab_results imports.

usage: lava-results.py [--names FILE] IN... OUT.json
       lava-results.py --is-import FILE   exit 0 when FILE is the import format
       lava-results.py --help

IN is what a fleet gives (the format is recognised, and one job may come
as several files, e.g. REST pages):
- lava-run's log (one "{dt, lvl, msg}" record a line; "results" records);
- a LAVA server's results export: `lavacli results JOB --yaml` (or
  --json), the REST API's /api/v0.2/jobs/JOB/yaml/ (the same records) and
  /api/v0.2/jobs/JOB/tests/ (JSON pages; every page of the job, `count`
  records in all).
OUT is a JSON array of {definition, case, result [, measurement, units]},
checked as every output is (../bindlab_results dest: make builds it).
The test set (lava-test-set: the program, in lava/bindlab-lava.sh) is the
definition, so a case keeps the program and name of a local run; LAVA's
own records keep "lava".

Linaro's kselftest.sh names (net_bindlab_PROG_CASE, every non-word
character flattened to "_") map back through FILE, the "PROG
FIXTURE.VARIANT.TEST" lines of the installed programs
(`lava/bindlab-lava.sh names PROG...`): "_" is ambiguous, so only an exact
match maps; net_bindlab_PROG is PROG's ktap.plan and shardfile-net.bindlab
the runner's kselftest.shardfile. A record that does not parse, carries a
measurement that is no finite number (or, but on LAVA's own records,
none in the host's (0, 1e15]), a key twice in one object (JSON's
and YAML's readers keep the last: a "fail" could read as "pass") or a
result its metadata contradicts, or a
name that maps to nothing or to two tests is an error naming it (exit 2,
nothing written); so are records of two jobs (their job ids, LAVA's job
record twice), a case twice (which result counts?), REST pages that
are not every page of the job, and a job
that LAVA says ended on an error (its job record's error_type): no
kernel verdict.

Prints the counts (records in, mapped) and a summary line. Exit: 0 every
case passed or skipped, 1 a case failed (the job's own "lava job" result
included), 3 no test result of the job's test definitions (boot or
harness failure), 2 usage, bad input or any other error (one line on
stderr).
"""
import json
import os
import stat
import math
import re
import signal
import site
import sys
import tempfile

# -S (the #! line): site's .pth files import with the file still open, a
# descriptor more than this script needs; short of it the interpreter
# died with its own exit 1, which here is "a case failed". The site
# directories without the .pth files; no yaml is this machine's error.
sys.path += [d for d in site.getsitepackages() if d not in sys.path]
try:
    import yaml
except ImportError as exc:
    print("lava-results.py: %s (python3-yaml)" % exc, file=sys.stderr)
    sys.exit(2)

RESULTS = ("pass", "fail", "skip", "unknown")
COLLECTION = "net/bindlab"


class Bad(Exception):
    """One input record that cannot be converted; the message names it."""


def shown(value):
    """value in a message: a scalar's repr, cut; anything else by its type
    (YAML's aliases make a small file hold a list too large to print)."""
    if value is None or isinstance(value, (str, int, float)):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return "a %s" % type(value).__name__


def scalar_id(where, what, value):
    """A job or record id: LAVA's string or number, as a string."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise Bad("%s: %s %s is no id" % (where, what, shown(value)))
    return str(value)


def whole(digits):
    """A JSON integer: int() refuses one over 4300 digits; as a float it
    is infinite, refused where a number is read."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def load_json(where, text):
    """JSON with every key once: json keeps a repeated key's last value."""
    def once(pairs):
        obj = {}
        for key, value in pairs:
            if key in obj:
                raise Bad("%s: key %s twice in one object" % (where, shown(key)))
            obj[key] = value
        return obj
    try:
        return json.loads(text, object_pairs_hook=once, parse_int=whole)
    except RecursionError:
        raise Bad("%s: nested deeper than Python reads" % where)


class OnceLoader(yaml.SafeLoader):
    """yaml.SafeLoader refusing a key twice in one mapping, where PyYAML
    keeps the last value. named and first_line (the text's first line in
    its file, if a line of one) name it."""
    named, first_line = "", None

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    again = key in seen
                    seen.add(key)
                except TypeError:
                    break  # unhashable: the base class refuses it
                if again:
                    at = self.named if self.first_line is None else "%s:%d" % (
                        self.named, self.first_line + key_node.start_mark.line)
                    raise Bad("%s: key %s twice in one mapping" % (at, shown(key)))
        return super().construct_mapping(node, deep)


# Numbers stay text until measurement() reads them as C does: YAML 1.1
# would read 1_0 (plain, or after a "!" tag) as 10, and 0x10 as 16.
OnceLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def load_yaml(text, where, first_line=None):
    """YAML with every key once (OnceLoader); a YAMLError when it does
    not parse."""
    loader = OnceLoader(text)
    loader.named, loader.first_line = where, first_line
    try:
        return loader.get_single_data()
    except RecursionError:
        raise Bad("%s: nested deeper than Python reads" % where)
    except ValueError as exc:
        # A constructor's own refusal (an int of 5000 digits, a date
        # that is no date): the text does not parse either.
        raise yaml.YAMLError(str(exc))
    finally:
        loader.dispose()


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


def read_text(path):
    """The text of path, a regular file (regular()) of UTF-8."""
    with open(regular(path), encoding="utf-8") as f:
        try:
            return f.read()
        except UnicodeError as exc:
            raise Bad("%s: not UTF-8 (%s)" % (path, exc.reason))


def is_import(path):
    """Is path already the import format (a JSON array of result dicts
    with definition, case and result, every key once, LAVA's job record
    not ended on an error)? run.sh passes such a file on, the rest to
    the conversion, which names what it refuses."""
    try:
        data = load_json(path, read_text(path))
        for i, rec in enumerate(data if isinstance(data, list) else []):
            check_job_ended("%s: record %d" % (path, i + 1), rec)
    except (OSError, UnicodeError, Bad, ValueError):
        return False
    return isinstance(data, list) and bool(data) and all(
        isinstance(r, dict) and all(isinstance(r.get(k), str)
                                    for k in ("definition", "case", "result"))
        for r in data)


def load_names(path):
    """kselftest.sh name -> (program, test), from "PROG NAME" lines."""
    names, seen = {}, {}
    for num, line in enumerate(read_text(path).splitlines(), 1):
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
            rec = load_yaml(text, path, num)
        except yaml.YAMLError as exc:
            raise Bad("%s: a results record that does not parse (%s)"
                      % (where, str(exc).splitlines()[0]))
        if not isinstance(rec, dict) or rec.get("lvl") != "results":
            raise Bad("%s: a results line that is no {dt, lvl, msg} record" % where)
        msg = rec.get("msg")
        if not isinstance(msg, dict):
            raise Bad("%s: a results record whose msg is no dict" % where)
        yield where, msg


def metadata(where, rec):
    """An export record's metadata: lavacli's dict, the REST API's YAML
    text of one."""
    meta = rec.get("metadata")
    if isinstance(meta, str):
        try:
            meta = load_yaml(meta, where + ": metadata") if meta.strip() else {}
        except yaml.YAMLError:
            raise Bad("%s: metadata that does not parse" % where)
    return meta


# lava-run ends every job with LAVA's job record (definition lava, case
# job): "pass" when the job ran to its end, else "fail" with error_msg
# and the error_type of the LAVAError that stopped it (lava_common's
# exceptions: Infrastructure, Configuration, Bug, Job, Canceled,
# LAVATimeout, MultinodeTimeout, Test; "" for LAVAError itself), which a
# server keeps in the record's metadata. Every one of them is the
# harness's word that the job stopped before its tests ended: Test is the
# test shell's own failure, a timeout LAVA's on a device that stopped
# answering (a hung kernel too, which its records cannot tell apart).
# The results of such a job are a part of a run, so neither a pass nor a
# kernel FAIL: the import refuses it. A "fail" without an error_type
# stays a failed case (exit 1), as documented.
def check_job_ended(where, rec):
    """Refuse rec when it is LAVA's job record of a job ended on an error."""
    if not isinstance(rec, dict):
        return
    try:
        meta = metadata(where, rec)
    except Bad:
        meta = None  # refused where the record is converted
    meta = meta if isinstance(meta, dict) else {}
    definition = rec.get("definition", meta.get("definition"))
    case = rec.get("case", rec.get("name", meta.get("case")))
    error = rec.get("error_type", meta.get("error_type"))
    if definition != "lava" or case != "job" or error is None:
        return
    named = isinstance(error, str) and error.isidentifier()
    why = rec.get("error_msg", meta.get("error_msg"))
    raise Bad("%s: the LAVA job ended on an infrastructure error (error_type %s%s): "
              "no kernel verdict" % (where, error if named else shown(error),
                                     "" if why is None else ", error_msg %s" % shown(why)))


def server_record(where, rec):
    """An export record (lavacli, REST) -> the lava-run form of it."""
    meta = metadata(where, rec)
    if not isinstance(meta, dict) or not isinstance(meta.get("definition"), str):
        raise Bad("%s: no metadata.definition (the suite's name)" % where)
    suite = rec.get("suite")
    if isinstance(suite, str) and suite != meta["definition"]:
        raise Bad("%s: suite %s, metadata.definition %s" % (
            where, shown(suite), shown(meta["definition"])))
    if meta.get("case", rec["name"]) != rec["name"]:
        raise Bad("%s: name %s, metadata.case %s" % (
            where, shown(rec["name"]), shown(meta["case"])))
    # A record whose two results disagree is no result: a "fail" in
    # either could be the true one.
    if meta.get("result", rec["result"]) != rec["result"]:
        raise Bad("%s: result %s, metadata.result %s" % (
            where, shown(rec["result"]), shown(meta["result"])))
    msg = {"definition": meta["definition"], "case": rec["name"], "result": rec["result"]}
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
        jobs.setdefault(scalar_id(where, "job", job), where)


def export_records(path, data, pages, jobs):
    """A server export: a list of records, or REST pages of them (noted
    in pages: path, count, records)."""
    if isinstance(data, dict) and "results" in data and "count" in data:
        page, count = data["results"], data["count"]
        if not isinstance(page, list):
            raise Bad("%s: a REST page whose results is no list" % path)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise Bad("%s: a REST page whose count %s is no number of records"
                      % (path, shown(count)))
        pages.append((path, count, len(page)))
        for key in ("next", "previous"):
            if isinstance(data.get(key), str):
                job_of({"resource_uri": data[key]}, jobs, "%s: %s" % (path, key))
    elif isinstance(data, list):
        page = data
    else:
        raise Bad("%s: neither lava-run's log nor a LAVA results export" % path)
    for i, rec in enumerate(page):
        where = "%s: record %d" % (path, i + 1)
        if not isinstance(rec, dict) or not all(
                isinstance(rec.get(k), str) for k in ("name", "result")):
            raise Bad("%s: no name and result strings" % where)
        name = rec["name"]
        where += " (%s)" % (name if len(name) <= 200 else name[:197] + "...")
        job_of(rec, jobs, where)
        # A page twice is a record twice, whatever the sizes sum to.
        if rec.get("id") is not None:
            key = ("record", scalar_id(where, "record id", rec["id"]))
            if key in jobs:
                raise Bad("%s: record id %s again (first at %s): a page or a record twice"
                          % (where, rec["id"], jobs[key]))
            jobs[key] = where
        yield where, server_record(where, rec)


def read_input(path):
    """One input file, parsed: (lava-run log's [(where, LAVA result
    dict)], None) or (None, an export's data). LAVA's job record of a job
    ended on an error is refused here, before any record of any input
    is converted."""
    text = read_text(path)
    # lava-run's log: its records one a line, maybe after other output
    # (lava.sh keeps lava-run's stderr, where Python's warnings go too).
    if re.search(r'^(- )?\{"?dt"?:', text, re.M):
        records = list(log_records(path, text.splitlines()))
        for where, msg in records:
            check_job_ended(where, msg)
        return records, None
    try:
        data = load_json(path, text)
    except ValueError:
        try:
            data = load_yaml(text, path, 1)
        except yaml.YAMLError as exc:
            raise Bad("%s: neither JSON nor YAML (%s)" % (
                path, (str(exc).splitlines() or [""])[0]))
    # An empty file is YAML's null; [] or {} hold no record either.
    if data is None or data == [] or data == {}:
        raise Bad("%s: no LAVA record in it (an empty file, list or mapping)" % path)
    page = data.get("results") if isinstance(data, dict) else data
    for i, rec in enumerate(page if isinstance(page, list) else []):
        check_job_ended("%s: record %d" % (path, i + 1), rec)
    return None, data


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


def check_once(seen):
    """Every case once: seen is (definition, case) -> where, each time.
    A case twice (a pass and a fail, or two pages' records of it) is no
    verdict, which counts? The host's import refuses it too
    (bench/lava_import.c). LAVA's own records may repeat; its job record
    twice is check_one_job()'s (two jobs), checked first."""
    for (definition, case), wheres in seen.items():
        if definition != "lava" and len(wheres) > 1:
            raise Bad("%s: %s %s twice (first at %s): which result counts?"
                      % (wheres[1], definition, case, wheres[0]))


# C's decimal notation only: float() also takes "1_0", blanks and other
# scripts' digits ("\u0663" is 3), which the host's parsers refuse.
C_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


# The host's largest sample (BL_MAX_SAMPLE, bench/bindlab.h): its import
# (bench/lava_import.c) and run files take a sample in (0, 1e15] only.
MAX_SAMPLE = 1e15


def measurement(where, value, sample=True):
    """A finite float, from LAVA's string or number (never a bool); a
    sample (not LAVA's own record) in (0, MAX_SAMPLE], as the host reads
    it: "-5", and "1e-400", which reads as 0.0, are none."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise Bad("%s: measurement %s is no number" % (where, shown(value)))
    if isinstance(value, str) and not C_NUMBER.match(value):
        raise Bad("%s: measurement %s is no number" % (where, shown(value)))
    try:
        v = float(value)
    except ValueError:
        raise Bad("%s: measurement %s is no number" % (where, shown(value)))
    except OverflowError:  # an int past the largest float
        v = math.inf
    if not math.isfinite(v):
        raise Bad("%s: measurement %s is not finite" % (where, shown(value)))
    if sample and not 0 < v <= MAX_SAMPLE:
        raise Bad("%s: measurement %s is not in (0, %g]" % (where, shown(value), MAX_SAMPLE))
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
        raise Bad("%s: result %s is not %s" % (where, shown(msg["result"]), ", ".join(RESULTS)))
    for key in ("set", "units"):
        if msg.get(key) is not None and not isinstance(msg[key], str):
            raise Bad("%s: %s %s is no string" % (where, key, shown(msg[key])))
    definition, case = msg["definition"], msg["case"]
    if definition != "lava" and msg.get("set"):
        definition = msg["set"]
    hit = mapped(where, case, names) if definition != "lava" else None
    if hit:
        definition, case = hit
    out = {"definition": definition, "case": case, "result": msg["result"]}
    if msg.get("measurement") not in (None, ""):
        # LAVA's own (an action's duration, maybe 0.00) the host keeps
        # as text, unchecked.
        out["measurement"] = measurement(where, msg["measurement"], definition != "lava")
        out["units"] = msg.get("units") or ""
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
    """The file OUT names (a symlink's target), checked before any work by
    the one writer's rules, bindlab_results dest (bench/files.c: a regular
    file or a new name, ours, outside the system's trees; its line on
    stderr says why), and none of the inputs (however spelled)."""
    if path == "-":  # bindlab_results' stdout; here stdout has the summary
        raise Bad("-: OUT is a file (stdout carries the summary): refused before any work")
    tool = os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir,
                        "bindlab_results")
    # posix_spawn: no pipe, so that one free descriptor is still enough.
    pid = os.posix_spawn(tool, [tool, "dest", "--", path], os.environ)
    if os.waitpid(pid, 0)[1]:
        sys.exit(2)
    real = os.path.realpath(path)
    for name in inputs:
        if os.path.exists(real) and os.path.exists(name) and os.path.samefile(real, name):
            raise Bad("%s: also an input (%s): refused before any work" % (path, name))
    return real


def write_atomic(path, text):
    """path replaced whole or not at all: a temporary beside it, renamed.
    A failed write (a full disk) leaves the old file and is an error."""
    # Any signal that ends the process (TERM, HUP, QUIT, ALRM...) would
    # leave the temporary: held until it is renamed or removed (SIGINT
    # raises, and is caught; a fault's own signal would not wait).
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals() - {
        signal.SIGINT, signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL})
    try:
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
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


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


def printed(show, *args):
    """show(*args), what it prints flushed: a stdout that cannot take it
    (a closed pipe, a full disk) is an error."""
    try:
        value = show(*args)
        if sys.stdout:
            sys.stdout.flush()
        return value
    except OSError as exc:
        # Python flushes stdout again at exit: into /dev/null, not a
        # second error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise Bad("stdout: %s" % (exc.strerror or exc))


def run(argv):
    """The conversion, or --is-import, or --help; its exit status."""
    if len(argv) == 3 and argv[1] == "--is-import":
        return 0 if is_import(argv[2]) else 1
    if argv[1:] in (["--help"], ["-h"]):
        printed(print, __doc__.strip())
        return 0
    names_file, args = operands(argv[1:])
    if args is None or len(args) < 2:
        print("usage: lava-results.py [--names FILE] IN... OUT.json", file=sys.stderr)
        return 2
    results, nin, nmapped, pages, jobs, seen = [], 0, 0, [], {}, {}
    out_path = out_target(args[-1], args[:-1] + ([names_file] if names_file else []))
    names = load_names(names_file) if names_file else None
    inputs = [(path,) + read_input(path) for path in args[:-1]]
    for path, log, data in inputs:
        for where, msg in log if data is None else export_records(path, data, pages, jobs):
            nin += 1
            out, hit = convert(where, msg, names)
            seen.setdefault((out["definition"], out["case"]), []).append(where)
            results.append(out)
            nmapped += hit
    check_one_job(jobs, results)
    check_pages(pages)
    check_once(seen)
    text = json.dumps(results, indent=1, allow_nan=False)
    # The summary before OUT: one that cannot be printed is an error, and
    # an error leaves no new OUT.
    status = printed(summary, nin, results, nmapped)
    write_atomic(out_path, text + "\n")
    return status


def main(argv):
    """run(); any error, of the input or of this program, is exit 2 with
    one line on stderr (control characters escaped), never a traceback.
    KeyboardInterrupt and SystemExit keep Python's handling."""
    try:
        return run(argv)
    except (Bad, OSError) as exc:
        why = str(exc)
    except Exception as exc:  # pylint: disable=broad-except
        why = "%s: %s" % (type(exc).__name__, exc)
    why = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: "\\x%02x" % ord(m.group()), why)
    try:
        print("lava-results.py: %s" % why, file=sys.stderr, flush=True)
    except (OSError, AttributeError):
        pass  # no stderr to say it on: the status says it
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
