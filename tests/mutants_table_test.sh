#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutation table read back (kernel/mutants.py): a table is validated
# whole whenever it is read. Each corrupt table below (an unknown or
# padded verdict, a duplicate id or one spelled two ways, another tree's
# rows, a text of two lines, a blank test name, a missing, truncated or
# non-JSON file, wrong types) must give exit 2 and one line
# on stderr, never a score and never a traceback, and leave the table
# as it was; a write that fails leaves the old table and no temporary.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
# Bounded: a read that blocks is a failure, not a stuck test.
mutants() { timeout -k 2 60 python3 "$here/kernel/mutants.py" "$@"; }

# A manifest of two mutants and a valid table of both.
cat >"$tmp/manifest.json" <<'JSON'
[{"id": "f.L10.negate", "file": "net/ipv4/inet_connection_sock.c", "function": "f", "line": 10,
  "operator": "negate", "original": "if (a)", "mutated": "if (!(a))"},
 {"id": "f.L12.drop", "file": "net/ipv4/inet_connection_sock.c", "function": "f", "line": 12,
  "operator": "drop", "original": "continue;", "mutated": ";"}]
JSON
good=$tmp/good.json
mutants about "$good" kernel=6.12.1 tree=abc1234 project=p0 &&
	mutants record "$good" "$tmp/manifest.json" f.L10.negate verdict=killed \
		killed_by=bind_bhash_test:t.one build_s=1 boot_s=2 verdict_s=3 stages=1 &&
	mutants record "$good" "$tmp/manifest.json" f.L12.drop verdict=survived \
		build_s=1 boot_s=2 verdict_s=3 stages=2
if mutants summary "$good" >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^score: 1 of 2 killed' "$tmp/out" && [ ! -s "$tmp/err" ]; then
	tap_ok "a valid table gives its score"
else
	tap_not_ok "a valid table gives its score" "$(cat "$tmp/out" "$tmp/err")"
fi
# A run resumes: todo lists the manifest's mutants with no row yet, and
# none once the table has them all.
mutants about "$tmp/one.json" kernel=6.12.1 tree=abc1234 project=p0 &&
	mutants record "$tmp/one.json" "$tmp/manifest.json" f.L10.negate verdict=survived \
		build_s=1 boot_s=2 verdict_s=3 stages=2
todo_one=$(mutants todo "$tmp/manifest.json" "$tmp/one.json" 2>&1)
todo_all=$(mutants todo "$tmp/manifest.json" "$good" 2>&1)
if [ "$todo_one" = f.L12.drop ] && [ -z "$todo_all" ]; then
	tap_ok "todo: the mutants a run resumes with"
else
	tap_not_ok "todo: the mutants a run resumes with" "one row: $todo_one" "both rows: $todo_all"
fi
# No mutant killed or survived: nothing measured, no score, exit 4.
mutants about "$tmp/none-judged.json" kernel=6.12.1 tree=abc1234 project=p0
rc=0
mutants summary "$tmp/none-judged.json" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 4 ] && grep -q '^score: none' "$tmp/out"; then
	tap_ok "a table with nothing judged has no score (exit 4)"
else
	tap_not_ok "a table with nothing judged has no score (exit 4)" "exit $rc" "$(cat "$tmp/out")"
fi

# Each corrupt table: NAME, then the Python that turns the good table t
# (a dict) into it, or a raw text when it starts with "raw:".
python3 - "$good" "$tmp/bad" <<'PY'
import copy, json, os, sys
good = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out)
def row(i, **kw):
    t = copy.deepcopy(good)
    t['mutants'][i].update(kw)
    return t
def twice(**kw):
    # Row 0 again, as another spelling of its id: the same mutant twice.
    return dict(good, mutants=good['mutants'] + [dict(good['mutants'][0],
                                                      **kw)])
def drop(i, k):
    t = copy.deepcopy(good)
    del t['mutants'][i][k]
    return t
