/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of tw_reuse (tw_reuse_loopback.c): tcp_tw_reuse 0, 1 and 2
 * against each loopback proof and each non-loopback topology. Included
 * once, after the fixture's FIXTURE_VARIANT().
 */
#define REUSED	true
#define REFUSED	false
#define TS	false
#define NO_TS	true

#define TW_ROW(_reuse, _topo, _src, _dst, _dev, _no_ts, _reused)	\
	.reuse = _reuse, .topo = _topo, .src = _src, .dst = _dst,	\
	.dev = _dev, .no_ts = _no_ts, .reused = _reused

/* tcp_tw_reuse=0: never, loopback or not. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v4_loopback)
{ TW_ROW(0, ON_LO, NULL, "127.0.0.1", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v6_loopback)
{ TW_ROW(0, ON_LO, NULL, "::1", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse0_v4_veth_two_netns)
{ TW_ROW(0, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REFUSED) };

/* tcp_tw_reuse=1: everywhere, provided timestamps protect the reuse. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_loopback)
{ TW_ROW(1, ON_LO, NULL, "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_loopback)
{ TW_ROW(1, ON_LO, NULL, "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_v4mapped_loopback)
{ TW_ROW(1, ON_LO, NULL, "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_addrs_on_lo)
{ TW_ROW(1, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_veth_one_netns)
{ TW_ROW(1, VETH_ONE_NETNS, "10.0.0.1", "10.0.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_veth_one_netns)
{ TW_ROW(1, VETH_ONE_NETNS, "fd00::1", "fd00::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_veth_two_netns)
{ TW_ROW(1, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v6_veth_two_netns)
{ TW_ROW(1, VETH_TWO_NETNS, "fd01::1", "fd01::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse1_v4_no_timestamps)
{ TW_ROW(1, ON_LO, NULL, "127.0.0.1", NULL, NO_TS, REFUSED) };

/* tcp_tw_reuse=2: each loopback proof alone suffices... */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_loopback)
{ TW_ROW(2, ON_LO, NULL, "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_dst_127)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_src_127_8)
{ TW_ROW(2, ADDRS_ON_LO, "127.0.0.2", "10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_loopback)
{ TW_ROW(2, ON_LO, NULL, "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_dst_1)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "::1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_src_1)
{ TW_ROW(2, ADDRS_ON_LO, "::1", "fd09::2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_loopback)
{ TW_ROW(2, ON_LO, NULL, "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_dst_127)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:10.9.0.1", "::ffff:127.0.0.1", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_src_127_8)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:127.0.0.2", "::ffff:10.9.0.2", NULL, TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_bound_to_lo)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", "lo", TS, REUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_bound_to_lo)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "fd09::2", "lo", TS, REUSED) };

/* ...and without any, the route through lo does not make it loopback. */
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "10.9.0.1", "10.9.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "fd09::1", "fd09::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_v4mapped_addrs_on_lo)
{ TW_ROW(2, ADDRS_ON_LO, "::ffff:10.9.0.1", "::ffff:10.9.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_veth_one_netns)
{ TW_ROW(2, VETH_ONE_NETNS, "10.0.0.1", "10.0.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_veth_one_netns)
{ TW_ROW(2, VETH_ONE_NETNS, "fd00::1", "fd00::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_veth_two_netns)
{ TW_ROW(2, VETH_TWO_NETNS, "10.1.0.1", "10.1.0.2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v6_veth_two_netns)
{ TW_ROW(2, VETH_TWO_NETNS, "fd01::1", "fd01::2", NULL, TS, REFUSED) };
FIXTURE_VARIANT_ADD(tw_reuse, reuse2_v4_no_timestamps)
{ TW_ROW(2, ON_LO, NULL, "127.0.0.1", NULL, NO_TS, REFUSED) };
