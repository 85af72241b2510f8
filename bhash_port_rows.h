/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of port_choice (bind_bhash_test.c, bhash_ports.h), one rule
 * of the port's choice, or of bind()'s checks before it, each (the last
 * rows of this file), named by the rule (bl_port_rule_words,
 * lib/vocab.c) and the row's qualifiers. Included once, after the
 * fixture's FIXTURE_VARIANT(). Ranges sit at 40000, above the rows'
 * PORT and PORT_PEER; even sizes but in the _odd_range rows: the kernel
 * scans an even number of ports of a range (remaining &= ~1, since
 * 4.6), so the top port of an odd one is never chosen, but through
 * connect() under IP_LOCAL_PORT_RANGE, which takes every port in turn.
 *
 * inet_csk_find_open_port() (bind() to port 0): from the range of
 * inet_sk_get_local_port_range() (ip_local_port_range, narrowed by a
 * socket's IP_LOCAL_PORT_RANGE inside it), skipping
 * ip_local_reserved_ports; odd offsets from the low end first (connect()
 * takes even ones first); with SO_REUSEADDR (SK_CAN_REUSE) the lower
 * half first, (size / 4) * 2 ports, unless the range is under 4 ports;
 * a port is taken only with no conflict at all (relax false), then,
 * with ip_autobind_reuse, once more sharing SO_REUSEADDR owners (relax
 * true); else EADDRINUSE. A bucket is per device only through an L3
 * master (VRF, not in the lab's config); SO_BINDTODEVICE still matters
 * through the conflict check (inet_bind_conflict()).
 *
 * __inet_hash_connect() (connect() without a port, or after a bind()
 * with IP_BIND_ADDRESS_NO_PORT): the same range and reserved ports,
 * even offsets first (every offset in turn under IP_LOCAL_PORT_RANGE);
 * a port a bind() holds is never taken (fastreuse >= 0); one connect()
 * holds is shared by other 4-tuples (__inet_check_established()), and
 * a TIME_WAIT's 4-tuple is taken over only as tcp_tw_reuse allows
 * (tcp_twsk_unique()); else EADDRNOTAVAIL.
 */
#define PC_DEV(rule_, addr_, opts_, dev_, lo_, hi_, op_)		\
	.rule = (rule_),						\
	.sk = { .addr = (addr_), .opts = (opts_), .dev = (dev_) },	\
	.lo = (lo_), .hi = (hi_), .op = (op_)
#define PC(rule_, addr_, opts_, lo_, hi_, op_)				\
	PC_DEV(rule_, addr_, opts_, DEV_NONE, lo_, hi_, op_)

FIXTURE_VARIANT_ADD(port_choice, v4_port0_in_range)
{ .row = { PC(BL_P_RANGE, V4_LO, 0, 40000, 40999, PC_BIND0), .ok = 16 } };
FIXTURE_VARIANT_ADD(port_choice, v6_port0_in_range)
{ .row = { PC(BL_P_RANGE, V6_LO, 0, 40000, 40999, PC_BIND0), .ok = 16 } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_in_range_connect)
{ .row = { PC(BL_P_RANGE, V4_LO, 0, 40000, 40999, PC_CONNECT), .ok = 16 } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40099, PC_BIND0),
	   .sk_lo = 40010, .sk_hi = 40013, .ok = 4, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_outside)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40003, PC_BIND0),
	   .sk_lo = 50000, .sk_hi = 50003, .ok = 4, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_connect)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40099, PC_CONNECT),
	   .sk_lo = 40010, .sk_hi = 40013, .ok = 4, .err = EADDRNOTAVAIL } };

/* The socket's range is one end of the net's: that port alone. */
FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_at_high)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40003, PC_BIND0),
	   .sk_lo = 40003, .sk_hi = 40003, .ok = 1, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_at_low)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40003, PC_BIND0),
	   .sk_lo = 40000, .sk_hi = 40000, .ok = 1, .err = EADDRINUSE } };

