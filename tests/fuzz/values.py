# SPDX-License-Identifier: GPL-2.0
"""Boundary values of a row's grammar (tests/inputs.tsv), as cases.

A case is a value (bytes) and whether the grammar takes it; some carry a
wrapper (capabilities dropped, a small RLIMIT), an environment or their
own judge (a destination that must stay as it was).
"""
import itertools
import os
import re
import shutil

_names = itertools.count()
# Root reads and writes anything: these cases drop the capabilities that
# let it, so that mode 000 and 0555 mean what they say.
NO_DAC = [b"setpriv", b"--inh-caps", b"-dac_override,-dac_read_search",
          b"--bounding-set", b"-dac_override,-dac_read_search", b"--"]
# A low descriptor limit that root cannot raise either (tests/fdlimit.sh).
LOW_FD = [b"setpriv", b"--bounding-set", b"-sys_resource", b"--inh-caps",
          b"-sys_resource", b"prlimit", b"--nofile=20:20", b"--"]
SMALL_FSIZE = [b"prlimit", b"--fsize=100", b"--"]


class Case:
    def __init__(self, value, valid, tag, wrap=None, env=None, expect=None):
        self.value = value if isinstance(value, bytes) else value.encode()
        self.valid, self.tag = valid, tag
        self.wrap, self.env, self.expect = wrap or [], env or {}, expect


# Hostile strings of any grammar: none is valid for a number or a word.
COMMON = [("", "empty"), (" ", "blank"), ("\t", "tab"), ("\x01", "control"),
          ("\x1b[2J", "control"), ("a\nb", "control"), ("\x7f", "control"),
          ("A" * 5000, "over-long"), ("caf\xc3", "non-utf8"), ("-", "dash"),
          ("--", "dash"), ("=", "punct"), ("*", "glob"), ("$(id)", "shell")]
# A value left out: the next option is no value, nor a file name.
OPTION_LIKE = [("-q", "option"), ("--full", "option")]
COMMON += OPTION_LIKE


def _common():
    out = []
    for v, tag in COMMON:
        b = v.encode("latin-1") if tag == "non-utf8" else v.encode()
        out.append(Case(b, False, tag))
    return out


def _num_bad(lo, hi):
    """Numbers outside the grammar or the range."""
    bad = [("0x10", "hex"), ("+5", "sign"), (" 3", "blank"), ("3 ", "blank"),
           ("1e3", "exponent"), ("inf", "inf-nan"), ("nan", "inf-nan"),
           ("9" * 30, "huge"), ("-" + "9" * 30, "huge"), ("1" * 5000, "over-long"),
           ("abc", "non-numeric"), ("12abc", "non-numeric"), ("1,2", "duplicate"),
           ("5\n", "control"), ("١", "non-ascii-digit")]
    if lo is not None:
        bad.append((str(lo - 1), "below"))
    if hi is not None:
        bad.append((str(hi + 1), "above"))
        bad.append((str(2 ** 63), "huge"))
    return [Case(v, False, t) for v, t in bad]


