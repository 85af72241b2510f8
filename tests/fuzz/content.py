# SPDX-License-Identifier: GPL-2.0
"""Mutated files of the formats the project reads (tests/inputs.tsv rows
of kind "file"), each written into the fixture directory, as cases.

Some mutations always break the format: those cases are invalid and the
row's promise applies (a refusal with one line, or never a pass). The
others may or may not be valid: they are judged "any" (no crash, no hang,
a clean exit, one line if refused).
"""
import itertools
import json
import random
import subprocess

from values import Case

_n = itertools.count()


def _write(fix, data, suffix):
    path = "%s/mut-%d%s" % (fix, next(_n), suffix)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _json_paths(doc, path=()):
    """Every (path, value) of a JSON document."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _json_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:3]):
            yield from _json_paths(v, path + (i,))


def _set(doc, path, value):
    doc = json.loads(json.dumps(doc))
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


def _wrong_type(v, rng):
    """A value of another JSON type than v."""
    options = ["x", 1.5, -1, None, True, [], {}, "9" * 400, 1e300]
    options = [o for o in options if type(o) is not type(v)]
    return rng.choice(options)


def json_cases(fix, base, rng, required):
    """Mutations of a JSON file. required: paths whose breaking is refused."""
    with open(base, encoding="utf-8") as f:
        doc = json.load(f)
    raw = json.dumps(doc).encode()
    # A key of the first object given twice (its first "{" in raw): the
    # document's own, so that this is a duplicate and not an extra key.
    first = next(iter(doc if isinstance(doc, dict) else doc[0]))
    dup_key = raw.replace(b"{", b"{" + json.dumps(first).encode() + b": \"x\", ", 1)
    out = [(b"", False, "empty-file"), (b"{", False, "truncated"),
           (raw[:len(raw) // 2], False, "truncated"), (b"\xef\xbb\xbf" + raw, None, "bom"),
           (dup_key, False, "duplicate-key"),
           (b"[" * 100000 + b"]" * 100000, False, "deep-nesting"),
           (raw + b"\x00", None, "nul"), (b"null", False, "wrong-type"),
           (json.dumps([doc]).encode(), False, "wrong-type")]
    for path in required:
        for bad in ("", "a b\x01", None, {}, -1, float("nan")):
            try:
                d = _set(doc, path, bad)
            except (KeyError, IndexError, TypeError):
                continue
            tag = "control" if isinstance(bad, str) and "\x01" in bad else "wrong-type"
            out.append((json.dumps(d).encode(), False, tag))
    paths = [p for p, _ in _json_paths(doc) if p]
    for p in rng.sample(paths, min(12, len(paths))):
        node = doc
        for k in p:
            node = node[k]
        d = _set(doc, p, _wrong_type(node, rng))
        out.append((json.dumps(d).encode(), None, "wrong-type-any"))
    for i in range(4):
        b = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        out.append((bytes(b), None, "bit-flip"))
    return [Case(_write(fix, data, ".json"), valid is None, tag) for data, valid, tag in out]


def ktap_cases(fix, rng):
    """KTAP: a plan met only by distinct ok results is a pass."""
    good = b"TAP version 13\n1..3\nok 1 a.b.c\nok 2 a.b.d\nok 3 a.b.e\n"
    # A line over BL_KTAP_LINE_MAX (4096) is refused, never split.
    long_tail = b"# " + b"x" * 5000 + b"ok 3 a.b.e\n"
    out = [(good, True, "valid"),
           (b"TAP version 13\n1..3\nok 1 a.b.c\nok 1 a.b.c\nok 1 a.b.c\n", False, "duplicate"),
           (b"TAP version 13\n1..3\nok 1 a.b.c\nok 2 a.b.d\n" + long_tail, False, "over-long"),
           (b"TAP version 13\n1..3\nok 1 a.b.c\nok 2 a.b.d\n", False, "short-plan"),
           (b"TAP version 13\nok 1 a.b.c\n", False, "no-plan"),
           (b"", False, "empty-file"),
           (good.replace(b"ok 2", b"not ok 2"), False, "failure"),
           (good.replace(b"1..3", b"1..99999999999999999999"), False, "huge"),
           (good.replace(b"1..3", b"1..-3"), False, "negative"),
           # A NUL byte, an unended last line: refused (docs/results.md "Reading KTAP").
           (good + b"\x00\x01\x1b[2J", False, "control"),
           (good.replace(b"\n", b"\r\n"), None, "crlf"),
           (good.replace(b"a.b.d", b"a.b.d\x1b[2J"), None, "control")]
    return [Case(_write(fix, d, ".ktap"), v is not False, t) for d, v, t in out]


def cases_table_cases(fix, base, rng):
    """The case table: a bad row stops every reader."""
    with open(base, "rb") as f:
        raw = f.read()
    rows = [l for l in raw.split(b"\n") if l and not l.startswith(b"#")]
    row = rows[0]
    bad = [(raw + row + b"\n", "duplicate"), (raw + b"x.y.z ms lower program 1 1 bind_bench\n", "no-json"),
           (raw + row.replace(b"ms", b"m s!", 1) + b"\n", "wrong-type"),
           (raw.replace(b"\n", b"\r\n"), "crlf"), (b"", "empty-file"),
           (raw + row.replace(b"4000", b"0", 1) + b"\n", "below"),
           (raw + row.replace(b"4000", b"99999999999", 1) + b"\n", "huge"),
           (raw + b"A" * 2000000 + b"\n", "over-long"),
           (raw + row.replace(b"bind_bench", b"../bind_bench", 1) + b"\n", "path"),
           (raw + row.replace(b"{N}", b"{N}{N}", 1) + b"\n", "placeholder"),
           (raw + row.replace(b"program", b"$(id)", 1) + b"\n", "shell"),
           (raw + b"\x00" * 100 + b"\n", "nul")]
    out = [Case(base, True, "valid")]
    out += [Case(_write(fix, d, ".cases"), False, t) for d, t in bad]
    # Comment lines, so that only a size limit stops the reader: 50 MB of
    # them keep a shell's read loop busy for minutes.
    out.append(Case(_write(fix, raw + b"#\n" * 25000000, ".cases"), False, "over-size"))
    return out


def lava_cases(fix, base, rng):
    with open(base, encoding="utf-8") as f:
        doc = json.load(f)
    bench = [r for r in doc if ".sample" in r.get("case", "")]
    # LAVA's own records ("lava") are ignored: break a kselftest's.
    k = next(i for i, r in enumerate(doc) if r.get("definition") != "lava")
    out = json_cases(fix, base, rng, [(k, "result"), (k, "case")])
    dup = doc + doc[k:k + 1]
    bad = [(dup, "duplicate")]
    if bench:
        gap = [r for r in doc if r is not bench[0]]
        unit = [dict(r, units="s") if r is bench[0] else r for r in doc]
        bad += [(gap, "gap"), (unit, "wrong-unit")]
    # Two jobs in one import: another job's records, a result changed.
    other = [dict(r) for r in doc]
    other[k]["result"] = "fail" if other[k]["result"] == "pass" else "pass"
    bad.append((doc + other, "two-jobs"))
    for d, t in bad:
        out.append(Case(_write(fix, json.dumps(d).encode(), ".json"), False, t))
    # Part of a job: imported, but its summary must not pass.
    job = [r for r in doc if r.get("definition") == "lava"]
    part = [(job, "job-only"), ([r for r in doc if r not in bench], "no-samples"),
            (job + [r for r in doc if r.get("result") == "pass"][:3], "three-passes")]
    for d, t in part:
        out.append(Case(_write(fix, json.dumps(d).encode(), ".json"), False, t,
                        expect=summary_fails))
    return out


# The project's results tool (set by inputs_fuzz.py): it judges imports.
RESULTS = "bindlab_results"


def summary_fails(row, r):
    """A partial import: refused, or imported and its summary fails."""
    if r.rc != 0:
        return None if r.rc in (1, 2, 4) else "exit %s" % r.rc
    s = subprocess.run([RESULTS, "summary", r.out_path], capture_output=True, timeout=10)
    if s.returncode == 0:
        return "a partial job's import passes its summary"
    return None


def table_cases(fix, base, rng):
    """The mutation table (kernel/mutants.py): validated whole when read,
    any fault an error (exit 2, one line), never a score."""
    with open(base, encoding="utf-8") as f:
        doc = json.load(f)
    out = json_cases(fix, base, rng, [("mutants", 0, "verdict"), ("mutants", 0, "id"),
                                      ("mutants", 0, "tree"), ("mutants",), ("about",)])
    row = doc["mutants"][0]

    def with_rows(rows):
        return dict(doc, mutants=rows)
    bad = [(with_rows(doc["mutants"] + [row]), "duplicate"),
           (with_rows([dict(row, verdict="survived ")] + doc["mutants"][1:]), "padded"),
           (with_rows([dict(row, verdict="zombie")] + doc["mutants"][1:]), "unknown-word"),
           (with_rows([dict(row, tree="0000000")] + doc["mutants"][1:]), "other-tree"),
           (with_rows([dict(row, verdict="survived")] + doc["mutants"][1:]), "survivor-with-test"),
           ({"mutants": doc["mutants"]}, "no-about")]
    for d, t in bad:
        out.append(Case(_write(fix, json.dumps(d).encode(), ".json"), False, t))
    out.append(Case(fix + "/no-such-table.json", False, "path-missing"))
    return out


def cases(row, fix, rng):
    fmt = row.input
    if fmt == "result":
        return json_cases(fix, fix + "/result.json", rng,
                          [("metric", "samples"), ("case",), ("metric", "unit"), ("schema",)])
    if fmt == "run":
        return json_cases(fix, fix + "/run.json", rng,
                          [("cases", 0, "metric", "samples"), ("cases", 0, "case"), ("cases",), ("schema",)])
    if fmt == "ktap":
        return ktap_cases(fix, rng)
    if fmt == "cases":
        return cases_table_cases(fix, fix + "/cases", rng)
    if fmt == "lava-json":
        return lava_cases(fix, fix + "/lava.json", rng)
    if fmt == "mutants-table":
        return table_cases(fix, fix + "/table.json", rng)
    return []
