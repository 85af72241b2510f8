// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bind_bench's command-line parsing and its whole entry.
 * The input is split at NUL bytes into argv; parse_args() must accept it
 * or explain why, never crash, and an accepted line must be one main()
 * can run. main() itself, with BINDLAB_CHECK_ARGS=1 in its environment
 * (what bisect uses), must agree: exit 0 for what parses and names a
 * destination it may write, 2 for anything else, and never start a run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define main bind_bench_main
#include "../../bind_bench.c"
#undef main

#define MAX_ARGS	16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[1024], *argv[MAX_ARGS + 2];
	struct bl_why why = { "" };
	struct opts o;
	size_t i, len = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
	int argc = 1, ret;

	memcpy(buf, data, len);
	buf[len] = '\0';
	argv[0] = "bind_bench";
	argv[argc++] = buf;
	for (i = 0; i < len && argc <= MAX_ARGS; i++) {
		if (buf[i])
			continue;
		argv[argc++] = buf + i + 1;
	}
	argv[argc] = NULL;

	ret = parse_args(&o, argc, argv, &why);
	if (ret < 0 && !why.msg[0])
		abort();	/* a usage error must say what is wrong */
	if (!ret && (o.spec.n < 1 || o.spec.naddrs < 1 || o.rounds < 1 ||
		     o.buckets < 1 || o.buckets > o.spec.n || !o.mode ||
		     o.spec.naddrs > o.spec.n))
		abort();
	/* The --json destination is part of the check (bisect relies on it). */
	if (!ret && o.json && bl_out_check(o.json, &why))
		ret = -EINVAL;
	setenv("BINDLAB_CHECK_ARGS", "1", 1);
	if (bind_bench_main(argc, argv) != (ret < 0 ? BL_EXIT_USAGE : 0))
		abort();
	return 0;
}
