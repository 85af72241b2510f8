/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind_model: an oracle of the TCP bind-conflict rules of one port.
 *
 * Pure: no sockets. It takes the operations a test does on one port
 * (bind a new socket with options to an address, listen, close, leave a
 * socket in TIME_WAIT) and says what each should return, from the rules
 * of Linux 6.12 as its code documents them (inet_csk_bind_conflict(),
 * inet_bind_conflict(), the bhash2 address rules). It is never filled in
 * from a kernel's answers; bind_model_test compares the two.
 *
 * Every rule can be switched off one at a time (struct bm_port.drop), so
 * that a test can show each rule is needed: some row fails without it.
 */
#ifndef BIND_MODEL_H
#define BIND_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "bindlab_vocab.h"

/* Socket options of a bind step or probe. */
#define BM_RA		0x1	/* SO_REUSEADDR */
#define BM_RP		0x2	/* SO_REUSEPORT */
#define BM_NR_REUSE	BL_NR_REUSE

enum bm_dev { BM_DEV_NONE, BM_DEV_LO, BM_DEV_OTHER, BM_NR_DEVS };

struct bm_opts {
	unsigned int reuse;	/* BM_RA | BM_RP */
	bool other_uid;		/* created by another uid than the rest */
	bool group;		/* SO_ATTACH_REUSEPORT_CBPF before bind() */
	enum bm_dev dev;	/* SO_BINDTODEVICE */
	bool port0;		/* bind() to port 0, the range narrowed to it */
};

enum bm_op_kind { BM_OP_BIND, BM_OP_LISTEN, BM_OP_CLOSE, BM_OP_TW };

struct bm_op {
	enum bm_op_kind kind;
	enum bm_addr addr;	/* BM_OP_BIND */
	struct bm_opts opts;	/* BM_OP_BIND */
	int sk;			/* others: which bind step's socket */
};

enum bm_state { BM_ST_NONE, BM_ST_BOUND, BM_ST_LISTEN, BM_ST_TW };

#define BM_MAX_SOCKS	16

struct bm_sock {
	enum bm_state state;
	enum bm_addr addr;
	struct bm_opts opts;
};

/* One port: the sockets the bind steps made, by step index. */
struct bm_port {
	struct bm_sock sk[BM_MAX_SOCKS];
	int n;
	unsigned int drop;	/* 1 << enum bm_rule: rules switched off */
};

/*
 * Why the model gave its answer: the rules that decided (1 << bm_rule;
 * for a conflict, why the pair overlaps and which reuse rule did not
 * relax it; for success, the rules that let each owner share), and the
 * conflicting owner or -1.
 */
struct bm_why {
	unsigned int rules;
	int owner;
};

void bm_port_init(struct bm_port *p, unsigned int drop);
/* Can op run here (its socket exists and is in a state for it)? */
bool bm_op_valid(const struct bm_port *p, const struct bm_op *op);
/* Expected result of op (0 or -errno), and apply it to p. */
int bm_step(struct bm_port *p, const struct bm_op *op, struct bm_why *why);
/* Expected result of binding a new socket; p does not change. */
int bm_probe(const struct bm_port *p, enum bm_addr addr,
	     const struct bm_opts *opts, struct bm_why *why);

const char *bm_addr_name(enum bm_addr a);
/* The address as text for bind(), and whether it wants IPV6_V6ONLY. */
const char *bm_addr_host(enum bm_addr a, bool *v6only);
bool bm_addr_is_v6(enum bm_addr a);
const char *bm_rule_name(enum bm_rule r);
int bm_rule_parse(const char *s);
/* "v4_wildcard+reuseaddr"; "same_address" when no rule is named. */
const char *bm_rules_str(unsigned int rules, char *buf, size_t len);
/* "reuseaddr", "reuseport uid1 dev_lo", ... */
const char *bm_opts_str(const struct bm_opts *o, char *buf, size_t len);
/* "bind v4_any reuseaddr", "listen #0", ... */
const char *bm_op_str(const struct bm_op *op, char *buf, size_t len);
const char *bm_state_name(enum bm_state s);
/* Steps separated by ';', as bm_op_str() prints them; count or -EINVAL. */
int bm_seq_parse(const char *text, struct bm_op *ops, int max);

#endif /* BIND_MODEL_H */
