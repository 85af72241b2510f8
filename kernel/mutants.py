#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutants of the kernel's bind path, and the table of their verdicts.

  mutants.py functions TREE        the bind path's functions in TREE, as
                                   derived (below): file, function, its
                                   mutants, the entry points reaching it
  mutants.py files                 the files mutants change
  mutants.py gen TREE OUTDIR       write OUTDIR/mutants.json and one patch
                                   per mutant, OUTDIR/patches/ID.patch
  mutants.py reach ID MANIFEST     the programs the mutant's function can
                                   reach first: "PROGRAM [FILTER...]" lines
  mutants.py rest                  the programs of stage 2
  mutants.py record TABLE MANIFEST ID K=V...
                                   add (or replace) the mutant's row, with
                                   its line from MANIFEST; rewrite TABLE
                                   (JSON) and TABLE's .txt
  mutants.py about TABLE K=V...    what the table was made of (kernel,
                                   tree, project commit)
  mutants.py argue TABLE ID TEXT   mark survivor ID equivalent, TEXT the
                                   argument a reviewer checks
  mutants.py summary TABLE         the score, and median and spread of
                                   each mutant's build, boot and verdict
  mutants.py todo MANIFEST TABLE   the manifest's ids that have no row in
                                   TABLE yet, in the manifest's order

