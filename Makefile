# SPDX-License-Identifier: GPL-2.0
#
# TCP port-binding selftests. Two ways to build, same file:
#  - in a kernel tree as tools/testing/selftests/net/<dir>/: lib.mk and the
#    harness come from the tree (make -C tools/testing/selftests
#    TARGETS=net/<dir> run_tests);
#  - standalone: from KDIR (a kernel tree) or KSFT_DIR (its selftests
#    directory), else from the cache scripts/bootstrap.sh unpacks from
#    Debian's linux-source-*. No rule here installs or fetches anything.
#
# Two libraries, dependencies one way: lib/ (libbindlab.a) is what the
# kselftests need (harness, libc, libmnl); bench/ (libbindlab-bench.a) is
# the benchmarks' layer on top of it (statistics, JSON through jansson).

TEST_GEN_PROGS := bind_bhash_test tw_reuse_loopback bind_model_test
TEST_GEN_FILES := bind_bench bindlab_results bind_churn
# The case table travels with the installed collection (lava/bindlab-lava.sh).
TEST_FILES := cases

here := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BINDLAB_CACHE ?= $(HOME)/.cache/bindlab

ifneq ($(wildcard $(here)/../../lib.mk),)
KSFT_DIR := $(abspath $(here)/../..)
in_tree := 1
else ifneq ($(KDIR),)
KSFT_DIR ?= $(abspath $(KDIR))/tools/testing/selftests
else
KSFT_DIR ?= $(BINDLAB_CACHE)/ksft/tools/testing/selftests
endif

ifeq ($(wildcard $(KSFT_DIR)/lib.mk),)
$(error no kselftest lib.mk in $(KSFT_DIR): run scripts/bootstrap.sh build (it unpacks the harness with scripts/ksft-headers.sh), or set KDIR to a kernel tree)
endif

CORE_SRCS := why.c netns.c sysctl.c fdlimit.c progress.c stats.c
CORE_SRCS += bindloop.c sockaddr.c crowd.c child.c procnet.c addrwait.c
CORE_SRCS += tcpconn.c parse.c files.c known_regressions.c bind_model.c
CORE_HDRS := $(here)/lib/bindlab_core.h $(here)/lib/bind_model.h
CORE_HDRS += $(here)/lib/ksft_bindlab.h
# The kselftests' own parts: helpers and row tables each includes once.
KSFT_HDRS := bhash_sockets.h bhash_conflict_rows.h bhash_addr_rows.h
KSFT_HDRS += model_judge.h model_sequences.h model_upstream.h
KSFT_HDRS += tw_topology.h tw_reuse_rows.h
CORE_HDRS += $(KSFT_HDRS:%=$(here)/lib/%)

BENCH_SRCS := ranktest.c ttest.c churn.c results.c jsonfile.c runfile.c
BENCH_SRCS += compare.c lava_import.c
BENCH_HDRS := $(here)/bench/bindlab.h $(here)/bench/results_tool.h

# Every program depends on every header (lib.mk's rule leaves them out of
# the compiler's inputs).
LOCAL_HDRS += $(CORE_HDRS) $(BENCH_HDRS)

include $(KSFT_DIR)/lib.mk

# kselftest_harness.h has unused parameters in its own macros. -Werror
# only where the project's own CI asks for it (tests/run_all.sh).
CFLAGS += -O2 -g -Wall -Wextra -Wno-unused-parameter
CFLAGS += $(if $(filter 1,$(BINDLAB_WERROR)),-Werror)
CFLAGS += $(KHDR_INCLUDES) -I$(KSFT_DIR) -iquote $(here)/lib
CFLAGS += $(shell pkg-config --cflags libmnl 2>/dev/null)
LDLIBS += $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl) -lm

BENCH_CFLAGS := -iquote $(here)/bench
BENCH_CFLAGS += $(shell pkg-config --cflags jansson 2>/dev/null)
BENCH_LDLIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)

CORE_OBJS := $(CORE_SRCS:%.c=$(OUTPUT)/lib/%.o)
BENCH_OBJS := $(BENCH_SRCS:%.c=$(OUTPUT)/bench/%.o)
LIBCORE := $(OUTPUT)/libbindlab.a
LIBBENCH := $(OUTPUT)/libbindlab-bench.a

$(OUTPUT)/lib/%.o: $(here)/lib/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/bench/%.o: $(here)/bench/%.c $(CORE_HDRS) $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

# Made anew: a member whose source moved away must not linger in it.
$(LIBCORE): $(CORE_OBJS)
	$(call msg,AR,,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBBENCH): $(BENCH_OBJS)
	$(call msg,AR,,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The kselftests: the core library and libmnl, no JSON library.
$(TEST_GEN_PROGS): $(LIBCORE)

# The benchmarks and result tools: both layers, bench first.
$(TEST_GEN_FILES): CFLAGS += $(BENCH_CFLAGS)
$(TEST_GEN_FILES): LDLIBS := $(BENCH_LDLIBS) $(LDLIBS)
$(TEST_GEN_FILES): $(LIBBENCH) $(LIBCORE)

$(OUTPUT)/bind_churn: $(here)/bench/bind_churn.c $(LIBBENCH) $(LIBCORE) \
		      $(LOCAL_HDRS)
	$(call msg,CC,,$@)
	$(Q)$(LINK.c) $(filter %.c %.a,$^) $(LDLIBS) -o $@

EXTRA_CLEAN += $(CORE_OBJS) $(BENCH_OBJS) $(LIBCORE) $(LIBBENCH)

# The project's own tests (README: make check), standalone only.
ifeq ($(in_tree),)
# The programs, for the kernel lab (kernel/vm.sh): kselftests on the first
# line, the other programs on the second.
print-programs:
	@echo $(notdir $(TEST_GEN_PROGS))
	@echo $(notdir $(TEST_GEN_FILES))

# kselftest's runner finds settings only below its BASE_DIR, the kernel
# tree's selftests directory; standalone, hand it the timeout instead.
export kselftest_override_timeout ?= $(shell sed -n 's/^timeout=//p' $(here)/settings)

UNIT_TESTS := $(OUTPUT)/tests/lib_test
EXTRA_CLEAN += $(UNIT_TESTS)

$(OUTPUT)/tests/%: $(here)/tests/%.c $(LIBBENCH) $(LIBCORE) $(LOCAL_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) $< $(LIBBENCH) \
		$(LIBCORE) $(BENCH_LDLIBS) $(LDLIBS) -o $@

# run.sh test builds with test-programs and runs run_all.sh itself, so
# that its exit status is the tests' (make would turn 1 into 2). The
# project's CI builds with -Werror.
test-programs: BINDLAB_WERROR := 1
test-programs: all $(UNIT_TESTS)

check: test-programs
	$(here)/tests/run_all.sh

.PHONY: check test-programs print-programs
endif
