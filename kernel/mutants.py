#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutants of the kernel's bind path, and the table of their verdicts.

  mutants.py gen TREE OUTDIR       write OUTDIR/mutants.json and one patch
                                   per mutant, OUTDIR/patches/ID.patch
  mutants.py reach ID MANIFEST     the programs the mutant's function can
                                   reach first: "PROGRAM [FILTER...]" lines
  mutants.py record TABLE MANIFEST ID K=V...
                                   add (or replace) the mutant's row, with
                                   its line from MANIFEST; rewrite TABLE
                                   (JSON) and TABLE's .txt
  mutants.py about TABLE K=V...    what the table was made of (kernel,
                                   project commit)
  mutants.py rest                  the programs of stage 2
  mutants.py summary TABLE         the score, and median and spread of
                                   each mutant's build, boot and verdict
  mutants.py done TABLE            the ids that have a verdict

Operators, as mutation testing uses them, applied textually to one line
of one listed function of the tree: negate an if's condition, replace
it with true or false, drop a continue/return/goto/break, swap && and
||, move a bound by one (< <= > >=), flip a boolean argument of a call
(ignore what the caller passes). Each mutant changes exactly one line;
the id names the function, the line and the operator."""

import difflib
import json
import os
import re
import sys
import tempfile

# The functions on the bind path, by file; and what each reaches first.
# Stage 1 runs these in turn and stops at the first that fails; the rest
# of the collection runs only when they all pass. Cheapest first: under
# TCG on 6.12, port_choice takes 3 s, bind_conflict and bind_addr 22 s,
# tw_reuse_loopback 65 s.
PC = ['bind_bhash_test', '-f', 'port_choice']
PORT = [PC, ['bind_bhash_test', '-f', 'bind_conflict', '-f', 'bind_addr']]
CONFLICT = [PC, ['bind_bhash_test', '-f', 'bind_conflict', '-f', 'bind_addr']]
FAST = [['bind_bhash_test', '-f', 'bind_conflict'], ['bind_fastreuse']]
TW = [PC, ['tw_reuse_loopback']]
ICSK = 'net/ipv4/inet_connection_sock.c'
HASH = 'net/ipv4/inet_hashtables.c'
TARGETS = [
    (ICSK, 'inet_csk_find_open_port', PORT),
    (ICSK, 'inet_csk_get_port', CONFLICT),
    (HASH, '__inet_hash_connect', PORT),
    (ICSK, 'inet_bind_conflict', CONFLICT),
    (ICSK, 'inet_csk_bind_conflict', CONFLICT),
    (ICSK, 'inet_csk_update_fastreuse', FAST),
    (ICSK, 'sk_reuseport_match', FAST),
    (ICSK, 'inet_bhash2_addr_any_conflict', CONFLICT),
    (ICSK, '__inet_bhash2_conflict', CONFLICT),
    (HASH, '__inet_check_established', TW),
    ('net/ipv4/tcp_ipv4.c', 'tcp_twsk_unique', TW),
    (ICSK, 'inet_sk_get_local_port_range', PORT),
    (HASH, 'inet_bind2_bucket_match_addr_any', CONFLICT),
    (HASH, 'inet_bind2_bucket_addr_match', CONFLICT),
    (ICSK, 'inet_bhash2_conflict', CONFLICT),
    (HASH, 'inet_bind2_bucket_find', CONFLICT),
]
# The whole collection after stage 1, on a slow machine's sizes.
REST = [['bind_bhash_test'], ['bind_fastreuse'], ['tw_reuse_loopback'],
        ['bind_model_test']]


def die(msg):
    sys.stderr.write('mutants.py: %s\n' % msg)
    sys.exit(2)


def function_lines(lines, name):
    """[first, last] line indexes of name's definition: its head at
    column 0, the body up to the first '}' at column 0."""
    head = re.compile(r'^(?:[A-Za-z_].*[\s\*])?%s\(' % re.escape(name))
    for i, line in enumerate(lines):
        if not head.match(line) or line.rstrip().endswith(';'):
            continue
        j = i
        while j < len(lines) and lines[j].rstrip() != '{':
            if lines[j].rstrip().endswith(';'):
                break
            j += 1
        if j == len(lines) or lines[j].rstrip() != '{':
            continue
        for k in range(j, len(lines)):
            if lines[k].rstrip() == '}':
                return j + 1, k - 1
    die('no function %s' % name)


def balanced_if(line):
    """The condition of an 'if (...)' that closes on this line, as
    (start, end) of the text inside the parentheses, or None."""
    m = re.search(r'\bif \(', line)
    if not m:
        return None
    depth, start = 0, m.end() - 1
    for i in range(start, len(line)):
        if line[i] == '(':
            depth += 1
        elif line[i] == ')':
            depth -= 1
            if not depth:
                return start + 1, i
    return None


REL = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}


def line_mutants(line):
    """(operator, mutated line) for every mutant of one line."""
    out = []
    s = line.strip()
    if not s or s.startswith(('/*', '*', '#', '//')) or 'WARN_ON' in s:
        return out
    cond = balanced_if(line)
    if cond:
        a, b = cond
        c = line[a:b]
        out.append(('negate', line[:a] + '!(' + c + ')' + line[b:]))
        out.append(('cond_true', line[:a] + '1' + line[b:]))
        out.append(('cond_false', line[:a] + '0' + line[b:]))
    m = re.match(r'^(\s*)(continue|break|return\b[^;]*|goto \w+);\s*$', line)
    if m and not cond:
        out.append(('drop', m.group(1) + ';\n'))
    for m in re.finditer(r'&&|\|\|', line):
        swap = '||' if m.group() == '&&' else '&&'
        out.append(('swap_and_or', line[:m.start()] + swap + line[m.end():]))
    for m in re.finditer(r' (<=|>=|<|>) ', line):
        out.append(('off_by_one', line[:m.start(1)] + REL[m.group(1)] +
                    line[m.end(1):]))
    if '(' in s and not cond and not s.startswith(('if', 'for', 'while')):
        for m in re.finditer(r'(?<=[(, ])(true|false)(?=[,)])', line):
            flip = 'false' if m.group() == 'true' else 'true'
            out.append(('flip_arg', line[:m.start()] + flip + line[m.end():]))
    return out


def gen(tree, outdir):
    os.makedirs(os.path.join(outdir, 'patches'), exist_ok=True)
    per_func = []
    for path, func, _ in TARGETS:
        with open(os.path.join(tree, path)) as f:
            lines = f.readlines()
        first, last = function_lines(lines, func)
        muts = []
        comment = False
        for i in range(first, last + 1):
            # Lines of a block comment are no code, whatever they say.
            inside = comment or lines[i].strip().startswith('/*')
            if comment or '/*' in lines[i]:
                comment = '*/' not in lines[i].split('/*')[-1]
            if inside:
                continue
            seen = {}
            for op, new in line_mutants(lines[i]):
                n = seen[op] = seen.get(op, 0) + 1
                mid = '%s.L%d.%s%s' % (func, i + 1, op,
                                       '' if n == 1 else '.%d' % n)
                mutated = lines[:i] + [new] + lines[i + 1:]
                patch = ''.join(difflib.unified_diff(
                    lines, mutated, 'a/' + path, 'b/' + path, n=3))
                with open(os.path.join(outdir, 'patches', mid + '.patch'),
                          'w') as f:
                    f.write(patch)
                muts.append({'id': mid, 'file': path, 'function': func,
                             'line': i + 1, 'operator': op,
                             'original': lines[i].strip(),
                             'mutated': new.strip()})
        per_func.append(muts)
    # Functions taken in turn: a run cut short still covers each of them.
    order = []
    while any(per_func):
        for muts in per_func:
            if muts:
                order.append(muts.pop(0))
    write_json(os.path.join(outdir, 'mutants.json'), order)
    print('%d mutants of %d functions in %s' % (len(order), len(TARGETS),
                                                outdir))


def write_json(path, obj):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.mutants.')
    with os.fdopen(fd, 'w') as f:
        json.dump(obj, f, indent=1)
        f.write('\n')
    os.rename(tmp, path)


def load(path, default):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def reach(mid, manifest):
    m = [x for x in load(manifest, []) if x['id'] == mid]
    if not m:
        die('no mutant %s in %s' % (mid, manifest))
    for path, func, first in TARGETS:
        if func == m[0]['function']:
            for cmd in first:
                print(' '.join(cmd))
            return
    die('no stage 1 for %s' % m[0]['function'])


VERDICTS = ('killed', 'survived', 'build-failed', 'timed-out')
TEXT_COLS = ('id', 'verdict', 'killed_by', 'build_s', 'boot_s', 'verdict_s',
             'original', 'mutated')


def record(table, manifest, mid, pairs):
    t = load(table, {'mutants': []})
    m = [x for x in load(manifest, []) if x['id'] == mid]
    if not m:
        die('no mutant %s in %s' % (mid, manifest))
    row = dict(m[0])
    for p in pairs:
        k, _, v = p.partition('=')
        if not k or not _:
            die('not KEY=VALUE: %s' % p)
        row[k] = v
    if row.get('verdict') not in VERDICTS:
        die('verdict must be one of %s' % ', '.join(VERDICTS))
    for k in ('build_s', 'boot_s', 'verdict_s', 'stages'):
        if k in row:
            row[k] = float(row[k])
    row['killed_by'] = [x for x in row.get('killed_by', '').split(',') if x]
    t['mutants'] = [x for x in t['mutants'] if x['id'] != mid] + [row]
    write_json(table, t)
    write_text(table, t)


def write_text(table, t):
    counts = {v: 0 for v in VERDICTS}
    for r in t['mutants']:
        counts[r['verdict']] += 1
    lines = ['# %s' % '; '.join('%s %s' % (k, v) for k, v in
                                t.get('about', {}).items()),
             '# ' + ', '.join('%s %d' % kv for kv in counts.items())]
    for r in t['mutants']:
        cells = []
        for c in TEXT_COLS:
            v = r.get(c, '')
            if isinstance(v, list):
                v = ','.join(v) or '-'
            elif isinstance(v, float):
                v = '%.1f' % v
            cells.append(str(v) if v != '' else '-')
        lines.append('\t'.join(cells))
    txt = re.sub(r'\.json$', '', table) + '.txt'
    with open(txt + '.tmp', 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.rename(txt + '.tmp', txt)


def about(table, pairs):
    t = load(table, {'mutants': []})
    t.setdefault('about', {})
    for p in pairs:
        k, _, v = p.partition('=')
        t['about'][k] = v
    write_json(table, t)
    write_text(table, t)


def spread(vals):
    v = sorted(vals)
    if not v:
        return 'none'
    mid = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                             v[len(v) // 2]) / 2
    return 'median %.1f s (%.1f..%.1f, n=%d)' % (mid, v[0], v[-1], len(v))


def summary(table):
    t = load(table, {'mutants': []})
    rows = t['mutants']
    counts = {v: sum(r['verdict'] == v for r in rows) for v in VERDICTS}
    judged = counts['killed'] + counts['survived']
    print('%d mutants: %s' % (len(rows), ', '.join(
        '%s %d' % kv for kv in counts.items())))
    if judged:
        print('score: %d of %d killed (%.0f%%), build failures and timeouts'
              ' apart' % (counts['killed'], judged,
                          100.0 * counts['killed'] / judged))
    built = [r for r in rows if r['verdict'] != 'build-failed']
    for k in ('build_s', 'boot_s', 'verdict_s'):
        print('%s: %s' % (k, spread([r[k] for r in built if k in r])))
    cyc = [r['build_s'] + r['boot_s'] + r['verdict_s'] for r in built
           if r.get('stages') == 1 and 'build_s' in r]
    print('cycle (stage 1 only): %s' % spread(cyc))


def main(argv):
    if len(argv) < 2:
        die('usage: mutants.py gen|reach|record|done|about ...')
    cmd, args = argv[1], argv[2:]
    if cmd == 'gen' and len(args) == 2:
        gen(*args)
    elif cmd == 'reach' and len(args) == 2:
        reach(*args)
    elif cmd == 'rest' and not args:
        for c in REST:
            print(' '.join(c))
    elif cmd == 'record' and len(args) >= 4:
        record(args[0], args[1], args[2], args[3:])
    elif cmd == 'about' and len(args) >= 2:
        about(args[0], args[1:])
    elif cmd == 'summary' and len(args) == 1:
        summary(args[0])
    elif cmd == 'done' and len(args) == 1:
        for r in load(args[0], {'mutants': []})['mutants']:
            print(r['id'])
    else:
        die('bad arguments; see the head of this file')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
