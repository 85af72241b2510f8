// SPDX-License-Identifier: GPL-2.0
/*
 * The host side's one KTAP reader: bindlab_results merge --ktap and
 * bindlab_results ktap read kselftest output through it, and run.sh, the
 * kernel lab and the tests call that command instead of an awk or grep
 * of their own.
 *
 * Grammar (KTAP as kselftest prints it; docs/results.md "Reading KTAP"):
 *
 *   file     := version level
 *   version  := "TAP version 13" | "TAP version 14" | "KTAP version 1"
 *   level    := plan { result | diag | blank } [ totals ]
 *   plan     := "1.." N [ " # SKIP" reason ]
 * A plan, or a file, of more than BL_KTAP_MAX_TESTS results is an error
 * of this reader (exit 2), never a broken plan: no verdict rests on it.
 *   result   := ("ok" | "not ok") " " NUM " " [ "- " ] NAME [ " #" [ " " DIRECTIVE ] [ reason ] ]
 *             | ("ok" | "not ok") " " NUM " #" " " DIRECTIVE [ reason ]
 *   DIRECTIVE:= SKIP | XFAIL | XPASS | TODO | error   (any case; the
 *               first four as prefixes: "SKIPPED:" is SKIP; "NAME #SKIP")
 *   diag     := "#" [ " " text ]
 *   totals   := "# Totals: pass:P fail:F xfail:X xpass:Y skip:S error:E"
 *
 * Results are numbered 1, 2, ... without a gap or a repeat, all after
 * the plan, exactly as many as it says. 1..0 is allowed only with
 * "# SKIP why" (the program skipped everything: one case ktap.plan,
 * skip). A totals line must agree with the results above it.
 *
 * kselftest's runner (run_kselftest.sh) nests each program's KTAP one
 * level down, every line prefixed "# ", between an optional header
 * "# selftests: DIR: PROG" and its own result for the program,
 * "ok|not ok N selftests: DIR: PROG [# directive]". A file whose
 * top level carries such results is runner output: every runner result
 * closes a nested level (no KTAP from a program is an error), and its
 * cases are named PROG/CASE. A runner "not ok" (exit=N, TIMEOUT) with no
 * failing case of its own is an error too: the program died after its
 * last result.
 *
 * The second form is kselftest.h's ksft_test_result_skip(), _xfail() and
 * _error(): a result without a name, named by its number.
 *
 * Results: ok -> pass; not ok -> fail; SKIP -> skip (ok or not ok);
 * "not ok # error" -> fail, which the totals count as error, not fail;
 * "not ok" after "# ERROR SPAWNING TEST CHILD" (or GRANDCHILD) since the
 * last case -> skip: the harness could not fork it, which the totals
 * count as fail;
 * "ok # XFAIL" -> xfail; "ok # XPASS" -> xpass; "not ok # TODO" ->
 * xfail, "ok # TODO" -> xpass; XFAIL or XPASS on a "not ok" line is a
 * failure.
 *
 * Limits, refused with the line number and never split or skipped: a
 * line over BL_KTAP_LINE_MAX bytes, a NUL byte, a last line without its
 * newline (a truncated file), text that is none of the above (a crash
 * message, output after the program died), a second version or plan, a
 * result before the plan, beyond it, out of order or repeated, a result
 * without a name. Any of them, or a plan not met at the end of the file,
 * makes the file's plan broken: its reader (merge, ktap) turns that into
 * the failing case ktap.plan, never into fewer cases. Reading stops at the
 * first error; the cases read before it are kept, so that their figures
 * still show.
 */
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bindlab.h"

struct ktap_level {
	long plan;		/* -1: none yet */
	long next;		/* the number the next result must carry */
	long counts[5];		/* by enum bl_ktap_result */
	long errors;		/* of counts[BL_KTAP_FAIL]: "# error" ones */
	long unspawned;		/* of counts[BL_KTAP_SKIP]: never forked */
};

struct ktap_parser {
	struct bl_ktap *k;
	struct ktap_level top, sub;
	bool in_sub;		/* inside a program's nested KTAP */
	bool runner;		/* the top level is run_kselftest.sh's */
	size_t sub_first;	/* the first case of the nested program */
	char *header;		/* PROG of "# selftests: DIR: PROG" */
	char figure[512];	/* the last diagnostic that is not boilerplate */
	bool unspawned;		/* the harness could not fork the next case */
	long lineno;
	bool stop;		/* an error after which nothing is read */
	long over;		/* results past BL_KTAP_MAX_TESTS: not read */
};

