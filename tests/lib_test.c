// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bindlab library against values computed elsewhere:
 * quantiles as numpy.percentile (linear), the sample standard deviation
 * as Python's statistics.stdev, the Mann-Whitney U by counting pairs by
 * hand and its p-value from the normal approximation with continuity
 * correction (math.erfc), Welch's t-test and t quantiles with mpmath
 * (30 digits: betainc, findroot), growth from medians of known ranges.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>

#include "kselftest_harness.h"
#include "bindlab.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static const double one_to_ten[] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };

TEST(stats_known_values)
{
	struct bl_stats st;

	ASSERT_EQ(0, bl_stats_compute(one_to_ten, 10, &st));
	EXPECT_EQ(10, (int)st.n);
	EXPECT_TRUE(NEAR(st.min, 1, 1e-12));
	EXPECT_TRUE(NEAR(st.max, 10, 1e-12));
	EXPECT_TRUE(NEAR(st.p50, 5.5, 1e-12));
	EXPECT_TRUE(NEAR(st.p90, 9.1, 1e-12));
	EXPECT_TRUE(NEAR(st.p99, 9.91, 1e-12));
	EXPECT_TRUE(NEAR(st.mean, 5.5, 1e-12));
	EXPECT_TRUE(NEAR(st.stddev, 3.0276503540974917, 1e-12));
	EXPECT_TRUE(NEAR(st.ci_lo, 2, 0) && NEAR(st.ci_hi, 9, 0));
}

TEST(stats_single_and_empty)
{
	const double v = 42;
	struct bl_stats st;

	ASSERT_EQ(0, bl_stats_compute(&v, 1, &st));
	EXPECT_TRUE(NEAR(st.p50, 42, 0) && NEAR(st.p99, 42, 0));
	EXPECT_TRUE(NEAR(st.stddev, 0, 0));
	EXPECT_TRUE(NEAR(st.ci_lo, 42, 0) && NEAR(st.ci_hi, 42, 0));
	EXPECT_NE(0, bl_stats_compute(&v, 0, &st));
	EXPECT_TRUE(isnan(bl_median(&v, 0)));
}

/*
 * The order-statistic interval of the median, as tables of it give it
 * (Conover, Practical Nonparametric Statistics): n = 10 is x(2)..x(9),
 * n = 100 x(40)..x(61); below 6 samples, min..max.
 */
TEST(median_ci_order_statistics)
{
	static const struct {
		size_t n;
		double lo, hi;
	} rows[] = {
		{ 1, 1, 1 }, { 5, 1, 5 }, { 6, 1, 6 }, { 10, 2, 9 },
		{ 100, 40, 61 },
	};
	double v[100], lo, hi;
	size_t i;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		bl_median_ci_sorted(v, rows[i].n, &lo, &hi);
		EXPECT_TRUE(lo == rows[i].lo && hi == rows[i].hi)
			TH_LOG("n %zu: %g..%g, want %g..%g", rows[i].n, lo, hi,
			       rows[i].lo, rows[i].hi);
	}
	bl_median_ci_sorted(v, 0, &lo, &hi);
	EXPECT_TRUE(isnan(lo) && isnan(hi));
}

TEST(ratio_ci_of_scaled_samples)
{
	double a[40], b[40], lo, hi;
	int i;

	for (i = 0; i < 40; i++) {
		a[i] = 100 + (i * 37 % 11);
		b[i] = 3 * a[i];
	}
	ASSERT_EQ(0, bl_bootstrap_ratio_ci(a, 40, b, 40, 1000, 1, &lo, &hi));
	EXPECT_TRUE(lo > 2.8 && hi < 3.2);
	EXPECT_TRUE(lo <= 3.0 + 1e-9 || hi >= 3.0 - 1e-9);
}

