// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback churn of "net-tcp: extend tcp_tw_reuse sysctl to enable
 * loopback only optimization" (Maciej Zenczykowski): connections to [::1] or
 * 127.0.0.1 opened and closed in a tight loop, the client closing first
 * so that it keeps the TIME_WAIT, each connect() timed alone.
 *
 * With TIME_WAIT kept, the rate can be limited by ports rather than by
 * the CPU: connect() takes the ports of the range's first parity first
 * (__inet_hash_connect(); bind() prefers the other one), and a port held
 * by a TIME_WAIT socket comes back only when tcp_tw_reuse allows it,
 * tcp_tw_reuse_delay (1 s before 6.14) after the TIME_WAIT began, or when
 * the TIME_WAIT ends (60 s). Once every first-parity port is held,
 * connect() scans them all, then takes a second-parity port, or fails
 * with EADDRNOTAVAIL. Counting second-parity ports is how a run knows it
 * hit that wall; bl_churn_regime() turns it into a verdict, so that a
 * port cap is never read as a kernel speed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bindlab.h"

/* How long TIME_WAIT lasts (TCP_TIMEWAIT_LEN): ports back without reuse. */
#define TW_LEN_S	60
/* Second-parity ports in more than 1% of connections: at the wall. */
#define CAPPED_FRACTION	0.01
/* Without evidence of the wall, this close to the cap is still suspect. */
#define NEAR_CAP	0.8

static const char * const stop_names[] = {
	[BL_CHURN_COUNT] = "count",
	[BL_CHURN_TIME] = "time",
	[BL_CHURN_EXHAUSTED] = "exhausted",
};

const char *bl_churn_stop_name(enum bl_churn_stop s)
{
	return stop_names[s];
}

int bl_port_range(uint16_t *lo, uint16_t *hi)
{
	char buf[64];
	unsigned int a, b;
	int err = bl_sysctl_read(BL_SYSCTL_PORT_RANGE, buf,
				 sizeof(buf));

	if (err)
		return err;
	if (sscanf(buf, "%u %u", &a, &b) != 2 || a > b || b > 65535)
		return -EINVAL;
	*lo = a;
	*hi = b;
	return 0;
}

long bl_port_first_parity(uint16_t lo, uint16_t hi)
{
	long n = (long)hi - lo + 1;

	/* Like __inet_hash_connect(): an even count, half of it per parity. */
	if (n > 1)
		n &= ~1L;
	return n > 1 ? n / 2 : n;
}

void bl_churn_free(struct bl_churn_run *run)
{
	free(run->connect_ns);
	free(run->per_second);
	run->connect_ns = NULL;
	run->per_second = NULL;
}

static int churn_alloc(const struct bl_churn_spec *spec,
		       struct bl_churn_run *run, struct bl_why *why)
{
	memset(run, 0, sizeof(*run));
	run->failure_point = -1;
	run->seconds = spec->max_ns / 1000000000ULL + 2;
	run->connect_ns = calloc(spec->n, sizeof(*run->connect_ns));
	run->per_second = calloc(run->seconds, sizeof(*run->per_second));
	if (!run->connect_ns || !run->per_second) {
		bl_churn_free(run);
		return bl_why_set(why, ENOMEM, "out of memory for %ld samples",
				  spec->n);
	}
	return 0;
}

/* One connection; 0, or -errno of the step that failed. */
static int churn_one(const struct bl_churn_spec *spec, int lfd,
		     const struct sockaddr_storage *ss, socklen_t len,
		     struct bl_churn_run *run, uint64_t start, uint64_t *now)
{
	static const struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	uint64_t t0, t1;
	int cfd, afd, port, ret;
	long sec;

	cfd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd < 0)
		return -errno;
	if (spec->rst && setsockopt(cfd, SOL_SOCKET, SO_LINGER, &rst,
				    sizeof(rst))) {
		ret = -errno;
		close(cfd);
		return ret;
	}
	t0 = bl_now_ns();
	ret = connect(cfd, (const struct sockaddr *)ss, len);
	t1 = bl_now_ns();
	*now = t1;
	if (ret) {
		ret = -errno;
		close(cfd);
		return ret;
	}
	/* Without TIME_WAIT no port is ever held: its parity tells nothing. */
	port = spec->rst ? 0 : bl_sock_port(cfd);
	/* On loopback the handshake is over when connect() returns. */
	afd = accept(lfd, NULL, NULL);
	if (afd < 0) {
		ret = -errno;
		close(cfd);
		return ret;
	}
	/* Client first: it holds the TIME_WAIT, as in that commit's loop. */
	close(cfd);
	close(afd);

	sec = (t1 - start) / 1000000000ULL;
	run->connect_ns[run->done] = t1 - t0;
	run->per_second[sec < run->seconds ? sec : run->seconds - 1]++;
	if (port > 0 && ((port ^ run->range_lo) & 1))
		run->second_parity++;
	run->done++;
	return 0;
}

/* The listener, once TIME_WAIT sockets made from now on can be reused. */
static int churn_listen(const char *host, uint16_t port, struct bl_why *why)
{
	int lfd = bl_tcp_listen(host, port);

	if (lfd < 0)
		return bl_why_set(why, lfd, "listen on %s port %u: %s", host,
				  port, strerror(-lfd));
	bl_tcp_ts_clock_wait();
	return lfd;
}