static const char * const result_names[] = {
	[BL_KTAP_PASS] = "pass", [BL_KTAP_FAIL] = "fail",
	[BL_KTAP_SKIP] = "skip", [BL_KTAP_XFAIL] = "xfail",
	[BL_KTAP_XPASS] = "xpass",
};

const char *bl_ktap_result_name(enum bl_ktap_result r)
{
	return result_names[r];
}

static void vbroken(struct ktap_parser *p, bool stop, const char *fmt,
		    va_list ap)
{
	int off;

	p->stop |= stop;
	if (!p->k->plan_ok)
		return;
	p->k->plan_ok = false;
	off = snprintf(p->k->broken, sizeof(p->k->broken), "line %ld: ",
		       p->lineno);
	vsnprintf(p->k->broken + off, sizeof(p->k->broken) - off, fmt, ap);
}

/* The file cannot be read on: the first error is the one reported. */
static __printf(2, 3)
void broken(struct ktap_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbroken(p, true, fmt, ap);
	va_end(ap);
}

/*
 * One program of runner output failed its plan, and the runner's own
 * result closed it: the next program's KTAP is still whole, read on.
 */
static __printf(2, 3)
void program_broken(struct ktap_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbroken(p, false, fmt, ap);
	va_end(ap);
}

static struct ktap_level *level_of(struct ktap_parser *p)
{
	return p->in_sub ? &p->sub : &p->top;
}

static void level_reset(struct ktap_level *l)
{
	memset(l, 0, sizeof(*l));
	l->plan = -1;
	l->next = 1;
}

/*
 * The number at *s, advanced past it: up to 9 digits; longer, LONG_MAX:
 * past every limit of this reader (a plan of 10 digits is the reader's
 * error, not a broken plan). No digit: -1.
 */
static long ktap_num(const char **s)
{
	long v = 0;
	int n = 0;

	for (; isdigit((unsigned char)**s); (*s)++, n++)
		if (n < 9)
			v = v * 10 + (**s - '0');
	if (!n)
		return -1;
	return n > 9 ? LONG_MAX : v;
}

static bool is_version(const char *l)
{
	return !strcmp(l, "TAP version 13") || !strcmp(l, "TAP version 14") ||
	       !strcmp(l, "KTAP version 1");
}

static int add_case(struct ktap_parser *p, const char *name,
		    const char *reason, enum bl_ktap_result r)
{
	struct bl_ktap *k = p->k;
	struct bl_ktap_case *c, *more;

	/* The reader's limit, not the program's fault: an error, no verdict. */
	if (k->n >= BL_KTAP_MAX_TESTS) {
		p->over = k->n + 1;
		p->stop = true;
		return 0;
	}
	if (k->n == k->cap) {
		more = realloc(k->cases, (k->cap * 2 + 16) * sizeof(*more));
		if (!more)
			return -ENOMEM;
		k->cases = more;
		k->cap = k->cap * 2 + 16;
	}
	c = &k->cases[k->n];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	c->reason = strdup(reason);
	if (!c->name || !c->reason) {
		free(c->name);
		free(c->reason);
		return -ENOMEM;
	}
	/* Named at once, so that a program killed mid-run shows as itself. */
	if (p->in_sub && p->header) {
		c->program = strdup(p->header);
		if (!c->program)
			return -ENOMEM;
	}
	c->result = r;
	c->line = p->lineno;
	k->n++;
	level_of(p)->counts[r]++;
	p->figure[0] = '\0';
	p->unspawned = false;
	return 0;
}

/* The harness's own lines around a test carry no figure. */
static bool boilerplate(const char *d)
{
	return !strncmp(d, " RUN ", 5) || !strncmp(d, "RUN ", 4) ||
	       strstr(d, "Test terminated") ||
	       !strncmp(d + strspn(d, " "), "OK  ", 4) ||
	       !strncmp(d + strspn(d, " "), "FAIL  ", 6);
}

