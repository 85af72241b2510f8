#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The fuzzer generated from tests/inputs.tsv (tests/fuzz_inputs_test.sh).

For each row with a probe: boundary values of its grammar (empty, huge,
negative, non-numeric, over-long, control characters, duplicates, wrong
types; for files a directory, a FIFO, devices, symlinks, the output
itself, unreadable, read-only, RLIMIT_FSIZE and RLIMIT_NOFILE), each run
by the probe and judged by the row's promise: the exit status, a one-line
error that names the program, nothing written where it must not be, no
process left. Rows of files are fuzzed by mutating a valid file of the
format; signal rows are sent their signals at random times. Then the
families, each tried on every row it fits: the row's first case again
under a de_DE or tr_TR locale (C's exit, error and stdout); for rows
that write a destination, one that holds an earlier file, two runs at
once on one new destination, and a destination whose disk is full.

usage: inputs_fuzz.py REPO TMP SEED BUDGET_SECONDS; TAP on stdout.
"""
import sys
# The repository must stay as it was: no __pycache__ of values or content.
sys.dont_write_bytecode = True

import concurrent.futures
import glob
import itertools
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time

import values
import content

REPO, TMP, SEED, BUDGET = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
FIX = TMP + "/fix"
MARK = "BINDLAB_FUZZ_MARK"
# The companion's tools, and the kselftests as the Makefile lists them:
# a new kselftest needs no edit here.
PROGRAMS = {"bind_bench", "bind_churn", "bindlab_results", "run.sh"} | {
    os.path.basename(p) for p in subprocess.run(
        ["make", "-s", "--no-print-directory", "-C", REPO, "print-programs"],
        capture_output=True, text=True, check=True).stdout.splitlines()[0].split()}
TIMEOUT = {"check": 5, "real": 20, "lab": 5, "content": 10}
# Invalid values a row of each kind gets at most (valid ones all run).
SAMPLE = {"check": 12, "real": 8, "lab": 5, "content": 14}
# Every run in a network namespace of its own: the host's is never seen.
ISOLATE = [b"unshare", b"-n", b"--"]


def default_signals():
    """Every signal the rows send back to its default disposition."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


class Row:
    """One row of the table."""

    def __init__(self, line, fields):
        (self.kind, self.program, self.input, self.grammar, self.valid,
         self.invalid, self.probe, self.known, self.note) = fields
        self.line = line
        self.mode, _, self.cmd = self.probe.partition(" ")

    def name(self):
        return "%s %s %s" % (self.kind, self.program, self.input)


def load_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rows.append(Row(n, line.split("\t")))
    return rows


def resolve(words):
    """The probe's words with the program's path: env VAR=... may lead."""
    out, i = [], 0
    if words and words[0] == "env":
        out.append("env")
        i = 1
        while i < len(words) and "=" in words[i]:
            out.append(words[i])
            i += 1
    if i < len(words):
        w = words[i]
        if w in PROGRAMS or w.startswith(("kernel/", "lava/")):
            w = REPO + "/" + w
        out.append(w)
        out.extend(words[i + 1:])
    return out


def argv_of(row, value, out_path=""):
    """The command of row for value (bytes), and the environment it adds."""
    words = shlex.split(row.cmd.replace("{T}", FIX).replace("{O}", out_path))
    env = {}
    if row.kind == "env":
        env[row.input.split()[0].encode()] = value
        return [w.encode() for w in resolve(words)], env
    argv = []
    for w in resolve(words):
        b = w.encode()
        argv.append(b.replace(b"@", value) if b"@" in b else b)
    return argv, env


def base_env(row, mark):
    env = {b"PATH": os.environb.get(b"PATH", b"/usr/bin:/bin"),
           b"LANG": b"C", MARK.encode(): mark.encode()}
    # make needs the kselftest headers: the real ones, read only.
    ksft = os.environ.get("BINDLAB_FUZZ_KSFT")
    if ksft:
        env[b"KSFT_DIR"] = ksft.encode()
    if row.mode == "check":
        env[b"BINDLAB_CHECK_ARGS"] = b"1"
    return env


def marked(mark):
    """Processes whose environment carries the mark."""
    pids = []
    needle = ("%s=%s\0" % (MARK, mark)).encode()
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % p, "rb") as f:
                if needle in f.read():
                    pids.append(int(p))
        except OSError:
            pass
    return pids