cases = {
    'verdict_trailing_space': row(1, verdict='survived '),
    'verdict_capital': row(1, verdict='Survived'),
    'verdict_unknown': row(1, verdict='passed'),
    'verdict_number': row(1, verdict=1),
    'verdict_missing': drop(1, 'verdict'),
    'equivalent_no_argument': row(1, verdict='equivalent'),
    'equivalent_blank_argument': row(1, verdict='equivalent', argument=' '),
    'killed_by_nothing': row(0, killed_by=[]),
    'survived_killed_by': row(1, killed_by=['prog:t']),
    'killed_by_text': row(0, killed_by='prog:t'),
    'killed_by_empty_name': row(0, killed_by=['']),
    'killed_by_blank_name': row(0, killed_by=[' ']),
    'killed_by_padded_name': row(0, killed_by=['prog:t.one ']),
    'killed_by_comma': row(0, killed_by=['prog:t.one,prog:t.two']),
    'killed_by_control': row(0, killed_by=['prog:t\x01']),
    'killed_by_no_program': row(0, killed_by=['nosuchprog:zz.yy']),
    'killed_by_no_test': row(0, killed_by=['bind_bhash_test:']),
    'killed_by_twice': row(0, killed_by=['bind_bhash_test:t.one'] * 2),
    'unknown_key': row(0, extra=1),
    'operator_unknown': row(0, id='f.L10.frob', operator='frob'),
    'file_outside': row(0, file='../../etc/passwd'),
    'file_not_mutated': row(0, file='net/ipv4/tcp.c'),
    'line_huge': row(0, id='f.L%d.negate' % 10**30, line=10**30),
    'build_s_huge': row(0, build_s=1e308),
    'stages_three': row(0, stages=3),
    'duplicate_id': dict(good, mutants=good['mutants'] + [good['mutants'][0]]),
    'other_tree_row': row(0, tree='fff0000'),
    'row_without_tree': drop(0, 'tree'),
    'id_missing': drop(0, 'id'),
    'id_not_text': row(0, id=7),
    'id_not_its_function': row(0, id='g.L10.negate'),
    'id_not_its_line': row(0, id='f.L11.negate'),
    'id_with_newline': row(0, id='f.L10.negate\nx'),
    'id_trailing_newline_twice': twice(id='f.L10.negate\n'),
    'id_leading_zero_twice': twice(id='f.L010.negate'),
    'id_nth_one_twice': twice(id='f.L10.negate.1'),
    'id_nth_leading_zero': row(0, id='f.L10.negate.02'),
    'id_not_ascii': row(0, id='f\u00e9.L10.negate', function='f\u00e9'),
    'line_bool': row(0, id='f.L1.negate', line=True),
    'line_float': row(0, line=10.0),
    'line_zero': row(0, id='f.L0.negate', line=0),
    'line_text': row(0, line='10'),
    'build_s_text': row(0, build_s='1.0'),
    'build_s_negative': row(0, build_s=-1),
    'build_s_bool': row(0, build_s=True),
    'build_s_nan_text': row(0, build_s='nan'),
    'verdict_s_missing': drop(0, 'verdict_s'),
    'build_s_infinite': row(0, build_s=float('inf')),
    'original_number': row(0, original=3),
    'original_newline': row(0, original='if (a)\n'),
    'mutated_tab': row(0, mutated='if (!(a))\t/* x */'),
    'file_line_separator': row(0, file='net/ipv4/x.c\u2028y'),
    'programs_newline': row(0, programs='p 1\np 2'),
    'first_newline': row(0, first=['p -f x\ny']),
    'first_number': row(0, first=1e308),
    'first_empty': row(0, first=[]),
    'first_blank_command': row(0, first=[' ']),
    'via_object': row(0, via={'x': {'y': 1}}),
    'via_not_a_name': row(0, via=['inet_bind', 'a b']),
    'clock_object': row(0, clock={'a': [1]}),
    'clock_unknown': row(0, clock='real'),
    'argument_newline': row(1, verdict='equivalent', argument='a\nb'),
    'argument_number': row(1, argument=3),
    'row_list': dict(good, mutants=[[1, 2]]),
    'row_null': dict(good, mutants=[None]),
    'mutants_object': dict(good, mutants={}),
    'mutants_missing': {'about': good['about']},
    'about_list': dict(good, about=[]),
    'about_number_value': dict(good, about={'tree': 1}),
    'about_value_newline': dict(good, about=dict(good['about'],
                                                 kernel='6.12.1\n')),
    'about_key_tab': dict(good, about=dict(good['about'], **{'a\tb': 'c'})),
    'about_key_empty': dict(good, about=dict(good['about'], **{'': 'c'})),
    'extra_top_key': dict(good, extra=1),
    'top_list': [good],
    'top_null': None,
}
raw = {
    'empty_file': '',
    'truncated': json.dumps(good)[:-9],
    'not_json': 'killed\tsurvived\n',
    'nan_literal': json.dumps(good).replace('1.0', 'NaN', 1),
    'binary': '\x00\xff\xfe',
    'deep_nesting': '[' * 100000 + ']' * 100000,
    'two_documents': json.dumps(good) + json.dumps(good),
}
for name, t in cases.items():
    with open(os.path.join(out, name + '.json'), 'w') as f:
        json.dump(t, f)
