/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of bind_addr (bind_bhash_test.c): every pair of the canonical
 * addresses, named ADDR__ADDR with bind_wildcard.c's address words.
 * Included once, after the fixture's FIXTURE_VARIANT().
 */
/*
 * Addresses overlap when one is the wildcard of the other's family, or
 * both are the same: "::" covers IPv4 too unless V6ONLY, "::ffff:a.b.c.d"
 * is the IPv4 address a.b.c.d, an IPv6 socket bound to a non-mapped
 * address is V6ONLY. The three tests agree on every pair (err is the
 * errno of all three).
 */
#define PAIR(a_addr, a_opts, b_addr, b_opts, err_)			\
	.sk = { { .addr = (a_addr), .opts = (a_opts) },			\
		{ .addr = (b_addr), .opts = (b_opts) } },		\
	.err = { [0 ... T_NR - 1] = (err_) }

FIXTURE_VARIANT_ADD(bind_addr, v4_any__v4_any)
{ PAIR(V4_ANY, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v4_local)
{ PAIR(V4_ANY, 0, V4_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v4_local2)
{ PAIR(V4_ANY, 0, V4_LO2, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v6_any)
{ PAIR(V4_ANY, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v6_any_only)
{ PAIR(V4_ANY, 0, V6_ANY, V6ONLY, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v6_local)
{ PAIR(V4_ANY, 0, V6_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v6_v4mapped_any)
{ PAIR(V4_ANY, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_any__v6_v4mapped_local)
{ PAIR(V4_ANY, 0, V4M_LO, 0, EADDRINUSE) };

FIXTURE_VARIANT_ADD(bind_addr, v4_local__v4_any)
{ PAIR(V4_LO, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v4_local)
{ PAIR(V4_LO, 0, V4_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v4_local2)
{ PAIR(V4_LO, 0, V4_LO2, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v6_any)
{ PAIR(V4_LO, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v6_any_only)
{ PAIR(V4_LO, 0, V6_ANY, V6ONLY, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v6_local)
{ PAIR(V4_LO, 0, V6_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v6_v4mapped_any)
{ PAIR(V4_LO, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local__v6_v4mapped_local)
{ PAIR(V4_LO, 0, V4M_LO, 0, EADDRINUSE) };

FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v4_any)
{ PAIR(V4_LO2, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v4_local)
{ PAIR(V4_LO2, 0, V4_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v4_local2)
{ PAIR(V4_LO2, 0, V4_LO2, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v6_any)
{ PAIR(V4_LO2, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v6_any_only)
{ PAIR(V4_LO2, 0, V6_ANY, V6ONLY, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v6_local)
{ PAIR(V4_LO2, 0, V6_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v6_v4mapped_any)
{ PAIR(V4_LO2, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v4_local2__v6_v4mapped_local)
{ PAIR(V4_LO2, 0, V4M_LO, 0, 0) };

FIXTURE_VARIANT_ADD(bind_addr, v6_any__v4_any)
{ PAIR(V6_ANY, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v4_local)
{ PAIR(V6_ANY, 0, V4_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v4_local2)
{ PAIR(V6_ANY, 0, V4_LO2, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v6_any)
{ PAIR(V6_ANY, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v6_any_only)
{ PAIR(V6_ANY, 0, V6_ANY, V6ONLY, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v6_local)
{ PAIR(V6_ANY, 0, V6_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v6_v4mapped_any)
{ PAIR(V6_ANY, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any__v6_v4mapped_local)
{ PAIR(V6_ANY, 0, V4M_LO, 0, EADDRINUSE) };

FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v4_any)
{ PAIR(V6_ANY, V6ONLY, V4_ANY, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v4_local)
{ PAIR(V6_ANY, V6ONLY, V4_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v4_local2)
{ PAIR(V6_ANY, V6ONLY, V4_LO2, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v6_any)
{ PAIR(V6_ANY, V6ONLY, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v6_any_only)
{ PAIR(V6_ANY, V6ONLY, V6_ANY, V6ONLY, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v6_local)
{ PAIR(V6_ANY, V6ONLY, V6_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v6_v4mapped_any)
{ PAIR(V6_ANY, V6ONLY, V4M_ANY, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_any_only__v6_v4mapped_local)
{ PAIR(V6_ANY, V6ONLY, V4M_LO, 0, 0) };

FIXTURE_VARIANT_ADD(bind_addr, v6_local__v4_any)
{ PAIR(V6_LO, 0, V4_ANY, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v4_local)
{ PAIR(V6_LO, 0, V4_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v4_local2)
{ PAIR(V6_LO, 0, V4_LO2, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v6_any)
{ PAIR(V6_LO, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v6_any_only)
{ PAIR(V6_LO, 0, V6_ANY, V6ONLY, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v6_local)
{ PAIR(V6_LO, 0, V6_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v6_v4mapped_any)
{ PAIR(V6_LO, 0, V4M_ANY, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_local__v6_v4mapped_local)
{ PAIR(V6_LO, 0, V4M_LO, 0, 0) };

FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v4_any)
{ PAIR(V4M_ANY, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v4_local)
{ PAIR(V4M_ANY, 0, V4_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v4_local2)
{ PAIR(V4M_ANY, 0, V4_LO2, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v6_any)
{ PAIR(V4M_ANY, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v6_any_only)
{ PAIR(V4M_ANY, 0, V6_ANY, V6ONLY, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v6_local)
{ PAIR(V4M_ANY, 0, V6_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v6_v4mapped_any)
{ PAIR(V4M_ANY, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_any__v6_v4mapped_local)
{ PAIR(V4M_ANY, 0, V4M_LO, 0, EADDRINUSE) };

FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v4_any)
{ PAIR(V4M_LO, 0, V4_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v4_local)
{ PAIR(V4M_LO, 0, V4_LO, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v4_local2)
{ PAIR(V4M_LO, 0, V4_LO2, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v6_any)
{ PAIR(V4M_LO, 0, V6_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v6_any_only)
{ PAIR(V4M_LO, 0, V6_ANY, V6ONLY, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v6_local)
{ PAIR(V4M_LO, 0, V6_LO, 0, 0) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v6_v4mapped_any)
{ PAIR(V4M_LO, 0, V4M_ANY, 0, EADDRINUSE) };
FIXTURE_VARIANT_ADD(bind_addr, v6_v4mapped_local__v6_v4mapped_local)
{ PAIR(V4M_LO, 0, V4M_LO, 0, EADDRINUSE) };
