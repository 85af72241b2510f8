// SPDX-License-Identifier: GPL-2.0
/*
 * The name tables of lib/bindlab_vocab.h: the words of the test names,
 * one "[ENUM] = ..." entry a line.
 */
#include "bindlab_vocab.h"

const struct bl_addr_word bl_addr_words[BM_NR_ADDRS] = {
	[BM_V4_ANY] = { "v4_any", BL_HOST_V4_ANY, false },
	[BM_V4_LO] = { "v4_local", BL_HOST_V4_LOCAL, false },
	[BM_V4_LO2] = { "v4_local2", BL_HOST_V4_LOCAL2, false },
	[BM_V6_ANY] = { "v6_any", BL_HOST_V6_ANY, false },
	[BM_V6_ANY_ONLY] = { "v6_any_only", BL_HOST_V6_ANY, true },
	[BM_V6_LO] = { "v6_local", BL_HOST_V6_LOCAL, false },
	[BM_V4M_ANY] = { "v6_v4mapped_any", BL_HOST_V4MAPPED_ANY, false },
	[BM_V4M_LO] = { "v6_v4mapped_local", BL_HOST_V4MAPPED_LOCAL, false },
};

const char * const bl_family_words[BL_NR_FAMILIES] = {
	[BL_FAM_INET] = "v4",
	[BL_FAM_INET6] = "v6",
	[BL_FAM_MAPPED] = "v6_v4mapped",
};

const struct bl_reuse_word bl_reuse_words[BL_NR_REUSE] = {
	[0] = { "none", "plain", "plain" },
	[1] = { "addr", "reuseaddr", "reuseaddr" },
	[2] = { "port", "reuseport", "reuseport" },
	[3] = { "both", "both", "reuseaddr+reuseport" },
};

const char * const bl_state_words[A_NR_STATES] = {
	[A_BOUND] = "bound",
	[A_LISTEN] = "listen",
	[A_LISTEN_LATER] = "listen_later",
	[A_CHILD] = "child",
	[A_AUTOBIND] = "autobind",
	[A_TIME_WAIT] = "time_wait",
};

const char * const bl_rule_words[BM_NR_RULES] = {
	[BM_R_REUSEADDR] = "reuseaddr",
	[BM_R_REUSEADDR_LISTEN] = "reuseaddr_not_listener",
	[BM_R_REUSEPORT] = "reuseport",
	[BM_R_REUSEPORT_UID] = "reuseport_same_uid",
	[BM_R_TW_ANY_UID] = "reuseport_tw_any_uid",
	[BM_R_REUSEPORT_GROUP] = "reuseport_own_group",
	[BM_R_DEV] = "bound_dev",
	[BM_R_V4_SPECIFIC] = "v4_specific",
	[BM_R_V4_WILDCARD] = "v4_wildcard",
	[BM_R_MAPPED_IS_V4] = "v6_v4mapped_is_v4",
	[BM_R_V6_WILDCARD] = "v6_wildcard",
	[BM_R_DUAL_STACK] = "v6_wildcard_dual_stack",
	[BM_R_V6ONLY] = "v6only",
	[BM_R_FAMILY] = "v4_wildcard_not_v6",
	[BM_R_LISTEN_CHECK] = "listen_checks",
	[BM_R_CLOSE] = "close_frees",
	[BM_R_TW_HOLDS] = "tw_holds",
	[BM_R_TW_SADDR] = "tw_saddr",
	[BM_R_V6_DEV_ADDR] = "v6_addr_on_dev",
	[BM_R_PORT0] = "port0_strict",
};

const char * const bl_port_rule_words[BL_NR_PORT_RULES] = {
	[BL_P_RANGE] = "port0_in_range",
	[BL_P_SOCK_RANGE] = "port0_sock_range",
	[BL_P_RESERVED] = "port0_not_reserved",
	[BL_P_EXHAUSTS] = "port0_exhausts",
	[BL_P_ODD_FIRST] = "port0_odd_first",
	[BL_P_LOW_HALF] = "port0_reuseaddr_low_half",
	[BL_P_NARROW_WHOLE] = "port0_narrow_whole",
	[BL_P_AUTOBIND_REUSE] = "port0_autobind_reuse",
	[BL_P_BOUND_DEV] = "port0_bound_dev",
	[BL_P_OTHER_WILDCARD] = "port0_other_port_wildcard",
	[BL_P_C_EVEN_FIRST] = "connect_even_first",
	[BL_P_C_EXHAUSTS] = "connect_exhausts",
	[BL_P_C_SKIPS_BOUND] = "connect_skips_bound",
	[BL_P_C_SHARES] = "connect_shares_port",
	[BL_P_C_NO_PORT] = "connect_bind_no_port",
	[BL_P_C_TW_REUSE] = "connect_tw_reuse",
	[BL_P_NONLOCAL] = "bind_nonlocal",
	[BL_P_PRIVILEGED] = "bind_privileged",
	[BL_P_FAMILY] = "bind_family",
	[BL_P_DISCONNECT] = "bind_disconnect",
	[BL_P_TWICE] = "bind_twice",
	[BL_P_GROUP_CONNECT] = "bind_group_connect",
};