/* "Totals: ..." of a level: it must agree with what was read. */
static void check_totals(struct ktap_parser *p, const char *t)
{
	struct ktap_level *l = level_of(p);
	long v[6];
	int end = 0;

	if (sscanf(t, "Totals: pass:%ld fail:%ld xfail:%ld xpass:%ld skip:%ld error:%ld%n",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6 || t[end]) {
		broken(p, "a totals line KTAP does not know");
		return;
	}
	/* The harness counts a case it could not fork as failed. */
	if (v[0] != l->counts[BL_KTAP_PASS] ||
	    v[1] != l->counts[BL_KTAP_FAIL] - l->errors + l->unspawned ||
	    v[2] != l->counts[BL_KTAP_XFAIL] || v[3] != l->counts[BL_KTAP_XPASS] ||
	    v[4] != l->counts[BL_KTAP_SKIP] - l->unspawned || v[5] != l->errors)
		broken(p, "totals pass:%ld fail:%ld xfail:%ld xpass:%ld skip:%ld error:%ld, but the results above say %ld %ld %ld %ld %ld %ld",
		       v[0], v[1], v[2], v[3], v[4], v[5], l->counts[BL_KTAP_PASS],
		       l->counts[BL_KTAP_FAIL] - l->errors + l->unspawned,
		       l->counts[BL_KTAP_XFAIL], l->counts[BL_KTAP_XPASS],
		       l->counts[BL_KTAP_SKIP] - l->unspawned, l->errors);
}

/*
 * "# text" at the cases' level: the latest that is not the harness's
 * boilerplate is the next case's figure (an ASSERT's message comes last).
 */
static void diag_line(struct ktap_parser *p, const char *d)
{
	if (!strncmp(d, "ERROR SPAWNING TEST ", 20))
		p->unspawned = true;
	if (!strncmp(d, "Totals: ", 8))
		check_totals(p, d);
	else if (*d && !boilerplate(d))
		snprintf(p->figure, sizeof(p->figure), "%s", d);
}

static void plan_line(struct ktap_parser *p, struct ktap_level *lv,
		      const char *l)
{
	const char *s = l + 3;
	long n = ktap_num(&s);

	if (lv->plan >= 0) {
		broken(p, "a second plan");
		return;
	}
	if (lv->next > 1) {
		broken(p, "the plan after results (KTAP wants it first)");
		return;
	}
	if (n > BL_KTAP_MAX_TESTS) {
		p->over = n;
		p->stop = true;
		return;
	}
	if (n < 0 || (*s && strncmp(s, " #", 2))) {
		broken(p, "a plan KTAP does not know (1..N)");
		return;
	}
	lv->plan = n;
	if (n)
		return;
	if (strncmp(s, " # SKIP", 7)) {
		broken(p, "a plan of 0 tests without # SKIP and its reason");
		return;
	}
	s += 7;
	p->figure[0] = '\0';
	if (add_case(p, "ktap.plan", s + strspn(s, " "), BL_KTAP_SKIP))
		broken(p, "out of memory");
	/* Not a result the program printed: no totals count it. */
	lv->counts[BL_KTAP_SKIP]--;
}

/*
 * The directive of "NAME # DIRECTIVE reason": its result, reason set;
 * *error for kselftest's "error", a failure its totals count apart.
 */
static const char * const directive_words[] = { "SKIP", "XFAIL", "XPASS",
						"TODO", "error" };

/*
 * The directive word d starts with, as an index of directive_words, or
 * ARRAY_SIZE(directive_words). As TAP's readers and kunit.py take them,
 * the first four match as prefixes in any case ("# SKIPPED: why" is a
 * skip, never a pass); kselftest's "error" is a word of its own.
 */
static size_t directive_word(const char *d, size_t *len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(directive_words); i++) {
		*len = strlen(directive_words[i]);
		if (!strncasecmp(d, directive_words[i], *len) &&
		    (i < 4 || !d[*len] || d[*len] == ' '))
			break;
	}
	return i;
}

static enum bl_ktap_result directive(bool ok, const char *d,
				     const char **reason, bool *error)
{
	size_t i, len;

	d += strspn(d, " ");
	*reason = d;
	i = directive_word(d, &len);
	if (i < ARRAY_SIZE(directive_words)) {
		/* The rest of the word and a colon are no part of the reason. */
		d += len;
		while ((*d >= 'A' && *d <= 'Z') || (*d >= 'a' && *d <= 'z'))
			d++;
		*reason = d + strspn(d, ": ");
	}
	switch (i) {
	case 0:
		return BL_KTAP_SKIP;
	case 1:
		return ok ? BL_KTAP_XFAIL : BL_KTAP_FAIL;
	case 2:
		return ok ? BL_KTAP_XPASS : BL_KTAP_FAIL;
	case 3:
		return ok ? BL_KTAP_XPASS : BL_KTAP_XFAIL;
	case 4:
		*error = true;
		return BL_KTAP_FAIL;
	default:
		return ok ? BL_KTAP_PASS : BL_KTAP_FAIL;
	}
}