for name, text in raw.items():
    with open(os.path.join(out, name + '.json'), 'w',
              encoding='latin-1') as f:
        f.write(text)
PY

# refused CMD NAME TABLE...: exit 2, one "mutants.py:" line, nothing on
# stdout, no traceback, the table unchanged.
refused() {
	local what=$1 table=$2 rc=0 sum
	shift 2

	sum=$(md5sum 2>/dev/null <"$table")
	mutants "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q '^mutants\.py: ' "$tmp/err" && [ ! -s "$tmp/out" ] &&
		! grep -q Traceback "$tmp/err" &&
		[ "$(md5sum 2>/dev/null <"$table")" = "$sum" ]; then
		tap_ok "$what # $(cut -c 1-90 "$tmp/err")"
	else
		tap_not_ok "$what" "exit $rc" "$(head -n 3 "$tmp/err")" "$(head -n 2 "$tmp/out")"
	fi
}

times=(build_s=1 boot_s=1 verdict_s=1 stages=1)
n=0
for f in "$tmp"/bad/*.json; do
	name=$(basename "$f" .json)
	refused "summary refuses $name" "$f" summary "$f"
	n=$((n + 1))
	# todo and record read a table through summary's reader: a few
	# tables show each is wired to it (every table through all three
	# cost 140 more starts of Python).
	case $name in
	duplicate_id | not_json | other_tree_row | verdict_trailing_space) ;;
	*) continue ;;
	esac
	refused "todo refuses $name" "$f" todo "$tmp/manifest.json" "$f"
	# A row the good table takes: refused for the table alone.
	refused "record refuses $name" "$f" record "$f" "$tmp/manifest.json" \
		f.L12.drop verdict=killed killed_by=bind_bhash_test:t "${times[@]}"
done
echo "# $n corrupt tables"

refused "summary refuses a missing table" "$tmp/none.json" summary "$tmp/none.json"
refused "todo refuses a missing table" "$tmp/none.json" todo "$tmp/manifest.json" "$tmp/none.json"
# A FIFO would block the reader (its writer never comes): no regular file.
mkfifo "$tmp/fifo.json"
refused "summary refuses a FIFO" "$tmp/none.json" summary "$tmp/fifo.json"
cp "$good" "$tmp/t.json"
refused "about refuses another tree for a table with rows" "$tmp/t.json" \
	about "$tmp/t.json" tree=def5678
refused "about refuses another kernel for a table with rows" "$tmp/t.json" \
	about "$tmp/t.json" kernel=6.13
refused "record refuses an unknown verdict" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/manifest.json" f.L12.drop "verdict=survived "
refused "record refuses a killed row without its test" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/manifest.json" f.L12.drop verdict=killed
refused "record refuses a time that is no number" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/manifest.json" f.L12.drop verdict=survived build_s=x
refused "record refuses a missing manifest" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/none.json" f.L12.drop verdict=survived
echo '{"id": 1}' >"$tmp/badmanifest.json"
refused "record refuses a corrupt manifest" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/badmanifest.json" f.L12.drop verdict=survived
refused "argue refuses a killed mutant" "$tmp/t.json" \
	argue "$tmp/t.json" f.L10.negate "no"
refused "argue refuses an argument of two lines" "$tmp/t.json" \
	argue "$tmp/t.json" f.L12.drop "$(printf 'one\ntwo')"
refused "record refuses a blank test name" "$tmp/t.json" \
	record "$tmp/t.json" "$tmp/manifest.json" f.L12.drop verdict=killed "killed_by= " "${times[@]}"
refused "about refuses a value of two lines" "$tmp/t.json" \
	about "$tmp/t.json" "project=$(printf 'p1\np2')"

# A KTAP that lists a failing test twice: one test killed it, recorded
# once (a table that names it twice is refused).
cp "$good" "$tmp/kb.json"
if mutants record "$tmp/kb.json" "$tmp/manifest.json" f.L12.drop verdict=killed \
	killed_by=bind_bhash_test:t,bind_bhash_test:t "${times[@]}" 2>"$tmp/err" &&
	awk -F '\t' '$1 == "f.L12.drop" { k = $3 } END { exit k != "bind_bhash_test:t" }' \
		"$tmp/kb.txt"; then
	tap_ok "record names a test killing it once"
else
	tap_not_ok "record names a test killing it once" "$(cat "$tmp/err")" "$(grep f.L12 "$tmp/kb.txt")"
fi

# A survivor argued equivalent stays so when a rerun survives again.
mutants argue "$tmp/t.json" f.L12.drop "the skip only saves work" &&
	mutants record "$tmp/t.json" "$tmp/manifest.json" f.L12.drop \
		verdict=survived build_s=1 boot_s=1 verdict_s=1 stages=2 >/dev/null
if mutants summary "$tmp/t.json" 2>&1 | grep -q '^score: 1 of 1 killed'; then
	tap_ok "an equivalent is apart from the score, and stays so"
else
	tap_not_ok "an equivalent is apart from the score" "$(mutants summary "$tmp/t.json" 2>&1)"
fi

# SIGTERM while the table is written: held until it is whole.
mkdir "$tmp/term"
got=$(term_mid_write "$here/kernel/mutants.py" write_file rename "$tmp/term")
if [ "$got" = "143 out" ]; then
	tap_ok "SIGTERM mid-write: the file whole, no temporary"
else
	tap_not_ok "SIGTERM mid-write: the file whole, no temporary" "exit and files: $got"
fi
# QUIT (^\) and ALRM end it as TERM does: held too.
for sig in QUIT ALRM; do
	rm -rf "$tmp/term" && mkdir "$tmp/term"
	got=$(term_mid_write "$here/kernel/mutants.py" write_file rename "$tmp/term" "$sig")
	if [ "${got#* }" = out ]; then
		tap_ok "SIG$sig mid-write: the file whole, no temporary"
	else
		tap_not_ok "SIG$sig mid-write: the file whole, no temporary" "exit and files: $got"
	fi
done

# A write that fails (a full file system): the old table stays, no
# temporary is left beside it.
full=$tmp/full
mkdir "$full"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # the inner shell expands its arguments
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" &&
		cp "$2" "$1/t.json" && cp "$2" "$1/t.json.orig" &&
		{ dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null; true; } &&
		python3 "$3" about "$1/t.json" project=p1 >"$1/../full.out" 2>"$1/../full.err"
		echo $? >"$1/../full.rc"
		cmp -s "$1/t.json" "$1/t.json.orig" && echo same >"$1/../full.same"
		ls -A "$1" >"$1/../full.ls"' - "$full" "$good" "$here/kernel/mutants.py"
	if [ "$(cat "$tmp/full.rc" 2>/dev/null)" = 2 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] &&
		[ -f "$tmp/full.same" ] && [ "$(tr '\n' ' ' <"$tmp/full.ls")" = "fill t.json t.json.orig " ]; then
		tap_ok "a full disk: exit 2, the old table, no temporary # $(cat "$tmp/full.err")"
	else
		tap_not_ok "a full disk: exit 2, the old table, no temporary" \
			"exit $(cat "$tmp/full.rc" 2>/dev/null)" "$(head -n 3 "$tmp/full.err")" \
			"left: $(cat "$tmp/full.ls" 2>/dev/null)"
	fi
else
	tap_skip "a full disk" "needs root and a mount namespace"
fi
# Random damage to the committed table (seeded: BINDLAB_FUZZ_SEED
# replays it): each read gives a score (exit 0: the damage left a valid
# table) or exit 2 and one line, never a traceback or an internal error.
seed=${BINDLAB_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
if out=$(python3 - "$here/kernel/mutants.py" "$here/kernel/mutation/table-6.12.json" \
	"$tmp/rand.json" "$seed" <<'PY'
import random, subprocess, sys
prog, src, dst, seed = sys.argv[1:]
good = open(src, 'rb').read()
rnd = random.Random(int(seed))
bad = []
for n in range(60):
    b = bytearray(good)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(b))
        op = rnd.random()
        if op < 0.4:
            b[i] = rnd.randrange(256)
        elif op < 0.7:
            del b[i:i + rnd.randint(1, 40)]
        else:
            b[i:i] = rnd.choice([b'"', b',', b'{', b'}', b'[', b']', b'1e999',
                                 b'-', b'null', b'\\u0000'])
    open(dst, 'wb').write(b)
    r = subprocess.run(['python3', prog, 'summary', dst], capture_output=True)
    if r.returncode not in (0, 2) or b'Traceback' in r.stderr or \
            b'internal error' in r.stderr or \
            (r.returncode == 2 and (r.stderr.count(b'\n') != 1 or r.stdout)):
        bad.append('%d: exit %d %r' % (n, r.returncode, r.stderr[:200]))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
); then
	tap_ok "60 randomly damaged tables # seed $seed"
else
	tap_not_ok "60 randomly damaged tables (BINDLAB_FUZZ_SEED=$seed)" "$out"
fi

# The function list is derived: a fake tree whose entry points reach a
# function by a call, by a callback passed, by TCP's ->get_port and by a
# sysctl's handler, and a header's inline check; one function nobody
# reaches, one left out by name; of a bridge file (tcp_ipv6.c), its entry
# points only. No mutant drops the rest of an
# expression or a function's last return (neither builds).
fake=$tmp/tree
python3 - "$fake" <<'PY'
import os, sys
t = sys.argv[1]
def fn(name, body='', ret='int'):
    return '%s %s(int a)\n{\n%s\treturn 0;\n}\n\n' % (ret, name, body)
files = {
    'net/ipv4/af_inet.c': fn('inet_bind', '\tif (a > 1 &&\n\t    a < 9)\n\t\treturn 1;\n'
                             '\tsk->sk_prot->get_port(a);\n\tport_ok(a);\n') +
        fn('inet_listen') + fn('inet_stream_connect', '\thash_connect(a, check_est);\n') +
        fn('inet_release') + fn('nobody_calls_me', '\tif (a)\n\t\treturn 1;\n') +
        'struct proto tcp_prot = {\n\t.get_port\t= get_port_fn,\n};\n',
    'net/ipv4/inet_connection_sock.c': fn('get_port_fn', '\tif (a)\t/* x */\n\t\treturn 1;\n'),
    'net/ipv4/inet_hashtables.c': fn('hash_connect') + fn('check_est', '\ttcp_md5_copy(a);\n') +
        fn('tcp_md5_copy', '\tif (a)\n\t\treturn 1;\n'),
    'net/ipv4/inet_timewait_sock.c': '',
    'net/ipv4/tcp_ipv4.c': fn('tcp_v4_syn_recv_sock'),
    'net/ipv4/sysctl_net_ipv4.c': fn('range_handler', '\tif (a < 2)\n\t\treturn 1;\n') +
        'static struct ctl_table t[] = {\n\t{\n\t\t.procname\t= "ip_local_port_range",\n'
        '\t\t.proc_handler\t= range_handler,\n\t},\n};\n',
    'net/ipv6/af_inet6.c': fn('inet6_bind') + fn('inet6_release'),
    'net/ipv6/inet6_hashtables.c': '',
    'net/ipv6/tcp_ipv6.c': fn('tcp_v6_connect', '\tinet_bind(a);\n\tv6_state(a);\n') +
        fn('tcp_v6_syn_recv_sock') + fn('v6_state', '\tif (a)\n\t\treturn 1;\n'),
    'net/ipv4/tcp_minisocks.c': fn('tcp_time_wait'),
    'include/net/ip.h': 'static inline bool port_ok(int a)\n{\n\treturn a ||\n'
        '\t       port_ok_more(a);\n}\n',
    'include/net/inet_sock.h': '', 'include/net/ipv6.h': '',
    'include/net/inet_hashtables.h': '',
}
for path, text in files.items():
    os.makedirs(os.path.dirname(os.path.join(t, path)), exist_ok=True)
    with open(os.path.join(t, path), 'w') as f:
        f.write(text)
