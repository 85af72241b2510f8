/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suite's words, once: one enum and one name table per kind of fact
 * (addresses, families, reuse options, the states a row puts socket A
 * in, the rules of the bind model). The tables are in lib/vocab.c; the
 * rows, the model and the benchmarks' records all take their words from
 * there. Address and
 * family words are bind_wildcard.c's (tools/testing/selftests/net/).
 */
#ifndef BINDLAB_VOCAB_H
#define BINDLAB_VOCAB_H

#include <stdbool.h>

/* The canonical addresses' text, for rows' static initializers. */
#define BL_HOST_V4_ANY		"0.0.0.0"
#define BL_HOST_V4_LOCAL	"127.0.0.1"
#define BL_HOST_V4_LOCAL2	"127.0.0.2"
#define BL_HOST_V6_ANY		"::"
#define BL_HOST_V6_LOCAL	"::1"
#define BL_HOST_V4MAPPED_ANY	"::ffff:0.0.0.0"
#define BL_HOST_V4MAPPED_LOCAL	"::ffff:127.0.0.1"

/* The canonical addresses, named as bind_wildcard.c names them. */
enum bm_addr {
	BM_V4_ANY,		/* 0.0.0.0 */
	BM_V4_LO,		/* 127.0.0.1 */
	BM_V4_LO2,		/* 127.0.0.2 */
	BM_V6_ANY,		/* :: (dual stack) */
	BM_V6_ANY_ONLY,		/* :: with IPV6_V6ONLY */
	BM_V6_LO,		/* ::1 */
	BM_V4M_ANY,		/* ::ffff:0.0.0.0 */
	BM_V4M_LO,		/* ::ffff:127.0.0.1 */
	BM_NR_ADDRS
};

struct bl_addr_word {
	const char *word;	/* bind_wildcard.c's name */
	const char *host;	/* for bind() */
	bool v6only;		/* IPV6_V6ONLY */
};

extern const struct bl_addr_word bl_addr_words[BM_NR_ADDRS];

/* Families of a socket; "mixed" (names only) is a row of several. */
enum bl_family { BL_FAM_INET, BL_FAM_INET6, BL_FAM_MAPPED, BL_NR_FAMILIES };

extern const char * const bl_family_words[BL_NR_FAMILIES];

/*
 * The reuse options by their bits (SO_REUSEADDR 1, SO_REUSEPORT 2), as
 * the three places spell them: bind_conflict's variants (A's then B's
 * option), the benchmark cases and bind_fastreuse, the model's sequences.
 */
#define BL_NR_REUSE	4
struct bl_reuse_word {
	const char *row, *cases, *model;
};

extern const struct bl_reuse_word bl_reuse_words[BL_NR_REUSE];

/* The states a bind_conflict row puts socket A in. */
enum a_state {
	A_BOUND,
	A_LISTEN,
	A_LISTEN_LATER,	/* bound; listens once B and C are bound */
	A_CHILD,	/* established child left after its listener closed;
			 * it has the listener's options and uid
			 */
	A_AUTOBIND,	/* bound by connect() without bind() */
	A_TIME_WAIT,	/* closed first, in TIME_WAIT */
	A_NR_STATES
};

extern const char * const bl_state_words[A_NR_STATES];

/* The model's rules; each can be dropped (struct bm_port.drop). */
enum bm_rule {
	BM_R_REUSEADDR,		/* both SO_REUSEADDR share a port... */
	BM_R_REUSEADDR_LISTEN,	/* ...unless the owner listens */
	BM_R_REUSEPORT,		/* both SO_REUSEPORT share a port... */
	BM_R_REUSEPORT_UID,	/* ...when their uids are the same */
	BM_R_TW_ANY_UID,	/* ...or the owner is in TIME_WAIT */
	BM_R_REUSEPORT_GROUP,	/* ...but not a socket with a group of its own */
	BM_R_DEV,		/* different bound devices never conflict */
	BM_R_V4_SPECIFIC,	/* two IPv4 addresses that differ */
	BM_R_V4_WILDCARD,	/* 0.0.0.0 covers every IPv4 address */
	BM_R_MAPPED_IS_V4,	/* ::ffff:a.b.c.d is IPv4 */
	BM_R_V6_WILDCARD,	/* :: covers every IPv6 address */
	BM_R_DUAL_STACK,	/* :: without V6ONLY covers IPv4 too */
	BM_R_V6ONLY,		/* V6ONLY :: does not */
	BM_R_FAMILY,		/* IPv4 and IPv6 specifics never overlap */
	BM_R_LISTEN_CHECK,	/* listen() checks the port again */
	BM_R_CLOSE,		/* close() frees the socket's share */
	BM_R_TW_HOLDS,		/* TIME_WAIT keeps it, with the options */
	BM_R_TW_SADDR,		/* connect() moves a wildcard to its saddr */
	BM_R_V6_DEV_ADDR,	/* ::1 is not on another bound device */
	BM_R_PORT0,		/* port 0 takes no port that is shared */
	BM_NR_RULES
};

extern const char * const bl_rule_words[BM_NR_RULES];

/*
 * How the kernel chooses a port when none is given: bind() to port 0
 * (inet_csk_find_open_port()) and connect() of an unbound socket
 * (__inet_hash_connect()); and the address and port checks bind() makes
 * before (__inet_bind(), __inet6_bind()). The rows of port_choice
 * (bhash_port_rows.h) are named after them.
 */
enum bl_port_rule {
	BL_P_RANGE,		/* from net.ipv4.ip_local_port_range */
	BL_P_SOCK_RANGE,	/* IP_LOCAL_PORT_RANGE narrows it, inside it */
	BL_P_RESERVED,		/* never one of ip_local_reserved_ports */
	BL_P_EXHAUSTS,		/* EADDRINUSE once every port of it is held */
	BL_P_ODD_FIRST,		/* bind(0): offsets from the low end odd first */
	BL_P_LOW_HALF,		/* SO_REUSEADDR: the lower half first */
	BL_P_NARROW_WHOLE,	/* a range under 4 ports is not halved */
	BL_P_AUTOBIND_REUSE,	/* ip_autobind_reuse shares SO_REUSEADDR ports */
	BL_P_BOUND_DEV,		/* other bound devices do not hold the port */
	BL_P_OTHER_WILDCARD,	/* a wildcard of another port does not hold it */
	BL_P_C_EVEN_FIRST,	/* connect(): even offsets first */
	BL_P_C_EXHAUSTS,	/* EADDRNOTAVAIL once each port has the 4-tuple */
	BL_P_C_SKIPS_BOUND,	/* connect() never takes a port bind() holds */
	BL_P_C_SHARES,		/* a port shared by other 4-tuples */
	BL_P_C_NO_PORT,		/* IP_BIND_ADDRESS_NO_PORT: chosen at connect() */
	BL_P_C_TW_REUSE,	/* tcp_tw_reuse: a TIME_WAIT's port taken over */
	BL_P_NONLOCAL,		/* bind() to an address no interface has */
	BL_P_PRIVILEGED,	/* bind() below ip_unprivileged_port_start */
	BL_P_FAMILY,		/* bind() to an address of another family */
	BL_P_DISCONNECT,	/* connect(AF_UNSPEC) keeps what bind() chose */
	BL_P_TWICE,		/* a bound socket binds no second time */
	BL_P_GROUP_CONNECT,	/* bound to a group address, connect()s from the route's */
	BL_NR_PORT_RULES
};

extern const char * const bl_port_rule_words[BL_NR_PORT_RULES];

#endif /* BINDLAB_VOCAB_H */