TEST(mann_whitney_known_values)
{
	const double x[] = { 1.1, 2.2, 3.3, 4.4, 5.5 };
	const double y[] = { 6.6, 7.7, 8.8, 9.9, 10.1, 11.0 };
	const double tx[] = { 1, 2, 2, 3, 3, 3, 4 };
	const double ty[] = { 3, 4, 4, 5, 5, 6 };

	/* U = 0 of 30 pairs: z = (15 - 0.5) / sqrt(30). */
	EXPECT_TRUE(NEAR(bl_mann_whitney_p(x, 5, y, 6), 0.008113117265565782,
			 1e-9));
	EXPECT_TRUE(NEAR(bl_mann_whitney_p(y, 6, x, 5), 0.008113117265565782,
			 1e-9));
	/* U = 3.5 counted by hand; tie correction t^3 - t per tied group. */
	EXPECT_TRUE(NEAR(bl_mann_whitney_p(tx, 7, ty, 6), 0.012999854364387314,
			 1e-9));
	EXPECT_TRUE(NEAR(bl_mann_whitney_p(x, 5, x, 5), 1.0, 1e-12));
}

TEST(welch_known_values)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
	const double c[] = { 10.0, 10.4, 9.7 }, d[] = { 12.1, 11.8, 12.5, 12.2 };
	const double e[] = { 2, 2 }, f[] = { 3, 3 };
	struct bl_welch w;

	ASSERT_EQ(0, bl_welch(a, 5, b, 5, 0.05, &w));
	EXPECT_TRUE(NEAR(w.t, 1.8973665961010276, 1e-9));
	EXPECT_TRUE(NEAR(w.df, 5.8823529411764706, 1e-9));
	EXPECT_TRUE(NEAR(w.p, 0.10753119493062724, 1e-9));
	EXPECT_TRUE(NEAR(w.hi - w.diff, 2.4588237096991468 * w.se, 1e-7));
	ASSERT_EQ(0, bl_welch(c, 3, d, 4, 0.05, &w));
	EXPECT_TRUE(NEAR(w.t, 8.5045490333167929, 1e-9));
	EXPECT_TRUE(NEAR(w.df, 3.8769002884540347, 1e-9));
	EXPECT_TRUE(NEAR(w.p, 0.0012023909723114579, 1e-12));
	EXPECT_TRUE(NEAR(w.diff - w.lo, 2.8115608442970289 * w.se, 1e-7));
	/* One value a side has no spread to estimate. */
	EXPECT_EQ(-EINVAL, bl_welch(a, 1, b, 5, 0.05, &w));
	/* Nor have equal values: no p-value, never p = 0. */
	EXPECT_EQ(-EDOM, bl_welch(e, 2, f, 2, 0.05, &w));
}

TEST(growth_and_curve)
{
	uint64_t ns[1000];
	double curve[4];
	int i;

	for (i = 0; i < 1000; i++)
		ns[i] = 100 + i;
	/* median(1000..1099) / median(100..199) */
	EXPECT_TRUE(NEAR(bl_growth(ns, 1000), 1049.5 / 149.5, 1e-12));
	ASSERT_EQ(0, bl_curve(ns, 1000, 4, curve));
	EXPECT_TRUE(NEAR(curve[0], 224.5, 1e-12));
	EXPECT_TRUE(NEAR(curve[3], 974.5, 1e-12));
	EXPECT_NE(0, bl_curve(ns, 3, 4, curve));
	for (i = 0; i < 1000; i++)
		ns[i] = 1234;
	EXPECT_TRUE(NEAR(bl_growth(ns, 1000), 1.0, 1e-12));
}

TEST(parse_long_strict)
{
	long v = -7;

	EXPECT_EQ(0, bl_parse_long("16000", 1, 100000, &v));
	EXPECT_EQ(16000, v);
	EXPECT_EQ(-EINVAL, bl_parse_long("12abc", 1, 100, &v));
	EXPECT_EQ(-EINVAL, bl_parse_long("", 1, 100, &v));
	EXPECT_EQ(-EINVAL, bl_parse_long(" 3", 1, 100, &v));
	EXPECT_EQ(-EINVAL, bl_parse_long("+3", 1, 100, &v));
	EXPECT_EQ(-ERANGE, bl_parse_long("99999999999999999999999", 1, 100, &v));
	EXPECT_EQ(-ERANGE, bl_parse_long("0", 1, 100, &v));
	EXPECT_EQ(-ERANGE, bl_parse_long("-1", 0, 100, &v));
	EXPECT_EQ(16000, v);
}