def reap(mark):
    """Kill what a run left; the names of what was left."""
    left = []
    for pid in marked(mark):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                left.append(f.read().replace(b"\0", b" ")[:80].decode("ascii", "replace"))
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


class Result:
    def __init__(self, rc, out, err, left, cwd_files):
        self.rc, self.out, self.err = rc, out, err
        self.left, self.cwd_files = left, cwd_files
        self.out_path = ""


def own_dirs(work):
    """HOME, BINDLAB_CACHE and TMPDIR of one run, inside its directory."""
    dirs = {b"HOME": work + "/home", b"BINDLAB_CACHE": work + "/cache", b"TMPDIR": work + "/tmp"}
    for d in dirs.values():
        os.makedirs(d)
    return {k: v.encode() for k, v in dirs.items()}


def written(work):
    """What a run left in its own directory (its own HOME and caches too)."""
    files = []
    for top, _, names in os.walk(work):
        files += [os.path.relpath(os.path.join(top, n), work) for n in names]
    for d in ("home", "cache", "tmp"):
        if os.listdir(os.path.join(work, d)):
            files.append(d + "/" + os.listdir(os.path.join(work, d))[0])
    return files


def start(row, case, n, out_path=None):
    """Start one case of row; what finish() needs."""
    mark = "%d.%d" % (SEED, n)
    work = "%s/work/%d" % (TMP, n)
    out_path = out_path or "%s/out/%d.json" % (TMP, n)
    argv, extra = argv_of(row, case.value, out_path)
    env = base_env(row, mark)
    env.update(own_dirs(work))
    env.update(extra)
    env.update(case.env)
    tags = known_tags(row)
    limit = 2 if tags is not None and (not tags or case.tag in tags) else TIMEOUT[row.mode]
    p = subprocess.Popen(ISOLATE + case.wrap + argv, env=env, cwd=work,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    return p, mark, work, out_path, limit


def finish(p, mark, work, out_path, limit):
    """Wait for a started case (bounded); its Result."""
    try:
        out, err = p.communicate(timeout=limit)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = "timeout"
    if marked(mark):
        time.sleep(0.1)
    left = reap(mark)
    files = written(work)
    subprocess.run(["rm", "-rf", work], check=False)
    r = Result(rc, out, err, left, files)
    r.out_path, r.limit = out_path, limit
    return r


def run(row, case, n, out_path=None):
    """Run one case of row; a Result."""
    return finish(*start(row, case, n, out_path))


# run.sh passes on the one-line error of the tool it ran.
DELEGATES = {b"run.sh:": [b"bindlab_results:"]}


def prefixes(row):
    """What the first line of an error may start with."""
    words = resolve(shlex.split(row.cmd.replace("{T}", FIX)))
    prog = [w for w in words if w != "env" and "=" not in w][0]
    base = os.path.basename(prog).encode() + b":"
    if row.kind == "env":
        return [n.encode() + b":" for n in row.input.split()] + [base]
    return [base] + DELEGATES.get(base, [])


def names_env(row, first, case_value=b""):
    """An env row's error names the variable, or the option it is the
    default of ("the default of --accel")."""
    names = [n.encode() for n in row.input.split()]
    m = re.search(r"default of (--[a-z-]+)", row.note)
    if m:
        names.append(m.group(1).encode())
    # Or the value itself: a file's path names the input well enough.
    return any(n in first for n in names) or (len(case_value) > 3 and case_value in first)


def one_line(row, r, value=b""):
    """None, or why the error is not one line that names the program."""
    lines = r.err.split(b"\n")
    if len(lines) > 1 and lines[1] and not lines[1].lower().startswith(b"usage"):
        return "error of more than one line: %r" % r.err[:200]
    if not any(lines[0].startswith(p) for p in prefixes(row)):
        return "first line on stderr is not 'PROG: ...': %r" % lines[0][:160]
    if row.kind == "env" and not names_env(row, lines[0], value):
        return "the error does not name %s: %r" % (row.input.split()[0], lines[0][:160])
    if any(c < 0x20 and c not in (9, 10) or c == 0x7f for c in r.err):
        return "raw control characters on stderr: %r" % lines[0][:160]
    return None


def judge(row, case, r):
    """None, or what is wrong with result r of case."""
    if r.rc == "timeout":
        return "timed out after %d s" % r.limit
    if r.rc < 0:
        return "killed by signal %d" % -r.rc
    if r.left:
        return "left processes: %s" % r.left[:2]
    if row.mode == "lab" and r.cwd_files:
        return "started work: wrote %s" % r.cwd_files[:3]
    if row.input == "ktap":
        return ktap_judge(row, case, r)
    if case.expect:
        return case.expect(row, r)
    if case.valid:
        return judge_valid(row, case, r)
    return judge_invalid(row, case, r)


def judge_valid(row, case, r):
    if row.valid.startswith("any"):
        allowed = {0, 1, 2, 4} | {int(c) for c in row.valid[4:].split(",") if c}
        if r.rc not in allowed:
            return "exit %d, not one of %s" % (r.rc, sorted(allowed))
        return one_line(row, r, case.value) if r.rc == 2 else None
    if r.rc != 0:
        return "valid value: exit %d: %r" % (r.rc, r.err.split(b"\n")[0][:160])
    if row.valid == "0p" and b"1..0" not in r.out:
        return "a filter that selects nothing: no plan 1..0 on stdout"
    if row.mode == "check" and r.out and case.value != b"-":
        return "BINDLAB_CHECK_ARGS=1 printed on stdout: %r" % r.out[:120]
    return None


def judge_invalid(row, case, r):
    want = row.invalid
    if want == "2" and row.mode == "content" and r.rc in (1, 4):
        # A file that holds nothing to judge: failing closed is enough.
        return None
    if want in ("2", "128"):
        if r.rc != int(want):
            return "exit %d, want %s: %r" % (r.rc, want, r.err.split(b"\n")[0][:160])
        why = one_line(row, r, case.value)
        if why:
            return why
        if r.cwd_files:
            return "refused, yet wrote %s in its own directory" % r.cwd_files[:3]
        return None
    if want == "1u":
        if r.rc != 1 or b"Usage:" not in r.err:
            return "exit %d, want the harness's usage and 1" % r.rc
        return None
    if want == "fail":
        return "exit 0: a pass on a bad input" if r.rc == 0 else None
    if want == "4":
        return None if r.rc == 4 and b"SKIP" in r.err + r.out else "exit %d, want SKIP 4" % r.rc
    return None


def quote(b):
    """A word as bash reads it back: $'...' for anything unprintable."""
    if all(32 < c < 127 and c not in b"'\\\"$`!*?[]{}()<>|&;#~" for c in b) and b:
        return b.decode()
    return "$'" + "".join(chr(c) if 32 <= c < 127 and c not in b"'\\" else "\\x%02x" % c
                          for c in b) + "'"


def replay(row, case):
    argv, extra = argv_of(row, case.value)
    env = dict(extra)
    env.update(case.env)
    if row.mode == "check":
        env[b"BINDLAB_CHECK_ARGS"] = b"1"
    words = [k + b"=" + v for k, v in env.items()] + case.wrap + argv
    return " ".join(quote(w) for w in words)


def marks(row, kind):
    """The row's KNOWN marks of kind (bug, unsafe): [(FILE, tags)]."""
    out = []
    for m in row.known.split(";"):
        word, _, rest = m.strip().partition(" ")
        if word == kind:
            f, _, tags = rest.partition(":")
            out.append((f, set(tags.split(",")) if tags else set()))
    return out


def known_tags(row):
    """None (no known bug), set() (the whole row) or the tags of its bugs."""
    bugs = marks(row, "bug")
    if not bugs:
        return None
    if any(not t for _, t in bugs):
        return set()
    return set().union(*(t for _, t in bugs))


def unsafe_tags(row):
    """Tags of a known bug whose values would write outside the run (into
    /dev): never run, reported as such."""
    return set().union(*(t for _, t in marks(row, "unsafe"))) if marks(row, "unsafe") else set()


def cases_of(row, rng):
    """The cases of a row: every valid one, a sample of the others, and
    one of each tag a known bug of the row is about."""
    if row.mode == "content":
        all_cases = content.cases(row, FIX, rng)
    else:
        all_cases = values.cases(row, FIX, rng)
    if row.mode == "lab":
        # An empty value is a lab script's "unset": the default, work.
        all_cases = [c for c in all_cases if c.value != b""]
    if row.mode == "lab" or row.valid == "-":
        all_cases = [c for c in all_cases if not c.valid or c.expect]
    valid = [c for c in all_cases if c.valid]
    invalid = [c for c in all_cases if not c.valid]
    rng.shuffle(invalid)
    invalid = [c for c in invalid if c.tag not in unsafe_tags(row)]
    tags = known_tags(row)
    if tags is not None and not tags:
        return valid[:2] + invalid[:2]
    tags = tags or set()
    # Every value of a known bug's tags: its verdict must not hang on
    # which of them the seed picked.
    known = [c for c in invalid if c.tag in tags]
    rest = [c for c in invalid if c.tag not in tags][:SAMPLE[row.mode]]
    return valid[:6] + known + rest


def fuzz_row(row, rng, counter, deadline):
    """Run the row's cases; (cases run, failures as (case, why), tags run)."""
    fails, ran, tags, seen = [], 0, set(), []
    for case in cases_of(row, rng):
        if time.monotonic() > deadline:
            break
        r = run(row, case, next(counter))
        ran += 1
        tags.add(case.tag)
        why = judge(row, case, r)
        if why:
            fails.append((case, why))
        if not case.wrap and not case.expect and r.rc != "timeout":
            seen.append((case, r))
    for family in FAMILIES:
        if time.monotonic() > deadline:
            break
        n, f_fails = family(row, rng, counter, seen)
        ran += n
        if n:
            tags.add(family.__name__)
            with FAMILY_LOCK:
                FAMILY_RUNS[family.__name__] = FAMILY_RUNS.get(family.__name__, 0) + n
        fails += f_fails
    return ran, fails, tags


# Families: one fault tried on every row it fits, so that a new row of a
# kind gets them with no edit here. Each returns (runs, failures).
FAMILY_LOCK = threading.Lock()
FAMILY_RUNS = {}
LOCALES = {}


def make_locales():
    """A decimal comma (de_DE) and an alphabet whose [a-z] has no i
    (tr_TR), made with localedef into the run's directory; none when the
    machine cannot make them (the family is then reported skipped)."""
    loc = TMP + "/loc"
    os.makedirs(loc)
    for name in ("de_DE", "tr_TR"):
        subprocess.run(["localedef", "-i", name, "-f", "UTF-8", "%s/%s.UTF-8" % (loc, name)],
                       capture_output=True, check=False)
    env = dict(os.environ, LOCPATH=loc)
    comma = subprocess.run(["locale", "decimal_point"], capture_output=True, text=True,
                           env=dict(env, LC_ALL="de_DE.UTF-8")).stdout.strip() == ","
    no_i = subprocess.run(["bash", "-c", "[[ i =~ ^[a-z]$ ]]"], capture_output=True,
                          env=dict(env, LC_ALL="tr_TR.UTF-8")).returncode != 0
    if comma and no_i:
        for name in ("de_DE", "tr_TR"):
            LOCALES[name] = {b"LOCPATH": loc.encode(), b"LC_ALL": name.encode() + b".UTF-8"}


def same_text(b):
    """Output with this run's own paths (its number) taken out."""
    return re.sub(rb"/(work|out)/[0-9]+", b"/N", b)


def locale(row, rng, counter, seen):
    """The row's first case again under another locale: C's exit, and for
    the deterministic modes C's error line and stdout."""
    if not LOCALES or not seen:
        return 0, []
    case, base = next(((c, r) for c, r in seen if c.valid), seen[0])
    name = rng.choice(sorted(LOCALES))
    env = dict(case.env)
    env.update(LOCALES[name])
    # A new destination stays new: the first run made it.
    value = case.value + b"-" + name.encode() if case.tag == "path-new" else case.value
    c = values.Case(value, case.valid, "locale-" + name, env=env)
    r = run(row, c, next(counter))
    for res, v in ((r, value), (base, case.value)):
        res.out, res.err = res.out.replace(v, b"{V}"), res.err.replace(v, b"{V}")
    why = None
    if r.rc != base.rc:
        why = "exit %s under LC_ALL=%s.UTF-8, %s under C" % (r.rc, name, base.rc)
    elif r.rc != 0 and same_text(r.err.split(b"\n")[0]) != same_text(base.err.split(b"\n")[0]):
        why = "another error under %s: %r, C: %r" % (name, r.err[:100], base.err[:100])
    elif row.mode in ("check", "content") and same_text(r.out) != same_text(base.out):
        why = "another stdout under %s: %r, C: %r" % (name, r.out[:100], base.out[:100])
    return 1, [(c, why)] if why else []


def real_outputs(row):
    """Rows that really write a destination: the families below."""
    return row.mode == "real" and row.valid != "-" and row.grammar.split(" ")[0] in ("out", "out-", "outdir")


ALIEN = b"zz_alien_marker"


def new_place(row, family, counter):
    """The run's number, a new folder of the family's own, and whether
    row writes a directory (else a file)."""
    n = next(counter)
    place = "%s/%s/%d" % (TMP, family, n)
    os.makedirs(place)
    return n, place, row.grammar.startswith("outdir")


def alien_run(path):
    """An earlier run's file, marked: nothing of it may reach an output."""
    with open(FIX + "/run2.json", "rb") as f:
        data = f.read().replace(b"reuseaddr", ALIEN, 1)
    with open(path, "wb") as f:
        f.write(data)
    return data


def pre_existing(row, rng, counter, seen):
    """A destination that holds an earlier file: replaced whole, or left
    as it was when refused; a directory's other files left alone."""
    if not real_outputs(row):
        return 0, []
    n, place, outdir = new_place(row, "pre", counter)
    dest = place if outdir else place + "/x.json"
    old = alien_run(place + "/alien.json" if outdir else dest)
    c = values.Case(dest, True, "pre-existing")
    r = run(row, c, n, out_path=dest)
    why = judge(row, c, r)
    if not why and outdir:
        with open(place + "/alien.json", "rb") as f:
            if f.read() != old:
                why = "a file of the directory that the run did not write changed"
        for name in os.listdir(place):
            if name != "alien.json" and ALIEN in open(place + "/" + name, "rb").read():
                why = "%s carries the earlier file's data" % name
    elif not why:
        with open(dest, "rb") as f:
            now = f.read()
        if r.rc != 0 and now != old:
            why = "refused (exit %s), yet the earlier file changed" % r.rc
        if r.rc == 0 and ALIEN in now:
            why = "the output carries the earlier file's data (merged, not replaced)"
    return 1, [(c, why)] if why else []


def two_at_once(row, rng, counter, seen):
    """Two runs at once, one new destination. A file: both end as one run
    alone would (never a refusal), and one whole output is left, no
    temporary. A directory (new or empty): one may refuse it with one
    line; every file a run lists exists."""
    if not real_outputs(row):
        return 0, []
    _, place, outdir = new_place(row, "conc", counter)
    dest = place + ("/d" if outdir else "/x.json")
    c = values.Case(dest, True, "two-at-once")
    started = [start(row, c, next(counter), out_path=dest) for _ in range(2)]
    rs = [finish(*s) for s in started]
    why = None
    for r in rs:
        why = why or (judge_invalid(row, c, r) if outdir and r.rc == 2 else judge(row, c, r))
    if not why and not outdir and (rs[0].rc != rs[1].rc or rs[0].rc == 2):
        why = "exits %s and %s: a run failed for the other's sake: %r" % (
            rs[0].rc, rs[1].rc, (rs[0].err or rs[1].err)[:100])
    if not why and all(r.rc == 2 for r in rs):
        why = "both runs refused: %r" % rs[0].err[:100]
    names = [os.path.relpath(os.path.join(t, f), place) for t, _, fs in os.walk(place) for f in fs]
    if not why and any(".tmp." in f for f in names):
        why = "a temporary file left: %s" % names
    if not why and outdir:
        listed = [w for r in rs if r.rc == 0 for line in r.out.split(b"\n")
                  for w in line.split(b"\t")[1:] if w.startswith(dest.encode())]
        gone = [w for w in listed if not os.path.exists(w)]
        if gone:
            why = "listed, yet gone: %s" % gone[:2]
    elif not why:
        try:
            with open(dest, encoding="utf-8") as f:
                json.load(f)
        except (OSError, ValueError) as e:
            why = "the destination is not one whole JSON document: %s" % e
    return 2, [(c, why)] if why else []


def full_disk(row, rng, counter, seen):
    """The destination's file system fills up: an error (exit 2, one
    line), never a verdict; the earlier file as it was, no temporary."""
    if not real_outputs(row):
        return 0, []
    n, place, outdir = new_place(row, "full", counter)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "bindlab-full", place],
                      capture_output=True).returncode:
        return 0, []
    try:
        dest = place + ("/d" if outdir else "/x.json")
        if outdir:
            os.makedirs(dest)
        else:
            alien_run(dest)
        before = sorted(os.listdir(place))
        old = None if outdir else open(dest, "rb").read()
        fd = os.open(place + "/filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        os.close(fd)
        c = values.Case(dest, False, "full-disk")
        r = run(row, c, n, out_path=dest)
        why = judge_invalid(row, c, r) if r.rc != 1 else \
            "exit 1 (a verdict) on a full disk, want 2: %r" % r.err[:100]
        if r.rc == 0:
            why = "exit 0 on a full disk"
        left = sorted(os.listdir(place))
        if not why and left != sorted(before + ["filler"]):
            why = "left on the full disk: %s" % sorted(set(left) - set(before))
        if not why and outdir and os.listdir(dest):
            why = "wrote part of its output: %s" % os.listdir(dest)[:3]
        if not why and not outdir and open(dest, "rb").read() != old:
            why = "the earlier file changed"
        return 1, [(c, why)] if why else []
    finally:
        subprocess.run(["umount", "-l", place], capture_output=True)


FAMILIES = [locale, pre_existing, two_at_once, full_disk]


def ktap_judge(row, case, r):
    """A KTAP is merged (exit 0) and its summary passes only when valid;
    a plan past the reader's limit is the reader's error (2), no verdict."""
    if r.rc == 2 and case.tag == "huge" and b"over this reader's limit" in r.err:
        return None
    if r.rc != 0:
        return "merge of a KTAP: exit %s: %r" % (r.rc, r.err[:160])
    s = subprocess.run([REPO + "/bindlab_results", "summary", r.out_path],
                       capture_output=True, timeout=10)
    if case.valid and s.returncode != 0:
        return "a valid KTAP: summary exit %d" % s.returncode
    if not case.valid and s.returncode == 0:
        return "a broken KTAP (%s) passes the summary" % case.tag
    return None


def fuzz_signal(row, rng, counter):
    """Each signal at a random time: the program goes, nothing is left."""
    fails = []
    argv = [w.encode() for w in resolve(shlex.split(row.cmd.replace("{T}", FIX)))]
    sigs = [(s, rng.uniform(0.05, 0.8)) for s in row.grammar.split(" ")[1].split("|")]
    for sig, delay in sigs:
        mark = "%d.%d" % (SEED, next(counter))
        env = base_env(row, mark)
        # As from a terminal: a non-interactive shell's background job
        # (CI's) would hand down SIGINT ignored.
        p = subprocess.Popen(argv, env=env, cwd=FIX + "/work-signal", stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=default_signals)
        time.sleep(delay)
        p.send_signal(getattr(signal, "SIG" + sig))
        # 10 s: what ignores or defers the signal (a VM, a hung test) is
        # there for minutes; a loaded machine's exits take more than 2 s.
        try:
            p.wait(timeout=10)
            for _ in range(100):
                if not marked(mark):
                    break
                time.sleep(0.1)
            time.sleep(0.1)
            left = reap(mark)
        except subprocess.TimeoutExpired:
            left = ["the program itself"] + reap(mark)
        if left:
            fails.append((values.Case("SIG%s after %.2f s" % (sig, delay), False, "signal"),
                          "left running after 10 s: %s" % left[:2]))
    return len(sigs), fails, {"signal"}


def verdict(row, ran, fails, tags_run):
    """One TAP line (and its diagnostics) for a row."""
    tags = known_tags(row)
    name = "%s (line %d): %d inputs" % (row.name(), row.line, ran)
    known = [f for f in fails if tags is not None and (not tags or f[0].tag in tags)]
    other = [f for f in fails if f not in known]
    diag = ["%s [%s]: %s" % (quote(c.value)[:60] if isinstance(c.value, bytes) else c.value,
                             c.tag, why) for c, why in other[:3]]
    diag += ["replay: " + replay(row, c) for c, _ in other[:1] if not isinstance(c.value, str)]
    if other:
        return False, "not ok", name, diag
    if tags is None and unsafe_tags(row):
        return True, "ok", "%s # XFAIL %s (not run: it would write outside the run)" % (name, row.known), []
    if tags is not None:
        ran_known = not tags or bool(tags & tags_run)
        if known:
            c, why = known[0]
            return True, "ok", "%s # XFAIL %s: %s: %s" % (name, row.known, quote(c.value)[:60],
                                                        why[:160]), []
        if ran_known:
            return False, "not ok", name, ["XPASS: %s no longer reproduces (values of %s ran); drop the mark"
                                           % (row.known, sorted(tags & tags_run))]
    return True, "ok", name, []


def fixtures_intact():
    """The fixtures that a refused write must have left as they were."""
    bad = []
    checks = [("fifo", stat.S_ISFIFO), ("dir", stat.S_ISDIR), ("rodir", stat.S_ISDIR)]
    for name, is_kind in checks:
        st = os.lstat(FIX + "/" + name)
        if not is_kind(st.st_mode):
            bad.append(name + " changed type")
    for name in ("dir", "rodir"):
        if os.listdir(FIX + "/" + name):
            bad.append("%s/ got %s" % (name, os.listdir(FIX + "/" + name)[:2]))
    for dev in ("/dev/null", "/dev/zero", "/dev/full"):
        if not stat.S_ISCHR(os.stat(dev).st_mode):
            bad.append(dev + " is no longer a device")
    return bad


def make_fixtures():
    """What the values name: a real result and run files, odd files."""
    os.makedirs(FIX)
    for d in ("dir", "rodir", "home", "cache", "tmp"):
        os.makedirs(FIX + "/" + d)
    os.makedirs(TMP + "/work")
    os.makedirs(TMP + "/out")
    os.mkfifo(FIX + "/fifo")
    os.symlink(FIX + "/nowhere", FIX + "/dangling")
    bb = [REPO + "/bind_bench", "-q", "-b", "1", "-r", "5"]
    res = REPO + "/bindlab_results"
    for name in ("result", "result2"):
        subprocess.run(bb + ["-j", "%s/%s.json" % (FIX, name), "reuseaddr", "same", "10"],
                       check=True, capture_output=True)
    subprocess.run([res, "merge", FIX + "/run.json", FIX + "/result.json"], check=True, capture_output=True)
    subprocess.run([res, "merge", FIX + "/run2.json", FIX + "/result2.json"], check=True, capture_output=True)
    shutil.copy(FIX + "/result.json", FIX + "/existing.json")
    os.symlink(FIX + "/existing.json", FIX + "/link-existing.json")
    shutil.copy(FIX + "/result.json", FIX + "/unreadable.json")
    os.chmod(FIX + "/unreadable.json", 0)
    os.chmod(FIX + "/rodir", 0o555)
    open(FIX + "/empty.json", "w").close()
    with open(FIX + "/huge.json", "wb") as f:
        f.truncate(257 << 20)   # sparse: over the 256 MiB limit, no disk
    shutil.copy(REPO + "/cases", FIX + "/cases")
    shutil.copy(REPO + "/tests/lava/results.json", FIX + "/lava.json")
    shutil.copy(sorted(glob.glob(REPO + "/kernel/mutation/table-*.json"))[0], FIX + "/table.json")
    content.RESULTS = REPO + "/bindlab_results"
    make_locales()


def work(row, counter, deadline):
    rng = random.Random("%d %d" % (SEED, row.line))
    if row.kind == "signal":
        return fuzz_signal(row, rng, counter)
    return fuzz_row(row, rng, counter, deadline)


def main():
    rows = [r for r in load_rows(REPO + "/tests/inputs.tsv") if r.mode != "-"]
    # A replay of some rows: their names match this (a Python regex).
    only = os.environ.get("BINDLAB_FUZZ_ROWS")
    if only:
        rows = [r for r in rows if re.search(only, r.name())]
        if not rows:
            print("inputs_fuzz: BINDLAB_FUZZ_ROWS=%s selects no row" % only, file=sys.stderr)
            return 2
    make_fixtures()
    counter = itertools.count()
    deadline = time.monotonic() + BUDGET
    t0 = time.monotonic()
    os.makedirs(FIX + "/work-signal", exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(work, r, counter, deadline) for r in rows]
        results = [f.result() for f in futures]
    by_kind, n, failed = {}, 0, 0
    for row, (ran, fails, tags_run) in zip(rows, results):
        by_kind[row.kind] = by_kind.get(row.kind, 0) + ran
        ok, word, name, diag = verdict(row, ran, fails, tags_run)
        n += 1
        failed += not ok
        print("%s\t%s" % (word, name))
        for d in diag:
            print("# " + d.replace("\n", "\\n"))
    bad = fixtures_intact()
    n += 1
    print("%s\tfixtures, /dev/null, /dev/zero, /dev/full as they were" % ("not ok" if bad else "ok"))
    for b in bad:
        print("# " + b)
    secs = time.monotonic() - t0
    print("# inputs by row kind: " + ", ".join("%s %d" % kv for kv in sorted(by_kind.items())))
    print("# of them, by family: " + ", ".join("%s %d" % kv for kv in sorted(FAMILY_RUNS.items())) +
          ("" if LOCALES else "; locale not run: localedef cannot make de_DE and tr_TR here"))
    print("# %d inputs in %.1f s, seed %d%s" % (sum(by_kind.values()), secs, SEED,
          ", budget exhausted: later rows cut short" if time.monotonic() > deadline else ""))
    print("end\t%d rows" % n)
    return 1 if failed or bad else 0


if __name__ == "__main__":
    sys.exit(main())
