#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every program's whole entry, fuzzed: generated command lines from each
# program's own options and words mixed with hostile tokens, and hostile
# values of the environment variables the programs read, all under
# BINDLAB_CHECK_ARGS=1. Each run must end in 0 or 2, never by a signal or
# a timeout; a 2 has
# its one-line error first on stderr ("prog: ..."); nothing is created in
# its fresh working directory or in /dev; stdout is empty or the program's
# usage or listing. The seed is printed; BINDLAB_FUZZ_SEED and
# BINDLAB_FUZZ_RUNS (default 300 per program) replay or widen a run.
#
# bindlab_results reads and writes only the files its command line names
# and does not honour BINDLAB_CHECK_ARGS: it may also exit 1 and create
# files in its working directory, and nothing else is relaxed for it.
# The kselftests are plain kselftest_harness.h programs that do not read
# BINDLAB_CHECK_ARGS (a command line of theirs runs tests): their options
# and environment are fuzzed by tests/fuzz_inputs_test.sh, harness rows.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$here/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${BINDLAB_FUZZ_SEED:-12}
runs=${BINDLAB_FUZZ_RUNS:-300}

# Files a hostile path may name: made here, outside every working directory.
make_fixtures() {
	mkdir -p "$tmp/fix/dir" "$tmp/work" &&
		mkfifo "$tmp/fix/fifo" &&
		ln -s "$tmp/fix/nowhere" "$tmp/fix/dangling" &&
		cp "$here"/tests/fuzz/corpus/results/*.json "$tmp/fix/"
}

# Belt and braces: a program that wrongly does work under
# BINDLAB_CHECK_ARGS=1 must not do it in the host's network namespace.
isolate=()
if unshare -n true 2>/dev/null; then
	isolate=(unshare -n --)
fi

# One run, bounded; its wall time in ms on stdout, its status as ours.
timed_run() {
	local t0 t1 rc

	t0=$(date +%s%N)
	(cd "$tmp/work" && BINDLAB_CHECK_ARGS=1 "${isolate[@]}" \
		timeout -k 2 10 "$@" </dev/null >"$tmp/out" 2>"$tmp/err")
	rc=$?
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
	return $rc
}

# Command lines that would measure, bind or run a suite: under
# BINDLAB_CHECK_ARGS=1 each must say 0 at once and print nothing, or the
# fuzzing below could do real work.
guard() {
	local ms rc line
	local -a lines=(
		"bind_bench reuseaddr same 1000"
		"bind_bench -r 5 -w 2 --no-netns both alternate 100000"
		"bind_churn"
	)

	for line in "${lines[@]}"; do
		# shellcheck disable=SC2086 # the words of the line are wanted
		ms=$(timed_run "$here"/$line)
		rc=$?
		if [ "$rc" -ne 0 ] || [ "$ms" -gt 2000 ] || [ -s "$tmp/out" ]; then
			tap_not_ok "fuzz_entry guard: $line does nothing under BINDLAB_CHECK_ARGS=1" \
				"exit $rc after ${ms}ms, stdout $(wc -c <"$tmp/out") bytes: fuzzing aborted"
			return 1
		fi
	done
	tap_ok "fuzz_entry guard: ${#lines[@]} working command lines return at once under BINDLAB_CHECK_ARGS=1"
}

# One program (or subcommand): the generator's verdict as one TAP line.
fuzz_one() {
	local name=$1 prog=$2 verdict

	verdict=$(python3 -c "$fuzz_py" "$here" "$tmp" "$seed" "$runs" \
		"$prog" "$name" "${isolate[@]}" 2>&1)
	case "$verdict" in
	ok*) tap_ok "fuzz_entry $name: $runs command lines, seed $seed" ;;
	*)
		local -a diag
		mapfile -t diag <<<"$verdict"
		tap_not_ok "fuzz_entry $name: seed $seed" "${diag[@]}"
		;;
	esac
}

# The generator, runner and checker: python3 for argv and environment as
# bytes (non-UTF-8 included) and for the replayable quoting of a failure.
fuzz_py=$(cat <<'EOF'
import os, random, re, shutil, stat, subprocess, sys, tempfile, time

here, tmp, seed, runs, prog, name = sys.argv[1:7]
isolate = sys.argv[7:]
seed, runs = int(seed), int(runs)
fix = tmp + "/fix"
rng = random.Random("%d %s" % (seed, name))
words = [w.strip() for w in sys.stdin.read().split("\n") if w.strip()]
prefix = words.pop(0).split() if words and words[0].startswith("@") else []
prefix = [p[1:] for p in prefix]
valid = [w.split("\x1f") for w in words if "\x1f" in w]
vocab = [w for w in words if "\x1f" not in w]

hostile = ["", "-", "--", "=", "--json=", "--family=", "--threshold=",
	   "--port=", "99999999999999999999", "-1", "-9223372036854775809",
	   "0", "0x10", "+5", "1e-400", " 3", "3 ", "nan", "inf", "-inf",
	   "A" * 5000, "x=" + "9" * 400, b"\xff\xfe\x80", b"caf\xc3",
	   "/dev/zero", "/dev/null", "/dev/full", fix + "/fifo", fix + "/dir",
	   fix + "/dir/", fix + "/dangling", fix + "/nowhere/x.json",
	   "/proc/self/status", "/proc/self/fd/0", "/proc", "../x", ".",
	   "a=b=c", "NAME=", "=FILE", "\t", "\n"]
envs = ["BINDLAB_XFAIL", "BINDLAB_XFAIL_FILE", "BINDLAB_CACHE", "TMPDIR",
	"HOME"]

def b(s):
	return s if isinstance(s, bytes) else s.encode()

def token():
	return rng.choice(vocab) if vocab and rng.random() < 0.65 else rng.choice(hostile)

def cmdline():
	if valid and rng.random() < 0.5:
		args = list(rng.choice(valid))
		for _ in range(rng.randint(1, 2)):
			i = rng.randint(0, len(args))
			if args and rng.random() < 0.5:
				args[min(i, len(args) - 1)] = token()
			else:
				args.insert(i, token())
	else:
		args = [token() for _ in range(rng.randint(0, 7))]
	return [b(a) for a in prefix + args]

def environment():
	env = {k: v for k, v in os.environb.items()
	       if k.startswith(b"BINDLAB_") is False and k != b"KSFT_MACHINE_SLOW"}
	for _ in range(rng.choice([0, 0, 1, 2, 3])):
		v = rng.choice(hostile + ["1", "0", "yes", "bind_bench.x", "a,b"])
		if b("\n") in b(v):
			v = "x"
		env[b(rng.choice(envs))] = b(v)
	env[b"BINDLAB_CHECK_ARGS"] = b"1"
	return env

def quote(s):
	if re.fullmatch(rb"[A-Za-z0-9_./=:+,@%-]+", s):
		return s.decode()
	if all(32 <= c < 127 for c in s) and b"'" not in s:
		return "'" + s.decode() + "'"
	return "$'" + "".join(chr(c) if 32 <= c < 127 and c not in b"'\\" else
			       "\\x%02x" % c for c in s) + "'"

def replay(env, args):
	extra = [k + b"=" + v for k, v in env.items() if os.environb.get(k) != v]
	return " ".join([quote(e) for e in extra] + [quote(b(prog))] +
			[quote(a) for a in args])

def devs():
	return set(os.listdir("/dev"))

def check(rc, ms, out, err, created):
	results = name.startswith("bindlab_results")
	allowed = {0, 2, 4} if results else {0, 2}
	if results:
		allowed.add(1)
	if rc >= 124 or rc < 0:
		return "killed or timed out (status %d)" % rc
	if rc not in allowed:
		return "exit %d, not one of %s" % (rc, sorted(allowed))
	if not results and ms > 2000:
		return "took %d ms under BINDLAB_CHECK_ARGS=1: it did work" % ms
	first = err.split(b"\n", 1)[0]
	if rc == 2 and not first.startswith(b(os.path.basename(prog)) + b":"):
		return "exit 2 without 'prog: error' first on stderr: %r" % first[:200]
	if created and not results:
		return "created %s in its working directory" % sorted(created)[:3]
	if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
		return "/dev/null is no longer a device"
	if out and not results and not re.match(rb"usage:", out):
		return "unexpected stdout: %r" % out[:200]
	return None

before = devs()
for n in range(runs):
	args, env = cmdline(), environment()
	work = tempfile.mkdtemp(dir=tmp, prefix="work.")
	t0 = time.monotonic()
	p = subprocess.run(isolate + ["timeout", "-k", "2", "10", prog] + args,
			   env=env, cwd=work, stdin=subprocess.DEVNULL,
			   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	ms = int((time.monotonic() - t0) * 1000)
	created = os.listdir(work)
	shutil.rmtree(work, ignore_errors=True)
	why = check(p.returncode, ms, p.stdout, p.stderr, created)
	new = devs() - before
	if not why and new:
		why = "created %s in /dev" % sorted(new)[:3]
	if why:
		print("run %d of %d: %s" % (n + 1, runs, why))
		print("replay: " + replay(env, args))
		sys.exit(1)
print("ok")
EOF
)

# The vocabulary of one program on stdin: real options and words, and
# whole valid command lines (words joined by \x1f) to mutate one token of.
vocab_bind_bench() {
	printf '%s\n' -f --family 4 6 mapped -p --port 0 40000 65535 -r --rounds \
		-w --warmup -b --buckets -j --json - -q --quiet --no-netns -h --help \
		reuseaddr reuseport both none same alternate 1 2 10 1000 --family=6 \
		--port=0 --json=- --rounds=2 "$tmp/fix/out.json"
	printf 'reuseaddr\x1fsame\x1f10\n-f\x1f6\x1f-r\x1f2\x1fboth\x1falternate\x1f100\n'
	printf -- '-j\x1f-\x1f-q\x1freuseport\x1f3\x1f1000\n--no-netns\x1f-p\x1f0\x1fnone\x1fsame\x1f1\n'
}

vocab_churn() {
	printf '%s\n' -f --family 4 6 mapped -n --connections 1 1000 -t --time 1 5 \
		-R --tw-reuse 0 1 2 -p --port-range 32768-60999 1000-999 1-65535 \
		-d --reuse-delay 0 1000 -S --rst -k --keep-going -r --rounds \
		-j --json - -q --quiet -h --help "$tmp/fix/churn.json"
	printf -- '-n\x1f100\x1f-t\x1f1\n-R\x1f2\x1f-d\x1f10\x1f-S\n-f\x1f6\x1f-j\x1f-\x1f-q\n'
}

vocab_results() {
	local files=("$tmp"/fix/*.json) f=$tmp/fix
	echo "@$1"
	printf '%s\n' "${files[@]}" -h --help -- out.json "$f/out.json" "$f/curve"
	case "$1" in
	merge)
		printf '%s\n' --ktap --missing "bind_bench.x=skip:why" "a=fail:b" \
			"bind_bhash_test=$f/dir" "x=skip" "x=maybe:y"
		printf '%s\x1f%s\n' "$f/m.json" "${files[0]}"
		printf '%s\x1f--missing\x1fa.b=skip:x\x1f%s\n' "$f/m.json" "${files[1]}"
		;;
	summary)
		printf '%s\n' "${files[0]}" "${files[1]}"
		;;
	compare)
		printf '%s\n' --threshold --min-change --drift --json 5 0 100 101 \
			--threshold=5 --json=-
		printf '%s\x1f%s\n' "${files[0]}" "${files[1]}"
		printf -- '--threshold\x1f10\x1f%s\x1f--\x1f%s\n' "${files[0]}" "${files[1]}"
		;;
	curve)
		printf '%s\x1f%s\n' "${files[0]}" "$f/curve"
		;;
	esac
}

if ! command -v python3 >/dev/null; then
	tap_not_ok "fuzz_entry: python3" "apt-get install python3"
	tap_done
	exit
fi
if ! make_fixtures || ! guard; then
	tap_done
	exit
fi
echo "# fuzz_entry: seed $seed, $runs command lines per program${isolate:+, in a network namespace of their own}"
fuzz_one bind_bench "$here/bind_bench" < <(vocab_bind_bench)
fuzz_one "bind_churn" "$here/bind_churn" < <(vocab_churn)
for sub in merge summary compare curve; do
	fuzz_one "bindlab_results $sub" "$here/bindlab_results" < <(vocab_results "$sub")
done
tap_done