int bl_churn_loop(const struct bl_churn_spec *spec, struct bl_churn_run *run,
		  struct bl_progress *progress, struct bl_why *why)
{
	const char *host = spec->family == BL_FAM_INET6 ? "::1" : "127.0.0.1";
	struct sockaddr_storage ss;
	uint64_t start, now = 0;
	socklen_t len;
	int lfd, err;

	err = churn_alloc(spec, run, why);
	if (err)
		return err;
	err = bl_port_range(&run->range_lo, &run->range_hi);
	if (err)
		return bl_why_set(why, err, "cannot read ip_local_port_range: %s",
				  strerror(-err));
	len = bl_sockaddr_parse(host, spec->port, &ss);
	lfd = churn_listen(host, spec->port, why);
	if (lfd < 0)
		return lfd;
	start = bl_now_ns();
	run->stop = BL_CHURN_COUNT;
	while (run->done < spec->n) {
		err = churn_one(spec, lfd, &ss, len, run, start, &now);
		if (err == -EADDRNOTAVAIL) {
			if (run->failure_point < 0) {
				run->failure_point = run->done;
				run->failure_ns = now - start;
			}
			run->exhausted++;
			if (!spec->keep_going) {
				run->stop = BL_CHURN_EXHAUSTED;
				err = 0;
				break;
			}
			/* Ports come back with time only: do not spin. */
			usleep(1000);
			err = 0;
		}
		if (err) {
			bl_why_set(why, err, "connection %ld: %s", run->done,
				   strerror(-err));
			break;
		}
		if (now - start >= spec->max_ns) {
			run->stop = BL_CHURN_TIME;
			break;
		}
		if (progress && !(run->done & 1023))
			bl_progress_update(progress, run->done);
	}
	run->total_ns = bl_now_ns() - start;
	bl_progress_done(progress);
	close(lfd);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int bl_churn_latency(const struct bl_churn_run *run, double *p50,
		     double *p99)
{
	double *s;
	long i;

	*p50 = *p99 = 0;
	if (!run->done)
		return -ENODATA;
	s = malloc(run->done * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < run->done; i++)
		s[i] = run->connect_ns[i];
	qsort(s, run->done, sizeof(*s), cmp_double);
	*p50 = bl_quantile_sorted(s, run->done, 0.50);
	*p99 = bl_quantile_sorted(s, run->done, 0.99);
	free(s);
	return 0;
}

double bl_churn_rate(const struct bl_churn_run *run)
{
	return run->total_ns ? run->done * 1e9 / run->total_ns : 0;
}

void bl_churn_regime(const struct bl_churn_run *run, int tw_reuse,
		     long delay_ms, bool rst, struct bl_churn_verdict *v)
{
	long first = bl_port_first_parity(run->range_lo, run->range_hi);
	long ports = (long)run->range_hi - run->range_lo + 1;
	double rate = bl_churn_rate(run), second = 0;

	memset(v, 0, sizeof(*v));
	if (run->done)
		second = (double)run->second_parity / run->done;
	if (rst) {
		v->regime = "cpu-bound";
		snprintf(v->why, sizeof(v->why),
			 "RST close keeps no TIME_WAIT: a port is free again at close()");
		return;
	}
	if (!tw_reuse) {
		v->cap = (double)ports / TW_LEN_S;
		snprintf(v->cap_why, sizeof(v->cap_why),
			 "%ld ports / %d s TIME_WAIT, once the range is used up",
			 ports, TW_LEN_S);
	} else {
		v->cap = first * 1000.0 / (delay_ms > 0 ? delay_ms : 1000);
		snprintf(v->cap_why, sizeof(v->cap_why),
			 "%ld first-parity ports / %ld ms reuse delay (up to 2x on second-parity ports, each after a scan of the first)",
			 first, delay_ms > 0 ? delay_ms : 1000);
	}
	if (run->exhausted || second > CAPPED_FRACTION) {
		v->regime = "port-capped";
		snprintf(v->why, sizeof(v->why),
			 "%.1f%% of connections needed a second-parity port, %ld connect() got EADDRNOTAVAIL: every first-parity port held a TIME_WAIT %s",
			 100 * second, run->exhausted,
			 tw_reuse ? "younger than the reuse delay" :
				    "(tcp_tw_reuse=0)");
	} else if (tw_reuse && run->done > first && rate >= v->cap) {
		v->regime = "port-capped";
		snprintf(v->why, sizeof(v->why),
			 "%.0f conn/s reached the port cap (%.2f%% second-parity ports)",
			 rate, 100 * second);
	} else if (run->done <= first) {
		v->regime = "cpu-bound";
		snprintf(v->why, sizeof(v->why),
			 "%ld connections, %ld first-parity ports: no port was needed twice",
			 run->done, first);
	} else if (tw_reuse && rate >= NEAR_CAP * v->cap) {
		v->regime = "near-port-cap";
		snprintf(v->why, sizeof(v->why),
			 "%.0f conn/s is %.0f%% of the port cap (%.2f%% second-parity ports): widen the range or lower the reuse delay to see the CPU limit",
			 rate, 100 * rate / v->cap, 100 * second);
	} else {
		v->regime = "cpu-bound";
		snprintf(v->why, sizeof(v->why),
			 "first-parity ports sufficed (%.2f%% second parity)%s",
			 100 * second, tw_reuse ? ", rate below 80% of the port cap" :
			 ": no TIME_WAIT was in the way yet");
	}
}