/*
 * "ok N NAME [# ...]": its number is checked against the level's plan
 * and order; *name and *dir (after " #", or NULL) point into a copy
 * the caller frees. Returns the number, or -1 when broken.
 */
static long result_head(struct ktap_parser *p, struct ktap_level *lv,
			const char *l, bool *ok, char **copy, char **name,
			const char **dir)
{
	const char *s;
	char *hash;
	size_t len;
	long n;

	/* "ok" or "not ok", maybe bare: never read past the line's end. */
	*ok = !strncmp(l, "ok", 2);
	s = l + (*ok ? 2 : 6);
	s += *s == ' ';
	n = ktap_num(&s);
	if (n < 0 || (*s && *s != ' ')) {
		broken(p, "a result without a test number");
		return -1;
	}
	if (n == LONG_MAX) {
		/* No plan reaches it: say what was written, not a clamp. */
		broken(p, "a test number of more than 9 digits");
		return -1;
	}
	if (lv->plan < 0) {
		broken(p, "result %ld before the plan", n);
		return -1;
	}
	if (n != lv->next) {
		broken(p, "test number %ld where %ld was due (repeated or out of order)",
		       n, lv->next);
		return -1;
	}
	if (n > lv->plan) {
		broken(p, "test %ld beyond the plan of %ld", n, lv->plan);
		return -1;
	}
	s += *s == ' ';
	/* TAP's optional "- " before the name is no part of it. */
	s += 2 * !strncmp(s, "- ", 2);
	*copy = strdup(s);
	if (!*copy) {
		broken(p, "out of memory");
		return -1;
	}
	*name = *copy;
	*dir = NULL;
	if (**copy == '#' && ((*copy)[1] == ' ' || !(*copy)[1])) {
		/* kselftest.h's "ok N # SKIP why": no name, the directive first. */
		*dir = *copy + 1;
		*name = *copy + strlen(*copy);
	} else {
		/* The first blank before a '#': a tab is TAP's whitespace too. */
		for (hash = *copy; (hash = strpbrk(hash, " \t")); hash++)
			if (hash[1] == '#')
				break;
		/* "NAME #SKIP why" too: its word right after the '#'. */
		if (hash && (hash[2] == ' ' || !hash[2] ||
			     directive_word(hash + 2, &len) <
			     ARRAY_SIZE(directive_words))) {
			*hash = '\0';
			*dir = hash + 2;
		}
	}
	lv->next++;
	return n;
}

/* The program of a runner result "selftests: DIR: PROG". */
static const char *runner_program(const char *name)
{
	const char *colon = strrchr(name, ':');

	if (strncmp(name, "selftests: ", 11) || !colon || colon[1] != ' ' ||
	    !colon[2])
		return NULL;
	return colon + 2;
}

/* The runner's result for a program: it closes the program's level. */
static void runner_result(struct ktap_parser *p, bool ok, const char *name,
			  const char *dir)
{
	const char *prog = runner_program(name), *why = dir ? dir : "";
	bool failed = false;
	size_t i;

	if (!prog) {
		broken(p, "a case at the runner's level (runner results are 'selftests: DIR: PROG')");
		return;
	}
	if (!p->in_sub) {
		program_broken(p, "no KTAP from %s before the runner's result", prog);
		return;
	}
	if (p->header && strcmp(p->header, prog)) {
		broken(p, "the runner's result names %s, its header %s", prog,
		       p->header);
		return;
	}
	for (i = p->sub_first; i < p->k->n; i++) {
		if (!p->k->cases[i].program)
			p->k->cases[i].program = strdup(prog);
		if (!p->k->cases[i].program)
			broken(p, "out of memory");
		failed |= p->k->cases[i].result == BL_KTAP_FAIL;
	}
	p->in_sub = false;
	free(p->header);
	p->header = NULL;
	if (p->sub.plan >= 0 && p->sub.next - 1 < p->sub.plan) {
		program_broken(p, "%s: %ld of %ld planned tests reported (%s)", prog,
		       p->sub.next - 1, p->sub.plan,
		       *why ? why + strspn(why, " ") : "crash or timeout");
		return;
	}
	if (p->sub.plan < 0)
		program_broken(p, "%s printed no plan", prog);
	else if (!ok && !failed && !strstr(why, "SKIP"))
		program_broken(p, "the runner says %s failed (%s) with no failing case",
		       prog, why + strspn(why, " "));
}