/* One grammar for every number: the same table for integers and reals. */
static const struct {
	const char *s;
	int want_long, want_double;
} numbers[] = {
	{ "10", 0, 0 }, { "0", 0, 0 }, { "-0", 0, 0 }, { "007", -EINVAL, -EINVAL },
	{ "0.5", -EINVAL, 0 }, { "00.5", -EINVAL, -EINVAL },
	{ "2.5", -EINVAL, 0 }, { "0x10", -EINVAL, -EINVAL },
	{ "+5", -EINVAL, -EINVAL }, { " 3", -EINVAL, -EINVAL },
	{ "3 ", -EINVAL, -EINVAL }, { "1e3", -EINVAL, -EINVAL },
	{ "1e-400", -EINVAL, -EINVAL }, { "inf", -EINVAL, -EINVAL },
	{ "nan", -EINVAL, -EINVAL }, { ".5", -EINVAL, -EINVAL },
	{ "5.", -EINVAL, -EINVAL }, { "", -EINVAL, -EINVAL },
	{ "-", -EINVAL, -EINVAL }, { "--1", -EINVAL, -EINVAL },
	{ "1000001", -ERANGE, -ERANGE }, { "-1", -ERANGE, -ERANGE },
	{ "99999999999999999999", -ERANGE, -ERANGE },
};

TEST(number_grammar_table)
{
	double d;
	size_t i;
	long v;

	for (i = 0; i < ARRAY_SIZE(numbers); i++) {
		if (bl_parse_long(numbers[i].s, 0, 1000000, &v) !=
		    numbers[i].want_long ||
		    bl_parse_double(numbers[i].s, 0, 1000000, &d) !=
		    numbers[i].want_double)
			ksft_print_msg("number '%s'\n", numbers[i].s);
		EXPECT_EQ(numbers[i].want_long,
			  bl_parse_long(numbers[i].s, 0, 1000000, &v));
		EXPECT_EQ(numbers[i].want_double,
			  bl_parse_double(numbers[i].s, 0, 1000000, &d));
	}
}

static const struct {
	const char *id;
	bool valid;
} case_ids[] = {
	{ "bind_bench.reuseaddr.same.ipv4.port.n4000", true },
	{ "tw_churn.ipv6.fin.tw_reuse0.n10000", true },
	{ "a", true }, { "a-b+c.d", true }, { "", false }, { ".a", false },
	{ "a.", false }, { "a..b", false }, { "a/b", false },
	{ "../x", false }, { "a b", false }, { "a'b", false },
	{ "a\"b", false }, { "a;b", false }, { "a\nb", false },
	{ "a$(id)", false }, { "a`id`", false }, { "a\\b", false },
};

TEST(case_id_grammar_table)
{
	char longest[BL_CASE_ID_MAX + 2];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(case_ids); i++) {
		if (case_ids[i].valid != bl_case_id_valid(case_ids[i].id))
			ksft_print_msg("case id '%s'\n", case_ids[i].id);
		EXPECT_EQ(case_ids[i].valid, bl_case_id_valid(case_ids[i].id));
	}
	memset(longest, 'a', sizeof(longest));
	longest[BL_CASE_ID_MAX] = '\0';
	EXPECT_TRUE(bl_case_id_valid(longest));
	longest[BL_CASE_ID_MAX] = 'a';
	longest[BL_CASE_ID_MAX + 1] = '\0';
	EXPECT_FALSE(bl_case_id_valid(longest));
}

/* The one writer's rules, destination by destination. */
TEST(writer_rules_table)
{
	static const struct {
		const char *path;
		int err;
	} dest[] = {
		{ "-", 0 }, { "/dev/null", -EINVAL }, { "/dev/new.json", -EPERM },
		{ "/tmp", -EINVAL }, { "/proc/self/x", -EPERM },
		{ "/nonexistent/x.json", -ENOENT }, { "", -EINVAL },
	};
	char dir[] = "/tmp/bindlab_writer_XXXXXX", link[64], target[64];
	struct bl_why why;
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dest); i++) {
		why.msg[0] = '\0';
		if (bl_out_check(dest[i].path, &why) != dest[i].err)
			ksft_print_msg("destination %s: %s\n", dest[i].path,
				       why.msg);
		EXPECT_EQ(dest[i].err, bl_out_check(dest[i].path, &why));
	}
	/* A symlink is followed: the target is replaced, the link stays. */
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	ASSERT_EQ(0, bl_file_write(target, "a", 1, &why));
	ASSERT_EQ(0, symlink(target, link));
	EXPECT_EQ(0, bl_file_write(link, "bc", 2, &why));
	EXPECT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_EQ(0, stat(target, &st));
	EXPECT_EQ(2, st.st_size);
	unlink(link);
	unlink(target);
	rmdir(dir);
}

