# nettune — GNU make. `make help` lists the targets.
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build
CC         ?= cc
CLANG      ?= clang
SANITIZE   ?=
WERROR     ?=
V          ?= 0
VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PKGS      := libmnl jansson libcurl libssh2 libmicrohttpd gnutls sqlite3 libibverbs openssl
TEST_PKGS := cunit

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
TEST_LIBS  := $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
ifneq ($(WERROR),)
WARN += -Werror
endif
ifneq ($(CI),)
WARN += -Werror
endif

INCLUDES := -Icommon -Ipolicies -Idrivers -Idrivers/host -Idrivers/switch -Idrivers/probe -Iagent -Icontroller
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -DNETTUNE_VERSION='"$(VERSION)"' $(WARN) $(INCLUDES) $(PKG_CFLAGS) -MMD -MP -pthread
LDFLAGS  += -pthread
LDLIBS   += $(PKG_LIBS) -lm

ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=$(SANITIZE)
endif

LIB_SRCS   := $(sort $(wildcard common/*.c policies/*.c drivers/*.c drivers/*/*.c))
AGENT_SRCS := $(sort $(wildcard agent/*.c))
CTL_SRCS   := $(sort $(wildcard controller/*.c))
UNIT_SRCS  := $(sort $(wildcard tests/unit/*.c tests/lib/*.c))
SIM_SRCS   := $(sort $(wildcard tests/switchsim/*.c))
TOOL_SRCS  := $(sort $(wildcard tests/tools/*.c))
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB        := $(BUILD)/libnettune.a
AGENT      := $(BUILD)/nettune-agent
CTL        := $(BUILD)/nettunectl
UNIT       := $(BUILD)/unit-tests
SIM        := $(BUILD)/switchsim
TOOLS      := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))
FUZZERS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
SUITES_H   := $(BUILD)/gen/unit_suites.h

# Agent objects other than main.c are shared with the controller's tests and tools.
AGENT_LIB_OBJS := $(call obj,$(filter-out agent/main.c,$(AGENT_SRCS)))
CTL_LIB_OBJS   := $(call obj,$(filter-out controller/main.c,$(CTL_SRCS)))
# Controller objects other than main.c and its subcommands, for the controller's unit tests.
CTL_LIB_OBJS := $(call obj,$(filter-out controller/main.c controller/cmd_%.c,$(CTL_SRCS)))

.PHONY: all check demo demo-clean bench fuzz fuzz-build install uninstall clean deps help test-bins
all: $(AGENT) $(CTL)

help:
	@echo "targets: all check demo demo-clean bench fuzz install clean deps"
	@echo "vars:    SANITIZE=address,undefined WERROR=1 V=1 PREFIX=$(PREFIX) DESTDIR="

# Rebuild everything when the compiler flags change.
FLAGS_STAMP := $(BUILD)/.flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS) $(LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(LDFLAGS)' > $@
FORCE:

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(call obj,$(LIB_SRCS))
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(AGENT): $(call obj,$(AGENT_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(CTL): $(call obj,$(CTL_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests: one CUnit runner; every tests/unit/test_NAME.c defines `int suite_NAME(void)`.
$(SUITES_H): $(wildcard tests/unit/test_*.c)
	@mkdir -p $(dir $@)
	$(Q)for f in $(sort $(notdir $(basename $(wildcard tests/unit/test_*.c)))); do \
	        n=$${f#test_}; echo "SUITE($$n)"; done > $@.tmp && mv $@.tmp $@

$(call obj,$(wildcard tests/unit/*.c)): $(SUITES_H)
$(BUILD)/obj/tests/unit/%.o: CFLAGS += -I$(BUILD)/gen -Itests/lib -include tests/unit/suites.h
$(BUILD)/obj/tests/lib/%.o: CFLAGS += -Itests/lib

$(UNIT): $(call obj,$(UNIT_SRCS)) $(AGENT_LIB_OBJS) $(CTL_LIB_OBJS) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(TEST_LIBS)

$(SIM): $(call obj,$(SIM_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/tests/tools/%.o: CFLAGS += -Itests/lib
$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(call obj,$(filter-out tests/lib/main.c,$(wildcard tests/lib/*.c))) $(AGENT_LIB_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

test-bins: all $(UNIT) $(if $(SIM_SRCS),$(SIM)) $(TOOLS)

# libFuzzer harnesses, built with clang into their own object tree.
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(INCLUDES) -Itests/lib $(PKG_CFLAGS) -pthread \
               -fsanitize=fuzzer-no-link,address,undefined -DNETTUNE_VERSION='"$(VERSION)"'
# Plus the controller's parsers of agent answers and of the inventory (pure: jansson and the library only).
FUZZ_LIB_OBJS := $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(LIB_SRCS) controller/reply.c controller/inventory.c)
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) -lm
fuzz-build: $(FUZZERS)
fuzz: $(FUZZERS)
	$(Q)tests/fuzz/run.sh $(BUILD) 60

check: deps-check test-bins
	$(Q)BUILD=$(BUILD) tests/check.sh

# Build dependencies present? If not, install them (root on Debian) — `make deps`.
deps-check:
	$(Q).ci/deps.sh --check >/dev/null 2>&1 || .ci/deps.sh

deps:
	$(Q).ci/deps.sh

demo: deps-check all $(SIM)
	$(Q)BUILD=$(BUILD) examples/demo/run.sh

demo-clean:
	$(Q)examples/demo/run.sh --clean

bench: deps-check all test-bins
	$(Q)BUILD=$(BUILD) bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/nettune/profiles \
	           $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(AGENT) $(CTL) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 policies/profiles/*.json policies/schema.json $(DESTDIR)$(PREFIX)/share/nettune/profiles/
	for m in docs/man/*.8; do [ -e "$$m" ] && install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/ || true; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/nettune-agent $(DESTDIR)$(PREFIX)/bin/nettunectl
	rm -rf $(DESTDIR)$(PREFIX)/share/nettune

clean:
	rm -rf $(BUILD)

.PHONY: deps-check FORCE
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