/* A case's result, at the level of the cases (flat, or nested). */
static void case_result(struct ktap_parser *p, bool ok, const char *name,
			const char *dir)
{
	const char *reason = "";
	enum bl_ktap_result r;
	bool error = false;

	if (!*name) {
		broken(p, "a result without a name");
		return;
	}
	r = dir ? directive(ok, dir, &reason, &error) :
	    ok ? BL_KTAP_PASS : BL_KTAP_FAIL;
	level_of(p)->errors += error;
	/*
	 * kselftest_harness.h fails a test it could not fork (ERROR
	 * SPAWNING TEST CHILD): the machine's limit (RLIMIT_NPROC), not the
	 * kernel's verdict. A skip with the reason, never a pass.
	 */
	if (r == BL_KTAP_FAIL && !error && p->unspawned) {
		r = BL_KTAP_SKIP;
		reason = "the harness could not fork this test (ERROR SPAWNING TEST CHILD): a limit of the machine (RLIMIT_NPROC?), no verdict";
		level_of(p)->unspawned++;
	}
	/* "unknown" is the harness's word for no reason given. */
	if (*reason && strcmp(reason, "unknown"))
		;
	else if (r == BL_KTAP_XPASS)
		reason = "passed, but the program declares it a known kernel bug (XFAIL_ADD): this kernel fixed it; report it and update the test";
	else if (r != BL_KTAP_PASS)
		reason = p->figure;
	if (add_case(p, name, reason, r))
		broken(p, "out of memory");
}

/* A result line at depth 0 (top) or inside a program's nested KTAP. */
static void result_line(struct ktap_parser *p, struct ktap_level *lv,
			const char *l)
{
	char *copy, *name, num[24];
	const char *dir;
	long n;
	bool ok;

	n = result_head(p, lv, l, &ok, &copy, &name, &dir);
	if (n < 0)
		return;
	if (!*name && dir) {
		snprintf(num, sizeof(num), "%ld", n);
		name = num;
	}
	if (lv == &p->sub)
		case_result(p, ok, name, dir);
	else if (p->in_sub || p->runner || runner_program(name))
		runner_result(p, ok, name, dir);
	else
		case_result(p, ok, name, dir);
	free(copy);
}

/* "# selftests: DIR: PROG" at depth 0: the next program's name. */
static void top_diag(struct ktap_parser *p, const char *d)
{
	const char *prog = runner_program(d);

	if (!prog) {
		diag_line(p, d);
		return;
	}
	p->runner = true;
	free(p->header);
	p->header = strdup(prog);
	if (!p->header)
		broken(p, "out of memory");
}

/* One line of a level, "# " nesting removed; sub: a program's KTAP. */
static void level_line(struct ktap_parser *p, struct ktap_level *lv,
		       const char *l)
{
	if (!*l)
		return;
	if (is_version(l))
		broken(p, "a second version line");
	else if (!strncmp(l, "1..", 3))
		plan_line(p, lv, l);
	else if (!strncmp(l, "ok ", 3) || !strncmp(l, "not ok ", 7) ||
		 !strcmp(l, "ok") || !strcmp(l, "not ok"))
		result_line(p, lv, l);
	else if (*l == '#' && is_version(l + 1 + (l[1] == ' ')))
		/* Its results would pass for diagnostics: fail closed. */
		broken(p, "a KTAP level nested in a program's (this reader reads two levels)");
	else if (*l == '#' && lv == &p->top && !p->in_sub)
		top_diag(p, l + 1 + (l[1] == ' '));
	else if (*l == '#')
		diag_line(p, l + 1 + (l[1] == ' '));
	else
		broken(p, "not KTAP (text after a crash?): '%.60s'", l);
}

/* One line of the file, its newline removed. */
static void ktap_line(struct ktap_parser *p, const char *l)
{
	if (p->lineno == 1) {
		if (!is_version(l))
			broken(p, "no version line: KTAP starts with 'TAP version 13', 'TAP version 14' or 'KTAP version 1'");
		return;
	}
	if (!strncmp(l, "# ", 2) && is_version(l + 2)) {
		if (p->in_sub)
			broken(p, "a second version line inside a program's KTAP");
		else if (p->top.plan < 0)
			broken(p, "a program's KTAP before the runner's plan");
		p->in_sub = true;
		p->runner = true;
		level_reset(&p->sub);
		p->sub_first = p->k->n;
		p->figure[0] = '\0';
		return;
	}
	if (!p->in_sub || *l != '#')
		level_line(p, &p->top, l);
	else if (l[1] == ' ' || !l[1])
		level_line(p, &p->sub, l + 1 + (l[1] == ' '));
	else
		broken(p, "not KTAP inside a program's KTAP: '%.60s'", l);
}