The functions are derived from the tree: a walk of the call graph from
the entry points of a TCP socket's bind, connect, listen, accept, close
and TIME_WAIT (ROOTS) and from the handlers of the bind path's sysctls
(SYSCTLS), over FILES (of BRIDGES, the entry points only). An edge is a
function's name in a body (a call, or a callback passed) or a call
->MEMBER( that one of TCP's operation tables (OPS) sets. STOP leaves out
TCP-MD5/AO and request sockets by name.

Operators, as mutation testing uses them, applied textually to one
function of the tree: negate an if's condition, replace it with true or
false (the whole condition, also when it spans lines), drop a
continue/return/goto/break, drop a call made as a statement of its own
(not locks, RCU, reference counts, frees; never the rest of an
expression or a function's last return, which do not build), swap &&
and ||, move a bound by one (< <= > >=), flip a boolean argument of a
call (ignore what the caller passes). Each mutant changes one line, or one if's condition; the
id names the function, the (first) line and the operator.

The table is validated whole whenever it is read: a missing or corrupt
table, a row of another tree, an unknown verdict, a duplicate id (one
spelling only, its row's function, line and operator), a killed row
with no test or a survivor with one, a test killing it named twice, a
first, via or clock that is none of gen's or mutate.sh's, a text of
more than one line are errors (exit 2, one line), never a score. Every
file is written to a temporary beside it and renamed."""

import difflib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile

# What a mutant's function reaches first, by the entry point it was
# reached from. Stage 1 runs these in turn and stops at the first that
# fails; the rest of the collection runs only when they all pass.
# Cheapest first: under TCG on 6.12, port_choice takes 3 s, bind_conflict
# and bind_addr 22 s, tw_reuse_loopback 65 s.
PC = ['bind_bhash_test', '-f', 'port_choice']
BIND = [PC, ['bind_bhash_test', '-f', 'bind_conflict', '-f', 'bind_addr']]
FAST = [['bind_bhash_test', '-f', 'bind_conflict'], ['bind_fastreuse']]
TW = [PC, ['tcp_tw_reuse'], ['tw_reuse_loopback']]

# The function list is derived from the tree, not written here: a walk
# of the call graph from the entry points below, over the files a TCP
# socket's bind, connect, listen, accept, close and TIME_WAIT run through.
# A function is an edge target when its name appears in a body (a call,
# or a callback passed, as __inet_check_established to
# __inet_hash_connect), or when a body calls ->MEMBER( and one of TCP's
# operation tables sets .MEMBER to it. Functions are found as a head at
# column 0 and a body from a '{' to a '}' at column 0 (kernel style).
# The four headers hold the static inline checks those files call: which
# address bind() takes (inet_addr_valid_or_nonlocal, ipv6_can_nonlocal_bind),
# which port needs privilege or is reserved, whether bhash2 decides. A
# mutant there rebuilds all of net/ (minutes, not seconds).
FILES = ['net/ipv4/af_inet.c', 'net/ipv4/inet_connection_sock.c',
         'net/ipv4/inet_hashtables.c', 'net/ipv4/inet_timewait_sock.c',
         'net/ipv4/tcp_ipv4.c', 'net/ipv4/sysctl_net_ipv4.c',
         'net/ipv6/af_inet6.c', 'net/ipv6/inet6_hashtables.c',
         'include/net/inet_sock.h', 'include/net/ip.h', 'include/net/ipv6.h',
         'include/net/inet_hashtables.h']
# Files of entry points only: an entry point there is mutated and walked
# one call deep, the rest of the file (TCP's state machine) is not.
BRIDGES = ['net/ipv6/tcp_ipv6.c', 'net/ipv4/tcp_minisocks.c']
# The files a mutant may change.
MUTATED = FILES + BRIDGES
OPS = ('inet_stream_ops', 'inet6_stream_ops', 'tcp_prot', 'tcpv6_prot',
       'ipv4_specific', 'ipv6_specific')
# Entry point, the programs that see it first. tcp_close() itself (in
# tcp.c, the whole TCP state machine) is not walked: its port and hash
# work is inet_release()'s ->close, tcp_set_state()'s ->unhash and
# inet_put_port(), and tcp_time_wait()'s hash dance, reached from here.
ROOTS = [
    ('inet_bind', BIND), ('inet6_bind', BIND), ('inet_listen', BIND),
    ('inet_stream_connect', BIND), ('tcp_v6_connect', BIND),
    ('tcp_v4_syn_recv_sock', BIND), ('tcp_v6_syn_recv_sock', BIND),
    ('inet_release', TW), ('inet6_release', TW), ('tcp_time_wait', TW),
]
# The sysctls of the bind path whose handlers live in sysctl_net_ipv4.c
# (their ctl_table rows name the handler): entry points of their own.
SYSCTLS = ('ip_local_port_range', 'ip_unprivileged_port_start')
SYSCTL_FIRST = [PC, ['tw_reuse_loopback', '-f', 'tw_sysctl']]
# Reached, but no decision of the bind path: TCP-MD5/AO keys copied to a
# child, the SYN queue's request sockets. Left out by name.
STOP = re.compile(r'md5|(?:^|_)ao_|reqsk')
# Functions whose first programs are not their entry point's.
FIRST = {'inet_csk_update_fastreuse': FAST, 'sk_reuseport_match': FAST}
# The whole collection after stage 1, on a slow machine's sizes.
REST = [['bind_bhash_test'], ['bind_fastreuse'], ['tcp_tw_reuse'],
        ['tw_reuse_loopback'], ['bind_model_test']]


def die(msg):
    # One line, whatever a table carried: its control characters escaped.
    msg = ''.join(c if c.isprintable() else '\\x%02x' % ord(c) for c in msg)
    sys.stderr.write('mutants.py: %s\n' % msg)
    sys.exit(2)


def definitions(tree, paths):
    """{name: (path, [first, last] body line indexes)} of the functions
    defined in paths, and {member: {function}} of TCP's operation tables
    (OPS) there."""
    defs, ops = {}, {}
    for path in paths:
        with open(os.path.join(tree, path), encoding='utf-8',
                  errors='replace') as f:
            lines = f.read().split('\n')
        table = None
        for i, line in enumerate(lines):
            m = re.match(r'^(?:static )?(?:const )?struct \w+ (\w+) = \{',
                         line)
            if m:
                table = m.group(1) if m.group(1) in OPS else None
            elif line.startswith('}'):
                table = None
            m = re.match(r'^\s*\.(\w+)\s*=\s*&?(\w+),?\s*$', line)
            if m and table:
                ops.setdefault(m.group(1), set()).add(m.group(2))
            if line.rstrip() != '{':
                continue
            for j in range(i - 1, max(i - 8, -1), -1):
                head = lines[j]
                if head[:1] in ('', ' ', '\t', '#', '}', '/', '*'):
                    continue
                m = re.search(r'(\w+)\(', head)
                if m and not head.rstrip().endswith(';') and \
                        '=' not in head.split('(')[0]:
                    k = i + 1
                    while k < len(lines) and lines[k].rstrip() != '}':
                        k += 1
                    defs.setdefault(m.group(1), (path, i + 1, k - 1, lines))
                break
    return defs, ops


def sysctl_handlers(tree):
    """The proc_handler of each SYSCTLS row of sysctl_net_ipv4.c."""
    with open(os.path.join(tree, 'net/ipv4/sysctl_net_ipv4.c'),
              encoding='utf-8', errors='replace') as f:
        text = f.read()
    out = []
    for row in re.findall(r'\{[^{}]*\.procname\s*=\s*"[^"]*"[^{}]*\}', text):
        name = re.search(r'\.procname\s*=\s*"([^"]*)"', row).group(1)
        h = re.search(r'\.proc_handler\s*=\s*&?(\w+)', row)
        if name in SYSCTLS and h:
            out.append(h.group(1))
    return out


def derive(tree):
    """[(path, function, first programs, entry points)] of the bind path
    of tree: the call graph walked from ROOTS and the SYSCTLS' handlers
    (see FILES)."""
    defs, ops = definitions(tree, MUTATED)
    names = set(defs)
    roots = ROOTS + [(h, SYSCTL_FIRST) for h in sysctl_handlers(tree)]
    for r, _ in roots:
        if r not in defs:
            die('no entry point %s in %s' % (r, tree))
    reached = {}
    for root, first in roots:
        seen, stack = set(), [root]
        while stack:
            f = stack.pop()
            if f in seen:
                continue
            seen.add(f)
            reached.setdefault(f, []).append((root, first))
            path, a, b, lines = defs[f]
            if path in BRIDGES and f != root:
                continue
            body = '\n'.join(lines[a:b + 1])
            out = set(re.findall(r'\b([A-Za-z_]\w*)\b', body)) & names
            for member in re.findall(r'->(\w+)\s*\(', body):
                out |= ops.get(member, set()) & names
            stack.extend(c for c in sorted(out - seen) if not STOP.search(c))
    out, entries = [], {r for r, _ in roots}
    for f, via in reached.items():
        if defs[f][0] not in FILES and f not in entries:
            continue
        # The programs of every entry point that reaches f, cheapest first.
        first = []
        for _, progs in via:
            first += [p for p in progs if p not in first]
        first.sort(key=lambda p: p != PC)
        out.append((defs[f][0], f, FIRST.get(f, first),
                    [r for r, _ in via]))
    return sorted(out, key=lambda x: (MUTATED.index(x[0]), x[1]))


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
NO_DROP = re.compile(r'lock|rcu|refcount|_hold|_put|^put_|free|'
                     r'^(?:if|for|while|switch|return|sizeof|WARN|BUG|DEBUG|'
                     r'pr_|net_dbg|smp_|might_|local_bh|preempt)')


def line_mutants(line, starts=True, last=False):
    """(operator, mutated line) for every mutant of one line. starts: the
    line starts a statement (not the rest of an expression, where a drop
    leaves a syntax error); last: the body's last code line, whose return
    a non-void function cannot lose and still build."""
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
    if m and not cond and starts and not (last and s.startswith('return ')):
        out.append(('drop', m.group(1) + ';\n'))
    # A call whose result nobody takes, as a statement of its own line:
    # a step of the hash dance left out. Locks, RCU and reference counts
    # apart: dropping those hangs or leaks, which no socket observes.
    m = re.match(r'^(\s*)([a-z_][a-z0-9_]*)\(.*\);\s*$', line)
    if m and not cond and starts and not NO_DROP.search(m.group(2)):
        out.append(('drop_call', m.group(1) + ';\n'))
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


def function_mutants(lines, first, last):
    """(first line, last line, operator, new text) of every mutant of the
    function body lines[first..last]. A condition that spans lines
    (an if whose ')' is on a later line) is negated or replaced as a
    whole; every other operator changes one line."""
    out = []
    comment = False
    code = [i for i in range(first, last + 1) if lines[i].strip()]
    prev = '{'
    for i in range(first, last + 1):
        # Lines of a block comment are no code, whatever they say.
        inside = comment or lines[i].strip().startswith('/*')
        if comment or '/*' in lines[i]:
            comment = '*/' not in lines[i].split('/*')[-1]
        if inside or not lines[i].strip():
            continue
        # What ends a statement, a block, a label or an if's condition
        # (preprocessor lines and trailing comments apart).
        starts = prev[-1:] in (';', '{', '}', ':', ')') or \
            re.search(r'\belse$', prev) is not None
        out += [(i, i, op, new) for op, new in
                line_mutants(lines[i], starts, i == code[-1])]
        if not lines[i].lstrip().startswith('#'):
            prev = re.sub(r'/\*.*?\*/|//.*', '', lines[i]).strip()
        if 'WARN_ON' in lines[i] or not re.search(r'\bif \(', lines[i]) or \
                balanced_if(lines[i]):
            continue
        for j in range(i + 1, min(i + 8, last + 1)):
            text = ''.join(lines[i:j + 1])
            cond = balanced_if(text)
            if cond:
                a, b = cond
                out += [(i, j, 'negate', text[:a] + '!(' + text[a:b] + ')' +
                         text[b:]),
                        (i, j, 'cond_true', text[:a] + '1' + text[b:]),
                        (i, j, 'cond_false', text[:a] + '0' + text[b:])]
                break
    return out


def dest(path, directory=False):
    """path may be written (a directory made and filled), by the one
    writer's rule, bindlab_results dest (bench/files.c): never under
    /etc, /usr, /dev..., never another user's; its reason, else die."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                        'bindlab_results')
    try:
        r = subprocess.run([tool, 'dest'] + (['--dir'] if directory else []) +
                           ['--', path], capture_output=True, text=True,
                           errors='replace', check=False)
    except OSError as e:
        die('%s: %s (make builds it)' % (tool, e.strerror or e))
    if r.returncode:
        die((r.stderr.strip().splitlines() or ['%s refused' % path])[0]
            .split(': ', 1)[-1])


def gen(tree, outdir):
    # The tree read first: a bad one leaves nothing behind.
    targets = derive(tree)
    dest(outdir, directory=True)
    # Its own directory: patches of an earlier run would mix with these.
    if os.path.isdir(outdir) and os.listdir(outdir):
        die('%s is not empty: gen writes into a new or empty directory'
            % outdir)
    os.makedirs(os.path.join(outdir, 'patches'), exist_ok=True)
    per_func = []
    for path, func, reach_first, via in targets:
        with open(os.path.join(tree, path), encoding='utf-8',
                  errors='replace') as f:
            lines = f.readlines()
        muts = []
        seen = {}
        body = function_lines(lines, func)
        for i, j, op, new in function_mutants(lines, *body):
            n = seen[(i, op)] = seen.get((i, op), 0) + 1
            mid = '%s.L%d.%s%s' % (func, i + 1, op,
                                   '' if n == 1 else '.%d' % n)
            mutated = lines[:i] + new.splitlines(True) + lines[j + 1:]
            patch = ''.join(difflib.unified_diff(
                lines, mutated, 'a/' + path, 'b/' + path, n=3))
            write_file(os.path.join(outdir, 'patches', mid + '.patch'), patch)
            muts.append({'id': mid, 'file': path, 'function': func,
                         'line': i + 1, 'operator': op,
                         # One line, no tab: a row of the .txt.
                         'original': ' '.join(''.join(lines[i:j + 1])
                                              .split()),
                         'mutated': ' '.join(new.split()),
                         'first': [' '.join(c) for c in reach_first],
                         'via': via})
        per_func.append(muts)
    # Functions taken in turn: a run cut short still covers each of them.
    order = []
    while any(per_func):
        for muts in per_func:
            if muts:
                order.append(muts.pop(0))
    write_json(os.path.join(outdir, 'mutants.json'), order)
    print('%d mutants of %d functions in %s' % (len(order), len(targets),
                                                outdir))


def write_file(path, text):
    """Write path whole or not at all: a temporary beside it, renamed
    over it; a failed write leaves the old file and no temporary."""
    d = os.path.dirname(os.path.abspath(path))
    # Any signal that ends the process (TERM, HUP, QUIT, ALRM...) would
    # leave the temporary: held until it is renamed or removed (SIGINT
    # raises, and is caught; a fault's own signal would not wait).
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals() - {
        signal.SIGINT, signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL})
    try:
        fd, tmp = tempfile.mkstemp(dir=d,
                                   prefix='.' + os.path.basename(path) + '.')
        try:
            with os.fdopen(fd, 'w') as f:
                f.write(text)
            os.rename(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def write_json(path, obj):
    write_file(path, json.dumps(obj, indent=1) + '\n')


def unique_keys(pairs):
    """An object whose key is given twice is corrupt: which one counts
    would be a guess (the C tools refuse it too)."""
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError('a key given twice in one object')
    return dict(pairs)


MAX_INPUT = 256 << 20


def read_json(path, what):
    """path's JSON; a missing, unreadable or corrupt file is an error, and
    so is one that is no regular file of at most MAX_INPUT bytes: a FIFO
    would block the reader, /dev/zero never end (opened O_NONBLOCK and
    checked on the descriptor, so nothing blocks before the check)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            die('%s %s: not a regular file' % (what, path))
        if st.st_size > MAX_INPUT:
            die('%s %s: larger than %d bytes' % (what, path, MAX_INPUT))
        with open(fd, encoding='utf-8') as f:
            return json.load(f, object_pairs_hook=unique_keys)
    except FileNotFoundError:
        die('no %s %s' % (what, path))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        die('%s %s: not JSON (%s)' % (what, path, str(e).splitlines()[0]))


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def one_line(v):
    """v is text the .txt can hold: a newline, a tab or another control
    character would split its row (or its head), or an id of done."""
    return isinstance(v, str) and v.isprintable()


# gen's id: FUNCTION.LLINE.OPERATOR, then .N for the N-th mutant of one
# operator on one line. One spelling only (ASCII, no leading zero, no
# .1), matched whole: another spelling of a mutant would be a second
# row of it, a second verdict scored.
ID = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\.L([1-9][0-9]*)\.([a-z_]+)'
                r'(?:\.(?:[2-9]|[1-9][0-9]+))?')


# What gen and mutate.sh write in a row, each key's one meaning; the
# operators line_mutants() and function_mutants() make.
KEYS = {'id', 'file', 'function', 'line', 'operator', 'original', 'mutated',
        'first', 'via', 'verdict', 'killed_by', 'build_s', 'boot_s',
        'verdict_s', 'stages', 'programs', 'tree', 'clock', 'argument'}
OPERATORS = {'negate', 'cond_true', 'cond_false', 'drop', 'drop_call',
             'swap_and_or', 'off_by_one', 'flip_arg'}
# A killed_by names a program of the collection, or vm (the guest gave
# no result: a panic, a hang), then the test.
KILLER = re.compile(r'([a-z_][a-z0-9_]*):[!-~]+')
# Seconds no build, boot or verdict takes (mutate.sh's budget is hours).
MAX_S = 1e6


def programs():
    """The collection's programs, as the Makefile lists them."""
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
    try:
        out = subprocess.run(['make', '-s', '--no-print-directory', '-C', repo,
                              'print-programs'], capture_output=True,
                             text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError) as e:
        die('cannot list the programs (make print-programs): %s' % e)
    return set(out[0].split()) if out else set()


def check_row(r, tree, progs):
    """Why row r of a table is not one the table can hold, or None."""
    if not isinstance(r, dict):
        return 'a row that is no object'
    mid = r.get('id')
    m = ID.fullmatch(mid) if isinstance(mid, str) else None
    if not m:
        return 'a row whose id is not FUNCTION.LLINE.OPERATOR: %r' % (mid,)
    # The line an int: not a bool (True == 1) nor a float (10.0 == 10).
    line = r.get('line')
    if (r.get('function'), line, r.get('operator')) != \
            (m.group(1), int(m.group(2)), m.group(3)) or \
            isinstance(line, bool) or not isinstance(line, int):
        return '%s: function, line or operator not its id\'s' % mid
    for k, v in r.items():
        if not all(one_line(x) for x in (v if isinstance(v, list) else [v])
                   if isinstance(x, str)):
            return '%s: %s is not one line of text' % (mid, k)
    if r.get('verdict') not in VERDICTS:
        return '%s: verdict %r, not one of %s' % (mid, r.get('verdict'),
                                                  ', '.join(VERDICTS))
    if r['verdict'] == 'equivalent' and not (
            isinstance(r.get('argument'), str) and r['argument'].strip()):
        return '%s: equivalent with no argument' % mid
    # A test's name, as failures() of mutate.sh gives it: not blank nor
    # padded, and no ',' (record and the .txt split and join on it).
    kb = r.get('killed_by', [])
    if not isinstance(kb, list) or not all(
            isinstance(x, str) and x and x == x.strip() and ',' not in x
            for x in kb):
        return '%s: killed_by is not a list of test names' % mid
    # One test counted once: a name twice is no row record writes.
    if len(set(kb)) != len(kb):
        return '%s: killed_by names a test twice' % mid
    if (r['verdict'] == 'killed') != bool(kb):
        return '%s: %s, killed by %s' % (mid, r['verdict'],
                                         ','.join(kb) or 'nothing')
    for x in kb:
        m = KILLER.fullmatch(x)
        if not m or m.group(1) not in progs | {'vm'}:
            return '%s: killed by %r, no test of the collection' % (mid, x)
    if set(r) - KEYS:
        return '%s: unknown keys %s' % (mid, ', '.join(sorted(set(r) - KEYS)))
    if r.get('operator') not in OPERATORS:
        return '%s: operator %r is none of gen\'s' % (mid, r.get('operator'))
    f = r.get('file')
    if f not in MUTATED:
        return '%s: file %r is none of the lab\'s' % (mid, f)
    if line > 1000000:
        return '%s: line %d is past any source file' % (mid, line)
    for k in NUMS:
        if not (is_num(r.get(k)) and 0 <= r[k] <= MAX_S):
            return '%s: %s is %r, not a number of seconds' % (mid, k, r.get(k))
    if r['stages'] not in (1, 2):
        return '%s: stages is %r, not 1 or 2' % (mid, r['stages'])
    for k in ('file', 'original', 'mutated', 'programs', 'argument'):
        if not isinstance(r.get(k, ''), str):
            return '%s: %s is no text' % (mid, k)
    # gen's manifest keys, kept by record when the manifest has them:
    # first the commands of stage 1 (reach prints them), via the entry
    # points (function names) that reach the mutant's function.
    if 'first' in r and not (isinstance(r['first'], list) and r['first'] and all(
            isinstance(c, str) and c.strip() for c in r['first'])):
        return '%s: first is not a list of commands' % mid
    if 'via' in r and not (isinstance(r['via'], list) and r['via'] and all(
            isinstance(f, str) and re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*', f)
            for f in r['via'])):
        return '%s: via is not a list of function names' % mid
    # mutate.sh's one clock: virtual (vm.sh --icount); none is the real
    # clock of the rows before it. summary reads verdict_s by it.
    if r.get('clock', 'virtual') != 'virtual':
        return '%s: clock %r, not virtual' % (mid, r.get('clock'))
    if tree is not None and r.get('tree') != tree:
        return '%s: a row of tree %s in the table of tree %s' % (
            mid, r.get('tree'), tree)
    return None


def about_ok(ab):
    """ab is an "about" the .txt's head can hold: named one-line texts."""
    return isinstance(ab, dict) and all(k and one_line(k) and one_line(v)
                                        for k, v in ab.items())


def load_table(path, missing_ok=False):
    """The table, validated whole: a missing (unless missing_ok), corrupt
    or inconsistent table is an error, never an empty or partial one."""
    if missing_ok and not os.path.lexists(path):
        return {'about': {}, 'mutants': []}
    t = read_json(path, 'table')
    if not isinstance(t, dict) or set(t) - {'about', 'mutants'} or \
            not isinstance(t.get('mutants'), list):
        die('table %s: not {"about": {...}, "mutants": [...]}' % path)
    ab = t.setdefault('about', {})
    if not about_ok(ab):
        die('table %s: "about" is not an object of one-line strings' % path)
    # Rows say which tree they were made on; a table that does not is
    # of no known tree, and its rows cannot be checked against one.
    if t['mutants'] and not ab.get('tree'):
        die('table %s: rows, but no "about" tree' % path)
    seen = set()
    progs = programs() if t['mutants'] else set()
    for r in t['mutants']:
        why = check_row(r, ab.get('tree'), progs)
        if why:
            die('table %s: %s' % (path, why))
        if r['id'] in seen:
            die('table %s: %s twice' % (path, r['id']))
        seen.add(r['id'])
    return t


def load_manifest(path):
    m = read_json(path, 'manifest')
    if not isinstance(m, list) or not all(
            isinstance(x, dict) and isinstance(x.get('id'), str) and
            isinstance(x.get('function'), str) for x in m):
        die('manifest %s: not a list of mutants' % path)
    return m


def reach(mid, manifest):
    m = [x for x in load_manifest(manifest) if x['id'] == mid]
    if not m:
        die('no mutant %s in %s' % (mid, manifest))
    first = m[0].get('first')
    if not isinstance(first, list) or not first or \
            not all(isinstance(c, str) and c for c in first):
        die('no stage 1 for %s in %s' % (mid, manifest))
    for cmd in first:
        print(cmd)


def functions(tree):
    """The derived function list: file, function, mutants, entry points."""
    total = 0
    for path, func, _, via in derive(tree):
        with open(os.path.join(tree, path), encoding='utf-8',
                  errors='replace') as f:
            lines = f.readlines()
        n = len(function_mutants(lines, *function_lines(lines, func)))
        total += n
        print('%s\t%s\t%d\t%s' % (path, func, n, ','.join(via)))
    print('total\t-\t%d\t-' % total)


# equivalent: a survivor a reviewer can check is no fault a socket could
# see (its row's "argument" says why); apart from the score.
VERDICTS = ('killed', 'survived', 'equivalent', 'build-failed', 'timed-out')
NUMS = ('build_s', 'boot_s', 'verdict_s', 'stages')
TEXT_COLS = ('id', 'verdict', 'killed_by', 'build_s', 'boot_s', 'verdict_s',
             'original', 'mutated')


def record(table, manifest, mid, pairs):
    t = load_table(table)
    m = [x for x in load_manifest(manifest) if x['id'] == mid]
    if not m:
        die('no mutant %s in %s' % (mid, manifest))
    if 'tree' not in t['about']:
        die('table %s: no tree in its "about" (mutants.py about first)'
            % table)
    row = dict(m[0])
    for p in pairs:
        k, _, v = p.partition('=')
        if not k or not _:
            die('not KEY=VALUE: %s' % p)
        row[k] = v
    for k in NUMS:
        if k in row:
            try:
                row[k] = float(row[k])
            except ValueError:
                die('%s is no number: %s' % (k, row[k]))
    # Each test once, in order: a KTAP that lists a failing test twice
    # (mutate.sh's failures() keeps both) is one test that killed it.
    row['killed_by'] = list(dict.fromkeys(
        x for x in row.get('killed_by', '').split(',') if x))
    row['tree'] = t['about']['tree']
    why = check_row(row, t['about']['tree'], programs())
    if why:
        die(why)
    old = [x for x in t['mutants'] if x['id'] == mid]
    # A rerun that survives again keeps the argument of its equivalence.
    if old and old[0]['verdict'] == 'equivalent' and \
            row['verdict'] == 'survived':
        row['verdict'], row['argument'] = 'equivalent', old[0]['argument']
    t['mutants'] = [x for x in t['mutants'] if x['id'] != mid] + [row]
    write_table(table, t)


def argue(table, mid, text):
    """Mark a survivor equivalent, with the argument a reviewer checks."""
    t = load_table(table)
    rows = [r for r in t['mutants'] if r['id'] == mid]
    if not rows or rows[0]['verdict'] not in ('survived', 'equivalent'):
        die('%s: no survivor %s' % (table, mid))
    rows[0]['verdict'] = 'equivalent'
    rows[0]['argument'] = text
    why = check_row(rows[0], t['about'].get('tree'), programs())
    if why:
        die(why)
    write_table(table, t)


def txt_of(table):
    """The text table beside the JSON one."""
    return re.sub(r'\.json$', '', table) + '.txt'


def write_table(table, t):
    """The JSON table, then its text table, each written whole."""
    for path in (table, txt_of(table)):
        dest(path)
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
    write_file(txt_of(table), '\n'.join(lines) + '\n')


def about(table, pairs):
    """Say what the table is made of. A table that holds rows keeps its
    tree and kernel: another tree's rows are not this one's."""
    t = load_table(table, missing_ok=True)
    for p in pairs:
        k, _, v = p.partition('=')
        if not k or not _:
            die('not KEY=VALUE: %s' % p)
        old = t['about'].get(k)
        if k in ('tree', 'kernel') and t['mutants'] and old not in (None, v):
            die('table %s holds the rows of %s %s, not %s: use another table'
                % (table, k, old, v))
        t['about'][k] = v
    if not about_ok(t['about']):
        die('not one line of text: %s' % ' '.join(pairs))
    write_table(table, t)


def spread(vals):
    v = sorted(vals)
    if not v:
        return 'none'
    mid = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                             v[len(v) // 2]) / 2
    return 'median %.1f s (%.1f..%.1f, n=%d)' % (mid, v[0], v[-1], len(v))


def summary(table):
    t = load_table(table)
    rows = t['mutants']
    counts = {v: sum(r['verdict'] == v for r in rows) for v in VERDICTS}
    judged = counts['killed'] + counts['survived']
    print('%d mutants: %s' % (len(rows), ', '.join(
        '%s %d' % kv for kv in counts.items())))
    if judged:
        # Rounded down: one survivor never reads as 100%.
        print('score: %d of %d killed (%.1f%%), equivalents, build failures'
              ' and timeouts apart' % (counts['killed'], judged,
                                       1000 * counts['killed'] // judged / 10))
    built = [r for r in rows if r['verdict'] != 'build-failed']
    for k in ('build_s', 'boot_s', 'verdict_s'):
        print('%s: %s' % (k, spread([r[k] for r in built if k in r])))
    # On the virtual clock boot_s is the VMs' whole wall time and
    # verdict_s guest seconds; before it, boot_s left the programs out.
    cyc = [r['build_s'] + r['boot_s'] +
           (0 if r.get('clock') == 'virtual' else r['verdict_s'])
           for r in built if r.get('stages') == 1 and 'build_s' in r]
    print('cycle (stage 1 only): %s' % spread(cyc))
    # No mutant judged: nothing measured, no score (bindlab_results' 4).
    if not judged:
        print('score: none: no mutant was killed or survived')
        return 4
    return 0


def main(argv):
    if len(argv) < 2:
        die('usage: mutants.py gen|functions|files|reach|rest|record|about|'
            'argue|summary|done ... (--help)')
    cmd, args = argv[1], argv[2:]
    if cmd in ('-h', '--help') and not args:
        print(__doc__)
        return 0
    if cmd == 'gen' and len(args) == 2:
        gen(*args)
    elif cmd == 'reach' and len(args) == 2:
        reach(*args)
    elif cmd == 'functions' and len(args) == 1:
        functions(args[0])
    elif cmd == 'files' and not args:
        print('\n'.join(MUTATED))
    elif cmd == 'rest' and not args:
        for c in REST:
            print(' '.join(c))
    elif cmd == 'record' and len(args) >= 4:
        record(args[0], args[1], args[2], args[3:])
    elif cmd == 'about' and len(args) >= 2:
        about(args[0], args[1:])
    elif cmd == 'summary' and len(args) == 1:
        return summary(args[0])
    elif cmd == 'todo' and len(args) == 2:
        done = {r['id'] for r in load_table(args[1])['mutants']}
        for m in load_manifest(args[0]):
            if m['id'] not in done:
                print(m['id'])
    elif cmd == 'argue' and len(args) == 3:
        argue(*args)
    else:
        die('bad arguments; see the head of this file')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as e:
        # A write or read the machine refused: one line, never a traceback.
        die('%s%s' % (e.strerror or e,
                      ': %s' % e.filename if e.filename else ''))
    except Exception as e:  # pylint: disable=broad-except
        die('internal error: %s: %s' % (type(e).__name__, e))
