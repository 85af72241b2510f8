#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The names of a kselftest program, as its -l prints them, against the
grammar of docs/results.md ("Test names"). Reads the -l output on stdin,
prints one line per name ("ok NAME" or "bad NAME: why"), exits 1 when a
name breaks the grammar or no name was read at all."""

import re
import sys

import os

WORD = r'[a-z0-9]+'
WORDS = WORD + r'(?:_' + WORD + r')*'
VOCAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib',
                     'vocab.c')


def vocab(table, column=0):
    """The words of one name table of lib/vocab.c (the one place they
    are written): the column-th quoted string of each '[X] = ...' line."""
    words, inside = [], False
    with open(VOCAB) as f:
        for line in f:
            if re.match(r'const .*\b%s\[' % table, line):
                inside = True
            elif inside and line.startswith('};'):
                break
            elif inside and re.match(r'\s*\[\w+\] = ', line):
                words.append(re.findall(r'"([^"]*)"', line)[column])
    if not words:
        sys.exit('no table %s in %s' % (table, VOCAB))
    return words


def alt(words):
    return '(?:%s)' % '|'.join(sorted(words, key=len, reverse=True))


ADDR = alt(vocab('bl_addr_words'))
FAMILY = alt(vocab('bl_family_words') + ['mixed'])
STATE = alt(vocab('bl_state_words'))
# A's and B's reuse option, or a bound device.
VALUE = alt(vocab('bl_reuse_words', 0) + ['lo', 'other'])
CASE_REUSE = alt(w for w in vocab('bl_reuse_words', 1) if w != 'plain')
RULE = alt(vocab('bl_rule_words'))
PORT_RULE = alt(vocab('bl_port_rule_words'))
SIDE_FACT = r'(?:uid|port0)_[abc]'
GROUP = r'(?:dev|first|guard)'

# One rule per fixture: a new fixture states its grammar here.
VARIANTS = {
    # [FAMILY_][FACT_SIDE_|GROUP_]STATE_A_B[_C][_QUALIFIER...]
    'bind_conflict': r'(?:%s_)?(?:%s_|%s_)?%s(?:_%s){2,3}(?:_%s)*' % (
        FAMILY, SIDE_FACT, GROUP, STATE, VALUE, WORD),
    'bind_addr': ADDR + '__' + ADDR,
    'bind_fastreuse': r'(?:v4|v6)_%s_(?:same|alternate)(?:_port0)?' % CASE_REUSE,
    'bind_bhash2': r'(?:v4|v6)',
    # [FAMILY_]PORT_RULE[_QUALIFIER...]
    'port_choice': r'(?:%s_)?%s(?:_%s)*' % (FAMILY, PORT_RULE, WORD),
    'tw_reuse': r'reuse[012]_%s_%s' % (FAMILY, WORDS),
    'tw_bind': r'reuse[012]_%s_%s' % (FAMILY, WORDS),
    'tw_sysctl': r'(?:reuse|delay|unpriv_start)_(?:minus_)?[0-9]+|'
                 r'port_range_[0-9]+_[0-9]+',
    'bind_model': ADDR,
    'model_rules': RULE,
    'model_rows': RULE,
    'model_upstream': '',
    # the name of a bug documented at known_bug() in model_judge.h
    'known_bug': WORDS,
    'global': '',
}
# Family words of no other spelling, wherever they stand.
FORBIDDEN = re.compile(r'(?:^|_)(?:ipv4|ipv6|inet6?|mapped|v4mapped)(?:_|$)')


def parse(lines):
    """fixture.variant.test names from the harness's -l table: columns
    at 0, 21 and after the variant (at least 25 wide)."""
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


def check(fixture, variant, test):
    if fixture not in VARIANTS:
        return 'fixture %s has no grammar in tests/test_names.py' % fixture
    for part in (fixture, test):
        if not re.fullmatch(WORDS, part):
            return '%s is not lowercase words joined by _' % part
    if not re.fullmatch(VARIANTS[fixture], variant):
        return 'variant %s breaks the grammar of %s' % (variant, fixture)
    if variant and '__' not in VARIANTS[fixture] and not re.fullmatch(WORDS, variant):
        return 'variant %s is not lowercase words joined by _' % variant
    for part in variant.split('__') if variant else []:
        if FORBIDDEN.search(re.sub(r'v6_v4mapped', 'v6-v4mapped', part)):
            return 'variant %s spells a family outside v4, v6, v6_v4mapped, mixed' % variant
    return None


def main():
    names = parse(sys.stdin)
    bad = 0
    for f, v, t in names:
        name = '.'.join(x for x in (f, v, t) if x)
        why = check(f, v, t)
        if why:
            bad += 1
            print('bad %s: %s' % (name, why))
        else:
            print('ok %s' % name)
    if not names:
        print('bad: no test names read')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
