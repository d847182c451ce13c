# nettune — GNU make. `make help` lists the targets.
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
BUILD      ?= build
CC         ?= cc
CLANG      ?= clang
SANITIZE   ?=
WERROR     ?=
# The journal's write-ahead check (agent/journal/journal.h, journal_side_effect): a
# record unflushed when a device write starts is an assertion failure. On in every
# build of this tree (make check's included); the Debian package builds without it.
DEBUG_BARRIER ?= 1
V          ?= 0
VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PKGS      := libmnl jansson libcurl libssh2 libmicrohttpd gnutls sqlite3 libibverbs zlib openssl yaml-0.1
# Loaded on first use (common/lazylib.h): compiled against, never linked. libyaml reads YAML policies.
LAZY_PKGS := libssh2 zlib yaml-0.1
# ... and by the agent alone: its HTTPS API (libmicrohttpd, GnuTLS) and the verbs probe
# (libibverbs). `apply`, `plan` and `state` never load them (nettunectl links them).
AGENT_LAZY_PKGS := libmicrohttpd gnutls libibverbs
# The tests also write config.gz fixtures (zlib), which the agent only reads, on first use.
TEST_PKGS := cunit zlib

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The libraries' flags are asked of pkg-config when a recipe first needs them, once,
# and never while the Makefile is read: on a fresh machine the -dev packages are
# installed by the dependency check (below), which every compile waits for. The
# libraries of LAZY_PKGS are compiled against and never linked (common/lazylib.h).
lazy = $(eval $(1) := $$(shell $(2)))$($(1))
PKG_CFLAGS = $(call lazy,PKG_CFLAGS,$(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(call lazy,PKG_LIBS,$(PKG_CONFIG) --libs $(filter-out $(LAZY_PKGS),$(PKGS)) 2>/dev/null)
AGENT_LIBS = $(call lazy,AGENT_LIBS,$(PKG_CONFIG) --libs $(filter-out $(LAZY_PKGS) $(AGENT_LAZY_PKGS),$(PKGS)) 2>/dev/null)
TEST_LIBS  = $(call lazy,TEST_LIBS,$(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
ifneq ($(WERROR),)
WARN += -Werror
endif
ifneq ($(CI),)
WARN += -Werror
endif

# Every include names its file from the root of the tree ("agent/plan/plan.h").
INCLUDES := -I.
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -DNETTUNE_VERSION='"$(VERSION)"' $(WARN) $(INCLUDES) $(PKG_CFLAGS) -MMD -MP -pthread
LDFLAGS  += -pthread
LDLIBS   += $(PKG_LIBS) -lm

ifneq ($(DEBUG_BARRIER),)
CFLAGS  += -DNETTUNE_DEBUG_BARRIER
endif

ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=$(SANITIZE)
endif

LIB_SRCS   := $(sort $(wildcard common/*.c policies/*/*.c drivers/*.c drivers/*/*.c))
AGENT_SRCS := $(sort $(wildcard agent/*/*.c))
CTL_SRCS   := $(sort $(wildcard controller/*/*.c))
NM_SRCS    := $(sort $(filter-out tests/nicmodel/main.c,$(wildcard tests/nicmodel/*.c)))
UNIT_SRCS  := $(sort $(wildcard tests/unit/*.c tests/lib/*.c) $(NM_SRCS))
SIM_SRCS   := $(sort $(wildcard tests/switchsim/*.c))
TOOL_SRCS  := $(sort $(wildcard tests/tools/*.c))
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB        := $(BUILD)/libnettune.a
AGENT      := $(BUILD)/nettune-agent
CTL        := $(BUILD)/nettunectl
UNIT       := $(BUILD)/unit-tests
SIM        := $(BUILD)/switchsim
NICMODEL   := $(BUILD)/nicmodel
TOOLS      := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))
FUZZERS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
SUITES_H   := $(BUILD)/gen/unit_suites.h

# Agent objects other than main.c are shared with the controller's tests and tools.
AGENT_LIB_OBJS := $(call obj,$(filter-out agent/cmd/main.c,$(AGENT_SRCS)))
# Controller objects other than its command line (main.c and the subcommands), for its unit tests.
CTL_CMDS     := apply cli confirm diff doctor drift halt headroom locate hold inventory plan probe rollback serve state status store tune tune_scope conform profile intent cable
CTL_LIB_OBJS := $(call obj,$(filter-out controller/cmd/main.c $(CTL_CMDS:%=controller/cmd/ctl_%.c),$(CTL_SRCS)))

.PHONY: all check check-stressed check-long check-chaos demo demo-vm demo-clean bench bench-scale bench-scale-loop bench-locate bench-sampler fuzz fuzz-build install uninstall clean deps help \
        test-bins deb
all: $(AGENT) $(CTL)

# Dependencies come first. The goals that run tests need every package of
# .ci/deps.sh (deps-check); building alone needs the libraries (deps-build: one
# pkg-config call, any distribution). Every object waits for the check through the
# flags stamp, so the first build on a fresh machine compiles with the flags of the
# packages it has just installed.
FULL_DEPS_GOALS := check check-stressed check-long check-chaos demo bench bench-scale bench-scale-loop bench-locate bench-sampler deb
DEPS := $(if $(filter $(FULL_DEPS_GOALS),$(MAKECMDGOALS)),deps-check,deps-build)

help:
	@echo "targets: all check check-stressed check-long check-chaos demo demo-vm demo-clean bench bench-scale bench-scale-loop bench-locate bench-sampler fuzz install uninstall deb clean deps"
	@echo "vars:    SANITIZE=address,undefined WERROR=1 V=1 DEBUG_BARRIER=$(DEBUG_BARRIER) BUILD=$(BUILD) PREFIX=$(PREFIX) DESTDIR="

# Rebuild everything when the compiler flags change.
FLAGS_STAMP := $(BUILD)/.flags
$(FLAGS_STAMP): FORCE | $(DEPS)
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' > $@
FORCE:

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB): $(call obj,$(LIB_SRCS))
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(AGENT): $(call obj,$(AGENT_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(AGENT_LIBS) -lm

$(CTL): $(call obj,$(CTL_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests: one CUnit runner; every tests/unit/test_NAME.c defines `int suite_NAME(void)`.
$(SUITES_H): $(wildcard tests/unit/test_*.c)
	@mkdir -p $(dir $@)
	$(Q)for f in $(sort $(notdir $(basename $(wildcard tests/unit/test_*.c)))); do \
	        n=$${f#test_}; echo "SUITE($$n)"; done > $@.tmp && mv $@.tmp $@

$(call obj,$(wildcard tests/unit/*.c)): $(SUITES_H)
$(BUILD)/obj/tests/unit/%.o: CFLAGS += -I$(BUILD)/gen -include tests/unit/suites.h

# NIC behaviour models behind the netlink seam (tests/nicmodel/nicmodel.h).
$(NICMODEL): $(call obj,tests/nicmodel/main.c $(NM_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(UNIT): $(call obj,$(UNIT_SRCS)) $(AGENT_LIB_OBJS) $(CTL_LIB_OBJS) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(TEST_LIBS)

$(SIM): $(call obj,$(SIM_SRCS)) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(call obj,$(filter-out tests/lib/main.c,$(wildcard tests/lib/*.c))) $(AGENT_LIB_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The floor of bench/ctl_scale.sh handles TLS material exactly as the controller's fan-out does.
$(BUILD)/tools/https_floor: $(call obj,controller/fleet/fleet_tls.c)

# Keep the tools' objects: an incremental build relinks nothing that did not change.
.SECONDARY: $(patsubst %,$(BUILD)/obj/tests/tools/%.o,$(notdir $(basename $(TOOL_SRCS))))

test-bins: all $(UNIT) $(if $(SIM_SRCS),$(SIM)) $(NICMODEL) $(TOOLS)

# libFuzzer harnesses, built with clang into their own object tree.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 $(INCLUDES) $(PKG_CFLAGS) -pthread \
               -fsanitize=fuzzer-no-link,address,undefined -DNETTUNE_VERSION='"$(VERSION)"'
# Plus the controller's parsers of agent answers, etcd replies, store records and the inventory
# (pure: jansson and the library only).
FUZZ_LIB_OBJS := $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(LIB_SRCS) controller/fleet/reply.c \
                   controller/store/etcd_reply.c controller/store/store_record.c controller/model/model.c controller/model/model_opts.c controller/rollout/rollout.c \
                   controller/rollout/rollout_judge.c controller/fleet/inventory.c controller/fabric/fabric_reply.c)
$(BUILD)/fuzzobj/%.o: %.c | $(DEPS)
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

# make check with `stress-ng --cpu $(STRESS_CPUS)` beside it: no test may race a
# wall-clock timer shorter than the work before its assertion.
STRESS_CPUS ?= 2
check-stressed: deps-check test-bins
	$(Q)BUILD=$(BUILD) STRESS_CPUS=$(STRESS_CPUS) tests/check-stressed.sh

# The integration cases of tests/integration/LONG (minutes each: nettunectl tune's
# measured trials, kill -9 and Ctrl-C mid-trial): not part of `make check`.
check-long: deps-check test-bins
	$(Q)BUILD=$(BUILD) LONG=1 TESTS="@($$(paste -sd'|' tests/integration/LONG))" bash -O extglob tests/integration/run.sh

# Randomized fault loops (kill -9 of the agent, controller and etcd faults), CHAOS_SECONDS
# each (default 300): not part of `make check`; their figures go into bench/RESULTS.md.
check-chaos: deps-check test-bins
	$(Q)BUILD=$(BUILD) tests/chaos/run.sh

# Build dependencies present? If not, install them (root on Debian) — `make deps`.
deps-check:
	$(Q).ci/deps.sh --check >/dev/null 2>&1 || .ci/deps.sh

deps-build:
	$(Q)$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || .ci/deps.sh

deps:
	$(Q).ci/deps.sh

demo: deps-check all $(SIM) $(NICMODEL)
	$(Q)BUILD=$(BUILD) examples/demo/run.sh

# The ECN story in the VM lab's Debian guest (for kernels without sch_ets/sch_red).
demo-vm: deps-check all
	$(Q)BUILD=$(BUILD) examples/demo/ecn-vm.sh

demo-clean:
	$(Q)examples/demo/run.sh --clean

bench: deps-check all test-bins
	$(Q)BUILD=$(BUILD) bench/run.sh

# The controller at 1,000, 5,000 and 10,000 nodes against the protocol's floor (bench/ctl_scale.sh): heavy,
# so neither in `bench` nor in `check`. bench-scale-loop: ten consecutive 10,000-node rollouts.
bench-scale: deps-check all test-bins
	$(Q)BUILD=$(BUILD) BENCH=ctl_scale BENCH_TIMEOUT=$${BENCH_TIMEOUT:-7200} bench/run.sh
bench-scale-loop: deps-check all test-bins
	$(Q)BUILD=$(BUILD) BENCH=ctl_scale_loop BENCH_TIMEOUT=$${BENCH_TIMEOUT:-7200} bench/run.sh

# nettunectl locate on 64 and 200 real agents in racks, faults injected one at a time and
# twenty runs on the clean lab (bench/locate_lab.sh): minutes, so neither in `bench` nor in `check`.
bench-locate: deps-check all test-bins
	$(Q)BUILD=$(BUILD) BENCH=locate_lab BENCH_TIMEOUT=$${BENCH_TIMEOUT:-3600} bench/run.sh

# The counter sampler's CPU at 10 ms on 2 and 32 ports against the floor of its reads (bench/counter_sampler.sh):
# minutes, so neither in `bench` nor in `check`.
bench-sampler: deps-check all test-bins
	$(Q)BUILD=$(BUILD) BENCH=counter_sampler BENCH_TIMEOUT=$${BENCH_TIMEOUT:-1800} bench/run.sh

# Binaries, man pages, profiles, bash completion and the systemd units (their
# ExecStart= pointing at BINDIR). The Debian package calls it with PREFIX=/usr.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/nettune/profiles/vendor $(DESTDIR)$(MANDIR)/man8 \
	           $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMD_UNITDIR)
	install -m 0755 $(AGENT) $(CTL) $(DESTDIR)$(BINDIR)/
	install -m 0644 policies/profiles/*.json policies/schema.json $(DESTDIR)$(PREFIX)/share/nettune/profiles/
	install -m 0644 policies/profiles/vendor/*.json $(DESTDIR)$(PREFIX)/share/nettune/profiles/vendor/
	install -m 0644 docs/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 examples/bash-completion/nettune-agent examples/bash-completion/nettunectl $(DESTDIR)$(BASHCOMPDIR)/
	for u in examples/systemd/*.in; do \
	        sed 's|@bindir@|$(BINDIR)|g' $$u > $(DESTDIR)$(SYSTEMD_UNITDIR)/$$(basename $$u .in) && \
	        chmod 0644 $(DESTDIR)$(SYSTEMD_UNITDIR)/$$(basename $$u .in) || exit 1; \
	done
	install -m 0644 examples/systemd/*.timer $(DESTDIR)$(SYSTEMD_UNITDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/nettune-agent $(DESTDIR)$(BINDIR)/nettunectl
	rm -f $(DESTDIR)$(MANDIR)/man8/nettune-agent.8 $(DESTDIR)$(MANDIR)/man8/nettunectl.8
	rm -f $(DESTDIR)$(BASHCOMPDIR)/nettune-agent $(DESTDIR)$(BASHCOMPDIR)/nettunectl
	rm -f $(patsubst examples/systemd/%.in,$(DESTDIR)$(SYSTEMD_UNITDIR)/%,$(wildcard examples/systemd/*.in)) \
	      $(patsubst examples/systemd/%,$(DESTDIR)$(SYSTEMD_UNITDIR)/%,$(wildcard examples/systemd/*.timer))
	rm -rf $(DESTDIR)$(PREFIX)/share/nettune

# The Debian package of this tree, built with dpkg-buildpackage on a copy of it and
# checked with lintian: $(BUILD)/deb/nettune_$(VERSION)_ARCH.deb (debian/make-deb.sh).
deb: deps-check
	$(Q)BUILD=$(BUILD) debian/make-deb.sh

clean:
	rm -rf $(BUILD)

.PHONY: deps-check deps-build FORCE
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