PY
if mutants functions "$fake" >"$tmp/funcs" 2>"$tmp/err" &&
	[ "$(cut -f 2 "$tmp/funcs" | sort | tr '\n' ' ')" = "- check_est get_port_fn hash_connect inet6_bind inet6_release inet_bind inet_listen inet_release inet_stream_connect port_ok range_handler tcp_time_wait tcp_v4_syn_recv_sock tcp_v6_connect tcp_v6_syn_recv_sock " ]; then
	tap_ok "the function list is the call graph's # $(tail -n 1 "$tmp/funcs" | cut -f 3) mutants"
else
	tap_not_ok "the function list is the call graph's" "$(cut -f 2,3 "$tmp/funcs" | tr '\n\t' ' :')" "$(cat "$tmp/err")"
fi
# Every generated patch applies, the multi-line condition's too.
if mutants gen "$fake" "$tmp/gen" >/dev/null 2>"$tmp/err" &&
	[ -f "$tmp/gen/patches/inet_bind.L3.cond_false.patch" ]; then
	bad=0
	for p in "$tmp"/gen/patches/*.patch; do
		patch -s -p1 --dry-run -d "$fake" <"$p" >/dev/null 2>&1 || bad=$((bad + 1))
	done
	unbuildable=$(cd "$tmp/gen/patches" && ls port_ok.*drop* inet_listen.*drop* 2>/dev/null)
	if [ "$bad" = 0 ] && [ -z "$unbuildable" ]; then
		tap_ok "every patch applies and builds # $(find "$tmp/gen/patches" -name '*.patch' | wc -l)"
	else
		tap_not_ok "every patch applies and builds" "$bad do not apply; cannot build: ${unbuildable:-none}"
	fi
else
	tap_not_ok "gen of the fake tree" "$(cat "$tmp/err")" "$(find "$tmp/gen" -name "*.patch" | head -n 5)"
fi
# gen writes a new or empty directory only: patches of an earlier gen
# would be mixed with these.
refused "gen refuses a directory that holds files" "$tmp/gen/mutants.json" gen "$fake" "$tmp/gen"
# A line of code with a tab in it (before a comment) is one line of
# text in the table: gen's "original" is recorded, not refused.
if mutants about "$tmp/gen/t.json" tree=t0 2>"$tmp/err" &&
	mutants record "$tmp/gen/t.json" "$tmp/gen/mutants.json" get_port_fn.L3.negate \
		verdict=survived build_s=1 boot_s=1 verdict_s=1 stages=1 2>"$tmp/err"; then
	tap_ok "a line with a tab is recorded"
else
	tap_not_ok "a line with a tab is recorded" "$(cat "$tmp/err")"
fi

# The table of the repository is valid as committed, and of the kernel
# its name says (table-6.12.json: a 6.12.y tree).
for t in "$here"/kernel/mutation/table-*.json; do
	v=$(basename "$t" .json)
	v=${v#table-}
	k=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["about"].get("kernel", ""))' "$t" 2>/dev/null)
	if ! mutants summary "$t" >/dev/null 2>"$tmp/err"; then
		tap_not_ok "$(basename "$t") is valid" "$(cat "$tmp/err")"
	elif [[ $k != "$v" && $k != "$v".* ]]; then
		tap_not_ok "$(basename "$t") is valid" "its about.kernel is '$k', its name says $v"
	else
		tap_ok "$(basename "$t") is valid, of kernel $k"
	fi
done
tap_done
