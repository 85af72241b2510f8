# SPDX-License-Identifier: GPL-2.0
#
# TCP port-binding selftests: bind() conflict rules and cost (the bind
# bucket's fastreuse caches, bhash2), and TIME_WAIT reuse on loopback.
#
# The kselftests need the harness, libc and libmnl only. lib/ is their
# small library, built once into an archive that the tests link (as
# tcp_ao/ does); a header private to one test sits beside that test.
# bind_fastreuse and tcp_tw_reuse are netdev's shape: the harness and
# libc, nothing else (scripts/upstream.sh offers them as they are).

TEST_GEN_PROGS := bind_bhash_test tw_reuse_loopback bind_model_test bind_fastreuse
TEST_GEN_PROGS += tcp_tw_reuse
NETDEV_PROGS := bind_fastreuse tcp_tw_reuse

here := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

# bindlab-standalone-begin
# Outside a kernel tree: the harness and lib.mk from KDIR (a kernel tree)
# or KSFT_DIR (its selftests directory), else from the cache that
# scripts/bootstrap.sh unpacks from Debian's linux-source-*. No rule here
# installs or fetches anything.
BINDLAB_CACHE ?= $(HOME)/.cache/bindlab
ifneq ($(wildcard $(here)/../../lib.mk),)
KSFT_DIR := $(abspath $(here)/../..)
else ifneq ($(KDIR),)
KSFT_DIR ?= $(abspath $(KDIR))/tools/testing/selftests
else
KSFT_DIR ?= $(BINDLAB_CACHE)/ksft/tools/testing/selftests
endif
ifeq ($(wildcard $(KSFT_DIR)/lib.mk),)
$(error no kselftest lib.mk in $(KSFT_DIR): run scripts/bootstrap.sh build (it unpacks the harness with scripts/ksft-headers.sh), or set KDIR to a kernel tree)
endif
# lib.mk's install rule passes INSTALL_PATH to the shell unquoted: a
# blank would install into the checkout, a ';' run what follows it, a
# '$' (make's $$) expand a shell variable into the path.
bl_unsafe := ; & | ` ' " ( ) < > \ * ? $$
ifneq ($(strip $(INSTALL_PATH)),)
ifneq ($(words $(INSTALL_PATH))$(strip $(foreach c,$(bl_unsafe),$(findstring $(c),$(INSTALL_PATH)))),1)
$(error INSTALL_PATH '$(INSTALL_PATH)': blanks and shell characters ($(bl_unsafe)) are not installed to)
endif
endif
# bindlab-standalone-end
KSFT_DIR ?= $(abspath $(here)/../..)

LIBSRC := why.c netns.c sysctl.c fdlimit.c progress.c stats.c
LIBSRC += bindloop.c sockaddr.c crowd.c child.c procnet.c addrwait.c
LIBSRC += tcpconn.c parse.c files.c bind_model.c pidns.c vocab.c
LIB_HDRS := $(wildcard $(here)/lib/*.h)

# Headers private to one test, beside it.
bind_bhash_test_HDRS := bhash_sockets.h bhash_model.h bhash_conflict_rows.h
bind_bhash_test_HDRS += bhash_addr_rows.h bhash_ports.h bhash_port_rows.h
bind_model_test_HDRS := model_judge.h model_sequences.h model_upstream.h

# lib.mk's rule compiles every prerequisite ending in .c or .a only.
# Expanded now: lib.mk puts $(OUTPUT)/ before the program names.
KSFT_HDRS := $(foreach p,$(TEST_GEN_PROGS),$($(p)_HDRS:%=$(here)/%))
LOCAL_HDRS += $(LIB_HDRS) $(KSFT_HDRS)

include $(KSFT_DIR)/lib.mk

# kselftest_harness.h has unused parameters in its own macros. -Werror
# only where the project's own CI asks for it (BINDLAB_WERROR=1).
CFLAGS += -O2 -g -Wall -Wextra -Wno-unused-parameter
CFLAGS += $(if $(filter 1,$(BINDLAB_WERROR)),-Werror)
CFLAGS += $(KHDR_INCLUDES) -I$(KSFT_DIR) -iquote $(here)/lib
CFLAGS += $(shell pkg-config --cflags libmnl 2>/dev/null)
LDLIBS += $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl) -lm

LIBOBJS := $(LIBSRC:%.c=$(OUTPUT)/lib/%.o)
LIBBINDLAB := $(OUTPUT)/libbindlab.a

$(OUTPUT)/lib/%.o: $(here)/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# Made anew: a member whose source moved away must not linger in it.
$(LIBBINDLAB): $(LIBOBJS)
	$(call msg,AR,,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(filter-out $(addprefix %/,$(NETDEV_PROGS)),$(TEST_GEN_PROGS)): $(LIBBINDLAB)
$(NETDEV_PROGS:%=$(OUTPUT)/%): LDLIBS :=
# Rows leave their trailing fields zero, as net/'s Makefile (no -Wextra) allows.
$(OUTPUT)/tcp_tw_reuse: CFLAGS += -Wno-missing-field-initializers

EXTRA_CLEAN += $(LIBOBJS) $(LIBBINDLAB)

# bindlab-standalone-begin
# The companion (benchmarks, results, compare, the project's own tests):
# not part of the kselftests, and built only where its JSON library is.
-include $(here)/bench/bench.mk
# bindlab-standalone-end
