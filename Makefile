# SPDX-License-Identifier: GPL-2.0
#
# TCP port-binding selftests. Two ways to build, same file:
#  - in a kernel tree as tools/testing/selftests/net/<dir>/: lib.mk and the
#    harness come from the tree (make -C tools/testing/selftests
#    TARGETS=net/<dir> run_tests);
#  - standalone: from KDIR (a kernel tree) or KSFT_DIR (its selftests
#    directory), else unpacked from Debian's linux-source-* into a cache.

TEST_GEN_PROGS := bind_bhash_test tw_reuse_loopback bind_model_test
TEST_GEN_FILES := bind_bench bindlab_results

here := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BINDLAB_CACHE ?= $(HOME)/.cache/bindlab

ifneq ($(wildcard $(here)/../../lib.mk),)
KSFT_DIR := $(abspath $(here)/../..)
in_tree := 1
else ifneq ($(KDIR),)
KSFT_DIR ?= $(abspath $(KDIR))/tools/testing/selftests
else
KSFT_DIR ?= $(BINDLAB_CACHE)/ksft/tools/testing/selftests
KSFT_CACHE := $(BINDLAB_CACHE)/ksft
endif

LIB_SRCS := $(wildcard $(here)/lib/*.c)
LOCAL_HDRS += $(wildcard $(here)/lib/*.h)

# kselftest_harness.h has unused parameters in its own macros.
CFLAGS += -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -I$(KSFT_DIR) -I$(here)/lib
CFLAGS += $(shell pkg-config --cflags libmnl jansson 2>/dev/null)
LDLIBS += $(shell pkg-config --libs libmnl jansson 2>/dev/null || echo -lmnl -ljansson) -lm

include $(KSFT_DIR)/lib.mk

# The harness cache is made on demand; make re-reads lib.mk once it exists.
ifneq ($(KSFT_CACHE),)
$(KSFT_DIR)/lib.mk:
	$(here)/scripts/bootstrap.sh build
	$(here)/scripts/ksft-headers.sh $(KSFT_CACHE)
endif

LIB_OBJS := $(patsubst $(here)/lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
LIBBINDLAB := $(OUTPUT)/libbindlab.a

$(OUTPUT)/lib/%.o: $(here)/lib/%.c $(LOCAL_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBBINDLAB): $(LIB_OBJS)
	$(call msg,AR,,$@)
	$(Q)$(AR) rcs $@ $^

$(TEST_GEN_PROGS) $(TEST_GEN_FILES): $(LIBBINDLAB)

EXTRA_CLEAN += $(LIB_OBJS) $(LIBBINDLAB)

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

$(OUTPUT)/tests/%: $(here)/tests/%.c $(LIBBINDLAB) $(LOCAL_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBBINDLAB) $(LDLIBS) -o $@

# run.sh test builds with test-programs and runs run_all.sh itself, so
# that its exit status is the tests' (make would turn 1 into 2).
test-programs: all $(UNIT_TESTS)

check: test-programs
	$(here)/tests/run_all.sh

.PHONY: check test-programs print-programs
endif