TEST(bind_addresses)
{
	struct bl_bind_spec spec = { .family = BL_FAM_INET, .naddrs = 2 };
	struct sockaddr_storage ss;
	char buf[INET6_ADDRSTRLEN];
	enum bl_family f;

	ASSERT_EQ(sizeof(struct sockaddr_in), bl_bind_addr(&spec, 3, 40000, &ss));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, sizeof(buf));
	EXPECT_STREQ("127.0.0.2", buf);
	EXPECT_EQ(40000, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	spec.family = BL_FAM_MAPPED;
	bl_bind_addr(&spec, 2, 1, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, sizeof(buf));
	EXPECT_STREQ("::ffff:127.0.0.1", buf);
	spec.family = BL_FAM_INET6;
	bl_bind_addr(&spec, 0, 1, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, sizeof(buf));
	EXPECT_STREQ("::1", buf);
	bl_bind_addr(&spec, 1, 1, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, sizeof(buf));
	EXPECT_STREQ("2001:db8::1", buf);
	EXPECT_EQ(0, bl_family_parse("mapped", &f));
	EXPECT_EQ((int)BL_FAM_MAPPED, (int)f);
	EXPECT_NE(0, bl_family_parse("5", &f));
}

TEST(json_round_trip)
{
	char path[] = "/tmp/bindlab_json_XXXXXX";
	struct bl_stats st, back;
	json_error_t jerr;
	json_t *root, *in, *s;
	int fd;

	ASSERT_EQ(0, bl_stats_compute(one_to_ten, 10, &st));
	root = bl_result_new("lib_test", "case.\"quoted\"\n\\id");
	json_object_set_new(root, "stats", bl_stats_json(&st));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, bl_json_save(root, path, NULL));
	in = json_load_file(path, 0, &jerr);
	unlink(path);
	ASSERT_NE(NULL, in);
	EXPECT_STREQ(BINDLAB_SCHEMA,
		     json_string_value(json_object_get(in, "schema")));
	EXPECT_STREQ("case.\"quoted\"\n\\id",
		     json_string_value(json_object_get(in, "case")));
	ASSERT_NE(NULL, json_object_get(json_object_get(in, "env"),
					"kernel_release"));
	s = json_object_get(in, "stats");
	ASSERT_EQ(0, json_unpack(s, "{s:F, s:F, s:F, s:[F, F]}",
				 "median", &back.p50, "p90", &back.p90,
				 "stddev", &back.stddev, "median_ci95",
				 &back.ci_lo, &back.ci_hi));
	EXPECT_TRUE(back.p50 == st.p50 && back.p90 == st.p90);
	EXPECT_TRUE(back.stddev == st.stddev && back.ci_hi == st.ci_hi);
	json_decref(root);
	json_decref(in);
}