/* Under IP_LOCAL_PORT_RANGE connect() starts at either parity. */
FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_connect_any_parity)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40999, PC_CONNECT),
	   .sk_lo = 40000, .sk_hi = 40999, .ok = PC_MAX_OPS, .pref = PC_MIXED,
	   .pref_n = PC_MAX_OPS } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_sock_range_connect_odd_range)
{ .row = { PC(BL_P_SOCK_RANGE, V4_LO, 0, 40000, 40099, PC_CONNECT),
	   .sk_lo = 40010, .sk_hi = 40012, .ok = 3, .err = EADDRNOTAVAIL } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_not_reserved)
{ .row = { PC(BL_P_RESERVED, V4_LO, 0, 40000, 40009, PC_BIND0),
	   .res_lo = 40000, .res_hi = 40007, .ok = 2, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_not_reserved_connect)
{ .row = { PC(BL_P_RESERVED, V4_LO, 0, 40000, 40009, PC_CONNECT),
	   .res_lo = 40000, .res_hi = 40007, .ok = 2, .err = EADDRNOTAVAIL } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_exhausts)
{ .row = { PC(BL_P_EXHAUSTS, V4_LO, 0, 40000, 40009, PC_BIND0),
	   .ok = 10, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_exhausts_reuseaddr)
{ .row = { PC(BL_P_EXHAUSTS, V4_LO, RA, 40000, 40009, PC_BIND0),
	   .ok = 10, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_exhausts_odd_range)
{ .row = { PC(BL_P_EXHAUSTS, V4_LO, 0, 40000, 40002, PC_BIND0),
	   .ok = 2, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v6_port0_exhausts)
{ .row = { PC(BL_P_EXHAUSTS, V6_LO, 0, 40000, 40009, PC_BIND0),
	   .ok = 10, .err = EADDRINUSE } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_odd_first)
{ .row = { PC(BL_P_ODD_FIRST, V4_LO, 0, 40000, 40007, PC_BIND0),
	   .ok = 4, .pref = PC_ODD, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_odd_first_odd_low)
{ .row = { PC(BL_P_ODD_FIRST, V4_LO, 0, 40001, 40008, PC_BIND0),
	   .ok = 4, .pref = PC_ODD, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v6_port0_odd_first)
{ .row = { PC(BL_P_ODD_FIRST, V6_LO, 0, 40000, 40007, PC_BIND0),
	   .ok = 4, .pref = PC_ODD, .pref_n = 4 } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_reuseaddr_low_half)
{ .row = { PC(BL_P_LOW_HALF, V4_LO, RA, 40000, 40007, PC_BIND0),
	   .ok = 8, .err = EADDRINUSE, .pref = PC_LOW_HALF, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_reuseaddr_low_half_range4)
{ .row = { PC(BL_P_LOW_HALF, V4_LO, RA, 40000, 40003, PC_BIND0),
	   .ok = 2, .pref = PC_LOW_HALF, .pref_n = 2 } };
FIXTURE_VARIANT_ADD(port_choice, v6_port0_reuseaddr_low_half)
{ .row = { PC(BL_P_LOW_HALF, V6_LO, RA, 40000, 40007, PC_BIND0),
	   .ok = 4, .pref = PC_LOW_HALF, .pref_n = 4 } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_narrow_whole)
{ .row = { PC(BL_P_NARROW_WHOLE, V4_LO, RA, 40000, 40001, PC_BIND0),
	   .ok = 2, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_narrow_whole_one)
{ .row = { PC(BL_P_NARROW_WHOLE, V4_LO, RA, 40000, 40000, PC_BIND0),
	   .ok = 1, .err = EADDRINUSE } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_autobind_reuse)
{ .row = { PC(BL_P_AUTOBIND_REUSE, V4_LO, RA, 40000, 40003, PC_BIND0),
	   .autobind_reuse = 1, .ok = 6 } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_autobind_reuse_off)
{ .row = { PC(BL_P_AUTOBIND_REUSE, V4_LO, RA, 40000, 40003, PC_BIND0),
	   .ok = 4, .err = EADDRINUSE } };
/* Never another SO_REUSEPORT owner's port of the same uid: its group. */
FIXTURE_VARIANT_ADD(port_choice, v4_port0_autobind_reuse_reuseport)
{ .row = { PC(BL_P_AUTOBIND_REUSE, V4_LO, RA | RP, 40000, 40003, PC_BIND0),
	   .autobind_reuse = 1, .ok = 4, .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_autobind_reuse_plain)
{ .row = { PC(BL_P_AUTOBIND_REUSE, V4_LO, 0, 40000, 40003, PC_BIND0),
	   .autobind_reuse = 1, .ok = 4, .err = EADDRINUSE } };

FIXTURE_VARIANT_ADD(port_choice, v4_port0_bound_dev)
{ .row = { PC_DEV(BL_P_BOUND_DEV, V4_LO, 0, DEV_LO, 40000, 40000, PC_BIND0),
	   .pre = PC_PRE_DEV_OTHER, .ok = 1,
	   .err = EADDRINUSE } };
FIXTURE_VARIANT_ADD(port_choice, v4_port0_bound_dev_none)
{ .row = { PC(BL_P_BOUND_DEV, V4_LO, 0, 40000, 40000, PC_BIND0),
	   .pre = PC_PRE_DEV_OTHER, .err = EADDRINUSE } };

/*
 * A wildcard bind() of another port in each port's bhash2 chain
 * (PC_CHAIN_BIT): the ports stay free (bhash2's lookups match the port,
 * not only the chain).
 */
FIXTURE_VARIANT_ADD(port_choice, v4_port0_other_port_wildcard)
{ .row = { PC(BL_P_OTHER_WILDCARD, V4_LO, 0, 40000, 40003, PC_BIND0),
	   .pre = PC_PRE_CHAIN, .ok = 4, .err = EADDRINUSE } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_even_first)
{ .row = { PC(BL_P_C_EVEN_FIRST, V4_LO, 0, 40000, 40007, PC_CONNECT),
	   .ok = 4, .pref = PC_EVEN, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v4_connect_even_first_odd_low)
{ .row = { PC(BL_P_C_EVEN_FIRST, V4_LO, 0, 40001, 40008, PC_CONNECT),
	   .ok = 4, .pref = PC_EVEN, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v6_connect_even_first)
{ .row = { PC(BL_P_C_EVEN_FIRST, V6_LO, 0, 40000, 40007, PC_CONNECT),
	   .ok = 4, .pref = PC_EVEN, .pref_n = 4 } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_exhausts)
{ .row = { PC(BL_P_C_EXHAUSTS, V4_LO, 0, 40000, 40007, PC_CONNECT),
	   .ok = 8, .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v4_connect_exhausts_odd_range)
{ .row = { PC(BL_P_C_EXHAUSTS, V4_LO, 0, 40000, 40002, PC_CONNECT),
	   .ok = 2, .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v6_connect_exhausts)
{ .row = { PC(BL_P_C_EXHAUSTS, V6_LO, 0, 40000, 40007, PC_CONNECT),
	   .ok = 8, .err = EADDRNOTAVAIL } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_skips_bound)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, 0, 40000, 40001, PC_CONNECT),
	   .pre = PC_PRE_BOUND, .ok = 1, .err = EADDRNOTAVAIL } };

/* Another port's bucket in the low end's bhash chain: not this port's. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_skips_bound_not_chain)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .pre = PC_PRE_BHASH_CHAIN, .ok = 1, .err = EADDRNOTAVAIL } };
/* The port's bucket made by connect(), then a bind() joined it. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_skips_bound_joined)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, RA, 40000, 40000, PC_CONNECT),
	   .pre = PC_PRE_JOINED, .err = EADDRNOTAVAIL } };

/* The bind()'s last owner, a FIN_WAIT2 orphan, ended alone: the port is free. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_after_bound_fin_wait2_ended)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .pre = PC_PRE_FW2_GONE, .ok = 1, .err = EADDRNOTAVAIL } };

/* A wildcard bind()'s socket connect()ed, then reset: the port is free. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_after_bound_any_reset)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .pre = PC_PRE_ANY_RESET, .ok = 1, .err = EADDRNOTAVAIL } };

/* A refused bind() to the holder's wildcard, then the holder closed. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_skips_bound_released)
{ .row = { PC(BL_P_C_SKIPS_BOUND, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .pre = PC_PRE_REFUSED, .ok = 1, .err = EADDRNOTAVAIL } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_shares_port)
{ .row = { PC(BL_P_C_SHARES, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .ndest = 2, .ok = 2, .err = EADDRNOTAVAIL } };

/* A port two connect()s share: a bind() meets each of them. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_shares_port_bind)
{ .row = { PC(BL_P_C_SHARES, V4_LO, RA, 40000, 40000, PC_BIND_DOWN),
	   .port = 40000, .pre = PC_PRE_SHARED, .ndest = 2, .err = EADDRINUSE } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_bind_no_port)
{ .row = { PC(BL_P_C_NO_PORT, V4_LO, 0, 40000, 40007, PC_NO_PORT),
	   .ok = 4, .pref = PC_EVEN, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v6_connect_bind_no_port)
{ .row = { PC(BL_P_C_NO_PORT, V6_LO, 0, 40000, 40007, PC_NO_PORT),
	   .ok = 4, .pref = PC_EVEN, .pref_n = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v4_connect_bind_no_port_shares)
{ .row = { PC(BL_P_C_NO_PORT, V4_LO, 0, 40000, 40000, PC_NO_PORT),
	   .ndest = 2, .ok = 2, .err = EADDRNOTAVAIL } };

FIXTURE_VARIANT_ADD(port_choice, v4_connect_tw_reuse_off)
{ .row = { PC(BL_P_C_TW_REUSE, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .tw_reuse = 0, .pre = PC_PRE_TW, .err = EADDRNOTAVAIL } };
/* Not a FIN_WAIT2 one, whatever tcp_tw_reuse says: EADDRNOTAVAIL. */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_tw_reuse_on_fin_wait2)
{ .row = { PC(BL_P_C_TW_REUSE, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .tw_reuse = 1, .pre = PC_PRE_FIN_WAIT2, .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v4_connect_tw_reuse_on)
{ .row = { PC(BL_P_C_TW_REUSE, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .tw_reuse = 1, .pre = PC_PRE_TW, .ok = 1, .err = EADDRNOTAVAIL } };
/*
 * Within tcp_tw_reuse's delay the TIME_WAIT is not taken over: 6.12
 * wants a later second of its timestamp, 6.14+ tcp_tw_reuse_delay (1 s).
 */
FIXTURE_VARIANT_ADD(port_choice, v4_connect_tw_reuse_on_young)
{ .row = { PC(BL_P_C_TW_REUSE, V4_LO, 0, 40000, 40000, PC_CONNECT),
	   .tw_reuse = 1, .pre = PC_PRE_TW_YOUNG, .err = EADDRNOTAVAIL } };

/*
 * __inet_bind(), __inet6_bind(): an address no interface has is
 * EADDRNOTAVAIL, unless IP_FREEBIND, IP_TRANSPARENT or ip_nonlocal_bind
 * (net.ipv4's for IPv4 and v4-mapped addresses, net.ipv6's for IPv6)
 * allow it. IPv4 multicast and broadcast addresses count as local; an
 * IPv6 multicast address is EINVAL for TCP, as is a link-local one with
 * no device to scope it. The port is then chosen as for any port 0.
 */
#define PC_NL(addr_, opt_, nonlocal_)					\
	PC(BL_P_NONLOCAL, addr_, 0, 40000, 40999, PC_BIND0),		\
	.opt = (opt_), .nonlocal = (nonlocal_)

FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal)
{ .row = { PC_NL(V4_NONLOCAL, PC_OPT_NONE, NULL), .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_freebind)
{ .row = { PC_NL(V4_NONLOCAL, PC_OPT_FREEBIND, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_transparent)
{ .row = { PC_NL(V4_NONLOCAL, PC_OPT_TRANSPARENT, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_sysctl)
{ .row = { PC_NL(V4_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL4), .ok = 1 } };
/*
 * IP_FREEBIND lets bind() take the address, not connect() send from it:
 * its route needs a local source, so connect() is ENETUNREACH at once.
 * IP_TRANSPARENT makes any source routable (FLOWI_FLAG_ANYSRC): the SYN
 * leaves, and nothing can answer an address with no way back to it: the
 * handshake is still under way at the row's 200 ms (EINPROGRESS).
 */
#define PC_NL_CONNECT(opt_)						\
	PC(BL_P_NONLOCAL, V4_NONLOCAL, 0, 40000, 40999, PC_BIND_CONNECT),	\
	.opt = (opt_), .peer = V4_LO, .connect_ms = 200

FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_freebind_connect)
{ .row = { PC_NL_CONNECT(PC_OPT_FREEBIND), .err = ENETUNREACH } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_transparent_connect)
{ .row = { PC_NL_CONNECT(PC_OPT_TRANSPARENT), .err = EINPROGRESS } };
/* The sysctl of the other family allows nothing here. */
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_sysctl_v6)
{ .row = { PC_NL(V4_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL6),
	   .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_multicast)
{ .row = { PC_NL("224.0.0.1", PC_OPT_NONE, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_nonlocal_broadcast)
{ .row = { PC_NL("255.255.255.255", PC_OPT_NONE, NULL), .ok = 1 } };

FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal)
{ .row = { PC_NL(V6_NONLOCAL, PC_OPT_NONE, NULL), .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_freebind)
{ .row = { PC_NL(V6_NONLOCAL, PC_OPT_FREEBIND, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_transparent)
{ .row = { PC_NL(V6_NONLOCAL, PC_OPT_TRANSPARENT, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_sysctl)
{ .row = { PC_NL(V6_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL6), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_sysctl_v4)
{ .row = { PC_NL(V6_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL4),
	   .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_multicast)
{ .row = { PC_NL("ff0e::1", PC_OPT_NONE, NULL), .err = EINVAL } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_nonlocal_link_local)
{ .row = { PC_NL("fe80::1", PC_OPT_NONE, NULL), .err = EINVAL } };

FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_nonlocal)
{ .row = { PC_NL(V4M_NONLOCAL, PC_OPT_NONE, NULL), .err = EADDRNOTAVAIL } };
FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_nonlocal_freebind)
{ .row = { PC_NL(V4M_NONLOCAL, PC_OPT_FREEBIND, NULL), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_nonlocal_sysctl)
{ .row = { PC_NL(V4M_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL4), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_nonlocal_sysctl_v6)
{ .row = { PC_NL(V4M_NONLOCAL, PC_OPT_NONE, SYSCTL_NONLOCAL6),
	   .err = EADDRNOTAVAIL } };

/*
 * The address's family must be the socket's (EAFNOSUPPORT), but for an
 * IPv4 socket given INADDR_ANY as AF_UNSPEC, accepted for old programs
 * (__inet_bind()); an IPv6 socket takes AF_INET6 only (__inet6_bind()).
 */
#define PC_FAM(addr_)							\
	PC(BL_P_FAMILY, addr_, 0, 40000, 40999, PC_BIND0), .unspec = true

FIXTURE_VARIANT_ADD(port_choice, v4_bind_family_unspec_any)
{ .row = { PC_FAM(V4_ANY), .ok = 1 } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_family_unspec)
{ .row = { PC_FAM(V4_LO), .err = EAFNOSUPPORT } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_family_unspec_any)
{ .row = { PC_FAM(V6_ANY), .err = EAFNOSUPPORT } };
/* A v4-mapped address on a V6ONLY socket: no IPv4 for it, EINVAL. */
FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_family_v6only)
{ .row = { PC(BL_P_FAMILY, V4M_LO, V6ONLY, 40000, 40999, PC_BIND0),
	   .err = EINVAL } };

/*
 * connect(AF_UNSPEC) undoes connect(), not bind(): a port or address the
 * row bound stays, port 0's port goes and so does the address a wildcard
 * bind() got from connect() (tcp_disconnect()).
 */
#define PC_DISC(addr_, port_, after_, keep_)				\
	PC(BL_P_DISCONNECT, addr_, 0, 40000, 40999, PC_DISCONNECT),	\
	.port = (port_), .after = (after_), .keep = (keep_), .ok = 1

FIXTURE_VARIANT_ADD(port_choice, v4_bind_disconnect)
{ .row = { PC_DISC(V4_LO, 30010, V4_LO, true) } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_disconnect_port0)
{ .row = { PC_DISC(V4_LO, 0, V4_LO, false) } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_disconnect_any)
{ .row = { PC_DISC(V4_ANY, 30010, V4_ANY, true) } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_disconnect)
{ .row = { PC_DISC(V6_LO, 30010, V6_LO, true) } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_disconnect_port0)
{ .row = { PC_DISC(V6_LO, 0, V6_LO, false) } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_disconnect_any)
{ .row = { PC_DISC(V6_ANY, 30010, V6_ANY, true) } };

/* A socket binds once: a second bind() is EINVAL, whatever it asks. */
FIXTURE_VARIANT_ADD(port_choice, v4_bind_twice)
{ .row = { PC(BL_P_TWICE, V4_LO, 0, 40000, 40999, PC_REBIND), .err = EINVAL } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_twice)
{ .row = { PC(BL_P_TWICE, V6_LO, 0, 40000, 40999, PC_REBIND), .err = EINVAL } };

/*
 * bind() takes an IPv4 multicast or broadcast address, but no packet
 * leaves from one: connect() sends from the route's source, and the
 * socket is then bound there, the port kept.
 */
#define PC_GROUP(addr_)							\
	PC(BL_P_GROUP_CONNECT, addr_, 0, 40000, 40999, PC_BIND_CONNECT),	\
	.peer = V4_LO, .after = V4_LO, .ok = 1

FIXTURE_VARIANT_ADD(port_choice, v4_bind_group_connect_multicast)
{ .row = { PC_GROUP("224.0.0.1") } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_group_connect_broadcast)
{ .row = { PC_GROUP("255.255.255.255") } };

/*
 * A bind() below net.ipv4.ip_unprivileged_port_start (1024 in a new
 * namespace) needs CAP_NET_BIND_SERVICE in the namespace's user
 * namespace, whoever created the socket: uid 65534 binds the row's port
 * and the ones below it down to that start, then gets EACCES; uid 0 and
 * a uid that keeps the capability bind all of them.
 */
#define PC_PRIV(addr_, port_, uid_, prot_sock_)				\
	.rule = BL_P_PRIVILEGED,					\
	.sk = { .addr = (addr_), .other_uid = (uid_) },			\
	.lo = 40000, .hi = 40999, .op = PC_BIND_DOWN,			\
	.port = (port_), .prot_sock = (prot_sock_)

FIXTURE_VARIANT_ADD(port_choice, v4_bind_privileged)
{ .row = { PC_PRIV(V4_LO, 1025, true, 0), .ok = 2, .err = EACCES } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_privileged)
{ .row = { PC_PRIV(V6_LO, 1025, true, 0), .ok = 2, .err = EACCES } };
FIXTURE_VARIANT_ADD(port_choice, v6_v4mapped_bind_privileged)
{ .row = { PC_PRIV(V4M_LO, 1025, true, 0), .ok = 2, .err = EACCES } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_privileged_sysctl)
{ .row = { PC_PRIV(V4_LO, 20001, true, 20000), .ok = 2, .err = EACCES } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_privileged_cap)
{ .row = { PC_PRIV(V4_LO, 1025, true, 0), .bind_service = true, .ok = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v6_bind_privileged_cap)
{ .row = { PC_PRIV(V6_LO, 1025, true, 0), .bind_service = true, .ok = 4 } };
FIXTURE_VARIANT_ADD(port_choice, v4_bind_privileged_root)
{ .row = { PC_PRIV(V4_LO, 1025, false, 0), .ok = 4 } };