/* What the end of the file says about the plans. */
static void ktap_end(struct ktap_parser *p)
{
	p->stop = true;
	if (!p->lineno)
		broken(p, "an empty file");
	else if (p->in_sub)
		broken(p, "end of file inside the KTAP of %s: no result from the runner (killed?)",
		       p->header ? p->header : "a program");
	else if (p->top.plan < 0)
		broken(p, "end of file and no plan");
	else if (p->top.next - 1 < p->top.plan)
		broken(p, "end of file after %ld of %ld planned results (crash or timeout)",
		       p->top.next - 1, p->top.plan);
}

/* Whole lines only: an over-long, NUL-holding or unended line is refused. */
static void ktap_lines(struct ktap_parser *p, FILE *f)
{
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;

	while (!p->stop && (len = getline(&line, &cap, f)) >= 0) {
		p->lineno++;
		if (len > BL_KTAP_LINE_MAX) {
			broken(p, "a line of %zd bytes, over the limit of %d",
			       len, BL_KTAP_LINE_MAX);
		} else if (strlen(line) != (size_t)len) {
			broken(p, "a NUL byte");
		} else if (line[len - 1] != '\n') {
			broken(p, "no newline at its end: the file is truncated");
		} else {
			line[--len] = '\0';
			if (len && line[len - 1] == '\r')
				line[--len] = '\0';
			ktap_line(p, line);
		}
	}
	free(line);
	if (!p->stop)
		ktap_end(p);
}

int bl_ktap_read(const char *path, struct bl_ktap *k, struct bl_why *why)
{
	struct ktap_parser p = { .k = k };
	FILE *f;

	memset(k, 0, sizeof(*k));
	k->plan_ok = true;
	f = bl_open_regular(path, BL_MAX_INPUT_BYTES, why);
	if (!f)
		return -EINVAL;
	level_reset(&p.top);
	ktap_lines(&p, f);
	free(p.header);
	if (p.over) {
		char n[32] = "over 999999999";

		if (p.over < LONG_MAX)
			snprintf(n, sizeof(n), "%ld", p.over);
		fclose(f);
		bl_ktap_free(k);
		return bl_why_set(why, E2BIG,
				  "%s: line %ld: %s results, over this reader's limit of %d: not read, no verdict",
				  bl_printable(path), p.lineno, n,
				  BL_KTAP_MAX_TESTS);
	}
	if (ferror(f)) {
		fclose(f);
		bl_ktap_free(k);
		return bl_why_set(why, EIO, "%s: read error", path);
	}
	fclose(f);
	return 0;
}

void bl_ktap_free(struct bl_ktap *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->cases[i].program);
		free(k->cases[i].name);
		free(k->cases[i].reason);
	}
	free(k->cases);
	memset(k, 0, sizeof(*k));
}

/* The normalized form (tests/ktap/README.md), every name escaped. */
void bl_ktap_print(FILE *out, const struct bl_ktap *k)
{
	const struct bl_ktap_case *c;
	size_t i;

	for (i = 0; i < k->n; i++) {
		c = &k->cases[i];
		fprintf(out, "%s ", bl_ktap_result_name(c->result));
		if (c->program)
			fprintf(out, "%s/", bl_printable(c->program));
		fprintf(out, "%s\n", bl_printable(c->name));
	}
	fprintf(out, "plan %s\n", k->plan_ok ? "ok" : "broken");
}

/*
 * The user's declarations, on the cases' own names (not PROG/NAME): a
 * declared failure is expected, a declared pass is an XPASS that fails
 * the run, since the declaration is wrong for this kernel.
 */
void bl_ktap_apply_xfail(struct bl_ktap *k)
{
	struct bl_ktap_case *c;
	char *why;
	size_t i;

	for (i = 0; i < k->n; i++) {
		c = &k->cases[i];
		if (!bl_known_regression(c->name))
			continue;
		if (c->result == BL_KTAP_FAIL) {
			c->declared = true;
			c->result = BL_KTAP_XFAIL;
		} else if (c->result == BL_KTAP_PASS) {
			c->declared = true;
			why = strdup("passed, but declared a known regression (BINDLAB_XFAIL): drop the declaration for this kernel");
			if (why) {
				free(c->reason);
				c->reason = why;
			}
			c->result = BL_KTAP_XPASS;
		}
	}
}
