# SPDX-License-Identifier: GPL-2.0
#
# The companion of the kselftests, included by ../Makefile: the
# benchmarks (bind_bench, bind_churn), the results tool (merge, summary,
# compare, the LAVA import) and the project's own tests. They need
# jansson and GSL (the t distribution); without them (pkg-config --exists
# fails, as on the fleets' kselftest builders) one line says so and the
# kselftests still build and install.

BENCH_PROGS := bind_bench bindlab_results bind_churn

ifeq ($(shell pkg-config --exists jansson gsl && echo yes),yes)

BENCH_SRCS := ranktest.c ttest.c churn.c results.c jsonfile.c runfile.c
BENCH_SRCS += compare.c lava_import.c known_regressions.c ktap.c args.c files.c
BENCH_HDRS := $(wildcard $(here)/bench/*.h)
BENCH_CFLAGS := -iquote $(here)/bench $(shell pkg-config --cflags jansson gsl)
BENCH_LDLIBS := $(shell pkg-config --libs jansson gsl)

BENCH_OBJS := $(BENCH_SRCS:%.c=$(OUTPUT)/bench/%.o)
LIBBENCH := $(OUTPUT)/libbindlab-bench.a
BENCH_BINS := $(BENCH_PROGS:%=$(OUTPUT)/%)

# lib.mk has read TEST_GEN_FILES already: "all" and "install" need both.
TEST_GEN_FILES += $(BENCH_BINS)
all: $(BENCH_BINS)
# The case table travels with the installed collection (lava/bindlab-lava.sh).
TEST_FILES += $(here)/cases

$(OUTPUT)/bench/%.o: $(here)/bench/%.c $(LIB_HDRS) $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

$(LIBBENCH): $(BENCH_OBJS)
	$(call msg,AR,,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# bind_bench.c sits at the top (users know it); the others in bench/.
$(OUTPUT)/bind_bench: $(here)/bind_bench.c
$(OUTPUT)/bindlab_results: $(here)/bench/bindlab_results.c
$(OUTPUT)/bind_churn: $(here)/bench/bind_churn.c
$(BENCH_BINS): $(LIBBENCH) $(LIBBINDLAB) $(LIB_HDRS) $(BENCH_HDRS)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) \
		$(filter %.c,$^) $(filter %.a,$^) $(BENCH_LDLIBS) $(LDLIBS) -o $@

EXTRA_CLEAN += $(BENCH_OBJS) $(LIBBENCH)

else
# On stderr: stdout may be a list someone reads (make print-programs).
$(shell echo 'bindlab: no jansson or gsl (pkg-config --exists jansson gsl): building the kselftests only, not $(BENCH_PROGS) (install libjansson-dev and libgsl-dev for them)' >&2)
BENCH_PROGS :=
endif

# ---- standalone only: the project's own tests and the lab's program list
ifneq ($(wildcard $(here)/../../lib.mk),$(here)/../../lib.mk)

# The one program list (kernel/lib.sh, run.sh and the tests read it):
# kselftests on the first line, the companion's programs on the second.
print-programs:
	@echo $(notdir $(TEST_GEN_PROGS))
	@echo $(BENCH_PROGS)

# bind_model_test's model_upstream reads the kernel's bind_wildcard.c:
# in a kernel tree it finds ../net/ itself; standalone, this one.
export BINDLAB_BIND_WILDCARD ?= $(wildcard $(KSFT_DIR)/net/bind_wildcard.c)
print-bind-wildcard:
	@echo $(BINDLAB_BIND_WILDCARD)

# kselftest's runner finds settings only below its BASE_DIR, the kernel
# tree's selftests directory; standalone, hand it the timeout instead.
export kselftest_override_timeout ?= $(shell sed -n 's/^timeout=//p' $(here)/settings)

UNIT_TESTS := $(OUTPUT)/tests/lib_test
EXTRA_CLEAN += $(UNIT_TESTS)

$(OUTPUT)/tests/%: $(here)/tests/%.c $(LIBBENCH) $(LIBBINDLAB) $(LIB_HDRS) $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) $< $(LIBBENCH) \
		$(LIBBINDLAB) $(BENCH_LDLIBS) $(LDLIBS) -o $@

# run.sh test builds with test-programs and runs run_all.sh itself, so
# that its exit status is the tests' (make would turn 1 into 2). The
# project's CI builds with -Werror.
test-programs: BINDLAB_WERROR := 1
test-programs: all $(UNIT_TESTS)

check: test-programs
	$(here)/tests/run_all.sh

.PHONY: check test-programs print-programs print-bind-wildcard
endif
