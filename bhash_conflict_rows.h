/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of bind_conflict (bind_bhash_test.c), one fact each. Included
 * once, after the fixture's FIXTURE_VARIANT(); the variant names follow
 * the grammar of docs/results.md ("Test names").
 */
/*
 * Reuse options against A's state, A and B on one address, one uid, no
 * device. The kernel's rules (inet_bind_conflict()): two sockets may
 * share an address and port if both have SO_REUSEADDR and A does not
 * listen, or if both have SO_REUSEPORT and the same uid (any uid when A
 * is in TIME_WAIT). A's state changes nothing else: an established
 * socket, a child left by its closed listener, a socket bound by
 * connect() and one in TIME_WAIT weigh as a bound socket does. listen()
 * asks again, now that A listens (A_LISTEN_LATER).
 */
#define ROW(state_, addr_, a_opts, b_opts, b_err, b_listen_err)	\
	.state = (state_), .sk = {					\
		{ .addr = (addr_), .opts = (a_opts) },			\
		{ .addr = (addr_), .opts = (b_opts), .err = (b_err),	\
		  .listen_err = (b_listen_err) } }

FIXTURE_VARIANT_ADD(bind_conflict, bound_none_none)
{ ROW(A_BOUND, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_none_addr)
{ ROW(A_BOUND, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_none_port)
{ ROW(A_BOUND, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_none_both)
{ ROW(A_BOUND, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_addr_none)
{ ROW(A_BOUND, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_addr_addr)
{ ROW(A_BOUND, V4_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_addr_port)
{ ROW(A_BOUND, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_addr_both)
{ ROW(A_BOUND, V4_LO, RA, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_port_none)
{ ROW(A_BOUND, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_port_addr)
{ ROW(A_BOUND, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_port_port)
{ ROW(A_BOUND, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_port_both)
{ ROW(A_BOUND, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_both_none)
{ ROW(A_BOUND, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_both_addr)
{ ROW(A_BOUND, V4_LO, RA | RP, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_both_port)
{ ROW(A_BOUND, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, bound_both_both)
{ ROW(A_BOUND, V4_LO, RA | RP, RA | RP, 0, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, listen_none_none)
{ ROW(A_LISTEN, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_none_addr)
{ ROW(A_LISTEN, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_none_port)
{ ROW(A_LISTEN, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_none_both)
{ ROW(A_LISTEN, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_addr_none)
{ ROW(A_LISTEN, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_addr_addr)
{ ROW(A_LISTEN, V4_LO, RA, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_addr_port)
{ ROW(A_LISTEN, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_addr_both)
{ ROW(A_LISTEN, V4_LO, RA, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_port_none)
{ ROW(A_LISTEN, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_port_addr)
{ ROW(A_LISTEN, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_port_port)
{ ROW(A_LISTEN, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_port_both)
{ ROW(A_LISTEN, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_both_none)
{ ROW(A_LISTEN, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_both_addr)
{ ROW(A_LISTEN, V4_LO, RA | RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_both_port)
{ ROW(A_LISTEN, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_both_both)
{ ROW(A_LISTEN, V4_LO, RA | RP, RA | RP, 0, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, listen_later_none_none)
{ ROW(A_LISTEN_LATER, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_none_addr)
{ ROW(A_LISTEN_LATER, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_none_port)
{ ROW(A_LISTEN_LATER, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_none_both)
{ ROW(A_LISTEN_LATER, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_addr_none)
{ ROW(A_LISTEN_LATER, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_addr_addr)
{ ROW(A_LISTEN_LATER, V4_LO, RA, RA, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_addr_port)
{ ROW(A_LISTEN_LATER, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_addr_both)
{ ROW(A_LISTEN_LATER, V4_LO, RA, RA | RP, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_port_none)
{ ROW(A_LISTEN_LATER, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_port_addr)
{ ROW(A_LISTEN_LATER, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_port_port)
{ ROW(A_LISTEN_LATER, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_port_both)
{ ROW(A_LISTEN_LATER, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_both_none)
{ ROW(A_LISTEN_LATER, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_both_addr)
{ ROW(A_LISTEN_LATER, V4_LO, RA | RP, RA, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_both_port)
{ ROW(A_LISTEN_LATER, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, listen_later_both_both)
{ ROW(A_LISTEN_LATER, V4_LO, RA | RP, RA | RP, 0, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, child_none_none)
{ ROW(A_CHILD, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_none_addr)
{ ROW(A_CHILD, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_none_port)
{ ROW(A_CHILD, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_none_both)
{ ROW(A_CHILD, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_addr_none)
{ ROW(A_CHILD, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_addr_addr)
{ ROW(A_CHILD, V4_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_addr_port)
{ ROW(A_CHILD, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_addr_both)
{ ROW(A_CHILD, V4_LO, RA, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_port_none)
{ ROW(A_CHILD, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_port_addr)
{ ROW(A_CHILD, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_port_port)
{ ROW(A_CHILD, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_port_both)
{ ROW(A_CHILD, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_both_none)
{ ROW(A_CHILD, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_both_addr)
{ ROW(A_CHILD, V4_LO, RA | RP, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_both_port)
{ ROW(A_CHILD, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, child_both_both)
{ ROW(A_CHILD, V4_LO, RA | RP, RA | RP, 0, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, autobind_none_none)
{ ROW(A_AUTOBIND, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_none_addr)
{ ROW(A_AUTOBIND, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_none_port)
{ ROW(A_AUTOBIND, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_none_both)
{ ROW(A_AUTOBIND, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_addr_none)
{ ROW(A_AUTOBIND, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_addr_addr)
{ ROW(A_AUTOBIND, V4_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_addr_port)
{ ROW(A_AUTOBIND, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_addr_both)
{ ROW(A_AUTOBIND, V4_LO, RA, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_port_none)
{ ROW(A_AUTOBIND, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_port_addr)
{ ROW(A_AUTOBIND, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_port_port)
{ ROW(A_AUTOBIND, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_port_both)
{ ROW(A_AUTOBIND, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_both_none)
{ ROW(A_AUTOBIND, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_both_addr)
{ ROW(A_AUTOBIND, V4_LO, RA | RP, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_both_port)
{ ROW(A_AUTOBIND, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, autobind_both_both)
{ ROW(A_AUTOBIND, V4_LO, RA | RP, RA | RP, 0, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, time_wait_none_none)
{ ROW(A_TIME_WAIT, V4_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_none_addr)
{ ROW(A_TIME_WAIT, V4_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_none_port)
{ ROW(A_TIME_WAIT, V4_LO, 0, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_none_both)
{ ROW(A_TIME_WAIT, V4_LO, 0, RA | RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_addr_none)
{ ROW(A_TIME_WAIT, V4_LO, RA, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_addr_addr)
{ ROW(A_TIME_WAIT, V4_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_addr_port)
{ ROW(A_TIME_WAIT, V4_LO, RA, RP, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_addr_both)
{ ROW(A_TIME_WAIT, V4_LO, RA, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_port_none)
{ ROW(A_TIME_WAIT, V4_LO, RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_port_addr)
{ ROW(A_TIME_WAIT, V4_LO, RP, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_port_port)
{ ROW(A_TIME_WAIT, V4_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_port_both)
{ ROW(A_TIME_WAIT, V4_LO, RP, RA | RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_both_none)
{ ROW(A_TIME_WAIT, V4_LO, RA | RP, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_both_addr)
{ ROW(A_TIME_WAIT, V4_LO, RA | RP, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_both_port)
{ ROW(A_TIME_WAIT, V4_LO, RA | RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, time_wait_both_both)
{ ROW(A_TIME_WAIT, V4_LO, RA | RP, RA | RP, 0, 0) };

/* The same rules on IPv6 and v4-mapped addresses, and across families. */
FIXTURE_VARIANT_ADD(bind_conflict, v6_bound_none_none)
{ ROW(A_BOUND, V6_LO, 0, 0, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_bound_addr_addr)
{ ROW(A_BOUND, V6_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_listen_addr_addr)
{ ROW(A_LISTEN, V6_LO, RA, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_listen_port_port)
{ ROW(A_LISTEN, V6_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_listen_later_addr_addr)
{ ROW(A_LISTEN_LATER, V6_LO, RA, RA, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_child_addr_addr)
{ ROW(A_CHILD, V6_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_autobind_port_port)
{ ROW(A_AUTOBIND, V6_LO, RP, RP, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_time_wait_addr_addr)
{ ROW(A_TIME_WAIT, V6_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_time_wait_none_addr)
{ ROW(A_TIME_WAIT, V6_LO, 0, RA, EADDRINUSE, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_v4mapped_time_wait_addr_addr)
{ ROW(A_TIME_WAIT, V4M_LO, RA, RA, 0, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_v4mapped_autobind_none_none)
{ ROW(A_AUTOBIND, V4M_LO, 0, 0, EADDRINUSE, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, mixed_time_wait_addr_addr)
{
	.state = A_TIME_WAIT,
	.sk = { { .addr = V4_LO, .opts = RA }, { .addr = V4M_LO, .opts = RA } },
};

FIXTURE_VARIANT_ADD(bind_conflict, mixed_time_wait_none_none)
{
	.state = A_TIME_WAIT,
	.sk = { { .addr = V4_LO }, { .addr = V4M_LO, .err = EADDRINUSE } },
};

/*
 * A wildcard listener's child holds the address its connection came to
 * (__inet_inherit_port() moves it to that address's bind2 bucket): the
 * port's other addresses stay free.
 */
FIXTURE_VARIANT_ADD(bind_conflict, child_none_none_none_from_any)
{
	.state = A_CHILD,
	.sk = { { .addr = V4_ANY }, { .addr = V4_LO2 },
		{ .addr = V4_LO, .err = EADDRINUSE } },
};

/* SO_REUSEPORT wants one uid; TIME_WAIT and SO_REUSEADDR do not care. */
FIXTURE_VARIANT_ADD(bind_conflict, uid_b_bound_port_port)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .other_uid = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_a_bound_port_port)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .opts = RP, .other_uid = true },
		{ .addr = V4_LO, .opts = RP, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_bound_both_both)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .opts = RA | RP },
		{ .addr = V4_LO, .opts = RA | RP, .other_uid = true } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_listen_port_port)
{
	.state = A_LISTEN,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .other_uid = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_a_listen_port_port)
{
	.state = A_LISTEN,
	.sk = { { .addr = V4_LO, .opts = RP, .other_uid = true },
		{ .addr = V4_LO, .opts = RP, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_listen_both_both)
{
	.state = A_LISTEN,
	.sk = { { .addr = V4_LO, .opts = RA | RP },
		{ .addr = V4_LO, .opts = RA | RP, .other_uid = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_listen_later_both_both)
{
	.state = A_LISTEN_LATER,
	.sk = { { .addr = V4_LO, .opts = RA | RP },
		{ .addr = V4_LO, .opts = RA | RP, .other_uid = true, .listen_err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_child_port_port)
{
	.state = A_CHILD,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .other_uid = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_autobind_port_port)
{
	.state = A_AUTOBIND,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .other_uid = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_time_wait_port_port)
{
	.state = A_TIME_WAIT,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .other_uid = true } },
};

FIXTURE_VARIANT_ADD(bind_conflict, uid_b_time_wait_none_port)
{
	.state = A_TIME_WAIT,
	.sk = { { .addr = V4_LO },
		{ .addr = V4_LO, .opts = RP, .other_uid = true, .err = EADDRINUSE } },
};

/*
 * SO_BINDTODEVICE: sockets bound to two different devices never
 * conflict; a socket bound to none conflicts with all.
 */
#define DEV_ROW(a_addr, a_dev, b_addr, b_dev, b_err)			\
	.state = A_BOUND, .sk = {					\
		{ .addr = (a_addr), .dev = (a_dev) },			\
		{ .addr = (b_addr), .dev = (b_dev), .err = (b_err) } }

FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_other)
{ DEV_ROW(V4_ANY, DEV_LO, V4_ANY, DEV_OTHER, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_lo)
{ DEV_ROW(V4_ANY, DEV_LO, V4_ANY, DEV_LO, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_none)
{ DEV_ROW(V4_ANY, DEV_LO, V4_ANY, DEV_NONE, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_none_lo)
{ DEV_ROW(V4_ANY, DEV_NONE, V4_ANY, DEV_LO, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_none_other)
{ DEV_ROW(V4_ANY, DEV_NONE, V4_ANY, DEV_OTHER, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_other_other)
{ DEV_ROW(V4_ANY, DEV_OTHER, V4_ANY, DEV_OTHER, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_other_specific)
{ DEV_ROW(V4_LO, DEV_LO, V4_LO, DEV_OTHER, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_dev_bound_lo_other)
{ DEV_ROW(V6_ANY, DEV_LO, V6_ANY, DEV_OTHER, 0) };
FIXTURE_VARIANT_ADD(bind_conflict, v6_dev_bound_lo_none)
{ DEV_ROW(V6_ANY, DEV_LO, V6_ANY, DEV_NONE, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_conflict, mixed_dev_bound_lo_other)
{ DEV_ROW(V6_ANY, DEV_LO, V4_ANY, DEV_OTHER, 0) };

FIXTURE_VARIANT_ADD(bind_conflict, dev_listen_lo_other)
{
	.state = A_LISTEN,
	.sk = { { .addr = V4_ANY, .dev = DEV_LO },
		{ .addr = V4_ANY, .dev = DEV_OTHER } },
};

FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_other_b_port0)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_ANY, .dev = DEV_LO },
		{ .addr = V4_ANY, .dev = DEV_OTHER, .port0 = true } },
};

FIXTURE_VARIANT_ADD(bind_conflict, dev_bound_lo_lo_b_port0)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_ANY, .dev = DEV_LO },
		{ .addr = V4_ANY, .dev = DEV_LO, .port0 = true, .err = EADDRINUSE } },
};

/*
 * The six first-bind cases of "tcp: Fix fastreuse cache initialization on first bind",
 * by behaviour: after a first bind()
 * with SO_REUSEADDR, SO_REUSEPORT or both, to an explicit port or to
 * port 0, binds of the same kind succeed (bind_fastreuse checks that
 * they stay cheap).
 */
#define FIRST_ROW(opts_, a_port0)					\
	.state = A_BOUND, .sk = {					\
		{ .addr = V4_ANY, .opts = (opts_), .port0 = (a_port0) },	\
		{ .addr = V4_ANY, .opts = (opts_) },			\
		{ .addr = V4_ANY, .opts = (opts_) } }

FIXTURE_VARIANT_ADD(bind_conflict, first_bound_addr_addr_addr)
{ FIRST_ROW(RA, false) };
FIXTURE_VARIANT_ADD(bind_conflict, first_bound_port_port_port)
{ FIRST_ROW(RP, false) };
FIXTURE_VARIANT_ADD(bind_conflict, first_bound_both_both_both)
{ FIRST_ROW(RA | RP, false) };
FIXTURE_VARIANT_ADD(bind_conflict, first_bound_addr_addr_addr_a_port0)
{ FIRST_ROW(RA, true) };
FIXTURE_VARIANT_ADD(bind_conflict, first_bound_port_port_port_a_port0)
{ FIRST_ROW(RP, true) };
FIXTURE_VARIANT_ADD(bind_conflict, first_bound_both_both_both_a_port0)
{ FIRST_ROW(RA | RP, true) };

/*
 * That fix's two guards: the caches of a port must not be reset as if
 * its first bind() were happening when an owner, or another address's
 * owner, is there already.
 */
FIXTURE_VARIANT_ADD(bind_conflict, guard_bound_port_both_addr_existing_owner)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_ANY, .opts = RP },
		{ .addr = V4_ANY, .opts = RA | RP },
		{ .addr = V4_ANY, .opts = RA, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, guard_bound_none_port_port_new_address)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO },
		{ .addr = V4_LO2, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .err = EADDRINUSE } },
};

/*
 * Port 0 (the range narrowed to the port A holds): the kernel hands out
 * a port only if no reuse option is needed to share it, and never a port
 * that a TIME_WAIT socket holds on the address.
 */
FIXTURE_VARIANT_ADD(bind_conflict, port0_a_bound_none_none)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .port0 = true },
		{ .addr = V4_LO, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_bound_addr_addr)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .opts = RA },
		{ .addr = V4_LO, .opts = RA, .port0 = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_bound_port_port)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO, .opts = RP },
		{ .addr = V4_LO, .opts = RP, .port0 = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_listen_both_both)
{
	.state = A_LISTEN,
	.sk = { { .addr = V4_LO, .opts = RA | RP },
		{ .addr = V4_LO, .opts = RA | RP, .port0 = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_time_wait_addr_addr)
{
	.state = A_TIME_WAIT,
	.sk = { { .addr = V4_LO, .opts = RA },
		{ .addr = V4_LO, .opts = RA, .port0 = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_bound_none_none_other_address)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO }, { .addr = V4_LO2, .port0 = true } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_bound_none_none_wildcard)
{
	.state = A_BOUND,
	.sk = { { .addr = V4_LO },
		{ .addr = V4_ANY, .port0 = true, .err = EADDRINUSE } },
};

FIXTURE_VARIANT_ADD(bind_conflict, port0_b_bound_none_none_other_family)
{
	.state = A_BOUND,
	.sk = { { .addr = V6_LO }, { .addr = V4_LO, .port0 = true } },
};