def int_cases(lo, hi):
    if hi is None:
        return uint_cases(lo)
    ok = {str(lo), str(hi), str((lo + hi) // 2)}
    cases = [Case(v, True, "valid") for v in sorted(ok)]
    cases += [Case(v, False, "real") for v in ("1.5",)]
    # A leading zero: one spelling per number (bash would read it octal).
    if lo >= 0 and hi >= 7:
        cases.append(Case("00" + str(max(lo, 7)), False, "leading-zero"))
    return cases + _num_bad(lo, hi) + _common()


def uint_cases(lo):
    # Lab scripts: [0-9]+ >= LO, no upper bound promised; a number too
    # big for the shell is still to be refused, not half-checked.
    cases = [Case(v, False, t) for v, t in (("-1", "negative"), ("1.5", "real"))]
    return cases + _num_bad(lo if lo > 0 else None, None) + _common()


def real_cases(lo, hi):
    cases = [Case(v, True, "valid") for v in (str(lo), "1.5", str(hi) if hi else "10")]
    bad = [("1.", "real"), (".5", "real"), ("1.5.5", "real"), ("1e-400", "exponent")]
    if lo == 0:
        bad.append(("-1", "below"))
    cases += [Case(v, False, t) for v, t in bad]
    # No upper bound: a long run of digits is a number like any other.
    num = [c for c in _num_bad(None, hi) if hi is not None or c.tag not in ("huge", "over-long")]
    return cases + num + _common()


def enum_cases(words, extra_int):
    cases = [Case(w, True, "valid") for w in words]
    for w in words[:3]:
        cases += [Case(w.upper(), False, "case"), Case(w + "x", False, "suffix"),
                  Case(w[:-1], False, "prefix"), Case(w + "," + w, False, "duplicate"),
                  Case(" " + w, False, "blank"), Case(w + "\n", False, "control")]
    if extra_int:
        cases += [c for c in int_cases(*extra_int) if c.tag != "empty"]
    cases += [c for c in _common() if c.value.decode("utf-8", "replace") not in words]
    return _dedup(cases)


def list_cases(words):
    cases = [Case(w, True, "valid") for w in words]
    if len(words) > 2:
        cases.append(Case(words[0] + "," + words[2], True, "valid"))
    bad = [(words[0] + "," + words[0], "duplicate"), (words[0] + ",", "empty"),
           ("," + words[0], "empty"), (words[0] + ";" + words[1], "punct"),
           ("9", "above"), ("-1", "negative"), ("ALL", "case")]
    cases += [Case(v, False, t) for v, t in bad]
    return cases + _common()


def range_cases(lo, hi):
    ok = ["%d-%d" % (lo, hi), "%d-%d" % (lo, lo + 1), "32768-60999"]
    bad = [("%d-%d" % (lo - 1, hi), "below"), ("%d-%d" % (lo, hi + 1), "above"),
           ("50000-40000", "reversed"), ("40000-40000", "reversed"), ("40000", "no-dash"),
           ("%d-" % lo, "empty"), ("-%d" % hi, "empty"), ("%d--%d" % (lo, hi), "punct"),
           ("0x401-2000", "hex"), ("%d-%s" % (lo, "9" * 30), "huge"),
           (" %d-%d" % (lo, hi), "blank")]
    return [Case(v, True, "valid") for v in ok] + [Case(v, False, t) for v, t in bad] + _common()


def _dedup(cases):
    seen, out = set(), []
    for c in cases:
        if c.value not in seen:
            seen.add(c.value)
            out.append(c)
    return out


def unique(fix, suffix=".json"):
    return "%s/new-%d%s" % (fix, next(_names), suffix)


def out_cases(fix, stdout_ok, written):
    """Destinations: docs/results.md "Files written"."""
    # A symlink destination is followed: its target is replaced, so each
    # case gets a link and a target of its own.
    target = unique(fix)
    shutil.copy(fix + "/result.json", target)
    link = unique(fix)
    os.symlink(target, link)
    cases = [Case(unique(fix), True, "path-new"), Case(link, True, "path-symlink"),
             Case(unique(fix).rsplit("/", 1)[1], True, "path-relative")]
    cases.append(Case("-", stdout_ok, "path-stdout"))
    bad = [(fix + "/dir", "path-dir"), (fix + "/fifo", "path-fifo"),
           ("/dev/null", "path-device"), ("/dev/full", "path-device"),
           (fix + "/dangling", "path-dangling"), (fix + "/nodir/x.json", "path-missing-dir"),
           ("/proc/self/bindlab-fuzz", "path-proc"), ("/sys/bindlab-fuzz", "path-sys"),
           ("/dev/bindlab-fuzz.json", "path-device"), ("", "empty"),
           (fix + "/dir/", "path-dir"), (fix + "/" + "x" * 300, "over-long")]
    cases += [Case(v, False, t) for v, t in bad + OPTION_LIKE]
    cases.append(Case(fix + "/rodir/x.json", False, "path-read-only", wrap=NO_DAC))
    if written:
        cases.append(Case(unique(fix), False, "rlimit-fsize", wrap=SMALL_FSIZE,
                          expect=write_fails))
        cases.append(Case(unique(fix), False, "rlimit-nofile", wrap=LOW_FD,
                          expect=fd_short))
    return cases


def write_fails(row, r):
    """RLIMIT_FSIZE: the write fails, exit 2 with the errno, no file:
    the machine's error, never a kernel verdict (1)."""
    if r.rc != 2:
        return "RLIMIT_FSIZE 100: exit %s, want 2 (a write error)" % r.rc
    if b"too large" not in r.err.lower():
        return "RLIMIT_FSIZE 100: the error does not carry EFBIG: %r" % r.err[:160]
    return None


def fd_short(row, r):
    """RLIMIT_NOFILE 20: a SKIP with the reason, or a run that fits."""
    if r.rc == 4 and b"SKIP" in r.err or r.rc == 0:
        return None
    return "RLIMIT_NOFILE 20: exit %s, want SKIP 4 or 0: %r" % (r.rc, r.err[:160])


def outdir_cases(fix):
    """Directory destinations: a directory or a new name is fine."""
    cases = [Case(fix + "/dir-ok-%d" % next(_names), True, "path-new")]
    bad = [(fix + "/fifo", "path-fifo"), (fix + "/existing.json", "path-file"),
           ("/dev/null", "path-device"), ("/dev/bindlab-fuzz.d", "path-device"),
           ("/proc/self/bindlab-fuzz", "path-proc"), ("/sys/bindlab-fuzz", "path-sys"),
           (fix + "/dangling", "path-dangling"), ("", "empty"),
           (fix + "/" + "x" * 300, "over-long"),
           # Made, a new directory's ".." is its parent's: refused.
           (fix + "/new-%d/../x" % next(_names), "path-dotdot")]
    cases += [Case(v, False, t) for v, t in bad + OPTION_LIKE]
    cases.append(Case(fix + "/rodir/x", False, "path-read-only", wrap=NO_DAC))
    return cases


def prefix_cases(fix):
    """A PREFIX of files written (PREFIX.svg, PREFIX.png)."""
    bad = [("", "empty"), ("/dev/bindlab-fuzz", "path-device"), ("/proc/self/bindlab-fuzz", "path-proc"),
           (fix + "/nodir/p", "path-missing-dir"), (fix + "/" + "x" * 300, "over-long"),
           (fix + "/dir/", "path-dir")]
    cases = [Case(v, False, t) for v, t in bad + OPTION_LIKE]
    cases.append(Case(fix + "/rodir/p", False, "path-read-only", wrap=NO_DAC))
    return cases


def self_cases(fix):
    """The output is one of the inputs: a copy of a result, named twice."""
    path = "%s/self-%d.json" % (fix, next(_names))
    shutil.copy(fix + "/result.json", path)
    return [Case(path, False, "self")]


def in_cases(fix):
    """Files read: docs/results.md "Files read"."""
    cases = [Case(fix + "/result.json", True, "valid"),
             Case(fix + "/link-existing.json", True, "path-symlink")]
    bad = [(fix + "/dir", "path-dir"), (fix + "/fifo", "path-fifo"),
           ("/dev/zero", "path-device"), ("/dev/null", "path-device"),
           (fix + "/dangling", "path-dangling"), (fix + "/nowhere.json", "path-missing"),
           (fix + "/empty.json", "empty-file"), (fix + "/huge.json", "over-size"),
           ("/proc/self/status", "path-proc"), ("", "empty"),
           (fix + "/" + "x" * 300, "over-long")]
    cases += [Case(v, False, t) for v, t in bad + OPTION_LIKE]
    cases.append(Case(fix + "/unreadable.json", False, "path-unreadable", wrap=NO_DAC))
    return cases


def text_cases(lab=False):
    bad = [] if lab else [("x", "word")]
    bad += [("nosuch.case.name", "no-such"), ("BIND.X.Y", "case"), ("a=b=c", "punct"), ("NAME=", "empty"), ("=FILE", "empty"),
           ("x=skip", "word"), ("x=maybe:y", "word"), ("a.b.c ms lower", "short"),
           ("x y z w v", "word")]
    cases = [Case(v, False, t) for v, t in bad] + _common()
    if lab:
        # A plain word can be a valid name, an empty one the default: a
        # lab script would start work.
        cases = [c for c in cases if c.value and not re.fullmatch(rb"[A-Za-z0-9._-]+", c.value)]
    return cases


# Lab scripts test paths with [ -f ] or [ -d ]: what exists and is of the
# kind they want would start the work, so only the other kinds are tried.
LAB_PATH_BAD = {"path-fifo", "path-dangling", "path-missing", "path-device",
                "empty", "over-long", "path-missing-dir", "option"}


def unknown_opt_cases():
    bad = [("-Z", "unknown-option"), ("-1", "unknown-option"), ("-%", "unknown-option"),
           ("--zzbogus", "unknown-option"), ("--zz=1", "unknown-option"), ("---", "unknown-option"),
           ("-\x01", "control"), ("--\xc3", "non-utf8")]
    return [Case(v.encode("latin-1"), False, t) for v, t in bad]


def word_cases():
    """A kselftest's file name: lower case, digits and _, a letter first."""
    good = ["x", "bind_bhash_test", "p2"]
    bad = [("a.b", "punct"), ("a-b", "punct"), ("A", "case"), ("bind_X", "case"),
           ("1x", "digit-first"), ("_x", "underscore-first"), ("x" * 65, "over-long")]
    return [Case(v, True, "valid") for v in good] + \
        [Case(v, False, t) for v, t in bad] + _common()


def name_cases():
    """Harness filters that select nothing: all fine, all run nothing."""
    v = ["", "nosuch", "nosuch.test.name", "A" * 5000, "\x01", "*", "a b", "-l",
         "bind_addr", "..", "caf\xc3"]
    return [Case(x.encode("latin-1"), True, "name") for x in v]


def _range(g):
    m = re.match(r"(-?\d+)\.\.(-?\d+)?", g)
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


def cases(row, fix, rng):
    cs = _cases(row, fix, rng)
    if row.kind in ("arg", "subcmd"):
        # In an operand's or a subcommand's place an option is an option,
        # maybe a valid one (run.sh --full is the main job): its own row
        # judges it.
        cs = [c for c in cs if c.tag != "option"]
    if row.kind == "env":
        # Unset or empty is a variable's default, whatever its grammar.
        cs = [Case(c.value, True, "valid") if c.value == b"" else c for c in cs]
    return cs


def _cases(row, fix, rng):
    g = row.grammar.split(" ")
    kind = g[0]
    if kind == "int":
        return int_cases(*_range(g[1]))
    if kind == "uint":
        return uint_cases(_range(g[1])[0])
    if kind == "real":
        lo, hi = _range(g[1])
        return real_cases(lo, hi)
    if kind == "enum":
        extra = _range(g[3]) if len(g) > 3 and g[2] == "int" else None
        return enum_cases(g[1].split("|"), extra)
    if kind == "list":
        words = g[1].split("|") + g[2:3]
        return list_cases([w for w in words if w != "names"])
    if kind == "range":
        return range_cases(*_range(g[1]))
    if kind == "outdir":
        return outdir_cases(fix)
    if kind == "self":
        return self_cases(fix)
    if kind == "prefix":
        return prefix_cases(fix)
    if kind in ("out", "out-"):
        return out_cases(fix, kind == "out-", row.mode == "real" and "written" in row.input)
    if kind in ("in", "indir"):
        cs = in_cases(fix)
        if row.mode == "lab":
            # Empty is the default for an optional directory.
            want = LAB_PATH_BAD | ({"path-dir"} if kind == "in" else set())
            want -= {"empty"} if kind == "indir" else set()
            cs = [c for c in cs if c.tag in want]
        return cs
    lab = row.mode == "lab"
    if kind == "word":
        return word_cases()
    if kind == "name":
        if row.kind == "harness":
            return name_cases()
        # "--" ends the options: in an operand's place it is no value.
        return [c for c in text_cases(lab) if row.kind != "arg" or c.value != b"--"]
    if kind == "never":
        if "unknown" in row.input or row.kind == "harness" or "(option)" in row.input:
            return unknown_opt_cases()
        # "--" ends the options: after it, nothing is an option.
        return [c for c in _common() + text_cases(lab) if c.value != b"--"]
    return text_cases(lab)
