#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The test names of a kselftest_harness.h program, from its -l table on
stdin: one FIXTURE.VARIANT.TEST (FIXTURE.TEST without variants) a line.
Exit 1 when no name was read. The host side's one reader of -l; the
device side has its own in POSIX sh (lava/bindlab-lava.sh names), held
equal to this one by tests/lava_test.sh."""

import sys


def parse(lines):
    """(fixture, variant, test) from the harness's -l table: columns at
    0, 21 and after the variant (at least 25 wide)."""
    fixture, variants, tests = None, [], []
    out = []

    def flush():
        for v in variants or ['']:
            for t in tests:
                out.append((fixture, v, t))

    for line in lines:
        line = line.rstrip('\n')
        if line.startswith('# FIXTURE') or line.startswith('-----') or not line.strip():
            continue
        if not line.startswith(' '):
            if fixture is not None:
                flush()
            fixture = line.split()[0]
            variants, tests = [], []
            vcol = max(20, len(fixture)) + 1
        else:
            vcol = 21
        var = ''
        if len(line) > vcol and line[vcol] != ' ':
            var = line[vcol:].split()[0]
        tcol = vcol + max(25, len(var)) + 1
        test = line[tcol:].strip()
        if var:
            variants.append(var)
        if test:
            tests.append(test)
    if fixture is not None:
        flush()
    return out


def main():
    names = parse(sys.stdin)
    for f, v, t in names:
        print('.'.join(x for x in (f, v, t) if x))
    return 0 if names else 1


if __name__ == '__main__':
    sys.exit(main())