/* Write text to a fresh file; its path in path (a mkstemp template). */
static void write_tmp(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(known_regressions)
{
	char path[] = "/tmp/bindlab_xfail_XXXXXX";
	struct bl_why why = { "" };

	unsetenv("BINDLAB_XFAIL");
	unsetenv("BINDLAB_XFAIL_FILE");
	ASSERT_EQ(0, bl_xfail_load("6.18.1", &why));
	EXPECT_FALSE(bl_known_regression("a.b.c"));
	setenv("BINDLAB_XFAIL", "x.y.z, a.*.c", 1);
	ASSERT_EQ(0, bl_xfail_load("6.18.1", &why));
	EXPECT_TRUE(bl_known_regression("a.b.c"));
	EXPECT_FALSE(bl_known_regression("a.b.d"));
	unsetenv("BINDLAB_XFAIL");
	write_tmp(path, "# comment\nfix.var.t  6.18.*\nfix.other.t  0.0.0-none  # never this kernel\n");
	setenv("BINDLAB_XFAIL_FILE", path, 1);
	ASSERT_EQ(0, bl_xfail_load("6.18.1", &why));
	EXPECT_TRUE(bl_known_regression("fix.var.t"));
	EXPECT_FALSE(bl_known_regression("fix.other.t"));
	ASSERT_EQ(0, bl_xfail_load("6.12.0", &why));
	EXPECT_FALSE(bl_known_regression("fix.var.t"));
	unsetenv("BINDLAB_XFAIL_FILE");
	unlink(path);
	bl_xfail_reset();
	/* Not loaded: nothing is declared, regressions fail. */
	EXPECT_FALSE(bl_known_regression("a.b.c"));
}

TEST(known_regressions_refused)
{
	char path[] = "/tmp/bindlab_xfail_XXXXXX";
	struct bl_why why = { "" };
	char line[1200];

	unsetenv("BINDLAB_XFAIL");
	/* 1100 blanks, then a glob: split at 511, its tail once declared. */
	memset(line, ' ', 1100);
	snprintf(line + 1100, sizeof(line) - 1100, "a.*\n");
	write_tmp(path, line);
	setenv("BINDLAB_XFAIL_FILE", path, 1);
	EXPECT_EQ(-EINVAL, bl_xfail_load("6.18.1", &why));
	EXPECT_NE(NULL, strstr(why.msg, "line 1: 1104 bytes"));
	EXPECT_FALSE(bl_known_regression("a.b.c"));
	unlink(path);
	setenv("BINDLAB_XFAIL_FILE", "/tmp", 1);
	EXPECT_EQ(-EINVAL, bl_xfail_load(NULL, &why));
	EXPECT_NE(NULL, strstr(why.msg, "not a regular file"));
	unsetenv("BINDLAB_XFAIL_FILE");
	setenv("BINDLAB_XFAIL", "a.b.c,a[b", 1);
	EXPECT_EQ(-EINVAL, bl_xfail_load(NULL, &why));
	unsetenv("BINDLAB_XFAIL");
	EXPECT_TRUE(bl_glob_valid("bind_fastreuse.*_reuseaddr_*.*", &why));
	EXPECT_TRUE(bl_glob_valid("a[]b].c", &why));
	EXPECT_TRUE(bl_glob_valid("a[!x]*", &why));
	EXPECT_FALSE(bl_glob_valid("a[", &why));
	EXPECT_FALSE(bl_glob_valid("a\\", &why));
	EXPECT_FALSE(bl_glob_valid("", &why));
	EXPECT_FALSE(bl_glob_valid("a\033b", &why));
}

/* The reader's own figures: a failing case's reason is its last diagnostic. */
TEST(ktap_reader_figures)
{
	char path[] = "/tmp/bindlab_ktap_XXXXXX";
	struct bl_why why = { "" };
	struct bl_ktap k;

	write_tmp(path, "TAP version 13\n1..2\n#  RUN           f.v.t ...\n"
		  "# f.c:1:t:growth 14.3 > 3.0\n# t: Test terminated by assertion\n"
		  "#          FAIL  f.v.t\nnot ok 1 f.v.t\nok 2 f.v.u # SKIP why not\n");
	ASSERT_EQ(0, bl_ktap_read(path, &k, &why));
	EXPECT_TRUE(k.plan_ok);
	ASSERT_EQ(2U, k.n);
	EXPECT_TRUE(k.cases[0].result == BL_KTAP_FAIL);
	EXPECT_STREQ("f.c:1:t:growth 14.3 > 3.0", k.cases[0].reason);
	EXPECT_EQ(7, k.cases[0].line);
	EXPECT_TRUE(k.cases[1].result == BL_KTAP_SKIP);
	EXPECT_STREQ("why not", k.cases[1].reason);
	bl_ktap_free(&k);
	unlink(path);
	EXPECT_EQ(-EINVAL, bl_ktap_read("/tmp", &k, &why));
}

TEST(fd_reserve_reports_need)
{
	struct bl_why why = { "" };
	long hard = bl_fd_hard_limit();

	ASSERT_LT(0, hard);
	if (hard > 1L << 30)
		SKIP(return, "RLIMIT_NOFILE is unlimited");
	if (bl_fd_reserve(hard + 1000, &why) == 0)
		SKIP(return, "CAP_SYS_RESOURCE raised the hard limit");
	EXPECT_NE(NULL, strstr(why.msg, "needs"));
	EXPECT_EQ(0, bl_fd_reserve(16, &why));
}

/* sysctl writes land in the private namespace, never the caller's. */
/*
 * fn's exit status, run by a child in a network namespace of its own:
 * KSFT_SKIP without one, -1 when the child did not exit.
 */
static int in_netns(int (*fn)(void))
{
	struct bl_why why;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(bl_netns_enter(&why) ? KSFT_SKIP : fn());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int sysctl_and_address(void)
{
	long v = 0;

	if (bl_sysctl_write("net/ipv4/ip_local_port_range", "40000 40009") ||
	    bl_sysctl_read_long("net/ipv4/tcp_timestamps", &v) ||
	    bl_addr_add("lo", "2001:db8::77/128") ||
	    bl_addr_add("lo", "2001:db8::77/128") != -EEXIST)
		return 1;
	return 0;
}

TEST(sysctl_in_private_netns)
{
	char before[64], after[64];
	int ret;

	ASSERT_EQ(0, bl_sysctl_read("net/ipv4/ip_local_port_range", before,
				    sizeof(before)));
	ret = in_netns(sysctl_and_address);
	if (ret == KSFT_SKIP)
		SKIP(return, "no network namespace");
	EXPECT_EQ(0, ret);
	ASSERT_EQ(0, bl_sysctl_read("net/ipv4/ip_local_port_range", after,
				    sizeof(after)));
	EXPECT_STREQ(before, after);
}

/*
 * A veth end up before its peer does not transmit until the peer is up
 * and the link watch has run; an IPv6 address is reachable once its local
 * route is in (lib/addrwait.c).
 */
static int link_and_address(void)
{
	struct bl_why why;

	if (bl_veth_add("bl_wa", "bl_wb", -1))
		return KSFT_SKIP;
	if (bl_link_up("lo") ||
	    bl_link_up("bl_wa") || bl_link_wait("bl_wa", 50) != -ETIMEDOUT ||
	    bl_link_up("bl_wb") || bl_link_wait("bl_wa", 2000) ||
	    bl_link_wait("bl_none", 0) != -ENODEV)
		return 1;
	if (bl_addr_wait("127.0.0.1", 0) || bl_addr_wait("bogus", 0) != -EINVAL)
		return 2;
	if (!bl_ipv6_usable(&why))
		return 0;
	if (bl_addr_add("lo", "2001:db8::78/128") ||
	    bl_addr_wait("2001:db8::78/128", 2000) ||
	    bl_addr_wait("2001:db8::79", 20) != -ETIMEDOUT)
		return 3;
	return 0;
}

TEST(link_and_address_waits)
{
	int ret = in_netns(link_and_address);

	if (ret == KSFT_SKIP)
		SKIP(return, "no network namespace or veth");
	EXPECT_EQ(0, ret);
}

TEST(sockaddr_parse_and_print)
{
	struct sockaddr_storage ss;
	char buf[64];

	ASSERT_EQ(sizeof(struct sockaddr_in),
		  bl_sockaddr_parse("127.0.0.2", 80, &ss));
	EXPECT_STREQ("127.0.0.2:80", bl_sockaddr_str(&ss, buf, sizeof(buf)));
	ASSERT_EQ(sizeof(struct sockaddr_in6),
		  bl_sockaddr_parse("::ffff:127.0.0.1", 443, &ss));
	EXPECT_STREQ("[::ffff:127.0.0.1]:443",
		     bl_sockaddr_str(&ss, buf, sizeof(buf)));
	EXPECT_EQ(443, bl_sockaddr_port(&ss));
	EXPECT_EQ(0, (int)bl_sockaddr_parse("localhost", 1, &ss));
	EXPECT_EQ(0, (int)bl_sockaddr_parse("127.0.0.1:80", 1, &ss));
}

/* /proc/net/tcp{,6} of a private namespace: exactly what we opened. */
static int procnet_sockets(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int a, b;

	a = socket(AF_INET, SOCK_STREAM, 0);
	b = socket(AF_INET6, SOCK_STREAM, 0);
	len = bl_sockaddr_parse("127.0.0.1", 4242, &ss);
	if (bind(a, (struct sockaddr *)&ss, len) || listen(a, 1))
		return 1;
	len = bl_sockaddr_parse("::1", 4243, &ss);
	if (bind(b, (struct sockaddr *)&ss, len) || listen(b, 1))
		return 1;
	if (bl_tcp_count(TCP_LISTEN, 4242) != 1 ||
	    bl_tcp_count(TCP_LISTEN, 4243) != 1 ||
	    bl_tcp_count(TCP_LISTEN, 0) != 2 ||
	    bl_tcp_count(TCP_ESTABLISHED, 0) != 0 ||
	    bl_tcp_wait(TCP_LISTEN, 4242, 1, 100) ||
	    bl_tcp_wait(TCP_TIME_WAIT, 4242, 1, 50) != -ETIMEDOUT)
		return 2;
	return 0;
}

TEST(procnet_counts_our_sockets)
{
	int ret = in_netns(procnet_sockets);

	if (ret == KSFT_SKIP)
		SKIP(return, "no network namespace");
	EXPECT_EQ(0, ret);
}

TEST(port_parity_and_churn_regime)
{
	struct bl_churn_run run = { .range_lo = 32768, .range_hi = 60999 };
	struct bl_churn_verdict v;

	/* 28232 ports: connect() tries 14116 of one parity first. */
	EXPECT_EQ(14116, bl_port_first_parity(32768, 60999));
	EXPECT_EQ(2, bl_port_first_parity(40000, 40004));
	EXPECT_EQ(1, bl_port_first_parity(40000, 40000));

	/* Fewer connections than first-parity ports: never port-bound. */
	run.done = 10000;
	run.total_ns = 1000000000ULL;
	bl_churn_regime(&run, 2, 1000, false, &v);
	EXPECT_STREQ("cpu-bound", v.regime);
	EXPECT_TRUE(NEAR(v.cap, 14116, 1e-9));

	/* Second-parity ports in use: the range, not the CPU, set the rate. */
	run.done = 50000;
	run.second_parity = 10000;
	bl_churn_regime(&run, 2, 1000, false, &v);
	EXPECT_STREQ("port-capped", v.regime);

	/* Without reuse the cap is the range over the TIME_WAIT length. */
	bl_churn_regime(&run, 0, 1000, false, &v);
	EXPECT_TRUE(NEAR(v.cap, 28232 / 60.0, 1e-9));

	/* RST keeps no TIME_WAIT: nothing to wait for. */
	bl_churn_regime(&run, 2, 1000, true, &v);
	EXPECT_STREQ("cpu-bound", v.regime);
}

/* One spelling of an errno, whichever sign the caller holds. */
TEST(errname_either_sign)
{
	EXPECT_STREQ("EADDRINUSE", bl_errname(EADDRINUSE));
	EXPECT_STREQ("EADDRINUSE", bl_errname(-EADDRINUSE));
	EXPECT_STREQ("success", bl_errname(0));
}

static int child_exit_7(void *arg)
{
	return 7;
}

static int child_sleeps(void *arg)
{
	sleep(60);
	return 0;
}

/* The one child runner: its exit status back; past the limit, killed. */
TEST(child_run_and_wait)
{
	uint64_t t0;
	int status;
	pid_t pid;

	pid = bl_child_run(child_exit_7, NULL);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, bl_child_wait(pid, 0, &status));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(7, WEXITSTATUS(status));

	pid = bl_child_run(child_sleeps, NULL);
	ASSERT_LT(0, pid);
	t0 = bl_now_ns();
	EXPECT_EQ(-ETIMEDOUT, bl_child_wait(pid, 100, &status));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_GT(5000000000ULL, bl_now_ns() - t0);
	EXPECT_EQ(-1, kill(pid, 0));
}

TEST_HARNESS_MAIN
